// Fuzz target: which run a directory names (discover::find_runs and resolve_run, issue 31 item
// 11), over a scratch tree the input spells: each line is a directory PATH whose components keep
// [A-Za-z0-9._-] (no `..`), so the input makes run names `<Program>_<YYYYMMDD_HHMMSS>` at any
// depth, near-misses (`X_2026091_101500`, `_20260915_101500`), runs inside runs and folders that
// only look like runs. The option byte picks --nth-latest (1..4) and a program filter (none, or
// the first run's program). Invariants: runs are sorted by timestamp, none lies inside another,
// and resolve_run names the nth newest run (or the tree itself when there is none).

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>

#include "fuzz_support.hpp"
#include "ptune/core/discover.hpp"

namespace discover_runs_fuzz {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxDirectories = 48;
constexpr std::size_t kMaxDepth = 7;

bool inside(const fs::path& inner, const fs::path& outer) {
    auto relative = inner.lexically_relative(outer);
    return !relative.empty() && *relative.begin() != ".." && relative != ".";
}

}  // namespace

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    using namespace ptune;
    fuzz::FuzzInput input(data, size, 1);
    const std::uint8_t option = input.option(0);
    const fs::path root = fs::path(fuzz::scratch_root()) / "runs";
    std::error_code error;
    fs::remove_all(root, error);
    fs::create_directories(root, error);
    std::string_view rest = input.text();
    for (std::size_t made = 0; !rest.empty() && made < kMaxDirectories; ++made) {
        const std::size_t eol = rest.find('\n');
        std::string path = fuzz::safe_relative_path(rest.substr(0, eol), kMaxDepth);
        rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
        if (!path.empty()) fs::create_directories(root / path, error);
    }

    auto runs = discover::find_runs(root);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!discover::parse_run_dir_name(runs[i].path)) __builtin_trap();
        if (i > 0 && runs[i - 1].timestamp > runs[i].timestamp) __builtin_trap();
        for (std::size_t j = 0; j < runs.size(); ++j) {
            if (i != j && inside(runs[i].path, runs[j].path)) __builtin_trap();  // run in a run
        }
    }
    const int nth = 1 + (option & 3);
    const std::string program = (option & 4) && !runs.empty() ? runs.front().program : "";
    std::string note;
    auto chosen = discover::resolve_run(root, program, nth, &note);
    std::erase_if(runs, [&](const discover::RunDir& run) {
        return !program.empty() && run.program != program;
    });
    if (runs.empty()) {
        if (!chosen || *chosen != root) __builtin_trap();  // no run: the tree itself
    } else if (static_cast<std::size_t>(nth) > runs.size()) {
        if (chosen) __builtin_trap();  // out of range is an error, never another run
    } else {
        if (!chosen || *chosen != runs[runs.size() - static_cast<std::size_t>(nth)].path)
            __builtin_trap();
        if (note.find("picked") == std::string::npos) __builtin_trap();
    }
    return 0;
}

}  // namespace discover_runs_fuzz
