#pragma once
/// @file metrics.hpp
/// The metrics analyzers publish for the rules engine. Metrics belong to a subject: the whole
/// run, a kernel, a memory-report function, a benchmark case, a core... Subjects of the same kind
/// and name published by different analyzers merge, which is what cross-artifact rules read
/// (e.g. a kernel's `pmu.bottleneck_is_mte2` next to its `hints.PH001.count`).

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptune::rules {

/// Subject kinds in use: "run" (one per analysis), "kernel", "function" (memory report),
/// "case" (benchmark), "core", "entry" (one perf hint) — analyzers may add their own.
struct SubjectKey {
    std::string kind;
    std::string name;
    auto operator<=>(const SubjectKey&) const = default;
};

/// A place in an input that supports a finding.
struct Location {
    std::string file;
    std::size_t line = 0;
    std::size_t column = 0;
    auto operator<=>(const Location&) const = default;
};

/// Metrics and evidence for one subject. Metric names are `<area>.<name>` with dots, e.g.
/// `mem.Mat.usage_pct`; boolean facts are 0/1.
struct Subject {
    SubjectKey key;
    std::map<std::string, double, std::less<>> metrics;
    std::map<std::string, std::string, std::less<>> labels;  ///< text facts, e.g. "pmu.bottleneck"
    std::vector<Location> locations;

    std::optional<double> metric(std::string_view name) const;
};

/// All subjects of an analysis.
class MetricStore {
public:
    /// The subject, created empty if new.
    Subject& subject(std::string_view kind, std::string_view name);
    /// The subject "run"/"run" for run-wide metrics.
    Subject& run() { return subject("run", "run"); }
    void set(std::string_view kind, std::string_view name, std::string metric, double value);
    const std::map<SubjectKey, Subject>& subjects() const { return subjects_; }
    /// Merges another store's subjects (metrics of the same name are overwritten).
    void merge(const MetricStore& other);

private:
    std::map<SubjectKey, Subject> subjects_;
};

}  // namespace ptune::rules
