// The merged trace against the upstream converter's reference outputs: same processes, lanes,
// slices, names, times and args; every arrow bound to exactly the slices upstream intended; and
// the gzip / protobuf encodings, lane overflow and alignment rules, and the one enumeration of
// slice names and args (trace_args.hpp) both writers render.

#include <zlib.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "../../src/swimlane/trace/background_buf.hpp"
#include "../../src/swimlane/trace/json_sink.hpp"
#include "../../src/swimlane/trace/trace_args.hpp"
#include "../../src/swimlane/trace/trace_model.hpp"
#include "ptune/core/io.hpp"
#include "ptune/swimlane/reader.hpp"
#include "ptune/swimlane/summary.hpp"
#include "ptune/swimlane/trace.hpp"

namespace swimlane_trace_test {

using namespace ptune;
using namespace ptune::swimlane;
using nlohmann::json;

namespace {

std::string data(const std::string& name) {
    auto text = io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane/" + name);
    REQUIRE(text.ok());
    return *text;
}

struct Composed {
    Capture capture;
    Deps deps;
    KernelNames names;
    bool with_deps = true;

    explicit Composed(bool use_deps = true,
                      const std::string& records = "chip_swimlane_records.json")
        : with_deps(use_deps) {
        Diagnostics diagnostics;
        auto c = read_capture(data(records), {records, {}}, diagnostics);
        REQUIRE(c.ok());
        capture = std::move(*c);
        auto d = read_deps(data("deps.json"), "deps.json", diagnostics);
        REQUIRE(d.ok());
        deps = std::move(*d);
        if (with_deps) apply_deps(capture, deps);
        auto n =
            parse_name_map(data("name_map_TestPA_composed.json"), "name_map.json", diagnostics);
        REQUIRE(n.ok());
        names = std::move(*n);
    }

    TraceSource source() const {
        TraceSource s;
        s.capture = &capture;
        s.deps = with_deps ? &deps : nullptr;
        s.names = &names;
        return s;
    }
};

/// The composed host-orchestration capture: H2D uploads and a Graph Execution envelope.
struct HostCalibrated {
    Capture capture;

    HostCalibrated() {
        Diagnostics diagnostics;
        auto c = read_capture(data("host/calibrated.chip_swimlane_records.json"),
                              {"records.json", {}}, diagnostics);
        REQUIRE(c.ok());
        capture = std::move(*c);
    }

    TraceSource source() const {
        TraceSource s;
        s.capture = &capture;
        return s;
    }
};

std::string render(std::span<const TraceSource> sources, TraceOptions options,
                   TraceCounts* counts = nullptr) {
    std::ostringstream out;
    TraceCounts local;
    auto status = write_trace(sources, options, out, counts ? *counts : local);
    INFO((status.ok() ? std::string() : status.error().to_string()));
    REQUIRE(status.ok());
    return out.str();
}

/// Floats rounded to 1e-6 so exact-ns output and Python float repr compare equal.
json normalise(const json& value) {
    if (value.is_number_float()) return std::round(value.get<double>() * 1e6) / 1e6;
    if (value.is_number_integer()) return static_cast<double>(value.get<std::int64_t>());
    if (value.is_object()) {
        json out = json::object();
        for (auto it = value.begin(); it != value.end(); ++it)
            out[it.key()] = normalise(it.value());
        return out;
    }
    if (value.is_array()) {
        json out = json::array();
        for (const auto& v : value) out.push_back(normalise(v));
        return out;
    }
    return value;
}

/// Non-flow events, ids dropped, as a multiset of canonical strings.
std::multiset<std::string> plain_events(const json& trace) {
    std::multiset<std::string> out;
    for (const auto& e : trace["traceEvents"]) {
        std::string ph = e["ph"];
        if (ph == "s" || ph == "f") continue;
        json copy = e;
        copy.erase("id");
        out.insert(normalise(copy).dump());
    }
    return out;
}

/// Each flow's start and finish events by flow id.
std::map<std::int64_t, std::pair<json, json>> flow_pairs(const json& trace) {
    std::map<std::int64_t, std::pair<json, json>> pairs;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] == "s") pairs[e["id"]].first = e;
        if (e["ph"] == "f") pairs[e["id"]].second = e;
    }
    return pairs;
}

/// Each arrow as (name, source slice, target slice), slices named "pid|name|ts".
/// `strict` (ptune): the end must lie strictly inside exactly one slice of its track.
/// Otherwise (upstream): the slice named by bind_id, else the enclosing one.
std::multiset<std::string> arrows(const json& trace, bool strict) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<json>> tracks;
    std::map<std::int64_t, json> by_id;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X") {
            tracks[{e["pid"], e["tid"]}].push_back(e);
            if (e.contains("id")) by_id[e["id"]] = e;
        }
    auto key = [](const json& x) {
        return fmt::format("{}|{}|{:.6f}", x["pid"].get<std::int64_t>(),
                           x["name"].get<std::string>(), x["ts"].get<double>());
    };
    auto resolve = [&](const json& end) -> std::string {
        if (!strict && end.contains("bind_id")) return key(by_id.at(end["bind_id"]));
        double t = end["ts"];
        std::vector<json> hits;
        for (const auto& x : tracks[{end["pid"], end["tid"]}]) {
            double a = x["ts"], b = a + x["dur"].get<double>();
            bool hit = strict ? (a + 1e-9 < t && t < b - 1e-9) : (a - 1e-9 <= t && t <= b + 1e-9);
            if (hit) hits.push_back(x);
        }
        // Upstream puts some ends exactly on a boundary between two slices (an orchestrator
        // record's end = the next one's start); its intent is the slice that ends there.
        if (!strict && hits.size() > 1)
            std::erase_if(hits, [&](const json& x) { return !(x["ts"].get<double>() + 1e-9 < t); });
        if (hits.size() == 1) return key(hits[0]);
        return "AMBIGUOUS";
    };
    const auto pairs = flow_pairs(trace);
    std::multiset<std::string> out;
    for (const auto& [id, pair] : pairs) {
        REQUIRE(pair.first.is_object());
        REQUIRE(pair.second.is_object());
        if (strict) CHECK(pair.first["ts"].get<double>() <= pair.second["ts"].get<double>());
        out.insert(pair.first["name"].get<std::string>() + " " + resolve(pair.first) + " -> " +
                   resolve(pair.second));
    }
    return out;
}

}  // namespace

TEST_CASE("merged trace matches the upstream converter's slices and arrows", "[swimlane][trace]") {
    // The --overhead run adds upstream's 49 counter samples to the default run's events.
    auto [use_deps, overhead, expected_file] =
        GENERATE(std::tuple{true, false, "expected/merged_swimlane.default.json"},
                 std::tuple{false, false, "expected/merged_swimlane.nodeps.json"},
                 std::tuple{true, true, "expected/merged_swimlane.verbose_overhead.json"});
    INFO(expected_file);
    Composed composed(use_deps);
    TraceSource source = composed.source();
    TraceCounts counts;
    TraceOptions options;
    options.overhead = overhead;
    json ours = json::parse(render({&source, 1}, options, &counts));
    json upstream = json::parse(data(expected_file));
    CHECK(ours["traceEvents"].size() == upstream["traceEvents"].size());
    CHECK(counts.counters == (overhead ? 14u + 49u : 14u));
    CHECK(plain_events(ours) == plain_events(upstream));
    auto our_arrows = arrows(ours, true);
    CHECK(our_arrows.count("AMBIGUOUS") == 0);
    for (const auto& arrow : our_arrows) CHECK(arrow.find("AMBIGUOUS") == std::string::npos);
    CHECK(our_arrows == arrows(upstream, false));
    CHECK(counts.flows == (use_deps ? 69u : 44u));
    CHECK(counts.flows_unbound == 0);
    CHECK(counts.overflow_lanes == 0);
    CHECK(ours["otherData"]["sources"][0]["clock_freq_hz"] == 50000000);
}

namespace {

/// two-runs/ (README there): run_epoch 12 repeats run_epoch 11 this much later.
constexpr double kSecondRunUs = 80.0;
constexpr double kFirstRunEndUs = 62.8;  ///< run_epoch 11's last AICore row end

json merged_runs(const std::string& records) {
    Composed composed(true, records);
    TraceSource source = composed.source();
    TraceOptions options;
    options.overhead = true;
    return json::parse(render({&source, 1}, options));
}

/// The slice a flow end lies strictly inside on its track (exactly one), else null.
const json* flow_slice(
    const std::map<std::pair<std::int64_t, std::int64_t>, std::vector<json>>& tracks,
    const json& end) {
    const json* hit = nullptr;
    auto it = tracks.find({end["pid"], end["tid"]});
    if (it == tracks.end()) return nullptr;
    double t = end["ts"];
    for (const json& x : it->second) {
        double a = x["ts"], b = a + x["dur"].get<double>();
        if (a + 1e-9 < t && t < b - 1e-9) {
            if (hit) return nullptr;
            hit = &x;
        }
    }
    return hit;
}

/// Each arrow as "name pid|slice|ts -> pid|slice|ts" with times relative to the run of its two
/// ends, which must be one run (both ends carry its run_epoch; "CROSS" otherwise).
std::multiset<std::string> arrows_per_run(const json& trace) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<json>> tracks;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X") tracks[{e["pid"], e["tid"]}].push_back(e);
    const auto pairs = flow_pairs(trace);
    std::multiset<std::string> out;
    for (const auto& [id, pair] : pairs) {
        const json* from = flow_slice(tracks, pair.first);
        const json* to = flow_slice(tracks, pair.second);
        REQUIRE(from);
        REQUIRE(to);
        std::int64_t run = (*from)["args"].value("run_epoch", -1);
        if (run < 0 || (*to)["args"].value("run_epoch", -1) != run) {
            out.insert("CROSS " + from->dump() + " -> " + to->dump());
            continue;
        }
        double shift = run == 12 ? kSecondRunUs : 0.0;
        auto key = [&](const json& x) {
            return fmt::format("{}|{}|{:.3f}", x["pid"].get<std::int64_t>(),
                               x["name"].get<std::string>(), x["ts"].get<double>() - shift);
        };
        out.insert(fmt::format("{} {} -> {}", pair.first["name"].get<std::string>(), key(*from),
                               key(*to)));
    }
    return out;
}

/// Counter samples per series ("name/arg") as time → value.
std::map<std::string, std::map<double, double>> counter_series(const json& trace) {
    std::map<std::string, std::map<double, double>> out;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "C")
            for (auto it = e["args"].begin(); it != e["args"].end(); ++it)
                out[e["name"].get<std::string>() + "/" + it.key()][e["ts"].get<double>()] =
                    it.value().get<double>();
    return out;
}

/// A series' value at t: its last sample at or before t.
std::optional<double> value_at(const std::map<double, double>& series, double t) {
    auto it = series.upper_bound(t + 1e-9);
    if (it == series.begin()) return std::nullopt;
    return std::prev(it)->second;
}

}  // namespace

TEST_CASE("several runs in one file: arrows, bars and counters per run (upstream-2026-09 §1.10)",
          "[swimlane][trace][runs]") {
    json one = merged_runs("two-runs/one_run/chip_swimlane_records.json");
    json two = merged_runs("two-runs/chip_swimlane_records.json");
    SECTION(
        "every arrow joins two slices of one run, and each run has the arrows of the run alone") {
        std::multiset<std::string> alone = arrows_per_run(one);
        REQUIRE(alone.size() == 69);  // the upstream count of the composed sample
        std::multiset<std::string> expected = alone;
        expected.insert(alone.begin(), alone.end());
        std::multiset<std::string> both = arrows_per_run(two);
        for (const auto& arrow : both) CHECK(arrow.rfind("CROSS", 0) != 0);
        CHECK(both == expected);
    }
    SECTION("every slice of a record with an epoch carries it, alloc bars and submits too") {
        std::map<std::string, std::multiset<std::int64_t>> epochs;  // phase or slice name → runs
        for (const auto& e : two["traceEvents"]) {
            if (e["ph"] != "X" || e["pid"] == 5) continue;
            INFO(e.dump());
            REQUIRE(e["args"].contains("run_epoch"));
            std::int64_t run = e["args"]["run_epoch"];
            CHECK(e["ts"].get<double>() >= (run == 12 ? kSecondRunUs : 0.0));
            if (e["args"].value("phase", "") == "alloc") epochs["alloc"].insert(run);
        }
        CHECK(epochs["alloc"] == std::multiset<std::int64_t>{11, 12});
    }
    SECTION("counters: each run's series are the run alone's, shifted by the run's start") {
        auto alone = counter_series(one);
        auto both = counter_series(two);
        REQUIRE(alone.size() == both.size());
        std::set<double> times;
        for (const auto& [name, series] : alone)
            for (const auto& [t, v] : series) times.insert(t);
        for (const auto& [name, series] : alone) {
            INFO(name);
            REQUIRE(both.count(name));
            for (double shift : {0.0, kSecondRunUs})
                for (double t : times) {
                    std::optional<double> expected = value_at(series, t);
                    if (!expected) continue;  // before the series' first sample
                    // The overhead window of the run alone ends with its last row; the two-run
                    // file's goes on (idle cores between the runs).
                    if (name.rfind("oh_", 0) == 0 && t >= kFirstRunEndUs - 1e-9) continue;
                    INFO("t " << t << " shift " << shift);
                    CHECK(value_at(both[name], t + shift) == expected);
                }
        }
    }
}

TEST_CASE("events are sorted by time, longer first, times exact from ns", "[swimlane][trace]") {
    Composed composed;
    TraceSource source = composed.source();
    std::string text = render({&source, 1}, {});
    json trace = json::parse(text);
    double last = -1;
    double last_dur = 0;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] == "M") continue;
        double ts = e["ts"];
        CHECK(ts >= last);
        if (ts == last && e["ph"] == "X" && last_dur >= 0)
            CHECK(e["dur"].get<double>() <= last_dur);
        last_dur = e["ph"] == "X" ? e["dur"].get<double>() : -1;
        last = ts;
    }
    // 115 cycles at 50 MHz = 2.3 µs: printed from ns, never 2.3000000000000003.
    CHECK(text.find("\"ts\":2.300,") != std::string::npos);
    CHECK(text.find("2.3000000000000003") == std::string::npos);
}

TEST_CASE("events at one instant: slices, counters, arrow starts, arrow ends, each by creation",
          "[swimlane][trace]") {
    // The writer merges its streams by time alone (arrow starts and ends each in four streams,
    // the quarters of the flow ids): at one instant the kinds come in this order and arrows by
    // id.
    Composed composed;
    TraceSource source = composed.source();
    for (FlowMode mode : {FlowMode::Instance, FlowMode::Block}) {
        TraceOptions options;
        options.flows = mode;
        json trace = json::parse(render({&source, 1}, options));
        double last_ts = -1;
        int last_rank = -1;
        std::int64_t last_id = -1;
        std::size_t arrows = 0, ties = 0;
        for (const auto& e : trace["traceEvents"]) {
            const std::string ph = e["ph"];
            if (ph == "M") continue;
            const int rank = ph == "X" ? 0 : ph == "C" ? 1 : ph == "s" ? 2 : 3;
            const double ts = e["ts"];
            const std::int64_t id = rank >= 2 ? e["id"].get<std::int64_t>() : -1;
            arrows += rank >= 2;
            if (ts == last_ts) {
                CHECK(rank >= last_rank);
                if (rank == last_rank && rank >= 2) {
                    CHECK(id > last_id);
                    ++ties;
                }
            }
            last_ts = ts, last_rank = rank, last_id = id;
        }
        CHECK(arrows > 0);
        CHECK(ties > 0);  // (the capture has arrows that start or end together)
    }
}

TEST_CASE("gzip output inflates to the JSON output", "[swimlane][trace]") {
    Composed composed;
    TraceSource source = composed.source();
    std::string plain = render({&source, 1}, {});
    std::string packed = render({&source, 1}, {TraceFormat::JsonGzip, TimeAlign::Start});
    REQUIRE(packed.size() > 18);
    CHECK(static_cast<unsigned char>(packed[0]) == 0x1f);
    CHECK(static_cast<unsigned char>(packed[1]) == 0x8b);
    z_stream z{};
    REQUIRE(inflateInit2(&z, 15 + 16) == Z_OK);
    std::string inflated(plain.size() + 1024, '\0');
    z.next_in = reinterpret_cast<Bytef*>(packed.data());
    z.avail_in = static_cast<uInt>(packed.size());
    z.next_out = reinterpret_cast<Bytef*>(inflated.data());
    z.avail_out = static_cast<uInt>(inflated.size());
    CHECK(inflate(&z, Z_FINISH) == Z_STREAM_END);
    inflated.resize(z.total_out);
    inflateEnd(&z);
    CHECK(inflated == plain);
}

namespace {
/// A stream buffer that takes `room` bytes and fails every write after them.
class FullDisk : public std::streambuf {
  public:
    explicit FullDisk(std::size_t room) : room_(room) {}
    std::size_t taken = 0;

  protected:
    std::streamsize xsputn(const char*, std::streamsize n) override {
        auto size = static_cast<std::size_t>(n);
        if (taken + size > room_) return 0;
        taken += size;
        return n;
    }
    int_type overflow(int_type ch) override {
        if (taken == room_) return traits_type::eof();
        ++taken;
        return traits_type::not_eof(ch);
    }

  private:
    std::size_t room_;
};
}  // namespace

TEST_CASE("JSON events sorted and rendered on two threads equal one thread's output",
          "[swimlane][trace]") {
    // The streams are sorted by whichever thread is free; batches are merged in turn, rendered
    // by whichever thread claimed them and written in claim order: any batch size, including
    // batches that cut through events at one instant, gives the one-thread text byte for byte,
    // the comma rules included.
    Composed composed;
    TraceSource source = composed.source();
    constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();
    for (FlowMode mode : {FlowMode::Instance, FlowMode::Block}) {
        auto model = detail::build_trace_model({&source, 1}, TimeAlign::Start, mode);
        REQUIRE(model.ok());
        std::ostringstream one;
        detail::write_json(*model, one, {.two_threads = false, .parallel_sort_events = kNever});
        const std::string expected = one.str();
        const std::size_t events =
            model->slices.size() + model->counters.size() + 2 * model->flows.size();
        REQUIRE(events > 100);
        for (std::size_t batch : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64},
                                  events - 1, events}) {
            for (bool two_threads : {true, false}) {
                std::ostringstream out;
                detail::write_json(*model, out,
                                   {.two_threads = two_threads,
                                    .batch_events = batch,
                                    .parallel_sort_events = batch % 2 ? 0 : kNever});
                INFO("batch " << batch << (two_threads ? ", two threads" : ", one thread"));
                CHECK(out.str() == expected);
            }
        }
    }
}

TEST_CASE("slices at one instant: the longest first, from whichever stream holds it",
          "[swimlane][trace]") {
    // The slices are sorted in several streams (ranges of slice indices): with every slice at one
    // instant and durations growing with the index, each next slice is the last one of the
    // stream that holds the longest left, never the lower stream's head.
    Composed composed;
    TraceSource source = composed.source();
    auto model = detail::build_trace_model({&source, 1}, TimeAlign::Start);
    REQUIRE(model.ok());
    REQUIRE(model->slices.size() > 8);
    for (std::size_t i = 0; i < model->slices.size(); ++i) {
        model->slices[i].ts = 0;
        model->slices[i].dur = static_cast<std::int64_t>(1000 * (i + 1));
    }
    for (std::size_t sort_from : {std::size_t{0}, std::numeric_limits<std::size_t>::max()}) {
        std::ostringstream out;
        detail::write_json(*model, out, {.parallel_sort_events = sort_from});
        double last = std::numeric_limits<double>::infinity();
        std::size_t slices = 0;
        const json trace = json::parse(out.str());
        for (const auto& e : trace["traceEvents"]) {
            if (e["ph"] != "X") continue;
            CHECK(e["dur"].get<double>() < last);
            last = e["dur"].get<double>();
            ++slices;
        }
        CHECK(slices == model->slices.size());
    }
}

TEST_CASE("a failed write stops both rendering threads and fails the trace", "[swimlane][trace]") {
    Composed composed;
    TraceSource source = composed.source();
    auto model = detail::build_trace_model({&source, 1}, TimeAlign::Start);
    REQUIRE(model.ok());
    std::ostringstream whole;
    detail::write_json(*model, whole, {.two_threads = false});
    for (std::size_t room :
         {std::size_t{0}, std::size_t{100}, whole.str().size() / 2, whole.str().size() - 1}) {
        FullDisk disk(room);
        std::ostream out(&disk);
        detail::write_json(*model, out, {.batch_events = 16});  // (a hang here is the failure)
        INFO("room " << room);
        CHECK_FALSE(out.good());
        CHECK(disk.taken <= room);
    }
    // Through write_trace: an error, not a partial success.
    FullDisk disk(1000);
    std::ostream out(&disk);
    TraceCounts counts;
    CHECK_FALSE(write_trace({&source, 1}, {}, out, counts).ok());
}

namespace {
/// Minimal protobuf reader for the test: top-level packets and the TrackEvent fields we check.
struct ProtoReader {
    std::string_view in;
    std::size_t pos = 0;
    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (int shift = 0; pos < in.size(); shift += 7) {
            auto byte = static_cast<unsigned char>(in[pos++]);
            v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
            if (!(byte & 0x80)) break;
        }
        return v;
    }
    /// Calls f(field, wire, varint value, bytes) for each field.
    template <class F>
    void each(F&& f) {
        while (pos < in.size()) {
            std::uint64_t tag = varint();
            auto field = static_cast<std::uint32_t>(tag >> 3);
            auto wire = static_cast<std::uint32_t>(tag & 7);
            if (wire == 0)
                f(field, wire, varint(), std::string_view());
            else if (wire == 1) {
                f(field, wire, 0, in.substr(pos, 8));
                pos += 8;
            } else if (wire == 2) {
                std::size_t n = varint();
                f(field, wire, 0, in.substr(pos, n));
                pos += n;
            } else {
                FAIL("unexpected wire type " << wire);
            }
        }
    }
};
}  // namespace

TEST_CASE("protobuf output: one BEGIN/END per slice, one flow id per arrow", "[swimlane][trace]") {
    Composed composed;
    TraceSource source = composed.source();
    TraceCounts counts;
    TraceOptions options{TraceFormat::Proto, TimeAlign::Start};
    options.overhead = true;
    std::string proto = render({&source, 1}, options, &counts);
    std::size_t begins = 0, ends = 0, counters = 0, descriptors = 0;
    std::set<std::string> counter_tracks;
    std::map<std::uint64_t, std::string> overhead_track;  // uuid → series name
    std::multiset<std::string> overhead_samples;          // "name|ts ns|value"
    std::map<std::uint64_t, int> flow_starts, flow_ends;
    std::uint64_t last_ts = 0;
    ProtoReader trace{proto};
    trace.each([&](std::uint32_t field, std::uint32_t wire, std::uint64_t,
                   std::string_view packet) {
        REQUIRE(field == 1);
        REQUIRE(wire == 2);
        ProtoReader p{packet};
        p.each([&](std::uint32_t pf, std::uint32_t, std::uint64_t value, std::string_view bytes) {
            if (pf == 8) {
                CHECK(value >= last_ts);
                last_ts = value;
            }
            if (pf == 60) {
                ++descriptors;
                // A counter track (field 8) carries its series name (field 2).
                std::string name;
                bool counter = false;
                std::uint64_t uuid = 0;
                ProtoReader d{bytes};
                d.each([&](std::uint32_t df, std::uint32_t, std::uint64_t dv, std::string_view b) {
                    if (df == 1) uuid = dv;
                    if (df == 2) name = b;
                    if (df == 8) counter = true;
                });
                if (counter) counter_tracks.insert(name);
                if (counter && name.starts_with("oh_")) overhead_track[uuid] = name;
            }
            if (pf != 11) return;
            std::uint64_t track = 0;
            std::int64_t counter_value = 0;
            ProtoReader e{bytes};
            e.each([&](std::uint32_t ef, std::uint32_t, std::uint64_t v, std::string_view b) {
                if (ef == 9) (v == 1 ? begins : v == 2 ? ends : counters) += 1;
                if (ef == 11) track = v;
                if (ef == 30) counter_value = static_cast<std::int64_t>(v);
                std::uint64_t id = 0;
                if (ef == 47 || ef == 48)
                    for (int i = 0; i < 8; ++i)
                        id |= static_cast<std::uint64_t>(static_cast<unsigned char>(b[i]))
                              << (8 * i);
                if (ef == 47) ++flow_starts[id];
                if (ef == 48) ++flow_ends[id];
            });
            if (overhead_track.count(track))
                overhead_samples.insert(
                    fmt::format("{}|{}|{}", overhead_track[track], last_ts, counter_value));
        });
    });
    // The overhead samples are upstream's, as in the JSON output.
    std::multiset<std::string> upstream_samples;
    json upstream = json::parse(data("expected/merged_swimlane.verbose_overhead.json"));
    for (const auto& e : upstream["traceEvents"])
        if (e.value("cat", "") == "overhead")
            upstream_samples.insert(
                fmt::format("{}|{}|{}", e["name"].get<std::string>(),
                            std::llround(e["ts"].get<double>() * 1000),
                            e["args"][e["name"].get<std::string>()].get<int>()));
    CHECK(upstream_samples.size() == 49);
    CHECK(overhead_samples == upstream_samples);
    CHECK(begins == counts.slices);
    CHECK(ends == counts.slices);
    // Each ready-queue sample is three counter events (AIC, AIV, MIX); each overhead sample one.
    CHECK(counts.counters == 14 + 49);
    CHECK(counters == 3 * 14 + 49);
    CHECK(counter_tracks ==
          std::set<std::string>{"shared_ready_queue AIC", "shared_ready_queue AIV",
                                "shared_ready_queue MIX", "oh_aic_idle", "oh_aic_ready",
                                "oh_aic_overhead", "oh_aiv_idle", "oh_aiv_ready", "oh_aiv_overhead",
                                "oh_all_overhead", "oh_has_overhead"});
    CHECK(flow_starts.size() == counts.flows);
    CHECK(flow_ends.size() == counts.flows);
    for (const auto& [id, n] : flow_starts) CHECK((n == 1 && flow_ends[id] == 1));
    CHECK(descriptors > 20);
}

namespace {
/// One DebugAnnotation as JSON (its value; arrays of ints from array_values).
json annotation_value(std::string_view bytes, std::uint64_t& name_iid) {
    json value;
    ProtoReader a{bytes};
    a.each([&](std::uint32_t f, std::uint32_t, std::uint64_t v, std::string_view b) {
        if (f == 1) name_iid = v;
        if (f == 2) value = v != 0;
        if (f == 3) value = v;
        if (f == 4) value = static_cast<std::int64_t>(v);
        if (f == 5) {
            double d;
            std::memcpy(&d, b.data(), sizeof d);
            value = d;
        }
        if (f == 6) value = std::string(b);
        if (f == 12) {
            if (!value.is_array()) value = json::array();
            std::uint64_t unused = 0;
            value.push_back(annotation_value(b, unused));
        }
    });
    return value;
}

/// Every slice of `source` as "name|ts ns|args", from the JSON and from the protobuf output; also
/// checks the interning (each name sent once, packets flagged).
std::pair<std::multiset<std::string>, std::multiset<std::string>> slices_with_args(
    const TraceSource& source, std::size_t& interned_names) {
    std::string proto = render({&source, 1}, {TraceFormat::Proto, TimeAlign::Start});
    json trace = json::parse(render({&source, 1}, {}));
    std::multiset<std::string> from_json, from_proto;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X")
            from_json.insert(fmt::format("{}|{}|{}", e["name"].get<std::string>(),
                                         std::llround(e["ts"].get<double>() * 1000),
                                         normalise(e["args"]).dump()));
    std::map<std::uint64_t, std::string> names;  // interned annotation names by iid
    std::size_t annotated_packets = 0;
    ProtoReader reader{proto};
    reader.each([&](std::uint32_t, std::uint32_t, std::uint64_t, std::string_view packet) {
        std::uint64_t ts = 0, flags = 0;
        std::string_view event;
        ProtoReader p{packet};
        p.each([&](std::uint32_t f, std::uint32_t, std::uint64_t v, std::string_view b) {
            if (f == 8) ts = v;
            if (f == 13) flags = v;
            if (f == 11) event = b;
            if (f != 12) return;
            ProtoReader interned{b};
            interned.each([&](std::uint32_t inf, std::uint32_t, std::uint64_t, std::string_view e) {
                REQUIRE(inf == 3);  // debug_annotation_names only
                std::uint64_t iid = 0;
                std::string name;
                ProtoReader entry{e};
                entry.each(
                    [&](std::uint32_t ef, std::uint32_t, std::uint64_t v2, std::string_view b2) {
                        if (ef == 1) iid = v2;
                        if (ef == 2) name = b2;
                    });
                CHECK(names.count(iid) == 0);  // each name sent once
                names[iid] = name;
            });
        });
        std::uint64_t type = 0;
        std::string name;
        json args = json::object();
        ProtoReader e{event};
        e.each([&](std::uint32_t f, std::uint32_t, std::uint64_t v, std::string_view b) {
            if (f == 9) type = v;
            if (f == 23) name = b;
            if (f == 4) {
                std::uint64_t iid = 0;
                json value = annotation_value(b, iid);
                REQUIRE(names.count(iid) == 1);
                args[names[iid]] = value;
            }
        });
        if (type != 1) return;
        CHECK(flags == 2);  // SEQ_NEEDS_INCREMENTAL_STATE: the names are interned
        ++annotated_packets;
        from_proto.insert(fmt::format("{}|{}|{}", name, ts, normalise(args).dump()));
    });
    CHECK(annotated_packets == from_json.size());
    interned_names = names.size();
    return {from_json, from_proto};
}
}  // namespace

TEST_CASE("protobuf output: every slice carries the JSON output's args", "[swimlane][trace]") {
    Composed composed;
    TraceSource source = composed.source();
    std::size_t interned_names = 0;
    auto [from_json, from_proto] = slices_with_args(source, interned_names);
    CHECK(from_proto == from_json);
    // A few slices spelled out (swimlane.md §5.4), so an error both writers share shows too.
    CHECK(from_proto.count(
              "QK(r1t1)|2300|{\"duration-us\":10.2,\"event-hint\":\"Task:r1t1, FuncId:0, "
              "CoreId:0\",\"fanin-hint\":\"0: []\",\"fanout-hint\":\"1: [r1t3]\","
              "\"kernel-duration-us\":10.0,\"local_setup_us\":0.2,\"taskId\":4294967297.0}") == 1);
    CHECK(
        from_proto.count(
            "complete(1)|12800|{\"finish_rows_attributed\":1.0,\"finishes_processed\":1.0,"
            "\"loop_iter\":57.0,\"phase\":\"complete\",\"shared_at_end (aic,aiv,mix)\":[0.0,"
            "0.0,0.0],\"shared_at_start (aic,aiv,mix)\":[0.0,0.0,0.0],\"tasks_processed\":1.0}") ==
        1);
    // One entry per distinct key (7 task-row keys, 3 more in Scheduler View, 7 phase keys,
    // task_id, submit_idx), not per slice.
    CHECK(interned_names == 19);

    // A host-orchestration capture adds the H2D and Graph Execution slices' args.
    HostCalibrated host;
    TraceSource host_source = host.source();
    // Not a structured binding: clang 14 (CI's sanitizer build) cannot capture one in a lambda.
    auto host_slices = slices_with_args(host_source, interned_names);
    const auto& host_proto = host_slices.second;
    CHECK(host_proto == host_slices.first);
    auto has = [&](std::string_view prefix) {
        return std::any_of(host_proto.begin(), host_proto.end(),
                           [&](const std::string& s) { return s.starts_with(prefix); });
    };
    CHECK(has("GraphExecution("));
    CHECK(has("arena_h2d|"));
}

TEST_CASE("overlapping rows on one core get their own lane", "[swimlane][trace]") {
    std::string json_text =
        R"({"chip_swimlane_level": 2, "metadata": {"clock_freq_hz": 1000000000, "core_types": ["aiv"]},
        "aicore_tasks": [[0, 1, 1, 100, 300, 0], [0, 2, 2, 200, 400, 0], [0, 3, 3, 400, 500, 0]],
        "aicpu_tasks": [[0, 1, 90, 310], [0, 2, 190, 410], [0, 3, 390, 510]]})";
    Diagnostics diagnostics;
    auto capture = read_capture(json_text, {"r.json", {}}, diagnostics);
    REQUIRE(capture.ok());
    TraceSource source;
    source.capture = &*capture;
    TraceCounts counts;
    json trace = json::parse(render({&source, 1}, {}, &counts));
    CHECK(counts.overflow_lanes == 2);  // one in Worker View, one in Scheduler View
    std::map<std::pair<int, std::int64_t>, std::vector<std::pair<double, double>>> by_track;
    std::set<std::string> names;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] == "X")
            by_track[{e["pid"], e["tid"]}].push_back(
                {e["ts"], e["ts"].get<double>() + e["dur"].get<double>()});
        if (e["name"] == "thread_name") names.insert(e["args"]["name"]);
    }
    for (auto& [track, spans] : by_track) {
        std::sort(spans.begin(), spans.end());
        for (std::size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].first >= spans[i - 1].second);
    }
    CHECK(names.count("AIV_0"));
    CHECK(names.count("AIV_0#1"));
}

TEST_CASE("several captures: pid namespaces, alignment rules", "[swimlane][trace]") {
    Composed a, b;
    b.capture.clock.origin_ticks +=
        50;  // the second capture started 1 µs later on the same counter
    TraceSource sources[2] = {a.source(), b.source()};
    sources[0].label = "rank0/d0";
    sources[1].label = "rank1/d0";
    json start = json::parse(render(sources, {}));
    std::set<std::int64_t> pids;
    for (const auto& e : start["traceEvents"]) pids.insert(e["pid"].get<std::int64_t>());
    CHECK(pids == std::set<std::int64_t>{101, 102, 103, 104, 201, 202, 203, 204});
    std::set<std::int64_t> flow_ids;
    for (const auto& e : start["traceEvents"])
        if (e["ph"] == "s") CHECK(flow_ids.insert(e["id"].get<std::int64_t>()).second);
    CHECK(flow_ids.size() == 138);

    json absolute = json::parse(render(sources, {TraceFormat::Json, TimeAlign::Absolute}));
    CHECK(absolute["otherData"]["sources"][0]["time_offset_ns"] == 0);
    CHECK(absolute["otherData"]["sources"][1]["time_offset_ns"] == 1000);

    b.capture.clock.freq_hz = 1'000'000'000;
    std::ostringstream out;
    TraceCounts counts;
    auto refused = write_trace(sources, {TraceFormat::Json, TimeAlign::Absolute}, out, counts);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("one clock") != std::string::npos);
}

TEST_CASE("console summary reproduces the upstream numbers byte for byte", "[swimlane][summary]") {
    Composed composed;
    std::string text = format_summary(summarize(composed.capture, &composed.names));
    std::string upstream = data("expected/stdout.default.txt");
    std::size_t begin = upstream.find(std::string(140, '='));
    std::size_t end = upstream.find("\nScheduler-overhead deep-dive");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    CHECK(text == upstream.substr(begin, end - begin));

    Composed nodeps(false);
    std::string plain = format_summary(summarize(nodeps.capture, &nodeps.names));
    std::string upstream_nodeps = data("expected/stdout.nodeps.txt");
    begin = upstream_nodeps.find(std::string(140, '='));
    end = upstream_nodeps.find("\nScheduler-overhead deep-dive");
    CHECK(plain == upstream_nodeps.substr(begin, end - begin));
}

TEST_CASE("level-1 summary: dashes for AICPU columns, AICore observed span",
          "[swimlane][summary]") {
    std::string json_text =
        R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic", "aiv"]},
        "aicore_tasks": [[0, 7, 1, 100, 150, 0], [1, 8, 1, 120, 230, 0]], "aicpu_tasks": []})";
    Diagnostics diagnostics;
    auto capture = read_capture(json_text, {"chip_swimlane_records.json", {}}, diagnostics);
    REQUIRE(capture.ok());
    std::string text = format_summary(summarize(*capture, nullptr));
    // Rows: exec 1.00 and 2.20 µs; span from the first receive (100) to the last end (230).
    // Row format of swimlane.md §6.4, restated from the spec.
    std::string row =
        fmt::format("{:<8} {:<12} {:>5}   {:>12}  {:>15}  {:>6}   {:>15}  {:>15}  {:>12}  {:>13}\n",
                    -1, "func_-1_", 2, "1.60", "-", "-", "-", "-", "-", "0.00");
    CHECK(text.find(row) != std::string::npos);
    CHECK(text.find("TOTAL                     2           3.20                -\n") !=
          std::string::npos);
    CHECK(
        text.find(
            "AICore Observed Span: 2.60 us (from earliest AICore receive to latest AICore end)") !=
        std::string::npos);
    CHECK(text.find("Total Test Time") == std::string::npos);
}

namespace {
namespace detail = ptune::swimlane::detail;

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
    Composed composed;
    HostCalibrated host;
    TraceSource host_source = host.source();
    std::set<detail::SliceKind> kinds;
    for (const TraceSource& source : {composed.source(), host_source}) {
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
    Composed composed;
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

namespace {
/// Writes `text` into `buffer` in pieces of up to `longest` bytes, alternately in place
/// (space/submit, as the Sink does) and as a stream; after each in-place piece the buffer must
/// have `room` bytes free.
void write_in_pieces(io::BlockBuf& buffer, const std::string& text, std::size_t longest,
                     std::size_t room = 0) {
    std::ostream out(&buffer);
    std::size_t written = 0;
    bool in_place = false;
    while (written < text.size()) {
        std::size_t piece =
            std::min<std::size_t>(text.size() - written, 1 + (written * 31) % longest);
        if (in_place) {
            auto space = buffer.space();
            piece = std::min(piece, space.size());
            std::memcpy(space.data(), text.data() + written, piece);
            buffer.submit(piece);
            REQUIRE(buffer.space().size() >= room);
        } else {
            out.write(text.data() + written, static_cast<std::streamsize>(piece));
        }
        written += piece;
        in_place = !in_place;
    }
}
}  // namespace

TEST_CASE(
    "the background writer writes every byte in order, however many blocks are left at the end",
    "[swimlane][trace]") {
    // The writer thread is woken once two blocks are full: a trace that ends with one full block
    // (or a part of one) waiting must still be written whole by finish().
    constexpr std::size_t kBlock = 128u << 10;
    for (std::size_t size :
         {std::size_t{0}, std::size_t{1}, kBlock - 1, kBlock, kBlock + 1, 2 * kBlock,
          2 * kBlock + 7, 3 * kBlock, 5 * kBlock + 3, 40 * kBlock + 11}) {
        std::string expected(size, '\0');
        for (std::size_t i = 0; i < size; ++i)
            expected[i] = static_cast<char>('a' + (i * 7 + i / 13) % 26);
        std::ostringstream sink;
        {
            detail::BackgroundBuf buffer(sink);
            write_in_pieces(buffer, expected, 70001);
            REQUIRE(buffer.finish());
        }
        INFO("size " << size);
        CHECK(sink.str() == expected);
    }
}

TEST_CASE("GrowingBuf keeps every byte as it grows, and starts over after clear()",
          "[swimlane][trace]") {
    // A piece of the JSON trace is rendered into it in place (space/submit, as the Sink does)
    // and by stream writes; it grows from a small first block many times over.
    for (std::size_t first : {std::size_t{1}, std::size_t{5000}}) {
        detail::GrowingBuf buffer(first);
        for (std::size_t round = 0; round < 2; ++round) {
            const std::size_t size = 300000 + round * 1000;
            std::string expected(size, '\0');
            for (std::size_t i = 0; i < size; ++i)
                expected[i] = static_cast<char>('a' + (i * 7 + i / 13 + round) % 26);
            write_in_pieces(buffer, expected, 9001, 4096);  // (the Sink's writes need room)
            INFO("first block " << first << ", round " << round);
            CHECK(buffer.written() == expected);
            buffer.clear();
            CHECK(buffer.written().empty());
        }
    }
}

TEST_CASE("the JSON sink quotes strings as append_json_string does", "[swimlane][trace]") {
    // Plain strings are checked 8 bytes at a time: a byte to escape (or non-ASCII text) at every
    // position of every length around the word size, plain strings of each length, and one
    // longer than a reservation.
    std::vector<std::string> strings;
    for (std::size_t length = 0; length <= 40; ++length) {
        strings.emplace_back(length, 'a');
        for (std::size_t at = 0; at < length; ++at)
            for (std::string_view special :
                 {"\"", "\\", "\n", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xff"}) {
                std::string text(length, 'b');
                text.replace(at, 1, special);
                strings.push_back(text);
            }
    }
    strings.emplace_back(10000, 'c');
    strings.push_back(std::string(5000, 'd') + '"');
    std::ostringstream out;
    std::string expected;
    {
        detail::json_out::Sink sink(out);
        for (const std::string& text : strings) {
            sink.string(text);
            sink.ch('\n');
            detail::json_out::append_json_string(expected, text);
            expected += '\n';
        }
        sink.flush();
    }
    CHECK(out.str() == expected);
}

TEST_CASE("the put writers write every width of number as to_chars does", "[swimlane][trace]") {
    // below_1e8 makes eight digits at once and shifts the leading zeros out: every value below
    // 200,000, both sides of every power of ten (its last step, 10^8, to write_decimal) and
    // random ones of each width, unsigned and negative.
    std::vector<std::uint64_t> values;
    for (std::uint64_t v = 0; v < 200000; ++v) values.push_back(v);
    for (std::uint64_t power = 10; power <= 10000000000000000000u; power *= 10) {
        for (std::uint64_t v : {power - 1, power, power + 1, 2 * power - 1}) values.push_back(v);
        if (power > std::numeric_limits<std::uint64_t>::max() / 10) break;
    }
    values.push_back(std::numeric_limits<std::uint64_t>::max());
    std::mt19937_64 random(3);
    for (int k = 0; k < 20000; ++k) values.push_back(random() >> (random() % 64));
    char buffer[32];
    auto to_chars = [&](auto v) {
        char expected[32];
        return std::string(expected, std::to_chars(expected, expected + 32, v).ptr);
    };
    for (std::uint64_t v : values) {
        std::memset(buffer, 'x', sizeof buffer);
        char* end = detail::json_out::put::unsigned_integer(buffer, v);
        REQUIRE(std::string(buffer, end) == to_chars(v));
        auto negative = -static_cast<std::int64_t>(v >> 1);
        end = detail::json_out::put::integer(buffer, negative);
        REQUIRE(std::string(buffer, end) == to_chars(negative));
    }
}

TEST_CASE("the JSON sink writes integers and exact microseconds as fmt would",
          "[swimlane][trace]") {
    std::ostringstream out;
    std::string expected;
    {
        detail::json_out::Sink sink(out);
        for (std::int64_t v :
             {std::int64_t{0}, std::int64_t{7}, std::int64_t{-7}, std::int64_t{10},
              std::int64_t{-99}, std::int64_t{100}, std::int64_t{4294967296},
              std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
            sink.integer(v);
            sink.ch(' ');
            expected += fmt::format("{} ", v);
        }
        for (std::int32_t v : {std::numeric_limits<std::int32_t>::min(), -1, 0, 65535}) {
            sink.integer(v);
            sink.ch(' ');
            expected += fmt::format("{} ", v);
        }
        sink.integer(std::numeric_limits<std::uint64_t>::max());
        sink.integer(std::uint32_t{4000000000u});
        expected += fmt::format("{}{}", std::numeric_limits<std::uint64_t>::max(), 4000000000u);
        // Every fraction and sign, whole parts of every width: exact, never through a double.
        auto exact_us = [](std::int64_t ns) {
            std::uint64_t magnitude =
                ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
            return fmt::format("{}{}.{:03}", ns < 0 ? "-" : "", magnitude / 1000, magnitude % 1000);
        };
        std::vector<std::int64_t> times = {0, 123456789012,
                                           std::numeric_limits<std::int64_t>::min(),
                                           std::numeric_limits<std::int64_t>::max()};
        // (Both sides of 10^8 µs, where the whole part leaves the eight-digit writer for the
        // digit pairs.)
        for (std::int64_t ns :
             {std::int64_t{1}, std::int64_t{9}, std::int64_t{10}, std::int64_t{999},
              std::int64_t{1000}, std::int64_t{1001}, std::int64_t{9999}, std::int64_t{10000},
              std::int64_t{99999999999}, std::int64_t{100000000000}, std::int64_t{100000000001},
              std::int64_t{100000000999}}) {
            times.push_back(ns);
            times.push_back(-ns);
        }
        for (std::int64_t ns = -2500; ns <= 2500; ns += 7) times.push_back(ns);
        for (std::int64_t ns = 1; ns < std::int64_t{1} << 62; ns = ns * 3 + 1) times.push_back(ns);
        for (std::int64_t ns : times) {
            sink.ch(' ');
            sink.us(ns);
            expected += ' ' + exact_us(ns);
        }
        sink.flush();
    }
    CHECK(out.str() == expected);
}

TEST_CASE("ready-queue depths are written as fmt would, single digits or not",
          "[swimlane][trace]") {
    // The single-digit arrays take a shortcut; every other value the general writer.
    const std::int32_t values[] = {0,
                                   1,
                                   9,
                                   10,
                                   11,
                                   99,
                                   -1,
                                   -10,
                                   123456,
                                   std::numeric_limits<std::int32_t>::min(),
                                   std::numeric_limits<std::int32_t>::max()};
    std::ostringstream out;
    std::string expected;
    {
        detail::json_out::Sink sink(out);
        for (std::int32_t a : values)
            for (std::int32_t b : values)
                for (std::int32_t c : {0, 5, 10, -3}) {
                    const std::array<std::int32_t, 3> depths = {a, b, c};
                    detail::json_out::JsonArgs args(sink);
                    args(detail::ArgKey::SharedAtEnd,
                         detail::arg::Depths{std::span<const std::int32_t, 3>(depths)});
                    sink.ch('\n');
                    expected +=
                        fmt::format("{{\"shared_at_end (aic,aiv,mix)\":[{},{},{}]\n", a, b, c);
                }
        sink.flush();
    }
    CHECK(out.str() == expected);
}

TEST_CASE("the trace reserves an alloc bar only for a submitted task deps.json lacks",
          "[swimlane][trace]") {
    // The slices were reserved two per orchestrator record (its bar and an alloc bar), where
    // with deps.json few or no alloc bars are drawn: 0.64 MB never used at 20K tasks.
    Composed composed;
    TraceSource source = composed.source();
    auto slack = [](const detail::TraceModel& model) {
        return model.slices.capacity() - model.slices.size();
    };
    auto allocs = [](const detail::TraceModel& model) {
        return std::count_if(model.slices.begin(), model.slices.end(), [](const detail::Slice& s) {
            return s.kind == detail::SliceKind::Alloc;
        });
    };
    auto model = detail::build_trace_model({&source, 1}, TimeAlign::Start);
    REQUIRE(model.ok());
    const std::size_t orch = composed.capture.orchestrator_phases.size();
    REQUIRE(orch > 0);
    CHECK(allocs(*model) == 1);  // (one submitted task of the fixture is not in deps.json)
    // (was ≥ orch − 1: a bar reserved per record, all but one never drawn)
    CHECK(slack(*model) + 1 < orch);
    // One more submitted task deps.json does not name: its alloc bar fits the reserve.
    Capture capture = composed.capture;
    bool moved = false;
    for (OrchestratorPhase& p : capture.orchestrator_phases)
        if (capture.phase_name(p) == "orch_submit" && p.task_id >= 0 &&
            composed.deps.tasks.contains(static_cast<std::uint64_t>(p.task_id))) {
            p.task_id += 1000;  // (no such task in deps.json, nor rows)
            moved = true;
            break;
        }
    REQUIRE(moved);
    source.capture = &capture;
    auto with_alloc = detail::build_trace_model({&source, 1}, TimeAlign::Start);
    REQUIRE(with_alloc.ok());
    CHECK(allocs(*with_alloc) == 2);
    CHECK(with_alloc->slices.capacity() == model->slices.capacity() + 1);
}

TEST_CASE("arrows from a core's scheduler thread are the same for any core id",
          "[swimlane][trace]") {
    // Cores found through a table when their ids are small, through a map when one is not.
    Composed composed(true);
    TraceCounts counts;
    TraceSource source = composed.source();
    const json reference = json::parse(render({&source, 1}, {}, &counts));
    REQUIRE(counts.flows > 0);
    auto complete_arrows = [](const json& trace) {
        std::size_t n = 0;
        for (const json& e : trace["traceEvents"]) n += e.value("name", "") == "complete";
        return n;
    };
    REQUIRE(complete_arrows(reference) > 0);
    for (std::uint32_t shift : {100u, 70'000u}) {
        INFO("core ids + " << shift);
        Composed shifted(true);
        for (TaskRow& row : shifted.capture.tasks) row.core_id += shift;
        std::vector<int> to_thread(shifted.capture.core_to_thread.size() + shift, -1);
        for (std::size_t core = 0; core < shifted.capture.core_to_thread.size(); ++core)
            to_thread[core + shift] = shifted.capture.core_to_thread[core];
        shifted.capture.core_to_thread = to_thread;
        TraceCounts shifted_counts;
        TraceSource shifted_source = shifted.source();
        const json trace = json::parse(render({&shifted_source, 1}, {}, &shifted_counts));
        CHECK(shifted_counts.flows == counts.flows);
        CHECK(shifted_counts.flows_unbound == counts.flows_unbound);
        CHECK(complete_arrows(trace) == complete_arrows(reference));
    }
}

}  // namespace swimlane_trace_test
