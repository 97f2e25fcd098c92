#include "ptune/core/io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

namespace ptune::io {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int error) {
    return std::strerror(error);
}

Error input_error(const std::string& path, std::string message) {
    return Error{std::move(message), path, 0, ExitCode::InputError};
}

// Checks that `path` names something we can read as a file and explains why not otherwise.
Status check_readable(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        return input_error(path, errno == ENOENT ? "no such file or directory" : errno_text(errno));
    }
    if (S_ISDIR(info.st_mode)) return input_error(path, "is a directory, expected a file");
    return ok_status();
}

}  // namespace

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
    if (path == kStdinName) {
        std::string data;
        std::array<char, 1 << 16> chunk{};
        while (std::cin.read(chunk.data(), chunk.size()) || std::cin.gcount() > 0) {
            data.append(chunk.data(), static_cast<std::size_t>(std::cin.gcount()));
            if (data.size() > max_bytes) {
                return input_error(path, fmt::format("input larger than {} bytes", max_bytes));
            }
        }
        return data;
    }
    if (auto status = check_readable(path); !status) return status.error();
    std::ifstream in(path, std::ios::binary);
    if (!in) return input_error(path, fmt::format("cannot open: {}", errno_text(errno)));
    std::string data;
    std::array<char, 1 << 16> chunk{};
    while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
        data.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
        if (data.size() > max_bytes) {
            return input_error(path, fmt::format("file larger than {} bytes", max_bytes));
        }
    }
    if (in.bad()) return input_error(path, fmt::format("read error: {}", errno_text(errno)));
    return data;
}

InputStream::InputStream(InputStream&&) noexcept = default;
InputStream& InputStream::operator=(InputStream&&) noexcept = default;
InputStream::~InputStream() = default;

std::istream& InputStream::stream() {
    return *stream_;
}

Result<InputStream> open_input(const std::string& path) {
    InputStream input;
    input.path_ = path;
    if (path == kStdinName) {
        input.stream_ = &std::cin;
        return input;
    }
    if (auto status = check_readable(path); !status) return status.error();
    auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*file) return input_error(path, fmt::format("cannot open: {}", errno_text(errno)));
    input.stream_ = file.get();
    input.owned_ = std::move(file);
    return input;
}

LineReader::LineReader(std::string_view text) : text_(text) {}

LineReader::LineReader(std::istream& in, std::size_t max_line_bytes)
    : in_(&in), max_line_(max_line_bytes == 0 ? 1 : max_line_bytes) {}

std::size_t LineReader::find_newline(std::size_t from) const {
    if (from >= size_) return kNone;
    const void* found = std::memchr(storage_.get() + from, '\n', size_ - from);
    return found == nullptr
               ? kNone
               : static_cast<std::size_t>(static_cast<const char*>(found) - storage_.get());
}

bool LineReader::fill() {
    if (eof_) return false;
    constexpr std::size_t kChunk = 1u << 20;
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

bool LineReader::next(std::string_view& line) {
    truncated_ = false;
    interest_offset_ = 0;
    if (in_ == nullptr) {
        if (begin_ >= text_.size()) return false;
        std::size_t end = text_.find('\n', begin_);
        std::size_t stop = end == std::string_view::npos ? text_.size() : end;
        line = text_.substr(begin_, stop - begin_);
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
                line_offset_ = consumed_;
                consumed_ += size_ - begin_;
                begin_ = size_;
                break;
            }
        }
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_number_;
    return true;
}

bool LineReader::next_interesting(std::string_view& line, InterestFinder finder) {
    if (in_ == nullptr) {
        std::string_view rest = text_.substr(std::min(begin_, text_.size()));
        const char* hit = finder(rest.data(), rest.data() + rest.size());
        auto skip = static_cast<std::size_t>(hit - rest.data());
        std::size_t line_start = rest.substr(0, skip).rfind('\n');
        line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
        line_number_ += count_newlines(rest.data(), rest.data() + line_start);
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
        const char* hit = finder(data + begin_, complete_end);
        const char* line_start = complete_end;
        if (hit != complete_end) {
            const void* before = hit > data + begin_
                                     ? ::memrchr(data + begin_, '\n',
                                                 static_cast<std::size_t>(hit - (data + begin_)))
                                     : nullptr;
            line_start = before == nullptr ? data + begin_ : static_cast<const char*>(before) + 1;
        }
        line_number_ += count_newlines(data + begin_, line_start);
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
    interest_offset_ = std::min(offset, line.size());
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

bool same_file(const fs::path& a, const fs::path& b) {
    struct stat sa {
    }, sb{};
    if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// ---------------------------------------------------------------------------------------------
// Pending temporary files, removed by the signal handler. Fixed storage: the handler may only
// use async-signal-safe calls.
namespace {
constexpr std::size_t kMaxPending = 16;
constexpr std::size_t kMaxPath = 4096;
std::array<std::array<char, kMaxPath>, kMaxPending> g_pending{};
std::array<std::atomic<bool>, kMaxPending> g_pending_used{};

int register_pending(const std::string& path) {
    if (path.size() >= kMaxPath) return -1;
    for (std::size_t i = 0; i < kMaxPending; ++i) {
        bool expected = false;
        if (g_pending_used[i].compare_exchange_strong(expected, true)) {
            std::memcpy(g_pending[i].data(), path.c_str(), path.size() + 1);
            return static_cast<int>(i);
        }
    }
    return -1;
}

void unregister_pending(int slot) {
    if (slot >= 0) g_pending_used[static_cast<std::size_t>(slot)] = false;
}

extern "C" void remove_pending_and_exit(int signal_number) {
    for (std::size_t i = 0; i < kMaxPending; ++i) {
        if (g_pending_used[i]) ::unlink(g_pending[i].data());
    }
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
}
}  // namespace

void install_cleanup_handlers() {
    struct sigaction action {};
    action.sa_handler = remove_pending_and_exit;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGHUP, &action, nullptr);
}

struct AtomicOutput::Impl {
    std::ofstream file;
    std::string temp_path;  // empty when writing directly
    int pending_slot = -1;
    bool committed = false;
};

Result<std::unique_ptr<AtomicOutput>> AtomicOutput::open(const std::string& path,
                                                         const std::vector<std::string>& inputs,
                                                         bool binary) {
    std::unique_ptr<AtomicOutput> out(new AtomicOutput());
    out->path_ = path;
    out->impl_ = std::make_unique<Impl>();
    if (path == kStdinName) return out;

    for (const auto& input : inputs) {
        if (input != kStdinName && same_file(path, input)) {
            return Error{fmt::format("refusing to write the output over the input '{}'", input),
                         path, 0, ExitCode::InputError};
        }
    }
    auto mode = std::ios::out | std::ios::trunc;
    if (binary) mode |= std::ios::binary;
    struct stat info {};
    bool exists = ::stat(path.c_str(), &info) == 0;
    if (exists && S_ISDIR(info.st_mode)) {
        return Error{"is a directory, expected an output file", path, 0, ExitCode::InputError};
    }
    if (exists && !S_ISREG(info.st_mode)) {
        // /dev/null, a pipe or a terminal: nothing to replace atomically.
        out->impl_->file.open(path, mode);
        if (!out->impl_->file) {
            return Error{fmt::format("cannot open for writing: {}", errno_text(errno)), path, 0,
                         ExitCode::InputError};
        }
        return out;
    }
    fs::path target(path);
    fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string pattern =
        (directory / ("." + target.filename().string() + ".ptune-tmp-XXXXXX")).string();
    int fd = ::mkstemp(pattern.data());
    if (fd < 0) {
        return Error{
            fmt::format("cannot create a file in '{}': {}", directory.string(), errno_text(errno)),
            path, 0, ExitCode::InputError};
    }
    // mkstemp creates 0600; give the result the permissions a plain create would.
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, exists ? (info.st_mode & 07777) : (0666 & ~mask));
    ::close(fd);
    out->impl_->temp_path = pattern;
    out->impl_->pending_slot = register_pending(pattern);
    out->impl_->file.open(pattern, mode);
    if (!out->impl_->file) {
        ::unlink(pattern.c_str());
        return Error{fmt::format("cannot open for writing: {}", errno_text(errno)), path, 0,
                     ExitCode::InputError};
    }
    return out;
}

AtomicOutput::~AtomicOutput() {
    if (impl_ && !impl_->committed && !impl_->temp_path.empty()) {
        impl_->file.close();
        ::unlink(impl_->temp_path.c_str());
    }
    if (impl_) unregister_pending(impl_->pending_slot);
}

std::ostream& AtomicOutput::stream() {
    if (path_ == kStdinName) return std::cout;
    return impl_->file;
}

Status AtomicOutput::commit() {
    if (path_ == kStdinName) {
        std::cout.flush();
        if (!std::cout)
            return Error{"error writing to standard output", "", 0, ExitCode::InputError};
        return ok_status();
    }
    impl_->file.flush();
    bool good = static_cast<bool>(impl_->file);
    impl_->file.close();
    if (!good || impl_->file.fail()) {
        return Error{"write failed (disk full?)", path_, 0, ExitCode::InputError};
    }
    if (!impl_->temp_path.empty()) {
        if (::rename(impl_->temp_path.c_str(), path_.c_str()) != 0) {
            return Error{fmt::format("cannot move the result into place: {}", errno_text(errno)),
                         path_, 0, ExitCode::InputError};
        }
    }
    impl_->committed = true;
    unregister_pending(impl_->pending_slot);
    impl_->pending_slot = -1;
    return ok_status();
}

}  // namespace ptune::io
