// The CI-result reader registered with the bench loader (inputs.hpp install_bench_reader()):
// the lane's files, then daily-CI and operator-suite results, as bench cases (the results kept
// for the tables while a KeptResults collects).

#include "kept.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/ciresult/lane.hpp"

namespace ptune::ciresult {

void install_bench_reader() {
    bench::register_input_reader(
        "ciresult",
        [](const std::string& path, Diagnostics& diagnostics,
           const bench::CaseSink& sink) -> std::optional<Status> {
            // The lane's journal and suite-result.json (§3.5) first: lane.hpp.
            if (auto lane = read_lane_input(path, diagnostics, sink)) return lane;
            const InputKind kind = classify(path);
            if (kind == InputKind::None) return std::nullopt;
            std::vector<bench::BenchCase> cases;
            if (is_suite_kind(kind)) {
                auto suite = load_suite(path, diagnostics);
                if (!suite) return Status(suite.error());
                cases = to_bench_cases(*suite);
                KeptAccess::keep(path, std::move(*suite));  // for the tables: read once
            } else {
                auto run = load_daily(path, diagnostics);
                if (!run) return Status(run.error());
                cases = to_bench_cases(*run);
                KeptAccess::keep(path, std::move(*run));
            }
            if (cases.empty()) {
                return Status(Error{"no case in this CI result", path, 0, ExitCode::InputError});
            }
            for (bench::BenchCase& bench_case : cases) sink(std::move(bench_case));
            return ok_status();
        });
}

}  // namespace ptune::ciresult
