// ptune pmu-analyze (not built yet: registered so that --help lists it; exits 2).

#include "cli/commands/commands.hpp"

namespace ptune::cli {

std::unique_ptr<Command> make_pmu_analyze() { return make_not_implemented("pmu-analyze"); }

}  // namespace ptune::cli
