// Which run a command reads (issue 31 item 11): every command resolves a directory through
// discover::resolve_run, which takes the newest run by the timestamp in its name at any depth,
// never by mtime, and lists the runs it does not read.

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <unistd.h>

#include "ptune/core/discover.hpp"

namespace core_discover_runs_test {

using namespace ptune;
namespace fs = std::filesystem;

namespace {

fs::path runs_data() {
    return fs::path(PTUNE_TEST_DATA) / "discover" / "Data";
}

fs::path scratch_dir(const std::string& name) {
    fs::path dir =
        fs::temp_directory_path() / ("ptune-discover-" + std::to_string(::getpid())) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

}  // namespace

TEST_CASE("a nested newer run wins over an older run beside it; the older is listed",
          "[discover]") {
    std::string note;
    auto run = discover::resolve_run(runs_data(), "", 1, &note);
    REQUIRE(run.ok());
    CHECK(run->filename() == "Dispatch_20260915_101500");
    CHECK(note.find("Qwen_20260625_184941") != std::string::npos);
    CHECK(note.find("not read") != std::string::npos);
    auto older = discover::resolve_run(runs_data(), "", 2, &note);
    REQUIRE(older.ok());
    CHECK(older->filename() == "Qwen_20260625_184941");
    auto by_program = discover::resolve_run(runs_data(), "Qwen", 1, &note);
    REQUIRE(by_program.ok());
    CHECK(by_program->filename() == "Qwen_20260625_184941");
}

TEST_CASE("three unrelated runs in one folder: one run is read, by name, not mtime", "[discover]") {
    fs::path dir = scratch_dir("three");
    fs::create_directories(dir / "a" / "build_output" / "Alpha_20260901_080000" / "report");
    fs::create_directories(dir / "b" / "Beta_20260910_120000" / "dfx_outputs");
    fs::create_directories(dir / "c" / "deep" / "build_output" / "Gamma_20260905_000000");
    // A run's own folders are not searched for runs.
    fs::create_directories(dir / "b" / "Beta_20260910_120000" / "Inner_20270101_000000");
    // The oldest run is the most recently modified: mtime must not decide.
    fs::last_write_time(dir / "a" / "build_output" / "Alpha_20260901_080000",
                        fs::file_time_type::clock::now() + std::chrono::hours(1));
    auto runs = discover::find_runs(dir);
    REQUIRE(runs.size() == 3);
    CHECK(runs.front().program == "Alpha");
    CHECK(runs.back().program == "Beta");
    std::string note;
    auto run = discover::resolve_run(dir, "", 1, &note);
    REQUIRE(run.ok());
    CHECK(run->filename() == "Beta_20260910_120000");
    CHECK(note.find("Alpha_20260901_080000") != std::string::npos);
    CHECK(note.find("Gamma_20260905_000000") != std::string::npos);
    // A folder without runs is itself the capture.
    auto plain =
        discover::resolve_run(dir / "b" / "Beta_20260910_120000" / "dfx_outputs", "", 1, &note);
    REQUIRE(plain.ok());
    CHECK(plain->filename() == "dfx_outputs");
    fs::remove_all(dir.parent_path());
}

}  // namespace core_discover_runs_test
