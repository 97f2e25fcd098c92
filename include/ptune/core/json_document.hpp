#pragma once
/// @file json_document.hpp
/// nlohmann JSON both ways without its surprises: one parse for small documents read whole
/// (configs, baselines, rule files, CI result files, a bench-summary JSON output, sidecars) whose
/// every failure is an input error at the line where it stands, and one dump that never throws.
/// nlohmann reports a number beyond double (`1e999`) as another exception kind than a syntax
/// error, with no position, and its plain dump() throws on invalid UTF-8; code that called it
/// directly forgot one or the other more than once, and each reached the user as an internal
/// error (exit 3).

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ptune/core/error.hpp"

namespace ptune::json_document {

/// Longest reason a parse error's message quotes; nlohmann's reason repeats the offending token,
/// which for a number or a string may be thousands of characters.
inline constexpr std::size_t kReasonShown = 120;

/// Parses `text`. A syntax error, a document cut short or a number beyond double is
/// `Error{"not valid JSON: <reason>", source, line, ExitCode::InputError}`: the reason is
/// nlohmann's without its `[json.exception…]` tag and position, cut at kReasonShown characters
/// (then `...`) and valid UTF-8; the line is 1-based, that of the offending character (of the
/// number for an overflow, of the last non-blank character when the document ends early).
Result<nlohmann::json> parse(std::string_view text, const std::string& source);

/// `value.dump(indent)` with invalid UTF-8 in its strings written as U+FFFD. A value built from
/// text that was never JSON (a file name, a log line) need not be UTF-8, and nlohmann's plain
/// dump() throws on it (type_error 316), which reached the user as an internal error.
std::string dump(const nlohmann::json& value, int indent = -1);

}  // namespace ptune::json_document
