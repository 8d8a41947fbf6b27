#!/usr/bin/env bash
# The dependency rule of docs/architecture.md: every #include "..." in src/, decomp/ and io/ names
# its folder ("ccp/solver.h", "decomp/domain.h", "io/h5.h"), a folder includes only itself and the
# folders below it in the table ALLOWED, and a private header (*_impl.h) only its own folder. Prints every include that breaks the rule; exit 1 if
# any does, 0 otherwise.   Usage: check_includes.sh [REPO]   (default: this checkout)
set -uo pipefail
repo=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
cd "$repo" || exit 2

# folder: the folders it may include besides itself (keep in step with docs/architecture.md;
# PHYSICS stands for scenario bodies collision contact ccp penalty joints analysis)
rule_table='
app:       step decomp io PHYSICS base
step:      decomp io PHYSICS base
decomp:    PHYSICS base
io:        PHYSICS base
joints:    scenario bodies contact ccp base
ccp:       scenario bodies contact base
penalty:   scenario bodies contact base
collision: scenario bodies contact base
contact:   base
scenario:  bodies base
bodies:    base
analysis:  base
base:
'
physics="scenario bodies collision contact ccp penalty joints analysis"
declare -A ALLOWED
while read -r folder deps; do
  [ -n "$folder" ] && ALLOWED[${folder%:}]=${deps//PHYSICS/$physics}
done <<< "$rule_table"
# generated headers (in the build tree) a folder may include unqualified
declare -A GENERATED=([app]="default_scenario.h version_build.h version_commit.h")

bad=0 n=0
while IFS= read -r file; do
  case $file in
    src/*/*) from=${file#src/}; from=${from%%/*} ;;
    decomp/* | io/*) from=${file%%/*} ;;
    *) echo "$file: a source file outside the folders of docs/architecture.md"; bad=1; continue ;;
  esac
  if [ -z "${ALLOWED[$from]+x}" ]; then
    echo "$file: folder '$from' is not in the dependency rule (tests/architecture/check_includes.sh ALLOWED)"
    bad=1
    continue
  fi
  while IFS=: read -r line target; do
    n=$((n + 1))
    if [[ $target != */* ]]; then
      [[ " ${GENERATED[$from]:-} " == *" $target "* ]] && continue
      echo "$file:$line: #include \"$target\" does not name its folder (write \"folder/$target\")"
      bad=1
      continue
    fi
    to=${target%%/*}
    [ "$to" = "$from" ] && continue
    if [[ $target == *_impl.h ]]; then
      echo "$file:$line: #include \"$target\": a private header (*_impl.h) is for its own folder, $to/, only"
      bad=1
      continue
    fi
    if [ -z "${ALLOWED[$to]+x}" ]; then
      echo "$file:$line: #include \"$target\": '$to' is not a folder of the project"
      bad=1
    elif [[ " ${ALLOWED[$from]} " != *" $to "* ]]; then
      echo "$file:$line: #include \"$target\": $from/ may not include $to/ (docs/architecture.md: $from/ includes ${ALLOWED[$from]:-nothing else})"
      bad=1
    fi
  done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$file" | sed -E 's/^([0-9]+):[^"]*"([^"]+)".*/\1:\2/')
done < <(find src decomp io -type f \( -name '*.c' -o -name '*.h' \) | sort)

[ $n -gt 100 ] || { echo "only $n includes found: the scan is broken"; exit 1; }
if [ $bad = 0 ]; then echo "check_includes: $n includes, all within the dependency rule"; fi
exit $bad
