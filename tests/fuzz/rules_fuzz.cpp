// Fuzz target: a user rules file (`--rules FILE`) merged into the built-in catalogue, then
// every rule evaluated over a store whose metrics the input cannot predict.

#include <cstdint>

#include "fuzz_support.hpp"
#include "ptune/rules/engine.hpp"

namespace rules_fuzz {

namespace {

const ptune::rules::Catalogue& builtin_catalogue() {
    static const ptune::rules::Catalogue catalogue = [] {
        auto builtin = ptune::rules::Catalogue::builtin();
        if (!builtin) std::abort();  // the embedded catalogue is part of the build
        return std::move(*builtin);
    }();
    return catalogue;
}

}  // namespace

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    ptune::rules::Catalogue catalogue = builtin_catalogue();
    if (!catalogue.merge_json(text, "rules.json")) return 0;
    ptune::rules::MetricStore store;
    // Metrics a user rule may read, with the values that break arithmetic.
    for (const auto& rule : catalogue.rules()) {
        if (rule.subject.empty()) continue;
        ptune::rules::Subject& subject = store.subject(rule.subject, "fuzz");
        if (!rule.compiled_condition) continue;
        double value = 0.0;
        for (const std::string& metric :
             ptune::rules::expression_metrics(*rule.compiled_condition)) {
            subject.metrics[metric] = value;
            value = value == 0.0 ? -1.0 : value * -1e300;
        }
    }
    auto findings = ptune::rules::evaluate(catalogue, store);
    (void)findings;
    return 0;
}

}  // namespace rules_fuzz
