#!/usr/bin/env bash
# build-git-history.sh - rebuild a git repository of Python-Markdown's source
# history from its released sdists on PyPI: one commit per release, in release
# order, dated with the release date, with message "markdown <version>" and
# tagged "<version>" (the tag is the `revision` in <version>/version.toml).
#
# Usage:  bash build-git-history.sh OUTDIR
#
# OUTDIR must not exist yet or be empty.  Needs network access to PyPI
# (`pip download`), git and python3.  The repository is NOT part of the
# sample data; build it wherever you like (e.g. /tmp/markdown-history).
#
# Each commit's tree is exactly the contents of that version's sdist (files
# removed between releases are removed in the commit).
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
OUT=$1
VERSIONS=(3.2.2 3.3.7 3.4.4 3.5.2 3.6 3.7)   # release order; keep in sync with capture.sh
PYTHON=${PYTHON:-python3}

if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
    echo "error: $OUT exists and is not empty" >&2
    exit 1
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Release dates: upload time of each sdist, from PyPI's JSON simple index
# (PEP 691/700, the index pip itself reads).
"$PYTHON" - "${VERSIONS[@]}" > "$TMP/dates" <<'EOF'
import json, sys, urllib.request
req = urllib.request.Request(
    "https://pypi.org/simple/markdown/",
    headers={"Accept": "application/vnd.pypi.simple.v1+json"})
with urllib.request.urlopen(req, timeout=60) as r:
    files = json.load(r)["files"]
for v in sys.argv[1:]:
    t = [f["upload-time"] for f in files if f["filename"].lower() == f"markdown-{v}.tar.gz"]
    if len(t) != 1:
        sys.exit(f"no unique sdist for markdown {v}")
    print(v, t[0].replace("Z", "+00:00"))
EOF

git init -q "$OUT"
git -C "$OUT" config user.name "perfatlas build-git-history"
git -C "$OUT" config user.email "perfatlas@invalid"

for v in "${VERSIONS[@]}"; do
    mkdir -p "$TMP/dl/$v" "$TMP/src/$v"
    "$PYTHON" -m pip download -q --disable-pip-version-check --no-deps \
        --no-binary :all: "markdown==$v" -d "$TMP/dl/$v"
    sdist=$(ls "$TMP/dl/$v"/*.tar.gz)
    tar -xzf "$sdist" -C "$TMP/src/$v" --strip-components=1
    # Replace the work tree with this release's files.
    git -C "$OUT" rm -rq --ignore-unmatch . >/dev/null
    find "$OUT" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
    cp -a "$TMP/src/$v/." "$OUT/"
    git -C "$OUT" add -A -f .
    date=$(awk -v v="$v" '$1 == v { print $2 }' "$TMP/dates")
    GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date" \
        git -C "$OUT" commit -q --allow-empty -m "markdown $v"
    git -C "$OUT" tag "$v"
    echo "committed markdown $v ($date) from $(basename "$sdist")"
done

echo "done: $(git -C "$OUT" rev-list --count HEAD) commits in $OUT"
