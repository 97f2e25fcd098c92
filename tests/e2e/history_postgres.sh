#!/usr/bin/env bash
# The PostgreSQL backend of `ptune history` against a real, throwaway local server: initdb in a
# temporary directory, the server on a unix socket in that directory only (no TCP port), run
# as an unprivileged user when the test runs as root (initdb refuses root). Checks the issue's
# scenario, idempotent and refused re-adds, immutability, concurrent writers, bench-gate
# --history, a newer schema, and that SQLite and PostgreSQL give the same export and changes.
# Skips (exit 77, with the reason) only when the server binaries are not installed.
set -euo pipefail
ptune=$(realpath "$1")
build=$(realpath "$2")

source "$(dirname "$0")/lib/postgres.sh"

source "$(dirname "$0")/lib/history.sh"

# The issue's history, on both backends: same changes, same export.
make_sixty "$tmp"
add_sixty "$url" "$tmp"
add_sixty "$tmp/h.db" "$tmp"
"$ptune" history --db "$url" changes --format json >"$tmp/pg-changes.json"
check_sixty_changes "$tmp/pg-changes.json"
"$ptune" history --db "$tmp/h.db" changes --format json >"$tmp/sqlite-changes.json"
cmp "$tmp/pg-changes.json" "$tmp/sqlite-changes.json"
"$ptune" history --db "$url" export --format csv >"$tmp/pg.csv"
"$ptune" history --db "$tmp/h.db" export --format csv >"$tmp/sqlite.csv"
cmp "$tmp/pg.csv" "$tmp/sqlite.csv"
[ "$(wc -l <"$tmp/pg.csv")" = 121 ]
echo "SQLite and PostgreSQL agree: changes and export"

# The same run again is idempotent; the same --run-id with other results is refused.
expect 0 "$ptune" history --db "$url" add "$tmp/runs/run-00001.log" --commit c001 --branch main \
  --toolchain cann-8.1 --time "@$((1767225600 + 3600))"
grep -q "already recorded as run 1" "$tmp/out"
expect 0 "$ptune" history --db "$url" add "$tmp/runs/run-00002.log" --commit x --run-id ci-7
expect 2 "$ptune" history --db "$url" add "$tmp/runs/run-00003.log" --commit x --run-id ci-7
grep -q "immutable" "$tmp/err"
[ "$(psql -c 'SELECT count(*) FROM ptune_runs')" = 61 ]

# Recorded results are immutable on the server too.
if psql -c "UPDATE ptune_results SET value_us = 1" 2>"$tmp/err"; then
  echo "FAIL: UPDATE of a recorded result succeeded"; exit 1
fi
grep -q "immutable" "$tmp/err"
if psql -c "DELETE FROM ptune_runs" 2>/dev/null; then echo "FAIL: DELETE succeeded"; exit 1; fi

# Two writers at once.
two_writers "$url" "$tmp/runs/run-00005.log" 50
[ "$(psql -c 'SELECT count(*) FROM ptune_runs')" = 161 ]
echo "concurrent adds: 100 more runs"

# Four processes adding the same run at once: adding is idempotent, every one exits 0 and the
# run is recorded once (one used to exit 2 "another process recorded the same run key").
for trial in 1 2 3 4 5; do
  for k in 1 2 3 4; do
    "$ptune" history --db "$url" add "$tmp/runs/run-00006.log" --commit same --run-id "same-$trial" \
      >/dev/null 2>"$tmp/same-$k.err" &
  done
  for job in $(jobs -p); do
    wait "$job" || { echo "FAIL: a concurrent add of the same run failed: $(cat "$tmp"/same-*.err)"; exit 1; }
  done
done
[ "$(psql -c 'SELECT count(*) FROM ptune_runs')" = 166 ]
echo "concurrent adds of one run: idempotent"

# bench-gate --history against the server (a new database with just the 60 runs).
"$pgbin/createdb" -h "$sock" -U ptune gate
gate_url="postgresql://ptune@/gate?host=$sock"
add_sixty "$gate_url" "$tmp"
expect 1 "$ptune" bench-gate --history "$gate_url" --current "$tmp/stable10.log"
expect 0 "$ptune" bench-gate --history "$gate_url" --current "$tmp/noisy6.log"
echo "bench-gate --history: +10 % stable fails, +6 % noisy passes"

# A newer schema than this ptune knows: refused, nothing changed; a server that is not
# there: a clear error.
psql -c "UPDATE ptune_meta SET value = '99' WHERE key = 'schema_version'"
expect 2 "$ptune" history --db "$url" list
grep -q "schema version 99, newer" "$tmp/err"
expect 2 "$ptune" history --db "postgresql://ptune@/nosuchdb?host=$sock" list
grep -q "cannot connect" "$tmp/err"
echo "PostgreSQL backend: ok"
