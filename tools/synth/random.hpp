#pragma once
/// @file random.hpp
/// The generators' random numbers: xorshift64*, fast and the same on every platform (the
/// standard distributions are not), so a generated input is the same bytes wherever it is made.

#include <cstdint>

namespace ptune::synth {

/// xorshift64* (Marsaglia; Vigna's multiplier).
class Xorshift64Star {
  public:
    explicit Xorshift64Star(std::uint64_t seed = 0x9E3779B97F4A7C15ull) : state_(seed) {}

    std::uint64_t next() {
        state_ ^= state_ >> 12;
        state_ ^= state_ << 25;
        state_ ^= state_ >> 27;
        return state_ * 0x2545F4914F6CDD1Dull;
    }
    /// Uniform in [lo, hi).
    double uniform(double lo, double hi) {
        return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
    }
    /// Uniform in [0, n) (n > 0; the modulo bias is no matter for synthetic data).
    std::uint64_t below(std::uint64_t n) { return next() % n; }

  private:
    std::uint64_t state_;
};

}  // namespace ptune::synth
