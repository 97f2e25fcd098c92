#pragma once
/// @file confirm.hpp
/// `ptune history confirm`: the parent → candidate → candidate → parent re-measurement of a
/// flagged case (upstream-2026-12.md §3.4, §3.6 item 5; docs/HISTORY.md "Confirmation"). The
/// four runs must share case contract, toolchain epoch, device epoch and lineage generation, or
/// they are not a confirmation (exit 2). Upstream does not specify the decision rule over the
/// four runs; ptune applies the spec's **proposal**: a regression is confirmed when both
/// candidate runs are slower than both parent runs by more than the absolute threshold.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/history/model.hpp"
#include "ptune/history/pipeline.hpp"
#include "ptune/render/report.hpp"

namespace ptune::history {

/// What confirm compares.
struct ConfirmRequest {
    /// Four runs in ABBA order: parent, candidate, candidate, parent. Each is inputs as
    /// `history add` reads them (a lane suite-result.json, a journal, a log…), or `run:N`, a run
    /// recorded in the history at `location` (with its stored identity, lineage included).
    std::vector<std::string> runs;
    std::string location;  ///< the history database, for `run:N`
    OpenOptions open;
    std::string only;           ///< one case; empty: every case the four runs share
    double min_delta_us = 0.5;  ///< the absolute threshold (µs)
    /// Identity parts for file runs that do not carry them (`--lineage`, `--contract`…).
    RunMeta meta;
};

/// One case's four values and the decision.
struct Confirmation {
    std::string name;
    double parent1 = 0, candidate1 = 0, candidate2 = 0, parent2 = 0;
    double margin_us = 0;  ///< min(candidates) − max(parents)
    bool confirmed = false;
};

/// The four runs' decisions.
struct ConfirmResult {
    std::vector<Confirmation> cases;
    Epoch identity;  ///< the shared identity
    double min_delta_us = 0;
    bool confirmed() const;
};

/// The rule of the proposal on four values (µs): both candidates slower than both parents by more
/// than `min_delta_us`.
Confirmation decide(const std::string& name, double parent1, double candidate1, double candidate2,
                    double parent2, double min_delta_us);

/// Reads the four runs, checks they share contract, toolchain epoch, device epoch and lineage
/// generation per case (an error naming the part and the runs when not: "not a confirmation"),
/// and decides every case the four share (or `only`). A case missing from a run, or a run
/// without a number for it, is an error (exit 2).
Result<ConfirmResult> confirm(const ConfirmRequest& request, Diagnostics& diagnostics);

/// The report: one row per case (parent, candidate, candidate, parent, margin, verdict), notes
/// with the rule and the identity.
render::Report confirm_report(const ConfirmResult& result);

}  // namespace ptune::history
