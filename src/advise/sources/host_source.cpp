// The host source: host logs (`host.<pid>.log`, `host-strace.<pid>.log`),
// host_phase_records.jsonl and the --log files through bench-summary's host pipeline
// (upstream-2026-09.md §2).

#include <fmt/format.h>

#include "ptune/host/facts.hpp"
#include "source_util.hpp"
#include "sources.hpp"

namespace ptune::advise {

namespace {

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

class LoadedHost : public LoadedSource {
  public:
    explicit LoadedHost(host::HostFacts facts) : facts_(std::move(facts)) {}

    void publish(rules::MetricStore& store) override { host::publish(facts_, store); }

    void contribute(Advice& advice, const rules::MetricStore&) override {
        list_host_artifacts(advice.inventory, facts_);
        // One section per table; the first carries the data of all of them (JSON
        // analyses.host, bench-summary's `host` schema).
        nlohmann::json data = host::host_json(facts_);
        for (render::Table& table : host::host_tables(facts_)) {
            Section section{"host", table.title, std::move(table), std::move(data), {}};
            data = nlohmann::json::object();
            section.table.title.clear();
            advice.sections.push_back(std::move(section));
        }
    }

  private:
    host::HostFacts facts_;
};

class HostSource : public Source {
  public:
    std::vector<ArtifactKind> kinds() const override {
        return {ArtifactKind::HostLog, ArtifactKind::HostStrace, ArtifactKind::HostPhaseRecords};
    }

    std::unique_ptr<LoadedSource> load(SourceContext& context) const override {
        // The host files the inventory found (refused ones are never opened), then --log.
        std::vector<std::string> inputs;
        for (ArtifactKind kind : kinds()) {
            for (const Artifact* artifact : context.inventory.of(kind))
                inputs.push_back(artifact->path.string());
        }
        inputs.insert(inputs.end(), context.options.logs.begin(), context.options.logs.end());
        host::HostFacts facts = host::collect_host_facts(inputs, context.diagnostics);
        if (facts.empty()) return nullptr;
        return std::make_unique<LoadedHost>(std::move(facts));
    }
};

}  // namespace

std::unique_ptr<Source> make_host_source() {
    return std::make_unique<HostSource>();
}

}  // namespace ptune::advise
