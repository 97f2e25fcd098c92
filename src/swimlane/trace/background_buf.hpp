#pragma once
// Writing on a second thread: rendering a trace overlaps the write system calls.

#include <array>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <ostream>
#include <thread>
#include <vector>

#include "ptune/core/block_buf.hpp"

namespace ptune::swimlane::detail {

/// A streambuf that hands what is written to it, in 128 KiB blocks, to a second thread writing it
/// to another stream: rendering overlaps the write system calls. A few blocks are in flight at
/// most, so memory stays bounded however fast rendering is. (A .json.gz trace renders straight into
/// the blocks of io::ParallelGzipBuf instead, whose workers already overlap the rendering.)
/// 128 KiB blocks (they were 1 MiB, then 256 KiB): 3.5 MB less peak memory, and the ~800 writes
/// of a 100 MB trace still cost nothing measurable.
class BackgroundBuf : public io::BlockBuf {
  public:
    explicit BackgroundBuf(std::ostream& sink) : sink_(sink) {
        for (auto& block : blocks_) block.resize(kBlockSize);
        for (std::size_t i = 0; i < kBlocks; ++i) free_.push_back(i);
        thread_ = std::thread([this] { drain(); });
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
            changed_.notify_all();
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

    void take_block() {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return !free_.empty(); });
        current_ = free_.front();
        free_.pop_front();
        char* begin = blocks_[current_].data();
        setp(begin, begin + kBlockSize);
    }
    void hand_over() {
        std::size_t used = static_cast<std::size_t>(pptr() - pbase());
        {
            std::lock_guard lock(mutex_);
            full_.emplace_back(current_, used);
        }
        changed_.notify_all();
        setp(nullptr, nullptr);
    }
    void drain() {
        std::unique_lock lock(mutex_);
        for (;;) {
            changed_.wait(lock, [&] { return closing_ || !full_.empty(); });
            if (full_.empty()) return;
            auto [block, used] = full_.front();
            full_.pop_front();
            lock.unlock();
            sink_.write(blocks_[block].data(), static_cast<std::streamsize>(used));
            lock.lock();
            free_.push_back(block);
            changed_.notify_all();
        }
    }

    std::ostream& sink_;
    std::array<std::vector<char>, kBlocks> blocks_;
    std::deque<std::size_t> free_;
    std::deque<std::pair<std::size_t, std::size_t>> full_;  // (block, bytes used)
    std::size_t current_ = 0;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool closing_ = false;
    std::thread thread_;
};

}  // namespace ptune::swimlane::detail
