#pragma once
// The block buffers the trace writers render into: BackgroundBuf writes on a second thread, so
// rendering overlaps the write system calls; GrowingBuf holds a piece in memory until its turn.

#include <array>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <ostream>
#include <string_view>
#include <thread>
#include <vector>

#include "ptune/core/block_buf.hpp"
#include "ptune/core/threads.hpp"

namespace ptune::swimlane::detail {

/// A streambuf that hands what is written to it, in 128 KiB blocks, to a second thread writing it
/// to another stream: rendering overlaps the write system calls. A few blocks are in flight at
/// most, so memory stays bounded however fast rendering is. (A .json.gz trace renders straight into
/// the blocks of io::ParallelGzipBuf instead, whose workers already overlap the rendering, and a
/// JSON trace is rendered on two threads into GrowingBufs, each writing its pieces in turn.)
/// 128 KiB blocks (they were 1 MiB, then 256 KiB): 3.5 MB less peak memory, and the ~800 writes
/// of a 100 MB trace still cost nothing measurable. The writer is woken once two blocks are full,
/// not for every block: a wake-up is a futex call and a context switch on each side, and one per
/// block cost the rendering thread ~5 % of its CPU when the writes are fast (/dev/null, the page
/// cache).
class BackgroundBuf : public io::BlockBuf {
  public:
    explicit BackgroundBuf(std::ostream& sink) : sink_(sink) {
        for (auto& block : blocks_) block.resize(kBlockSize);
        for (std::size_t i = 0; i < kBlocks; ++i) free_.push_back(i);
        thread_ = threads::thread_beside([this] { drain(); });
        take_block();
    }
    ~BackgroundBuf() override { finish(); }
    BackgroundBuf(const BackgroundBuf&) = delete;
    BackgroundBuf& operator=(const BackgroundBuf&) = delete;

    /// Writes what is left and stops the thread (idempotent); false when the sink failed.
    bool finish() {
        if (thread_.joinable()) {
            hand_over();
            {
                std::lock_guard lock(mutex_);
                closing_ = true;
            }
            block_filled_.notify_one();
            thread_.join();
        }
        return sink_.good();
    }

  protected:
    void next_block() override {
        hand_over();
        take_block();
    }

  private:
    static constexpr std::size_t kBlocks = 4, kBlockSize = 128u << 10;
    /// Full blocks that wake the writer; below kBlocks, so a renderer that waits for a free block
    /// has always woken it.
    static constexpr std::size_t kWakeAt = 2;

    void take_block() {
        std::unique_lock lock(mutex_);
        block_freed_.wait(lock, [&] { return !free_.empty(); });
        current_ = free_.front();
        free_.pop_front();
        char* begin = blocks_[current_].data();
        setp(begin, begin + kBlockSize);
    }
    void hand_over() {
        std::size_t used = static_cast<std::size_t>(pptr() - pbase());
        bool wake = false;
        {
            std::lock_guard lock(mutex_);
            full_.emplace_back(current_, used);
            wake = full_.size() == kWakeAt;
        }
        if (wake) block_filled_.notify_one();
        setp(nullptr, nullptr);
    }
    void drain() {
        std::unique_lock lock(mutex_);
        for (;;) {
            block_filled_.wait(lock, [&] { return closing_ || full_.size() >= kWakeAt; });
            while (!full_.empty()) {
                auto [block, used] = full_.front();
                full_.pop_front();
                lock.unlock();
                sink_.write(blocks_[block].data(), static_cast<std::streamsize>(used));
                lock.lock();
                free_.push_back(block);
                block_freed_.notify_one();
            }
            if (closing_) return;  // finish() handed the last block over before it set closing_
        }
    }

    std::ostream& sink_;
    std::array<std::vector<char>, kBlocks> blocks_;
    std::deque<std::size_t> free_;
    std::deque<std::pair<std::size_t, std::size_t>> full_;  // (block, bytes used)
    std::size_t current_ = 0;
    std::mutex mutex_;
    std::condition_variable block_filled_, block_freed_;
    bool closing_ = false;
    std::thread thread_;
};

/// One block that grows (doubling) when less than kMinRoom is left, so a fresh put area always
/// has room for the Sink's small writes (json_sink.hpp): a piece of a trace rendered
/// in memory until its turn to be written (trace_json.cpp); clear() reuses the block.
class GrowingBuf : public io::BlockBuf {
  public:
    explicit GrowingBuf(std::size_t first_size = 256u << 10) : first_size_(first_size) { grow(0); }
    /// What was written since clear().
    std::string_view written() const {
        return {data_.get(), static_cast<std::size_t>(pptr() - data_.get())};
    }
    void clear() { setp(data_.get(), data_.get() + size_); }

  protected:
    void next_block() override {
        if (epptr() - pptr() < kMinRoom) grow(static_cast<std::size_t>(pptr() - data_.get()));
    }

  private:
    static constexpr std::ptrdiff_t kMinRoom = 4096;

    void grow(std::size_t used) {
        std::size_t size = std::max(first_size_, 2 * size_);
        while (size - used < static_cast<std::size_t>(kMinRoom)) size *= 2;
        auto bigger = std::make_unique_for_overwrite<char[]>(size);
        if (used) std::memcpy(bigger.get(), data_.get(), used);
        data_ = std::move(bigger);
        size_ = size;
        setp(data_.get(), data_.get() + size_);
        pbump(static_cast<int>(used));
    }

    std::size_t first_size_;
    std::unique_ptr<char[]> data_;
    std::size_t size_ = 0;
};

}  // namespace ptune::swimlane::detail
