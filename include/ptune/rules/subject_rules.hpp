#pragma once
/// @file subject_rules.hpp
/// Rules evaluated one subject at a time. evaluate() (engine.hpp) needs every subject in a
/// MetricStore at once; a memory report of 200,000 functions or 200,000 perf hints then holds
/// a map of metrics per subject (gigabytes). A caller that makes its subjects one at a time
/// evaluates each as it is made and drops it, with the same findings in the same order.

#include <string_view>
#include <vector>

#include "ptune/rules/engine.hpp"

namespace ptune::rules {

/// The rules evaluate() applies to one subject kind, picked once.
class SubjectRules {
  public:
    /// The enabled rules of `areas` (empty: all) whose subject kind is `kind`, catalogue order.
    SubjectRules(const Catalogue& catalogue, std::string_view kind,
                 const std::vector<std::string>& areas = {});
    /// The rules whose condition holds for `subject`, in catalogue order.
    std::vector<const Rule*> matching(const Subject& subject) const;
    /// Appends the findings evaluate() gives for `subject` (unsorted; see sort_findings).
    void evaluate(const Subject& subject, std::vector<Finding>& findings) const;
    const std::vector<const Rule*>& rules() const { return rules_; }

  private:
    std::vector<const Rule*> rules_;
};

/// Sorts findings into evaluate()'s order: severity (errors first), impact, rule id, subject.
void sort_findings(std::vector<Finding>& findings);

}  // namespace ptune::rules
