// Unit tests of the sticky-comment decisions (pure functions), run by
// tests/github_action.rs as `node --test action/sticky-comment.test.mjs`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  MARKER, hasMarker, isOurs, selectComment, planComment, pullRequestTarget, commentBody, nextPageUrl,
} from "./sticky-comment.mjs";

const data = new URL("../tests/data/github-api/", import.meta.url);
const load = (name) => JSON.parse(readFileSync(new URL(name, data), "utf8"));
const page1 = load("comments-page-1.json");
const page2 = load("comments-page-2.json");

test("the marker counts only at the start of the first line", () => {
  assert.ok(hasMarker(`${MARKER}\n**verdict**`));
  assert.ok(hasMarker(`\uFEFF${MARKER}\r\nx`));
  assert.ok(!hasMarker(`> ${MARKER}\n> quoted`));
  assert.ok(!hasMarker(`hello\n${MARKER}`));
  assert.ok(!hasMarker(null));
});

test("a person's comment is never ours, even carrying the marker first", () => {
  const pasted = page1.find((c) => c.id === 1003);
  assert.ok(hasMarker(pasted.body));
  assert.ok(!isOurs(pasted));
  assert.equal(selectComment(page1), null);
  // ...unless that person is the configured author (a personal access token)
  assert.equal(selectComment(page1, ["Bob-Reviewer"]).id, 1003);
});

test("github-actions[bot]'s marked comment is selected, another bot's unmarked one is not", () => {
  assert.equal(selectComment([...page1, ...page2]).id, 2002);
  assert.equal(selectComment(page1.filter((c) => c.user.type === "Bot")), null);
});

test("of two marked comments the oldest is kept", () => {
  const a = page2.find((c) => c.id === 2002);
  const b = { ...a, id: 2999 };
  assert.equal(selectComment([a, b]).id, 2002);
});

test("plan: create, update, or leave an identical comment alone", () => {
  const ours = page2.find((c) => c.id === 2002);
  assert.deepEqual(planComment(null, "x"), { action: "create" });
  assert.equal(planComment(ours, `${MARKER}\nnew`).action, "update");
  assert.equal(planComment(ours, `${MARKER}\nnew`).id, 2002);
  assert.equal(planComment(ours, ours.body).action, "unchanged");
});

test("where to comment: same-repository pull requests only", () => {
  const pr = load("event-pull_request.json");
  assert.deepEqual(pullRequestTarget({ eventName: "pull_request", event: pr, repository: "octo-org/octo-repo" }),
    { owner: "octo-org", repo: "octo-repo", number: 7 });
  const fork = pullRequestTarget({ eventName: "pull_request", event: load("event-pull_request-fork.json"), repository: "octo-org/octo-repo" });
  assert.match(fork.skip, /fork \(mallory\/octo-repo/);
  const push = pullRequestTarget({ eventName: "push", event: load("event-push.json"), repository: "octo-org/octo-repo" });
  assert.match(push.skip, /event is push, not a pull request/);
  const gone = structuredClone(pr);
  gone.pull_request.head.repo = null; // the fork was deleted
  assert.ok(pullRequestTarget({ eventName: "pull_request", event: gone, repository: "octo-org/octo-repo" }).skip);
});

test("the body gets the marker when the report lacks it, once", () => {
  assert.equal(commentBody("**verdict**\n"), `${MARKER}\n**verdict**\n`);
  assert.equal(commentBody(`${MARKER}\n**verdict**\n`), `${MARKER}\n**verdict**\n`);
});

test("pagination follows rel=next on the API's own origin only", () => {
  const api = "https://api.github.com";
  const link = '<https://api.github.com/repositories/1296269/issues/7/comments?per_page=100&page=2>; rel="next", ' +
    '<https://api.github.com/repositories/1296269/issues/7/comments?per_page=100&page=5>; rel="last"';
  assert.equal(nextPageUrl(link, api), "https://api.github.com/repositories/1296269/issues/7/comments?per_page=100&page=2");
  assert.equal(nextPageUrl('<https://api.github.com/x?page=1>; rel="prev"', api), null);
  assert.equal(nextPageUrl('<https://elsewhere.example/x?page=2>; rel="next"', api), null);
  assert.equal(nextPageUrl(null, api), null);
});
