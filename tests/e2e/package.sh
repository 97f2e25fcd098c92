#!/usr/bin/env bash
# Installs ptune into a scratch prefix, builds a consumer project that finds it with
# find_package(ptune CONFIG) and links ptune::core, and checks the .deb CPack makes.
set -eu
ptune=$1
build_dir=$2
# Sanitizer builds check behaviour, not packaging.
grep -q "PTUNE_SANITIZE:BOOL=ON" "$build_dir/CMakeCache.txt" && exit 77
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
test -x "$scratch/prefix/bin/ptune"
test -f "$scratch/prefix/include/ptune/rules/engine.hpp"
mkdir -p "$scratch/consumer"
cat >"$scratch/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(consumer CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(ptune CONFIG REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE ptune::core)
CMAKE
cat >"$scratch/consumer/main.cpp" <<'CPP'
#include <iostream>
#include "ptune/core/version.hpp"
#include "ptune/rules/engine.hpp"
int main() {
    auto catalogue = ptune::rules::Catalogue::builtin();
    std::cout << "ptune " << ptune::version() << " rules " << (catalogue ? catalogue->rules().size() : 0) << "\n";
    return catalogue ? 0 : 1;
}
CPP
cmake -S "$scratch/consumer" -B "$scratch/consumer/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer/build" >/dev/null
"$scratch/consumer/build/consumer" | grep -q "^ptune "
(cd "$scratch" && cpack -G DEB --config "$build_dir/CPackConfig.cmake" >/dev/null)
deb=$(ls "$scratch"/*.deb | head -1)
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
grep -q "libfmt9" <<<"$depends"
grep -q "libspdlog1.10" <<<"$depends"
dpkg-deb -c "$deb" | grep -q "usr/bin/ptune"
