#pragma once
// Text helpers shared by the bench readers: line normalisation and message snippets.

#include <string>
#include <string_view>

namespace ptune::bench {

/// A short, printable excerpt of input text for a diagnostic (valid UTF-8, at most `limit`
/// bytes, "..." appended when cut).
std::string clip_for_message(std::string_view text, std::size_t limit);

/// Removes what framing adds to a log line (bench-log.md §3.4): a GitHub Actions timestamp
/// prefix and ANSI CSI sequences. `scratch` holds the text when a copy is needed; the result
/// views either `line` or `scratch`.
std::string_view normalise_line(std::string_view line, std::string& scratch);

}  // namespace ptune::bench
