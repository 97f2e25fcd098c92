#!/usr/bin/env bash
# The borders between ptune's domain libraries (CMakeLists.txt, cmake/CheckBorders.cmake):
#  1. the border check rejects each kind of forbidden include in a small tree, naming file:line,
#     and accepts the allowed ones;
#  2. the real source tree passes it with the real domain table;
#  3. a file compiled with exactly domain pmu's include path cannot include a swimlane header,
#     while pmu's own and its dependencies' headers compile (the include views).
# Usage: borders_test.sh CMAKE CXX SOURCE_DIR BUILD_DIR DOMAIN_TABLE PMU_INCLUDE_FLAGS...
set -uo pipefail
cmake=$1 cxx=$2 source=$3 build=$4 table=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

out=$("$cmake" -DSOURCE_DIR="$here/tree" "-DDOMAINS=alpha=|beta=alpha|gamma=" \
      -P "$source/cmake/CheckBorders.cmake" 2>&1)
[ $? -ne 0 ] || fail "the check passed a tree with forbidden includes"
grep -q "src/alpha/uses_private.cpp:2: includes src/beta/private.hpp by a relative path" <<<"$out" ||
  fail "a private header of another domain is not reported with file:line"
grep -q "src/alpha/uses_undeclared.cpp:5: includes ptune/gamma/api.hpp, but domain 'alpha' does not declare 'gamma'" <<<"$out" ||
  fail "an undeclared domain's public header is not reported with file:line"
grep -q "include/ptune/beta/around_the_view.hpp:3: includes include/ptune/gamma/api.hpp by a relative path" <<<"$out" ||
  fail "a public header reached around the include views is not reported"
for allowed in fine.cpp uses_declared.cpp own_private.hpp; do
  grep -q "$allowed" <<<"$out" && fail "an allowed include in $allowed was reported"
done
[ "$(grep -c ': includes ' <<<"$out")" -eq 3 ] || fail "expected exactly 3 reports, got: $out"

out=$("$cmake" -DSOURCE_DIR="$source" "-DDOMAINS=$table" -P "$source/cmake/CheckBorders.cmake" 2>&1) ||
  fail "the source tree crosses a border: $out"

out=$("$cxx" -std=c++20 -fsyntax-only "$@" "$here/probe_undeclared.cpp" 2>&1)
[ $? -ne 0 ] || fail "pmu's include path reaches a swimlane header"
# gcc: "…pipeline.hpp: No such file or directory"; clang: "'…pipeline.hpp' file not found".
grep -Eq "ptune/swimlane/pipeline.hpp(: No such file|' file not found)" <<<"$out" ||
  fail "unexpected compile error: $out"
out=$("$cxx" -std=c++20 -fsyntax-only "$@" "$here/probe_declared.cpp" 2>&1) ||
  fail "pmu's own and declared headers do not compile with its include path: $out"

[ "$failures" -eq 0 ] && echo "borders: all checks passed"
exit $((failures > 0))
