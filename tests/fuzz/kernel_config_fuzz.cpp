// Fuzz target: kernel_config.py `KERNELS` entries read as text (read_kernel_config).

#include <cstdint>

#include "fuzz_support.hpp"
#include "ptune/swimlane/reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    ptune::Diagnostics diagnostics;
    auto names = ptune::swimlane::read_kernel_config(text, "kernel_config.py", diagnostics);
    for (const auto& [func_id, name] : names.names) {
        (void)ptune::swimlane::kernel_base_name(func_id, &names);
    }
    return 0;
}
