#!/usr/bin/env bash
# perfatlas's change points against Apache Otava, MongoDB's e_divisive and
# asv's step detection on the same series: planted steps in noise
# resampled from a real flat stretch (benches/gen_planted_steps.py), and
# the real one-value fixtures (tests/fixtures/history/one-value). Prints,
# per detector, the steps found at their index (±1), missed, and the
# spurious detections (on flat series, or away from the planted step).
#
#   benches/changepoints_compare.sh                 # 400 series of 60 commits
#   SERIES=2000 LENGTH=1000 benches/changepoints_compare.sh
#
# The references run from a virtualenv set up as
# benches/changepoints_reference.py says (REFVENV, default /tmp/refvenv);
# without it only perfatlas's figures are printed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d /tmp/perfatlas-cp.XXXXXX)
trap 'rm -rf "$work"' EXIT
SERIES=${SERIES:-400}
LENGTH=${LENGTH:-60}
REFVENV=${REFVENV:-/tmp/refvenv}

python3 "$here/gen_planted_steps.py" "$work/series.json" "$work/truth.json" "$SERIES" "$LENGTH"
(cd "$root" && cargo bench --quiet --bench change_points -- "$work/series.json") > "$work/ours.json"
if [ -x "$REFVENV/bin/python" ]; then
    "$REFVENV/bin/python" "$here/changepoints_reference.py" "$work/series.json" > "$work/ref.json"
else
    echo '{"series": {}}' > "$work/ref.json"
    echo "(no $REFVENV: reference detectors skipped)"
fi
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
truth = json.load(open(f"{work}/truth.json"))
ours = json.load(open(f"{work}/ours.json"))
ref = json.load(open(f"{work}/ref.json"))
tools = ["perfatlas", "perfatlas_fdr", "otava", "e_divisive", "asv"]
print(f"{len(truth)} series, {sum(t is not None for t in truth.values())} with a planted step;"
      f" perfatlas took {ours['seconds']:.3f} s")
print(f"{'detector':<14} {'found':>6} {'missed':>7} {'spurious':>9} {'flat series flagged':>20}")
for tool in tools:
    found = missed = spurious = flagged = 0
    seen = False
    for name, t in truth.items():
        got = (ours["series"].get(name) or {}).get(tool)
        if got is None:
            got = (ref["series"].get(name) or {}).get(tool)
        if got is None:
            continue
        seen = True
        idx = [g["index"] for g in got]
        if t is None:
            spurious += len(idx)
            flagged += bool(idx)
        else:
            hit = [i for i in idx if abs(i - t["index"]) <= 1]
            # asv reports only steps that are regressions (up).
            if tool == "asv" and t["factor"] < 1:
                continue
            found += bool(hit)
            missed += not hit
            spurious += len(idx) - len(hit)
    if seen:
        print(f"{tool:<14} {found:>6} {missed:>7} {spurious:>9} {flagged:>20}")
print("(asv reports regressions only: its found/missed count the upward steps alone)")
PY
