#pragma once
/// @file model.hpp
/// A simpler core swimlane trace (upstream-2026-12.md §4): the instructions of one replayed
/// task, per sub-core (`core<N>.cubecore0`, `core<N>.veccore0`, …) and pipe, as the reader of
/// §4.4 needs them, and what the analysis derives from them. Times are trace units, shown as µs
/// (§4.2: the unit is unverified upstream).

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ptune/pmu/model.hpp"

namespace ptune::pipetrace {

/// The pipes of the work set in the order reports list them (load, compute, store), named as
/// pmu-analyze names them (pmu::to_string: mte2, mte1, cube, fixpipe, vec, mte3, scalar).
inline constexpr std::array<pmu::Pipe, pmu::kPipeCount> kPipeOrder = {
    pmu::Pipe::Mte2, pmu::Pipe::Mte1, pmu::Pipe::Cube,  pmu::Pipe::Fixpipe,
    pmu::Pipe::Vec,  pmu::Pipe::Mte3, pmu::Pipe::Scalar};

/// The pipe of a trace lane (tid): `MTE1`, `MTE2`, `MTE3`, `CUBE`, `FIXP`/`FIXPIPE`, `VECTOR`,
/// `SCALAR`, with a Perfetto sub-lane suffix `#<n>` stripped. nullopt for any other lane.
std::optional<pmu::Pipe> pipe_of_lane(std::string_view tid);

/// True for the lanes that are not pipelines (`CACHEMISS`, `FLOWCTRL`, `ALL`).
bool is_non_pipeline_lane(std::string_view tid);

/// True for flag and barrier instructions (`SET_FLAG`, `WAIT_FLAG`, `BAR*`): not pipe work.
bool is_flag_name(std::string_view name);

/// A half-open time interval [begin, end).
struct Interval {
    double begin = 0;
    double end = 0;
    double length() const { return end - begin; }
};

/// One sub-core's instructions, per pipe.
struct SubCore {
    std::string name;                                          ///< `core0.cubecore0`
    std::array<std::vector<Interval>, pmu::kPipeCount> pipes;  ///< indexed by pmu::Pipe
    std::map<std::string, std::size_t> other_lanes;            ///< unknown lanes: instruction count
};

/// What the reader kept of one trace file.
struct Trace {
    std::string source;
    bool perfetto = false;           ///< lanes carried `#<n>` sub-lane suffixes (§4.3)
    std::vector<SubCore> subcores;   ///< in the order they first appear
    std::size_t events = 0;          ///< trace events read
    std::size_t instructions = 0;    ///< the work set (X events of core pids on a pipe lane)
    std::size_t mmad = 0;            ///< `MMAD` instructions in the work set
    std::size_t fix_l0c = 0;         ///< `FIX_L0C_TO_DST` instructions in the work set
    std::size_t flags = 0;           ///< flag/barrier instructions (X, or a matched B/E pair)
    std::size_t unpaired_flags = 0;  ///< a B or an E without its partner (zero length)
    std::size_t non_core = 0;        ///< timed events of pids that are not `core…` strings
    std::size_t skipped = 0;         ///< bad events (warned with their line)
    /// Set when the JSON broke off or is not JSON at `line`: what came before it was kept.
    std::optional<std::size_t> syntax_error_line;
    std::string syntax_error;
};

/// One pipe of one sub-core (§4.4 step 2 and 4).
struct PipeStats {
    pmu::Pipe pipe;
    std::size_t count = 0;
    double instr_time = 0;   ///< Σ dur (> busy when instructions overlap)
    double busy = 0;         ///< |∪ [ts, ts+dur)|
    double utilisation = 0;  ///< busy / the sub-core's span
};

/// The overlap of two pipes' busy time on one sub-core.
struct Overlap {
    pmu::Pipe a;
    pmu::Pipe b;
    double time = 0;  ///< |∪A ∩ ∪B|
};

/// One sub-core's numbers.
struct SubCoreStats {
    std::string name;
    double begin = 0, end = 0, span = 0;
    std::vector<PipeStats> pipes;   ///< the pipes it used, in kPipeOrder
    std::vector<Overlap> overlaps;  ///< every pair of the pipes it used
    double mte2_busy = 0;
    double mte2_compute_overlap = 0;   ///< overlap(MTE2, CUBE ∪ VECTOR)
    double exposed_load = 0;           ///< busy(MTE2) − overlap(MTE2, CUBE ∪ VECTOR)
    double exposed_share = 0;          ///< exposed_load / span
    std::optional<pmu::Pipe> busiest;  ///< highest utilisation on this sub-core
};

/// The upstream self-check (§4.4 step 5).
struct SelfCheck {
    std::size_t mmad = 0;
    std::size_t fix_l0c = 0;
    std::optional<std::size_t> n_blocks;  ///< the loop trip count, when given
    bool applicable = true;  ///< false for a task without MMAD and FIX_L0C_TO_DST (no cube work)
    bool truncated = false;  ///< no timing conclusion may be drawn
    std::string verdict;     ///< one sentence
};

/// The analysis of one trace.
struct Analysis {
    std::string label;   ///< `<TestClass>_<Case>_<platform>_<kernel>_mix<ids>`, when known
    std::string kernel;  ///< the label's kernel name, when it parses
    double begin = 0, end = 0, span = 0;  ///< the whole task
    std::vector<SubCoreStats> subcores;
    SelfCheck check;
    /// The bottleneck pipe: highest utilisation over every sub-core; none when the export is
    /// truncated (no timing conclusion) or there is no work.
    std::optional<pmu::Pipe> bottleneck;
    double bottleneck_utilisation = 0;
    std::string bottleneck_subcore;
    /// The sub-core whose exposed load is the largest share of its span.
    std::string exposed_subcore;
    double exposed_load = 0;
    double exposed_share = 0;
};

}  // namespace ptune::pipetrace
