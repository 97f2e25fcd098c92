#pragma once
/// @file model.hpp
/// The typed model of PyPTO benchmark results (spec: bench-log.md) and the one loader every
/// bench command uses. A *case* is one benchmarked program (a CI case such as
/// `models/qwen3_14b/decode_fwd.py`, a `name=path` label or a file name); it holds every bench
/// block found for it, in input order. The last block with a headline is the case's CI number.
///
/// Inputs the loader accepts: captured logs with `[RUN]` report lines and/or `[STRACE]` markers,
/// directories of such logs, daily-CI `results.tsv` files and `ptune bench-summary --format json`
/// outputs. This API is stable: bench-gate builds on it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ptune/bench/task_slots.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"

namespace ptune::bench {

/// Where a number came from.
enum class Origin {
    Report,      ///< `[RUN]` lines printed by the pypto-lib harness
    Strace,      ///< recomputed by ptune from `[STRACE]` markers
    ResultsTsv,  ///< a daily-CI `results.tsv` row (mean only)
    Json,        ///< a `ptune bench-summary --format json` output read back
    DeviceLog,   ///< recomputed from legacy device-log orch/sched lines (before [STRACE])
    CiResult,    ///< a daily-CI raw-result.json / report.md or an operator suite-result.json
};

/// "report", "strace", "results.tsv", "json", "device-log", "ci-result".
const char* to_string(Origin origin);

/// A place in an input file (1-based line; 0 when the whole file is meant).
struct SourceRef {
    std::string file;
    std::size_t line = 0;
};

/// "file:line", or the file alone when the whole file is meant.
std::string to_string(const SourceRef& source);

/// The four statistics of an `effective_us` / `eff_us` line over positive samples (µs).
struct Summary {
    /// Number of positive samples, the `(N rounds)` of a headline; 0 when not printed (rank
    /// and slot lines of a report).
    std::size_t rounds = 0;
    double min = 0.0;
    double median = 0.0;
    double mean = 0.0;
    double max = 0.0;
    /// True when only `mean` is known (a results.tsv row); the other fields are then 0.
    bool mean_only = false;
};

/// One `slot k (task): eff_us ...` line: the k-th dispatch of a rank within each round.
struct Slot {
    std::size_t slot = 0;
    std::string name;               ///< orchestration name or hex hid; empty when unlabelled
    std::optional<Summary> eff_us;  ///< nullopt for `(no timing)`
};

/// One `rank <pid>: eff_us ...` line (L3). The rank is the chip worker's OS pid, not an index.
struct Rank {
    std::uint64_t rank = 0;
    std::optional<Summary> eff_us;  ///< nullopt for `(no timing)`
    std::vector<Slot> slots;        ///< present only when some rank dispatches more than once
    /// Old 2026-07-07..07-22 second column `device_wall_us mean=.. max=..`, when printed.
    std::optional<double> device_wall_mean_us;
    std::optional<double> device_wall_max_us;
    SourceRef source;
};

/// The raw-sample lines of one block (`PYPTO_BENCH_RAW`): per pid, every measured dispatch's
/// Effective in dispatch order, zeros kept.
struct RawSamples {
    std::size_t ranks = 0;   ///< pids present (the real count, even in the fallback)
    std::size_t rounds = 0;  ///< declared measured rounds
    std::size_t warmup = 0;  ///< declared warmup launches
    bool fallback_flattened = false;
    std::map<std::uint64_t, std::vector<double>> per_rank;  ///< pid -> values (µs), pid ascending
};

/// The L3 context line `[RUN] benchmark kernel=K l3=1|l3_resident=1 rounds=R ranks=n ...`.
struct Context {
    std::string kernel;     ///< program name, or "unknown"
    bool resident = false;  ///< `l3_resident=1` (else `l3=1`, or neither on old shapes)
    std::optional<std::size_t> rounds;
    std::optional<std::size_t> ranks;  ///< 0 in the flatten fallback
    std::optional<double> host_union_mean_us;
    std::optional<double> host_mean_us;
    bool fallback_flattened = false;
    /// Every key=value token as printed, including old keys (device_wall_mean_us, mean_us...).
    std::map<std::string, std::string> fields;
    SourceRef source;
};

/// Where a loop fact of a `[STRACE]` recomputation came from.
enum class FactSource {
    Flag,      ///< given on the command line
    Log,       ///< printed by the harness or read off the markers (pids, sentinels, launches)
    Inferred,  ///< follows from what the log shows (e.g. rounds = launches - warmup)
    Default,   ///< pypto-lib's default (warmup 5, rounds 100, L2, not resident), not confirmed
    Assumed,   ///< neither shown nor the default (the default cannot fit the launches)
};

/// "flag", "log", "inferred", "default", "assumed".
const char* to_string(FactSource source);

/// One loop fact, its source and why it has that value (empty for flags).
template <class T>
struct LoopFact {
    T value{};
    FactSource source = FactSource::Default;
    std::string why;
};

/// The loop a `[STRACE]` recomputation assumed: upstream's numbers depend on it, and the markers
/// alone often cannot tell it (bench-log.md §2.1, §2.3).
struct LoopFacts {
    LoopFact<std::size_t> warmup;
    LoopFact<std::size_t> rounds;
    LoopFact<bool> distributed;  ///< L3 (per-rank rounds) instead of L2
    LoopFact<bool> resident;     ///< L3 resident path

    /// One line naming every fact with its source, e.g. `L3 (log: 2 chip-worker pids with
    /// device_wall), resident no (default), warmup 1 (assumed: ...), rounds 3 (inferred: ...)`.
    std::string describe() const;
};

/// One bench block: a headline (or its `unavailable` note) with the lines that belong to it.
struct BenchBlock {
    std::optional<Summary> effective_us;     ///< the headline; nullopt when unavailable/absent
    std::optional<std::string> unavailable;  ///< reason of `effective_us unavailable: ...`
    bool fast_variant = false;               ///< headline was `fast_effective_us` (07-13..07-22)
    /// `V/T` of the 07-15..07-22 fast headline's trailing `valid_rounds=V/T`, as printed.
    std::optional<std::string> valid_rounds;
    bool singular_round = false;  ///< the headline said `(N round)` (a fast form)
    std::vector<Rank> ranks;      ///< pid ascending as printed
    std::optional<RawSamples> raw;
    std::optional<Context> context;
    Origin origin = Origin::Report;
    SourceRef source;  ///< the headline's line (or the first line of the block)
    /// Declared loop sizes when known (raw header, context line or the loader's options).
    std::optional<std::size_t> declared_rounds;
    std::optional<std::size_t> declared_warmup;
    /// Skip / interrupted / env-knob / benchmark-unavailable notes seen in this block.
    std::vector<std::string> notes;
    /// The loop a recomputation from `[STRACE]` markers used, with the source of each fact.
    std::optional<LoopFacts> loop_facts;
    /// The task-timing slot windows printed after the raw block (upstream-2026-12.md §1.7).
    TaskSlots task_slots;
    /// The headline upstream quotes is the summary's median, not its mean (a one-card daily-CI
    /// case, the operator suite's metric_us): what `history add` records.
    bool headline_is_median = false;

    /// True when the block carries a headline line (numbers or `unavailable`).
    bool has_headline() const { return effective_us.has_value() || unavailable.has_value(); }
};

/// A benchmarked case with all its blocks in input order.
struct BenchCase {
    std::string name;
    SourceRef source;                   ///< the file (and line where the case starts)
    std::optional<std::string> status;  ///< "pass"/"fail" from results.tsv, when known
    std::vector<BenchBlock> blocks;
    /// Notes about the case that belong to no block (e.g. "no benchmark lines").
    std::vector<std::string> notes;
    /// The seed and validation sentinels of its lines (upstream-2026-12.md §1.7: `[PERF]
    /// deterministic_seed ..`, `[RUN] fixture seed=..`, `[VALIDATION] mode=..`), as printed
    /// (trimmed): context, not data, as a daily-CI run.log's (ciresult::RunLogFacts).
    std::vector<std::string> sentinels;
    /// Named after its file only: no `NAME=PATH` label, `--case` or CI group gave the name.
    bool named_from_file = false;

    /// The block that gives the CI number: the last one with a numeric headline (as daily CI's
    /// grep), else the last `unavailable` one; nullptr when no block has a headline.
    const BenchBlock* ci_block() const;
    /// The CI number (headline `mean=` of ci_block()), nullopt when there is none.
    std::optional<double> ci_mean() const;
};

/// pypto-lib's defaults of PYPTO_BENCH_WARMUP and PYPTO_BENCH_ROUNDS (bench-log.md §2.1).
inline constexpr std::size_t kDefaultWarmup = 5;
inline constexpr std::size_t kDefaultRounds = 100;

/// The loop the harness ran, as far as the user knows it (bench-summary flags `--warmup
/// --rounds --distributed --resident --kernel --raw`). A fact left unset is taken from the log
/// (harness lines, marker structure), inferred from it, or else the pypto-lib default; the
/// block's LoopFacts say which. Set facts always win.
struct StraceOptions {
    std::optional<std::size_t> warmup;
    std::optional<std::size_t> rounds;
    std::optional<bool> distributed;  ///< L3 (per-rank rounds) instead of L2
    std::optional<bool> resident;     ///< L3 resident path (`l3_resident=1`); implies L3
    std::string kernel = "unknown";   ///< kernel name for the L3 context line
    bool raw = false;                 ///< also produce raw samples (PYPTO_BENCH_RAW)
};

/// Options of load_bench_inputs().
struct LoadOptions {
    /// Case name for inputs without a `name=path` label and without CI groups; empty means
    /// the file name (without extension).
    std::string case_name;
    StraceOptions strace;
    /// Recompute a report from `[STRACE]` markers when a case has no `[RUN]` report lines.
    bool recompute_from_strace = true;
    /// Called every few MiB while a log is read (`done` bytes of `total`, 0 for stdin) and
    /// once more with done == total when the file is finished; may be empty.
    std::function<void(const std::string& path, std::size_t done, std::size_t total)> progress;
};

/// Loads every input named in `paths_or_labels`: a file, a directory (searched recursively
/// for *.log, *.txt, results.tsv and bench-summary *.json), `-` for stdin, or `name=path` to
/// set the case name. Cases keep input order; cases of the same name from different inputs
/// stay separate entries. Bad lines become warnings in `diagnostics` (file:line) and the rest
/// is kept. Fails (exit 2) only when an input cannot be opened, or when nothing usable
/// remains; a log without benchmark lines yields a case with no blocks and a note.
Result<std::vector<BenchCase>> load_bench_inputs(const std::vector<std::string>& paths_or_labels,
                                                 const LoadOptions& options,
                                                 Diagnostics& diagnostics);

/// Receives each case as soon as its input has been read past it.
using CaseSink = std::function<void(BenchCase&&)>;

/// load_bench_inputs() without the vector: every case goes to `sink` in the same order with the
/// same diagnostics and errors, so a caller that keeps only a digest of each case (bench-gate)
/// never holds the cases of a large log.
Status for_each_bench_case(const std::vector<std::string>& paths_or_labels,
                           const LoadOptions& options, Diagnostics& diagnostics,
                           const CaseSink& sink);

/// A reader of inputs another domain owns (ciresult: daily-CI and operator-suite results):
/// nullopt when `path` is not its kind, else the status after handing its cases to the sink.
/// for_each_bench_case() asks every registered reader before reading a path itself.
using InputReader = std::function<std::optional<Status>(
    const std::string& path, Diagnostics& diagnostics, const CaseSink& sink)>;

/// Registers `reader` under `name` (a second registration of the name replaces the first).
void register_input_reader(const std::string& name, InputReader reader);

/// Runs the registered readers on `path` (the first that claims it); nullopt when none does.
std::optional<Status> read_registered_input(const std::string& path, Diagnostics& diagnostics,
                                            const CaseSink& sink);

}  // namespace ptune::bench
