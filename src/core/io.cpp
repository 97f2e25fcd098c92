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
#include <map>
#include <mutex>
#include <random>

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

// What a file is, for messages about inputs that are not regular files.
std::string_view file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// Identity of a file: device and inode (hard links and symlinks resolve to the same one).
struct FileId {
    dev_t device = 0;
    ino_t inode = 0;
    bool operator<(const FileId& other) const {
        return device != other.device ? device < other.device : inode < other.inode;
    }
    bool operator==(const FileId& other) const {
        return device == other.device && inode == other.inode;
    }
};

// The output-safety ledger (docs/RELIABILITY.md "Output safety"): the outputs the command will
// write, and every file it opened for reading. A read of a protected output is refused, and an
// output that resolves to a file read (or refused) is refused in turn, so a command never writes
// over an input, even one it found by itself in a directory.
struct Ledger {
    std::mutex mutex;
    bool armed = false;  // set by protect_outputs(): library users (tests) are not tracked
    std::vector<std::pair<FileId, std::string>> outputs;  // existing regular files only
    std::map<FileId, std::string> read;  // files opened for reading, or refused as an output
};

Ledger& ledger() {
    static Ledger instance;
    return instance;
}

Error collision_error(const std::string& output, const std::string& input) {
    return Error{fmt::format("refusing to write the output over the input '{}'", input), output, 0,
                 ExitCode::InputError};
}

// Records a file about to be read; refuses it when it is one of the command's outputs.
Status note_read(const std::string& path, const struct stat& info) {
    FileId id{info.st_dev, info.st_ino};
    auto& book = ledger();
    std::lock_guard<std::mutex> lock(book.mutex);
    if (!book.armed) return ok_status();
    book.read.emplace(id, path);  // also when refused: that output may not be opened later
    for (const auto& [output_id, output] : book.outputs) {
        if (output_id == id) return collision_error(output, path);
    }
    return ok_status();
}

// Checks that `path` names a regular file we may read (not a FIFO that would block, nor a
// device that never ends), within `max_bytes`, and not one of the command's outputs.
Status check_readable(const std::string& path, std::size_t max_bytes) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        return input_error(path, errno == ENOENT ? "no such file or directory" : errno_text(errno));
    }
    if (S_ISDIR(info.st_mode)) return input_error(path, "is a directory, expected a file");
    if (auto status = check_regular_file(path); !status) return status;
    if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
        return input_error(path, fmt::format("file larger than {} bytes", max_bytes));
    }
    return note_read(path, info);
}

// Standard input must be something that ends: a file, a pipe, a terminal or /dev/null. A
// directory, a closed descriptor or an endless device is an error, not an empty input.
Status check_stdin() {
    struct stat info {};
    if (::fstat(STDIN_FILENO, &info) != 0) {
        return input_error(std::string(kStdinName),
                           errno == EBADF ? "standard input is closed" : errno_text(errno));
    }
    if (S_ISDIR(info.st_mode)) {
        return input_error(std::string(kStdinName), "standard input is a directory");
    }
    if (S_ISCHR(info.st_mode) && !::isatty(STDIN_FILENO)) {
        struct stat null_info {};
        bool is_null = ::stat("/dev/null", &null_info) == 0 && null_info.st_rdev == info.st_rdev;
        if (!is_null) {
            return input_error(std::string(kStdinName),
                               "standard input is a character device, expected a file or a pipe");
        }
    }
    if (S_ISREG(info.st_mode)) return note_read(std::string(kStdinName), info);
    return ok_status();
}

}  // namespace

Status check_regular_file(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        return input_error(path, errno == ENOENT ? "no such file or directory" : errno_text(errno));
    }
    if (!S_ISREG(info.st_mode)) {
        return input_error(path,
                           fmt::format("is {}, expected a regular file", file_kind(info.st_mode)));
    }
    return ok_status();
}

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
    if (path == kStdinName) {
        if (auto status = check_stdin(); !status) return status.error();
        std::string data;
        std::array<char, 1 << 16> chunk{};
        while (std::cin.read(chunk.data(), chunk.size()) || std::cin.gcount() > 0) {
            data.append(chunk.data(), static_cast<std::size_t>(std::cin.gcount()));
            if (data.size() > max_bytes) {
                return input_error(path, fmt::format("input larger than {} bytes", max_bytes));
            }
        }
        if (std::cin.bad()) return input_error(path, "read error on standard input");
        if (data.starts_with(kUtf8Bom)) data.erase(0, kUtf8Bom.size());
        return data;
    }
    if (auto status = check_readable(path, max_bytes); !status) return status.error();
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
    if (data.starts_with(kUtf8Bom)) data.erase(0, kUtf8Bom.size());
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
        if (auto status = check_stdin(); !status) return status.error();
        input.stream_ = &std::cin;
        return input;
    }
    if (auto status = check_readable(path, kMaxStreamedBytes); !status) return status.error();
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

bool is_dir(const fs::path& path) {
    std::error_code ec;
    return fs::is_directory(path, ec);
}

bool is_file(const fs::path& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

bool is_special(const fs::path& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode);
}

bool same_file(const fs::path& a, const fs::path& b) {
    struct stat sa {
    }, sb{};
    if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

namespace {

// Where writing `path` lands: symlinks followed to their final target, also when that target
// does not exist yet (a dangling link is written through, not replaced). Paths under /dev and
// /proc (/dev/stdout, /proc/self/fd/N) are kept as given: they are written directly.
std::string resolve_output(const std::string& path) {
    if (path.starts_with("/dev/") || path.starts_with("/proc/")) return path;
    fs::path current(path);
    for (int hop = 0; hop < 40; ++hop) {
        struct stat info {};
        if (::lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) break;
        std::error_code error;
        fs::path target = fs::read_symlink(current, error);
        if (error) break;
        current = target.is_absolute() ? target : current.parent_path() / target;
    }
    return current.string();
}

// The same file for two outputs: the same inode when both exist, else the same normalised path.
// Devices and pipes (/dev/null twice) take any number of writers.
bool same_output(const std::string& a, const std::string& b) {
    struct stat info {};
    if (::stat(a.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) return false;
    std::string ra = resolve_output(a), rb = resolve_output(b);
    if (same_file(ra, rb)) return true;
    std::error_code ea, eb;
    fs::path ca = fs::weakly_canonical(fs::absolute(ra, ea), ea);
    fs::path cb = fs::weakly_canonical(fs::absolute(rb, eb), eb);
    return !ea && !eb && ca == cb;
}

}  // namespace

Status check_outputs(const std::vector<std::string>& outputs,
                     const std::vector<std::string>& inputs,
                     const std::vector<std::string>& side_files) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        if (outputs[i] == kStdinName) continue;
        for (std::size_t j = 0; j < i; ++j) {
            if (outputs[j] != kStdinName && same_output(outputs[i], outputs[j])) {
                return Error{
                    fmt::format("two outputs of one command name the same file ('{}')", outputs[j]),
                    outputs[i], 0, ExitCode::InputError};
            }
        }
        for (const auto& input : inputs) {
            if (input != kStdinName && same_file(outputs[i], input)) {
                return collision_error(outputs[i], input);
            }
        }
        for (const auto& side : side_files) {
            if (same_output(outputs[i], side)) {
                return Error{fmt::format("refusing to write the output over '{}', a file an "
                                         "input's engine creates and removes",
                                         side),
                             outputs[i], 0, ExitCode::InputError};
            }
        }
    }
    return ok_status();
}

void reset_output_safety() {
    auto& book = ledger();
    std::lock_guard<std::mutex> lock(book.mutex);
    book.armed = false;
    book.outputs.clear();
    book.read.clear();
}

void protect_outputs(const std::vector<std::string>& outputs) {
    auto& book = ledger();
    std::lock_guard<std::mutex> lock(book.mutex);
    book.armed = true;
    for (const auto& output : outputs) {
        struct stat info {};
        if (output == kStdinName || ::stat(output.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
            continue;
        book.outputs.emplace_back(FileId{info.st_dev, info.st_ino}, output);
    }
}

// ---------------------------------------------------------------------------------------------
// Pending temporary files, removed by the signal handler. Fixed storage: the handler may only
// use async-signal-safe calls.
namespace {
constexpr std::size_t kMaxPending = 16;
constexpr std::size_t kMaxPath = 4096;
std::array<std::array<char, kMaxPath>, kMaxPending> g_pending{};
std::array<std::atomic<bool>, kMaxPending> g_pending_used{};   // slot taken
std::array<std::atomic<bool>, kMaxPending> g_pending_ready{};  // its path is complete
volatile std::sig_atomic_t g_file_too_large = 0;

int register_pending(const std::string& path) {
    if (path.size() >= kMaxPath) return -1;
    for (std::size_t i = 0; i < kMaxPending; ++i) {
        bool expected = false;
        if (g_pending_used[i].compare_exchange_strong(expected, true)) {
            std::memcpy(g_pending[i].data(), path.c_str(), path.size() + 1);
            g_pending_ready[i].store(true, std::memory_order_release);
            return static_cast<int>(i);
        }
    }
    return -1;
}

void unregister_pending(int slot) {
    if (slot < 0) return;
    g_pending_ready[static_cast<std::size_t>(slot)] = false;
    g_pending_used[static_cast<std::size_t>(slot)] = false;
}

extern "C" void remove_pending_and_exit(int signal_number) {
    for (std::size_t i = 0; i < kMaxPending; ++i) {
        if (g_pending_ready[i].load(std::memory_order_acquire)) ::unlink(g_pending[i].data());
    }
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
}

// SIGXFSZ (RLIMIT_FSIZE reached): the write that caused it fails with EFBIG once the handler
// returns, and the normal error path names the output and removes the temporary file.
extern "C" void note_file_too_large(int) {
    g_file_too_large = 1;
}

// Why a write failed, for the message: errno when the failing call left one.
std::string write_failure(int error) {
    if (g_file_too_large || error == EFBIG) return "write failed: file size limit exceeded";
    if (error == ENOSPC) return "write failed: no space left on device";
    if (error != 0) return fmt::format("write failed: {}", errno_text(error));
    return "write failed (disk full?)";
}

constexpr std::string_view kTempSuffix = ".ptune-tmp-XXXXXX";

// The name of the temporary file next to `target`: `.<name>.ptune-tmp-XXXXXX`, with the name
// cut so that the whole stays within the directory's NAME_MAX (a 250-byte output name is fine).
std::string temp_pattern(const fs::path& directory, const std::string& name) {
    long name_max = ::pathconf(directory.c_str(), _PC_NAME_MAX);
    std::size_t limit = name_max > 0 ? static_cast<std::size_t>(name_max) : 255;
    std::size_t room = limit - 1 - kTempSuffix.size();
    std::string stem = name.size() > room ? name.substr(0, room) : name;
    return (directory / ("." + stem + std::string(kTempSuffix))).string();
}

struct TempFile {
    int fd = -1;
    int error = 0;     // errno when fd < 0
    int slot = -1;     // register_pending's slot
    std::string path;  // the pattern with its X's filled in
};

// Creates the file of `pattern` (ending in XXXXXX) like mkstemp, but registers its name for the
// signal handlers before the file exists: with mkstemp a signal between creating and
// registering the file left it behind. Any thread may take a process-directed signal, so
// blocking signals in this one would not close that window.
TempFile create_temp_file(std::string pattern) {
    static constexpr std::string_view kLetters =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static std::mutex mutex;
    static std::mt19937_64 random(std::random_device{}() ^ static_cast<std::uint64_t>(::getpid()));
    TempFile temp;
    const std::size_t at = pattern.size() - 6;
    for (int attempt = 0; attempt < 100; ++attempt) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            for (std::size_t i = at; i < pattern.size(); ++i)
                pattern[i] = kLetters[random() % kLetters.size()];
        }
        temp.slot = register_pending(pattern);
        temp.fd = ::open(pattern.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (temp.fd >= 0) {
            temp.path = pattern;
            return temp;
        }
        temp.error = errno;
        unregister_pending(temp.slot);
        temp.slot = -1;
        if (temp.error != EEXIST) break;
    }
    return temp;
}
}  // namespace

void install_cleanup_handlers() {
    // Every signal whose default action ends the process (signal(7)), so that no temporary file
    // outlives an interrupted run. A signal the parent set to be ignored (nohup, SIGPIPE in some
    // shells) stays ignored.
    static constexpr int kTerminating[] = {SIGINT,
                                           SIGTERM,
                                           SIGHUP,
                                           SIGQUIT,
                                           SIGUSR1,
                                           SIGUSR2,
                                           SIGPIPE,
                                           SIGALRM,
                                           SIGXCPU,
                                           SIGVTALRM,
                                           SIGPROF,
                                           SIGSYS,
                                           SIGABRT
#ifdef SIGIO
                                           ,
                                           SIGIO
#endif
#ifdef SIGPWR
                                           ,
                                           SIGPWR
#endif
#ifdef SIGSTKFLT
                                           ,
                                           SIGSTKFLT
#endif
    };
    auto install = [](int signal_number, void (*handler)(int)) {
        struct sigaction previous {};
        if (sigaction(signal_number, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN)
            return;
        struct sigaction action {};
        action.sa_handler = handler;
        sigemptyset(&action.sa_mask);
        sigaction(signal_number, &action, nullptr);
    };
    for (int signal_number : kTerminating) install(signal_number, remove_pending_and_exit);
    install(SIGXFSZ, note_file_too_large);
}

namespace detail {
// A file buffer that remembers why its first write failed: by the time commit() sees the
// stream's failbit, errno has long been overwritten (and ENOSPC must be named as such).
class ErrnoFilebuf : public std::filebuf {
  public:
    int error = 0;

  protected:
    int_type overflow(int_type ch) override {
        errno = 0;
        int_type result = std::filebuf::overflow(ch);
        if (traits_type::eq_int_type(result, traits_type::eof())) remember();
        return result;
    }
    std::streamsize xsputn(const char* data, std::streamsize count) override {
        errno = 0;
        std::streamsize written = std::filebuf::xsputn(data, count);
        if (written < count) remember();
        return written;
    }
    int sync() override {
        errno = 0;
        int result = std::filebuf::sync();
        if (result != 0) remember();
        return result;
    }

  private:
    void remember() {
        if (error == 0) error = errno;
    }
};
}  // namespace detail

struct AtomicOutput::Impl {
    detail::ErrnoFilebuf buffer;
    std::ostream file{&buffer};
    std::string temp_path;  // empty when writing directly
    std::string target;     // where the rename lands: symlinks resolved
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
        if (input != kStdinName && same_file(path, input)) return collision_error(path, input);
    }
    auto mode = std::ios::out | std::ios::trunc;
    if (binary) mode |= std::ios::binary;
    struct stat info {};
    bool exists = ::stat(path.c_str(), &info) == 0;
    {
        // Files this command read, found by itself (a build directory's artifacts) or refused
        // to read because they are this output.
        auto& book = ledger();
        std::lock_guard<std::mutex> lock(book.mutex);
        if (exists) {
            if (auto it = book.read.find(FileId{info.st_dev, info.st_ino}); it != book.read.end())
                return collision_error(path, it->second);
        }
    }
    if (exists && S_ISDIR(info.st_mode)) {
        return Error{"is a directory, expected an output file", path, 0, ExitCode::InputError};
    }
    // Opening a FIFO for writing waits for a reader, for ever if none comes: ask without waiting
    // (a process substitution's pipe has its reader already). The probe stays open until the
    // real open is done, so the reader never sees the writers come and go (an end of file).
    int fifo_probe = -1;
    if (exists && S_ISFIFO(info.st_mode)) {
        fifo_probe = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fifo_probe < 0) {
            return Error{errno == ENXIO
                             ? std::string("is a FIFO (named pipe) nobody reads; "
                                           "expected a file or a pipe with a reader")
                             : fmt::format("cannot open for writing: {}", errno_text(errno)),
                         path, 0, ExitCode::InputError};
        }
    }
    std::string target = resolve_output(path);
    if ((exists && !S_ISREG(info.st_mode)) || target.starts_with("/dev/") ||
        target.starts_with("/proc/")) {
        // /dev/null, a pipe, a terminal, /dev/stdout: nothing to replace atomically (and a
        // system link such as /dev/stdout must never be replaced by a file).
        const bool opened = out->impl_->buffer.open(path, mode) != nullptr;
        const int open_error = errno;
        if (fifo_probe >= 0) ::close(fifo_probe);
        errno = open_error;
        if (!opened) {
            return Error{fmt::format("cannot open for writing: {}", errno_text(errno)), path, 0,
                         ExitCode::InputError};
        }
        return out;
    }
    // A symlink is written through: the temporary file goes next to its target, which the
    // rename replaces, and the link stays a link.
    fs::path resolved(target);
    fs::path directory = resolved.has_parent_path() ? resolved.parent_path() : fs::path(".");
    TempFile temp = create_temp_file(temp_pattern(directory, resolved.filename().string()));
    if (temp.fd < 0) {
        return Error{fmt::format("cannot create a file in '{}': {}", directory.string(),
                                 errno_text(temp.error)),
                     path, 0, ExitCode::InputError};
    }
    // Created as a plain create would (0666 less the umask); a replaced file keeps its mode.
    if (exists) ::fchmod(temp.fd, info.st_mode & 07777);
    ::close(temp.fd);
    out->impl_->temp_path = temp.path;
    out->impl_->target = target;
    out->impl_->pending_slot = temp.slot;
    if (out->impl_->buffer.open(temp.path, mode) == nullptr) {
        ::unlink(temp.path.c_str());
        return Error{fmt::format("cannot open for writing: {}", errno_text(errno)), path, 0,
                     ExitCode::InputError};
    }
    return out;
}

AtomicOutput::~AtomicOutput() {
    if (impl_ && !impl_->committed && !impl_->temp_path.empty()) {
        impl_->buffer.close();
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
        errno = 0;
        std::cout.flush();
        if (!std::cout) {
            return Error{fmt::format("error writing to standard output: {}", write_failure(errno)),
                         "", 0, ExitCode::InputError};
        }
        return ok_status();
    }
    bool good = static_cast<bool>(impl_->file);
    if (good) impl_->file.flush();
    good = good && static_cast<bool>(impl_->file);
    errno = 0;
    bool closed = impl_->buffer.close() != nullptr;
    if (!good || !closed) {
        int error = impl_->buffer.error != 0 ? impl_->buffer.error : errno;
        return Error{write_failure(error), path_, 0, ExitCode::InputError};
    }
    if (!impl_->temp_path.empty()) {
        if (::rename(impl_->temp_path.c_str(), impl_->target.c_str()) != 0) {
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
