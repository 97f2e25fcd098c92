#pragma once
// Small pieces the sources' contributions share: chart labels and the inventory's "read" notes.

#include <filesystem>
#include <string>

#include "ptune/advise/inventory.hpp"
#include "ptune/core/stats.hpp"

namespace ptune::advise {

/// Charts list at most this many kernels or pipes.
inline constexpr std::size_t kTopRows = 10;

inline std::string chart_us(double value, int decimals) {
    return stats::format_fixed(value, decimals) + " µs";
}

/// Notes what was read from `path` on its inventory entry; a file the inventory did not find
/// (a host log given with --log) gets an entry of its own.
inline void note_read(Inventory& inventory, ArtifactKind kind, const std::filesystem::path& path,
                      std::string read) {
    for (Artifact& artifact : inventory.found) {
        if (artifact.kind == kind && artifact.path == path) {
            artifact.read = std::move(read);
            return;
        }
    }
    inventory.found.push_back({kind, path, "", std::move(read)});
}

}  // namespace ptune::advise
