// The Markdown and CSV renderers.
#include <fmt/format.h>

#include "ptune/core/text.hpp"
#include "ptune/render/report.hpp"
#include "report_internal.hpp"

namespace ptune::render {

namespace {

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
            for (std::size_t c = 0; c < table.columns.size(); ++c)
                out << ' ' << text::markdown_escape(header_text(table, c)) << " |";
            out << "\n|";
            for (std::size_t c = 0; c < table.columns.size(); ++c) {
                out << (column_align(table, c) == Align::Right ? " ---: |" : " --- |");
            }
            out << '\n';
            RowReader rows(table);
            for (std::size_t r = 0; r < rows.size(); ++r) {
                out << '|';
                for (const auto& cell : rows.row(r))
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
        // A number column with no value is an empty field, not `-`: spreadsheets and
        // pandas then read the column as numbers.
        std::vector<std::string> cells;
        RowReader rows(table);
        for (std::size_t r = 0; r < rows.size(); ++r) {
            cells = rows.row(r);
            for (std::size_t c = 0; c < cells.size(); ++c) {
                if (column_align(table, c) == Align::Right && cells[c] == "-") cells[c].clear();
            }
            write_row(cells);
        }
    }
};

}  // namespace

std::unique_ptr<Renderer> make_markdown_renderer() {
    return std::make_unique<MarkdownRenderer>();
}

std::unique_ptr<Renderer> make_csv_renderer() {
    return std::make_unique<CsvRenderer>();
}

}  // namespace ptune::render
