// Outputs (io.hpp): the output-safety rule, atomic outputs and the signal handlers that remove
// their temporary files.

#include "ptune/core/io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <streambuf>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "io_internal.hpp"

namespace ptune::io {

namespace fs = std::filesystem;
using namespace detail;

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

namespace {
// Writes all of `data` to `fd`, going on after a short write and again after an interrupted
// one: 0, or the errno of the failure (ENOSPC for a write that wrote nothing).
int write_fully(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t written = ::write(fd, data.data(), data.size());
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return written < 0 ? errno : ENOSPC;
        data.remove_prefix(static_cast<std::size_t>(written));
    }
    return 0;
}

}  // namespace

namespace detail {
// The buffer of an output file: std::filebuf's writing, over a descriptor, plus two things it
// cannot do. It keeps the errno of its first failed write (by the time commit() sees the
// stream's failbit errno has long moved on, and ENOSPC must be named as such). And for a file
// it made itself (the temporary file) it reserves the blocks ahead of the writes, a few MiB at
// a time, once the output passes kReserveFrom (fallocate with FALLOC_FL_KEEP_SIZE): ext4 then
// skips its per-page delayed-allocation bookkeeping, ~30 % of the system time of writing a
// large file (docs/PERFORMANCE.md, "Reserving an output's blocks"). What was reserved past the
// end is given back on close. A filesystem without fallocate, or one too full for a
// reservation, is written as before.
class OutputFileBuf : public std::streambuf {
  public:
    OutputFileBuf() : buffer_(new char[kBufferSize]) {
        setp(buffer_.get(), buffer_.get() + kBufferSize);
    }
    OutputFileBuf(const OutputFileBuf&) = delete;
    OutputFileBuf& operator=(const OutputFileBuf&) = delete;
    ~OutputFileBuf() override { close(); }

    /// Writes to `fd` (open for writing) from now on, and closes it; `reserve_ahead` only for a
    /// new file this process is the one writer of (the reservation is cut back to its size).
    void adopt(int fd, bool reserve_ahead) {
        fd_ = fd;
        reserving_ = reserve_ahead;
    }
    /// Writes what is buffered, gives back what was reserved past the end and closes the file.
    /// False when a write or the close failed (`error` says why, when errno did).
    bool close() {
        if (fd_ < 0) return true;
        bool good = flush();
        if (reserved_ > 0) {
            struct stat info {};
            if (::fstat(fd_, &info) == 0) (void)::ftruncate(fd_, info.st_size);
        }
        if (::close(fd_) != 0 && good) {
            good = false;
            remember(errno);
        }
        fd_ = -1;
        return good;
    }

    int error = 0;  ///< errno of the first failure, 0 when none left one

  protected:
    int_type overflow(int_type ch) override {
        if (!flush()) return traits_type::eof();
        if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
        *pptr() = traits_type::to_char_type(ch);
        pbump(1);
        return ch;
    }
    std::streamsize xsputn(const char* data, std::streamsize count) override {
        const auto size = static_cast<std::size_t>(count);
        const auto room = static_cast<std::size_t>(epptr() - pptr());
        if (size <= room) {
            std::memcpy(pptr(), data, size);
            pbump(static_cast<int>(size));
            return count;
        }
        // Larger than the room left: what is buffered, then the data itself (no copy).
        if (!flush() || !write_all(data, size)) return 0;
        return count;
    }
    int sync() override { return flush() ? 0 : -1; }

  private:
    static constexpr std::size_t kBufferSize = 64u << 10;
    static constexpr std::uint64_t kReserveFrom = 1u << 20;  ///< small outputs: no reservation
    static constexpr std::uint64_t kReserveStep = 4u << 20;

    bool flush() {
        const auto size = static_cast<std::size_t>(pptr() - pbase());
        setp(buffer_.get(), buffer_.get() + kBufferSize);
        return size == 0 || write_all(buffer_.get(), size);
    }
    bool write_all(const char* data, std::size_t size) {
        if (failed_ || fd_ < 0) return false;
        if (reserving_ && written_ + size > reserved_ && written_ + size > kReserveFrom)
            reserve(written_ + size);
        if (const int why = write_fully(fd_, std::string_view(data, size)); why != 0) {
            failed_ = true;
            remember(why);
            return false;
        }
        written_ += size;
        return true;
    }
    /// Reserves the blocks up to `end` and a step beyond; stops reserving at the first refusal.
    void reserve(std::uint64_t end) {
        const std::uint64_t to = (end / kReserveStep + 1) * kReserveStep;
        if (::fallocate(fd_, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(reserved_),
                        static_cast<off_t>(to - reserved_)) == 0)
            reserved_ = to;
        else
            reserving_ = false;
    }
    void remember(int why) {
        if (error == 0) error = why;
    }

    std::unique_ptr<char[]> buffer_;
    int fd_ = -1;
    bool failed_ = false;
    bool reserving_ = false;
    std::uint64_t written_ = 0;   ///< bytes written to the file
    std::uint64_t reserved_ = 0;  ///< the file's blocks are reserved below this offset
};
}  // namespace detail

struct AtomicOutput::Impl {
    detail::OutputFileBuf buffer;
    std::ostream file{&buffer};
    std::string temp_path;  // empty when writing directly
    std::string target;     // where the rename lands: symlinks resolved
    int pending_slot = -1;
    bool committed = false;
};

namespace {

// The output-safety rule for one target: not one of the named inputs, and not a file this
// command read, found by itself (a build directory's artifacts) or refused to read because it
// is this output. `info` is the target's stat, null when it does not exist.
Status check_not_an_input(const std::string& path, const struct stat* info,
                          const std::vector<std::string>& inputs) {
    for (const auto& input : inputs) {
        if (input != kStdinName && same_file(path, input)) return collision_error(path, input);
    }
    if (info == nullptr) return ok_status();
    auto& book = ledger();
    std::lock_guard<std::mutex> lock(book.mutex);
    if (auto it = book.read.find(FileId{info->st_dev, info->st_ino}); it != book.read.end())
        return collision_error(path, it->second);
    return ok_status();
}

// Moves the finished temporary file to `target`. Over an existing regular file it swaps the two
// names (RENAME_EXCHANGE: the target names a whole file, old or new, at every instant, as with
// rename) and removes the old file under the temporary name. A plain rename over an existing
// file is what ext4's "auto_da_alloc" takes for a replace-via-rename: rename() itself then
// allocates the blocks of every page of the new file and starts their writeback, which kept a
// 1 GB trace's run waiting ~1 s (docs/PERFORMANCE.md, "Replacing an output"). False with errno.
bool move_into_place(const std::string& temp, const std::string& target) {
    struct stat info {};
    if (::lstat(target.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        ::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
        if (::unlink(temp.c_str()) == 0) return true;
        // The target changed into something unlink cannot remove (a directory) since the
        // lstat: swapped back, so the rename below fails as it would have.
        const int error = errno;
        if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
            errno = error;
            return false;
        }
    }
    // No file to swap with, or a filesystem without the exchange (EINVAL): a plain rename.
    return ::rename(temp.c_str(), target.c_str()) == 0;
}

}  // namespace

Result<std::unique_ptr<AtomicOutput>> AtomicOutput::open(const std::string& path,
                                                         const std::vector<std::string>& inputs) {
    std::unique_ptr<AtomicOutput> out(new AtomicOutput());
    out->path_ = path;
    out->impl_ = std::make_unique<Impl>();
    if (path == kStdinName) return out;

    struct stat info {};
    bool exists = ::stat(path.c_str(), &info) == 0;
    if (auto status = check_not_an_input(path, exists ? &info : nullptr, inputs); !status)
        return status.error();
    if (exists && S_ISDIR(info.st_mode)) {
        return Error{"is a directory, expected an output file", path, 0, ExitCode::InputError};
    }
    // Opening a FIFO for writing waits for a reader, for ever if none comes: ask without waiting
    // (a process substitution's pipe has its reader already). The probe stays open until the
    // real open is done, so the reader never sees the writers come and go (an end of file).
    // A reader started beside ptune (`ptune … -o fifo & cat fifo`) may open its end a moment
    // later: it is given up to two seconds before the FIFO counts as unread.
    int fifo_probe = -1;
    if (exists && S_ISFIFO(info.st_mode)) {
        for (int attempt = 0; attempt < 200; ++attempt) {
            fifo_probe = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
            if (fifo_probe >= 0 || errno != ENXIO) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
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
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        const int open_error = errno;
        if (fifo_probe >= 0) ::close(fifo_probe);
        errno = open_error;
        if (fd < 0) {
            return Error{fmt::format("cannot open for writing: {}", errno_text(errno)), path, 0,
                         ExitCode::InputError};
        }
        out->impl_->buffer.adopt(fd, false);
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
    out->impl_->temp_path = temp.path;
    out->impl_->target = target;
    out->impl_->pending_slot = temp.slot;
    // Written through the descriptor that created it: never opened again with O_TRUNC, which
    // on ext4 marks a file for "auto_da_alloc", so that its close() would start writing every
    // dirty page back there and then (0.3 s of a 1 GB trace's run, which is page-cache work
    // only otherwise; docs/PERFORMANCE.md, "Writing a large file").
    out->impl_->buffer.adopt(temp.fd, true);
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
    bool closed = impl_->buffer.close();
    if (!good || !closed) {
        int error = impl_->buffer.error != 0 ? impl_->buffer.error : errno;
        return Error{write_failure(error), path_, 0, ExitCode::InputError};
    }
    if (!impl_->temp_path.empty()) {
        if (!move_into_place(impl_->temp_path, impl_->target)) {
            return Error{fmt::format("cannot move the result into place: {}", errno_text(errno)),
                         path_, 0, ExitCode::InputError};
        }
    }
    impl_->committed = true;
    unregister_pending(impl_->pending_slot);
    impl_->pending_slot = -1;
    return ok_status();
}

Status append_to_file(const std::string& path, std::string_view text,
                      const std::vector<std::string>& inputs) {
    struct stat info {};
    const bool exists = ::stat(path.c_str(), &info) == 0;
    if (exists && !S_ISREG(info.st_mode)) {
        // A FIFO or /dev/null has nothing to keep: written as -o writes one.
        auto output = AtomicOutput::open(path, inputs);
        if (!output) return output.error();
        (*output)->stream() << text;
        return (*output)->commit();
    }
    if (auto status = check_not_an_input(path, exists ? &info : nullptr, inputs); !status)
        return status;
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        return Error{fmt::format("cannot open for appending: {}", errno_text(errno)), path, 0,
                     ExitCode::InputError};
    }
    struct stat before {};
    const off_t old_size = ::fstat(fd, &before) == 0 ? before.st_size : -1;
    int write_error = write_fully(fd, text);
    // What was appended in part is taken back: the file keeps what it had, or all of it.
    if (write_error != 0 && old_size >= 0) (void)::ftruncate(fd, old_size);
    if (::close(fd) != 0 && write_error == 0) write_error = errno;
    if (write_error != 0) {
        return Error{fmt::format("error appending: {}", write_failure(write_error)), path, 0,
                     ExitCode::InputError};
    }
    return ok_status();
}

}  // namespace ptune::io
