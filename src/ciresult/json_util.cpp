// JSON helpers private to ciresult (json_util.hpp).

#include "json_util.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

namespace ptune::ciresult {

namespace {

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
        } else if (text.compare(at, number.size(), number) == 0 &&
                   (at == 0 || !in_number(text[at - 1])) &&
                   (at + number.size() == text.size() || !in_number(text[at + number.size()]))) {
            return line;
        }
    }
    return 0;
}

}  // namespace

Result<nlohmann::json> parse_json_document(std::string_view text, const std::string& source) {
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        const std::size_t at = std::min<std::size_t>(e.byte, text.size());
        const std::size_t line =
            1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
        std::string message = e.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." -> the reason
        if (auto colon = message.find(": "); colon != std::string::npos)
            message = message.substr(colon + 2);
        return Error{fmt::format("not valid JSON: {}", message), source, line,
                     ExitCode::InputError};
    } catch (const nlohmann::json::exception& e) {
        // A number beyond double ("1e999": out_of_range.406) is found by the parser, but its
        // exception carries no position: the line is that of the number's text.
        std::string_view message = e.what();  // "[json.exception.out_of_range.406] number …"
        if (auto tag_end = message.find("] "); tag_end != std::string_view::npos)
            message.remove_prefix(tag_end + 2);
        std::string_view number;
        if (auto open = message.find("parsing '"); open != std::string_view::npos) {
            number = message.substr(open + 9);
            number = number.substr(0, number.rfind('\''));
        }
        // (the number is the input's text, perhaps thousands of digits: the message is cut)
        constexpr std::size_t kShown = 120;
        return Error{fmt::format("not valid JSON: {}{}", message.substr(0, kShown),
                                 message.size() > kShown ? "..." : ""),
                     source, line_of_number(text, number), ExitCode::InputError};
    }
}

Result<nlohmann::json> parse_json_object(std::string_view text, const std::string& source,
                                         std::string_view what) {
    auto document = parse_json_document(text, source);
    if (document && !document->is_object())
        return Error{fmt::format("{} is not a JSON object", what), source, 1, ExitCode::InputError};
    return document;
}

Result<const nlohmann::json*> suite_cases(const nlohmann::json& root, std::string_view text,
                                          const std::string& source) {
    auto cases = root.find("cases");
    if (cases == root.end() || !cases->is_array()) {
        return Error{"suite-result.json: cases is not a list", source,
                     std::max<std::size_t>(1, line_of_string(text, "cases")), ExitCode::InputError};
    }
    return &*cases;
}

const nlohmann::json& required_member(const nlohmann::json& object, const char* key) {
    if (!object.is_object()) throw DocumentError{fmt::format("missing key '{}'", key)};
    auto it = object.find(key);
    if (it == object.end()) throw DocumentError{fmt::format("missing key '{}'", key)};
    return *it;
}

std::string string_member(const nlohmann::json& object, const char* key) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_string()) return {};
    return it->get<std::string>();
}

std::size_t line_of_string(std::string_view text, const std::string& value,
                           std::size_t occurrence) {
    const std::string needle = nlohmann::json(value).dump();
    std::size_t at = 0;
    for (std::size_t n = 0; n < occurrence; ++n) {
        at = text.find(needle, n == 0 ? 0 : at + 1);
        if (at == std::string_view::npos) return 0;
    }
    return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

std::vector<std::size_t> lines_of_strings(std::string_view text,
                                          const std::vector<std::string>& values) {
    std::vector<std::size_t> lines(values.size(), 0);
    // A needle without a backslash holds no '"' between its quotes: an occurrence starts at a
    // '"' (any: an escaped one too) and ends at the next '"'. Each '"' is tried as a start, so
    // the first occurrence is found as text.find() finds it. Other needles: line_of_string().
    std::vector<std::string> needles(values.size());
    std::unordered_map<std::string_view, std::vector<std::size_t>> wanted;  // inside -> values
    std::size_t longest = 0;
    for (std::size_t i = 0; i < values.size(); ++i) needles[i] = nlohmann::json(values[i]).dump();
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (needles[i].find('\\') != std::string::npos) {
            lines[i] = line_of_string(text, values[i]);
            continue;
        }
        const std::string_view inside =
            std::string_view(needles[i]).substr(1, needles[i].size() - 2);
        wanted[inside].push_back(i);
        longest = std::max(longest, inside.size());
    }
    std::vector<std::pair<std::size_t, std::size_t>> found;  // (offset, value)
    for (std::size_t start = text.find('"'); start != std::string_view::npos && !wanted.empty();) {
        const std::size_t end = text.find('"', start + 1);
        if (end == std::string_view::npos) break;
        if (end - start - 1 <= longest) {
            if (auto it = wanted.find(text.substr(start + 1, end - start - 1));
                it != wanted.end()) {
                for (std::size_t i : it->second) found.emplace_back(start, i);
                wanted.erase(it);
            }
        }
        start = end;
    }
    std::sort(found.begin(), found.end());
    std::size_t line = 1, counted = 0;  // newlines before `counted`
    for (const auto& [offset, i] : found) {
        line += static_cast<std::size_t>(
            std::count(text.begin() + counted, text.begin() + offset, '\n'));
        counted = offset;
        lines[i] = line;
    }
    return lines;
}

}  // namespace ptune::ciresult
