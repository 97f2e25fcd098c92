#pragma once
/// @file pipeline.hpp
/// The history domain's entry points, shared by `ptune history` and `bench-gate --history`:
/// inputs → a run to record (build_run, through the bench pipeline's load_run) → the store;
/// the store → per-case series → change points (analyse, cached and incremental) → what the
/// commands print (changes, gate baselines, exports).

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ptune/bench/model.hpp"
#include "ptune/bench/pipeline.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/history/changepoint.hpp"
#include "ptune/history/model.hpp"
#include "ptune/history/store.hpp"
#include "ptune/render/report.hpp"

namespace ptune::history {

/// What `history add` knows about a run besides its inputs.
struct RunMeta {
    std::string commit;  ///< required
    std::string branch;
    std::string toolchain;
    std::string device;  ///< empty: the platform the input paths name (results-a2a3/...), if any
    std::string source_digest;  ///< the source tree; empty: source.tree of a lane suite
    /// Identity parts (docs/HISTORY.md "Identity"); empty: taken from a lane suite-result.json
    /// or journal among the inputs (lane_id, contract, per-case contract_id), else none.
    std::string lane;
    std::string contract;
    std::string lineage;
    std::map<std::string, std::string> labels;
    std::string time;    ///< ISO 8601 UTC; empty: now
    std::string run_id;  ///< empty: the run is identified by its content digest
    /// Loop facts for `[STRACE]` recomputation the log does not print (history add --warmup…).
    bench::StraceOptions loop;
};

/// Normalises a time to `YYYY-MM-DDTHH:MM:SSZ`. Accepts `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS]`
/// with an optional `Z` or `+00:00`, and `@SECONDS` since the epoch. nullopt when invalid.
std::optional<std::string> normalise_time(std::string_view text);

/// The current time in that form.
std::string now_time();

/// Loads `inputs` (anything bench-summary reads, or its JSON) as one run with bench::load_run
/// and turns every case with a number into a CaseValue (the headline mean, the summary, raw
/// samples when printed). Cases without a number are left out with a warning; a run with no
/// number at all is an error (exit 2). Computes the content digest and the run key.
Result<NewRun> build_run(const std::vector<std::string>& inputs, const RunMeta& meta,
                         Diagnostics& diagnostics);

/// A series with its change points.
struct Analysis {
    Series series;
    std::vector<ChangePoint> change_points;
};

/// Collects the bridges of analyses visited in series order (a case's series together): per
/// case its series ordered by their first run's time, and a bridge where one follows another.
class BridgeFinder {
  public:
    void add(const Series& series);
    /// The bridges of every case added so far.
    std::vector<Bridge> finish();

  private:
    struct Head {
        std::string time;
        std::int64_t run = 0;
        std::string commit;
        Epoch epoch;
    };
    void flush();
    std::string name_;
    std::vector<Head> heads_;
    std::vector<Bridge> bridges_;
};

/// How analyse() works.
struct AnalyseOptions {
    DetectOptions detect;
    bool use_cache = true;  ///< false: search every series from scratch (--recompute)
    /// gate_baseline(): at most this many of the newest points of a current segment.
    std::size_t max_baseline_runs = 200;
};

/// Finds the change points of every series (of the cases in `only` when not empty) on log
/// effective_us,
/// reusing the store's cached analyses where the series' earlier runs are unchanged, and
/// saving the new ones (a read-only store only gets a note). Series are visited in order.
Status analyse(Store& store, const std::vector<std::string>& only, const AnalyseOptions& options,
               const std::function<Status(Analysis&&)>& visit, Diagnostics& diagnostics);

/// The change points of an analysis as users read them (run, commit range, size, confidence).
std::vector<Change> describe(const Analysis& analysis);

/// For every point of the series, the median of its segment (between change points): what
/// `history show` measures each run against, as bench-gate --history does.
std::vector<double> segment_medians(const Analysis& analysis);

/// The index of the first point of the series' current segment (after its last change point).
std::size_t current_segment_start(const Analysis& analysis);

/// bench-gate --history: per case of `current`, the points of its current segment (in the
/// case's most recent epoch) as baseline runs of one case each, so the gate's history fence
/// takes its noise from them. Cases the history does not have are left out (the gate calls
/// them new).
Result<std::vector<std::vector<bench::BenchCase>>> gate_baseline(
    Store& store, const std::vector<bench::BenchCase>& current, const AnalyseOptions& options,
    Diagnostics& diagnostics);

/// Attempts a lane/epoch series needs before the gate judges it (§3.4, §3.6 item 5): until
/// then it is in shadow.
inline constexpr std::size_t kShadowAttempts = 10;

/// The identity of the run bench-gate --history judges, from its inputs (a lane suite-result.json
/// or journal, ciresult::identity_of_inputs). Unknown (no lane input): the gate takes each case's
/// newest series, as before identities existed.
struct GateIdentity {
    bool known = false;
    Epoch run;  ///< lineage: the newest generation of the lane's series (the files carry none)
    std::map<std::string, std::string> case_contracts;
    /// The series key of case `name`.
    Epoch of(const std::string& name) const;
};
Result<GateIdentity> gate_identity(const std::vector<std::string>& current_inputs,
                                   Diagnostics& diagnostics);

/// A case the gate does not judge: its same-identity series has fewer than kShadowAttempts
/// attempts (`shadow (n/10)`), with the bridge to the newest other series when there is none.
struct HeldCase {
    std::string name;
    std::size_t attempts = 0;
    std::string reason;  ///< "shadow (3/10)" or "shadow (0/10); N/A: bridge: toolchain epoch …"
};

/// gate_baseline() with the current run's identity: baselines only from the same-identity
/// series, cases in shadow held back (not compared), and one note per judged case with the
/// attempt-level median and MAD of its baseline.
struct GateBaseline {
    std::vector<std::vector<bench::BenchCase>> runs;
    std::vector<HeldCase> held;
    std::vector<std::string> notes;
};
Result<GateBaseline> gate_baseline(Store& store, const std::vector<bench::BenchCase>& current,
                                   const GateIdentity& identity, const AnalyseOptions& options,
                                   Diagnostics& diagnostics);

/// Adds `--meta KEY=VALUE` labels to `meta`; a label without `=` or key is a usage error.
Status add_labels(const std::vector<std::string>& labels, RunMeta& meta);

/// `history add`: builds the run from `inputs` (build_run), records it in the database at
/// `location` (created when missing) and returns its report (history/report.hpp add_report).
Result<render::Report> add_run(const std::string& location, OpenOptions open,
                               const std::vector<std::string>& inputs, const RunMeta& meta,
                               Diagnostics& diagnostics);

/// Every analysis of `only` (all cases when empty), kept (`history show`).
Result<std::vector<Analysis>> collect_analyses(Store& store, const std::string& only,
                                               const AnalyseOptions& options,
                                               Diagnostics& diagnostics);

/// The change points of every series (of `only` when not empty), streamed: only the changes
/// are kept, not the series (a large history).
struct ChangeList {
    std::vector<Change> changes;
    std::size_t series = 0;  ///< series analysed
    std::vector<Bridge> bridges;
};
Result<ChangeList> collect_changes(Store& store, const std::string& only,
                                   const AnalyseOptions& options, Diagnostics& diagnostics);

/// `history export --format csv|json|gab-json` of the whole history to `out` (export.hpp).
Status export_history(Store& store, const std::string& format, const AnalyseOptions& options,
                      std::ostream& out, Diagnostics& diagnostics);

}  // namespace ptune::history
