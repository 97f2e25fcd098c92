// The source table (advise/source.hpp): one row per id, and every artifact kind the inventory
// finds that carries evidence is read by some source, so nothing found is silently ignored.

#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "ptune/advise/source.hpp"

namespace advise_sources_test {

using namespace ptune::advise;

TEST_CASE("source table: unique ids, every evidence kind read by a source") {
    std::set<std::string> ids;
    std::set<ArtifactKind> read;
    for (const SourceRow& row : source_table()) {
        CHECK(ids.insert(std::string(row.id)).second);
        auto source = row.make();
        REQUIRE(source);
        for (ArtifactKind kind : source->kinds()) read.insert(kind);
    }
    // Kinds that only help another source (names, kernel_config.py) or that ptune writes itself
    // (the converter's merged trace) carry no evidence of their own.
    const std::set<ArtifactKind> helpers = {ArtifactKind::NameMap, ArtifactKind::KernelConfig,
                                            ArtifactKind::MergedTrace};
    for (ArtifactKind kind :
         {ArtifactKind::MemoryReport, ArtifactKind::PerfHints, ArtifactKind::SwimlaneRecords,
          ArtifactKind::Deps, ArtifactKind::Pmu, ArtifactKind::RunLog, ArtifactKind::HostLog,
          ArtifactKind::HostStrace, ArtifactKind::HostPhaseRecords, ArtifactKind::ScopeStats,
          ArtifactKind::PipeTrace, ArtifactKind::ServingTrace}) {
        INFO(std::string(to_string(kind)));
        CHECK(read.count(kind) == 1);
        CHECK(helpers.count(kind) == 0);
    }
}

}  // namespace advise_sources_test
