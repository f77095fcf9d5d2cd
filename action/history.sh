#!/usr/bin/env bash
# The history of versions on a data branch of the repository (action.yml's
# history steps; docs/github-actions.md, "History"): one folder per
# version, as `perfatlas build` reads it, kept on an orphan branch that
# shares nothing with the code and holds no site.
#
#   action/history.sh restore   puts every version folder the branch holds
#                               into INPUT, except one this run already
#                               wrote there (this run's own is kept)
#   action/history.sh save      adds INPUT's version folders the branch does
#                               not hold yet as one commit and pushes it;
#                               on a rejected push, fetches the new tip,
#                               re-applies the folders onto it and retries
#
# Run from inside the repository's checkout (actions/checkout; a shallow
# clone is fine). Neither verb touches the checkout: the branch is fetched
# explicitly and commits are made with git's plumbing and a temporary index
# (no HEAD, index, working tree or local branch changes; the fetch may
# update the remote-tracking ref origin/BRANCH). Never force-pushes.
#
# Inputs (environment, as action.yml sets them):
#   INPUT_INPUT            the directory of versions
#   INPUT_HISTORY_BRANCH   the data branch; empty turns history off
#                          (unset: perfatlas-history)
#   INPUT_HISTORY_SAVE     auto (pushes to the default branch), true, false
#   PERFATLAS_DEFAULT_BRANCH  the repository's default branch (for auto)
#   GITHUB_EVENT_NAME, GITHUB_REF, GITHUB_SHA, GITHUB_SERVER_URL,
#   GITHUB_REPOSITORY, GITHUB_RUN_ID   as the runner sets them
#   PERFATLAS_HISTORY_REMOTE    remote name or URL (default origin)
#   PERFATLAS_HISTORY_ATTEMPTS  pushes tried before giving up (default 5)
#   PERFATLAS_HISTORY_BACKOFF_MS  first wait after a rejection (default
#                          1000; doubled each time, plus up to as much jitter)
#   PERFATLAS_HISTORY_TEST_GATE  tests only: on its first attempt, save
#                          creates GATE.waiting once its commit is made on
#                          the fetched tip, then waits for GATE before
#                          pushing (a deterministic race between two runs)
#
# Exit status: 0 done (or nothing to do, said in the log), 2 an error.
set -uo pipefail

readonly BOT_NAME='github-actions[bot]'
readonly BOT_EMAIL='41898282+github-actions[bot]@users.noreply.github.com'

branch="${INPUT_HISTORY_BRANCH-perfatlas-history}"
remote="${PERFATLAS_HISTORY_REMOTE:-origin}"
input="${INPUT_INPUT:?the action input 'input' (the directory of versions) is required}"

fail() {
  echo "::error::history ($branch): $*"
  exit 2
}

note() { echo "history ($branch): $*"; }

# git with no line-ending conversion or attribute filter of the user's
# between the files and the branch, pathspecs taken literally (a version
# may be named "v[1]"), and messages in English so they can be matched.
g() { LC_ALL=C git -c core.autocrlf=false -c core.attributesFile=/dev/null --literal-pathspecs "$@"; }

check_save_input() {
  case "${INPUT_HISTORY_SAVE:-auto}" in
  auto | true | false) ;;
  *) fail "history-save must be auto, true or false; not '${INPUT_HISTORY_SAVE}'" ;;
  esac
}

check_branch_name() {
  g check-ref-format "refs/heads/$branch" ||
    fail "'$branch' is not a valid branch name (history-branch)"
}

in_repository() { g rev-parse --git-dir >/dev/null 2>&1; }

# Sets $tip to the branch's tip on the remote, fetched into the local
# object store; to "" when the remote has no such branch. Fails on any
# other error (network, authentication, a wrong remote).
fetch_tip() {
  local listed code
  tip=""
  listed=$(g ls-remote --exit-code "$remote" "refs/heads/$branch" 2>&1)
  code=$?
  if [ "$code" -eq 2 ]; then return 0; fi
  [ "$code" -eq 0 ] || fail "cannot read the branch from '$remote' (git ls-remote exit $code): $listed"
  g fetch --quiet --no-tags "$remote" "refs/heads/$branch" ||
    fail "cannot fetch refs/heads/$branch from '$remote'"
  tip=$(g rev-parse --verify --quiet 'FETCH_HEAD^{commit}') || fail "the fetched FETCH_HEAD is not a commit"
}

# Names of the version folders at the top of commit $1 (hidden ones and
# files, such as the branch's README, left out), one a line.
branch_versions() {
  local entry
  g ls-tree -z "$1" | while IFS= read -r -d '' entry; do
    local meta="${entry%%$'\t'*}" name="${entry#*$'\t'}"
    if [[ "$meta" == *" tree "* && "$name" != .* ]]; then
      printf '%s\n' "$name"
    fi
  done
}

# The version folders of INPUT (directories, or links to them, whose names
# do not start with a dot), one a line, sorted.
input_versions() {
  local path
  for path in "$input"/*/; do
    [ -d "$path" ] || continue
    path="${path%/}"
    printf '%s\n' "${path##*/}"
  done | LC_ALL=C sort
}

restore() {
  if ! in_repository; then
    echo "::warning::history ($branch): $PWD is not a git repository, so no history was restored; check out the repository first (actions/checkout) or set history-branch to '' to turn history off"
    return 0
  fi
  check_branch_name
  fetch_tip
  if [ -z "$tip" ]; then
    note "no branch '$branch' on '$remote' yet: this is the history's first run (the first save creates it); nothing restored"
    return 0
  fi
  mkdir -p "$input" || fail "cannot create the input directory $input"
  local name wanted=() kept=()
  while IFS= read -r name; do
    if [ -e "$input/$name" ]; then kept+=("$name"); else wanted+=("$name"); fi
  done < <(branch_versions "$tip")
  if [ "${#wanted[@]}" -gt 0 ]; then
    # git archive writes blobs as stored (no line-ending or filter
    # conversion with the settings of g); tar creates only the folders
    # asked for, none of which exists in INPUT.
    g archive --format=tar "$tip" -- "${wanted[@]}" | tar -x -C "$input" ||
      fail "cannot write the restored versions into $input"
  fi
  note "restored ${#wanted[@]} version(s) from ${tip:0:12} into $input${wanted[0]+: $(list "${wanted[@]}")}"
  if [ "${#kept[@]}" -gt 0 ]; then
    note "kept this run's own $(list "${kept[@]}") (the branch's copy is not restored over it)"
  fi
}

# "a, b, c" for a short list, "a, b, …, h, … (N in all)" for a long one.
list() {
  [ "$#" -gt 0 ] || return 0
  local shown=("${@:1:8}") text
  text=$(printf '%s, ' "${shown[@]}")
  text="${text%, }"
  if [ "$#" -gt 8 ]; then text="$text, … ($# in all)"; fi
  printf '%s' "$text"
}

# Whether this run saves, from history-save and the event; prints why not.
wants_save() {
  case "${INPUT_HISTORY_SAVE:-auto}" in
  true) return 0 ;;
  false)
    note "history-save is false: this run's version is not saved"
    return 1
    ;;
  esac
  local event="${GITHUB_EVENT_NAME:-}" ref="${GITHUB_REF:-}" default="${PERFATLAS_DEFAULT_BRANCH:-}"
  if [ "$event" = push ] && [ -n "$default" ] && [ "$ref" = "refs/heads/$default" ]; then
    return 0
  fi
  note "not saved: history-save 'auto' saves pushes to the default branch${default:+ ($default)}, and this is a '${event:-local}' run on '${ref:-no ref}' (set history-save to 'true' to save it anyway)"
  return 1
}

# Sets $tree to the tree of one version folder, its files stored byte for
# byte (no filters; links followed; every file as a plain, non-executable
# file); to "" when the folder holds no file.
folder_tree() {
  local dir="$1" index="$scratch/folder.index" paths=() path i
  rm -f "$index"
  tree=""
  while IFS= read -r -d '' path; do
    case "$path" in *$'\n'*) fail "$dir: a file name holds a line break, which this script cannot store: '$path'" ;; esac
    paths+=("${path#./}")
  done < <(cd "$dir" && find -L . -type f -print0 | LC_ALL=C sort -z)
  [ "${#paths[@]}" -gt 0 ] || return 0
  local hashes
  mapfile -t hashes < <(printf '%s\n' "${paths[@]/#/$dir/}" | g hash-object -w --no-filters --stdin-paths)
  [ "${#hashes[@]}" -eq "${#paths[@]}" ] || fail "cannot store the files of $dir"
  for i in "${!paths[@]}"; do
    printf '100644 %s\t%s\0' "${hashes[$i]}" "${paths[$i]}"
  done | GIT_INDEX_FILE="$index" g update-index -z --index-info || fail "cannot index the files of $dir"
  tree=$(GIT_INDEX_FILE="$index" g write-tree) || fail "cannot write the tree of $dir"
}

readme() {
  cat <<EOF
# perfatlas history

This branch is written by the perfatlas GitHub action (action/history.sh)
and read back before every build: one folder per version, holding what
\`perfatlas build\` reads (raw profiles and measurements, or a .padigest
archive). It shares no history with the code and holds no site.

Every save adds one commit with the new version folder(s), authored by
$BOT_NAME; it is never force-pushed. Inspect it with

    git fetch origin $branch
    git log --stat origin/$branch

and remove a version by committing its folder's removal on this branch.
EOF
}

# Commits, on top of $tip (empty: a new orphan branch with a README), the
# folders of ${names[@]} the tip does not hold yet. Sets $commit (empty when
# the tip holds them all) and ${added[@]}.
commit_on() {
  local index="$scratch/branch.index" name present entry
  local -A on_branch=()
  rm -f "$index"
  added=()
  commit=""
  if [ -n "$tip" ]; then
    GIT_INDEX_FILE="$index" g read-tree "$tip" || fail "cannot read the branch's tip ${tip:0:12}"
    while IFS= read -r -d '' entry; do
      on_branch["${entry#*$'\t'}"]="${entry%%$'\t'*}"
    done < <(g ls-tree -z "$tip")
  else
    local blob
    blob=$(readme | g hash-object -w --stdin) || fail "cannot store the branch's README"
    printf '100644 %s\tREADME.md\0' "$blob" | GIT_INDEX_FILE="$index" g update-index -z --index-info ||
      fail "cannot index the branch's README"
  fi
  for name in "${names[@]}"; do
    present="${on_branch[$name]-}"
    if [ -z "$present" ]; then
      GIT_INDEX_FILE="$index" g read-tree --prefix="$name/" "${trees[$name]}" || fail "cannot add $name"
      added+=("$name")
    elif [ "${present##* }" != "${trees[$name]}" ]; then
      echo "::warning::history ($branch): the branch already holds a version '$name' with other files; kept the branch's (a saved version is never rewritten: remove it from the branch to replace it)"
    fi
  done
  [ "${#added[@]}" -gt 0 ] || return 0
  local new parent=()
  new=$(GIT_INDEX_FILE="$index" g write-tree) || fail "cannot write the branch's tree"
  if [ -n "$tip" ]; then parent=(-p "$tip"); fi
  commit=$(commit_message | GIT_AUTHOR_NAME="$BOT_NAME" GIT_AUTHOR_EMAIL="$BOT_EMAIL" \
    GIT_COMMITTER_NAME="$BOT_NAME" GIT_COMMITTER_EMAIL="$BOT_EMAIL" \
    g commit-tree --no-gpg-sign "${parent[@]}" "$new") ||
    fail "cannot commit the new version(s)"
}

commit_message() {
  printf 'perfatlas history: add %s\n' "$(list "${added[@]}")"
  local lines=()
  if [ -n "${GITHUB_SHA:-}" ]; then lines+=("Benchmarked revision: $GITHUB_SHA"); fi
  if [ -n "${GITHUB_REPOSITORY:-}" ] && [ -n "${GITHUB_RUN_ID:-}" ]; then
    lines+=("Run: ${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID")
  fi
  if [ "${#lines[@]}" -gt 0 ]; then printf '\n%s\n' "${lines[@]}"; fi
}

# Tests only: see PERFATLAS_HISTORY_TEST_GATE above.
test_gate() {
  local gate="${PERFATLAS_HISTORY_TEST_GATE:-}" waited=0
  [ -n "$gate" ] || return 0
  : >"$gate.waiting"
  while [ ! -e "$gate" ]; do
    sleep 0.05
    waited=$((waited + 1))
    [ "$waited" -lt 2400 ] || fail "test gate $gate never opened"
  done
}

# Pushes $1 to the branch: 0 pushed, 1 rejected because the branch moved
# (retry on a fresh tip), 2 refused for another reason (said).
push() {
  local out code
  out=$(g push --porcelain --no-verify "$remote" "$1:refs/heads/$branch" 2>&1)
  code=$?
  [ "$code" -ne 0 ] || return 0
  case "$out" in
  *'[rejected]'* | *'cannot lock ref'* | *'failed to update ref'* | *'incorrect old value'*) return 1 ;;
  esac
  echo "$out"
  echo "::error::history ($branch): git push to '$remote' failed (exit $code). Saving needs 'permissions: contents: write' for the job (and actions/checkout's persisted credentials), or set history-save to 'false'"
  return 2
}

backoff() {
  local attempt=$1 base="${PERFATLAS_HISTORY_BACKOFF_MS:-1000}" ms
  ms=$((base * (1 << (attempt - 1)) + RANDOM % (base + 1)))
  sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
}

save() {
  check_save_input
  wants_save || return 0
  if ! in_repository; then
    fail "$PWD is not a git repository: check out the repository first (actions/checkout) to save the history, or set history-save to 'false'"
  fi
  check_branch_name
  [ -d "$input" ] || fail "no input directory $input: nothing to save"
  scratch=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/perfatlas-history.XXXXXX") || fail "cannot make a temporary directory"
  trap 'rm -rf "$scratch"' EXIT
  input=$(cd "$input" && pwd) || fail "cannot enter $input"
  declare -gA trees=()
  names=()
  local name
  while IFS= read -r name; do
    folder_tree "$input/$name"
    if [ -z "$tree" ]; then
      echo "::warning::history ($branch): $input/$name holds no file (git keeps no empty folder); not saved"
      continue
    fi
    trees[$name]=$tree
    names+=("$name")
  done < <(input_versions)
  [ "${#names[@]}" -gt 0 ] || {
    note "$input holds no version folder: nothing to save"
    return 0
  }
  local attempts="${PERFATLAS_HISTORY_ATTEMPTS:-5}" attempt=1 code
  while :; do
    fetch_tip
    commit_on
    if [ -z "$commit" ]; then
      note "the branch${tip:+ (${tip:0:12})} already holds every version of $input: nothing to save"
      return 0
    fi
    [ "$attempt" -gt 1 ] || test_gate
    push "$commit"
    code=$?
    if [ "$code" -eq 0 ]; then
      note "saved $(list "${added[@]}") as ${commit:0:12} on $remote $([ -n "$tip" ] && echo "(after ${tip:0:12})" || echo "(a new branch)")"
      return 0
    fi
    [ "$code" -eq 1 ] || exit 2
    if [ "$attempt" -ge "$attempts" ]; then
      fail "push rejected $attempt time(s) (the branch kept moving); $(list "${added[@]}") not saved"
    fi
    note "push rejected, retrying: another run saved first ($([ -n "$tip" ] && echo "the branch moved from ${tip:0:12}" || echo "it created the branch")); attempt $((attempt + 1)) of $attempts"
    backoff "$attempt"
    attempt=$((attempt + 1))
  done
}

case "${1:-}" in
restore)
  check_save_input
  if [ -z "$branch" ]; then
    note "history-branch is empty: history is off, nothing restored"
    exit 0
  fi
  restore
  ;;
save)
  if [ -z "$branch" ]; then
    echo "history: history-branch is empty: history is off, nothing saved"
    exit 0
  fi
  save
  ;;
*)
  echo "usage: action/history.sh restore|save" >&2
  exit 2
  ;;
esac
