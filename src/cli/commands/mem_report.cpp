// ptune mem-report REPORT|DUMP|DIR: reads memory_after_AllocateMemoryAddr.txt (v1–v3) or
// rebuilds it from passes_dump/NN_after_AllocateMemoryAddr.py, tells how full each on-chip
// space runs per function, what is live at each space's peak, and which space to re-tile.

#include "cli/commands/commands.hpp"
#include "ptune/memreport/findings.hpp"
#include "ptune/memreport/pipeline.hpp"
#include "ptune/memreport/report.hpp"

namespace ptune::cli {

namespace {

class MemReportCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option(
               "report", path_,
               "memory_after_AllocateMemoryAddr.txt, a pass dump NN_after_AllocateMemoryAddr.py, "
               "a build directory (build_output/ or one run), or - for stdin")
            ->required();
        app.add_option(
               "--backend", backend_name_,
               "a2a3 or a5: overrides the report's backend and supplies limits printed as N/A; "
               "for a pass dump, before ptoas/*.pto target_arch, compiled_meta.json "
               "backend_type and the assumed a2a3")
            ->check(CLI::IsMember({"a2a3", "a5"}));
    }

    int run(Context& context) override {
        context.add_inputs({path_});
        memreport::Options options;
        if (!backend_name_.empty()) options.backend = memreport::parse_backend_name(backend_name_);
        auto source = memreport::locate_report(path_, context.diagnostics);
        if (!source) return context.fail(source.error());
        auto analysis = memreport::load_and_analyze(*source, options, context.diagnostics);
        if (!analysis) return context.fail(analysis.error());
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());

        // One function at a time (findings.hpp): a report of 200,000 functions never holds
        // a metric map or a table per function, nor its JSON view as a DOM.
        memreport::Findings findings(*analysis, **catalogue);
        render::Report report = memreport::notes_report(*analysis);
        int code =
            context.emit(report, memreport::make_streaming_renderers(
                                     *analysis, findings, memreport::usage_bands(**catalogue)));
        return code != 0 ? code : context.findings_exit(findings.worst());
    }

  private:
    std::string path_;
    std::string backend_name_;
};

}  // namespace

std::unique_ptr<Command> make_mem_report() {
    return std::make_unique<MemReportCommand>();
}

}  // namespace ptune::cli
