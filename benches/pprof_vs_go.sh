#!/usr/bin/env bash
# perfatlas vs `go tool pprof` reading the same large pprof CPU profile
# (issue 8: at least 3x faster than pprof, peak memory reported).
#
#   benches/pprof_vs_go.sh                  # ~1 GB profile, 3 runs each
#   SIZE=250000000 RUNS=2 benches/pprof_vs_go.sh
#
# Steps: build perfatlas (release); build benches/gen_pprof.go and write a
# profile of SIZE bytes (uncompressed protobuf, shaped like Go's
# runtime/pprof output) into a temporary directory, deleted at the end; then,
# RUNS times, alternately:
#   go tool pprof -symbolize=none -top FILE >/dev/null
#   perfatlas convert FILE --to folded >/dev/null
#   perfatlas build DIR -o SITE        (DIR holds one version: FILE)
# each under /usr/bin/time, and print every run's wall time and peak RSS,
# the fastest of each, and the ratios to pprof.
#
# Memory: go tool pprof keeps every sample as a Go object; it needed about
# 20 bytes of RSS per byte of profile here (1.7 GB for an 83 MB profile), so
# about 20 GB for 1 GB. Its runs are skipped, with a message, when that
# estimate exceeds 80% of MemAvailable (FORCE_GO=1 runs them anyway).
#
# Environment:
#   SIZE              profile size in bytes (default 1000000000)
#   RUNS              runs per command (default 3)
#   BUILD=0           skip the `perfatlas build` runs
#   FORCE_GO=1        run pprof even when it looks too big for memory
#   KEEP=DIR          keep the generated profile and outputs in DIR
#   CARGO_TARGET_DIR  where cargo builds perfatlas (default: the repo's target/)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIZE=${SIZE:-1000000000}
RUNS=${RUNS:-3}
BUILD=${BUILD:-1}
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
PERFATLAS=$TARGET_DIR/release/perfatlas

log() { printf '== %s\n' "$*" >&2; }

for tool in go /usr/bin/time; do
    command -v "$tool" >/dev/null || { log "missing: $tool"; exit 2; }
done

if [[ -n ${KEEP:-} ]]; then
    WORK=$KEEP
    mkdir -p "$WORK"
else
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/pprof-vs-go.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
fi

log "building perfatlas (release) into $TARGET_DIR"
(cd "$REPO" && cargo build --release --locked --quiet)

log "generating a $SIZE-byte profile in $WORK"
(cd "$REPO" && go build -o "$WORK/gen_pprof" benches/gen_pprof.go)
mkdir -p "$WORK/input/1.0"
FILE=$WORK/input/1.0/big.cpu.pb
"$WORK/gen_pprof" -o "$FILE" -size "$SIZE"
rm -f "$WORK/gen_pprof"
cat "$FILE" >/dev/null # warm the page cache for every command alike

need_kb=$((SIZE / 1024 * 20))
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
run_go=1
if ((need_kb > avail_kb * 8 / 10)) && [[ ${FORCE_GO:-0} != 1 ]]; then
    log "skipping go tool pprof: it would need about $((need_kb / 1048576)) GB, $((avail_kb / 1048576)) GB available"
    run_go=0
fi

RES=$WORK/results
mkdir -p "$RES"

# timed NAME RUN COMMAND...: runs COMMAND under /usr/bin/time, stdout
# discarded, and prints "NAME  WALL s  RSS MB".
timed() {
    local name=$1 run=$2
    shift 2
    local status=0
    /usr/bin/time -f '%e %M' -o "$RES/$name.$run" "$@" >/dev/null 2>"$RES/err.$name.$run" || status=$?
    # perfatlas build exits 1 when it skipped an input: not a failure here.
    if ((status != 0)) && ! [[ $name == build && $status == 1 ]]; then
        log "$name failed (exit $status):"
        cat "$RES/err.$name.$run" >&2
        exit 1
    fi
    awk -v n="$name" -v r="$run" '{printf "%-8s run %d  %8.2f s  %7.0f MB\n", n, r, $1, $2 / 1024}' \
        <(tail -n 1 "$RES/$name.$run")
}

for ((i = 1; i <= RUNS; i++)); do
    if ((run_go)); then
        timed pprof "$i" go tool pprof -symbolize=none -top "$FILE"
    fi
    timed convert "$i" "$PERFATLAS" convert "$FILE" --to folded
    if [[ $BUILD == 1 ]]; then
        rm -rf "$WORK/site"
        timed build "$i" "$PERFATLAS" build "$WORK/input" -o "$WORK/site"
    fi
done

# best NAME: "WALL RSS_KB" of the fastest run.
best() { tail -q -n 1 "$RES/$1".[0-9]* | sort -n | head -n 1; }

echo
echo "profile: $(stat -c %s "$FILE") bytes; $(nproc) cores; $(go version)"
printf '%-8s %10s %10s %8s\n' command "best s" "peak MB" "vs pprof"
for name in pprof convert build; do
    compgen -G "$RES/$name.[0-9]*" >/dev/null || continue
    read -r wall rss < <(best "$name")
    ratio=-
    if ((run_go)); then
        read -r go_wall _ < <(best pprof)
        ratio=$(awk -v g="$go_wall" -v w="$wall" 'BEGIN{printf "%.1fx", g / w}')
    fi
    printf '%-8s %10.2f %10.0f %8s\n' "$name" "$wall" "$((rss / 1024))" "$ratio"
done
