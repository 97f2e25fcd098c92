// The swimlane readers' streaming JSON tokenizer: a stream read in chunks gives exactly what the
// whole text gives (tokens cut at chunk boundaries, strings longer than a chunk), the same error
// lines, and JSON strings decoded per RFC 8259 (escapes, surrogate pairs).

#include <algorithm>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "ptune/core/io.hpp"
#include "ptune/swimlane/reader.hpp"

namespace swimlane_stream_test {

using namespace ptune;
using namespace ptune::swimlane;

namespace {

std::string data(const std::string& name) {
    auto text = io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane/" + name);
    REQUIRE(text.ok());
    return *text;
}

/// The text with `width` spaces after every comma: ~400 commas × 997 spaces put every kind of
/// token across a 64 KiB chunk boundary somewhere, without changing the line numbers.
std::string padded(const std::string& text, std::size_t width) {
    std::string out;
    for (char c : text) {
        out += c;
        if (c == ',') out.append(width, ' ');
    }
    return out;
}

void check_same(const Capture& a, const Capture& b) {
    REQUIRE(a.tasks.size() == b.tasks.size());
    for (std::size_t i = 0; i < a.tasks.size(); ++i) {
        CHECK(a.tasks[i].task_id == b.tasks[i].task_id);
        CHECK(a.tasks[i].core_id == b.tasks[i].core_id);
        CHECK(a.tasks[i].receive_ns == b.tasks[i].receive_ns);
        CHECK(a.tasks[i].start_ns == b.tasks[i].start_ns);
        CHECK(a.tasks[i].end_ns == b.tasks[i].end_ns);
        CHECK(a.tasks[i].dispatch_ns == b.tasks[i].dispatch_ns);
        CHECK(a.tasks[i].finish_ns == b.tasks[i].finish_ns);
    }
    REQUIRE(a.scheduler_phases.size() == b.scheduler_phases.size());
    for (std::size_t i = 0; i < a.scheduler_phases.size(); ++i) {
        CHECK(a.phase_name(a.scheduler_phases[i]) == b.phase_name(b.scheduler_phases[i]));
        CHECK(a.scheduler_phases[i].start_ns == b.scheduler_phases[i].start_ns);
        CHECK(a.scheduler_phases[i].shared_at_end == b.scheduler_phases[i].shared_at_end);
    }
    CHECK(a.orchestrator_phases.size() == b.orchestrator_phases.size());
    CHECK(a.clock.origin_ticks == b.clock.origin_ticks);
    CHECK(a.dropped.total() == b.dropped.total());
    CHECK(a.truncated == b.truncated);
}

}  // namespace

TEST_CASE("a streamed capture reads exactly as the whole text", "[swimlane][stream]") {
    std::string text = padded(data("chip_swimlane_records.json"), 997);
    REQUIRE(text.size() > 4 * 65536);
    Diagnostics diagnostics;
    auto whole = read_capture(text, {"records.json", {}}, diagnostics);
    std::istringstream in(text);
    auto streamed = read_capture(in, {"records.json", {}}, diagnostics);
    REQUIRE(whole.ok());
    REQUIRE(streamed.ok());
    CHECK(streamed->tasks.size() == 10);
    check_same(*whole, *streamed);

    SECTION("a cut stream keeps what parsed and names the same line") {
        std::string cut = text.substr(0, text.find("[4, ") + 3);
        Diagnostics text_diagnostics, stream_diagnostics;
        auto from_text = read_capture(cut, {"records.json", {}}, text_diagnostics);
        std::istringstream cut_in(cut);
        auto from_stream = read_capture(cut_in, {"records.json", {}}, stream_diagnostics);
        REQUIRE(from_text.ok());
        REQUIRE(from_stream.ok());
        CHECK(from_stream->truncated);
        check_same(*from_text, *from_stream);
        REQUIRE_FALSE(stream_diagnostics.empty());
        CHECK(stream_diagnostics.items()[0].line == text_diagnostics.items()[0].line);
        // The input ends on the last line of the cut text.
        auto last_line = static_cast<std::size_t>(1 + std::count(cut.begin(), cut.end(), '\n'));
        CHECK(stream_diagnostics.items()[0].line == last_line);
    }
}

TEST_CASE("streamed deps.json with a string longer than a chunk", "[swimlane][stream]") {
    std::string text = data("deps.json");
    // An unknown member holding a 200 KB string before the edges: skipped, then read on.
    std::string note = "{\"note\": \"" + std::string(200'000, 'x') + "\",";
    text.replace(text.find('{'), 1, note);
    Diagnostics diagnostics;
    auto whole = read_deps(text, "deps.json", diagnostics);
    std::istringstream in(text);
    auto streamed = read_deps(in, "deps.json", diagnostics);
    REQUIRE(whole.ok());
    REQUIRE(streamed.ok());
    CHECK(streamed->edges == whole->edges);
    CHECK(streamed->tasks.size() == whole->tasks.size());
    CHECK_FALSE(streamed->edges.empty());
    CHECK(diagnostics.empty());
}

TEST_CASE("JSON strings are decoded: escapes and surrogate pairs", "[swimlane][stream]") {
    Diagnostics diagnostics;
    auto names = parse_name_map(
        R"({"callable_id_to_name": {"0": "QK\u00e9", "1": "a\"b\\c\/d\te", "2": "\ud83d\ude00"},
            "orchestrator_name": "Orch\u4e2d"})",
        "name_map.json", diagnostics);
    REQUIRE(names.ok());
    CHECK(names->find(0)->name == "QK\xc3\xa9");
    CHECK(names->find(1)->name == "a\"b\\c/d\te");
    CHECK(names->find(2)->name == "\xf0\x9f\x98\x80");
    CHECK(names->orchestrator_name == "Orch\xe4\xb8\xad");

    SECTION("malformed JSON is reported with its line") {
        for (const char* bad : {"{\"callable_id_to_name\": {\"0\": \"\\ud800\"}}",
                                "{\"callable_id_to_name\": {\"0\": \"\\q\"}}",
                                "{\"callable_id_to_name\": {\"0\": 01}}",
                                "{\"callable_id_to_name\": {\n\"0\": \"a\"} x",
                                "{\"callable_id_to_name\": {\"0\": tru}}"}) {
            auto result = parse_name_map(bad, "name_map.json", diagnostics);
            INFO(bad);
            REQUIRE_FALSE(result.ok());
            CHECK(result.error().message.find("parse error at line") != std::string::npos);
        }
        auto late =
            parse_name_map("{\"callable_id_to_name\": {\n\n\"0\": [}}", "n.json", diagnostics);
        REQUIRE_FALSE(late.ok());
        CHECK(late.error().line == 3);
    }
}

TEST_CASE("a byte order mark is skipped; invalid UTF-8 in a string is refused",
          "[swimlane][stream]") {
    Diagnostics diagnostics;
    auto with_bom = parse_name_map("\xEF\xBB\xBF{\"callable_id_to_name\": {\"0\": \"QK\"}}",
                                   "n.json", diagnostics);
    REQUIRE(with_bom.ok());
    CHECK(with_bom->find(0)->name == "QK");
    std::istringstream bom_stream(
        "\xEF\xBB\xBF{\"callable_id_to_name\": {}, \"orchestrator_name\": \"O\"}");
    auto streamed = read_deps(bom_stream, "deps.json", diagnostics);
    CHECK_FALSE(streamed.ok());  // parses (BOM skipped) but is not a deps file: no edges
    CHECK(streamed.error().message.find("no `edges`") != std::string::npos);

    auto broken =
        parse_name_map("{\"callable_id_to_name\": {\"0\": \"a\xff\xfe\"}}", "n.json", diagnostics);
    REQUIRE_FALSE(broken.ok());
    CHECK(broken.error().message.find("invalid UTF-8") != std::string::npos);
    auto fine = parse_name_map("{\"callable_id_to_name\": {\"0\": \"\xe4\xb8\xad\"}}", "n.json",
                               diagnostics);
    REQUIRE(fine.ok());
    CHECK(fine->find(0)->name == "\xe4\xb8\xad");
}

TEST_CASE("numbers: integers exact, big and fractional values as floats", "[swimlane][stream]") {
    Diagnostics diagnostics;
    // clock_freq_hz as a float is rounded; a row with a fractional or huge cell is malformed.
    auto capture = read_capture(
        R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 1.0e9},
            "aicore_tasks": [[0, 1, 1, 9223372036854775000, 9223372036854775001, 0],
                             [0, 2, 2, 100.5, 200, 0], [0, 3, 3, 18446744073709551615, 1, 0],
                             [-1, 4, 4, 100, 200, 0]]})",
        {"records.json", {}}, diagnostics);
    REQUIRE(capture.ok());
    CHECK(capture->clock.freq_hz == 1'000'000'000);
    CHECK(capture->dropped.malformed_rows == 2);
    CHECK(capture->dropped.reversed == 1);  // core -1
    REQUIRE(capture->tasks.size() == 1);
    CHECK(capture->tasks[0].end_ns - capture->tasks[0].start_ns == 1);
}

}  // namespace swimlane_stream_test
