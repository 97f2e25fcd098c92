#!/usr/bin/env bash
# Loads mem-report's HTML memory map of a composed pass dump with three buffers live together in
# a real headless Chromium: the page is self-contained, the map is laid out, exactly the three
# buffers live at the peak are drawn as marked rectangles, and the peak and limit are marked.
# Then advise's HTML on a build directory that has only a pass dump shows the same kind of map.
set -u
ptune=$1
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "chromium is not installed (tools/install-deps chromium)"
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

dump_dom() {  # page.html -> page.dom.html, rendered by the browser
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$scratch/profile" --virtual-time-budget=5000 --dump-dom "file://$1" \
    >"$2" 2>>"$scratch/browser.log"
  [ -s "$2" ] || { echo "chromium produced no DOM for $1"; tail -20 "$scratch/browser.log"; exit 1; }
}
external() { grep -Eq '(src|href)="(https?:)?//' "$1"; }

page="$scratch/map.html"
"$ptune" mem-report data/memreport/passdump/overlap3/passes_dump/11_after_AllocateMemoryAddr.py \
  --format html -o "$page" 2>"$scratch/stderr"
[ $? -le 1 ] || { echo "mem-report failed"; cat "$scratch/stderr"; exit 1; }
external "$page" && { echo "the page references an external resource"; exit 1; }
dom="$scratch/map.dom.html"
dump_dom "$page" "$dom"
charts=$(grep -o 'data-charts-rendered="[0-9]*"' "$dom" | grep -o '[0-9]*')
peaks=$(grep -o 'data-peak-rects-rendered="[0-9]*"' "$dom" | grep -o '[0-9]*')
[ "${charts:-0}" = 1 ] || { echo "the browser laid out ${charts:-0} memory maps, expected 1"; exit 1; }
[ "${peaks:-0}" = 3 ] || { echo "the browser laid out ${peaks:-0} live-at-peak buffers, expected 3"; exit 1; }
# Exactly mem_vec_0, _1 and _2 are marked live at the peak; mem_vec_3 is drawn but not marked.
marked=$(grep -o 'data-buffer="[^"]*" data-live-at-peak="1"' "$dom" | sed 's/data-buffer="\([^"]*\)".*/\1/' | sort | tr '\n' ' ')
[ "$marked" = "mem_vec_0 mem_vec_1 mem_vec_2 " ] || { echo "live at the peak: '$marked'"; exit 1; }
grep -q 'data-buffer="mem_vec_3"' "$dom" || { echo "mem_vec_3 is not drawn"; exit 1; }
grep -q 'data-peak-at="10" data-peak-bytes="40960"' "$dom" || { echo "peak not marked at line 10, 40960 B"; exit 1; }
grep -q 'limit 184.0 KB' "$dom" || { echo "limit not marked"; exit 1; }

report="$scratch/advise.html"
"$ptune" advise data/memreport/passdump/tree_dump_only --format html -o "$report" \
  2>"$scratch/stderr" || { echo "advise failed"; cat "$scratch/stderr"; exit 1; }
external "$report" && { echo "the advise report references an external resource"; exit 1; }
dump_dom "$report" "$scratch/advise.dom.html"
grep -q '<h2>Memory maps</h2>' "$scratch/advise.dom.html" || { echo "advise has no memory maps"; exit 1; }
maps=$(grep -o 'data-chart="memory-map-[0-9]*"' "$scratch/advise.dom.html" | wc -l)
[ "$maps" = 6 ] || { echo "advise shows $maps memory maps, expected 6"; exit 1; }
rendered=$(grep -o 'data-charts-rendered="[0-9]*"' "$scratch/advise.dom.html" | grep -o '[0-9]*')
[ "${rendered:-0}" -ge 7 ] || { echo "advise laid out ${rendered:-0} charts, expected >= 7 (fill + 6 maps)"; exit 1; }
echo "chromium rendered the memory map with 3 live-at-peak buffers and $maps maps in advise"
exit 0
