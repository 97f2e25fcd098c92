// ptune swimlane-analyze (not built yet: registered so that --help lists it; exits 2).

#include "cli/commands/commands.hpp"

namespace ptune::cli {

std::unique_ptr<Command> make_swimlane_analyze() { return make_not_implemented("swimlane-analyze"); }

}  // namespace ptune::cli
