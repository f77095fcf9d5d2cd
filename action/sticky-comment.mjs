#!/usr/bin/env node
// Posts or updates ONE pull-request comment holding `perfatlas check
// --format markdown`'s report. The report's first line is the hidden marker
// `<!-- perfatlas-check -->` (`<!-- perfatlas-check id=ID -->` with an id, so
// that several jobs of one pull request, an OS matrix or two inputs, keep
// one comment each); the comment that starts with it and was written by a
// bot (github-actions[bot] for the workflow's GITHUB_TOKEN, an app's
// `NAME[bot]`) or by the login given as `comment-author` is updated in place,
// so a pull request keeps one comment per id however often it is pushed to.
//
// Usage (inside a GitHub Actions step):
//   node action/sticky-comment.mjs BODY_FILE
//
// Reads the environment the Actions runner sets: GITHUB_TOKEN (or
// INPUT_TOKEN), GITHUB_API_URL (default https://api.github.com),
// GITHUB_REPOSITORY, GITHUB_EVENT_NAME, GITHUB_EVENT_PATH; optional
// PERFATLAS_COMMENT_AUTHOR (a login whose comments count as ours, for a
// personal access token), PERFATLAS_COMMENT_ID (the marker's id),
// PERFATLAS_COMMENT_ON (always, change or regression: when to post; an
// earlier comment is always updated, so a fix is seen) and GITHUB_OUTPUT
// (receives comment-action and comment-url). Node 18 or later (built-in
// fetch), no dependencies.
//
// Does nothing, and says why, when the event is not a pull request, when the
// pull request comes from a fork (its token cannot write there), or when no
// token is given. Exit status: 0 done or skipped, 1 an API call failed or the
// body file is unreadable.
//
// The decisions are pure exported functions (pullRequestTarget,
// isStickyComment, selectComment, planComment, shouldComment, commentBody,
// nextPageUrl); main() only does the HTTP calls they ask for.

import { readFileSync, appendFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

export const MARKER = "<!-- perfatlas-check -->";
export const DEFAULT_API_URL = "https://api.github.com";
/** GitHub refuses a comment body over 65,536 characters. */
export const COMMENT_LIMIT = 65536;
export const COMMENT_ON = ["always", "change", "regression"];
const PR_EVENTS = new Set(["pull_request", "pull_request_target"]);

/** The first line of `body`, without a byte-order mark or trailing `\r`. */
export function firstLine(body) {
  if (typeof body !== "string") return "";
  const line = body.replace(/^\uFEFF/, "").split("\n", 1)[0];
  return line.replace(/\r$/, "");
}

/** The marker of the comment of `id`: the report's own marker without an
 * id; with one, `<!-- perfatlas-check id=ID -->`, the id kept to letters,
 * digits and `._-` (anything else becomes `-`) so it cannot end the HTML
 * comment. */
export function markerFor(id = "") {
  const clean = String(id ?? "").trim().replace(/[^A-Za-z0-9._-]/g, "-");
  return clean ? `<!-- perfatlas-check id=${clean} -->` : MARKER;
}

/** Whether `body`'s first line is the marker of `id` (leading and trailing
 * blanks aside). A quote of the report (`> <!-- perfatlas-check -->`) does
 * not count, and neither does another id's marker. */
export function hasMarker(body, id = "") {
  return firstLine(body).trim() === markerFor(id);
}

/** Whether `comment` (an item of GET /repos/{owner}/{repo}/issues/{n}/comments)
 * was written by us: any bot account (`user.type == "Bot"`, such as
 * github-actions[bot]) or the login named in `authors`. */
export function isOurs(comment, authors = []) {
  const user = comment && comment.user;
  if (!user) return false;
  if (user.type === "Bot") return true;
  return authors.some((a) => a && a.toLowerCase() === String(user.login).toLowerCase());
}

/** Whether `comment` is the sticky comment of `id`: ours and marked. */
export function isStickyComment(comment, authors = [], id = "") {
  return isOurs(comment, authors) && hasMarker(comment.body, id);
}

/** The sticky comment of `id` among `comments` (in the API's order, oldest
 * first): the oldest one that qualifies, so that two racing runs that both
 * created one converge on the same comment. `null` when there is none. */
export function selectComment(comments, authors = [], id = "") {
  for (const c of comments) if (isStickyComment(c, authors, id)) return c;
  return null;
}

/** The counts of the report's hidden findings line
 * (`<!-- perfatlas-findings regressions=1 improvements=0 failed=true -->`),
 * or null when the report has none. */
export function findings(report) {
  const m = /^<!-- perfatlas-findings regressions=(\d+) improvements=(\d+) failed=(true|false) -->$/m
    .exec(String(report ?? ""));
  if (!m) return null;
  return { regressions: Number(m[1]), improvements: Number(m[2]), failed: m[3] === "true" };
}

/** Whether to post, by `comment-on`: `always`; on a `change` (a regression
 * or an improvement); on a `regression`. An earlier comment is updated
 * whatever the findings, so that a regression fixed by a later push is seen
 * fixed; a report without a findings line is posted. Returns
 * `{ post: true }` or `{ post: false, reason }`. */
export function shouldComment(commentOn, found, existing) {
  const on = commentOn || "always";
  if (on === "always" || existing || !found) return { post: true };
  if (on === "change" && found.regressions + found.improvements > 0) return { post: true };
  if (on === "regression" && found.regressions > 0) return { post: true };
  const what = on === "change" ? "no regression or improvement" : "no regression";
  return { post: false, reason: `comment-on: ${on}: ${what} and no earlier comment, so none is posted` };
}

/** From the event: where to comment, or why not.
 * Returns `{ skip: reason }` or `{ owner, repo, number }`. */
export function pullRequestTarget({ eventName, event, repository }) {
  if (!PR_EVENTS.has(eventName)) {
    return { skip: `event is ${eventName || "(unset)"}, not a pull request: no comment` };
  }
  const pr = event && event.pull_request;
  if (!pr || !Number.isInteger(pr.number ?? event.number)) {
    return { skip: "the event payload holds no pull request number: no comment" };
  }
  if (!repository || !/^[^/]+\/[^/]+$/.test(repository)) {
    return { skip: `GITHUB_REPOSITORY is ${JSON.stringify(repository)}, not OWNER/REPO: no comment` };
  }
  const head = pr.head && pr.head.repo ? pr.head.repo.full_name : null;
  if (!head || head.toLowerCase() !== repository.toLowerCase()) {
    return {
      skip:
        `pull request from a fork (${head || "deleted repository"}, not ${repository}): ` +
        "its token cannot write comments here, so none is posted; the report is in the job summary",
    };
  }
  const [owner, repo] = repository.split("/");
  return { owner, repo, number: pr.number ?? event.number };
}

/** What to do, given the sticky comment found (or null) and the new body:
 * `{ action: "create" }`, `{ action: "update", id }` or
 * `{ action: "unchanged", id }` (same text: no request). */
export function planComment(existing, body) {
  if (!existing) return { action: "create" };
  if (existing.body === body) return { action: "unchanged", id: existing.id, url: existing.html_url };
  return { action: "update", id: existing.id, url: existing.html_url };
}

/** The body to post: the report with the marker of `id` first (in place
 * of the report's own marker, or before a report that lacks one), so that
 * the next run of the same job finds the comment; cut to `limit`
 * characters at a line when longer, saying so. */
export function commentBody(report, id = "", limit = COMMENT_LIMIT) {
  const text = report.replace(/^\uFEFF/, "");
  const marker = markerFor(id);
  const body = hasMarker(text) || hasMarker(text, id)
    ? `${marker}${text.slice(text.indexOf("\n") === -1 ? text.length : text.indexOf("\n"))}`
    : `${marker}\n${text}`;
  return capped(body, limit);
}

/** `body` within `limit` characters (UTF-16 units, which are never fewer
 * than GitHub's characters): cut after a whole line, an open `<details>`
 * closed, and the cut said. */
export function capped(body, limit = COMMENT_LIMIT) {
  if (body.length <= limit) return body;
  const note = "\n\n… cut here: the report is longer than a pull-request comment may be; the job summary has all of it.\n";
  const close = "\n</details>\n";
  let cut = body.lastIndexOf("\n", limit - note.length - close.length);
  if (cut < 0) cut = 0;
  let head = body.slice(0, cut);
  const open = (head.match(/<details>/g) || []).length - (head.match(/<\/details>/g) || []).length;
  if (open > 0) head += close;
  return head + note;
}

/** The `rel="next"` URL of a `Link` header, when it lies on the API's own
 * origin (the token is sent to it); otherwise null. */
export function nextPageUrl(linkHeader, apiUrl) {
  if (!linkHeader) return null;
  for (const part of linkHeader.split(",")) {
    const m = part.match(/<([^>]+)>\s*;(.*)/);
    if (!m) continue;
    const rel = /\brel\s*=\s*"?([^";]*)"?/.exec(m[2]);
    if (!rel || !rel[1].trim().split(/\s+/).includes("next")) continue;
    try {
      const next = new URL(m[1], apiUrl);
      if (next.origin !== new URL(apiUrl).origin) return null;
      return next.href;
    } catch {
      return null;
    }
  }
  return null;
}

// ---- HTTP ----------------------------------------------------------------

function apiBase(env) {
  return (env.GITHUB_API_URL || DEFAULT_API_URL).replace(/\/+$/, "");
}

async function request(method, url, token, body) {
  const headers = {
    Accept: "application/vnd.github+json",
    Authorization: `Bearer ${token}`,
    "User-Agent": "perfatlas-action",
    "X-GitHub-Api-Version": "2022-11-28",
  };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      message = JSON.parse(text).message ?? text;
    } catch {}
    const hint = res.status === 403 || res.status === 404
      ? " (does the job have `permissions: pull-requests: write`?)"
      : "";
    throw new Error(`${method} ${new URL(url).pathname}: HTTP ${res.status}: ${message}${hint}`);
  }
  return { json: text ? JSON.parse(text) : null, link: res.headers.get("link") };
}

/** Walks the pull request's comments page by page and returns the sticky
 * one, stopping at the first page that holds it. */
async function findSticky(env, token, target, authors, id) {
  const base = apiBase(env);
  let url = `${base}/repos/${target.owner}/${target.repo}/issues/${target.number}/comments?per_page=100`;
  for (let page = 1; url; page++) {
    if (page > 100) throw new Error("more than 100 pages of comments: giving up");
    const { json, link } = await request("GET", url, token);
    if (!Array.isArray(json)) throw new Error(`GET ${new URL(url).pathname}: not a list of comments`);
    const found = selectComment(json, authors, id);
    if (found) return found;
    url = nextPageUrl(link, base);
  }
  return null;
}

function setOutput(env, name, value) {
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

export async function main(argv = process.argv.slice(2), env = process.env, log = console.log) {
  const bodyFile = argv[0] || env.PERFATLAS_COMMENT_FILE;
  if (!bodyFile) {
    log("::error::sticky-comment: usage: sticky-comment.mjs BODY_FILE");
    return 1;
  }
  let event = null;
  if (env.GITHUB_EVENT_PATH) {
    try {
      event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8"));
    } catch (e) {
      log(`::warning::sticky-comment: cannot read the event payload ${env.GITHUB_EVENT_PATH}: ${e.message}`);
    }
  }
  const target = pullRequestTarget({
    eventName: env.GITHUB_EVENT_NAME,
    event,
    repository: env.GITHUB_REPOSITORY,
  });
  if (target.skip) {
    log(`sticky-comment: ${target.skip}`);
    setOutput(env, "comment-action", "skipped");
    return 0;
  }
  const token = env.INPUT_TOKEN || env.GITHUB_TOKEN;
  if (!token) {
    log("sticky-comment: no token (GITHUB_TOKEN or the action's `token` input): no comment");
    setOutput(env, "comment-action", "skipped");
    return 0;
  }
  const id = env.PERFATLAS_COMMENT_ID || "";
  const commentOn = (env.PERFATLAS_COMMENT_ON || "always").trim();
  if (!COMMENT_ON.includes(commentOn)) {
    log(`::error::sticky-comment: comment-on must be always, change or regression; not '${commentOn}'`);
    return 1;
  }
  let body;
  try {
    body = commentBody(readFileSync(bodyFile, "utf8"), id);
  } catch (e) {
    log(`::error::sticky-comment: cannot read ${bodyFile}: ${e.message}`);
    return 1;
  }
  const authors = (env.PERFATLAS_COMMENT_AUTHOR || "").split(",").map((s) => s.trim()).filter(Boolean);
  const base = apiBase(env);
  const { owner, repo, number } = target;
  try {
    const existing = await findSticky(env, token, target, authors, id);
    const decision = shouldComment(commentOn, findings(body), existing);
    if (!decision.post) {
      log(`sticky-comment: ${decision.reason}`);
      setOutput(env, "comment-action", "skipped");
      return 0;
    }
    const plan = planComment(existing, body);
    let url = plan.url;
    if (plan.action === "create") {
      const { json } = await request("POST", `${base}/repos/${owner}/${repo}/issues/${number}/comments`, token, { body });
      url = json && json.html_url;
      log(`sticky-comment: created ${url || "a comment"} on ${owner}/${repo}#${number}`);
    } else if (plan.action === "update") {
      const { json } = await request("PATCH", `${base}/repos/${owner}/${repo}/issues/comments/${plan.id}`, token, { body });
      url = (json && json.html_url) || url;
      log(`sticky-comment: updated comment ${plan.id} (${url}) on ${owner}/${repo}#${number}`);
    } else {
      log(`sticky-comment: comment ${plan.id} already says this; left as it is`);
    }
    setOutput(env, "comment-action", plan.action === "create" ? "created" : plan.action === "update" ? "updated" : "unchanged");
    if (url) setOutput(env, "comment-url", url);
    return 0;
  } catch (e) {
    log(`::error::sticky-comment: ${e.message}`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] || "").href) {
  process.exitCode = await main();
}
