#pragma once
/// @file pipeline.hpp
/// The memory-report pipeline shared by `ptune mem-report` and `ptune advise`: which report a
/// file or build directory names, reading and analysing it, and publishing the metrics the
/// `mem.*` rules read, including `mem.report_found` = 0 when there is no report (rule M10).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/memreport/analyzer.hpp"
#include "ptune/memreport/backend.hpp"
#include "ptune/memreport/model.hpp"
#include "ptune/rules/metrics.hpp"

namespace ptune::memreport {

/// The report pypto writes after memory allocation; read before other `memory_after_*.txt`.
inline constexpr std::string_view kReportName = "memory_after_AllocateMemoryAddr.txt";

/// The memory reports (`memory_after_*.txt`) under `dir` in reading order: the newest run's
/// first (by the `<Program>_<YYYYMMDD_HHMMSS>` directory holding each), and within one run
/// kReportName before the reports a user's ReportInstrument wrote after other passes.
std::vector<std::filesystem::path> find_reports(const std::filesystem::path& dir);

/// The report to read, or where none was found.
struct Source {
    std::string file;      ///< the report ("-" is stdin); empty when none was found
    std::string searched;  ///< the directory searched (named by rule M10); empty for a file

    bool found() const { return !file.empty(); }
};

/// The first of `reports` (in find_reports() order) found under `searched`; the others are noted
/// as not read. An empty list gives a Source without a file.
Source choose_report(const std::vector<std::filesystem::path>& reports,
                     const std::filesystem::path& searched, Diagnostics& diagnostics);

/// Resolves what the user named: a report file or "-" as is; a directory (a project holding
/// build_output/, a build_output/ or one run) to the report of its newest run. Notes say which
/// run was picked, which reports are not read, and when only an older run has a report.
Result<Source> locate_report(const std::string& input, Diagnostics& diagnostics);

/// Options of the analysis.
struct Options {
    std::optional<Backend> backend;  ///< overrides the report's; supplies limits printed as N/A
};

/// A report read and analysed. Without a report file, `report` is empty.
struct Analysis {
    Source source;
    Report report;
    BackendChoice choice;

    bool found() const { return source.found(); }
};

/// Reads and analyses the source's report (nothing when there is none). Fails when the file
/// cannot be opened or holds no memory-report table; the parser's line-by-line complaints are
/// dropped when the file is not a memory report at all, since they would bury that message.
Result<Analysis> load_and_analyze(const Source& source, const Options& options,
                                  Diagnostics& diagnostics);

/// Publishes the metrics the `mem.*` rules read: per function (see analyzer.hpp), and on the
/// run `mem.report_found` = 1, or 0 with the label `mem.searched` when there is no report.
void publish(const Analysis& analysis, rules::MetricStore& store);

}  // namespace ptune::memreport
