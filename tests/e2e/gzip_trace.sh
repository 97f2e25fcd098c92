#!/usr/bin/env bash
# `swimlane-merge -o x.json.gz` (src/core/gzip_writer.cpp): a trace of several MiB, compressed in
# parallel blocks, is ONE gzip member that gzip -t, zcat and Python's gzip read back to exactly
# the plain JSON trace, and that zlib's single-member reader (what Perfetto uses) reads whole.
set -eu
ptune=$1
build_dir=$2
gen=$build_dir/tools/swimlane_gen
[ -x "$gen" ] || exit 77
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$gen" --tasks 20000 --out "$scratch/capture" >/dev/null
"$ptune" swimlane-merge "$scratch/capture" -o "$scratch/trace.json" >/dev/null
"$ptune" swimlane-merge "$scratch/capture" -o "$scratch/trace.json.gz" >/dev/null
plain_size=$(stat -c %s "$scratch/trace.json")
echo "plain JSON: $plain_size bytes, gzip: $(stat -c %s "$scratch/trace.json.gz") bytes"
[ "$plain_size" -gt $((3 * 1024 * 1024)) ] || { echo "FAIL: trace too small to span blocks"; exit 1; }
gzip -t "$scratch/trace.json.gz"
zcat "$scratch/trace.json.gz" | cmp - "$scratch/trace.json"
python3 - "$scratch/trace.json.gz" "$scratch/trace.json" <<'PY'
import gzip, sys, zlib
packed = open(sys.argv[1], "rb").read()
plain = open(sys.argv[2], "rb").read()
assert gzip.decompress(packed) == plain, "Python gzip content differs"
# One member: a single zlib gzip stream consumes the whole file and leaves nothing unused.
inflater = zlib.decompressobj(16 + 15)
assert inflater.decompress(packed) == plain, "the first gzip member is not the whole trace"
assert inflater.eof and inflater.unused_data == b"", "more than one gzip member"
# Within 10 % of zlib level 6 (libdeflate level 5, issue #23) and at least 8x smaller than the
# JSON.
level6 = len(zlib.compress(plain, 6))
assert len(packed) <= 1.10 * level6, f"{len(packed)} bytes against zlib -6 {level6}"
assert 8 * len(packed) <= len(plain), f"{len(packed)} bytes for {len(plain)} of JSON"
print("ok: single member,", len(packed), "bytes, zlib -6", level6)
PY
