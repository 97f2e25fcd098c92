#!/usr/bin/env bash
# What the ptune package installs besides the binary (cmake/PtuneInstallCompressed.cmake), as
# Debian policy wants it (issue 34 item 8): man pages and the changelog compressed with gzip -9n
# (no file name, no time stamp), and every document a man page cites installed with it, cited
# at its installed path.
set -u
build_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
prefix=$scratch/usr
cmake --install "$build_dir" --prefix "$prefix" --component ptune >"$scratch/install.log" 2>&1 ||
  { cat "$scratch/install.log"; echo "FAIL: cmake --install"; exit 1; }
man1=$prefix/share/man/man1
doc=$prefix/share/doc/ptune

# gzip -n: FLG without FNAME (bit 3) and MTIME zero (bytes 4-7).
check_gzip() {
  local header
  header=$(od -An -tx1 -N8 "$1" | tr -d ' \n')
  [ "${header:0:4}" = 1f8b ] || { fail "$1 is not gzip"; return; }
  (( (16#${header:6:2} & 8) == 0 )) || fail "$1 keeps a file name (gzip without -n)"
  [ "${header:8:8}" = 00000000 ] || fail "$1 keeps a time stamp (gzip without -n)"
  gzip -t "$1" || fail "$1 is damaged"
}

ls "$man1"/*.1 >/dev/null 2>&1 && fail "uncompressed man pages installed: $(ls "$man1"/*.1)"
pages=$(ls "$man1"/*.1.gz 2>/dev/null)
[ -n "$pages" ] || fail "no man pages installed"
for page in $pages; do
  check_gzip "$page"
  text=$(zcat "$page")
  grep -q 'docs/' <<<"$text" && fail "$(basename "$page") cites a source-tree path: $(grep -o 'docs/[^ )]*' <<<"$text" | head -1)"
  for cited in $(grep -o "$doc/[-A-Za-z0-9_.\\]*\.md" <<<"$text" | sed 's/\\-/-/g' | sort -u); do
    [ -f "$cited" ] || fail "$(basename "$page") cites $cited, which is not installed"
  done
done
# At least the pages that cite a document do so at the installed path.
zcat "$man1/ptune-bench-gate.1.gz" | grep -q "$doc/BENCH\\\\-GATE.md" ||
  fail "ptune-bench-gate.1 does not cite the installed BENCH-GATE.md"
MANWIDTH=100 man -l "$man1/ptune-history.1.gz" 2>/dev/null | grep -q "HISTORY.md" ||
  fail "ptune-history.1.gz does not render"

[ -f "$doc/changelog.gz" ] || fail "no changelog.gz in $doc"
[ -f "$doc/changelog.gz" ] && check_gzip "$doc/changelog.gz"
zcat "$doc/changelog.gz" 2>/dev/null | grep -q "^## $("$1" --version | awk '{print $2}')" ||
  fail "the changelog has no entry for this version"
# Documents the changelog names are installed too.
for name in $(zcat "$doc/changelog.gz" 2>/dev/null | grep -o '`[A-Za-z-]*\.md`' | tr -d '`' | sort -u); do
  [ -f "$doc/$name" ] || fail "the changelog names $name, which is not installed"
done
[ "$failures" -eq 0 ] || exit 1
echo ok
