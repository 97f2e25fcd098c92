#!/usr/bin/env bash
# Builds the generated malformed inputs (too big or too many to keep in git) into OUT_DIR and
# writes OUT_DIR/cases.tsv in the format of tests/malformed/cases.tsv ({gen} = OUT_DIR).
# Deterministic: the same inputs on every run.
# Usage: generate.sh OUT_DIR
set -eu  # no pipefail: `yes | head` ends `yes` with SIGPIPE by design
out=$1
here="$(cd "$(dirname "$0")" && pwd)"
tests="$(dirname "$here")"
cases="$out/cases.tsv"
: >"$cases"
add() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$cases"; }

strace_log="$tests/data/bench/composed/l2_strace_w2_r6.log"
l3_log="$tests/data/bench/composed/l3_strace_2ranks_2disp_w1_r3.log"
report="$tests/data/bench/pypto-lib__commit65f3477b__l3_rank_slot_report.txt"
mkdir -p "$out/bench" "$out/rules" "$out/swimlane"

# Deeply nested JSON: 100,000 levels of arrays and of objects.
nested() {  # nested OPEN CLOSE FILE
  { head -c 100000 /dev/zero | tr '\0' "$1"; head -c 100000 /dev/zero | tr '\0' "$2"; } >"$3"
}
nested '[' ']' "$out/bench/nested_arrays.json"
add bench-nested-arrays-100k error "{gen}/bench/nested_arrays.json" "bench-summary {gen}/bench/nested_arrays.json"
{ printf '{"cases": '; head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; printf '}'; } \
  >"$out/bench/nested_cases.json"
add bench-nested-cases-100k survive - "bench-summary {gen}/bench/nested_cases.json"
{ printf '{"rules": [{"id": "team.deep", "params": '
  yes '{"a":' | head -n 100000 | tr -d '\n'; printf '1'; head -c 100000 /dev/zero | tr '\0' '}'
  printf '}]}'; } >"$out/rules/nested_params.json"
add rules-nested-objects-100k error "{gen}/rules/nested_params.json" "rules list --rules {gen}/rules/nested_params.json"
{ printf '{"rules": [{"id": "team.deep", "subject": "run", "title": "t", "advice": "a", "condition": "'
  head -c 100000 /dev/zero | tr '\0' '('; printf '1'; head -c 100000 /dev/zero | tr '\0' ')'; printf '"}]}'; } \
  >"$out/rules/condition_100k_parentheses.json"
add rules-condition-100k-parentheses error "{gen}/rules/condition_100k_parentheses.json|nested deeper" \
  "rules list --rules {gen}/rules/condition_100k_parentheses.json"
{ printf '{"rules": [{"id": "team.long", "subject": "run", "title": "t", "advice": "a", "condition": "1'
  yes ' + 1' | head -n 100000 | tr -d '\n'
  printf '"}]}'; } >"$out/rules/condition_100k_terms.json"
add rules-condition-100k-terms error "{gen}/rules/condition_100k_terms.json|nested deeper" \
  "rules list --rules {gen}/rules/condition_100k_terms.json"

# Lines of several megabytes: an 8 MiB line before a good report (kept whole), and a 70 MiB
# line, past the 64 MiB line limit (cut with a warning, the report after it still read).
{ head -c $((8 << 20)) /dev/zero | tr '\0' 'x'; printf '\n'; cat "$report"; } >"$out/bench/line_8MiB.log"
add bench-line-8MiB ok - "bench-summary {gen}/bench/line_8MiB.log"
{ printf '[RUN] '; head -c $((70 << 20)) /dev/zero | tr '\0' 'y'; printf '\n'; cat "$report"; } \
  >"$out/bench/line_70MiB.log"
add bench-line-70MiB partial "{gen}/bench/line_70MiB.log:1|line too long" "bench-summary {gen}/bench/line_70MiB.log"

# Only NUL bytes; pseudo-random binary (fixed seed).
head -c 65536 /dev/zero >"$out/bench/nul_only.log"
add bench-nul-only error "{gen}/bench/nul_only.log|binary file" "bench-summary {gen}/bench/nul_only.log"
LC_ALL=C awk 'BEGIN { srand(11); for (i = 0; i < 65536; i++) printf "%c", int(rand() * 256) }' \
  >"$out/bench/random.log"
add bench-random-binary survive - "bench-summary {gen}/bench/random.log"

# Truncated at every line of a report and at launch-group boundaries of [STRACE] logs (every
# one, or 12 spread over the log when it has more), on the boundary and inside its line.
lines=$(wc -l <"$report")
for n in $(seq 1 "$lines"); do
  head -n "$n" "$report" >"$out/bench/report_head_$n.log"
  add "bench-report-cut-line-$n" survive - "bench-summary {gen}/bench/report_head_$n.log"
done
for log in "$strace_log" "$l3_log"; do
  base=$(basename "$log" .log)
  # Line numbers where a new (pid, inv) launch group starts.
  for n in $(awk 'match($0, /pid=[0-9]+ tid=[0-9]+ inv=[0-9]+/) {
                     key = substr($0, RSTART, RLENGTH); sub(/ tid=[0-9]+/, "", key)
                     if (key != last) print NR; last = key }' "$log" |
             awk '{ all[NR] = $0 } END { step = int((NR + 11) / 12); for (i = 1; i <= NR; i += step) print all[i] }'); do
    head -n $((n - 1)) "$log" >"$out/bench/${base}_before_$n.log"
    add "bench-strace-$base-group-$n" survive - "bench-summary --warmup 1 --rounds 3 {gen}/bench/${base}_before_$n.log"
    { head -n $((n - 1)) "$log"; sed -n "${n}p" "$log" | head -c 90; } >"$out/bench/${base}_torn_$n.log"
    add "bench-strace-$base-torn-$n" survive - "bench-summary --warmup 1 --rounds 3 {gen}/bench/${base}_torn_$n.log"
  done
done

# Byte flips: 24 copies of a log, each with 16 bytes replaced at pseudo-random places.
size=$(wc -c <"$l3_log")
for copy in $(seq 1 24); do
  file="$out/bench/flipped_$copy.log"
  cp "$l3_log" "$file"
  awk -v seed="$copy" -v size="$size" 'BEGIN { srand(seed); for (i = 0; i < 16; i++)
       printf "%d %d\n", int(rand() * size), int(rand() * 256) }' |
    while read -r offset byte; do
      printf "$(printf '\\%03o' "$byte")" | dd of="$file" bs=1 seek="$offset" conv=notrunc status=none
    done
  add "bench-byte-flips-$copy" survive - "bench-summary --distributed --warmup 1 --rounds 3 {gen}/bench/flipped_$copy.log"
done

# Other parsers: 100,000-level nested JSON as swimlane records, deps.json and a name map; a
# 2 MiB perf hint entry.
swimlane="$tests/data/swimlane"
mkdir -p "$out/swimlane/records" "$out/swimlane/names" "$out/hints"
nested '[' ']' "$out/swimlane/records/chip_swimlane_records.json"
add swimlane-records-nested-100k error "{gen}/swimlane/records/chip_swimlane_records.json" \
  "swimlane-merge --format text {gen}/swimlane/records/chip_swimlane_records.json"
{ printf '{"tasks": [], "edges": '; head -c 100000 /dev/zero | tr '\0' '['
  head -c 100000 /dev/zero | tr '\0' ']'; printf '}'; } >"$out/swimlane/deps_nested.json"
add swimlane-deps-nested-100k survive - \
  "swimlane-merge --format text $swimlane/chip_swimlane_records.json --deps {gen}/swimlane/deps_nested.json"
{ printf '{"callable_id_to_name": '; yes '{"a":' | head -n 100000 | tr -d '\n'; printf '1'
  head -c 100000 /dev/zero | tr '\0' '}'; printf '}'; } >"$out/swimlane/names/name_map_nested.json"
add swimlane-name-map-nested-100k result - \
  "swimlane-merge --format text $swimlane/chip_swimlane_records.json --deps $swimlane/deps.json --names {gen}/swimlane/names/name_map_nested.json"
{ printf '[perf_hint PH001] TileInnermostDimGranularity: '; head -c $((2 << 20)) /dev/zero | tr '\0' 'm'
  printf ' at a.py:1:1\n'; } >"$out/hints/entry_2MiB.log"
add hints-entry-2MiB survive - "hints-lint --format sarif {gen}/hints/entry_2MiB.log"

# UTF-16 text, as Windows PowerShell's `>` writes a command's output (little-endian after a byte
# order mark), and big-endian: refused at line 1 with the conversion to run, whether the reader
# streams the file (a log, a records file) or reads it whole (a rules file).
mkdir -p "$out/utf16"
{ printf '\377\376'; iconv -f UTF-8 -t UTF-16LE "$strace_log"; } >"$out/utf16/run.log"
add utf16-bench-log error "{gen}/utf16/run.log:1: UTF-16 text|iconv -f UTF-16 -t UTF-8" \
  "bench-summary {gen}/utf16/run.log"
{ printf '\376\377'; iconv -f UTF-8 -t UTF-16BE "$swimlane/chip_swimlane_records.json"; } \
  >"$out/utf16/chip_swimlane_records.json"
add utf16be-swimlane-records error "{gen}/utf16/chip_swimlane_records.json:1: UTF-16 text" \
  "swimlane-analyze {gen}/utf16/chip_swimlane_records.json"
{ printf '\377\376'; iconv -f UTF-8 -t UTF-16LE "$tests/data/hints/composed__a2a3_v2_ph001.perf_hints.log"; } \
  >"$out/utf16/perf_hints.log"
add utf16-hints-log error "{gen}/utf16/perf_hints.log:1: error: UTF-16 text" \
  "hints-lint {gen}/utf16/perf_hints.log"
printf '{"rules": []}\n' | { printf '\377\376'; iconv -f UTF-8 -t UTF-16LE; } >"$out/utf16/rules.json"
add utf16-rules-file error "{gen}/utf16/rules.json:1: UTF-16 text" "rules list --rules {gen}/utf16/rules.json"
