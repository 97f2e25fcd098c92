#!/usr/bin/env bash
# An output file is written to a new temporary file beside it and renamed over it
# (io::AtomicOutput). That file is opened without O_TRUNC: on ext4 a truncation to zero marks
# it for "auto_da_alloc", and its close() then writes every dirty page back at once — 0.3 s of
# a 1 GB swimlane trace's 2 s, for a file the kernel would otherwise write back in its own time
# (docs/PERFORMANCE.md, "Writing a large file"). Read from strace: every open of the temporary
# file, by three commands and two output kinds. Skips (77) without a working strace.
source "$(dirname "$0")/lib/common.sh"

command -v strace >/dev/null || { echo "strace not installed: skipped"; exit 77; }
strace -f -qq -o /dev/null true 2>/dev/null || { echo "strace cannot trace here: skipped"; exit 77; }

# opens OUT CMD...: runs CMD under strace; prints the flags of every open of OUT's temporary file.
opens() {
  local out=$1
  shift
  strace -f -qq -e trace=open,openat -o "$tmp/trace" "$@" >/dev/null 2>"$tmp/err" ||
    [ $? -eq 1 ] || bad "$* failed: $(cat "$tmp/err")"
  grep -F "/.$(basename "$out").ptune-tmp-" "$tmp/trace" | sed -E 's/.*"[^"]*", ([A-Z_|]+).*/\1/'
}

check() {  # check OUT CMD...
  local out=$1 flags
  flags=$(opens "$@")
  [ -n "$flags" ] || bad "$*: no temporary file opened for $out (the check would be void)"
  grep -q O_TRUNC <<<"$flags" && bad "$*: the temporary file was opened with O_TRUNC: $(tr '\n' ' ' <<<"$flags")"
  [ -s "$out" ] || bad "$*: $out was not written"
}

log="$here/data/bench/ci_sweep_excerpts.log"
capture="$here/data/swimlane/two-runs"
check "$tmp/summary.txt" "$ptune" bench-summary "$log" -o "$tmp/summary.txt"
check "$tmp/trace.json" "$ptune" swimlane-merge "$capture" -o "$tmp/trace.json"
check "$tmp/trace.json.gz" "$ptune" swimlane-merge "$capture" -o "$tmp/trace.json.gz"
# Replacing a file that exists: the same, and the new content replaces the old.
printf 'old content, longer than nothing\n' >"$tmp/summary.txt"
check "$tmp/summary.txt" "$ptune" bench-summary "$log" -o "$tmp/summary.txt"
"$ptune" bench-summary "$log" >"$tmp/stdout.txt" 2>/dev/null
cmp -s "$tmp/summary.txt" "$tmp/stdout.txt" || bad "the replaced output differs from stdout's"

exit $fail
