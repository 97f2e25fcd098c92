#pragma once
// What the rules read of a case: its CI block's `bench.*` inputs, without the block (808 bytes)
// or the case. bench-summary's text report keeps these for a log of 100,000 small cases instead
// of the cases (pipeline.hpp, SummaryBuilder).

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/bench/model.hpp"
#include "ptune/rules/engine.hpp"
#include "ptune/rules/metrics.hpp"

namespace ptune::bench {

/// The numbers publish_metrics() reads of a CI block.
struct CaseMetrics {
    std::optional<Summary> effective_us;
    bool fallback_flattened = false;  ///< of the context line or the raw samples
    std::optional<std::size_t> declared_rounds;
    std::size_t ranks = 0;
    std::optional<double> rank_imbalance;
};

/// The CaseMetrics of `block`.
CaseMetrics case_metrics(const BenchBlock& block);

/// One case with a CI block, as the rules see it.
struct CaseFactsView {
    std::string_view name;
    const std::string* file;  ///< the CI block's source
    std::size_t line;
    const CaseMetrics* metrics;
};

/// The case rules of an area, asked one case at a time (while a log is read). Their conditions
/// read a case's metrics alone, never its name or place, so a case they all fail for costs no
/// copy of either.
class CaseRuleScreen {
  public:
    /// The enabled case rules of `area` in `catalogue` (which must outlive the screen).
    CaseRuleScreen(const rules::Catalogue& catalogue, std::string_view area);
    ~CaseRuleScreen();
    CaseRuleScreen(const CaseRuleScreen&) = delete;
    CaseRuleScreen& operator=(const CaseRuleScreen&) = delete;
    /// Whether any rule holds for the case `name` at `file`:`line` of these metrics; if one
    /// does, the case's findings are appended to `findings` (unsorted).
    bool screen(std::string_view name, const std::string& file, std::size_t line,
                const CaseMetrics& metrics, std::vector<rules::Finding>& findings);

  private:
    struct State;
    std::unique_ptr<State> state_;
};

/// The findings of a run: those of its store in `area`, then `case_findings` (a CaseRuleScreen's,
/// in case order), sorted as rules::evaluate() sorts.
std::vector<rules::Finding> with_run_findings(std::vector<rules::Finding> case_findings,
                                              const rules::Catalogue& catalogue,
                                              const rules::MetricStore& store,
                                              std::string_view area);

/// summary_findings() over the cases with a CI block, in case order: the same findings in the
/// same order. Cases no rule holds for (CaseRuleScreen::screen() false) may be left out.
std::vector<rules::Finding> findings_of_facts(const std::vector<CaseFactsView>& cases,
                                              const rules::Catalogue& catalogue,
                                              const rules::MetricStore& store,
                                              std::string_view area);

}  // namespace ptune::bench
