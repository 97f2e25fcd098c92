#include "ptune/memreport/parser.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "ptune/core/io.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"

namespace ptune::memreport {

std::string_view to_string(FormatVersion version) {
    switch (version) {
        case FormatVersion::V1:
            return "v1";
        case FormatVersion::V2:
            return "v2";
        case FormatVersion::V3:
            return "v3";
        case FormatVersion::Unknown:
            break;
    }
    return "unknown";
}

namespace {

constexpr double kBytesPerKB = 1024.0;
constexpr double kBytesPerMB = 1024.0 * 1024.0;

bool is_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
    }
    return true;
}

// `INT` or `INT.INT`, the only number shapes the writer prints (no sign, no exponent).
bool is_plain_decimal(std::string_view s) {
    auto dot = s.find('.');
    if (dot == std::string_view::npos) return is_digits(s);
    return is_digits(s.substr(0, dot)) && is_digits(s.substr(dot + 1));
}

std::optional<double> parse_percent(std::string_view text) {
    if (text.size() < 2 || text.back() != '%') return std::nullopt;
    text.remove_suffix(1);
    if (!is_plain_decimal(text)) return std::nullopt;
    return text::parse_double(text);
}

// `[a, b)` or `[a, b]`: the address range closes with ')', the live range with ']'.
bool parse_pair(std::string_view text, char close, std::uint64_t& first, std::uint64_t& second) {
    if (text.size() < 6 || text.front() != '[' || text.back() != close) return false;
    text = text.substr(1, text.size() - 2);
    auto comma = text.find(", ");
    if (comma == std::string_view::npos) return false;
    auto a = text.substr(0, comma);
    auto b = text.substr(comma + 2);
    if (!is_digits(a) || !is_digits(b)) return false;
    auto pa = text::parse_uint(a);
    auto pb = text::parse_uint(b);
    if (!pa || !pb) return false;
    first = *pa;
    second = *pb;
    return true;
}

bool is_separator(std::string_view line) {
    line = text::trim(line);
    if (line.empty()) return false;
    for (char c : line) {
        if (c != '-' && c != '+') return false;
    }
    return true;
}

class Parser {
  public:
    Parser(const std::string& source, Diagnostics& diagnostics) : diagnostics_(diagnostics) {
        report_.source = source;
    }

    void line(std::string_view raw, std::size_t number) {
        line_ = number;
        std::string_view line = text::trim_right(raw);
        if (line.empty()) return;
        if (line == "=== Memory Usage Report ===") return;
        if (header_value(line, "Pass: ", report_.pass)) return;
        if (header_value(line, "Backend: ", report_.backend_token)) {
            report_.backend_line = number;
            return;
        }
        if (line.starts_with("Functions: ")) return functions_line(line.substr(11));
        if (line.starts_with("--- ") && line.ends_with(" ---") && line.size() > 8) {
            return start_function(line.substr(4, line.size() - 8));
        }
        if (line.starts_with("  Buffers (")) return start_buffers(line);
        if (is_separator(line)) return;
        if (line.find('|') != std::string_view::npos) return table_line(line);
        warn(fmt::format("unrecognised line '{}'", shorten(line)));
    }

    Report finish() {
        drop_empty_function();
        if (report_.functions_declared && *report_.functions_declared != report_.functions.size() &&
            !report_.functions.empty()) {
            diagnostics_.warn(
                report_.source, functions_line_,
                fmt::format("the header announces {} function(s) but {} were read; the "
                            "file may be truncated",
                            *report_.functions_declared, report_.functions.size()));
        }
        if (report_.version == FormatVersion::Unknown && saw_buffers_)
            report_.version = FormatVersion::V3;
        if (saw_buffers_) warn_missing_buffers();
        return std::move(report_);
    }

    /// The input ended inside line `number` (no newline after it).
    void cut_at(std::size_t number) {
        std::string where = report_.functions.empty() ? std::string("before any function")
                                                      : fmt::format("inside function '{}'",
                                                                    report_.functions.back().name);
        diagnostics_.warn(report_.source, number,
                          fmt::format("the report ends without a newline: it was cut {}; the rows "
                                      "after this line are missing",
                                      where));
    }

  private:
    enum class State { Outside, Table, Buffers };

    // A v3 report prints a Buffers block for every space of a function's table (mem-report.md
    // §4): a last function with a space that lists MemRefs but has no block is a report cut
    // short at a line boundary (so without the missing-newline warning).
    void warn_missing_buffers() {
        if (report_.functions.empty()) return;
        const Function& function = report_.functions.back();
        std::string spaces;
        for (const auto& usage : function.spaces) {
            if (usage.memrefs > 0 && usage.buffers.empty())
                spaces += (spaces.empty() ? "" : ", ") + usage.space;
        }
        if (spaces.empty()) return;
        diagnostics_.warn(report_.source, line_,
                          fmt::format("the report looks truncated inside its last function '{}': "
                                      "{} list(s) MemRefs but no Buffers block follows (a v3 "
                                      "report prints one per space); rows after this line, "
                                      "including other spaces, may be missing",
                                      function.name, spaces));
    }

    static std::string shorten(std::string_view line) {
        return line.size() > 80 ? std::string(line.substr(0, 77)) + "..." : std::string(line);
    }

    void warn(std::string message) { diagnostics_.warn(report_.source, line_, std::move(message)); }

    bool header_value(std::string_view line, std::string_view prefix, std::string& target) {
        if (!line.starts_with(prefix)) return false;
        target = std::string(text::trim(line.substr(prefix.size())));
        return true;
    }

    void functions_line(std::string_view rest) {
        functions_line_ = line_;
        auto space = rest.find(' ');
        auto count = text::parse_uint(rest.substr(0, space));
        std::string_view suffix = space == std::string_view::npos ? "" : rest.substr(space + 1);
        if (!count || (suffix != "InCore" && suffix != "compute functions")) {
            warn(fmt::format(
                "unrecognised 'Functions:' line (expected 'Functions: N compute functions' "
                "or 'Functions: N InCore')"));
            return;
        }
        report_.functions_declared = *count;
        report_.functions_suffix = std::string(suffix);
        if (report_.version != FormatVersion::V3) {
            report_.version = suffix == "InCore" ? FormatVersion::V1 : FormatVersion::V2;
        }
    }

    void drop_empty_function() {
        if (!report_.functions.empty() && report_.functions.back().spaces.empty()) {
            diagnostics_.warn(report_.source, report_.functions.back().line,
                              fmt::format("function '{}' has no table rows; skipped",
                                          report_.functions.back().name));
            auto first = first_line_of_.find(report_.functions.back().name);
            if (first != first_line_of_.end() && first->second == report_.functions.back().line) {
                first_line_of_.erase(first);
            }
            report_.functions.pop_back();
        }
    }

    void start_function(std::string_view name) {
        drop_empty_function();
        auto [first, inserted] = first_line_of_.try_emplace(std::string(name), line_);
        if (!inserted) {
            warn(fmt::format("function '{}' appears again (first at line {}); both are kept", name,
                             first->second));
        }
        Function function;
        function.name = std::string(name);
        function.line = line_;
        report_.functions.push_back(std::move(function));
        state_ = State::Table;
        buffer_space_ = nullptr;
    }

    void start_buffers(std::string_view line) {
        saw_buffers_ = true;
        if (report_.version != FormatVersion::Unknown) report_.version = FormatVersion::V3;
        auto close = line.find(')');
        std::string_view space = close == std::string_view::npos ? "" : line.substr(11, close - 11);
        buffer_space_ = nullptr;
        state_ = State::Buffers;
        if (report_.functions.empty()) {
            warn("a Buffers block outside any '--- function ---' block; its rows are skipped");
            return;
        }
        buffer_space_ = report_.functions.back().find(space);
        if (!buffer_space_) {
            warn(fmt::format(
                "Buffers block for '{}', which the table of '{}' does not list; its rows are "
                "skipped",
                space, report_.functions.back().name));
        }
    }

    void table_line(std::string_view line) {
        auto cells = text::split(line, '|');
        for (auto& cell : cells) cell = text::trim(cell);
        if (cells.front() == "Space" || cells.front() == "Name") return;  // column headers
        if (state_ == State::Outside || report_.functions.empty()) {
            warn(fmt::format("table row before any '--- function ---' line: '{}'", shorten(line)));
            return;
        }
        if (state_ == State::Table) return space_row(cells, line);
        if (buffer_space_) buffer_row(cells, line);
    }

    void space_row(const std::vector<std::string_view>& cells, std::string_view line) {
        Function& function = report_.functions.back();
        std::optional<PrintedSize> used, limit;
        std::optional<std::uint64_t> memrefs;
        bool ok =
            cells.size() == 5 && !cells[0].empty() && cells[0].find(' ') == std::string_view::npos;
        if (ok) {
            used = parse_size(cells[1]);
            limit = cells[2] == "N/A" ? PrintedSize{} : parse_size(cells[2]);
            memrefs = is_digits(cells[4]) ? text::parse_uint(cells[4]) : std::nullopt;
            ok = used && limit && memrefs && (cells[3] == "N/A" || parse_percent(cells[3]));
        }
        if (!ok) {
            warn(fmt::format("garbled table row in '{}', skipped: '{}'", function.name,
                             shorten(line)));
            return;
        }
        if (function.find(cells[0])) {
            warn(
                fmt::format("second '{}' row in '{}'; the first is kept", cells[0], function.name));
            return;
        }
        if (std::find(std::begin(kMemorySpaces), std::end(kMemorySpaces), cells[0]) ==
            std::end(kMemorySpaces)) {
            warn(fmt::format(
                "unknown space '{}' in '{}' (the report prints Vec, Mat, Left, Right, Acc)",
                cells[0], function.name));
        }
        SpaceUsage usage;
        usage.space = std::string(cells[0]);
        usage.used_text = std::string(cells[1]);
        usage.limit_text = std::string(cells[2]);
        usage.usage_text = std::string(cells[3]);
        usage.memrefs = *memrefs;
        usage.line = line_;
        function.spaces.push_back(std::move(usage));
    }

    void buffer_row(const std::vector<std::string_view>& cells, std::string_view line) {
        Buffer buffer;
        std::optional<PrintedSize> size;
        bool ok = cells.size() == 4 && !cells[0].empty();
        if (ok) {
            size = parse_size(cells[1]);
            buffer.allocated = cells[2] != "(unallocated)";
            ok = size &&
                 (!buffer.allocated ||
                  parse_pair(cells[2], ')', buffer.addr_begin, buffer.addr_end)) &&
                 parse_pair(cells[3], ']', buffer.live_begin, buffer.live_end) &&
                 buffer.addr_begin <= buffer.addr_end;
        }
        if (!ok) {
            warn(fmt::format("garbled Buffers ({}) row in '{}', skipped: '{}'",
                             buffer_space_->space, report_.functions.back().name, shorten(line)));
            return;
        }
        buffer.name = std::string(cells[0]);
        buffer.size_text = std::string(cells[1]);
        buffer.size_bytes = size->bytes;
        buffer.size_exact = size->exact;
        // A rounded size (`2.8 KB`) whose address range prints the same is that range's width
        // (2816 B, not 2867): the exact source wins (mem-report.md §4, §6).
        if (!size->exact && buffer.allocated &&
            format_size(buffer.addr_end - buffer.addr_begin) == buffer.size_text) {
            buffer.size_bytes = buffer.addr_end - buffer.addr_begin;
            buffer.size_exact = true;
        }
        buffer.line = line_;
        buffer_space_->buffers.push_back(std::move(buffer));
    }

    Diagnostics& diagnostics_;
    Report report_;
    std::size_t line_ = 0;
    std::size_t functions_line_ = 0;
    State state_ = State::Outside;
    SpaceUsage* buffer_space_ = nullptr;
    bool saw_buffers_ = false;
    std::unordered_map<std::string, std::size_t>
        first_line_of_;  ///< function name → its first line
};

Report parse_lines(io::LineReader& reader, const std::string& source, Diagnostics& diagnostics) {
    Parser parser(source, diagnostics);
    std::string_view line;
    bool cut = false;
    while (reader.next(line)) {
        parser.line(line, reader.line_number());
        cut = reader.unterminated();
    }
    // Every line of a report ends with a newline (mem-report.md §3): a last line without one
    // is a file cut short, and the rest of the last function is missing.
    if (cut) parser.cut_at(reader.line_number());
    return parser.finish();
}

}  // namespace

std::optional<PrintedSize> parse_size(std::string_view text) {
    auto space = text.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    std::string_view number = text.substr(0, space);
    std::string_view unit = text.substr(space + 1);
    if (unit == "B") {
        if (!is_digits(number)) return std::nullopt;
        auto bytes = text::parse_uint(number);
        if (!bytes) return std::nullopt;
        return PrintedSize{*bytes, true};
    }
    if ((unit != "KB" && unit != "MB") || !is_plain_decimal(number)) return std::nullopt;
    auto value = text::parse_double(number);
    if (!value || *value > 1e12) return std::nullopt;
    double bytes = *value * (unit == "KB" ? kBytesPerKB : kBytesPerMB);
    return PrintedSize{static_cast<std::uint64_t>(std::llround(bytes)), false};
}

namespace {

// The smallest b in [lo, hi] with key(b) >= target, for a key non-decreasing in b; hi + 1 when
// none.
template <class Key>
std::uint64_t first_at_least(std::uint64_t lo, std::uint64_t hi, double target, Key key) {
    std::uint64_t end = hi + 1;
    while (lo < end) {
        std::uint64_t mid = lo + (end - lo) / 2;
        if (key(mid) < target)
            lo = mid + 1;
        else
            end = mid;
    }
    return lo;
}

// [first b with key(b) >= target, last b with key(b) <= target] inside `within`.
template <class Key>
std::optional<ByteInterval> equal_range_of(ByteInterval within, double target, Key key) {
    std::uint64_t lo = first_at_least(within.lo, within.hi, target, key);
    if (lo > within.hi || key(lo) != target) return std::nullopt;
    // The last b whose key is still <= target: one before the first whose key exceeds it.
    std::uint64_t above = first_at_least(lo, within.hi, std::nextafter(target, 1e300), key);
    return ByteInterval{lo, above - 1};
}

}  // namespace

std::optional<ByteInterval> size_interval(std::string_view text) {
    auto printed = parse_size(text);
    if (!printed) return std::nullopt;
    if (printed->exact) return ByteInterval{printed->bytes, printed->bytes};
    // A KB value is printed for [1024, 1048576), an MB value from 1048576 up; the value read
    // back is monotone in the byte count, so the bytes printing `text` are one interval.
    bool mb = text.ends_with(" MB");
    ByteInterval range{mb ? 1048576u : 1024u, mb ? printed->bytes + 1048576 : 1048575};
    // Every byte count printing `text` lies within 0.05 units of the value read (one decimal),
    // so the search starts from a window of 1/16 unit either side of it: the same interval
    // (the key is monotone), found in ~7 + 17 probes instead of ~20 + 40 (each a format and a
    // parse: a fifth of `mem-report` on a large report went here).
    const std::uint64_t window = mb ? 1048576 / 16 : 1024 / 16;
    range.lo = std::max(range.lo, printed->bytes > window ? printed->bytes - window : 0);
    range.hi = std::min(range.hi, printed->bytes + window);
    if (range.lo > range.hi) return std::nullopt;
    auto value = [](std::uint64_t bytes) {
        auto back = parse_size(format_size(bytes));  // none past the reader's 1e12 units
        return back ? static_cast<double>(back->bytes) : std::numeric_limits<double>::infinity();
    };
    auto found = equal_range_of(range, static_cast<double>(printed->bytes), value);
    if (!found || format_size(found->lo) != text || format_size(found->hi) != text)
        return std::nullopt;
    return found;
}

std::optional<ByteInterval> percent_interval(std::string_view percent, std::uint64_t limit,
                                             ByteInterval within) {
    auto target = parse_percent(percent);
    if (!target || limit == 0 || !std::isfinite(*target)) return std::nullopt;
    // As format_percent prints it (`81.60%` → 81.6), so the keys below can equal it.
    auto normalised = parse_percent(format_percent(*target));
    if (!normalised) return std::nullopt;
    auto printed = [limit](std::uint64_t bytes) {
        return *parse_percent(
            format_percent(100.0 * static_cast<double>(bytes) / static_cast<double>(limit)));
    };
    return equal_range_of(within, *normalised, printed);
}

std::string format_size(std::uint64_t bytes) {
    if (bytes >= 1048576)
        return stats::format_fixed(static_cast<double>(bytes) / kBytesPerMB, 1) + " MB";
    if (bytes >= 1024)
        return stats::format_fixed(static_cast<double>(bytes) / kBytesPerKB, 1) + " KB";
    return fmt::format("{} B", bytes);
}

std::string format_percent(double percent) {
    return stats::format_fixed(percent, 1) + "%";
}

SpaceUsage* Function::find(std::string_view space) {
    for (auto& usage : spaces) {
        if (usage.space == space) return &usage;
    }
    return nullptr;
}

const SpaceUsage* Function::find(std::string_view space) const {
    return const_cast<Function*>(this)->find(space);
}

Report parse_report(std::istream& in, const std::string& source, Diagnostics& diagnostics) {
    io::LineReader reader(in);
    return parse_lines(reader, source, diagnostics);
}

Report parse_report(std::string_view text, const std::string& source, Diagnostics& diagnostics) {
    io::LineReader reader(text);
    return parse_lines(reader, source, diagnostics);
}

}  // namespace ptune::memreport
