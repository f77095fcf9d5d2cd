#!/usr/bin/env bash
# measure.sh - repeated wall-time measurements of the sample benchmarks with
# hyperfine, for perfatlas's regression report.
#
# Same subject, versions, virtualenvs and workload as capture.sh (which it
# runs with ONLY_VENVS=1 to make the virtualenvs), but no profiler: each run
# is a separate process timed by hyperfine. Rounds are interleaved (round 1
# of every version, then round 2, ...) so slow drift of the machine does not
# favour one version; each round writes <version>/timings.<round>.json with
# RUNS_PER_ROUND runs of both benchmarks.
#
#     bash sample-data/python-markdown/measure.sh
#
# Environment knobs (defaults in brackets):
#     ROUNDS          interleaved rounds                 [5]
#     RUNS_PER_ROUND  hyperfine runs per round            [2]
#     WORK, PYTHON    as in capture.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=${WORK:-/tmp/pa-venv}
ROUNDS=${ROUNDS:-5}
RUNS_PER_ROUND=${RUNS_PER_ROUND:-2}
VERSIONS=$(sed -n 's/^versions = \[\(.*\)\]/\1/p' "$HERE/perfatlas.toml" | tr -d '",')

command -v hyperfine >/dev/null || { echo "error: hyperfine is needed (apt-get install hyperfine)" >&2; exit 1; }
ONLY_VENVS=1 WORK="$WORK" bash "$HERE/capture.sh"
cp "$HERE/bench.py" "$WORK/bench.py"
cd "$WORK"
for round in $(seq 1 "$ROUNDS"); do
    for v in $VERSIONS; do
        py="$WORK/markdown-$v/bin/python"
        echo "== markdown $v, round $round"
        hyperfine -N --style basic --warmup 1 --runs "$RUNS_PER_ROUND" \
            --export-json "$HERE/$v/timings.$round.json" \
            -n convert-basic "$py $WORK/bench.py convert-basic" \
            -n convert-extensions "$py $WORK/bench.py convert-extensions" >/dev/null
    done
done
echo "hyperfine $(hyperfine --version | cut -d' ' -f2), $ROUNDS rounds x $RUNS_PER_ROUND runs per version, $(date -u +%Y-%m-%d)"
