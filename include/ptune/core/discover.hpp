#pragma once
/// @file discover.hpp
/// Finding a PyPTO run in a directory tree: `build_output/<Program>_<YYYYMMDD_HHMMSS>/`
/// directories are chosen by the timestamp in their name, never by modification time.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/error.hpp"

namespace ptune::discover {

/// A `<Program>_<YYYYMMDD_HHMMSS>` run directory.
struct RunDir {
    std::filesystem::path path;
    std::string program;    ///< the part before the timestamp
    std::string timestamp;  ///< "YYYYMMDD_HHMMSS", sortable as text
};

/// Parses a directory name of the form `<Program>_<YYYYMMDD_HHMMSS>`; nullopt otherwise.
std::optional<RunDir> parse_run_dir_name(const std::filesystem::path& path);

/// The run directories directly under `dir`, oldest first (by timestamp, then by name).
std::vector<RunDir> list_runs(const std::filesystem::path& dir);

/// Where the runs of a build are: `dir/build_output` when `dir` is a project directory holding
/// one, else `dir` itself.
std::filesystem::path runs_root(const std::filesystem::path& dir);

/// The run directories under `dir` at any depth up to `max_depth` (not inside another run),
/// oldest first (by timestamp, then by path).
std::vector<RunDir> find_runs(const std::filesystem::path& dir, int max_depth = 6);

/// Resolves what the user named to one run directory, the same way for every command:
/// - a run directory itself is returned as is;
/// - a directory holding run directories at any depth (find_runs: `build_output/`, a folder of
///   projects) yields its newest run by the timestamp in the name (never mtime), or the newest
///   of `program` when given; `nth_latest` 1 is the newest, 2 the one before, ...;
/// - any other directory is returned as is (it may be a `dfx_outputs/` or a plain folder).
/// `chosen_note` receives a sentence for stderr saying which run was picked and why, and
/// listing the runs not read: one report is never made over several runs.
Result<std::filesystem::path> resolve_run(const std::filesystem::path& dir,
                                          const std::string& program, int nth_latest,
                                          std::string* chosen_note);

/// Files under `dir` (recursively, at most `max_depth` levels) whose name matches one of the
/// exact `names` or, for entries ending in `*`, starts with the prefix. Sorted by path. Every
/// non-directory entry counts (FIFOs and devices too: reading them then fails with a clear
/// message rather than the artifact looking absent).
std::vector<std::filesystem::path> find_files(const std::filesystem::path& dir,
                                              const std::vector<std::string>& names,
                                              int max_depth = 6);

}  // namespace ptune::discover
