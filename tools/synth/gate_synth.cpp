// Deterministic synthetic runs: SplitMix64 and Box–Muller written out, so that a seed gives the
// same numbers with every compiler and standard library.

#include "gate_synth.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "ptune/core/stats.hpp"

namespace ptune::gate {

namespace {

class SplitMix64 {
  public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    /// Uniform in (0, 1].
    double uniform() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }
    double normal() {
        const double radius = std::sqrt(-2.0 * std::log(uniform()));
        return radius * std::cos(2.0 * std::numbers::pi * uniform());
    }

  private:
    std::uint64_t state_;
};

double round_tenth(double value) {
    return std::nearbyint(value * 10.0) / 10.0;
}

}  // namespace

std::vector<double> synth_samples(const SynthCase& c, std::size_t rounds, std::uint64_t seed) {
    SplitMix64 random(seed);
    const double centre = c.base_us * (1.0 + c.shift_pct / 100.0);
    std::vector<double> samples(rounds);
    for (auto& sample : samples) sample = round_tenth(centre * std::exp(c.sigma * random.normal()));
    // Outliers at evenly spread rounds, as a slow neighbour on a shared runner would cause.
    for (std::size_t i = 0; i < c.outliers && i < rounds; ++i) {
        const std::size_t at = (i * rounds) / c.outliers + rounds / (2 * c.outliers);
        samples[at < rounds ? at : rounds - 1] = round_tenth(centre * c.outlier_factor);
    }
    return samples;
}

void write_synth_log(std::ostream& out, const std::vector<SynthCase>& cases, std::size_t rounds,
                     std::uint64_t seed, bool raw) {
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const auto samples = synth_samples(cases[k], rounds, seed + k);
        out << "::group::" << cases[k].name << '\n';
        const auto [lowest, highest] = std::minmax_element(samples.begin(), samples.end());
        out << fmt::format(
            "[RUN]   effective_us ({} rounds) min={} median={} mean={} max={}\n", samples.size(),
            stats::format_fixed(*lowest, 1), stats::format_fixed(*stats::median(samples), 1),
            stats::format_fixed(*stats::mean(samples), 1), stats::format_fixed(*highest, 1));
        if (raw) {
            out << fmt::format("[RUN]   raw samples: ranks=1 rounds={} warmup=5\n", rounds);
            out << fmt::format("[RUN]     rank 4242 raw n={} eff_us=[", samples.size());
            for (std::size_t i = 0; i < samples.size(); ++i) {
                out << (i ? ", " : "") << stats::format_fixed(samples[i], 1);
            }
            out << "]\n";
        }
        out << "::endgroup::\n";
    }
}

}  // namespace ptune::gate
