// Unit tests of the sticky-comment decisions (pure functions), run by
// tests/github_action.rs as `node --test action/sticky-comment.test.mjs`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  MARKER, hasMarker, isOurs, selectComment, planComment, pullRequestTarget, commentBody, nextPageUrl,
  markerFor, findings, shouldComment, capped, main, COMMENT_LIMIT,
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

test("each id has its own marker, which another id's comment does not carry", () => {
  assert.equal(markerFor(""), MARKER);
  assert.equal(markerFor("ubuntu-latest"), "<!-- perfatlas-check id=ubuntu-latest -->");
  assert.equal(markerFor("a b-->x"), "<!-- perfatlas-check id=a-b---x -->");
  const linux = { user: { type: "Bot" }, body: `${markerFor("linux")}\nr`, id: 1 };
  const plain = { user: { type: "Bot" }, body: `${MARKER}\nr`, id: 2 };
  assert.equal(selectComment([linux, plain], [], "linux").id, 1);
  assert.equal(selectComment([linux, plain]).id, 2);
  assert.equal(selectComment([plain], [], "windows"), null);
  // The report's own marker is replaced by the id's, never doubled.
  assert.equal(commentBody(`${MARKER}\nr\n`, "linux"), `${markerFor("linux")}\nr\n`);
  assert.equal(commentBody(`${markerFor("linux")}\nr\n`, "linux"), `${markerFor("linux")}\nr\n`);
});

test("comment-on: always posts; change and regression post on what they name, and update what exists", () => {
  const clean = findings(`${MARKER}\n<!-- perfatlas-findings regressions=0 improvements=0 failed=false -->\n`);
  const faster = { regressions: 0, improvements: 2, failed: false };
  const slower = { regressions: 1, improvements: 0, failed: true };
  assert.deepEqual(clean, { regressions: 0, improvements: 0, failed: false });
  assert.ok(shouldComment("always", clean, null).post);
  assert.ok(!shouldComment("change", clean, null).post);
  assert.ok(shouldComment("change", faster, null).post);
  assert.ok(!shouldComment("regression", faster, null).post);
  assert.ok(shouldComment("regression", slower, null).post);
  // A fix is seen: the earlier comment is updated.
  assert.ok(shouldComment("regression", clean, { id: 5 }).post);
  assert.match(shouldComment("regression", clean, null).reason, /no regression and no earlier comment/);
  // A report from before the findings line is posted.
  assert.ok(shouldComment("regression", findings("no line"), null).post);
});

test("a body over GitHub's limit is cut after a line, its fold closed, the cut said", () => {
  const rows = Array.from({ length: 3000 }, (_, i) => `- <code>bench_${i}</code>: 10 ms → 10 ms`).join("\n");
  const body = `${MARKER}\nhead\n<details><summary>s</summary>\n\n${rows}\n</details>\n`;
  assert.ok(body.length > 65536 / 1.5);
  const cut = capped(body, 40000);
  assert.ok(cut.length <= 40000, String(cut.length));
  assert.match(cut, /<\/details>\n+… cut here: the report is longer than a pull-request comment may be/);
  assert.match(cut.split("\n</details>")[0], /: 10 ms → 10 ms$/, "cut after a whole line");
  assert.equal(capped("short", 40000), "short");
  assert.equal(COMMENT_LIMIT, 65536);
});

/** A stand-in for GitHub's issue-comment API that keeps the comments it
 * is given: GET lists them, POST adds one, PATCH edits one. */
async function statefulGitHub() {
  const comments = [];
  const server = createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      const reply = (status, json) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      const list = "/repos/octo-org/octo-repo/issues/7/comments";
      if (req.method === "GET" && req.url.startsWith(list)) return reply(200, comments);
      if (req.method === "POST" && req.url === list) {
        const c = { id: 100 + comments.length, body: JSON.parse(data).body, user: { login: "github-actions[bot]", type: "Bot" } };
        c.html_url = `https://github.com/octo-org/octo-repo/pull/7#issuecomment-${c.id}`;
        comments.push(c);
        return reply(201, c);
      }
      const m = /^\/repos\/octo-org\/octo-repo\/issues\/comments\/(\d+)$/.exec(req.url);
      const c = m && comments.find((x) => x.id === Number(m[1]));
      if (req.method === "PATCH" && c) {
        c.body = JSON.parse(data).body;
        return reply(200, c);
      }
      reply(404, { message: "Not Found" });
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { comments, server, api: `http://127.0.0.1:${server.address().port}` };
}

function report(regressions, text) {
  return `${MARKER}\n<!-- perfatlas-findings regressions=${regressions} improvements=0 failed=${regressions > 0} -->\n### ${text}\n`;
}

async function post(gh, body, env = {}) {
  const dir = mkdtempSync(join(tmpdir(), "perfatlas-comment-"));
  writeFileSync(join(dir, "report.md"), body);
  const lines = [];
  const code = await main([join(dir, "report.md")], {
    GITHUB_API_URL: gh.api,
    GITHUB_REPOSITORY: "octo-org/octo-repo",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: new URL("event-pull_request.json", data).pathname,
    INPUT_TOKEN: "ghs_test_token_not_real",
    ...env,
  }, (l) => lines.push(l));
  assert.equal(code, 0, lines.join("\n"));
  return lines.join("\n");
}

test("two jobs with different ids keep two comments, each updated in place", async () => {
  const gh = await statefulGitHub();
  try {
    await post(gh, report(1, "linux: slower"), { PERFATLAS_COMMENT_ID: "linux" });
    await post(gh, report(0, "windows: passed"), { PERFATLAS_COMMENT_ID: "windows" });
    await post(gh, report(0, "linux: fixed"), { PERFATLAS_COMMENT_ID: "linux" });
    assert.equal(gh.comments.length, 2);
    assert.equal(gh.comments[0].body.split("\n")[0], markerFor("linux"));
    assert.match(gh.comments[0].body, /linux: fixed/);
    assert.match(gh.comments[1].body, /windows: passed/);
  } finally {
    gh.server.close();
  }
});

test("comment-on: regression posts nothing on a clean run and updates its comment once fixed", async () => {
  const gh = await statefulGitHub();
  const on = { PERFATLAS_COMMENT_ON: "regression" };
  try {
    const said = await post(gh, report(0, "passed"), on);
    assert.match(said, /comment-on: regression: no regression and no earlier comment/);
    assert.equal(gh.comments.length, 0);
    await post(gh, report(1, "failed: 1 major regression"), on);
    assert.equal(gh.comments.length, 1);
    await post(gh, report(0, "passed"), on);
    assert.equal(gh.comments.length, 1);
    assert.match(gh.comments[0].body, /### passed/, "the fix is seen");
  } finally {
    gh.server.close();
  }
});
