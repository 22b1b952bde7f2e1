#!/usr/bin/env bash
# Formats the C++ sources with the project's .clang-format (clang-format-14, Debian 12's).
# Usage: scripts/format.sh           reformat every tracked .cpp/.h file in place
#        scripts/format.sh --check   change nothing; list each file that differs and fail (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --format
cf=clang-format-14
mode=fix
case "${1:-}" in
  --check) mode=check ;;
  "") ;;
  *) echo "format.sh: unknown option $1 (usage: scripts/format.sh [--check])" >&2; exit 2 ;;
esac
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "$mode" = fix ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$cf" -i
  exit 0
fi
# One clang-format process per 64 files, one per core: clang-format names each file that differs
# in its "FILE:LINE:COL: error: code should be clang-formatted" lines.
mapfile -t bad < <(printf '%s\0' "${files[@]}" |
  xargs -0 -n 64 -P "$(nproc)" "$cf" --dry-run --Werror 2>&1 >/dev/null |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  echo "format.sh: ${#bad[@]} of ${#files[@]} files differ from .clang-format (run scripts/format.sh):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format.sh: ${#files[@]} files match .clang-format"
