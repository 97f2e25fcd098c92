// Line normalisation for captured logs and short excerpts for messages.

#include "text_util.hpp"

#include "ptune/core/text.hpp"

namespace ptune::bench {

namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

/// Length of a leading `YYYY-MM-DDTHH:MM:SS(.fff)Z ` prefix, 0 if there is none.
std::size_t actions_timestamp_length(std::string_view line) {
    constexpr std::string_view shape = "dddd-dd-ddTdd:dd:dd";
    if (line.size() < shape.size() + 2) return 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 'd' ? !is_digit(line[i]) : line[i] != shape[i]) return 0;
    }
    std::size_t at = shape.size();
    if (line[at] == '.') {
        ++at;
        std::size_t digits = at;
        while (at < line.size() && is_digit(line[at])) ++at;
        if (at == digits) return 0;
    }
    if (at < line.size() && line[at] == 'Z') {
        ++at;
        if (at < line.size() && line[at] == ' ') return at + 1;
        if (at == line.size()) return at;
    }
    return 0;
}

}  // namespace

std::string clip_for_message(std::string_view text, std::size_t limit) {
    bool cut = text.size() > limit;
    std::string clipped = text::sanitize_utf8(text.substr(0, limit));
    if (cut) clipped += "...";
    return clipped;
}

std::string_view strip_actions_timestamp(std::string_view line) {
    return line.substr(actions_timestamp_length(line));
}

}  // namespace ptune::bench
