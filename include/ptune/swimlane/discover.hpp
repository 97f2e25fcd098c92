#pragma once
/// @file discover.hpp
/// Finding the files of a swimlane capture in what the user named: a records file, a
/// `dfx_outputs/` directory, a `build_output/<Program>_<ts>/` run (or `build_output/` itself, the
/// newest run by the timestamp in its name), or an L3 tree `rank{r}/d{k}/`.

#include <filesystem>
#include <string>
#include <vector>

#include "ptune/core/error.hpp"

namespace ptune::swimlane {

/// The files of one chip capture (one records file with its own deps and names).
struct CaptureFiles {
    std::filesystem::path records;  ///< chip_/l2_swimlane_records.json or l2_perf_records*.json
    std::filesystem::path deps;     ///< sibling deps.json; empty when absent
    /// The names next to the records, found by find_kernel_names_near() (core/kernel_names.hpp):
    std::filesystem::path name_map;  ///< unique sibling name_map*.json; empty when none/several
    std::filesystem::path kernel_config;  ///< kernel_config.py beside or one folder up; or empty
    std::string label;                    ///< "rank0/d1" in an L3 tree; empty for a single capture
    int rank = -1;                        ///< L3 rank r, else −1
    int dispatch = -1;                    ///< L3 dispatch k, else −1
};

/// What discovery found, with sentences for stderr saying what was picked and why.
struct Discovery {
    std::vector<CaptureFiles> captures;  ///< one for a single capture, rank/dispatch order for L3
    std::vector<std::string> notes;
};

/// Resolves a records file or a directory to its captures. A file is taken as the records file
/// (siblings looked up next to it). A directory is searched for a records file directly, in
/// `dfx_outputs/`, in the newest `<Program>_<ts>/` run (by name, never by mtime), and for an L3
/// `rank*/d*/` tree. Fails with a message naming the path when nothing is found.
Result<Discovery> discover_captures(const std::filesystem::path& input);

/// Every existing file in the capture folder `dir` that reading a capture there may take as an
/// input, whether this run read it or not (an alignment log is read instead of the host logs,
/// swimlane-analyze draws no host phases): the records files, `deps.json`, `name_map*.json`,
/// `kernel_config.py` (also one folder up), `host_clock_alignment.*.log`, `host.*.log`,
/// `dispatch_identity.json`, `dispatch_program.json`, `host_phase_records.jsonl`. The commands
/// add them to their inputs: an output over one is refused, as it would be read next time.
std::vector<std::string> capture_folder_inputs(const std::filesystem::path& dir);

}  // namespace ptune::swimlane
