// ptune swimlane-merge (not built yet: registered so that --help lists it; exits 2).

#include "cli/commands/commands.hpp"

namespace ptune::cli {

std::unique_ptr<Command> make_swimlane_merge() { return make_not_implemented("swimlane-merge"); }

}  // namespace ptune::cli
