#include "ptune/core/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "ptune/core/text.hpp"

namespace ptune::term {

namespace {
bool env_set(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && value[0] != '\0';
}
bool env_true(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}
bool smart_terminal(int fd) {
    const char* term = std::getenv("TERM");
    return isatty(fd) != 0 && !(term != nullptr && std::strcmp(term, "dumb") == 0);
}
double now_seconds() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}
}  // namespace

bool parse_color_mode(std::string_view text, ColorMode& mode) {
    if (text == "auto")
        mode = ColorMode::Auto;
    else if (text == "always")
        mode = ColorMode::Always;
    else if (text == "never")
        mode = ColorMode::Never;
    else
        return false;
    return true;
}

bool use_color(ColorMode mode, int fd) {
    if (mode == ColorMode::Always) return true;
    if (mode == ColorMode::Never) return false;
    if (env_set("NO_COLOR")) return false;
    if (env_true("CLICOLOR_FORCE") || env_true("FORCE_COLOR")) return true;
    return smart_terminal(fd);
}

std::string paint(std::string_view text, std::string_view sgr_code, bool enabled) {
    if (!enabled) return std::string(text);
    return fmt::format("\x1b[{}m{}\x1b[0m", sgr_code, text);
}

std::size_t output_width(int fd) {
    constexpr std::size_t kMinimum = 20;
    if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
        char* end = nullptr;
        long value = std::strtol(columns, &end, 10);
        if (end != nullptr && *end == '\0' && value > 0)
            return std::max<std::size_t>(kMinimum, static_cast<std::size_t>(value));
    }
    winsize size{};
    if (fd >= 0 && isatty(fd) != 0 && ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return std::max<std::size_t>(kMinimum, size.ws_col);
    return kDefaultWidth;
}

namespace {
// Bytes of the ANSI escape sequence starting at text[i] (CSI ... final byte), 0 if none.
std::size_t escape_length(std::string_view text, std::size_t i) {
    if (text[i] != '\x1b' || i + 1 >= text.size() || text[i + 1] != '[') return 0;
    std::size_t j = i + 2;
    while (j < text.size() && !(text[j] >= 0x40 && text[j] <= 0x7e)) ++j;
    return j < text.size() ? j + 1 - i : text.size() - i;
}
bool continuation_byte(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}
// Byte offset where the last `columns` code points of `text` start.
std::size_t tail_start(std::string_view text, std::size_t columns) {
    std::size_t i = text.size();
    while (i > 0 && columns > 0) {
        --i;
        if (!continuation_byte(text[i])) --columns;
    }
    while (i > 0 && i < text.size() && continuation_byte(text[i])) --i;
    return i;
}
}  // namespace

std::size_t display_width(std::string_view text) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < text.size();) {
        // Eight plain ASCII bytes are eight columns (nearly all a report prints).
        if (text.size() - i >= 8 && text::non_plain_bytes(text::load_word(text.data() + i)) == 0) {
            width += 8;
            i += 8;
            continue;
        }
        if (text.size() - i < 8) {  // the last bytes, padded with NUL (plain) to a word
            std::uint64_t last = 0;
            std::memcpy(&last, text.data() + i, text.size() - i);
            if (text::non_plain_bytes(last) == 0) return width + (text.size() - i);
        }
        if (std::size_t skip = escape_length(text, i); skip > 0) {
            i += skip;
            continue;
        }
        width += continuation_byte(text[i]) ? 0 : 1;
        ++i;
    }
    return width;
}

std::string elide_left(std::string_view text, std::size_t width) {
    if (display_width(text) <= width) return std::string(text);
    constexpr std::string_view kEllipsis = "\u2026";  // one column
    if (width <= 1) return std::string(kEllipsis);
    std::string_view tail = text.substr(tail_start(text, width - 1));
    // Prefer a cut at a separator: `…/name.py` reads as a path, `…me.py` less so.
    if (auto slash = tail.find('/'); slash != std::string_view::npos && slash + 1 < tail.size())
        tail = tail.substr(slash);
    return std::string(kEllipsis) + std::string(tail);
}

namespace {

// True when `paragraph` is plain ASCII (a column a byte, no colour code) whose words are
// separated by single blanks, with none at either end: its wrapped lines are then pieces of it
// (nearly every message and advice a report prints).
bool plain_single_spaced(std::string_view paragraph) {
    if (paragraph.empty() || paragraph.front() == ' ' || paragraph.back() == ' ') return false;
    if (display_width(paragraph) != paragraph.size()) return false;
    return paragraph.find("  ") == std::string_view::npos;
}

// Where the first line of a plain_single_spaced() paragraph ends: at the last blank within
// `width` columns (a blank at `width` ends a full line), or, when its first word is wider, at
// the end of that word; its end when it fits.
std::size_t plain_line_end(std::string_view paragraph, std::size_t width) {
    if (paragraph.size() <= width) return paragraph.size();
    std::size_t cut = paragraph.rfind(' ', width);
    if (cut == std::string_view::npos) cut = paragraph.find(' ');
    return cut == std::string_view::npos ? paragraph.size() : cut;
}

// wrap() of a plain_single_spaced() paragraph.
void wrap_plain(std::string_view paragraph, std::size_t width, std::vector<std::string>& lines) {
    for (;;) {
        const std::size_t end = plain_line_end(paragraph, width);
        lines.emplace_back(paragraph.substr(0, end));
        if (end == paragraph.size()) return;
        paragraph.remove_prefix(end + 1);
    }
}

// wrap(text, width).front(), without laying out the lines after it when it can.
std::string first_wrapped_line(std::string_view text, std::size_t width) {
    const std::string_view paragraph = text.substr(0, text.find('\n'));
    if (width != 0 && plain_single_spaced(paragraph))
        return std::string(paragraph.substr(0, plain_line_end(paragraph, width)));
    return wrap(text, width).front();
}

}  // namespace

std::vector<std::string> wrap(std::string_view text, std::size_t width) {
    std::vector<std::string> lines;
    if (width == 0) width = std::string_view::npos;
    std::size_t start = 0;
    while (true) {
        std::size_t newline = text.find('\n', start);
        std::string_view paragraph =
            text.substr(start, newline == std::string_view::npos ? newline : newline - start);
        if (plain_single_spaced(paragraph)) {
            wrap_plain(paragraph, width, lines);
            if (newline == std::string_view::npos) break;
            start = newline + 1;
            continue;
        }
        std::string line;
        std::size_t line_width = 0;
        std::size_t i = 0;
        bool any = false;
        while (i < paragraph.size()) {
            std::size_t end = paragraph.find(' ', i);
            if (end == std::string_view::npos) end = paragraph.size();
            std::string_view word = paragraph.substr(i, end - i);
            i = end + 1;
            if (word.empty() && any) continue;  // runs of blanks collapse, leading ones stay
            std::size_t word_width = display_width(word);
            if (line_width > 0 && line_width + 1 + word_width > width) {
                lines.push_back(std::move(line));
                line.clear();
                line_width = 0;
            }
            if (line_width > 0) {
                line += ' ';
                ++line_width;
            }
            line += word;
            line_width += word_width;
            any = true;
        }
        lines.push_back(std::move(line));
        if (newline == std::string_view::npos) break;
        start = newline + 1;
    }
    return lines;
}

std::string hang(std::string_view first, std::string_view text, std::size_t width,
                 std::size_t indent) {
    std::string out(first);
    std::size_t used = display_width(first);
    if (width == 0 ||
        (used + display_width(text) <= width && text.find('\n') == std::string_view::npos)) {
        out += text;
        return out;
    }
    // The first line has `width - used` columns (none when `first` fills it), the others
    // `width - indent`.
    std::size_t first_room = width > used ? width - used : 0;
    std::size_t room = width > indent + 10 ? width - indent : 10;
    std::string_view rest = text;
    std::string head = first_room > 0 ? first_wrapped_line(text, first_room) : std::string();
    // A first word too long for the first line starts on the next one, alone there.
    if (!head.empty() && rest.substr(0, head.size()) == head && display_width(head) <= first_room) {
        out += head;
        rest.remove_prefix(head.size());
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        if (!rest.empty() && rest.front() == '\n') rest.remove_prefix(1);
        if (rest.empty()) return out;
    } else {
        while (!out.empty() && out.back() == ' ') out.pop_back();
    }
    for (const auto& line : wrap(rest, room)) {
        out += '\n';
        out.append(indent, ' ');
        out += line;
    }
    return out;
}

namespace {
// Byte offsets where each code point of `text` starts, plus its size (columns -> bytes).
std::vector<std::size_t> column_offsets(std::string_view text) {
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (!continuation_byte(text[i])) offsets.push_back(i);
    }
    offsets.push_back(text.size());
    return offsets;
}

std::string_view trim_blanks_right(std::string_view text) {
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    return text;
}
}  // namespace

std::string fold_line(std::string_view line, std::size_t width, std::size_t indent) {
    if (width == 0 || display_width(line) <= width) return std::string(line);
    std::size_t lead = line.find_first_not_of(' ');
    if (lead == std::string_view::npos) return std::string(line);
    std::string pad(lead + indent, ' ');
    std::string out;
    std::string_view rest = line;
    for (bool first = true;; first = false) {
        std::size_t room = first ? width : (width > pad.size() + 10 ? width - pad.size() : 10);
        if (!first) {
            out += '\n';
            out += pad;
        }
        if (display_width(rest) <= room) {
            out += rest;
            break;
        }
        // The last blank at column <= room after some text, else the first one (a long token
        // overflows whole).
        std::size_t cut = std::string_view::npos, column = 0;
        bool text_seen = false;
        for (std::size_t i = 0; i < rest.size(); ++i) {
            if (continuation_byte(rest[i])) continue;
            if (rest[i] == ' ' && text_seen) {
                if (column <= room || cut == std::string_view::npos) cut = i;
                if (column >= room) break;
            } else if (rest[i] != ' ') {
                text_seen = true;
            }
            ++column;
        }
        if (cut == std::string_view::npos) {
            out += rest;
            break;
        }
        out += trim_blanks_right(rest.substr(0, cut));
        rest = text::trim_left(rest.substr(cut));
        if (rest.empty()) break;
    }
    return out;
}

std::vector<std::string> fold_table(const std::vector<std::string>& lines, std::size_t width,
                                    std::size_t indent) {
    std::size_t widest = 0;
    for (const auto& line : lines) widest = std::max(widest, display_width(line));
    if (width == 0 || widest <= width) return lines;
    std::vector<std::vector<std::size_t>> offsets;
    for (const auto& line : lines) offsets.push_back(column_offsets(line));
    // Column `c` separates columns when every line has a blank there or ends before it; with
    // `strict`, a blank next to another one: a single blank is inside a cell (`Avg Tail OH(us)`).
    auto blank = [&](std::size_t l, std::size_t column) {
        const auto& at = offsets[l];
        return column + 1 >= at.size() || lines[l][at[column]] == ' ';
    };
    auto separates = [&](std::size_t column, bool strict) {
        for (std::size_t l = 0; l < lines.size(); ++l) {
            if (!blank(l, column)) return false;
            if (strict && column > 0 && !blank(l, column - 1) && !blank(l, column + 1))
                return false;
        }
        return true;
    };
    // Cut points (in columns of the original lines), each piece within its room.
    std::vector<std::size_t> cuts = {0};
    for (;;) {
        std::size_t start = cuts.back();
        std::size_t room = cuts.size() == 1 ? width : (width > indent + 10 ? width - indent : 10);
        if (widest <= start + room) break;
        std::size_t cut = 0;
        for (bool strict : {true, false}) {
            for (std::size_t c = room; c > 0 && cut == 0; --c) {
                if (separates(start + c, strict)) cut = c;
            }
            if (cut != 0) break;
        }
        if (cut == 0) {
            // No common blank column: each line folds on its own.
            std::vector<std::string> out;
            for (const auto& line : lines) out.push_back(fold_line(line, width, indent));
            return out;
        }
        cuts.push_back(start + cut);
    }
    cuts.push_back(std::string_view::npos);
    std::vector<std::string> out;
    for (std::size_t l = 0; l < lines.size(); ++l) {
        const auto& at = offsets[l];
        std::string_view line = lines[l];
        std::string& folded = out.emplace_back();
        for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
            std::size_t columns = at.size() - 1;
            if (cuts[k] >= columns) break;
            std::size_t from = at[cuts[k]], to = at[std::min(cuts[k + 1], columns)];
            std::string_view piece = trim_blanks_right(line.substr(from, to - from));
            if (k == 0) {
                folded = piece;
            } else if (!text::trim(piece).empty()) {
                folded += '\n';
                folded.append(indent, ' ');
                folded += piece;
            }
        }
    }
    return out;
}

Progress::Progress(std::string label, std::size_t total_bytes, bool quiet)
    : label_(std::move(label)),
      total_(total_bytes),
      enabled_(!quiet && !env_set("CI") && smart_terminal(STDERR_FILENO)),
      started_(now_seconds()) {}

Progress::~Progress() {
    finish();
}

void Progress::update(std::size_t done_bytes) {
    if (!enabled_ || total_ == 0) return;
    int percent =
        static_cast<int>(100.0 * static_cast<double>(done_bytes) / static_cast<double>(total_));
    if (percent == last_percent_) return;
    // Only worth showing for work that takes longer than about a second.
    if (!shown_ && now_seconds() - started_ < 0.8) return;
    last_percent_ = percent;
    shown_ = true;
    std::fprintf(stderr, "\r%s %3d%%\x1b[K", label_.c_str(), percent);
    std::fflush(stderr);
}

void Progress::finish() {
    if (shown_) {
        std::fprintf(stderr, "\r\x1b[K");
        std::fflush(stderr);
        shown_ = false;
    }
    enabled_ = false;
}

}  // namespace ptune::term
