#pragma once
/// @file report_internal.hpp
/// What the report renderers' translation units (report*.cpp) share; not a public header. Each
/// helper is defined once, here or in report.cpp: the formats must agree on headers, alignment and
/// sanitising, and a copy per unit would clash when the units are compiled concatenated
/// (CMAKE_UNITY_BUILD).

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/render/report.hpp"

namespace ptune::render {

// Inline: the text table asks it for every cell it pads.
inline Align column_align(const Table& table, std::size_t column) {
    return column < table.align.size() ? table.align[column] : Align::Left;
}

// A column's header for people: its name with its unit, `min (µs)` (text and Markdown; CSV keeps
// the bare name, a machine key).
std::string header_text(const Table& table, std::size_t column);

// Input text (case names from a hostile log, hint messages) may hold invalid UTF-8; every format
// writes valid UTF-8, as the JSON renderer does.
std::string valid_utf8(std::string_view s);

// A finding's subject as its heading shows it: `kind name`, nothing for the run itself.
std::string subject_text(const rules::SubjectKey& subject);

// A table's rows, held (Table::rows) or made (Table::make_row), one at a time: the text, Markdown
// and CSV renderers all read tables through it.
class RowReader {
  public:
    explicit RowReader(const Table& table) : table_(table) {}
    std::size_t size() const { return table_.row_count(); }
    // Row r's cells, valid until the next call; then styles() holds its styles.
    const std::vector<std::string>& row(std::size_t r) {
        if (viewed()) {
            const std::vector<std::string_view>& cells = views(r);
            made_cells_.resize(cells.size());
            for (std::size_t c = 0; c < cells.size(); ++c) made_cells_[c].assign(cells[c]);
            return made_cells_;
        }
        if (!table_.make_row) {
            styles_ = r < table_.styles.size() ? &table_.styles[r] : &kNoStyles;
            return table_.rows[r];
        }
        made_cells_.clear();
        made_styles_.clear();
        table_.make_row(r, made_cells_, made_styles_);
        styles_ = &made_styles_;
        return made_cells_;
    }
    // True when the rows come as views (Table::view_row): views() reads them without a copy.
    bool viewed() const { return !table_.make_row && table_.view_row; }
    // Row r's cells as views (viewed() tables), valid until the next call.
    const std::vector<std::string_view>& views(std::size_t r) {
        made_views_.clear();
        table_.view_row(r, made_views_);
        styles_ = &kNoStyles;
        return made_views_;
    }
    const std::vector<std::string>& styles() const { return *styles_; }

  private:
    static inline const std::vector<std::string> kNoStyles;
    const Table& table_;
    std::vector<std::string> made_cells_, made_styles_;
    std::vector<std::string_view> made_views_;
    const std::vector<std::string>* styles_ = &kNoStyles;
};

// The standard renderers, one per translation unit, for make_standard_renderer.
std::unique_ptr<Renderer> make_text_renderer();
std::unique_ptr<Renderer> make_json_renderer();
std::unique_ptr<Renderer> make_markdown_renderer();
std::unique_ptr<Renderer> make_csv_renderer();

}  // namespace ptune::render
