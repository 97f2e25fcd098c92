// Fuzz target: rule condition expressions (compile_expression) evaluated on a subject that has
// some of the metrics they read.

#include <cstdint>

#include "fuzz_support.hpp"
#include "ptune/rules/engine.hpp"

namespace rules_expression_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto expression = ptune::rules::compile_expression(text);
    if (!expression) return 0;
    ptune::rules::Subject subject;
    subject.key = {"kernel", "fuzz"};
    std::map<std::string, double> params{{"limit", 85.0}, {"zero", 0.0}};
    double value = 1.0;
    for (const std::string& metric : ptune::rules::expression_metrics(**expression)) {
        subject.metrics[metric] = value;
        subject.labels[metric] = "fuzz";
        value = -value * 1e200;
    }
    (void)ptune::rules::evaluate_expression(**expression, subject, params);
    return 0;
}

}  // namespace rules_expression_fuzz
