// pypto's perf_guard contract (perf_guard.hpp): baseline file, makespan extraction, verdict.

#include "ptune/gate/perf_guard.hpp"

#include <cmath>
#include <filesystem>
#include <istream>
#include <iterator>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/io.hpp"
#include "ptune/core/json_document.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"
#include "ptune/swimlane/pipeline.hpp"
#include "ptune/swimlane/summary.hpp"

namespace ptune::gate::perf_guard {

namespace {

constexpr std::uintmax_t kStatisticsMaxBytes = 16u << 20;
constexpr std::uintmax_t kBaselineMaxBytes = 64u << 10;

Error input_error(std::string message, const std::string& source) {
    return Error{std::move(message), source, 0, ExitCode::InputError};
}

// A capture named by path: the converter's summary of each capture it holds.
Status measure_capture(const std::string& input, Measurement& measurement,
                       Diagnostics& diagnostics) {
    swimlane::LoadRequest request;
    request.input = input;
    request.named_files_required = false;
    auto found = swimlane::find_captures(request);
    if (!found) return found.error();
    for (const auto& files : found->captures) {
        auto loaded = swimlane::load_capture(files, request, diagnostics);
        if (!loaded) return loaded.error();
        const auto summary = swimlane::summarize(loaded->capture, loaded->names_or_null());
        if (summary.total_count == 0) {
            return input_error("no task rows, so no Total Test Time", files.records.string());
        }
        measurement.makespans_us.push_back(summary.total_test_time_us);
        measurement.total_exec_us.push_back(summary.total_exec_us);
        if (summary.has_aicpu) measurement.total_latency_us.push_back(summary.total_latency_us);
        measurement.sources.push_back(files.records.string());
    }
    return ok_status();
}

// ptune's `swimlane-merge --format json`: {"captures": [{"total_test_time_us": …}, …]}.
bool measure_statistics_json(const nlohmann::json& document, const std::string& input,
                             Measurement& measurement) {
    if (!document.is_object() || !document.contains("captures") ||
        !document["captures"].is_array()) {
        return false;
    }
    bool any = false;
    for (const auto& capture : document["captures"]) {
        if (!capture.is_object() || !capture.contains("total_test_time_us") ||
            !capture["total_test_time_us"].is_number()) {
            continue;
        }
        measurement.makespans_us.push_back(capture["total_test_time_us"].get<double>());
        if (capture.contains("total") && capture["total"].is_object()) {
            const auto& total = capture["total"];
            if (total.contains("exec_us") && total["exec_us"].is_number())
                measurement.total_exec_us.push_back(total["exec_us"].get<double>());
            if (total.contains("latency_us") && total["latency_us"].is_number())
                measurement.total_latency_us.push_back(total["latency_us"].get<double>());
        }
        measurement.sources.push_back(input);
        any = true;
    }
    return any;
}

// perf_guard's own regexes over a converter stdout or a CI log holding several of them.
void measure_text(std::istream& log, const std::string& input, Measurement& measurement) {
    static const std::regex makespan(R"(Total Test Time:\s*([0-9.]+)\s*us)");
    static const std::regex total(R"(^TOTAL\s+\d+\s+([0-9.]+)\s+([0-9.]+))");
    std::size_t line_number = 0;
    for (std::string line; std::getline(log, line);) {
        ++line_number;
        std::smatch match;
        if (std::regex_search(line, match, makespan)) {
            if (auto value = text::parse_double(match[1].str())) {
                measurement.makespans_us.push_back(*value);
                measurement.sources.push_back(fmt::format("{}:{}", input, line_number));
            }
        } else if (std::regex_search(line, match, total)) {
            if (auto exec = text::parse_double(match[1].str()))
                measurement.total_exec_us.push_back(*exec);
            if (auto latency = text::parse_double(match[2].str()))
                measurement.total_latency_us.push_back(*latency);
        }
    }
}

std::string us(const std::optional<double>& value) {
    return value ? stats::format_fixed(*value, 2) + " µs" : "-";
}

std::string delta_text(const Outcome& outcome) {
    return outcome.delta_pct ? fmt::format("{:+.2f}%", *outcome.delta_pct) : std::string("-");
}

// The verdict line of the report and the GitHub annotation.
std::string verdict_text(const Outcome& outcome) {
    const double threshold = outcome.baseline.threshold_pct;
    if (!outcome.incomparable.empty()) return "FAIL: incomparable: " + outcome.incomparable;
    if (outcome.report_only) return "REPORT ONLY: the baseline has no value (unseeded)";
    if (outcome.regressed) {
        return fmt::format("FAIL: makespan regressed {} (threshold {}%)", delta_text(outcome),
                           threshold);
    }
    return fmt::format("PASS: {} within the {}% threshold", delta_text(outcome), threshold);
}

}  // namespace

std::optional<Result<Baseline>> read_baseline(std::string_view text, const std::string& source) {
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
    if (!document.is_object() || !document.contains("metric") || !document.contains("value"))
        return std::nullopt;
    Baseline baseline;
    baseline.source = source;
    const auto& metric = document["metric"];
    const auto& value = document["value"];
    if (!metric.is_string() || metric.get<std::string>() != "makespan_us") {
        return Result<Baseline>(input_error(
            fmt::format("perf_guard baseline: metric {} is not \"makespan_us\" (the converter's "
                        "Total Test Time)",
                        json_document::dump(metric)),
            source));
    }
    baseline.metric = metric.get<std::string>();
    if (!value.is_null()) {
        if (!value.is_number() || !(value.get<double>() > 0.0) ||
            !std::isfinite(value.get<double>())) {
            return Result<Baseline>(input_error(
                "perf_guard baseline: value must be a positive number or null", source));
        }
        baseline.value = value.get<double>();
    }
    if (document.contains("threshold_pct") && !document["threshold_pct"].is_null()) {
        const auto& threshold = document["threshold_pct"];
        if (!threshold.is_number() || !(threshold.get<double>() >= 0.0)) {
            return Result<Baseline>(input_error(
                "perf_guard baseline: threshold_pct must be a non-negative number", source));
        }
        baseline.threshold_pct = threshold.get<double>();
    }
    if (document.contains("pypto_ref") && document["pypto_ref"].is_string())
        baseline.pypto_ref = document["pypto_ref"].get<std::string>();
    return Result<Baseline>(std::move(baseline));
}

std::optional<Result<Baseline>> detect_baseline(const std::vector<std::string>& baseline_inputs) {
    if (baseline_inputs.size() != 1) return std::nullopt;
    const std::string& path = baseline_inputs.front();
    if (std::filesystem::path(path).extension() != ".json") return std::nullopt;
    // A perf_guard baseline is a few hundred bytes; a larger JSON (a saved bench-summary) is
    // left to the bench loader instead of being parsed twice.
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (error || size > kBaselineMaxBytes) return std::nullopt;
    auto text = io::read_file(path);
    if (!text) return std::nullopt;  // the bench loader reports it
    return read_baseline(*text, path);
}

Status measure(const std::string& input, Measurement& measurement, Diagnostics& diagnostics) {
    std::error_code error;
    const bool from_stdin = input == io::kStdinName;
    if (!from_stdin && std::filesystem::is_directory(input, error))
        return measure_capture(input, measurement, diagnostics);
    auto opened = io::open_input(input);
    if (!opened) return opened.error();
    std::istream& in = opened->stream();
    if ((in >> std::ws).peek() == '{') {
        // ptune's statistics JSON is a few KiB; anything larger is a records file, which the
        // swimlane reader streams (no DOM of a capture).
        const auto size = from_stdin ? 0 : std::filesystem::file_size(input, error);
        if (from_stdin || (!error && size <= kStatisticsMaxBytes)) {
            const std::string json{std::istreambuf_iterator<char>(in),
                                   std::istreambuf_iterator<char>()};
            const auto document = nlohmann::json::parse(json, nullptr, false);
            if (measure_statistics_json(document, input, measurement)) return ok_status();
        }
        if (from_stdin) return input_error("no swimlane statistics JSON on stdin", input);
        return measure_capture(input, measurement, diagnostics);
    }
    const std::size_t before = measurement.makespans_us.size();
    measure_text(in, input, measurement);
    if (measurement.makespans_us.size() == before) {
        return input_error(
            "no 'Total Test Time: <x> us' line (a converter summary, swimlane records or "
            "`ptune swimlane-merge --format json` statistics are needed)",
            input);
    }
    return ok_status();
}

Outcome judge(Baseline baseline, Measurement measurement) {
    Outcome outcome;
    outcome.measured_us = stats::mean(measurement.makespans_us);
    outcome.report_only = !baseline.value;
    for (std::size_t i = 0; i < measurement.makespans_us.size(); ++i) {
        const double makespan = measurement.makespans_us[i];
        if (makespan > 0.0 && std::isfinite(makespan)) continue;
        outcome.incomparable = fmt::format(
            "Total Test Time {} µs ({}) is not a positive time: no task ran or the summary is "
            "damaged",
            stats::format_fixed(makespan, 2),
            i < measurement.sources.size() ? measurement.sources[i] : std::string("input"));
        break;
    }
    if (baseline.value && outcome.measured_us && outcome.incomparable.empty()) {
        outcome.delta_pct = (*outcome.measured_us - *baseline.value) / *baseline.value * 100.0;
        outcome.regressed = *outcome.delta_pct > baseline.threshold_pct;
    }
    outcome.baseline = std::move(baseline);
    outcome.measurement = std::move(measurement);
    return outcome;
}

render::Report make_report(const Outcome& outcome) {
    const Baseline& b = outcome.baseline;
    render::Report report;
    report.command = "bench-gate";
    render::Table table;
    table.columns = {"Metric", "Measured", "Baseline", "Δ", "Threshold"};
    table.align = {render::Align::Left, render::Align::Right, render::Align::Right,
                   render::Align::Right, render::Align::Right};
    table.rows.push_back({b.metric, us(outcome.measured_us), us(b.value), delta_text(outcome),
                          fmt::format("{}%", b.threshold_pct)});
    report.tables.push_back(std::move(table));
    const auto& m = outcome.measurement;
    report.notes.push_back(fmt::format(
        "makespan = mean Total Test Time of {} run(s); TOTAL exec {} / latency {} (secondary)",
        m.makespans_us.size(), us(stats::mean(m.total_exec_us)),
        us(stats::mean(m.total_latency_us))));
    report.notes.push_back("perf_guard: " + verdict_text(outcome));
    report.data = {
        {"perf_guard",
         {{"metric", b.metric},
          {"baseline_us", b.value ? nlohmann::json(*b.value) : nlohmann::json()},
          {"threshold_pct", b.threshold_pct},
          {"pypto_ref", b.pypto_ref},
          {"baseline_file", b.source},
          {"measured_us",
           outcome.measured_us ? nlohmann::json(*outcome.measured_us) : nlohmann::json()},
          {"runs", m.makespans_us},
          {"sources", m.sources},
          {"delta_pct", outcome.delta_pct ? nlohmann::json(*outcome.delta_pct) : nlohmann::json()},
          {"regressed", outcome.regressed},
          {"report_only", outcome.report_only}}},
        {"passed", !outcome.failed()}};
    if (!outcome.incomparable.empty())
        report.data["perf_guard"]["incomparable"] = outcome.incomparable;
    return report;
}

Result<Outcome> run(Baseline baseline, const std::vector<std::string>& current_inputs,
                    Diagnostics& diagnostics) {
    Measurement measurement;
    for (const auto& input : current_inputs) {
        auto status = measure(input, measurement, diagnostics);
        if (!status) return status.error();
    }
    return judge(std::move(baseline), std::move(measurement));
}

namespace {

class GithubRenderer : public render::Renderer {
  public:
    GithubRenderer(const Outcome& outcome, bool warn_only)
        : outcome_(outcome), warn_only_(warn_only) {}
    void render(const render::Report&, std::ostream& out,
                const render::RenderOptions&) const override {
        const char* kind = !outcome_.failed() ? "::notice" : warn_only_ ? "::warning" : "::error";
        out << kind << " title=perf_guard::" << text::github_escape(verdict_text(outcome_), false)
            << '\n';
    }

  private:
    const Outcome& outcome_;
    bool warn_only_;
};

}  // namespace

std::unique_ptr<render::Renderer> make_github_renderer(const Outcome& outcome, bool warn_only) {
    return std::make_unique<GithubRenderer>(outcome, warn_only);
}

}  // namespace ptune::gate::perf_guard
