#pragma once
/// @file io.hpp
/// Input and output plumbing: whole-file reads for small inputs, a streaming line reader for
/// large ones, and atomic output files. Parsers never see paths; the CLI opens files here and
/// hands parsers text or streams.

#include <cstddef>
#include <filesystem>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/error.hpp"

namespace ptune::io {

/// Name used for standard input in messages and paths.
inline constexpr std::string_view kStdinName = "-";

/// The UTF-8 byte order mark: read_file() and LineReader drop it at the start of an input.
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

/// Largest file open_input() streams (docs/RELIABILITY.md "Limits").
inline constexpr std::size_t kMaxStreamedBytes = 1ull << 40;

/// Reads a whole file (or stdin for "-") into memory. Intended for inputs known to be small;
/// large inputs go through open_input() and a LineReader. Fails with a message naming the path.
/// Only regular files are read (a FIFO would block, a device never end); standard input may
/// be a file, a pipe or a terminal, and a closed or directory stdin is an error. A file larger
/// than `max_bytes` is refused before it is read. Every file read is recorded: an output that
/// resolves to it is refused later (AtomicOutput::open).
Result<std::string> read_file(const std::string& path, std::size_t max_bytes = 1ull << 31);

/// The check every read makes, without reading: `path` exists and is a regular file (symlinks
/// followed). For discovery that wants to report an artifact it could never read.
Status check_regular_file(const std::string& path);

/// An opened input: a stream over a file or stdin. Move-only.
class InputStream {
  public:
    InputStream() = default;
    InputStream(InputStream&&) noexcept;
    InputStream& operator=(InputStream&&) noexcept;
    ~InputStream();
    std::istream& stream();
    const std::string& path() const { return path_; }

  private:
    friend Result<InputStream> open_input(const std::string& path);
    std::string path_;
    std::unique_ptr<std::istream> owned_;
    std::istream* stream_ = nullptr;
};

/// Opens a file (or "-" for stdin) for streaming. Fails for a missing path, a directory, a
/// FIFO or device, a file over kMaxStreamedBytes, an unreadable file or one of the command's
/// protected outputs (protect_outputs()), with the path in the message.
Result<InputStream> open_input(const std::string& path);

/// Splits text into lines without copying. Lines never include the terminator; a trailing
/// `\r` (CRLF files) is removed, and so is a UTF-8 byte order mark at the start of line 1. Reads a
/// stream in large chunks so memory stays flat whatever the input size; a line longer than
/// `max_line_bytes` is cut there and flagged as truncated.
class LineReader {
  public:
    /// Reads lines from text that stays alive while the reader is used.
    explicit LineReader(std::string_view text);
    /// Streams lines from `in`.
    explicit LineReader(std::istream& in, std::size_t max_line_bytes = 64u << 20);
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    /// From now on the stream is read on a second thread, a chunk ahead of the lines handed
    /// out: the copy out of the page cache overlaps the parsing. For a regular file (a reader
    /// blocked on a pipe would hold up the destructor); before the first line. Does nothing for
    /// a text, or when no thread can be started. The lines are the same.
    void read_ahead();

    /// Fetches the next line; the view stays valid until the next call. False at the end.
    bool next(std::string_view& line);

    /// Finds the first byte of interest in [begin, end), or returns `end`, and adds to
    /// `newlines` the newlines before what it returns (the lines it skipped: one pass over the
    /// bytes, not a second one to count them). It may report bytes that turn out to be
    /// uninteresting, never miss one.
    using InterestFinder = const char* (*)(const char* begin, const char* end,
                                           std::size_t& newlines);
    /// Like next(), but skips whole lines in which `finder` reports nothing, without handing
    /// them out one by one: for logs where few lines matter. line_number() and bytes_read()
    /// still count the skipped lines.
    bool next_interesting(std::string_view& line, InterestFinder finder);
    /// Offset in the line last returned by next_interesting() of the first byte the finder
    /// reported: nothing before it is of interest. 0 when the line came without a search.
    std::size_t interest_offset() const { return interest_offset_; }
    /// 1-based number of the line last returned.
    std::size_t line_number() const { return line_number_; }
    /// True if the line last returned was longer than the limit and was cut.
    bool truncated() const { return truncated_; }
    /// True if the line last returned ended the input without a newline (a file cut short).
    bool unterminated() const { return unterminated_; }
    /// Bytes consumed so far (for progress reporting).
    std::size_t bytes_read() const { return consumed_; }
    /// Offset in the input of the first byte of the line last returned.
    std::size_t line_offset() const { return line_offset_; }

  private:
    struct ReadAhead;
    bool fill();
    bool fill_ahead();
    bool next_with_interest_at(std::string_view& line, std::size_t offset);
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    /// Offset of the next '\n' in the buffer at or after `from`, kNone if there is none.
    std::size_t find_newline(std::size_t from) const;
    std::string_view buffered() const { return {storage_.get(), size_}; }

    std::string_view text_;
    std::istream* in_ = nullptr;
    std::unique_ptr<char[]> storage_;   ///< stream mode: bytes read, [begin_, size_) unread
    std::unique_ptr<ReadAhead> ahead_;  ///< set by read_ahead()
    bool storage_pooled_ = false;       ///< storage_ is one of ahead_'s buffers
    std::size_t capacity_ = 0;
    std::size_t size_ = 0;
    std::size_t begin_ = 0;
    std::size_t complete_end_ = 0;  ///< next_interesting(): end of the last complete line
    std::size_t max_line_ = 0;
    std::size_t line_number_ = 0;
    std::size_t consumed_ = 0;
    std::size_t line_offset_ = 0;
    std::size_t interest_offset_ = 0;
    std::size_t bom_ = 0;  ///< bytes of byte order mark cut from the line last returned
    bool truncated_ = false;
    bool unterminated_ = false;
    bool eof_ = false;
    bool skipping_ = false;
};

/// Number of '\n' bytes in [begin, end).
std::size_t count_newlines(const char* begin, const char* end);

/// Whether `path` is a directory (symlinks followed); false for any error, never throws.
bool is_dir(const std::filesystem::path& path);
/// Whether `path` is a regular file (symlinks followed); false for any error, never throws.
bool is_file(const std::filesystem::path& path);
/// Whether `path` exists but is no regular file (a FIFO, a device, a socket, a directory):
/// a file named on the command line that is one is a usage error, never a file to skip.
bool is_special(const std::filesystem::path& path);

/// True if the two paths name the same existing file (same device and inode).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

/// The output-safety rule checked before a command reads anything: two outputs never name the
/// same file, and no output is the same file (inode: symlinks and hard links resolved) as one
/// of `inputs` or as one of `side_files`, the files an input comes with that may not exist yet
/// (a database's `-wal` and `-journal`: its engine creates and removes them). Paths that do not
/// exist are compared by their normalised spelling.
Status check_outputs(const std::vector<std::string>& outputs,
                     const std::vector<std::string>& inputs,
                     const std::vector<std::string>& side_files = {});

/// Registers the command's outputs that exist as regular files: reading one of them (an input
/// the command found by itself, such as an artifact in a build directory) is refused. From
/// this call on every file read is recorded, and AtomicOutput::open refuses a target that
/// resolves to one of them (read or refused). The CLI calls it once per command.
void protect_outputs(const std::vector<std::string>& outputs);

/// Forgets the outputs and the files read, and stops recording (for tests that run several
/// commands in one process).
void reset_output_safety();

/// An output that appears whole or not at all: data goes to a temporary file in the target's
/// directory and is renamed over the target on commit(). "-" writes to stdout; special files
/// (/dev/null, pipes, terminals, anything under /dev or /proc) are written directly; a symlink
/// is written through (its target is replaced, the link stays). If the object is destroyed
/// without commit(), or the process gets a signal that ends it, the temporary file is removed.
/// A target that resolves to a file the command read is refused.
class AtomicOutput {
  public:
    /// Opens the output. `inputs` are the command's input paths: writing over one is refused.
    static Result<std::unique_ptr<AtomicOutput>> open(const std::string& path,
                                                      const std::vector<std::string>& inputs = {});
    ~AtomicOutput();
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;

    std::ostream& stream();
    /// Flushes and moves the result into place. Fails with a message naming the path.
    Status commit();
    const std::string& path() const { return path_; }
    bool is_stdout() const { return path_ == kStdinName; }

  private:
    AtomicOutput() = default;
    struct Impl;
    std::string path_;
    std::unique_ptr<Impl> impl_;
};

/// Appends `text` to `path` as a shell's `>>` does (the file created when missing), for a file
/// that collects what several programs write, such as GitHub's step summary: it stays the same
/// file and what it holds is never read back. Appending to one of `inputs`, or to a file this
/// command read, is refused; a FIFO or /dev/null is written as AtomicOutput writes it. A write
/// that fails midway is taken back (the file truncated to its old length).
Status append_to_file(const std::string& path, std::string_view text,
                      const std::vector<std::string>& inputs = {});

/// Installs handlers for every signal that ends the process by default (SIGINT, SIGTERM,
/// SIGHUP, SIGQUIT, SIGUSR1/2, SIGPIPE, SIGALRM, …) that remove pending temporary outputs
/// before dying of the signal; SIGXFSZ makes the write fail instead, reported with the path.
void install_cleanup_handlers();

}  // namespace ptune::io
