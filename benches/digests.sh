#!/usr/bin/env bash
# Digests against raw files: for each history, every version folder is
# digested (perfatlas digest), then the raw history and the digested one
# are built fresh (--no-cache) with hyperfine, and the sites compared.
# Prints raw bytes, digest bytes, their ratio, both build times, and
# whether the two sites are the same bytes.
#
#   benches/digests.sh                      # python-markdown, moment, generated 200 x 3
#   benches/digests.sh DIR [DIR…]           # any input directories
#   RUNS=3 benches/digests.sh
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
PERFATLAS=$TARGET_DIR/release/perfatlas
WORK=${BENCH_DIR:-/tmp/perfatlas-digests}
RUNS=${RUNS:-5}

(cd "$REPO" && cargo build --release --quiet)
mkdir -p "$WORK"
if (($# == 0)); then
    if [[ ! -d $WORK/generated-200 ]]; then
        python3 "$REPO/benches/gen_history.py" "$WORK/generated-200" 200 3 >/dev/null
    fi
    set -- "$REPO/sample-data/python-markdown" "$REPO/sample-data/moment" "$WORK/generated-200"
fi

printf '%-16s %12s %12s %7s %14s %14s %s\n' input 'raw bytes' 'digest bytes' ratio 'build raw' 'build digests' 'same site'
for dir in "$@"; do
    name=$(basename "$dir")
    digests=$WORK/digested/$name
    rm -rf "$digests" && mkdir -p "$digests"
    [[ -f $dir/perfatlas.toml ]] && cp "$dir/perfatlas.toml" "$digests/"
    raw=0
    for v in "$dir"/*/; do
        v=${v%/}
        version=$(basename "$v")
        [[ $version == .* ]] && continue
        raw=$((raw + $(find "$v" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')))
        mkdir -p "$digests/$version"
        "$PERFATLAS" digest "$v" -o "$digests/$version/$version.padigest" 2>/dev/null || true
    done
    dig=$(find "$digests" -name '*.padigest' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    json=$WORK/$name.json
    hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$json" --style none \
        "$PERFATLAS build $dir -o $WORK/site-raw-$name --no-cache --force -q" \
        "$PERFATLAS build $digests -o $WORK/site-digests-$name --no-cache --force -q" >/dev/null 2>&1 || true
    read -r t_raw t_dig < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.2f±%.2fs" % (x["mean"], x["stddev"]) for x in r))' "$json")
    same=no
    diff -r -q -x .perfatlas-cache "$WORK/site-raw-$name" "$WORK/site-digests-$name" >/dev/null && same=yes
    printf '%-16s %12s %12s %6.1f%% %14s %14s %s\n' "$name" "$raw" "$dig" \
        "$(awk -v a="$dig" -v b="$raw" 'BEGIN{print 100*a/b}')" "$t_raw" "$t_dig" "$same"
done
