// Synthetic September-2026 host log for the host-log benchmark (tools/host_log_bench.sh,
// docs/PERFORMANCE.md "bench-summary: large host logs").
//   host_log_gen MB OUT [PID]
// Writes a `host.<pid>.log` of about MB megabytes (upstream-2026-09.md §2): a CLOCK_ANCHOR,
// a `chip.prewarm.build` setup span, then invocation after invocation with every line family
// of §2.7: hbg bind segment spans with quantity attrs, `host-orch phase=` cost shares, the
// `chip.run.bind` span, runner_run / device_wall / device sub-phases (clk=dev), validate and
// claim_release, the root `chip.run` with its identity; every 16th invocation a collector
// warning and a 512-byte record cut to 510 bytes + `~`, every 32nd an L3 scheduler `node.*`
// span, a `[chip_process … ] ready` line, two records glued on one physical line and a torn
// `[STRACE]` record, every 64th legacy `bind phase=` lines, every 4096th a `[HOSTLOG_DROPS]`
// line with a growing total (and one at the end). Deterministic: the same arguments give the
// same bytes.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

namespace {

constexpr const char* kSegments[] = {"args",       "arena_build",    "static_arena", "gm_heap",
                                     "shared_mem", "runtime_init",   "host_orch",    "graph_upload",
                                     "arena_h2d",  "host_view_close"};
constexpr const char* kOrchKinds[] = {"submit_task",      "alloc_tensors",        "graph_submit",
                                      "build_definition", "record_in_graph_task", "graph_begin",
                                      "recording_wait",   "graph_commit"};

class Writer {
  public:
    Writer(std::FILE* out, std::uint64_t pid) : out_(out), pid_(pid) {}

    std::uint64_t bytes() const { return bytes_; }

    void line(const std::string& text) {
        std::fputs(text.c_str(), out_);
        std::fputc('\n', out_);
        bytes_ += text.size() + 1;
    }

    std::string envelope(const char* level, const char* func) {
        mono_ += 350;
        return fmt::format("[mono_ns={}][T0xfe56ca269020][{}] {}: ", mono_, level, func);
    }

    std::string span(std::uint64_t inv, int depth, const std::string& name, std::int64_t ts,
                     std::int64_t dur, const std::string& attrs) {
        return fmt::format(
            "[STRACE] v=1 pid={} tid={} inv={} hid=9c41e07a2b6d5f13 depth={} "
            "name={} ts={} dur={} {}",
            pid_, pid_, inv, depth, name, ts, dur, attrs);
    }

    void emit_span(std::uint64_t inv, int depth, const std::string& name, std::int64_t ts,
                   std::int64_t dur, const std::string& attrs) {
        line(envelope("TIMING", "emit_host_span") + span(inv, depth, name, ts, dur, attrs));
    }

    void invocation(std::uint64_t inv) {
        const std::int64_t root = 7230954940000000 + static_cast<std::int64_t>(inv) * 1000000;
        std::int64_t ts = root + 6000;
        std::int64_t bind_dur = 0;
        for (std::size_t s = 0; s < std::size(kSegments); ++s) {
            std::int64_t dur = 900 + static_cast<std::int64_t>((inv * 7 + s * 13) % 50) * 100;
            emit_span(inv, 2, std::string("chip.run.bind.") + kSegments[s], ts, dur,
                      fmt::format("bytes={} minflt={} nvcsw={}", 4096 << (s % 8), 12 + s, s % 3));
            ts += dur;
            bind_dur += dur;
        }
        for (std::size_t k = 0; k < std::size(kOrchKinds); ++k)
            line(envelope("TIMING", "report_host_phase_breakdown") +
                 fmt::format("[host_phase_trace.cpp:212] host-orch phase={} total_ns={} count={} "
                             "detail_sum={} dropped=0",
                             kOrchKinds[k], 300 + (inv + k) % 40 * 100, k % 4, k == 3 ? 3 : 0));
        emit_span(inv, 1, "chip.run.bind", root + 5000, bind_dur + 1000, "");
        emit_span(inv, 1, "chip.run.runner_run", ts + 10000, 30000, "");
        emit_span(inv, 2, "chip.run.runner_run.aicpu_launch", ts + 10500, 0, "");
        emit_span(inv, 2, "chip.run.runner_run.device_wall", 0, 12000, "clk=dev");
        emit_span(inv, 3, "chip.run.runner_run.device_wall.preamble", 0, 500, "clk=dev");
        emit_span(inv, 3, "chip.run.runner_run.device_wall.sched", 600, 9000, "clk=dev");
        emit_span(inv, 1, "chip.run.validate", ts + 41000, 2000, "");
        if (inv % 16 == 0) {
            line(envelope("WARN", "copy_aicore_buffer") +
                 "[chip_swimlane_collector.cpp:689] Core 2: skipped 3 AICore record slot(s) with "
                 "start_time=0 (race-window write or recycled-buffer tail). buf seq=0 count=1024");
            // A record over the 512-byte cap: its first 510 bytes, then `~` (§2.2).
            std::string cut = envelope("WARN", "check_buffer_aliasing") +
                              "[runtime_maker.cpp:1184] tensor arg 3 of task t17 shares a buffer "
                              "with arg 1 of task t12 ";
            while (cut.size() < 510) cut += "(shape=[16, 4096, 128] strides=[524288, 128, 1]) ";
            cut.resize(510);
            line(cut + "~");
        }
        if (inv % 32 == 0) {
            emit_span(0, 0, "node.scheduler_loop", root, 90000,
                      "role=scheduler drained=4 dispatched=4 drain_ns=1200 spins=17");
            line(fmt::format("[chip_process pid={} dev=0] ready", pid_ + 1));
            // Two whole records on one physical line, then a torn one (cut mid-grammar).
            line(envelope("TIMING", "emit_host_span") +
                 span(inv, 1, "chip.run.claim_release", ts + 44000, 600, "") +
                 envelope("INFO", "poll") + "[worker.cpp:77] idle");
            line(envelope("TIMING", "emit_host_span") +
                 fmt::format("[STRACE] v=1 pid={} tid={} inv={} hid=9c41e0", pid_, pid_, inv));
        } else {
            emit_span(inv, 1, "chip.run.claim_release", ts + 44000, 600, "");
        }
        if (inv % 64 == 0)
            for (std::size_t s = 0; s < 3; ++s)
                line(envelope("TIMING", "bind_breakdown") +
                     fmt::format("[bind_trace.cpp:88] bind phase={} start_ns={} dur_ns={} "
                                 "bytes=4096",
                                 kSegments[s], root + static_cast<std::int64_t>(s) * 1000, 900));
        emit_span(inv, 0, "chip.run", root, 140000,
                  fmt::format("run_id={} dispatch_id={} slot_id=0 generation=1 run_epoch={}", inv,
                              inv, inv));
        if (inv % 4096 == 0) drops(inv / 4096 * 5);
    }

    void drops(std::uint64_t total) {
        std::uint64_t added = total - last_total_;
        last_total_ = total;
        line(envelope("ERROR", "host_log_drops") +
             fmt::format("[HOSTLOG_DROPS] v=1 pid={} new={} total={} queue_full={} "
                         "claim_exhausted={} output_failed=0 not_admitted=0",
                         pid_, added, total, total - total / 5, total / 5));
    }

    void start() {
        line(
            fmt::format("[mono_ns={}][T0xfe56ca269020][TIMING] clock_anchor: [CLOCK_ANCHOR] v=1 "
                        "pid={} mono_ns={} wall_ns=1789026867076015257",
                        mono_, pid_, mono_ - 20));
        emit_span(0, 0, "chip.prewarm.build", 7230954930000000, 5000000, "");
    }

    std::uint64_t last_total() const { return last_total_; }

  private:
    std::FILE* out_;
    std::uint64_t pid_;
    std::uint64_t bytes_ = 0;
    std::int64_t mono_ = 7230954849000000;
    std::uint64_t last_total_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s MB OUT [PID]\n", argv[0]);
        return 2;
    }
    const std::uint64_t target = std::strtoull(argv[1], nullptr, 10) << 20;
    const std::uint64_t pid = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 3810442;
    std::FILE* out = std::fopen(argv[2], "wb");
    if (out == nullptr) {
        std::perror(argv[2]);
        return 2;
    }
    Writer writer(out, pid);
    writer.start();
    std::uint64_t inv = 1;
    while (writer.bytes() < target) writer.invocation(inv++);
    writer.drops(writer.last_total() + 7);
    if (std::fclose(out) != 0) {
        std::perror(argv[2]);
        return 2;
    }
    std::fprintf(stderr, "%s: %llu invocations, %llu bytes\n", argv[2],
                 static_cast<unsigned long long>(inv - 1),
                 static_cast<unsigned long long>(writer.bytes()));
    return 0;
}
