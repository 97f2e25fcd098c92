// The multi-card (L3) mode of the analysis commands (see l3_tree.hpp).

#include "cli/commands/l3_tree.hpp"

#include <CLI/CLI.hpp>

namespace ptune::cli {

void L3Options::add_to(CLI::App& app) {
    auto* d = app.add_option("--dispatch", dispatch,
                             "L3 tree: only dispatch dN of every rank (rank<N>/d<K>/)");
    auto* id = app.add_option("--dispatch-id", dispatch_id,
                              "L3 tree: only the captures whose dispatch_identity.json names "
                              "RUN_ID:TASK_SLOT (one submit_next_level_group)");
    d->excludes(id);
}

Result<l3::Selection> L3Options::selection() const {
    l3::Selection selection;
    if (!dispatch.empty()) {
        auto n = l3::parse_dispatch(dispatch);
        if (!n) return n.error();
        selection.dispatch = *n;
    }
    if (!dispatch_id.empty()) {
        auto parent = l3::parse_dispatch_id(dispatch_id);
        if (!parent) return parent.error();
        selection.parent = *parent;
    }
    return selection;
}

bool is_l3_tree(const std::string& input) {
    return l3::find_root(input).has_value();
}

namespace {

/// The host logs at an L3 tree's root are inputs of the --dispatch placement: an output over
/// one is refused in every mode (it would be read next time).
void add_tree_host_logs(Context& context, const std::filesystem::path& root) {
    for (const auto& log : l3::tree_host_logs(root)) context.add_inputs({log.string()});
}

}  // namespace

void add_capture_folder_inputs(Context& context,
                               const std::vector<swimlane::CaptureFiles>& captures,
                               const std::string& input) {
    for (const swimlane::CaptureFiles& capture : captures)
        if (capture.records != io::kStdinName)
            context.add_inputs(swimlane::capture_folder_inputs(capture.records.parent_path()));
    if (captures.size() > 1)
        if (auto root = l3::find_root(input)) add_tree_host_logs(context, *root);
}

Result<std::vector<swimlane::CaptureFiles>> l3_merge_captures(Context& context,
                                                              const std::string& input,
                                                              const L3Options& options,
                                                              l3::Tree* tree_out) {
    auto selection = options.selection();
    if (!selection) return selection.error();
    auto tree = l3::read_tree(input, *selection);
    if (!tree) return tree.error();
    for (const std::string& note : tree->notes) context.diagnostics.note(input, 0, note);
    for (const std::string& gap : tree->gaps) context.diagnostics.warn(tree->root.string(), 0, gap);
    std::vector<swimlane::CaptureFiles> captures;
    for (const l3::RankCapture& capture : tree->captures) {
        if (capture.records.empty()) continue;
        auto found = swimlane::discover_captures(capture.records);
        if (!found) return found.error();
        for (const auto& note : found->notes) context.diagnostics.note(capture.label, 0, note);
        swimlane::CaptureFiles files = found->captures.front();
        files.rank = capture.rank;
        files.dispatch = capture.dispatch;
        files.label = capture.label;
        captures.push_back(std::move(files));
    }
    if (captures.empty())
        return Error{"no rank of this dispatch has swimlane records", tree->root.string(), 0,
                     ExitCode::InputError};
    if (tree_out) *tree_out = std::move(*tree);
    return captures;
}

Flow l3_merge_request(Context& context, const L3Options& options,
                      const std::vector<std::string>& rank_pids, l3::Tree& tree,
                      l3::MultiRankRequest& request) {
    request.input = request.base.input.string();
    const std::string& input = request.input;
    auto found = swimlane::find_captures(request.base);
    if (!found) return Flow::stop(context.fail(found.error()));
    for (const auto& note : found->notes) context.diagnostics.note(input, 0, note);
    request.captures = std::move(found->captures);
    add_capture_folder_inputs(context, request.captures, input);
    if (!rank_pids.empty() && !options.selected())
        return Flow::stop(
            context.fail(Error{"--rank-pid applies to an L3 tree with --dispatch or "
                               "--dispatch-id (upstream-2026-09.md §1.14)",
                               input, 0, ExitCode::InputError}));
    if (!options.selected()) return Flow::next();
    if (!request.base.deps.empty() || !request.base.names.empty())
        return Flow::stop(
            context.fail(Error{"--deps, --names and -k are refused with --dispatch / "
                               "--dispatch-id (per-rank files are used)",
                               input, 0, ExitCode::InputError}));
    auto selected = l3_merge_captures(context, input, options, &tree);
    if (!selected) return Flow::stop(context.fail(selected.error()));
    request.captures = std::move(*selected);
    request.tree = &tree;
    request.rank_pids = rank_pids;
    request.dispatch = options.dispatch;
    request.dispatch_id = options.dispatch_id;
    return Flow::next();
}

int run_l3_analysis(Context& context, const std::string& input, const L3Options& options,
                    l3::Source source, const l3::TreeOptions& tree_options) {
    auto selection = options.selection();
    if (!selection) return context.fail(selection.error());
    auto tree = l3::read_tree(input, *selection);
    if (!tree) return context.fail(tree.error());
    auto catalogue = context.catalogue();
    if (!catalogue) return context.fail(catalogue.error());
    l3::Comparison comparison = source == l3::Source::Swimlane
                                    ? l3::analyze_swimlane_tree(*tree, **catalogue, tree_options)
                                    : l3::analyze_pmu_tree(*tree, **catalogue, tree_options);
    l3::report_diagnostics(*tree, comparison, context.diagnostics);
    context.add_inputs(l3::inputs(comparison));
    for (const l3::RankCapture& capture : tree->captures)
        context.add_inputs(swimlane::capture_folder_inputs(capture.dir));
    add_tree_host_logs(context, tree->root);
    if (comparison.dispatches.empty())
        return context.fail(Error{source == l3::Source::Swimlane
                                      ? "no rank of this tree has usable swimlane records"
                                      : "no rank of this tree has a usable pmu.csv",
                                  tree->root.string(), 0, ExitCode::InputError});
    rules::MetricStore store;
    l3::publish(comparison, store);
    auto findings = rules::evaluate(**catalogue, store, {"L3."});
    render::Report report =
        l3::build_report(source == l3::Source::Swimlane ? "swimlane-analyze" : "pmu-analyze", *tree,
                         comparison, std::move(findings));
    int code = context.emit(report);
    return code != 0 ? code : context.findings_exit(report.findings);
}

}  // namespace ptune::cli
