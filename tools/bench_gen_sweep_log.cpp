// Generator of large synthetic benchmark logs for the bench-summary benchmark
// (tools/bench_summary_benchmark.sh, docs/PERFORMANCE.md "bench-summary").
//
//   bench_gen_sweep_log report SIZE_MB OUT   a daily-CI-like sweep: ::group:: per case,
//                                            task-submit framing, ~450 lines of compiler and
//                                            swimlane chatter, harness stage lines, a
//                                            headline (L2) or headline + ranks + slots + raw
//                                            + context (L3) per case (~30 KB per case)
//   bench_gen_sweep_log strace SIZE_MB OUT   one L2 benchmark capture: [STRACE] launches with
//                                            the full current span tree, as in
//                                            tests/data/bench/composed/l2_strace_w2_r6.log
//   bench_gen_sweep_log ci SIZE_MB OUT [--no-strace]
//                                            a daily-CI log of many small cases (issue #35,
//                                            ~5 KB a case, ~100,000 cases in 500 MB):
//                                            ::group:: per case, 20-60 chatter lines, an L2
//                                            headline (every 10th case L3: ranks and slots);
//                                            every other case the correctness run's host
//                                            spans (`chip.run.bind.*` [STRACE] records behind
//                                            the `[mono_ns=…][T0x…][TIMING] emit_host_span: `
//                                            prefix, as with SIMPLER_DEVICE_STRACE_ENABLE=1;
//                                            bench-log.md §1.13.1). --no-strace leaves them out.
//
// Deterministic (fixed seed), so figures are comparable between runs.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "random.hpp"

namespace {

using Random = ptune::synth::Xorshift64Star;

void write_report_case(std::string& out, std::size_t index, Random& random) {
    bool l3 = index % 5 == 0;
    double base = random.uniform(200.0, 90000.0);
    auto stats = [&](double center) {
        double min = center * random.uniform(0.95, 0.99);
        return fmt::format("min={:.1f} median={:.1f} mean={:.1f} max={:.1f}", min, center,
                           center * random.uniform(1.0, 1.03), center * random.uniform(1.05, 1.2));
    };
    out += fmt::format("::group::models/sweep_{:06d}/decode_fwd.py\n", index);
    out +=
        fmt::format("等待任务执行: task_20260821_213015_{} (Ctrl+C 终止任务)\n", 1000000 + index);
    out += "[npu-lock] 获取设备 3 的锁 (无超时)...\n[npu-lock] 已获取设备 3 的锁 (pid=1877350)\n";
    out +=
        "[decode_fwd] single-layer golden unit test | platform=a2a3 device=0 seq=varied seed=1234 "
        "seq_lens=[3512, 877, 2048, 129, 3500, 64, 1990, 3011, 15, 2700, 3499, 512, 1024, 256]\n";
    out += "[RUN] compile ...\n";
    // What makes real sweep logs large: compiler and runtime chatter around a few bench lines.
    for (int pass = 0; pass < 300; ++pass) {
        out += fmt::format(
            "2026-08-21 21:43:12.{:03d} I | [pass] {}: function decode_layer_{} done in {:.2f} "
            "ms\n",
            pass % 1000, pass % 3 ? "ConvertToSSA" : "InsertSync", pass % 40,
            random.uniform(0.01, 4.0));
    }
    out +=
        "[cpp->.so] no cpp edits since last build; reusing cached binaries\n"
        "[RUN] compile done (12.31s)\n[RUN] generate inputs ...\n"
        "[RUN] generate inputs done (2.05s)\n[RUN] compute golden ...\n[RUN] compute golden done "
        "(3.77s)\n"
        "[RUN] runtime ...\n";
    for (int task = 0; task < 120; ++task) {
        out += fmt::format("  task_{:<4d} qk_matmul_{:<3d} AIC {:>6d} {:>10.2f} {:>10.2f}\n", task,
                           task % 17, 128 + task, random.uniform(1.0, 40.0),
                           random.uniform(1.0, 60.0));
    }
    out +=
        "Total Test Time: 1016.66 us (from earliest dispatch to latest finish)\n"
        "[RUN] runtime done (4.02s)\n[RUN] benchmark ...\n[RUN] benchmark done (2.87s)\n";
    out += fmt::format("[RUN]   effective_us (100 rounds) {}\n", stats(base));
    if (l3) {
        for (int rank = 0; rank < 2; ++rank) {
            out += fmt::format("[RUN]     rank {}: eff_us {}\n", 3229451 + rank * 29,
                               stats(base * 0.99));
            out += fmt::format("[RUN]       slot 0 (prefill_fwd): eff_us {}\n", stats(base * 0.98));
            out +=
                fmt::format("[RUN]       slot 1 (lm_head_test): eff_us {}\n", stats(base * 0.01));
        }
        out += "[RUN]   raw samples: ranks=2 rounds=100 warmup=5\n";
        for (int rank = 0; rank < 2; ++rank) {
            out += fmt::format("[RUN]     rank {} raw n=200 eff_us=[", 3229451 + rank * 29);
            for (int i = 0; i < 200; ++i)
                out += fmt::format("{}{:.1f}", i ? ", " : "", base * random.uniform(0.0, 1.0));
            out += "]\n";
        }
        out += fmt::format(
            "[RUN] benchmark kernel=Sweep{} l3=1 rounds=100 ranks=2 host_union_mean_us={:.0f} "
            "host_mean_us={:.0f}\n",
            index, base * 1.1, base * 1.05);
    }
    out +=
        "[RUN] validate ...\n[RUN]   'out' PASS  shape=(16, 5120) dtype=torch.bfloat16\n"
        "[RUN] validate done (0.02s)\n[RUN] PASS (25.61s)\n[npu-lock] 已释放设备 3 的锁\n"
        "=== 任务完成 (exit=0) ===\n::endgroup::\n";
}

/// One small case of a daily-CI log (the `ci` mode): 20-60 chatter lines around one report.
void write_ci_case(std::string& out, std::size_t index, bool strace, Random& random) {
    static const char* const kOps[] = {"decode_fwd", "prefill_fwd", "qk_matmul", "moe_gate",
                                       "rms_norm",   "rope",        "softmax",   "alltoallv"};
    const char* op = kOps[index % 8];
    double base = random.uniform(8.0, 9000.0);
    // Every 7th case has a heavy tail (mean 8 % above the median): a bench.tail-contamination
    // finding, so the rules' output is part of what the benchmark compares.
    double tail = index % 7 == 3 ? 1.08 : 1.0;
    auto stats = [&](double center) {
        return fmt::format(
            "min={:.1f} median={:.1f} mean={:.1f} max={:.1f}", center * random.uniform(0.95, 0.99),
            center, center * tail * random.uniform(1.0, 1.03), center * random.uniform(1.1, 1.2));
    };
    out += fmt::format("::group::models/ci/{}_{:06d}.py\n", op, index);
    out += fmt::format("等待任务执行: task_20261204_0215{:02d}_{} (Ctrl+C 终止任务)\n", index % 60,
                       2000000 + index);
    out += "[npu-lock] 已获取设备 5 的锁 (pid=1877350)\n";
    out += fmt::format("[{}] golden unit test | platform=a2a3 device=5 seed={}\n", op, index % 97);
    out += "[RUN] compile ...\n";
    // 20-60 chatter lines a case in all: 11 fixed lines, the rest compiler passes and tasks.
    int chatter = 9 + static_cast<int>(random.next() % 41);
    for (int pass = 0; pass < chatter; ++pass) {
        out += fmt::format(
            "2026-12-04 02:15:{:02d}.{:03d} I | [pass] {}: function {}_{} done in {:.2f} ms "
            "(ir nodes {} -> {}, tile 16x128x64, peak mem {:.1f} MiB)\n",
            pass % 60, (index * 7 + static_cast<std::size_t>(pass)) % 1000,
            pass % 3 ? "ConvertToSSA" : "InsertSync", op, pass % 12, random.uniform(0.01, 4.0),
            1000 + pass * 13, 1003 + pass * 13, random.uniform(1.0, 99.0));
    }
    out += "[RUN] compile done (1.31s)\n[RUN] compute golden done (0.77s)\n[RUN] runtime ...\n";
    if (strace && index % 2 == 0) {
        // The correctness run's host spans: simpler prints them on stderr at the timing level.
        const std::uint64_t pid = 4121229 + index % 4096;
        std::int64_t ts = 7173140400597247 + static_cast<std::int64_t>(index) * 3000000;
        std::int64_t mono = ts + 100000;
        auto span = [&](int depth, const char* name, std::int64_t start, std::int64_t dur,
                        const char* attrs) {
            mono += 5000 + static_cast<std::int64_t>(random.next() % 20000);
            out += fmt::format(
                "[mono_ns={}][T0xfe56ca269020][TIMING] emit_host_span: [STRACE] v=1 pid={} "
                "tid={} inv=1 hid=ceef6ba9c67b9cde depth={} name={} ts={} dur={} {}\n",
                mono, pid, pid, depth, name, start, dur, attrs);
        };
        span(2, "chip.run.bind.args", ts + 73300, 90271 + static_cast<std::int64_t>(index % 977),
             "ntensor=6 staged=3 bytes=1048576");
        span(2, "chip.run.bind.prebuilt", ts + 187051, 4620, "");
        span(1, "chip.run.bind", ts + 44600, 153001, "");
    }
    out += fmt::format("[RUN]   effective_us (100 rounds) {}\n", stats(base));
    if (index % 10 == 5) {
        for (int rank = 0; rank < 2; ++rank) {
            out += fmt::format("[RUN]     rank {}: eff_us {}\n", 3229451 + rank * 29,
                               stats(base * 0.99));
            out += fmt::format("[RUN]       slot 0 ({}): eff_us {}\n", op, stats(base * 0.98));
            out +=
                fmt::format("[RUN]       slot 1 (lm_head_test): eff_us {}\n", stats(base * 0.01));
        }
        out += fmt::format(
            "[RUN] benchmark kernel={} l3=1 rounds=100 ranks=2 host_union_mean_us={:.0f} "
            "host_mean_us={:.0f}\n",
            op, base * 1.1, base * 1.05);
    }
    out +=
        "[RUN] validate done (0.02s)\n[RUN] PASS (5.61s)\n[npu-lock] 已释放设备 5 的锁\n"
        "=== 任务完成 (exit=0) ===\n::endgroup::\n";
}

void write_strace_launch(std::string& out, std::uint64_t inv, Random& random) {
    const std::uint64_t pid = 48213;
    std::int64_t ts = 918273646800 + static_cast<std::int64_t>(inv) * 2000000;
    auto record = [&](int depth, const char* name, std::int64_t start, std::int64_t dur,
                      const char* attrs) {
        out += fmt::format(
            "[mono_ns={}][T0xffff8a3f8540][TIMING] emit_host_span: [STRACE] v=1 pid={} tid={} "
            "inv={} "
            "hid=4a2e809168376aac depth={} name={} ts={} dur={} {}\n",
            ts + 900000, pid, pid, inv, depth, name, start, dur, attrs);
    };
    auto jitter = [&](double center) {
        return static_cast<std::int64_t>(center * random.uniform(0.97, 1.05));
    };
    record(2, "chip.run.bind.args", ts + 1800, jitter(22320), "");
    record(2, "chip.run.bind.prebuilt", ts + 24320, jitter(4438), "");
    record(1, "chip.run.bind", ts + 1500, jitter(29281), "");
    record(1, "chip.run.runner_run", ts + 31581, jitter(768549), "");
    record(1, "chip.run.validate", ts + 800530, jitter(40326), "");
    record(2, "chip.run.runner_run.device_wall", 0, jitter(737972), "clk=dev");
    record(3, "chip.run.runner_run.device_wall.preamble", 0, jitter(13677), "clk=dev");
    record(3, "chip.run.runner_run.device_wall.graph_build", 13677, jitter(715193), "clk=dev");
    record(3, "chip.run.runner_run.device_wall.config_validate", 13677, jitter(4573), "clk=dev");
    record(3, "chip.run.runner_run.device_wall.arena_wire", 18250, jitter(3430), "clk=dev");
    record(3, "chip.run.runner_run.device_wall.sm_reset", 21680, jitter(4590), "clk=dev");
    record(3, "chip.run.runner_run.device_wall.orch", 26270, jitter(386320), "clk=dev");
    record(3, "chip.run.runner_run.device_wall.sched", 26715, jitter(701955), "clk=dev");
    record(3, "chip.run.runner_run.device_wall.post_orch", 728870, jitter(9102), "clk=dev");
    record(1, "chip.run.claim_release", ts + 841000, jitter(1225), "");
    record(0, "chip.run", ts, jitter(843225),
           fmt::format("run_id={} dispatch_id=0 slot_id=0 generation=1 run_epoch=1", inv).c_str());
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    const bool no_strace = argc == 5 && std::string(argv[4]) == "--no-strace";
    if ((argc != 4 && !(no_strace && mode == "ci")) ||
        (mode != "report" && mode != "strace" && mode != "ci")) {
        std::fprintf(stderr, "usage: %s report|strace|ci SIZE_MB OUT [--no-strace (ci only)]\n",
                     argv[0]);
        return 2;
    }
    const bool report = mode != "strace";
    const std::uint64_t target = std::strtoull(argv[2], nullptr, 10) << 20;
    std::ofstream file(argv[3], std::ios::binary);
    if (!file) {
        std::fprintf(stderr, "cannot write %s\n", argv[3]);
        return 2;
    }
    Random random;
    std::string chunk;
    std::uint64_t written = 0;
    std::uint64_t items = 0;
    while (written < target) {
        chunk.clear();
        for (int i = 0; i < 64; ++i, ++items) {
            if (mode == "ci")
                write_ci_case(chunk, items, !no_strace, random);
            else if (report)
                write_report_case(chunk, items, random);
            else
                write_strace_launch(chunk, items + 1, random);
        }
        file.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        written += chunk.size();
    }
    std::fprintf(stderr, "%s: %llu %s, %llu MB\n", argv[3], static_cast<unsigned long long>(items),
                 report ? "cases" : "launches", static_cast<unsigned long long>(written >> 20));
    return file ? 0 : 1;
}
