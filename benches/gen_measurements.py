#!/usr/bin/env python3
"""Synthetic benchmark history at the scale of large asv users.

    python3 benches/gen_measurements.py OUT BENCHMARKS VERSIONS [FIRST]
    perfatlas build OUT -o OUT-site

Writes OUT/vNNNN/timings.json (perfatlas measurement JSON, one file per
version holding every benchmark) for versions FIRST (default 0) to
VERSIONS - 1. Every version's file depends only on the benchmark count and
its own number (fixed seeds), so `gen_measurements.py OUT 2000 1001 1000`
adds version 1000 to a history of 1,000 versions, as a new release would.

Shaped like a real suite: benchmarks of microseconds to seconds, each in
its own unit (us, ms or s) and with its own noise (0.5% to 5%) and run
count (3 to 10 runs); one in five takes three in-process samples per run;
an occasional outlier run (1 in 200, up to 1.5x); one in ten benchmarks is
added to the suite part way through the history. RUNS=1 in the
environment gives every benchmark one run per version (most CI
histories: one value per commit), with the same plan. Planted changes: one
benchmark in 50 becomes 1.2x to 2x slower, and one in 100 1.3x to 1.6x
faster, at a version of its own between 5 and 995, for good (printed on
stderr as `planted ...` when FIRST is 0).
"""
import os
import random
import sys


def plan(benchmarks):
    """Each benchmark's fixed traits and planted step, from one seed."""
    rng = random.Random(1)
    out = []
    for b in range(benchmarks):
        unit = rng.choice(["us", "ms", "s"])
        # In its unit, so no value needs an exponent.
        level = rng.uniform(0.05, 20) if unit == "s" else rng.uniform(2, 900)
        noise = rng.uniform(0.005, 0.05)
        runs = rng.randint(3, 10)
        if os.environ.get("RUNS"):
            runs = int(os.environ["RUNS"])
        samples = 3 if b % 5 == 4 else 1
        first = rng.randrange(1, 900) if b % 10 == 3 else 0
        step = None
        if b % 50 == 7:
            step = (rng.randrange(5, 995), rng.uniform(1.2, 2.0))
        elif b % 100 == 42:
            step = (rng.randrange(5, 995), 1 / rng.uniform(1.3, 1.6))
        out.append((f"suite{b % 20:02d}.bench{b:04d}", unit, level, noise, runs, samples, first, step))
    return out


def value(rng, level, noise):
    x = level * rng.gauss(1, noise)
    if rng.random() < 0.005:
        x *= rng.uniform(1.05, 1.5)
    return f"{max(x, 0.0):.4f}"


def version_file(traits, v):
    rng = random.Random(1_000_003 * (v + 1))
    lines = []
    for name, unit, level, noise, runs, samples, first, step in traits:
        if v < first:
            continue
        if step is not None and v >= step[0]:
            level *= step[1]
        if samples == 1:
            values = [value(rng, level, noise) for _ in range(runs)]
            extra = ""
        else:
            values = ["[" + ",".join(value(rng, level, noise / 3) for _ in range(samples)) + "]"
                      for _ in range(runs)]
            extra = ', "in_process": true'
        lines.append(f'{{"name": "{name}", "unit": "{unit}"{extra}, "runs": [{",".join(values)}]}}')
    return '{"perfatlas_measurements": 1,\n "benchmarks": [\n' + ",\n".join(lines) + "]}\n"


def main():
    out, benchmarks, versions = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    first = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    traits = plan(benchmarks)
    if first == 0:
        for name, _, _, _, _, _, _, step in traits:
            if step is not None and step[0] < versions:
                print(f"planted {name} x{step[1]:.2f} at v{step[0]:04d}", file=sys.stderr)
    for v in range(first, versions):
        directory = os.path.join(out, f"v{v:04d}")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "timings.json"), "w") as f:
            f.write(version_file(traits, v))


main()
