#!/usr/bin/env bash
# The install tree and the Debian packages (cmake/PtuneInstall.cmake):
#  - a consumer project that does NOT ask for C++20 finds ptune with find_package(ptune CONFIG)
#    and compiles against ptune::core (the target carries cxx_std_20);
#  - CPack makes ptune (stripped, < 15 MB, no static library), ptune-dbgsym (the DWARF, by
#    build-id) and ptune-dev (headers, archive without debug sections, CMake package);
#  - the runtime package has the copyright file (machine-readable, from LICENSE), the man pages
#    and the completion, a real maintainer, and installs with dpkg into a clean root where
#    `ptune --version` runs.
set -eu
ptune=$1
build_dir=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
# Sanitizer builds check behaviour, not packaging.
grep -q "PTUNE_SANITIZE:BOOL=ON" "$build_dir/CMakeCache.txt" && exit 77
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
test -x "$scratch/prefix/bin/ptune"
test -f "$scratch/prefix/include/ptune/rules/engine.hpp"
mkdir -p "$scratch/consumer"
# No CMAKE_CXX_STANDARD: g++ 12 defaults to C++17, and ptune's headers need C++20.
cat >"$scratch/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(consumer CXX)
find_package(ptune CONFIG REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE ptune::core)
CMAKE
cat >"$scratch/consumer/main.cpp" <<'CPP'
#include <iostream>
#include "ptune/core/version.hpp"
#include "ptune/pmu/model.hpp"
#include "ptune/rules/engine.hpp"
int main() {
    auto catalogue = ptune::rules::Catalogue::builtin();
    std::cout << "ptune " << ptune::version() << " rules " << (catalogue ? catalogue->rules().size() : 0) << "\n";
    return catalogue ? 0 : 1;
}
CPP
cmake -S "$scratch/consumer" -B "$scratch/consumer/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer/build" >/dev/null || fail "a C++17-default consumer does not compile against ptune::core"
"$scratch/consumer/build/consumer" | grep -q "^ptune "

mkdir -p "$scratch/debs"
(cd "$scratch/debs" && cpack -G DEB --config "$build_dir/CPackConfig.cmake" >/dev/null)
ls -l "$scratch/debs"
deb=$(ls "$scratch"/debs/ptune_*.deb)
dev=$(ls "$scratch"/debs/ptune-dev_*.deb)
dbgsym=$(ls "$scratch"/debs/ptune-dbgsym_*.*deb)

# Runtime package: small, stripped, no archive, with its documents.
size=$(stat -c %s "$deb")
echo "ptune package: $size bytes"
[ "$size" -lt $((15 * 1024 * 1024)) ] || fail "runtime package is $size bytes (limit 15 MB)"
contents=$(dpkg-deb -c "$deb")
for path in usr/bin/ptune usr/share/doc/ptune/copyright usr/share/doc/ptune/changelog.gz \
  usr/share/man/man1/ptune.1.gz usr/share/man/man1/ptune-hints-lint.1.gz \
  usr/share/man/man1/ptune-bench-summary.1.gz usr/share/bash-completion/completions/ptune; do
  grep -q "\./$path" <<<"$contents" || fail "runtime package lacks /$path"
done
grep -q '\.a$' <<<"$contents" && fail "runtime package ships a static library"
grep -q 'include/ptune' <<<"$contents" && fail "runtime package ships headers"

maintainer=$(dpkg-deb -f "$deb" Maintainer)
echo "Maintainer: $maintainer"
grep -q "example\.invalid" <<<"$maintainer" && fail "placeholder maintainer"
dpkg-deb -f "$deb" | grep -q "example\.invalid" && fail "placeholder address in the control file"
grep -Eq '^The ptune developers <[^@ ]+@[^> ]+\.[a-z]+>$' <<<"$maintainer" || fail "maintainer is not the project's"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
grep -q "libfmt9" <<<"$depends"
grep -q "libspdlog1.10" <<<"$depends"
grep -q "libdeflate0" <<<"$depends"
# libpq is loaded on demand (a PostgreSQL history only): recommended, not required.
grep -q "libpq" <<<"$depends" && fail "Depends names libpq, which ptune loads only on demand"
recommends=$(dpkg-deb -f "$deb" Recommends)
echo "Recommends: $recommends"
grep -q "libpq5" <<<"$recommends" || fail "Recommends lacks libpq5"

# Install it the way dpkg does, into a clean root-like directory, and run it from there.
root=$scratch/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
# --force-depends: the libraries are the host's (this root holds no other package).
dpkg --root="$root" --force-not-root --force-depends --force-script-chrootless \
  --log=/dev/null -i "$deb" >"$scratch/dpkg.log" 2>&1 || { cat "$scratch/dpkg.log"; fail "dpkg -i into a clean root failed"; }
grep -q "^Package: ptune$" "$root/var/lib/dpkg/status" || fail "dpkg did not record ptune as installed"
"$root/usr/bin/ptune" --version | grep -Eq "^ptune [0-9]+\.[0-9]+\.[0-9]+" || fail "installed ptune does not run"
readelf -S "$root/usr/bin/ptune" | grep -q "\.debug_info" && fail "installed ptune has debug info"
readelf -S "$root/usr/bin/ptune" | grep -q " \.symtab" && fail "installed ptune is not stripped"

copyright=$root/usr/share/doc/ptune/copyright
head -1 "$copyright" | grep -qx "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ||
  fail "copyright is not in the machine-readable format"
grep -q "^Upstream-Name: ptune$" "$copyright"
grep -qx "Files: \*" "$copyright"
grep -qx "Copyright: 2026 The ptune developers" "$copyright" || fail "copyright holder not taken from LICENSE"
grep -qx "License: Expat" "$copyright"
# Every paragraph of LICENSE's text, indented by one space, blank lines as " .".
grep -qx " THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR" "$copyright"
grep -qx " \." "$copyright"
[ "$(grep -c '^[^ ]' "$copyright")" -eq 7 ] || fail "unexpected unindented lines in copyright"
# man renders the installed pages.
MANWIDTH=100 man -l "$root/usr/share/man/man1/ptune-mem-report.1.gz" 2>&1 | grep -q "ptune mem-report" ||
  fail "installed man page does not render"

# Debug symbols: a -dbgsym package keyed by the binary's build-id.
build_id=$(readelf -n "$root/usr/bin/ptune" | awk '/Build ID/ {print $3}')
[ -n "$build_id" ] || fail "no build-id"
dpkg-deb -c "$dbgsym" | grep -q "usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug" ||
  fail "dbgsym package lacks the binary's debug file"

# Development package: headers, the CMake package and an archive without DWARF.
dev_contents=$(dpkg-deb -c "$dev")
grep -q "include/ptune/rules/engine.hpp" <<<"$dev_contents"
grep -q "cmake/ptune/ptuneConfig.cmake" <<<"$dev_contents"
grep -q "cmake/ptune/FindLibdeflate.cmake" <<<"$dev_contents"
mkdir -p "$scratch/dev" && dpkg-deb -x "$dev" "$scratch/dev"
archive=$(find "$scratch/dev" -name libptune_core.a)
[ -n "$archive" ] || fail "dev package lacks libptune_core.a"
archive_size=$(stat -c %s "$archive")
echo "libptune_core.a: $archive_size bytes"
[ "$archive_size" -lt $((40 * 1024 * 1024)) ] || fail "archive is $archive_size bytes"
objdump -h "$archive" 2>/dev/null | grep -q "\.debug_info" && fail "archive in the dev package has debug info"
echo "ok"
