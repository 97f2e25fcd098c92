// bench-gate output. Every format is built from the same GateResult, so the text table, the
// Markdown summary, the JSON and the dashboard JSON cannot disagree.

#include "ptune/gate/report.hpp"
#include "ptune/bench/gab_json.hpp"
#include "ptune/core/text.hpp"
#include "ptune/gate/findings.hpp"
#include "ptune/rules/subject_rules.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/render/json_stream.hpp"
#include "ptune/render/pretty_json.hpp"

namespace ptune::gate {

namespace {

constexpr Verdict kAllVerdicts[] = {Verdict::Regressed, Verdict::Improved,     Verdict::Unchanged,
                                    Verdict::Noisy,     Verdict::Underpowered, Verdict::New,
                                    Verdict::Missing,   Verdict::Incomparable};

std::string number(const std::optional<double>& value) {
    return value ? stats::format_fixed(*value, 1) : "-";
}

// A centre with its spread, as hyperfine prints `mean ± σ`: `598.5 ± 13.0` when the side's
// raw samples give σ, the centre alone otherwise.
std::string centre_cell(const std::optional<double>& value, const std::optional<double>& sd) {
    if (!value || !sd) return number(value);
    return fmt::format("{} ± {}", stats::format_fixed(*value, 1), stats::format_fixed(*sd, 1));
}

// How many samples (raw rounds, or the rounds the summaries state) each side has: `100/100`.
std::string samples_cell(const CaseResult& c) {
    if (c.baseline_samples == 0 && c.current_samples == 0) return "-";
    return fmt::format("{}/{}", c.baseline_samples, c.current_samples);
}

std::string signed_percent(const std::optional<double>& value) {
    return value ? stats::format_signed_percent(*value) : "";
}

std::string p_text(double p) {
    return p < 0.001 ? "p<0.001" : "p=" + stats::format_fixed(p, 3);
}

std::string test_cell(const CaseResult& c) {
    switch (c.test) {
        case Test::UTest:
            // Holm-adjusted; a case decided before Holm (underpowered) shows its own p.
            return "U " + p_text(c.p_adjusted ? *c.p_adjusted : c.p_value.value_or(1.0));
        case Test::Bounds:
            return c.p_adjusted ? "U-bound " + p_text(*c.p_adjusted) : "U-bound";
        case Test::Fence:
            return fmt::format("fence n={}", c.baseline_runs);
        case Test::Threshold:
            return "threshold";
        case Test::None:
            return "-";
    }
    return "-";
}

// Colour of a verdict in the text table: failing red, improved green, doubtful yellow.
std::string verdict_style(const CaseResult& c) {
    if (c.fails) return "1;31";
    if (c.verdict == Verdict::Improved) return "32";
    if (c.verdict == Verdict::Noisy || c.verdict == Verdict::Underpowered) return "33";
    return "";
}

std::string verdict_cell(Verdict verdict) {
    return verdict == Verdict::Unchanged ? "~" : std::string(to_string(verdict));
}

// A case's row of the table, and its styles (empty when unstyled).
std::vector<std::string> case_cells(const CaseResult& c) {
    return {std::string(c.name),
            centre_cell(c.baseline, c.baseline_sd),
            centre_cell(c.current, c.current_sd),
            signed_percent(c.delta_pct),
            samples_cell(c),
            test_cell(c),
            verdict_cell(c.verdict)};
}
std::vector<std::string> row_styles(std::string style) {
    if (style.empty()) return {};
    return {"", "", "", "", "", "", std::move(style)};
}

std::vector<std::string> geomean_cells(const Geomean& g) {
    return {"geomean",
            number(g.baseline),
            number(g.current),
            signed_percent(g.delta_pct),
            "",
            "",
            g.regressed ? "regressed" : ""};
}
std::string geomean_style(const Geomean& g) {
    return g.regressed ? "1;31" : "";
}

nlohmann::json optional_json(const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json();
}

// A fence bound on log(current / reference) as a percentage change.
double fence_percent(double log_bound) {
    return (std::exp(log_bound) - 1.0) * 100.0;
}

nlohmann::json case_json(const CaseResult& c) {
    nlohmann::json j = {
        {"case", c.name},
        {"verdict", std::string(to_string(c.verdict))},
        {"test", std::string(to_string(c.test))},
        {"baseline", optional_json(c.baseline)},
        {"current", optional_json(c.current)},
        {"delta_pct", optional_json(c.delta_pct)},
        {"delta_us", optional_json(c.delta_us)},
        {"p_value", optional_json(c.p_value)},
        {"p_adjusted", optional_json(c.p_adjusted)},
        {"shift_us", optional_json(c.shift_us)},
        {"baseline_runs", c.baseline_runs},
        {"baseline_samples", c.baseline_samples},
        {"current_samples", c.current_samples},
        {"baseline_sd", optional_json(c.baseline_sd)},
        {"current_sd", optional_json(c.current_sd)},
        {"threshold_pct", c.tolerance.threshold_pct},
        {"min_delta_us", c.tolerance.min_delta_us},
        {"reason", c.reason.empty() ? nlohmann::json() : nlohmann::json(c.reason.str())},
        {"fails", c.fails}};
    if (c.fence) {
        j["fence"] = {{"reference", c.fence->reference},
                      {"lower_pct", fence_percent(c.fence->lower)},
                      {"upper_pct", fence_percent(c.fence->upper)}};
    }
    return j;
}

// case_json's text written directly (render::PrettyJson), members in the DOM's sorted order:
// the JSON of 200,000 cases without a DOM per case.
void write_case_json(const CaseResult& c, std::size_t indent, std::string& text) {
    render::PrettyJson json(text, indent);
    json.begin_object();
    json.key("baseline");
    json.number_or_null(c.baseline);
    json.key("baseline_runs");
    json.number(std::uint64_t{c.baseline_runs});
    json.key("baseline_samples");
    json.number(std::uint64_t{c.baseline_samples});
    json.key("baseline_sd");
    json.number_or_null(c.baseline_sd);
    json.key("case");
    json.string(c.name);
    json.key("current");
    json.number_or_null(c.current);
    json.key("current_samples");
    json.number(std::uint64_t{c.current_samples});
    json.key("current_sd");
    json.number_or_null(c.current_sd);
    json.key("delta_pct");
    json.number_or_null(c.delta_pct);
    json.key("delta_us");
    json.number_or_null(c.delta_us);
    json.key("fails");
    json.boolean(c.fails);
    if (c.fence) {
        json.key("fence");
        json.begin_object();
        json.key("lower_pct");
        json.number(fence_percent(c.fence->lower));
        json.key("reference");
        json.number(c.fence->reference);
        json.key("upper_pct");
        json.number(fence_percent(c.fence->upper));
        json.end_object();
    }
    json.key("min_delta_us");
    json.number(c.tolerance.min_delta_us);
    json.key("p_adjusted");
    json.number_or_null(c.p_adjusted);
    json.key("p_value");
    json.number_or_null(c.p_value);
    json.key("reason");
    c.reason.empty() ? json.null() : json.string(c.reason.str());
    json.key("shift_us");
    json.number_or_null(c.shift_us);
    json.key("test");
    json.string(to_string(c.test));
    json.key("threshold_pct");
    json.number(c.tolerance.threshold_pct);
    json.key("verdict");
    json.string(to_string(c.verdict));
    json.end_object();
}

std::string status_word(const GateResult& result, const ReportSettings& settings) {
    if (result.compared() == 0) return "NOT CHECKED (nothing compared)";
    if (!result.failed()) return "PASS";
    return settings.warn_only ? "WARN (--warn-only)" : "FAIL";
}

std::string summary_line(const GateResult& result, const ReportSettings& settings) {
    std::vector<std::string> counts;
    for (Verdict v : kAllVerdicts) {
        if (std::size_t n = result.count(v))
            counts.push_back(fmt::format("{} {}", n, to_string(v)));
    }
    if (result.geomean.regressed) counts.push_back("geomean regressed");
    const auto& o = settings.options;
    return fmt::format(
        "bench-gate: {}: {} of {} case(s) (metric {}, threshold {}%, min delta {} µs, "
        "alpha {} Holm)",
        status_word(result, settings),
        counts.empty() ? "nothing compared" : fmt::format("{}", fmt::join(counts, ", ")),
        result.cases.size(), to_string(o.metric), o.tolerance.threshold_pct,
        o.tolerance.min_delta_us, o.alpha);
}

std::string annotation_text(const CaseResult& c, Metric metric) {
    if (c.verdict == Verdict::Regressed || c.verdict == Verdict::Improved) {
        return fmt::format("{}: {} effective_us {} -> {} µs ({}, {})", c.name, to_string(metric),
                           number(c.baseline), number(c.current), signed_percent(c.delta_pct),
                           test_cell(c));
    }
    return fmt::format("{}: {}: {}", c.name, to_string(c.verdict), c.reason.str());
}

}  // namespace

render::Report make_report(const GateResult& result, const ReportSettings& settings) {
    const Options& o = settings.options;
    render::Report report;
    report.command = "bench-gate";
    render::Table table;
    table.columns = {"case", "baseline", "current", "delta", "n", "test", "verdict"};
    table.units = {"", "µs", "µs"};
    table.align = {render::Align::Left,  render::Align::Right, render::Align::Right,
                   render::Align::Right, render::Align::Right, render::Align::Left,
                   render::Align::Left};
    nlohmann::json cases = nlohmann::json::array();
    const bool held = settings.tables && !settings.rows_on_demand;
    if (settings.tables && settings.rows_on_demand) {
        // Each row made as it is written (twice for text: its widths first); the vector's
        // elements outlive a move of the result, its GateResult object may not.
        table.made_rows = result.cases.size() + 1;
        table.make_row = [cases = result.cases.data(), n = result.cases.size(),
                          geomean = result.geomean](std::size_t row,
                                                    std::vector<std::string>& cells,
                                                    std::vector<std::string>& styles) {
            cells = row < n ? case_cells(cases[row]) : geomean_cells(geomean);
            styles = row_styles(row < n ? verdict_style(cases[row]) : geomean_style(geomean));
        };
    }
    // Exactly one row per case plus the geomean row: no doubling slack (200,000 rows).
    if (held) table.rows.reserve(result.cases.size() + 1);
    for (const auto& c : result.cases) {
        if (held) {
            table.rows.push_back(case_cells(c));
            // An unstyled row needs no strings (a 200,000-row table: ~40 MB less), and rows
            // after the last styled one no entry at all (the renderer reads a missing entry as
            // unstyled): a passing sweep's table has no styles vector.
            if (std::string style = verdict_style(c); !style.empty()) {
                table.styles.resize(table.rows.size() - 1);
                table.styles.push_back(row_styles(std::move(style)));
            }
        }
        if (settings.cases_in_data) cases.push_back(case_json(c));
        if (!c.reason.empty())
            report.notes.push_back(
                fmt::format("{}: {}: {}", c.name, to_string(c.verdict), c.reason.str()));
    }
    const Geomean& g = result.geomean;
    if (held) {
        table.rows.push_back(geomean_cells(g));
        if (g.regressed) {
            table.styles.resize(table.rows.size() - 1);
            table.styles.push_back(row_styles(geomean_style(g)));
        }
    }
    if (settings.tables) report.tables.push_back(std::move(table));
    if (!result.ignored.empty()) {
        report.notes.push_back(
            fmt::format("ignored by config: {}", fmt::join(result.ignored, ", ")));
    }
    const auto without_result =
        std::count_if(result.cases.begin(), result.cases.end(), [](const CaseResult& c) {
            return c.fails && (c.verdict == Verdict::Missing || c.invalid_input);
        });
    if (without_result > 0) {
        report.notes.push_back(fmt::format(
            "strict result set: {} of {} case(s) have no valid result; the gate does not pass "
            "on a partial run (--allow-missing names the cases that may be absent)",
            without_result, result.cases.size()));
    }
    report.notes.push_back(summary_line(result, settings));

    nlohmann::json counts = nlohmann::json::object();
    for (Verdict v : kAllVerdicts) {
        counts[std::string(to_string(v))] = result.count(v);
    }
    report.data = {{"passed", !result.failed() && result.compared() > 0},
                   {"compared", result.compared()},
                   {"warn_only", settings.warn_only},
                   {"metric", std::string(to_string(o.metric))},
                   {"threshold_pct", o.tolerance.threshold_pct},
                   {"min_delta_us", o.tolerance.min_delta_us},
                   {"alpha", o.alpha},
                   {"fence",
                    {{"method", o.fence == FenceMethod::Mad ? "mad" : "iqr"},
                     {"k", o.fence_k},
                     {"min_history", o.min_history}}},
                   {"counts", counts},
                   {"geomean",
                    {{"cases", g.cases},
                     {"baseline", optional_json(g.baseline)},
                     {"current", optional_json(g.current)},
                     {"delta_pct", optional_json(g.delta_pct)},
                     {"threshold_pct", optional_json(o.geomean_threshold_pct)},
                     {"regressed", g.regressed}}},
                   {"ignored", result.ignored}};
    if (settings.cases_in_data) report.data["cases"] = std::move(cases);
    return report;
}

namespace {

void publish_case(const CaseResult& c, const Options& options, rules::Subject& subject) {
    subject.metrics["gate.metric_is_mean"] = options.metric == Metric::Mean ? 1.0 : 0.0;
    subject.metrics["gate.regressed"] = c.verdict == Verdict::Regressed ? 1.0 : 0.0;
    subject.metrics["gate.fails"] = c.fails ? 1.0 : 0.0;
    if (c.delta_pct) subject.metrics["gate.delta_pct"] = *c.delta_pct;
    if (c.baseline) subject.metrics["gate.baseline"] = *c.baseline;
    if (c.current) subject.metrics["gate.current"] = *c.current;
    subject.labels["gate.test"] = std::string(to_string(c.test));
    if (c.current_mean) subject.metrics["gate.current.mean"] = *c.current_mean;
    if (c.current_median) subject.metrics["gate.current.median"] = *c.current_median;
    if (c.current_mean && c.current_median && *c.current_median > 0.0) {
        subject.metrics["gate.current.mean_over_median_pct"] =
            (*c.current_mean - *c.current_median) / *c.current_median * 100.0;
    }
}

}  // namespace

void publish_metrics(const GateResult& result, const Options& options, rules::MetricStore& store) {
    for (const auto& c : result.cases) publish_case(c, options, store.subject("case", c.name));
}

std::vector<rules::Finding> case_findings(const GateResult& result, const Options& options,
                                          const rules::Catalogue& catalogue) {
    // Case names are unique (pair_cases pairs by name): one subject per case, as in the store.
    const rules::SubjectRules rules(catalogue, "case", {"bench.gate-"});
    std::vector<rules::Finding> findings;
    for (const auto& c : result.cases) {
        rules::Subject subject;
        subject.key = {"case", std::string(c.name)};
        publish_case(c, options, subject);
        rules.evaluate(subject, findings);
    }
    rules::sort_findings(findings);
    return findings;
}

namespace {

class GithubRenderer : public render::Renderer {
  public:
    GithubRenderer(const GateResult& result, const ReportSettings& settings, std::size_t cap)
        : result_(result), settings_(settings), cap_(cap) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions&) const override {
        std::size_t errors = 0, warnings = 0, dropped = 0;
        const auto emit = [&](bool error, const std::string& message) {
            std::size_t& used = error ? errors : warnings;
            if (used >= cap_) {
                ++dropped;
                return;
            }
            ++used;
            out << (error ? "::error" : "::warning")
                << " title=" << ptune::text::github_escape("bench-gate", true)
                << "::" << ptune::text::github_escape(ptune::text::sanitize_utf8(message), false)
                << '\n';
        };
        const Metric metric = settings_.options.metric;
        for (const auto& c : result_.cases) {
            if (c.fails) emit(!settings_.warn_only, annotation_text(c, metric));
        }
        if (result_.geomean.regressed) {
            emit(!settings_.warn_only,
                 fmt::format("suite geomean {} -> {} µs ({}, threshold {}%)",
                             number(result_.geomean.baseline), number(result_.geomean.current),
                             signed_percent(result_.geomean.delta_pct),
                             *settings_.options.geomean_threshold_pct));
        }
        for (const auto& c : result_.cases) {
            if (!c.fails && (c.verdict == Verdict::Missing || c.verdict == Verdict::Incomparable)) {
                emit(false, annotation_text(c, metric));
            }
        }
        for (const auto& finding : report.findings) emit(false, finding.message);
        if (dropped > 0) {
            out << "::notice title=bench-gate::" << dropped
                << " more annotation(s) not shown (GitHub keeps 10 per kind and step); see the "
                   "table "
                   "in the step summary or --format text\n";
        }
        out << "::notice title=bench-gate::"
            << ptune::text::github_escape(
                   ptune::text::sanitize_utf8(summary_line(result_, settings_)), false)
            << '\n';
    }

  private:
    const GateResult& result_;
    ReportSettings settings_;
    std::size_t cap_;
};

class JsonRenderer : public render::Renderer {
  public:
    explicit JsonRenderer(const GateResult& result) : result_(result) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions&) const override {
        render::LazyArray cases{"cases",
                                result_.cases.size(),
                                {},
                                [this](std::size_t i, std::size_t indent, std::string& text) {
                                    write_case_json(result_.cases[i], indent, text);
                                }};
        render::write_report_json(report, {std::move(cases)}, out);
    }

  private:
    const GateResult& result_;
};

class GabJsonRenderer : public render::Renderer {
  public:
    explicit GabJsonRenderer(const GateResult& result) : result_(result) {}

    void render(const render::Report&, std::ostream& out,
                const render::RenderOptions&) const override {
        bench::GabJsonWriter writer(out);
        for (const auto& c : result_.cases) {
            if (c.current)
                writer.add({c.name, *c.current, to_string(c.verdict), c.baseline, c.delta_pct});
        }
        writer.finish();
    }

  private:
    const GateResult& result_;
};

}  // namespace

std::unique_ptr<render::Renderer> make_github_renderer(const GateResult& result,
                                                       const ReportSettings& settings,
                                                       std::size_t cap) {
    return std::make_unique<GithubRenderer>(result, settings, cap);
}

std::unique_ptr<render::Renderer> make_json_renderer(const GateResult& result) {
    return std::make_unique<JsonRenderer>(result);
}

std::unique_ptr<render::Renderer> make_gab_json_renderer(const GateResult& result) {
    return std::make_unique<GabJsonRenderer>(result);
}

}  // namespace ptune::gate
