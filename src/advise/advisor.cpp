// ptune advise: every source of the table (source.hpp) on one run, the whole catalogue over the
// merged metrics, and a ranking by the guide's two tiers (schedule first, then each kernel's
// pipeline).

#include "ptune/advise/advisor.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ptune/advise/source.hpp"
#include "ptune/core/stats.hpp"

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

Step step_of(const RankedFinding& ranked) {
    const rules::Finding& finding = ranked.finding;
    const std::string& id = finding.rule;
    bool per_kernel = finding.subject.kind == "kernel" || finding.subject.kind == "function";
    auto starts = [&](std::string_view prefix) { return id.rfind(prefix, 0) == 0; };
    if (starts("advise.")) return Step::Inputs;
    if (ranked.tier == 0) return Step::Regression;
    if (ranked.tier == 1) return Step::Schedule;
    if (per_kernel && finding.severity == rules::RuleSeverity::Error) return Step::OverLimit;
    if (id == "cross.mte2-bound-with-ph001" || id == "cross.short-b-trans-rows" ||
        id == "hints.PH001")
        return Step::SiteHint;
    if (id == "cross.mte2-bound-with-cut-pipeline" || id == "hints.PH-MR-001")
        return Step::DepthHint;
    if (id == "cross.underfilled-cube-tiles" || id == "cross.acc-subtiling-drains" ||
        starts("mem.underfilled-") || starts("mem.grow-") || starts("mem.deeper-stage"))
        return Step::Tiling;
    if (per_kernel) return Step::Diagnosis;
    return Step::Other;
}

// Which way an order moves the kernel's tiles: +1 grows them (wider transfers, larger tiles,
// deeper stages), -1 shrinks them (over a limit, a cut pipeline depth), 0 neither.
int direction_of(const RankedFinding& ranked) {
    if (ranked.plan.empty()) return 0;
    switch (static_cast<Step>(ranked.step)) {
        case Step::OverLimit:
        case Step::DepthHint:
            return -1;
        case Step::SiteHint:
            return ranked.finding.rule == "cross.acc-subtiling-drains" ? 0 : 1;
        case Step::Tiling:
            return ranked.finding.rule == "cross.acc-subtiling-drains" ? -1 : 1;
        default:
            return 0;
    }
}

std::string_view catalogue_or_id(const rules::Finding& finding) {
    return finding.catalogue.empty() ? std::string_view(finding.rule)
                                     : std::string_view(finding.catalogue);
}

// Why the advice of `loser` waits for the order `winner` of the same kernel.
std::string not_now_reason(const RankedFinding& winner) {
    std::string who = fmt::format("{} (#{})", catalogue_or_id(winner.finding), winner.rank);
    switch (static_cast<Step>(winner.step)) {
        case Step::OverLimit:
            return fmt::format(
                "{} comes first: the kernel is over an on-chip limit and does not "
                "compile, so nothing may grow until it fits",
                who);
        case Step::SiteHint:
            return fmt::format(
                "{} comes first: fixing the PH001 site changes the tile sizes this "
                "advice is about; re-run and re-check",
                who);
        case Step::DepthHint:
            return fmt::format(
                "{} comes first: the pipeline depth was cut for lack of space, and "
                "growing a tile now cuts it further",
                who);
        default:
            return fmt::format(
                "{} comes first and moves the tiles the other way; re-run and "
                "re-check",
                who);
    }
}

bool evidence_within(const rules::Finding& part, const rules::Finding& whole) {
    if (part.evidence.empty()) return false;
    for (const auto& [key, value] : part.evidence) {
        if (!whole.evidence.contains(key)) return false;
    }
    return true;
}

// The mean effective_us of the first benchmark case and the window of the first swimlane
// capture, as the sections report them; 0 when absent.
double section_number(const std::vector<Section>& sections, std::string_view id,
                      const nlohmann::json::json_pointer& pointer) {
    for (const auto& section : sections) {
        if (section.id != id) continue;
        const nlohmann::json& data = section.data;
        const nlohmann::json* first = &data;
        if (data.is_array()) {
            if (data.empty()) continue;
            first = &data.front();
        }
        if (first->contains(pointer) && first->at(pointer).is_number())
            return first->at(pointer).get<double>();
    }
    return 0;
}

// A log of another program next to the run's capture: its effective_us and the capture's window
// differ by more than this factor (a run's effective_us sits near its window: 59.7 µs against
// a 59.6 µs mean in the example).
constexpr double kInputsDisagreeFactor = 10;

// A name as programs and callables are compared: lower case, letters and digits only
// (`PagedAttn`, `paged_attn` and `models/x/paged_attn.py`'s stem all read `pagedattn`).
std::string name_key(std::string_view name) {
    std::string key;
    for (char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    return key;
}

// The programs a log's own content names: the program of its L3 context line, the callables of
// an L3 report's slots and a case named by a model path (results.tsv:
// `models/qwen3_14b/prefill_fwd.py`). A case named after its file or a --log label says nothing
// about the program and is not counted.
std::vector<std::string> log_program_names(const std::vector<Section>& sections) {
    std::vector<std::string> names;
    auto add = [&](std::string name) {
        if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(std::move(name));
    };
    for (const auto& section : sections) {
        if (section.id != "bench" || !section.data.is_array()) continue;
        for (const auto& bench_case : section.data) {
            std::string name = bench_case.value("case", std::string());
            if (name.find('/') != std::string::npos || name.ends_with(".py"))
                add(std::filesystem::path(name).stem().string());
            // The L3 context line names the program: `[RUN] benchmark kernel=PrefillFwd l3=1`.
            const auto context = bench_case.find("context");
            if (context != bench_case.end() && context->is_object()) {
                std::string kernel = context->value("kernel", std::string());
                if (kernel != "unknown") add(kernel);
            }
            for (const auto& rank : bench_case.value("ranks", nlohmann::json::array())) {
                for (const auto& slot : rank.value("slots", nlohmann::json::array())) {
                    if (slot.contains("name") && slot["name"].is_string())
                        add(slot["name"].get<std::string>());
                }
            }
        }
    }
    return names;
}

// Whether one of the log's names is the run's program or one of its kernels (one name holding
// the other: `paged_attn_decode` names `PagedAttn`).
bool names_the_run(const std::vector<std::string>& names, const std::string& program,
                   const rules::MetricStore& store) {
    std::vector<std::string> keys;
    if (!program.empty()) keys.push_back(name_key(program));
    for (const auto& [subject, metrics] : store.subjects())
        if (subject.kind == "kernel") keys.push_back(name_key(subject.name));
    for (const auto& name : names) {
        std::string key = name_key(name);
        if (key.size() < 2) continue;
        for (const auto& run_key : keys) {
            if (run_key.size() < 2) continue;
            if (key.find(run_key) != std::string::npos || run_key.find(key) != std::string::npos)
                return true;
        }
    }
    return false;
}

std::optional<rules::Finding> inputs_disagree(const Advice& advice,
                                              const rules::MetricStore& store) {
    double mean = section_number(advice.sections, "bench", "/effective_us/mean"_json_pointer);
    double window = section_number(advice.sections, "swimlane", "/window_us"_json_pointer);
    double factor = mean > 0 && window > 0 ? std::max(mean, window) / std::min(mean, window) : 0;
    bool times_disagree = factor >= kInputsDisagreeFactor;
    const std::string& program = advice.inventory.program;
    std::vector<std::string> names = log_program_names(advice.sections);
    bool names_disagree =
        !program.empty() && !names.empty() && !names_the_run(names, program, store);
    if (!times_disagree && !names_disagree) return std::nullopt;
    rules::Finding finding;
    finding.rule = "advise.inputs-disagree";
    finding.severity = rules::RuleSeverity::Warning;
    finding.tier = "inputs";
    finding.title = "The log and the run directory describe different programs";
    finding.subject = {"run", "run"};
    std::vector<std::string> reasons;
    if (names_disagree)
        reasons.push_back(fmt::format("the log names {} where the run directory is {}",
                                      fmt::join(names, ", "), program));
    if (times_disagree)
        reasons.push_back(
            fmt::format("the log's effective_us (mean {} µs) is {}x the capture's window ({} µs)",
                        stats::format_fixed(mean, 1), stats::format_fixed(factor, 0),
                        stats::format_fixed(window, 1)));
    finding.message = fmt::format(
        "{}: the log is of another program or build, so its benchmark says nothing about this "
        "run's kernels",
        fmt::join(reasons, ", and "));
    finding.advice =
        "Give the console log of this very run with --log (or the run directory the log belongs "
        "to); the benchmark figures below do not belong to the capture";
    if (times_disagree)
        finding.evidence = {{"bench.effective_us.mean", mean}, {"swimlane.window_us", window}};
    return finding;
}

bool reads_hint(const rules::Finding& finding, const std::string& prefix) {
    for (const auto& [key, value] : finding.evidence) {
        if (key.rfind(prefix, 0) == 0) return true;
    }
    return false;
}

// A run-wide hint summary (hints.PH001: "5 site(s)") whose code a kernel's order already acts on
// (X1 reads hints.PH001.count) lists the sites of those orders instead of being one more order;
// when every such order is deferred, so is the list.
bool cite_sites(RankedFinding& summary, const std::vector<RankedFinding>& planned,
                const std::vector<RankedFinding>& deferred) {
    std::string prefix = summary.finding.rule + ".";
    std::vector<std::string> orders;
    const RankedFinding* waiting = nullptr;
    auto cites = [&](const RankedFinding& ranked) {
        if (ranked.plan.empty()) return false;
        if (reads_hint(ranked.finding, prefix)) return true;
        for (const auto& folded : ranked.merged)
            if (reads_hint(folded, prefix)) return true;
        return false;
    };
    for (const auto& ranked : planned) {
        if (!cites(ranked)) continue;
        if (ranked.rank > 0)
            orders.push_back(fmt::format("#{} {}", ranked.rank, catalogue_or_id(ranked.finding)));
        else if (waiting == nullptr)
            waiting = &ranked;
    }
    for (const auto& ranked : deferred)
        if (waiting == nullptr && cites(ranked)) waiting = &ranked;
    if (!orders.empty()) {
        summary.sites_of = fmt::format("{}", fmt::join(orders, ", "));
        return true;
    }
    if (waiting != nullptr) {
        summary.not_now =
            fmt::format("its kernels' orders come first ({} {}: {})",
                        catalogue_or_id(waiting->finding), waiting->plan, waiting->not_now);
        return true;
    }
    return false;
}

// One plan per kernel (docs/advise.md): steps in precedence order, same-step advice merged,
// a symptom already stated by an earlier order folded into it, advice that moves the tiles
// against an earlier order deferred.
void make_plans(std::vector<RankedFinding>& findings) {
    for (auto& ranked : findings) {
        const auto& subject = ranked.finding.subject;
        if (subject.kind == "kernel" || subject.kind == "function") ranked.plan = subject.name;
        ranked.step = static_cast<int>(step_of(ranked));
    }
    // The group a finding is shown in: run-wide inputs, regressions and schedule first, then
    // the kernels (one with an error first, then by the share of time they take), then the
    // run-wide rest.
    std::map<std::string, std::pair<bool, double>> weight;  // plan -> (has error, impact)
    for (const auto& ranked : findings) {
        if (ranked.plan.empty()) continue;
        auto& [error, impact] = weight[ranked.plan];
        error = error || ranked.finding.severity == rules::RuleSeverity::Error;
        impact = std::max(impact, ranked.impact);
    }
    auto group = [](const RankedFinding& ranked) {
        if (!ranked.plan.empty()) return 1;
        return ranked.step <= static_cast<int>(Step::Schedule) ? 0 : 2;
    };
    std::stable_sort(findings.begin(), findings.end(),
                     [&](const RankedFinding& a, const RankedFinding& b) {
                         if (group(a) != group(b)) return group(a) < group(b);
                         if (a.plan != b.plan) {
                             const auto& wa = weight[a.plan];
                             const auto& wb = weight[b.plan];
                             if (wa.first != wb.first) return wa.first;
                             if (wa.second != wb.second) return wa.second > wb.second;
                             return a.plan < b.plan;
                         }
                         if (a.step != b.step) return a.step < b.step;
                         // Notes (healthy kernels, headroom hints) follow the problems.
                         bool a_info = a.finding.severity == rules::RuleSeverity::Info;
                         bool b_info = b.finding.severity == rules::RuleSeverity::Info;
                         if (a_info != b_info) return b_info;
                         if (a.finding.severity != b.finding.severity)
                             return a.finding.severity > b.finding.severity;
                         // The cross-artifact rule is the more specific statement.
                         bool a_cross = a.finding.rule.rfind("cross.", 0) == 0;
                         bool b_cross = b.finding.rule.rfind("cross.", 0) == 0;
                         if (a_cross != b_cross) return a_cross;
                         return a.impact > b.impact;
                     });

    std::vector<RankedFinding> planned;
    std::vector<RankedFinding> deferred;
    int next_rank = 0;
    auto flush = [&] {
        for (auto& ranked : deferred) planned.push_back(std::move(ranked));
        deferred.clear();
    };
    for (std::size_t i = 0; i < findings.size(); ++i) {
        RankedFinding& ranked = findings[i];
        if (i > 0 && ranked.plan != findings[i - 1].plan) flush();
        bool folded = false;
        if (!ranked.plan.empty()) {
            for (std::size_t j = planned.size(); j-- > 0;) {
                RankedFinding& earlier = planned[j];
                if (earlier.plan != ranked.plan) break;
                bool same_step = earlier.step == ranked.step &&
                                 (ranked.step == static_cast<int>(Step::OverLimit) ||
                                  ranked.step == static_cast<int>(Step::SiteHint) ||
                                  ranked.step == static_cast<int>(Step::DepthHint) ||
                                  ranked.step == static_cast<int>(Step::Tiling));
                bool symptom = ranked.step == static_cast<int>(Step::Diagnosis) &&
                               evidence_within(ranked.finding, earlier.finding);
                if (same_step || symptom) {
                    earlier.merged.push_back(std::move(ranked.finding));
                    folded = true;
                    break;
                }
            }
        }
        if (folded) continue;
        int direction = direction_of(ranked);
        const RankedFinding* winner = nullptr;
        for (const auto& earlier : planned) {
            if (earlier.plan != ranked.plan || ranked.plan.empty()) continue;
            int other = direction_of(earlier);
            if (other != 0 && direction != 0 && other != direction) {
                winner = &earlier;
                break;
            }
        }
        if (ranked.plan.empty() && ranked.finding.rule.rfind("hints.", 0) == 0 &&
            cite_sites(ranked, planned, deferred)) {
            planned.push_back(std::move(ranked));
            continue;
        }
        if (winner != nullptr) {
            ranked.not_now = not_now_reason(*winner);
            ranked.waits_for = winner->rank;
            deferred.push_back(std::move(ranked));
            continue;
        }
        ranked.rank = ++next_rank;
        planned.push_back(std::move(ranked));
    }
    flush();
    findings = std::move(planned);
}

// The same advice for several kernels (the same rule and advice text: X1 for UP and QK, P10 for
// every rank of a tree) is one order naming the kernels, with their combined share of kernel
// time, placed among the kernel groups by it; the orders are then numbered again and every
// "not now, because #N" and site list follows its order.
void merge_across_kernels(std::vector<RankedFinding>& findings) {
    // Only a kernel's first order joins: moved to the merged group, a later one would jump
    // the orders its own plan puts before it.
    std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> same;
    std::set<std::string> planned;
    std::map<std::string, bool> error;  // plan -> has an error finding
    for (std::size_t i = 0; i < findings.size(); ++i) {
        const RankedFinding& ranked = findings[i];
        if (ranked.plan.empty()) continue;
        error[ranked.plan] =
            error[ranked.plan] || ranked.finding.severity == rules::RuleSeverity::Error;
        if (ranked.rank == 0 || !planned.insert(ranked.plan).second) continue;
        if (ranked.finding.advice.empty()) continue;
        same[{ranked.finding.rule, ranked.finding.advice}].push_back(i);
    }
    std::map<int, int> into;  // rank of a merged order -> rank of the order it joined
    std::vector<bool> gone(findings.size(), false);
    for (const auto& [key, members] : same) {
        if (members.size() < 2) continue;
        RankedFinding& first = findings[members.front()];
        first.kernels = {first.plan};
        for (std::size_t k = 1; k < members.size(); ++k) {
            RankedFinding& other = findings[members[k]];
            first.kernels.push_back(other.plan);
            first.impact = std::min(1.0, first.impact + other.impact);
            first.merged.push_back(std::move(other.finding));
            for (auto& folded : other.merged) first.merged.push_back(std::move(folded));
            into[other.rank] = first.rank;
            gone[members[k]] = true;
        }
        first.plan = fmt::format("{}", fmt::join(first.kernels, ", "));
    }
    if (into.empty()) return;
    std::vector<RankedFinding> kept;
    for (std::size_t i = 0; i < findings.size(); ++i)
        if (!gone[i]) kept.push_back(std::move(findings[i]));

    // Kernel groups in the order make_plans gives them (one with an error first, then by the
    // share of time), the merged orders' groups by their combined share.
    std::map<std::string, std::tuple<bool, double, std::size_t>> weight;
    for (std::size_t i = 0; i < kept.size(); ++i) {
        if (kept[i].plan.empty()) continue;
        auto [it, fresh] = weight.try_emplace(kept[i].plan, false, 0.0, i);
        auto& [has_error, impact, first] = it->second;
        for (const auto& kernel : kept[i].kernels) has_error = has_error || error[kernel];
        has_error = has_error || error[kept[i].plan];
        impact = std::max(impact, kept[i].impact);
    }
    auto group = [](const RankedFinding& ranked) {
        if (!ranked.plan.empty()) return 1;
        return ranked.step <= static_cast<int>(Step::Schedule) ? 0 : 2;
    };
    std::stable_sort(kept.begin(), kept.end(), [&](const RankedFinding& a, const RankedFinding& b) {
        if (group(a) != group(b)) return group(a) < group(b);
        if (a.plan == b.plan || group(a) != 1) return false;
        const auto& [ea, ia, fa] = weight[a.plan];
        const auto& [eb, ib, fb] = weight[b.plan];
        if (ea != eb) return ea;
        if (ia != ib) return ia > ib;
        return fa < fb;
    });

    std::map<int, int> renumbered;  // old rank -> new rank
    int next_rank = 0;
    for (auto& ranked : kept) {
        if (ranked.rank == 0) continue;
        renumbered[ranked.rank] = ++next_rank;
        ranked.rank = next_rank;
    }
    for (const auto& [merged, joined] : into) renumbered[merged] = renumbered[joined];
    auto by_rank = [&](int rank) -> const RankedFinding* {
        for (const auto& ranked : kept)
            if (ranked.rank == rank) return &ranked;
        return nullptr;
    };
    for (auto& ranked : kept) {
        if (ranked.waits_for == 0) continue;
        ranked.waits_for = renumbered[ranked.waits_for];
        if (const RankedFinding* winner = by_rank(ranked.waits_for))
            ranked.not_now = not_now_reason(*winner);
    }
    for (auto& ranked : kept) {
        if (!ranked.plan.empty() || ranked.finding.rule.rfind("hints.", 0) != 0) continue;
        if (ranked.sites_of.empty() && ranked.not_now.empty()) continue;
        ranked.sites_of.clear();
        ranked.not_now.clear();
        cite_sites(ranked, kept, {});
    }
    findings = std::move(kept);
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
    if (auto disagree = inputs_disagree(advice, store)) {
        diagnostics.warn("", 0, disagree->message);
        advice.findings.push_back({std::move(*disagree), 0, 0, ""});
    }
    for (auto& ranked : advice.findings) {
        ranked.tier = ranked.finding.rule.rfind("advise.", 0) == 0 ? 0 : tier_of(ranked.finding);
        estimate_impact(ranked, store);
    }
    make_plans(advice.findings);
    merge_across_kernels(advice.findings);
    return advice;
}

}  // namespace ptune::advise

namespace ptune::advise {

std::vector<rules::Finding> all_findings(const Advice& advice) {
    std::vector<rules::Finding> findings;
    for (const auto& ranked : advice.findings) {
        findings.push_back(ranked.finding);
        findings.insert(findings.end(), ranked.merged.begin(), ranked.merged.end());
    }
    return findings;
}

bool has_blocking_finding(const Advice& advice) {
    auto blocking = [](const rules::Finding& finding) {
        return finding.severity == rules::RuleSeverity::Error || finding.rule == "bench.regressed";
    };
    for (const auto& ranked : advice.findings) {
        if (blocking(ranked.finding)) return true;
        for (const auto& merged : ranked.merged)
            if (blocking(merged)) return true;
    }
    return false;
}

void rebase_locations(Advice& advice, bool absolute) {
    namespace fs = std::filesystem;
    const fs::path& run_dir = advice.inventory.run_dir;
    auto rebase = [&](rules::Finding& finding) {
        for (auto& location : finding.locations) {
            if (location.file.empty()) continue;
            fs::path path(location.file);
            std::error_code error;
            if (path.is_relative() && !fs::exists(path, error) && !run_dir.empty() &&
                fs::exists(run_dir / path, error))
                path = run_dir / path;
            if (absolute) path = fs::absolute(path, error);
            location.file = path.lexically_normal().string();
        }
    };
    for (auto& ranked : advice.findings) {
        rebase(ranked.finding);
        for (auto& merged : ranked.merged) rebase(merged);
    }
}

}  // namespace ptune::advise
