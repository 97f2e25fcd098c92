// ptune mem-report (not built yet: registered so that --help lists it; exits 2).

#include "cli/commands/commands.hpp"

namespace ptune::cli {

std::unique_ptr<Command> make_mem_report() { return make_not_implemented("mem-report"); }

}  // namespace ptune::cli
