// `ptune history confirm` (confirm.hpp): four ABBA runs, one identity, the proposal's rule.

#include "ptune/history/confirm.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"
#include "ptune/core/text.hpp"

namespace ptune::history {

namespace {

constexpr const char* kRoles[] = {"parent", "candidate", "candidate", "parent"};

struct ConfirmRun {
    std::string label;  ///< "1 (parent): <argument>"
    RunInfo info;
    std::map<std::string, CaseValue> values;
};

Error usage(std::string message) {
    return Error{std::move(message), "", 0, ExitCode::InputError};
}

// `run:N` from the history.
Result<ConfirmRun> recorded_run(Store& store, std::int64_t id) {
    std::optional<ConfirmRun> found;
    auto status = store.for_each_run([&](const RunInfo& info, std::vector<CaseValue>&& values) {
        if (info.id != id) return ok_status();
        ConfirmRun run;
        run.info = info;
        for (auto& value : values) run.values.emplace(value.name, std::move(value));
        found = std::move(run);
        return ok_status();
    });
    if (!status) return status.error();
    if (!found)
        return Error{fmt::format("no run {} in the history", id), store.location(), 0,
                     ExitCode::InputError};
    return std::move(*found);
}

Result<std::vector<ConfirmRun>> read_runs(const ConfirmRequest& request, Diagnostics& diagnostics) {
    if (request.runs.size() != 4) {
        return usage(fmt::format(
            "history confirm takes four runs in the order parent candidate candidate parent "
            "(got {})",
            request.runs.size()));
    }
    std::unique_ptr<Store> store;
    std::vector<ConfirmRun> runs;
    for (std::size_t i = 0; i < 4; ++i) {
        const std::string& argument = request.runs[i];
        ConfirmRun run;
        if (argument.starts_with("run:")) {
            auto id = text::parse_int(std::string_view(argument).substr(4));
            if (!id || *id <= 0) return usage(fmt::format("'{}' is not run:N", argument));
            if (!store) {
                auto opened = Store::open(request.location, request.open);
                if (!opened) return opened.error();
                store = std::move(*opened);
            }
            auto recorded = recorded_run(*store, *id);
            if (!recorded) return recorded.error();
            run = std::move(*recorded);
        } else {
            RunMeta meta = request.meta;
            meta.commit = meta.commit.empty() ? "confirm" : meta.commit;
            auto built = build_run({argument}, meta, diagnostics);
            if (!built) return built.error();
            run.info = built->info;
            for (auto& value : built->cases) run.values.emplace(value.name, std::move(value));
        }
        run.label = fmt::format("{} ({}): {}", i + 1, kRoles[i], argument);
        runs.push_back(std::move(run));
    }
    return runs;
}

// The first identity part (of the four a confirmation shares) in which `b` differs from `a`.
std::optional<std::string> differing_part(const Epoch& a, const Epoch& b) {
    const std::pair<const char*, std::pair<const std::string*, const std::string*>> parts[] = {
        {"contract", {&a.contract, &b.contract}},
        {"toolchain epoch", {&a.toolchain, &b.toolchain}},
        {"device epoch", {&a.device, &b.device}},
        {"lineage generation", {&a.lineage, &b.lineage}}};
    for (const auto& [what, values] : parts) {
        if (*values.first != *values.second) {
            return fmt::format("{} differs ({} -> {})", what,
                               values.first->empty() ? "-" : *values.first,
                               values.second->empty() ? "-" : *values.second);
        }
    }
    return std::nullopt;
}

}  // namespace

bool ConfirmResult::confirmed() const {
    return std::any_of(cases.begin(), cases.end(),
                       [](const Confirmation& c) { return c.confirmed; });
}

Confirmation decide(const std::string& name, double parent1, double candidate1, double candidate2,
                    double parent2, double min_delta_us) {
    Confirmation c{name, parent1, candidate1, candidate2, parent2, 0.0, false};
    c.margin_us = std::min(candidate1, candidate2) - std::max(parent1, parent2);
    c.confirmed = c.margin_us > min_delta_us;
    return c;
}

Result<ConfirmResult> confirm(const ConfirmRequest& request, Diagnostics& diagnostics) {
    if (!(request.min_delta_us >= 0.0))
        return usage(
            fmt::format("--min-delta-us {} is not a threshold >= 0", request.min_delta_us));
    auto runs = read_runs(request, diagnostics);
    if (!runs) return runs.error();
    std::vector<std::string> names;
    if (!request.only.empty()) {
        names.push_back(request.only);
    } else {
        for (const auto& entry : (*runs)[0].values) {
            const std::string& name = entry.first;
            const bool everywhere = std::all_of(runs->begin(), runs->end(), [&](const auto& run) {
                return run.values.count(name) > 0;
            });
            if (everywhere) names.push_back(name);
        }
        if (names.empty())
            return usage("the four runs share no case with a number: nothing to confirm");
    }
    ConfirmResult result;
    result.min_delta_us = request.min_delta_us;
    for (const auto& name : names) {
        double values[4] = {};
        Epoch first;
        for (std::size_t i = 0; i < 4; ++i) {
            const auto& run = (*runs)[i];
            auto it = run.values.find(name);
            if (it == run.values.end()) {
                return usage(
                    fmt::format("run {} has no number for case '{}': not a "
                                "confirmation",
                                run.label, name));
            }
            const Epoch epoch = epoch_of(run.info, it->second.contract);
            if (i == 0) {
                first = epoch;
            } else if (auto part = differing_part(first, epoch)) {
                return usage(fmt::format(
                    "not a confirmation: case '{}': {} between run {} and run {}; the four runs "
                    "must share contract, toolchain epoch, device epoch and lineage generation",
                    name, *part, (*runs)[0].label, run.label));
            }
            values[i] = it->second.value_us;
        }
        result.identity = first;
        result.cases.push_back(
            decide(name, values[0], values[1], values[2], values[3], request.min_delta_us));
    }
    return result;
}

render::Report confirm_report(const ConfirmResult& result) {
    render::Report report;
    report.command = "history confirm";
    report.include_findings_in_json = false;
    render::Table table;
    table.columns = {"case",     "parent 1", "candidate 1", "candidate 2",
                     "parent 2", "margin",   "verdict"};
    table.units = {"", "µs", "µs", "µs", "µs", "µs"};
    table.align = {render::Align::Left,  render::Align::Right, render::Align::Right,
                   render::Align::Right, render::Align::Right, render::Align::Right,
                   render::Align::Left};
    const auto us = [](double v) { return stats::format_fixed(v, 1); };
    auto& list = report.data["cases"] = nlohmann::json::array();
    for (const auto& c : result.cases) {
        table.rows.push_back({c.name, us(c.parent1), us(c.candidate1), us(c.candidate2),
                              us(c.parent2), fmt::format("{:+.1f}", c.margin_us),
                              c.confirmed ? "confirmed" : "not confirmed"});
        list.push_back({{"case", c.name},
                        {"parent1_us", c.parent1},
                        {"candidate1_us", c.candidate1},
                        {"candidate2_us", c.candidate2},
                        {"parent2_us", c.parent2},
                        {"margin_us", c.margin_us},
                        {"confirmed", c.confirmed}});
    }
    report.tables.push_back(std::move(table));
    report.data["min_delta_us"] = result.min_delta_us;
    report.data["identity"] = result.identity.label();
    report.data["confirmed"] = result.confirmed();
    report.notes.push_back(fmt::format(
        "rule (spec proposal, §3.6 item 5; upstream specifies none): confirmed when both "
        "candidate runs are slower than both parent runs by more than {} µs (margin = the "
        "faster candidate − the slower parent)",
        stats::format_fixed(result.min_delta_us, 1)));
    report.notes.push_back("one identity: " + result.identity.label());
    const auto confirmed = std::count_if(result.cases.begin(), result.cases.end(),
                                         [](const Confirmation& c) { return c.confirmed; });
    report.notes.push_back(
        confirmed > 0 ? fmt::format("{} regression(s) confirmed of {} case(s)", confirmed,
                                    result.cases.size())
                      : fmt::format("no regression confirmed ({} case(s))", result.cases.size()));
    return report;
}

}  // namespace ptune::history
