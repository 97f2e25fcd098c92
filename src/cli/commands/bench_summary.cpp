// ptune bench-summary (not built yet: registered so that --help lists it; exits 2).

#include "cli/commands/commands.hpp"

namespace ptune::cli {

std::unique_ptr<Command> make_bench_summary() { return make_not_implemented("bench-summary"); }

}  // namespace ptune::cli
