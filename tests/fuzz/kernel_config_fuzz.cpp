// Fuzz target: kernel_config.py `KERNELS` entries read as text (parse_kernel_config).

#include <cstdint>

#include "fuzz_support.hpp"
#include "ptune/core/kernel_names.hpp"
#include "ptune/swimlane/reader.hpp"

namespace kernel_config_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    ptune::Diagnostics diagnostics;
    auto names = ptune::parse_kernel_config(text, "kernel_config.py", diagnostics);
    if (!names) return 0;
    for (const auto& [func_id, kernel] : names->entries()) {
        (void)ptune::swimlane::kernel_base_name(static_cast<std::int32_t>(func_id), &*names);
    }
    return 0;
}

}  // namespace kernel_config_fuzz
