#pragma once
/// @file source.hpp
/// The one contract every artifact source implements, and the one table of sources.
///
/// A source is one kind of evidence a run leaves (benchmark logs, swimlane records, the memory
/// report, perf_hints.log, pmu.csv, host logs, scope stats). It names the artifact kinds it reads
/// (the inventory finds them in a run directory), loads them through its domain's pipeline — the
/// same entry points its single command calls — publishes its metrics, and contributes its
/// sections, chart data and the findings it makes itself. `advise` is a loop over the table; it
/// never branches on a kind. Multi-card (L3) trees are a wrapper (l3_fan_out) around a per-run
/// source, so no source tests for L3 itself. docs/ARCHITECTURE.md walks through adding one.

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "ptune/advise/advisor.hpp"
#include "ptune/advise/inventory.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/l3/ranks.hpp"
#include "ptune/rules/engine.hpp"
#include "ptune/rules/metrics.hpp"

namespace ptune::advise {

/// What a source is given to load one run.
struct SourceContext {
    Inventory& inventory;  ///< the run's artifacts; a source notes on them what it read
    const AdviseOptions& options;
    const rules::Catalogue& catalogue;
    Diagnostics& diagnostics;
};

/// One source's model of one run, once loaded.
class LoadedSource {
  public:
    virtual ~LoadedSource() = default;
    /// Publishes the source's metrics into the run's one store (the catalogue runs once, over
    /// every source's metrics, after the last source).
    virtual void publish(rules::MetricStore& store) = 0;
    /// Adds the source's sections (its overview rows), chart data and own findings; `store`
    /// holds every metric published so far.
    virtual void contribute(Advice& advice, const rules::MetricStore& store) = 0;
};

/// The contract: which artifacts a source reads, and how they load.
class Source {
  public:
    virtual ~Source() = default;
    /// The artifact kinds it reads, in the inventory's vocabulary.
    virtual std::vector<ArtifactKind> kinds() const = 0;
    /// Loads the run's artifacts of its kinds. Null when there is nothing to analyse (no such
    /// artifact, or none usable: the diagnostics say why); never throws.
    virtual std::unique_ptr<LoadedSource> load(SourceContext& context) const = 0;
};

/// One row of the source table, declared like the command table.
struct SourceRow {
    std::string_view id;  ///< "bench", "swimlane", "mem", "pmu", "hints", "host", "scope", …
    std::unique_ptr<Source> (*make)();
};

/// The sources in the order they publish (swimlane before pmu: a kernel's share of kernel time
/// comes from the schedule when there is one, else from the PMU cycles).
std::span<const SourceRow> source_table();

/// Wraps a per-run source of `kind` (swimlane records or pmu.csv): on a multi-card tree
/// (rank<N>/d<K>/) every rank is analysed by l3's pipeline and compared across ranks; otherwise
/// `single` loads the run as it is.
std::unique_ptr<Source> l3_fan_out(std::unique_ptr<Source> single, l3::Source kind);

}  // namespace ptune::advise
