#!/usr/bin/env bash
# Loads the advise HTML report of the shipped example in a real headless Chromium and checks that
# the page is self-contained and that every chart was laid out by the browser (the page's own
# script counts the charts with a non-empty box into body[data-charts-rendered]).
set -u
ptune=$1
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "chromium is not installed (tools/install-deps chromium)"
  # Under CI the browser must be there: a skipped check would hide a broken report.
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
report="$scratch/report.html"
"$ptune" advise ../examples/build_output --log ../examples/logs/l3_two_card_report.log \
  --format html -o "$report" 2>"$scratch/stderr" || { echo "advise failed"; cat "$scratch/stderr"; exit 1; }

# Self-contained: no external resources of any kind.
if grep -Eq '(src|href)="(https?:)?//' "$report"; then
  echo "the report references an external resource"; exit 1
fi

dom="$scratch/dom.html"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$scratch/profile" --virtual-time-budget=5000 --dump-dom "file://$report" \
  >"$dom" 2>"$scratch/browser.log"
if [ ! -s "$dom" ]; then
  echo "chromium produced no DOM"; tail -20 "$scratch/browser.log"; exit 1
fi
rendered=$(grep -o 'data-charts-rendered="[0-9]*"' "$dom" | grep -o '[0-9]*')
expected=0
for chart in lane-utilisation top-kernels memory-fill pipe-utilisation effective-us; do
  if ! grep -q "data-chart=\"$chart\"" "$dom"; then
    echo "chart $chart is missing from the page"; exit 1
  fi
  expected=$((expected + 1))
done
if [ "${rendered:-0}" -lt "$expected" ]; then
  echo "the browser laid out ${rendered:-0} charts, expected $expected"; exit 1
fi
grep -q "What to fix first" "$dom" || { echo "no ranking section"; exit 1; }
echo "chromium rendered $rendered charts"
exit 0
