#pragma once
// advise on an L3 run (rank<N>/d<K>/ captures): the multi-card analysis of ptune/l3/ instead of
// the first capture; each rank's own findings and the L3.* metrics, as the commands report them.

#include "ptune/advise/advisor.hpp"
#include "ptune/l3/ranks.hpp"

namespace ptune::advise {

/// When the run is an L3 tree: analyses every rank with `source`'s pipeline, publishes the L3.*
/// metrics, adds each rank's own findings (subject prefixed with the rank) and a section, and
/// returns true. False (nothing done) for a single-capture run.
bool add_l3(Advice& advice, l3::Source source, const rules::Catalogue& catalogue,
            rules::MetricStore& store, Diagnostics& diagnostics);

}  // namespace ptune::advise
