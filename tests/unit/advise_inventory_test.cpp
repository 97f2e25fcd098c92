// advise's inventory of September output directories (host logs, scope_stats.jsonl) and of
// artifacts that are there but cannot be read (issue #19, issue #24 item 6).

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "ptune/advise/advisor.hpp"
#include "ptune/advise/inventory.hpp"

namespace advise_inventory_test {

using namespace ptune;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
    fs::path dir = fs::temp_directory_path() /
                   ("ptune-advise-inventory-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void touch(const fs::path& path) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "x\n";
}

bool missing(const advise::Inventory& inventory, advise::ArtifactKind kind) {
    return std::any_of(inventory.missing.begin(), inventory.missing.end(),
                       [&](const advise::MissingArtifact& absent) { return absent.kind == kind; });
}

}  // namespace

TEST_CASE("inventory finds the host logs and scope stats of a September output directory",
          "[advise]") {
    fs::path dir = scratch("september");
    touch(dir / "host.3810442.log");
    touch(dir / "host-strace.2091377.log");
    touch(dir / "host_phase_records.jsonl");
    touch(dir / "scope_stats" / "scope_stats.jsonl");
    // Not artifacts advise reads: an alignment log (read by swimlane-merge with its capture)
    // and names that only look like host logs.
    touch(dir / "host_clock_alignment.3810442.log");
    touch(dir / "host.abc.log");
    touch(dir / "host.12.txt");

    auto inventory = advise::take_inventory(dir, "", 1, {});
    REQUIRE(inventory.ok());
    using advise::ArtifactKind;
    auto host = inventory->of(ArtifactKind::HostLog);
    REQUIRE(host.size() == 1);
    CHECK(host[0]->path == dir / "host.3810442.log");
    REQUIRE(inventory->of(ArtifactKind::HostStrace).size() == 1);
    REQUIRE(inventory->of(ArtifactKind::HostPhaseRecords).size() == 1);
    REQUIRE(inventory->of(ArtifactKind::ScopeStats).size() == 1);
    CHECK(inventory->found.size() == 4);
    // Optional outputs: never "missing"; the PyPTO kinds are.
    CHECK_FALSE(missing(*inventory, ArtifactKind::HostLog));
    CHECK_FALSE(missing(*inventory, ArtifactKind::ScopeStats));
    CHECK(missing(*inventory, ArtifactKind::SwimlaneRecords));
    CHECK(inventory->refused.empty());
    fs::remove_all(dir);
}

TEST_CASE("inventory refuses a FIFO or a device under an artifact's name, never 'missing'",
          "[advise]") {
    fs::path dir = scratch("special");
    touch(dir / "dfx_outputs" / "chip_swimlane_records.json");
    REQUIRE(::mkfifo((dir / "dfx_outputs" / "pmu.csv").c_str(), 0644) == 0);
    fs::create_symlink("/dev/zero", dir / "dfx_outputs" / "deps.json");
    REQUIRE(::mkfifo((dir / "dfx_outputs" / "host.77.log").c_str(), 0644) == 0);

    auto inventory = advise::take_inventory(dir, "", 1, {});
    REQUIRE(inventory.ok());
    using advise::ArtifactKind;
    CHECK(inventory->of(ArtifactKind::SwimlaneRecords).size() == 1);
    CHECK(inventory->of(ArtifactKind::Pmu).empty());
    CHECK(inventory->of(ArtifactKind::HostLog).empty());
    REQUIRE(inventory->refused.size() == 3);
    // In kind order: deps, pmu, host log.
    CHECK(inventory->refused[0].kind == ArtifactKind::Deps);
    CHECK(inventory->refused[0].reason.find("character device") != std::string::npos);
    CHECK(inventory->refused[1].kind == ArtifactKind::Pmu);
    CHECK(inventory->refused[1].path == dir / "dfx_outputs" / "pmu.csv");
    CHECK(inventory->refused[1].reason.find("FIFO") != std::string::npos);
    CHECK(inventory->refused[2].kind == ArtifactKind::HostLog);
    CHECK_FALSE(missing(*inventory, ArtifactKind::Pmu));
    CHECK_FALSE(missing(*inventory, ArtifactKind::Deps));

    // The Artifacts table: found, then refused (path and reason), then missing.
    auto rows = inventory->rows();
    REQUIRE(rows.size() >= 4);
    CHECK(rows[0].status == "found");
    CHECK(rows[1].kind == "deps");
    CHECK(rows[1].status == "refused");
    CHECK(rows[1].text.find((dir / "dfx_outputs" / "deps.json").string()) == 0);
    CHECK(rows[2].kind == "pmu");
    CHECK(rows[2].text.find("FIFO") != std::string::npos);
    CHECK(rows[4].status == "missing");
    fs::remove_all(dir);
}

TEST_CASE("the report lists refused files and unreadable directories in text and JSON",
          "[advise]") {
    // Built by hand: an unreadable directory needs a non-root user (tests/e2e/unreadable_dirs.sh).
    advise::Advice advice;
    advice.inventory.run_dir = "run";
    advice.inventory.refused.push_back(
        {advise::ArtifactKind::Pmu, "run/dfx_outputs/pmu.csv", "is a FIFO (named pipe), ..."});
    advice.inventory.unreadable.push_back({"run/dfx_outputs", "Permission denied"});
    advice.inventory.missing.push_back({advise::ArtifactKind::Deps, "why"});
    render::Report report = advise::to_report(advice);

    const nlohmann::json& artifacts = report.data.at("artifacts");
    REQUIRE(artifacts.at("refused").size() == 1);
    CHECK(artifacts["refused"][0]["kind"] == "pmu");
    CHECK(artifacts["refused"][0]["path"] == "run/dfx_outputs/pmu.csv");
    CHECK(artifacts["refused"][0]["reason"] == "is a FIFO (named pipe), ...");
    REQUIRE(artifacts.at("unreadable").size() == 1);
    CHECK(artifacts["unreadable"][0]["path"] == "run/dfx_outputs");
    CHECK(artifacts["unreadable"][0]["reason"] == "Permission denied");

    const render::Table* table = nullptr;
    for (const auto& candidate : report.tables)
        if (candidate.title == "Artifacts") table = &candidate;
    REQUIRE(table != nullptr);
    REQUIRE(table->rows.size() == 3);
    CHECK(table->rows[0] == std::vector<std::string>{"pmu", "refused",
                                                     "run/dfx_outputs/pmu.csv: is a FIFO (named "
                                                     "pipe), ...; not read"});
    CHECK(table->rows[1] ==
          std::vector<std::string>{"directory", "unreadable",
                                   "run/dfx_outputs: Permission denied; artifacts in it were not "
                                   "looked for"});
    CHECK(table->rows[2][1] == "missing");
}

}  // namespace advise_inventory_test
