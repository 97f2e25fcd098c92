// Fuzz target: the L3 `dispatch_identity.json` sidecar (upstream-2026-09.md §1.14):
// l3::parse_dispatch_identity on the text with the rank/dispatch of its directory taken from the
// option byte, then the pairing of captures across ranks — the text split at NUL bytes into up
// to three sidecars of rank0/d0, rank1/d0 and rank2/d0 (or d1) of a scratch tree, which
// l3::read_tree enumerates, checks as groups and pairs under a selection the option byte picks.
// The `--dispatch` and `--dispatch-id` option parsers get the text as well.

#include <array>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "ptune/l3/tree.hpp"

namespace l3_dispatch_identity_fuzz {

namespace {

/// The three rank directories of the scratch tree; each holds a pmu.csv so that it counts as
/// a capture (read_tree does not parse it) and the sidecar the input gives it, if any.
std::string capture_dir(int rank, bool rank2_in_d1) {
    return "l3/dfx_outputs/rank" + std::to_string(rank) +
           (rank == 2 && rank2_in_d1 ? "/d1" : "/d0");
}

}  // namespace

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 1);
    const std::uint8_t option = input.option(0);
    const std::string_view text = input.text();

    constexpr std::array<int, 4> kRanks = {0, 1, -1, 2};
    const int rank = kRanks[option & 3];
    const int dispatch = option & 4 ? -1 : 0;
    (void)ptune::l3::parse_dispatch_identity(text, "dispatch_identity.json", rank, dispatch);
    (void)ptune::l3::parse_dispatch(text);
    (void)ptune::l3::parse_dispatch_id(text);

    // The tree: rank2's capture moves between d0 and d1 with bit 5; stale files of the other
    // layout are removed so that every run sees exactly the tree its input describes.
    const bool rank2_in_d1 = option & 32;
    ptune::fuzz::remove_scratch_file(capture_dir(2, !rank2_in_d1) + "/pmu.csv");
    ptune::fuzz::remove_scratch_file(capture_dir(2, !rank2_in_d1) + "/dispatch_identity.json");
    std::string_view rest = text;
    for (int r = 0; r < 3; ++r) {
        const std::string dir = capture_dir(r, rank2_in_d1);
        ptune::fuzz::write_scratch_file(dir + "/pmu.csv", "");
        if (r > 0 && rest.data() == nullptr) {
            ptune::fuzz::remove_scratch_file(dir + "/dispatch_identity.json");
            continue;
        }
        const std::size_t cut = rest.find('\0');
        ptune::fuzz::write_scratch_file(dir + "/dispatch_identity.json", rest.substr(0, cut));
        rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
    }

    ptune::l3::Selection selection;
    switch ((option >> 3) & 3) {
        case 1:
            selection.dispatch = 0;
            break;
        case 2:
            selection.parent = std::pair<std::int64_t, std::int64_t>(1, 0);
            break;
        case 3:
            selection.parent = std::pair<std::int64_t, std::int64_t>(2, 1);
            break;
        default:
            break;
    }
    auto tree = ptune::l3::read_tree(ptune::fuzz::scratch_root() + "/l3", selection);
    if (tree) {
        for (const std::string& key : tree->dispatches) (void)tree->of(key);
    }
    return 0;
}

}  // namespace l3_dispatch_identity_fuzz
