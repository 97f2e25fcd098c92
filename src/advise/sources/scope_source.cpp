// The scope source: scope_stats.jsonl (ring pressure per scope, upstream-2026-09.md §3) through
// scope-stats' pipeline.

#include <fmt/format.h>

#include "ptune/scope/pipeline.hpp"
#include "source_util.hpp"
#include "sources.hpp"

namespace ptune::advise {

namespace {

class LoadedScope : public LoadedSource {
  public:
    explicit LoadedScope(scope::Loaded loaded) : loaded_(std::move(loaded)) {}

    void publish(rules::MetricStore& store) override { scope::publish(loaded_, store); }

    void contribute(Advice& advice, const rules::MetricStore&) override {
        for (const scope::ScopeStats& file : loaded_.files) {
            note_read(advice.inventory, ArtifactKind::ScopeStats, file.source,
                      fmt::format("schema v{}, {} sample(s), {} scope(s) paired, {} ring(s){}",
                                  file.meta.version, file.samples, file.scopes.size(),
                                  file.meta.task_window_max.size(),
                                  file.open_scopes.empty() ? std::string()
                                                           : fmt::format(", {} open scope(s)",
                                                                         file.open_scopes.size())));
        }
        render::Report report = scope::build_report(loaded_, {}, 5);
        std::vector<render::Table>& tables = report.tables;
        advice.sections.push_back({"scope", "Ring pressure per scope (scope_stats.jsonl)",
                                   tables.at(0), report.data, report.notes});
        Section nearest{"scope-nearest",
                        "Scopes nearest their ring limit",
                        tables.at(1),
                        nlohmann::json::object(),
                        {}};
        if (tables.size() > 2) {
            for (const auto& row : tables[2].rows)
                nearest.notes.push_back(
                    fmt::format("open scope (the run wedged here): {} depth {} ring {} line {}",
                                row[0], row[1], row[2], row[3]));
        }
        advice.sections.push_back(std::move(nearest));
    }

  private:
    scope::Loaded loaded_;
};

class ScopeSource : public Source {
  public:
    std::vector<ArtifactKind> kinds() const override { return {ArtifactKind::ScopeStats}; }

    // The files the inventory found, each on its own: one that cannot be read costs only itself
    // (refused ones are never opened), and the orch_error_code is looked for in the host logs
    // up to the run directory.
    std::unique_ptr<LoadedSource> load(SourceContext& context) const override {
        std::optional<scope::Loaded> loaded;
        for (const Artifact* artifact : context.inventory.of(ArtifactKind::ScopeStats)) {
            auto one = scope::load(artifact->path.string(), "", context.diagnostics);
            if (!one) {
                context.diagnostics.warn(one.error().file, one.error().line, one.error().message);
                continue;
            }
            if (!loaded) loaded.emplace();
            for (auto& file : one->files) loaded->files.push_back(std::move(file));
            for (auto& input : one->inputs) loaded->inputs.push_back(std::move(input));
            if (!loaded->orch_error) {
                loaded->orch_error =
                    one->orch_error
                        ? one->orch_error
                        : scope::find_orch_error_near(artifact->path, context.inventory.run_dir,
                                                      &context.diagnostics, &loaded->inputs);
            }
        }
        if (!loaded) return nullptr;
        return std::make_unique<LoadedScope>(std::move(*loaded));
    }
};

}  // namespace

std::unique_ptr<Source> make_scope_source() {
    return std::make_unique<ScopeSource>();
}

}  // namespace ptune::advise
