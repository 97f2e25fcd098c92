#include "ptune/memreport/report.hpp"

#include <algorithm>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/core/terminal.hpp"
#include "ptune/core/text.hpp"

namespace ptune::memreport {

namespace {

using Bands = std::map<std::string, UsageBand, std::less<>>;

// The spaces usage_table() and usage_bars() show, in the report's order.
constexpr const char* kSpaces[] = {"Vec", "Mat", "Left", "Right", "Acc"};

// SGR colour of a usage cell (`91.5%`) in `band`: red over the limit, yellow when marginal.
std::string_view usage_colour(std::string_view cell, const UsageBand& band) {
    if (cell.size() < 2 || cell.back() != '%') return {};
    auto pct = text::parse_double(cell.substr(0, cell.size() - 1));
    if (!pct || *pct <= band.marginal_pct) return {};
    return *pct > band.over_pct ? "31" : "33";
}

class TextRenderer : public render::Renderer {
  public:
    explicit TextRenderer(Bands bands) : bands_(std::move(bands)) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions& options) const override {
        bool first = true;
        for (const auto& table : report.tables) {
            if (!first) out << '\n';
            first = false;
            out << term::paint(term::hang("", table.title, options.width, 2), "1", options.color)
                << '\n';
            std::ostringstream laid_out;
            render::write_text_table(table, laid_out, options.width);
            std::istringstream lines(laid_out.str());
            std::string line;
            for (std::size_t row = 0; std::getline(lines, line); ++row) {
                if (options.color && row > 0 && row <= table.rows.size())
                    paint_usage(line, table.rows[row - 1]);
                out << line << '\n';
            }
        }
        render::write_text_notes(report.notes, out, options.width);
        if (!report.findings.empty()) {
            if (!report.tables.empty() || !report.notes.empty()) out << '\n';
            render::write_text_findings(report.findings, out, options.color, options.width);
        }
    }

  private:
    void paint_usage(std::string& line, const std::vector<std::string>& row) const {
        const std::string& space = row[0];
        const std::string& cell = row[3];
        // Left/Right near 100 % is normal (rule M4): never highlighted.
        if (space == "Left" || space == "Right") return;
        auto band = bands_.find(space);
        std::string_view colour =
            usage_colour(cell, band != bands_.end() ? band->second : UsageBand{});
        auto at = line.find(" " + cell + " ");
        if (colour.empty() || at == std::string::npos) return;
        line.replace(at + 1, cell.size(), term::paint(cell, colour, true));
    }

    Bands bands_;
};

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

// The buffers live at each space's peak: what has to fit together, to plan fusion and
// re-tiling. Nothing for a function whose report has no live ranges (v1, v2).
std::optional<render::Table> peak_table(const Report& report, const Function& function) {
    render::Table table;
    const char* unit = report.origin == Origin::PassDump ? "line" : "statement";
    table.title = fmt::format(
        "{}: buffers live at each space's peak ({} numbers)",
        text::is_valid_utf8(function.name) ? function.name : text::sanitize_utf8(function.name),
        unit);
    table.columns = {"space", "peak", "buffer", "size", "address", "live range"};
    table.align = {render::Align::Left,  render::Align::Left, render::Align::Left,
                   render::Align::Right, render::Align::Left, render::Align::Left};
    for (const auto& usage : function.spaces) {
        if (!usage.peak) continue;
        bool first = true;
        for (std::size_t index : usage.peak->live) {
            const Buffer& buffer = usage.buffers[index];
            table.rows.push_back(
                {first ? usage.space : "",
                 first ? fmt::format("{} at {} {}", format_size(usage.peak->bytes), unit,
                                     usage.peak->at)
                       : "",
                 text::is_valid_utf8(buffer.name) ? buffer.name : text::sanitize_utf8(buffer.name),
                 format_size(buffer.size_bytes),
                 fmt::format("[{}, {})", buffer.addr_begin, buffer.addr_end),
                 fmt::format("[{}, {}]", buffer.live_begin, buffer.live_end)});
            first = false;
        }
    }
    if (table.rows.empty()) return std::nullopt;
    return table;
}

render::Table csv_table(const Report& report) {
    render::Table table;
    table.columns = {"function",    "space",     "used_bytes", "used_exact",
                     "limit_bytes", "usage_pct", "memrefs"};
    for (const auto& function : report.functions) {
        for (const auto& usage : function.spaces) {
            table.rows.push_back({function.name, usage.space, std::to_string(usage.used_bytes),
                                  usage.used_exact ? "true" : "false",
                                  usage.limit_bytes ? std::to_string(*usage.limit_bytes) : "",
                                  usage.usage_pct ? fmt::format("{}", *usage.usage_pct) : "",
                                  std::to_string(usage.memrefs)});
        }
    }
    return table;
}

}  // namespace

std::string format_text_report(const Report& report, std::string_view backend_token,
                               FormatVersion version) {
    std::string out = fmt::format(
        "=== Memory Usage Report ===\nPass: AllocateMemoryAddr\nBackend: {}\nFunctions: {} {}\n",
        backend_token, report.functions.size(),
        version == FormatVersion::V1 ? "InCore" : "compute functions");
    for (const auto& function : report.functions) {
        out += fmt::format(
            "\n--- {} ---\n\n  Space  |  Used       |  Limit      |  Usage   |  MemRefs\n"
            "  -------+-------------+-------------+----------+---------\n",
            function.name);
        for (const auto& usage : function.spaces) {
            out += fmt::format("  {:<7}|  {:>9}  |  {:>9}  |  {:>6}  |  {}\n", usage.space,
                               format_size(usage.used_bytes),
                               usage.limit_bytes ? format_size(*usage.limit_bytes) : "N/A",
                               usage.usage_pct ? format_percent(*usage.usage_pct) : "N/A",
                               usage.memrefs);
        }
        if (version != FormatVersion::V3) continue;
        for (const auto& usage : function.spaces) {
            out += fmt::format(
                "\n  Buffers ({})  -- base allocations making up Used (gaps between ranges = "
                "alignment)\n    Name              |  Size       |  Address range            |  "
                "Live range\n    ------------------+-------------+-------------------------+----"
                "--------\n",
                usage.space);
            for (const auto& buffer : usage.buffers) {
                std::string range =
                    buffer.allocated ? fmt::format("[{}, {})", buffer.addr_begin, buffer.addr_end)
                                     : "(unallocated)";
                out += fmt::format("    {:<18}|  {:>9}  |  {:<25}|  [{}, {}]\n", buffer.name,
                                   format_size(buffer.size_bytes), range, buffer.live_begin,
                                   buffer.live_end);
            }
        }
    }
    return out;
}

std::string backend_text(const Report& report, const BackendChoice& choice) {
    std::string backend = choice.backend ? std::string(to_string(*choice.backend)) : "unknown";
    if (choice.source == "assumed")
        backend += " (assumed: no --backend, ptoas/*.pto target_arch or compiled_meta.json)";
    else if (choice.source == "ptoas")
        backend += " (ptoas/*.pto target_arch)";
    else if (choice.source == "compiled_meta")
        backend += " (compiled_meta.json backend_type)";
    else if (choice.source == "header")
        backend += fmt::format(" (Backend: {})", report.backend_token);
    else if (choice.source == "limits")
        backend += " (inferred from the limits)";
    else if (choice.source == "option")
        backend += " (--backend)";
    return backend;
}

namespace {

std::string summary_line(const Report& report, const BackendChoice& choice) {
    std::string backend = backend_text(report, choice);
    if (report.origin == Origin::PassDump) {
        return fmt::format("{}: rebuilt from a pass dump ({} syntax), backend {}, {} function(s)",
                           report.source, to_string(report.dump_syntax), backend,
                           report.functions.size());
    }
    return fmt::format("{}: format {}, backend {}, {} function(s)", report.source,
                       to_string(report.version), backend, report.functions.size());
}

bool uses_backend_limits(const Report& report) {
    return std::any_of(report.functions.begin(), report.functions.end(), [](const Function& f) {
        return std::any_of(f.spaces.begin(), f.spaces.end(),
                           [](const SpaceUsage& usage) { return usage.limit_from_backend; });
    });
}

// The JSON view's shape with nothing in it, for a run without a report.
nlohmann::json empty_json() {
    return {{"source", nullptr},
            {"format_version", nullptr},
            {"backend", nullptr},
            {"backend_source", nullptr},
            {"backend_token", nullptr},
            {"pass", nullptr},
            {"functions_declared", nullptr},
            {"functions", nlohmann::json::array()}};
}

std::string percent_cell(double pct) {
    return stats::format_ratio(pct / 100.0);
}

}  // namespace

Bands usage_bands(const rules::Catalogue& catalogue) {
    auto param = [&](const char* rule_id, const char* name, double fallback) {
        const rules::Rule* rule = catalogue.find(rule_id);
        if (rule == nullptr) return fallback;
        auto it = rule->params.find(name);
        return it != rule->params.end() ? it->second : fallback;
    };
    UsageBand defaults;
    Bands bands;
    for (auto [space, marginal, over] :
         {std::tuple{"Vec", "mem.marginal-vec", "mem.vec-over-limit"},
          std::tuple{"Mat", "mem.marginal-mat", "mem.over-limit"},
          std::tuple{"Acc", "mem.marginal-acc", "mem.acc-over-limit"}}) {
        bands[space] = {param(marginal, "min_pct", defaults.marginal_pct),
                        param(over, "max_pct", defaults.over_pct)};
    }
    return bands;
}

render::Report build_report(const Analysis& analysis, std::vector<rules::Finding> findings,
                            bool with_json) {
    render::Report report;
    report.command = "mem-report";
    report.findings = std::move(findings);
    if (!analysis.found()) {
        report.data = empty_json();
        return report;
    }
    if (with_json) {
        report.data = to_json(analysis.report, analysis.choice);
        if (!analysis.source.cross_check.empty()) {
            report.data["cross_check"] = {{"pass_dump", analysis.source.cross_check},
                                          {"differences", analysis.differences}};
        }
    }
    for (const auto& function : analysis.report.functions) {
        report.tables.push_back(function_table(function));
        if (auto peaks = peak_table(analysis.report, function))
            report.tables.push_back(std::move(*peaks));
    }
    report.notes.push_back(summary_line(analysis.report, analysis.choice));
    if (!analysis.source.cross_check.empty()) {
        report.notes.push_back(
            analysis.differences.empty()
                ? fmt::format("cross-checked with {}: the same table", analysis.source.cross_check)
                : fmt::format("cross-checked with {}: {} difference(s)",
                              analysis.source.cross_check, analysis.differences.size()));
        for (const auto& difference : analysis.differences)
            report.notes.push_back("  " + difference);
    }
    if (uses_backend_limits(analysis.report))
        report.notes.push_back(
            "* limit printed as N/A in the report; the capacity of --backend is used");
    return report;
}

std::shared_ptr<render::Renderer> make_text_renderer(Bands bands) {
    return std::make_shared<TextRenderer>(std::move(bands));
}

std::shared_ptr<render::Renderer> make_csv_renderer(const Report& report) {
    return std::make_shared<CsvRenderer>(csv_table(report));
}

render::Table usage_table(const Report& report) {
    render::Table table;
    table.columns = {"function"};
    table.columns.insert(table.columns.end(), std::begin(kSpaces), std::end(kSpaces));
    table.align = {render::Align::Left,  render::Align::Right, render::Align::Right,
                   render::Align::Right, render::Align::Right, render::Align::Right};
    for (const auto& function : report.functions) {
        std::vector<std::string> row = {function.name};
        for (const char* space : kSpaces) {
            const SpaceUsage* usage = function.find(space);
            row.push_back(usage && usage->usage_pct ? percent_cell(*usage->usage_pct) : "-");
        }
        table.rows.push_back(std::move(row));
    }
    return table;
}

std::vector<render::svg::Bar> usage_bars(const Report& report) {
    std::vector<render::svg::Bar> bars;
    for (const auto& function : report.functions) {
        for (const char* space : kSpaces) {
            const SpaceUsage* usage = function.find(space);
            if (!usage || !usage->usage_pct) continue;
            bars.push_back({fmt::format("{} {}", function.name, space), *usage->usage_pct,
                            percent_cell(*usage->usage_pct), *usage->usage_pct > 100.0});
        }
    }
    return bars;
}

}  // namespace ptune::memreport
