#include "ptune/memreport/pipeline.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "ptune/core/discover.hpp"
#include "ptune/core/io.hpp"
#include "ptune/memreport/parser.hpp"

namespace ptune::memreport {

namespace fs = std::filesystem;

namespace {

// The timestamp of the nearest `<Program>_<YYYYMMDD_HHMMSS>` directory holding `path`.
std::string run_timestamp(const fs::path& path) {
    for (fs::path dir = path.parent_path(); !dir.empty() && dir != dir.parent_path();
         dir = dir.parent_path()) {
        if (auto run = discover::parse_run_dir_name(dir)) return run->timestamp;
    }
    return "";
}

}  // namespace

std::vector<fs::path> find_reports(const fs::path& dir) {
    std::vector<std::pair<std::string, fs::path>> keyed;
    for (auto& path : discover::find_files(dir, {"memory_after_*"})) {
        if (path.extension() == ".txt") keyed.emplace_back(run_timestamp(path), std::move(path));
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first > b.first;
        return (a.second.filename() == kReportName) > (b.second.filename() == kReportName);
    });
    std::vector<fs::path> found;
    for (auto& entry : keyed) found.push_back(std::move(entry.second));
    return found;
}

Source choose_report(const std::vector<fs::path>& reports, const fs::path& searched,
                     Diagnostics& diagnostics) {
    Source source{"", searched.string()};
    if (reports.empty()) return source;
    source.file = reports.front().string();
    for (std::size_t i = 1; i < reports.size(); ++i) {
        diagnostics.note(reports[i].string(), 0,
                         fmt::format("not read (reading {}); name it to read it", source.file));
    }
    return source;
}

Result<Source> locate_report(const std::string& input, Diagnostics& diagnostics) {
    std::error_code error;
    if (input == io::kStdinName || !fs::is_directory(input, error)) return Source{input, ""};
    fs::path base = discover::runs_root(input);
    std::string note;
    auto run_dir = discover::resolve_run(base, "", 1, &note);
    if (!run_dir) return run_dir.error();
    if (!note.empty()) diagnostics.note(base.string(), 0, note);
    Source source = choose_report(find_reports(*run_dir), *run_dir, diagnostics);
    // The newest run may come from a current pypto while an older one has a report.
    if (!source.found() && *run_dir != base) {
        if (auto older = find_reports(base); !older.empty()) {
            diagnostics.note(older.front().string(), 0,
                             "an older run has a memory report; name it to read it");
        }
    }
    return source;
}

Result<Analysis> load_and_analyze(const Source& source, const Options& options,
                                  Diagnostics& diagnostics) {
    Analysis analysis{source, {}, {}};
    if (!source.found()) return analysis;
    auto input = io::open_input(source.file);
    if (!input) return input.error();
    Diagnostics parse_diagnostics;
    analysis.report = parse_report(input->stream(), source.file, parse_diagnostics);
    const Report& report = analysis.report;
    if (report.functions.empty()) {
        bool has_header =
            !report.pass.empty() || !report.backend_token.empty() || report.functions_declared;
        if (has_header) diagnostics.append(parse_diagnostics);
        return Error{
            "no memory-report table found (expected '--- function ---' blocks with "
            "Space | Used | Limit | Usage | MemRefs rows)",
            source.file, 0, ExitCode::InputError};
    }
    diagnostics.append(parse_diagnostics);
    analysis.choice = analyze(analysis.report, options.backend, diagnostics);
    return analysis;
}

void publish(const Analysis& analysis, rules::MetricStore& store) {
    if (analysis.found()) {
        publish_metrics(analysis.report, analysis.choice, store);
        return;
    }
    store.run().metrics["mem.report_found"] = 0;
    store.run().labels["mem.searched"] = analysis.source.searched;
}

}  // namespace ptune::memreport
