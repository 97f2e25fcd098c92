#pragma once
/// @file findings.hpp
/// The `bench.gate-*` findings of a gate result, one case at a time: publish_metrics() +
/// rules::evaluate() hold a metric map per case (200,000 cases: hundreds of megabytes).

#include <vector>

#include "ptune/gate/gate.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::gate {

/// What rules::evaluate(catalogue, store, {"bench.gate-"}) gives after publish_metrics(result,
/// options, store), in the same order, without the store.
std::vector<rules::Finding> case_findings(const GateResult& result, const Options& options,
                                          const rules::Catalogue& catalogue);

}  // namespace ptune::gate
