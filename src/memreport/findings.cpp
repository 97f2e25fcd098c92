// The mem.* findings of a report evaluated one function subject at a time (findings.hpp).

#include "ptune/memreport/findings.hpp"

#include <algorithm>
#include <numeric>

#include "ptune/rules/subject_rules.hpp"

namespace ptune::memreport {

namespace {

constexpr const char* kFunction = "function";
constexpr const char* kKernel = "kernel";

}  // namespace

Findings::Findings(const Analysis& analysis, const rules::Catalogue& catalogue,
                   const std::vector<std::string>& areas)
    : analysis_(analysis) {
    run_.key = {"run", "run"};
    if (analysis.found()) {
        publish_run_metrics(analysis.report, analysis.choice, run_);
    } else {
        run_.metrics["mem.report_found"] = 0;
        run_.labels["mem.searched"] = analysis.source.searched;
    }
    const auto& functions = analysis.report.functions;
    // Functions of one name are one subject (publish() merges them): group indices by name.
    order_.resize(functions.size());
    std::iota(order_.begin(), order_.end(), 0U);
    std::stable_sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
        return functions[a].name < functions[b].name;
    });
    for (std::uint32_t i = 0; i < order_.size(); ++i) {
        if (i == 0 || functions[order_[i]].name != functions[order_[i - 1]].name)
            group_begin_.push_back(i);
    }
    group_begin_.push_back(static_cast<std::uint32_t>(order_.size()));

    auto record = [&](const rules::Subject& subject, std::uint32_t group, Kind kind,
                      const rules::SubjectRules& rules) {
        for (const rules::Rule* rule : rules.matching(subject)) {
            std::optional<double> impact;
            if (rule->compiled_impact)
                impact = rules::evaluate_expression(*rule->compiled_impact, subject, rule->params);
            hits_.push_back({rule, group, kind, impact});
            if (!worst_ || rule->severity > *worst_) worst_ = rule->severity;
        }
    };
    record(run_, 0, Kind::Run, rules::SubjectRules(catalogue, "run", areas));
    rules::SubjectRules function_rules(catalogue, kFunction, areas);
    rules::SubjectRules kernel_rules(catalogue, kKernel, areas);
    if (!function_rules.rules().empty() || !kernel_rules.rules().empty()) {
        for (std::uint32_t group = 0; group + 1 < group_begin_.size(); ++group) {
            Hit probe{nullptr, group, Kind::Function, std::nullopt};
            record(subject(probe), group, Kind::Function, function_rules);
            if (kernel_rules.rules().empty()) continue;
            probe.kind = Kind::Kernel;
            record(subject(probe), group, Kind::Kernel, kernel_rules);
        }
    }
    // evaluate()'s order (severity, impact, rule id, subject kind and name); its keys never
    // tie (one finding per rule and subject). Kinds compare as their names do (function <
    // kernel < run) and groups are in name order, so no name is copied to sort.
    std::sort(hits_.begin(), hits_.end(), [](const Hit& a, const Hit& b) {
        if (a.rule->severity != b.rule->severity) return a.rule->severity > b.rule->severity;
        double ia = a.impact.value_or(-1), ib = b.impact.value_or(-1);
        if (ia != ib) return ia > ib;
        if (a.rule != b.rule) {
            if (int order = a.rule->id.compare(b.rule->id); order != 0) return order < 0;
        }
        if (a.kind != b.kind) return a.kind < b.kind;
        return a.group < b.group;
    });
}

const std::string& Findings::name(std::uint32_t group) const {
    return analysis_.report.functions[order_[group_begin_[group]]].name;
}

rules::Subject Findings::subject(const Hit& hit) const {
    if (hit.kind == Kind::Run) return run_;
    rules::Subject function;
    function.key = {kFunction, name(hit.group)};
    rules::Subject kernel;
    kernel.key = {kKernel, function.key.name};
    for (std::uint32_t i = group_begin_[hit.group]; i < group_begin_[hit.group + 1]; ++i) {
        publish_function_metrics(analysis_.report, analysis_.choice,
                                 analysis_.report.functions[order_[i]], function);
        if (hit.kind == Kind::Kernel) mirror_as_kernel(function, kernel);
    }
    return hit.kind == Kind::Kernel ? kernel : function;
}

rules::Finding Findings::operator[](std::size_t index) const {
    const Hit& hit = hits_[index];
    return rules::make_finding(*hit.rule, subject(hit));
}

std::vector<rules::Finding> Findings::all() const {
    std::vector<rules::Finding> out;
    out.reserve(size());
    for (std::size_t i = 0; i < size(); ++i) out.push_back((*this)[i]);
    return out;
}

}  // namespace ptune::memreport
