#pragma once
/// @file model.hpp
/// `scope_stats.jsonl` v4–v6 (upstream-2026-09.md §3): one metadata line, then one sample per
/// `PTO2_SCOPE()` boundary; a `begin` paired with its `end` gives the scope's ring pressure.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptune::scope {

/// The metadata line: effective capacities of this run, per ring (index = ring).
struct Meta {
    int version = 0;
    bool fatal = false;         ///< a fatal was latched; later samples are diagnostic only
    std::uint64_t dropped = 0;  ///< records lost on the device
    std::uint64_t total = 0;    ///< records attempted
    std::vector<std::int64_t> task_window_max;
    std::vector<std::int64_t> heap_max;
    std::vector<std::int64_t> dep_pool_max;  ///< empty before v5
    std::int64_t tensormap_max = 0;
    bool has_dep_pool() const { return version >= 5; }
};

/// One scope boundary. `*_start` = tail (released boundary), `*_end` = head (frontier).
struct Sample {
    std::string site;  ///< `<basename>:<line>` of the scope; root: `(unknown):0`
    bool begin = true;
    std::uint32_t depth = 0;
    std::uint32_t ring = 0;  ///< min(depth, 3)
    std::int64_t task_window_start = 0, task_window_end = 0;
    std::int64_t heap_start = 0, heap_end = 0;
    std::optional<std::int64_t> dep_pool_start, dep_pool_end;  ///< v5+
    std::int64_t tensormap = 0;
    std::size_t line = 0;
};

/// One resource of one scope (§3.2).
struct ResourceUse {
    std::optional<std::int64_t> capacity;  ///< `*_max[ring]`; absent when the ring has none
    std::int64_t high_water = 0;           ///< end.head − begin.tail
    std::int64_t real_occupancy = 0;       ///< end.head − end.tail
    std::int64_t alloc = 0;                ///< end.head − begin.head
    bool approximate = false;  ///< v5 heap: a wrapped difference corrected by the ring size
    std::optional<double> high_water_pct() const;
    std::optional<double> real_occupancy_pct() const;
};

/// A begin/end pair.
struct ScopeUse {
    std::string site;
    std::uint32_t depth = 0;
    std::uint32_t ring = 0;
    ResourceUse task_window;
    ResourceUse heap;
    std::optional<ResourceUse> dep_pool;  ///< v5+
    std::int64_t tensormap_in_use = 0;    ///< at the end sample
    std::size_t begin_line = 0, end_line = 0;
};

/// A `begin` never closed: at the end of the file it marks the scope the run wedged in.
struct OpenScope {
    std::string site;
    std::uint32_t depth = 0;
    std::uint32_t ring = 0;
    std::size_t line = 0;
};

/// One scope_stats.jsonl, paired.
struct ScopeStats {
    std::string source;
    Meta meta;
    std::vector<ScopeUse> scopes;        ///< in the order their `end` was written
    std::vector<OpenScope> open_scopes;  ///< outermost first
    std::size_t samples = 0;
    std::size_t unmatched_ends = 0;
    std::size_t skipped_lines = 0;  ///< malformed samples (warned)
    std::int64_t tensormap_peak = 0;
    bool heap_approximate = false;  ///< some heap value is a v5 wrap correction
};

/// The `orch_error_code=` a host log names for a failed run (§3.3).
struct OrchError {
    int code = 0;             ///< -1 when the printed number is beyond int (an unknown code)
    std::string code_text;    ///< the digits as printed (any length, at most 40 kept)
    bool saw_507018 = false;  ///< `507018` (ACL_ERROR_RT_AICPU_EXCEPTION) on the same line
    std::string file;
    std::size_t line = 0;
};

/// Name, meaning and first move of an `orch_error_code` (§3.3); nullptr for unknown codes.
struct OrchErrorInfo {
    int code;
    const char* name;
    const char* meaning;
    const char* first_move;
};
const OrchErrorInfo* orch_error_info(int code);

}  // namespace ptune::scope
