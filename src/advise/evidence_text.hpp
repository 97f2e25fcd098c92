#pragma once
// Evidence in words: a finding's metrics (`pmu.bottleneck_is_mte2 = 1`) as the sentence a reader
// of the HTML report understands ("the bottleneck pipe is MTE2"). The phrases restate the
// meanings docs/METRICS.md gives each metric.

#include <string>
#include <string_view>

namespace ptune::advise {

/// One metric and its value as a phrase; a metric without a phrase stays `name = value`.
std::string describe_metric(std::string_view metric, double value);

}  // namespace ptune::advise
