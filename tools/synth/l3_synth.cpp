// Synthetic L3 trees (see l3_synth.hpp): one Moe capture per rank and dispatch, the slow rank's
// expert_gemm stretched, sidecars that pair the dispatches as one submit_next_level_group.

#include "l3_synth.hpp"

#include <fstream>

#include <fmt/format.h>

#include "analyze_synth.hpp"

namespace ptune::swimlane::synth {

namespace fs = std::filesystem;

bool write_rank_tree(const fs::path& dir, const TreeOptions& options, TreeSummary& summary,
                     std::string& error) {
    summary = {};
    for (std::size_t k = 0; k < options.dispatches; ++k) {
        for (std::size_t r = 0; r < options.ranks; ++r) {
            fs::path capture = dir / fmt::format("rank{}", r) / fmt::format("d{}", k);
            std::error_code ec;
            fs::create_directories(capture, ec);
            std::ofstream records(capture / "chip_swimlane_records.json");
            std::ofstream deps(capture / "deps.json");
            std::ofstream names(capture / "name_map_moe_layer.json");
            std::ofstream pmu;
            Options one;
            one.scenario = Scenario::Moe;
            one.tasks = options.tasks;
            one.seed = options.seed + r * 131 + k;
            bool slow = static_cast<int>(r) == options.slow_rank &&
                        static_cast<int>(k) == options.slow_dispatch;
            one.slow_factor = slow ? options.slow_factor : 1.0;
            if (options.pmu) {
                pmu.open(capture / "pmu.csv");
                one.pmu = &pmu;
            }
            Summary written = write_capture(one, records, deps, names);
            summary.tasks = written.tasks;
            if (options.identity) {
                std::ofstream id(capture / "dispatch_identity.json");
                id << fmt::format(
                    "{{\n  \"schema_version\": 1,\n  \"run_id\": 1,\n  \"task_slot\": {},\n  "
                    "\"group_index\": {},\n  \"group_size\": {},\n  \"chip_rank\": {},\n  "
                    "\"local_capture_index\": {},\n  \"endpoint_dispatch_id\": {},\n  "
                    "\"pipeline_slot\": 0,\n  \"pipeline_generation\": 1,\n  "
                    "\"callable_digest\": \"{:064x}\",\n  \"host_pid\": {}\n}}\n",
                    k, r, options.ranks, r, k, k + 1, 0xabcdefULL + k, 4000 + r);
                if (!id) error = (capture / "dispatch_identity.json").string();
            }
            if (!records || !deps || !names || (options.pmu && !pmu)) error = capture.string();
            if (!error.empty()) {
                error = "cannot write into " + error;
                return false;
            }
            ++summary.captures;
            records.close();
            summary.bytes += fs::file_size(capture / "chip_swimlane_records.json", ec);
        }
    }
    return true;
}

}  // namespace ptune::swimlane::synth
