// Small helpers of the swimlane model (names, the clock, thread counts).

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ptune/core/json_document.hpp"
#include "ptune/swimlane/model.hpp"

namespace ptune::swimlane {

std::string_view to_string(CoreType type) {
    return type == CoreType::Aic ? "aic" : "aiv";
}

std::string_view to_string(RecordsShape shape) {
    return shape == RecordsShape::MicrosecondTasks ? "us-tasks" : "raw-cycles";
}

std::string_view to_string(Runtime runtime) {
    return runtime == Runtime::HostBuildGraph ? "host_build_graph" : "tensormap_and_ringbuffer";
}

char* write_task_label(char* out, std::uint64_t task_id, TaskLabels labels) {
    // (Each part is a letter and a 32-bit number: at most 11 bytes, two of them 22.)
    auto number = [&](std::uint32_t v) { out = std::to_chars(out, out + 10, v).ptr; };
    if (labels == TaskLabels::HostBuildGraph) {
        std::uint32_t space = hbg_space(task_id);
        if (space == 1) {
            *out++ = 'g';
            number(hbg_parent(task_id));
        }
        *out++ = space == 2 ? 'p' : 't';
        number(task_local(task_id));
        return out;
    }
    std::uint32_t ring = task_ring(task_id);
    if (ring != 0 || labels == TaskLabels::Ring) {
        *out++ = 'r';
        number(ring);
    }
    *out++ = 't';
    number(task_local(task_id));
    return out;
}

void append_task_label(std::string& out, std::uint64_t task_id, TaskLabels labels) {
    char label[kMaxTaskLabel];
    out.append(label, write_task_label(label, task_id, labels));
}

std::string task_display(std::uint64_t task_id, TaskLabels labels) {
    std::string out;
    append_task_label(out, task_id, labels);
    return out;
}

std::string ContainmentAlignment::record_json() const {
    switch (status) {
        case Status::Bounded:
            return fmt::format(
                R"({{"status":"bounded","device_anchor_cycles":{},"host_anchor_ns":{},)"
                R"("host_anchor_min_ns":{},"host_anchor_max_ns":{}}})",
                device_anchor_cycles, host_anchor_ns, host_anchor_min_ns, host_anchor_max_ns);
        case Status::Unavailable: {
            nlohmann::json j = {{"status", "unavailable"}, {"reason", reason}};
            return json_document::dump(j);
        }
        case Status::None:
            break;
    }
    return {};
}

namespace {
__extension__ typedef __int128 Int128;  // 128-bit intermediates for exact tick ↔ ns scaling

constexpr std::pair<PhaseKind, std::string_view> kPhaseNames[] = {
    {PhaseKind::Complete, "complete"},
    {PhaseKind::Dispatch, "dispatch"},
    {PhaseKind::Release, "release"},
    {PhaseKind::Dummy, "dummy"},
    {PhaseKind::EarlyDispatch, "early_dispatch"},
    {PhaseKind::Resolve, "resolve"},
    {PhaseKind::DummyTask, "dummy_task"},
    {PhaseKind::Drain, "drain"},
    {PhaseKind::DrainPrepare, "drain_prepare"},
    {PhaseKind::DrainPublish, "drain_publish"},
    {PhaseKind::AsyncPoll, "async_poll"},
    {PhaseKind::PredicatedSkip, "predicated_skip"},
    {PhaseKind::GraphPrepare, "graph_prepare"},
    {PhaseKind::ResolveStandalone, "resolve_standalone"},
    {PhaseKind::Bootstrap, "bootstrap"},
    {PhaseKind::StateProbe, "state_probe"},
    {PhaseKind::Worksteal, "worksteal"},
    {PhaseKind::Refill, "refill"},
    {PhaseKind::Idle, "idle"},
    {PhaseKind::Fanin, "fanin"},
    {PhaseKind::ReadyClaim, "ready_claim"},
    {PhaseKind::ReadySteal, "ready_steal"},
    {PhaseKind::DirectRefill, "direct_refill"},
};
}  // namespace

std::string_view to_string(PhaseKind kind) {
    for (const auto& [k, name] : kPhaseNames)
        if (k == kind) return name;
    return "unknown";
}

PhaseKind parse_phase_kind(std::string_view name) {
    for (const auto& [k, text] : kPhaseNames)
        if (text == name) return k;
    return PhaseKind::Other;
}

std::int64_t Clock::ticks_to_ns(std::int64_t ticks) const {
    if (freq_hz == 0) return ticks;
    // 128-bit, so that a damaged file's huge tick count wraps (defined) instead of overflowing.
    Int128 ns;
    if (1'000'000'000 % freq_hz == 0) {
        ns = static_cast<Int128>(ticks) * static_cast<Int128>(1'000'000'000 / freq_hz);
    } else {
        Int128 scaled = static_cast<Int128>(ticks) * 1'000'000'000;
        Int128 half = static_cast<Int128>(freq_hz / 2);
        scaled += ticks >= 0 ? half : -half;
        ns = scaled / static_cast<Int128>(freq_hz);
    }
    return static_cast<std::int64_t>(ns);
}

std::int64_t Clock::ns_to_ticks(std::int64_t ns) const {
    if (freq_hz == 0) return ns;
    if (1'000'000'000 % freq_hz == 0)
        return ns / static_cast<std::int64_t>(1'000'000'000 / freq_hz);
    Int128 scaled = static_cast<Int128>(ns) * static_cast<Int128>(freq_hz);
    scaled += ns >= 0 ? 500'000'000 : -500'000'000;
    return static_cast<std::int64_t>(scaled / 1'000'000'000);
}

double Clock::upstream_us(std::int64_t ns) const {
    if (ns == kNoTime) return 0.0;
    if (freq_hz == 0 || axis == Axis::HostCalibrated || axis == Axis::HostPlaced)
        return static_cast<double>(ns) / 1000.0;
    // Upstream: (c - B) * (1e6 / f), an integer difference times a double constant; behind the
    // host timeline that is added to the host end in µs.
    double device_us = static_cast<double>(ns_to_ticks(ns - host_offset_ns)) *
                       (1e6 / static_cast<double>(freq_hz));
    if (axis == Axis::HostComposite)
        return static_cast<double>(host_offset_ns) / 1000.0 + device_us;
    return device_us;
}

DepsTask& DepsTaskTable::operator[](std::uint64_t id) {
    auto [entry, inserted] = entry_of_.try_emplace(id, static_cast<std::uint32_t>(entries_.size()));
    if (inserted) entries_.emplace_back(id, DepsTask{});
    return entries_[*entry].second;
}

const DepsTask* DepsTaskTable::find(std::uint64_t id) const {
    for (std::size_t at : {last_found_, last_found_ + 1})
        if (at < entries_.size() && entries_[at].first == id) {
            last_found_ = at;
            return &entries_[at].second;
        }
    const std::uint32_t* entry = entry_of_.find(id);
    if (!entry) return nullptr;
    last_found_ = *entry;
    return &entries_[last_found_].second;
}

const DepsTask& DepsTaskTable::at(std::uint64_t id) const {
    if (const DepsTask* task = find(id)) return *task;
    throw std::out_of_range("no deps task with this id");
}

std::size_t Capture::scheduler_thread_count() const {
    std::size_t count = 0;
    for (int thread : core_to_thread)
        if (thread >= 0) count = std::max(count, static_cast<std::size_t>(thread) + 1);
    for (const auto& phase : scheduler_phases)
        count = std::max<std::size_t>(count, phase.thread + 1);
    return count;
}

}  // namespace ptune::swimlane
