#pragma once
/// @file gab_json.hpp
/// github-action-benchmark's `customSmallerIsBetter` data: a JSON array of `{name, unit, value,
/// extra}`, written one bench at a time (bench-gate --format gab-json, history export).

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace ptune::bench {

/// One bench: the current value (µs) and what `extra` says about it.
struct GabBench {
    std::string_view name;
    double value_us = 0.0;
    std::string_view verdict;           ///< e.g. "regressed", "unchanged"
    std::optional<double> baseline_us;  ///< "-" when absent
    std::optional<double> delta_pct;    ///< "-" when absent
};

/// Writes the array with the bytes of render::write_json (indent 2) of the whole array, without
/// building it: 200,000 entries as a DOM took 130 MB. Invalid UTF-8 in a name is replaced.
class GabJsonWriter {
  public:
    explicit GabJsonWriter(std::ostream& out) : out_(out) {}
    /// Adds one bench (`extra` = `verdict: V; baseline: B; delta: D`).
    void add(const GabBench& bench);
    /// Closes the array (`[]` when nothing was added).
    void finish();

  private:
    std::ostream& out_;
    bool first_ = true;
};

}  // namespace ptune::bench
