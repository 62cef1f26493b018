#!/bin/sh
# The tree is formatted by .clang-format (CONVENTIONS: formatting is automated):
# every C source and header, fuzz corpora aside. Fails on any difference.
# And the Markdown pages render: every ``` code fence is closed (an unclosed
# one turned the rest of docs/hdf5-layout.md into code).
set -u
ROOT=$1
cd "$ROOT" || exit 1
passed=0
failed=0
files=$(find src include tools tests bench -name '*.[ch]' -not -path 'tests/fuzz/corpus-*' | sort)
n=$(echo "$files" | wc -l)
# shellcheck disable=SC2086
if clang-format --dry-run --Werror $files > /dev/null 2> format.err.$$; then
    echo "ok   $n files formatted as .clang-format says"
    passed=$((passed + 1))
else
    echo "FAIL files not formatted (run: clang-format -i FILE):"
    grep -o '^[^:]*\.[ch]' format.err.$$ | sort -u
    failed=$((failed + 1))
fi
rm -f format.err.$$
open=""
for md in README.md docs/*.md; do
    fences=$(grep -c '^ *```' "$md")
    [ $((fences % 2)) -eq 0 ] || open="$open $md"
done
if [ -z "$open" ]; then
    echo "ok   every code fence of README.md and docs/*.md is closed"
    passed=$((passed + 1))
else
    echo "FAIL a code fence left open (an odd number of \`\`\` lines) in:$open"
    failed=$((failed + 1))
fi
echo "check-format: $passed passed, $failed failed"
echo "check-format: classes reference 0, invariant 0, self-consistency 0, behaviour 2; passes $passed"
[ $failed -eq 0 ]
