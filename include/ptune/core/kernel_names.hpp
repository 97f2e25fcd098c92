#pragma once
/// @file kernel_names.hpp
/// func_id → kernel name of one PyPTO program: the one reader every domain uses (swimlane, pmu,
/// advise). Two files carry the same map (swimlane.md §4, pmu.md §3):
/// - `dfx_outputs/name_map_<work_dir>.json`: `{"callable_id_to_name": {"0": "qk", ...},
///   "orchestrator_name": "PagedAttn" | null}`;
/// - `<work_dir>/kernel_config.py`: its `KERNELS` list, one dict per line. It is read as text
///   and NEVER executed (upstream's converter runs it; it may import the runtime).
/// Which of the two a file is, is decided by its content, never by its name or extension.
///
/// Contract:
/// - Ids are upstream's func_id: decimal, 0 … 2^32−1. find() takes any integer, so the swimlane's
///   func_id −1 ("no function") simply has no entry.
/// - A name map whose `callable_id_to_name` is empty is a valid, empty map (the program names no
///   kernel); callers then show fallback labels (`func_<id>`). A kernel_config.py without a single
///   usable entry is an error: it is not a names file.
/// - Errors are values: a file that is not a names file at all fails with file (and line); bad
///   entries in a usable file are reported to Diagnostics and skipped.
/// - func_id numbering restarts per program: never merge the maps of two programs (L3 ranks).
///
/// Looking up the names of an artifact (find_kernel_names_near), in this order:
/// 1. the unique `name_map*.json` in the artifact's folder (several: none is used, with a note);
/// 2. `kernel_config.py` in the artifact's folder or its parent (`<work_dir>/dfx_outputs/x` →
///    `<work_dir>/kernel_config.py`), never higher: above `rank<r>/d<k>/` of an L3 tree sits
///    another program's map.
/// A names file the user names (--names, -k) replaces the lookup.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"

namespace ptune {

/// One kernel of the program.
struct KernelInfo {
    std::string name;
    std::string core_type;  ///< "aic", "aiv" or empty when the source does not say
};

/// The func_id → kernel map of one program.
class KernelNames {
  public:
    using Id = std::uint32_t;

    /// Adds or replaces an entry.
    void add(Id func_id, KernelInfo info) { entries_[func_id] = std::move(info); }
    /// The entry of `func_id`; nullptr when unknown or outside the id range (e.g. −1).
    const KernelInfo* find(std::int64_t func_id) const;
    /// The kernel name, or `func_<id>` when the map does not know the id.
    std::string display_name(std::int64_t func_id) const;
    const std::map<Id, KernelInfo>& entries() const { return entries_; }
    bool empty() const { return entries_.empty(); }

    std::string source;             ///< the file the map came from (messages, reports)
    std::string orchestrator_name;  ///< name map only; empty when absent or null

  private:
    std::map<Id, KernelInfo> entries_;
};

/// Reads a `name_map_*.json`. Keys that are not decimal ids and names that are not strings are
/// reported and skipped. Fails on invalid JSON (with its line) or without a
/// `callable_id_to_name` object.
Result<KernelNames> parse_name_map(std::string_view json, std::string_view source,
                                   Diagnostics& diagnostics);

/// Reads the `KERNELS` entries of a kernel_config.py as text: every line holding a
/// `"func_id": <int>` and a `"name": "<kernel>"` (either quote style, any order; plus
/// `"core_type"` when present). `#` comment lines are ignored; a line with a func_id but no
/// usable id or name is reported with its line number. Fails when no entry is found.
Result<KernelNames> parse_kernel_config(std::string_view python_source, std::string_view source,
                                        Diagnostics& diagnostics);

/// Reads either kind, chosen by content: a document whose first character (after a byte order
/// mark and white space) is `{` is a name map, anything else a kernel_config.py.
Result<KernelNames> parse_kernel_names(std::string_view text, std::string_view source,
                                       Diagnostics& diagnostics);

/// Reads a names file from disk (at most 64 MiB) with parse_kernel_names().
Result<KernelNames> load_kernel_names(const std::filesystem::path& path, Diagnostics& diagnostics);

/// The names files found next to an artifact (see the lookup order above).
struct KernelNameFiles {
    std::filesystem::path name_map;       ///< the unique name_map*.json; empty when none/several
    std::filesystem::path kernel_config;  ///< kernel_config.py; empty when absent
    std::vector<std::string> notes;       ///< why a candidate was passed over

    /// The file to read: the name map, else kernel_config.py; empty when there is none.
    const std::filesystem::path& preferred() const {
        return name_map.empty() ? kernel_config : name_map;
    }
};

/// Looks for the names of the program that wrote `artifact` (a file such as
/// `<work_dir>/dfx_outputs/pmu.csv`, or the folder holding the artifacts). Paths keep the
/// spelling of `artifact`.
KernelNameFiles find_kernel_names_near(const std::filesystem::path& artifact);

/// The one policy for reading an artifact's names: `named` (the user's --names / -k) when given,
/// else `found` (the lookup's preferred() file). An unusable named file fails when
/// `named_required`; otherwise, and for an unusable found file, a warning says the names are not
/// used. nullopt when there are no usable names.
Result<std::optional<KernelNames>> load_artifact_names(const std::filesystem::path& named,
                                                       const std::filesystem::path& found,
                                                       bool named_required,
                                                       Diagnostics& diagnostics);

}  // namespace ptune
