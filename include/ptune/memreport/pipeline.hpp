#pragma once
/// @file pipeline.hpp
/// The memory-report pipeline shared by `ptune mem-report` and `ptune advise`: which report a
/// file or build directory names, reading and analysing it, and publishing the metrics the
/// `mem.*` rules read, including `mem.report_found` = 0 when there is no report (rule M10).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
/// The suffix of the pass dump a table can be rebuilt from (`passes_dump/NN_<suffix>`).
inline constexpr std::string_view kDumpSuffix = "_after_AllocateMemoryAddr.py";

/// True for a path named like a pass dump (`.py`); a text report otherwise.
bool is_pass_dump_path(const std::filesystem::path& path);

/// What memory data sits under `dir`, in reading order: the newest run's first (by the
/// `<Program>_<YYYYMMDD_HHMMSS>` directory holding each); within one run the text reports
/// (kReportName before the reports a user's ReportInstrument wrote after other passes), then
/// the pass dumps `passes_dump/NN_after_AllocateMemoryAddr.py`, highest NN first (dump order,
/// never mtime).
std::vector<std::filesystem::path> find_reports(const std::filesystem::path& dir);

/// The input to read, or where none was found.
struct Source {
    std::string file;         ///< the text report, else the pass dump ("-" is stdin); empty if none
    std::string searched;     ///< the directory searched (named by rule M10); empty for a file
    std::string cross_check;  ///< the same run's pass dump when `file` is its text report

    bool found() const { return !file.empty(); }
};

/// The newest run's text report of `reports` (in find_reports() order), else its newest pass
/// dump; with both, the dump becomes `cross_check`. The other files are noted as not read.
/// An empty list gives a Source without a file.
Source choose_report(const std::vector<std::filesystem::path>& reports,
                     const std::filesystem::path& searched, Diagnostics& diagnostics);

/// Resolves what the user named: a report file or "-" as is; a directory (a project holding
/// build_output/, a build_output/ or one run) to the report of its newest run. Notes say which
/// run was picked, which reports are not read, and when only an older run has a report.
Result<Source> locate_report(const std::string& input, Diagnostics& diagnostics);

/// Options of the analysis.
struct Options {
    /// Overrides the report's backend and supplies limits printed as N/A; for a pass dump, the
    /// backend before `ptoas/*.pto` `target_arch`, `compiled_meta.json` `backend_type` and the
    /// assumed a2a3.
    std::optional<Backend> backend;
};

/// The backend of a pass dump's build (mem-report.md §11): `forced`, else `target_arch` in
/// `<run>/ptoas/*.pto`, else `backend_type` in `<run>/compiled_meta.json`, else a2a3 assumed.
/// `<run>` is the directory above `passes_dump/`. Returns the backend and how it was chosen
/// (option, ptoas, compiled_meta, assumed). Both files are inputs like any other: a FIFO, a
/// device or a file that is the command's own output (`-o`) fails (exit 2), never blocks.
Result<std::pair<Backend, std::string>> resolve_dump_backend(const std::string& dump,
                                                             std::optional<Backend> forced,
                                                             Diagnostics& diagnostics);

/// A report read and analysed. Without a report file, `report` is empty.
struct Analysis {
    Source source;
    Report report;
    BackendChoice choice;
    /// How the text report and the pass dump of the same build differ (empty when they agree
    /// or when only one was read).
    std::vector<std::string> differences;

    bool found() const { return source.found(); }
};

/// How two tables of the same build differ (functions, spaces, Used, Limit, MemRefs, buffer
/// names and address ranges; live ranges are not comparable across the two sources), one
/// sentence per difference; empty when they are equal. `text` is the text report's side.
std::vector<std::string> compare_tables(const Report& text, const Report& dump);

/// Reads and analyses the source's report or pass dump (nothing when there is none), and
/// cross-checks a text report against its run's dump. Fails when the file cannot be opened,
/// holds no memory-report table, or is a dump written before address assignment; the parser's
/// line-by-line complaints are dropped when the file is not a memory report at all, since they
/// would bury that message.
Result<Analysis> load_and_analyze(const Source& source, const Options& options,
                                  Diagnostics& diagnostics);

/// Publishes the metrics the `mem.*` rules read: per function (see analyzer.hpp), and on the
/// run `mem.report_found` = 1, or 0 with the label `mem.searched` when there is no report.
void publish(const Analysis& analysis, rules::MetricStore& store);

}  // namespace ptune::memreport
