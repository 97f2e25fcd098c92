#pragma once
/// @file findings.hpp
/// `ptune mem-report` on a large report (200,000 functions, 100+ MB): the `mem.*` findings
/// and every output made one function at a time, so memory stays a small multiple of the
/// report. publish() + rules::evaluate() hold a map of ~30 metrics per function twice (function
/// and kernel subjects) and a full rules::Finding per hit; the tables of build_report() hold
/// every cell as a string and the JSON view every buffer as a DOM: gigabytes for 116 MB.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptune/memreport/analyzer.hpp"
#include "ptune/memreport/pipeline.hpp"
#include "ptune/memreport/report.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::memreport {

/// The metrics publish_metrics() gives the "function" subject of `function`; functions of one
/// name publish into one subject, in report order.
void publish_function_metrics(const Report& report, const BackendChoice& choice,
                              const Function& function, rules::Subject& subject);
/// The run metrics publish_metrics() gives (`mem.report_found` = 1, `mem.functions`, ...).
void publish_run_metrics(const Report& report, const BackendChoice& choice, rules::Subject& run);
/// What publish_metrics() copies from a function's subject to its "kernel" mirror after each
/// function of that name.
void mirror_as_kernel(const rules::Subject& function, rules::Subject& kernel);

/// One function of the JSON view (to_json's `functions[i]`).
nlohmann::json function_json(const Function& function);
/// Appends function_json(function).dump(2) to `out` without building it, every line after the
/// first indented `indent` more spaces (its place in the document): `--format json` of a large
/// report.
void write_function_json(const Function& function, std::size_t indent, std::string& out);
/// The JSON view without functions (`functions` is an empty array).
nlohmann::json report_json_header(const Report& report, const BackendChoice& choice);

/// The findings rules::evaluate(catalogue, store, areas) gives after publish(analysis, store),
/// in the same order, kept as (rule, subject) pairs: each subject is evaluated when it is made
/// and dropped, and a finding is made again from the report when it is asked for.
class Findings {
  public:
    Findings(const Analysis& analysis, const rules::Catalogue& catalogue,
             const std::vector<std::string>& areas = {"mem."});
    std::size_t size() const { return hits_.size(); }
    bool empty() const { return hits_.empty(); }
    /// The finding at `index`, made on demand.
    rules::Finding operator[](std::size_t index) const;
    /// Every finding (small reports, tests).
    std::vector<rules::Finding> all() const;
    std::optional<rules::RuleSeverity> worst() const { return worst_; }

  private:
    enum class Kind : std::uint8_t { Function, Kernel, Run };
    struct Hit {
        const rules::Rule* rule;
        std::uint32_t group;  ///< into group_begin_ (functions and kernels)
        Kind kind;
        std::optional<double> impact;
    };
    rules::Subject subject(const Hit& hit) const;
    const std::string& name(std::uint32_t group) const;

    const Analysis& analysis_;
    std::vector<std::uint32_t> order_;        ///< function indices grouped by name
    std::vector<std::uint32_t> group_begin_;  ///< group g is order_[begin[g], begin[g + 1])
    rules::Subject run_;
    std::vector<Hit> hits_;
    std::optional<rules::RuleSeverity> worst_;
};

/// mem-report's renderers for every format (text, markdown, json, csv, html) over `analysis`
/// and `findings`, made one function at a time: the render::Report passed to them carries the
/// notes (notes_report()) and neither tables nor findings. The output is the one
/// build_report() + the standard and mem-report renderers give.
std::map<std::string, std::shared_ptr<render::Renderer>> make_streaming_renderers(
    const Analysis& analysis, const Findings& findings,
    std::map<std::string, UsageBand, std::less<>> bands);

/// The tables build_report() gives `function`: its usage table, then the buffers live at each
/// space's peak when the source has live ranges.
std::vector<render::Table> function_tables(const Report& report, const Function& function);

/// build_report() without tables, findings and JSON view: the notes the streaming renderers
/// print.
render::Report notes_report(const Analysis& analysis);

}  // namespace ptune::memreport
