#pragma once
/// A gzip writer that compresses independent 1 MiB blocks on every core with libdeflate and
/// splices them into ONE gzip member (docs/PERFORMANCE.md, "gzip traces").
///
/// Why one member: a multi-member gzip (concatenated gzip files) is valid RFC 1952 and gzip, zcat
/// and Python read it, but Perfetto's trace processor stops at the end of the first member
/// (google/perfetto#872) and would silently show the first megabyte of a trace. libdeflate only
/// writes complete deflate streams (the last block marked final), so each compressed block is
/// scanned for its block headers (scan_deflate), its final bit is cleared and it is closed with an
/// empty stored block, which byte-aligns it like zlib's Z_SYNC_FLUSH: the pieces then concatenate
/// into one deflate stream. The blocks do not share a window; at 1 MiB that costs well under 1 %.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <span>
#include <thread>
#include <vector>

#include "ptune/core/block_buf.hpp"

namespace ptune::io {

/// Where the blocks of one complete raw deflate stream are (bit offsets, LSB-first).
struct DeflateLayout {
    std::size_t last_header_bit = 0;  ///< the header of the block marked final
    std::size_t end_bit = 0;          ///< just after that block's end-of-block code
};

/// Walks a complete raw deflate stream block by block (decoding the Huffman codes, writing
/// nothing); nullopt when it is not a valid stream.
std::optional<DeflateLayout> scan_deflate(std::span<const std::uint8_t> stream);

/// A streambuf writing a gzip file (one member) to `sink`: what is written to it is cut into
/// 1 MiB blocks compressed in parallel while writing goes on (a renderer fills the blocks in
/// place through the BlockBuf interface); at most two blocks per thread are in flight, so memory
/// stays bounded however large the output. The bytes depend on the data (and on where a caller
/// of submit() handed blocks on), never on the number of threads.
class ParallelGzipBuf : public BlockBuf {
  public:
    /// `level` is libdeflate's (1-12); `threads` 0 means one per core. Level 5: on trace JSON
    /// about 3 % larger than zlib -6 at 70 % of libdeflate -6's time (-4 is 12 % larger). Level
    /// 1 takes ~40 % of level 5's CPU for a file ~1.28× zlib -6 (docs/PERFORMANCE.md, "gzip
    /// traces"): kept at 5, the size issue #23 asks for.
    static constexpr int kDefaultLevel = 5;
    explicit ParallelGzipBuf(std::ostream& sink, int level = kDefaultLevel, unsigned threads = 0);
    ~ParallelGzipBuf() override;
    ParallelGzipBuf(const ParallelGzipBuf&) = delete;
    ParallelGzipBuf& operator=(const ParallelGzipBuf&) = delete;

    /// Compresses what is left and writes the trailer (idempotent); false on a compression or
    /// stream error.
    bool finish();

  protected:
    void next_block() override;

  private:
    struct Job {
        std::unique_ptr<char[]> input;  ///< a whole block; its bytes are the first input_size
        std::size_t input_size = 0;
        /// Reused; the block's bytes are the first output_size of output_room. Not a vector: its
        /// resize would zero-fill the whole bound (~1 MiB a job) where level 1 writes a tenth.
        std::unique_ptr<std::uint8_t[]> output;
        std::size_t output_room = 0;
        std::size_t output_size = 0;
        std::uint32_t crc = 0;
        bool done = false;
        bool failed = false;
    };

    void write_front(std::unique_lock<std::mutex>& lock);
    void work();

    std::ostream& sink_;
    int level_;
    std::size_t max_in_flight_;
    std::unique_ptr<char[]> current_;             // the block the put area is in
    std::deque<std::shared_ptr<Job>> in_flight_;  // in output order
    std::deque<std::shared_ptr<Job>> pending_;    // not yet taken by a worker
    std::vector<std::shared_ptr<Job>> free_;      // written, buffers kept for the next blocks
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool stopping_ = false;
    bool failed_ = false;
    bool finished_ = false;
    std::uint32_t crc_ = 0;
    std::uint64_t size_ = 0;
};

}  // namespace ptune::io
