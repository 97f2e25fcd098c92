#pragma once
/// @file changepoint.hpp
/// Change-point detection for `ptune history` (docs/HISTORY.md, "Change points"): E-Divisive
/// means (Matteson & James 2014, as in MongoDB's performance CI and Hunter) with a seeded
/// permutation test, by binary segmentation: the best split of a segment is kept when fewer
/// than alpha of its permutations split as well, then both halves are searched again.
/// Deterministic: the same values and options give the same change points on every machine.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ptune/history/model.hpp"

namespace ptune::history {

/// The detection parameters (part of the cache key).
struct DetectOptions {
    double alpha = 0.01;             ///< a split is kept when its permutation p <= alpha
    std::size_t permutations = 199;  ///< permutations per test (p is at least 1/(1+this))
    std::size_t min_segment = 5;     ///< points on either side of a change point, at least
    std::uint64_t seed = 1;          ///< the permutations' seed
    /// The parameters as one string, e.g. `ed1:a=0.01:n=199:m=5:s=1`.
    std::string key() const;
};

/// The best split of `values` by the E-Divisive statistic q̂ (alpha = 1, split searched over
/// every position with min_segment points on both sides); index 0 when there is none.
struct Split {
    std::size_t index = 0;
    double statistic = 0.0;
};
Split best_split(std::span<const double> values, std::size_t min_segment);

/// Change points of `values` (in practice log effective_us), sorted by index. `offset` is the
/// position of values[0] in the whole series: it seeds the permutations of each segment, so a
/// segment gets the same test whether it is analysed alone or inside the whole series.
std::vector<ChangePoint> e_divisive(std::span<const double> values, const DetectOptions& options,
                                    std::size_t offset = 0);

/// The incremental form: `previous` are the change points of the first points of `values`
/// (their runs unchanged). They are kept; only the points from the last of them on are
/// searched again, so old segments are not redone and a change point once reported does not
/// move when later runs arrive (Hunter's rule). With no previous change point the whole series
/// is searched, as e_divisive() does.
std::vector<ChangePoint> e_divisive_incremental(std::span<const double> values,
                                                const std::vector<ChangePoint>& previous,
                                                const DetectOptions& options);

}  // namespace ptune::history
