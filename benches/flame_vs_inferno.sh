#!/usr/bin/env bash
# perfatlas's whole site build vs inferno on the same large folded files:
#  1. one profile: perfatlas (its page with the top-down, bottom-up and flat
#     views and tree tables, plus the rest of the site, parse cache
#     included) vs inferno-flamegraph's one SVG;
#  2. two versions: perfatlas (all of the above for both, plus the
#     differential page with its three shapes) vs inferno-diff-folded piped
#     into inferno-flamegraph (one differential SVG).
#
# The headline ratios are fresh builds: every perfatlas run writes a new
# output directory, so neither the parse cache nor page reuse helps it.
# Rebuilds (the same site built again, both caches kept) are timed after
# them and printed in rows of their own, labelled "rebuild".
#
#   benches/flame_vs_inferno.sh            # 3 runs each
#   RUNS=5 BENCH_DIR=/data/pa-bench CARGO_TARGET_DIR=/tmp/target-bench benches/flame_vs_inferno.sh
#
# Steps: build perfatlas (release), install inferno from crates.io when
# `inferno-flamegraph` is not on PATH, generate the input once with
# benches/gen_folded.py (deterministic; regenerated only when the generator
# or its arguments change), then run the two tools alternately RUNS times and
# print median wall time, peak RSS, output size and the ratio.
#
# Environment:
#   BENCH_DIR         scratch directory, outside git (default /tmp/perfatlas-bench)
#   RUNS              runs per tool (default 3)
#   GEN_ARGS          extra arguments for gen_folded.py (e.g. "--lines 20000")
#   CARGO_TARGET_DIR  where cargo builds perfatlas (default: the repo's target/)
#   BENCH_STRICT=1    exit 3 when perfatlas is slower than inferno
#   DIFF=0            skip the two-version comparison
#
# Target (for now): perfatlas's whole build no slower than inferno's single SVG.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/perfatlas-bench}
RUNS=${RUNS:-3}
GEN_ARGS=${GEN_ARGS:-}
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
PERFATLAS=$TARGET_DIR/release/perfatlas

log() { printf '== %s\n' "$*" >&2; }

# ---------------------------------------------------------------- tools
if [[ ! -x /usr/bin/time ]]; then
    log "installing GNU time"
    apt-get install -y time >/dev/null || { apt-get update >/dev/null && apt-get install -y time >/dev/null; }
fi

log "building perfatlas (release) into $TARGET_DIR"
(cd "$REPO" && cargo build --release --quiet)

if ! command -v inferno-flamegraph >/dev/null || ! command -v inferno-diff-folded >/dev/null; then
    log "installing inferno from crates.io"
    cargo install inferno --locked --quiet
fi
INFERNO=$(command -v inferno-flamegraph)

# ---------------------------------------------------------------- input
INPUT=$BENCH_DIR/input
FOLDED=$INPUT/v1/big.folded
mkdir -p "$INPUT/v1"
# The stamp lives outside the input directory so perfatlas never reads it.
STAMP=$BENCH_DIR/big.folded.stamp
stamp="$(sha256sum "$REPO/benches/gen_folded.py" | cut -d' ' -f1) $GEN_ARGS"
if [[ ! -s $FOLDED || "$(cat "$STAMP" 2>/dev/null)" != "$stamp" ]]; then
    log "generating $FOLDED"
    # shellcheck disable=SC2086
    python3 "$REPO/benches/gen_folded.py" -o "$BENCH_DIR/big.folded.tmp" $GEN_ARGS
    mv "$BENCH_DIR/big.folded.tmp" "$FOLDED"
    printf '%s' "$stamp" > "$STAMP"
fi

stacks=$(wc -l < "$FOLDED")
in_mb=$(awk -v b="$(stat -c %s "$FOLDED")" 'BEGIN{printf "%.1f", b/1e6}')
log "input: $FOLDED ($stacks stacks, $in_mb MB)"
cat "$FOLDED" > /dev/null # warm the page cache for both tools alike

# ---------------------------------------------------------------- runs
SITE=$BENCH_DIR/site
SVG=$BENCH_DIR/inferno.svg
RES=$BENCH_DIR/results
rm -rf "$RES" && mkdir -p "$RES"

# A fresh build: the previous run's site is removed first (not timed).
run_perfatlas() {
    rm -rf "$SITE"
    /usr/bin/time -f '%e %M %U %S' -o "$RES/perfatlas.$1.time" \
        "$PERFATLAS" build "$INPUT" -o "$SITE" >"$RES/perfatlas.$1.log" 2>&1 \
        || { log "perfatlas failed (exit $?), see $RES/perfatlas.$1.log"; cat "$RES/perfatlas.$1.log" >&2; exit 1; }
}
# A rebuild of the site the last fresh run left: both caches are used.
run_perfatlas_rebuild() {
    /usr/bin/time -f '%e %M %U %S' -o "$RES/rebuild.$1.time" \
        "$PERFATLAS" build "$INPUT" -o "$SITE" --force >"$RES/rebuild.$1.log" 2>&1 \
        || { log "perfatlas rebuild failed, see $RES/rebuild.$1.log"; exit 1; }
}
run_inferno() {
    /usr/bin/time -f '%e %M %U %S' -o "$RES/inferno.$1.time" \
        "$INFERNO" "$FOLDED" >"$SVG" 2>"$RES/inferno.$1.log" \
        || { log "inferno failed (exit $?), see $RES/inferno.$1.log"; exit 1; }
}

for i in $(seq 1 "$RUNS"); do
    # Alternate which tool goes first so drift hits both alike.
    if (( i % 2 )); then run_perfatlas "$i"; run_inferno "$i"; else run_inferno "$i"; run_perfatlas "$i"; fi
    log "run $i/$RUNS: perfatlas $(cut -d' ' -f1 "$RES/perfatlas.$i.time")s, inferno $(cut -d' ' -f1 "$RES/inferno.$i.time")s"
done

median() { tail -qn1 "$RES/$1".*.time | cut -d' ' -f1 | sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# CPU (user+sys) is less sensitive than wall time to other load on the machine.
median_cpu() { tail -qn1 "$RES/$1".*.time | awk '{print $3+$4}' | sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
peak_mb() { tail -qn1 "$RES/$1".*.time | cut -d' ' -f2 | sort -n | tail -1 | awk '{printf "%.0f", $1/1024}'; }
mb() { awk -v b="$1" 'BEGIN{printf "%.1f", b/1e6}'; }

for i in $(seq 1 "$RUNS"); do run_perfatlas_rebuild "$i"; done

p_med=$(median perfatlas); i_med=$(median inferno)
p_cpu=$(median_cpu perfatlas); i_cpu=$(median_cpu inferno)
# The site without its build cache (which a fresh build writes too).
cache_bytes=$(du -sb "$SITE/.perfatlas-cache" 2>/dev/null | cut -f1 || echo 0)
site_bytes=$(( $(du -sb "$SITE" | cut -f1) - ${cache_bytes:-0} ))
svg_bytes=$(stat -c %s "$SVG")
largest=$(find "$SITE" -type f -name '*.html' -printf '%s %p\n' | sort -n | tail -1)
largest_bytes=${largest%% *}; largest_page=${largest#* }
# A drawn frame is one <g …> group in both outputs (inferno writes `<g>`).
page_g=$(grep -o '<g[ >]' "$largest_page" | wc -l || true)
svg_g=$(grep -o '<g[ >]' "$SVG" | wc -l || true)
ratio=$(awk -v p="$p_med" -v i="$i_med" 'BEGIN{printf "%.2f", p/i}')
cpu_ratio=$(awk -v p="$p_cpu" -v i="$i_cpu" 'BEGIN{printf "%.2f", p/i}')

echo
echo "input: $stacks distinct stacks, $in_mb MB ($FOLDED); $RUNS runs each, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "perfatlas: $("$PERFATLAS" --version)   inferno: $(cargo install --list 2>/dev/null | grep -m1 '^inferno ' | tr -d : || echo "$INFERNO")"
echo
printf '%-10s %14s %13s %12s %12s\n' tool 'median wall s' 'median CPU s' 'peak RSS MB' 'output MB'
printf '%-10s %14s %13s %12s %12s\n' perfatlas "$p_med" "$p_cpu" "$(peak_mb perfatlas)" "$(mb "$site_bytes") site (+$(mb "${cache_bytes:-0}") cache)"
printf '%-10s %14s %13s %12s %12s\n' inferno "$i_med" "$i_cpu" "$(peak_mb inferno)" "$(mb "$svg_bytes") svg"
printf '%-10s %14s %13s %12s %12s\n' 'rebuild' "$(median rebuild)" "$(median_cpu rebuild)" "$(peak_mb rebuild)" "(perfatlas, caches kept)"
echo
echo "ratio perfatlas/inferno, fresh builds: $ratio (median wall), $cpu_ratio (median CPU user+sys); peak RSS $(awk -v p="$(peak_mb perfatlas)" -v i="$(peak_mb inferno)" 'BEGIN{printf "%.2f", p/i}')×"
echo "ratio perfatlas rebuild/inferno: $(awk -v p="$(median rebuild)" -v i="$i_med" 'BEGIN{printf "%.2f", p/i}') (median wall; not a fresh build)"
echo "perfatlas largest page: ${largest_page#"$BENCH_DIR"/} $(mb "$largest_bytes") MB, $page_g frames (<g> groups)"
echo "inferno svg: $(mb "$svg_bytes") MB, $svg_g frames (<g> groups)"
echo "all runs (wall s, peak RSS KB, user s, sys s):"
for t in perfatlas inferno; do echo "  $t: $(tail -qn1 "$RES/$t".*.time | paste -sd, | sed 's/,/, /g')"; done

# ---------------------------------------------------------------- diff
if [[ ${DIFF:-1} == 1 ]]; then
    DINPUT=$BENCH_DIR/diff-input
    V2=$DINPUT/v2/big.folded
    mkdir -p "$DINPUT/v1" "$DINPUT/v2"
    ln -sf "$FOLDED" "$DINPUT/v1/big.folded"
    # v2: every 10th stack twice as heavy, every 37th gone, every 53rd
    # ending in a new function; still sorted.
    DSTAMP=$BENCH_DIR/v2.stamp
    if [[ ! -s $V2 || "$(cat "$DSTAMP" 2>/dev/null)" != "$stamp" ]]; then
        log "deriving $V2"
        awk '{ n = NR; c = $NF; $NF = "";
               if (n % 37 == 0) next;
               if (n % 10 == 0) c = c * 2;
               s = substr($0, 1, length($0) - 1);
               if (n % 53 == 0) s = s ";bench_new_fn_" (n % 7);
               print s " " c }' "$FOLDED" | LC_ALL=C sort > "$V2.tmp"
        mv "$V2.tmp" "$V2"
        printf '%s' "$stamp" > "$DSTAMP"
    fi
    DSITE=$BENCH_DIR/diff-site
    DSVG=$BENCH_DIR/inferno-diff.svg
    run_perfatlas_diff() {
        rm -rf "$DSITE"
        /usr/bin/time -f '%e %M %U %S' -o "$RES/pdiff.$1.time" \
            "$PERFATLAS" build "$DINPUT" -o "$DSITE" >"$RES/pdiff.$1.log" 2>&1 \
            || { log "perfatlas failed, see $RES/pdiff.$1.log"; exit 1; }
    }
    run_inferno_diff() {
        /usr/bin/time -f '%e %M %U %S' -o "$RES/idiff.$1.time" \
            sh -c "'$(command -v inferno-diff-folded)' '$FOLDED' '$V2' | '$INFERNO' > '$DSVG'" 2>"$RES/idiff.$1.log" \
            || { log "inferno diff failed, see $RES/idiff.$1.log"; exit 1; }
    }
    for i in $(seq 1 "$RUNS"); do
        if (( i % 2 )); then run_perfatlas_diff "$i"; run_inferno_diff "$i"; else run_inferno_diff "$i"; run_perfatlas_diff "$i"; fi
        log "diff run $i/$RUNS: perfatlas $(cut -d' ' -f1 "$RES/pdiff.$i.time")s, inferno $(cut -d' ' -f1 "$RES/idiff.$i.time")s"
    done
    pd=$(median pdiff); id=$(median idiff)
    echo
    echo "two versions, fresh builds (v2 derived from v1: 10% of stacks doubled, 1/37 removed, 1/53 with a new leaf):"
    printf '%-10s %14s %13s %12s %12s\n' tool 'median wall s' 'median CPU s' 'peak RSS MB' 'output MB'
    printf '%-10s %14s %13s %12s %12s\n' perfatlas "$pd" "$(median_cpu pdiff)" "$(peak_mb pdiff)" "$(mb "$(du -sb "$DSITE" | cut -f1)") site"
    printf '%-10s %14s %13s %12s %12s\n' inferno "$id" "$(median_cpu idiff)" "$(peak_mb idiff)" "$(mb "$(stat -c %s "$DSVG")") svg"
    echo "ratio perfatlas/inferno (diff, fresh builds): $(awk -v p="$pd" -v i="$id" 'BEGIN{printf "%.2f", p/i}') (median wall)"
    echo "perfatlas diff page (top-down view, as HTML): $(grep -o '<g class="f' "$DSITE/flamediff/big/v1--v2.html" | wc -l) frames; inferno diff svg: $(grep -o '<g[ >]' "$DSVG" | wc -l) frames"
fi

if awk -v r="$ratio" 'BEGIN{exit !(r <= 1.0)}'; then
    echo "target (a fresh perfatlas build no slower than inferno): MET"
else
    echo "target (a fresh perfatlas build no slower than inferno): MISSED"
    [[ ${BENCH_STRICT:-0} == 1 ]] && exit 3
fi
exit 0
