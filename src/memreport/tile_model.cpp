#include "ptune/memreport/tile_model.hpp"

#include <algorithm>
#include <numeric>

namespace ptune::memreport {

namespace {

std::uint64_t floor16(std::uint64_t value) {
    return value / 16 * 16;
}

}  // namespace

std::string_view to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::Fit:
            return "fit";
        case Verdict::Marginal:
            return "MARGINAL";
        case Verdict::Over:
            return "OVER";
    }
    return "fit";
}

Verdict verdict(double used, double capacity) {
    if (used > capacity) return Verdict::Over;
    if (used > kMarginalShare * capacity) return Verdict::Marginal;
    return Verdict::Fit;
}

CubeBudget cube_budget(const CubeTile& tile, std::uint64_t mat_capacity,
                       std::uint64_t acc_capacity) {
    CubeBudget budget;
    budget.acc_bytes = tile.m * tile.n * tile.bytes_out * tile.accumulators;
    budget.acc_verdict =
        verdict(static_cast<double>(budget.acc_bytes), static_cast<double>(acc_capacity));
    budget.mat_weight_bytes = tile.n * tile.k * tile.bytes_in * tile.weights * tile.stage;
    budget.mat_act_bytes = tile.m * tile.k * tile.bytes_in * tile.stage;
    budget.mat_bytes = budget.mat_weight_bytes + budget.mat_act_bytes;
    budget.mat_verdict =
        verdict(static_cast<double>(budget.mat_bytes), static_cast<double>(mat_capacity));
    budget.contig_bytes = tile.k * tile.bytes_in;
    budget.cacheline_ok = budget.contig_bytes >= kTransferLine;

    if (tile.k == 0 || tile.stage == 0 || tile.bytes_in == 0 || tile.weights == 0) return budget;
    if (budget.mat_verdict == Verdict::Over && budget.mat_act_bytes < mat_capacity) {
        // Elements of one operand row-set that fit per stage.
        std::uint64_t cap = mat_capacity / (tile.stage * tile.bytes_in);
        std::uint64_t rows = cap / tile.k;
        budget.n_fit = floor16(rows > tile.m ? (rows - tile.m) / tile.weights : 0);
        std::uint64_t k_multiple = kTransferLine / std::gcd(kTransferLine, tile.bytes_in);
        budget.k_multiple_elems = k_multiple;
        std::uint64_t width = tile.n * tile.weights + tile.m;
        budget.k_fit = width == 0 ? 0 : cap / width / k_multiple * k_multiple;
    }
    if (budget.mat_verdict != Verdict::Over && budget.acc_verdict != Verdict::Over &&
        budget.cacheline_ok && tile.m > 0) {
        std::uint64_t per_stage = mat_capacity / tile.stage / tile.bytes_in;
        std::uint64_t act = tile.m * tile.k;
        budget.n_room_mat =
            per_stage > act ? floor16((per_stage - act) / (tile.weights * tile.k)) : 0;
        budget.n_room_acc = floor16(acc_capacity / (tile.m * tile.bytes_out * tile.accumulators));
        budget.n_growth_limit = std::min(*budget.n_room_mat, *budget.n_room_acc);
    }
    return budget;
}

std::optional<Growth> suggest_growth(std::uint64_t mat_used, std::uint64_t mat_capacity,
                                     std::uint64_t acc_used, std::uint64_t acc_capacity) {
    if (mat_capacity == 0 || acc_capacity == 0) return std::nullopt;
    if (verdict(2.0 * static_cast<double>(mat_used), static_cast<double>(mat_capacity)) !=
        Verdict::Fit) {
        return std::nullopt;
    }
    Growth growth;
    growth.mat_pct_before =
        100.0 * static_cast<double>(mat_used) / static_cast<double>(mat_capacity);
    growth.acc_pct_before =
        100.0 * static_cast<double>(acc_used) / static_cast<double>(acc_capacity);
    growth.mat_pct_after_k = 2 * growth.mat_pct_before;
    growth.acc_pct_after_n = 2 * growth.acc_pct_before;
    growth.acc_verdict_after_n =
        verdict(2.0 * static_cast<double>(acc_used), static_cast<double>(acc_capacity));
    return growth;
}

}  // namespace ptune::memreport
