#!/usr/bin/env bash
# Are two perfatlas binaries' sites byte-identical? Builds every sample-data
# report with each (the sample histories with and without --repo, one
# --zip and one --svg-files) and compares the trees and the zip byte for
# byte. For refactors that must not change the output.
#
#   benches/compare_sites.sh OLD_BINARY NEW_BINARY
#
# e.g. with the previous commit built in a worktree:
#   git worktree add /tmp/old HEAD~1 && (cd /tmp/old && cargo build --release)
#   cargo build --release
#   benches/compare_sites.sh /tmp/old/target/release/perfatlas target/release/perfatlas
#
# Exit 0 when identical; 1 with the differing files listed.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=$REPO/sample-data
WORK=${BENCH_DIR:-$(mktemp -d /tmp/perfatlas-compare.XXXXXX)}
(($# == 2)) || { echo "usage: $0 OLD_BINARY NEW_BINARY" >&2; exit 2; }

mkdir -p "$WORK/repos"
for h in moment python-markdown; do
    [[ -d $WORK/repos/$h ]] || git clone -q "$DATA/$h/history.bundle" "$WORK/repos/$h" 2>/dev/null
done

# build BINARY OUT: every sample report into OUT (a build that skips inputs
# exits 1; only a missing site is a failure).
build_all() {
    local bin=$1 out=$2
    rm -rf "$out" && mkdir -p "$out"
    b() {
        local name=$1; shift
        "$bin" build "$@" -o "$out/$name" >/dev/null 2>&1 || true
        [[ -f $out/$name/index.html ]] || { echo "$bin: $name not built" >&2; exit 1; }
    }
    b alloc "$DATA/alloc-example/report"
    b field "$DATA/field-example/report"
    b moment "$DATA/moment"
    b moment-repo "$DATA/moment" --repo "$WORK/repos/moment"
    b markdown "$DATA/python-markdown"
    b markdown-repo "$DATA/python-markdown" --repo "$WORK/repos/python-markdown"
    b markdown-zip "$DATA/python-markdown" --zip "$out/markdown.zip"
    b markdown-svg "$DATA/python-markdown" --svg-files
}

build_all "$1" "$WORK/old"
build_all "$2" "$WORK/new"
if diff -r -q "$WORK/old" "$WORK/new"; then
    echo "identical: $(find "$WORK/new" -type f | wc -l) files in 8 sites and a zip ($WORK)"
else
    echo "sites differ ($WORK)" >&2
    exit 1
fi
