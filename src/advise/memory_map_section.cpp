// The advise HTML report's memory maps: what the memory report (or the pass dump) says is
// allocated where and live when, per function and space (drawn by memreport::memory_maps).

#include "ptune/advise/advisor.hpp"

namespace ptune::advise {

std::string memory_map_section(const ChartData& charts) {
    if (charts.memory_maps.empty()) return "";
    std::string out =
        "<h2>Memory maps</h2><p class=\"meta\">Program order across, address up; each buffer "
        "over its live range. Orange: live at the space's peak; red: overlapping while live "
        "(allocator bug); dashed: the limit.</p>\n";
    for (const auto& map : charts.memory_maps) out += map + '\n';
    return out;
}

}  // namespace ptune::advise
