// Compiled with exactly the include path of domain pmu: swimlane is not among its dependencies,
// so this include must not be found.
#include "ptune/swimlane/pipeline.hpp"
