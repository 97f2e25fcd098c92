#pragma once
/// @file model.hpp
/// The typed model of pypto's on-chip memory report, `memory_after_AllocateMemoryAddr.txt`
/// (spec: mem-report.md). The parser fills it with what the text says; the analyzer adds the
/// backend, exact bytes and usage.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptune::memreport {

/// The report's format generations (mem-report.md §1): v1 `Functions: N InCore`, v2
/// `Functions: N compute functions`, v3 adds `Buffers (<Space>)` blocks.
enum class FormatVersion { Unknown, V1, V2, V3 };
std::string_view to_string(FormatVersion version);

/// A size as printed (`768 B`, `129.0 KB`, `1.0 MB`) read back into bytes.
struct PrintedSize {
    std::uint64_t bytes = 0;  ///< nearest byte count to the printed value
    bool exact = false;       ///< true for `B` values; KB/MB are exact only to ±0.05 of the unit
};

/// Reads `INT B`, `DEC KB` or `DEC MB`; nullopt for anything else.
std::optional<PrintedSize> parse_size(std::string_view text);
/// Formats bytes the way the report does: `768 B`, `%.1f KB`, `%.1f MB` (half-even).
std::string format_size(std::uint64_t bytes);
/// Formats a percentage the way the report does: `70.1%` (1 decimal, half-even).
std::string format_percent(double percent);

/// One base allocation of a `Buffers (<Space>)` block (v3).
struct Buffer {
    std::string name;
    std::string size_text;
    std::uint64_t size_bytes = 0;  ///< read back from size_text (exact only for `B`)
    bool allocated = false;        ///< false for `(unallocated)`
    std::uint64_t addr_begin = 0;  ///< byte offset, when allocated
    std::uint64_t addr_end = 0;    ///< exclusive
    std::uint64_t live_begin = 0;  ///< statement counter (lexical, not dataflow)
    std::uint64_t live_end = 0;
    std::size_t line = 0;  ///< 1-based line in the report
};

/// One row of a function's table, plus what the analyzer derives from it.
struct SpaceUsage {
    std::string space;  ///< Vec, Mat, Left, Right, Acc
    std::string used_text;
    std::string limit_text;  ///< `N/A` when no backend was configured
    std::string usage_text;
    std::uint64_t memrefs = 0;
    std::size_t line = 0;
    std::vector<Buffer> buffers;  ///< the v3 block of this space, in file order

    // Derived by the analyzer (analyzer.hpp).
    std::uint64_t used_bytes = 0;
    bool used_exact = false;  ///< from B units or the buffer address ranges
    std::optional<std::uint64_t> limit_bytes;
    bool limit_from_backend = false;  ///< the report said N/A; the limit is the backend's capacity
    std::optional<double> usage_pct;
};

/// One `--- name ---` block: an InCore, AIC or AIV function.
struct Function {
    std::string name;
    std::size_t line = 0;
    std::vector<SpaceUsage> spaces;  ///< in report order (Vec, Mat, Left, Right, Acc)

    SpaceUsage* find(std::string_view space);
    const SpaceUsage* find(std::string_view space) const;
};

/// A parsed report.
struct Report {
    std::string source;  ///< file name for messages
    FormatVersion version = FormatVersion::Unknown;
    std::string pass;
    std::string backend_token;  ///< as printed: 910B, 950, 910B_PTO, 910B_CCE, N/A; empty if absent
    std::size_t backend_line = 0;
    std::optional<std::uint64_t> functions_declared;  ///< the `Functions: N` count
    std::string functions_suffix;                     ///< `InCore` or `compute functions`
    std::vector<Function> functions;
};

}  // namespace ptune::memreport
