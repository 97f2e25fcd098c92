#pragma once
/// @file tile_model.hpp
/// The cube tile budget model (tile-model.md §3): Acc and Mat bytes of one matmul tile, the
/// FIT / MARGINAL / OVER verdicts, the `n_fit` / `k_fit` trade-offs when Mat overflows, the N
/// headroom when everything fits, and the 2× growth a memory report alone can support.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ptune::memreport {

/// FIT below 85 % of the capacity, MARGINAL up to 100 %, OVER above.
enum class Verdict { Fit, Marginal, Over };
std::string_view to_string(Verdict verdict);
/// The verdict for `used` bytes against `capacity` bytes.
Verdict verdict(double used, double capacity);

/// Share of a capacity above which a fill is MARGINAL (tile_budget.py's 85 %).
inline constexpr double kMarginalShare = 0.85;
/// The DMA line the innermost contiguous row should fill (512 B).
inline constexpr std::uint64_t kTransferLine = 512;

/// One matmul call's L1 fragment and its element sizes.
struct CubeTile {
    std::uint64_t m = 0, n = 0, k = 0;
    std::uint64_t bytes_in = 2;   ///< operand element size (bf16 = 2)
    std::uint64_t bytes_out = 4;  ///< accumulator element size (fp32 = 4)
    std::uint64_t weights = 1;    ///< weights live at once (2 for fused gate+up)
    std::uint64_t accumulators = 1;
    std::uint64_t stage = 2;  ///< pipeline depth = buffering factor of the staged operands
};

/// What the model says about a tile on given capacities.
struct CubeBudget {
    std::uint64_t acc_bytes = 0;
    Verdict acc_verdict = Verdict::Fit;
    std::uint64_t mat_weight_bytes = 0;
    std::uint64_t mat_act_bytes = 0;
    std::uint64_t mat_bytes = 0;  ///< estimate: the real allocation adds 10–25 % padding
    Verdict mat_verdict = Verdict::Fit;
    std::uint64_t contig_bytes = 0;  ///< K × bytes_in, the K-contiguous row
    bool cacheline_ok = false;       ///< contig_bytes ≥ 512
    // When Mat is OVER but the activation alone fits: the two ways back under the capacity.
    std::optional<std::uint64_t> n_fit;             ///< largest N (multiple of 16) at this K
    std::optional<std::uint64_t> k_multiple_elems;  ///< K granularity that keeps rows on the line
    std::optional<std::uint64_t> k_fit;  ///< largest K at this N (0: shrink N or M first)
    // When nothing is OVER and the K row fills the line: how far N may grow.
    std::optional<std::uint64_t> n_room_mat;
    std::optional<std::uint64_t> n_room_acc;
    std::optional<std::uint64_t> n_growth_limit;
};

/// Evaluates the model for `tile` against the Mat and Acc capacities in bytes.
CubeBudget cube_budget(const CubeTile& tile, std::uint64_t mat_capacity,
                       std::uint64_t acc_capacity);

/// The 2× growth a report alone supports. Doubling K (K_STEP, the guide's first knob) doubles
/// Mat and leaves Acc alone; doubling N (the output chunk) doubles Acc and at most doubles Mat.
struct Growth {
    double mat_pct_before = 0, acc_pct_before = 0;
    double mat_pct_after_k = 0;  ///< Mat fill with K doubled (Acc unchanged)
    double acc_pct_after_n = 0;  ///< Acc fill with N doubled (Mat at most mat_pct_after_k)
    Verdict acc_verdict_after_n = Verdict::Fit;
};

/// The growth options when doubling K keeps Mat below the MARGINAL share; nullopt otherwise
/// (then no doubling fits: N doubles at least the weight share of Mat too).
std::optional<Growth> suggest_growth(std::uint64_t mat_used, std::uint64_t mat_capacity,
                                     std::uint64_t acc_used, std::uint64_t acc_capacity);

}  // namespace ptune::memreport
