#!/usr/bin/env bash
# Digests against raw files: for each history, every version folder is
# gzipped (`tar -czf`, what one would keep without perfatlas) and digested
# twice (`perfatlas digest`, and `--records`); then the raw history and
# both digested ones are built fresh (--no-cache) with hyperfine, and the
# sites compared. Prints raw bytes, tar.gz bytes, digest bytes, digest
# with records bytes (each summed over the versions), the three build
# times, and whether the three sites are the same bytes.
#
#   benches/digests.sh                      # python-markdown, moment, generated 200 x 3
#   benches/digests.sh DIR [DIR…]           # any input directories
#   RUNS=3 benches/digests.sh
#   SIZES_ONLY=1 PERFATLAS=target/debug/perfatlas benches/digests.sh DIR…   # sizes, no timing
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
WORK=${BENCH_DIR:-/tmp/perfatlas-digests}
RUNS=${RUNS:-5}
SIZES_ONLY=${SIZES_ONLY:-}

if [[ -z ${PERFATLAS:-} ]]; then
    (cd "$REPO" && cargo build --release --quiet)
    PERFATLAS=$TARGET_DIR/release/perfatlas
fi
mkdir -p "$WORK"
if (($# == 0)); then
    if [[ ! -d $WORK/generated-200 ]]; then
        python3 "$REPO/benches/gen_history.py" "$WORK/generated-200" 200 3 >/dev/null
    fi
    set -- "$REPO/sample-data/python-markdown" "$REPO/sample-data/moment" "$WORK/generated-200"
fi

bytes_of() { find "$@" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
percent() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f%%", 100*a/b}'; }

printf '%-16s %11s %15s %15s %15s %13s %13s %13s %s\n' input 'raw' 'tar.gz' 'digest' '+records' \
    'build raw' 'build digest' '+records' 'same site'
for dir in "$@"; do
    name=$(basename "$dir")
    rm -rf "$WORK/digested/$name" "$WORK/records/$name" "$WORK/targz/$name"
    mkdir -p "$WORK/digested/$name" "$WORK/records/$name" "$WORK/targz/$name"
    for out in digested records; do
        [[ -f $dir/perfatlas.toml ]] && cp "$dir/perfatlas.toml" "$WORK/$out/$name/"
    done
    raw=0
    for v in "$dir"/*/; do
        v=${v%/}
        version=$(basename "$v")
        [[ $version == .* ]] && continue
        raw=$((raw + $(bytes_of "$v")))
        tar -czf "$WORK/targz/$name/$version.tar.gz" -C "$dir" "$version"
        mkdir -p "$WORK/digested/$name/$version" "$WORK/records/$name/$version"
        "$PERFATLAS" digest "$v" -o "$WORK/digested/$name/$version/$version.padigest" 2>/dev/null || true
        "$PERFATLAS" digest "$v" --records -o "$WORK/records/$name/$version/$version.padigest" 2>/dev/null || true
    done
    gz=$(bytes_of "$WORK/targz/$name")
    dig=$(bytes_of "$WORK/digested/$name" -name '*.padigest')
    rec=$(bytes_of "$WORK/records/$name" -name '*.padigest')
    t_raw=- t_dig=- t_rec=-
    if [[ -z $SIZES_ONLY ]]; then
        json=$WORK/$name.json
        hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$json" --style none \
            "$PERFATLAS build $dir -o $WORK/site-raw-$name --no-cache --force -q" \
            "$PERFATLAS build $WORK/digested/$name -o $WORK/site-digested-$name --no-cache --force -q" \
            "$PERFATLAS build $WORK/records/$name -o $WORK/site-records-$name --no-cache --force -q" \
            >/dev/null 2>&1 || true
        read -r t_raw t_dig t_rec < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.2f±%.2fs" % (x["mean"], x["stddev"]) for x in r))' "$json")
    else
        for out in raw digested records; do
            from=$WORK/$out/$name
            [[ $out == raw ]] && from=$dir
            "$PERFATLAS" build "$from" -o "$WORK/site-$out-$name" --no-cache --force -q 2>/dev/null || true
        done
    fi
    same=no
    diff -r -q -x .perfatlas-cache "$WORK/site-raw-$name" "$WORK/site-digested-$name" >/dev/null &&
        diff -r -q -x .perfatlas-cache "$WORK/site-raw-$name" "$WORK/site-records-$name" >/dev/null && same=yes
    printf '%-16s %11s %15s %15s %15s %13s %13s %13s %s\n' "$name" "$raw" \
        "$gz ($(percent "$gz" "$raw"))" "$dig ($(percent "$dig" "$raw"))" "$rec ($(percent "$rec" "$raw"))" \
        "$t_raw" "$t_dig" "$t_rec" "$same"
done
