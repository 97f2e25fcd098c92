// swimlane_gen: writes a synthetic chip swimlane capture of any size for benchmarks and tests.
//
//   swimlane_gen --tasks N --out DIR [--arch a2a3|a5] [--level 1..4] [--seed S]
//                [--spmd-every K] [--mix-every K] [--no-deps] [--no-core-to-thread]
//
// DIR receives chip_swimlane_records.json (byte layout of the C++ collector: one row per line,
// rows grouped by core), deps.json (one compact line, ids as strings) and
// name_map_Synthetic.json. The schedule is a list schedule on the arch's cores: every task
// depends on one or two recent tasks, runs on the earliest free core(s) of its type; every
// K-th task is SPMD over 4 AIV cores, every K-th a MIX task (AIC + 2 AIV). a2a3: 24 AIC + 48 AIV
// at 50 MHz, 3 scheduler threads (4 arrays); a5: 36 AIC + 72 AIV at 1 GHz, 4 threads (5 arrays).
// Deterministic for a given seed. Used by tools/swimlane_bench.sh and by swimlane-analyze tests.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace {

struct Options {
    std::uint64_t tasks = 1000;
    std::string out;
    std::string arch = "a2a3";
    int level = 4;
    std::uint64_t seed = 1;
    std::uint64_t spmd_every = 10;
    std::uint64_t mix_every = 7;
    bool deps = true;
    bool core_to_thread = true;
};

struct Row {
    std::uint64_t token;
    std::uint32_t reg;
    std::uint64_t receive, start, end, dispatch, finish;
};

struct Phase {
    std::uint64_t start, end;
    bool complete;
    std::uint64_t loop_iter;
};

int usage(const char* message) {
    std::cerr
        << "swimlane_gen: " << message << "\n"
        << "usage: swimlane_gen --tasks N --out DIR [--arch a2a3|a5] [--level 1..4] [--seed S]\n"
           "                    [--spmd-every K] [--mix-every K] [--no-deps] "
           "[--no-core-to-thread]\n";
    return 2;
}

bool parse(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        const char* v = nullptr;
        if (arg == "--no-deps")
            o.deps = false;
        else if (arg == "--no-core-to-thread")
            o.core_to_thread = false;
        else if ((v = value()) == nullptr)
            return false;
        else if (arg == "--tasks")
            o.tasks = std::strtoull(v, nullptr, 10);
        else if (arg == "--out")
            o.out = v;
        else if (arg == "--arch")
            o.arch = v;
        else if (arg == "--level")
            o.level = std::atoi(v);
        else if (arg == "--seed")
            o.seed = std::strtoull(v, nullptr, 10);
        else if (arg == "--spmd-every")
            o.spmd_every = std::strtoull(v, nullptr, 10);
        else if (arg == "--mix-every")
            o.mix_every = std::strtoull(v, nullptr, 10);
        else
            return false;
    }
    return !o.out.empty() && o.tasks > 0 && o.level >= 1 && o.level <= 4 &&
           (o.arch == "a2a3" || o.arch == "a5");
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, o)) return usage("bad or missing arguments");
    const bool a5 = o.arch == "a5";
    const std::uint32_t aic = a5 ? 36 : 24, aiv = 2 * aic, cores = aic + aiv;
    const std::uint64_t freq = a5 ? 1'000'000'000ull : 50'000'000ull;
    const std::uint32_t threads = a5 ? 4 : 3, arrays = threads + 1;
    // Cycle costs scaled so a5 (1 GHz) and a2a3 (50 MHz) schedules look alike in µs.
    const std::uint64_t tick = a5 ? 20 : 1;
    std::mt19937_64 rng(o.seed);
    auto uniform = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };

    std::vector<std::vector<Row>> per_core(cores);
    std::vector<std::uint64_t> core_free(cores, 0);
    std::vector<std::uint32_t> core_reg(cores, 0);
    std::vector<std::uint64_t> task_end(o.tasks, 0);
    std::vector<std::vector<Phase>> phases(arrays);
    std::vector<std::string> orch_lines;
    std::string deps_tasks, deps_edges;
    const std::uint64_t base = 4'320'000'000'000ull * (a5 ? 20 : 1);
    std::uint64_t orch_clock = base;
    auto thread_of = [&](std::uint32_t core) { return core % threads; };

    for (std::uint64_t t = 0; t < o.tasks; ++t) {
        const std::uint64_t token = (1ull << 32) | t;
        // Task shape: SPMD over 4 AIV, MIX (AIC + 2 AIV), else alternating AIC / AIV.
        bool spmd = o.spmd_every && t % o.spmd_every == o.spmd_every - 1;
        bool mix = !spmd && o.mix_every && t % o.mix_every == o.mix_every - 1;
        int kernel_ids[3] = {-1, -1, -1};
        std::vector<std::uint32_t> want;  // 0 = an AIC core, 1 = an AIV core
        if (spmd)
            want = {1, 1, 1, 1}, kernel_ids[1] = 1;
        else if (mix)
            want = {0, 1, 1}, kernel_ids[0] = 2, kernel_ids[1] = 3;
        else if (t % 2 == 0)
            want = {0}, kernel_ids[0] = 0;
        else
            want = {1}, kernel_ids[1] = 4;
        // Dependencies on one or two recent tasks.
        std::vector<std::uint64_t> preds;
        if (t > 0) preds.push_back(t - 1 - rng() % std::min<std::uint64_t>(t, 8));
        if (t > 4 && rng() % 2) preds.push_back(t - 1 - rng() % std::min<std::uint64_t>(t, 32));
        std::sort(preds.begin(), preds.end());
        preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
        std::uint64_t ready = 0;
        for (auto p : preds) ready = std::max(ready, task_end[p]);
        // Orchestrator submit record, sequential.
        std::uint64_t submit_start = orch_clock, submit_end = orch_clock + uniform(10, 40) * tick;
        orch_clock = submit_end;
        orch_lines.push_back(
            fmt::format("      {{\"submit_idx\": {}, \"task_id\": {}, \"start_cycles\": {}, "
                        "\"end_cycles\": {}}}",
                        t, token, submit_start, submit_end));
        ready = std::max(ready, submit_end - base);
        std::uint64_t exec = uniform(50, 2000) * tick;
        std::uint64_t latest_end = 0;
        std::vector<std::uint32_t> used;
        for (std::uint32_t kind : want) {
            std::uint32_t lo = kind == 0 ? 0 : aic, hi = kind == 0 ? aic : cores;
            std::uint32_t best = lo;
            for (std::uint32_t c = lo; c < hi; ++c)
                if (std::find(used.begin(), used.end(), c) == used.end() &&
                    (std::find(used.begin(), used.end(), best) != used.end() ||
                     core_free[c] < core_free[best]))
                    best = c;
            used.push_back(best);
            std::uint64_t dispatch = std::max(ready, core_free[best]) + uniform(2, 20) * tick;
            std::uint64_t receive = dispatch + uniform(20, 40) * tick;
            std::uint64_t start = receive + 10 * tick;
            std::uint64_t end = start + exec + uniform(0, 40) * tick;
            std::uint64_t finish = end + uniform(10, 30) * tick;
            core_free[best] = finish;
            latest_end = std::max(latest_end, end);
            per_core[best].push_back({token, ++core_reg[best], base + receive, base + start,
                                      base + end, base + dispatch, base + finish});
            std::uint32_t th = thread_of(best);
            phases[th].push_back(
                {base + dispatch - 2 * tick, base + dispatch + 2 * tick, false, t});
            phases[th].push_back({base + finish - 1 * tick, base + finish + 4 * tick, true, t});
        }
        task_end[t] = latest_end;
        if (o.deps) {
            if (!deps_tasks.empty()) deps_tasks += ',';
            deps_tasks += fmt::format(
                R"({{"task_id":"{}","scope":"auto","early_dispatch":false,"kernel_ids":[{},{},{}],"block_num":{},"args":[]}})",
                token, kernel_ids[0], kernel_ids[1], kernel_ids[2], spmd ? 4 : 1);
            for (auto p : preds) {
                if (!deps_edges.empty()) deps_edges += ',';
                deps_edges += fmt::format(
                    R"({{"pred":"{}","succ":"{}","arg":0,"source":"tensormap","flags":["wait"]}})",
                    (1ull << 32) | p, token);
            }
        }
    }

    std::filesystem::create_directories(o.out);
    std::ofstream rec(std::filesystem::path(o.out) / "chip_swimlane_records.json");
    rec << "{\n  \"chip_swimlane_level\": " << o.level
        << ",\n  \"metadata\": {\n    \"clock_freq_hz\": " << freq
        << ",\n    \"num_cores\": " << cores << ",\n    \"core_types\": [";
    for (std::uint32_t c = 0; c < cores; ++c)
        rec << (c ? ", " : "") << (c < aic ? "\"aic\"" : "\"aiv\"");
    rec << "]";
    if (o.core_to_thread && o.level >= 3) {
        rec << ",\n    \"core_to_thread\": [";
        for (std::uint32_t c = 0; c < cores; ++c) rec << (c ? ", " : "") << thread_of(c);
        rec << "]";
    }
    rec << "\n  },\n  \"aicore_tasks\": [";
    bool first = true;
    for (std::uint32_t c = 0; c < cores; ++c)
        for (const Row& r : per_core[c]) {
            rec << (first ? "\n    " : ",\n    ")
                << fmt::format("[{}, {}, {}, {}, {}, {}]", c, r.token, r.reg, r.start, r.end,
                               r.start - r.receive);
            first = false;
        }
    rec << "\n  ],\n  \"aicpu_tasks\": [";
    first = true;
    if (o.level >= 2)
        for (std::uint32_t c = 0; c < cores; ++c)
            for (const Row& r : per_core[c]) {
                rec << (first ? "\n    " : ",\n    ")
                    << fmt::format("[{}, {}, {}, {}]", c, r.reg, r.dispatch, r.finish);
                first = false;
            }
    rec << "\n  ]";
    if (o.level >= 3) {
        rec << ",\n  \"aicpu_scheduler_phases\": [";
        for (std::uint32_t th = 0; th < arrays; ++th) {
            auto& list = phases[th];
            std::sort(list.begin(), list.end(),
                      [](const Phase& a, const Phase& b) { return a.end < b.end; });
            rec << (th ? ",\n    [" : "\n    [");
            for (std::size_t i = 0; i < list.size(); ++i) {
                const Phase& p = list[i];
                rec << (i ? ",\n      " : "\n      ")
                    << fmt::format(
                           R"({{"kind": "{}", "start_cycles": {}, "end_cycles": {}, "loop_iter": {}, "tasks_processed": 1, )",
                           p.complete ? "complete" : "dispatch", p.start, p.end, p.loop_iter);
                if (!p.complete) rec << "\"pop_hit\": 1, \"pop_miss\": 0, ";
                rec << R"("shared_at_start": [0,1,0], "shared_at_end": [0,0,0]})";
            }
            rec << (list.empty() ? "]" : "\n    ]");
        }
        rec << "\n  ]";
    }
    if (o.level >= 4) {
        rec << ",\n  \"aicpu_orchestrator_phases\": [\n    [\n";
        for (std::size_t i = 0; i < orch_lines.size(); ++i)
            rec << orch_lines[i] << (i + 1 < orch_lines.size() ? ",\n" : "\n");
        rec << "    ]\n  ]";
    }
    rec << "\n}\n";
    if (o.deps) {
        std::ofstream deps(std::filesystem::path(o.out) / "deps.json");
        deps << "{\"tasks\":[" << deps_tasks << "],\"tensors\":[],\"edges\":[" << deps_edges
             << "]}\n";
    }
    std::ofstream names(std::filesystem::path(o.out) / "name_map_Synthetic.json");
    names
        << R"({"level": 2, "orchestrator_name": "Synthetic", "callable_id_to_name": {"0": "QK", "1": "SF", "2": "PV_cube", "3": "PV_vec", "4": "UP"}})"
        << "\n";
    return rec.good() ? 0 : 1;
}
