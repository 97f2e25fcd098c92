// JSON helpers private to ciresult (json_util.hpp).

#include "json_util.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "ptune/core/json_document.hpp"

namespace ptune::ciresult {

Result<nlohmann::json> parse_json_object(std::string_view text, const std::string& source,
                                         std::string_view what) {
    auto document = json_document::parse(text, source);
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
    const std::string needle = json_document::dump(nlohmann::json(value));
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
    for (std::size_t i = 0; i < values.size(); ++i)
        needles[i] = json_document::dump(nlohmann::json(values[i]));
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
