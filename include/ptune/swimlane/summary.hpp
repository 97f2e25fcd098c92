#pragma once
/// @file summary.hpp
/// The upstream converter's console summary (swimlane.md §6.4): "Task Statistics by Function",
/// the `TOTAL` row and `Total Test Time:` (parsed by pypto CI's perf_guard.py, §6.5), computed
/// with the converter's float arithmetic so the printed numbers are byte-identical.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane {

/// Statistics of one func_id group (over joined rows).
struct FunctionSummary {
    std::int32_t func_id = -1;
    std::string name;  ///< kernel name, or `func_<n>_<letters>` / `func_-1_`
    std::size_t count = 0;
    double sum_exec_us = 0;     ///< Σ (end − start)
    double sum_latency_us = 0;  ///< Σ (finish − dispatch)
    double sum_head_us = 0;     ///< Σ (start − dispatch)
    double sum_tail_us = 0;     ///< Σ (finish − end)
    double sum_prop_us = 0;     ///< Σ (receive − dispatch)
    double sum_local_us = 0;    ///< Σ (start − receive)
};

/// The converter's summary of one capture.
struct Summary {
    std::string level_key;
    int level = 0;
    std::string records_name;  ///< records file name, as in "recorded in …"
    bool has_aicpu = false;    ///< level ≥ 2 data present (latency columns meaningful)
    std::vector<FunctionSummary> functions;  ///< by func_id
    std::size_t total_count = 0;
    double total_exec_us = 0;
    double total_latency_us = 0;
    /// max(finish) − min(dispatch); with AICore data only, max(end) − min(receive).
    double total_test_time_us = 0;
};

/// Computes the summary (rows must already carry deps-resolved func ids).
Summary summarize(const Capture& capture, const KernelNames* names);

/// The text block the converter prints after "To visualize: …" (from the 140×'=' rule to the
/// end of the per-task block), byte-identical for the numbers and the perf_guard lines.
std::string format_summary(const Summary& summary);

/// The same statistics as JSON (µs values rounded to 3 decimals; exact ns are in the trace).
nlohmann::json summary_to_json(const Summary& summary);

}  // namespace ptune::swimlane
