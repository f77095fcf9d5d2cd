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
#   SITE_IN=/dev/shm PLUS1_RUNS=5 PREVIOUS=/path/to/old/perfatlas \
#       benches/measurement_history.sh
#
# SITE_IN puts the site in another directory (tmpfs: no file system's
# inode search in the figures, see the README's "Writing on this
# machine's disk"). PLUS1_RUNS times the +1 version that many more times,
# each from a copy of the site as the full build left it, alternating
# with the PREVIOUS binary when given, which makes its own full build
# (timed) for its copies.
set -euo pipefail
BENCHMARKS=${BENCHMARKS:-2000}
VERSIONS=${VERSIONS:-1000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d /tmp/perfatlas-history.XXXXXX)
site_root=$(mktemp -d "${SITE_IN:-/tmp}/perfatlas-history-site.XXXXXX")
trap 'rm -rf "$work" "$site_root"' EXIT
site=$site_root/site

(cd "$root" && cargo build --release --locked --quiet)
bin=${CARGO_TARGET_DIR:-$root/target}/release/perfatlas

python3 "$here/gen_measurements.py" "$work/in" "$BENCHMARKS" "$VERSIONS" 2> "$work/planted"
# A file written less than half a second before it is read is looked at
# again once it has stood that long (perfatlas_input::load::SETTLE): a
# build started at once would time that wait, not the build.
sleep 1
echo "input: $BENCHMARKS benchmarks x $VERSIONS versions, $(du -sh "$work/in" | cut -f1)," \
    "$(wc -l < "$work/planted") planted changes"

echo "full build:"
/usr/bin/time -f '  %e s %M KB' "$bin" build "$work/in" -o "$site" 2>&1 | grep -v '^perfatlas: wrote'
if [ "${PLUS1_RUNS:-0}" -gt 0 ]; then cp -a "$site" "$site_root/base"; fi
# The previous binary's own site: its build cache may hold other files.
if [ -n "${PREVIOUS:-}" ]; then
    /usr/bin/time -f "  full build, $PREVIOUS: %e s %M KB" "$PREVIOUS" build "$work/in" \
        -o "$site_root/base-prev" 2>&1 | grep -v '^perfatlas: '
fi

python3 "$here/gen_measurements.py" "$work/in" "$BENCHMARKS" $((VERSIONS + 1)) "$VERSIONS"
sleep 1
echo "rebuild after adding version $VERSIONS (build cache):"
/usr/bin/time -f '  %e s %M KB' "$bin" build "$work/in" -o "$site" 2>&1 | grep -v '^perfatlas: wrote'

# The +1 version again, alternating binaries, each from the full build's site.
for _ in $(seq "${PLUS1_RUNS:-0}"); do
    for b in "$bin" ${PREVIOUS:+"$PREVIOUS"}; do
        rm -rf "$site_root/again"
        base=$site_root/base
        if [ "$b" != "$bin" ]; then base=$site_root/base-prev; fi
        cp -a "$base" "$site_root/again"
        /usr/bin/time -f "  +1 again, $b: %e s %M KB" "$b" build "$work/in" -o "$site_root/again" 2>&1 |
            grep -v '^perfatlas: '
    done
done
rm -rf "$site_root/base" "$site_root/base-prev" "$site_root/again"

echo "site: $(find "$site" -name '*.html' | wc -l) pages," \
    "$(du -sh --exclude=.perfatlas-cache "$site" | cut -f1) without the cache," \
    "cache $(du -sh "$site/.perfatlas-cache" | cut -f1)"
# The largest page of each kind (README, "Page budgets").
for kind in index.html benchmarks regressions; do
    [ -e "$site/$kind" ] || continue
    find "$site/$kind" -name '*.html' -printf '%s %p\n' | sort -n | tail -1 |
        awk -v kind="$kind" '{ sub(".*/site/", "", $2); printf "  largest page of %s: %d KB (%s)\n", kind, $1 / 1024, $2 }'
done
