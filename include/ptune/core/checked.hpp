#pragma once
/// @file checked.hpp
/// Overflow-checked integer arithmetic for counters read from files: a sum that would wrap
/// (PMU counters near 2^64) saturates and says so, instead of turning into a small number.

#include <cstdint>
#include <limits>

namespace ptune::checked {

/// `into += value`, saturating at the type's maximum. Returns false when the sum overflowed.
template <class Unsigned>
[[nodiscard]] bool add(Unsigned& into, Unsigned value) {
    Unsigned sum{};
    if (__builtin_add_overflow(into, value, &sum)) {
        into = std::numeric_limits<Unsigned>::max();
        return false;
    }
    into = sum;
    return true;
}

}  // namespace ptune::checked
