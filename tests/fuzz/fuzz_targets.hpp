#pragma once
// Every fuzz target lives in one program, `ptune_fuzz`: linking the library with the sanitizers
// and libFuzzer once instead of once per target, and compiling the targets in a few translation
// units, halves the fuzz build. Each target is reached through a link named after it,
// `ptune_fuzz_<name>` (tests/fuzz/CMakeLists.txt makes them), so the program picks its target
// from the name it was started by, as libFuzzer's own forks start it again.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ptune::fuzz {

/// One fuzz target: `<name>_fuzz.cpp` defines `<name>_fuzz::fuzz_one_input`, libFuzzer's
/// LLVMFuzzerTestOneInput for that parser.
struct FuzzTarget {
    std::string_view name;
    int (*fuzz_one_input)(const std::uint8_t* data, std::size_t size);
};

/// Every target, in the order of their source files (a table CMake writes from
/// tests/fuzz/*_fuzz.cpp).
std::span<const FuzzTarget> fuzz_targets();

/// The target a program started as `program` runs: its file name without the directory,
/// `ptune_fuzz_<name>` for the target `<name>`. Null when no target has that name.
const FuzzTarget* find_fuzz_target(std::string_view program);

}  // namespace ptune::fuzz
