// Synthetic captures for swimlane-analyze: a list scheduler over a2a3-like hardware (24 AIC +
// 48 AIV cores, 3 AICPU scheduler threads owning cores round-robin) that records what the
// runtime would: per-block AICore/AICPU rows and per-thread dispatch/complete phases.

#include "analyze_synth.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <map>
#include <random>

#include <fmt/format.h>

namespace ptune::swimlane::synth {

namespace {

constexpr int kAicCores = 24;
constexpr int kAivCores = 48;
constexpr int kThreads = 3;
constexpr std::uint64_t kClockHz = 50'000'000;            // a2a3
constexpr std::uint64_t kBaseCycles = 4'320'000'000'000;  // a day of uptime, like real captures
constexpr std::uint64_t kRing = 1;

// Latencies of the dispatch path (µs), close to the composed fixture's.
constexpr double kPropagationUs = 0.6;  // dispatch → AICore receive
constexpr double kLocalSetupUs = 0.2;   // receive → start
constexpr double kFinUs = 0.4;          // end → AICPU observes FIN

enum class Kind { Aic, Aiv, Mix };  // Mix: per block one AIC row (func_id) and one AIV row

struct Task {
    int func_id = 0;  // Mix: the AIC kernel; the AIV kernel is func_id + 1
    Kind kind = Kind::Aiv;
    int blocks = 1;
    double exec_us = 0;  // nominal kernel time per block (jittered by ±5 %)
    std::vector<std::size_t> preds;
};

struct Workload {
    std::string name;
    std::map<int, std::string> functions;
    std::vector<Task> tasks;
    double dispatch_cost_us = 0.3;  // scheduler time per dispatched block
    double complete_cost_us = 0.2;  // scheduler time per completed task
};

// Busy intervals of one scheduler thread, kept merged so a reservation skips whole busy runs.
class Calendar {
  public:
    /// Books `length` µs at the first free time ≥ `earliest`; returns its start.
    double reserve(double earliest, double length) {
        double start = earliest;
        auto it = busy_.upper_bound(start);
        if (it != busy_.begin() && std::prev(it)->second > start) start = std::prev(it)->second;
        while (it != busy_.end() && it->first < start + length) {
            start = std::max(start, it->second);
            ++it;
        }
        busy_[start] = start + length;
        auto node = busy_.find(start);
        if (auto next = std::next(node); next != busy_.end() && next->first <= node->second) {
            node->second = std::max(node->second, next->second);
            busy_.erase(next);
        }
        if (node != busy_.begin()) {
            auto prev = std::prev(node);
            if (prev->second >= node->first) {
                prev->second = std::max(prev->second, node->second);
                busy_.erase(node);
            }
        }
        return start;
    }

  private:
    std::map<double, double> busy_;
};

struct Row {
    int core = 0;
    int func_id = 0;
    std::size_t task = 0;
    double dispatch = 0, start = 0, end = 0, finish = 0;
};

struct Phase {
    bool dispatch = true;
    double start = 0, end = 0;
};

struct Schedule {
    std::vector<Row> rows;
    std::array<std::vector<Phase>, kThreads> phases;
};

int core_thread(int core) {
    return core % kThreads;
}
int first_core(Kind kind) {  // Mix never reaches here: its parts are Aic and Aiv
    return kind == Kind::Aic ? 0 : kAicCores;
}
int core_count(Kind kind) {
    return kind == Kind::Aic ? kAicCores : kAivCores;
}

Schedule simulate(const Workload& work, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto jitter = [&]() { return 0.95 + 0.1 * static_cast<double>(rng() >> 11) * 0x1.0p-53; };
    Schedule schedule;
    std::array<Calendar, kThreads> threads;
    std::vector<double> core_free(kAicCores + kAivCores, 0.0);
    std::vector<double> resolved(work.tasks.size(), 0.0);  // when successors may be dispatched
    for (std::size_t t = 0; t < work.tasks.size(); ++t) {
        const Task& task = work.tasks[t];
        double ready = 0;
        for (std::size_t p : task.preds) ready = std::max(ready, resolved[p]);
        double last_finish = 0;
        int last_core = 0;
        std::vector<std::pair<Kind, int>> parts = {{task.kind, task.func_id}};
        if (task.kind == Kind::Mix)
            parts = {{Kind::Aic, task.func_id}, {Kind::Aiv, task.func_id + 1}};
        for (int b = 0; b < task.blocks; ++b)
            for (auto [kind, func] : parts) {
                int base = first_core(kind);
                auto begin = core_free.begin() + base;
                int core = base + static_cast<int>(
                                      std::min_element(begin, begin + core_count(kind)) - begin);
                int thread = core_thread(core);
                double phase_start = threads[thread].reserve(std::max(ready, core_free[core]),
                                                             work.dispatch_cost_us);
                Row row;
                row.core = core;
                row.func_id = func;
                row.task = t;
                row.dispatch = phase_start + work.dispatch_cost_us;
                row.start = row.dispatch + kPropagationUs + kLocalSetupUs;
                row.end = row.start + task.exec_us * jitter();
                row.finish = row.end + kFinUs;
                core_free[core] = row.finish;
                schedule.phases[thread].push_back({true, phase_start, row.dispatch});
                schedule.rows.push_back(row);
                if (row.finish >= last_finish) {
                    last_finish = row.finish;
                    last_core = core;
                }
            }
        int thread = core_thread(last_core);
        double complete_start = threads[thread].reserve(last_finish, work.complete_cost_us);
        schedule.phases[thread].push_back(
            {false, complete_start, complete_start + work.complete_cost_us});
        resolved[t] = complete_start + work.complete_cost_us;
    }
    return schedule;
}

Task make(int func, Kind kind, double exec_us, int blocks = 1,
          std::vector<std::size_t> preds = {}) {
    return Task{func, kind, blocks, exec_us, std::move(preds)};
}

// `stages` stages of ~80 µs SPMD work on every core, functions 0 (cube) and 1 (vector); each
// stage needs both tasks of the stage before. Returns the last stage's task indices.
std::vector<std::size_t> add_full_chip_stages(std::vector<Task>& tasks, std::size_t stages) {
    std::vector<std::size_t> previous;
    for (std::size_t stage = 0; stage < stages; ++stage) {
        std::vector<std::size_t> current;
        current.push_back(tasks.size());
        tasks.push_back(make(0, Kind::Aic, 80.0, kAicCores, previous));
        current.push_back(tasks.size());
        tasks.push_back(make(1, Kind::Aiv, 80.0, kAivCores, previous));
        previous = current;
    }
    return previous;
}

Workload build(Scenario scenario, std::size_t scale, std::size_t tasks_wanted = 0,
               double slow_factor = 1.0) {
    Workload w;
    w.name = fmt::format("Synth_{}", to_string(scenario));
    auto& tasks = w.tasks;
    switch (scenario) {
        case Scenario::SmallKernels:
            // Many independent tiny kernels of four functions: the AICPU cannot keep up.
            w.functions = {{0, "rope"}, {1, "rmsnorm"}, {2, "silu"}, {3, "residual_add"}};
            w.dispatch_cost_us = 0.5;
            w.complete_cost_us = 0.3;
            for (std::size_t i = 0; i < 2000 * scale; ++i)
                tasks.push_back(make(static_cast<int>(i % 4), Kind::Aiv, 2.0));
            break;
        case Scenario::LongTail: {
            // Eight stages of full-chip SPMD work, then one huge kernel on one core.
            w.functions = {{0, "attn_matmul"}, {1, "attn_softmax"}, {2, "lm_head_reduce"}};
            auto last_stage = add_full_chip_stages(tasks, 8 * scale);
            tasks.push_back(make(2, Kind::Aiv, 5000.0, 1, std::move(last_stage)));
            break;
        }
        case Scenario::SerialChain:
            // A pl.range over an independent dimension: every task waits for the one before.
            w.functions = {{0, "decode_step"}};
            for (std::size_t i = 0; i < 400 * scale; ++i) {
                tasks.push_back(make(0, Kind::Aiv, 60.0, 1,
                                     i == 0 ? std::vector<std::size_t>{} : std::vector{i - 1}));
            }
            break;
        case Scenario::DispatchTrail:
            // One region dispatching one kernel per iteration, at 1 µs of AICPU time each.
            w.functions = {{0, "q_proj_chunk"}};
            w.dispatch_cost_us = 1.0;
            for (std::size_t i = 0; i < 48 * scale; ++i) tasks.push_back(make(0, Kind::Aiv, 60.0));
            break;
        case Scenario::CubeVectorSplit:
            // Each matmul (cube) and its cast epilogue (vector) are separate kernels.
            w.functions = {{0, "q_proj_matmul"}, {1, "q_proj_cast"}};
            for (std::size_t i = 0; i < 120 * scale; ++i) {
                tasks.push_back(make(0, Kind::Aic, 80.0));
                tasks.push_back(make(1, Kind::Aiv, 40.0, 1, {tasks.size() - 1}));
            }
            break;
        case Scenario::Healthy: {
            // ~80 µs SPMD kernels on every core; each stage needs both tasks of the stage before.
            w.functions = {{0, "ffn_matmul"}, {1, "ffn_activation"}};
            add_full_chip_stages(tasks, 12 * scale);
            break;
        }
        case Scenario::Moe: {
            // gate (cube) → SPMD expert matmul → SPMD combine of both, stage after stage; no
            // one-to-one cube→vector hand-off, so a healthy rank has no finding of its own.
            w.functions = {{0, "gate_topk"}, {1, "expert_gemm"}, {2, "combine"}};
            std::size_t stages = std::max<std::size_t>(1, (tasks_wanted ? tasks_wanted : 300) / 3);
            std::vector<std::size_t> previous;
            for (std::size_t stage = 0; stage < stages; ++stage) {
                std::size_t gate = tasks.size();
                tasks.push_back(make(0, Kind::Aic, 20.0, 1, previous));
                std::size_t gemm = tasks.size();
                tasks.push_back(make(1, Kind::Aic, 60.0 * slow_factor, 8, {gate}));
                tasks.push_back(make(2, Kind::Aiv, 30.0, 8, {gate, gemm}));
                previous = {gemm, tasks.size() - 1};
            }
            break;
        }
        case Scenario::SpmdMix: {
            // Mixed attention blocks: two independent chains of SPMD mix tasks, joined at the end.
            w.functions = {{0, "qk_matmul"}, {1, "qk_softmax"}, {2, "pv_matmul"}, {3, "pv_scale"}};
            std::vector<std::size_t> heads;
            for (std::size_t chain = 0; chain < 2; ++chain) {
                std::vector<std::size_t> previous;
                for (std::size_t i = 0; i < 6 * scale; ++i) {
                    tasks.push_back(
                        make(static_cast<int>(2 * (i % 2)), Kind::Mix, 40.0, 16, previous));
                    previous = {tasks.size() - 1};
                }
                heads.push_back(previous.front());
            }
            tasks.push_back(make(0, Kind::Mix, 20.0, 4, heads));
            break;
        }
    }
    return w;
}

std::uint64_t cycles(double us) {
    return kBaseCycles + static_cast<std::uint64_t>(std::llround(us * 50.0));
}
std::uint64_t task_id(std::size_t t) {
    return (kRing << 32) | t;
}

void write_records(const Schedule& schedule, std::ostream& out) {
    out << "{\n  \"chip_swimlane_level\": 3,\n  \"metadata\": {\n    \"clock_freq_hz\": "
        << kClockHz << ",\n    \"num_cores\": " << kAicCores + kAivCores
        << ",\n    \"core_types\": [";
    for (int c = 0; c < kAicCores + kAivCores; ++c)
        out << (c ? ", " : "") << (c < kAicCores ? "\"aic\"" : "\"aiv\"");
    out << "],\n    \"core_to_thread\": [";
    for (int c = 0; c < kAicCores + kAivCores; ++c) out << (c ? ", " : "") << core_thread(c);
    out << "]\n  },\n";
    // Rows are grouped by core as the collector writes them; reg_task_id counts per core.
    std::vector<std::size_t> by_core(schedule.rows.size());
    for (std::size_t i = 0; i < by_core.size(); ++i) by_core[i] = i;
    std::stable_sort(by_core.begin(), by_core.end(), [&](std::size_t a, std::size_t b) {
        return schedule.rows[a].core < schedule.rows[b].core;
    });
    std::vector<std::uint32_t> reg(by_core.size());
    for (std::size_t k = 0, counter = 0; k < by_core.size(); ++k) {
        if (k > 0 && schedule.rows[by_core[k]].core != schedule.rows[by_core[k - 1]].core)
            counter = 0;
        reg[k] = static_cast<std::uint32_t>(++counter);
    }
    out << "  \"aicore_tasks\": [";
    for (std::size_t k = 0; k < by_core.size(); ++k) {
        const Row& r = schedule.rows[by_core[k]];
        std::uint64_t start = cycles(r.start);
        std::uint64_t receive = cycles(r.start - kLocalSetupUs);
        out << (k ? ",\n    " : "\n    ")
            << fmt::format("[{}, {}, {}, {}, {}, {}]", r.core, task_id(r.task), reg[k], start,
                           cycles(r.end), start - receive);
    }
    out << "\n  ],\n  \"aicpu_tasks\": [";
    for (std::size_t k = 0; k < by_core.size(); ++k) {
        const Row& r = schedule.rows[by_core[k]];
        out << (k ? ",\n    " : "\n    ")
            << fmt::format("[{}, {}, {}, {}]", r.core, reg[k], cycles(r.dispatch),
                           cycles(r.finish));
    }
    out << "\n  ],\n  \"aicpu_scheduler_phases\": [";
    for (int thread = 0; thread <= kThreads; ++thread) {
        out << (thread ? ",\n    [" : "\n    [");
        // The last array is the orchestrator thread's empty slot, as on device.
        if (thread < kThreads) {
            auto phases = schedule.phases[thread];
            std::stable_sort(phases.begin(), phases.end(),
                             [](const Phase& a, const Phase& b) { return a.end < b.end; });
            for (std::size_t k = 0; k < phases.size(); ++k) {
                const Phase& p = phases[k];
                out << (k ? ",\n      " : "\n      ")
                    << fmt::format(
                           "{{\"kind\": \"{}\", \"start_cycles\": {}, \"end_cycles\": {}, "
                           "\"loop_iter\": {}, "
                           "\"tasks_processed\": 1, ",
                           p.dispatch ? "dispatch" : "complete", cycles(p.start), cycles(p.end),
                           k + 1)
                    << (p.dispatch ? "\"pop_hit\": 1, \"pop_miss\": 0, " : "")
                    << "\"shared_at_start\": [0,0,0], \"shared_at_end\": [0,0,0]}";
            }
            if (!phases.empty()) out << "\n    ";
        }
        out << "]";
    }
    out << "\n  ]\n}\n";
}

void write_deps(const Workload& work, std::ostream& out) {
    out << "{\"tasks\":[";
    for (std::size_t t = 0; t < work.tasks.size(); ++t) {
        const Task& task = work.tasks[t];
        int aic = task.kind != Kind::Aiv ? task.func_id : -1;
        int aiv = task.kind == Kind::Aiv   ? task.func_id
                  : task.kind == Kind::Mix ? task.func_id + 1
                                           : -1;
        out << (t ? "," : "")
            << fmt::format(
                   "{{\"task_id\":\"{}\",\"scope\":\"auto\",\"early_dispatch\":false,\"kernel_"
                   "ids\":[{},{},-1],"
                   "\"block_num\":{},\"args\":[]}}",
                   task_id(t), aic, aiv, task.blocks);
    }
    out << "],\"tensors\":[],\"edges\":[";
    bool first = true;
    for (std::size_t t = 0; t < work.tasks.size(); ++t) {
        for (std::size_t p : work.tasks[t].preds) {
            out << (first ? "" : ",")
                << fmt::format(
                       "{{\"pred\":\"{}\",\"succ\":\"{}\",\"arg\":-1,\"source\":\"explicit\","
                       "\"flags\":[\"wait\"]}}",
                       task_id(p), task_id(t));
            first = false;
        }
    }
    out << "]}\n";
}

// pmu.csv rows in the collector's per-core order, cycles at 1800 MHz; the main pipe busy 85 %
// (compute-bound, so a healthy rank has no warning of its own).
void write_pmu(const Schedule& schedule, std::ostream& out) {
    out << "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,vec_busy_cycles,"
           "cube_busy_cycles,scalar_busy_cycles,mte1_busy_cycles,mte2_busy_cycles,"
           "mte3_busy_cycles,icache_miss,icache_req,event_type\n";
    std::vector<std::size_t> by_core(schedule.rows.size());
    for (std::size_t i = 0; i < by_core.size(); ++i) by_core[i] = i;
    std::stable_sort(by_core.begin(), by_core.end(), [&](std::size_t a, std::size_t b) {
        return schedule.rows[a].core < schedule.rows[b].core;
    });
    for (std::size_t i : by_core) {
        const Row& r = schedule.rows[i];
        bool aic = r.core < kAicCores;
        auto total = static_cast<std::uint64_t>(std::llround((r.end - r.start) * 1800.0));
        std::uint64_t main = total * 85 / 100, mte2 = total * 4 / 10;
        out << fmt::format("{},{},0x{:016x},{},{},{},{},{},{},{},{},{},{},{},2\n",
                           core_thread(r.core), r.core, task_id(r.task), r.func_id, aic ? 0 : 1,
                           total, aic ? 0 : main, aic ? main : 0, total / 10, aic ? total / 5 : 0,
                           mte2, aic ? 0 : total / 5, 2, 400);
    }
}

void write_name_map(const Workload& work, std::ostream& out) {
    out << "{\n  \"level\": 2,\n  \"orchestrator_name\": \"" << work.name
        << "\",\n  \"callable_id_to_name\": {";
    bool first = true;
    for (const auto& [id, name] : work.functions) {
        out << (first ? "\n    " : ",\n    ") << fmt::format("\"{}\": \"{}\"", id, name);
        first = false;
    }
    out << "\n  }\n}\n";
}

}  // namespace

const std::vector<Scenario>& all_scenarios() {
    static const std::vector<Scenario> kAll = {
        Scenario::SmallKernels,  Scenario::LongTail,        Scenario::SerialChain,
        Scenario::DispatchTrail, Scenario::CubeVectorSplit, Scenario::Healthy,
        Scenario::Moe,           Scenario::SpmdMix};
    return kAll;
}

std::string_view to_string(Scenario scenario) {
    switch (scenario) {
        case Scenario::SmallKernels:
            return "small-kernels";
        case Scenario::LongTail:
            return "long-tail";
        case Scenario::SerialChain:
            return "serial-chain";
        case Scenario::DispatchTrail:
            return "dispatch-trail";
        case Scenario::CubeVectorSplit:
            return "cube-vector-split";
        case Scenario::Healthy:
            return "healthy";
        case Scenario::Moe:
            return "moe";
        case Scenario::SpmdMix:
            return "spmd-mix";
    }
    return "healthy";
}

std::optional<Scenario> parse_scenario(std::string_view name) {
    for (Scenario s : all_scenarios()) {
        if (to_string(s) == name) return s;
    }
    return std::nullopt;
}

Summary write_capture(const Options& options, std::ostream& records, std::ostream& deps,
                      std::ostream& name_map) {
    Workload work = build(options.scenario, std::max<std::size_t>(options.scale, 1), options.tasks,
                          options.slow_factor);
    Schedule schedule = simulate(work, options.seed);
    write_records(schedule, records);
    if (options.pmu) write_pmu(schedule, *options.pmu);
    write_deps(work, deps);
    write_name_map(work, name_map);
    Summary summary;
    summary.tasks = work.tasks.size();
    summary.rows = schedule.rows.size();
    for (const auto& task : work.tasks) summary.edges += task.preds.size();
    for (const auto& phases : schedule.phases) summary.phases += phases.size();
    return summary;
}

}  // namespace ptune::swimlane::synth
