#!/usr/bin/env bash
# Regenerates tests/data/history/ (the golden CLI tests' databases and current runs) from the
# issue's synthetic 60-run history (tools/history_synth, fixed seed): tools/history_make_testdata.sh
# BUILD_DIR. The databases are stored in rollback-journal mode so that the goldens can open them
# read-only (`file:...?mode=ro`) without -wal/-shm files; the README there says what each is.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
out="$(cd "$(dirname "$0")/.." && pwd)/tests/data/history"
ptune=$build/ptune
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../tests/e2e/lib/history.sh
source "$(dirname "$0")/../tests/e2e/lib/history.sh"
mkdir -p "$out"
make_sixty "$tmp"
cp "$tmp/stable10.log" "$tmp/noisy6.log" "$out/"
rm -f "$out/sixty.db"
(cd "$tmp" && add_sixty "$out/sixty.db" .)   # relative input paths in the database
"$ptune" history --db "$out/sixty.db" changes >/dev/null   # cache the change points
sqlite3 "$out/sixty.db" 'PRAGMA journal_mode = DELETE; VACUUM;' >/dev/null
# A newer schema than ptune knows, another program's database, a damaged file.
cp "$out/sixty.db" "$out/newer.db"
sqlite3 "$out/newer.db" "UPDATE ptune_meta SET value = '3' WHERE key = 'schema_version'"
rm -f "$out/foreign.db"
sqlite3 "$out/foreign.db" 'CREATE TABLE accounts (id INTEGER, owner TEXT); INSERT INTO accounts VALUES (1, "x")'
head -c 4096 "$out/sixty.db" >"$out/damaged.db"
printf 'not a database at all\n' >"$out/text.db"
