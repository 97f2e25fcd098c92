#pragma once
// The actions of `ptune history` that write or take their own inputs, apart from history.cpp:
// `add` (record a run) and `confirm` (the ABBA confirmation, docs/HISTORY.md "Confirmation").

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/command.hpp"
#include "cli/loop_options.hpp"
#include "ptune/history/confirm.hpp"
#include "ptune/history/pipeline.hpp"

namespace ptune::cli {

class HistoryAdd {
  public:
    /// Adds the `add` action to `history`; returns it.
    CLI::App* add_to(CLI::App& history);
    /// Builds the run from its inputs and records it (created when missing).
    int run(Context& context, const std::string& db, const history::OpenOptions& open);

  private:
    std::vector<std::string> inputs_;
    std::vector<std::string> labels_;
    history::RunMeta meta_;
    LoopOptions loop_;  // the loop facts a [STRACE] log does not print
};

class HistoryConfirm {
  public:
    /// Adds the `confirm` action to `history`; returns it.
    CLI::App* add_to(CLI::App& history);
    /// Runs it: exit 1 when a regression is confirmed, 0 when not, 2 when the four runs are no
    /// confirmation (a differing identity part, a missing case).
    int run(Context& context, const std::string& db, const history::OpenOptions& open);

  private:
    history::ConfirmRequest request_;
};

}  // namespace ptune::cli
