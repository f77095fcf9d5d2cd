//! The GitHub action (`action.yml`, `action/`), run here as far as it can
//! be without GitHub: the sticky-comment script against a stand-in for the
//! GitHub REST API on 127.0.0.1 that serves stored responses
//! (`tests/data/github-api/`), with the environment the Actions runner
//! sets; the action's shell steps with the real `perfatlas`; and the action
//! and example workflows against the Actions schemas (action-validator).
//!
//! Node (18 or later, for its built-in fetch) and action-validator are
//! external tools: without them a test says so and passes, except under CI
//! (env `CI` set), where a missing node fails; `.ci/run` installs both.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const REPO: &str = "octo-org/octo-repo";
const COMMENTS: &str = "/repos/octo-org/octo-repo/issues/7/comments";
const MARKER: &str = "<!-- perfatlas-check -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn api_data(name: &str) -> PathBuf {
    root().join("tests/data/github-api").join(name)
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(api_data(name)).unwrap_or_else(|e| panic!("read {name}: {e}"))
}

/// `node`, when it is there and new enough (18+: global fetch and
/// AbortSignal.timeout); `None` (the test returns) outside CI; a failure
/// under CI, where `.ci/run` installs it.
fn node() -> Option<PathBuf> {
    let version = Command::new("node").arg("--version").output();
    let why = match version {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
            let major: u32 = text
                .trim_start_matches('v')
                .split('.')
                .next()
                .and_then(|m| m.parse().ok())
                .unwrap_or(0);
            if major >= 18 {
                return Some(PathBuf::from("node"));
            }
            format!("node {text} is older than 18")
        }
        Ok(out) => format!("node --version exited {:?}", out.status.code()),
        Err(e) => format!("node not found: {e}"),
    };
    if std::env::var_os("CI").is_some() {
        panic!("{why}; under CI it is required (.ci/run installs Debian's nodejs)");
    }
    eprintln!("skipped: {why} (install Debian's nodejs to run this test)");
    None
}

/// One request the stand-in API received.
#[derive(Debug, Clone)]
struct Request {
    method: String,
    /// Path and query, as sent.
    target: String,
    headers: BTreeMap<String, String>,
    body: String,
}

/// What the stand-in answers to `METHOD TARGET`.
struct Route {
    method: &'static str,
    target: String,
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

fn route(method: &'static str, target: &str, status: u16, body: String) -> Route {
    Route {
        method,
        target: target.to_string(),
        status,
        headers: Vec::new(),
        body,
    }
}

/// A stand-in for api.github.com on 127.0.0.1: answers routes given by the
/// test (anything else is a 404 as the API gives it) and records every
/// request. Each answer closes its connection; the server stops when
/// dropped, and by itself after a minute at most.
struct FakeGitHub {
    base: String,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakeGitHub {
    /// `routes` receives the server's base URL (for `Link` headers).
    fn start(routes: impl FnOnce(&str) -> Vec<Route>) -> FakeGitHub {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        listener.set_nonblocking(true).expect("nonblocking");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let routes = routes(&base);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (requests, stop) = (requests.clone(), stop.clone());
            std::thread::spawn(move || {
                let deadline = Instant::now() + Duration::from_secs(60);
                while !stop.load(Ordering::SeqCst) && Instant::now() < deadline {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            if let Some(req) = serve(stream, &routes) {
                                requests.lock().unwrap().push(req);
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            std::thread::sleep(Duration::from_millis(5))
                        }
                        Err(_) => break,
                    }
                }
            })
        };
        FakeGitHub {
            base,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for FakeGitHub {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reads one HTTP/1.1 request from `stream`, answers it, and returns it.
fn serve(stream: TcpStream, routes: &[Route]) -> Option<Request> {
    stream.set_nonblocking(false).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    let req = Request {
        method,
        target,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let found = routes
        .iter()
        .find(|r| r.method == req.method && r.target == req.target);
    let (status, extra, body) = match found {
        Some(r) => (r.status, r.headers.clone(), r.body.clone()),
        None => (
            404,
            Vec::new(),
            r#"{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}"#
                .to_string(),
        ),
    };
    let reason = match status {
        200 => "OK",
        201 => "Created",
        403 => "Forbidden",
        _ => "Not Found",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json; charset=utf-8\r\n\
         content-length: {}\r\nx-github-api-version-selected: 2022-11-28\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut stream = stream;
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body.as_bytes()).ok()?;
    stream.flush().ok()?;
    Some(req)
}

/// The two pages of comments, page 1 pointing at page 2 as the API does
/// (an absolute URL under /repositories/{id}/…).
fn comment_pages(base: &str) -> Vec<Route> {
    let page2 = "/repositories/1296269/issues/7/comments?per_page=100&page=2";
    let mut first = route(
        "GET",
        &format!("{COMMENTS}?per_page=100"),
        200,
        fixture("comments-page-1.json"),
    );
    first.headers.push((
        "link".into(),
        format!("<{base}{page2}>; rel=\"next\", <{base}{page2}>; rel=\"last\""),
    ));
    vec![
        first,
        route("GET", page2, 200, fixture("comments-page-2.json")),
    ]
}

fn write_routes() -> Vec<Route> {
    vec![
        route(
            "PATCH",
            "/repos/octo-org/octo-repo/issues/comments/2002",
            200,
            fixture("comment-updated.json"),
        ),
        route("POST", COMMENTS, 201, fixture("comment-created.json")),
    ]
}

/// A run of `node action/sticky-comment.mjs REPORT` as the runner would
/// start it: only the runner's variables, none of this machine's GITHUB_*.
struct Run {
    output: Output,
    summary: String,
    outputs: String,
    report: String,
}

fn run_script(node: &Path, api: &str, event_name: &str, event_file: &str, token: bool) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let report = format!(
        "{MARKER}\n**perfatlas check: 1 major regression** (1.04 against 1.03)\n\n\
         | benchmark | base → head | Δ | p | category |\n|---|---|---|---|---|\n\
         | parse | 10.0 ms → 14.2 ms | +42.0% | 0.001 | major |\n"
    );
    let report_path = dir.path().join("perfatlas-check.md");
    std::fs::write(&report_path, &report).unwrap();
    let summary = dir.path().join("step_summary.md");
    let outputs = dir.path().join("github_output");
    std::fs::write(&summary, "").unwrap();
    std::fs::write(&outputs, "").unwrap();
    let event = dir.path().join("event.json");
    std::fs::copy(api_data(event_file), &event).unwrap();
    let mut cmd = Command::new(node);
    cmd.current_dir(root())
        .arg("action/sticky-comment.mjs")
        .arg(&report_path)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_API_URL", api)
        .env("GITHUB_REPOSITORY", REPO)
        .env("GITHUB_EVENT_NAME", event_name)
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs);
    if token {
        cmd.env("INPUT_TOKEN", "ghs_test_token_not_real");
    }
    let output = cmd.output().expect("run node");
    Run {
        output,
        summary: std::fs::read_to_string(&summary).unwrap(),
        outputs: std::fs::read_to_string(&outputs).unwrap(),
        report,
    }
}

fn log(run: &Run) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        run.output.status.code(),
        String::from_utf8_lossy(&run.output.stdout),
        String::from_utf8_lossy(&run.output.stderr)
    )
}

fn calls(requests: &[Request]) -> Vec<String> {
    requests
        .iter()
        .map(|r| format!("{} {}", r.method, r.target))
        .collect()
}

/// The `body` the script sent (`{"body": "…"}`).
fn sent_body(req: &Request) -> String {
    let v: serde_json::Value = serde_json::from_str(&req.body).expect("a JSON request body");
    v["body"].as_str().expect("a string body").to_string()
}

#[test]
fn updates_the_marked_bot_comment_found_on_page_two() {
    let Some(node) = node() else { return };
    let api = FakeGitHub::start(|base| {
        let mut r = comment_pages(base);
        r.extend(write_routes());
        r
    });
    let run = run_script(
        &node,
        &api.base,
        "pull_request",
        "event-pull_request.json",
        true,
    );
    let requests = api.requests();
    assert!(run.output.status.success(), "{}", log(&run));
    assert_eq!(
        calls(&requests),
        [
            format!("GET {COMMENTS}?per_page=100"),
            "GET /repositories/1296269/issues/7/comments?per_page=100&page=2".to_string(),
            "PATCH /repos/octo-org/octo-repo/issues/comments/2002".to_string(),
        ],
        "{}",
        log(&run)
    );
    let patch = &requests[2];
    assert_eq!(
        sent_body(patch),
        run.report,
        "the comment is the report, as is"
    );
    // The headers the REST API asks for, and the token.
    assert_eq!(
        patch.headers.get("authorization").map(String::as_str),
        Some("Bearer ghs_test_token_not_real")
    );
    assert_eq!(
        patch.headers.get("accept").map(String::as_str),
        Some("application/vnd.github+json")
    );
    assert!(patch.headers.contains_key("user-agent"));
    assert!(
        run.outputs.contains("comment-action=updated\n"),
        "{}",
        run.outputs
    );
    assert!(
        run.outputs.contains(
            "comment-url=https://github.com/octo-org/octo-repo/pull/7#issuecomment-2002\n"
        ),
        "{}",
        run.outputs
    );
    assert!(
        run.summary.is_empty(),
        "the script leaves the job summary to the check step"
    );
}

#[test]
fn creates_a_comment_when_only_people_carry_the_marker() {
    let Some(node) = node() else { return };
    // One page (no Link header): people's comments, one quoting the report
    // and one pasting it whole with the marker first, and another bot's.
    let api = FakeGitHub::start(|_| {
        let mut r = vec![route(
            "GET",
            &format!("{COMMENTS}?per_page=100"),
            200,
            fixture("comments-page-1.json"),
        )];
        r.extend(write_routes());
        r
    });
    let run = run_script(
        &node,
        &api.base,
        "pull_request",
        "event-pull_request.json",
        true,
    );
    let requests = api.requests();
    assert!(run.output.status.success(), "{}", log(&run));
    assert_eq!(
        calls(&requests),
        [
            format!("GET {COMMENTS}?per_page=100"),
            format!("POST {COMMENTS}"),
        ],
        "a person's comment (id 1002 quoting, 1003 pasting) is never taken over\n{}",
        log(&run)
    );
    assert_eq!(sent_body(&requests[1]), run.report);
    assert!(
        run.outputs.contains("comment-action=created\n"),
        "{}",
        run.outputs
    );
}

#[test]
fn creates_a_comment_on_a_pull_request_without_comments() {
    let Some(node) = node() else { return };
    let api = FakeGitHub::start(|_| {
        let mut r = vec![route(
            "GET",
            &format!("{COMMENTS}?per_page=100"),
            200,
            "[]".into(),
        )];
        r.extend(write_routes());
        r
    });
    let run = run_script(
        &node,
        &api.base,
        "pull_request",
        "event-pull_request.json",
        true,
    );
    assert!(run.output.status.success(), "{}", log(&run));
    assert_eq!(
        calls(&api.requests()),
        [
            format!("GET {COMMENTS}?per_page=100"),
            format!("POST {COMMENTS}"),
        ]
    );
}

#[test]
fn a_forks_pull_request_gets_no_request_at_all() {
    let Some(node) = node() else { return };
    let api = FakeGitHub::start(comment_pages);
    let run = run_script(
        &node,
        &api.base,
        "pull_request",
        "event-pull_request-fork.json",
        true,
    );
    assert!(run.output.status.success(), "{}", log(&run));
    assert!(api.requests().is_empty(), "{:?}", calls(&api.requests()));
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    assert!(
        stdout.contains("from a fork (mallory/octo-repo"),
        "{}",
        log(&run)
    );
    assert!(run.outputs.contains("comment-action=skipped\n"));
}

#[test]
fn a_push_gets_no_request_at_all() {
    let Some(node) = node() else { return };
    let api = FakeGitHub::start(comment_pages);
    let run = run_script(&node, &api.base, "push", "event-push.json", true);
    assert!(run.output.status.success(), "{}", log(&run));
    assert!(api.requests().is_empty(), "{:?}", calls(&api.requests()));
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    assert!(
        stdout.contains("event is push, not a pull request"),
        "{}",
        log(&run)
    );
}

#[test]
fn without_a_token_nothing_is_sent() {
    let Some(node) = node() else { return };
    let api = FakeGitHub::start(comment_pages);
    let run = run_script(
        &node,
        &api.base,
        "pull_request",
        "event-pull_request.json",
        false,
    );
    assert!(run.output.status.success(), "{}", log(&run));
    assert!(api.requests().is_empty());
    assert!(String::from_utf8_lossy(&run.output.stdout).contains("no token"));
}

#[test]
fn a_token_that_cannot_write_fails_the_step_and_says_which_permission() {
    let Some(node) = node() else { return };
    let api = FakeGitHub::start(|_| {
        vec![
            route("GET", &format!("{COMMENTS}?per_page=100"), 200, "[]".into()),
            route("POST", COMMENTS, 403, fixture("error-403.json")),
        ]
    });
    let run = run_script(
        &node,
        &api.base,
        "pull_request",
        "event-pull_request.json",
        true,
    );
    assert_eq!(run.output.status.code(), Some(1), "{}", log(&run));
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    assert!(
        stdout.contains("::error::")
            && stdout.contains("HTTP 403")
            && stdout.contains("Resource not accessible by integration")
            && stdout.contains("pull-requests: write"),
        "{}",
        log(&run)
    );
}

/// The decisions (marker, author, pagination, fork) as unit tests of the
/// script's pure functions, in node's own test runner.
#[test]
fn the_scripts_pure_functions() {
    let Some(node) = node() else { return };
    let out = Command::new(node)
        .current_dir(root())
        .args(["--test", "action/sticky-comment.test.mjs"])
        .output()
        .expect("run node --test");
    assert!(
        out.status.success(),
        "node --test failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `action/run.sh STEP` as action.yml runs it: the runner's variables, the
/// real `perfatlas` first on PATH.
fn run_step(
    step: &str,
    env: &[(&str, &Path)],
    fail_on: &str,
    dir: &Path,
) -> (Output, String, String) {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_perfatlas")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let summary = dir.join("step_summary.md");
    let outputs = dir.join("github_output");
    std::fs::write(&summary, "").unwrap();
    std::fs::write(&outputs, "").unwrap();
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("action/run.sh"))
        .arg(step)
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .env("RUNNER_TEMP", dir)
        .env("INPUT_FAIL_ON", fail_on);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run bash");
    (
        out,
        std::fs::read_to_string(&summary).unwrap(),
        std::fs::read_to_string(&outputs).unwrap(),
    )
}

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_actions_build_and_check_steps_on_the_sample_data() {
    let dir = tempfile::tempdir().unwrap();
    let input = root().join("sample-data/python-markdown");
    let site = dir.path().join("site");
    let (out, _, outputs) = run_step(
        "build",
        &[("INPUT_INPUT", &input), ("INPUT_SITE", &site)],
        "major",
        dir.path(),
    );
    assert!(out.status.success(), "{}", show(&out));
    assert!(site.join("index.html").is_file(), "{}", show(&out));
    assert!(
        outputs.contains(&format!("site={}\n", site.display())),
        "{outputs}"
    );

    let (out, summary, outputs) =
        run_step("check", &[("INPUT_INPUT", &input)], "never", dir.path());
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        outputs.contains("exit-code=0\n") && outputs.contains("verdict=pass\n"),
        "{outputs}"
    );
    let report_path = dir.path().join("perfatlas-check.md");
    assert!(
        outputs.contains(&format!("report={}\n", report_path.display())),
        "{outputs}"
    );
    let report = std::fs::read_to_string(&report_path).unwrap();
    assert!(report.contains("convert-basic"), "{report}");
    assert_eq!(summary, report, "the job summary is the report");
}

#[test]
fn the_check_step_waits_for_a_second_version_and_rejects_a_bad_fail_on() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("history");
    std::fs::create_dir_all(input.join("run-1")).unwrap();
    let (out, summary, outputs) =
        run_step("check", &[("INPUT_INPUT", &input)], "major", dir.path());
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        outputs.contains("verdict=none\n") && !outputs.contains("report="),
        "{outputs}"
    );
    assert!(summary.contains("nothing to compare yet"), "{summary}");

    let (out, _, _) = run_step("check", &[("INPUT_INPUT", &input)], "sometimes", dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("fail-on must be major, minor or never"));
}

#[test]
fn the_check_step_tells_the_root_cause_with_the_builds_repo() {
    // moment 2.17.1 → 2.18.0 and moment's own history: the build's
    // `--repo` reaches the check, whose report names the function 2.18.0
    // changed (sample-data/moment/FINDINGS.md).
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("history");
    for version in ["2.17.1", "2.18.0"] {
        let to = input.join(version);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(root().join("sample-data/moment").join(version)).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    let repo = dir.path().join("moment-repo");
    let status = Command::new("git")
        .args(["clone", "-q"])
        .arg(root().join("sample-data/moment/history.bundle"))
        .arg(&repo)
        .status()
        .unwrap();
    assert!(status.success());
    let build_args = format!("--repo {} --strict", repo.display());
    let (out, summary, outputs) = run_step(
        "check",
        &[
            ("INPUT_INPUT", &input),
            ("INPUT_BUILD_ARGS", Path::new(&build_args)),
        ],
        "major",
        dir.path(),
    );
    assert!(out.status.success(), "{}", show(&out));
    assert!(outputs.contains("verdict=regression\n"), "{outputs}");
    assert!(
        summary
            .contains("<code>configFromRFC2822</code> (moment/moment.js) explains 83%, modified ●"),
        "{summary}"
    );
}

/// Every file action.yml runs is in the repository, every input it reads is
/// declared, and the workflow in docs/github-actions.md is the example file
/// that the schema test validates.
#[test]
fn action_yml_names_what_exists_and_the_docs_show_the_validated_workflow() {
    let action = std::fs::read_to_string(root().join("action.yml")).unwrap();
    for script in ["action/run.sh", "action/sticky-comment.mjs"] {
        assert!(
            action.contains(&format!("$GITHUB_ACTION_PATH/{script}")),
            "{script}"
        );
        assert!(root().join(script).is_file(), "{script}");
    }
    let declared: Vec<&str> = action
        .split("\ninputs:\n")
        .nth(1)
        .unwrap()
        .split("\noutputs:\n")
        .next()
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && l.ends_with(':'))
        .map(|l| l.trim().trim_end_matches(':'))
        .collect();
    assert!(
        declared.contains(&"fail-on") && declared.contains(&"token"),
        "{declared:?}"
    );
    for used in action.split("inputs.").skip(1) {
        let name: String = used
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        assert!(
            declared.contains(&name.as_str()),
            "inputs.{name} is not declared"
        );
    }
    let docs = std::fs::read_to_string(root().join("docs/github-actions.md")).unwrap();
    let example = std::fs::read_to_string(root().join("examples/workflows/perfatlas.yml")).unwrap();
    assert!(
        docs.contains(&format!("```yaml\n{example}```")),
        "docs/github-actions.md must show examples/workflows/perfatlas.yml as it is"
    );
}

/// action.yml and the example workflows against SchemaStore's schemas for
/// actions and workflows, with action-validator (crates.io; the schemas
/// are compiled into it, nothing is fetched). Required under CI, where
/// .ci/run installs it.
#[test]
fn action_and_workflows_pass_the_schema_check() {
    let found = Command::new("action-validator").arg("--version").output();
    if !matches!(&found, Ok(o) if o.status.success()) {
        if std::env::var_os("CI").is_some() {
            panic!("action-validator not found; under CI it is required (.ci/run installs it)");
        }
        eprintln!("skipped: action-validator not found (cargo install action-validator --locked)");
        return;
    }
    let mut files = vec![root().join("action.yml")];
    for entry in std::fs::read_dir(root().join("examples/workflows")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yml" || e == "yaml") {
            files.push(path);
        }
    }
    assert!(files.len() >= 2, "{files:?}");
    for file in &files {
        let out = Command::new("action-validator")
            .arg("--verbose")
            .arg(file)
            .current_dir(root())
            .output()
            .expect("run action-validator");
        assert!(
            out.status.success(),
            "action-validator {}:\n{}",
            file.display(),
            show(&out)
        );
    }
    // It does reject: a composite action without `using: composite`.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("action.yml");
    let action = std::fs::read_to_string(root().join("action.yml")).unwrap();
    std::fs::write(&bad, action.replace("using: composite", "using: compost")).unwrap();
    let out = Command::new("action-validator").arg(&bad).output().unwrap();
    assert!(
        !out.status.success(),
        "a broken action.yml passed:\n{}",
        show(&out)
    );
}
