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

#include "ptune/memreport/backend.hpp"

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

/// The closed range of byte counts a value could have had.
struct ByteInterval {
    std::uint64_t lo = 0, hi = 0;
};

/// Every byte count that format_size() prints as `text` (`156.8 KB` → [160512, 160614]; `768 B`
/// → [768, 768]); nullopt when `text` is no size or no byte count prints so.
std::optional<ByteInterval> size_interval(std::string_view text);

/// The byte counts in `within` whose share of `limit` format_percent() prints as `percent`
/// (`81.6%`); nullopt when none does or `percent` is no percentage.
std::optional<ByteInterval> percent_interval(std::string_view percent, std::uint64_t limit,
                                             ByteInterval within);
/// Formats bytes the way the report does: `768 B`, `%.1f KB`, `%.1f MB` (half-even).
std::string format_size(std::uint64_t bytes);
/// Formats a percentage the way the report does: `70.1%` (1 decimal, half-even).
std::string format_percent(double percent);

/// One base allocation of a `Buffers (<Space>)` block (v3).
struct Buffer {
    std::string name;
    std::string size_text;
    std::uint64_t size_bytes = 0;  ///< the address range's width when size_text prints it,
                                   ///< else read back from size_text
    bool size_exact = false;       ///< `B` units, or taken from the address range
    bool allocated = false;        ///< false for `(unallocated)`
    std::uint64_t addr_begin = 0;  ///< byte offset, when allocated
    std::uint64_t addr_end = 0;    ///< exclusive
    std::uint64_t live_begin = 0;  ///< statement counter (lexical, not dataflow); dump line
    std::uint64_t live_end = 0;    ///< for a pass dump (first and last use, mem-report.md §11)
    std::size_t line = 0;          ///< 1-based line in the report or dump (the allocation)
};

/// The peak of a space's live bytes in program order: at each program point (a dump line, or
/// the text report's statement counter) the buffers whose live range covers it are live.
struct SpacePeak {
    std::uint64_t bytes = 0;        ///< Σ size of the buffers live at the peak
    std::uint64_t at = 0;           ///< the first program point where the peak is reached
    std::uint64_t top = 0;          ///< the highest address end among them
    std::vector<std::size_t> live;  ///< indices into SpaceUsage::buffers, by address
};

/// Two different base allocations whose address ranges overlap while both are live: two
/// tiles share bytes at the same time, an allocator bug.
struct Overlap {
    std::size_t first = 0, second = 0;  ///< indices into SpaceUsage::buffers
    std::uint64_t at = 0;               ///< the first program point where both are live
};

/// The on-chip memory spaces a report names, in its row order.
inline constexpr std::string_view kMemorySpaces[] = {"Vec", "Mat", "Left", "Right", "Acc"};

/// One row of a function's table, plus what the analyzer derives from it.
struct SpaceUsage {
    std::string space;  ///< Vec, Mat, Left, Right, Acc
    std::string used_text;
    std::string limit_text;  ///< `N/A` when no backend was configured
    std::string usage_text;
    std::uint64_t memrefs = 0;
    std::size_t line = 0;
    std::vector<Buffer> buffers;  ///< the v3 block of this space, in file order

    /// Used as exact bytes when the source gives them (a pass dump: max(offset + size)).
    std::optional<std::uint64_t> exact_used;

    // Derived by the analyzer (analyzer.hpp).
    /// Exact, or the printed value moved into [used_min, used_max] (then Used / limit prints
    /// as the file's Usage).
    std::uint64_t used_bytes = 0;
    bool used_exact = false;  ///< from B units or the buffer address ranges
    /// Every byte count the printed Used, Usage and Limit allow (equal to used_bytes when exact):
    /// `156.8 KB` at `81.6%` of `192.0 KB` is [160512, 160530].
    std::uint64_t used_min = 0, used_max = 0;
    std::optional<std::uint64_t> limit_bytes;
    bool limit_from_backend = false;  ///< the report said N/A; the limit is the backend's capacity
    std::optional<double> usage_pct;  ///< used_bytes / limit × 100
    std::optional<SpacePeak> peak;    ///< when the space has allocated buffers with live ranges
    std::vector<Overlap> overlaps;
};

/// One `--- name ---` block: an InCore, AIC or AIV function.
struct Function {
    std::string name;
    std::size_t line = 0;
    std::vector<SpaceUsage> spaces;  ///< in report order (Vec, Mat, Left, Right, Acc)

    SpaceUsage* find(std::string_view space);
    const SpaceUsage* find(std::string_view space) const;
};

/// Where a Report's table came from: the text report, or rebuilt from a pass dump
/// (`passes_dump/NN_after_AllocateMemoryAddr.py`, mem-report.md §11, upstream-2026-09.md §5).
enum class Origin { TextReport, PassDump };

/// The two pass-dump syntaxes: `pl.MemRef(<base>, <offset>, <size>), pl.Mem.<Space>` (newer)
/// and `pl.MemRef(pl.MemorySpace.<Space>, <addr>, <size>, <id>)` (March 2026).
enum class DumpSyntax { Unknown, New, Old };
std::string_view to_string(DumpSyntax syntax);

/// A parsed report.
struct Report {
    std::string source;  ///< file name for messages
    Origin origin = Origin::TextReport;
    DumpSyntax dump_syntax = DumpSyntax::Unknown;  ///< for a pass dump
    std::string program;                           ///< `# pypto.program: NAME` of a pass dump
    /// For a pass dump: the backend the limits were taken from and how it was chosen
    /// ("option", "ptoas", "compiled_meta", "assumed"); set by the pipeline, read by analyze().
    std::optional<Backend> dump_backend;
    std::string dump_backend_source;
    /// Why a pass dump cannot be read (written before address assignment); empty when it can.
    std::string refusal;
    std::size_t refusal_line = 0;
    FormatVersion version = FormatVersion::Unknown;
    std::string pass;
    std::string backend_token;  ///< as printed: 910B, 950, 910B_PTO, 910B_CCE, N/A; empty if absent
    std::size_t backend_line = 0;
    std::optional<std::uint64_t> functions_declared;  ///< the `Functions: N` count
    std::string functions_suffix;                     ///< `InCore` or `compute functions`
    std::vector<Function> functions;
};

}  // namespace ptune::memreport
