// history export (export.hpp).

#include "ptune/history/export.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "ptune/bench/gab_json.hpp"
#include "ptune/core/json_document.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"
#include "ptune/render/report.hpp"

namespace ptune::history {

namespace {

std::string cell(const std::optional<double>& value) {
    return value ? fmt::format("{}", *value) : std::string();
}

nlohmann::json optional_json(const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json();
}

}  // namespace

nlohmann::json run_to_json(const RunInfo& run) {
    return {{"run", run.id},
            {"run_key", run.run_key},
            {"time", run.time},
            {"added_at", run.added_at},
            {"commit", run.commit},
            {"branch", run.branch},
            {"toolchain", run.toolchain},
            {"device", run.device},
            {"source_digest", run.source_digest},
            {"lane", run.lane},
            {"contract", run.contract},
            {"lineage", run.lineage},
            {"labels", run.labels},
            {"inputs", run.inputs}};
}

namespace {

// Milliseconds since the epoch of a `YYYY-MM-DDTHH:MM:SSZ` time (github-action-benchmark's
// `date`).
long long epoch_ms(const std::string& time) {
    std::tm tm{};
    if (!strptime(time.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return 0;
    return static_cast<long long>(timegm(&tm)) * 1000;
}

}  // namespace

namespace {

// A CSV field of text from the database or the command line: valid UTF-8 (U+FFFD for what is
// not), escaped.
std::string csv_text(std::string_view value) {
    return text::csv_escape(text::sanitize_utf8(value));
}

}  // namespace

Status export_csv(Store& store, std::ostream& out) {
    // The identity parts (docs/HISTORY.md "Identity") after the columns of schema 1.
    out << "run,time,commit,branch,toolchain,device,case,value_us,rounds,min_us,median_us,"
           "max_us,origin,source,lane,contract,lineage,source_tree\n";
    return store.for_each_run([&](const RunInfo& run, std::vector<CaseValue>&& values) -> Status {
        for (const auto& v : values) {
            out << run.id << ',' << csv_text(run.time) << ',' << csv_text(run.commit) << ','
                << csv_text(run.branch) << ',' << csv_text(run.toolchain) << ','
                << csv_text(run.device) << ',' << csv_text(v.name) << ','
                << fmt::format("{}", v.value_us) << ',' << v.rounds << ',' << cell(v.min_us) << ','
                << cell(v.median_us) << ',' << cell(v.max_us) << ',' << csv_text(v.origin) << ','
                << csv_text(v.source) << ',' << csv_text(run.lane) << ','
                << csv_text(v.contract.empty() ? run.contract : v.contract) << ','
                << csv_text(run.lineage) << ',' << csv_text(run.source_digest) << '\n';
        }
        return ok_status();
    });
}

Status export_json(Store& store, std::ostream& out) {
    render::Report report;
    report.command = "history export";
    report.include_findings_in_json = false;
    // The envelope as every ptune JSON, then the runs streamed into it.
    std::string envelope = json_document::dump(render::to_json(report));
    envelope.pop_back();
    out << envelope << (envelope.size() > 1 ? "," : "") << "\"runs\":[";
    bool first = true;
    auto status =
        store.for_each_run([&](const RunInfo& run, std::vector<CaseValue>&& values) -> Status {
            auto json = run_to_json(run);
            auto& cases = json["cases"] = nlohmann::json::array();
            for (const auto& v : values) {
                cases.push_back({{"case", v.name},
                                 {"value_us", v.value_us},
                                 {"rounds", v.rounds},
                                 {"min_us", optional_json(v.min_us)},
                                 {"median_us", optional_json(v.median_us)},
                                 {"max_us", optional_json(v.max_us)},
                                 {"samples", v.samples},
                                 {"origin", v.origin},
                                 {"source", v.source}});
            }
            out << (first ? "\n" : ",\n") << json_document::dump(json);
            first = false;
            return ok_status();
        });
    out << "\n]}\n";
    return status;
}

namespace {

// A compact view of one case in one run (the document is streamed: a large history stays
// small here).
struct GabCase {
    std::string name;
    double value, baseline;
    std::string_view verdict;
};
using GabCases = std::map<Epoch, std::map<std::int64_t, std::vector<GabCase>>>;

// Per epoch and run, each case against its segment's median, or at a change point against the
// previous segment's median.
Status collect_gab_cases(Store& store, const AnalyseOptions& options, GabCases& results,
                         Diagnostics& diagnostics) {
    return analyse(
        store, {}, options,
        [&](Analysis&& analysis) -> Status {
            const auto changes = describe(analysis);
            const auto& points = analysis.series.points;
            std::size_t begin = 0;
            for (std::size_t c = 0; c <= analysis.change_points.size(); ++c) {
                const std::size_t end = c < analysis.change_points.size()
                                            ? analysis.change_points[c].index
                                            : points.size();
                std::vector<double> values;
                for (std::size_t i = begin; i < end; ++i) values.push_back(points[i].value_us);
                const double median = stats::median(values).value_or(0.0);
                for (std::size_t i = begin; i < end; ++i) {
                    GabCase b{analysis.series.name, points[i].value_us, median, "unchanged"};
                    if (c > 0 && i == begin) {  // the first run after change point c - 1
                        const auto& change = changes[c - 1];
                        b.baseline = change.before_us;
                        b.verdict = change.change_pct > 0 ? "regressed" : "improved";
                    }
                    results[analysis.series.epoch][points[i].run].push_back(std::move(b));
                }
                begin = end;
            }
            return ok_status();
        },
        diagnostics);
}

// One run's entry: its commit and date, and its cases as github-action-benchmark benches.
void write_gab_run(const RunInfo& run, const std::vector<GabCase>& cases, std::ostream& out) {
    std::ostringstream text;
    bench::GabJsonWriter writer(text);
    for (const auto& b : cases)
        writer.add(
            {b.name, b.value, b.verdict, b.baseline, (b.value - b.baseline) / b.baseline * 100.0});
    writer.finish();
    const nlohmann::json entry = {
        {"commit", {{"id", run.commit}, {"message", ""}, {"timestamp", run.time}, {"url", ""}}},
        {"date", epoch_ms(run.time)},
        {"tool", "customSmallerIsBetter"},
        {"benches", nlohmann::json::parse(text.str())}};
    out << json_document::dump(entry);
}

}  // namespace

Status export_gab_json(Store& store, const AnalyseOptions& options, std::ostream& out,
                       Diagnostics& diagnostics) {
    GabCases results;
    if (auto status = collect_gab_cases(store, options, results, diagnostics); !status)
        return status;
    auto runs = store.runs();
    if (!runs) return runs.error();
    std::map<std::int64_t, const RunInfo*> by_id;
    long long last = 0;
    for (const auto& run : *runs) {
        by_id[run.id] = &run;
        last = std::max(last, epoch_ms(run.time));
    }
    std::set<std::int64_t> orphan_runs;
    out << "{\"lastUpdate\":" << last << ",\"repoUrl\":\"\",\"entries\":{";
    bool first_epoch = true;
    for (auto& [epoch, per_run] : results) {
        out << (first_epoch ? "\n" : "],\n")
            << json_document::dump(nlohmann::json("ptune " + epoch.label())) << ":[";
        first_epoch = false;
        std::vector<std::pair<const RunInfo*, const std::vector<GabCase>*>> ordered;
        for (const auto& [id, cases] : per_run) {
            // A damaged database can hold samples of a run it has no row for: left out, said once.
            auto run = by_id.find(id);
            if (run != by_id.end())
                ordered.emplace_back(run->second, &cases);
            else
                orphan_runs.insert(id);
        }
        std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
            return std::tie(a.first->time, a.first->id) < std::tie(b.first->time, b.first->id);
        });
        bool first_run = true;
        for (const auto& [run, cases] : ordered) {
            out << (first_run ? "\n" : ",\n");
            write_gab_run(*run, *cases, out);
            first_run = false;
        }
    }
    out << (first_epoch ? "}}\n" : "]}}\n");
    if (!orphan_runs.empty()) {
        diagnostics.warn(
            store.location(), 0,
            fmt::format("samples of {} run id(s) without a run row ({}, ...) were left "
                        "out: the database is damaged",
                        orphan_runs.size(), *orphan_runs.begin()));
    }
    return ok_status();
}

}  // namespace ptune::history
