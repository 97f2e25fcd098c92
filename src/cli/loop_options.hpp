#pragma once
// The loop facts a `[STRACE]` capture may not print (warmup, rounds, L3), as options shared by
// every command that reads benchmark logs (bench-summary, history add): one spelling, one help.

#include <CLI/CLI.hpp>

#include "ptune/bench/model.hpp"

namespace ptune::cli {

/// --warmup, --rounds, --distributed, --resident and --kernel on one (sub)command.
class LoopOptions {
  public:
    /// Registers the options on `app`.
    void add_to(CLI::App& app);
    /// The options given, into `strace` (those left unset are read off the log or inferred).
    void apply(bench::StraceOptions& strace) const;

  private:
    std::size_t warmup_ = bench::kDefaultWarmup;
    std::size_t rounds_ = bench::kDefaultRounds;
    bool distributed_ = false;
    bool resident_ = false;
    std::string kernel_;
    CLI::Option* warmup_option_ = nullptr;
    CLI::Option* rounds_option_ = nullptr;
    CLI::Option* kernel_option_ = nullptr;
};

}  // namespace ptune::cli
