// ptune advise: every source of the table (source.hpp) on one run, the whole catalogue over the
// merged metrics, and a ranking by the guide's two tiers (schedule first, then each kernel's
// pipeline).

#include "ptune/advise/advisor.hpp"

#include <algorithm>

#include "ptune/advise/source.hpp"

namespace ptune::advise {

namespace {

// ---------------------------------------------------------------------------------------------
// Ranking.

int tier_of(const rules::Finding& finding) {
    if (finding.tier == "regression") return 0;
    if (finding.tier == "schedule") return 1;
    if (finding.tier == "pipeline") return 2;
    return 3;
}

// The share of the run a finding touches: the rule's own impact expression when it has one,
// else the kernel's share of kernel time, else the share a run-wide metric states.
void estimate_impact(RankedFinding& ranked, const rules::MetricStore& store) {
    const rules::Finding& finding = ranked.finding;
    if (finding.impact) {
        ranked.impact = std::clamp(*finding.impact, 0.0, 1.0);
        ranked.impact_basis = "rule estimate";
        return;
    }
    if (finding.subject.kind == "kernel" || finding.subject.kind == "function") {
        auto it = store.subjects().find({"kernel", finding.subject.name});
        if (it != store.subjects().end()) {
            if (auto share = it->second.metric("advise.kernel_time_share")) {
                ranked.impact = std::clamp(*share, 0.0, 1.0);
                ranked.impact_basis = "kernel's share of kernel time";
                return;
            }
        }
    }
}

}  // namespace

Advice advise(Inventory inventory, const AdviseOptions& options, const rules::Catalogue& catalogue,
              Diagnostics& diagnostics) {
    Advice advice;
    advice.inventory = std::move(inventory);
    rules::MetricStore store;
    SourceContext context{advice.inventory, options, catalogue, diagnostics};
    for (const SourceRow& row : source_table()) {
        std::unique_ptr<LoadedSource> loaded = row.make()->load(context);
        if (!loaded) continue;
        loaded->publish(store);
        loaded->contribute(advice, store);
    }
    // Each analyzer pins the run subject to its own file; merged, those places say nothing about
    // a run-wide finding.
    store.run().locations.clear();

    // Per-hint rules were summarised above; every other rule runs over the merged metrics.
    for (auto& finding : rules::evaluate(catalogue, store)) {
        if (finding.rule.rfind("hints.", 0) == 0 && finding.subject.kind == "entry") continue;
        advice.findings.push_back({std::move(finding), 3, 0, ""});
    }
    for (auto& ranked : advice.findings) {
        ranked.tier = tier_of(ranked.finding);
        estimate_impact(ranked, store);
    }
    std::stable_sort(advice.findings.begin(), advice.findings.end(),
                     [](const RankedFinding& a, const RankedFinding& b) {
                         if (a.tier != b.tier) return a.tier < b.tier;
                         // Notes (healthy kernels, headroom hints) follow every actual problem.
                         bool a_info = a.finding.severity == rules::RuleSeverity::Info;
                         bool b_info = b.finding.severity == rules::RuleSeverity::Info;
                         if (a_info != b_info) return b_info;
                         if (a.impact != b.impact) return a.impact > b.impact;
                         return a.finding.severity > b.finding.severity;
                     });
    return advice;
}

}  // namespace ptune::advise
