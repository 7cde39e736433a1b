#!/usr/bin/env bash
# The programs' --version names the version, the git revision they were built from and the
# libraries; the manual pages and the bash completion generated from --help (packaging/help_docs.py)
# name every flag and command the help names, the pages render without warnings and the
# completion completes commands, sub-commands, flags and closed choices.
#   test_help_docs.sh CLI HELP_DOCS.py SOURCE_DIR [STUDIO|-] [SCREEN_MPI|-]
set -euo pipefail
cli=$1 gen=$2 src=$3 studio=${4:--} mpi=${5:--}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# --version: "<program> X.Y.Z (git REV)" then the library versions.
check_version() {  # program exe pattern-of-extra-line
  local out first
  out=$("$2" --version)
  echo "$out"
  first=${out%%$'\n'*}
  grep -qE "^$1 [0-9]+\.[0-9]+\.[0-9]+ \(git [^)]+\)$" <<< "$first" || fail "$1 --version: first line '$first'"
  grep -qE '^LibTorch [0-9]+\.[0-9]+\.[0-9]+.*, RDKit [0-9]{4}\.[0-9]{2}' <<< "$out" || fail "$1 --version lacks LibTorch/RDKit versions"
  grep -qE "$3" <<< "$out" || fail "$1 --version lacks '$3'"
  if head=$(git -C "$src" rev-parse --short=7 HEAD 2> /dev/null); then
    grep -q "$head" <<< "$first" || fail "$1 --version does not name HEAD $head (a stale build?)"
  fi
}
check_version graphormer-cli "$cli" '^Qt: not used'
[ "$studio" = - ] || check_version graphormer-studio "$studio" '^Qt 6\.[0-9]+'

# Every flag of the help text is on the page (roff writes '-' as '\-'), and the page renders.
check_page() {  # program exe
  local prog=$1 exe=$2 page="$work/$1.1" flag missing=0
  "$exe" --help > "$work/$prog.help" 2> /dev/null
  python3 "$gen" man "$prog" 1 "exe:$exe" /dev/null "$page" --summary "test page"
  sed 's/\\-/-/g' "$page" > "$page.txt"  # a file, not a pipe: grep -q would cut sed off (SIGPIPE under pipefail)
  for flag in $(grep -oE -- '--[a-z0-9][a-z0-9-]*' "$work/$prog.help" | sort -u); do
    grep -q -- "$flag" "$page.txt" || { echo "$prog.1 lacks $flag"; missing=1; }
  done
  [ $missing -eq 0 ] || fail "$prog.1 lacks flags of its --help"
  grep -q '^\.SH SYNOPSIS' "$page" && grep -q '^\.SH DESCRIPTION' "$page" || fail "$prog.1 lacks SYNOPSIS or DESCRIPTION"
  if command -v man > /dev/null && command -v groff > /dev/null; then
    local warnings
    warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 > /dev/null || true)
    [ -z "$warnings" ] || fail "$prog.1 renders with warnings: $warnings"
  fi
  echo "$prog.1: $(grep -c '^\.SH' "$page") sections, all $(grep -oE -- '--[a-z0-9][a-z0-9-]*' "$work/$prog.help" | sort -u | wc -l) flags of --help"
}
check_page graphormer-cli "$cli"
grep -q '^\.SH COMMANDS' "$work/graphormer-cli.1" || fail "graphormer-cli.1 has no COMMANDS section"
[ "$studio" = - ] || check_page graphormer-studio "$studio"
[ "$mpi" = - ] || check_page graphormer-screen-mpi "$mpi"

# Bash completion from the same help.
python3 "$gen" completion graphormer-cli "exe:$cli" "$work/completion"
complete_words() {  # words... (the last is the one being completed)
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _graphormer_cli; echo "${COMPREPLY[*]}"' _ "$work/completion" "$@"
}
expect() {  # expected words...
  local want=$1; shift
  local got
  got=$(complete_words "$@")
  [ "$got" = "$want" ] || fail "completing '$*': got '$got', want '$want'"
}
# Each command of the help (a usage line naming another program, e.g. mpirun ..., is that program's).
for cmd in $(sed -n '/^commands:/,/^[A-Z]/p' "$work/graphormer-cli.help" | grep -v graphormer- | grep -oE '^  [a-z]+ ' | sort -u); do
  got=$(complete_words graphormer-cli "$cmd")
  grep -qw -- "$cmd" <<< "$got" || fail "completion does not offer the command $cmd"
done
expect predict graphormer-cli pred
expect --precision graphormer-cli predict --prec
expect bf16 graphormer-cli predict --precision b
expect "merge" graphormer-cli screen me
expect --slurm-array graphormer-cli screen run --slurm-a
expect "" graphormer-cli screen status --prec   # status has no --precision
expect "scaffold" graphormer-cli train --split sc
echo "completion: commands, sub-commands, flags and choices complete"
