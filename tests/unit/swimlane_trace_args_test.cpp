// The slice names, categories and args both trace writers take from trace_args.hpp: what the
// enumeration yields is what the JSON output shows, key by key and in order, for every kind of
// slice the fixtures hold.

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "../../src/swimlane/trace_args.hpp"
#include "ptune/core/io.hpp"
#include "ptune/swimlane/reader.hpp"
#include "ptune/swimlane/trace.hpp"

using namespace ptune;
using namespace ptune::swimlane;
namespace detail = ptune::swimlane::detail;

namespace {

std::string data(const std::string& name) {
    auto text = io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane/" + name);
    REQUIRE(text.ok());
    return *text;
}

/// A capture with its deps and names, as swimlane-merge loads it.
struct Loaded {
    Capture capture;
    Deps deps;
    NameMap names;
    bool has_deps = false, has_names = false;

    explicit Loaded(const std::string& records, const std::string& deps_file = "",
                    const std::string& names_file = "") {
        Diagnostics diagnostics;
        auto c = read_capture(data(records), {records, {}}, diagnostics);
        REQUIRE(c.ok());
        capture = std::move(*c);
        if (!deps_file.empty()) {
            auto d = read_deps(data(deps_file), deps_file, diagnostics);
            REQUIRE(d.ok());
            deps = std::move(*d);
            apply_deps(capture, deps);
            has_deps = true;
        }
        if (!names_file.empty()) {
            auto n = read_name_map(data(names_file), names_file, diagnostics);
            REQUIRE(n.ok());
            names = std::move(*n);
            has_names = true;
        }
    }

    TraceSource source() const {
        TraceSource s;
        s.capture = &capture;
        s.deps = has_deps ? &deps : nullptr;
        s.names = has_names ? &names : nullptr;
        return s;
    }
};

/// A visit_slice_args sink that spells each arg as `key=type:value`.
struct Recorder {
    std::vector<std::string> args;

    void operator()(detail::ArgKey k, detail::arg::Int v) {
        add(k, "int", std::to_string(v.value));
    }
    void operator()(detail::ArgKey k, detail::arg::Uint v) {
        add(k, "uint", std::to_string(v.value));
    }
    void operator()(detail::ArgKey k, detail::arg::Micros v) {
        add(k, "us", std::to_string(v.ns) + "ns");
    }
    void operator()(detail::ArgKey k, detail::arg::Text v) { add(k, "text", std::string(v.value)); }
    void operator()(detail::ArgKey k, detail::arg::PlainText v) {
        add(k, "plain", std::string(v.value));
    }
    void operator()(detail::ArgKey k, detail::arg::Bool v) { add(k, "bool", v.value ? "1" : "0"); }
    void operator()(detail::ArgKey k, detail::arg::Depths v) {
        add(k, "depths", fmt::format("{}", fmt::join(v.values, ",")));
    }
    void operator()(detail::ArgKey k, detail::arg::TaskHint v) {
        add(k, "hint", task_display(v.row.task_id));
    }

    void add(detail::ArgKey k, std::string_view type, const std::string& value) {
        args.push_back(fmt::format("{}={}:{}", detail::arg_name(k), type, value));
    }
    /// The keys alone, in order.
    std::string keys() const {
        std::string out;
        for (const auto& a : args) out += a.substr(0, a.find('=')) + ";";
        return out;
    }
};

/// Every slice as `name|cat|ts ns|key;key;…` from the model through trace_args.
std::multiset<std::string> enumerated(const detail::TraceModel& model,
                                      std::set<detail::SliceKind>& kinds) {
    std::multiset<std::string> out;
    std::string scratch;
    for (const detail::Slice& s : model.slices) {
        std::string_view name = detail::slice_name(model, s, scratch);
        Recorder recorder;
        detail::visit_slice_args(model, s, name, recorder);
        out.insert(fmt::format("{}|{}|{}|{}", name, detail::slice_category(s.kind), s.ts,
                               recorder.keys()));
        kinds.insert(s.kind);
    }
    return out;
}

/// Every X event of the JSON output the same way, the args' keys in the order written.
std::multiset<std::string> written(const TraceSource& source) {
    std::ostringstream out;
    TraceCounts counts;
    REQUIRE(write_trace({&source, 1}, {}, out, counts).ok());
    auto trace = nlohmann::ordered_json::parse(out.str());
    std::multiset<std::string> events;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] != "X") continue;
        std::string keys;
        for (auto it = e["args"].begin(); it != e["args"].end(); ++it) keys += it.key() + ";";
        events.insert(fmt::format("{}|{}|{}|{}", e["name"].get<std::string>(),
                                  e["cat"].get<std::string>(),
                                  std::llround(e["ts"].get<double>() * 1000), keys));
    }
    return events;
}

}  // namespace

TEST_CASE("trace args: the enumeration is what the JSON output writes, in order",
          "[swimlane][trace]") {
    Loaded composed("chip_swimlane_records.json", "deps.json", "name_map_TestPA_composed.json");
    Loaded host("host/calibrated.chip_swimlane_records.json");
    std::set<detail::SliceKind> kinds;
    for (const Loaded* loaded : {&composed, &host}) {
        TraceSource source = loaded->source();
        auto model = detail::build_trace_model({&source, 1}, TimeAlign::Start);
        REQUIRE(model.ok());
        auto from_model = enumerated(*model, kinds);
        CHECK(from_model.size() == model->slices.size());
        CHECK(from_model == written(source));
    }
    // Every kind of slice but the predicated skip (a marker too) is in the two fixtures.
    CHECK(kinds.size() == 8);
}

TEST_CASE("trace args: values and their types for each kind of slice", "[swimlane][trace]") {
    Loaded composed("chip_swimlane_records.json", "deps.json", "name_map_TestPA_composed.json");
    TraceSource source = composed.source();
    auto model = detail::build_trace_model({&source, 1}, TimeAlign::Start);
    REQUIRE(model.ok());
    std::map<std::string, std::string> args_of;  // "name|kind" → its args
    std::string scratch;
    for (const detail::Slice& s : model->slices) {
        std::string name(detail::slice_name(*model, s, scratch));
        Recorder recorder;
        detail::visit_slice_args(*model, s, name, recorder);
        args_of.try_emplace(fmt::format("{}|{}", name, static_cast<int>(s.kind)),
                            fmt::format("{}", fmt::join(recorder.args, " ")));
    }
    // A worker row: the hints are ptune's text (copied as is), times in ns shown as µs, the task
    // id unsigned.
    CHECK(args_of["QK(r1t1)|0"] ==
          "event-hint=hint:r1t1 fanout-hint=plain:1: [r1t3] fanin-hint=plain:0: [] "
          "duration-us=us:10200ns kernel-duration-us=us:10000ns local_setup_us=us:200ns "
          "taskId=uint:4294967297");
    // The same row in Scheduler View: the slice's own times.
    CHECK(args_of["QK(r1t1)|1"] ==
          "event-hint=hint:r1t1 dispatch-time-us=us:1700ns finish-time-us=us:12900ns "
          "aicpu-duration-us=us:11200ns taskId=uint:4294967297");
    // A marker and an alloc repeat their name as the event-hint.
    CHECK(args_of["dummy(r1t4)|3"] ==
          "loop_iter=int:92 task_id=int:4294967300 event-hint=text:dummy(r1t4) "
          "phase=text:dummy_task");
    CHECK(args_of["alloc(r1t0)|5"] ==
          "phase=text:alloc task_id=int:4294967296 event-hint=text:alloc(r1t0)");
    CHECK(args_of["dummy(1)|2"] ==
          "phase=text:dummy loop_iter=int:92 tasks_processed=int:1 "
          "shared_at_start (aic,aiv,mix)=depths:0,0,0 shared_at_end (aic,aiv,mix)=depths:0,0,0");
}
