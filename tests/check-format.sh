#!/bin/sh
# The tree is formatted by .clang-format (CONVENTIONS: formatting is automated):
# every C source and header, fuzz corpora aside. Fails on any difference.
set -u
ROOT=$1
cd "$ROOT" || exit 1
files=$(find src include tools tests bench -name '*.[ch]' -not -path 'tests/fuzz/corpus-*' | sort)
n=$(echo "$files" | wc -l)
# shellcheck disable=SC2086
if clang-format --dry-run --Werror $files > /dev/null 2> format.err.$$; then
    echo "ok   $n files formatted as .clang-format says"
    echo "check-format: 1 passed, 0 failed"
    echo "check-format: classes reference 0, invariant 0, self-consistency 0, behaviour 1; passes 1"
    rm -f format.err.$$
    exit 0
fi
echo "FAIL files not formatted (run: clang-format -i FILE):"
grep -o '^[^:]*\.[ch]' format.err.$$ | sort -u
rm -f format.err.$$
echo "check-format: 0 passed, 1 failed"
echo "check-format: classes reference 0, invariant 0, self-consistency 0, behaviour 1; passes 0"
exit 1
