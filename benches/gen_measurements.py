#!/usr/bin/env python3
"""Synthetic measurement history for the regression report at scale.

    python3 benches/gen_measurements.py OUT BENCHMARKS VERSIONS
    perfatlas build OUT -o OUT-site

Writes OUT/vNNNN/timings.json (perfatlas measurement JSON) for VERSIONS
versions of BENCHMARKS benchmarks, five runs each with 2% Gaussian noise
(fixed seed). Every seventh benchmark becomes 1.3x slower at the middle
version, so the report should show exactly those regressions, each in
that version.
"""
import json
import os
import random
import sys


def main():
    out, benchmarks, versions = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(1)
    base = [rng.uniform(0.001, 0.5) for _ in range(benchmarks)]
    for v in range(versions):
        directory = os.path.join(out, f"v{v:04d}")
        os.makedirs(directory, exist_ok=True)
        entries = []
        for b in range(benchmarks):
            slower = b % 7 == 0 and v >= versions // 2
            level = base[b] * (1.3 if slower else 1.0)
            runs = [round(level * rng.gauss(1, 0.02), 6) for _ in range(5)]
            entries.append({"name": f"bench{b:04d}", "unit": "s", "runs": runs})
        with open(os.path.join(directory, "timings.json"), "w") as f:
            json.dump({"perfatlas_measurements": 1, "benchmarks": entries}, f)


main()
