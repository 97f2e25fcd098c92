#pragma once
/// @file kernel_names.hpp
/// func_id → kernel name maps of a PyPTO program. Two sources carry the same map:
/// `<work_dir>/kernel_config.py` (its `KERNELS = [...]` list, one dict per line, read as text and
/// never executed) and `dfx_outputs/name_map_<work_dir>.json` (`callable_id_to_name`).
/// func_id numbering is per program: never merge the maps of two programs (L3 ranks).
/// Used by pmu-analyze and usable by any reader that joins on func_id (swimlane).

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"

namespace ptune::pmu {

/// One kernel of the program.
struct KernelInfo {
    std::string name;
    std::string core_type;  ///< "aic", "aiv" or empty when the source does not say
};

/// The func_id → kernel map of one program.
class KernelNames {
  public:
    /// Adds or replaces an entry.
    void add(std::uint32_t func_id, KernelInfo info) { entries_[func_id] = std::move(info); }
    /// The entry of `func_id`, nullptr when unknown.
    const KernelInfo* find(std::uint32_t func_id) const;
    /// The kernel name, or `func_<id>` when the map does not know the id.
    std::string display_name(std::uint32_t func_id) const;
    const std::map<std::uint32_t, KernelInfo>& entries() const { return entries_; }
    bool empty() const { return entries_.empty(); }
    /// Where the map came from (for messages and reports).
    std::string source;

  private:
    std::map<std::uint32_t, KernelInfo> entries_;
};

/// Reads the `KERNELS` entries of a kernel_config.py: every line holding
/// `"func_id": <int>, "name": "<kernel>"` (plus `"core_type": "aic"|"aiv"` when present).
/// Other lines are ignored; a line that mentions "func_id" but does not match is reported to
/// `diagnostics` with its line number. Fails when no entry is found.
Result<KernelNames> parse_kernel_config(std::string_view text, const std::string& source,
                                        Diagnostics& diagnostics);

/// Reads a `name_map_*.json`: `{"callable_id_to_name": {"0": "name", ...}, ...}`. Keys that are
/// not decimal ids and non-string names are reported and skipped. Fails on invalid JSON or a
/// missing `callable_id_to_name` object.
Result<KernelNames> parse_name_map_json(std::string_view text, const std::string& source,
                                        Diagnostics& diagnostics);

/// Reads a names file, choosing the parser by content: a document starting with `{` is a name
/// map, anything else a kernel_config.py.
Result<KernelNames> load_kernel_names(const std::filesystem::path& path, Diagnostics& diagnostics);

/// Looks for the names of the program that wrote `artifact` (e.g.
/// `<work_dir>/dfx_outputs/pmu.csv`): `name_map_*.json` next to it, then `kernel_config.py` in its
/// folder or its parent (not higher: under L3 the work dir above `rank<r>/d<k>/` belongs to another
/// program). nullopt when there is none.
std::optional<std::filesystem::path> find_kernel_names(const std::filesystem::path& artifact);

}  // namespace ptune::pmu
