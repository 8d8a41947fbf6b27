#!/usr/bin/env bash
# The README's commands run as written (label readme). Usage: test_readme.sh CCPDEM REPO WORKDIR
#
# The README marks the commands that are cheap enough to run here with the fence info string
# "sh checked" (shell) or "python checked" (python3), and scenarios with "yaml checked"; GitHub shows
# them as ordinary sh, python and yaml blocks. This script copies jobs/ and tests/ of REPO into a
# scratch directory, links build/ccpdem to CCPDEM there, and runs every marked block in the README's
# order from that directory (so their outputs land in its out/, and a block may use what an earlier
# one wrote): shell with `bash -e`, python with python3, a scenario with `ccpdem check`, each with a
# time limit. A scenario whose first line names a file of the repository ("# FILE: PATH") must be
# that file annotated: the same lines but for comments. Then it passes every option named in the
# README's option tables (table rows starting with `-name`) to `ccpdem check`, which refuses an
# option it does not know: a renamed or removed option fails here. Fails on the first block that
# fails, naming its README line.
set -euo pipefail
CCPDEM=$1 REPO=$2 W=$3
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
readme=$REPO/README.md
[ -f "$readme" ] || fail "no README.md in $REPO"

rm -rf "$W" && mkdir -p "$W/scratch/build" "$W/blocks"
cp -r "$REPO/jobs" "$REPO/tests" "$W/scratch/"
ln -s "$(readlink -f "$CCPDEM")" "$W/scratch/build/ccpdem"

# Cut the marked blocks out: blocks/NNN.{sh,python,yaml} and blocks/NNN.line (the README line of the fence).
awk -v dir="$W/blocks" '
  /^```/ {
    if (inblock) { inblock = 0; close(file); next }
    info = substr($0, 4)
    if (info == "sh checked" || info == "python checked" || info == "yaml checked") {
      n++; inblock = 1
      file = sprintf("%s/%03d.%s", dir, n, substr(info, 1, index(info, " ") - 1))
      printf "%d\n", NR > sprintf("%s/%03d.line", dir, n)
      printf "" > file
      next
    }
    next
  }
  inblock { print > file }
' "$readme"
blocks=$(ls "$W/blocks" | grep -E '\.(sh|python|yaml)$' || true)
[ -n "$blocks" ] || fail "the README has no block marked 'sh checked', 'python checked' or 'yaml checked'"
command -v /usr/bin/python3 > /dev/null || fail "python3 is missing (tests/run.sh installs it)"

# Each block gets 60 s, generous: the README's marked blocks take under 10 s together on an idle
# 2-core machine (40 spheres for 40 steps, a check of the main job's scenario, -help).
count=0
for b in $blocks; do
  line=$(cat "$W/blocks/${b%.*}.line")
  case $b in
    *.sh) run=(bash -e "$W/blocks/$b") ;;
    *.python) run=(/usr/bin/python3 "$W/blocks/$b") ;;
    *.yaml) run=(build/ccpdem check "$W/blocks/$b") ;;
  esac
  if ! (cd "$W/scratch" && timeout 60 "${run[@]}") > "$W/blocks/${b%.*}.out" 2>&1; then
    tail -n 20 "$W/blocks/${b%.*}.out"
    fail "README.md:$line: the block failed; its commands are in $W/blocks/$b"
  fi
  # A scenario that names its file ("# FILE: jobs/pile/default.yaml" on its first line) is that file
  # annotated: the same lines once comments, trailing blanks and empty lines are dropped.
  source_file=$(sed -n '1s/^# FILE: *//p' "$W/blocks/$b")
  if [ -n "$source_file" ]; then
    bare() { sed -e 's/ *#.*$//' -e 's/[[:space:]]*$//' "$1" | grep -v '^$'; }
    diff <(bare "$REPO/$source_file") <(bare "$W/blocks/$b") > "$W/blocks/${b%.*}.diff" ||
      { cat "$W/blocks/${b%.*}.diff"; fail "README.md:$line: the annotated scenario differs from $source_file"; }
  fi
  echo "README.md:$line: ok ($(wc -l < "$W/blocks/$b") lines)"
  count=$((count + 1))
done

# The options of the README's tables: `-name ...` at the start of a row, and the other `-name`s in
# that first cell (rows like "| `-fclib_dump STEP`, `-fclib_dir DIR` |").
options=$(grep -E '^\| `-[a-z]' "$readme" | cut -d'|' -f2 | grep -o -E '`-[a-z][a-z0-9_]*' | tr -d '`' | sort -u)
[ "$(echo "$options" | wc -l)" -ge 20 ] || fail "found only $(echo "$options" | wc -l) options in the README's tables"
# Named without values, ccpdem's options pass `check` (it reads only the solver's, and a missing
# value leaves the default); an unknown one is refused with exit 2.
# shellcheck disable=SC2086
if ! (cd "$W/scratch" && timeout 60 build/ccpdem check tests/cli/outputs.yaml $options) > "$W/options.out" 2>&1; then
  cat "$W/options.out"
  fail "ccpdem check refused an option of the README's tables"
fi
echo "README option tables: $(echo "$options" | wc -l) options, all known to ccpdem"
echo "test_readme: $count README blocks ran as written"
