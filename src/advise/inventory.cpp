#include "ptune/advise/inventory.hpp"

#include <algorithm>
#include <map>

#include "ptune/core/discover.hpp"
#include "ptune/core/io.hpp"
#include "ptune/memreport/pipeline.hpp"

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
            break;  // optional September outputs: listed when read, never reported missing
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
    };
    for (const auto& [kind, names] : patterns) {
        // Memory reports are found as mem-report finds them, in its reading order.
        auto files = kind == ArtifactKind::MemoryReport ? memreport::find_reports(*run)
                                                        : discover::find_files(*run, names, 6);
        for (const auto& file : files) {
            if (kind == ArtifactKind::NameMap && file.extension() != ".json") continue;
            // An artifact that is there but can never be read (a FIFO, a link to /dev/zero)
            // is an error, not "missing".
            if (auto status = io::check_regular_file(file.string()); !status) return status.error();
            inventory.found.push_back({kind, file, scope_of(file, *run), ""});
        }
    }
    for (const auto& log : logs) inventory.found.push_back({ArtifactKind::RunLog, log, "", ""});
    for (const auto& [kind, names] : patterns) {
        if (inventory.of(kind).empty()) inventory.missing.push_back({kind, why_missing(kind)});
    }
    if (logs.empty())
        inventory.missing.push_back({ArtifactKind::RunLog, why_missing(ArtifactKind::RunLog)});
    return inventory;
}

}  // namespace ptune::advise
