#!/usr/bin/env bash
# capture.sh - capture the perfatlas sample profiles of Python-Markdown.
#
# Subject:   Python-Markdown (PyPI package `markdown`), six released versions
#            (VERSIONS below), each installed from PyPI into its own virtualenv.
# Workload:  bench.py (next to this script), two benchmarks:
#              convert-basic       -> py-spy --format raw        -> <ver>/convert-basic.<n>.folded
#              convert-extensions  -> py-spy --format speedscope -> <ver>/convert-extensions.<n>.speedscope.json
# Profiler:  py-spy (PyPI, pinned below), sampling at $RATE Hz, idle frames
#            off (py-spy's default), line numbers on (py-spy's default).
#
# How to rerun (needs network access to PyPI, CPython 3.11 and ptrace rights,
# i.e. run as root or with CAP_SYS_PTRACE; py-spy spawns the benchmark itself):
#
#     bash sample-data/python-markdown/capture.sh
#
# Environment knobs (defaults in brackets):
#     PYTHON   interpreter used to create the virtualenvs [python3.11]
#     WORK     scratch dir for the virtualenvs           [/tmp/pa-venv]
#     RATE     py-spy sampling rate in Hz                [100]
#     REPS     repetitions per benchmark and version     [3]
#
# Everything it writes lands next to this script: one directory per version
# (profiles + version.toml), perfatlas.toml and TOOLS.md.  Existing profiles
# are overwritten.  Repetitions are interleaved (rep 1 of every version, then
# rep 2, ...) so slow drift of the machine does not favour one version.
# The virtualenvs live at fixed paths (/tmp/pa-venv/markdown-<ver>), and the
# workload is run from a fixed copy ($WORK/bench.py), so the file paths that
# py-spy records are the same on every rerun.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PYTHON=${PYTHON:-python3.11}
WORK=${WORK:-/tmp/pa-venv}
RATE=${RATE:-100}
REPS=${REPS:-3}
PYSPY_VERSION=0.4.3
VERSIONS=(3.2.2 3.3.7 3.4.4 3.5.2 3.6 3.7)   # release order

PY=$("$PYTHON" -c 'import sys; print(sys.executable)')
mkdir -p "$WORK"

# --- tools ------------------------------------------------------------------
if [ ! -x "$WORK/tools/bin/py-spy" ] || \
   [ "$("$WORK/tools/bin/py-spy" --version)" != "py-spy $PYSPY_VERSION" ]; then
    "$PY" -m venv --clear "$WORK/tools"
    "$WORK/tools/bin/pip" install -q --disable-pip-version-check "py-spy==$PYSPY_VERSION"
fi
PYSPY="$WORK/tools/bin/py-spy"

# --- one virtualenv per subject version ---------------------------------------
for v in "${VERSIONS[@]}"; do
    venv="$WORK/markdown-$v"
    if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('markdown') != '$v')" 2>/dev/null; then
        "$PY" -m venv --clear "$venv"
        "$venv/bin/pip" install -q --disable-pip-version-check "markdown==$v"
    fi
    # codehilite must take its no-Pygments path in every version.
    if "$venv/bin/python" -c 'import pygments' 2>/dev/null; then
        echo "error: pygments is installed in $venv; the workload assumes it is absent" >&2
        exit 1
    fi
    mkdir -p "$HERE/$v"
done
# measure.sh needs the virtualenvs only.
if [ "${ONLY_VENVS:-0}" = 1 ]; then exit 0; fi

# --- release dates (PyPI upload time of each version's sdist) -----------------
# Read from PyPI's JSON simple index (PEP 691/700), the same index pip uses.
"$PY" - "$HERE" "${VERSIONS[@]}" <<'EOF'
import json, sys, urllib.request
here, versions = sys.argv[1], sys.argv[2:]
req = urllib.request.Request(
    "https://pypi.org/simple/markdown/",
    headers={"Accept": "application/vnd.pypi.simple.v1+json"})
with urllib.request.urlopen(req, timeout=60) as r:
    files = json.load(r)["files"]
for v in versions:
    names = {f"markdown-{v}.tar.gz"}
    sdists = [f for f in files if f["filename"].lower() in names]
    if len(sdists) != 1:
        sys.exit(f"no unique sdist for markdown {v}")
    date = sdists[0]["upload-time"][:10]
    with open(f"{here}/{v}/version.toml", "w") as out:
        out.write(f'date = "{date}"\nrevision = "{v}"\n')
    print(f"markdown {v}: released {date}")
EOF

{
    echo 'title = "Python-Markdown"'
    printf 'versions = ['
    sep=''
    for v in "${VERSIONS[@]}"; do printf '%s"%s"' "$sep" "$v"; sep=', '; done
    echo ']'
} > "$HERE/perfatlas.toml"

# --- capture -------------------------------------------------------------------
cp "$HERE/bench.py" "$WORK/bench.py"
cd "$WORK"
for rep in $(seq 1 "$REPS"); do
    for v in "${VERSIONS[@]}"; do
        py="$WORK/markdown-$v/bin/python"
        out="$HERE/$v"
        echo "== markdown $v, repetition $rep"
        "$PYSPY" record --rate "$RATE" --format raw \
            -o "$out/convert-basic.$rep.folded" \
            -- "$py" "$WORK/bench.py" convert-basic
        "$PYSPY" record --rate "$RATE" --format speedscope \
            -o "$out/convert-extensions.$rep.speedscope.json" \
            -- "$py" "$WORK/bench.py" convert-extensions
    done
done

# --- tool versions ---------------------------------------------------------------
{
    echo "# Tools used for the Python-Markdown sample profiles"
    echo
    echo "Generated by \`capture.sh\` on $(date -u +%Y-%m-%d) (UTC)."
    echo
    echo "| tool | version |"
    echo "| --- | --- |"
    echo "| Python (CPython) | $("$PY" -c 'import platform; print(platform.python_version())') (\`$PY\`) |"
    echo "| py-spy (from PyPI) | $("$PYSPY" --version | sed 's/^py-spy //') |"
    for v in "${VERSIONS[@]}"; do
        echo "| markdown $v (from PyPI) | $("$WORK/markdown-$v/bin/python" -c 'import importlib.metadata as m; print(m.version("markdown"))'), released $(sed -n 's/^date = "\(.*\)"/\1/p' "$HERE/$v/version.toml") |"
    done
    echo "| pip in the virtualenvs | $("$WORK/markdown-${VERSIONS[0]}/bin/pip" --version | cut -d' ' -f2) |"
    echo "| OS kernel | $(uname -sr) ($(uname -m)) |"
    echo "| CPU | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores |"
    echo
    echo "## How the profiles were captured"
    echo
    echo "- One virtualenv per version at \`$WORK/markdown-<version>\`, created with"
    echo "  \`python -m venv\` and \`pip install markdown==<version>\` (no other packages;"
    echo "  Pygments absent, so \`codehilite\` uses its pure-Python fallback)."
    echo "- Workload: \`bench.py\` (copied to \`$WORK/bench.py\` and run from there)."
    echo "  \`convert-basic\` converts a fixed ~55 KB generated document 30 times with"
    echo "  \`markdown.markdown(text)\`; \`convert-extensions\` converts it 12 times with"
    echo "  \`extensions=['extra', 'toc', 'codehilite', 'tables', 'fenced_code']\`."
    echo "- Profiler: \`py-spy record --rate $RATE --format raw\` (folded stacks, one"
    echo "  \`frame;frame;... count\` line per distinct stack, frames as"
    echo "  \`function (file:line)\`) for \`convert-basic\`, and"
    echo "  \`py-spy record --rate $RATE --format speedscope\` for \`convert-extensions\`;"
    echo "  py-spy launches the interpreter itself (\`-- python bench.py NAME\`), idle"
    echo "  samples off, GIL-only off, line numbers on.  Files are kept exactly as"
    echo "  py-spy wrote them (speedscope frames carry absolute file paths of the"
    echo "  capture machine)."
    echo "- $REPS repetitions per benchmark and version, interleaved across versions."
    echo "- The capture machine is a shared virtual machine: the same version's"
    echo "  repetitions differ by up to about 2x in sample count, so read version"
    echo "  differences against the spread of the repetitions."
    echo "- Each profile includes interpreter start-up and \`import markdown\` (a few"
    echo "  samples) besides the conversion loop."
    echo "- Release dates in \`<version>/version.toml\` are the PyPI upload dates of"
    echo "  each version's sdist; \`revision\` is the tag that \`build-git-history.sh\`"
    echo "  gives that release."
} > "$HERE/TOOLS.md"

echo "done: profiles in $HERE"
