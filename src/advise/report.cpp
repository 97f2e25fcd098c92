// The advise report in every format: the format-neutral Report (text, markdown, json) and the
// self-contained HTML page.

#include <algorithm>
#include <map>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ptune/advise/advisor.hpp"
#include "ptune/core/stats.hpp"
#include "ptune/core/terminal.hpp"
#include "ptune/core/text.hpp"
#include "ptune/core/version.hpp"

namespace ptune::advise {

namespace {

std::string impact_text(const RankedFinding& ranked) {
    if (ranked.impact_basis.empty()) return "-";
    return stats::format_ratio(ranked.impact);
}

nlohmann::json inventory_json(const Inventory& inventory) {
    nlohmann::json found = nlohmann::json::array();
    for (const auto& artifact : inventory.found) {
        found.push_back({{"kind", std::string(to_string(artifact.kind))},
                         {"path", artifact.path.string()},
                         {"scope", artifact.scope}});
        if (!artifact.read.empty()) found.back()["read"] = artifact.read;
    }
    nlohmann::json missing = nlohmann::json::array();
    for (const auto& absent : inventory.missing) {
        missing.push_back({{"kind", std::string(to_string(absent.kind))}, {"why", absent.why}});
    }
    nlohmann::json refused = nlohmann::json::array();
    for (const auto& file : inventory.refused) {
        refused.push_back({{"kind", std::string(to_string(file.kind))},
                           {"path", file.path.string()},
                           {"reason", file.reason}});
    }
    nlohmann::json unreadable = nlohmann::json::array();
    for (const auto& directory : inventory.unreadable)
        unreadable.push_back({{"path", directory.path.string()}, {"reason", directory.reason}});
    return {{"found", std::move(found)},
            {"missing", std::move(missing)},
            {"refused", std::move(refused)},
            {"unreadable", std::move(unreadable)}};
}

std::string_view short_id(const rules::Finding& finding) {
    return finding.catalogue.empty() ? std::string_view(finding.rule)
                                     : std::string_view(finding.catalogue);
}

std::string ranked_id(const RankedFinding& ranked) {
    return ranked.rank > 0 ? fmt::format("#{} {}", ranked.rank, short_id(ranked.finding))
                           : std::string(short_id(ranked.finding));
}

std::string merged_ids(const RankedFinding& ranked) {
    std::vector<std::string> ids;
    for (const auto& folded : ranked.merged) {
        std::string id(short_id(folded));
        // The same rule of another kernel (merged across kernels) is the order itself.
        if (id == short_id(ranked.finding) && folded.subject != ranked.finding.subject) continue;
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(std::move(id));
    }
    return fmt::format("{}", fmt::join(ids, ", "));
}

// The title of an order merged across kernels: every kernel up to four, else the first three
// and how many more (a 16-rank tree); JSON's `kernels` lists them all.
std::string kernels_title(const std::vector<std::string>& kernels) {
    if (kernels.size() <= 4) return fmt::format("kernels {}", fmt::join(kernels, ", "));
    return fmt::format("kernels {}, {}, {} and {} more", kernels[0], kernels[1], kernels[2],
                       kernels.size() - 3);
}

const char* step_name(int step) {
    switch (static_cast<Step>(step)) {
        case Step::Inputs:
            return "inputs";
        case Step::Regression:
            return "regression";
        case Step::Schedule:
            return "schedule";
        case Step::OverLimit:
            return "over-limit";
        case Step::SiteHint:
            return "site-hint";
        case Step::DepthHint:
            return "depth-hint";
        case Step::Tiling:
            return "tiling";
        case Step::Diagnosis:
            return "diagnosis";
        default:
            return "other";
    }
}

// "what to change": the advice's first sentence (the rest, the evidence and the guide item are
// in -v and the markdown and HTML reports); the message when a rule gives no advice.
std::string change_text(const rules::Finding& finding) {
    std::string_view text = finding.advice.empty() ? finding.message : finding.advice;
    int depth = 0;  // a ';' inside parentheses does not end the sentence
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
        if (text[i] == '(') ++depth;
        if (text[i] == ')' && depth > 0) --depth;
        if (depth == 0 && (text[i] == '.' || text[i] == ';') && text[i + 1] == ' ') {
            // "e.g. ", "i.e. ": not the end of a sentence.
            if (i >= 3 && (text.substr(i - 3, 4) == "e.g." || text.substr(i - 3, 4) == "i.e."))
                continue;
            text = text.substr(0, i);
            break;
        }
    }
    if (!text.empty() && text.back() == '.') text.remove_suffix(1);
    return std::string(text);
}

std::string location_text(const rules::Location& location) {
    std::string where = location.file;
    if (location.line) where += fmt::format(":{}", location.line);
    if (location.column) where += fmt::format(":{}", location.column);
    return where;
}

// Where to make the change: a source line a hint names, else the subject or the first location
// of a run-wide finding (a kernel's own findings sit under its name).
std::string where_text(const RankedFinding& ranked) {
    for (const auto& location : ranked.finding.locations) {
        if (location.file.ends_with(".py")) return location_text(location);
    }
    // A run-wide finding about one thing (a dispatch `d0 (run1:0)`, a rank's kernel) names it.
    if (ranked.plan.empty() && ranked.finding.subject.kind != "run")
        return ranked.finding.subject.kind + " " + ranked.finding.subject.name;
    if (ranked.plan.empty() && !ranked.finding.locations.empty())
        return location_text(ranked.finding.locations.front());
    return "";
}

std::string gain_text(const RankedFinding& ranked) {
    if (ranked.impact_basis.empty()) return "";
    // Per-kernel rules estimate with the kernel's share of kernel time too.
    std::string_view of =
        !ranked.plan.empty() || ranked.impact_basis == "kernel's share of kernel time"
            ? "of kernel time"
            : "of the run";
    return fmt::format("gain ≤{} {}", stats::format_ratio(ranked.impact), of);
}

// `text` cut at a blank so that it takes at most `room` columns, with "…" when cut.
std::string cut_to(std::string_view text, std::size_t room) {
    if (term::display_width(text) <= room) return std::string(text);
    std::string out;
    std::size_t used = 0;
    for (const auto& word : text::split(text, ' ')) {
        std::size_t need = term::display_width(word) + (out.empty() ? 0 : 1);
        if (used + need + 1 > room) break;
        if (!out.empty()) out += ' ';
        out += word;
        used += need;
    }
    return out + "…";
}

const char* group_title(const RankedFinding& ranked) {
    switch (static_cast<Step>(ranked.step)) {
        case Step::Inputs:
            return "Inputs";
        case Step::Regression:
            return "Regressions against the baseline";
        case Step::Schedule:
            return "Schedule (guide Part 1)";
        default:
            return "Whole program";
    }
}

const char* severity_sgr(rules::RuleSeverity severity) {
    switch (severity) {
        case rules::RuleSeverity::Error:
            return "1;31";
        case rules::RuleSeverity::Warning:
            return "33";
        default:
            return "36";
    }
}

rules::RuleSeverity worst_of(const RankedFinding& ranked) {
    rules::RuleSeverity worst = ranked.finding.severity;
    for (const auto& folded : ranked.merged) worst = std::max(worst, folded.severity);
    return worst;
}

// The plan, one line per order (two at most at the width), grouped per kernel.
class AdviceTextRenderer : public render::Renderer {
  public:
    AdviceTextRenderer(const Advice& advice, bool verbose) : advice_(advice), verbose_(verbose) {}

    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions& options) const override {
        const std::size_t width = options.width == 0 ? 100 : options.width;
        const Inventory& inventory = advice_.inventory;
        std::size_t orders = 0, deferred = 0, merged = 0;
        std::map<rules::RuleSeverity, std::size_t> by_severity;
        for (const auto& ranked : advice_.findings) {
            (ranked.rank > 0 ? orders : deferred) += 1;
            merged += ranked.merged.size();
            if (ranked.rank > 0) ++by_severity[worst_of(ranked)];
        }
        std::string head = fmt::format(
            "{}{}: {} finding(s), {} order(s) ({} error, {} warning, {} note)",
            inventory.run_dir.string(),
            inventory.program.empty() ? "" : fmt::format(" ({})", inventory.program),
            orders + deferred + merged, orders, by_severity[rules::RuleSeverity::Error],
            by_severity[rules::RuleSeverity::Warning], by_severity[rules::RuleSeverity::Info]);
        if (merged > 0) head += fmt::format(", {} merged", merged);
        if (deferred > 0) head += fmt::format(", {} not now", deferred);
        out << term::hang("", head, width, 2) << '\n';
        std::size_t missing = inventory.missing.size() + inventory.refused.size();
        out << term::hang("",
                          fmt::format("artifacts: {} read, {} missing or refused (-v lists them)",
                                      inventory.found.size(), missing),
                          width, 2)
            << '\n';
        // What could not be read is said in full: the report rests on part of the run.
        render::Table unread;
        unread.title = "Not read";
        unread.columns = {"kind", "status", "path or reason"};
        for (auto& row : inventory.rows()) {
            if (row.status == "refused" || row.status == "unreadable")
                unread.rows.push_back(
                    {std::move(row.kind), std::move(row.status), std::move(row.text)});
        }
        if (!unread.rows.empty()) {
            out << '\n';
            render::write_text_table(unread, out, options.width, options.color);
        }
        if (advice_.findings.empty()) out << "\nNo rule fired on this run.\n";

        // The id column is as wide as the longest id shown (catalogue numbers, a few rule ids).
        // A long rule id (no catalogue number) widens its own line only.
        std::size_t id_width = 2;
        for (const auto& ranked : advice_.findings) {
            std::size_t id = term::display_width(short_id(ranked.finding));
            if (id <= 4) id_width = std::max(id_width, id);
        }
        std::string group;
        for (const auto& ranked : advice_.findings) {
            std::string title = ranked.plan.empty()         ? group_title(ranked)
                                : ranked.kernels.size() > 1 ? kernels_title(ranked.kernels)
                                                            : "kernel " + ranked.plan;
            if (title != group) {
                group = title;
                double share = 0;
                for (const auto& other : advice_.findings)
                    if (other.plan == ranked.plan && !other.impact_basis.empty())
                        share = std::max(share, other.impact);
                if (!ranked.plan.empty() && share > 0)
                    title += fmt::format(" ({} of kernel time)", stats::format_ratio(share));
                out << '\n'
                    << term::paint(term::hang("", title, width, 2), "1", options.color) << '\n';
            }
            write_line(ranked, id_width, width, options.color, out);
        }
        out << '\n'
            << term::hang("",
                          "Evidence, full advice and guide items: -v, or --format markdown or "
                          "html; one rule: ptune rules explain ID.",
                          width, 2)
            << '\n';
        if (!verbose_) return;
        render::Report full = report;
        std::erase_if(full.tables, [](const render::Table& table) {
            return table.title == "What to fix first";
        });
        out << '\n';
        render::make_standard_renderer("text")->render(full, out, options);
    }

  private:
    static void write_line(const RankedFinding& ranked, std::size_t id_width, std::size_t width,
                           bool color, std::ostream& out) {
        rules::RuleSeverity severity = worst_of(ranked);
        std::string rank = ranked.rank > 0           ? std::to_string(ranked.rank)
                           : ranked.sites_of.empty() ? "-"
                                                     : "·";
        std::string sev(rules::to_string(severity));
        std::string id(short_id(ranked.finding));
        std::string prefix =
            fmt::format("{:>3} {:<7} {}{} ", rank, sev, id,
                        std::string(id_width - std::min(id_width, term::display_width(id)), ' '));
        std::size_t indent = term::display_width(prefix);
        std::string where = where_text(ranked);
        std::string tail;
        if (std::string also = merged_ids(ranked); !also.empty())
            tail += fmt::format(" (also {})", also);
        std::string gain = gain_text(ranked);
        if (ranked.not_now.empty() && !gain.empty()) tail += "; " + gain;
        std::string change = ranked.step == static_cast<int>(Step::Inputs)
                                 ? ranked.finding.message
                                 : change_text(ranked.finding);
        if (!ranked.sites_of.empty()) {
            change = fmt::format("the sites of {}: {}", ranked.sites_of, ranked.finding.message);
            tail.clear();
        }
        if (!ranked.not_now.empty()) change = "not now, because " + ranked.not_now + ": " + change;
        // At most two lines: the change gives way first, with "…" where it was cut.
        std::size_t avail = width > indent + 10 ? width - indent : 40;
        if (!where.empty())
            where = term::elide_left(where, std::min<std::size_t>(avail / 2, 48)) + ": ";
        std::string body;
        std::size_t budget = 2 * avail;
        for (int attempt = 0; attempt < 8; ++attempt) {
            body = where +
                   cut_to(change, budget > term::display_width(where + tail) + 8
                                      ? budget - term::display_width(where + tail)
                                      : 8) +
                   tail;
            std::string laid = term::hang(prefix, body, width, indent);
            if (std::count(laid.begin(), laid.end(), '\n') <= 1) break;
            budget -= std::min<std::size_t>(budget, 12);
        }
        std::string laid = term::hang(prefix, body, width, indent);
        // Colour the severity after the layout.
        std::size_t at = laid.find(sev);
        if (color && at != std::string::npos)
            laid = laid.substr(0, at) + term::paint(sev, severity_sgr(severity), true) +
                   laid.substr(at + sev.size());
        out << laid << '\n';
    }

    const Advice& advice_;
    bool verbose_;
};

}  // namespace

const char* tier_title(int tier) {
    switch (tier) {
        case 0:
            return "Regressions against the baseline";
        case 1:
            return "Tier 1: inter-kernel schedule (guide Part 1)";
        case 2:
            return "Tier 2: each kernel's pipeline (guide Part 2)";
        default:
            return "Measurement and other";
    }
}

std::shared_ptr<render::Renderer> make_text_renderer(const Advice& advice, bool verbose) {
    return std::make_shared<AdviceTextRenderer>(advice, verbose);
}

render::Report to_report(const Advice& advice) {
    render::Report report;
    report.command = "advise";
    report.include_findings_in_json = false;
    const Inventory& inventory = advice.inventory;
    report.data["run"] = {{"dir", inventory.run_dir.string()},
                          {"program", inventory.program},
                          {"timestamp", inventory.timestamp}};
    report.data["artifacts"] = inventory_json(inventory);
    nlohmann::json sections = nlohmann::json::object();
    for (const auto& section : advice.sections) {
        // Sections that share an id (the host tables) keep the data the first one carries.
        if (section.data.empty() && sections.contains(section.id)) continue;
        sections[section.id] = section.data;
    }
    report.data["analyses"] = std::move(sections);
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& ranked : advice.findings) {
        nlohmann::json entry = render::finding_to_json(ranked.finding);
        entry["rank"] = ranked.rank > 0 ? nlohmann::json(ranked.rank) : nlohmann::json();
        entry["tier"] = ranked.tier;
        entry["impact"] =
            ranked.impact_basis.empty() ? nlohmann::json() : nlohmann::json(ranked.impact);
        entry["impact_basis"] = ranked.impact_basis;
        entry["plan"] = ranked.plan;
        if (ranked.kernels.size() > 1) entry["kernels"] = ranked.kernels;
        entry["step"] = step_name(ranked.step);
        entry["not_now"] =
            ranked.not_now.empty() ? nlohmann::json() : nlohmann::json(ranked.not_now);
        nlohmann::json merged = nlohmann::json::array();
        for (const auto& folded : ranked.merged) merged.push_back(render::finding_to_json(folded));
        entry["merged"] = std::move(merged);
        findings.push_back(std::move(entry));
    }
    report.data["findings"] = std::move(findings);

    render::Table run;
    run.title = "Run";
    run.columns = {"", ""};
    run.rows.push_back({"directory", inventory.run_dir.string()});
    if (!inventory.program.empty()) run.rows.push_back({"program", inventory.program});
    if (!inventory.timestamp.empty()) run.rows.push_back({"timestamp", inventory.timestamp});
    report.tables.push_back(std::move(run));

    render::Table artifacts;
    artifacts.title = "Artifacts";
    artifacts.columns = {"kind", "status", "path or reason"};
    for (auto& row : inventory.rows())
        artifacts.rows.push_back({std::move(row.kind), std::move(row.status), std::move(row.text)});
    report.tables.push_back(std::move(artifacts));

    render::Table ranking;
    ranking.title = "What to fix first";
    ranking.columns = {"#", "impact", "severity", "rule", "plan", "step", "finding"};
    ranking.align = {render::Align::Right, render::Align::Right};
    for (const auto& ranked : advice.findings) {
        std::string text = ranked.finding.message;
        if (std::string also = merged_ids(ranked); !also.empty())
            text += fmt::format(" (also {})", also);
        if (!ranked.sites_of.empty()) text = "the sites of " + ranked.sites_of + ": " + text;
        if (!ranked.not_now.empty()) text = "not now, because " + ranked.not_now + ". " + text;
        ranking.rows.push_back(
            {ranked.rank > 0 ? std::to_string(ranked.rank) : "-", impact_text(ranked),
             std::string(rules::to_string(ranked.finding.severity)), ranked.finding.rule,
             ranked.plan.empty() ? "run" : ranked.plan, step_name(ranked.step), std::move(text)});
    }
    if (ranking.rows.empty()) report.notes.push_back("No rule fired on this run.");
    report.tables.push_back(std::move(ranking));
    for (const auto& section : advice.sections) {
        render::Table table = section.table;
        table.title = section.title;
        report.tables.push_back(std::move(table));
    }
    // The full findings (evidence, advice, guide item) after the tables, in plan order, each
    // followed by the findings folded into it. (The "picked ..." note is said on stderr.)
    for (const auto& ranked : advice.findings) {
        rules::Finding shown = ranked.finding;
        if (!ranked.not_now.empty())
            shown.message = "not now, because " + ranked.not_now + ". " + shown.message;
        report.findings.push_back(std::move(shown));
        for (const auto& folded : ranked.merged) {
            rules::Finding also = folded;
            also.message = fmt::format("(same order as {}) {}", ranked_id(ranked), also.message);
            report.findings.push_back(std::move(also));
        }
    }
    return report;
}

}  // namespace ptune::advise
