#include "ptune/core/discover.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace ptune::discover {

namespace fs = std::filesystem;

namespace {
bool all_digits(std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}
bool is_existing_directory(const fs::path& path) {
    std::error_code ec;
    return fs::is_directory(path, ec);
}
}  // namespace

std::optional<RunDir> parse_run_dir_name(const fs::path& path) {
    std::string name = path.filename().string();
    if (name.empty()) name = path.parent_path().filename().string();
    // <Program>_<YYYYMMDD>_<HHMMSS>: the last 16 characters are "_YYYYMMDD_HHMMSS".
    if (name.size() < 17) return std::nullopt;
    std::string_view view(name);
    std::string_view stamp = view.substr(view.size() - 15);
    if (view[view.size() - 16] != '_' || stamp[8] != '_') return std::nullopt;
    if (!all_digits(stamp.substr(0, 8)) || !all_digits(stamp.substr(9))) return std::nullopt;
    RunDir run;
    run.path = path;
    run.program = std::string(view.substr(0, view.size() - 16));
    run.timestamp = std::string(stamp);
    return run;
}

std::vector<RunDir> list_runs(const fs::path& dir) {
    std::vector<RunDir> runs;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_directory(ec)) continue;
        if (auto run = parse_run_dir_name(it->path())) runs.push_back(std::move(*run));
    }
    std::sort(runs.begin(), runs.end(), [](const RunDir& a, const RunDir& b) {
        if (a.timestamp != b.timestamp) return a.timestamp < b.timestamp;
        return a.path.filename() < b.path.filename();
    });
    return runs;
}

fs::path runs_root(const fs::path& dir) {
    fs::path build_output = dir / "build_output";
    return is_existing_directory(build_output) ? build_output : dir;
}

std::vector<RunDir> find_runs(const fs::path& dir, int max_depth) {
    std::vector<RunDir> runs;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
        std::error_code type_error;
        if (!it->is_directory(type_error)) continue;
        if (auto run = parse_run_dir_name(it->path())) {
            runs.push_back(std::move(*run));
            it.disable_recursion_pending();  // a run's own folders are not runs
        } else if (it.depth() + 1 >= max_depth) {
            it.disable_recursion_pending();
        }
    }
    std::sort(runs.begin(), runs.end(), [](const RunDir& a, const RunDir& b) {
        if (a.timestamp != b.timestamp) return a.timestamp < b.timestamp;
        return a.path < b.path;
    });
    return runs;
}

namespace {

// "picked …; also here, not read: …" for stderr.
std::string chosen_run_note(const std::vector<RunDir>& runs, std::size_t chosen, int nth_latest) {
    std::string note = fmt::format(
        "picked {} ({} of {} run(s), chosen by the timestamp in the name, not by mtime)",
        runs[chosen].path.string(),
        nth_latest == 1 ? std::string("newest") : fmt::format("number {} from newest", nth_latest),
        runs.size());
    if (runs.size() < 2) return note;
    constexpr std::size_t kListed = 10;
    note += "; one report never mixes runs, the other run(s) are not read:";
    std::size_t listed = 0;
    for (std::size_t i = runs.size(); i-- > 0;) {
        if (i == chosen) continue;
        if (listed++ == kListed) {
            note += fmt::format(" and {} more", runs.size() - 1 - kListed);
            break;
        }
        note += (listed == 1 ? " " : ", ") + runs[i].path.string();
    }
    return note;
}

}  // namespace

Result<fs::path> resolve_run(const fs::path& dir, const std::string& program, int nth_latest,
                             std::string* chosen_note) {
    if (!is_existing_directory(dir)) {
        std::error_code ec;
        // A file given where a run directory is wanted: say what is wanted, not "missing".
        if (fs::exists(dir, ec))
            return Error{
                "is not a directory: expected a build_output/ directory or one run "
                "directory <Program>_<YYYYMMDD_HHMMSS>/ in it",
                dir.string(), 0, ExitCode::InputError};
        return Error{"no such directory", dir.string(), 0, ExitCode::InputError};
    }
    if (parse_run_dir_name(dir) && program.empty()) return dir;
    // Runs at any depth (a June run beside a September one nested in its project folder): the
    // newest by its name wins, never one report over several runs.
    auto runs = find_runs(dir);
    if (!program.empty()) {
        auto all = runs;
        std::erase_if(runs, [&](const RunDir& run) { return run.program != program; });
        if (runs.empty()) {
            std::string candidates;
            for (const auto& run : all) candidates += "\n  " + run.path.string();
            return Error{fmt::format("no run of program '{}' here{}{}", program,
                                     candidates.empty() ? "" : "; candidates:", candidates),
                         dir.string(), 0, ExitCode::InputError};
        }
    }
    if (runs.empty()) return dir;
    if (nth_latest < 1 || static_cast<std::size_t>(nth_latest) > runs.size()) {
        return Error{fmt::format("--nth-latest {} is out of range: {} run(s) found", nth_latest,
                                 runs.size()),
                     dir.string(), 0, ExitCode::InputError};
    }
    std::size_t chosen = runs.size() - static_cast<std::size_t>(nth_latest);
    if (chosen_note != nullptr) *chosen_note = chosen_run_note(runs, chosen, nth_latest);
    return runs[chosen].path;
}

std::vector<fs::path> find_files(const fs::path& dir, const std::vector<std::string>& names,
                                 int max_depth) {
    std::vector<fs::path> found;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
        if (it.depth() >= max_depth) {
            it.disable_recursion_pending();
        }
        // Special files with a wanted name (a FIFO, a link to /dev/zero) are found too: reading
        // them fails with a message saying what they are, instead of a silent "missing".
        std::error_code type_error;
        if (it->is_directory(type_error)) continue;
        std::string name = it->path().filename().string();
        for (const auto& wanted : names) {
            bool match = !wanted.empty() && wanted.back() == '*'
                             ? name.rfind(wanted.substr(0, wanted.size() - 1), 0) == 0
                             : name == wanted;
            if (match) {
                found.push_back(it->path());
                break;
            }
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}

}  // namespace ptune::discover
