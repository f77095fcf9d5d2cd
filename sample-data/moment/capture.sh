#!/usr/bin/env bash
# capture.sh - capture the perfatlas sample data of moment (npm package `moment`).
#
# Subject:   moment, nine released versions (VERSIONS below), each installed
#            from npm into its own directory /tmp/pa-js/install/<version>
#            (`npm install --prefix <dir> moment@<version>`).
# Workload:  bench.mjs (next to this script), copied BESIDE each release as
#            /tmp/pa-js/install/<version>/bench.mjs, so `import "moment"`
#            resolves to that release and every file path the profiler records
#            contains the version directory.
# Profiler:  node's built-in V8 CPU profiler, `node --cpu-prof`
#            (sampling interval $INTERVAL us)      -> <ver>/cpu.<n>.cpuprofile
#            and one `node --heap-prof` run        -> <ver>/heap.1.heapprofile
# Timing:    hyperfine -N --warmup 1 --runs $RUNS_PER_ROUND, $ROUNDS rounds
#                                                   -> <ver>/bench.<round>.json
#
# How to rerun (needs network access to the npm registry, node, npm, hyperfine):
#
#     bash sample-data/moment/capture.sh
#
# Environment knobs (defaults in brackets):
#     WORK            scratch dir for the installs        [/tmp/pa-js]
#     INTERVAL        --cpu-prof-interval in microseconds  [1000]
#     REPS            CPU-profile repetitions per version  [3]
#     ROUNDS          interleaved hyperfine rounds         [5]
#     RUNS_PER_ROUND  hyperfine runs per round             [2]
#     SKIP_PROFILES=1 / SKIP_TIMINGS=1  skip that step
#
# Everything it writes lands next to this script: one directory per version
# (profiles, hyperfine JSON, version.toml), perfatlas.toml and TOOLS.md.
# Existing files are overwritten.  Profile repetitions and hyperfine rounds
# are interleaved (rep 1 of every version, then rep 2, ...) so slow drift of
# the machine does not favour one version.  Profiles are kept exactly as node
# wrote them.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=${WORK:-/tmp/pa-js}
INTERVAL=${INTERVAL:-1000}
REPS=${REPS:-3}
ROUNDS=${ROUNDS:-5}
RUNS_PER_ROUND=${RUNS_PER_ROUND:-2}
VERSIONS=(2.15.2 2.16.0 2.17.1 2.18.0 2.19.0 2.24.0 2.29.3 2.29.4 2.30.1)   # release order
PKG=moment

command -v node >/dev/null || { echo "error: node is needed" >&2; exit 1; }
command -v npm >/dev/null || { echo "error: npm is needed" >&2; exit 1; }

# --- one install directory per release, harness beside it ---------------------
for v in "${VERSIONS[@]}"; do
    dir="$WORK/install/$v"
    have=$(node -p "require('$dir/node_modules/$PKG/package.json').version" 2>/dev/null || true)
    if [ "$have" != "$v" ]; then
        rm -rf "$dir"
        mkdir -p "$dir"
        npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$PKG@$v" >/dev/null
    fi
    cp "$HERE/bench.mjs" "$dir/bench.mjs"
    mkdir -p "$HERE/$v"
done

# --- release dates --------------------------------------------------------------
# The release dates are the "Release <date>" lines of moment's own CHANGELOG.md
# (read from the newest release's tarball).  `npm view moment time --json` on
# the capture machine returned registry timestamps from 2024-2026 for releases
# made in 2016-2023 (a re-published mirror), so they are not used; TOOLS.md
# lists them for comparison.
changelog="$WORK/install/${VERSIONS[-1]}/node_modules/$PKG/CHANGELOG.md"
for v in "${VERSIONS[@]}"; do
    raw=$(awk -v v="$v" '$0 ~ "^### "v"( |$)" {f=1; next} f && /Release/ {sub(/.*Release /, ""); print; exit}' "$changelog")
    [ -n "$raw" ] || { echo "error: no release date for $v in $changelog" >&2; exit 1; }
    date=$(TZ=UTC date -d "$(echo "$raw" | tr -d ,)" +%F)
    printf 'date = "%s"\nrevision = "%s"\n' "$date" "$v" > "$HERE/$v/version.toml"
    echo "moment $v: released $date"
done

{
    echo 'title = "moment (npm)"'
    printf 'versions = ['
    sep=''
    for v in "${VERSIONS[@]}"; do printf '%s"%s"' "$sep" "$v"; sep=', '; done
    echo ']'
} > "$HERE/perfatlas.toml"

cd "$WORK"

# --- profiles -------------------------------------------------------------------
if [ "${SKIP_PROFILES:-0}" != 1 ]; then
    for rep in $(seq 1 "$REPS"); do
        for v in "${VERSIONS[@]}"; do
            echo "== moment $v, CPU profile $rep"
            node --cpu-prof --cpu-prof-interval "$INTERVAL" \
                --cpu-prof-dir "$HERE/$v" --cpu-prof-name "cpu.$rep.cpuprofile" \
                "$WORK/install/$v/bench.mjs"
        done
    done
    for v in "${VERSIONS[@]}"; do
        echo "== moment $v, heap profile"
        node --heap-prof --heap-prof-dir "$HERE/$v" --heap-prof-name "heap.1.heapprofile" \
            "$WORK/install/$v/bench.mjs"
    done
fi

# --- wall-time measurements -----------------------------------------------------
if [ "${SKIP_TIMINGS:-0}" != 1 ]; then
    command -v hyperfine >/dev/null || { echo "error: hyperfine is needed (apt-get install hyperfine)" >&2; exit 1; }
    for round in $(seq 1 "$ROUNDS"); do
        for v in "${VERSIONS[@]}"; do
            echo "== moment $v, hyperfine round $round"
            hyperfine -N --style basic --warmup 1 --runs "$RUNS_PER_ROUND" \
                --export-json "$HERE/$v/bench.$round.json" \
                "node $WORK/install/$v/bench.mjs" >/dev/null
        done
    done
fi

# --- tool versions ----------------------------------------------------------------
{
    echo "# Tools used for the moment sample data"
    echo
    echo "Generated by \`capture.sh\` on $(date -u +%Y-%m-%d) (UTC)."
    echo
    echo "| tool | version |"
    echo "| --- | --- |"
    echo "| node | $(node --version) (\`$(command -v node)\`), V8 $(node -p process.versions.v8) |"
    echo "| npm | $(npm --version), registry $(npm config get registry) |"
    echo "| hyperfine | $(hyperfine --version | cut -d' ' -f2) (Debian package) |"
    for v in "${VERSIONS[@]}"; do
        npmtime=$(npm view "$PKG@$v" time --json 2>/dev/null | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{try{console.log(JSON.parse(s)['$v'])}catch(e){console.log('?')}})")
        echo "| moment $v (from npm) | $(node -p "require('$WORK/install/$v/node_modules/$PKG/package.json').version"), released $(sed -n 's/^date = "\(.*\)"/\1/p' "$HERE/$v/version.toml") (CHANGELOG.md); npm \`time\` says $npmtime |"
    done
    echo "| OS kernel | $(uname -sr) ($(uname -m)) |"
    echo "| OS | $(. /etc/os-release && echo "$PRETTY_NAME") |"
    echo "| CPU | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores |"
    echo
    echo "## How the data were captured"
    echo
    echo "- One directory per release at \`$WORK/install/<version>\`, made with"
    echo "  \`npm install --prefix $WORK/install/<version> moment@<version>\` (moment"
    echo "  has no dependencies).  The harness \`bench.mjs\` is copied into each of"
    echo "  them and run from there, so \`import moment from \"moment\"\` loads"
    echo "  \`$WORK/install/<version>/node_modules/moment/moment.js\` and the profiles'"
    echo "  \`url\` fields carry the version directory."
    echo "- Workload (\`bench.mjs\`): 25 rounds over 400 ISO 8601 strings and 400"
    echo "  RFC 2822 mail-header dates parsed with \`moment(string)\`, and 400"
    echo "  \`DD/MM/YYYY HH:mm\` strings parsed with \`moment(string, format)\`; then 30"
    echo "  long malformed strings (an RFC 2822 date followed by 7000-7580 unmatched"
    echo "  \`(\`) parsed once each with \`moment(string)\`.  Every result is checked"
    echo "  with \`isValid()\` and formatted with \`format()\`.  Deprecation warnings"
    echo "  are suppressed (\`moment.suppressDeprecationWarnings = true\`)."
    echo "- CPU profiles: \`node --cpu-prof --cpu-prof-interval $INTERVAL\`, written by"
    echo "  node at exit as \`<version>/cpu.<rep>.cpuprofile\` (\`--cpu-prof-dir\`,"
    echo "  \`--cpu-prof-name\`); $REPS repetitions per version, interleaved across"
    echo "  versions.  One \`node --heap-prof\` run per version"
    echo "  (\`<version>/heap.1.heapprofile\`, V8's sampling heap profiler, default"
    echo "  512 KiB interval).  Files are kept exactly as node wrote them."
    echo "- Each profile includes node start-up and module loading besides the"
    echo "  workload."
    echo "- Wall time: hyperfine \`-N --warmup 1 --runs $RUNS_PER_ROUND\` of"
    echo "  \`node $WORK/install/<version>/bench.mjs\`, $ROUNDS rounds interleaved across"
    echo "  versions, one \`<version>/bench.<round>.json\` per version and round"
    echo "  (hyperfine's own \`--export-json\`; ${ROUNDS}x${RUNS_PER_ROUND} runs per version)."
    echo "- Release dates in \`<version>/version.toml\` come from the \"Release <date>\""
    echo "  lines of moment's CHANGELOG.md (see the last column for what the npm"
    echo "  registry reported on the capture machine); \`revision\` is the tag that"
    echo "  \`build-git-history.sh\` gives that release."
    echo "- The capture machine is a shared 2-core virtual machine; read version"
    echo "  differences against the spread of the repetitions."
} > "$HERE/TOOLS.md"

echo "done: data in $HERE"
