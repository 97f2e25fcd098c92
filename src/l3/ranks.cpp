// Multi-card analysis (see ranks.hpp): per-rank pipelines on a small thread pool, then the
// straggler, spread and difference of each dispatch, published for the L3.* rules.

#include "ptune/l3/ranks.hpp"
#include "ptune/core/threads.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/stats.hpp"
#include "ptune/core/terminal.hpp"
#include "ptune/core/text.hpp"
#include "ptune/l3/placement.hpp"
#include "ptune/pmu/analyzer.hpp"
#include "ptune/pmu/pipeline.hpp"
#include "ptune/swimlane/pipeline.hpp"

namespace ptune::l3 {

unsigned thread_count() {
    if (const char* env = std::getenv("PTUNE_THREADS")) {
        if (auto n = text::parse_uint(env); n && *n > 0)
            return static_cast<unsigned>(std::min<std::uint64_t>(*n, 256));
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& job,
                  const std::string& label) {
    std::atomic<std::size_t> next{0}, done{0};
    term::Progress progress(label, n, false);
    std::mutex progress_mutex;
    auto work = [&]() {
        for (std::size_t i; (i = next.fetch_add(1)) < n;) {
            job(i);
            std::size_t finished = done.fetch_add(1) + 1;
            std::lock_guard lock(progress_mutex);
            progress.update(finished);
        }
    };
    std::size_t helpers = std::min<std::size_t>(threads, n);
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < helpers; ++t) pool.push_back(threads::thread_beside(work));
    work();
    for (auto& thread : pool) thread.join();
    progress.finish();
}

namespace {

std::string arch_of(std::uint64_t freq_hz, std::size_t cores) {
    std::string family = freq_hz == 50'000'000      ? "a2a3"
                         : freq_hz == 1'000'000'000 ? "a5"
                                                    : fmt::format("{} Hz clock", freq_hz);
    return fmt::format("{}, {} cores", family, cores);
}

/// The kernel name of a converter label, e.g. `QK(r1t1)` → `QK`, `QK_spmd(r1t2)` → `QK`.
std::string kernel_of_label(const std::string& label) {
    std::string name = label.substr(0, label.find('('));
    if (name.ends_with("_spmd")) name.resize(name.size() - 5);
    return name;
}

RankResult start_result(const RankCapture& capture, const std::filesystem::path& file) {
    RankResult r;
    r.rank = capture.rank;
    r.dispatch = capture.dispatch;
    r.label = capture.label;
    r.key = capture.key;
    r.input = file.string();
    return r;
}

/// Where one rank is placed on the host clock (§1.14): its paired window, when the tree's host
/// logs paired its dispatch.
struct RankPlacement {
    const swimlane::HostWindow* window = nullptr;
    const std::vector<std::string>* logs = nullptr;
    HostPairing pairing;
};

/// The rank's clock alignment as the report shows it.
void take_alignment(RankResult& r, const swimlane::Capture& capture,
                    const RankPlacement& placement) {
    const swimlane::ContainmentAlignment& a = capture.clock_alignment;
    if (a.status == swimlane::ContainmentAlignment::Status::None) return;
    r.alignment_status = a.bounded() ? "bounded" : "unavailable";
    r.alignment_reason = a.reason;
    if (a.bounded()) r.alignment_bound_ns = a.bound_ns();
    if (!a.placement_json.empty()) {
        auto placement_json = nlohmann::json::parse(a.placement_json, nullptr, false);
        if (placement_json.is_object())
            r.slack_ns = placement_json.value("slack_ns", std::int64_t{-1});
    }
    if (placement.window) r.pairing = placement.pairing;
}

/// One rank through the swimlane pipeline; the capture and its analysis die at the return.
void swimlane_rank(RankResult& r, const rules::Catalogue& catalogue,
                   const swimlane::AnalyzeOptions& options, const RankPlacement& placement) {
    swimlane::LoadRequest request;
    request.input = r.input;
    if (placement.window) {
        request.paired_window = placement.window;
        request.paired_logs = *placement.logs;
    }
    auto found = swimlane::find_captures(request);
    if (!found) {
        r.diagnostics.error(found.error().file, found.error().line, found.error().message);
        return;
    }
    auto loaded = swimlane::load_capture(found->captures.front(), request, r.diagnostics);
    if (!loaded) {
        r.diagnostics.error(loaded.error().file, loaded.error().line, loaded.error().message);
        return;
    }
    r.inputs = loaded->inputs;
    take_alignment(r, loaded->capture, placement);
    if (loaded->capture.tasks.empty()) {
        r.diagnostics.error(r.input, 0, "no AICore task rows to analyze; rank left out");
        return;
    }
    r.level = loaded->capture.level;
    r.arch = arch_of(loaded->capture.clock.freq_hz, loaded->capture.core_types.size());
    auto result = swimlane::analyze_capture(*loaded, options);
    rules::MetricStore store;
    swimlane::publish(result, store);
    r.findings = rules::evaluate(catalogue, store, {"L2."});
    const swimlane::Analysis& a = result.analysis;
    r.usable = true;
    r.value = a.total_test_time_us;
    r.tasks = a.tasks;
    for (const auto& f : a.functions)
        r.kernels.push_back({f.name, f.count, f.exec_sum_us, f.exec_median_us});
    if (a.critical_path.available) {
        r.has_path = true;
        r.path_us = a.critical_path.length_us;
        r.path_kernel_us = a.critical_path.kernel_us;
        r.path_wait_us = a.critical_path.overhead_us;
        std::map<std::string, double> on_path;
        for (const auto& step : a.critical_path.tasks)
            on_path[kernel_of_label(step.label)] += step.end - step.start;
        r.path_kernels.assign(on_path.begin(), on_path.end());
        std::sort(r.path_kernels.begin(), r.path_kernels.end(),
                  [](const auto& x, const auto& y) { return x.second > y.second; });
        if (r.path_kernels.size() > 3) r.path_kernels.resize(3);
    }
}

void pmu_rank(RankResult& r, const rules::Catalogue& catalogue, const TreeOptions& options) {
    auto loaded = pmu::load_pmu(r.input, {}, r.diagnostics);
    if (!loaded) {
        r.diagnostics.error(loaded.error().file, loaded.error().line, loaded.error().message);
        return;
    }
    r.inputs = loaded->inputs;
    if (loaded->table.rows.empty()) {
        r.diagnostics.error(r.input, 0, "no usable pmu.csv rows; rank left out");
        return;
    }
    pmu::AnalyzeOptions pmu_options;
    pmu_options.aicore_mhz = options.aicore_mhz;
    auto analysis = pmu::analyze(loaded->table, loaded->names, pmu_options, r.diagnostics);
    rules::MetricStore store;
    pmu::publish_metrics(loaded->table, analysis, store);
    r.findings = rules::evaluate(catalogue, store, {"pmu."});
    r.usable = true;
    r.value = static_cast<double>(analysis.total_cycles);
    r.tasks = analysis.tasks;
    r.arch = fmt::format("{}, {} cores", pmu::to_string(loaded->table.header.arch), analysis.cores);
    for (const auto& k : analysis.kernels)
        r.kernels.push_back(
            {k.name, k.rows, static_cast<double>(k.total_cycles), k.p50_total_cycles});
    std::sort(r.kernels.begin(), r.kernels.end(),
              [](const KernelFigure& x, const KernelFigure& y) { return x.name < y.name; });
}

/// Ranks of different levels or architectures: said once, then compared anyway.
void check_mixed(Comparison& c) {
    std::map<std::string, std::vector<std::string>> by_arch;
    std::map<int, std::vector<std::string>> by_level;
    for (const RankResult& r : c.ranks) {
        if (!r.usable) continue;
        by_arch[r.arch].push_back(r.label);
        if (c.source == Source::Swimlane) by_level[r.level].push_back(r.label);
    }
    auto say = [&](const char* what, const auto& groups) {
        if (groups.size() < 2) return;
        std::vector<std::string> parts;
        for (const auto& [value, labels] : groups)
            parts.push_back(fmt::format(
                "{} on {}{}", value, labels.front(),
                labels.size() > 1 ? fmt::format(" and {} more", labels.size() - 1) : ""));
        c.gaps.push_back(
            fmt::format("ranks differ in {} ({}); compared as far as the figures "
                        "allow",
                        what, fmt::join(parts, "; ")));
    };
    say("level", by_level);
    say("architecture", by_arch);
}

template <class PerRank, class Prepare>
Comparison analyze_tree(const Tree& tree, Source source, const TreeOptions& options,
                        PerRank per_rank, Prepare prepare) {
    Comparison c;
    c.source = source;
    c.unit = source == Source::Swimlane ? "µs" : "cycles";
    c.measure = source == Source::Swimlane ? "makespan" : "Σ pmu_total_cycles";
    c.gaps = tree.gaps;
    std::vector<const RankCapture*> jobs;
    for (const RankCapture& capture : tree.captures) {
        const auto& file = source == Source::Swimlane ? capture.records : capture.pmu;
        if (file.empty()) {
            c.gaps.push_back(
                fmt::format("{}: no {}; left out", capture.label,
                            source == Source::Swimlane ? "chip_swimlane_records.json" : "pmu.csv"));
            continue;
        }
        jobs.push_back(&capture);
        c.ranks.push_back(start_result(capture, file));
    }
    prepare(c);
    parallel_for(
        jobs.size(), options.threads, [&](std::size_t i) { per_rank(c.ranks[i]); },
        fmt::format("ptune: {} ranks", jobs.size()));
    check_mixed(c);
    compare(c);
    return c;
}

double lower_median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[(v.size() - 1) / 2];
}

const KernelFigure* find_kernel(const RankResult& r, const std::string& name) {
    auto it =
        std::lower_bound(r.kernels.begin(), r.kernels.end(), name,
                         [](const KernelFigure& k, const std::string& n) { return k.name < n; });
    return it != r.kernels.end() && it->name == name ? &*it : nullptr;
}

std::string findings_list(const RankResult& r) {
    std::vector<std::string> ids;
    for (const auto& f : r.findings)
        if (f.severity != rules::RuleSeverity::Info &&
            std::find(ids.begin(), ids.end(), f.rule) == ids.end())
            ids.push_back(f.rule);
    return ids.empty() ? std::string("none") : fmt::format("{}", fmt::join(ids, ", "));
}

}  // namespace

namespace {

/// Pairs every dispatch's ranks with the host invocations of the tree's logs (§1.14); a dispatch
/// that cannot be paired is a gap, its ranks analysed unplaced.
void pair_tree(const Tree& tree, Comparison& c, std::deque<DispatchPairing>& storage,
               std::vector<RankPlacement>& placements) {
    placements.assign(c.ranks.size(), {});
    PlacementRequest request;
    request.root = tree.root;
    if (!has_host_logs(request)) return;
    std::vector<std::string> keys;
    for (const RankResult& r : c.ranks)
        if (std::find(keys.begin(), keys.end(), r.key) == keys.end()) keys.push_back(r.key);
    for (const std::string& key : keys) {
        std::vector<std::size_t> members;
        std::vector<swimlane::CaptureFiles> files;
        for (std::size_t i = 0; i < c.ranks.size(); ++i) {
            if (c.ranks[i].key != key) continue;
            members.push_back(i);
            swimlane::CaptureFiles f;
            f.records = c.ranks[i].input;
            f.rank = c.ranks[i].rank;
            f.label = c.ranks[i].label;
            files.push_back(std::move(f));
        }
        auto paired = pair_dispatch(files, {}, request, c.placement_diagnostics);
        if (!paired) {
            c.gaps.push_back(fmt::format("{}: ranks not placed on the host clock: {}", key,
                                         paired.error().message));
            continue;
        }
        const DispatchPairing& p = storage.emplace_back(std::move(*paired));
        for (std::size_t j = 0; j < members.size(); ++j)
            placements[members[j]] = {&p.windows[p.pairs[j].window], &p.logs, p.pairs[j]};
    }
}

/// The cross-rank uncertainty of each dispatch whose every rank was placed (§1.14).
void summarise_placement(Comparison& c) {
    std::vector<std::string> keys;
    for (const RankResult& r : c.ranks)
        if (std::find(keys.begin(), keys.end(), r.key) == keys.end()) keys.push_back(r.key);
    for (const std::string& key : keys) {
        std::vector<std::int64_t> slacks;
        bool all = true;
        for (const RankResult& r : c.ranks)
            if (r.key == key) {
                all = all && r.pairing && r.slack_ns >= 0;
                slacks.push_back(r.slack_ns);
            }
        if (all) c.placed_dispatches.emplace_back(key, cross_rank_uncertainty(slacks).value_or(-1));
    }
}

}  // namespace

Comparison analyze_swimlane_tree(const Tree& tree, const rules::Catalogue& catalogue,
                                 const TreeOptions& options) {
    swimlane::AnalyzeOptions analyze = swimlane::analyze_options(catalogue);
    std::deque<DispatchPairing> pairings;
    std::vector<RankPlacement> placements;
    const RankResult* first = nullptr;
    Comparison c = analyze_tree(
        tree, Source::Swimlane, options,
        [&](RankResult& r) {
            swimlane_rank(r, catalogue, analyze, placements[static_cast<std::size_t>(&r - first)]);
        },
        [&](Comparison& prepared) {
            pair_tree(tree, prepared, pairings, placements);
            first = prepared.ranks.data();
        });
    summarise_placement(c);
    return c;
}

Comparison analyze_pmu_tree(const Tree& tree, const rules::Catalogue& catalogue,
                            const TreeOptions& options) {
    return analyze_tree(
        tree, Source::Pmu, options, [&](RankResult& r) { pmu_rank(r, catalogue, options); },
        [](Comparison&) {});
}

void compare(Comparison& c) {
    c.dispatches.clear();
    for (RankResult& r : c.ranks)
        std::sort(r.kernels.begin(), r.kernels.end(),
                  [](const KernelFigure& x, const KernelFigure& y) { return x.name < y.name; });
    std::vector<std::string> keys;
    for (const RankResult& r : c.ranks)
        if (std::find(keys.begin(), keys.end(), r.key) == keys.end()) keys.push_back(r.key);
    for (const std::string& key : keys) {
        DispatchSummary d;
        d.key = key;
        for (std::size_t i = 0; i < c.ranks.size(); ++i)
            if (c.ranks[i].key == key && c.ranks[i].usable) d.members.push_back(i);
        if (d.members.empty()) continue;
        std::vector<std::size_t> by_value = d.members;
        std::stable_sort(by_value.begin(), by_value.end(), [&](std::size_t a, std::size_t b) {
            return c.ranks[a].value < c.ranks[b].value;
        });
        d.straggler = by_value.back();
        // Ties at the top go to the lowest rank, so the answer does not depend on the order.
        for (std::size_t i : by_value)
            if (c.ranks[i].value == c.ranks[d.straggler].value &&
                c.ranks[i].rank < c.ranks[d.straggler].rank)
                d.straggler = i;
        d.median_rank = by_value[(by_value.size() - 1) / 2];
        if (d.median_rank == d.straggler && by_value.size() > 1)
            d.median_rank = by_value[by_value.size() - 2];
        d.max = c.ranks[d.straggler].value;
        d.median = c.ranks[d.median_rank].value;
        d.min = c.ranks[by_value.front()].value;
        d.spread = d.max - d.min;
        d.imbalance_pct = d.median > 0 ? (d.max - d.median) / d.median * 100.0 : 0;
        const RankResult& s = c.ranks[d.straggler];
        const RankResult& m = c.ranks[d.median_rank];
        std::set<std::string> names;
        for (const auto& k : s.kernels) names.insert(k.name);
        for (const auto& k : m.kernels) names.insert(k.name);
        for (const std::string& name : names) {
            const KernelFigure* a = find_kernel(s, name);
            const KernelFigure* b = find_kernel(m, name);
            d.deltas.push_back({name, a ? a->total : 0, b ? b->total : 0});
        }
        std::stable_sort(d.deltas.begin(), d.deltas.end(),
                         [](const KernelDelta& x, const KernelDelta& y) {
                             return x.straggler - x.median > y.straggler - y.median;
                         });
        if (d.deltas.size() > 5) d.deltas.resize(5);
        c.dispatches.push_back(std::move(d));
    }
}

namespace {

/// The L3.* metrics of one comparison, per dispatch, waiting rank and rank-kernel; with
/// `only_if_absent` a subject already in the store is left alone.
class L3Publisher {
  public:
    L3Publisher(const Comparison& c, rules::MetricStore& store, bool only_if_absent)
        : c(c), store(store), only_if_absent(only_if_absent) {}

    bool fresh(std::string_view kind, const std::string& name) const {
        if (!only_if_absent) return true;
        return store.subjects().find({std::string(kind), name}) == store.subjects().end();
    }

    /// The dispatch: spread, straggler, and what makes it slower than the median rank.
    void dispatch(const DispatchSummary& d) {
        if (!fresh("dispatch", d.key)) return;
        const RankResult& s = c.ranks[d.straggler];
        const RankResult& m = c.ranks[d.median_rank];
        rules::Subject& subject = store.subject("dispatch", d.key);
        subject.metrics["L3.ranks"] = static_cast<double>(d.members.size());
        subject.metrics["L3.max"] = d.max;
        subject.metrics["L3.median"] = d.median;
        subject.metrics["L3.min"] = d.min;
        subject.metrics["L3.spread"] = d.spread;
        subject.metrics["L3.imbalance_pct"] = d.imbalance_pct;
        subject.metrics["L3.straggler.rank"] = s.rank;
        subject.labels["L3.unit"] = c.unit;
        subject.labels["L3.measure"] = c.measure;
        subject.labels["L3.straggler"] = s.label;
        subject.labels["L3.median_rank"] = m.label;
        subject.labels["L3.straggler_findings"] = findings_list(s);
        std::vector<std::string> parts;
        if (!d.deltas.empty() && d.deltas.front().straggler > d.deltas.front().median) {
            const KernelDelta& k = d.deltas.front();
            subject.labels["L3.kernel"] = k.name;
            subject.metrics["L3.kernel.straggler"] = k.straggler;
            subject.metrics["L3.kernel.median"] = k.median;
            parts.push_back(fmt::format("kernel {} takes {} {} in all on {} against {} on {}",
                                        k.name, stats::format_fixed(k.straggler, 1), c.unit,
                                        s.label, stats::format_fixed(k.median, 1), m.label));
        } else {
            subject.labels["L3.kernel"] = "none";
        }
        if (s.has_path && m.has_path) {
            std::vector<std::string> top;
            for (const auto& [name, us] : s.path_kernels)
                top.push_back(fmt::format("{} {} µs", name, stats::format_fixed(us, 1)));
            parts.push_back(fmt::format(
                "critical path {} µs ({} µs kernels: {}) against {} µs on "
                "the median rank",
                stats::format_fixed(s.path_us, 1), stats::format_fixed(s.path_kernel_us, 1),
                top.empty() ? std::string("-") : fmt::format("{}", fmt::join(top, ", ")),
                stats::format_fixed(m.path_us, 1)));
            subject.metrics["L3.path.straggler_us"] = s.path_us;
            subject.metrics["L3.path.median_us"] = m.path_us;
        }
        subject.labels["L3.difference"] = parts.empty() ? std::string("no kernel differs")
                                                        : fmt::format("{}", fmt::join(parts, "; "));
        subject.locations.push_back({s.input, 0, 0});
    }

    /// Rank waiting on others: its critical path is mostly waiting, far more than the median's.
    void rank_waits(const DispatchSummary& d) {
        std::vector<double> wait_pcts;
        for (std::size_t i : d.members)
            if (c.ranks[i].has_path && c.ranks[i].path_us > 0)
                wait_pcts.push_back(c.ranks[i].path_wait_us / c.ranks[i].path_us * 100.0);
        std::vector<double> waits;
        for (std::size_t i : d.members)
            if (c.ranks[i].has_path) waits.push_back(c.ranks[i].path_wait_us);
        double median_pct = lower_median(wait_pcts), median_wait = lower_median(waits);
        for (std::size_t i : d.members) {
            const RankResult& r = c.ranks[i];
            if (!r.has_path || r.path_us <= 0 || !fresh("rank", r.label)) continue;
            rules::Subject& subject = store.subject("rank", r.label);
            double pct = r.path_wait_us / r.path_us * 100.0;
            subject.metrics["L3.ranks"] = static_cast<double>(d.members.size());
            subject.metrics["L3.wait_pct"] = pct;
            subject.metrics["L3.wait_pct_median"] = median_pct;
            subject.metrics["L3.wait_excess_pct"] = pct - median_pct;
            subject.metrics["L3.wait_us"] = r.path_wait_us;
            subject.metrics["L3.wait_excess_us"] = r.path_wait_us - median_wait;
            subject.labels["L3.rank_findings"] = findings_list(r);
            subject.labels["L3.dispatch"] = d.key;
            subject.locations.push_back({r.input, 0, 0});
        }
    }

    /// One rank's kernel much slower than the same kernel on the other ranks.
    void rank_kernels(const DispatchSummary& d) {
        std::set<std::string> names;
        for (std::size_t i : d.members)
            for (const auto& k : c.ranks[i].kernels) names.insert(k.name);
        for (const std::string& name : names) {
            std::vector<std::pair<std::size_t, const KernelFigure*>> have;
            for (std::size_t i : d.members)
                if (const KernelFigure* k = find_kernel(c.ranks[i], name)) have.emplace_back(i, k);
            if (have.size() < 2) continue;
            for (const auto& [i, k] : have) {
                std::vector<double> medians, totals;
                for (const auto& [j, other] : have)
                    if (j != i) {
                        medians.push_back(other->median);
                        totals.push_back(other->total);
                    }
                double others_median = lower_median(medians);
                double others_total = lower_median(totals);
                const RankResult& r = c.ranks[i];
                std::string subject_name = fmt::format("{} {}", r.label, name);
                if (others_median <= 0 || k->median <= others_median ||
                    !fresh("rank-kernel", subject_name))
                    continue;
                rules::Subject& subject = store.subject("rank-kernel", subject_name);
                subject.metrics["L3.kernel.ratio"] = k->median / others_median;
                subject.metrics["L3.kernel.rank_median"] = k->median;
                subject.metrics["L3.kernel.others_median"] = others_median;
                subject.metrics["L3.kernel.excess"] = k->total - others_total;
                // Kernel time summed over blocks, so against the rank's kernel time, not its
                // makespan (for pmu.csv the two are the same Σ cycles).
                double rank_kernels = 0;
                for (const auto& any : r.kernels) rank_kernels += any.total;
                subject.metrics["L3.kernel.share_pct"] =
                    rank_kernels > 0 ? std::max(0.0, k->total - others_total) / rank_kernels * 100.0
                                     : 0;
                subject.labels["L3.unit"] = c.unit;
                subject.labels["L3.rank"] = r.label;
                subject.labels["L3.kernel"] = name;
                subject.labels["L3.dispatch"] = d.key;
                subject.labels["L3.rank_findings"] = findings_list(r);
                subject.locations.push_back({r.input, 0, 0});
            }
        }
    }

  private:
    const Comparison& c;
    rules::MetricStore& store;
    bool only_if_absent;
};

}  // namespace

void publish(const Comparison& c, rules::MetricStore& store, bool only_if_absent) {
    L3Publisher publisher(c, store, only_if_absent);
    for (const DispatchSummary& d : c.dispatches) publisher.dispatch(d);
    for (const DispatchSummary& d : c.dispatches) {
        if (d.members.size() < 2) continue;
        if (c.source == Source::Swimlane) publisher.rank_waits(d);
        publisher.rank_kernels(d);
    }
}

void report_diagnostics(const Tree& tree, const Comparison& c, Diagnostics& diagnostics) {
    for (const std::string& note : tree.notes) diagnostics.note(tree.root.string(), 0, note);
    for (const RankResult& r : c.ranks) diagnostics.append(r.diagnostics);
    diagnostics.append(c.placement_diagnostics);
    for (const std::string& gap : c.gaps) diagnostics.warn(tree.root.string(), 0, gap);
}

std::vector<std::string> inputs(const Comparison& c) {
    std::vector<std::string> out;
    for (const RankResult& r : c.ranks) out.insert(out.end(), r.inputs.begin(), r.inputs.end());
    return out;
}

}  // namespace ptune::l3
