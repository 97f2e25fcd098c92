#!/usr/bin/env bash
# A history database ptune may read but not write (issue 36 item 5): `file:…?mode=ro`, a 0444
# file, a file in another user's folder. list, changes, export and show answer (exit 0), and
# nothing is created beside the file (SQLite's -wal/-shm were left behind, or the open failed
# with "attempt to write a readonly database").
# Usage: history_read_only.sh PTUNE BUILD_DIR
set -u
ptune=$(realpath "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
log=$here/data/bench/ci_sweep_excerpts.log
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/db"
chmod 755 "$tmp" "$tmp/db"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$ptune" history --db "$tmp/db/h.db" add "$log" --commit abc >/dev/null 2>&1 || bad "history add failed"
[ -e "$tmp/db/h.db-wal" ] || [ -e "$tmp/db/h.db-shm" ] && bad "the writer left a journal behind"
case_name=$("$ptune" history --db "$tmp/db/h.db" export --format csv | awk -F, 'NR == 2 {print $7}')

# reads ACTION... DB [RUNNER...]: every action exits 0 and nothing new appears beside the file.
reads() {
    local db=$1 dir=$2
    shift 2
    local before after action
    before=$(ls -A "$dir")
    for action in list changes export "show $case_name"; do
        # shellcheck disable=SC2086
        timeout 20 "$@" "$ptune" history --db "$db" $action >/dev/null 2>"$tmp/err" ||
            bad "$action on $db (${*:-as the owner}): $(cat "$tmp/err")"
    done
    after=$(ls -A "$dir")
    [ "$before" = "$after" ] || bad "files left beside $db: $(comm -13 <(echo "$before") <(echo "$after"))"
}

reads "file:$tmp/db/h.db?mode=ro" "$tmp/db"
chmod 444 "$tmp/db/h.db"
reads "$tmp/db/h.db" "$tmp/db"
chmod 644 "$tmp/db/h.db"

# Another user's folder: the database readable, the folder not writable for that user.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    reads "$tmp/db/h.db" "$tmp/db" setpriv --reuid=nobody --regid=nogroup --clear-groups
else
    echo "SKIP: another user's folder (needs root and setpriv)"
fi
exit $fail
