#!/usr/bin/env bash
# The shell steps of the perfatlas action (action.yml), kept here so that
# they run, and are tested, outside GitHub too (tests/github_action.rs).
#
#   action/run.sh build   perfatlas build "$INPUT_INPUT" -o "$INPUT_SITE" $INPUT_BUILD_ARGS
#   action/run.sh check   perfatlas check "$INPUT_INPUT" --fail-on "$INPUT_FAIL_ON"
#                           --format markdown [--site-url "$INPUT_SITE_URL"]
#                           [--repo, --sources, --config of $INPUT_BUILD_ARGS]
#                         > "$REPORT"; appends the report to $GITHUB_STEP_SUMMARY
#
# Inputs come as the environment variables action.yml sets (INPUT_*); results
# go to $GITHUB_OUTPUT (exit-code, report, verdict: pass, regression, error,
# or none when INPUT holds fewer than two versions) when it is set.
# `check` exits 0 when perfatlas check exits 0 or 1 (a regression: the
# action's last step fails the job, after the comment is posted) and 2 on
# an error. `build` exits 0 when perfatlas built the site, with or without
# skipped inputs (exit 1 of perfatlas build: a warning), 2 otherwise.
set -uo pipefail

output() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; fi
}

input="${INPUT_INPUT:?the action input 'input' (the directory of versions) is required}"

case "${1:-}" in
build)
  site="${INPUT_SITE:-site}"
  # Word splitting of build-args is wanted: extra flags, as on a command line.
  # shellcheck disable=SC2086
  perfatlas build "$input" -o "$site" ${INPUT_BUILD_ARGS:-}
  code=$?
  case "$code" in
  0) ;;
  1) echo "::warning::perfatlas build: some inputs were skipped (listed above and on the site's index page)" ;;
  *)
    echo "::error::perfatlas build failed (exit $code): the site was not written"
    exit 2
    ;;
  esac
  output site "$site"
  ;;
check)
  fail_on="${INPUT_FAIL_ON:-major}"
  case "$fail_on" in
  major | minor | never | major,unjudged | minor,unjudged | never,unjudged | unjudged) ;;
  *)
    echo "::error::fail-on must be major, minor or never, optionally followed by ,unjudged; not '$fail_on'"
    exit 2
    ;;
  esac
  # The first run of a new history has one version: nothing to compare yet,
  # which is no error for a workflow (perfatlas check itself exits 2).
  versions=$(find "$input" -mindepth 1 -maxdepth 1 -type d -not -name '.*' 2>/dev/null | wc -l)
  if [ -d "$input" ] && [ "$versions" -lt 2 ]; then
    echo "::notice::perfatlas check: $input holds $versions version(s); a check needs two, so there is nothing to judge yet"
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
      printf '### perfatlas check: nothing to compare yet\n\n%s holds %s version(s); the check starts with the second.\n' \
        "$input" "$versions" >>"$GITHUB_STEP_SUMMARY"
    fi
    output exit-code 0
    output verdict none
    exit 0
  fi
  report="${PERFATLAS_REPORT:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/perfatlas-check.md}"
  args=(check "$input" --fail-on "$fail_on" --format markdown)
  if [ -n "${INPUT_SITE_URL:-}" ]; then args+=(--site-url "$INPUT_SITE_URL"); fi
  # The check judges the history the build read, and tells the same root
  # causes: the build's --repo, --sources and --config, as given.
  # shellcheck disable=SC2206
  words=(${INPUT_BUILD_ARGS:-})
  for ((i = 0; i < ${#words[@]}; i++)); do
    case "${words[i]}" in
    --repo | --sources | --config)
      if ((i + 1 < ${#words[@]})); then args+=("${words[i]}" "${words[i + 1]}"); fi
      i=$((i + 1))
      ;;
    --repo=* | --sources=* | --config=*) args+=("${words[i]}") ;;
    esac
  done
  perfatlas "${args[@]}" >"$report"
  code=$?
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -s "$report" ]; then
    cat "$report" >>"$GITHUB_STEP_SUMMARY"
  fi
  output exit-code "$code"
  output report "$report"
  case "$code" in
  0) output verdict pass ;;
  1)
    output verdict regression
    echo "perfatlas check: regression at or above '$fail_on' (the job fails after the comment)"
    ;;
  *)
    output verdict error
    echo "::error::perfatlas check failed (exit $code)"
    exit 2
    ;;
  esac
  ;;
*)
  echo "usage: action/run.sh build|check" >&2
  exit 2
  ;;
esac
