#!/usr/bin/env bash
# Inputs under a directory whose name is not UTF-8 (a Latin-1 byte, as an old tarball or a
# mounted share leaves them): every command that writes the path into its output (the trace's
# provenance, JSON reports, SARIF) exits as it would elsewhere and writes valid UTF-8, the byte
# as U+FFFD (JSON) or %FF (a SARIF URI). swimlane-merge once stopped with exit 3 here: nlohmann's
# dump() throws on invalid UTF-8.
# Usage: non_utf8_paths.sh PTUNE BUILD_DIR
source "$(dirname "$0")/lib/common.sh" "$1"
dir="$tmp/run_$(printf '\xff')"
mkdir -p "$dir"
cp "$here/data/swimlane/chip_swimlane_records.json" "$dir/"
cp "$here/data/hints/composed__a2a3_v2_ph001.perf_hints.log" "$dir/perf_hints.log"
# (its hints name the log itself as their file: a SARIF location with the directory in it)
cp "$here/data/hints/composed__pseudo_files.perf_hints.log" "$dir/pseudo.perf_hints.log"

valid_json() {  # FILE: one JSON document in UTF-8
    python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$1"
}

"$ptune" swimlane-merge "$dir/chip_swimlane_records.json" -o "$tmp/trace.json" >/dev/null 2>"$tmp/err"
code=$?
[ $code -eq 0 ] || bad "swimlane-merge exit $code: $(head -c 300 "$tmp/err")"
valid_json "$tmp/trace.json" || bad "the trace is not valid UTF-8 JSON"
python3 - "$tmp/trace.json" <<'PY' || bad "the trace's provenance does not name the input with U+FFFD"
import json, sys
sources = json.load(open(sys.argv[1], encoding="utf-8"))["otherData"]["sources"]
assert any("run_\ufffd" in json.dumps(s, ensure_ascii=False) for s in sources), sources
PY

"$ptune" swimlane-merge "$dir/chip_swimlane_records.json" -o "$tmp/trace.json.gz" >/dev/null 2>"$tmp/err"
code=$?
[ $code -eq 0 ] || bad "swimlane-merge to .json.gz exit $code: $(head -c 300 "$tmp/err")"
gzip -dc "$tmp/trace.json.gz" >"$tmp/unzipped.json" && cmp -s "$tmp/unzipped.json" "$tmp/trace.json" ||
    bad "the .json.gz trace is not the JSON trace"

for command in "swimlane-analyze $dir/chip_swimlane_records.json --format json" \
    "hints-lint $dir/perf_hints.log --format json" "advise $dir --format json"; do
    # shellcheck disable=SC2086
    "$ptune" $command >"$tmp/out.json" 2>"$tmp/err"
    code=$?
    [ $code -le 1 ] || bad "$command: exit $code: $(head -c 300 "$tmp/err")"
    valid_json "$tmp/out.json" || bad "$command: not valid UTF-8 JSON"
done

"$ptune" hints-lint "$dir/pseudo.perf_hints.log" --format sarif >"$tmp/out.sarif" 2>/dev/null
valid_json "$tmp/out.sarif" || bad "hints-lint --format sarif: not valid UTF-8 JSON"
grep -q 'run_%FF/pseudo.perf_hints.log"' "$tmp/out.sarif" || bad "the SARIF URI does not escape the byte"
exit $fail
