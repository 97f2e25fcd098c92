#pragma once
/// @file inventory.hpp
/// Discovery of every artifact a PyPTO run leaves in its build directory, with a reason for each
/// one that is missing (many absences are normal: see rules-catalogue M10, swimlane.md §1).

#include <filesystem>
#include <string>
#include <vector>

#include "ptune/core/error.hpp"

namespace ptune::advise {

/// Kinds of artifact, in the order reports list them.
enum class ArtifactKind {
    MemoryReport,      ///< report/memory_after_*.txt, memory_after_AllocateMemoryAddr.txt first
    PerfHints,         ///< report/perf_hints.log
    SwimlaneRecords,   ///< dfx_outputs/chip_swimlane_records.json (or l2_swimlane_records.json)
    Deps,              ///< dfx_outputs/deps.json
    NameMap,           ///< dfx_outputs/name_map*.json
    MergedTrace,       ///< dfx_outputs/merged_swimlane_<ts>.json (converter output)
    Pmu,               ///< dfx_outputs/pmu.csv
    KernelConfig,      ///< kernel_config.py
    RunLog,            ///< console log of the run (given with --log)
    HostLog,           ///< host.<pid>.log (upstream-2026-09.md §2)
    HostStrace,        ///< host-strace.<pid>.log (§2.6)
    HostPhaseRecords,  ///< host_phase_records.jsonl (§2.8)
    ScopeStats,        ///< scope_stats/scope_stats.jsonl (§3)
    PipeTrace,         ///< core_swimlane_<label>_<ts>/<label>_trace[_perfetto].json (2026-12 §4)
    ServingTrace,      ///< serving-strace-swimlane.json (upstream-2026-12.md §5)
    DistributedMeta,   ///< distributed_meta.json of an L3 build (2026-12 §7.2)
    DispatchProgram,   ///< rank<N>/d<K>/dispatch_program.json (§7.3)
    BinaryContext,     ///< next_levels/<program>/cache/binary_context.json (§7.4)
};

/// Stable lower-case name of a kind, e.g. "memory-report".
std::string_view to_string(ArtifactKind kind);

/// One artifact found on disk. `scope` is empty for a single-chip run and `rank<r>/d<k>` for the
/// dispatch directories of an L3 run.
struct Artifact {
    ArtifactKind kind;
    std::filesystem::path path;
    std::string scope;
    std::string read;  ///< what the analysis read from it (host logs, scope stats), else empty

    /// The Artifacts table's "path or reason" cell: path, ` [scope]`, `; read: <read>`.
    std::string where() const;
};

/// An artifact kind that was not found, and why that may be normal.
struct MissingArtifact {
    ArtifactKind kind;
    std::string why;
};

/// An artifact that is there under its name but cannot be read: a FIFO, a device or a link to
/// one (reading could block or never end), or a file without read permission. Refused, never
/// opened, and never reported as "missing" (issue #24).
struct RefusedArtifact {
    ArtifactKind kind;
    std::filesystem::path path;
    std::string reason;  ///< "is a FIFO (named pipe), expected a regular file", "Permission denied"
};

/// A directory of the run that cannot be listed: its artifacts are not looked for.
struct UnreadableDirectory {
    std::filesystem::path path;
    std::string reason;  ///< the system's message, e.g. "Permission denied"
};

/// One row of the Artifacts table (text, markdown and HTML reports).
struct ArtifactRow {
    std::string kind;    ///< artifact kind, or "directory"
    std::string status;  ///< "found", "refused", "unreadable" or "missing"
    std::string text;    ///< path (found), path and reason (refused, unreadable), or why missing
};

/// Everything known about one run directory.
struct Inventory {
    std::filesystem::path run_dir;  ///< the analysed directory
    std::string program;            ///< from `<Program>_<YYYYMMDD_HHMMSS>`, if the name has it
    std::string timestamp;
    std::string chosen_note;  ///< how the run was picked, when a parent dir was given
    std::vector<Artifact> found;
    std::vector<MissingArtifact> missing;
    std::vector<RefusedArtifact> refused;
    std::vector<UnreadableDirectory> unreadable;

    /// The artifacts of one kind (several for L3 runs).
    std::vector<const Artifact*> of(ArtifactKind kind) const;

    /// The Artifacts table: found, refused, unreadable directories, then missing kinds.
    std::vector<ArtifactRow> rows() const;
};

/// Scans `dir`: a run directory, or a `build_output/` holding several, or a project directory
/// holding `build_output/` (the newest by the timestamp in the name, or the newest of `program`).
/// `logs` are console logs given by the user. Artifacts that cannot be read go to `refused` and
/// directories that cannot be listed to `unreadable` (both within the search depth), never to
/// `missing`. Fails only when `dir` is not a directory or `program` matches nothing.
Result<Inventory> take_inventory(const std::filesystem::path& dir, const std::string& program,
                                 int nth_latest, const std::vector<std::string>& logs);

}  // namespace ptune::advise
