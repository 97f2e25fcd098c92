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
# Exit 1 is the example's error finding (SF's Vec over its limit), as `ptune help advise` says.
"$ptune" advise ../examples/build_output --log ../examples/logs/l3_two_card_report.log \
  --format html -o "$report" 2>"$scratch/stderr"
status=$?
[ "$status" -le 1 ] || { echo "advise failed ($status)"; cat "$scratch/stderr"; exit 1; }

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
# Chart labels laid out by the browser's own font start inside the picture (the effective_us
# chart's "l3_two_card_report rank 3229451" lost its start in a fixed 180 px column).
clipped=$(grep -o 'data-labels-clipped="[0-9]*"' "$dom" | grep -o '[0-9]*')
[ "${clipped:-x}" = 0 ] || { echo "${clipped:-?} chart label(s) cut at the left edge"; exit 1; }
# Evidence reads as words: no raw metric key outside the tooltips.
if sed 's/title="[^"]*"//g; s/<[^>]*>//g' "$dom" | grep -Eo 'Evidence: [^<]*(^|[ ;:(])(pmu|mem|hints)\.[a-z_]+'; then
  echo "evidence shows metric keys"; exit 1
fi
echo "chromium rendered $rendered charts"
exit 0
