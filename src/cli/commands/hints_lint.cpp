// ptune hints-lint (not built yet: registered so that --help lists it; exits 2).

#include "cli/commands/commands.hpp"

namespace ptune::cli {

std::unique_ptr<Command> make_hints_lint() { return make_not_implemented("hints-lint"); }

}  // namespace ptune::cli
