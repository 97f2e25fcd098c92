// Fuzz target: the history database as `ptune history` and `bench-gate --history` read it — the
// bytes of an SQLite file (seeded with a real database of 512-byte pages) opened with
// history::Store::open (schema check, migrations), then every reader: runs(), analyse() with
// the cached change points (JSON in the file) and describe / segment_medians, the three
// exports, and gate_baseline for the seed's case names. A damaged file must give an error or a
// partial answer, never a crash; SQLite's own corruption checks are not what is tested here,
// ptune's handling of what they let through (NULLs, wrong types, odd numbers, bad JSON) is.

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "ptune/bench/model.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/history/export.hpp"
#include "ptune/history/pipeline.hpp"
#include "ptune/history/store.hpp"

namespace history_db_fuzz {

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 0);
    // Every run starts from this input alone: no journal of the previous one.
    for (const char* suffix : {"-wal", "-shm", "-journal"})
        ptune::fuzz::remove_scratch_file(std::string("history.db") + suffix);
    const std::string& path = ptune::fuzz::write_scratch_file("history.db", input.text());

    ptune::history::OpenOptions open;
    open.lock_timeout_s = 0.0;  // nobody else holds it; never wait
    auto store = ptune::history::Store::open(path, open);
    if (!store) return 0;
    ptune::Diagnostics diagnostics;
    (void)(*store)->runs();
    // The default parameters: the seed's cached analyses (change points as JSON) are read.
    const ptune::history::AnalyseOptions options;
    (void)ptune::history::analyse(
        **store, {}, options,
        [](ptune::history::Analysis&& analysis) -> ptune::Status {
            (void)ptune::history::describe(analysis);
            (void)ptune::history::segment_medians(analysis);
            (void)ptune::history::current_segment_start(analysis);
            return ptune::ok_status();
        },
        diagnostics);
    std::ostringstream out;
    (void)ptune::history::export_csv(**store, out);
    (void)ptune::history::export_json(**store, out);
    (void)ptune::history::export_gab_json(**store, options, out, diagnostics);
    std::vector<ptune::bench::BenchCase> current(3);
    for (std::size_t i = 0; i < current.size(); ++i)
        current[i].name = "models/c" + std::to_string(i) + ".py";
    (void)ptune::history::gate_baseline(**store, current, options, diagnostics);
    return 0;
}

}  // namespace history_db_fuzz
