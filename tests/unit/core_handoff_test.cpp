// produce_alongside(): a producer on a second thread, its items consumed on this one in order,
// failures of either side brought back to the caller.

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "ptune/core/handoff.hpp"

namespace core_handoff_test {

using namespace ptune;

namespace {

using Emit = std::function<void(std::string&&)>;

}  // namespace

TEST_CASE("produce_alongside hands every item over once, in order, for any batch size",
          "[core][handoff]") {
    for (std::size_t count : {0, 1, 63, 64, 65, 1000, 10007}) {
        for (HandoffLimits limits : {HandoffLimits{1, 1}, HandoffLimits{64, 4}, HandoffLimits{7, 2},
                                     HandoffLimits{0, 0}}) {
            std::thread::id producer_thread;
            std::vector<std::string> seen;
            const std::size_t produced = produce_alongside<std::string>(
                [&](const Emit& emit) {
                    producer_thread = std::this_thread::get_id();
                    for (std::size_t i = 0; i < count; ++i) emit(std::to_string(i));
                    return count;
                },
                [&](std::string&& item) { seen.push_back(std::move(item)); }, limits);
            INFO("count " << count << ", batch " << limits.batch << ", batches " << limits.batches);
            CHECK(produced == count);
            REQUIRE(seen.size() == count);
            for (std::size_t i = 0; i < count; ++i) CHECK(seen[i] == std::to_string(i));
            CHECK(producer_thread != std::this_thread::get_id());
        }
    }
}

TEST_CASE("produce_alongside moves items that cannot be copied, and takes a void producer",
          "[core][handoff]") {
    std::vector<int> seen;
    produce_alongside<std::unique_ptr<int>>(
        [](const std::function<void(std::unique_ptr<int> &&)>& emit) {
            for (int i = 0; i < 200; ++i) emit(std::make_unique<int>(i));
        },
        [&](std::unique_ptr<int>&& item) { seen.push_back(*item); }, {16, 2});
    REQUIRE(seen.size() == 200);
    CHECK(seen.front() == 0);
    CHECK(seen.back() == 199);
}

TEST_CASE("produce_alongside: a producer's exception reaches the caller after what it emitted",
          "[core][handoff]") {
    std::vector<std::string> seen;
    CHECK_THROWS_WITH(produce_alongside<std::string>(
                          [](const Emit& emit) {
                              for (int i = 0; i < 100; ++i) emit(std::to_string(i));
                              throw std::runtime_error("log cut");
                          },
                          [&](std::string&& item) { seen.push_back(std::move(item)); }, {8, 2}),
                      "log cut");
    CHECK(seen.size() == 100);  // the items before the failure were all consumed
}

TEST_CASE("produce_alongside: a consumer's exception stops it without blocking the producer",
          "[core][handoff]") {
    std::atomic<int> produced = 0;
    int consumed = 0;
    // Far more items than fit in flight: a producer left waiting for room would never return.
    CHECK_THROWS_WITH(produce_alongside<std::string>(
                          [&](const Emit& emit) {
                              for (int i = 0; i < 100000; ++i) {
                                  emit(std::to_string(i));
                                  ++produced;
                              }
                          },
                          [&](std::string&&) {
                              if (++consumed == 10) throw std::runtime_error("bad case");
                          },
                          {4, 1}),
                      "bad case");
    CHECK(consumed == 10);
    CHECK(produced == 100000);
}

TEST_CASE("produce_alongside with recycle gives the producer back items the consumer is done with",
          "[core][handoff]") {
    std::mutex seen_mutex;
    std::set<std::string> consumed_values;
    std::vector<std::string> seen;
    std::size_t given_back = 0;
    bool all_given_back_were_consumed = true;
    produce_alongside<std::string>(
        [&](const Emit& emit) {
            std::string item;
            for (int i = 0; i < 20000; ++i) {
                item = "item " + std::to_string(i) + std::string(40, '.');  // off the SSO
                emit(std::move(item));
                if (!item.empty()) {  // a consumed item, handed back
                    ++given_back;
                    std::lock_guard lock(seen_mutex);
                    all_given_back_were_consumed =
                        all_given_back_were_consumed && consumed_values.count(item) == 1;
                }
            }
        },
        [&](std::string&& item) {
            seen.push_back(item);  // a copy: the item itself stays for recycling
            std::lock_guard lock(seen_mutex);
            consumed_values.insert(item);
        },
        HandoffLimits{.batch = 16, .batches = 4, .recycle = true});
    REQUIRE(seen.size() == 20000);
    for (int i = 0; i < 20000; i += 997)
        CHECK(seen[static_cast<std::size_t>(i)] ==
              "item " + std::to_string(i) + std::string(40, '.'));
    CHECK(given_back > 0);
    CHECK(all_given_back_were_consumed);
}

}  // namespace core_handoff_test
