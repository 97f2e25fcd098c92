// Phase objects and task rows read at once (records/flat_object.hpp,
// RecordsWalker::take_container): what the shortcut takes is valid JSON read exactly as the
// tokenizer reads it, what it refuses is left to the tokenizer, and a records file reads the
// same with and without it.

#include <algorithm>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "../../src/swimlane/records/flat_object.hpp"
#include "../../src/swimlane/records/phase_read_ahead.hpp"
#include "../../src/swimlane/records/walker.hpp"
#include "ptune/core/io.hpp"
#include "ptune/swimlane/reader.hpp"

namespace swimlane_flat_object_test {

using namespace ptune;
using namespace ptune::swimlane::records;
using json_stream::Scalar;

namespace {

std::string scalar_text(const Scalar& v) {
    switch (v.type) {
        case Scalar::Type::Int:
            return fmt::format("i{}/{}", v.integer, v.number);
        case Scalar::Type::String:
            return fmt::format("s{}", v.text);
        case Scalar::Type::Float:
            return fmt::format("f{}", v.number);
        default:
            return "?";
    }
}

/// The members of a FlatObject as text: `key=value` or `key=[e,…]`.
std::vector<std::string> members_of(const FlatObject& object) {
    std::vector<std::string> out;
    for (std::size_t m = 0; m < object.size; ++m) {
        const FlatObject::Member& member = object.members[m];
        if (!member.is_array) {
            out.push_back(fmt::format("{}={}", member.key, scalar_text(member.value)));
            continue;
        }
        std::vector<std::string> elements;
        for (std::size_t e = 0; e < member.elements; ++e)
            elements.push_back(
                fmt::format("i{}/{}", member.element[e], static_cast<double>(member.element[e])));
        out.push_back(fmt::format("{}=[{}]", member.key, fmt::join(elements, ",")));
    }
    return out;
}

/// The same through the tokenizer's callbacks, for one object (as the element of an array).
struct Members : json_stream::JsonWalker {
    std::vector<std::string> seen;
    std::vector<std::string> elements;
    void on_scalar(const Scalar& v) override {
        if (depth() == 2)
            seen.push_back(fmt::format("{}={}", key_at(2), scalar_text(v)));
        else
            elements.push_back(scalar_text(v));
    }
    void on_open(std::size_t level, bool) override {
        if (level == 2) elements.clear();
    }
    void on_close(std::size_t level, bool is_object) override {
        if (level == 2 && !is_object)
            seen.push_back(fmt::format("{}=[{}]", key_at(2), fmt::join(elements, ",")));
    }
};

}  // namespace

TEST_CASE("read_flat_object takes flat one-line objects and refuses everything else",
          "[swimlane][records]") {
    FlatObject object;
    auto taken = [&](std::string_view text) { return read_flat_object(text, object); };
    CHECK(taken("{}") == 2);
    CHECK(taken("{ }, 7") == 3);
    CHECK(taken(R"({"a":1})") == 7);
    CHECK(members_of(object) == std::vector<std::string>{"a=i1/1"});
    CHECK(taken("{ \"kind\" :\t\"dispatch\" , \"start_cycles\": 4320000000041,\r\"x\": [0, -1,0], "
                "\"e\": [], \"n\": -0}") > 0);
    CHECK(members_of(object) ==
          std::vector<std::string>{"kind=sdispatch", "start_cycles=i4320000000041/4320000000041",
                                   "x=[i0/0,i-1/-1,i0/0]", "e=[]", "n=i0/0"});
    for (const char* refused : {R"({"a":1,})",
                                R"({"a":01})",
                                R"({"a":1.5})",
                                R"({"a":1e3})",
                                R"({"a":-})",
                                R"({"a":true})",
                                R"({"a":null})",
                                R"({"a":{}})",
                                R"({"a":"\u00e9"})",
                                "{\"a\":\"\xC3\xA9\"}",
                                R"({"a":[1,]})",
                                R"({"a":[1.5]})",
                                R"({"a":[[1]]})",
                                "{\"a\":1\n}",
                                "{\n}",
                                R"({"a":1)",
                                R"({"a" 1})",
                                R"({a:1})",
                                R"({"a":1234567890123456789})",
                                R"({"a":[1,2,3,4,5,6,7,8,9]})",
                                "{\"a\":\"\t\"}",
                                R"([1])"}) {
        INFO(refused);
        CHECK(taken(refused) == 0);
    }
    std::string many = "{";
    for (int m = 0; m < 25; ++m) many += fmt::format("{}\"k{}\":{}", m ? "," : "", m, m);
    CHECK(taken(many + "}") == 0);
}

TEST_CASE("read_flat_object knows a member written as in the last object, and only that",
          "[swimlane][records]") {
    FlatObject object;
    const std::string tail(40, ' ');  // (room for the 32-byte comparison of a learnt shape)
    auto read = [&](std::string text) {
        text += tail;
        return read_flat_object(text, object) > 0 ? members_of(object) : std::vector<std::string>{};
    };
    CHECK(read(R"({"kind": "dispatch", "start_cycles": 12, "x": [1,2]})") ==
          std::vector<std::string>{"kind=sdispatch", "start_cycles=i12/12", "x=[i1/1,i2/2]"});
    // The same keys written alike: taken from the shapes, values read as ever.
    CHECK(read(R"({"kind": "complete", "start_cycles": 13, "x": []})") ==
          std::vector<std::string>{"kind=scomplete", "start_cycles=i13/13", "x=[]"});
    // A key one byte off, a blank more or less, a key the shape is a prefix of, another order,
    // an escape where the shape had none: read the long way, or refused as before.
    CHECK(read(R"({"kinD": "a", "start_cycles":  14, "x" : [3]})") ==
          std::vector<std::string>{"kinD=sa", "start_cycles=i14/14", "x=[i3/3]"});
    CHECK(read(R"({"kinD": "a", "start_cycles": 15, "xy": [3]})") ==
          std::vector<std::string>{"kinD=sa", "start_cycles=i15/15", "xy=[i3/3]"});
    CHECK(read(R"({"start_cycles": 16, "kinD": "b"})") ==
          std::vector<std::string>{"start_cycles=i16/16", "kinD=sb"});
    CHECK(read(R"({"start_cycles": 17, "kinD\u0041": "b"})").empty());
    // A member too long to learn (over 32 bytes with its colon) is read each time.
    const std::string long_key(40, 'k');
    for (int round = 0; round < 2; ++round)
        CHECK(read("{\"" + long_key + "\": 1}") == std::vector<std::string>{long_key + "=i1/1"});
}

TEST_CASE("what read_flat_object takes, the tokenizer reads alike", "[swimlane][records]") {
    // Random objects near the accepted form, some with one byte changed: whenever the shortcut
    // takes one, the tokenizer must accept the same bytes and read the same members.
    std::mt19937 random(7);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
    const std::vector<std::string> keys = {"kind",  "start_cycles", "shared_at_end", "",
                                           "k\\\"", "x y",          "\xC3\xA9"};
    const std::vector<std::string> spaces = {"", " ", "\t", "\r", "\n", "  "};
    auto number = [&] {
        std::string digits = pick(5) == 0 ? "0" : std::to_string(1 + pick(9));
        for (std::size_t n = pick(21); n > 0; --n) digits += static_cast<char>('0' + pick(10));
        const std::vector<std::string> tails = {"", "", "", ".5", "e2", "E-1"};
        return (pick(3) == 0 ? "-" : "") + digits + tails[pick(tails.size())];
    };
    auto value = [&]() -> std::string {
        switch (pick(6)) {
            case 0:
                return "\"" + keys[pick(keys.size())] + "\"";
            case 1: {
                std::string array = "[" + spaces[pick(spaces.size())];
                for (std::size_t n = pick(10); n > 0; --n)
                    array += number() + (n > 1 ? "," + spaces[pick(spaces.size())] : "");
                return array + "]";
            }
            case 2:
                return pick(2) ? "true" : "{}";
            default:
                return number();
        }
    };
    std::size_t taken_count = 0;
    // One object read into again and again (the members' shapes learnt from the last) and a
    // fresh one each time must read every text alike.
    FlatObject reused;
    for (int round = 0; round < 20000; ++round) {
        std::string text = "{" + spaces[pick(spaces.size())];
        for (std::size_t m = pick(6); m > 0; --m)
            text += "\"" + keys[pick(keys.size())] + "\"" + spaces[pick(spaces.size())] + ":" +
                    spaces[pick(spaces.size())] + value() + (m > 1 ? "," : "") +
                    spaces[pick(spaces.size())];
        text += "}";
        if (pick(3) == 0) text[pick(text.size())] = "{}[],:\"-0 a\\"[pick(12)];
        FlatObject object;
        const std::size_t length = read_flat_object(text, object);
        // (padded: the learnt shapes are compared 32 bytes at a time)
        const std::string padded = text + std::string(40, ' ');
        INFO(text);
        CHECK(read_flat_object(padded, reused) == length);
        if (length == 0) continue;
        CHECK(members_of(reused) == members_of(object));
        ++taken_count;
        Members members;
        REQUIRE(json_stream::walk("[" + text.substr(0, length) + "]", members));
        CHECK(members.seen == members_of(object));
    }
    CHECK(taken_count > 1000);  // (the test is not vacuous)
}

namespace {

/// The phase records and task rows a walk of `text` collected, as text, and how many
/// containers it took at once (with `read_ahead`: how many it took from it; the text streamed).
std::pair<std::vector<std::string>, std::size_t> records_read(
    const std::string& text, PhaseReadAhead* read_ahead = nullptr) {
    RecordsWalker walker;
    walker.read_ahead = read_ahead;
    if (read_ahead) {
        std::istringstream stream(text);
        json_stream::walk(stream, walker);
        read_ahead->finish();
    } else {
        json_stream::walk(text, walker);
    }
    std::vector<std::string> out;
    auto add = [&](const char* section, const RawPhase& p) {
        out.push_back(fmt::format(
            "{} t{} k{} {}:{} {}:{} it{} tp{} ph{} pm{} id{} si{} ri{} ep{} d[{}]{}:{} "
            "[{}]{}:{}",
            section, p.thread, walker.kinds[p.kind], p.has_start, p.start, p.has_end, p.end,
            p.loop_iter, p.tasks_processed, p.pop_hit, p.pop_miss, p.task_id, p.submit_idx,
            p.record_index, p.run_epoch, fmt::join(p.shared_start.values, ","),
            p.shared_start.count, p.shared_start.empty(), fmt::join(p.shared_end.values, ","),
            p.shared_end.count, p.shared_end.empty()));
    };
    for (const RawPhase& p : walker.scheduler) add("sched", p);
    for (const RawPhase& p : walker.orchestrator) add("orch", p);
    for (const RawPhase& p : walker.host_orchestrator) add("host", p);
    out.push_back(fmt::format("aicore {} aicpu {} columns {} widths {} {} malformed {}",
                              fmt::join(walker.aicore, ","), fmt::join(walker.aicpu, ","),
                              walker.aicore_columns, walker.aicore_widths, walker.aicpu_widths,
                              walker.malformed_rows));
    out.push_back(fmt::format("arrays {} {} failed {} line {}", walker.scheduler_arrays,
                              walker.orchestrator_arrays, walker.failed(), walker.error_line()));
    return {out, read_ahead ? walker.containers_read_ahead : walker.containers_taken};
}

/// A walk of `text` with its phase objects read ahead in blocks of `block` bytes from `source`
/// (the same text unless a test changes it) on a second thread.
std::pair<std::vector<std::string>, std::size_t> read_ahead_of(const std::string& text,
                                                               const std::string& source,
                                                               std::size_t block, bool walk_waits) {
    PhaseReadAhead read_ahead(
        [&](std::uint64_t offset, char* into, std::size_t n) {
            if (offset >= source.size()) return std::size_t{0};
            n = std::min<std::size_t>(n, source.size() - offset);
            std::copy_n(source.data() + offset, n, into);
            return n;
        },
        source.size(), block, walk_waits);
    std::thread reader([&] { read_ahead.run(); });
    auto read = records_read(text, &read_ahead);
    reader.join();
    return read;
}

/// `text` with a newline after every '{' and '[': the same JSON, but nothing is taken at once.
std::string newline_in_every_container(const std::string& text) {
    std::string out;
    for (char c : text) {
        out += c;
        if (c == '{' || c == '[') out += '\n';
    }
    return out;
}

}  // namespace

TEST_CASE("records read the same with containers taken at once and walked token by token",
          "[swimlane][records]") {
    // Captures of every phase section, and a made-up one with what the shortcut must get right:
    // member order, unknown keys, duplicates, empty objects, arrays of any length under any
    // key, negative values, a phase object directly in a section's array (thread 0), rows of
    // every width, and containers the shortcut refuses among those it takes.
    std::string made_up = R"({"chip_swimlane_level": 4,
  "aicore_tasks": [[0, 1, 2, 10, 20], [1, 2, 3, 11, 21, 5, 7], [2, 3, 4, 12], [3, 4, 5, 6, 7, 8, 9, 10, 11],
                   [4, "5", 6, 7, 8], [5, 6, 7, 8, 9, [1]], []],
  "aicpu_tasks": [[0, 2, 10, 21], [1, 3, 11, 22, 4]],
  "aicpu_scheduler_phases": [
    [{"kind": "dispatch", "start_cycles": 10, "end_cycles": 12, "shared_at_start": [0,1,0], "shared_at_end": [3,2,1,0]},
     {}, {"end_cycles": -5, "start_cycles": 7, "kind": "complete", "kind": "idle", "other": [1,2], "pop_hit": 4},
     {"kind": "dispatch", "start_time_us": 1.5, "end_cycles": 3},
     {"kind": "d\u0069spatch", "loop_iter": 9, "shared_at_end": []},
     {"thread_idx": 5, "tasks_processed": 0, "shared_at_start": [7]}],
    [],
    [{"kind": "fanin", "start_cycles": 100, "end_cycles": 90, "task_id": -1}]
  ],
  "aicpu_orchestrator_phases": [[{"submit_idx": 0, "task_id": 4294967296, "start_cycles": 1, "end_cycles": 2}]],
  "host_orchestrator_phases": [{"phase": "orch_submit", "start_host_ns": 5, "end_host_ns": 9, "thread_id": 2}]
})";
    std::vector<std::string> texts = {made_up};
    for (const char* file : {"chip_swimlane_records.json", "two-runs/chip_swimlane_records.json",
                             "upstream-2026-09/hbg_l4_graph_replay/chip_swimlane_records.json",
                             "host/calibrated.chip_swimlane_records.json",
                             "l3/dfx_outputs/rank0/d0/chip_swimlane_records.json"}) {
        auto text = io::read_file(std::string(PTUNE_TEST_DATA) + "/swimlane/" + file);
        REQUIRE(text.ok());
        texts.push_back(*text);
    }
    // A file cut inside a phase object: read up to the cut either way.
    texts.push_back(made_up.substr(0, made_up.find("\"loop_iter\"")));
    for (const std::string& text : texts) {
        auto [taken, containers] = records_read(text);
        auto [walked, none] = records_read(newline_in_every_container(text));
        INFO(text.substr(0, 200));
        // (The host captures write an object over several lines: nothing to take there.)
        // (All but the nine-cell row, the string cell, the nested row, the 1.5, the escape.)
        if (&text == &texts.front()) CHECK(containers == 13);
        if (&text == &texts[1]) CHECK(containers > 3);
        CHECK(none == 0);
        // (An error's line differs by the added newlines.)
        if (taken.back().find("failed true") != std::string::npos) {
            CHECK(walked.back().find("failed true") != std::string::npos);
            taken.pop_back();
            walked.pop_back();
        }
        CHECK(taken == walked);
    }
}

TEST_CASE("records read the same with phase objects read ahead on a second thread",
          "[swimlane][records]") {
    // The second thread finds the objects that start lines and reads them as the walk would;
    // the walk takes one only where its own bytes are the same. Blocks of every size cut objects
    // and lines anywhere, the walk's stream window (64 KiB) cuts them elsewhere: a large capture
    // of one object a line, with what the record must carry over (the kind names in the order
    // the walk meets them, a thread named by the object or by its array, several objects on a
    // line, two kind names in one object, objects the reader refuses) reads the same.
    std::string text = R"({"chip_swimlane_level": 4,
  "aicore_tasks": [
    [0, 1, 2, 10, 20],
    [1, 2, 3, 11, 21]
  ],
  "aicpu_scheduler_phases": [
    [
)";
    std::mt19937 random(7);
    const char* kinds[] = {"dispatch", "complete", "idle", "fanin", "k\\u0069nd", "resolve"};
    std::size_t plain = 0;  // objects the second thread reads (one kind name, no escape, no 1.5)
    std::size_t plain_in_first_half = 0;
    const std::size_t half = 200000;  // (of the ~420 KB)
    for (int line = 0; line < 2500; ++line) {
        if (line == 1200) text += "    ],\n    [\n";  // the next scheduler thread
        const int shape = static_cast<int>(random() % 40);
        const std::size_t kind = random() % 6;
        const bool read = kind != 4 && shape != 1 && shape != 2 && shape != 4;
        plain += read;
        plain += shape == 3 && kind != 4;  // (after a refused one the line is left)
        if (text.size() < half) plain_in_first_half = plain;
        std::string object = fmt::format(
            R"({{"kind": "{}", "start_cycles": {}, "end_cycles": {}, "loop_iter": {}, "tasks_processed": 1, "shared_at_start": [0,{},0], "shared_at_end": [1,0,{}]}})",
            kinds[kind], 1000 + line * 10, 1005 + line * 10, line, line % 3, line % 5);
        if (shape == 0) object.insert(1, R"("thread_idx": 7, )");
        if (shape == 1) object.insert(1, R"("kind": "early", )");  // two kind names
        if (shape == 2) object.insert(1, R"("phase": "x", "start_time_us": 1.5, )");
        if (shape == 3) object += R"(, {"kind": "second", "start_cycles": 3, "end_cycles": 4})";
        if (shape == 4) object.insert(1, R"("\n": 1, )");  // refused (an escape)
        text += (line % 7 == 0 ? "\t" : "      ") + object +
                (line == 1199 || line == 2499 ? "\n" : ",\r\n");
    }
    text += R"(    ]
  ],
  "aicpu_orchestrator_phases": [[
      {"submit_idx": 0, "task_id": 4294967296, "start_cycles": 1, "end_cycles": 2},
      {"submit_idx": 1, "task_id": 4294967297, "start_cycles": 2, "end_cycles": 3}
  ]],
  "host_orchestrator_phases": [
      {"phase": "orch_submit", "start_host_ns": 5, "extra":
      {"phase": "inner", "start_host_ns": 6, "end_host_ns": 7}, "end_host_ns": 9},
      {"phase": "orch_submit", "start_host_ns": 10, "end_host_ns": 11}
  ]
})";
    plain += 4;  // the orchestrator's, the host's, and an object inside a host record
    REQUIRE(text.size() > 3 * (1u << 16));
    const auto walked = records_read(text).first;
    REQUIRE(walked.size() > 2500);
    for (std::size_t block :
         {std::size_t{97}, std::size_t{4096}, std::size_t{65536}, text.size()}) {
        INFO("blocks of " << block);
        auto [read, ahead] = read_ahead_of(text, text, block, true);
        CHECK(read == walked);
        // Every plain object, but those whose line starts in one block and '{' (or a second
        // object) is in the next: a few at each block boundary.
        CHECK(ahead <= plain);
        CHECK(ahead >= plain - (block < 4096 ? plain / 5 : text.size() / block * 2 + 2));
        CHECK(read_ahead_of(text, text, block, false).first == walked);
    }
    // A file that changed under the second thread (every digit of its second half): only the
    // objects of the first half are taken.
    std::string changed = text;
    for (std::size_t at = half; at < changed.size(); ++at)
        if (changed[at] >= '0' && changed[at] <= '8') ++changed[at];
    auto [read, ahead] = read_ahead_of(text, changed, 4096, true);
    CHECK(read == walked);
    CHECK(ahead <= plain_in_first_half + 1);
    CHECK(ahead + 2 * half / 4096 + 2 >= plain_in_first_half);
    // A file cut short for the second thread: the rest is the walk's.
    auto [cut, cut_ahead] = read_ahead_of(text, text.substr(0, text.size() / 3), 4096, true);
    CHECK(cut == walked);
    CHECK(cut_ahead > plain / 4);
    CHECK(cut_ahead < plain / 2);
}

namespace {

/// What read_deps made of `text`, as text: every task and edge, the counts and the warnings.
std::string deps_read(const std::string& text) {
    Diagnostics diagnostics;
    auto deps = swimlane::read_deps(text, "deps.json", diagnostics);
    std::string out = deps.ok() ? "" : "error " + deps.error().message;
    if (deps.ok()) {
        for (const auto& [id, task] : deps->tasks)
            out +=
                fmt::format("t{} {} [{}] {} {};", id, task.has_kernel_ids,
                            fmt::join(task.kernel_ids, ","), task.block_num, task.early_dispatch);
        for (const auto& [pred, succ] : deps->edges) out += fmt::format("e{}>{};", pred, succ);
        out += fmt::format("dup {} truncated {}", deps->duplicate_edges, deps->truncated);
    }
    for (const auto& d : diagnostics.items()) out += "|" + d.message;
    // (A parse error's position differs where newlines were added.)
    return std::regex_replace(out, std::regex("line [0-9]+, column [0-9]+"), "line, column");
}

}  // namespace

TEST_CASE("deps.json reads the same with tasks and edges taken at once and walked token by token",
          "[swimlane][records]") {
    // What the shortcut must get right: ids as strings and integers, literals, arrays of any
    // scalars (kernel_ids of other lengths, strings in them, two kernel_ids), duplicate keys,
    // members in any order, spaces, an empty object, a task without an id, objects written as
    // the one before (their keys taken by the bytes learnt from it) and with more members than
    // it learns, and objects it leaves to the tokenizer (an escape, a fraction, a nested array,
    // 19 digits, a newline).
    const std::string text =
        R"({"tasks":[{"task_id":"4294967296","scope":"auto","early_dispatch":false,"kernel_ids":[0,-1,-1],"block_num":1,"args":[]},
{"task_id":"4294967298","scope":"auto","early_dispatch":true,"kernel_ids":[5,-1,-1],"block_num":2,"args":[]},
{"task_id":"20","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"kernel_ids":[1,1,1],"block_num":3},
{"task_id":"21","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"kernel_ids":[2,2,2],"block_num":4},
{"task_id": 4294967297 , "early_dispatch" : true, "kernel_ids": [ -1, 4, -1 ], "block_num": 8, "args": [null, "x", true]},
{"kernel_ids":[1,2],"task_id":"5","kernel_ids":[3],"block_num":0,"early_dispatch":null},
{"task_id":"6","task_id":"7","kernel_ids":["a",2,3],"block_num":"9"},
{}, {"scope":"auto"}, {"task_id":"8","name":"e\u0073cape"}, {"task_id":"9","block_num":1.5},
{"task_id":"10","args":[[1]]}, {"task_id":"11","block_num":1234567890123456789}, {"task_id":
"12"}, {"task_id":"-3"}],
"tensors":[{"id":1}],
"edges":[{"pred":"4294967296","succ":"4294967297","arg":0,"source":"tensormap","flags":["wait"]},
{"pred":"4294967297","succ":"4294967298","arg":1,"source":"tensormap","flags":["wait"]},
{"succ":"7","pred":5}, {"pred":"5","succ":"7"}, {"pred":"x","succ":"7"}, {"pred":"7"},
{"pred":"7","succ":"5","flags":[]}, {"pred":"8","succ":"9","flags":["a","b\n"]}]})";
    const std::string expected = deps_read(newline_in_every_container(text));
    CHECK(expected.find("t4294967297 true [-1,4,-1] 8 true") != std::string::npos);
    CHECK(deps_read(text) == expected);
    // Cut anywhere: what parsed before the damage, and the same warning.
    for (std::size_t cut = 1; cut < text.size(); cut += 7)
        CHECK(deps_read(text.substr(0, cut)) ==
              deps_read(newline_in_every_container(text.substr(0, cut))));
}

}  // namespace swimlane_flat_object_test
