#pragma once
/// @file input.hpp
/// From loaded bench cases (model.hpp) to the gate's inputs: one Observation per case and run,
/// baseline runs paired with the current run by case name.

#include <cstdint>
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

/// One run as the gate keeps it: a digest of each case's observation (~100 bytes, where a
/// BenchCase of even a one-line block takes kilobytes), the strings they share stored once.
/// Loading a 200,000-case log this way holds no BenchCase beyond the one being read.
///
/// The digests live in chunks of kChunkCases, each with its cases' names; once the pairing has
/// released every case of a chunk (release()), the chunk is given back to the system, so the
/// runs shrink while the results grow (docs/PERFORMANCE.md, bench-gate). Released in another
/// order than they were added, many cases of the chunks held may be released while no chunk is
/// wholly: once a quarter is, the cases still needed move into fewer chunks (a case keeps its
/// index).
class GateRun {
  public:
    /// Digests a chunk holds (4096 × 88 bytes: whole pages, mapped on their own).
    static constexpr std::size_t kChunkCases = 4096;

    GateRun() = default;
    GateRun(GateRun&&) = default;
    GateRun& operator=(GateRun&&) = default;
    GateRun(const GateRun&) = delete;
    GateRun& operator=(const GateRun&) = delete;

    /// Digests `bench_case` (observe()). The warnings observe() gives are kept, to be replayed
    /// when the runs are paired, in the order pair_cases() gives them.
    void add(const bench::BenchCase& bench_case);
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

    /// A case as the gate keeps it (see GateRun).
    struct Digest {
        static constexpr std::uint32_t kNone = 0xffffffffu;
        double min = 0.0, median = 0.0, mean = 0.0, max = 0.0;
        // Counts in 32 bits; kNone stands for a larger one, kept aside (case_line(), line(),
        // and the observation's rounds).
        std::uint32_t case_line = 0;  ///< bench::BenchCase::source.line
        std::uint32_t line = 0;       ///< the observation's line (Observation::source)
        std::uint32_t rounds = 0;
        std::uint32_t declared_rounds = 0;
        std::uint32_t name_offset = 0;  ///< the case's name in its chunk's names
        std::uint32_t name_size = 0;
        std::uint32_t case_file = 0;  ///< strings_ index of bench::BenchCase::source.file
        std::uint32_t file = 0;       ///< strings_ index of the observation's file
        std::uint32_t platform = 0;   ///< strings_ index
        std::uint32_t unavailable = 0;
        std::uint32_t samples = kNone;  ///< samples_ index
        std::uint32_t warning = kNone;  ///< warnings_ index
        std::uint8_t present = 0;       ///< which optional fields are set (bits)
        bool named_from_file = false;
    };

    /// Case `i` (not yet released).
    const Digest& operator[](std::size_t i) const {
        const std::size_t at = position(i);
        return chunks_[at / kChunkCases].digests.get()[at % kChunkCases];
    }
    /// Case `i`'s name (not yet released).
    std::string_view name(std::size_t i) const {
        const std::size_t at = position(i);
        const Digest& d = chunks_[at / kChunkCases].digests.get()[at % kChunkCases];
        return {chunks_[at / kChunkCases].names.data() + d.name_offset, d.name_size};
    }
    const std::string& text(std::uint32_t index) const { return strings_[index]; }
    /// Case `i`'s bench::BenchCase::source.line and its observation's line.
    std::size_t case_line(std::size_t i) const { return widen(i, kCaseLine, (*this)[i].case_line); }
    std::size_t line(std::size_t i) const { return widen(i, kLine, (*this)[i].line); }
    /// The case's Observation; its raw samples move out of the run (each is taken once).
    Observation take_observation(std::size_t i);
    /// The case's name as a string (once pairing is done, a name is needed once).
    std::string take_name(std::size_t i) const { return std::string(name(i)); }
    /// Reports the warnings observe() gave for case `i` (kept by add()).
    void replay_warnings(std::size_t i, Diagnostics& diagnostics) const;
    /// Case `i` is no longer needed (each case released at most once, after the last add()):
    /// when every case of its chunk is, the chunk's digests and names are freed and none of its
    /// cases may be read again.
    void release(std::size_t i);
    /// Chunks still held (for tests).
    std::size_t chunks_held() const;

  private:
    std::uint32_t intern(const std::string& text);
    /// Where case `i` is stored (its index until the first compact()).
    std::size_t position(std::size_t i) const { return moved_.empty() ? i : moved_[i]; }
    /// Moves the cases not released into as few chunks as they fill, a chunk at a time.
    void compact();
    enum Wide : std::uint64_t { kCaseLine, kLine, kRounds, kDeclaredRounds };
    /// `value` as a Digest keeps it: itself, or kNone with the value kept in wide_.
    std::uint32_t narrow(std::size_t i, Wide field, std::size_t value);
    std::size_t widen(std::size_t i, Wide field, std::uint32_t stored) const {
        return stored != Digest::kNone ? stored : wide_.at(i * 4 + field);
    }

    // Pages of kChunkCases digests, mapped apart from the heap so that freeing them lowers the
    // resident size whatever else the heap holds.
    struct Unmap {
        void operator()(Digest* digests) const;
    };
    struct Chunk {
        std::unique_ptr<Digest, Unmap> digests;
        std::string names;  // the chunk's names back to back (exact once the chunk is full)
        std::uint32_t released = 0;
    };
    static Chunk map_chunk();

    std::vector<Chunk> chunks_;
    std::size_t size_ = 0;
    std::size_t stored_ = 0;            // positions in use in chunks_
    std::size_t held_ = 0;              // cases in the chunks held
    std::size_t held_released_ = 0;     // of which released
    std::vector<std::uint32_t> moved_;  // case → position, once compacted (kNone: released)
    std::vector<std::string> strings_ = {std::string()};  // index 0 is ""
    std::unordered_map<std::string, std::uint32_t> string_index_;
    std::vector<std::vector<double>> samples_;
    std::vector<Diagnostic> warnings_;
    std::unordered_map<std::uint64_t, std::size_t> wide_;  // (case × 4 + Wide) → count
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
