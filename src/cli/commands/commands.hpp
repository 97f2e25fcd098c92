#pragma once
// Factories of the subcommands, one per file in this folder.

#include <memory>

#include "cli/command.hpp"

namespace ptune::cli {

std::unique_ptr<Command> make_bench_summary();
std::unique_ptr<Command> make_bench_gate();
std::unique_ptr<Command> make_swimlane_merge();
std::unique_ptr<Command> make_swimlane_analyze();
std::unique_ptr<Command> make_mem_report();
std::unique_ptr<Command> make_hints_lint();
std::unique_ptr<Command> make_pmu_analyze();
std::unique_ptr<Command> make_scope_stats();
std::unique_ptr<Command> make_pipe_trace();
std::unique_ptr<Command> make_serving_trace();
std::unique_ptr<Command> make_advise();
std::unique_ptr<Command> make_rules();
std::unique_ptr<Command> make_history();

}  // namespace ptune::cli
