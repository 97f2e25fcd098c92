#pragma once
/// @file parser.hpp
/// Streaming parser of `perf_hints.log` (perf-hints.md §2): entries start at a line beginning
/// `[perf_hint ` or `[perf_hint]`; other non-empty lines continue the previous entry; the
/// location is split from the last ` at file:line:col`.

#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/hints/model.hpp"

namespace ptune::hints {

/// Receives each entry in file order.
using EntrySink = std::function<void(Entry&&)>;

/// Parses a log from a stream without holding it in memory. Lines that are not part of an entry
/// are reported to `diagnostics` as `source:line` and skipped. Returns the number of entries.
std::size_t parse_log(std::istream& in, const std::string& source, Diagnostics& diagnostics,
                      const EntrySink& sink);

/// Parses a log held in memory (tests, small inputs).
std::vector<Entry> parse_log_text(std::string_view text, const std::string& source,
                                  Diagnostics& diagnostics);

/// Splits PH-LOC: removes the last ` at FILE:LINE:COL` (FILE on one line, LINE digits, COL
/// optionally negative digits) from `text` and returns it; nullopt (text unchanged) when absent.
std::optional<SourceSpan> split_location(std::string& text);

/// Reads the typed fields of a message by the templates of its code. Sets `entry.fields`,
/// `entry.ph001_template` and `entry.template_matched`.
void extract_fields(Entry& entry);

}  // namespace ptune::hints
