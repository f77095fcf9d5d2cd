#!/usr/bin/env python3
"""Synthetic allocation-site history at the scale of the paper's threats
section ("running all the tests of a project ... generates a CCT with 1767
nodes"), for measuring the allocation page.

    python3 benches/gen_allocations.py OUT CONTEXTS [VERSIONS]
    perfatlas build OUT -o OUT-site

Writes OUT/vN/tests.json (perfatlas native JSON with allocations and call
counts): a test runner calling test classes, each test method walking
shared helper paths 3 to 14 deep, with allocation sites along them; 120
classes of Zipf-like frequency; CONTEXTS calling contexts per version
(fixed seed; later versions shift a few counts).
"""
import json
import os
import random
import sys


def main():
    out, contexts = sys.argv[1], int(sys.argv[2])
    versions = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    for v in range(versions):
        directory = os.path.join(out, f"v{v + 1}")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "tests.json"), "w") as f:
            f.write(profile(random.Random(3), contexts, v))


def profile(rng, contexts, version):
    helpers = [f"RT{k}Builder.{m}" for k in ("Shape", "Layout", "Group", "Edge", "Label", "Canvas", "View", "Element")
               for m in ("build", "on:", "elementsOn:", "add:", "render", "layoutOn:", "createElements:using:depth:")]
    classes = [f"RT{n}" for n in range(120)]
    weights = [1.0 / (k + 1) for k in range(len(classes))]
    frames, frame_index = [], {}

    def frame(name):
        if name not in frame_index:
            frame_index[name] = len(frames)
            frames.append({"function": name, "file": name.split(".")[0] + ".st"})
        return frame_index[name]

    nodes, children, sites = [], {}, []

    def child(parent, name, calls):
        key = (parent, name)
        if key in children:
            n = children[key]
            nodes[n]["calls"] += calls
            return n
        n = len(nodes)
        nodes.append({"frame": frame(name), "parent": parent, "self": [0, 0], "calls": calls})
        children[key] = n
        return n

    root = child(None, "TestRunner.run", 1)
    test_class = 0
    while len(nodes) < contexts:
        cls = child(root, f"Test{test_class}.runCase", 1)
        test_class += 1
        for t in range(rng.randint(2, 6)):
            at = child(cls, f"Test{test_class}.test{t}", 1)
            for _ in range(rng.randint(1, 4)):
                depth = rng.randint(3, 14)
                node = at
                for _ in range(depth):
                    node = child(node, rng.choice(helpers), rng.randint(1, 40))
                    if rng.random() < 0.25 or _ == depth - 1:
                        c = rng.choices(range(len(classes)), weights)[0]
                        count = rng.randint(1, 400) * (2 if version and c % 5 == 0 else 1)
                        size = 16 + 8 * (c % 9)
                        sites.append({"node": node, "class": classes[c], "count": count, "bytes": count * size})
                        nodes[node]["self"][0] += count
                        nodes[node]["self"][1] += count * size
                if len(nodes) >= contexts:
                    break
            if len(nodes) >= contexts:
                break
    body = json.dumps({
        "metrics": [{"name": "alloc_objects", "unit": "objects"}, {"name": "alloc_space", "unit": "bytes"}],
        "frames": frames, "nodes": nodes,
        "allocations": {"counts": "objects", "call_order": True, "sites": sites},
    })
    return '{"perfatlas":1,' + body[1:]


if __name__ == "__main__":
    main()
