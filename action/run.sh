#!/usr/bin/env bash
# The steps of action.yml that run keilref: `run.sh sarif` writes the SARIF
# report, `run.sh check` gives the verdict.
#
# What a pull request controls (the names of its files, the links among
# them) must never become an option or a place to write: each path reaches
# keilref as one argument after "--", as the paths input gives it, never
# split at a space or expanded by the shell; and a report is written only
# inside the workspace, through no symbolic link.
set -euo pipefail

say() {
  echo "keilref action: $*" >&2
}

# paths: one per line of the input, taken literally (no globbing, no splitting
# at spaces), the blanks around it trimmed; blank lines are skipped.
read_paths() {
  paths=()
  local line
  while IFS= read -r line || [[ -n $line ]]; do
    line="${line#"${line%%[![:space:]]*}"}"
    line="${line%"${line##*[![:space:]]}"}"
    if [[ -n $line ]]; then
      paths+=("$line")
    fi
  done <<<"${KEILREF_PATHS-}"
  if ((${#paths[@]} == 0)); then
    say "the paths input names no path (give one per line)"
    exit 2
  fi
}

# target: the absolute path of the report file $1 names, refused unless it
# lies inside the workspace and no symbolic link leads to it (a link in a
# pull request could send the report over any file the job can write).
# Plain bash (3.2 too, as macOS has it), not realpath -m, which macOS lacks.
report_target() {
  local given=$1 root path part logical at
  local -a parts=() names=()
  if [[ -z $given ]]; then
    say "sarif-file is empty; give a path in the workspace"
    exit 2
  fi
  root=$(cd -P -- "${GITHUB_WORKSPACE:-.}" && pwd)
  if [[ $given == /* ]]; then
    path=$given
  else
    path="$(pwd -P)/$given"
  fi
  # ".." and "." resolved as written, before any link is looked at.
  IFS=/ read -r -a names <<<"$path"
  for part in ${names[@]+"${names[@]}"}; do
    case $part in
    "" | .) ;;
    ..) parts=(${parts[@]+"${parts[@]:0:${#parts[@]}-1}"}) ;;
    *) parts+=("$part") ;;
    esac
  done
  logical="/$(IFS=/ && echo "${parts[*]-}")"
  if [[ $logical != "$root"/* ]]; then
    say "sarif-file: $given is not inside the workspace ($root); give a path in it"
    exit 2
  fi
  at=$root
  IFS=/ read -r -a names <<<"${logical#"$root"/}"
  for part in "${names[@]}"; do
    at="$at/$part"
    if [[ -L $at ]]; then
      say "sarif-file: $given leads through a symbolic link ($at); give a path without one"
      exit 2
    fi
  done
  target=$logical
}

case "${1-}" in
sarif)
  read_paths
  report_target "${KEILREF_SARIF-}"
  mkdir -p -- "$(dirname -- "$target")"
  # --exit-zero: the verdict is the check step's to give; this one only writes the report.
  keilref check --exit-zero --force-exclude --format sarif -o "$target" -- "${paths[@]}"
  ;;
check)
  read_paths
  # The command and its options, split at blanks as written in the workflow, never globbed.
  set -f
  # shellcheck disable=SC2206
  args=(${KEILREF_ARGS-})
  set +f
  # The project's excludes hold for the paths named too, as for a directory searched.
  case "${args[0]-}" in
  check | fmt | filter | stats) args+=(--force-exclude) ;;
  esac
  keilref ${args[@]+"${args[@]}"} -- "${paths[@]}"
  ;;
*)
  say "unknown step '${1-}' (expected sarif or check)"
  exit 2
  ;;
esac
