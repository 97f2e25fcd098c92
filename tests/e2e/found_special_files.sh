#!/usr/bin/env bash
# Files that discovery finds by itself and that are FIFOs or devices, named inputs that are, the
# step summary on a device, and outputs over files a command would read next time (issue 36,
# the items left after special_outputs_and_sides.sh; docs/RELIABILITY.md "Every path each
# command opens"):
# - a primary input found in a directory (scope_stats.jsonl, a bench directory's *.log) that is
#   a FIFO or a /dev/zero link: named, exit 2, as a named one (it was "missing" / skipped);
# - an optional side file found beside a capture (host logs, dispatch_identity.json,
#   host_phase_records.jsonl, kernel_config.py; an L3 tree's root host logs): named in a
#   warning, never opened (it was skipped in silence), as a found deps.json or name map is;
#   so is a kernel source hints-lint reads for `# ptune: ignore` comments;
# - advise --log / --baseline FIFO: exit 2 (it warned and went on);
# - GITHUB_STEP_SUMMARY at /dev/zero: refused, exit 2 (written through in silence);
# - -o over a file the command's discovery takes as an input but did not read this time: exit 2.
# Usage: found_special_files.sh PTUNE BUILD_DIR
source "$(dirname "$0")/lib/special_files.sh" "$1"
data=$here/data
log=$data/bench/ci_sweep_excerpts.log
records=$data/swimlane/chip_swimlane_records.json
unset GITHUB_STEP_SUMMARY

# named WHAT PATTERN: stderr of the last run holds PATTERN (grep -E).
named() { grep -Eq "$2" err || bad "$1 not named: $(head -c 600 err)"; }

# 1. scope_stats.jsonl found under a directory, a FIFO or a link to /dev/zero: exit 2 naming it.
for kind in fifo zero; do
    mkdir -p "scope-$kind/run/scope_stats"
    if [ $kind = fifo ]; then
        mkfifo "scope-$kind/run/scope_stats/scope_stats.jsonl"
    else
        ln -s /dev/zero "scope-$kind/run/scope_stats/scope_stats.jsonl"
    fi
    expect 2 "scope-stats on a directory with a $kind scope_stats.jsonl" "$ptune" scope-stats "scope-$kind/run"
    named "a $kind scope_stats.jsonl" "scope_stats/scope_stats.jsonl: (is a FIFO|is a character device)"
done

# 2. Found side files that are FIFOs: named in a warning, the run goes on as without them.
mkdir cap
cp "$records" cap/
mkfifo cap/host.4242.log cap/dispatch_identity.json cap/host_phase_records.jsonl cap/kernel_config.py
expect 0 "swimlane-merge with FIFO side files" "$ptune" swimlane-merge cap -o cap-trace.json
named "a FIFO host log beside a capture" "cap/host.4242.log: warning: .*is a FIFO"
named "a FIFO dispatch_identity.json beside a capture" "cap/dispatch_identity.json: warning: .*is a FIFO"
named "a FIFO host_phase_records.jsonl beside a capture" "cap/host_phase_records.jsonl: warning: .*is a FIFO"
named "a FIFO kernel_config.py beside a capture" "cap/kernel_config.py: warning: .*is a FIFO"
timeout 20 "$ptune" swimlane-analyze cap >out 2>err
code=$?
[ "$code" = 0 ] || [ "$code" = 1 ] || bad "swimlane-analyze with FIFO side files: exit $code: $(head -c 400 err)"
named "swimlane-analyze: a FIFO host log" "cap/host.4242.log: warning: .*is a FIFO"

# An L3 tree's root host log that is a FIFO (--dispatch reads the root's logs): named, the
# other log still places the ranks.
cp -r "$data/l3/l3_two_rank" l3
mkfifo l3/dfx_outputs/host.1.log l3/dfx_outputs/rank1/d0/host_clock_alignment.9.log
expect 0 "swimlane-merge --dispatch with a FIFO root host log" \
    "$ptune" swimlane-merge l3/dfx_outputs --dispatch d0 -o l3.json
named "a FIFO root host log of an L3 tree" "dfx_outputs/host.1.log: warning: .*is a FIFO"
named "a FIFO rank<N>/d<K> alignment log" "rank1/d0/host_clock_alignment.9.log: warning: .*is a FIFO"
# Without --dispatch each capture reads the host logs beside it.
expect 0 "swimlane-merge of an L3 tree with a FIFO alignment log in a capture" \
    "$ptune" swimlane-merge l3/dfx_outputs -o l3-each.json
named "a FIFO alignment log beside an L3 capture" "rank1/d0/host_clock_alignment.9.log: warning: .*is a FIFO"
rm l3/dfx_outputs/host.1.log l3/dfx_outputs/rank1/d0/host_clock_alignment.9.log

# A FIFO *.log in a bench directory: an input, exit 2 naming it (it was skipped).
mkdir bench
cp "$log" bench/
mkfifo bench/other.log
expect 2 "bench-summary on a directory with a FIFO .log" "$ptune" bench-summary bench
named "a FIFO .log in a bench directory" "bench/other.log: is a FIFO"
expect 2 "bench-gate -c a directory with a FIFO .log" "$ptune" bench-gate -b "$log" -c bench
rm bench/other.log
ln -s /dev/zero bench/zero.log
expect 2 "bench-summary on a directory with a /dev/zero .log" "$ptune" bench-summary bench
named "a /dev/zero .log in a bench directory" "bench/zero.log: is a character device"
rm bench/zero.log
# host_phase_records.jsonl there is an optional side file: a warning naming it.
mkfifo bench/host_phase_records.jsonl
expect 0 "bench-summary on a directory with a FIFO host_phase_records.jsonl" "$ptune" bench-summary bench
named "a FIFO host_phase_records.jsonl in a bench directory" \
    "bench/host_phase_records.jsonl: warning: is a FIFO"
rm bench/host_phase_records.jsonl

# A kernel source that hints point at, a FIFO: named (its suppressions are lost), never opened.
mkdir -p hl/k
mkfifo hl/k/attn.py
printf '%s\n' "[perf_hint PH001] TileInnermostDimGranularity: tile.load has innermost dim = 128B (tile fp32[32], target_memory=Vec); moves 2048B as 16 x 128B rows; recommended >= 512B for backend a2a3 (L2 cache line = 512B). Consider increasing tile shape on the innermost axis. at k/attn.py:5:9" >hl/perf_hints.log
timeout 20 "$ptune" hints-lint --root hl hl/perf_hints.log >out 2>err
code=$?
[ "$code" = 1 ] || bad "hints-lint with a FIFO kernel source: exit $code (want 1, one hint): $(head -c 400 err)"
named "a FIFO kernel source of hints-lint" "k/attn.py: warning: is a FIFO.*ptune: ignore"

# advise's inventory: a core swimlane trace that is a FIFO is refused by name, exit 2, never read.
cp -r "$data/pipetrace/advise-run" advfifo
trace=$(find advfifo -name '*_trace_perfetto.json' | head -1)
rm "$trace" && mkfifo "$trace"
expect 2 "advise with a FIFO core swimlane trace" "$ptune" advise advfifo/QkvRun_20261201_120000
named "advise: a FIFO core swimlane trace" "_trace_perfetto.json: error: pipe-trace artifact is a FIFO"

# 3. advise --log / --baseline naming a FIFO: exit 2 at once, as every named FIFO.
cp -r "$here/../examples/build_output_2608" adv
mkfifo adv.log
expect 2 "advise --log FIFO" "$ptune" advise adv --log adv.log
named "advise --log FIFO" "adv.log: is a FIFO"
expect 2 "advise --log NAME=FIFO" "$ptune" advise adv --log run=adv.log
expect 2 "advise --baseline FIFO" "$ptune" advise adv --log "$log" --baseline adv.log
named "advise --baseline FIFO" "adv.log: is a FIFO"

# 4. GITHUB_STEP_SUMMARY at /dev/zero (or a link to it): refused; /dev/null is a discard.
ln -s /dev/zero summary-link
timeout 20 "$ptune" bench-gate -b "$log" -c "$log" >/dev/null 2>&1
as_without=$?
for summary in /dev/zero "$tmp/summary-link"; do
    GITHUB_STEP_SUMMARY=$summary expect 2 "GITHUB_STEP_SUMMARY=$summary" \
        "$ptune" bench-gate -b "$log" -c "$log"
    named "GITHUB_STEP_SUMMARY=$summary" "GITHUB_STEP_SUMMARY is a character device"
done
GITHUB_STEP_SUMMARY=/dev/null expect "$as_without" "GITHUB_STEP_SUMMARY=/dev/null" \
    "$ptune" bench-gate -b "$log" -c "$log"
GITHUB_STEP_SUMMARY=$tmp/summary.md expect "$as_without" "GITHUB_STEP_SUMMARY a new file" \
    "$ptune" bench-gate -b "$log" -c "$log"
grep -q "## bench-gate" summary.md || bad "the step summary file was not written"
# The runner makes the file (empty) before the step, and earlier steps append to it: ptune
# appends too — it was read, so the write over it was refused, exit 2, every gate in CI.
: >runner-summary.md
inode=$(stat -c %i runner-summary.md)
GITHUB_STEP_SUMMARY=$tmp/runner-summary.md expect "$as_without" "GITHUB_STEP_SUMMARY the runner's empty file" \
    "$ptune" bench-gate -b "$log" -c "$log"
printf 'earlier step' >>runner-summary.md
GITHUB_STEP_SUMMARY=$tmp/runner-summary.md expect "$as_without" "GITHUB_STEP_SUMMARY after an earlier step" \
    "$ptune" bench-gate -b "$log" -c "$log"
[ "$(grep -c '^## bench-gate$' runner-summary.md)" = 2 ] || bad "two gates did not append two sections: $(head -c 300 runner-summary.md)"
grep -q '^earlier step$' runner-summary.md || bad "an earlier step's text was lost or joined to the heading"
[ "$(stat -c %i runner-summary.md)" = "$inode" ] || bad "the step summary was replaced, not appended to"
# Still never an input: a summary pointing at the baseline is refused, the baseline intact.
cp "$log" base.log
before=$(cksum <base.log)
GITHUB_STEP_SUMMARY=$tmp/base.log expect 2 "GITHUB_STEP_SUMMARY at the baseline" "$ptune" bench-gate -b base.log -c "$log"
[ "$(cksum <base.log)" = "$before" ] || bad "the baseline was written to as the step summary"

# 5. -o over a file discovery takes as an input, though this run did not read it: refused.
# swimlane-merge reads the alignment log, not host.<pid>.log, when both are there.
mkdir run
cp "$records" run/
echo "host log text" >run/host.4242.log
echo "alignment log text" >run/host_clock_alignment.4242.log
before=$(cksum <run/host.4242.log)
expect 2 "swimlane-merge -o over the host log not read" "$ptune" swimlane-merge run -o run/host.4242.log
[ "$(cksum <run/host.4242.log)" = "$before" ] || bad "swimlane-merge replaced run/host.4242.log"
# swimlane-analyze does not read host_phase_records.jsonl (swimlane-merge does).
cp "$data/host-run/dfx_outputs/host_phase_records.jsonl" run/
before=$(cksum <run/host_phase_records.jsonl)
expect 2 "swimlane-analyze -o over host_phase_records.jsonl" \
    "$ptune" swimlane-analyze run -o run/host_phase_records.jsonl
[ "$(cksum <run/host_phase_records.jsonl)" = "$before" ] || bad "swimlane-analyze replaced host_phase_records.jsonl"
# An L3 tree's root host log, which only --dispatch reads.
before=$(cksum <l3/dfx_outputs/host.2091377.log)
expect 2 "swimlane-analyze of an L3 tree -o over a root host log" \
    "$ptune" swimlane-analyze l3/dfx_outputs -o l3/dfx_outputs/host.2091377.log
[ "$(cksum <l3/dfx_outputs/host.2091377.log)" = "$before" ] || bad "swimlane-analyze replaced the tree's host log"
# pipe-trace reads *_trace_perfetto.json; *_trace.json beside it is the fallback.
core=core_swimlane_TestQkMatmul_case1_a2a3sim_qk_matmul_mix0_20261201_120000
cp -r "$data/pipetrace/$core" .
plain=$(ls "$core"/*_trace.json)
before=$(cksum <"$plain")
expect 2 "pipe-trace -o over the *_trace.json not read" "$ptune" pipe-trace "$core" -o "$plain"
[ "$(cksum <"$plain")" = "$before" ] || bad "pipe-trace replaced $plain"
# scope-stats stops at the first host log naming the code: the ones after it are inputs too.
cp -r "$data/scope/wedged_run" wedged
echo "a later host log" >wedged/host.9999.log
before=$(cksum <wedged/host.9999.log)
expect 2 "scope-stats -o over a host log after the one read" \
    "$ptune" scope-stats wedged -o wedged/host.9999.log
[ "$(cksum <wedged/host.9999.log)" = "$before" ] || bad "scope-stats replaced wedged/host.9999.log"
# Daily-CI folders: a case's raw-result.json that is a FIFO is the run's data (exit 2, named);
# a FIFO run.log or perf_cases.json is an optional side file (a warning naming it).
cp -r "$data/ciresult/daily" daily
rm daily/published/l2-demo/raw-result.json
mkfifo daily/published/l2-demo/raw-result.json
expect 2 "bench-summary on a daily folder with a FIFO raw-result.json" "$ptune" bench-summary daily/published
named "a FIFO raw-result.json" "l2-demo/raw-result.json: is a FIFO"
rm daily/published/l2-demo/raw-result.json
cp "$data/ciresult/daily/published/l2-demo/raw-result.json" daily/published/l2-demo/
rm daily/published/report.md
mkfifo daily/published/report.md
expect 2 "bench-summary on a daily folder with a FIFO report.md" "$ptune" bench-summary daily/published
named "a FIFO report.md" "published/report.md: is a FIFO"
rm daily/published/report.md
cp "$data/ciresult/daily/published/report.md" daily/published/
rm daily/published/tp2-demo/run.log daily/perf_cases.json
mkfifo daily/published/tp2-demo/run.log daily/perf_cases.json
expect 0 "bench-summary on a daily folder with a FIFO run.log and perf_cases.json" "$ptune" bench-summary daily/published
named "a FIFO run.log" "tp2-demo/run.log: warning: is a FIFO"
named "a FIFO perf_cases.json" "daily/perf_cases.json: warning: is a FIFO"
# The operator suite's manifest and report.md beside its suite-result.json, FIFOs: warnings.
cp -r "$data/ciresult/suite-v2-published" suite
rm suite/operator_perf_cases.json suite/report.md
mkfifo suite/operator_perf_cases.json suite/report.md
expect 0 "bench-summary on a suite folder with a FIFO manifest and report.md" "$ptune" bench-summary suite
named "a FIFO operator manifest" "operator_perf_cases.json: warning: is a FIFO"
named "a FIFO report.md beside the suite" "suite/report.md: warning: is a FIFO"
# The published folder's submission.json and history-selection.json, FIFOs: warnings, not read.
rm suite/submission.json suite/history-selection.json
mkfifo suite/submission.json suite/history-selection.json
expect 0 "bench-summary on a suite folder with a FIFO submission.json and history-selection.json" "$ptune" bench-summary suite
named "a FIFO submission.json" "suite/submission.json: warning: is a FIFO"
named "a FIFO history-selection.json" "suite/history-selection.json: warning: is a FIFO"

# Outputs elsewhere in those folders are still written.
expect 0 "swimlane-merge -o a new file in the run" "$ptune" swimlane-merge run -o run/trace.json
[ -s run/trace.json ] || bad "swimlane-merge did not write run/trace.json"

exit $fail
