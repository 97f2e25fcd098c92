// host_phase_records.jsonl beside a capture → slices on its host axis (upstream-2026-09.md §2.8).

#include "ptune/swimlane/host_phase_lanes.hpp"

#include <fstream>

#include "ptune/core/found_files.hpp"
#include "ptune/host/phase_records.hpp"

namespace ptune::swimlane {

std::optional<HostPhaseLanes> load_host_phase_lanes(const std::filesystem::path& records,
                                                    const Capture& capture,
                                                    Diagnostics& diagnostics) {
    std::filesystem::path file = records.parent_path() / "host_phase_records.jsonl";
    if (!io::usable_side_file(file, diagnostics, "no host phase lanes drawn")) return std::nullopt;
    if (!capture.host_orchestration) {
        diagnostics.note(file.string(), 0,
                         "not drawn: the capture is not a host-orchestration capture, so it has "
                         "no host clock axis to place host phases on");
        return std::nullopt;
    }
    std::ifstream in(file, std::ios::binary);
    HostPhaseLanes lanes;
    lanes.source = file.string();
    for (const host::PhasePass& pass : host::parse_phase_records(in, lanes.source, diagnostics)) {
        for (const host::PhaseRecord& record : pass.records) {
            HostPhaseLanes::Slice slice;
            slice.phase = record.phase;
            slice.start_ns = record.start_ns - capture.host.origin_ns;
            slice.dur_ns = record.end_ns - record.start_ns;
            slice.inv = pass.inv;
            slice.tid = record.tid ? static_cast<std::int64_t>(*record.tid & 0xFFFFFF) : -1;
            lanes.slices.push_back(std::move(slice));
        }
    }
    return lanes;
}

}  // namespace ptune::swimlane
