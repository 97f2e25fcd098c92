// The perf_hints.log pipeline hints-lint and advise share: which logs a directory names, which
// logs are left out, the kernel aliases, and the per-rule summary advise ranks.

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include <catch2/catch.hpp>

#include "hints_test_data.hpp"
#include "ptune/advise/advisor.hpp"
#include "ptune/hints/pipeline.hpp"
#include "ptune/rules/engine.hpp"

namespace hints_pipeline_test {

using namespace ptune;
using namespace ptune::hints;

namespace {

using hints_test::catalogue;
using hints_test::data_path;

// The build tree's newest log, linted with sources under the fixture repository.
LintResult lint_build_tree(Diagnostics& diagnostics) {
    auto found = find_logs({data_path("build_output")}, diagnostics);
    LintOptions options;
    options.root = data_path("repo");
    return lint(read_logs(found.logs, {}, diagnostics), catalogue(), options, diagnostics);
}

}  // namespace

TEST_CASE("a build_output directory names the newest run's log; a folder without one is clean",
          "[hints]") {
    Diagnostics diagnostics;
    auto found = find_logs({data_path("build_output")}, diagnostics);
    REQUIRE(found.logs.size() == 1);
    CHECK(found.logs[0].find("Attn_20260820_101500") != std::string::npos);
    CHECK_FALSE(found.clean_directory);
    // A project directory holding build_output/ names the same log, not every run's.
    CHECK(find_logs({data_path("")}, diagnostics).logs == found.logs);

    auto clean = find_logs({data_path("repo"), "-"}, diagnostics);
    CHECK(clean.clean_directory);
    CHECK(clean.logs == std::vector<std::string>{"-"});
}

TEST_CASE("logs that cannot be read or hold no hint are errors and left out", "[hints]") {
    Diagnostics diagnostics;
    auto logs = read_logs({data_path("not_a_log.txt"), data_path("no_such.perf_hints.log"),
                           data_path("composed__a2a3_v2_ph001.perf_hints.log")},
                          {}, diagnostics);
    REQUIRE(logs.size() == 1);
    CHECK(logs[0].path == data_path("composed__a2a3_v2_ph001.perf_hints.log"));
    CHECK(diagnostics.count(Severity::Error) == 2);

    Diagnostics forced_diagnostics;
    auto forced = read_logs({data_path("composed__a2a3_legacy_v1_ph001.perf_hints.log")},
                            {ReadOptions{1}}, forced_diagnostics);
    REQUIRE(forced.size() == 1);
    CHECK(forced[0].column_base.base == 1);
}

TEST_CASE("the per-rule summary holds reported hints only, heaviest first", "[hints]") {
    Diagnostics diagnostics;
    LintResult result = lint_build_tree(diagnostics);
    bool any_suppressed = std::any_of(
        result.diagnostics.begin(), result.diagnostics.end(),
        [](const LintDiagnostic& d) { return d.disposition == Disposition::Suppressed; });
    REQUIRE(any_suppressed);  // the fixture repository suppresses one hint inline

    std::set<std::string> reported_rules;
    std::size_t reported = 0;
    for (const auto& d : result.diagnostics) {
        if (d.disposition != Disposition::Reported) continue;
        reported_rules.insert(d.rule_id);
        ++reported;
    }
    auto summaries = summarise_by_rule(result);
    std::set<std::string> summary_rules;
    std::size_t hints = 0;
    for (const auto& summary : summaries) {
        summary_rules.insert(summary.rule_id);
        hints += summary.hints;
        CHECK(summary.sites.size() <= summary.hints);
        CHECK(std::is_sorted(summary.sites.begin(), summary.sites.end(),
                             [](const auto* a, const auto* b) { return a->weight > b->weight; }));
        auto finding = summary_finding(summary, catalogue());
        CHECK(finding.rule == summary.rule_id);
        CHECK(finding.severity == summary.sites.front()->severity);
        CHECK(finding.evidence.at("sites") == static_cast<double>(summary.sites.size()));
    }
    CHECK(summary_rules == reported_rules);
    CHECK(hints == reported);
    CHECK(summary_table(summaries).rows.size() == summaries.size());
    CHECK(summary_json(summaries).size() == summaries.size());
}

TEST_CASE("the per-rule summary counts distinct sites and lists each once", "[hints]") {
    // 32 hints of one rule at 8 locations: e.g. four PH001 (load, store, two shapes) on one line.
    LintResult result;
    for (std::size_t site = 0; site < 8; ++site) {
        for (std::size_t hint = 0; hint < 4; ++hint) {
            LintDiagnostic d;
            d.rule_id = "hints.PH001";
            d.file = site == 0 ? "hc_post.py" : "other.py";
            d.line = site == 0 ? 51 : 100 + site;
            d.column = 5;
            d.weight = site == 0 ? 1000.0 - static_cast<double>(hint) : static_cast<double>(site);
            d.advice_summary = "widen the tile";
            result.diagnostics.push_back(std::move(d));
        }
    }
    auto summaries = summarise_by_rule(result);
    REQUIRE(summaries.size() == 1);
    const RuleSummary& summary = summaries[0];
    CHECK(summary.hints == 32);
    REQUIRE(summary.sites.size() == 8);
    CHECK(summary.top_site == "hc_post.py:51");
    CHECK(summary.sites.front()->weight == 1000.0);  // the heaviest hint of the top site
    auto finding = summary_finding(summary, catalogue());
    CHECK(finding.message.rfind("32 hint(s) at 8 site(s); heaviest at hc_post.py:51", 0) == 0);
    CHECK(finding.evidence.at("sites") == 8);
    REQUIRE(finding.locations.size() == 5);
    std::set<std::tuple<std::string, std::size_t, std::size_t>> distinct;
    for (const auto& location : finding.locations)
        distinct.emplace(location.file, location.line, location.column);
    CHECK(distinct.size() == finding.locations.size());  // hc_post.py:51:5 once, not four times
    CHECK(summary_table(summaries).rows[0][1] == "8");
    CHECK(summary_json(summaries)[0]["sites"] == 8);
}

TEST_CASE("hint metrics are copied onto the _aic and _aiv kernels of a mixed function", "[hints]") {
    Diagnostics diagnostics;
    LintResult result = lint_build_tree(diagnostics);
    rules::MetricStore probe;
    publish_kernel_metrics(result, probe);
    REQUIRE_FALSE(result.kernels.empty());
    const std::string function = result.kernels.begin()->first;

    rules::MetricStore store;
    store.set("kernel", function + "_aic", "pmu.tasks", 1);  // as PMU would name it
    publish(result, store);
    const auto& aic = store.subject("kernel", function + "_aic");
    CHECK(aic.metric("hints.count") == store.subject("kernel", function).metric("hints.count"));
    CHECK(store.subjects().count({"kernel", function + "_aiv"}) == 0);
}

TEST_CASE("advise summarises the same rules at the same severities as hints-lint", "[hints]") {
    Diagnostics diagnostics;
    auto found = find_logs({data_path("build_output")}, diagnostics);
    auto result = lint(read_logs(found.logs, {}, diagnostics), catalogue(), {}, diagnostics);
    std::set<std::pair<std::string, rules::RuleSeverity>> command;
    for (const auto& d : result.diagnostics) {
        if (d.disposition == Disposition::Reported) command.emplace(d.rule_id, d.severity);
    }
    for (const auto& f : result.log_findings) command.emplace(f.rule, f.severity);
    REQUIRE_FALSE(command.empty());

    auto inventory = advise::take_inventory(data_path("build_output"), "", 1, {});
    REQUIRE(inventory.ok());
    auto advice = advise::advise(std::move(*inventory), {}, catalogue(), diagnostics);
    std::set<std::pair<std::string, rules::RuleSeverity>> advised;
    for (const auto& ranked : advice.findings) {
        if (ranked.finding.rule.rfind("hints.", 0) == 0)
            advised.emplace(ranked.finding.rule, ranked.finding.severity);
    }
    CHECK(advised == command);
}

}  // namespace hints_pipeline_test
