#pragma once
// JSON helpers private to ciresult: a parse of a document that must be an object, typed member
// access that throws DocumentError, and the line of a string in the text.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/core/error.hpp"

namespace ptune::ciresult {

/// A structural problem of a document (missing key, wrong type); caught at the parser's edge.
struct DocumentError {
    std::string message;
};

/// json_document::parse() of a document that must be an object: otherwise the error
/// `<what> is not a JSON object` at line 1.
Result<nlohmann::json> parse_json_object(std::string_view text, const std::string& source,
                                         std::string_view what);

/// The `cases` list of a suite-result.json (either suite): an error (exit 2) at its line when
/// it is missing or not a list.
Result<const nlohmann::json*> suite_cases(const nlohmann::json& root, std::string_view text,
                                          const std::string& source);

/// `object[key]`, or DocumentError `missing key '<key>'` (also when `object` is no object).
const nlohmann::json& required_member(const nlohmann::json& object, const char* key);

/// `object[key]` when it is a string, else empty.
std::string string_member(const nlohmann::json& object, const char* key);

/// The 1-based line of the `occurrence`-th `"value"` in `text` (0 when absent).
std::size_t line_of_string(std::string_view text, const std::string& value,
                           std::size_t occurrence = 1);

/// line_of_string(text, value) of each of `values` (the first occurrence), in one pass over
/// `text`: a suite-result.json's rows without a scan from the top per row.
std::vector<std::size_t> lines_of_strings(std::string_view text,
                                          const std::vector<std::string>& values);

}  // namespace ptune::ciresult
