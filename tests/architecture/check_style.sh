#!/usr/bin/env bash
# The style limits that need no formatter (docs/architecture.md; .clang-format does the rest):
# every line of the C sources and headers (src/, decomp/, io/, tests/) at most 120 characters, and
# no measurement diary in code or README (the string "session N": history goes to docs/history/).
# Prints each violation; exit 1 if any, 0 otherwise.   Usage: check_style.sh [REPO]
set -uo pipefail
repo=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
cd "$repo" || exit 2
bad=0
files=$(find src decomp io tests -type f \( -name '*.c' -o -name '*.h' \) | sort)
[ "$(echo "$files" | wc -l)" -gt 100 ] || { echo "only $(echo "$files" | wc -l) C files found: the scan is broken"; exit 1; }
long=$(LC_ALL=C.UTF-8 grep -n -E '^.{121,}' $files | cut -c1-160)
if [ -n "$long" ]; then
  echo "$long" | head -n 20
  echo "$(echo "$long" | wc -l) lines longer than 120 characters (clang-format -i FILE wraps them)"
  bad=1
fi
diary=$(grep -n -i -E 'session [0-9]+' $files README.md CMakeLists.txt | head -n 20)
if [ -n "$diary" ]; then
  echo "$diary"
  echo "history in code or README: state the contract or reason, move the story to docs/history/"
  bad=1
fi
[ $bad = 0 ] && echo "check_style: $(echo "$files" | wc -l) C files within 120 columns, no diary in code or README"
exit $bad
