#!/usr/bin/env bash
# How heavy a report is against its input: for each input directory, a
# fresh build (new output directory, no cache) and a fresh --zip, then
# input bytes, site bytes, file count, zip bytes and the two ratios.
#
#   benches/site_weight.sh                       # the sample data
#   benches/site_weight.sh DIR [DIR…]            # any input directories
#   CARGO_TARGET_DIR=/tmp/t benches/site_weight.sh
#
# Input bytes are the files perfatlas reads: everything under the input
# directory except its git bundle, capture scripts and notes (*.sh, *.md,
# *.bundle, *.mjs, *.py at the top level). Site bytes exclude the build
# cache (.perfatlas-cache), which --zip leaves out too.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
PERFATLAS=$TARGET_DIR/release/perfatlas
WORK=${BENCH_DIR:-/tmp/perfatlas-weight}

(cd "$REPO" && cargo build --release --quiet)

if (($# == 0)); then
    set -- "$REPO/sample-data/python-markdown" "$REPO/sample-data/moment"
fi

input_bytes() {
    find "$1" -type f \
        ! \( -path "$1/*.sh" -o -path "$1/*.md" -o -path "$1/*.bundle" \
             -o -path "$1/*.mjs" -o -path "$1/*.py" \) \
        -printf '%s\n' | awk '{s += $1} END {print s + 0}'
}
mb() { awk -v b="$1" 'BEGIN{printf "%.1f", b/1e6}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", a/b}'; }

printf '%-18s %10s %10s %7s %9s %12s %11s\n' input 'input MB' 'site MB' files 'zip MB' 'site/input' 'zip/input'
for dir in "$@"; do
    name=$(basename "$dir")
    out=$WORK/$name
    rm -rf "$out" "$out.zip"
    mkdir -p "$WORK"
    "$PERFATLAS" build "$dir" -o "$out" --zip "$out.zip" --no-cache >/dev/null 2>&1 || true
    [[ -f $out/index.html ]] || { echo "$name: build failed" >&2; exit 1; }
    in_b=$(input_bytes "$dir")
    site_b=$(find "$out" -type f ! -path '*/.perfatlas-cache/*' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    files=$(find "$out" -type f ! -path '*/.perfatlas-cache/*' | wc -l)
    zip_b=$(stat -c %s "$out.zip")
    printf '%-18s %10s %10s %7s %9s %11s× %10s×\n' "$name" "$(mb "$in_b")" "$(mb "$site_b")" "$files" \
        "$(mb "$zip_b")" "$(ratio "$site_b" "$in_b")" "$(ratio "$zip_b" "$in_b")"
done
