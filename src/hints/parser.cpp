// perf_hints.log parser: entry grammar and location split (perf-hints.md §2). Hand-written
// scanning instead of std::regex keeps a multi-megabyte log well under a second.

#include "ptune/hints/parser.hpp"

#include <fmt/format.h>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"

namespace ptune::hints {

namespace {

constexpr std::string_view kEntryPrefix = "[perf_hint";

bool is_code_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
}
bool is_rule_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
}

// True when the line starts a new entry: `^\[perf_hint[ \]]`.
bool starts_entry(std::string_view line) {
    return line.size() > kEntryPrefix.size() &&
           line.substr(0, kEntryPrefix.size()) == kEntryPrefix &&
           (line[kEntryPrefix.size()] == ' ' || line[kEntryPrefix.size()] == ']');
}

// PH-START: `[perf_hint( CODE)?] RULE: first-line`. False when the line does not follow it.
bool parse_start(std::string_view line, Entry& entry, std::string& first_line) {
    std::size_t pos = kEntryPrefix.size();
    if (line[pos] == ' ') {
        std::size_t begin = ++pos;
        while (pos < line.size() && is_code_char(line[pos])) ++pos;
        if (pos == begin) return false;
        entry.code = std::string(line.substr(begin, pos - begin));
    }
    if (pos >= line.size() || line[pos] != ']') return false;
    if (++pos >= line.size() || line[pos] != ' ') return false;
    std::size_t begin = ++pos;
    while (pos < line.size() && is_rule_char(line[pos])) ++pos;
    if (pos == begin || pos + 1 >= line.size() || line[pos] != ':' || line[pos + 1] != ' ') {
        return false;
    }
    entry.rule = std::string(line.substr(begin, pos - begin));
    first_line = std::string(line.substr(pos + 2));
    return true;
}

// Collects the physical lines of one entry and hands it over when the next one starts.
class EntryBuilder {
  public:
    EntryBuilder(const std::string& source, Diagnostics& diagnostics, const EntrySink& sink)
        : source_(source), diagnostics_(diagnostics), sink_(sink) {}

    void line(std::string_view raw, std::size_t number) {
        if (starts_entry(raw)) {
            flush();
            Entry entry;
            std::string first;
            if (!parse_start(raw, entry, first)) {
                diagnostics_.warn(source_, number,
                                  "line starts like a perf hint but is not '[perf_hint CODE] "
                                  "Rule: message'; skipped");
                skipping_ = true;
                return;
            }
            skipping_ = false;
            entry.log_line = number;
            current_ = std::move(entry);
            text_ = std::move(first);
            return;
        }
        if (text::trim(raw).empty()) return;
        if (current_) {
            text_ += '\n';
            text_.append(raw);
            ++current_->physical_lines;
        } else if (!skipping_) {
            diagnostics_.warn(source_, number, "text before the first perf hint entry; skipped");
            skipping_ = true;  // one message per run of stray lines is enough
        }
    }

    void flush() {
        if (!current_) return;
        Entry entry = std::move(*current_);
        current_.reset();
        if (!text::is_valid_utf8(text_)) {
            diagnostics_.warn(source_, entry.log_line,
                              "invalid UTF-8 in the message; replaced with U+FFFD");
            text_ = text::sanitize_utf8(text_);
        }
        entry.span = split_location(text_);
        entry.message = std::move(text_);
        text_.clear();
        extract_fields(entry);
        if (!entry.template_matched) {
            diagnostics_.note(source_, entry.log_line,
                              fmt::format("{} message follows none of the known templates; its "
                                          "fields are incomplete",
                                          entry.code));
        }
        ++count_;
        sink_(std::move(entry));
    }

    std::size_t count() const { return count_; }

  private:
    const std::string& source_;
    Diagnostics& diagnostics_;
    const EntrySink& sink_;
    std::optional<Entry> current_;
    std::string text_;
    bool skipping_ = false;
    std::size_t count_ = 0;
};

}  // namespace

std::optional<SourceSpan> split_location(std::string& text) {
    // The tail must be `:LINE:COL` with LINE digits and COL -?digits.
    std::size_t col_colon = text.rfind(':');
    if (col_colon == std::string::npos) return std::nullopt;
    std::string_view col_text = std::string_view(text).substr(col_colon + 1);
    bool negative = !col_text.empty() && col_text.front() == '-';
    if (!all_digits(negative ? col_text.substr(1) : col_text)) return std::nullopt;
    if (col_colon == 0) return std::nullopt;
    std::size_t line_colon = text.rfind(':', col_colon - 1);
    if (line_colon == std::string::npos) return std::nullopt;
    std::string_view line_text =
        std::string_view(text).substr(line_colon + 1, col_colon - line_colon - 1);
    if (!all_digits(line_text)) return std::nullopt;
    // The last " at " before it whose file part is non-empty and on one line (greedy group 1).
    constexpr std::string_view kAt = " at ";
    std::size_t search_end = line_colon;
    while (search_end >= kAt.size()) {
        std::size_t at = text.rfind(kAt, search_end - kAt.size());
        if (at == std::string::npos) return std::nullopt;
        std::size_t file_begin = at + kAt.size();
        std::string_view file = std::string_view(text).substr(file_begin, line_colon - file_begin);
        if (file.find('\n') != std::string_view::npos) return std::nullopt;
        if (!file.empty()) {
            auto line = text::parse_uint(line_text);
            auto col = text::parse_int(col_text);
            if (!line || !col) return std::nullopt;  // overflowing numbers: not a location
            SourceSpan span{std::string(file), static_cast<std::size_t>(*line),
                            static_cast<long>(*col)};
            text.erase(at);
            return span;
        }
        if (at == 0) return std::nullopt;
        search_end = at + kAt.size() - 1;
    }
    return std::nullopt;
}

std::size_t parse_log(std::istream& in, const std::string& source, Diagnostics& diagnostics,
                      const EntrySink& sink) {
    io::LineReader reader(in);
    EntryBuilder builder(source, diagnostics, sink);
    std::string_view line;
    while (reader.next(line)) {
        if (reader.truncated()) {
            diagnostics.warn(source, reader.line_number(), "line too long; cut");
        }
        builder.line(line, reader.line_number());
    }
    builder.flush();
    return builder.count();
}

std::vector<Entry> parse_log_text(std::string_view text, const std::string& source,
                                  Diagnostics& diagnostics) {
    std::vector<Entry> entries;
    io::LineReader reader(text);
    EntrySink sink = [&](Entry&& entry) { entries.push_back(std::move(entry)); };
    EntryBuilder builder(source, diagnostics, sink);
    std::string_view line;
    while (reader.next(line)) builder.line(line, reader.line_number());
    builder.flush();
    return entries;
}

}  // namespace ptune::hints
