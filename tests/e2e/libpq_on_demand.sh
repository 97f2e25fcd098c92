#!/usr/bin/env bash
# libpq is loaded when a PostgreSQL history is opened, not at start-up (docs/PERFORMANCE.md,
# "Start-up"): no command but `history --db postgresql://…` maps it and its ~20 dependencies;
# a libpq that cannot be loaded (or is not libpq) is a clear exit 2 naming it, not a crash; with
# the system's libpq a server that is not there is the usual "cannot connect".
source "$(dirname "$0")/lib/common.sh"

# Not a dependency of the binary (a link would load it, and its libraries, in every command).
if command -v ldd >/dev/null && ldd "$ptune" | grep -q 'libpq\.so'; then
  bad "the binary links libpq: $(ldd "$ptune" | grep 'libpq\.so')"
fi

# Not loaded by a command that has no PostgreSQL database (LD_DEBUG=libs lists what the
# dynamic loader maps, dlopen included).
LD_DEBUG=libs "$ptune" bench-summary "$here/data/bench/ci_sweep_excerpts.log" >/dev/null 2>"$tmp/libs"
grep -q 'libpq\.so' "$tmp/libs" && bad "bench-summary loaded libpq"
grep -q 'libfmt\|libc\.so' "$tmp/libs" || bad "LD_DEBUG=libs printed no library: the check above is void"

# A libpq that is missing: exit 2, the library named; nothing on stdout.
PTUNE_LIBPQ="$tmp/no-such-libpq.so.5" "$ptune" history --db "postgresql:///ptune?host=$tmp" list \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || bad "missing libpq: exit $rc, want 2"
grep -q "a PostgreSQL history needs libpq (the libpq5 package): cannot load $tmp/no-such-libpq.so.5" \
  "$tmp/err" || bad "missing libpq: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && bad "missing libpq: stdout not empty"

# A library that is not libpq: exit 2, the first function it lacks named.
libz=$(ldd "$ptune" | sed -n 's/.*libz\.so\.1 => \([^ ]*\).*/\1/p')
if [ -n "$libz" ]; then
  PTUNE_LIBPQ="$libz" "$ptune" history --db "postgresql:///ptune?host=$tmp" list \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] || bad "libz as libpq: exit $rc, want 2"
  grep -q "$libz is not a usable libpq: it has no PQclear" "$tmp/err" ||
    bad "libz as libpq: $(cat "$tmp/err")"
fi

# The system's libpq, loaded on demand: no server on that socket folder is "cannot connect".
LD_DEBUG=libs "$ptune" history --db "postgresql:///ptune?host=$tmp" list >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || bad "no server: exit $rc, want 2"
grep -q 'cannot connect to the history database' "$tmp/err" || bad "no server: $(grep -v '^ *[0-9]*:' "$tmp/err")"
grep -q 'libpq\.so\.5' "$tmp/err" || bad "history --db postgresql:// did not load libpq"

exit $fail
