// One plan per kernel (docs/advise.md): the precedence, merged duplicates and "not now" on the
// shipped examples, where issue 34 found contradictory orders.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ptune/advise/advisor.hpp"
#include "ptune/advise/inventory.hpp"
#include "ptune/rules/engine.hpp"

namespace advise_plan_test {

using namespace ptune;

namespace {

advise::Advice plan_of(const std::string& examples_dir) {
    auto catalogue = rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    std::filesystem::path dir =
        std::filesystem::path(PTUNE_TEST_DATA) / ".." / ".." / "examples" / examples_dir;
    auto inventory = advise::take_inventory(dir.string(), "", 1, {});
    REQUIRE(inventory.ok());
    Diagnostics diagnostics;
    return advise::advise(std::move(*inventory), {}, *catalogue, diagnostics);
}

const advise::RankedFinding* find(const advise::Advice& advice, const std::string& plan,
                                  const std::string& catalogue) {
    for (const auto& ranked : advice.findings) {
        bool of_plan =
            ranked.plan == plan ||
            std::find(ranked.kernels.begin(), ranked.kernels.end(), plan) != ranked.kernels.end();
        if (of_plan && ranked.finding.catalogue == catalogue) return &ranked;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("advise: QK gets one order, the tiling growth waits for the cut depth",
          "[advise][plan]") {
    auto advice = plan_of("build_output");
    const auto* x3 = find(advice, "QK", "X3");
    const auto* x2 = find(advice, "QK", "X2");
    REQUIRE(x3 != nullptr);
    REQUIRE(x2 != nullptr);
    CHECK(x3->rank > 0);
    CHECK(x3->not_now.empty());
    CHECK(x2->rank == 0);
    CHECK(x2->not_now.find("X3 (#" + std::to_string(x3->rank) + ") comes first") == 0);
    // M6 says what X2 says: merged into it, not a line of its own.
    CHECK(std::any_of(x2->merged.begin(), x2->merged.end(),
                      [](const rules::Finding& f) { return f.catalogue == "M6"; }));
    CHECK(find(advice, "QK", "M6") == nullptr);
    // P2 (MTE2-bound) is what X3 already states.
    CHECK(std::any_of(x3->merged.begin(), x3->merged.end(),
                      [](const rules::Finding& f) { return f.catalogue == "P2"; }));
}

TEST_CASE("advise: a kernel with an error comes first, the error first within it",
          "[advise][plan]") {
    auto advice = plan_of("build_output");
    std::vector<std::string> kernels;
    for (const auto& ranked : advice.findings) {
        if (!ranked.plan.empty() && (kernels.empty() || kernels.back() != ranked.plan))
            kernels.push_back(ranked.plan);
    }
    REQUIRE_FALSE(kernels.empty());
    CHECK(kernels.front() == "SF");
    const auto* x6 = find(advice, "SF", "X6");
    REQUIRE(x6 != nullptr);
    CHECK(x6->finding.severity == rules::RuleSeverity::Error);
    CHECK(advise::has_blocking_finding(advice));
    // Every finding is still there, merged ones included.
    auto all = advise::all_findings(advice);
    CHECK(std::count_if(all.begin(), all.end(),
                        [](const rules::Finding& f) { return f.catalogue == "M2"; }) == 1);
}

TEST_CASE("advise: on the August rebuild the PH001 site fix wins over PH-MR-001 for QK",
          "[advise][plan]") {
    auto advice = plan_of("build_output_2608");
    const auto* x1 = find(advice, "QK", "X1");
    const auto* x3 = find(advice, "QK", "X3");
    REQUIRE(x1 != nullptr);
    REQUIRE(x3 != nullptr);
    CHECK(x1->rank > 0);
    CHECK(x3->rank == 0);
    CHECK_FALSE(x3->not_now.empty());
    CHECK(std::any_of(x1->merged.begin(), x1->merged.end(),
                      [](const rules::Finding& f) { return f.catalogue == "X5"; }));
    // The run-wide PH001 summary lists the sites of the kernels' orders, not a third order.
    for (const auto& ranked : advice.findings) {
        if (ranked.finding.rule == "hints.PH001") {
            CHECK(ranked.rank == 0);
            CHECK(ranked.sites_of.find("X1") != std::string::npos);
        }
    }
    CHECK_FALSE(advise::has_blocking_finding(advice));
}

TEST_CASE("advise: the same advice for several kernels is one order naming them",
          "[advise][plan]") {
    auto advice = plan_of("build_output_2608");
    // X1 for UP (31.8 % of kernel time) and QK (21.2 %): one order, first, by the combined share.
    const auto* x1 = find(advice, "UP", "X1");
    REQUIRE(x1 != nullptr);
    CHECK(x1 == find(advice, "QK", "X1"));
    CHECK(x1->kernels == std::vector<std::string>{"UP", "QK"});
    CHECK(x1->plan == "UP, QK");
    CHECK(x1->rank == 1);
    CHECK(x1->impact == Approx(0.530).margin(0.001));
    CHECK(std::count_if(x1->merged.begin(), x1->merged.end(), [](const rules::Finding& f) {
              return f.catalogue == "X1" && f.subject.name == "QK";
          }) == 1);
    int x1_orders = 0;
    for (const auto& ranked : advice.findings)
        if (ranked.finding.catalogue == "X1" && ranked.rank > 0) ++x1_orders;
    CHECK(x1_orders == 1);
    // What waited for QK's X1 waits for the merged order, by its new number; the PH001 summary
    // cites it once.
    const auto* x3 = find(advice, "QK", "X3");
    REQUIRE(x3 != nullptr);
    CHECK(x3->not_now.find("X1 (#1) comes first") == 0);
    for (const auto& ranked : advice.findings)
        if (ranked.finding.rule == "hints.PH001") CHECK(ranked.sites_of == "#1 X1");
    // The ranks stay 1..n in report order.
    int expected = 0;
    for (const auto& ranked : advice.findings)
        if (ranked.rank > 0) CHECK(ranked.rank == ++expected);
}

TEST_CASE("advise: a kernel's later order does not leave its plan to join another kernel's",
          "[advise][plan]") {
    // July: M7 is UP's second order (after X1) and PV_vec's first: they stay apart, so UP's X1
    // still comes before UP's M7.
    auto advice = plan_of("build_output");
    const auto* up_m7 = find(advice, "UP", "M7");
    const auto* pv_m7 = find(advice, "PV_vec", "M7");
    const auto* up_x1 = find(advice, "UP", "X1");
    REQUIRE(up_m7 != nullptr);
    REQUIRE(pv_m7 != nullptr);
    REQUIRE(up_x1 != nullptr);
    CHECK(up_m7 != pv_m7);
    CHECK(up_m7->kernels.empty());
    CHECK(up_x1->rank < up_m7->rank);
}

}  // namespace advise_plan_test
