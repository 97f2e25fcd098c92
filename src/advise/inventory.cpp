#include "ptune/advise/inventory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <system_error>

#include "ptune/core/discover.hpp"
#include "ptune/core/io.hpp"
#include "ptune/host/facts.hpp"
#include "ptune/memreport/pipeline.hpp"
#include "ptune/pipetrace/pipeline.hpp"

namespace ptune::advise {

namespace fs = std::filesystem;

std::string_view to_string(ArtifactKind kind) {
    switch (kind) {
        case ArtifactKind::MemoryReport:
            return "memory-report";
        case ArtifactKind::PerfHints:
            return "perf-hints";
        case ArtifactKind::SwimlaneRecords:
            return "swimlane-records";
        case ArtifactKind::Deps:
            return "deps";
        case ArtifactKind::NameMap:
            return "name-map";
        case ArtifactKind::MergedTrace:
            return "merged-trace";
        case ArtifactKind::Pmu:
            return "pmu";
        case ArtifactKind::KernelConfig:
            return "kernel-config";
        case ArtifactKind::RunLog:
            return "run-log";
        case ArtifactKind::HostLog:
            return "host-log";
        case ArtifactKind::HostStrace:
            return "host-strace";
        case ArtifactKind::HostPhaseRecords:
            return "host-phase-records";
        case ArtifactKind::ScopeStats:
            return "scope-stats";
        case ArtifactKind::PipeTrace:
            return "pipe-trace";
        case ArtifactKind::ServingTrace:
            return "serving-trace";
        case ArtifactKind::DistributedMeta:
            return "distributed-meta";
        case ArtifactKind::DispatchProgram:
            return "dispatch-program";
        case ArtifactKind::BinaryContext:
            return "binary-context";
    }
    return "unknown";
}

std::string Artifact::where() const {
    std::string out = path.string();
    if (!scope.empty()) out += " [" + scope + "]";
    if (!read.empty()) out += "; read: " + read;
    return out;
}

std::vector<const Artifact*> Inventory::of(ArtifactKind kind) const {
    std::vector<const Artifact*> out;
    for (const auto& artifact : found) {
        if (artifact.kind == kind) out.push_back(&artifact);
    }
    return out;
}

std::vector<ArtifactRow> Inventory::rows() const {
    std::vector<ArtifactRow> out;
    for (const auto& artifact : found)
        out.push_back({std::string(to_string(artifact.kind)), "found", artifact.where()});
    for (const auto& file : refused)
        out.push_back({std::string(to_string(file.kind)), "refused",
                       file.path.string() + ": " + file.reason + "; not read"});
    for (const auto& directory : unreadable)
        out.push_back({"directory", "unreadable",
                       directory.path.string() + ": " + directory.reason +
                           "; artifacts in it were not looked for"});
    for (const auto& absent : missing)
        out.push_back({std::string(to_string(absent.kind)), "missing", absent.why});
    return out;
}

namespace {

// Why an artifact may legitimately be absent (swimlane.md §1, perf-hints.md §2, pmu.md §1,
// mem-report.md §1, rules-catalogue M10).
std::string why_missing(ArtifactKind kind) {
    switch (kind) {
        case ArtifactKind::MemoryReport:
            return "pypto stopped writing the text memory report on 2026-07-28 (and the PTOAS "
                   "planner "
                   "never writes addresses): normal for newer builds; use the pass-dump rebuild or "
                   "python -m pypto.tools.memory_map";
        case ArtifactKind::PerfHints:
            return "the compiler writes perf_hints.log only when a hint fires (PH001 can be "
                   "disabled by "
                   "disabled_diagnostics or PYPTO_WARNING_LEVEL=none), so absence means no hints "
                   "or "
                   "hints turned off";
        case ArtifactKind::SwimlaneRecords:
            return "written only when the run used --enable-chip-swimlane (formerly "
                   "--enable-l2-swimlane); without it there is no schedule tier to analyse";
        case ArtifactKind::Deps:
            return "deps.json comes from a separate dep_gen pass that pypto runs onboard only; "
                   "simulator runs have none unless enable_dep_gen was set (no critical path then)";
        case ArtifactKind::NameMap:
            return "name_map*.json is synthesised from kernel_config.py; kernels show as func_<id> "
                   "unless kernel_config.py is present";
        case ArtifactKind::MergedTrace:
            return "pypto skips the converter on *sim platforms; run ptune swimlane-merge to make "
                   "the "
                   "trace";
        case ArtifactKind::Pmu:
            return "written only with --enable-pmu (RunConfig(enable_pmu=2)); no per-kernel pipe "
                   "analysis without it";
        case ArtifactKind::KernelConfig:
            return "kernel_config.py sits at the root of build_output/<Program>_<ts>/; without it "
                   "func_ids cannot be named";
        case ArtifactKind::RunLog:
            return "give the console log of the run with --log run.log to include effective_us";
        case ArtifactKind::HostLog:
        case ArtifactKind::HostStrace:
        case ArtifactKind::HostPhaseRecords:
        case ArtifactKind::ScopeStats:
        case ArtifactKind::PipeTrace:
        case ArtifactKind::ServingTrace:
        case ArtifactKind::DistributedMeta:
        case ArtifactKind::DispatchProgram:
        case ArtifactKind::BinaryContext:
            break;  // optional September/L3 outputs: listed when there, never reported missing
    }
    return "";
}

std::string scope_of(const fs::path& file, const fs::path& run_dir) {
    // rank<r>/d<k> directories of an L3 run.
    std::error_code ec;
    fs::path relative = fs::relative(file.parent_path(), run_dir, ec);
    std::string scope;
    for (const auto& part : relative) {
        std::string name = part.string();
        bool is_rank = name.rfind("rank", 0) == 0 && name.size() > 4;
        bool is_dispatch = name.size() > 1 && name[0] == 'd' &&
                           std::all_of(name.begin() + 1, name.end(), ::isdigit);
        if (is_rank || is_dispatch) scope += (scope.empty() ? "" : "/") + name;
    }
    return scope;
}

// Why a file found under an artifact's name cannot be read, or empty when it can. Only stat and
// access: opening a FIFO would block, reading a device would never end.
std::string refusal(const fs::path& file) {
    if (auto status = io::check_regular_file(file.string()); !status) return status.error().message;
    if (::access(file.c_str(), R_OK) != 0) return std::generic_category().message(errno);
    return "";
}

// Directories of the run that cannot be listed, to the inventory's search depth: the search
// skips them, so their artifacts would otherwise read as merely "missing" (issue #24).
std::vector<UnreadableDirectory> unreadable_directories(const fs::path& run, int max_depth) {
    std::vector<UnreadableDirectory> out;
    std::error_code ec;
    fs::recursive_directory_iterator it(run, fs::directory_options::skip_permission_denied, ec);
    for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
        if (it.depth() >= max_depth) it.disable_recursion_pending();
        std::error_code type;
        if (!it->is_directory(type)) continue;
        std::error_code listing;
        fs::directory_iterator probe(it->path(), listing);
        if (listing) out.push_back({it->path(), listing.message()});
    }
    return out;
}

// The name filters find_files cannot express.
bool wanted(ArtifactKind kind, const fs::path& file) {
    switch (kind) {
        case ArtifactKind::NameMap:
            return file.extension() == ".json";
        case ArtifactKind::HostLog:
        case ArtifactKind::HostStrace:
            return host::is_host_log_name(file.filename().string());
        default:
            return true;
    }
}

}  // namespace

Result<Inventory> take_inventory(const fs::path& dir, const std::string& program, int nth_latest,
                                 const std::vector<std::string>& logs) {
    Inventory inventory;
    auto run = discover::resolve_run(discover::runs_root(dir), program, nth_latest,
                                     &inventory.chosen_note);
    if (!run) return run.error();
    inventory.run_dir = *run;
    if (auto parsed = discover::parse_run_dir_name(*run)) {
        inventory.program = parsed->program;
        inventory.timestamp = parsed->timestamp;
    }
    const std::vector<std::pair<ArtifactKind, std::vector<std::string>>> patterns = {
        {ArtifactKind::MemoryReport, {}},  // memreport::find_reports
        {ArtifactKind::PerfHints, {"perf_hints.log"}},
        {ArtifactKind::SwimlaneRecords, {"chip_swimlane_records.json", "l2_swimlane_records.json"}},
        {ArtifactKind::Deps, {"deps.json"}},
        {ArtifactKind::NameMap, {"name_map*"}},
        {ArtifactKind::MergedTrace, {"merged_swimlane*"}},
        {ArtifactKind::Pmu, {"pmu.csv"}},
        {ArtifactKind::KernelConfig, {"kernel_config.py"}},
        // September output directories (upstream-2026-09.md §2, §3): a directory holding only
        // these is a run too.
        {ArtifactKind::HostLog, {"host.*"}},
        {ArtifactKind::HostStrace, {"host-strace.*"}},
        {ArtifactKind::HostPhaseRecords, {"host_phase_records.jsonl"}},
        {ArtifactKind::ScopeStats, {"scope_stats.jsonl"}},
        {ArtifactKind::PipeTrace, {}},  // pipetrace::find_traces: one per core_swimlane_* folder
        {ArtifactKind::ServingTrace, {"serving-strace-swimlane.json"}},
        {ArtifactKind::DistributedMeta, {"distributed_meta.json"}},
        {ArtifactKind::DispatchProgram, {"dispatch_program.json"}},
        {ArtifactKind::BinaryContext, {"binary_context.json"}},
    };
    constexpr int kDepth = 6;
    for (const auto& [kind, names] : patterns) {
        // Memory reports are found as mem-report finds them, in its reading order.
        auto files = kind == ArtifactKind::MemoryReport ? memreport::find_reports(*run)
                     : kind == ArtifactKind::PipeTrace  ? pipetrace::find_traces(*run, kDepth)
                                                        : discover::find_files(*run, names, kDepth);
        for (const auto& file : files) {
            if (!wanted(kind, file)) continue;
            // There but never readable (a FIFO, a link to /dev/zero, no permission): refused,
            // not "missing", and never handed to an analyzer.
            if (std::string reason = refusal(file); !reason.empty()) {
                inventory.refused.push_back({kind, file, std::move(reason)});
                continue;
            }
            inventory.found.push_back({kind, file, scope_of(file, *run), ""});
        }
    }
    inventory.unreadable = unreadable_directories(*run, kDepth);
    for (const auto& log : logs) inventory.found.push_back({ArtifactKind::RunLog, log, "", ""});
    for (const auto& pattern : patterns) {
        ArtifactKind kind = pattern.first;
        bool refused = std::any_of(inventory.refused.begin(), inventory.refused.end(),
                                   [&](const RefusedArtifact& file) { return file.kind == kind; });
        std::string why = why_missing(kind);
        if (inventory.of(kind).empty() && !refused && !why.empty())
            inventory.missing.push_back({kind, std::move(why)});
    }
    if (logs.empty())
        inventory.missing.push_back({ArtifactKind::RunLog, why_missing(ArtifactKind::RunLog)});
    return inventory;
}

}  // namespace ptune::advise
