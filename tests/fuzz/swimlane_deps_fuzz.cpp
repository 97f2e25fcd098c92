// Fuzz target: deps.json (read_deps), then applied to rows for the first tasks it names as the
// converter does (apply_deps), and the analysis over those rows: the critical-path walk through
// the graph the input describes (cycles, repeated edges, dummy tasks, tasks without rows).

#include <cstdint>

#include "fuzz_support.hpp"
#include "ptune/swimlane/analyze.hpp"
#include "ptune/swimlane/reader.hpp"

namespace swimlane_deps_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
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
        // Overlapping times in task order, so that the walk has waits and slack to measure.
        row.dispatch_ns = 1'000 * static_cast<std::int64_t>(core);
        row.receive_ns = row.dispatch_ns + 100;
        row.start_ns = row.dispatch_ns + 200;
        row.end_ns = row.start_ns + 1'500 + 250 * static_cast<std::int64_t>(core % 4);
        row.finish_ns = row.end_ns + 100;
        ++core;
    }
    (void)ptune::swimlane::apply_deps(capture, *deps);
    for (const auto& row : capture.tasks)
        (void)ptune::swimlane::kernel_base_name(row.func_id, nullptr);
    capture.level = 2;
    capture.clock.freq_hz = 1'000'000'000;
    for (const auto& row : capture.tasks) capture.core_types.push_back(row.core_type);
    const auto input = ptune::swimlane::make_analyze_input(capture, &*deps, nullptr);
    (void)ptune::swimlane::analyze_swimlane(input);
    return 0;
}

}  // namespace swimlane_deps_fuzz
