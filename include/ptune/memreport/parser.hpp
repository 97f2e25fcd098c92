#pragma once
/// @file parser.hpp
/// Reads `memory_after_*.txt` (v1–v3, mem-report.md §2–§3) line by line. Header lines and
/// blank lines are optional (the tuning guide's excerpts drop them); values wider than their
/// column are handled by splitting on `|`, never by column position. A garbled row is reported
/// with file and line and skipped; everything that parsed is kept.

#include <istream>
#include <string>
#include <string_view>

#include "ptune/core/diagnostics.hpp"
#include "ptune/memreport/model.hpp"

namespace ptune::memreport {

/// Parses a report from a stream. `source` names the input in diagnostics.
Report parse_report(std::istream& in, const std::string& source, Diagnostics& diagnostics);
/// Parses a report held in memory.
Report parse_report(std::string_view text, const std::string& source, Diagnostics& diagnostics);

}  // namespace ptune::memreport
