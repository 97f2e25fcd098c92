// Writes a synthetic swimlane capture showing one Part 1 symptom (see analyze_synth.hpp):
//   swimlane_analyze_gen SCENARIO DIR [--seed N] [--scale N]
// DIR receives chip_swimlane_records.json, deps.json and name_map_<Scenario>.json, the layout of
// a pypto dfx_outputs/ directory, so `ptune swimlane-analyze DIR` reads it as a real capture.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "analyze_synth.hpp"
#include "ptune/core/text.hpp"

namespace synth = ptune::swimlane::synth;

namespace {

int usage() {
    std::cerr << "usage: swimlane_analyze_gen SCENARIO DIR [--seed N] [--scale N]\nscenarios:";
    for (auto s : synth::all_scenarios()) std::cerr << ' ' << synth::to_string(s);
    std::cerr << '\n';
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) return usage();
    auto scenario = synth::parse_scenario(argv[1]);
    if (!scenario) return usage();
    synth::Options options;
    options.scenario = *scenario;
    for (int i = 3; i + 1 < argc; i += 2) {
        std::string flag = argv[i];
        auto value = ptune::text::parse_uint(argv[i + 1]);
        if (!value) return usage();
        if (flag == "--seed")
            options.seed = *value;
        else if (flag == "--scale")
            options.scale = static_cast<std::size_t>(*value);
        else
            return usage();
    }
    std::filesystem::path dir = argv[2];
    std::filesystem::create_directories(dir);
    std::ofstream records(dir / "chip_swimlane_records.json");
    std::ofstream deps(dir / "deps.json");
    std::ofstream names(dir / fmt::format("name_map_Synth_{}.json", synth::to_string(*scenario)));
    synth::Summary summary = synth::write_capture(options, records, deps, names);
    if (!records || !deps || !names) {
        std::cerr << "swimlane_analyze_gen: cannot write into " << dir << '\n';
        return 2;
    }
    std::cerr << fmt::format("{}: {} tasks, {} rows, {} edges, {} scheduler phases\n", dir.string(),
                             summary.tasks, summary.rows, summary.edges, summary.phases);
    return 0;
}
