#pragma once
/// @file model.hpp
/// The model of `ptune history` (docs/HISTORY.md): recorded runs, the per-case results of each
/// run, the series of one case within one toolchain/device epoch, and its change points.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptune::history {

/// What identifies a run beyond its numbers (the `runs` table).
struct RunInfo {
    std::int64_t id = 0;         ///< assigned by the database, increasing in commit order
    std::string run_key;         ///< `--run-id`, else `digest:<content digest>`
    std::string content_digest;  ///< digest of everything below except the times
    std::string time;            ///< when the run happened, `YYYY-MM-DDTHH:MM:SSZ`
    std::string added_at;        ///< when it was recorded
    std::string commit;
    std::string branch;
    // The six-part performance identity (upstream-2026-12.md §3.1, docs/HISTORY.md "Identity"):
    // lane, source tree, case contract, toolchain epoch, device epoch, lineage generation.
    // Every part but the source tree keys the series; empty = not known (older runs).
    std::string toolchain;      ///< toolchain epoch, e.g. "cann-8.1"
    std::string device;         ///< device epoch (or platform), e.g. "a2a3"
    std::string source_digest;  ///< the source tree (digest / git tree hash), when given
    std::string lane;           ///< e.g. "lib-main-attention"
    std::string contract;       ///< the run's case contract (a case may carry its own)
    std::string lineage;        ///< lineage generation of the source history
    std::map<std::string, std::string> labels;  ///< free `--meta k=v`
    std::vector<std::string> inputs;            ///< the input names as given
    std::size_t cases = 0;                      ///< results in the run (listing only)
};

/// One case's numbers in one run (µs). `value_us` is the headline statistic the history tracks
/// (upstream's CI headline: the effective_us mean, or the median where upstream quotes one); the
/// others when the input had them.
struct CaseValue {
    std::string name;
    double value_us = 0.0;
    std::size_t rounds = 0;  ///< 0 when unknown (results.tsv)
    std::optional<double> min_us, median_us, max_us;
    std::vector<double> samples;  ///< raw per-round samples when the log printed them
    std::string origin;           ///< "report", "strace", "results.tsv", "json", "device-log"
    std::string source;           ///< "file:line" where the number was read
    std::string contract;         ///< the case's own contract id; empty: the run's
};

/// A run to record: its identity and its cases (unique names).
struct NewRun {
    RunInfo info;
    std::vector<CaseValue> cases;
};

/// The series key: every identity part but the source tree (§3.6 item 2). Change points and
/// gate baselines never cross a differing part.
struct Epoch {
    Epoch() = default;
    Epoch(std::string toolchain_, std::string device_, std::string lane_ = {},
          std::string contract_ = {}, std::string lineage_ = {})
        : toolchain(std::move(toolchain_)),
          device(std::move(device_)),
          lane(std::move(lane_)),
          contract(std::move(contract_)),
          lineage(std::move(lineage_)) {}
    std::string toolchain;
    std::string device;
    std::string lane;
    std::string contract;
    std::string lineage;
    friend bool operator==(const Epoch&, const Epoch&) = default;
    friend auto operator<=>(const Epoch&, const Epoch&) = default;
    /// "toolchain/device" with "-" for an empty part, then ` lane=L`, ` contract=C`, ` gen=G`
    /// for the parts that are set.
    std::string label() const;
    /// The parts that differ from `other`, each as `toolchain epoch changed (a -> b)`, in the
    /// order lane, contract, toolchain epoch, device epoch, lineage generation.
    std::vector<std::string> differences(const Epoch& other) const;
};

/// The series key of a case of a run: the run's parts with the case's own contract if it has one.
Epoch epoch_of(const RunInfo& run, const std::string& case_contract = {});

/// One point of a case's series.
struct Point {
    std::int64_t run = 0;
    std::string time;
    std::string commit;
    double value_us = 0.0;
    std::size_t rounds = 0;
    std::optional<double> min_us, median_us, max_us;
};

/// A case's points in one epoch, ordered by run time then run id.
struct Series {
    std::string name;
    Epoch epoch;
    std::vector<Point> points;
};

/// A detected shift: `index` is the first point of the new segment.
struct ChangePoint {
    std::size_t index = 0;
    double p_value = 1.0;    ///< permutation p of the split when it was found
    double statistic = 0.0;  ///< the E-Divisive q̂ of the split
};

/// A change point in terms a user reads: the run, the commit range and the size.
struct Change {
    std::string name;
    Epoch epoch;
    std::int64_t run = 0;       ///< first run of the new segment
    std::string commit_before;  ///< last commit of the old segment
    std::string commit;         ///< first commit of the new segment
    double before_us = 0.0;     ///< median of the old segment
    double after_us = 0.0;      ///< median of the new segment
    double change_pct = 0.0;    ///< (after − before) / before × 100
    double p_value = 1.0;
    double confidence() const { return 1.0 - p_value; }
};

/// Where a case's runs move from one series to another (a differing identity part): no delta is
/// computed across it (§3.6 item 2); it is reported as a bridge naming the parts.
struct Bridge {
    std::string name;
    Epoch from, to;
    std::int64_t run = 0;  ///< first run of the new series
    std::string commit;    ///< its commit
    std::vector<std::string>
        differences;  ///< Epoch::differences, e.g. "toolchain epoch changed (a -> b)"
    /// "bridge: toolchain epoch changed (cann-8.1 -> cann-8.2)" (parts joined by "; ").
    std::string text() const;
};

}  // namespace ptune::history
