#!/usr/bin/env bash
# An output that replaces an existing file is swapped in with renameat2(RENAME_EXCHANGE) and the
# old file removed under the temporary name, never rename()d over it: on ext4 a rename over an
# existing file is a "replace-via-rename" (auto_da_alloc), and rename() itself then allocates
# and starts writing back every page of the new file (1.6 s of a 1 GB trace's run;
# docs/PERFORMANCE.md, "Replacing an output"). Read from strace, for a text and a gzip output;
# the replaced file must hold the new content, keep its mode, leave a hard link to the old
# content alone (as rename does) and leave no temporary file behind. A new output (no file to
# replace) is a plain rename. Skips (77) without a working strace.
source "$(dirname "$0")/lib/common.sh"

command -v strace >/dev/null || { echo "strace not installed: skipped"; exit 77; }
strace -f -qq -o /dev/null true 2>/dev/null || { echo "strace cannot trace here: skipped"; exit 77; }

log="$here/data/bench/ci_sweep_excerpts.log"
capture="$here/data/swimlane/two-runs"

# moves OUT CMD...: runs CMD under strace; prints the rename-family calls on OUT's temporary file.
moves() {
  local out=$1
  shift
  strace -f -qq -e trace=rename,renameat,renameat2,unlink,unlinkat -o "$tmp/trace" "$@" \
    >/dev/null 2>"$tmp/err" || [ $? -eq 1 ] || bad "$* failed: $(cat "$tmp/err")"
  grep -F "/.$(basename "$out").ptune-tmp-" "$tmp/trace" | sed -E 's/^[0-9]+ +//'
}

# replaced OUT CMD...: OUT exists; the new output must be swapped in and the old one unlinked.
replaced() {
  local out=$1 calls
  calls=$(moves "$@")
  if grep -q 'RENAME_EXCHANGE) = -1 EINVAL' <<<"$calls"; then
    echo "this filesystem has no RENAME_EXCHANGE (ptune falls back to rename): skipped"
    exit 77
  fi
  grep -q 'RENAME_EXCHANGE' <<<"$calls" || bad "$*: $out was not swapped in: $calls"
  grep -qE '^rename(at)?\(' <<<"$calls" && bad "$*: renamed over the existing $out: $calls"
  grep -qE '^unlink(at)?\(' <<<"$calls" || bad "$*: the old $out was not removed: $calls"
  ls -A "$(dirname "$out")" | grep -q ptune-tmp && bad "$*: a temporary file was left behind"
  return 0
}

mkdir "$tmp/out"
"$ptune" bench-summary "$log" >"$tmp/expected.txt" 2>/dev/null

# A new output: nothing to swap with, a plain rename.
calls=$(moves "$tmp/out/summary.txt" "$ptune" bench-summary "$log" -o "$tmp/out/summary.txt")
grep -qE '^rename(at)?\(' <<<"$calls" || bad "a new output was not renamed into place: $calls"
cmp -s "$tmp/out/summary.txt" "$tmp/expected.txt" || bad "the new output differs from stdout's"

# Replacing: the old content goes, its mode stays, a hard link keeps the old content.
printf 'old content, longer than nothing\n' >"$tmp/out/summary.txt"
chmod 640 "$tmp/out/summary.txt"
ln "$tmp/out/summary.txt" "$tmp/old-link.txt"
replaced "$tmp/out/summary.txt" "$ptune" bench-summary "$log" -o "$tmp/out/summary.txt"
cmp -s "$tmp/out/summary.txt" "$tmp/expected.txt" || bad "the replaced output differs from stdout's"
[ "$(stat -c %a "$tmp/out/summary.txt")" = 640 ] || bad "the replaced output lost its mode 640"
grep -q 'old content' "$tmp/old-link.txt" || bad "the hard link to the old output was changed"

# A trace and a gzip trace over their previous runs.
"$ptune" swimlane-merge "$capture" -o "$tmp/out/trace.json" >/dev/null 2>&1
replaced "$tmp/out/trace.json" "$ptune" swimlane-merge "$capture" -o "$tmp/out/trace.json"
"$ptune" swimlane-merge "$capture" -o "$tmp/out/trace.json.gz" >/dev/null 2>&1
replaced "$tmp/out/trace.json.gz" "$ptune" swimlane-merge "$capture" -o "$tmp/out/trace.json.gz"
gzip -t "$tmp/out/trace.json.gz" || bad "the replaced gzip trace is not a valid gzip file"
[ "$(ls -A "$tmp/out" | sort | tr '\n' ' ')" = "summary.txt trace.json trace.json.gz " ] ||
  bad "unexpected files in the output directory: $(ls -A "$tmp/out" | tr '\n' ' ')"

exit $fail
