#pragma once
// `ptune history confirm` (docs/HISTORY.md "Confirmation"): its options and run, kept apart from
// history.cpp's other actions.

#include <string>

#include <CLI/CLI.hpp>

#include "cli/command.hpp"
#include "ptune/history/confirm.hpp"

namespace ptune::cli {

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
