#!/usr/bin/env bash
# capture.sh - record the field executions of the `billing` example program.
#
# Runs program/billing (python -m billing) once per line of RUNS below, each
# under coverage.py with branch coverage, and writes for execution NN:
#
#   report/1.0/field/exec-NN.info         `coverage lcov` of that execution
#   report/1.0/field/exec-NN.properties   key=value: platform, interpreter, user,
#                                  input, exit status and outcome
#   report/1.0/version.toml               date and label of version 1.0
#
# outcome is `normal` unless the run died of an uncaught exception; then it
# is the exception's type exactly as the traceback's last line names it
# (`ValueError`, `KeyError`, ...).  `coverage run` saves the coverage data
# before it re-raises, so failing executions have full data too.
#
# How to rerun (needs network access to PyPI and the CPython interpreters
# listed in PYTHONS, found as python3.X on PATH or under $PYENV_ROOT/versions):
#
#     bash sample-data/field-example/capture.sh
#
# Environment knobs (defaults in brackets):
#     WORK   scratch directory for virtualenvs, copies and logs [/tmp/fe-capture]
#
# The runs happen in $WORK/field-example, a fresh copy of program/ and
# inputs/, so the LCOV files name sources relative to this script's
# directory (SF:program/billing/dates.py) and nothing is written next to the
# sources (no .coverage, no __pycache__).  stdout/stderr of every run stay in
# $WORK/logs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=${WORK:-/tmp/fe-capture}
COVERAGE_VERSION=7.10.7          # supports CPython 3.9 - 3.14
PYTHONS=(3.9 3.10 3.11 3.12 3.13)
VERSION=1.0
VERSION_DATE=2024-01-29          # the (simulated) release of billing 1.0
OUT="$HERE/report/$VERSION/field"

# Executions, in field order.  The --as-of date stands for the day the user
# ran the report (the program's default is today); users are simulated, each
# with their own exports and their own interpreter (u08 upgrades 3.10 -> 3.12).
#  NN user python input               arguments
RUNS=$(cat <<'EOF'
01 u01 3.12 u01-2024-02.csv --as-of 2024-02-05
02 u02 3.11 u02-2024-02.csv --as-of 2024-02-12 --group-by plan
03 u03 3.10 u03-2024-02.csv --as-of 2024-02-20
04 u04 3.13 u04-2024-03.csv --as-of 2024-03-01 --format csv
05 u05 3.9  u05-2024-03.csv --as-of 2024-03-04 --currency EUR
06 u06 3.12 u06-2024-03.csv --as-of 2024-03-15 --format json
07 u01 3.12 u01-2024-04.csv --as-of 2024-04-02 --within 14
08 u07 3.11 u07-2024-04.csv --as-of 2024-04-10 --currency EUR
09 u02 3.11 u02-2024-05.csv --as-of 2024-05-06 --group-by month
10 u05 3.9  u05-2024-05.csv --as-of 2024-05-13 --currency EUR
11 u08 3.10 u08-2024-05.csv --as-of 2024-05-20
12 u04 3.13 u04-2024-06.csv --as-of 2024-06-03 --format csv --currency EUR
13 u03 3.10 u03-2024-06.csv --as-of 2024-06-10
14 u06 3.12 u06-2024-07.csv --as-of 2024-07-01 --format json --group-by plan
15 u08 3.12 u08-2024-07.csv --as-of 2024-07-08
16 u01 3.12 u01-2024-08.csv --as-of 2024-08-05 --within 14
17 u07 3.11 u07-2024-09.csv --as-of 2024-09-02 --currency EUR --group-by month
18 u02 3.11 u02-2024-10.csv --as-of 2024-10-07 --group-by plan
19 u05 3.9  u05-2024-10.csv --as-of 2024-10-14 --currency EUR
20 u04 3.13 u04-2024-11.csv --as-of 2024-11-04 --format csv
21 u06 3.12 u06-2024-12.csv --as-of 2024-12-02 --format json
22 u03 3.10 u03-2025-01.csv --as-of 2025-01-06
23 u01 3.12 u01-2025-01.csv --as-of 2025-01-08 --within 14
24 u07 3.11 u07-2025-01.csv --as-of 2025-01-13 --currency EUR
25 u08 3.12 u08-2025-02.csv --as-of 2025-02-03 --group-by month
26 u02 3.11 u02-2025-02.csv --as-of 2025-02-10 --group-by plan
27 u03 3.10 u03-2025-02.csv --as-of 2025-02-17
28 u04 3.13 u04-2025-03.csv --as-of 2025-03-03 --format csv --currency EUR
29 u05 3.9  u05-2025-03.csv --as-of 2025-03-10 --currency EUR
30 u06 3.12 u06-2025-03.csv --as-of 2025-03-17 --format json
31 u07 3.11 u07-2025-04.csv --as-of 2025-04-07 --currency EUR --group-by month
32 u01 3.12 u01-2025-04.csv --as-of 2025-04-14 --within 14
33 u08 3.12 u08-2025-05.csv --as-of 2025-05-05
34 u03 3.10 u03-2025-05.csv --as-of 2025-05-12 --within 60
35 u02 3.11 u02-2025-06.csv --as-of 2025-06-02 --group-by month --currency USD
36 u04 3.13 u04-2025-06.csv --as-of 2025-06-09 --format csv
EOF
)

find_python() {   # find_python 3.X -> path of a CPython 3.X interpreter
    local v=$1 p
    for p in "$(command -v "python$v" 2>/dev/null || true)" \
             "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v"; do
        if [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import sys' 2>/dev/null; then
            echo "$p"; return 0
        fi
    done
    echo "error: no python$v found (PATH or pyenv)" >&2
    return 1
}

# --- one virtualenv per interpreter, each with the pinned coverage.py --------
mkdir -p "$WORK"
for v in "${PYTHONS[@]}"; do
    venv="$WORK/venv-$v"
    if ! "$venv/bin/python" -c "import coverage, sys; sys.exit(coverage.__version__ != '$COVERAGE_VERSION')" 2>/dev/null; then
        "$(find_python "$v")" -m venv --clear "$venv"
        "$venv/bin/pip" install -q --disable-pip-version-check "coverage==$COVERAGE_VERSION"
    fi
done

# --- a fresh copy of the program and the inputs to run in -------------------
RUNDIR="$WORK/field-example"
rm -rf "$RUNDIR" "$WORK/logs" "$WORK/data"
mkdir -p "$RUNDIR" "$WORK/logs" "$WORK/data"
cp -r "$HERE/program" "$HERE/inputs" "$RUNDIR/"
find "$RUNDIR" -name __pycache__ -prune -exec rm -rf {} +

mkdir -p "$OUT"
rm -f "$OUT"/exec-*.info "$OUT"/exec-*.properties
printf 'date = "%s"\nlabel = "billing %s"\n' "$VERSION_DATE" "$VERSION" > "$HERE/report/$VERSION/version.toml"

# The uncaught exception's type: the first unindented line after the last
# "Traceback (most recent call last):" header on stderr, up to its colon.
exception_type() {   # exception_type PYTHON STDERR_FILE
    "$1" - "$2" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
heads = [i for i, l in enumerate(lines) if l.startswith("Traceback (most recent call last):")]
if heads:
    for line in lines[heads[-1] + 1:]:
        if line and not line[0].isspace():
            m = re.match(r"([A-Za-z_][\w.]*)(:|$)", line)
            if m:
                print(m.group(1))
            break
PY
}

# --- the executions -----------------------------------------------------------
cd "$RUNDIR"
while read -r nn user pyv input args; do
    py="$WORK/venv-$pyv/bin/python"
    log="$WORK/logs/exec-$nn"
    export COVERAGE_FILE="$WORK/data/exec-$nn.coverage"
    # shellcheck disable=SC2086  # args is a list of words
    set +e
    PYTHONPATH=program PYTHONDONTWRITEBYTECODE=1 \
        "$py" -m coverage run --branch --source=program -m billing "inputs/$input" $args \
        >"$log.out" 2>"$log.err"
    status=$?
    set -e
    "$py" -m coverage lcov -q -o "$OUT/exec-$nn.info"

    outcome=normal
    if [ "$status" -ne 0 ]; then
        exc=$(exception_type "$py" "$log.err")
        [ -n "$exc" ] && outcome=$exc
    fi
    {
        "$py" -c 'import platform as p
print(f"os.name={p.system()}\nos.version={p.release()}\nos.arch={p.machine()}")
print(f"runtime.name={p.python_implementation()}\nruntime.version={p.python_version()}")'
        echo "user.id=$user"
        echo "input.name=inputs/$input"
        echo "input.size=$(wc -c < "inputs/$input" | tr -d ' ')"
        echo "input.rows=$(( $(wc -l < "inputs/$input") - 1 ))"
        echo "program.args=$args"
        echo "exit.status=$status"
        echo "outcome=$outcome"
    } > "$OUT/exec-$nn.properties"
    printf 'exec-%s  %-4s python%-5s %-16s exit %s  %s\n' "$nn" "$user" "$pyv" "$input" "$status" "$outcome"
done <<< "$RUNS"

echo "coverage.py $COVERAGE_VERSION; $(echo "$RUNS" | wc -l) executions in $OUT; logs in $WORK/logs"
