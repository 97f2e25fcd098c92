// Fuzz target: deps.json (read_deps), then applied to rows for the first tasks it names as the
// converter does (apply_deps).

#include <cstdint>

#include "fuzz_support.hpp"
#include "ptune/swimlane/reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    ptune::Diagnostics diagnostics;
    auto deps = ptune::swimlane::read_deps(text, "deps.json", diagnostics);
    if (!deps) return 0;
    ptune::swimlane::Capture capture;
    std::uint32_t core = 0;
    for (const auto& [task_id, task] : deps->tasks) {
        if (core == 64) break;
        ptune::swimlane::TaskRow& row = capture.tasks.emplace_back();
        row.task_id = task_id;
        row.core_id = core;
        row.core_type =
            core % 3 == 0 ? ptune::swimlane::CoreType::Aic : ptune::swimlane::CoreType::Aiv;
        ++core;
    }
    (void)ptune::swimlane::apply_deps(capture, *deps);
    for (const auto& row : capture.tasks)
        (void)ptune::swimlane::kernel_base_name(row.func_id, nullptr);
    return 0;
}
