// ptune mem-report REPORT|DIR: reads memory_after_AllocateMemoryAddr.txt (v1–v3), tells how
// full each on-chip space runs per function, and which space to re-tile (rules mem.*).

#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands/commands.hpp"
#include "ptune/core/discover.hpp"
#include "ptune/core/terminal.hpp"
#include "ptune/core/text.hpp"
#include "ptune/memreport/analyzer.hpp"
#include "ptune/memreport/parser.hpp"

namespace ptune::cli {

namespace {

namespace fs = std::filesystem;
using namespace ptune::memreport;

constexpr std::string_view kReportName = "memory_after_AllocateMemoryAddr.txt";

// SGR colour of a usage cell: red over the limit, yellow when marginal (above 85 %).
std::string_view usage_colour(std::string_view cell) {
    if (cell.size() < 2 || cell.back() != '%') return {};
    auto pct = text::parse_double(cell.substr(0, cell.size() - 1));
    if (!pct || *pct <= 85) return {};
    return *pct > 100 ? "31" : "33";
}

// The standard text layout, with usage cells coloured on a terminal. Colour is added after the
// table is laid out, so escape codes never disturb the column widths.
class TextRenderer : public render::Renderer {
  public:
    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions& options) const override {
        bool first = true;
        for (const auto& table : report.tables) {
            if (!first) out << '\n';
            first = false;
            out << term::paint(table.title, "1", options.color) << '\n';
            std::ostringstream laid_out;
            render::write_text_table(table, laid_out);
            std::istringstream lines(laid_out.str());
            std::string line;
            for (std::size_t row = 0; std::getline(lines, line); ++row) {
                // Left/Right near 100 % is normal (rule M4): never highlighted.
                if (options.color && row > 0 && row <= table.rows.size() &&
                    table.rows[row - 1][0] != "Left" && table.rows[row - 1][0] != "Right") {
                    paint_usage(line, table.rows[row - 1][3]);
                }
                out << line << '\n';
            }
        }
        for (const auto& note : report.notes) out << note << '\n';
        if (!report.findings.empty()) {
            if (!report.tables.empty() || !report.notes.empty()) out << '\n';
            render::write_text_findings(report.findings, out, options.color);
        }
    }

  private:
    static void paint_usage(std::string& line, const std::string& cell) {
        std::string_view colour = usage_colour(cell);
        auto at = line.find(" " + cell + " ");
        if (colour.empty() || at == std::string::npos) return;
        line.replace(at + 1, cell.size(), term::paint(cell, colour, true));
    }
};

// CSV is one table: every (function, space) row with exact numbers.
class CsvRenderer : public render::Renderer {
  public:
    explicit CsvRenderer(render::Table table) : table_(std::move(table)) {}
    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions& options) const override {
        render::Report flat;
        flat.command = report.command;
        flat.tables.push_back(table_);
        render::make_standard_renderer("csv")->render(flat, out, options);
    }

  private:
    render::Table table_;
};

std::string number_text(double value) {
    return fmt::format("{}", value);
}

// The timestamp of the nearest `<Program>_<YYYYMMDD_HHMMSS>` directory holding `path`.
std::string run_timestamp(const fs::path& path) {
    for (fs::path dir = path.parent_path(); !dir.empty() && dir != dir.parent_path();
         dir = dir.parent_path()) {
        if (auto run = discover::parse_run_dir_name(dir)) return run->timestamp;
    }
    return "";
}

// The memory reports under a directory, the one to read first: the newest run's, and there
// memory_after_AllocateMemoryAddr.txt before reports a user's ReportInstrument wrote after
// other passes.
std::vector<fs::path> find_reports(const fs::path& dir) {
    std::vector<fs::path> found;
    for (const auto& path : discover::find_files(dir, {"memory_after_*"})) {
        if (path.extension() == ".txt") found.push_back(path);
    }
    std::vector<std::pair<std::string, fs::path>> keyed;
    for (auto& path : found) keyed.emplace_back(run_timestamp(path), std::move(path));
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first > b.first;
        return (a.second.filename() == kReportName) > (b.second.filename() == kReportName);
    });
    found.clear();
    for (auto& entry : keyed) found.push_back(std::move(entry.second));
    return found;
}

render::Table function_table(const Function& function) {
    render::Table table;
    // The name comes from the report as is; the text renderer prints titles unchanged.
    table.title =
        text::is_valid_utf8(function.name) ? function.name : text::sanitize_utf8(function.name);
    table.columns = {"space", "used", "limit", "usage", "memrefs", "buffers"};
    table.align = {render::Align::Left,  render::Align::Right, render::Align::Right,
                   render::Align::Right, render::Align::Right, render::Align::Right};
    for (const auto& usage : function.spaces) {
        std::string limit = usage.limit_bytes ? format_size(*usage.limit_bytes) : "N/A";
        if (usage.limit_from_backend) limit += "*";
        table.rows.push_back({usage.space, format_size(usage.used_bytes), limit,
                              usage.usage_pct ? format_percent(*usage.usage_pct) : "N/A",
                              std::to_string(usage.memrefs),
                              usage.buffers.empty() ? "-" : std::to_string(usage.buffers.size())});
    }
    return table;
}

render::Table csv_table(const Report& parsed) {
    render::Table table;
    table.columns = {"function",    "space",     "used_bytes", "used_exact",
                     "limit_bytes", "usage_pct", "memrefs"};
    for (const auto& function : parsed.functions) {
        for (const auto& usage : function.spaces) {
            table.rows.push_back({function.name, usage.space, std::to_string(usage.used_bytes),
                                  usage.used_exact ? "true" : "false",
                                  usage.limit_bytes ? std::to_string(*usage.limit_bytes) : "",
                                  usage.usage_pct ? number_text(*usage.usage_pct) : "",
                                  std::to_string(usage.memrefs)});
        }
    }
    return table;
}

std::string summary_line(const Report& parsed, const BackendChoice& choice) {
    std::string backend = choice.backend ? std::string(to_string(*choice.backend)) : "unknown";
    if (choice.source == "header")
        backend += fmt::format(" (Backend: {})", parsed.backend_token);
    else if (choice.source == "limits")
        backend += " (inferred from the limits)";
    else if (choice.source == "option")
        backend += " (--backend)";
    return fmt::format("{}: format {}, backend {}, {} function(s)", parsed.source,
                       to_string(parsed.version), backend, parsed.functions.size());
}

class MemReportCommand : public Command {
  public:
    void configure(CLI::App& app) override {
        app.add_option(
               "report", path_,
               "memory_after_AllocateMemoryAddr.txt, a build directory (build_output/ or one run), "
               "or - for stdin")
            ->required();
        app.add_option(
               "--backend", backend_name_,
               "a2a3 or a5: overrides the report's backend and supplies limits printed as N/A")
            ->check(CLI::IsMember({"a2a3", "a5"}));
    }

    int run(Context& context) override {
        context.add_inputs({path_});
        std::optional<Backend> forced;
        if (!backend_name_.empty()) forced = parse_backend_name(backend_name_);

        std::string file = path_;
        std::error_code error;
        if (path_ != "-" && fs::is_directory(path_, error)) {
            std::string note;
            // A project directory holds build_output/; look for the newest run there.
            fs::path base = fs::is_directory(fs::path(path_) / "build_output", error)
                                ? fs::path(path_) / "build_output"
                                : fs::path(path_);
            auto run_dir = discover::resolve_run(base, "", 1, &note);
            if (!run_dir) return context.fail(run_dir.error());
            if (!note.empty()) context.diagnostics.note(base.string(), 0, note);
            auto reports = find_reports(*run_dir);
            if (reports.empty()) {
                // The newest run may come from a current pypto while an older one has a report.
                if (*run_dir != base) {
                    if (auto older = find_reports(base); !older.empty()) {
                        context.diagnostics.note(
                            older.front().string(), 0,
                            "an older run has a memory report; name it to read it");
                    }
                }
                return no_report(context, run_dir->string());
            }
            file = reports.front().string();
            for (std::size_t i = 1; i < reports.size(); ++i) {
                context.diagnostics.note(
                    reports[i].string(), 0,
                    fmt::format("not read (reading {}); name it to read it", file));
            }
        }
        auto input = io::open_input(file);
        if (!input) return context.fail(input.error());
        Report parsed = parse_report(input->stream(), file, context.diagnostics);
        if (parsed.functions.empty()) {
            // Line-by-line complaints about a file that is not a memory report at all bury the
            // one message that matters.
            bool has_header =
                !parsed.pass.empty() || !parsed.backend_token.empty() || parsed.functions_declared;
            if (!has_header) context.diagnostics.clear();
            return context.fail(
                Error{"no memory-report table found (expected '--- function ---' blocks with "
                      "Space | Used | Limit | Usage | MemRefs rows)",
                      file, 0, ExitCode::InputError});
        }
        BackendChoice choice = analyze(parsed, forced, context.diagnostics);

        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        rules::MetricStore store;
        publish_metrics(parsed, choice, store);

        render::Report report;
        report.command = "mem-report";
        // The JSON view of a large report is big; build it only when it is printed.
        if (context.options.format == "json") report.data = to_json(parsed, choice);
        report.findings = rules::evaluate(**catalogue, store, {"mem."});
        for (const auto& function : parsed.functions)
            report.tables.push_back(function_table(function));
        report.notes.push_back(summary_line(parsed, choice));
        if (std::any_of(parsed.functions.begin(), parsed.functions.end(),
                        [](const Function& function) {
                            return std::any_of(
                                function.spaces.begin(), function.spaces.end(),
                                [](const SpaceUsage& usage) { return usage.limit_from_backend; });
                        })) {
            report.notes.push_back(
                "* limit printed as N/A in the report; the capacity of --backend is used");
        }
        return finish(context, report, csv_table(parsed));
    }

  private:
    // M10: no text report is normal for builds with pypto from 2026-07-28 on.
    int no_report(Context& context, const std::string& searched) {
        auto catalogue = context.catalogue();
        if (!catalogue) return context.fail(catalogue.error());
        rules::MetricStore store;
        store.run().metrics["mem.report_found"] = 0;
        store.run().labels["mem.searched"] = searched;
        render::Report report;
        report.command = "mem-report";
        report.data = {{"source", nullptr},
                       {"format_version", nullptr},
                       {"backend", nullptr},
                       {"backend_source", nullptr},
                       {"backend_token", nullptr},
                       {"pass", nullptr},
                       {"functions_declared", nullptr},
                       {"functions", nlohmann::json::array()}};
        report.findings = rules::evaluate(**catalogue, store, {"mem."});
        render::Table empty;
        empty.columns = csv_table(Report{}).columns;
        return finish(context, report, std::move(empty));
    }

    int finish(Context& context, const render::Report& report, render::Table csv) {
        int code = context.emit(report, {{"text", std::make_shared<TextRenderer>()},
                                         {"csv", std::make_shared<CsvRenderer>(std::move(csv))}});
        if (code != 0) return code;
        bool actionable = std::any_of(
            report.findings.begin(), report.findings.end(),
            [](const rules::Finding& f) { return f.severity != rules::RuleSeverity::Info; });
        return actionable ? static_cast<int>(ExitCode::Findings) : 0;
    }

    std::string path_;
    std::string backend_name_;
};

}  // namespace

std::unique_ptr<Command> make_mem_report() {
    return std::make_unique<MemReportCommand>();
}

}  // namespace ptune::cli
