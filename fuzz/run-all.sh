#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds each (default 30), seeded from
# sample-data/, tests/fixtures/ and ../shared/corpus/ when present, and
# prints one line per target: runs, seconds, crashes. Crashes are left in
# fuzz/artifacts/TARGET/; each one found should become a regression test
# named after it.
#
#   fuzz/run-all.sh                 # 30 s per target (CI sets 20)
#   SECONDS_PER_TARGET=600 fuzz/run-all.sh folded pprof   # longer, some targets
#   FORKS=16 SECONDS_PER_TARGET=225 fuzz/run-all.sh pprof    # 16 processes: 1 CPU-hour
#
# JOBS=N runs N targets at once (default: the number of cores, 1 with
# FORKS). FORKS=N runs each target as N fuzzing processes at once (libFuzzer's
# -fork), so a machine of N cores gives a target N CPU-seconds a second;
# each line then also says the CPU time the target had. TIMEOUT (seconds,
# default 10) is libFuzzer's wall-clock limit per input: raise it when the
# fuzzers share the machine (at `nice 19` beside a build, an 18 MB gzip
# member that parses in 0.12 s outside the fuzzer passed 10 s).
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`); on a stable
# toolchain RUSTC_BOOTSTRAP=1 unlocks the sanitizer flags it uses.
set -euo pipefail
cd "$(dirname "$0")"
REPO=$(cd .. && pwd)
PER=${SECONDS_PER_TARGET:-30}
export RUSTC_BOOTSTRAP=1

if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^perfatlas-fuzz$')
fi

# Seed directories, one per target, filled from real inputs once.
seeds() {
    local target=$1 dir=seeds/$1
    mkdir -p "$dir"
    case $target in
        method_range|derived_formula) ;;
        digest)
            # Real digests of the sample histories' versions (by the
            # perfatlas the tests built), with and without records: whole,
            # as bare bodies (the fuzz target also reads a body without its
            # checksum: header 8 + 4 + 1 + version + 8 + 8) and raw parts.
            local bin=$REPO/target/debug/perfatlas
            [[ -x $bin ]] || bin=$REPO/target/release/perfatlas
            if [[ -x $bin ]]; then
                for v in "$REPO"/sample-data/*/[0-9]*/; do
                    local name
                    name=$(basename "$(dirname "$v")")-$(basename "$v")
                    "$bin" digest "$v" -o "$dir/$name.padigest" 2>/dev/null || continue
                    "$bin" digest "$v" --records -o "$dir/$name-records.padigest" 2>/dev/null || continue
                    for f in "$dir/$name.padigest" "$dir/$name-records.padigest"; do
                        python3 -c 'import sys; b=open(sys.argv[1],"rb").read(); n=8+4+1+b[12]+8+8; r=int.from_bytes(b[n:n+8],"little"); open(sys.argv[2]+".body","wb").write(b[n:]); open(sys.argv[2]+".raw","wb").write(b[n+8:n+8+r])' \
                            "$f" "${f%.padigest}"
                    done
                done
            fi
            ;;
        jfr)
            # The JSON reader takes no gzip, and real `jfr print --json`
            # output is large (every frame carries its class loader and
            # module): seed with one compact document in JFR's own shape,
            # the corpus recording printed with short stacks when the `jfr`
            # tool is here, and every small real JSON input.
            cat >"$dir/compact.json" <<'JSON'
{
  "recording": {
    "events": [{
      "type": "jdk.ObjectAllocationSample",
      "values": {
        "startTime": "2026-11-23T23:57:21.093956753Z",
        "stackTrace": {
          "truncated": false,
          "frames": [{
            "method": {"type": {"name": "shapes\/Canvas"}, "name": "newCircle", "descriptor": "(I)Lshapes\/Circle;"},
            "lineNumber": 60, "bytecodeIndex": 0, "type": "Inlined"
          }, {
            "method": {"type": {"name": "shapes\/Alloc"}, "name": "main", "descriptor": "([Ljava\/lang\/String;)V"},
            "lineNumber": 17, "bytecodeIndex": 27, "type": "Interpreted"
          }]
        },
        "objectClass": {"name": "shapes\/Circle", "modifiers": 32, "hidden": false},
        "weight": 2096544
      }
    }, {
      "type": "jdk.ObjectAllocationSample",
      "values": {
        "startTime": "2024-09-17T19:51:05+01:00",
        "stackTrace": null,
        "objectClass": {"name": "[Ljava\/lang\/String;"},
        "weight": 2616
      }
    }, {
      "type": "jdk.ObjectAllocationInNewTLAB",
      "values": {
        "startTime": "2024-09-17T18:51Z",
        "stackTrace": {"truncated": true, "frames": [{"pc": 4096}]},
        "objectClass": {"name": "[B"},
        "allocationSize": 1040,
        "tlabSize": 524288
      }
    }, {
      "type": "jdk.CPULoad",
      "values": {"startTime": "2024-09-17T18:51:06.5Z", "jvmUser": 0.25}
    }]
  }
}
JSON
            heavy="$REPO/../shared/corpus/speedscope/java-flight-recorder/heavy.jfr"
            if command -v jfr >/dev/null 2>&1 && [[ -f $heavy ]]; then
                jfr print --json --stack-depth 3 --events jdk.ObjectAllocationSample \
                    "$heavy" >"$dir/heavy.json" 2>/dev/null || rm -f "$dir/heavy.json"
            fi
            find "$REPO/tests/fixtures" "$REPO/../shared/corpus" -type f -size -512k \
                -name '*.json' 2>/dev/null | while read -r f; do
                cp -n "$f" "$dir/$(sha1sum "$f" | cut -c1-16)" 2>/dev/null || true
            done
            ;;
        source_map)
            # Real maps (rollup, esbuild, webpack), and one bundle whose
            # map is inline, so the `sourceMappingURL` reader is reached.
            find "$REPO/tests/fixtures" "$REPO/../shared/corpus" -type f -size -512k \
                -name '*.map' 2>/dev/null | while read -r f; do
                cp -n "$f" "$dir/$(sha1sum "$f" | cut -c1-16)" 2>/dev/null || true
            done
            printf 'f();\n//# sourceMappingURL=data:application/json;base64,%s\n' \
                "$(printf '{"version":3,"sources":["a.js"],"names":["f"],"mappings":"AAAAA"}' | base64 -w0)" \
                >"$dir/inline.js"
            ;;
        *)
            find "$REPO/sample-data" "$REPO/tests/fixtures" "$REPO/../shared/corpus" \
                -type f -size -512k ! -name '*.md' ! -name '*.sh' ! -name '*.py' ! -name 'LICENSE*' \
                2>/dev/null | while read -r f; do
                cp -n "$f" "$dir/$(sha1sum "$f" | cut -c1-16)" 2>/dev/null || true
            done
            ;;
    esac
    echo "$dir"
}

# `cargo fuzz build` takes one target or none (all of them).
if [[ $# -gt 0 ]]; then
    for t in "${targets[@]}"; do cargo fuzz build -O "$t"; done
else
    cargo fuzz build -O
fi
# One target: seeded, run for PER seconds, one line said as it ends (runs,
# CPU seconds from bash's `time`, result) and its result kept in
# $results/TARGET for the exit status. A crash's log tail goes to stderr.
run_target() {
    local t=$1 seed_dir log cpu runs result
    mkdir -p "corpus/$t"
    seed_dir=$(seeds "$t")
    log=$(mktemp)
    local TIMEFORMAT='%U %S'
    if { time cargo fuzz run -O "$t" "corpus/$t" "$seed_dir" -- -max_total_time="$PER" -rss_limit_mb=4096 -timeout="${TIMEOUT:-10}" ${FORKS:+-fork="$FORKS"} >"$log" 2>&1; } 2>"$log.time"; then
        result=ok
    else
        result="CRASH (see fuzz/artifacts/$t/)"
        # Targets run side by side: the tail says whose it is.
        { echo "== $t: last lines of its log"; tail -30 "$log"; } >&2
    fi
    cpu=$(awk '{ printf "%d", $1 + $2 }' "$log.time" 2>/dev/null || echo '?')
    runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1 | cut -d' ' -f2 || true)
    echo "$t: ${runs:-?} runs in ${PER} s (${cpu} CPU-seconds): $result"
    echo "$result" >"$results/$t"
    rm -f "$log" "$log.time"
}

# JOBS targets at once (default: one per core, or one when FORKS gives
# each target the cores itself). Each libFuzzer process is one thread, so
# two targets on two cores each get what one got alone: the same fuzzing,
# in half the wall time.
JOBS=${JOBS:-$([[ -n ${FORKS:-} ]] && echo 1 || nproc)}
results=$(mktemp -d)
for t in "${targets[@]}"; do
    while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
    run_target "$t" &
done
wait
status=0
for t in "${targets[@]}"; do
    [[ $(cat "$results/$t" 2>/dev/null) == ok ]] || status=1
done
rm -rf "$results"
exit $status
