#include "ptune/pmu/model.hpp"

#include <fmt/format.h>

namespace ptune::pmu {

std::string_view to_string(Arch arch) {
    switch (arch) {
        case Arch::A2A3:
            return "a2a3";
        case Arch::A5:
            return "a5";
        case Arch::Unknown:
            return "unknown";
    }
    return "unknown";
}

std::string_view event_type_name(int event_type) {
    switch (event_type) {
        case 1:
            return "ARITHMETIC_UTILIZATION";
        case 2:
            return "PIPE_UTILIZATION";
        case 4:
            return "MEMORY";
        case 5:
            return "MEMORY_L0";
        case 6:
            return "RESOURCE_CONFLICT";
        case 7:
            return "MEMORY_UB";
        case 8:
            return "L2_CACHE";
        default:
            return "UNKNOWN";
    }
}

std::string_view event_type_description(int event_type) {
    switch (event_type) {
        case 1:
            return "instruction execution counts of the cube and vector units by data type";
        case 2:
            return "busy cycles of each pipe (vector, cube, scalar, MTE1/2/3, fixpipe)";
        case 4:
            return "read and write requests to UB, L1, L2 and main memory";
        case 5:
            return "read and write requests to the L0A, L0B and L0C buffers";
        case 6:
            return "stall and conflict cycles of UB banks and vector resources";
        case 7:
            return "UB bandwidth counts by MTE, vector and scalar, and write traffic to L2 "
                   "and main memory";
        case 8:
            return "L2 cache hits, misses and allocations of reads and writes";
        default:
            return "counters of an unknown event group, reported raw";
    }
}

std::string_view to_string(Pipe pipe) {
    switch (pipe) {
        case Pipe::Vec:
            return "vec";
        case Pipe::Cube:
            return "cube";
        case Pipe::Scalar:
            return "scalar";
        case Pipe::Mte1:
            return "mte1";
        case Pipe::Mte2:
            return "mte2";
        case Pipe::Mte3:
            return "mte3";
        case Pipe::Fixpipe:
            return "fixpipe";
    }
    return "?";
}

std::string_view to_string(CoreType core_type) {
    return core_type == CoreType::Aic ? "AIC" : "AIV";
}

bool HeaderInfo::has_pipes() const {
    for (const auto& column : pipe_column) {
        if (column) return true;
    }
    return false;
}

std::string format_task_id(std::uint64_t task_id) {
    return fmt::format("0x{:016x}", task_id);
}

}  // namespace ptune::pmu
