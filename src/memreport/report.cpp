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
#include "ptune/memreport/findings.hpp"
#include "ptune/memreport/memory_map.hpp"
#include "ptune/render/json_stream.hpp"

namespace ptune::memreport {

namespace {

using Bands = std::map<std::string, UsageBand, std::less<>>;

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
        for (const auto& table : report.tables) render_table(table, first, out, options);
        render::write_text_notes(report.notes, out, options.width);
        if (!report.findings.empty()) {
            if (!report.tables.empty() || !report.notes.empty()) out << '\n';
            render::write_text_findings(report.findings, out, options.color, options.width);
        }
    }

    /// One table, a blank line before all but the first.
    void render_table(const render::Table& table, bool& first, std::ostream& out,
                      const render::RenderOptions& options) const {
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

render::Table csv_header() {
    render::Table table;
    table.columns = {"function",    "space",     "used_bytes", "used_exact",
                     "limit_bytes", "usage_pct", "memrefs"};
    return table;
}

void add_csv_rows(render::Table& table, const Function& function) {
    for (const auto& usage : function.spaces) {
        table.rows.push_back({function.name, usage.space, std::to_string(usage.used_bytes),
                              usage.used_exact ? "true" : "false",
                              usage.limit_bytes ? std::to_string(*usage.limit_bytes) : "",
                              usage.usage_pct ? fmt::format("{}", *usage.usage_pct) : "",
                              std::to_string(usage.memrefs)});
    }
}

render::Table csv_table(const Report& report) {
    render::Table table = csv_header();
    for (const auto& function : report.functions) add_csv_rows(table, function);
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

render::Report notes_report(const Analysis& analysis) {
    render::Report report;
    report.command = "mem-report";
    if (!analysis.found()) {
        report.data = empty_json();
        return report;
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

namespace {

// The JSON view without functions: build_report's `data` with `functions` empty.
nlohmann::json json_header(const Analysis& analysis) {
    if (!analysis.found()) return empty_json();
    nlohmann::json data = report_json_header(analysis.report, analysis.choice);
    if (!analysis.source.cross_check.empty()) {
        data["cross_check"] = {{"pass_dump", analysis.source.cross_check},
                               {"differences", analysis.differences}};
    }
    return data;
}

}  // namespace

std::vector<render::Table> function_tables(const Report& report, const Function& function) {
    std::vector<render::Table> tables;
    tables.push_back(function_table(function));
    if (auto peaks = peak_table(report, function)) tables.push_back(std::move(*peaks));
    return tables;
}

render::Report build_report(const Analysis& analysis, std::vector<rules::Finding> findings,
                            bool with_json) {
    render::Report report = notes_report(analysis);
    report.findings = std::move(findings);
    if (!analysis.found()) return report;
    if (with_json) {
        report.data = json_header(analysis);
        report.data["functions"] = to_json(analysis.report, analysis.choice)["functions"];
    }
    for (const auto& function : analysis.report.functions) {
        for (auto& table : function_tables(analysis.report, function))
            report.tables.push_back(std::move(table));
    }
    return report;
}

namespace {

// The streaming renderers (findings.hpp): tables and findings made one at a time. Each writes
// what its build_report() counterpart writes; where a standard renderer is reused, it renders
// one piece at a time and the pieces are joined as it joins them.

class StreamingText : public render::Renderer {
  public:
    StreamingText(const Analysis& analysis, const Findings& findings, Bands bands)
        : analysis_(analysis), findings_(findings), text_(std::move(bands)) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions& options) const override {
        bool first = true;
        for (const auto& function : analysis_.report.functions) {
            for (const auto& table : function_tables(analysis_.report, function))
                text_.render_table(table, first, out, options);
        }
        render::write_text_notes(report.notes, out, options.width);
        if (findings_.empty()) return;
        if (!first || !report.notes.empty()) out << '\n';
        for (std::size_t i = 0; i < findings_.size(); ++i) {
            const rules::Finding finding = findings_[i];  // made on demand, one at a time
            render::write_text_findings(std::span(&finding, 1), out, options.color, options.width);
        }
    }

  private:
    const Analysis& analysis_;
    const Findings& findings_;
    TextRenderer text_;
};

class StreamingMarkdown : public render::Renderer {
  public:
    StreamingMarkdown(const Analysis& analysis, const Findings& findings)
        : analysis_(analysis), findings_(findings) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions& options) const override {
        auto markdown = render::make_standard_renderer("markdown");
        bool first = true;
        for (const auto& function : analysis_.report.functions) {
            for (auto& table : function_tables(analysis_.report, function)) {
                if (!first) out << '\n';  // the standard renderer's gap between tables
                first = false;
                render::Report one;
                one.tables.push_back(std::move(table));
                markdown->render(one, out, options);
            }
        }
        render::Report notes;
        notes.notes = report.notes;
        markdown->render(notes, out, options);
        // The findings section once, then each finding without the section heading.
        constexpr std::string_view kHeading = "\n### Findings\n\n";
        if (!findings_.empty()) out << kHeading;
        for (std::size_t i = 0; i < findings_.size(); ++i) {
            render::Report one;
            one.findings.push_back(findings_[i]);
            std::ostringstream piece;
            markdown->render(one, piece, options);
            out << std::string_view(piece.str()).substr(kHeading.size());
        }
    }

  private:
    const Analysis& analysis_;
    const Findings& findings_;
};

class StreamingCsv : public render::Renderer {
  public:
    explicit StreamingCsv(const Analysis& analysis) : analysis_(analysis) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions& options) const override {
        // The standard CSV renderer on a few thousand rows at a time; the header once.
        auto csv = render::make_standard_renderer("csv");
        render::Report chunk;
        chunk.command = report.command;
        chunk.tables.push_back(csv_header());
        bool header = true;
        auto flush = [&] {
            std::ostringstream piece;
            csv->render(chunk, piece, options);
            const std::string text = piece.str();
            out << (header ? std::string_view(text)
                           : std::string_view(text).substr(text.find('\n') + 1));
            header = false;
            chunk.tables.front().rows.clear();
        };
        const auto& functions = analysis_.report.functions;
        for (std::size_t i = 0; i < functions.size(); ++i) {
            add_csv_rows(chunk.tables.front(), functions[i]);
            if (chunk.tables.front().rows.size() >= 4096) flush();
        }
        if (header || !chunk.tables.front().rows.empty()) flush();
    }

  private:
    const Analysis& analysis_;
};

class StreamingJson : public render::Renderer {
  public:
    StreamingJson(const Analysis& analysis, const Findings& findings)
        : analysis_(analysis), findings_(findings) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions&) const override {
        render::Report header = report;
        header.data = json_header(analysis_);
        const auto& functions = analysis_.report.functions;
        render::write_json_with_arrays(
            render::to_json(header),
            {render::LazyArray{"findings", findings_.size(), nullptr,
                               [&](std::size_t i, std::size_t indent, std::string& text) {
                                   render::write_finding_json(findings_[i], indent, text);
                               }},
             render::LazyArray{"functions", functions.size(), nullptr,
                               [&](std::size_t i, std::size_t indent, std::string& text) {
                                   write_function_json(functions[i], indent, text);
                               }}},
            out);
    }

  private:
    const Analysis& analysis_;
    const Findings& findings_;
};

}  // namespace

std::map<std::string, std::shared_ptr<render::Renderer>> make_streaming_renderers(
    const Analysis& analysis, const Findings& findings, Bands bands) {
    return {{"text", std::make_shared<StreamingText>(analysis, findings, std::move(bands))},
            {"markdown", std::make_shared<StreamingMarkdown>(analysis, findings)},
            {"csv", std::make_shared<StreamingCsv>(analysis)},
            {"json", std::make_shared<StreamingJson>(analysis, findings)},
            {"html", make_html_renderer(analysis, &findings)}};
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
    table.columns.insert(table.columns.end(), std::begin(kMemorySpaces), std::end(kMemorySpaces));
    table.align = {render::Align::Left,  render::Align::Right, render::Align::Right,
                   render::Align::Right, render::Align::Right, render::Align::Right};
    for (const auto& function : report.functions) {
        std::vector<std::string> row = {function.name};
        for (std::string_view space : kMemorySpaces) {
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
        for (std::string_view space : kMemorySpaces) {
            const SpaceUsage* usage = function.find(space);
            if (!usage || !usage->usage_pct) continue;
            bars.push_back({fmt::format("{} {}", function.name, space), *usage->usage_pct,
                            percent_cell(*usage->usage_pct), *usage->usage_pct > 100.0});
        }
    }
    return bars;
}

}  // namespace ptune::memreport
