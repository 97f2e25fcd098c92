// JSON helpers private to ciresult (json_util.hpp).

#include "json_util.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ptune::ciresult {

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

}  // namespace ptune::ciresult
