#pragma once
/// @file pipeline.hpp
/// The pmu.csv pipeline every consumer calls (pmu-analyze, advise): what the user named → one
/// pmu.csv → the program's kernel names (core/kernel_names.hpp: the named file, else the lookup
/// next to the csv) → the streamed table. Then analyze() and publish_metrics() (analyzer.hpp)
/// and the reports of report.hpp. The pmu.* thresholds are rule params the rules engine reads;
/// the analysis itself has none.

#include <filesystem>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/core/kernel_names.hpp"
#include "ptune/pmu/model.hpp"

namespace ptune::pmu {

/// Resolves what the user named to one pmu.csv: a file (or "-" for stdin) as is; a directory
/// names a run (build_output/ → its newest run), its dfx_outputs/ or a folder above, and exactly
/// one pmu.csv must be under it, because func_id numbering (and so the names) is per program.
/// The run chosen is noted to `diagnostics`.
Result<std::string> resolve_csv(const std::string& input, Diagnostics& diagnostics);

/// One pmu.csv as read.
struct LoadedPmu {
    PmuTable table;
    KernelNames names;                ///< empty when the program's names are unknown
    std::vector<std::string> inputs;  ///< every file read, the csv first
};

/// Reads the kernel names and then the csv (streamed). `names_file` is the user's --names / -k
/// (an unusable one is an error); without it the names are looked up next to the csv (not for
/// stdin), and an unusable one found there is a warning. Fails when the csv is not a pmu.csv.
Result<LoadedPmu> load_pmu(const std::string& csv_path, const std::filesystem::path& names_file,
                           Diagnostics& diagnostics);

}  // namespace ptune::pmu
