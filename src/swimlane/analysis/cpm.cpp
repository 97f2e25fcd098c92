// CPM_static.json / CPM_observed.json (upstream-2026-09.md §4) and their comparison with
// swimlane-analyze's own critical path.

#include "ptune/swimlane/cpm.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ptune/core/json_walk.hpp"

namespace ptune::swimlane {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kAnonymous = "\xC2\xB7(";  // U+00B7 MIDDLE DOT + '('

/// Collects the Worker View bars of a trace (object with traceEvents, or a bare list).
class CpmWalker final : public json_stream::JsonWalker {
  public:
    explicit CpmWalker(CpmPath& path) : path_(path) {}

  private:
    /// Depth of an event object: 1 in a bare list, 2 under traceEvents.
    bool in_event(std::size_t level) const { return event_level_ != 0 && level >= event_level_; }

    void on_open(std::size_t level, bool is_object) override {
        if (level == 0) {
            bare_list_ = !is_object;
            return;
        }
        bool event_container = bare_list_ ? level == 1 : (level == 2 && key_at(1) == "traceEvents");
        if (event_container && is_object) {
            event_level_ = level;
            event_ = {};
        }
    }
    void on_close(std::size_t level, bool is_object) override {
        if (event_level_ != 0 && level == event_level_ && is_object) {
            event_level_ = 0;
            if (event_.ph == "X" && event_.pid == 4 && event_.has_task) {
                ++path_.worker_bars;
                if (!std::string_view(event_.name).starts_with(kAnonymous))
                    path_.critical.push_back({event_.task_id, event_.name, event_.ts, event_.dur});
            }
        }
    }
    void on_scalar(const json_stream::Scalar& value) override {
        std::size_t level = depth();
        if (!bare_list_ && level == 2 && key_at(1) == "metadata" && key_at(2) == "runtime" &&
            value.type == json_stream::Scalar::Type::String) {
            path_.runtime.assign(value.text);
            return;
        }
        if (!in_event(level)) return;
        if (level == event_level_ + 1) {
            std::string_view key = key_at(level);
            if (key == "ph" && value.type == json_stream::Scalar::Type::String) {
                event_.ph.assign(value.text);
            } else if (key == "pid" && value.is_int()) {
                event_.pid = value.integer;
            } else if (key == "name" && value.type == json_stream::Scalar::Type::String) {
                event_.name.assign(value.text);
            } else if (key == "ts" && value.is_number()) {
                event_.ts = value.number;
            } else if (key == "dur" && value.is_number()) {
                event_.dur = value.number;
            }
        } else if (level == event_level_ + 2 && key_at(level - 1) == "args" &&
                   key_at(level) == "taskId") {
            event_.has_task = value.as_id(event_.task_id);
        }
    }

    struct Event {
        std::string ph, name;
        std::int64_t pid = -1;
        double ts = 0, dur = 0;
        std::uint64_t task_id = 0;
        bool has_task = false;
    };
    CpmPath& path_;
    bool bare_list_ = false;
    std::size_t event_level_ = 0;
    Event event_;
};

std::string ids_text(const std::vector<std::string>& labels) {
    if (labels.empty()) return "-";
    std::string out;
    for (const auto& label : labels) out += (out.empty() ? "" : ", ") + label;
    return out;
}

}  // namespace

Result<CpmPath> read_cpm(std::istream& in, const std::string& source) {
    CpmPath path;
    path.source = source;
    std::string name = fs::path(source).filename().string();
    path.kind = name.find("observed") != std::string::npos ? "observed" : "static";
    CpmWalker walker(path);
    if (!json_stream::walk(in, walker))
        return Error{walker.error_message(), source, walker.error_line(), ExitCode::InputError};
    if (path.worker_bars == 0)
        return Error{"no Worker View bar (pid 4, ph X) with args.taskId: not a CPM trace", source,
                     0, ExitCode::InputError};
    // One entry per task (a task may have several bars), by start time.
    std::map<std::uint64_t, CpmTask> by_task;
    for (CpmTask& task : path.critical) {
        auto [it, inserted] = by_task.try_emplace(task.task_id, task);
        if (!inserted) {
            double end = std::max(it->second.ts_us + it->second.dur_us, task.ts_us + task.dur_us);
            it->second.ts_us = std::min(it->second.ts_us, task.ts_us);
            it->second.dur_us = end - it->second.ts_us;
        }
    }
    path.critical.clear();
    for (auto& [id, task] : by_task) path.critical.push_back(std::move(task));
    std::stable_sort(path.critical.begin(), path.critical.end(),
                     [](const CpmTask& a, const CpmTask& b) { return a.ts_us < b.ts_us; });
    return path;
}

std::vector<CpmPath> find_cpm(const fs::path& dir, Diagnostics& diagnostics) {
    std::vector<CpmPath> paths;
    for (const char* name : {"CPM_static.json", "CPM_observed.json"}) {
        fs::path file = dir / name;
        std::error_code error;
        if (!fs::is_regular_file(file, error)) continue;
        std::ifstream in(file, std::ios::binary);
        auto path = read_cpm(in, file.string());
        if (!path) {
            diagnostics.warn(path.error().file, path.error().line,
                             path.error().message + "; not compared");
            continue;
        }
        paths.push_back(std::move(*path));
    }
    return paths;
}

void add_cpm_comparison(render::Report& report, const fs::path& records, const CriticalPath& ours,
                        Diagnostics* diagnostics) {
    Diagnostics ignored;
    std::vector<CpmPath> paths =
        find_cpm(records.parent_path(), diagnostics ? *diagnostics : ignored);
    if (paths.empty()) return;
    std::set<std::uint64_t> our_ids;
    std::map<std::uint64_t, std::string> our_labels;
    for (const PathStep& step : ours.tasks) {
        our_ids.insert(step.task_id);
        our_labels[step.task_id] = step.label;
    }
    render::Table table;
    table.title = "Critical path: ptune vs simpler's critical_path (CPM_*.json)";
    table.columns = {"path", "tasks", "on both", "only ptune's", "only theirs", "their path"};
    table.align = {render::Align::Left, render::Align::Right, render::Align::Right,
                   render::Align::Left, render::Align::Left,  render::Align::Left};
    nlohmann::json data = nlohmann::json::array();
    for (const CpmPath& path : paths) {
        std::set<std::uint64_t> theirs;
        std::vector<std::string> their_names, only_theirs, only_ours;
        std::size_t both = 0;
        nlohmann::json ids = nlohmann::json::array();
        for (const CpmTask& task : path.critical) {
            theirs.insert(task.task_id);
            their_names.push_back(task.name);
            ids.push_back(task.task_id);
            if (our_ids.count(task.task_id)) {
                ++both;
            } else {
                only_theirs.push_back(task.name);
            }
        }
        for (const PathStep& step : ours.tasks) {
            if (!theirs.count(step.task_id)) only_ours.push_back(step.label);
        }
        table.rows.push_back({fmt::format("CPM_{}", path.kind),
                              std::to_string(path.critical.size()),
                              ours.available ? std::to_string(both) : "-",
                              ours.available ? ids_text(only_ours) : "-", ids_text(only_theirs),
                              ids_text(their_names)});
        data.push_back(
            {{"kind", path.kind},
             {"source", path.source},
             {"runtime", path.runtime.empty() ? nlohmann::json() : nlohmann::json(path.runtime)},
             {"task_ids", std::move(ids)},
             {"on_both", both},
             {"same_tasks", ours.available && only_ours.empty() && only_theirs.empty()}});
    }
    if (!ours.available)
        report.notes.push_back("CPM_*.json found but ptune has no critical path (no deps.json)");
    report.tables.push_back(std::move(table));
    report.data["cpm"] = std::move(data);
}

}  // namespace ptune::swimlane
