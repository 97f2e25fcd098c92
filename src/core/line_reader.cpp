// io::LineReader and count_newlines (io.hpp): lines of a text or a stream without copying.

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>

#include "ptune/core/io.hpp"
#include "ptune/core/threads.hpp"

namespace ptune::io {

namespace {

constexpr std::size_t kChunk = 1u << 20;
/// Room before each read-ahead chunk for the unread tail of the last one (the line it cut).
constexpr std::size_t kReserve = 64u << 10;

}  // namespace

/// The reading thread of read_ahead(): reads chunks of the stream into a few buffers, each
/// behind kReserve bytes of room; the reader takes them in order and gives them back.
struct LineReader::ReadAhead {
    struct Chunk {
        std::unique_ptr<char[]> buffer;
        std::size_t size = 0;  ///< bytes read behind the reserve; 0 at the end of the stream
    };
    /// The reading thread sleeps until two buffers are free, not one: half the wake-ups (each
    /// one a wait for the host on a virtual machine whose second core went idle).
    static constexpr std::size_t kBuffers = 4, kWakeAt = 2;

    explicit ReadAhead(std::istream& in) : in(in) {
        for (std::size_t i = 0; i < kBuffers; ++i)
            free.push_back(std::make_unique_for_overwrite<char[]>(kReserve + kChunk));
        thread = threads::thread_beside([this] { run(); });  // may throw: read_ahead() falls back
    }
    ~ReadAhead() {
        {
            std::lock_guard lock(mutex);
            stop = true;
        }
        changed.notify_all();
        thread.join();
    }
    ReadAhead(const ReadAhead&) = delete;
    ReadAhead& operator=(const ReadAhead&) = delete;

    /// The next chunk, waiting for it.
    Chunk take() {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return !ready.empty(); });
        Chunk chunk = std::move(ready.front());
        ready.pop_front();
        return chunk;
    }
    void give_back(std::unique_ptr<char[]> buffer) {
        bool wake = false;
        {
            std::lock_guard lock(mutex);
            free.push_back(std::move(buffer));
            wake = free.size() == kWakeAt;
        }
        if (wake) changed.notify_all();
    }

    std::istream& in;
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::unique_ptr<char[]>> free;
    std::deque<Chunk> ready;
    bool stop = false;
    std::thread thread;

  private:
    void run() {
        for (;;) {
            std::unique_ptr<char[]> buffer;
            {
                std::unique_lock lock(mutex);
                if (free.empty())
                    changed.wait(lock, [&] { return stop || free.size() >= kWakeAt; });
                if (stop) return;
                buffer = std::move(free.back());
                free.pop_back();
            }
            in.read(buffer.get() + kReserve, static_cast<std::streamsize>(kChunk));
            const auto got = static_cast<std::size_t>(in.gcount());
            {
                std::lock_guard lock(mutex);
                ready.push_back({std::move(buffer), got});
            }
            changed.notify_all();
            if (got == 0) return;
        }
    }
};

LineReader::LineReader(std::string_view text) : text_(text) {}

LineReader::LineReader(std::istream& in, std::size_t max_line_bytes)
    : in_(&in), max_line_(max_line_bytes == 0 ? 1 : max_line_bytes) {}

LineReader::~LineReader() = default;

void LineReader::read_ahead() {
    if (in_ == nullptr || ahead_ || size_ > 0 || eof_) return;
    try {
        ahead_ = std::make_unique<ReadAhead>(*in_);
    } catch (const std::system_error&) {
        // No second thread: read as before.
    }
}

std::size_t LineReader::find_newline(std::size_t from) const {
    if (from >= size_) return kNone;
    const void* found = std::memchr(storage_.get() + from, '\n', size_ - from);
    return found == nullptr
               ? kNone
               : static_cast<std::size_t>(static_cast<const char*>(found) - storage_.get());
}

bool LineReader::fill() {
    if (eof_) return false;
    if (ahead_) return fill_ahead();
    // Keep the unread tail, then read behind it; grow only for a line longer than a chunk.
    // No zero-filling: the bytes are overwritten by the read.
    std::size_t tail = size_ - begin_;
    if (begin_ > 0 && tail > 0) std::memmove(storage_.get(), storage_.get() + begin_, tail);
    size_ = tail;
    begin_ = 0;
    complete_end_ = 0;
    if (capacity_ - size_ < kChunk) {
        std::size_t capacity = std::max(2 * capacity_, size_ + kChunk);
        auto grown = std::make_unique_for_overwrite<char[]>(capacity);
        if (size_ > 0) std::memcpy(grown.get(), storage_.get(), size_);
        storage_ = std::move(grown);
        capacity_ = capacity;
    }
    in_->read(storage_.get() + size_, static_cast<std::streamsize>(kChunk));
    auto got = static_cast<std::size_t>(in_->gcount());
    size_ += got;
    if (got == 0) eof_ = true;
    return got > 0;
}

bool LineReader::fill_ahead() {
    ReadAhead::Chunk chunk = ahead_->take();
    if (chunk.size == 0) {
        eof_ = true;
        ahead_->give_back(std::move(chunk.buffer));
        return false;
    }
    const std::size_t tail = size_ - begin_;
    complete_end_ = 0;
    if (tail <= kReserve) {  // the chunk's buffer takes the tail in front of it: no other copy
        char* tail_at = chunk.buffer.get() + kReserve - tail;
        if (tail > 0) std::memcpy(tail_at, storage_.get() + begin_, tail);
        if (storage_pooled_) ahead_->give_back(std::move(storage_));
        storage_ = std::move(chunk.buffer);
        storage_pooled_ = true;
        capacity_ = kReserve + kChunk;
        begin_ = kReserve - tail;
        size_ = kReserve + chunk.size;
        return true;
    }
    // A line longer than the reserve: it and the chunk in a buffer of the reader's own, grown
    // by doubling as in fill().
    const std::size_t need = tail + chunk.size;
    if (storage_pooled_ || capacity_ < need) {
        const std::size_t capacity = std::max(2 * capacity_, need);
        auto grown = std::make_unique_for_overwrite<char[]>(capacity);
        std::memcpy(grown.get(), storage_.get() + begin_, tail);
        if (storage_pooled_) ahead_->give_back(std::move(storage_));
        storage_ = std::move(grown);
        storage_pooled_ = false;
        capacity_ = capacity;
    } else if (begin_ > 0) {
        std::memmove(storage_.get(), storage_.get() + begin_, tail);
    }
    std::memcpy(storage_.get() + tail, chunk.buffer.get() + kReserve, chunk.size);
    ahead_->give_back(std::move(chunk.buffer));
    begin_ = 0;
    size_ = need;
    return true;
}

bool LineReader::next(std::string_view& line) {
    truncated_ = false;
    unterminated_ = false;
    interest_offset_ = 0;
    if (in_ == nullptr) {
        if (begin_ >= text_.size()) return false;
        std::size_t end = text_.find('\n', begin_);
        std::size_t stop = end == std::string_view::npos ? text_.size() : end;
        line = text_.substr(begin_, stop - begin_);
        unterminated_ = end == std::string_view::npos;
        line_offset_ = begin_;
        consumed_ = begin_ = end == std::string_view::npos ? text_.size() : end + 1;
    } else {
        std::size_t scanned = 0;  // bytes after begin_ already known to hold no newline
        while (true) {
            std::size_t end = find_newline(begin_ + scanned);
            if (end != kNone) {
                if (skipping_) {
                    // The rest of an over-long line: drop it and look for the next line.
                    skipping_ = false;
                    consumed_ += end + 1 - begin_;
                    begin_ = end + 1;
                    scanned = 0;
                    continue;
                }
                std::size_t length = end - begin_;
                if (length > max_line_) {
                    length = max_line_;
                    truncated_ = true;
                }
                line = buffered().substr(begin_, length);
                line_offset_ = consumed_;
                consumed_ += end + 1 - begin_;
                begin_ = end + 1;
                break;
            }
            scanned = size_ - begin_;
            if (!skipping_ && scanned > max_line_) {
                line = buffered().substr(begin_, max_line_);
                line_offset_ = consumed_;
                consumed_ += scanned;
                begin_ = size_;
                skipping_ = true;
                truncated_ = true;
                break;
            }
            if (skipping_) {
                consumed_ += scanned;
                begin_ = size_;
                scanned = 0;
            }
            if (!fill()) {
                if (skipping_ || begin_ >= size_) return false;
                line = buffered().substr(begin_);
                unterminated_ = true;
                line_offset_ = consumed_;
                consumed_ += size_ - begin_;
                begin_ = size_;
                break;
            }
        }
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    bom_ = 0;
    if (line_number_ == 0 && line.starts_with(kUtf8Bom)) {
        // Editors on Windows start files with a byte order mark; no parser should see it (it
        // renamed a bench case and dropped the first perf hint).
        line.remove_prefix(kUtf8Bom.size());
        line_offset_ += kUtf8Bom.size();
        bom_ = kUtf8Bom.size();
    }
    ++line_number_;
    return true;
}

bool LineReader::next_interesting(std::string_view& line, InterestFinder finder) {
    if (in_ == nullptr) {
        std::string_view rest = text_.substr(std::min(begin_, text_.size()));
        // The newlines before the hit are those before its line: none lies in between.
        const char* hit = finder(rest.data(), rest.data() + rest.size(), line_number_);
        auto skip = static_cast<std::size_t>(hit - rest.data());
        std::size_t line_start = rest.substr(0, skip).rfind('\n');
        line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
        consumed_ = begin_ += line_start;
        return next_with_interest_at(line, skip < rest.size() ? skip - line_start : 0);
    }
    std::size_t interest = 0;
    while (!skipping_) {
        // Only complete lines are searched: a pattern may straddle the end of the buffer.
        const char* data = storage_.get();
        if (complete_end_ <= begin_ || complete_end_ > size_) {
            const void* last =
                size_ > begin_ ? ::memrchr(data + begin_, '\n', size_ - begin_) : nullptr;
            if (last == nullptr) break;  // no complete line buffered: next() reads and cuts
            complete_end_ = static_cast<std::size_t>(static_cast<const char*>(last) + 1 - data);
        }
        const char* complete_end = data + complete_end_;
        const char* hit = finder(data + begin_, complete_end, line_number_);
        const char* line_start = complete_end;
        if (hit != complete_end) {
            const void* before = hit > data + begin_
                                     ? ::memrchr(data + begin_, '\n',
                                                 static_cast<std::size_t>(hit - (data + begin_)))
                                     : nullptr;
            line_start = before == nullptr ? data + begin_ : static_cast<const char*>(before) + 1;
        }
        auto start = static_cast<std::size_t>(line_start - data);
        consumed_ += start - begin_;
        begin_ = start;
        if (hit != complete_end) {
            interest = static_cast<std::size_t>(hit - line_start);
            break;
        }
        if (!fill()) break;
    }
    return next_with_interest_at(line, interest);
}

bool LineReader::next_with_interest_at(std::string_view& line, std::size_t offset) {
    bool got = next(line);
    interest_offset_ = std::min(offset >= bom_ ? offset - bom_ : 0, line.size());
    return got;
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))  // AVX2 where the CPU has it
#endif
std::size_t
count_newlines(const char* begin, const char* end) {
    std::size_t count = 0;
#if defined(__GNUC__)
    // 16 bytes at a time with portable vector extensions (SSE2 on x86-64, NEON on AArch64):
    // each lane counts its newlines, folded every 255 blocks before a lane can overflow.
    using Bytes = unsigned char __attribute__((vector_size(16)));
    while (end - begin >= 16) {
        Bytes lanes{};
        std::size_t blocks = std::min<std::size_t>(255, static_cast<std::size_t>(end - begin) / 16);
        for (std::size_t i = 0; i < blocks; ++i, begin += 16) {
            Bytes chunk;
            std::memcpy(&chunk, begin, 16);
            lanes -= reinterpret_cast<Bytes>(chunk == '\n');  // true lanes are all ones (-1)
        }
        for (int lane = 0; lane < 16; ++lane) count += lanes[lane];
    }
#endif
    for (; begin < end; ++begin) count += *begin == '\n';
    return count;
}

}  // namespace ptune::io
