// The subcommand table: adding a command is one file in commands/ and one row here.

#include "cli/command.hpp"
#include "cli/commands/commands.hpp"

namespace ptune::cli {

namespace {

using FailOn = rules::RuleSeverity;

// One row per command, laid out to be read as a table. The severity before the factory is
// the exit policy: findings at or above it mean exit 1. bench-gate fails on its own verdicts
// instead (GateResult::failed; its rule findings are advice); swimlane-merge, advise and
// rules report.
// clang-format off
const std::vector<CommandSpec> kCommandTable = {
        {"bench-summary", {"bench"},
         "Summarise benchmark logs: effective_us per case, rank and slot; recompute from [STRACE]",
         "  ptune bench run.log\n"
         "  ptune bench-summary --format json logs/ results.tsv > summary.json\n"
         "  ptune bench-summary --case models/qwen3_14b/decode_fwd.py --format markdown run.log\n"
         "  ptune bench-summary --format run --warmup 2 --rounds 6 --raw strace.log\n"
         "  ptune bench-summary --format run --warmup 1 --rounds 3 --distributed --kernel PrefillFwd l3.log\n",
         {"text", "json", "csv", "markdown", "run"}, true, true, FailOn::Error, &make_bench_summary},
        {"bench-gate", {},
         "CI gate on mean effective_us regression against a baseline (exit 1 on regression)",
         "  ptune bench-gate --baseline base.log --current run.log\n"
         "  ptune bench-gate --baseline history/ --current results.tsv --format github\n"
         "  ptune bench-gate -b b1.json b2.json -c run.log --metric median --config gate.json\n"
         "  ptune bench-gate -b base.json -c run.log --save-baseline next.json  (docs/BENCH-GATE.md)\n"
         "  ptune bench-gate -b .github/perf_baselines/qwen3_14b_decode.json -c dfx_outputs/  (perf_guard)\n",
         {"text", "json", "markdown", "github", "gab-json"}, true, true, std::nullopt, &make_bench_gate},
        {"swimlane-merge", {},
         "Merge swimlane records, deps.json and kernel names into a Perfetto trace",
         "  ptune swimlane-merge dfx_outputs/ -o trace.json\n"
         "  ptune swimlane-merge chip_swimlane_records.json --deps deps.json -o trace.json.gz\n"
         "  ptune swimlane-merge build_output/ -o trace.pftrace --format proto\n"
         "  ptune swimlane-merge dfx_outputs/ --overhead -o trace.json   (idle/ready counters, pid 2)\n"
         "  ptune swimlane-merge build_output/case/dfx_outputs/ --align start -o l3.json.gz   (rank*/d*/)\n"
         "  ptune swimlane-merge records.json --format json        (statistics only, as JSON)\n"
         "  ptune swimlane-merge dfx_outputs/ --dispatch-id 1:0 --flows block -o l3.json\n"
         "Formats: perfetto = JSON trace to -o (.gz compresses) + the converter's summary on stdout;\n"
         "proto = Perfetto protobuf trace to -o; json = statistics as JSON (trace too with -o);\n"
         "text = summary (trace too with -o).\n",
         {"perfetto", "proto", "json", "text"}, false, true, std::nullopt, &make_swimlane_merge},
        {"swimlane-analyze", {},
         "Find schedule problems (guide Part 1) in swimlane records: idle cores, tails, trails",
         "  ptune swimlane-analyze build_output/Qwen3_20260701_120000/dfx_outputs/\n"
         "  ptune swimlane-analyze chip_swimlane_records.json --deps deps.json --names name_map.json\n"
         "  ptune swimlane-analyze dfx_outputs/ --format json -o schedule.json\n"
         "  ptune swimlane-analyze dfx_outputs/ --dispatch d0   (L3 rank*/d*/: the straggler, docs/L3.md)\n"
         "Exit 1 when an L2 rule fires (kernels-too-small, kernel-too-big, cube-vector-split,\n"
         "dispatch-trail, serial-chain).\n",
         {"text", "json", "markdown"}, true, true, FailOn::Warning, &make_swimlane_analyze},
        {"mem-report", {},
         "Read memory_after_AllocateMemoryAddr.txt (v1-v3) or rebuild it from the pass dump; "
         "say which space to re-tile",
         "  ptune mem-report build_output/            (the newest run's report, else its pass dump)\n"
         "  ptune mem-report passes_dump/13_after_AllocateMemoryAddr.py --format html -o map.html\n"
         "  ptune mem-report build_output/Qwen3_20260701_120000/ --format markdown\n"
         "  ptune mem-report report/memory_after_AllocateMemoryAddr.txt --format json\n"
         "  ptune mem-report old_report.txt --backend a5   (limits printed as N/A)\n"
         "  ptune mem-report report/ --rules thresholds.json   (e.g. mem.underfilled-mat max_pct)\n",
         {"text", "json", "markdown", "csv", "html"}, true, true, FailOn::Warning, &make_mem_report},
        {"hints-lint", {},
         "Lint perf_hints.log as compiler diagnostics (gcc, json, sarif, github)",
         "  ptune hints-lint build_output/\n"
         "  ptune hints-lint --root . --format sarif -o hints.sarif build_output/\n"
         "  ptune hints-lint --root . --format github build_output/\n"
         "  ptune hints-lint --root . --write-baseline .ptune-hints-baseline.json build_output/\n"
         "  ptune hints-lint --root . --baseline .ptune-hints-baseline.json build_output/\n"
         "Suppress one hint in the kernel source with '# ptune: ignore[PH001]'.\n",
         {"gcc", "json", "sarif", "github"}, true, true, FailOn::Warning, &make_hints_lint},
        {"pmu-analyze", {},
         "Name each kernel's bottleneck pipe from pmu.csv (exit 1 when a warning rule fires)",
         "  ptune pmu-analyze build_output/Qwen3_20260701_120000/dfx_outputs/pmu.csv\n"
         "  ptune pmu-analyze dfx_outputs/pmu.csv --names dfx_outputs/name_map_Qwen3.json --rows\n"
         "  ptune pmu-analyze dfx_outputs/ -k kernel_config.py --format json\n"
         "  ptune pmu-analyze pmu.csv --aicore-mhz 1800 --format csv -o kernels.csv\n",
         {"text", "json", "csv", "markdown"}, true, true, FailOn::Warning, &make_pmu_analyze},
        {"scope-stats", {},
         "Ring window, heap, dep pool and tensormap pressure per scope from scope_stats.jsonl",
         "  ptune scope-stats dfx_outputs/scope_stats/scope_stats.jsonl\n"
         "  ptune scope-stats build_output/Qwen3_20260901_120000/dfx_outputs/ --format markdown\n"
         "  ptune scope-stats scope_stats.jsonl --host-log dfx_outputs/host.3810442.log   (507018)\n"
         "  ptune scope-stats dfx_outputs/ --top 20 --format json\n",
         {"text", "json", "markdown"}, true, true, FailOn::Error, &make_scope_stats},
        {"pipe-trace", {},
         "Per-pipe busy time, overlap and exposed load of one kernel's core swimlane trace",
         "  ptune pipe-trace outputs/core_swimlane_TestQK_case1_a2a3sim_qk_mix0_20261201_120000/\n"
         "  ptune pipe-trace qk_trace_perfetto.json --n-blocks 4 --format json\n",
         {"text", "json", "markdown", "csv"}, true, true, FailOn::Warning, &make_pipe_trace},
        {"serving-trace", {},
         "Per-worker task statistics, the straggler and the device lanes of a serving trace",
         "  ptune serving-trace serving-strace-swimlane.json\n"
         "  ptune serving-trace serving-strace-swimlane.json --format json\n",
         {"text", "json", "markdown", "csv"}, true, true, std::nullopt, &make_serving_trace},
        {"advise", {},
         "Read a whole build directory and rank what to tune first",
         "  ptune advise build_output/\n"
         "  ptune advise build_output/ --log run.log --format html -o report.html\n",
         {"text", "markdown", "json", "html"}, true, true, std::nullopt, &make_advise},
        {"history", {},
         "Performance history per case: record runs, find change points (when it got slower)",
         "  ptune history add run.log --commit $(git rev-parse HEAD) --branch main\n"
         "  ptune history add results-a2a3/results.tsv --commit abc123 --toolchain cann-8.1 --meta ci=nightly\n"
         "  ptune history list\n"
         "  ptune history show models/qwen3_14b/prefill_fwd.py --format html -o prefill.html\n"
         "  ptune history changes\n"
         "  ptune history export --format gab-json -o data.json\n"
         "  ptune history --db postgresql://ci@db/perf changes   (docs/HISTORY.md)\n",
         {"text", "json", "csv", "markdown", "html", "svg", "gab-json"}, false, true, std::nullopt, &make_history},
        {"rules", {},
         "List or explain the rules of the catalogue (ptune rules list | explain ID)",
         "  ptune rules list\n"
         "  ptune rules explain mem.over-limit\n"
         "  ptune rules list --rules my-thresholds.json --format json\n",
         {"text", "json", "markdown"}, true, true, std::nullopt, &make_rules},
};
// clang-format on

}  // namespace

const std::vector<CommandSpec>& command_table() {
    return kCommandTable;
}

}  // namespace ptune::cli
