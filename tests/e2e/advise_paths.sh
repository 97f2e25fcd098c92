#!/usr/bin/env bash
# One path base in one advise report: every location a finding cites (the memory report, pmu.csv
# and the kernel source a hint names, which perf_hints.log gives relative to the run directory)
# opens from the directory the command ran in; with --absolute-paths every one is absolute.
# hints-lint cites the same kernel sources on the same base (issue 34 item 5), and from inside
# the run directory, or under --root, as the log names them.
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

run=examples/build_output/PagedAttn_20260715_103000
"$ptune" hints-lint "$run" --format json >"$out/lint.json" 2>/dev/null
"$ptune" hints-lint "$run" --format json --absolute-paths >"$out/lint-abs.json" 2>/dev/null
(cd "$run" && "$ptune" hints-lint . --format json >"$out/lint-inside.json" 2>/dev/null)
"$ptune" hints-lint "$run" --root "$run" --format json >"$out/lint-root.json" 2>/dev/null
python3 - "$out" "$run" <<'EOF' || exit 1
import json, os, sys
out, run = sys.argv[1], sys.argv[2]
def files(name):
    return [d["file"] for d in json.load(open(os.path.join(out, name)))["diagnostics"]]
relative, absolute = files("lint.json"), files("lint-abs.json")
assert relative and len(relative) == len(absolute), (relative, absolute)
for p in relative:
    assert not os.path.isabs(p) and os.path.exists(p), ("hints-lint: not openable from the cwd", p)
for p in absolute:
    assert os.path.isabs(p) and os.path.exists(p), ("hints-lint: not an absolute existing path", p)
for name in ("lint-inside.json", "lint-root.json"):
    for p in files(name):
        assert p.startswith("models/"), (name, p)
        assert os.path.exists(os.path.join(run, p)), (name, p)
EOF
echo ok
