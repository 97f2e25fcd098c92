#pragma once
/// @file report.hpp
/// The format-neutral result every command produces, and the one Renderer interface that turns
/// it into text, JSON, Markdown, CSV or a command's own formats (run, gcc, sarif, github...).

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/rules/engine.hpp"

namespace ptune::render {

enum class Align { Left, Right };

/// A table: the text, Markdown and CSV renderers show it; JSON uses Report::data instead.
struct Table {
    std::string title;  ///< may be empty
    std::vector<std::string> columns;
    std::vector<Align> align;  ///< per column; missing entries are Left
    std::vector<std::vector<std::string>> rows;
    /// Optional SGR colour per cell (same shape as rows, "" for none, e.g. "31" for a regressed
    /// verdict); the text renderer applies it when colour is on, the other formats ignore it.
    /// (Default member initializers keep `{title, columns, align, rows}` aggregates warning-free.)
    std::vector<std::vector<std::string>> styles = {};
    /// Unit per column ("µs", "%"; missing or "" for none): text and Markdown headers read
    /// `min (µs)`; CSV keeps the bare column name, its header being a machine key.
    std::vector<std::string> units = {};
    /// Rows made on demand instead of held in `rows` (a gate of 200,000 cases: the table would
    /// hold every row's strings at once): when set, the renderers call it for rows
    /// 0..made_rows-1, each call filling `cells` (empty on the call) and `styles` (also empty) as a
    /// row of Table::styles, left empty for an unstyled row. A row may be asked for more than once
    /// (the text table measures its columns first) and must come out the same each time. What it
    /// reads must outlive the table's rendering. The text renderer may render two tables of a
    /// large report at once, on two threads: a row callback must not write what another table's
    /// rendering reads.
    std::function<void(std::size_t row, std::vector<std::string>& cells,
                       std::vector<std::string>& styles)>
        make_row = {};
    std::size_t made_rows = 0;  ///< rows of make_row or view_row
    /// Rows whose cells are text kept elsewhere (a log of 100,000 cases: one piece of text per
    /// row, no string per cell): when set (and make_row is not), the renderers call it for rows
    /// 0..made_rows-1, each call filling `cells` (empty on the call) with views of that row's
    /// cells, unstyled. Same rules as make_row; the text viewed must outlive the rendering.
    std::function<void(std::size_t row, std::vector<std::string_view>& cells)> view_row = {};

    /// Rows of the table, held or made.
    std::size_t row_count() const { return make_row || view_row ? made_rows : rows.size(); }
};

/// What a command found, independent of the output format.
struct Report {
    std::string command;                             ///< e.g. "mem-report"
    nlohmann::json data = nlohmann::json::object();  ///< the JSON view (without the envelope)
    std::vector<Table> tables;
    std::vector<std::string> notes;  ///< short lines shown after the tables in text/markdown
    std::vector<rules::Finding> findings;
    bool include_findings_in_json = true;
};

/// Options that affect every renderer.
struct RenderOptions {
    bool color = false;  ///< ANSI colour allowed (text renderer only)
    /// Columns text output must fit (term::output_width of the output); 0: no limit. Text
    /// renderers lay out with write_text_table / write_text_findings / write_text_notes, which
    /// wrap and shorten to it.
    std::size_t width = 0;
};

/// Turns a Report into bytes on a stream. One implementation per output format.
class Renderer {
  public:
    virtual ~Renderer() = default;
    virtual void render(const Report& report, std::ostream& out,
                        const RenderOptions& options) const = 0;
};

/// The built-in renderers: "text", "json", "markdown", "csv". nullptr for other names.
std::unique_ptr<Renderer> make_standard_renderer(const std::string& format);

/// The JSON envelope: {"tool":"ptune","schema_version":..,"version":..,"command":..} + data,
/// plus "findings" when the report asks for them.
nlohmann::json to_json(const Report& report);
/// A finding as JSON: rule, catalogue, severity, title, message, advice, guide, tier, subject,
/// evidence, locations, impact.
nlohmann::json finding_to_json(const rules::Finding& finding);
/// Appends finding_to_json(finding).dump(2) to `out` without building it, every line after the
/// first indented `indent` more spaces (its place in the document): large findings arrays
/// (LazyArray::write), where the DOM and its dump were a sixth of mem-report's run.
void write_finding_json(const rules::Finding& finding, std::size_t indent, std::string& out);
/// Writes JSON compactly (large outputs) or indented by 2 (the default for reports).
void write_json(const nlohmann::json& value, std::ostream& out, bool pretty = true);

/// Aligned plain-text table (what the text renderer prints for each table), fitted to `width`
/// columns (0: no limit): text (left-aligned) columns narrow, their cells wrapping under the row
/// or, for paths, losing their beginning (`…/tail`); a table still too wide is split into column
/// groups that each repeat the first column. Right-aligned (number) columns are never cut.
/// With `color`, cells are painted with Table::styles.
void write_text_table(const Table& table, std::ostream& out, std::size_t width = 0,
                      bool color = false);
/// Findings as text blocks: `[warning] mem.over-limit (M1) QK: message` + location, advice and
/// guide lines, wrapped to `width` columns with continuation lines indented (0: no limit).
void write_text_findings(std::span<const rules::Finding> findings, std::ostream& out, bool color,
                         std::size_t width = 0);
/// Note lines, wrapped to `width` columns (continuation indented by 2).
void write_text_notes(const std::vector<std::string>& notes, std::ostream& out,
                      std::size_t width = 0);

}  // namespace ptune::render
