#include "ptune/render/report.hpp"
#include "ptune/render/json_stream.hpp"

#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "ptune/core/terminal.hpp"
#include "ptune/core/text.hpp"
#include "ptune/core/version.hpp"

namespace ptune::render {

namespace {

using term::display_width;

Align column_align(const Table& table, std::size_t column) {
    return column < table.align.size() ? table.align[column] : Align::Left;
}

// A column's header for people: its name with its unit, `min (µs)`.
std::string header_text(const Table& table, std::size_t column) {
    const std::string& name = table.columns[column];
    if (column >= table.units.size() || table.units[column].empty()) return name;
    return fmt::format("{} ({})", name, table.units[column]);
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
                out << term::paint(term::hang("", valid_utf8(table.title), options.width, 2), "1",
                                   options.color)
                    << '\n';
            write_text_table(table, out, options.width, options.color);
        }
        write_text_notes(report.notes, out, options.width);
        if (!report.findings.empty()) {
            if (!report.tables.empty() || !report.notes.empty()) out << '\n';
            write_text_findings(report.findings, out, options.color, options.width);
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
            for (std::size_t c = 0; c < table.columns.size(); ++c)
                out << ' ' << text::markdown_escape(header_text(table, c)) << " |";
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
        // A number column with no value is an empty field, not `-`: spreadsheets and
        // pandas then read the column as numbers.
        std::vector<std::string> cells;
        for (const auto& row : table.rows) {
            cells = row;
            for (std::size_t c = 0; c < cells.size(); ++c) {
                if (column_align(table, c) == Align::Right && cells[c] == "-") cells[c].clear();
            }
            write_row(cells);
        }
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
    write_json_with_arrays(std::move(value), {{key, count, element}}, out);
}

void write_json_with_arrays(nlohmann::json value, const std::vector<LazyArray>& arrays,
                            std::ostream& out) {
    constexpr auto kReplace = nlohmann::json::error_handler_t::replace;
    // Placeholders no input can produce (control characters are escaped in JSON strings),
    // replaced by the arrays written element by element.
    for (std::size_t a = 0; a < arrays.size(); ++a) {
        const std::string& key = arrays[a].key;
        nlohmann::json& slot =
            key.rfind('/', 0) == 0 ? value[nlohmann::json::json_pointer(key)] : value[key];
        slot = fmt::format(
            "\x01"
            "array{}\x01",  // split: "\x01a" would be one escape
            a);
    }
    const std::string text = value.dump(2, ' ', false, kReplace);
    // (position in text, array) in text order.
    std::vector<std::pair<std::size_t, std::size_t>> at;
    for (std::size_t a = 0; a < arrays.size(); ++a) {
        std::size_t pos = text.find(fmt::format("\"\\u0001array{}\\u0001\"", a));
        if (pos != std::string::npos) at.emplace_back(pos, a);
    }
    std::sort(at.begin(), at.end());
    std::size_t written = 0;
    for (const auto& [pos, a] : at) {
        const LazyArray& array = arrays[a];
        out.write(text.data() + written, static_cast<std::streamsize>(pos - written));
        written = pos + fmt::format("\"\\u0001array{}\\u0001\"", a).size();
        if (array.count == 0) {
            out << "[]";
            continue;
        }
        // The array's indentation: its key's line.
        const std::size_t line_start = text.rfind('\n', pos) + 1;
        const std::string indent(text.find_first_not_of(' ', line_start) - line_start, ' ');
        const std::string inner = indent + "  ";
        out << '[';
        std::string written_text;
        for (std::size_t i = 0; i < array.count; ++i) {
            out << (i == 0 ? "\n" : ",\n") << inner;
            if (array.write) {
                written_text.clear();
                array.write(i, inner.size(), written_text);
                out.write(written_text.data(), static_cast<std::streamsize>(written_text.size()));
                continue;
            }
            const std::string item = array.element(i).dump(2, ' ', false, kReplace);
            // Line by line, each continuation indented (a put() per byte dominated the time).
            std::size_t from = 0;
            for (std::size_t eol; (eol = item.find('\n', from)) != std::string::npos;
                 from = eol + 1) {
                out.write(item.data() + from, static_cast<std::streamsize>(eol + 1 - from));
                out << inner;
            }
            out.write(item.data() + from, static_cast<std::streamsize>(item.size() - from));
        }
        out << '\n' << indent << ']';
    }
    out.write(text.data() + written, static_cast<std::streamsize>(text.size() - written));
    out << '\n';
}

void write_json(const nlohmann::json& value, std::ostream& out, bool pretty) {
    // Replace invalid UTF-8 from hostile inputs instead of throwing.
    out << value.dump(pretty ? 2 : -1, ' ', false, nlohmann::json::error_handler_t::replace)
        << '\n';
}

namespace {

constexpr std::size_t kGap = 2;  // blanks between columns

// A cell that is one path (a '/' and no blank): shortened from the left rather than wrapped.
bool is_path(std::string_view cell) {
    return cell.find('/') != std::string_view::npos && cell.find(' ') == std::string_view::npos;
}

// A cell wider than its column: a path loses its beginning (`…/tail`), other text wraps onto
// more lines of the row at blanks. A token (an id, a rule, a number) is never split: one wider
// than the column overflows it on its line.
std::vector<std::string> fit_cell(std::string_view cell, std::size_t width) {
    if (display_width(cell) <= width) return {std::string(cell)};
    if (is_path(cell)) return {term::elide_left(cell, width)};
    return term::wrap(cell, width);
}

// Columns of the widest blank-free token of `cell` (what fit_cell cannot break).
std::size_t longest_token(std::string_view cell) {
    std::size_t longest = 0;
    for (auto word : text::split(cell, ' ')) longest = std::max(longest, display_width(word));
    return longest;
}

std::size_t total_width(const std::vector<std::size_t>& widths,
                        const std::vector<std::size_t>& columns) {
    std::size_t total = 0;
    for (std::size_t c : columns) total += widths[c];
    return total + (columns.empty() ? 0 : kGap * (columns.size() - 1));
}

// Narrows the left-aligned (text) columns among `columns`, widest first, until the row fits
// `limit` or each is down to `floor[c]`. Right-aligned columns hold numbers: never narrowed.
void shrink(const Table& table, std::vector<std::size_t>& widths,
            const std::vector<std::size_t>& floor, const std::vector<std::size_t>& columns,
            std::size_t limit) {
    while (total_width(widths, columns) > limit) {
        std::size_t widest = columns.size(), second = 0;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            std::size_t c = columns[i];
            if (column_align(table, c) != Align::Left || widths[c] <= floor[c]) continue;
            if (widest == columns.size() || widths[c] > widths[columns[widest]]) {
                if (widest != columns.size()) second = std::max(second, widths[columns[widest]]);
                widest = i;
            } else {
                second = std::max(second, widths[c]);
            }
        }
        if (widest == columns.size()) return;  // nothing left to narrow
        std::size_t c = columns[widest];
        std::size_t excess = total_width(widths, columns) - limit;
        std::size_t target = widths[c] > excess ? widths[c] - excess : 0;
        // Down to the next widest text column at most, so that ties narrow together.
        std::size_t narrowed = std::max({target, floor[c], second});
        widths[c] = narrowed < widths[c] ? narrowed : widths[c] - 1;
    }
}

// Splits the columns into groups that fit `limit` side by side, each group after the first
// repeating the first (key) column, for tables too wide even with their text columns narrowed.
std::vector<std::vector<std::size_t>> column_groups(const std::vector<std::size_t>& floor,
                                                    std::size_t limit) {
    std::vector<std::vector<std::size_t>> groups(1, std::vector<std::size_t>{0});
    for (std::size_t c = 1; c < floor.size(); ++c) {
        auto& group = groups.back();
        group.push_back(c);
        if (group.size() > 2 && total_width(floor, group) > limit) {
            group.pop_back();
            groups.push_back({0, c});
        }
    }
    return groups;
}

// A token wider than its column overflows it; so that the overflow covers no other cell, its line
// of the row holds nothing else: the other cells' lines from there move one line down (or, on
// the row's first line, the token itself does, leaving the row's first line to the others).
void separate_overflow(std::vector<std::vector<std::string>>& cell_lines,
                       const std::vector<std::size_t>& columns,
                       const std::vector<std::size_t>& widths) {
    auto has_line = [&](std::size_t i, std::size_t l) {
        return l < cell_lines[i].size() && !cell_lines[i][l].empty();
    };
    for (std::size_t l = 0;;) {
        bool more = false, changed = false;
        for (std::size_t i = 0; i < columns.size() && !changed; ++i) {
            if (l >= cell_lines[i].size()) continue;
            more = true;
            if (display_width(cell_lines[i][l]) <= widths[columns[i]]) continue;
            bool shared = false;
            for (std::size_t j = 0; j < columns.size(); ++j) shared |= j != i && has_line(j, l);
            if (!shared) continue;
            changed = true;
            if (l == 0) {
                cell_lines[i].insert(cell_lines[i].begin(), std::string());
                continue;
            }
            for (std::size_t j = 0; j < columns.size(); ++j) {
                if (j != i && l < cell_lines[j].size())
                    cell_lines[j].insert(cell_lines[j].begin() + static_cast<std::ptrdiff_t>(l),
                                         std::string());
            }
        }
        if (!more) return;
        if (!changed) ++l;  // else look at line l again
    }
}

void write_rows(const Table& table, const std::vector<std::string_view>& header,
                const std::vector<std::vector<std::string_view>>& rows,
                const std::vector<std::size_t>& widths, const std::vector<std::size_t>& columns,
                bool color, std::ostream& out) {
    static const std::vector<std::string> kNoStyles;
    std::string line;
    std::vector<std::vector<std::string>> cell_lines(columns.size());
    auto write_row = [&](const std::vector<std::string_view>& cells,
                         const std::vector<std::string>& styles) {
        for (std::size_t i = 0; i < columns.size(); ++i) {
            std::size_t c = columns[i];
            std::string_view cell = c < cells.size() ? cells[c] : std::string_view();
            cell_lines[i] = fit_cell(cell, widths[c]);
        }
        separate_overflow(cell_lines, columns, widths);
        std::size_t height = 1;
        for (const auto& lines : cell_lines) height = std::max(height, lines.size());
        for (std::size_t l = 0; l < height; ++l) {
            line.clear();
            for (std::size_t i = 0; i < columns.size(); ++i) {
                std::size_t c = columns[i];
                if (i) line.append(kGap, ' ');
                std::string_view cell = l < cell_lines[i].size()
                                            ? std::string_view(cell_lines[i][l])
                                            : std::string_view();
                Align align = column_align(table, c);
                // The last column is not padded when left-aligned: no trailing blanks.
                std::size_t width = i + 1 == columns.size() && align == Align::Left ? 0 : widths[c];
                std::size_t fill = width - std::min(width, display_width(cell));
                if (align == Align::Right) line.append(fill, ' ');
                if (color && c < styles.size() && !styles[c].empty() && !cell.empty())
                    line += term::paint(cell, styles[c], true);
                else
                    line += cell;
                if (align == Align::Left) line.append(fill, ' ');
            }
            out << text::trim_right(line) << '\n';
        }
    };
    write_row(header, kNoStyles);
    for (std::size_t r = 0; r < rows.size(); ++r)
        write_row(rows[r], r < table.styles.size() ? table.styles[r] : kNoStyles);
}

}  // namespace

void write_text_table(const Table& table, std::ostream& out, std::size_t width, bool color) {
    // Views of the cells; only invalid UTF-8 gets a sanitized copy (tables reach tens of
    // thousands of rows on a sweep).
    std::deque<std::string> sanitized;
    auto view = [&](const std::string& cell) -> std::string_view {
        if (text::is_valid_utf8(cell)) return cell;
        return sanitized.emplace_back(text::sanitize_utf8(cell));
    };
    std::vector<std::string> header_texts;
    for (std::size_t c = 0; c < table.columns.size(); ++c)
        header_texts.push_back(header_text(table, c));
    std::vector<std::string_view> header(header_texts.begin(), header_texts.end());
    std::vector<std::vector<std::string_view>> rows;
    rows.reserve(table.rows.size());
    for (const auto& row : table.rows) {
        auto& cells = rows.emplace_back();
        cells.reserve(row.size());
        for (const auto& cell : row) cells.push_back(view(cell));
    }
    if (header.empty()) return;
    std::vector<std::size_t> widths(header.size(), 0);
    for (std::size_t c = 0; c < header.size(); ++c) widths[c] = display_width(header[c]);
    for (const auto& row : rows) {
        for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
            widths[c] = std::max(widths[c], display_width(row[c]));
        }
    }
    std::vector<std::size_t> all(header.size());
    for (std::size_t c = 0; c < all.size(); ++c) all[c] = c;
    if (width == 0 || total_width(widths, all) <= width) {
        write_rows(table, header, rows, widths, all, color, out);
        return;
    }
    // Too wide: text columns narrow to their header (at least 12 columns, a readable phrase
    // or path tail); numbers keep their width. What still does not fit is split into groups.
    // Wrapping never breaks a token, so a column of identifiers (rule ids, names, sites) also
    // keeps its longest token; a column of prose (most cells several words) takes its longest
    // word only where the line has room left, else that word overflows its line whole.
    std::vector<std::size_t> tokens(widths.size(), 0), filled(widths.size(), 0),
        worded(widths.size(), 0);
    for (const auto& row : rows) {
        for (std::size_t c = 0; c < row.size() && c < tokens.size(); ++c) {
            if (column_align(table, c) != Align::Left || row[c].empty()) continue;
            ++filled[c];
            if (row[c].find(' ') != std::string_view::npos) ++worded[c];
            if (!is_path(row[c]) && display_width(row[c]) > tokens[c])
                tokens[c] = std::max(tokens[c], longest_token(row[c]));
        }
    }
    auto prose = [&](std::size_t c) { return worded[c] > 0 && 2 * worded[c] >= filled[c]; };
    std::vector<std::size_t> floor(widths.size());
    for (std::size_t c = 0; c < widths.size(); ++c) {
        floor[c] = column_align(table, c) == Align::Left
                       ? std::min(widths[c], std::max<std::size_t>(12, display_width(header[c])))
                       : widths[c];
    }
    // The key (first) column names the row in every group: it keeps up to a third of the width.
    if (column_align(table, 0) == Align::Left) {
        floor[0] = std::min(widths[0], std::max(floor[0], width / 3));
        if (!prose(0)) floor[0] = std::max(floor[0], std::min({widths[0], tokens[0], width}));
    }
    // An identifier column keeps its longest token when a group of it and the key column can
    // hold it; a longer token overflows its own line rather than being cut.
    std::size_t room = width > floor[0] + kGap ? width - floor[0] - kGap : 0;
    for (std::size_t c = 1; c < widths.size(); ++c) {
        if (!prose(c)) floor[c] = std::max(floor[c], std::min({widths[c], tokens[c], room}));
    }
    auto groups = column_groups(floor, width);
    bool first = true;
    for (const auto& group : groups) {
        if (!first) out << '\n';
        first = false;
        std::vector<std::size_t> group_widths = widths;
        // The widest text column (a message, a path) gives way first, down to a comfortable
        // reading width; then the other text columns down to their floor; then all of them.
        std::size_t widest = group.front();
        for (std::size_t c : group) {
            if (column_align(table, c) == Align::Left && widths[c] > widths[widest]) widest = c;
        }
        constexpr std::size_t kComfortable = 32;
        std::vector<std::size_t> first_floor = group_widths, second_floor = floor;
        first_floor[widest] = std::min(widths[widest], std::max(floor[widest], kComfortable));
        shrink(table, group_widths, first_floor, group, width);
        second_floor[widest] = group_widths[widest];
        shrink(table, group_widths, second_floor, group, width);
        shrink(table, group_widths, floor, group, width);
        // Room left on the line goes to prose columns whose longest word does not fit.
        for (std::size_t c : group) {
            std::size_t used = total_width(group_widths, group);
            std::size_t want = std::min(widths[c], tokens[c]);
            if (prose(c) && group_widths[c] < want && used < width)
                group_widths[c] += std::min(want - group_widths[c], width - used);
        }
        write_rows(table, header, rows, group_widths, group, color, out);
    }
}

void write_text_findings(const std::vector<rules::Finding>& findings, std::ostream& out, bool color,
                         std::size_t width) {
    constexpr std::size_t kIndent = 4;
    for (const auto& finding : findings) {
        std::string subject = subject_text(finding.subject);
        std::string severity = fmt::format("[{}]", rules::to_string(finding.severity));
        std::string head =
            fmt::format("{} {}{}{}: ", severity, finding.rule,
                        finding.catalogue.empty() ? "" : " (" + finding.catalogue + ")",
                        subject.empty() ? "" : " " + valid_utf8(subject));
        // Long messages wrap under their finding; colour goes on after the layout.
        std::string block = term::hang(head, valid_utf8(finding.message), width, kIndent);
        out << term::paint(severity, severity_color(finding.severity), color)
            << std::string_view(block).substr(severity.size()) << '\n';
        std::string at(kIndent, ' ');
        at += "at ";
        for (const auto& location : finding.locations) {
            std::string where = location.file;
            if (location.line) where += fmt::format(":{}", location.line);
            if (location.column) where += fmt::format(":{}", location.column);
            std::size_t room = width > at.size() ? width - at.size() : 0;
            out << at << (width ? term::elide_left(where, room) : where) << '\n';
        }
        std::string indent(kIndent, ' ');
        if (!finding.advice.empty())
            out << term::hang(indent + "advice: ", finding.advice, width, kIndent + 8) << '\n';
        if (!finding.guide.empty())
            out << term::hang(indent + "guide: ", finding.guide, width, kIndent + 7) << '\n';
    }
}

void write_text_notes(const std::vector<std::string>& notes, std::ostream& out, std::size_t width) {
    for (const auto& note : notes) out << term::hang("", valid_utf8(note), width, 2) << '\n';
}

}  // namespace ptune::render
