#!/usr/bin/env python3
"""Run third-party change-point detectors on series, for comparison only.

perfatlas has its own change-point detector (Rust). This script runs three
published detectors on the same input so their answers can be compared with
ours:

  * otava        Apache Otava (formerly Hunter): windowed E-divisive with a
                 Student t-test for significance, then a merge step
                 (otava.analysis.compute_change_points).
  * e_divisive   MongoDB's signal-processing-algorithms: E-divisive means with
                 a permutation test
                 (signal_processing_algorithms.energy_statistics.energy_statistics.e_divisive).
  * asv          airspeed velocity: L1 Potts-model step fit
                 (asv.step_detect.detect_steps) followed by
                 asv.step_detect.detect_regressions.

These packages are only used to compare results. They are never shipped with
perfatlas, never imported by it and none of their code is copied into it.

Setup (PyPI only). Install in two steps: apache-otava 0.8.0 pins numpy==2.2.0
and signal-processing-algorithms 2.1.6 needs numpy<2, so pip cannot resolve
them together. The second command installs numpy 1.26.4 and pip then prints a
dependency-conflict message about otava's numpy pin. Otava still runs on
numpy 1.26.4.

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install apache-otava==0.8.0 asv==0.6.6 && \
        /tmp/refvenv/bin/pip install signal-processing-algorithms==2.1.6

Usage (no network access needed):

    /tmp/refvenv/bin/python benches/changepoints_reference.py INPUT.json

INPUT.json:  {"series": [{"name": "...", "values": [floats...],
                          "better": "lower" | "higher"}]}
stdout:      {"tools": {tool: "version and parameters"},
              "series": {name: {"otava":      [{"index": i, "pvalue": p}],
                                "e_divisive": [{"index": i}],
                                "asv":        [{"index": i, "before": v,
                                                "after": v}]}}}

`index` is always the position of the FIRST point at the new level: a step
between values[9] and values[10] is reported as index 10. All three tools use
this convention internally. asv also reports the last point before the step
(`index - 1`), and the script checks that this point is right before `index`.

otava and e_divisive report changes in either direction, so "better" does not
affect them. asv only reports regressions (upward steps, where lower is
better), so the script negates "higher"-is-better series before calling asv
and negates the values back in the output.

The output is deterministic. otava's windowed method uses no random numbers.
e_divisive shuffles with numpy's global RNG, so the script seeds it
(E_DIVISIVE_SEED) again for every series.
"""

import json
import math
import sys
from importlib.metadata import version

# --- parameters -------------------------------------------------------------
# Each tool uses its own defaults (see the notes below), except asv's
# threshold, which uses the value that `asv publish` uses.

# otava.analysis.compute_change_points defaults, also used by the otava CLI
# (--window 50, -P 0.001, -M 0.0). The first pass runs at 10 * max_pvalue.
OTAVA_PARAMS = {"window_len": 50, "max_pvalue": 0.001, "min_magnitude": 0.0}

# e_divisive(series, pvalue=0.05, permutations=100) defaults.
E_DIVISIVE_PARAMS = {"pvalue": 0.05, "permutations": 100}
E_DIVISIVE_SEED = 1234

# detect_regressions(steps, threshold=0, min_size=2) is the function's own
# default, but `asv publish` uses threshold 0.05 unless asv.conf.json sets
# regressions_thresholds. We use 0.05 so the results match what asv users see.
# detect_steps has no parameters: gamma is chosen automatically, with
# beta = 4 ln(n) / n.
ASV_PARAMS = {"threshold": 0.05, "min_size": 2}


def _num(x):
    """A JSON-safe float (None for NaN/inf)."""
    x = float(x)
    return x if math.isfinite(x) else None


def run_otava(values):
    from otava.analysis import compute_change_points

    # Pass a plain list. When given a numpy array, ChangePointDetector does
    # not slice it to the window, but still adds the window start to the
    # indices.
    cps, _weak = compute_change_points(list(values), **OTAVA_PARAMS)
    return [{"index": int(cp.index), "pvalue": _num(cp.stats.pvalue)} for cp in cps]


def run_e_divisive(values):
    from signal_processing_algorithms.determinism import deterministic_numpy_random
    from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive

    with deterministic_numpy_random(E_DIVISIVE_SEED):
        idx = e_divisive(list(values), **E_DIVISIVE_PARAMS)
    # e_divisive lists the indices in the order it found them, without p-values.
    return [{"index": int(i)} for i in sorted(idx)]


def run_asv(values, better):
    from asv.step_detect import detect_regressions, detect_steps

    sign = 1.0 if better == "lower" else -1.0
    y = [sign * float(v) for v in values]
    steps = detect_steps(y)
    _last, _best, jumps = detect_regressions(steps, **ASV_PARAMS)
    out = []
    for last_before, first_after, value_before, best_after in jumps or []:
        # last_before is the last point of the old level and first_after is the
        # first point of the new one. With no missing data they are adjacent.
        assert first_after == last_before + 1, (last_before, first_after)
        out.append(
            {
                "index": int(first_after),
                # Median of the segment before the step.
                "before": _num(sign * value_before),
                # asv's "best value after": the best segment median anywhere
                # after the step, which is not always the next segment.
                "after": _num(sign * best_after),
            }
        )
    return out


def tool_descriptions():
    return {
        "otava": "apache-otava %s otava.analysis.compute_change_points(%s)"
        % (version("apache-otava"), ", ".join("%s=%r" % kv for kv in OTAVA_PARAMS.items())),
        "e_divisive": "signal-processing-algorithms %s e_divisive(%s) "
        "under deterministic_numpy_random(%d), reseeded per series"
        % (
            version("signal-processing-algorithms"),
            ", ".join("%s=%r" % kv for kv in E_DIVISIVE_PARAMS.items()),
            E_DIVISIVE_SEED,
        ),
        "asv": "asv %s detect_regressions(detect_steps(y), %s); y negated when better=higher; "
        "before = median of segment before, after = asv best_value_after"
        % (version("asv"), ", ".join("%s=%r" % kv for kv in ASV_PARAMS.items())),
    }


def analyse(doc):
    result = {}
    for s in doc["series"]:
        name, values = s["name"], [float(v) for v in s["values"]]
        better = s.get("better", "lower")
        if better not in ("lower", "higher"):
            raise ValueError("series %r: better must be 'lower' or 'higher'" % name)
        if not all(math.isfinite(v) for v in values):
            raise ValueError("series %r: values must be finite numbers" % name)
        if name in result:
            raise ValueError("duplicate series name %r" % name)
        result[name] = {
            "otava": run_otava(values),
            "e_divisive": run_e_divisive(values),
            "asv": run_asv(values, better),
        }
    return {"tools": tool_descriptions(), "series": result}


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: %s INPUT.json\n" % argv[0])
        return 2
    with open(argv[1]) as f:
        doc = json.load(f)
    json.dump(analyse(doc), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
