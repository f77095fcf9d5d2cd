#!/usr/bin/env bash
# Capture a small performance history of `marked` (markdown -> HTML) into this
# directory, one subdirectory per released version.
#
# Prerequisites (not part of the fixture):
#   for v in 4.0.0 9.0.0 12.0.0; do
#     npm install --prefix /tmp/fc-work/$v marked@$v
#   done
#   /tmp/fc-work/bench.js   (copy of bench.js next to this script)
#   hyperfine on PATH
#
# Usage: ./capture.sh [version...]      (default: 4.0.0 9.0.0 12.0.0)
set -euo pipefail

FIXTURE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="${WORK:-/tmp/fc-work}"
BENCH="$WORK/bench.js"
INTERVAL="${CPU_PROF_INTERVAL:-1000}"   # sampling interval in microseconds
# cpu-3 of this version is taken at NEG_INTERVAL, retried until it has a
# negative timeDelta (empty: no retries).
NEG_VERSION="${NEG_VERSION-12.0.0}"
NEG_INTERVAL="${NEG_INTERVAL:-100}"
NEG_TRIES="${NEG_TRIES:-60}"
VERSIONS=("$@")
[ ${#VERSIONS[@]} -gt 0 ] || VERSIONS=(4.0.0 9.0.0 12.0.0)

count_negative() {
  python3 -c 'import json,sys; print(sum(1 for x in json.load(open(sys.argv[1]))["timeDeltas"] if x < 0))' "$1"
}

[ -f "$BENCH" ] || cp "$FIXTURE/bench.js" "$BENCH"

NODE_VERSION="$(node -v)"
NPM_VERSION="$(npm -v)"
HYPERFINE_VERSION="$(hyperfine --version | awk '{print $2}')"

for v in "${VERSIONS[@]}"; do
  pkg="$WORK/$v/node_modules/marked"
  out="$FIXTURE/$v"
  [ -d "$pkg" ] || { echo "missing $pkg: npm install --prefix $WORK/$v marked@$v" >&2; exit 1; }
  mkdir -p "$out"

  echo "== marked $v"
  for i in 1 2 3; do
    rm -f "$out/cpu-$i.cpuprofile"
    node --cpu-prof --cpu-prof-dir="$out" --cpu-prof-name="cpu-$i.cpuprofile" \
      --cpu-prof-interval "$INTERVAL" "$BENCH" "$pkg"
  done

  # For one version, cpu-3 is re-taken at a fine interval until V8 writes a
  # profile whose timeDeltas go back in time at least once (deoptimisation
  # samples are merged out of order). Nothing is edited: the kept file is the
  # last one node wrote.
  if [ "$v" = "$NEG_VERSION" ]; then
    for try in $(seq 1 "$NEG_TRIES"); do
      rm -f "$out/cpu-3.cpuprofile"
      node --cpu-prof --cpu-prof-dir="$out" --cpu-prof-name="cpu-3.cpuprofile" \
        --cpu-prof-interval "$NEG_INTERVAL" "$BENCH" "$pkg" >/dev/null
      neg="$(count_negative "$out/cpu-3.cpuprofile")"
      echo "   cpu-3 try $try at ${NEG_INTERVAL}us: $neg negative timeDeltas"
      [ "$neg" -eq 0 ] || break
    done
  fi

  hyperfine --warmup 1 --runs 5 --export-json "$out/hyperfine.json" \
    "node $BENCH $pkg"

  # The release day from marked's GitHub releases, as a release script
  # that knows its own release writes it (RFC 3339; time of day unknown,
  # so midnight UTC). The registry this machine reaches gives mirror times
  # from December 2024 for every version, in the wrong order.
  case "$v" in
    4.0.0) date="2021-11-02T00:00:00.000000+00:00" ;;
    9.0.0) date="2023-09-09T00:00:00.000000+00:00" ;;
    12.0.0) date="2024-02-03T00:00:00.000000+00:00" ;;
    *) echo "no release day known for $v" >&2; exit 1 ;;
  esac

  cat > "$out/version.toml" <<TOML
label = "marked $v"
tag = "v$v"
node_version = "$NODE_VERSION"
benchmark = "marked-parse"
date = "$date"
revision = "v$v"

[build]
npm = "$NPM_VERSION"
hyperfine = "$HYPERFINE_VERSION"
cpu_prof_interval_us = $INTERVAL
TOML
  if [ "$v" = "$NEG_VERSION" ]; then
    echo "cpu_3_prof_interval_us = $NEG_INTERVAL" >> "$out/version.toml"
  fi
done

# Report negative timeDeltas (samples that go back in time) per profile.
for f in "$FIXTURE"/*/cpu-*.cpuprofile; do
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); d=p["timeDeltas"]; print(sys.argv[1], len(d), "samples,", sum(1 for x in d if x<0), "negative")' "$f"
done
