# A throwaway PostgreSQL server for the history e2e tests (sourced): initdb in a temporary
# directory, the server on a unix socket there only (no TCP port), run as an unprivileged user
# when the test runs as root (initdb refuses root). Sets tmp, sock, pgbin, url (database perf)
# and psql(); stops the server and removes $tmp on exit. Exits 77 (skip, with the reason) when
# the server binaries are not installed.
pgbin=
for dir in /usr/lib/postgresql/15/bin $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -rV); do
  if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then pgbin=$dir; break; fi
done
if [ -z "$pgbin" ]; then
  echo "SKIP: no PostgreSQL server (initdb, pg_ctl) under /usr/lib/postgresql; tools/install-deps installs it"
  exit 77
fi

tmp=$(mktemp -d)
chmod 755 "$tmp"
as_server=()
if [ "$(id -u)" = 0 ]; then
  # initdb refuses root: the server runs as the postgres account (Debian's package makes it),
  # else as nobody. ptune itself stays root and reaches the socket in $tmp.
  user=postgres
  getent passwd "$user" >/dev/null || user=nobody
  mkdir -p "$tmp/pg"
  chown "$user" "$tmp/pg"
  as_server=(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups --)
else
  mkdir -p "$tmp/pg"
fi
sock=$tmp/pg
stop_server() {
  "${as_server[@]}" "$pgbin/pg_ctl" -D "$sock/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap stop_server EXIT
"${as_server[@]}" "$pgbin/initdb" -D "$sock/data" -U ptune --auth=trust -E UTF8 --no-locale \
  >"$tmp/initdb.log" 2>&1 || { cat "$tmp/initdb.log"; exit 1; }
"${as_server[@]}" "$pgbin/pg_ctl" -D "$sock/data" -l "$sock/server.log" -w -t 60 \
  -o "-k $sock -c listen_addresses= -p 5432 -c fsync=off" start >/dev/null \
  || { cat "$sock/server.log"; exit 1; }
"$pgbin/createdb" -h "$sock" -U ptune perf
url="postgresql://ptune@/perf?host=$sock"
psql() { "$pgbin/psql" -X -q -t -A -h "$sock" -U ptune perf "$@"; }
echo "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on $sock"
