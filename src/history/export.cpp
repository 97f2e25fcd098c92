// history export (export.hpp).

#include "ptune/history/export.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "ptune/bench/gate_report.hpp"
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

Status export_csv(Store& store, std::ostream& out) {
    out << "run,time,commit,branch,toolchain,device,case,value_us,rounds,min_us,median_us,"
           "max_us,origin,source\n";
    return store.for_each_run([&](const RunInfo& run, std::vector<CaseValue>&& values) -> Status {
        for (const auto& v : values) {
            out << run.id << ',' << run.time << ',' << text::csv_escape(run.commit) << ','
                << text::csv_escape(run.branch) << ',' << text::csv_escape(run.toolchain) << ','
                << text::csv_escape(run.device) << ',' << text::csv_escape(v.name) << ','
                << fmt::format("{}", v.value_us) << ',' << v.rounds << ',' << cell(v.min_us) << ','
                << cell(v.median_us) << ',' << cell(v.max_us) << ',' << text::csv_escape(v.origin)
                << ',' << text::csv_escape(v.source) << '\n';
        }
        return ok_status();
    });
}

Status export_json(Store& store, std::ostream& out) {
    render::Report report;
    report.command = "history export";
    report.include_findings_in_json = false;
    // The envelope as every ptune JSON, then the runs streamed into it.
    std::string envelope = render::to_json(report).dump();
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
            out << (first ? "\n" : ",\n") << json.dump();
            first = false;
            return ok_status();
        });
    out << "\n]}\n";
    return status;
}

Status export_gab_json(Store& store, const AnalyseOptions& options, std::ostream& out,
                       Diagnostics& diagnostics) {
    // Per epoch and run, the gate's view of every case: what the renderer turns into benches.
    std::map<Epoch, std::map<std::int64_t, bench::gate::GateResult>> results;
    auto status = analyse(
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
                    bench::gate::CaseResult r;
                    r.name = analysis.series.name;
                    r.current = points[i].value_us;
                    r.baseline = median;
                    r.verdict = bench::gate::Verdict::Unchanged;
                    if (c > 0 && i == begin) {  // the first run after change point c - 1
                        const auto& change = changes[c - 1];
                        r.baseline = change.before_us;
                        r.verdict = change.change_pct > 0 ? bench::gate::Verdict::Regressed
                                                          : bench::gate::Verdict::Improved;
                    }
                    r.delta_pct = (*r.current - *r.baseline) / *r.baseline * 100.0;
                    results[analysis.series.epoch][points[i].run].cases.push_back(std::move(r));
                }
                begin = end;
            }
            return ok_status();
        },
        diagnostics);
    if (!status) return status;
    auto runs = store.runs();
    if (!runs) return runs.error();
    std::map<std::int64_t, const RunInfo*> by_id;
    for (const auto& run : *runs) by_id[run.id] = &run;
    nlohmann::json entries = nlohmann::json::object();
    long long last = 0;
    for (auto& [epoch, per_run] : results) {
        auto& list = entries["ptune " + epoch.label()] = nlohmann::json::array();
        std::vector<std::pair<const RunInfo*, bench::gate::GateResult*>> ordered;
        for (auto& [id, result] : per_run) ordered.emplace_back(by_id.at(id), &result);
        std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
            return std::tie(a.first->time, a.first->id) < std::tie(b.first->time, b.first->id);
        });
        for (auto& [run, result] : ordered) {
            std::ostringstream benches;
            bench::gate::make_gab_json_renderer(*result)->render({}, benches, {});
            const long long date = epoch_ms(run->time);
            last = std::max(last, date);
            list.push_back(
                {{"commit",
                  {{"id", run->commit}, {"message", ""}, {"timestamp", run->time}, {"url", ""}}},
                 {"date", date},
                 {"tool", "customSmallerIsBetter"},
                 {"benches", nlohmann::json::parse(benches.str())}});
        }
    }
    render::write_json({{"lastUpdate", last}, {"repoUrl", ""}, {"entries", entries}}, out);
    return ok_status();
}

}  // namespace ptune::history
