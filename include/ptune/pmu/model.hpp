#pragma once
/// @file model.hpp
/// The typed model of simpler's `pmu.csv` (spec: pmu.md): a fixed six-column prefix, the
/// counters of one (architecture, event type) group, and a trailing `event_type` column.
/// Counters are kept raw, in one flat array, so a large file costs a few words per value.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptune::pmu {

/// Architecture family, recognised from the exact header (all 14 headers differ).
enum class Arch { A2A3, A5, Unknown };
std::string_view to_string(Arch arch);

/// Name of an event group (1 ARITHMETIC_UTILIZATION, 2 PIPE_UTILIZATION, 4 MEMORY, 5 MEMORY_L0,
/// 6 RESOURCE_CONFLICT, 7 MEMORY_UB, 8 L2_CACHE); "UNKNOWN" otherwise.
std::string_view event_type_name(int event_type);
/// One sentence on what the counters of an event group measure.
std::string_view event_type_description(int event_type);

/// Canonical pipes across architectures, in the tie-break order of the bottleneck (pmu.md §6).
enum class Pipe { Vec, Cube, Scalar, Mte1, Mte2, Mte3, Fixpipe };
inline constexpr std::size_t kPipeCount = 7;
inline constexpr std::array<Pipe, kPipeCount> kAllPipes = {
    Pipe::Vec, Pipe::Cube, Pipe::Scalar, Pipe::Mte1, Pipe::Mte2, Pipe::Mte3, Pipe::Fixpipe};
/// "vec", "cube", "scalar", "mte1", "mte2", "mte3", "fixpipe".
std::string_view to_string(Pipe pipe);

/// The columns every pmu.csv starts with, in this order.
inline constexpr std::array<std::string_view, 6> kFixedPrefix = {
    "thread_id", "core_id", "task_id", "func_id", "core_type", "pmu_total_cycles"};

/// What the header says about the file.
struct HeaderInfo {
    Arch arch = Arch::Unknown;
    std::optional<int> event_type;  ///< from the header lookup; nullopt for an unknown header
    bool known = false;             ///< the header is one of the 14 exact upstream headers
    std::vector<std::string> counter_names;  ///< the columns between the prefix and event_type
    bool has_event_type_column = true;
    /// Column index in `counter_names` of each canonical pipe, when the file has it.
    std::array<std::optional<std::size_t>, kPipeCount> pipe_column{};
    std::optional<std::size_t> icache_miss_column;
    std::optional<std::size_t> icache_req_column;

    /// True if the counters are pipe busy cycles (PIPE_UTILIZATION or an unknown set naming them).
    bool has_pipes() const;
};

/// Core type as written in the `core_type` column.
enum class CoreType { Aic = 0, Aiv = 1 };
std::string_view to_string(CoreType core_type);  ///< "AIC" / "AIV"

/// One record: one task dispatch on one core (not unique per task, not time-ordered).
struct Row {
    std::size_t line = 0;  ///< 1-based line in the file
    std::int64_t thread_id = 0;
    std::int64_t core_id = 0;
    std::uint64_t task_id = 0;
    std::uint32_t func_id = 0;
    CoreType core_type = CoreType::Aic;
    std::uint64_t total_cycles = 0;
    std::int64_t event_type = 0;

    /// `(ring_id << 32) | local_id` (tensormap_and_ringbuffer task tokens).
    std::uint32_t ring_id() const { return static_cast<std::uint32_t>(task_id >> 32); }
    std::uint32_t local_id() const { return static_cast<std::uint32_t>(task_id & 0xffffffffu); }
};

/// `0x` + 16 lowercase hex digits, as the collector writes task ids.
std::string format_task_id(std::uint64_t task_id);

/// A parsed pmu.csv.
struct PmuTable {
    std::string source;
    HeaderInfo header;
    std::vector<Row> rows;
    std::vector<std::uint64_t> counters;  ///< row-major, header.counter_names.size() per row

    /// The counters of row `index`, in header order.
    std::span<const std::uint64_t> counters_of(std::size_t index) const {
        std::size_t width = header.counter_names.size();
        return std::span<const std::uint64_t>(counters).subspan(index * width, width);
    }
};

}  // namespace ptune::pmu
