#include "ptune/core/json_document.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"

namespace ptune::json_document {

namespace {

std::size_t line_at(std::string_view text, std::size_t offset) {
    return 1 + io::count_newlines(text.data(), text.data() + offset);
}

/// The 1-based line of the first `number` that stands as a value in `text` (outside strings,
/// not part of a longer number); 0 when there is none.
std::size_t line_of_number(std::string_view text, std::string_view number) {
    if (number.empty()) return 0;
    auto in_number = [](char c) {
        return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
    };
    std::size_t line = 1;
    bool in_string = false;
    for (std::size_t at = 0; at < text.size(); ++at) {
        const char c = text[at];
        if (c == '\n') {
            ++line;
        } else if (in_string) {
            if (c == '\\')
                ++at;  // (an escaped quote does not end the string)
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (text.substr(at, number.size()) == number &&
                   (at == 0 || !in_number(text[at - 1])) &&
                   (at + number.size() == text.size() || !in_number(text[at + number.size()]))) {
            return line;
        }
    }
    return 0;
}

/// nlohmann's what() without the "[json.exception.<kind>.<id>] " tag and, for a parse error,
/// the "parse error at line L, column C: " the caller reports as the line.
std::string_view reason_of(std::string_view what) {
    if (auto tag_end = what.find("] "); tag_end != std::string_view::npos)
        what.remove_prefix(tag_end + 2);
    if (what.starts_with("parse error")) {
        if (auto colon = what.find(": "); colon != std::string_view::npos)
            what.remove_prefix(colon + 2);
    }
    return what;
}

Error input_error(std::string_view reason, const std::string& source, std::size_t line) {
    const bool cut = reason.size() > kReasonShown;
    return Error{fmt::format("not valid JSON: {}{}",
                             text::sanitize_utf8(reason.substr(0, kReasonShown)), cut ? "..." : ""),
                 source, line, ExitCode::InputError};
}

}  // namespace

Result<nlohmann::json> parse(std::string_view text, const std::string& source) {
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte counts the offending character (1-based), or one past the end at the end.
        std::size_t offset = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
        if (offset == text.size()) {
            // Cut short: a trailing newline would name a line past the last one written.
            const auto last = text.find_last_not_of(" \t\r\n");
            offset = last == std::string_view::npos ? 0 : last;
        }
        return input_error(reason_of(e.what()), source, line_at(text, offset));
    } catch (const nlohmann::json::exception& e) {
        // A number beyond double ("1e999": out_of_range.406) carries no position: the line is
        // that of the number's text, which the reason quotes.
        const std::string_view reason = reason_of(e.what());
        std::string_view number;
        if (auto open = reason.find("parsing '"); open != std::string_view::npos) {
            number = reason.substr(open + 9);
            number = number.substr(0, number.rfind('\''));
        }
        return input_error(reason, source, line_of_number(text, number));
    }
}

std::string dump(const nlohmann::json& value, int indent) {
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ptune::json_document
