// Fuzz target: CPM_static.json / CPM_observed.json (upstream-2026-09.md §4): swimlane::read_cpm
// (streamed JSON walk of a merged-trace copy) and the comparison table against a small path.

#include <cstdint>
#include <sstream>

#include "fuzz_support.hpp"
#include "ptune/swimlane/cpm.hpp"

namespace swimlane_cpm_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 0);
    std::istringstream in{std::string(input.text())};
    auto path = ptune::swimlane::read_cpm(in, "CPM_static.json");
    if (!path) return 0;
    // The comparison reads CPM files from disk: write this one where it looks.
    const std::string& file = ptune::fuzz::write_scratch_file("CPM_observed.json", input.text());
    ptune::swimlane::CriticalPath ours;
    ours.available = true;
    ours.tasks.push_back({std::uint64_t{1} << 32, "r1t0", 0, 1, 0});
    ptune::render::Report report;
    ptune::Diagnostics diagnostics;
    std::string records = file.substr(0, file.rfind('/') + 1) + "chip_swimlane_records.json";
    ptune::swimlane::add_cpm_comparison(report, records, ours, &diagnostics);
    (void)report.data.dump();
    return 0;
}

}  // namespace swimlane_cpm_fuzz
