#pragma once
/// @file input.hpp
/// From loaded bench cases (model.hpp) to the gate's inputs: one Observation per case and run,
/// baseline runs paired with the current run by case name.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptune/bench/model.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/gate/gate.hpp"

namespace ptune::gate {

/// One run as the gate keeps it: a digest of each case's observation (~150 bytes, where a
/// BenchCase of even a one-line block takes kilobytes), the strings they share stored once.
/// Loading a 200,000-case log this way holds no BenchCase beyond the one being read.
class GateRun {
  public:
    GateRun() = default;
    GateRun(GateRun&&) = default;
    GateRun& operator=(GateRun&&) = default;
    GateRun(const GateRun&) = delete;  // the name arena's views would point into the original
    GateRun& operator=(const GateRun&) = delete;

    /// Digests `bench_case` (observe()). The warnings observe() gives are kept, to be replayed
    /// when the runs are paired, in the order pair_cases() gives them.
    void add(const bench::BenchCase& bench_case);
    std::size_t size() const { return cases_.size(); }
    bool empty() const { return cases_.empty(); }

    /// A case as the gate keeps it (see GateRun).
    struct Digest {
        static constexpr std::uint32_t kNone = 0xffffffffu;
        std::string_view name;      ///< the case's name, in the run's name arena
        std::size_t case_line = 0;  ///< bench::BenchCase::source.line
        std::size_t line = 0;       ///< the observation's line (Observation::source)
        double min = 0.0, median = 0.0, mean = 0.0, max = 0.0;
        std::size_t rounds = 0;
        std::size_t declared_rounds = 0;
        std::uint32_t case_file = 0;  ///< strings_ index of bench::BenchCase::source.file
        std::uint32_t file = 0;       ///< strings_ index of the observation's file
        std::uint32_t platform = 0;   ///< strings_ index
        std::uint32_t unavailable = 0;
        std::uint32_t samples = kNone;  ///< samples_ index
        std::uint32_t warning = kNone;  ///< warnings_ index
        std::uint8_t present = 0;       ///< which optional fields are set (bits)
        bool named_from_file = false;
    };

    const Digest& operator[](std::size_t i) const { return cases_[i]; }
    const std::string& text(std::uint32_t index) const { return strings_[index]; }
    /// The case's Observation; its raw samples move out of the run (each is taken once).
    Observation take_observation(std::size_t i);
    /// The case's name as a string (once pairing is done, a name is needed once).
    std::string take_name(std::size_t i) const { return std::string(cases_[i].name); }
    /// Reports the warnings observe() gave for case `i` (kept by add()).
    void replay_warnings(std::size_t i, Diagnostics& diagnostics) const;

  private:
    std::uint32_t intern(const std::string& text);
    /// A copy of `name` in names_, which never moves.
    std::string_view keep_name(std::string_view name);

    std::deque<Digest> cases_;  // no doubling slack and no copies as a large run grows
    // The cases' names back to back in 64 KiB blocks: a std::string per digest took 32 bytes
    // plus a heap block for any name of more than 15 bytes (200,000 cases a side: ~19 MB).
    std::vector<std::unique_ptr<char[]>> names_;
    std::size_t names_size_ = 0;                          // bytes in names_.back()
    std::size_t names_used_ = 0;                          // of which used
    std::vector<std::string> strings_ = {std::string()};  // index 0 is ""
    std::unordered_map<std::string, std::uint32_t> string_index_;
    std::vector<std::vector<double>> samples_;
    std::vector<Diagnostic> warnings_;
};

/// The runs as GateRun digests; `visit` receives every case's input in pair_cases() order (and
/// with its diagnostics, all given before the first visit), built when it is visited and
/// dropped after. Before the first visit, `on_count` (when set) learns how many there will be.
/// The runs' names and raw samples move into the inputs.
void for_each_pair(std::vector<GateRun>& baseline_runs, GateRun& current, Diagnostics& diagnostics,
                   const std::function<void(CaseInput&&)>& visit,
                   const std::function<void(std::size_t)>& on_count = {});

/// Pairs the runs by case name. Every entry of `baseline_runs` is one run; a case that occurs
/// several times in one run (a directory of several results.tsv) counts once per occurrence,
/// so a folder of past sweeps is a history. A case repeated in the current run keeps its last
/// occurrence (with a warning). Order: the current run's cases, then baseline-only cases.
/// When each side holds exactly one case named only after its file (`--baseline base.log
/// --current cur.log`), the two are paired whatever their names, with a note saying so.
std::vector<CaseInput> pair_cases(const std::vector<std::vector<bench::BenchCase>>& baseline_runs,
                                  const std::vector<bench::BenchCase>& current,
                                  Diagnostics& diagnostics);

}  // namespace ptune::gate
