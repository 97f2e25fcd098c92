#pragma once
// Text helpers shared by the bench readers: line normalisation and message snippets.

#include <string>
#include <string_view>

namespace ptune::bench {

/// A short, printable excerpt of input text for a diagnostic (valid UTF-8, at most `limit`
/// bytes, "..." appended when cut).
std::string clip_for_message(std::string_view text, std::size_t limit);

/// The line without a leading GitHub Actions timestamp (`2026-08-21T21:43:07.1234567Z `).
std::string_view strip_actions_timestamp(std::string_view line);

}  // namespace ptune::bench
