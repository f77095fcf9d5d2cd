#!/usr/bin/env python3
"""Checks the declared MSRV (`rust-version` in Cargo.toml): it must be at
least every locked dependency's own `rust-version` that a build of
perfatlas compiles (normal and build dependencies, not dev ones), else a
user on the declared toolchain could not build it. The workspace's own
code is held to it by clippy's `incompatible_msrv` lint. Prints the
dependencies that need the most and exits 1 when one needs more than
declared.

    python3 .ci/msrv.py
"""
import json
import subprocess
import sys


def version(text):
    return tuple(int(x) for x in text.split(".")[:2])


meta = json.loads(
    subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
)
packages = {p["id"]: p for p in meta["packages"]}
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
members = meta["workspace_members"]
declared = {version(packages[m]["rust_version"]) for m in members if packages[m].get("rust_version")}
if len(declared) != 1:
    sys.exit(f"msrv: the workspace members declare {sorted(declared)}; expected one rust-version")
declared = declared.pop()

# Packages a build compiles: members, then their normal and build deps.
seen, todo = set(), list(members)
while todo:
    node = nodes[todo.pop()]
    for dep in node["deps"]:
        kinds = {k["kind"] for k in dep["dep_kinds"]}
        if kinds & {None, "build"} and dep["pkg"] not in seen:
            seen.add(dep["pkg"])
            todo.append(dep["pkg"])
needs = sorted(
    ((version(packages[p]["rust_version"]), packages[p]["name"], packages[p]["version"])
     for p in seen if packages[p].get("rust_version")),
    reverse=True,
)
top = needs[0][0] if needs else (0, 0)
shown = ", ".join(f"{n} {v} ({'.'.join(map(str, r))})" for r, n, v in needs[:5])
print(f"msrv: declared {'.'.join(map(str, declared))}; {len(seen)} dependencies built, the most demanding: {shown}")
if top > declared:
    sys.exit(f"msrv: a dependency needs Rust {'.'.join(map(str, top))}, more than the declared rust-version")
