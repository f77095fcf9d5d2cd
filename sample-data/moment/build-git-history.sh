#!/usr/bin/env bash
# build-git-history.sh - rebuild a git repository of moment's released source
# from its npm tarballs: one commit per release, in release order, dated with
# the release date, with message "moment <version>" and tagged "<version>"
# (the tag is the `revision` in <version>/version.toml), then write it as
# history.bundle next to this script.
#
# Usage:  bash build-git-history.sh OUTDIR
#
# OUTDIR must not exist yet or be empty.  Needs network access to the npm
# registry (`npm pack`), git and node.  To use the bundle instead:
#     git clone history.bundle /tmp/moment-history
#
# Each commit's tree holds, at the repository root, the files of that
# release's tarball that the profiles refer to or that explain them:
#     moment.js      the file the profiles show as
#                    /tmp/pa-js/install/<version>/node_modules/moment/moment.js
#     package.json
#     CHANGELOG.md
# (the rest of the tarball - locales, minified builds, src/, typings - is left
# out to keep the bundle small).  The release date is the "Release <date>"
# line of CHANGELOG.md of the newest release (see capture.sh for why not npm's
# `time` field); it is used as author and committer date (noon UTC).
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$1
VERSIONS=(2.15.2 2.16.0 2.17.1 2.18.0 2.19.0 2.24.0 2.29.3 2.29.4 2.30.1)   # keep in sync with capture.sh
FILES=(moment.js package.json CHANGELOG.md)

if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
    echo "error: $OUT exists and is not empty" >&2
    exit 1
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for v in "${VERSIONS[@]}"; do
    mkdir -p "$TMP/src/$v"
    (cd "$TMP" && npm pack -q "moment@$v" >/dev/null)
    tar -xzf "$TMP/moment-$v.tgz" -C "$TMP/src/$v" --strip-components=1
done

changelog="$TMP/src/${VERSIONS[-1]}/CHANGELOG.md"
git init -q "$OUT"
git -C "$OUT" config user.name "perfatlas build-git-history"
git -C "$OUT" config user.email "perfatlas@invalid"

for v in "${VERSIONS[@]}"; do
    raw=$(awk -v v="$v" '$0 ~ "^### "v"( |$)" {f=1; next} f && /Release/ {sub(/.*Release /, ""); print; exit}' "$changelog")
    [ -n "$raw" ] || { echo "error: no release date for $v" >&2; exit 1; }
    date="$(TZ=UTC date -d "$(echo "$raw" | tr -d ,)" +%F)T12:00:00+00:00"
    git -C "$OUT" rm -rq --ignore-unmatch . >/dev/null
    find "$OUT" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
    for f in "${FILES[@]}"; do
        cp -a "$TMP/src/$v/$f" "$OUT/$f"
    done
    git -C "$OUT" add -A -f .
    GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date" \
        git -C "$OUT" commit -q --allow-empty -m "moment $v"
    git -C "$OUT" tag "$v"
    echo "committed moment $v ($date) from moment-$v.tgz"
done

git -C "$OUT" bundle create "$HERE/history.bundle" --all
echo "done: $(git -C "$OUT" rev-list --count HEAD) commits in $OUT, bundle $HERE/history.bundle"
