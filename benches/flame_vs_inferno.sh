#!/usr/bin/env bash
# perfatlas's whole site build vs inferno on the same large folded files, on
# profiles of more than one shape (SHAPES, below):
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
#   benches/flame_vs_inferno.sh            # 3 runs each, both shapes
#   RUNS=5 SHAPES=cpp DIFF=0 benches/flame_vs_inferno.sh
#   RUNS=5 BENCH_DIR=/data/pa-bench CARGO_TARGET_DIR=/tmp/target-bench benches/flame_vs_inferno.sh
#
# Shapes (benches/gen_folded.py's arguments; the generator prints each one's
# call tree node count and mean depth):
#   default  the generator's defaults: 200k stacks, 4k mixed Go/Rust/Java/
#            Python names, ~2.2M tree nodes, mean depth 18.5, 127.5 MB
#   cpp      200k stacks, 20k names `nsN::ClassN::method_N` (8 methods to a
#            class), ~3.2M tree nodes, mean depth 23.4, 126 MB: deep trees of
#            long qualified names, the common shape of C++/Java/Rust profiles
#   java     the cpp shape with Java names `com.acme.subN.ClassN.methodN`
#            (157 MB: longer names)
#   wide     600k short stacks (depth 2-8), 60k names, callers of 10-60
#            callees: ~0.9M nodes, mean depth 5.7, 111 MB
#   deep     18k stacks of depth 60-400: ~3.5M nodes, mean depth 203, 129 MB
#   recursive  60k stacks, half with a recursive run (the last 1-3
#            functions repeated up to 80 times): ~2.5M nodes, mean depth
#            49, 104 MB
#   (SHAPES=all runs all six.)
#
# Steps: build perfatlas (release), install inferno from crates.io when
# `inferno-flamegraph` is not on PATH, then for each shape generate the input
# once with benches/gen_folded.py (deterministic; regenerated only when the
# generator or its arguments change), run the two tools alternately RUNS
# times and print median wall time, CPU, peak RSS, output size and the
# ratios. A last table puts every shape's ratios side by side.
#
# Environment:
#   BENCH_DIR         scratch directory, outside git (default /tmp/perfatlas-bench)
#   RUNS              runs per tool (default 3)
#   SHAPES            which shapes, space-separated (default "default cpp";
#                     "all" for the six above)
#   GEN_ARGS          instead of SHAPES: one shape "custom" with these
#                     gen_folded.py arguments (e.g. "--lines 20000")
#   CARGO_TARGET_DIR  where cargo builds perfatlas (default: the repo's target/)
#   PERFATLAS_BIN     time this perfatlas binary instead of building one
#                     (e.g. an older build, to compare)
#   BENCH_STRICT=1    exit 3 when perfatlas is slower than inferno on a shape
#   DIFF=0            skip the two-version comparisons
#
# Target (for now): perfatlas's whole build no slower than inferno's single
# SVG, on every shape.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/perfatlas-bench}
RUNS=${RUNS:-3}
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
PERFATLAS_BIN=${PERFATLAS_BIN:-}
PERFATLAS=${PERFATLAS_BIN:-$TARGET_DIR/release/perfatlas}

# name -> gen_folded.py arguments
declare -A SHAPE_ARGS=(
    [default]=""
    [cpp]="--vocab 20000 --names cpp --min-depth 5 --mode-depth 15 --max-depth 50 --fanout-max 8"
    [java]="--vocab 20000 --names java --min-depth 5 --mode-depth 15 --max-depth 50 --fanout-max 8"
    [wide]="--lines 600000 --vocab 60000 --min-depth 2 --mode-depth 4 --max-depth 8 --fanout-min 10 --fanout-max 60"
    [deep]="--lines 18000 --min-depth 60 --mode-depth 150 --max-depth 400"
    [recursive]="--lines 60000 --recursion 0.5 --recursion-depth 80"
)
if [[ -n ${GEN_ARGS:-} ]]; then
    SHAPE_ARGS[custom]=$GEN_ARGS
    SHAPES=custom
fi
SHAPES=${SHAPES:-default cpp}
[[ $SHAPES == all ]] && SHAPES="default cpp java wide deep recursive"
for shape in $SHAPES; do
    [[ -v SHAPE_ARGS[$shape] ]] || { echo "unknown shape '$shape' (known: ${!SHAPE_ARGS[*]})" >&2; exit 2; }
done

log() { printf '== %s\n' "$*" >&2; }

# ---------------------------------------------------------------- tools
if [[ ! -x /usr/bin/time ]]; then
    log "installing GNU time"
    apt-get install -y time >/dev/null || { apt-get update >/dev/null && apt-get install -y time >/dev/null; }
fi

if [[ -z $PERFATLAS_BIN ]]; then
    log "building perfatlas (release) into $TARGET_DIR"
    (cd "$REPO" && cargo build --release --quiet)
fi

if ! command -v inferno-flamegraph >/dev/null || ! command -v inferno-diff-folded >/dev/null; then
    log "installing inferno from crates.io"
    cargo install inferno --locked --quiet
fi
INFERNO=$(command -v inferno-flamegraph)

median() { tail -qn1 "$RES/$1".*.time | cut -d' ' -f1 | sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# CPU (user+sys) is less sensitive than wall time to other load on the machine.
median_cpu() { tail -qn1 "$RES/$1".*.time | awk '{print $3+$4}' | sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
peak_mb() { tail -qn1 "$RES/$1".*.time | cut -d' ' -f2 | sort -n | tail -1 | awk '{printf "%.0f", $1/1024}'; }
mb() { awk -v b="$1" 'BEGIN{printf "%.1f", b/1e6}'; }
div() { awk -v p="$1" -v i="$2" 'BEGIN{printf "%.2f", p/i}'; }

SUMMARY=()
MISSED=0

# bench_shape NAME: generate the shape's input, time both tools on it, print
# its tables and add its ratios to SUMMARY.
bench_shape() {
    local shape=$1 gen_args=${SHAPE_ARGS[$1]}
    local dir=$BENCH_DIR/$shape
    # The default shape keeps the directory earlier versions of this script used.
    [[ $shape == default ]] && dir=$BENCH_DIR
    echo
    echo "=================== shape: $shape (gen_folded.py ${gen_args:-with its defaults})"

    # ------------------------------------------------------------ input
    INPUT=$dir/input
    FOLDED=$INPUT/v1/big.folded
    mkdir -p "$INPUT/v1"
    # The stamp lives outside the input directory so perfatlas never reads it.
    local stamp_file=$dir/big.folded.stamp stats_file=$dir/big.folded.stats
    local stamp
    stamp="$(sha256sum "$REPO/benches/gen_folded.py" | cut -d' ' -f1) $gen_args"
    if [[ ! -s $FOLDED || ! -s $stats_file || "$(cat "$stamp_file" 2>/dev/null)" != "$stamp" ]]; then
        log "generating $FOLDED"
        # shellcheck disable=SC2086
        python3 "$REPO/benches/gen_folded.py" -o "$dir/big.folded.tmp" --stats $gen_args 2>"$stats_file.tmp"
        mv "$dir/big.folded.tmp" "$FOLDED"
        mv "$stats_file.tmp" "$stats_file"
        printf '%s' "$stamp" > "$stamp_file"
    fi

    local stacks in_mb tree
    stacks=$(wc -l < "$FOLDED")
    in_mb=$(mb "$(stat -c %s "$FOLDED")")
    tree=$(grep -o '[0-9]* call tree nodes, mean depth [0-9.]* frames' "$stats_file" || echo "tree size unknown")
    log "input: $FOLDED ($stacks stacks, $in_mb MB, $tree)"
    cat "$FOLDED" > /dev/null # warm the page cache for both tools alike

    # ------------------------------------------------------------ runs
    SITE=$dir/site
    SVG=$dir/inferno.svg
    RES=$dir/results
    rm -rf "$RES" && mkdir -p "$RES"

    local i
    for i in $(seq 1 "$RUNS"); do
        # Alternate which tool goes first so drift hits both alike.
        if (( i % 2 )); then run_perfatlas "$i"; run_inferno "$i"; else run_inferno "$i"; run_perfatlas "$i"; fi
        log "$shape run $i/$RUNS: perfatlas $(cut -d' ' -f1 "$RES/perfatlas.$i.time")s, inferno $(cut -d' ' -f1 "$RES/inferno.$i.time")s"
    done
    for i in $(seq 1 "$RUNS"); do run_perfatlas_rebuild "$i"; done

    local p_med i_med p_cpu i_cpu p_rss i_rss cache_bytes site_bytes svg_bytes largest largest_bytes largest_page page_g svg_g ratio cpu_ratio rss_ratio
    p_med=$(median perfatlas); i_med=$(median inferno)
    p_cpu=$(median_cpu perfatlas); i_cpu=$(median_cpu inferno)
    p_rss=$(peak_mb perfatlas); i_rss=$(peak_mb inferno)
    # The site without its build cache (which a fresh build writes too).
    cache_bytes=$(du -sb "$SITE/.perfatlas-cache" 2>/dev/null | cut -f1 || echo 0)
    site_bytes=$(( $(du -sb "$SITE" | cut -f1) - ${cache_bytes:-0} ))
    svg_bytes=$(stat -c %s "$SVG")
    largest=$(find "$SITE" -type f -name '*.html' -printf '%s %p\n' | sort -n | tail -1)
    largest_bytes=${largest%% *}; largest_page=${largest#* }
    # A drawn frame is one <g …> group in both outputs (inferno writes `<g>`).
    page_g=$(grep -o '<g[ >]' "$largest_page" | wc -l || true)
    svg_g=$(grep -o '<g[ >]' "$SVG" | wc -l || true)
    ratio=$(div "$p_med" "$i_med"); cpu_ratio=$(div "$p_cpu" "$i_cpu"); rss_ratio=$(div "$p_rss" "$i_rss")

    echo "input: $stacks distinct stacks, $in_mb MB, $tree ($FOLDED); $RUNS runs each, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "perfatlas: $("$PERFATLAS" --version)   inferno: $(cargo install --list 2>/dev/null | grep -m1 '^inferno ' | tr -d : || echo "$INFERNO")"
    echo
    printf '%-10s %14s %13s %12s %12s\n' tool 'median wall s' 'median CPU s' 'peak RSS MB' 'output MB'
    printf '%-10s %14s %13s %12s %12s\n' perfatlas "$p_med" "$p_cpu" "$p_rss" "$(mb "$site_bytes") site (+$(mb "${cache_bytes:-0}") cache)"
    printf '%-10s %14s %13s %12s %12s\n' inferno "$i_med" "$i_cpu" "$i_rss" "$(mb "$svg_bytes") svg"
    printf '%-10s %14s %13s %12s %12s\n' 'rebuild' "$(median rebuild)" "$(median_cpu rebuild)" "$(peak_mb rebuild)" "(perfatlas, caches kept)"
    echo
    echo "ratio perfatlas/inferno, fresh builds: $ratio (median wall), $cpu_ratio (median CPU user+sys); peak RSS ${rss_ratio}×"
    echo "ratio perfatlas rebuild/inferno: $(div "$(median rebuild)" "$i_med") (median wall; not a fresh build)"
    echo "perfatlas largest page: ${largest_page#"$BENCH_DIR"/} $(mb "$largest_bytes") MB, $page_g frames (<g> groups)"
    echo "inferno svg: $(mb "$svg_bytes") MB, $svg_g frames (<g> groups)"
    echo "all runs (wall s, peak RSS KB, user s, sys s):"
    local t
    for t in perfatlas inferno; do echo "  $t: $(tail -qn1 "$RES/$t".*.time | paste -sd, | sed 's/,/, /g')"; done
    SUMMARY+=("$(printf '%-8s %-44s %6s %6s %6s' "$shape" "$stacks stacks, $in_mb MB, ${tree% frames}" "$ratio" "$cpu_ratio" "$rss_ratio")")
    if ! awk -v r="$ratio" 'BEGIN{exit !(r <= 1.0)}'; then MISSED=1; fi

    [[ ${DIFF:-1} == 1 ]] && bench_diff "$dir" "$stamp"
    return 0
}

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

# ---------------------------------------------------------------- diff
# bench_diff DIR STAMP: the two-version comparison on the shape's input.
bench_diff() {
    local dir=$1 stamp=$2
    DINPUT=$dir/diff-input
    V2=$DINPUT/v2/big.folded
    mkdir -p "$DINPUT/v1" "$DINPUT/v2"
    ln -sf "$FOLDED" "$DINPUT/v1/big.folded"
    # v2: every 10th stack twice as heavy, every 37th gone, every 53rd
    # ending in a new function; still sorted.
    local dstamp=$dir/v2.stamp
    if [[ ! -s $V2 || "$(cat "$dstamp" 2>/dev/null)" != "$stamp" ]]; then
        log "deriving $V2"
        awk '{ n = NR; c = $NF; $NF = "";
               if (n % 37 == 0) next;
               if (n % 10 == 0) c = c * 2;
               s = substr($0, 1, length($0) - 1);
               if (n % 53 == 0) s = s ";bench_new_fn_" (n % 7);
               print s " " c }' "$FOLDED" | LC_ALL=C sort > "$V2.tmp"
        mv "$V2.tmp" "$V2"
        printf '%s' "$stamp" > "$dstamp"
    fi
    DSITE=$dir/diff-site
    DSVG=$dir/inferno-diff.svg
    local i
    for i in $(seq 1 "$RUNS"); do
        if (( i % 2 )); then run_perfatlas_diff "$i"; run_inferno_diff "$i"; else run_inferno_diff "$i"; run_perfatlas_diff "$i"; fi
        log "diff run $i/$RUNS: perfatlas $(cut -d' ' -f1 "$RES/pdiff.$i.time")s, inferno $(cut -d' ' -f1 "$RES/idiff.$i.time")s"
    done
    local pd id
    pd=$(median pdiff); id=$(median idiff)
    echo
    echo "two versions, fresh builds (v2 derived from v1: 10% of stacks doubled, 1/37 removed, 1/53 with a new leaf):"
    printf '%-10s %14s %13s %12s %12s\n' tool 'median wall s' 'median CPU s' 'peak RSS MB' 'output MB'
    printf '%-10s %14s %13s %12s %12s\n' perfatlas "$pd" "$(median_cpu pdiff)" "$(peak_mb pdiff)" "$(mb "$(du -sb "$DSITE" | cut -f1)") site"
    printf '%-10s %14s %13s %12s %12s\n' inferno "$id" "$(median_cpu idiff)" "$(peak_mb idiff)" "$(mb "$(stat -c %s "$DSVG")") svg"
    echo "ratio perfatlas/inferno (diff, fresh builds): $(div "$pd" "$id") (median wall)"
    echo "perfatlas diff page (top-down view, as HTML): $(grep -o '<g class="f' "$DSITE/flamediff/big/v1--v2.html" | wc -l) frames; inferno diff svg: $(grep -o '<g[ >]' "$DSVG" | wc -l) frames"
}
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

# ---------------------------------------------------------------- main
for shape in $SHAPES; do bench_shape "$shape"; done

echo
echo "=================== every shape: perfatlas/inferno, fresh builds (medians of $RUNS; load average $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-8s %-44s %6s %6s %6s\n' shape input wall CPU RSS
printf '%s\n' "${SUMMARY[@]}"
if (( MISSED == 0 )); then
    echo "target (a fresh perfatlas build no slower than inferno, every shape): MET"
else
    echo "target (a fresh perfatlas build no slower than inferno, every shape): MISSED"
    [[ ${BENCH_STRICT:-0} == 1 ]] && exit 3
fi
exit 0
