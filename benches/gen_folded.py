#!/usr/bin/env python3
"""Deterministic generator of a large, realistic folded-stacks file.

Used by benches/flame_vs_inferno.sh. The output is never committed: the script
writes it below $BENCH_DIR (default /tmp/perfatlas-bench).

What it produces
- A vocabulary of a few thousand function names that look real: Go
  (`github.com/acme/ingest/pkg/queue.(*Consumer).handleBatch`), Rust
  (`tokio::runtime::task::Harness::poll`), Java slash names as async-profiler
  writes them (`java/util/concurrent/ThreadPoolExecutor.runWorker`), and some
  frames with a py-spy style ` (file:line)` suffix.
- A synthetic call graph over that vocabulary: every function has a handful of
  callees, picked mostly "below" it so stacks run from entry points down to
  runtime/leaf code. Stacks are random walks down that graph, so prefixes are
  shared the way they are in real profiles.
- Depth 5..40 (triangular, mode 10), counts 1..1000 skewed towards small
  values, `--lines` distinct stacks (default 200,000), sorted like
  stackcollapse output. With the defaults the file is about 125 MB.

The shape is adjustable: `--vocab` (distinct names), `--names` (`plain`, the
mixed vocabulary above; `cpp`, numbered `nsN::ClassN::method_N`; `java`,
numbered `com.acme.subN.ClassN.methodN`), `--min-depth`/`--mode-depth`/
`--max-depth`, `--fanout-min`/`--fanout-max` (callees per function) and
`--reach`; `--recursion` (a share of stacks) and `--recursion-depth` add
recursive runs. `--stats` prints the call tree's node count and mean depth.

Same seed and arguments -> byte-identical output.
"""

import argparse
import random
import sys

# ---------------------------------------------------------------- vocabulary

GO_ORGS = ["github.com/acme", "github.com/northwind", "go.etcd.io", "google.golang.org",
           "github.com/cockroachdb", "k8s.io", "github.com/prometheus", "gitlab.com/orbit"]
GO_REPOS = ["ingest", "gateway", "storage", "scheduler", "billing", "search", "auth",
            "pebble", "client-go", "grpc", "telemetry", "ledger"]
GO_DIRS = ["pkg", "internal", "cmd", "pkg/util", "pkg/kv", "pkg/sql"]
GO_PKGS = ["queue", "store", "cache", "codec", "rpc", "wal", "index", "raft", "txn",
           "batch", "httpx", "encoding", "merge", "compact", "exec", "plan", "metrics"]
GO_STDLIB = ["runtime", "net/http", "encoding/json", "sync", "bufio", "io", "os", "syscall",
             "compress/gzip", "crypto/tls", "sort", "strings", "bytes", "reflect", "time",
             "internal/poll", "context", "net"]

RUST_CRATES = ["tokio", "hyper", "serde_json", "regex_automata", "rayon_core", "perfcore",
               "tantivy", "sled", "h2", "prost", "axum", "tower", "mio", "crossbeam_deque",
               "alloc", "core", "std", "hashbrown", "bytes", "futures_util", "datafusion"]
RUST_MODS = ["runtime", "task", "raw", "harness", "scheduler", "worker", "io", "proto",
             "codec", "de", "ser", "read", "index", "btree", "segment", "merge", "plan",
             "exec", "physical", "stream", "buf", "map", "vec", "iter", "sync", "util"]

JAVA_PKGS = ["java/util/concurrent", "java/util", "java/lang", "java/io", "java/nio",
             "sun/nio/ch", "jdk/internal/misc", "org/springframework/web",
             "org/apache/kafka/clients/consumer", "com/fasterxml/jackson/databind",
             "io/netty/channel", "org/eclipse/jetty/server", "com/acme/billing",
             "com/acme/search/query", "org/hibernate/engine", "io/grpc/internal"]

PY_DIRS = ["app", "app/api", "app/models", "lib/markdown", "site-packages/django/db",
           "site-packages/requests", "worker", "lib/json"]

VERBS = ["get", "put", "read", "write", "handle", "process", "parse", "encode", "decode",
         "flush", "poll", "run", "apply", "merge", "compact", "visit", "resolve", "lookup",
         "insert", "scan", "build", "emit", "dispatch", "serve", "fetch", "commit", "load"]
NOUNS = ["Batch", "Request", "Record", "Entry", "Block", "Frame", "Segment", "Page",
         "Token", "Node", "Header", "Buffer", "Stream", "Message", "Row", "Plan", "Key",
         "Value", "Index", "Chunk", "Event", "Span", "Conn", "Txn", "Query", "Task"]
TYPES = ["Consumer", "Producer", "Cache", "Store", "Server", "Client", "Decoder", "Encoder",
         "Reader", "Writer", "Worker", "Pool", "Scheduler", "Executor", "Parser", "Builder",
         "Iterator", "Table", "Tree", "Handler", "Router", "Session", "Engine", "Planner"]


def camel(r, first_lower=True):
    v = r.choice(VERBS)
    n = r.choice(NOUNS)
    s = v + n if r.random() < 0.95 else v + n + r.choice(NOUNS)
    return s if first_lower else s[0].upper() + s[1:]


def snake(r):
    v = r.choice(VERBS)
    n = r.choice(NOUNS).lower()
    return v + "_" + n if r.random() < 0.97 else v + "_" + n + "_" + r.choice(NOUNS).lower()


def go_name(r):
    if r.random() < 0.4:
        pkg = r.choice(GO_STDLIB)
    else:
        pkg = "%s/%s/%s/%s" % (r.choice(GO_ORGS), r.choice(GO_REPOS), r.choice(GO_DIRS), r.choice(GO_PKGS))
        if r.random() < 0.85:  # shorter import paths are common too
            pkg = "%s/%s" % (r.choice(GO_REPOS), r.choice(GO_PKGS))
    x = r.random()
    if x < 0.45:
        return "%s.(*%s).%s" % (pkg, r.choice(TYPES), camel(r, first_lower=False))
    if x < 0.55:
        return "%s.%s.func%d" % (pkg, camel(r), r.randint(1, 4))
    return "%s.%s" % (pkg, camel(r, first_lower=r.random() < 0.5))


def rust_name(r):
    path = [r.choice(RUST_CRATES)] + [r.choice(RUST_MODS) for _ in range(r.randint(0, 1))]
    x = r.random()
    if x < 0.55:
        path.append(r.choice(TYPES))
        if r.random() < 0.1:
            path[-1] += "<T>"
    elif x < 0.65:
        path.append("<impl %s for %s>" % (r.choice(["Iterator", "Future", "Read", "Drop"]), r.choice(TYPES)))
    path.append(snake(r))
    s = "::".join(path)
    if r.random() < 0.08:
        s += "::{{closure}}"
    return s


def java_name(r):
    cls = r.choice(TYPES)
    if r.random() < 0.1:
        cls = r.choice(NOUNS) + cls
    if r.random() < 0.1:
        cls += "$" + r.choice(["1", "2", "Worker", "Entry", "Node"])
    return "%s/%s.%s" % (r.choice(JAVA_PKGS), cls, camel(r))


def with_file_line(r, name):
    """py-spy style `name (file:line)`; perfatlas keeps file and line."""
    if "::" in name:
        file = "src/%s/%s.rs" % (r.choice(RUST_MODS), r.choice(RUST_MODS))
    elif "/" in name and "." in name.rsplit("/", 1)[-1] and not name.startswith(("java", "com", "org", "io/", "sun", "jdk")):
        file = "%s/%s.go" % (r.choice(GO_PKGS), r.choice(GO_PKGS))
    else:
        file = "%s/%s.py" % (r.choice(PY_DIRS), r.choice(NOUNS).lower())
    return "%s (%s:%d)" % (name, file, r.randint(12, 2400))


def py_name(r):
    name = snake(r) if r.random() < 0.5 else "%s.%s" % (r.choice(TYPES), snake(r))
    return with_file_line(r, name)


def qualified_vocabulary(form, n, methods_per_class, namespaces):
    """`n` long qualified names, `methods_per_class` methods to a class, the
    classes spread over `namespaces` namespaces (packages): C++ style
    `nsN::ClassN::method_N` or Java style `pkg.subN.ClassN.methodN`. No
    randomness: names are numbered, so every name is distinct."""
    names = []
    for i in range(n):
        cls = i // methods_per_class
        ns = cls % namespaces
        if form == "cpp":
            names.append("ns%d::Class%d::method_%d" % (ns, cls, i))
        else:
            names.append("com.acme.sub%d.Class%d.method%d" % (ns, cls, i))
    return names


def vocabulary(r, n):
    names = []
    seen = set()
    while len(names) < n:
        x = r.random()
        if x < 0.34:
            s = go_name(r)
        elif x < 0.64:
            s = rust_name(r)
        elif x < 0.90:
            s = java_name(r)
        else:
            s = py_name(r)
        if " (" not in s and r.random() < 0.05:
            s = with_file_line(r, s)
        if s not in seen:
            seen.add(s)
            names.append(s)
    return names


# ---------------------------------------------------------------- call graph

ROOTS = ["[unknown]", "main", "start_thread", "__libc_start_main", "java/lang/Thread.run",
         "runtime.goexit", "std::sys::pal::unix::thread::Thread::new::thread_start"]


def call_graph(r, n, fanout_min=2, fanout_max=7, reach=400):
    """callees[i]: functions i may call, mostly with a larger index (deeper
    in the program); a few back edges give recursion-like repeats."""
    callees = []
    for i in range(n):
        k = r.randint(fanout_min, fanout_max)
        out = []
        for _ in range(k):
            if r.random() < 0.03:
                out.append(r.randrange(n))  # back edge / recursion
            else:
                out.append((i + 1 + int(reach * r.random() ** 2)) % n)
        callees.append(out)
    return callees


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", required=True, help="file to write")
    ap.add_argument("--lines", type=int, default=200_000, help="distinct stacks (default 200000)")
    ap.add_argument("--vocab", type=int, default=4000, help="distinct function names (default 4000)")
    ap.add_argument("--min-depth", type=int, default=5)
    ap.add_argument("--max-depth", type=int, default=40)
    ap.add_argument("--mode-depth", type=int, default=10)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--names", choices=["plain", "cpp", "java"], default="plain",
                    help="name form: plain (mixed Go/Rust/Java/Python, the default), "
                         "cpp (nsN::ClassN::method_N) or java (com.acme.subN.ClassN.methodN)")
    ap.add_argument("--methods-per-class", type=int, default=8,
                    help="cpp/java names: methods to a class (default 8)")
    ap.add_argument("--namespaces", type=int, default=40,
                    help="cpp/java names: namespaces (packages) the classes spread over (default 40)")
    ap.add_argument("--fanout-min", type=int, default=2, help="fewest callees of a function (default 2)")
    ap.add_argument("--fanout-max", type=int, default=7, help="most callees of a function (default 7)")
    ap.add_argument("--reach", type=int, default=400,
                    help="how far down the vocabulary a callee may be (default 400)")
    ap.add_argument("--recursion", type=float, default=0.0,
                    help="share of stacks (0-1) with a recursive run: the last one to three "
                         "functions of the walk repeated, as a recursive-descent parser or a "
                         "tree visitor recurses (default 0: none)")
    ap.add_argument("--recursion-depth", type=int, default=100,
                    help="most repeats of a recursive run (triangular, mode a tenth of it; "
                         "default 100)")
    ap.add_argument("--stats", action="store_true",
                    help="also print the call tree's node count and mean stack depth")
    a = ap.parse_args()

    r = random.Random(a.seed)
    if a.names == "plain":
        names = vocabulary(r, a.vocab)
    else:
        names = qualified_vocabulary(a.names, a.vocab, a.methods_per_class, a.namespaces)
    n = len(names)
    callees = call_graph(r, n, a.fanout_min, a.fanout_max, a.reach)
    # Entry points: the first functions of the vocabulary, below a few roots.
    entries = list(range(0, 60))
    root_of = [r.randrange(len(ROOTS)) for _ in entries]

    seen = set()
    lines = []
    total = 0
    while len(lines) < a.lines:
        depth = int(round(r.triangular(a.min_depth, a.max_depth, a.mode_depth)))
        # Popular entries get most stacks (Zipf-ish).
        e = entries[min(len(entries) - 1, int(len(entries) * r.random() ** 2.5))]
        stack = [-1 - root_of[e], e]
        cur = e
        while len(stack) < depth:
            outs = callees[cur]
            # The first callee of each function is the hot one.
            cur = outs[min(len(outs) - 1, int(len(outs) * r.random() ** 1.7))]
            stack.append(cur)
        # Random numbers are drawn only with --recursion, so the other
        # shapes' files stay byte-identical.
        if a.recursion > 0 and r.random() < a.recursion:
            stack = recursed(r, stack, callees, a.recursion_depth)
        key = tuple(stack)
        if key in seen:
            continue
        seen.add(key)
        count = max(1, min(1000, int(1000 ** (r.random() ** 2.2))))
        text = ";".join(ROOTS[-1 - f] if f < 0 else names[f] for f in stack)
        lines.append("%s %d\n" % (text, count))
        total += count
    lines.sort()
    with open(a.output, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)
    size = sum(len(l.encode()) for l in lines)
    print("gen_folded: %d stacks, %d samples, %d names, %.1f MB -> %s"
          % (len(lines), total, n, size / 1e6, a.output), file=sys.stderr)
    if a.stats:
        print("gen_folded: %d call tree nodes, mean depth %.1f frames (per stack), %.1f (per sample)"
              % tree_stats(seen, lines), file=sys.stderr)


def recursed(r, stack, callees, most):
    """`stack` with its last one to three functions (never a root) repeated
    up to `most` times, then a few more calls down the graph: the shape of
    a recursive-descent parser (expr;term;factor;expr;...) or a visitor."""
    cycle = stack[-min(r.randint(1, 3), len(stack) - 1):]
    repeats = int(round(r.triangular(1, most, max(1, most / 10))))
    stack = stack + cycle * repeats
    cur = stack[-1]
    for _ in range(r.randint(1, 4)):
        cur = callees[cur][0]
        stack.append(cur)
    return stack


def tree_stats(stacks, lines):
    """The merged call tree's node count (distinct stack prefixes, roots
    included) and the mean depth per distinct stack and per sample."""
    prefixes = set()
    for stack in stacks:
        for d in range(1, len(stack) + 1):
            prefixes.add(hash(stack[:d]))
    frames = samples = weighted = 0
    for line in lines:
        text, count = line.rsplit(" ", 1)
        depth = text.count(";") + 1
        frames += depth
        samples += int(count)
        weighted += depth * int(count)
    return len(prefixes), frames / len(lines), weighted / samples


if __name__ == "__main__":
    main()
