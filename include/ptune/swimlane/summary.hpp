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
    /// The September converter's wording (level descriptions, the Dispatch→kernel start line):
    /// files that name their runtime (upstream-2026-09.md §1.13).
    bool september = false;
    double head_total_us = 0, head_max_us = 0;  ///< Σ / max (start − dispatch) over the rows
    /// Clock alignment of the capture (§1.12): "" none, else a line for the console.
    std::string clock_alignment_line;
    /// The alignment record as upstream writes it (compact JSON), its source and bound; "" none.
    std::string clock_alignment_record, clock_alignment_source;
    std::int64_t clock_alignment_bound_ns = -1;
    /// Runs of the file (§1.10) when there is more than one: "epoch 5: 12 tasks" …
    std::vector<std::string> runs;
};

/// Computes the summary (rows must already carry deps-resolved func ids).
Summary summarize(const Capture& capture, const KernelNames* names);

/// The clock-alignment line of the console (upstream-2026-09.md §1.12, §1.17): status, reason
/// or bound width, and, for a placement computed from the logs, that ptune did not write it back
/// (upstream rewrites the records file). "" when the capture has no alignment record.
std::string clock_alignment_line(const Capture& capture);

/// The text block the converter prints after "To visualize: …" (from the 140×'=' rule to the
/// closing 110×'=' rule), byte for byte as upstream prints it.
std::string format_summary(const Summary& summary);

/// What ptune says beyond upstream's block (the clock-alignment line, the runs of the file),
/// printed after it; "" when nothing.
std::string format_additions(const Summary& summary);

/// Converter text (format_summary's block, the conversion banner) folded to `width` columns
/// (docs/DEVELOPING.md, "Text output"): the wording and every number kept, a longer line broken
/// at blanks with its continuation indented, the function table cut at one column for all its
/// rows so the continued columns stay under their header. Rule lines (`====`) are single tokens
/// and perf_guard's lines (`TOTAL`, `Total Test Time:`) stay whole for the tools that parse them.
/// `width` 0 returns the text unchanged (upstream's layout byte for byte).
std::string fold_summary(std::string_view text, std::size_t width);

/// The same statistics as JSON (µs values rounded to 3 decimals; exact ns are in the trace).
nlohmann::json summary_to_json(const Summary& summary);

}  // namespace ptune::swimlane
