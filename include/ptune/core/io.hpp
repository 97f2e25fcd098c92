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

/// Reads a whole file (or stdin for "-") into memory. Intended for inputs known to be small;
/// large inputs go through open_input() and a LineReader. Fails with a message naming the path.
Result<std::string> read_file(const std::string& path, std::size_t max_bytes = 1ull << 31);

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

/// Opens a file (or "-" for stdin) for streaming. Fails for a missing path, a directory or an
/// unreadable file, with the path in the message.
Result<InputStream> open_input(const std::string& path);

/// Splits text into lines without copying. Lines never include the terminator; a trailing
/// `\r` (CRLF files) is removed. Reads a stream in large chunks so memory stays flat whatever the
/// input size; a line longer than `max_line_bytes` is cut there and flagged as truncated.
class LineReader {
  public:
    /// Reads lines from text that stays alive while the reader is used.
    explicit LineReader(std::string_view text);
    /// Streams lines from `in`.
    explicit LineReader(std::istream& in, std::size_t max_line_bytes = 64u << 20);

    /// Fetches the next line; the view stays valid until the next call. False at the end.
    bool next(std::string_view& line);

    /// Finds the first byte of interest in [begin, end), or returns `end`. It may report bytes
    /// that turn out to be uninteresting, never miss one.
    using InterestFinder = const char* (*)(const char* begin, const char* end);
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
    /// Bytes consumed so far (for progress reporting).
    std::size_t bytes_read() const { return consumed_; }
    /// Offset in the input of the first byte of the line last returned.
    std::size_t line_offset() const { return line_offset_; }

  private:
    bool fill();
    bool next_with_interest_at(std::string_view& line, std::size_t offset);
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    /// Offset of the next '\n' in the buffer at or after `from`, kNone if there is none.
    std::size_t find_newline(std::size_t from) const;
    std::string_view buffered() const { return {storage_.get(), size_}; }

    std::string_view text_;
    std::istream* in_ = nullptr;
    std::unique_ptr<char[]> storage_;  ///< stream mode: bytes read, [begin_, size_) unread
    std::size_t capacity_ = 0;
    std::size_t size_ = 0;
    std::size_t begin_ = 0;
    std::size_t complete_end_ = 0;  ///< next_interesting(): end of the last complete line
    std::size_t max_line_ = 0;
    std::size_t line_number_ = 0;
    std::size_t consumed_ = 0;
    std::size_t line_offset_ = 0;
    std::size_t interest_offset_ = 0;
    bool truncated_ = false;
    bool eof_ = false;
    bool skipping_ = false;
};

/// Number of '\n' bytes in [begin, end).
std::size_t count_newlines(const char* begin, const char* end);

/// True if the two paths name the same existing file (same device and inode).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

/// An output that appears whole or not at all: data goes to a temporary file in the target's
/// directory and is renamed over the target on commit(). "-" writes to stdout; special files
/// (/dev/null, pipes, terminals) are written directly. If the object is destroyed without
/// commit(), or the process gets SIGINT/SIGTERM, the temporary file is removed.
class AtomicOutput {
  public:
    /// Opens the output. `inputs` are the command's input paths: writing over one is refused.
    static Result<std::unique_ptr<AtomicOutput>> open(const std::string& path,
                                                      const std::vector<std::string>& inputs = {},
                                                      bool binary = false);
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

/// Installs SIGINT/SIGTERM handlers that remove pending temporary outputs before exiting.
void install_cleanup_handlers();

}  // namespace ptune::io
