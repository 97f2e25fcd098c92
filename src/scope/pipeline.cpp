// scope_stats pipeline: locate files, read them, publish ring.*/scope.* metrics and build the
// report (upstream-2026-09.md §3.2–§3.4).

#include "ptune/scope/pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "ptune/core/found_files.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"
#include "ptune/render/json_stream.hpp"

namespace ptune::scope {

namespace {

namespace fs = std::filesystem;

constexpr const char* kStatsName = "scope_stats.jsonl";

double round2(double value) {
    // Half to even, as Python's round(x, 2) of the reference values (90.625 -> 90.62).
    return std::nearbyint(value * 100.0) / 100.0;
}

struct Resource {
    const char* key;    ///< JSON and metric name
    const char* label;  ///< table text
    bool bytes;
};
constexpr Resource kResources[] = {
    {"task_window", "task window", false}, {"heap", "heap", true}, {"dep_pool", "dep pool", false}};

const ResourceUse* resource(const ScopeUse& scope, std::size_t index) {
    switch (index) {
        case 0:
            return &scope.task_window;
        case 1:
            return &scope.heap;
        default:
            return scope.dep_pool ? &*scope.dep_pool : nullptr;
    }
}

std::string amount(std::int64_t value, bool bytes) {
    if (!bytes) return fmt::format("{}", value);
    return fmt::format("{:.1f} MiB", static_cast<double>(value) / (1024.0 * 1024.0));
}

std::string pct_text(std::optional<double> pct) {
    return pct ? fmt::format("{:.2f}%", *pct) : "-";
}

nlohmann::json use_json(const ResourceUse& use) {
    nlohmann::json out = nlohmann::json::object();
    out["capacity"] = use.capacity ? nlohmann::json(*use.capacity) : nlohmann::json();
    out["scope_high_water"] = use.high_water;
    out["real_occupancy"] = use.real_occupancy;
    out["scope_alloc"] = use.alloc;
    auto pct = [](std::optional<double> value) {
        return value ? nlohmann::json(round2(*value)) : nlohmann::json();
    };
    out["high_water_pct"] = pct(use.high_water_pct());
    out["real_occupancy_pct"] = pct(use.real_occupancy_pct());
    if (use.approximate) out["approximate"] = true;
    return out;
}

nlohmann::json scope_json(const ScopeUse& scope, const Meta& meta) {
    nlohmann::json out = nlohmann::json::object();
    out["site"] = scope.site;
    out["depth"] = scope.depth;
    out["ring"] = scope.ring;
    out["task_window"] = use_json(scope.task_window);
    out["heap"] = use_json(scope.heap);
    if (scope.dep_pool) out["dep_pool"] = use_json(*scope.dep_pool);
    out["tensormap"] = {{"capacity", meta.tensormap_max},
                        {"in_use_at_end", scope.tensormap_in_use}};
    return out;
}

/// The worst scope of one ring and resource.
struct Worst {
    const ScopeUse* high_water = nullptr;
    const ScopeUse* occupancy = nullptr;
};

/// Per ring (in ring order) and resource, the scopes with the largest high water and
/// real occupancy.
std::map<std::uint32_t, std::array<Worst, 3>> worst_by_ring(const ScopeStats& stats) {
    std::map<std::uint32_t, std::array<Worst, 3>> rings;
    for (const ScopeUse& scope : stats.scopes) {
        auto& worst = rings[scope.ring];
        for (std::size_t i = 0; i < 3; ++i) {
            const ResourceUse* use = resource(scope, i);
            if (use == nullptr) continue;
            if (worst[i].high_water == nullptr ||
                use->high_water > resource(*worst[i].high_water, i)->high_water)
                worst[i].high_water = &scope;
            if (worst[i].occupancy == nullptr ||
                use->real_occupancy > resource(*worst[i].occupancy, i)->real_occupancy)
                worst[i].occupancy = &scope;
        }
    }
    return rings;
}

/// A scope's largest % of any capacity (high water), and which resource.
std::pair<double, std::size_t> scope_peak(const ScopeUse& scope) {
    std::pair<double, std::size_t> best{-1.0, 0};
    for (std::size_t i = 0; i < 3; ++i) {
        const ResourceUse* use = resource(scope, i);
        if (use == nullptr) continue;
        if (auto pct = use->high_water_pct(); pct && *pct > best.first) best = {*pct, i};
    }
    return best;
}

/// A label for one file among several: its directory relative to their common root.
std::string capture_label(const Loaded& loaded, const ScopeStats& stats) {
    if (loaded.files.size() < 2) return "";
    fs::path dir = fs::path(stats.source).parent_path();
    if (dir.filename() == "scope_stats") dir = dir.parent_path();
    return dir.generic_string() + "/";
}

}  // namespace

std::vector<fs::path> find_scope_stats(const fs::path& input) {
    std::error_code error;
    if (!fs::is_directory(input, error)) return {input};
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(
             input, fs::directory_options::skip_permission_denied, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        // A FIFO or device of that name is taken too: reading it then names it (exit 2, as a
        // named one), where skipping it said "no scope_stats.jsonl here".
        if (it->path().filename() == kStatsName &&
            (io::is_file(it->path()) || io::is_special_file(it->path())))
            files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::optional<OrchError> find_orch_error(std::istream& in, const std::string& source) {
    io::LineReader reader(in);
    std::string_view line;
    constexpr std::string_view kKey = "orch_error_code=";
    while (reader.next(line)) {
        std::size_t at = line.find(kKey);
        if (at == std::string_view::npos) continue;
        std::string_view digits = line.substr(at + kKey.size());
        std::size_t n = 0;
        while (n < digits.size() && digits[n] >= '0' && digits[n] <= '9') ++n;
        if (n == 0) continue;
        OrchError error;
        // Every digit counts: a code beyond int is an unknown code, never its first digits.
        error.code_text = std::string(digits.substr(0, std::min<std::size_t>(n, 40)));
        if (n > 40) error.code_text += "...";
        auto value = n <= 10 ? text::parse_uint(digits.substr(0, n)) : std::nullopt;
        error.code = value && *value <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())
                         ? static_cast<int>(*value)
                         : -1;
        error.saw_507018 = line.find("507018") != std::string_view::npos;
        error.file = source;
        error.line = reader.line_number();
        return error;
    }
    return std::nullopt;
}

std::optional<OrchError> find_orch_error_near(const fs::path& stats_file, const fs::path& root,
                                              Diagnostics* diagnostics,
                                              std::vector<std::string>* read) {
    // Lexical paths (as the user gave them), so that messages name files the way they were found.
    std::error_code error;
    fs::path top = root.lexically_normal();
    fs::path dir = stats_file.lexically_normal().parent_path();
    for (int level = 0; level < 6; ++level) {
        std::vector<fs::path> logs;
        for (auto it = fs::directory_iterator(dir.empty() ? "." : dir, error);
             !error && it != fs::directory_iterator(); it.increment(error)) {
            std::string name = it->path().filename().string();
            if (name.starts_with("host.") && name.ends_with(".log"))
                logs.push_back(dir / it->path().filename());
        }
        std::sort(logs.begin(), logs.end());
        // Every host log of a folder searched is an input, also those after the one that names
        // the code: an output over one would change what the next run finds.
        if (read != nullptr)
            for (const fs::path& log : logs) read->push_back(log.string());
        for (const fs::path& log : logs) {
            // A FIFO would block the open and /dev/zero never end: regular files only (a
            // symlink to one is followed).
            static constexpr std::string_view kNotSearched = "not searched for an orch_error_code";
            if (diagnostics != nullptr && io::is_special_file(log)) {
                io::usable_side_file(log, *diagnostics, kNotSearched);
                continue;
            }
            if (!fs::is_regular_file(log, error)) {
                if (diagnostics != nullptr)
                    diagnostics->warn(log.string(), 0,
                                      fmt::format("not a regular file (a dangling link or a "
                                                  "directory); {}",
                                                  kNotSearched));
                error.clear();
                continue;
            }
            std::ifstream in(log, std::ios::binary);
            if (auto found = find_orch_error(in, log.string())) return found;
        }
        if (dir.empty() || dir == top || !dir.has_parent_path() || dir.parent_path() == dir) break;
        dir = dir.parent_path();
    }
    return std::nullopt;
}

Result<Loaded> load(const std::string& input, const std::string& host_log,
                    Diagnostics& diagnostics) {
    Loaded loaded;
    std::vector<fs::path> files;
    if (input == io::kStdinName) {
        files.emplace_back(input);
    } else {
        std::error_code error;
        if (!fs::exists(input, error))
            return Error{"no such file or directory", input, 0, ExitCode::InputError};
        files = find_scope_stats(input);
        if (files.empty())
            return Error{"no scope_stats/scope_stats.jsonl under this directory", input, 0,
                         ExitCode::InputError};
    }
    for (const fs::path& file : files) {
        auto opened = io::open_input(file.string());
        if (!opened) return opened.error();
        auto stats = parse_scope_stats(opened->stream(), file.string(), diagnostics);
        if (!stats) return stats.error();
        loaded.inputs.push_back(file.string());
        loaded.files.push_back(std::move(*stats));
    }
    if (!host_log.empty()) {
        auto opened = io::open_input(host_log);
        if (!opened) return opened.error();
        loaded.inputs.push_back(host_log);
        loaded.orch_error = find_orch_error(opened->stream(), host_log);
    } else if (input != io::kStdinName) {
        fs::path root = fs::is_directory(input) ? fs::path(input) : fs::path(input).parent_path();
        for (const fs::path& file : files) {
            loaded.orch_error =
                find_orch_error_near(file, root.empty() ? "." : root, &diagnostics, &loaded.inputs);
            if (loaded.orch_error) break;
        }
    }
    return loaded;
}

void publish(const Loaded& loaded, rules::MetricStore& store) {
    rules::Subject& run = store.run();
    double dropped = 0, fatal = 0, open = 0, tensormap_pct = 0;
    // Per ring (across files), the worst high-water % of any capacity: for the collapse rule.
    std::map<std::string, double> ring_peak;
    std::string hottest;
    for (const ScopeStats& stats : loaded.files) {
        dropped += static_cast<double>(stats.meta.dropped);
        if (stats.meta.fatal) fatal = 1;
        open += static_cast<double>(stats.open_scopes.size());
        if (!stats.open_scopes.empty()) {
            const OpenScope& last = stats.open_scopes.back();
            run.labels["scope.last_open_site"] =
                fmt::format("{} (depth {}, ring {})", last.site, last.depth, last.ring);
            run.locations.push_back({stats.source, last.line, 0});
        }
        if (stats.meta.tensormap_max > 0) {
            tensormap_pct =
                std::max(tensormap_pct, 100.0 * static_cast<double>(stats.tensormap_peak) /
                                            static_cast<double>(stats.meta.tensormap_max));
        }
        std::string prefix = capture_label(loaded, stats);
        for (const auto& [ring, worst] : worst_by_ring(stats)) {
            std::string name = fmt::format("{}{}", prefix, ring);
            rules::Subject& subject = store.subject("ring", name);
            double max_hw = 0, max_occ = 0;
            for (std::size_t i = 0; i < 3; ++i) {
                if (worst[i].high_water == nullptr) continue;
                const ResourceUse& hw = *resource(*worst[i].high_water, i);
                const ResourceUse& occ = *resource(*worst[i].occupancy, i);
                std::string key = std::string("ring.") + kResources[i].key;
                if (auto pct = hw.high_water_pct()) {
                    subject.metrics[key + ".high_water_pct"] = *pct;
                    subject.labels[key + ".site"] = worst[i].high_water->site;
                    if (*pct > max_hw) {
                        max_hw = *pct;
                        subject.labels["ring.max.resource"] = kResources[i].label;
                        subject.labels["ring.max.site"] = worst[i].high_water->site;
                        subject.locations = {{stats.source, worst[i].high_water->end_line, 0}};
                    }
                }
                if (auto pct = occ.real_occupancy_pct()) {
                    subject.metrics[key + ".real_occupancy_pct"] = *pct;
                    subject.labels[key + ".occupancy_site"] = worst[i].occupancy->site;
                    if (*pct > max_occ) {
                        max_occ = *pct;
                        subject.labels["ring.max_occupancy.resource"] = kResources[i].label;
                        subject.labels["ring.max_occupancy.site"] = worst[i].occupancy->site;
                    }
                }
            }
            subject.metrics["ring.max_high_water_pct"] = max_hw;
            subject.metrics["ring.max_real_occupancy_pct"] = max_occ;
            if (max_hw > ring_peak[name]) ring_peak[name] = max_hw;
        }
    }
    double peak = 0, others = 0;
    for (const auto& [name, pct] : ring_peak) {
        if (pct > peak) {
            peak = pct;
            hottest = name;
        }
    }
    for (const auto& [name, pct] : ring_peak) {
        if (name != hottest) others = std::max(others, pct);
    }
    run.metrics["scope.files"] = static_cast<double>(loaded.files.size());
    run.metrics["scope.dropped"] = dropped;
    run.metrics["scope.fatal"] = fatal;
    run.metrics["scope.open_scopes"] = open;
    run.metrics["scope.tensormap.peak_pct"] = tensormap_pct;
    run.metrics["scope.max_high_water_pct"] = peak;
    run.metrics["scope.other_rings_max_pct"] = others;
    run.metrics["scope.rings_used"] = static_cast<double>(ring_peak.size());
    if (!hottest.empty()) run.labels["scope.hottest_ring"] = "ring " + hottest;
    if (loaded.orch_error) {
        const OrchError& error = *loaded.orch_error;
        run.metrics["scope.orch_error_code"] =
            text::parse_double(error.code_text).value_or(static_cast<double>(error.code));
        run.metrics["scope.orch_error_507018"] = error.saw_507018 ? 1 : 0;
        const OrchErrorInfo* info = orch_error_info(error.code);
        run.labels["scope.orch_error_name"] =
            info ? std::string(info->name) : "unknown code " + error.code_text;
        run.labels["scope.orch_error_meaning"] = info ? info->meaning : "not in the upstream table";
        run.labels["scope.orch_error_first_move"] =
            info ? info->first_move : "read the AICPU log around the failure";
        run.locations.push_back({error.file, error.line, 0});
    }
}

std::vector<render::Table> summary_tables(const Loaded& loaded, std::size_t top) {
    std::vector<render::Table> tables;
    render::Table rings;
    rings.title = "Rings: worst scope per resource";
    rings.columns = {"ring", "resource",       "capacity", "high water", "% cap",
                     "site", "real occupancy", "% cap",    "site"};
    rings.align = {render::Align::Left,  render::Align::Left,  render::Align::Right,
                   render::Align::Right, render::Align::Right, render::Align::Left,
                   render::Align::Right, render::Align::Right, render::Align::Left};
    struct Ranked {
        double pct;
        std::size_t resource;
        const ScopeUse* scope;
        const ScopeStats* stats;
    };
    std::vector<Ranked> ranked;
    for (const ScopeStats& stats : loaded.files) {
        std::string prefix = capture_label(loaded, stats);
        for (const auto& [ring, worst] : worst_by_ring(stats)) {
            for (std::size_t i = 0; i < 3; ++i) {
                if (worst[i].high_water == nullptr) continue;
                const ResourceUse& hw = *resource(*worst[i].high_water, i);
                const ResourceUse& occ = *resource(*worst[i].occupancy, i);
                rings.rows.push_back(
                    {fmt::format("{}{}", prefix, ring), kResources[i].label,
                     hw.capacity ? amount(*hw.capacity, kResources[i].bytes) : "-",
                     amount(hw.high_water, kResources[i].bytes) + (hw.approximate ? " ~" : ""),
                     pct_text(hw.high_water_pct()), worst[i].high_water->site,
                     amount(occ.real_occupancy, kResources[i].bytes),
                     pct_text(occ.real_occupancy_pct()), worst[i].occupancy->site});
            }
        }
        rings.rows.push_back({prefix.empty() ? "all" : prefix + "all", "tensormap",
                              amount(stats.meta.tensormap_max, false),
                              amount(stats.tensormap_peak, false),
                              stats.meta.tensormap_max > 0
                                  ? pct_text(100.0 * static_cast<double>(stats.tensormap_peak) /
                                             static_cast<double>(stats.meta.tensormap_max))
                                  : "-",
                              "(peak in use)", "", "", ""});
        for (const ScopeUse& scope : stats.scopes) {
            auto [pct, index] = scope_peak(scope);
            if (pct >= 0) ranked.push_back({pct, index, &scope, &stats});
        }
    }
    tables.push_back(std::move(rings));

    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const Ranked& a, const Ranked& b) { return a.pct > b.pct; });
    render::Table nearest;
    nearest.title = "Scopes nearest their limit";
    nearest.columns = {"site",       "depth", "ring",        "resource",
                       "high water", "% cap", "real occ. %", "line"};
    nearest.align = {render::Align::Left,  render::Align::Right, render::Align::Right,
                     render::Align::Left,  render::Align::Right, render::Align::Right,
                     render::Align::Right, render::Align::Right};
    for (std::size_t i = 0; i < ranked.size() && i < top; ++i) {
        const Ranked& item = ranked[i];
        const ResourceUse& use = *resource(*item.scope, item.resource);
        nearest.rows.push_back({capture_label(loaded, *item.stats) + item.scope->site,
                                fmt::format("{}", item.scope->depth),
                                fmt::format("{}", item.scope->ring),
                                kResources[item.resource].label,
                                amount(use.high_water, kResources[item.resource].bytes),
                                pct_text(use.high_water_pct()), pct_text(use.real_occupancy_pct()),
                                fmt::format("{}", item.scope->end_line)});
    }
    tables.push_back(std::move(nearest));

    render::Table open;
    open.title = "Open scopes (begin without end: the run wedged here)";
    open.columns = {"site", "depth", "ring", "line"};
    for (const ScopeStats& stats : loaded.files) {
        for (const OpenScope& scope : stats.open_scopes) {
            open.rows.push_back({capture_label(loaded, stats) + scope.site,
                                 fmt::format("{}", scope.depth), fmt::format("{}", scope.ring),
                                 fmt::format("{}", scope.line)});
        }
    }
    if (!open.rows.empty()) tables.push_back(std::move(open));
    return tables;
}

render::Report build_report(const Loaded& loaded, std::vector<rules::Finding> findings,
                            std::size_t top, bool json_view) {
    render::Report report;
    report.command = "scope-stats";
    report.tables = summary_tables(loaded, top);
    report.findings = std::move(findings);
    nlohmann::json files = nlohmann::json::array();
    for (const ScopeStats& stats : loaded.files) {
        const Meta& meta = stats.meta;
        nlohmann::json file = nlohmann::json::object();
        file["source"] = stats.source;
        file["version"] = meta.version;
        file["fatal"] = meta.fatal;
        file["dropped"] = meta.dropped;
        file["total"] = meta.total;
        file["samples"] = stats.samples;
        file["capacities"] = {{"task_window_max", meta.task_window_max},
                              {"heap_max", meta.heap_max},
                              {"dep_pool_max", meta.dep_pool_max},
                              {"tensormap_max", meta.tensormap_max}};
        file["tensormap_peak"] = stats.tensormap_peak;
        nlohmann::json scopes = nlohmann::json::array();
        if (json_view) {
            for (const ScopeUse& scope : stats.scopes) scopes.push_back(scope_json(scope, meta));
        }
        file["scopes"] = std::move(scopes);
        nlohmann::json open = nlohmann::json::array();
        for (const OpenScope& scope : stats.open_scopes) {
            open.push_back({{"site", scope.site},
                            {"depth", scope.depth},
                            {"ring", scope.ring},
                            {"line", scope.line}});
        }
        file["open_scopes"] = std::move(open);
        file["unmatched_ends"] = stats.unmatched_ends;
        file["skipped_lines"] = stats.skipped_lines;
        files.push_back(std::move(file));

        std::string prefix = loaded.files.size() > 1 ? stats.source + ": " : "";
        report.notes.push_back(fmt::format(
            "{}scope_stats v{}: {} samples, {} scope(s) paired, {} record(s) dropped of {}, fatal "
            "{}",
            prefix, meta.version, stats.samples, stats.scopes.size(), meta.dropped, meta.total,
            meta.fatal ? "true" : "false"));
        if (meta.version == 4) report.notes.push_back(prefix + "v4 file: no dep pool columns");
        if (stats.heap_approximate) {
            report.notes.push_back(prefix +
                                   "v5 heap counters wrap modulo the ring size: values marked ~ "
                                   "were corrected by adding the capacity and are approximate");
        }
    }
    report.data["files"] = std::move(files);
    if (loaded.files.size() == 1) {
        // The shape of scope_stats.expected.json at the top level for the common single file.
        report.data["fatal"] = loaded.files[0].meta.fatal;
        report.data["dropped"] = loaded.files[0].meta.dropped;
        report.data["scopes"] = report.data["files"][0]["scopes"];
    }
    if (loaded.orch_error) {
        const OrchError& error = *loaded.orch_error;
        const OrchErrorInfo* info = orch_error_info(error.code);
        // A name only for a code of the upstream table (a null char* would not be a string).
        nlohmann::json code =
            error.code >= 0 ? nlohmann::json(error.code) : nlohmann::json(error.code_text);
        nlohmann::json name = info ? nlohmann::json(info->name) : nlohmann::json(nullptr);
        report.data["orch_error"] = {{"code", std::move(code)},
                                     {"name", std::move(name)},
                                     {"aicpu_exception_507018", error.saw_507018},
                                     {"file", error.file},
                                     {"line", error.line}};
        report.notes.push_back(fmt::format(
            "{}:{}: orch_error_code={} {}{}: {}; first move: {}", error.file, error.line,
            error.code_text, info ? std::string(info->name) : "unknown code " + error.code_text,
            error.saw_507018 ? " behind 507018 ACL_ERROR_RT_AICPU_EXCEPTION" : "",
            info ? info->meaning : "not in the upstream table",
            info ? info->first_move : "read the AICPU log around the failure"));
    }
    return report;
}

namespace {

class ScopeJsonRenderer : public render::Renderer {
  public:
    explicit ScopeJsonRenderer(const Loaded& loaded) : loaded_(loaded) {}
    void render(const render::Report& report, std::ostream& out,
                const render::RenderOptions&) const override {
        std::vector<render::LazyArray> arrays;
        for (std::size_t f = 0; f < loaded_.files.size(); ++f) {
            const ScopeStats& stats = loaded_.files[f];
            auto element = [&stats](std::size_t i) {
                return scope_json(stats.scopes[i], stats.meta);
            };
            arrays.push_back({fmt::format("/files/{}/scopes", f), stats.scopes.size(), element});
            if (loaded_.files.size() == 1)
                arrays.push_back({"scopes", stats.scopes.size(), element});
        }
        render::write_json_with_arrays(render::to_json(report), arrays, out);
    }

  private:
    const Loaded& loaded_;
};

}  // namespace

std::unique_ptr<render::Renderer> make_json_renderer(const Loaded& loaded) {
    return std::make_unique<ScopeJsonRenderer>(loaded);
}

}  // namespace ptune::scope
