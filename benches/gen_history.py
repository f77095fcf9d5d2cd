#!/usr/bin/env python3
"""A long profile history scaled from the real sample data, for measuring
full and incremental builds.

    python3 benches/gen_history.py OUT [VERSIONS [REPETITIONS [STACKS]]]
    perfatlas build OUT -o OUT-site

Writes OUT/vNNNN/convert-basic.R.folded for VERSIONS versions (default 200)
and REPETITIONS repetitions (default 3). Each profile starts from one of the
six real py-spy profiles of sample-data/python-markdown (convert-basic, in
release order, cycling) and grows to about STACKS distinct stacks (default
3,000) by hanging synthetic callees under its leaves, the way a deeper
program would look; counts get 5% noise (fixed seed), and from the middle
version on one callee family takes twice as long, so the matrix and the
regression report have something to find.
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "sample-data", "python-markdown")
RELEASES = ["3.2.2", "3.3.7", "3.4.4", "3.5.2", "3.6", "3.7"]


def read_folded(path):
    stacks = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, count = line.rpartition(" ")
            stacks.append((stack, int(count)))
    return stacks


def grow(stacks, target, rng, slow):
    out = []
    per = max(1, target // max(1, len(stacks)))
    for stack, count in stacks:
        leaf_count = max(1, count // per)
        for k in range(per):
            family = k % 7
            depth = 1 + k % 4
            suffix = ";".join(f"helper_{family}_{d}.run (synthetic/h{family}.py:{10 + d})" for d in range(depth))
            weight = leaf_count * (2 if slow and family == 3 else 1)
            weight = max(1, round(weight * rng.gauss(1.0, 0.05)))
            out.append((f"{stack};{suffix}", weight))
    return out


def main():
    out = sys.argv[1]
    versions = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    target = int(sys.argv[4]) if len(sys.argv) > 4 else 3000
    rng = random.Random(8)
    bases = [[read_folded(os.path.join(SAMPLE, r, f"convert-basic.{n}.folded")) for n in (1, 2, 3)] for r in RELEASES]
    for v in range(versions):
        directory = os.path.join(out, f"v{v:04d}")
        os.makedirs(directory, exist_ok=True)
        for r in range(reps):
            stacks = grow(bases[v % len(bases)][r % 3], target, rng, v >= versions // 2)
            with open(os.path.join(directory, f"convert-basic.{r + 1}.folded"), "w") as f:
                f.writelines(f"{s} {c}\n" for s, c in stacks)


if __name__ == "__main__":
    main()
