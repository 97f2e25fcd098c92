// Fuzz target: name_map_*.json files (parse_name_map) and the kernel labels made from them.

#include <cstdint>

#include "fuzz_support.hpp"
#include "ptune/core/kernel_names.hpp"
#include "ptune/swimlane/reader.hpp"

namespace swimlane_name_map_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    ptune::Diagnostics diagnostics;
    auto names = ptune::parse_name_map(text, "name_map.json", diagnostics);
    if (!names) return 0;
    for (const auto& [func_id, kernel] : names->entries()) {
        (void)ptune::swimlane::kernel_base_name(static_cast<std::int32_t>(func_id), &*names);
    }
    return 0;
}

}  // namespace swimlane_name_map_fuzz
