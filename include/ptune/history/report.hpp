#pragma once
/// @file report.hpp
/// What `ptune history` prints (docs/HISTORY.md): one render::Report per action, built from
/// what the pipeline returns, so the command only parses options, calls the pipeline and emits.
/// Tables follow the shared conventions (docs/DEVELOPING.md, Text output): units in the header
/// (`before (µs)`; CSV keeps the bare column name), changes as `+7.2%`; JSON keeps `_us` keys.

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/history/model.hpp"
#include "ptune/history/pipeline.hpp"
#include "ptune/history/store.hpp"
#include "ptune/render/report.hpp"

namespace ptune::history {

/// `history add`: the run recorded (or found already recorded), its key, cases, commit, time
/// and epoch in the JSON; one note line.
render::Report add_report(const NewRun& run, const AddOutcome& outcome);

/// `history list`: one row per run (run, time, commit, branch, epoch, cases, labels) and a
/// note with the count and `location` (the store's); JSON `runs` as run_to_json plus `cases`.
render::Report list_report(const std::vector<RunInfo>& runs, const std::string& location);

/// `history show CASE`: one row per point of every epoch's series of `name` (effective µs, its
/// distance from its segment's median, `<- +7.2%` at a change point), a sparkline note per
/// epoch; JSON `case` and `series` (points with `value_us`, changes as changes_json).
render::Report show_report(const std::string& name, const std::vector<Analysis>& analyses);

/// The extra formats of `history show`, made from the report show_report built: `svg` (the
/// chart) and `html` (a page with the chart and the report's table).
std::map<std::string, std::shared_ptr<render::Renderer>> show_renderers(
    const std::string& name, const std::vector<Analysis>& analyses, const render::Report& report);

/// `history changes`: one row per change point (case, epoch, run, commit range, medians
/// before and after in µs, change, confidence); a note with the count, the number of `series`
/// searched and the method; JSON `changes` (changes_json), `series`, `method`.
render::Report changes_report(const std::vector<Change>& changes, std::size_t series,
                              const DetectOptions& detect, const std::vector<Bridge>& bridges = {});

/// Bridges as notes (`CASE: run N (commit): bridge: … — no delta across it`) and JSON.
void add_bridges(render::Report& report, const std::vector<Bridge>& bridges);

/// The formats each action has (`add`, `list`, `show`, `changes`, `export`); `export` given
/// `text` (no --format) becomes `csv`. Another format is a usage error naming those it has.
Status check_format(const std::string& action, std::string& format);

/// `history list`: the report of every run in `store`.
Result<render::Report> list(Store& store);

/// `history show CASE`: the analyses of `name` and their report; an error (exit 2) when the
/// history has no such case.
struct Shown {
    std::vector<Analysis> analyses;
    render::Report report;
};
Result<Shown> show(Store& store, const std::string& name, const AnalyseOptions& options,
                   Diagnostics& diagnostics);

/// `history changes [CASE]`: the change points' report; an error (exit 2) when `only` names a
/// case the history does not have.
Result<render::Report> changes(Store& store, const std::string& only, const AnalyseOptions& options,
                               Diagnostics& diagnostics);

/// Change points as JSON: case, toolchain, device, run, commit_before, commit, before_us,
/// after_us, change_pct, p_value, confidence.
nlohmann::json changes_json(const std::vector<Change>& changes);

}  // namespace ptune::history
