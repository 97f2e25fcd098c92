// ptune advise (not built yet: registered so that --help lists it; exits 2).

#include "cli/commands/commands.hpp"

namespace ptune::cli {

std::unique_ptr<Command> make_advise() { return make_not_implemented("advise"); }

}  // namespace ptune::cli
