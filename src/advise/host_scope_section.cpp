// advise sections for the host side and the ring pressure of a run: host logs
// (`host.<pid>.log`, `host-strace.<pid>.log`), host_phase_records.jsonl and scope_stats.jsonl
// found in the run directory (upstream-2026-09.md §2, §3), through the same pipelines as
// bench-summary and `ptune scope-stats`.

#include <filesystem>

#include <fmt/format.h>

#include "ptune/advise/advisor.hpp"
#include "ptune/host/facts.hpp"
#include "ptune/scope/pipeline.hpp"

namespace ptune::advise {

namespace {

/// Notes what was read from `path` on its inventory entry; a file the inventory did not find
/// (a host log given with --log) gets an entry of its own.
void note_read(Inventory& inventory, ArtifactKind kind, const std::filesystem::path& path,
               std::string read) {
    for (Artifact& artifact : inventory.found) {
        if (artifact.kind == kind && artifact.path == path) {
            artifact.read = std::move(read);
            return;
        }
    }
    inventory.found.push_back({kind, path, "", std::move(read)});
}

/// The host files the section read, with what was read from each, in the Artifacts table.
void list_host_artifacts(Inventory& inventory, const host::HostFacts& facts) {
    for (const host::HostLogFacts& log : facts.logs) {
        std::uint64_t dropped = 0;
        for (const host::HostLogDrops& drops : log.drops) dropped += drops.total;
        std::size_t segments = 0;
        for (const host::BindBreakdown& bind : log.binds) segments += bind.segments.size();
        bool strace =
            std::filesystem::path(log.source).filename().string().starts_with("host-strace.");
        note_read(
            inventory, strace ? ArtifactKind::HostStrace : ArtifactKind::HostLog, log.source,
            fmt::format("{} line(s), {} span(s), {} bind segment(s), {} host-orch line(s), {} "
                        "cut '~', {} torn, {} dropped",
                        log.stats.lines, log.stats.spans, segments, log.host_orch.size(),
                        log.stats.cut_records, log.stats.torn_spans, dropped));
    }
    for (const host::PhaseRecordsFacts& records : facts.phase_records) {
        std::size_t count = 0;
        for (const host::PhasePass& pass : records.passes) count += pass.records.size();
        note_read(inventory, ArtifactKind::HostPhaseRecords, records.source,
                  fmt::format("{} pass(es), {} record(s)", records.passes.size(), count));
    }
}

void add_scope(Advice& advice, rules::MetricStore& store, Diagnostics& diagnostics) {
    // The files the inventory found, each on its own: one that cannot be read costs only
    // itself (refused ones are never opened), and the orch_error_code is looked for in the
    // host logs up to the run directory.
    std::optional<scope::Loaded> loaded;
    for (const Artifact* artifact : advice.inventory.of(ArtifactKind::ScopeStats)) {
        auto one = scope::load(artifact->path.string(), "", diagnostics);
        if (!one) {
            diagnostics.warn(one.error().file, one.error().line, one.error().message);
            continue;
        }
        if (!loaded) loaded.emplace();
        for (auto& file : one->files) loaded->files.push_back(std::move(file));
        for (auto& input : one->inputs) loaded->inputs.push_back(std::move(input));
        if (!loaded->orch_error) {
            loaded->orch_error = one->orch_error ? one->orch_error
                                                 : scope::find_orch_error_near(
                                                       artifact->path, advice.inventory.run_dir);
        }
    }
    if (!loaded) return;
    scope::publish(*loaded, store);
    for (const scope::ScopeStats& file : loaded->files) {
        note_read(advice.inventory, ArtifactKind::ScopeStats, file.source,
                  fmt::format("schema v{}, {} sample(s), {} scope(s) paired, {} ring(s){}",
                              file.meta.version, file.samples, file.scopes.size(),
                              file.meta.task_window_max.size(),
                              file.open_scopes.empty()
                                  ? std::string()
                                  : fmt::format(", {} open scope(s)", file.open_scopes.size())));
    }
    render::Report report = scope::build_report(*loaded, {}, 5);
    std::vector<render::Table>& tables = report.tables;
    Section rings{"scope", "Ring pressure per scope (scope_stats.jsonl)", tables.at(0), report.data,
                  report.notes};
    advice.sections.push_back(std::move(rings));
    Section nearest{"scope-nearest",
                    "Scopes nearest their ring limit",
                    tables.at(1),
                    nlohmann::json::object(),
                    {}};
    if (tables.size() > 2) {
        for (const auto& row : tables[2].rows)
            nearest.notes.push_back(
                fmt::format("open scope (the run wedged here): {} depth {} ring {} line {}", row[0],
                            row[1], row[2], row[3]));
    }
    advice.sections.push_back(std::move(nearest));
}

void add_host(Advice& advice, const AdviseOptions& options, rules::MetricStore& store,
              Diagnostics& diagnostics) {
    // The host files the inventory found (refused ones are never opened), then --log.
    std::vector<std::string> inputs;
    for (ArtifactKind kind :
         {ArtifactKind::HostLog, ArtifactKind::HostStrace, ArtifactKind::HostPhaseRecords}) {
        for (const Artifact* artifact : advice.inventory.of(kind))
            inputs.push_back(artifact->path.string());
    }
    inputs.insert(inputs.end(), options.logs.begin(), options.logs.end());
    host::HostFacts facts = host::collect_host_facts(inputs, diagnostics);
    if (facts.empty()) return;
    host::publish(facts, store);
    list_host_artifacts(advice.inventory, facts);
    // One section per table; the first carries the data of all of them (JSON analyses.host,
    // bench-summary's `host` schema).
    nlohmann::json data = host::host_json(facts);
    for (render::Table& table : host::host_tables(facts)) {
        Section section{"host", table.title, std::move(table), std::move(data), {}};
        data = nlohmann::json::object();
        section.table.title.clear();
        advice.sections.push_back(std::move(section));
    }
}

}  // namespace

/// Called by advise() after the other analyzers.
void add_host_and_scope(Advice& advice, const AdviseOptions& options, rules::MetricStore& store,
                        Diagnostics& diagnostics) {
    add_host(advice, options, store, diagnostics);
    add_scope(advice, store, diagnostics);
}

}  // namespace ptune::advise
