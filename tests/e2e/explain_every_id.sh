#!/usr/bin/env bash
# Everything ptune prints is explainable: every rule id, catalogue number and hint code that any
# golden stdout under tests/cli prints goes through `ptune rules explain`, which must answer it.
# Ids are taken where the outputs print them: rule ids (`mem.over-limit`, also in JSON "rule"),
# `(rule P13)`, catalogue numbers in parentheses (`(M2)`), the id column of advise's plan lines
# and perf-hint codes (PH001, PH-MR-001). A file name (pmu.csv) or a metric (pmu.ratio.mte2, a JSON evidence
# key "L2.cores":) is not an id. Also checks that the guide the rules cite is named.
set -u
ptune=$1
here=$(cd "$(dirname "$0")/.." && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

areas='L2|L3|bench|mem|hints|pmu|cross|ring|advise'
ids=$(
  cd "$here/cli" || exit 1
  {
    grep -ohP "(?<![\w./-])(?:$areas)\.[A-Za-z0-9][A-Za-z0-9-]*(?![\w.-])(?!\"[:)])" -- */*.stdout |
      grep -vP '\.(csv|json|jsonl|log|txt|py|tsv|md|db|gz|html|svg)$'
    grep -ohP '\(rule \K[A-Z]+[0-9]+(?=\))' -- */*.stdout
    grep -ohP '\(\K[MHPX][0-9]+(?=\))' -- */*.stdout
    grep -ohP '^ *(?:[0-9]+|-|·) +(?:error|warning|info) +\K\S+' -- advise/*.stdout
    grep -ohP '(?<![\w-])PH(?:-MR)?-?[0-9]{3}(?![\w-])' -- */*.stdout
  } | sort -u
)
count=0
for id in $ids; do
  count=$((count + 1))
  "$ptune" rules explain "$id" >/dev/null 2>&1 || fail "printed by a golden, not explained: $id"
done
[ "$count" -ge 40 ] || fail "only $count ids found in the goldens: the patterns no longer match"
"$ptune" rules explain P13 | grep -q "P13" || fail "rules explain P13"
"$ptune" rules explain X3 | grep -q "performance-tuning guide" ||
  fail "rules explain does not name the guide 'guide: Part N item M' cites"
[ "$failures" -eq 0 ] || exit 1
echo "ok ($count ids)"
