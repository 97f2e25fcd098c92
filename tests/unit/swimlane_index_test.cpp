// The id index and the radix ordering the swimlane trace is built on: both have a fast path for
// the data of real captures and a general one, and both must give the same answers either way.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "../../src/swimlane/records/stages.hpp"
#include "../../src/swimlane/trace/builder.hpp"
#include "../../src/swimlane/trace/trace_model.hpp"
#include "ptune/core/chunked_vector.hpp"
#include "ptune/swimlane/id_index.hpp"

namespace swimlane_index_test {

using ptune::swimlane::IdIndex;
using ptune::swimlane::TaskRow;
using ptune::swimlane::detail::apply_order;
namespace records = ptune::swimlane::records;
using ptune::swimlane::detail::sort_distinct;
using ptune::swimlane::detail::stable_order;
using ptune::swimlane::detail::StringTable;

namespace {

constexpr std::uint64_t task(std::uint64_t ring, std::uint64_t local) {
    return (ring << 32) | local;
}

/// stable_order of the indices of `keys` (no tie-break), from the identity and from a shuffled
/// order (ties keep it), against std::stable_sort.
void check_stable_order(const std::vector<std::uint64_t>& keys, std::mt19937_64& random) {
    for (bool shuffled : {false, true}) {
        std::vector<std::uint32_t> order(keys.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        if (shuffled) std::shuffle(order.begin(), order.end(), random);
        std::vector<std::uint32_t> expected = order;
        std::stable_sort(expected.begin(), expected.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
        stable_order(order, [&](std::uint32_t i) { return keys[i]; });
        INFO("shuffled " << shuffled);
        CHECK(order == expected);
    }
}

/// Inserts `ids` with values 0, 1, 2… into an IdIndex and a std::map, then checks every id of
/// `probes` against the map.
void check_against_map(const std::vector<std::uint64_t>& ids,
                       const std::vector<std::uint64_t>& probes) {
    IdIndex index;
    std::map<std::uint64_t, std::uint32_t> expected;
    for (std::uint32_t v = 0; v < ids.size(); ++v) {
        auto [stored, inserted] = index.try_emplace(ids[v], v);
        auto [it, fresh] = expected.try_emplace(ids[v], v);
        REQUIRE(inserted == fresh);
        REQUIRE(*stored == it->second);
    }
    CHECK(index.size() == expected.size());
    for (std::uint64_t id : probes) {
        auto it = expected.find(id);
        const std::uint32_t* found = index.find(id);
        if (it == expected.end()) {
            CHECK(found == nullptr);
        } else {
            REQUIRE(found != nullptr);
            CHECK(*found == it->second);
        }
    }
}

}  // namespace

TEST_CASE("IdIndex: dense rings, a ring starting late, repeats and absent ids", "[swimlane]") {
    std::vector<std::uint64_t> ids, probes;
    for (std::uint64_t local = 0; local < 5000; ++local) ids.push_back(task(1, local));
    for (std::uint64_t local = 700; local < 900; local += 2) ids.push_back(task(0, local));
    for (std::uint64_t local = 0; local < 100; ++local) ids.push_back(task(1, local));  // repeats
    for (std::uint64_t local = 0; local < 6000; ++local) {
        probes.push_back(task(1, local));
        probes.push_back(task(0, local));
        probes.push_back(task(2, local));
    }
    check_against_map(ids, probes);
}

TEST_CASE("IdIndex: sparse ids, ids below a ring's first and many rings use the hash table",
          "[swimlane]") {
    std::vector<std::uint64_t> ids, probes;
    ids.push_back(task(3, 1000));
    for (std::uint64_t local = 0; local < 1000; local += 7) ids.push_back(task(3, local));  // below
    for (std::uint64_t k = 0; k < 2000; ++k) ids.push_back(task(4, k * 1'000'003));  // sparse
    for (std::uint64_t ring = 10; ring < 10 + 3 * IdIndex::kDenseRings; ++ring)
        for (std::uint64_t local = 0; local < 50; ++local) ids.push_back(task(ring, local));
    ids.push_back(~std::uint64_t{0});
    ids.push_back(0);
    std::mt19937_64 random(7);
    for (int k = 0; k < 3000; ++k) ids.push_back(random());
    probes = ids;
    for (std::uint64_t id : ids) {
        probes.push_back(id + 1);
        probes.push_back(id - 1);
    }
    check_against_map(ids, probes);
}

TEST_CASE("IdIndex: a stored value can be changed through the pointer", "[swimlane]") {
    IdIndex index;
    index.try_emplace(task(1, 5), 0);
    index.try_emplace(task(9, 1u << 31), 0);  // the hash table (starts far from 0)
    index.try_emplace(task(9, 0), 0);         // below the ring's first id: hashed too
    for (std::uint64_t id : {task(1, 5), task(9, 1u << 31), task(9, 0)}) {
        ++*index.try_emplace(id, 0).first;
        ++*index.find(id);
        CHECK(*index.find(id) == 2);
    }
    CHECK(index.size() == 3);
    CHECK_FALSE(index.contains(task(1, 4)));
}

TEST_CASE("stable_order with a tie-break equals a stable sort by (key, tie, position)",
          "[swimlane]") {
    std::mt19937_64 random(11);
    // Narrow keys (each item carries its key) and keys spanning 64 bits (keys looked up); short
    // runs of ties (sorted by insertion) and long ones (by std::stable_sort).
    for (std::uint64_t key_range : {std::uint64_t{16}, std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
        for (std::size_t n :
             {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{40}, std::size_t{1000}}) {
            std::vector<std::uint64_t> keys(n), ties(n);
            for (std::size_t i = 0; i < n; ++i) {
                keys[i] = key_range == ~std::uint64_t{0} && i % 3 == 0
                              ? ~std::uint64_t{0} - (random() % 4)  // ties at the top, too
                              : random() % key_range;
                ties[i] = random() % 3;
            }
            // Start from a shuffled order: ties must keep that order, not the index order.
            std::vector<std::uint32_t> order(n);
            for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
            std::shuffle(order.begin(), order.end(), random);
            std::vector<std::uint32_t> expected = order;
            std::stable_sort(expected.begin(), expected.end(),
                             [&](std::uint32_t a, std::uint32_t b) {
                                 return keys[a] != keys[b] ? keys[a] < keys[b] : ties[a] < ties[b];
                             });
            stable_order(
                order, [&](std::uint32_t i) { return keys[i]; },
                [&](std::uint32_t a, std::uint32_t b) { return ties[a] < ties[b]; });
            CHECK(order == expected);
        }
    }
}

TEST_CASE("stable_order with a tie-break orders items whose keys are all equal", "[swimlane]") {
    std::vector<std::uint32_t> order = {4, 3, 2, 1, 0};
    std::vector<int> ties = {2, 0, 1, 0, 2};
    stable_order(
        order, [](std::uint32_t) { return std::uint64_t{42}; },
        [&](std::uint32_t a, std::uint32_t b) { return ties[a] < ties[b]; });
    CHECK(order == std::vector<std::uint32_t>{3, 1, 2, 4, 0});
}

TEST_CASE("stable_order of many items (in-place radix levels) equals a stable sort", "[swimlane]") {
    // 600K items: the in-place most-significant pass with a 9-bit digit, buckets sorted by
    // least-significant passes and by insertion; keys with long runs of ties, from a shuffled
    // order (ties keep it) and from the identity.
    std::mt19937_64 random(7);
    const std::size_t n = 600000;
    for (std::uint64_t key_range : {std::uint64_t{1} << 30, std::uint64_t{5000}}) {
        std::vector<std::uint64_t> keys(n);
        for (auto& key : keys) key = random() % key_range;
        check_stable_order(keys, random);
    }
}

TEST_CASE("stable_order of keys of a narrow range (counted and placed) equals a stable sort",
          "[swimlane]") {
    // Threads or runs: a few values, not from 0; as many values as items; one more bit than
    // the counted sort takes (2^16 + 1 values), which goes to the radix passes.
    std::mt19937_64 random(5);
    for (auto [n, values] : {std::pair<std::size_t, std::uint64_t>{10, 3},
                             {62000, 72},
                             {4096, 4096},
                             {70000, 65537},
                             {3, 200}}) {
        std::vector<std::uint64_t> keys(n);
        for (auto& key : keys) key = 1000 + random() % values;
        INFO("n " << n << " values " << values);
        check_stable_order(keys, random);
    }
}

TEST_CASE("sort_nearly_sorted equals std::sort, nearly in order or not at all", "[swimlane]") {
    // Lane keys (start, -duration, index): a few items a few places out (the insertion), many
    // far out (the fall-back to std::sort after a partial insertion), none out, empty, one.
    using Key = std::tuple<std::int64_t, std::int64_t, std::uint32_t>;
    std::mt19937_64 random(3);
    for (std::size_t n : {0, 1, 2, 50, 20000}) {
        for (int far : {0, 1, 2}) {
            std::vector<Key> keys(n);
            for (std::uint32_t i = 0; i < n; ++i)
                keys[i] = {static_cast<std::int64_t>(i / 2),
                           -static_cast<std::int64_t>(random() % 4), i};
            for (std::size_t k = 0; k + 3 < n && far > 0; k += far == 1 ? 97 : 1)
                std::swap(keys[k], keys[k + 1 + random() % 3]);
            std::vector<Key> expected = keys;
            std::sort(expected.begin(), expected.end());
            ptune::swimlane::detail::sort_nearly_sorted(keys.begin(), keys.end());
            CHECK(keys == expected);
        }
    }
}

TEST_CASE("apply_order moves each item to its place along the cycles, once", "[swimlane]") {
    std::mt19937_64 random(11);
    for (std::size_t n : {0, 1, 2, 7, 1000}) {
        std::vector<std::string> items(n);
        for (std::size_t i = 0; i < n; ++i) items[i] = "item " + std::to_string(i);
        std::vector<std::uint32_t> order(n);
        for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), random);
        std::vector<std::string> expected;
        for (std::uint32_t i : order) expected.push_back(items[i]);
        apply_order(items, order);
        CHECK(items == expected);
        for (std::uint32_t i = 0; i < n; ++i) CHECK(order[i] == i);
    }
}

TEST_CASE("the reader's rows by task id: a stable sort, repeats in their order", "[swimlane]") {
    // Task ids of several rings, each id on several rows (blocks of one task, two runs): the
    // rows of one id keep the order they were read in.
    std::mt19937_64 random(5);
    std::vector<TaskRow> rows(50000);
    for (std::uint32_t i = 0; i < rows.size(); ++i) {
        rows[i].task_id = (random() % 3) << 32 | random() % 9000;
        rows[i].core_id = i;  // the read order
    }
    std::vector<TaskRow> expected = rows;
    std::stable_sort(expected.begin(), expected.end(),
                     [](const TaskRow& a, const TaskRow& b) { return a.task_id < b.task_id; });
    records::sort_rows_by_task_id(rows);
    auto keys = [](const std::vector<TaskRow>& of) {
        std::vector<std::pair<std::uint64_t, std::uint32_t>> pairs;
        for (const TaskRow& row : of) pairs.emplace_back(row.task_id, row.core_id);
        return pairs;
    };
    CHECK(keys(rows) == keys(expected));
}

TEST_CASE("FanCounts finds the counts of arrows in runs of flow ids, and none elsewhere",
          "[swimlane]") {
    ptune::swimlane::detail::FanCounts fans;
    CHECK(fans.find(0) == nullptr);
    for (std::uint32_t flow = 3; flow < 6; ++flow)
        fans.add(flow, {static_cast<std::int32_t>(flow), 1});  // one run: 3, 4, 5
    fans.add(9, {4, 2});                                       // a second run: 9
    fans.add(10, {-7, 5});
    for (std::uint32_t flow : {0u, 2u, 6u, 8u, 11u, 4000000000u}) CHECK(fans.find(flow) == nullptr);
    for (std::uint32_t flow = 3; flow < 6; ++flow) {
        REQUIRE(fans.find(flow) != nullptr);
        CHECK(fans.find(flow)->input == static_cast<std::int32_t>(flow));
        CHECK(fans.find(flow)->output == 1);
    }
    REQUIRE(fans.find(9) != nullptr);
    CHECK(fans.find(9)->input == 4);
    CHECK(fans.find(9)->output == 2);
    REQUIRE(fans.find(10) != nullptr);
    CHECK(fans.find(10)->input == -7);
    CHECK(fans.find(10)->output == 5);
}

TEST_CASE("FanCounts codes each pair of counts once, and keeps pairs past 65535 beside",
          "[swimlane]") {
    // Each arrow keeps a 2-byte code of its pair; the 65536th distinct pair and later ones go
    // to a list beside, found by flow id. Every arrow still reads back its own counts.
    ptune::swimlane::detail::FanCounts fans;
    auto pair_of = [](std::uint32_t flow) {
        return ptune::swimlane::detail::FanCounts::Counts{static_cast<std::int32_t>(flow % 70000),
                                                          static_cast<std::int32_t>(flow % 3) - 1};
    };
    std::vector<std::uint32_t> flows;
    for (std::uint32_t flow = 10; flow < 150010; ++flow)
        if (flow % 7 != 0) flows.push_back(flow);  // runs of six consecutive ids
    for (std::uint32_t flow : flows) fans.add(flow, pair_of(flow));
    for (std::uint32_t flow : flows) {
        const auto* counts = fans.find(flow);
        REQUIRE(counts != nullptr);
        CHECK(counts->input == pair_of(flow).input);
        CHECK(counts->output == pair_of(flow).output);
    }
    for (std::uint32_t flow : {0u, 7u, 14u, 149996u, 150010u}) CHECK(fans.find(flow) == nullptr);
}

TEST_CASE("Flows keep their times as offsets into their slices, far ones beside them",
          "[swimlane]") {
    using namespace ptune::swimlane::detail;
    STATIC_REQUIRE(sizeof(Flow) == 16);
    TraceModel model;
    auto slice = [&](std::int64_t ts, std::int64_t dur) {
        Slice s;
        s.ts = ts;
        s.dur = dur;
        model.slices.push_back(s);
        return static_cast<std::uint32_t>(model.slices.size() - 1);
    };
    const std::uint32_t a = slice(-500, 50), b = slice(1'000, 10'000'000'000),  // b: 10 s
        c = slice(200, 30);
    auto add = [&](std::uint32_t from, std::int64_t s_ts, std::uint32_t to, std::int64_t f_ts) {
        Flow f;
        f.s_slice = from;
        f.f_slice = to;
        f.kind = static_cast<std::uint32_t>(FlowName::Complete);
        model.add_flow(f, s_ts, f_ts);
    };
    add(a, -480, c, 210);                    // 0: both near
    add(a, -451, b, 1'000 + 9'000'000'000);  // 1: the end 9 s into its slice
    add(b, 1'000 + 4'294'967'294, c, 229);   // 2: the largest offset that fits
    add(b, 1'000 + 4'294'967'295, c, 229);   // 3: one more does not
    add(c, 200, a, -456);                    // 4: offsets 0 and 44
    REQUIRE(model.flows.size() == 5);
    CHECK(model.far_flows.size() == 2);
    const std::int64_t want[5][2] = {{-480, 210},
                                     {-451, 1'000 + 9'000'000'000},
                                     {1'000 + 4'294'967'294, 229},
                                     {1'000 + 4'294'967'295, 229},
                                     {200, -456}};
    for (std::uint32_t i = 0; i < 5; ++i) {
        CHECK(model.flow_ts(i, true) == want[i][0]);
        CHECK(model.flow_ts(i, false) == want[i][1]);
        CHECK(model.flows[i].name() == FlowName::Complete);
    }
    CHECK(model.flows[2].s_off == 4'294'967'294u);
    CHECK(model.flows[3].s_off == kFarOffset);
}

TEST_CASE("A counter sample is 16 bytes and keeps a negative overhead value", "[swimlane]") {
    using ptune::swimlane::detail::Counter;
    STATIC_REQUIRE(sizeof(Counter) == 16);
    Counter c;
    c.set_value(-7);
    CHECK(c.value() == -7);
    c.set_value(2'000'000'000);
    CHECK(c.value() == 2'000'000'000);
}

TEST_CASE("ChunkedVector::emplace_back keeps earlier elements where they are", "[swimlane]") {
    ptune::ChunkedVector<std::uint64_t, 2> v;  // chunks of 4
    std::vector<std::uint64_t*> places;
    for (std::uint64_t i = 0; i < 13; ++i) {
        std::uint64_t& added = v.emplace_back();
        CHECK(added == 0);
        added = 100 + i;
        places.push_back(&added);
    }
    REQUIRE(v.size() == 13);
    for (std::size_t i = 0; i < 13; ++i) {
        CHECK(&v[i] == places[i]);  // no element moved while the vector grew
        CHECK(v[i] == 100 + i);
    }
}

TEST_CASE("ChunkedVector keeps elements in order across chunks, and releases them", "[swimlane]") {
    ptune::ChunkedVector<std::uint64_t, 3> v;  // chunks of 8
    CHECK(v.empty());
    CHECK((v.begin() == v.end()));
    for (std::uint64_t i = 0; i < 21; ++i) v.push_back(i * i);
    REQUIRE(v.size() == 21);
    for (std::size_t i = 0; i < 21; ++i) CHECK(v[i] == i * i);
    std::uint64_t expected = 0;
    for (std::uint64_t& x : v) {  // range-for over three chunks, in place
        CHECK(x == expected * expected);
        x += 1;
        ++expected;
    }
    CHECK(expected == 21);
    const auto& view = v;
    std::size_t n = 0;
    for (const std::uint64_t& x : view) {
        CHECK(x == n * n + 1);
        ++n;
    }
    CHECK(n == 21);
    v.release();
    CHECK(v.empty());
    CHECK(v.size() == 0);
    v.push_back(7);
    CHECK(v[0] == 7);
}

TEST_CASE("stable_order with one scratch for several sorts equals it without", "[swimlane]") {
    // The JSON writer sorts its four streams through one scratch, largest first: a smaller sort
    // through a larger scratch, and a larger one through a smaller scratch, give the same order.
    std::mt19937_64 random(11);
    std::vector<std::uint64_t> scratch;
    for (std::size_t n : {std::size_t{70000}, std::size_t{5000}, std::size_t{90000}}) {
        std::vector<std::uint64_t> keys(n);
        for (auto& key : keys) key = random() % 20000;
        std::vector<std::uint32_t> order(n), alone(n);
        for (std::uint32_t i = 0; i < n; ++i) order[i] = alone[i] = i;
        auto key_of = [&](std::uint32_t i) { return keys[i]; };
        stable_order(alone, key_of);
        stable_order(order, key_of, ptune::swimlane::detail::KeepTies{}, &scratch);
        CHECK(order == alone);
        CHECK(scratch.capacity() >= n);  // kept for the next sort
    }
}

TEST_CASE("A string table keeps its strings when its spare room is given back", "[swimlane]") {
    StringTable table;
    for (int i = 0; i < 100; ++i) {
        table.text() += "label" + std::to_string(i);
        table.close();
    }
    table.shrink_to_fit();
    REQUIRE(table.size() == 100);
    CHECK(table[0] == "label0");
    CHECK(table[57] == "label57");
    CHECK(table[99] == "label99");
}

TEST_CASE("sort_distinct sorts bucket sizes between the single-digit and the wide-digit cases",
          "[swimlane]") {
    // The most-significant digit is as wide as the values need for buckets of ~2048 (5 bits
    // for 60,000 values, not at least 8): every size around the digit steps sorts.
    std::uint64_t state = 7;
    for (std::size_t n : {4097u, 6000u, 60000u, 131072u}) {
        std::vector<std::uint64_t> a(n);
        for (std::size_t k = 0; k < n; ++k) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            a[k] = ((state >> 20) << 20) | k;  // distinct
        }
        std::vector<std::uint64_t> expected = a, spare(4096);
        std::sort(expected.begin(), expected.end());
        sort_distinct(a.data(), n, 64, spare.data());
        CHECK(a == expected);
    }
}

TEST_CASE("sort_distinct with tie bits sorts as without them", "[swimlane]") {
    // Values as stable_order makes them, (key << tie_bits) | position, shuffled: the passes of
    // a bucket skip the position bits and put each run of equal keys in order afterwards; keys
    // narrow (no skipping), wide with runs of ties, and one key most of a bucket shares (the
    // runs too long for insertion).
    std::mt19937_64 random(5);
    const unsigned tie_bits = 17;
    for (std::size_t n : {40u, 3000u, 4096u, 70000u}) {
        for (std::uint64_t key_range : {std::uint64_t{200}, std::uint64_t{1} << 30}) {
            for (bool one_key_mostly : {false, true}) {
                std::vector<std::uint64_t> a(n);
                for (std::size_t k = 0; k < n; ++k) {
                    std::uint64_t key = random() % (k % 3 == 0 ? 8 : key_range);
                    if (one_key_mostly && k % 8 != 0) key = key_range / 2;
                    a[k] = (key << tie_bits) | k;
                }
                std::shuffle(a.begin(), a.end(), random);
                std::vector<std::uint64_t> expected = a, spare(4096);
                std::sort(expected.begin(), expected.end());
                unsigned bits = 64;
                while (bits > 1 && (expected.back() >> (bits - 1)) == 0) --bits;
                sort_distinct(a.data(), n, bits, spare.data(), tie_bits);
                CHECK(a == expected);
            }
        }
    }
}

TEST_CASE("PhasesByStart::starting_by answers as a binary search from any last answer",
          "[swimlane][trace]") {
    // The search gallops from its last answer: in time order, backwards and at random, over
    // runs of equal starts, before the first and after the last, it counts the starts <= x.
    std::mt19937 random(11);
    for (std::size_t n : {0, 1, 2, 3, 17, 1000}) {
        ptune::swimlane::detail::build::PhasesByStart sorted;
        std::int64_t t = 0;
        for (std::size_t k = 0; k < n; ++k) {
            t += static_cast<std::int64_t>(random() % 4);  // (ties: a step of 0)
            ptune::swimlane::SchedulerPhase p;
            p.start_ns = t;
            p.end_ns = t + 1;
            sorted.add(p, static_cast<std::uint32_t>(k));
        }
        std::vector<std::int64_t> queries;
        for (std::int64_t x = -2; x <= t + 2; ++x) queries.push_back(x);
        for (std::int64_t x = t + 2; x >= -2; --x) queries.push_back(x);
        for (int k = 0; k < 2000; ++k)
            queries.push_back(static_cast<std::int64_t>(random() % static_cast<unsigned>(t + 5)) -
                              2);
        for (std::int64_t x : queries) {
            const auto expected = static_cast<std::size_t>(
                std::upper_bound(sorted.starts.begin(), sorted.starts.end(), x) -
                sorted.starts.begin());
            INFO("n " << n << ", x " << x);
            REQUIRE(sorted.starting_by(x) == expected);
        }
    }
}

TEST_CASE("PhaseKinds names a capture's kinds as a parse of every record would", "[swimlane]") {
    records::RecordsWalker w;
    // Interned in another order than the records use them: unknown kinds are named in the
    // order of their first record, not of their interning.
    w.kinds = {"", "mystery_b", "complete", "mystery_a", "dispatch"};
    const std::vector<std::uint16_t> record_kinds = {3, 2, 1, 3, 0, 4, 1, 0, 2, 3};
    ptune::swimlane::Capture capture;
    capture.other_phase_names = {"named_before"};
    records::PhaseKinds kinds(w, capture);
    // The reference: every record's name parsed and looked up on its own.
    std::vector<std::string> expected_names = {"named_before"};
    for (std::uint16_t kind : record_kinds) {
        ptune::swimlane::SchedulerPhase phase;
        kinds.set(phase, kind);
        const std::string name = kind == 0 ? "unknown" : w.kinds[kind];
        const ptune::swimlane::PhaseKind expected = ptune::swimlane::parse_phase_kind(name);
        CHECK(phase.kind == expected);
        if (expected != ptune::swimlane::PhaseKind::Other) continue;
        auto known = std::find(expected_names.begin(), expected_names.end(), name);
        if (known == expected_names.end()) known = expected_names.insert(known, name);
        CHECK(phase.other_name == known - expected_names.begin());
    }
    CHECK(capture.other_phase_names == expected_names);
    CHECK(capture.other_phase_names ==
          std::vector<std::string>{"named_before", "mystery_a", "mystery_b", "unknown"});
}

TEST_CASE("DeviceTimeMap converts ticks as Clock::ticks_to_ns does, wrapping alike", "[swimlane]") {
    const std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    const std::vector<std::int64_t> ticks = {
        1, 2, 999, 1'000'000, kMax / 1000, kMax / 20, kMax / 20 + 1, kMax / 3, kMax - 1, kMax};
    // 50 MHz (20 ns a tick), 1 GHz, 1 MHz, no clock (ticks are ns) and 24 MHz (not whole ns).
    for (std::uint64_t freq :
         {50'000'000ull, 1'000'000'000ull, 1'000'000ull, 0ull, 24'000'000ull}) {
        for (std::int64_t base : {std::int64_t{0}, std::int64_t{1}, std::int64_t{123'456'789}}) {
            ptune::swimlane::Capture capture;
            capture.clock.freq_hz = freq;
            capture.clock.origin_ticks = base;
            const ptune::swimlane::detail::AnchorFit fit;
            const records::DeviceTimeMap to_ns(capture, fit);
            for (std::int64_t c : ticks) {
                INFO("freq " << freq << " base " << base << " ticks " << c);
                CHECK(to_ns(c) == capture.clock.ticks_to_ns(c - base));
            }
        }
    }
}

}  // namespace swimlane_index_test
