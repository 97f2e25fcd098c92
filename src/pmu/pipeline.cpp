// The pmu.csv pipeline (see pipeline.hpp): locating the csv, its kernel names and the table.

#include "ptune/pmu/pipeline.hpp"

#include <fmt/format.h>

#include "ptune/core/discover.hpp"
#include "ptune/core/io.hpp"
#include "ptune/pmu/parser.hpp"

namespace ptune::pmu {

namespace fs = std::filesystem;

namespace {

Error input_error(std::string message, std::string file = "") {
    return Error{std::move(message), std::move(file), 0, ExitCode::InputError};
}

}  // namespace

Result<std::string> resolve_csv(const std::string& input, Diagnostics& diagnostics) {
    std::error_code error;
    if (input == io::kStdinName || !fs::is_directory(input, error)) return input;
    std::string chosen;
    auto run = discover::resolve_run(input, "", 1, &chosen);
    if (!run) return run.error();
    if (!chosen.empty()) diagnostics.note(input, 0, chosen);
    auto found = discover::find_files(*run, {"pmu.csv"});
    if (found.size() == 1) return found.front().string();
    if (found.empty()) {
        auto shards = discover::find_files(*run, {"pmu.csv.shard*"});
        if (!shards.empty()) {
            return input_error(
                fmt::format("no pmu.csv, but {} is left: the collector's shard merge "
                            "failed",
                            shards.front().string()),
                run->string());
        }
        return input_error("no pmu.csv here (run with --enable-pmu 2)", run->string());
    }
    std::vector<std::string> listed;
    for (std::size_t i = 0; i < found.size() && i < 4; ++i) listed.push_back(found[i].string());
    return input_error(fmt::format("{} pmu.csv files (L3 ranks or devices, each with its own "
                                   "func_id names): name one, e.g. {}",
                                   found.size(), fmt::join(listed, ", ")),
                       run->string());
}

Result<LoadedPmu> load_pmu(const std::string& csv_path, const fs::path& names_file,
                           Diagnostics& diagnostics) {
    LoadedPmu loaded;
    loaded.inputs.push_back(csv_path);
    fs::path found;
    if (names_file.empty() && csv_path != io::kStdinName) {
        KernelNameFiles near = find_kernel_names_near(csv_path);
        for (const auto& note : near.notes) diagnostics.note(csv_path, 0, note);
        found = near.preferred();
    }
    auto names = load_artifact_names(names_file, found, true, diagnostics);
    if (!names) return names.error();
    if (*names) {
        loaded.names = std::move(**names);
        loaded.inputs.push_back(loaded.names.source);
    }

    auto input = io::open_input(csv_path);
    if (!input) return input.error();
    auto table = parse_pmu_csv(input->stream(), csv_path, diagnostics);
    if (!table) return table.error();
    loaded.table = std::move(*table);
    return loaded;
}

}  // namespace ptune::pmu
