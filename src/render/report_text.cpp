// The text renderer: tables laid out to the terminal's width, notes and findings.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <span>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "ptune/core/terminal.hpp"
#include "ptune/core/text.hpp"
#include "ptune/core/threads.hpp"
#include "ptune/render/report.hpp"
#include "report_internal.hpp"

namespace ptune::render {

namespace {

using term::display_width;

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

// True when `cell` is ASCII without ESC, i.e. valid UTF-8 of one column a byte (nearly every
// cell of a large table): eight bytes at a time, the last (or only) word of a cell of 4 bytes or
// more read overlapping the one before, so that short cells take no byte-wise loop.
bool plain_ascii(std::string_view cell) {
    const char* p = cell.data();
    std::size_t n = cell.size();
    if (n >= 8) {
        std::uint64_t any = 0;
        for (; n > 8; p += 8, n -= 8) any |= text::non_plain_bytes(text::load_word(p));
        return (any | text::non_plain_bytes(text::load_word(p + n - 8))) == 0;
    }
    if (n >= 4) {
        std::uint32_t head, tail;
        std::memcpy(&head, p, 4);
        std::memcpy(&tail, p + n - 4, 4);
        return text::non_plain_bytes(head | (std::uint64_t{tail} << 32)) == 0;
    }
    for (; n > 0; ++p, --n) {
        const auto ch = static_cast<unsigned char>(*p);
        if (ch >= 0x80 || ch == 0x1b) return false;
    }
    return true;
}

// term::display_width, with no loop at all for a short plain ASCII cell.
std::size_t cell_width(std::string_view cell) {
    return plain_ascii(cell) ? cell.size() : display_width(cell);
}

class TextRenderer : public Renderer {
  public:
    void render(const Report& report, std::ostream& out,
                const RenderOptions& options) const override {
        // A large report with more after its first table (a sweep's summary, then its rank
        // tables and findings): the rest, in pieces, is rendered into memory by a second
        // thread, and by this one once it has written the first table. The bytes are the same.
        constexpr std::size_t kLargeTable = 20000, kLargeRest = 1000;
        if (report.tables.size() > 0 && report.tables.front().row_count() >= kLargeTable &&
            report.tables.size() + report.findings.size() > kLargeRest) {
            const std::vector<Piece> pieces = pieces_after_first_table(report);
            std::vector<std::string> texts(pieces.size());
            std::atomic<std::size_t> next{0};
            auto render_pieces = [&] {
                for (std::size_t i; (i = next.fetch_add(1)) < pieces.size();)
                    texts[i] = render_piece(report, pieces[i], options);
            };
            threads::Beside<void> helper;
            try {
                helper = threads::Beside<void>(render_pieces, false);
            } catch (const std::system_error&) {  // no second thread: one after the other
                write_sections(report, out, options);
                return;
            }
            write_table(report.tables.front(), out, options);
            render_pieces();
            helper.get();
            for (std::string& text : texts) {
                out << text;
                std::string().swap(text);
            }
            return;
        }
        write_sections(report, out, options);
    }

  private:
    /// Tables [tables_begin, tables_end) after the first, then, when `notes`, the notes, then
    /// findings [findings_begin, findings_end).
    struct Piece {
        std::size_t tables_begin = 0, tables_end = 0;
        bool notes = false;
        std::size_t findings_begin = 0, findings_end = 0;
    };
    // About even pieces: tables up to a few thousand rows together, findings by the thousand.
    static std::vector<Piece> pieces_after_first_table(const Report& report) {
        constexpr std::size_t kPieceRows = 4096, kPieceFindings = 1024;
        std::vector<Piece> pieces;
        std::size_t rows = 0;
        for (std::size_t t = 1; t < report.tables.size(); ++t) {
            if (pieces.empty() || rows >= kPieceRows) {
                pieces.push_back({.tables_begin = t, .tables_end = t});
                rows = 0;
            }
            pieces.back().tables_end = t + 1;
            rows += report.tables[t].row_count() + 1;
        }
        pieces.push_back({.notes = true});
        for (std::size_t f = 0; f < report.findings.size(); f += kPieceFindings)
            pieces.push_back(
                {.findings_begin = f,
                 .findings_end = std::min(f + kPieceFindings, report.findings.size())});
        return pieces;
    }
    static std::string render_piece(const Report& report, const Piece& piece,
                                    const RenderOptions& options) {
        std::ostringstream text;
        for (std::size_t t = piece.tables_begin; t < piece.tables_end; ++t) {
            text << '\n';
            write_table(report.tables[t], text, options);
        }
        if (piece.notes) write_text_notes(report.notes, text, options.width);
        if (piece.findings_end > piece.findings_begin) {
            if (piece.findings_begin == 0 && (!report.tables.empty() || !report.notes.empty()))
                text << '\n';
            write_text_findings(
                std::span(report.findings)
                    .subspan(piece.findings_begin, piece.findings_end - piece.findings_begin),
                text, options.color, options.width);
        }
        return std::move(text).str();
    }
    static void write_table(const Table& table, std::ostream& out, const RenderOptions& options) {
        if (!table.title.empty())
            out << term::paint(term::hang("", valid_utf8(table.title), options.width, 2), "1",
                               options.color)
                << '\n';
        write_text_table(table, out, options.width, options.color);
    }
    static void write_sections(const Report& report, std::ostream& out,
                               const RenderOptions& options) {
        for (std::size_t t = 0; t < report.tables.size(); ++t) {
            if (t > 0) out << '\n';
            write_table(report.tables[t], out, options);
        }
        write_text_notes(report.notes, out, options.width);
        if (!report.findings.empty()) {
            if (!report.tables.empty() || !report.notes.empty()) out << '\n';
            write_text_findings(report.findings, out, options.color, options.width);
        }
    }
};

}  // namespace

std::unique_ptr<Renderer> make_text_renderer() {
    return std::make_unique<TextRenderer>();
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

// RowReader's rows as views of valid UTF-8, with the columns each cell takes: only invalid
// UTF-8 (a hostile log's case name) gets a sanitized copy, and only a cell that is not plain
// ASCII is measured by term::display_width.
class RowViews {
  public:
    explicit RowViews(const Table& table) : reader_(table) {}
    std::size_t size() const { return reader_.size(); }
    // With `columns`, only those cells are made views and measured (a column group of a table
    // too wide for the line reads the other cells of the row no more).
    const std::vector<std::string_view>& row(std::size_t r,
                                             const std::vector<std::size_t>* columns = nullptr) {
        // The row's cells: strings (held or made) or views of text kept elsewhere.
        const std::string* held = nullptr;
        const std::string_view* viewed = nullptr;
        std::size_t size = 0;
        if (reader_.viewed()) {
            const std::vector<std::string_view>& cells = reader_.views(r);
            viewed = cells.data();
            size = cells.size();
        } else {
            const std::vector<std::string>& cells = reader_.row(r);
            held = cells.data();
            size = cells.size();
        }
        views_.resize(size);
        widths_.resize(size);
        if (sanitized_.size() < size) sanitized_.resize(size);
        const std::size_t count = columns != nullptr ? columns->size() : size;
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t c = columns != nullptr ? (*columns)[i] : i;
            if (c >= size) continue;
            const std::string_view cell = held != nullptr ? std::string_view(held[c]) : viewed[c];
            if (plain_ascii(cell)) {
                views_[c] = cell;
                widths_[c] = cell.size();
                continue;
            }
            if (text::is_valid_utf8(cell)) {
                views_[c] = cell;
            } else {
                sanitized_[c] = text::sanitize_utf8(cell);
                views_[c] = sanitized_[c];
            }
            widths_[c] = display_width(views_[c]);
        }
        return views_;
    }
    // The columns of each cell of the row last read.
    const std::vector<std::size_t>& widths() const { return widths_; }
    const std::vector<std::string>& styles() const { return reader_.styles(); }

  private:
    RowReader reader_;
    std::vector<std::string_view> views_;
    std::vector<std::size_t> widths_;
    std::vector<std::string> sanitized_;
};

// The lines of a table, written to a stream in pieces of about 64 KiB (a table of 100,000s of
// rows: no stream call per cell or line).
class LineBuffer {
  public:
    explicit LineBuffer(std::ostream& out) : out_(out) {}
    ~LineBuffer() { flush(); }
    LineBuffer(const LineBuffer&) = delete;
    LineBuffer& operator=(const LineBuffer&) = delete;
    std::size_t size() const { return size_; }
    void append(std::string_view s) {
        if (!s.empty()) std::memcpy(grow(s.size()), s.data(), s.size());
    }
    void fill(std::size_t blanks) {
        if (blanks > 0) std::memset(grow(blanks), ' ', blanks);
    }
    /// Room for `n` more bytes and kSlack beyond them, written through the pointer returned and
    /// then kept by commit(): a row is laid out with plain stores, not a call per cell.
    static constexpr std::size_t kSlack = 32;
    char* reserve(std::size_t n) {
        const std::size_t need = size_ + n + kSlack;
        if (need > data_.size())
            data_.resize(std::max({std::size_t{1024}, 2 * data_.size(), need}));
        return data_.data() + size_;
    }
    void commit(const char* end) {
        size_ = static_cast<std::size_t>(end - data_.data());
        if (size_ >= kFlush) flush();
    }
    /// Writes `n` blanks at `at` (room reserved) and returns the end: up to kSlack in one store.
    static char* blanks(char* at, std::size_t n) {
        static constexpr char kBlanks[kSlack + 1] = "                                ";
        if (n <= kSlack)
            std::memcpy(at, kBlanks, kSlack);
        else
            std::memset(at, ' ', n);
        return at + n;
    }
    // Ends the line begun at `start`: its trailing blanks (as text::trim_right) dropped.
    void end_line(std::size_t start) {
        while (size_ > start && is_blank(data_[size_ - 1])) --size_;
        *grow(1) = '\n';
        if (size_ >= kFlush) flush();
    }

    /// What end_line() trims from a line's end (as text::trim_right).
    static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
    }

  private:
    static constexpr std::size_t kFlush = 64 * 1024;
    char* grow(std::size_t n) {
        if (size_ + n > data_.size())  // grows to a little above kFlush for a long table
            data_.resize(std::max({std::size_t{1024}, 2 * data_.size(), size_ + n}));
        char* at = data_.data() + size_;
        size_ += n;
        return at;
    }
    void flush() {
        out_.write(data_.data(), static_cast<std::streamsize>(size_));
        size_ = 0;
    }
    std::ostream& out_;
    std::string data_;
    std::size_t size_ = 0;
};

void write_rows(const Table& table, const std::vector<std::string_view>& header, RowViews& rows,
                const std::vector<std::size_t>& widths, const std::vector<std::size_t>& columns,
                bool color, std::ostream& out) {
    static const std::vector<std::string> kNoStyles;
    LineBuffer text(out);
    std::vector<std::vector<std::string>> cell_lines(columns.size());
    std::vector<std::size_t> cell_widths(columns.size());
    // Per column of the group: its alignment and the width it is padded to (the last column,
    // left-aligned, is not padded: no trailing blanks).
    std::vector<Align> aligns(columns.size());
    std::vector<std::size_t> pads(columns.size());
    std::size_t padded = kGap * columns.size();  // the blanks of a line at most, with the gaps
    for (std::size_t i = 0; i < columns.size(); ++i) {
        aligns[i] = column_align(table, columns[i]);
        pads[i] = i + 1 == columns.size() && aligns[i] == Align::Left ? 0 : widths[columns[i]];
        padded += pads[i];
    }
    // Appends the i-th cell of a line, `cell_w` columns wide, padded to its column.
    auto put = [&](std::size_t i, std::string_view cell, std::size_t cell_w,
                   const std::vector<std::string>& styles) {
        std::size_t c = columns[i];
        if (i) text.fill(kGap);
        std::size_t fill = pads[i] - std::min(pads[i], cell_w);
        if (aligns[i] == Align::Right) text.fill(fill);
        if (color && c < styles.size() && !styles[c].empty() && !cell.empty())
            text.append(term::paint(cell, styles[c], true));
        else
            text.append(cell);
        if (aligns[i] == Align::Left) text.fill(fill);
    };
    auto write_row = [&](const std::vector<std::string_view>& cells,
                         const std::vector<std::size_t>& widths_of_cells,
                         const std::vector<std::string>& styles) {
        bool fits = true;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            std::size_t c = columns[i];
            cell_widths[i] = c < cells.size() ? widths_of_cells[c] : 0;
            fits = fits && cell_widths[i] <= widths[c];
        }
        // The common line, every cell as it is and none coloured: plain stores. The others
        // (coloured, or cells to fit) are laid out line by line below.
        if (fits && (!color || styles.empty())) {
            std::size_t bytes = padded + 1;
            for (std::size_t i = 0; i < columns.size(); ++i)
                if (columns[i] < cells.size()) bytes += cells[columns[i]].size();
            char* const start = text.reserve(bytes);
            char* at = start;
            for (std::size_t i = 0; i < columns.size(); ++i) {
                const std::size_t c = columns[i];
                const std::size_t fill = pads[i] - std::min(pads[i], cell_widths[i]);
                if (i) at = LineBuffer::blanks(at, kGap);
                if (aligns[i] == Align::Right) at = LineBuffer::blanks(at, fill);
                if (c < cells.size() && !cells[c].empty()) {
                    std::memcpy(at, cells[c].data(), cells[c].size());
                    at += cells[c].size();
                }
                if (aligns[i] == Align::Left) at = LineBuffer::blanks(at, fill);
            }
            while (at > start && LineBuffer::is_blank(at[-1])) --at;
            *at++ = '\n';
            text.commit(at);
            return;
        }
        for (std::size_t i = 0; i < columns.size(); ++i) {
            std::size_t c = columns[i];
            std::string_view cell = c < cells.size() ? cells[c] : std::string_view();
            cell_lines[i] = fit_cell(cell, widths[c]);
        }
        separate_overflow(cell_lines, columns, widths);
        std::size_t height = 1;
        for (const auto& lines : cell_lines) height = std::max(height, lines.size());
        for (std::size_t l = 0; l < height; ++l) {
            const std::size_t start = text.size();
            for (std::size_t i = 0; i < columns.size(); ++i) {
                std::string_view cell = l < cell_lines[i].size()
                                            ? std::string_view(cell_lines[i][l])
                                            : std::string_view();
                put(i, cell, cell_width(cell), styles);
            }
            text.end_line(start);
        }
    };
    std::vector<std::size_t> header_widths(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) header_widths[c] = display_width(header[c]);
    write_row(header, header_widths, kNoStyles);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const auto& cells = rows.row(r, &columns);
        write_row(cells, rows.widths(), rows.styles());
    }
}

}  // namespace

void write_text_table(const Table& table, std::ostream& out, std::size_t width, bool color) {
    std::vector<std::string> header_texts;
    for (std::size_t c = 0; c < table.columns.size(); ++c)
        header_texts.push_back(header_text(table, c));
    std::vector<std::string_view> header(header_texts.begin(), header_texts.end());
    if (header.empty()) return;
    // One pass over the rows (tables reach 100,000s of rows, some made on demand) measures the
    // columns and, when the table may have to fit `width`, what its text columns hold (below).
    RowViews rows(table);
    std::vector<std::size_t> widths(header.size(), 0);
    for (std::size_t c = 0; c < header.size(); ++c) widths[c] = display_width(header[c]);
    std::vector<std::size_t> tokens(widths.size(), 0), filled(widths.size(), 0),
        worded(widths.size(), 0);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const auto& row = rows.row(r);
        for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
            const std::size_t cell_w = rows.widths()[c];
            widths[c] = std::max(widths[c], cell_w);
            if (width == 0 || column_align(table, c) != Align::Left || row[c].empty()) continue;
            ++filled[c];
            if (row[c].find(' ') != std::string_view::npos) ++worded[c];
            if (!is_path(row[c]) && cell_w > tokens[c])
                tokens[c] = std::max(tokens[c], longest_token(row[c]));
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

void write_text_findings(std::span<const rules::Finding> findings, std::ostream& out, bool color,
                         std::size_t width) {
    constexpr std::size_t kIndent = 4;
    const std::string indent(kIndent, ' ');
    std::pair<std::string, std::string> advice, guide;  // (text, laid out) of the last finding
    for (const auto& finding : findings) {
        // Appended piece by piece: thousands of findings, no format string parsed for each.
        std::string severity = "[";
        severity += rules::to_string(finding.severity);
        severity += ']';
        std::string head = severity;
        head += ' ';
        head += finding.rule;
        if (!finding.catalogue.empty()) {
            head += " (";
            head += finding.catalogue;
            head += ')';
        }
        if (std::string subject = subject_text(finding.subject); !subject.empty()) {
            head += ' ';
            head += valid_utf8(subject);
        }
        head += ": ";
        // Long messages wrap under their finding; colour goes on after the layout.
        std::string block = term::hang(head, valid_utf8(finding.message), width, kIndent);
        out << term::paint(severity, severity_color(finding.severity), color)
            << std::string_view(block).substr(severity.size()) << '\n';
        std::string at(kIndent, ' ');
        at += "at ";
        for (const auto& location : finding.locations) {
            std::string where = location.file;
            if (location.line) (where += ':') += std::to_string(location.line);
            if (location.column) (where += ':') += std::to_string(location.column);
            std::size_t room = width > at.size() ? width - at.size() : 0;
            out << at << (width ? term::elide_left(where, room) : where) << '\n';
        }
        // A rule's advice and guide are the same text in each of its findings (15,000 on a
        // daily-CI sweep): laid out once.
        if (!finding.advice.empty()) {
            if (finding.advice != advice.first)
                advice = {finding.advice,
                          term::hang(indent + "advice: ", finding.advice, width, kIndent + 8)};
            out << advice.second << '\n';
        }
        if (!finding.guide.empty()) {
            if (finding.guide != guide.first)
                guide = {finding.guide,
                         term::hang(indent + "guide: ", finding.guide, width, kIndent + 7)};
            out << guide.second << '\n';
        }
    }
}

void write_text_notes(const std::vector<std::string>& notes, std::ostream& out, std::size_t width) {
    for (const auto& note : notes) out << term::hang("", valid_utf8(note), width, 2) << '\n';
}

}  // namespace ptune::render
