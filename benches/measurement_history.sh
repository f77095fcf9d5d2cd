#!/usr/bin/env bash
# A benchmark history at the scale of large asv users: BENCHMARKS
# benchmarks (default 2,000) x VERSIONS versions (default 1,000) of
# repeated measurements, one perfatlas measurement file per version
# (benches/gen_measurements.py, generated here, never committed). Times a
# full build, then a rebuild after adding one version (reading the other
# versions from the site's build cache), and prints both with peak memory
# and the site's page sizes. asv publish needs about 470 s and 1.4 GB at
# this scale (issue 8); the targets are 10% of that (47 s) for the full
# build and 2 s for the rebuild.
#
#   benches/measurement_history.sh            # 2000 x 1000, in /tmp
#   BENCHMARKS=200 VERSIONS=200 benches/measurement_history.sh
#   PERFATLAS_TIMINGS=1 benches/measurement_history.sh   # phase timings
#   RUNS=1 benches/measurement_history.sh     # one value per version (change points)
set -euo pipefail
BENCHMARKS=${BENCHMARKS:-2000}
VERSIONS=${VERSIONS:-1000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d /tmp/perfatlas-history.XXXXXX)
trap 'rm -rf "$work"' EXIT

(cd "$root" && cargo build --release --locked --quiet)
bin=${CARGO_TARGET_DIR:-$root/target}/release/perfatlas

python3 "$here/gen_measurements.py" "$work/in" "$BENCHMARKS" "$VERSIONS" 2> "$work/planted"
echo "input: $BENCHMARKS benchmarks x $VERSIONS versions, $(du -sh "$work/in" | cut -f1)," \
    "$(wc -l < "$work/planted") planted changes"

echo "full build:"
/usr/bin/time -f '  %e s %M KB' "$bin" build "$work/in" -o "$work/site" 2>&1 | grep -v '^perfatlas: wrote'

python3 "$here/gen_measurements.py" "$work/in" "$BENCHMARKS" $((VERSIONS + 1)) "$VERSIONS"
echo "rebuild after adding version $VERSIONS (build cache):"
/usr/bin/time -f '  %e s %M KB' "$bin" build "$work/in" -o "$work/site" 2>&1 | grep -v '^perfatlas: wrote'

echo "site: $(find "$work/site" -name '*.html' | wc -l) pages," \
    "$(du -sh --exclude=.perfatlas-cache "$work/site" | cut -f1) without the cache," \
    "cache $(du -sh "$work/site/.perfatlas-cache" | cut -f1)"
# The largest page of each kind (README, "Page budgets").
for kind in index.html benchmarks regressions; do
    [ -e "$work/site/$kind" ] || continue
    find "$work/site/$kind" -name '*.html' -printf '%s %p\n' | sort -n | tail -1 |
        awk -v kind="$kind" '{ sub(".*/site/", "", $2); printf "  largest page of %s: %d KB (%s)\n", kind, $1 / 1024, $2 }'
done
