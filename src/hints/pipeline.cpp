#include "ptune/hints/pipeline.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "ptune/core/discover.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/stats.hpp"

namespace ptune::hints {

namespace fs = std::filesystem;

namespace {

// Adds the logs of the run `input` names (discover::resolve_run: the newest run by the
// timestamp in its name, at any depth; the others are listed, never linted together); false
// when there is none.
bool add_directory_logs(const std::string& input, std::vector<std::string>& logs,
                        Diagnostics& diagnostics) {
    std::string chosen;
    auto run = discover::resolve_run(input, "", 1, &chosen);
    if (!run) {
        diagnostics.error(run.error().file, 0, run.error().message);
        return false;
    }
    if (!chosen.empty()) diagnostics.note(input, 0, chosen);
    std::size_t before = logs.size();
    for (const auto& path : discover::find_files(*run, {std::string(kLogName)}))
        logs.push_back(path.string());
    return logs.size() > before;
}

}  // namespace

LogPaths find_logs(const std::vector<std::string>& inputs, Diagnostics& diagnostics) {
    LogPaths found;
    for (const auto& input : inputs) {
        std::error_code ec;
        if (input == io::kStdinName || !fs::is_directory(input, ec)) {
            found.logs.push_back(input);
        } else if (!add_directory_logs(input, found.logs, diagnostics)) {
            found.clean_directory = true;
            diagnostics.note(input, 0,
                             "no perf_hints.log found (the compiler writes it only when a hint "
                             "fires)");
        }
    }
    return found;
}

std::vector<ParsedLog> read_logs(const std::vector<std::string>& paths, const ReadOptions& options,
                                 Diagnostics& diagnostics) {
    std::vector<ParsedLog> parsed;
    for (const auto& path : paths) {
        auto input = io::open_input(path);
        if (!input) {
            diagnostics.error(input.error().file, input.error().line, input.error().message);
            continue;
        }
        std::size_t warnings_before = diagnostics.count(Severity::Warning);
        ParsedLog log = read_log(input->stream(), path, diagnostics, options.column_base,
                                 column_base_from_build(path));
        bool junk = diagnostics.count(Severity::Warning) > warnings_before;
        if (log.total_entries == 0 && junk) {
            diagnostics.error(path, 0, "no perf hint entries: not a perf_hints.log");
            continue;
        }
        parsed.push_back(std::move(log));
    }
    return parsed;
}

std::size_t adopt_as_baseline(LintResult& result) {
    std::size_t adopted = 0;
    for (auto& diagnostic : result.diagnostics) {
        if (diagnostic.disposition == Disposition::Suppressed) continue;
        ++adopted;
        diagnostic.disposition = Disposition::Baselined;
        diagnostic.suppressed_by = "baseline";
    }
    return adopted;
}

void publish(LintResult& result, rules::MetricStore& store) {
    publish_kernel_metrics(result, store);
    std::set<std::string> kernels;
    for (const auto& [key, subject] : store.subjects()) {
        if (key.kind == "kernel") kernels.insert(key.name);
    }
    for (const auto& [function, metrics] : result.kernels) {
        for (const char* suffix : {"_aic", "_aiv"}) {
            std::string kernel = function + suffix;
            if (!kernels.count(kernel)) continue;
            for (const auto& [name, value] : metrics) store.set("kernel", kernel, name, value);
        }
    }
}

std::vector<RuleSummary> summarise_by_rule(const LintResult& result) {
    std::map<std::string, std::vector<const LintDiagnostic*>> by_rule;
    for (const auto& diagnostic : result.diagnostics) {
        if (diagnostic.disposition == Disposition::Reported)
            by_rule[diagnostic.rule_id].push_back(&diagnostic);
    }
    std::vector<RuleSummary> summaries;
    for (auto& [rule_id, hints] : by_rule) {
        std::stable_sort(hints.begin(), hints.end(),
                         [](const auto* a, const auto* b) { return a->weight > b->weight; });
        // 32 hints on 8 lines are 8 sites: each location once, by its heaviest hint.
        std::set<std::tuple<std::string_view, std::size_t, std::size_t>> seen;
        std::vector<const LintDiagnostic*> sites;
        for (const LintDiagnostic* hint : hints) {
            if (seen.emplace(std::string_view(hint->file.str()), hint->line, hint->column).second)
                sites.push_back(hint);
        }
        const LintDiagnostic& top = *sites.front();
        std::string where =
            top.file.empty() ? "(no location)" : fmt::format("{}:{}", top.file, top.line);
        summaries.push_back({rule_id, std::move(sites), hints.size(), std::move(where)});
    }
    return summaries;
}

rules::Finding summary_finding(const RuleSummary& summary, const rules::Catalogue& catalogue) {
    const LintDiagnostic& top = *summary.sites.front();
    rules::Finding finding;
    finding.rule = summary.rule_id;
    finding.catalogue = top.catalogue;
    finding.severity = top.severity;
    finding.title = top.title;
    std::string count =
        summary.hints == summary.sites.size()
            ? fmt::format("{} site(s)", summary.sites.size())
            : fmt::format("{} hint(s) at {} site(s)", summary.hints, summary.sites.size());
    finding.message = fmt::format("{}; heaviest at {}: {}", count, summary.top_site,
                                  top.advice_summary.empty() ? top.title : top.advice_summary);
    finding.advice = top.advice;
    finding.tier = "pipeline";
    if (const rules::Rule* rule = catalogue.find(summary.rule_id)) {
        finding.guide = rule->guide;
        if (!rule->tier.empty()) finding.tier = rule->tier;
    }
    finding.subject = {"run", "run"};
    finding.evidence["sites"] = static_cast<double>(summary.sites.size());
    for (std::size_t i = 0; i < summary.sites.size() && i < 5; ++i) {
        const LintDiagnostic& site = *summary.sites[i];
        if (!site.file.empty()) finding.locations.push_back({site.file, site.line, site.column});
    }
    return finding;
}

render::Table summary_table(const std::vector<RuleSummary>& summaries) {
    render::Table table;
    table.columns = {"code", "sites", "top site", "weight"};
    table.align = {render::Align::Left, render::Align::Right, render::Align::Left,
                   render::Align::Right};
    for (const auto& summary : summaries) {
        table.rows.push_back({summary.rule_id, std::to_string(summary.sites.size()),
                              summary.top_site,
                              stats::format_fixed(summary.sites.front()->weight, 0)});
    }
    return table;
}

nlohmann::json summary_json(const std::vector<RuleSummary>& summaries) {
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& summary : summaries) {
        entries.push_back({{"rule", summary.rule_id},
                           {"sites", summary.sites.size()},
                           {"top", summary.top_site}});
    }
    return entries;
}

void report_side_notes(const LintResult& result, const std::string& baseline_path,
                       Diagnostics& diagnostics) {
    for (const auto& unused : result.unused_suppressions) {
        diagnostics.warn(
            unused.file, unused.line,
            unused.code == "*"
                ? std::string("unused suppression: '# ptune: ignore' matches no hint")
                : fmt::format("unused suppression: no {} hint on the line it covers", unused.code));
    }
    for (const auto& fixed : result.fixed) {
        diagnostics.note(
            baseline_path, 0,
            fmt::format("fixed since the baseline: {} {}: {} (refresh with --write-baseline)",
                        fixed.code, fixed.file.empty() ? "<no location>" : fixed.file,
                        fixed.message.substr(0, fixed.message.find('\n'))));
    }
    for (const auto& finding : result.log_findings) {
        diagnostics.note(
            "", 0, fmt::format("{} ({}): {}", finding.rule, finding.catalogue, finding.message));
    }
    std::size_t counts[3] = {0, 0, 0};
    for (const auto& d : result.diagnostics) ++counts[static_cast<int>(d.disposition)];
    diagnostics.note(
        "", 0,
        fmt::format("{} hint(s): {} reported, {} suppressed inline, {} in the baseline{}",
                    result.diagnostics.size(), counts[0], counts[1], counts[2],
                    result.fixed.empty() ? "" : fmt::format(", {} fixed", result.fixed.size())));
}

}  // namespace ptune::hints
