#pragma once
// The multi-card (L3) mode shared by swimlane-analyze, pmu-analyze and swimlane-merge: the
// --dispatch / --dispatch-id options and the run over a rank<N>/d<K>/ tree (ptune/l3/).

#include <string>
#include <vector>

#include "cli/command.hpp"
#include "ptune/l3/pipeline.hpp"
#include "ptune/l3/ranks.hpp"
#include "ptune/swimlane/discover.hpp"

namespace ptune::cli {

/// The selection options of an L3 tree.
struct L3Options {
    std::string dispatch;     ///< --dispatch dN
    std::string dispatch_id;  ///< --dispatch-id RUN_ID:TASK_SLOT

    /// Adds --dispatch and --dispatch-id (mutually exclusive) to `app`.
    void add_to(CLI::App& app);
    /// True when the user selected a dispatch (so a non-tree input is an error).
    bool selected() const { return !dispatch.empty() || !dispatch_id.empty(); }
    /// The parsed selection.
    Result<l3::Selection> selection() const;
};

/// Whether `input` is an L3 tree (a directory holding rank*/, itself, in dfx_outputs/ or in the
/// newest run).
bool is_l3_tree(const std::string& input);

/// Adds to the context's inputs every file of the captures' folders that reading a capture may
/// take (swimlane::capture_folder_inputs), read this time or not, and for an L3 tree (`input`)
/// its root's host logs: an output over any of them is refused.
void add_capture_folder_inputs(Context& context,
                               const std::vector<swimlane::CaptureFiles>& captures,
                               const std::string& input);

/// The captures of the selected dispatch of an L3 tree, for swimlane-merge (the trace needs
/// every model at once); the tree's gaps go to the context's diagnostics.
/// `tree`, when given, receives the tree read (its root, pairing and sidecars).
Result<std::vector<swimlane::CaptureFiles>> l3_merge_captures(Context& context,
                                                              const std::string& input,
                                                              const L3Options& options,
                                                              l3::Tree* tree_out = nullptr);

/// Completes swimlane-merge's `request` (its base LoadRequest already set; `input` is taken
/// from it): the captures the input holds (swimlane::find_captures), or those of the dispatch
/// `options` select. Refuses --rank-pid without a selection and --deps /
/// --names / -k with one, reads the tree into `tree` and takes its captures. Without a
/// selection the found captures stay.
Flow l3_merge_request(Context& context, const L3Options& options,
                      const std::vector<std::string>& rank_pids, l3::Tree& tree,
                      l3::MultiRankRequest& request);

/// Analyses the tree with `source`'s per-capture pipeline, evaluates the L3.* rules and emits
/// the report; returns the exit code by the command's fail-on policy.
int run_l3_analysis(Context& context, const std::string& input, const L3Options& options,
                    l3::Source source, const l3::TreeOptions& tree_options);

}  // namespace ptune::cli
