#include "ptune/render/report.hpp"

#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "ptune/core/terminal.hpp"
#include "ptune/core/text.hpp"
#include "ptune/core/version.hpp"

namespace ptune::render {

namespace {

std::size_t display_width(std::string_view s) {
    // Count code points, not bytes, so UTF-8 names (µs) line up.
    std::size_t width = 0;
    for (unsigned char c : s) width += (c & 0xC0) != 0x80 ? 1 : 0;
    return width;
}

Align column_align(const Table& table, std::size_t column) {
    return column < table.align.size() ? table.align[column] : Align::Left;
}

std::string severity_color(rules::RuleSeverity severity) {
    switch (severity) {
        case rules::RuleSeverity::Error:
            return "31";
        case rules::RuleSeverity::Warning:
            return "33";
        case rules::RuleSeverity::Info:
            return "36";
    }
    return "0";
}

// Input text (case names from a hostile log, hint messages) may hold invalid UTF-8; every
// format writes valid UTF-8, as the JSON renderer does.
std::string valid_utf8(std::string_view s) {
    return text::is_valid_utf8(s) ? std::string(s) : text::sanitize_utf8(s);
}

std::string subject_text(const rules::SubjectKey& subject) {
    if (subject.kind == "run") return "";
    return fmt::format("{} {}", subject.kind, subject.name);
}

class TextRenderer : public Renderer {
  public:
    void render(const Report& report, std::ostream& out,
                const RenderOptions& options) const override {
        bool first = true;
        for (const auto& table : report.tables) {
            if (!first) out << '\n';
            first = false;
            if (!table.title.empty())
                out << term::paint(valid_utf8(table.title), "1", options.color) << '\n';
            write_text_table(table, out);
        }
        for (const auto& note : report.notes) out << valid_utf8(note) << '\n';
        if (!report.findings.empty()) {
            if (!report.tables.empty() || !report.notes.empty()) out << '\n';
            write_text_findings(report.findings, out, options.color);
        }
    }
};

class JsonRenderer : public Renderer {
  public:
    void render(const Report& report, std::ostream& out, const RenderOptions&) const override {
        write_json(to_json(report), out, true);
    }
};

class MarkdownRenderer : public Renderer {
  public:
    void render(const Report& report, std::ostream& out, const RenderOptions&) const override {
        bool first = true;
        for (const auto& table : report.tables) {
            if (!first) out << '\n';
            first = false;
            if (!table.title.empty())
                out << "### " << text::markdown_escape(valid_utf8(table.title)) << "\n\n";
            out << '|';
            for (const auto& column : table.columns)
                out << ' ' << text::markdown_escape(column) << " |";
            out << "\n|";
            for (std::size_t c = 0; c < table.columns.size(); ++c) {
                out << (column_align(table, c) == Align::Right ? " ---: |" : " --- |");
            }
            out << '\n';
            for (const auto& row : table.rows) {
                out << '|';
                for (const auto& cell : row)
                    out << ' ' << text::markdown_escape(valid_utf8(cell)) << " |";
                out << '\n';
            }
        }
        if (!report.notes.empty()) {
            out << '\n';
            for (const auto& note : report.notes)
                out << "> " << text::markdown_escape(valid_utf8(note)) << "\n";
        }
        if (!report.findings.empty()) {
            out << "\n### Findings\n\n";
            for (const auto& finding : report.findings) {
                std::string subject = subject_text(finding.subject);
                out << fmt::format(
                    "- **{}** `{}`{}{}: {}\n", rules::to_string(finding.severity), finding.rule,
                    finding.catalogue.empty() ? "" : " (" + finding.catalogue + ")",
                    subject.empty() ? "" : " " + text::markdown_escape(valid_utf8(subject)),
                    text::markdown_escape(valid_utf8(finding.message)));
                if (!finding.advice.empty())
                    out << "  - Advice: " << text::markdown_escape(finding.advice) << '\n';
                if (!finding.guide.empty())
                    out << "  - Guide: " << text::markdown_escape(finding.guide) << '\n';
            }
        }
    }
};

class CsvRenderer : public Renderer {
  public:
    void render(const Report& report, std::ostream& out, const RenderOptions&) const override {
        // CSV is one table; a command whose main result has several puts them in one, with a
        // distinguishing column.
        if (report.tables.empty()) return;
        const Table& table = report.tables.front();
        auto write_row = [&](const std::vector<std::string>& cells) {
            for (std::size_t i = 0; i < cells.size(); ++i) {
                if (i) out << ',';
                out << text::csv_escape(valid_utf8(cells[i]));
            }
            out << '\n';
        };
        write_row(table.columns);
        for (const auto& row : table.rows) write_row(row);
    }
};

}  // namespace

std::unique_ptr<Renderer> make_standard_renderer(const std::string& format) {
    if (format == "text") return std::make_unique<TextRenderer>();
    if (format == "json") return std::make_unique<JsonRenderer>();
    if (format == "markdown") return std::make_unique<MarkdownRenderer>();
    if (format == "csv") return std::make_unique<CsvRenderer>();
    return nullptr;
}

nlohmann::json finding_to_json(const rules::Finding& finding) {
    nlohmann::json locations = nlohmann::json::array();
    for (const auto& location : finding.locations) {
        nlohmann::json entry = {{"file", location.file}};
        if (location.line) entry["line"] = location.line;
        if (location.column) entry["col"] = location.column;
        locations.push_back(std::move(entry));
    }
    nlohmann::json evidence = nlohmann::json::object();
    for (const auto& [name, value] : finding.evidence) evidence[name] = value;
    return {
        {"rule", finding.rule},
        {"catalogue",
         finding.catalogue.empty() ? nlohmann::json() : nlohmann::json(finding.catalogue)},
        {"severity", std::string(rules::to_string(finding.severity))},
        {"title", finding.title},
        {"message", finding.message},
        {"advice", finding.advice},
        {"guide", finding.guide},
        {"tier", finding.tier},
        {"subject", {{"kind", finding.subject.kind}, {"name", finding.subject.name}}},
        {"evidence", std::move(evidence)},
        {"locations", std::move(locations)},
        {"impact", finding.impact ? nlohmann::json(*finding.impact) : nlohmann::json()},
    };
}

nlohmann::json to_json(const Report& report) {
    nlohmann::json out = nlohmann::json::object();
    out["tool"] = "ptune";
    out["schema_version"] = kSchemaVersion;
    out["version"] = std::string(version());
    out["command"] = report.command;
    for (const auto& [key, value] : report.data.items()) out[key] = value;
    if (report.include_findings_in_json) {
        nlohmann::json findings = nlohmann::json::array();
        for (const auto& finding : report.findings) findings.push_back(finding_to_json(finding));
        out["findings"] = std::move(findings);
    }
    return out;
}

void write_json_with_array(nlohmann::json value, const std::string& key, std::size_t count,
                           const std::function<nlohmann::json(std::size_t)>& element,
                           std::ostream& out) {
    constexpr auto kReplace = nlohmann::json::error_handler_t::replace;
    // A placeholder no input can produce (control characters are escaped in JSON strings),
    // replaced by the array written element by element.
    value[key] =
        "\x01"
        "array"
        "\x01";  // split: "\x01a" would be one escape
    const std::string text = value.dump(2, ' ', false, kReplace);
    const std::string placeholder = "\"\\u0001array\\u0001\"";
    const std::size_t at = text.find(placeholder);
    if (at == std::string::npos || count == 0) {
        if (at != std::string::npos) value[key] = nlohmann::json::array();
        write_json(value, out, true);
        return;
    }
    // The array's indentation: its key's line.
    const std::size_t line_start = text.rfind('\n', at) + 1;
    const std::string indent(text.find_first_not_of(' ', line_start) - line_start, ' ');
    const std::string inner = indent + "  ";
    out.write(text.data(), static_cast<std::streamsize>(at));
    out << '[';
    for (std::size_t i = 0; i < count; ++i) {
        out << (i == 0 ? "\n" : ",\n") << inner;
        const std::string item = element(i).dump(2, ' ', false, kReplace);
        for (char ch : item) {
            out.put(ch);
            if (ch == '\n') out << inner;
        }
    }
    out << '\n' << indent << ']';
    out.write(text.data() + at + placeholder.size(),
              static_cast<std::streamsize>(text.size() - at - placeholder.size()));
    out << '\n';
}

void write_json(const nlohmann::json& value, std::ostream& out, bool pretty) {
    // Replace invalid UTF-8 from hostile inputs instead of throwing.
    out << value.dump(pretty ? 2 : -1, ' ', false, nlohmann::json::error_handler_t::replace)
        << '\n';
}

void write_text_table(const Table& table, std::ostream& out) {
    // Views of the cells; only invalid UTF-8 gets a sanitized copy (tables reach tens of
    // thousands of rows on a sweep).
    std::deque<std::string> sanitized;
    auto view = [&](const std::string& cell) -> std::string_view {
        if (text::is_valid_utf8(cell)) return cell;
        return sanitized.emplace_back(text::sanitize_utf8(cell));
    };
    std::vector<std::string_view> header(table.columns.begin(), table.columns.end());
    std::vector<std::vector<std::string_view>> rows;
    rows.reserve(table.rows.size());
    for (const auto& row : table.rows) {
        auto& cells = rows.emplace_back();
        cells.reserve(row.size());
        for (const auto& cell : row) cells.push_back(view(cell));
    }
    std::vector<std::size_t> widths(header.size(), 0);
    for (std::size_t c = 0; c < header.size(); ++c) widths[c] = display_width(header[c]);
    for (const auto& row : rows) {
        for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
            widths[c] = std::max(widths[c], display_width(row[c]));
        }
    }
    std::string line;
    auto write_row = [&](const std::vector<std::string_view>& cells) {
        line.clear();
        for (std::size_t c = 0; c < cells.size() && c < widths.size(); ++c) {
            if (c) line += "  ";
            Align align = column_align(table, c);
            // The last column is not padded when left-aligned: no trailing blanks.
            std::size_t width = c + 1 == widths.size() && align == Align::Left ? 0 : widths[c];
            std::size_t fill = width - std::min(width, display_width(cells[c]));
            if (align == Align::Right) line.append(fill, ' ');
            line += cells[c];
            if (align == Align::Left) line.append(fill, ' ');
        }
        out << text::trim_right(line) << '\n';
    };
    write_row(header);
    for (const auto& row : rows) write_row(row);
}

void write_text_findings(const std::vector<rules::Finding>& findings, std::ostream& out,
                         bool color) {
    for (const auto& finding : findings) {
        std::string subject = subject_text(finding.subject);
        out << term::paint(fmt::format("[{}]", rules::to_string(finding.severity)),
                           severity_color(finding.severity), color)
            << ' ' << finding.rule
            << (finding.catalogue.empty() ? "" : " (" + finding.catalogue + ")")
            << (subject.empty() ? "" : " " + valid_utf8(subject)) << ": "
            << valid_utf8(finding.message) << '\n';
        for (const auto& location : finding.locations) {
            out << "    at " << location.file;
            if (location.line) out << ':' << location.line;
            if (location.column) out << ':' << location.column;
            out << '\n';
        }
        if (!finding.advice.empty()) out << "    advice: " << finding.advice << '\n';
        if (!finding.guide.empty()) out << "    guide: " << finding.guide << '\n';
    }
}

}  // namespace ptune::render
