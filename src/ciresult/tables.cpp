// ciresult's own tables and notes (inputs.hpp): per daily-CI case the headline and what upstream
// hides, the operator suite's rows and slots, upstream's comparison of two suites for bench-gate.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kept.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/ciresult/lane.hpp"
#include "ptune/core/stats.hpp"

namespace ptune::ciresult {

namespace {

std::string fixed2(double v) {
    return stats::format_fixed(v, 2);
}

// submission.json (§2.9): what the run measured, a field per row (absent ones left out).
render::Table submission_table(const Submission& submission) {
    render::Table t;
    t.title = fmt::format("suite run identity ({})", submission.source);
    t.columns = {"field", "value"};
    const auto add = [&](const char* field, const std::string& value) {
        if (!value.empty()) t.rows.push_back({field, value});
    };
    add("commit", submission.head_sha);
    add("branch", submission.head_branch);
    add("repository", submission.repository);
    std::string run = submission.workflow_run_id;
    if (!submission.run_attempt.empty())
        run += (run.empty() ? "" : ", ") + fmt::format("attempt {}", submission.run_attempt);
    add("workflow run", run);
    add("workflow", submission.workflow_path);
    add("logical date", submission.logical_date);
    add("command", fmt::format("{}", fmt::join(submission.command, " ")));
    return t;
}

// history-selection.json (§2.9): where the previous / week baselines came from, or why the
// lookup found none (upstream's `artifact loaded` when no reason is given).
render::Table history_selection_table(const HistorySelection& selection) {
    render::Table t;
    t.title = fmt::format("baselines of the change columns ({})", selection.source);
    t.columns = {"baseline", "run", "date", "attempt", "path", "note"};
    const auto cell = [](const std::string& value) { return value.empty() ? "-" : value; };
    for (const HistoryEntry& e : selection.entries) {
        const bool lookup = e.name == "lookup";
        t.rows.push_back({e.name, cell(e.run_id), cell(e.date), cell(e.attempt), cell(e.path),
                          !e.reason.empty() ? e.reason
                          : lookup          ? std::string("-")
                                            : std::string("artifact loaded")});
    }
    return t;
}

}  // namespace

nlohmann::json run_record_json(const SuiteResult& suite) {
    nlohmann::json out = nlohmann::json::object();
    if (const auto& s = suite.submission) {
        out["submission"] = {{"source", s->source},
                             {"command", s->command},
                             {"repository", s->repository},
                             {"workflow_run_id", s->workflow_run_id},
                             {"run_attempt", s->run_attempt},
                             {"head_sha", s->head_sha},
                             {"head_branch", s->head_branch},
                             {"workflow_path", s->workflow_path},
                             {"logical_date", s->logical_date}};
    }
    if (const auto& h = suite.history_selection) {
        nlohmann::json entries = nlohmann::json::object();
        for (const HistoryEntry& e : h->entries) {
            nlohmann::json& entry = entries[e.name];
            for (const auto& [key, value] :
                 {std::pair<const char*, const std::string*>{"run_id", &e.run_id},
                  {"path", &e.path},
                  {"date", &e.date},
                  {"attempt", &e.attempt},
                  {"reason", &e.reason}}) {
                if (!value->empty()) entry[key] = *value;
            }
        }
        out["history_selection"] = {{"source", h->source}, {"entries", std::move(entries)}};
    }
    return out;
}

std::vector<render::Table> daily_tables(const DailyRun& run) {
    render::Table t;
    t.title = fmt::format("daily CI ({})", run.root);
    t.columns = {"case", "devices", "rule", "headline", "report.md", "check", "reason"};
    t.units = {"", "", "", "µs", "µs"};
    t.align = {render::Align::Left,  render::Align::Right, render::Align::Left,
               render::Align::Right, render::Align::Right, render::Align::Left,
               render::Align::Left};
    // What upstream's headline hides: how far apart the ranks are, and the rounds' spread.
    render::Table hidden;
    hidden.title = "daily CI ranks and rounds (not in report.md)";
    hidden.columns = {"case", "ranks", "rank spread", "slowest rank", "slowest mean", "p10", "p90"};
    hidden.units = {"", "", "µs", "", "µs", "µs", "µs"};
    hidden.align = {render::Align::Left, render::Align::Right, render::Align::Right,
                    render::Align::Left, render::Align::Right, render::Align::Right,
                    render::Align::Right};
    for (const DailyCase& c : run.cases) {
        std::vector<std::string> row(t.columns.size(), "-");
        row[0] = c.case_id;
        if (c.device_count) row[1] = std::to_string(*c.device_count);
        if (c.row) row[4] = c.row->text;
        if (c.result) {
            const DailyResult& r = *c.result;
            if (r.passed) {
                row[2] = r.rule == HeadlineRule::Median ? "median" : "min-rank-mean";
                row[3] = format_headline(*r.headline);
                std::vector<std::string> more(hidden.columns.size(), "-");
                more[0] = c.case_id;
                more[1] = std::to_string(r.ranks.size());
                double lo = r.ranks[0].mean, hi = r.ranks[0].mean;
                std::size_t slowest = 0;
                for (std::size_t i = 0; i < r.ranks.size(); ++i) {
                    lo = std::min(lo, r.ranks[i].mean);
                    if (r.ranks[i].mean > hi) {
                        hi = r.ranks[i].mean;
                        slowest = i;
                    }
                }
                if (r.ranks.size() > 1) {
                    more[2] = fixed2(hi - lo);
                    more[3] = r.ranks[slowest].pid;
                    more[4] = fixed2(hi);
                }
                const auto& head = r.ranks[r.headline_rank].totals;
                more[5] = fixed2(stats::quantile(head, 0.1).value_or(0.0));
                more[6] = fixed2(stats::quantile(head, 0.9).value_or(0.0));
                hidden.rows.push_back(std::move(more));
            } else {
                row[3] = "FAIL";
                row[6] = r.reason;
            }
            if (c.row) {
                const bool agree = r.passed ? c.row->kind == ReportRow::Kind::Value &&
                                                  std::fabs(*r.headline - c.row->value) <= 0.005
                                            : c.row->kind == ReportRow::Kind::Fail;
                row[5] = agree ? "ok" : "differs";
            }
        } else if (c.row) {
            row[5] = "no raw";
            if (c.row->kind == ReportRow::Kind::NotRun) row[6] = "not run";
        } else {
            row[6] = "no result";
        }
        t.rows.push_back(std::move(row));
    }
    std::vector<render::Table> tables;
    tables.push_back(std::move(t));
    if (!hidden.rows.empty()) tables.push_back(std::move(hidden));
    // run.log's task-timing slots (§1.7): per rank and slot, medians as printed.
    std::vector<std::pair<std::string, const bench::TaskSlots*>> with_slots;
    render::Table context;
    context.title = "run.log context (seed and validation sentinels)";
    context.columns = {"case", "sentinel"};
    for (const DailyCase& c : run.cases) {
        if (!c.run_log) continue;
        with_slots.emplace_back(c.case_id, &c.run_log->task_slots);
        for (const std::string& sentinel : c.run_log->sentinels)
            context.rows.push_back({c.case_id, sentinel});
    }
    render::Table slots = bench::task_slot_table("task slots (run.log)", with_slots, true);
    if (!slots.rows.empty()) tables.push_back(std::move(slots));
    if (!context.rows.empty()) tables.push_back(std::move(context));
    return tables;
}

std::vector<render::Table> suite_tables(const SuiteResult& suite) {
    render::Table t;
    if (suite.suite_id == "raw-result.json") {
        t.title =
            fmt::format("operator suite raw-result.json ({}), validated as upstream", suite.source);
    } else if (suite.suite_id == "report.md") {
        t.title = fmt::format("operator suite report.md ({}): run {} ({}, status {}), values only",
                              suite.source, suite.run_id, suite.logical_date, suite.status);
    } else if (suite.run_id.empty()) {
        t.title =
            fmt::format("operator suite measurements ({}), no suite-result.json", suite.source);
    } else {
        t.title = fmt::format("operator suite {} run {} ({}, status {})", suite.suite_id,
                              suite.run_id, suite.logical_date, suite.status);
    }
    t.columns = {"case",   "status", "metric",      "max median",
                 "spread", "wall",   "measurement", "reason"};
    t.units = {"", "", "µs", "µs", "µs", "s"};
    t.align = {render::Align::Left,  render::Align::Left,  render::Align::Right,
               render::Align::Right, render::Align::Right, render::Align::Right,
               render::Align::Left,  render::Align::Left};
    const auto opt = [](const std::optional<double>& v, int precision) {
        return v ? stats::format_fixed(*v, precision) : std::string("-");
    };
    for (const SuiteCase& c : suite.cases) {
        const bool pass = c.status == "pass" && c.valid;
        t.rows.push_back({c.case_id, c.status.empty() ? "?" : c.status,
                          pass ? opt(c.metric_us, 2) : "-",
                          pass ? opt(c.max_rank_median_us, 2) : "-",
                          pass ? opt(c.rank_spread_us, 2) : "-", opt(c.wall_seconds, 1),
                          c.shared_measurement ? "shared: " + c.measurement_case : c.case_id,
                          pass ? "" : c.error});
    }
    std::vector<render::Table> tables;
    tables.push_back(std::move(t));
    // validate_suite_raw(): per rank its median round total and each slot's median.
    render::Table slots;
    slots.title = "ranks and dispatch slots";
    slots.columns = {"case", "rank", "rank median", "slot", "task", "slot median"};
    slots.units = {"", "", "µs", "", "", "µs"};
    slots.align = {render::Align::Left,  render::Align::Right, render::Align::Right,
                   render::Align::Right, render::Align::Left,  render::Align::Right};
    for (const SuiteCase& c : suite.cases) {
        for (const SuiteRank& rank : c.ranks) {
            for (std::size_t i = 0; i < rank.slots.size(); ++i) {
                slots.rows.push_back({c.case_id, rank.trace_pid, fixed2(rank.median_us),
                                      std::to_string(i), rank.slots[i].first,
                                      fixed2(rank.slots[i].second)});
            }
        }
    }
    if (!slots.rows.empty()) tables.push_back(std::move(slots));
    if (suite.submission) tables.push_back(submission_table(*suite.submission));
    if (suite.history_selection && !suite.history_selection->entries.empty())
        tables.push_back(history_selection_table(*suite.history_selection));
    return tables;
}

render::Table suite_comparison_table(const SuiteResult& baseline, const SuiteResult& current,
                                     std::size_t& refusals) {
    render::Table t;
    t.title =
        fmt::format("upstream comparison (§2.7): {} against {}", current.run_id, baseline.run_id);
    t.columns = {"case", "baseline", "current", "delta_pct", "reason"};
    t.units = {"", "µs", "µs"};
    t.align = {render::Align::Left, render::Align::Right, render::Align::Right,
               render::Align::Right, render::Align::Left};
    const bool ci_stack = current.v2 || baseline.v2 || current.variant == "ci";
    refusals = 0;
    for (const SuiteCase& c : current.cases) {
        const SuiteCase* b = nullptr;
        for (const SuiteCase& candidate : baseline.cases) {
            if (candidate.case_id == c.case_id) b = &candidate;
        }
        Comparison comparison = compare_cases(c, b, ci_stack);
        std::string reason = comparison.reason;
        if (comparison.delta_pct && ci_stack) {
            reason = fmt::format(
                "changed components: {}",
                comparison.changed_components.empty()
                    ? std::string("none")
                    : fmt::format("{}", fmt::join(comparison.changed_components, ", ")));
        }
        if (!comparison.delta_pct && comparison.reason.starts_with("incomparable")) ++refusals;
        if (c.status != "pass" && !c.status.empty())
            reason = fmt::format("current {}{}", c.status, c.error.empty() ? "" : ": " + c.error);
        const auto metric = [](const SuiteCase* s) {
            return s && s->status == "pass" && s->metric_us ? fixed2(*s->metric_us)
                                                            : std::string("N/A");
        };
        if (c.shared_measurement) reason += fmt::format(" (shared: {})", c.measurement_case);
        t.rows.push_back({c.case_id, metric(b), metric(&c), format_change(comparison), reason});
    }
    return t;
}

namespace {

// Each input that is a CI result as loaded: what the reader kept of it (taken out of `kept`),
// else a load made here, its diagnostics dropped (the bench loader gave them).
template <class Visit>
void for_each_loaded(const std::vector<std::string>& inputs, KeptResults* kept,
                     const Visit& visit) {
    for (const std::string& input : inputs) {
        // What the bench reader loaded for the cases: the same load, not a second read.
        if (auto loaded = kept ? KeptAccess::take(*kept, input) : std::nullopt) {
            visit(input, *loaded);
            continue;
        }
        Diagnostics ignored;
        const InputKind kind = classify(input);
        if (kind == InputKind::None) continue;
        if (is_suite_kind(kind)) {
            if (auto suite = load_suite(input, ignored))
                visit(input, LoadedResult(std::move(*suite)));
        } else if (auto run = load_daily(input, ignored)) {
            visit(input, LoadedResult(std::move(*run)));
        }
    }
}

}  // namespace

std::vector<render::Table> tables_for_inputs(const std::vector<std::string>& inputs,
                                             KeptResults* kept) {
    std::vector<render::Table> tables;
    for_each_loaded(inputs, kept, [&](const std::string&, const LoadedResult& loaded) {
        const auto* run = std::get_if<DailyRun>(&loaded);
        for (auto& table : run ? daily_tables(*run) : suite_tables(std::get<SuiteResult>(loaded)))
            tables.push_back(std::move(table));
    });
    return tables;
}

nlohmann::json run_records_for_inputs(const std::vector<std::string>& inputs, KeptResults& kept) {
    nlohmann::json records = nlohmann::json::object();
    for (const std::string& input : inputs) {
        auto loaded = KeptAccess::take(kept, input);
        const auto* suite = loaded ? std::get_if<SuiteResult>(&*loaded) : nullptr;
        if (suite == nullptr) continue;
        nlohmann::json record = run_record_json(*suite);
        if (!record.empty()) records[input] = std::move(record);
    }
    return records;
}

namespace {

// The headline rule note of one input, from `loaded` (what the bench reader loaded of it, not a
// lane result then) when given, else from a load made here.
std::optional<std::string> headline_note(const std::string& input, const LoadedResult* loaded) {
    if (loaded == nullptr) {
        if (auto note = lane_headline_note(input)) return note;  // the lane's files (lane.hpp)
    }
    const InputKind kind = classify(input);
    if (kind == InputKind::None) return std::nullopt;
    if (kind == InputKind::SuiteReport) {
        return fmt::format(
            "{}: operator suite report.md; values only (upstream's metric_us, the minimum "
            "rank median), no samples: a change beyond the tolerance is underpowered and "
            "the hard threshold decides",
            input);
    }
    if (is_suite_kind(kind)) {
        return fmt::format(
            "{}: operator suite; upstream's metric_us = minimum rank median (gate it with "
            "--metric median); samples = the fastest rank's samples_us",
            input);
    }
    const DailyRun* run = loaded ? std::get_if<DailyRun>(loaded) : nullptr;
    std::optional<DailyRun> fresh;
    if (run == nullptr) {
        Diagnostics ignored;  // the loader reported them
        auto loaded_here = load_daily(input, ignored);
        if (!loaded_here) return std::nullopt;
        run = &fresh.emplace(std::move(*loaded_here));
    }
    std::vector<std::string> rules;
    bool with_samples = false;
    for (const DailyCase& c : run->cases) {
        if (c.result && c.result->passed) {
            with_samples = true;
            rules.push_back(fmt::format("{} {}", c.case_id,
                                        c.result->rule == HeadlineRule::Median
                                            ? "median (1 card: --metric median)"
                                            : "smallest rank mean"));
        } else if (!c.result && c.row && c.row->kind == ReportRow::Kind::Value) {
            rules.push_back(fmt::format("{} report.md value, no samples", c.case_id));
        }
    }
    if (rules.empty()) return std::nullopt;
    return fmt::format("{}: daily-CI headline rule per case: {}{}", input, fmt::join(rules, ", "),
                       with_samples ? "; samples = the headline rank's per-round sums"
                                    : "; a change beyond the tolerance is underpowered and the "
                                      "hard threshold decides");
}

// The suite result of an input: the one the reader kept, else loaded here.
std::optional<SuiteResult> suite_of(const std::string& input, std::optional<LoadedResult>& kept) {
    if (kept) {
        if (auto* suite = std::get_if<SuiteResult>(&*kept)) return std::move(*suite);
    }
    Diagnostics ignored;  // the loader reported them
    auto suite = load_suite(input, ignored);
    if (!suite) return std::nullopt;
    return std::move(*suite);
}

}  // namespace

std::size_t annotate_gate(const std::vector<std::string>& baseline_inputs,
                          const std::vector<std::string>& current_inputs, render::Report& report,
                          KeptResults* kept) {
    std::vector<std::string> all = baseline_inputs;
    all.insert(all.end(), current_inputs.begin(), current_inputs.end());
    // What the gate's reader loaded, input by input (baseline runs first, as it read them).
    std::vector<std::optional<LoadedResult>> loaded;
    for (const std::string& input : all)
        loaded.push_back(kept ? KeptAccess::take(*kept, input) : std::nullopt);
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (auto note = headline_note(all[i], loaded[i] ? &*loaded[i] : nullptr))
            report.notes.push_back(std::move(*note));
    }
    if (baseline_inputs.size() != 1 || current_inputs.size() != 1 ||
        classify(baseline_inputs[0]) != InputKind::Suite ||
        classify(current_inputs[0]) != InputKind::Suite)
        return 0;
    auto baseline = suite_of(baseline_inputs[0], loaded[0]);
    if (!baseline) return 0;
    auto current = suite_of(current_inputs[0], loaded[1]);
    if (!current) return 0;
    std::size_t refused = 0;
    report.tables.push_back(suite_comparison_table(*baseline, *current, refused));
    // Which runs were compared: their submission.json / history-selection.json, when published.
    for (const auto& [side, suite] :
         {std::pair<const char*, const SuiteResult*>{"baseline", &*baseline},
          {"current", &*current}}) {
        nlohmann::json record = run_record_json(*suite);
        if (!record.empty()) report.data["suite_runs"][side] = std::move(record);
    }
    report.data["upstream_comparison"] = nlohmann::json::array();
    for (const auto& row : report.tables.back().rows) {
        report.data["upstream_comparison"].push_back(
            {{"case", row[0]}, {"delta", row[3]}, {"reason", row[4]}});
    }
    if (refused > 0) {
        report.notes.push_back(fmt::format(
            "{} case(s) upstream refuses to compare (incomparable identity): no pass", refused));
    }
    return refused;
}

}  // namespace ptune::ciresult
