// Fuzz target: l3::read_tree over any directory layout, not only the fixed rank0..2/d0 tree of
// l3_dispatch_identity. Each input line `PATH[<TAB>CONTENT]` makes a file of a scratch tree
// (a PATH ending in `/` only a directory); PATH components keep [A-Za-z0-9._-] (no `..`), so
// the input spells rank<N>/d<K> names, odd and repeated ones (rank01 next to rank1, rankX, d),
// dfx_outputs/, build_output/<Program>_<timestamp>/ runs, records under their older names,
// pmu.csv and dispatch_identity.json sidecars (CONTENT, `\n` for a newline). The option byte
// picks where read_tree starts (the tree, a subfolder, a file, a missing path) and the
// selection (none, dN, RUN_ID:TASK_SLOT); read_tree then enumerates, checks groups and pairs.

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "fuzz_support.hpp"
#include "ptune/l3/tree.hpp"

namespace l3_tree_fuzz {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxEntries = 48;
constexpr std::size_t kMaxDepth = 6;

std::string unescape(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == 'n') {
            out += '\n';
            ++i;
        } else {
            out += text[i];
        }
    }
    return out;
}

}  // namespace

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    ptune::fuzz::FuzzInput input(data, size, 1);
    const std::uint8_t option = input.option(0);
    // Every run sees exactly the tree its input describes.
    const fs::path root = fs::path(ptune::fuzz::scratch_root()) / "tree";
    std::error_code error;
    fs::remove_all(root, error);
    fs::create_directories(root, error);

    std::string_view rest = input.text();
    for (std::size_t entries = 0; !rest.empty() && entries < kMaxEntries; ++entries) {
        const std::size_t eol = rest.find('\n');
        const std::string_view line = rest.substr(0, eol);
        rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
        const std::size_t tab = line.find('\t');
        const std::string_view spec = line.substr(0, tab);
        const std::string path = ptune::fuzz::safe_relative_path(spec, kMaxDepth);
        if (path.empty()) continue;
        const fs::path target = root / path;
        if (spec.ends_with('/')) {
            fs::create_directories(target, error);  // a file in the way: the entry is lost
            continue;
        }
        fs::create_directories(target.parent_path(), error);
        if (error || fs::is_directory(target, error)) continue;
        std::ofstream(target, std::ios::binary)
            << (tab == std::string_view::npos ? std::string() : unescape(line.substr(tab + 1)));
    }

    constexpr std::array<const char*, 4> kStarts = {"", "dfx_outputs", "build_output", "missing"};
    fs::path start = root;
    if (const char* sub = kStarts[option & 3]; *sub != '\0') start /= sub;
    ptune::l3::Selection selection;
    switch ((option >> 2) & 3) {
        case 1:
            selection.dispatch = (option >> 4) & 3;
            break;
        case 2:
            selection.parent = std::pair<std::int64_t, std::int64_t>(1, (option >> 4) & 3);
            break;
        default:
            break;
    }
    if (auto tree = ptune::l3::read_tree(start, selection)) {
        for (const std::string& key : tree->dispatches) (void)tree->of(key);
    }
    return 0;
}

}  // namespace l3_tree_fuzz
