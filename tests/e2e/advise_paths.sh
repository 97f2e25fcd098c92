#!/usr/bin/env bash
# One path base in one advise report: every location a finding cites (the memory report, pmu.csv
# and the kernel source a hint names, which perf_hints.log gives relative to the run directory)
# opens from the directory the command ran in; with --absolute-paths every one is absolute.
set -u
ptune=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$here" || exit 1
for run in examples/build_output examples/build_output_2608; do
  "$ptune" advise "$run" --format json >"$out/relative.json" 2>/dev/null
  "$ptune" advise "$run" --format json --absolute-paths >"$out/absolute.json" 2>/dev/null
  python3 - "$out/relative.json" "$out/absolute.json" "$run" <<'EOF' || exit 1
import json, os, sys
def locations(path):
    data = json.load(open(path))
    found = data["findings"] + [m for f in data["findings"] for m in f.get("merged", [])]
    return [l["file"] for f in found for l in f.get("locations", [])]
relative, absolute = locations(sys.argv[1]), locations(sys.argv[2])
assert any(p.endswith(".py") for p in relative), ("no kernel-source location", sys.argv[3])
for p in relative:
    assert not os.path.isabs(p) and os.path.exists(p), ("not openable from the cwd", p)
for p in absolute:
    assert os.path.isabs(p) and os.path.exists(p), ("not an absolute existing path", p)
assert len(relative) == len(absolute)
EOF
done
echo ok
