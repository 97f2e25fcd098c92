#!/usr/bin/env bash
# Every SARIF ptune writes is valid SARIF 2.1.0 (ajv against the official schema, see
# tests/sarif/README.md) and every result has a physical location, as GitHub code scanning
# requires: hints-lint --format sarif on every hints fixture (files, stdin, build directories,
# with and without a baseline) and every SARIF golden. Needs node and `npm ci` in tests/sarif
# (tools/test does it); without them the test fails under CI and is skipped (77) elsewhere.
set -u
ptune=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
validator=$root/tests/sarif/validate.js
if ! command -v node >/dev/null || [ ! -d "$root/tests/sarif/node_modules/ajv-draft-04" ]; then
  echo "SARIF validator not installed: run 'npm ci' in tests/sarif (tools/test does)"
  [ -n "${CI:-}" ] && exit 1
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=$root/tests/data/hints
fail=0
n=0
check() {  # check NAME ARGS... : runs ptune hints-lint --format sarif ARGS and validates
  local name=$1
  shift
  n=$((n + 1))
  "$ptune" hints-lint --format sarif "$@" >"$tmp/$n.sarif" 2>"$tmp/$n.err"
  local code=$?
  if [ "$code" -gt 1 ]; then
    echo "FAIL $name: exit $code"; cat "$tmp/$n.err"; fail=1; return
  fi
  if ! node "$validator" "$tmp/$n.sarif"; then echo "FAIL $name"; fail=1; fi
}
for log in "$data"/*.perf_hints.log; do
  check "$(basename "$log")" "$log"
  check "$(basename "$log") --root" --root "$data/repo" "$log"
done
check "stdin" - <"$data/composed__pseudo_files.perf_hints.log"
check "build_output" --root "$data/repo" "$data/build_output"
check "baseline" --baseline "$data/v2.baseline.json" "$data/composed__a2a3_v2_ph001.perf_hints.log"
check "examples" "$root/examples/build_output"
for args in "$root"/tests/cli/*/*.args; do
  grep -q -- "sarif" "$args" || continue
  n=$((n + 1))
  if ! node "$validator" "${args%.args}.stdout"; then echo "FAIL golden ${args%.args}"; fail=1; fi
done
[ "$n" -gt 10 ] || { echo "only $n SARIF outputs checked"; exit 1; }
[ "$fail" = 0 ] && echo "$n SARIF outputs valid"
exit "$fail"
