#!/usr/bin/env bash
# Performance identity in `ptune history` end to end (upstream-2026-12.md §3, docs/HISTORY.md):
# the §3.7 walk-through on a fresh database (ten shadow attempts, the flagged candidate, the
# ABBA confirmation), a bridge at a toolchain epoch, idempotent same-identity re-adds and a new
# run for another lineage generation, and the migration of schema-1 databases of both backends
# (SQLite: a copy of tests/data/history/sixty.db; PostgreSQL: the released version-1 DDL, when
# a server is installed) whose runs keep empty parts.
set -euo pipefail
ptune=$(realpath "$1")
build=$(realpath "$2")
data=$(cd "$(dirname "$0")/../data" && pwd)
lane=$data/ciresult/lane
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/lib/history.sh"

db=$tmp/h.db
for i in 01 02 03 04 05 06 07 08 09; do
  "$ptune" -q history --db "$db" add "$lane/shadow/$i" --commit "c$i" --time "2026-11-$i" >/dev/null
done
# Nine attempts: the new lane/epoch series is in shadow, the gate does not fail.
expect 0 "$ptune" bench-gate --history "$db" --current "$lane/candidate" --threshold 2 \
  --min-delta-us 10 --metric median
grep -q "shadow (9/10)" "$tmp/out"
"$ptune" -q history --db "$db" add "$lane/shadow/10" --commit c10 --time 2026-11-10 >/dev/null
# Ten: median 544.5, MAD 2.5; 560.0 is +2.85 % and +15.5 µs, over both thresholds: flagged.
expect 1 "$ptune" bench-gate --history "$db" --current "$lane/candidate" --threshold 2 \
  --min-delta-us 10 --metric median
tr '\n' ' ' <"$tmp/out" | sed 's/  */ /g' >"$tmp/flat"
grep -q "median 544.5 µs, MAD 2.5 µs" "$tmp/flat"
grep -q "flagged: +2.85%, +15.5 µs" "$tmp/flat"
# The ABBA confirmation under the spec's proposal: confirmed (exit 1), the variant not (exit 0),
# four runs of two device epochs are no confirmation (exit 2).
abba() { local d=$1; echo "$d/1-parent" "$d/2-candidate" "$d/3-candidate" "${2:-$d}/4-parent"; }
expect 1 "$ptune" history confirm $(abba "$lane/abba-confirmed") --min-delta-us 10
grep -q "confirmed" "$tmp/out"
expect 0 "$ptune" history confirm $(abba "$lane/abba-not-confirmed") --min-delta-us 10
grep -q "not confirmed" "$tmp/out"
expect 2 "$ptune" history confirm $(abba "$lane/abba-confirmed" "$lane/abba-mixed-epoch") \
  --min-delta-us 10
grep -q "not a confirmation" "$tmp/err"
# The same four recorded in the history (run:N keeps each run's stored identity).
expect 0 "$ptune" history --db "$db" confirm run:1 run:2 run:3 run:4 --min-delta-us 10

# Same identity again: nothing added; another lineage generation: a new run, its own series.
expect 0 "$ptune" history --db "$db" add "$lane/shadow/10" --commit c10 --time 2026-11-10
cat "$tmp/out" "$tmp/err" | grep -q "already recorded"
expect 0 "$ptune" history --db "$db" add "$lane/shadow/10" --commit c10 --time 2026-11-10 \
  --lineage 2
cat "$tmp/out" "$tmp/err" | grep -q "recorded run 11"
# Run 11 is of lineage generation 2: with it the four are no confirmation.
expect 2 "$ptune" history --db "$db" confirm run:1 run:2 run:3 run:11 --min-delta-us 10
grep -q "not a confirmation: case 'attention-csa': lineage generation differs (- -> 2)" "$tmp/err"
# A toolchain upgrade is a bridge, never a delta.
"$ptune" -q history --db "$db" add "$lane/toolchain-8.2" --commit c12 --time 2026-11-12 >/dev/null
expect 0 "$ptune" history --db "$db" changes
cat "$tmp/out" "$tmp/err" | tr '\n' ' ' | sed 's/  */ /g' >"$tmp/flat"
grep -q "bridge: toolchain epoch changed (cann-8.1 -> cann-8.2)" "$tmp/flat"

# A schema-1 SQLite database: migrated by a writable open, its runs keep empty parts.
cp "$data/history/sixty.db" "$tmp/old.db"
expect 0 "$ptune" history --db "$tmp/old.db" list --format json
python3 - "$tmp/out" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert len(runs) == 60 and all(r["lane"] == "" and r["lineage"] == "" for r in runs), runs[0]
PY
"$ptune" -q history --db "$tmp/old.db" add "$lane/shadow/01" --commit c01 --time 2026-11-01 >/dev/null
python3 - "$tmp/old.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
assert c.execute("SELECT value FROM ptune_meta WHERE key='schema_version'").fetchone()[0] == "2"
assert c.execute("SELECT count(*) FROM ptune_runs WHERE lane = ''").fetchone()[0] == 60
assert c.execute("SELECT lane FROM ptune_runs WHERE id = 61").fetchone()[0] == "lib-main-attention"
PY

# PostgreSQL: the released version-1 DDL, one run in it, then ptune opens it.
rc=0
(
  source "$(dirname "$0")/lib/postgres.sh"
  psql -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE ptune_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ptune_runs (id BIGSERIAL PRIMARY KEY, run_key TEXT NOT NULL UNIQUE,
  content_digest TEXT NOT NULL, run_time TEXT NOT NULL, added_at TEXT NOT NULL,
  commit_sha TEXT NOT NULL, branch TEXT NOT NULL, toolchain TEXT NOT NULL,
  device TEXT NOT NULL, source_digest TEXT NOT NULL, labels TEXT NOT NULL, inputs TEXT NOT NULL);
CREATE INDEX ptune_runs_order ON ptune_runs (run_time, id);
CREATE TABLE ptune_cases (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE ptune_results (run_id BIGINT NOT NULL REFERENCES ptune_runs (id),
  case_id BIGINT NOT NULL REFERENCES ptune_cases (id), value_us DOUBLE PRECISION NOT NULL,
  rounds INTEGER NOT NULL, min_us DOUBLE PRECISION, median_us DOUBLE PRECISION,
  max_us DOUBLE PRECISION, origin TEXT NOT NULL, source TEXT NOT NULL,
  PRIMARY KEY (run_id, case_id));
CREATE INDEX ptune_results_case ON ptune_results (case_id, run_id);
CREATE TABLE ptune_samples (run_id BIGINT NOT NULL, case_id BIGINT NOT NULL,
  samples TEXT NOT NULL, PRIMARY KEY (run_id, case_id), FOREIGN KEY (run_id, case_id)
  REFERENCES ptune_results (run_id, case_id));
CREATE TABLE ptune_analysis (case_name TEXT NOT NULL, toolchain TEXT NOT NULL,
  device TEXT NOT NULL, params TEXT NOT NULL, analysed INTEGER NOT NULL,
  prefix_digest TEXT NOT NULL, change_points TEXT NOT NULL,
  PRIMARY KEY (case_name, toolchain, device, params));
CREATE FUNCTION ptune_immutable() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  RAISE EXCEPTION 'ptune history: recorded runs are immutable (% on %)', TG_OP, TG_TABLE_NAME;
  END $$;
CREATE TRIGGER ptune_runs_immutable BEFORE UPDATE OR DELETE ON ptune_runs
  FOR EACH ROW EXECUTE FUNCTION ptune_immutable();
CREATE TRIGGER ptune_results_immutable BEFORE UPDATE OR DELETE ON ptune_results
  FOR EACH ROW EXECUTE FUNCTION ptune_immutable();
INSERT INTO ptune_meta VALUES ('schema_version', '1'), ('application', 'ptune-history');
INSERT INTO ptune_runs (run_key, content_digest, run_time, added_at, commit_sha, branch,
  toolchain, device, source_digest, labels, inputs) VALUES ('old', 'old',
  '2026-10-01T00:00:00Z', '2026-10-01T00:00:00Z', 'c000', 'main', 'cann-8.1', 'a2a3', '',
  '{}', '[]');
INSERT INTO ptune_cases (name) VALUES ('attention-csa');
INSERT INTO ptune_results VALUES (1, 1, 530.0, 100, 529.0, 530.0, 531.0, 'report', 'x.log:1');
SQL
  expect 0 "$ptune" history --db "$url" add "$lane/shadow/01" --commit c01 --time 2026-11-01
  expect 0 "$ptune" history --db "$url" list --format json
  python3 - "$tmp/out" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert [r["lane"] for r in runs] == ["", "lib-main-attention"], runs
PY
  [ "$(psql -c "SELECT value FROM ptune_meta WHERE key = 'schema_version'")" = 2 ]
  # Two series (the old run keeps its empty parts), a bridge between them.
  expect 0 "$ptune" history --db "$url" changes
  cat "$tmp/out" "$tmp/err" | tr '\n' ' ' | sed 's/  */ /g' | grep -q "bridge: lane changed (- -> lib-main-attention)"
) || rc=$?
if [ "$rc" = 77 ]; then
  echo "PostgreSQL part skipped (no server installed); the SQLite part passed"
elif [ "$rc" != 0 ]; then
  exit "$rc"
fi
echo "history identity: OK"
