#pragma once
/// @file parser.hpp
/// Streaming reader of `pmu.csv` (spec: pmu.md §2–3).

#include <istream>
#include <string>
#include <string_view>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/pmu/model.hpp"

namespace ptune::pmu {

/// Recognises a header line: the fixed six-column prefix is required; the counter set is looked
/// up among the 14 exact upstream headers to find (arch, event type). An unknown counter set is
/// accepted (known = false) and its counters are reported raw. Fails when the prefix is wrong.
Result<HeaderInfo> parse_header(std::string_view line);

/// Reads a pmu.csv from a stream. Rows in any order. A bad row (wrong field count, a
/// non-numeric counter, a malformed task id or core type) is reported with `source:line` and
/// skipped; parsing continues. Fails when the file is empty or its first line is not a pmu.csv
/// header; a table without rows is returned as is (the caller decides whether that is usable).
Result<PmuTable> parse_pmu_csv(std::istream& in, const std::string& source,
                               Diagnostics& diagnostics);
/// The same over text already in memory.
Result<PmuTable> parse_pmu_csv(std::string_view text, const std::string& source,
                               Diagnostics& diagnostics);

}  // namespace ptune::pmu
