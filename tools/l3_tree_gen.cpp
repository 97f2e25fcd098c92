// Writes a synthetic L3 tree (see synth/l3_synth.hpp):
//   l3_tree_gen DIR [--ranks N] [--tasks N] [--dispatches N] [--slow-rank R] [--slow-factor F]
//                   [--no-pmu] [--no-identity] [--seed N]
// DIR receives rank<N>/d<K>/{chip_swimlane_records.json, deps.json, name_map_moe_layer.json,
// pmu.csv, dispatch_identity.json}, the layout of an L3 dfx_outputs/.

#include <cstdlib>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "l3_synth.hpp"
#include "ptune/core/text.hpp"

namespace synth = ptune::swimlane::synth;

namespace {

int usage() {
    std::cerr << "usage: l3_tree_gen DIR [--ranks N] [--tasks N] [--dispatches N] [--slow-rank R]"
                 " [--slow-factor F] [--no-pmu] [--no-identity] [--seed N]\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    synth::TreeOptions options;
    for (int i = 2; i < argc; ++i) {
        std::string flag = argv[i];
        if (flag == "--no-pmu") {
            options.pmu = false;
            continue;
        }
        if (flag == "--no-identity") {
            options.identity = false;
            continue;
        }
        if (i + 1 >= argc) return usage();
        std::string value = argv[++i];
        if (flag == "--slow-factor") {
            options.slow_factor = std::strtod(value.c_str(), nullptr);
            continue;
        }
        auto n = ptune::text::parse_int(value);
        if (!n) return usage();
        if (flag == "--ranks")
            options.ranks = static_cast<std::size_t>(*n);
        else if (flag == "--tasks")
            options.tasks = static_cast<std::size_t>(*n);
        else if (flag == "--dispatches")
            options.dispatches = static_cast<std::size_t>(*n);
        else if (flag == "--slow-rank")
            options.slow_rank = static_cast<int>(*n);
        else if (flag == "--seed")
            options.seed = static_cast<std::uint64_t>(*n);
        else
            return usage();
    }
    synth::TreeSummary summary;
    std::string error;
    if (!synth::write_rank_tree(argv[1], options, summary, error)) {
        std::cerr << "l3_tree_gen: " << error << '\n';
        return 2;
    }
    std::cerr << fmt::format("{}: {} captures, {} tasks each, {:.1f} MB of records\n", argv[1],
                             summary.captures, summary.tasks,
                             static_cast<double>(summary.bytes) / 1048576.0);
    return 0;
}
