#!/usr/bin/env python3
"""Series of one value per commit with planted steps, for comparing
change-point detectors (benches/changepoints_compare.sh).

    python3 benches/gen_planted_steps.py OUT.json TRUTH.json [SERIES] [LENGTH]

The noise is not synthetic: it is resampled (with replacement, fixed seed)
from a real flat stretch, the 30 commits of lineguard's "Large files
(10x10MB)" benchmark after its step (tests/fixtures/history/one-value/
lineguard: github-action-benchmark data.js, values divided by their
median). Half the series are flat; the other half step once, at a commit
drawn between 10 and LENGTH - 10, by a factor drawn from 0.5, 0.8, 0.9,
1.1, 1.2, 1.5 and 2. TRUTH.json gives each series' step (index of the
first value at the new level, and factor) or null.
"""
import json
import os
import random
import statistics
import sys


def real_noise():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "tests", "fixtures", "history", "one-value",
                        "lineguard", "data.js")
    text = open(path, encoding="utf-8").read()
    doc = json.loads(text[text.index("{"):])
    (entries,) = doc["entries"].values()
    ids = [e["commit"]["id"] for e in entries]
    start = ids.index("7efbe84aaf7bfb4aaa05dff432b0e3649fc7013d")
    values = [b["value"] for e in entries[start:] for b in e["benches"]
              if b["name"] == "Large files (10x10MB)"]
    m = statistics.median(values)
    return [v / m for v in values]


def main():
    out, truth_path = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    length = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    noise = real_noise()
    rng = random.Random(37)
    series, truth = [], {}
    for i in range(n):
        level = rng.uniform(1e-4, 10.0)
        values = [level * rng.choice(noise) for _ in range(length)]
        name = f"s{i:04d}"
        if i % 2 == 1:
            at = rng.randrange(10, length - 9)
            factor = rng.choice([0.5, 0.8, 0.9, 1.1, 1.2, 1.5, 2.0])
            values = values[:at] + [v * factor for v in values[at:]]
            truth[name] = {"index": at, "factor": factor}
        else:
            truth[name] = None
        series.append({"name": name, "values": values, "better": "lower"})
    json.dump({"series": series}, open(out, "w"))
    json.dump(truth, open(truth_path, "w"), indent=1)


if __name__ == "__main__":
    main()
