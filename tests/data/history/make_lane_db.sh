#!/usr/bin/env bash
# Builds lane.db (README.md) from the lane fixtures of tests/data/ciresult/lane/:
#   tests/data/history/make_lane_db.sh PTUNE
set -euo pipefail
ptune=$(realpath "$1")
cd "$(dirname "$0")"  # relative paths: the database names its inputs as ../ciresult/lane/...
lane=../ciresult/lane
rm -f lane.db
db=lane.db
for i in 01 02 03 04 05 06 07 08 09 10; do
  "$ptune" history --db "$db" add "$lane/shadow/$i" --commit "c$i" --time "2026-11-${i}T01:00:00Z" >/dev/null
done
for i in 11 12 13; do
  "$ptune" history --db "$db" add "$lane/toolchain-8.2" --commit "c$i" --time "2026-11-${i}T01:00:00Z" \
    --run-id "toolchain-bridge-$i" >/dev/null
done
# Rollback-journal mode, so the goldens open it read-only (file:...?mode=ro) without a -wal.
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=DELETE'); c.close()" "$db"
