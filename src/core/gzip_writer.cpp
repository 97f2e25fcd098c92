// ParallelGzipBuf: libdeflate on independent blocks, spliced into one gzip member (see the header
// for why one member and how).

#include "ptune/core/gzip_writer.hpp"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "ptune/core/threads.hpp"

namespace ptune::io {

namespace {

constexpr std::size_t kBlockSize = 1u << 20;

// ---------------------------------------------------------------------------------------------
// Deflate block scanner (RFC 1951 §3.2): decodes the Huffman codes of each block without writing
// anything, to find where the final block starts and ends. Table-driven (one lookup per symbol,
// extra bits included) with word-at-a-time refills, so the walk costs a small fraction of the
// compression it follows (it was a tenth of the compression CPU with byte-wise refills).

class BitReader {
  public:
    explicit BitReader(std::span<const std::uint8_t> data) : data_(data) {}
    /// At least 56 bits in the buffer (zeros past the end, noted by overrun()).
    void refill() {
        if (next_ + 8 <= data_.size()) {
            // Eight bytes at once (libdeflate's way): the bytes past the whole ones counted
            // land where the next refill puts them again, so OR-ing them twice is harmless.
            std::uint64_t word = 0;
            if constexpr (std::endian::native == std::endian::little) {
                std::memcpy(&word, data_.data() + next_, sizeof word);
            } else {
                for (int i = 7; i >= 0; --i)
                    word = word << 8 | data_[next_ + static_cast<std::size_t>(i)];
            }
            buffer_ |= word << count_;
            next_ += static_cast<std::size_t>((63 - count_) >> 3);
            count_ |= 56;
            return;
        }
        while (count_ <= 56) {
            std::uint64_t byte = next_ < data_.size() ? data_[next_] : 0;
            buffer_ |= byte << count_;
            count_ += 8;
            ++next_;
        }
    }
    int available() const { return count_; }
    unsigned peek(unsigned mask) const { return static_cast<unsigned>(buffer_) & mask; }
    void drop(int count) {
        buffer_ >>= count;
        count_ -= count;
        position_ += static_cast<std::size_t>(count);
    }
    /// The next `count` (<= 32) bits, LSB first.
    unsigned bits(int count) {
        refill();
        unsigned value = peek(static_cast<unsigned>((std::uint64_t{1} << count) - 1));
        drop(count);
        return value;
    }
    void align() { drop(static_cast<int>((8 - position_ % 8) % 8)); }
    /// Skips whole bytes (after align()).
    void skip_bytes(std::size_t count) {
        position_ += count * 8;
        next_ = position_ / 8;
        buffer_ = 0;
        count_ = 0;
    }
    std::size_t position() const { return position_; }
    bool overrun() const { return position_ > data_.size() * 8; }

  private:
    std::span<const std::uint8_t> data_;
    std::uint64_t buffer_ = 0;
    int count_ = 0;
    std::size_t next_ = 0;      // next byte to load
    std::size_t position_ = 0;  // bits consumed
};

// A canonical Huffman code as one lookup table indexed by the next `bits` input bits (deflate
// sends codes MSB first inside an LSB-first stream, so entries are filled at the reversed code).
// Entry: symbol << 8 | bits to drop (the code and the symbol's extra bits); 0 marks a bit
// pattern no code starts with.
struct Huffman {
    std::vector<std::uint32_t> table;
    int bits = 0;
    unsigned mask = 0;
};

// Builds the table from code lengths (`extra[s]`: extra bits after symbol s, or none); false for
// an over-subscribed set. An incomplete set (one distance code, or none) is valid deflate: its
// unused patterns stay 0.
bool build(Huffman& h, const std::uint8_t* lengths, int n, const int* extra = nullptr) {
    std::array<int, 16> count{};
    for (int s = 0; s < n; ++s) ++count[lengths[s]];
    int left = 1;
    for (int len = 1; len < 16; ++len) {
        left = (left << 1) - count[static_cast<std::size_t>(len)];
        if (left < 0) return false;
    }
    h.bits = 0;
    for (int len = 15; len > 0; --len) {
        if (count[static_cast<std::size_t>(len)] != 0) {
            h.bits = len;
            break;
        }
    }
    h.mask = (1u << h.bits) - 1;
    h.table.assign(std::size_t{1} << h.bits, 0);
    std::array<int, 16> next_code{};
    int code = 0;
    count[0] = 0;
    for (int len = 1; len < 16; ++len) {
        code = (code + count[static_cast<std::size_t>(len - 1)]) << 1;
        next_code[static_cast<std::size_t>(len)] = code;
    }
    for (int s = 0; s < n; ++s) {
        int len = lengths[s];
        if (len == 0) continue;
        int value = next_code[static_cast<std::size_t>(len)]++;
        int reversed = 0;
        for (int i = 0; i < len; ++i) reversed |= ((value >> i) & 1) << (len - 1 - i);
        auto entry = static_cast<std::uint32_t>(s << 8 | (len + (extra ? extra[s] : 0)));
        for (int fill = reversed; fill < (1 << h.bits); fill += 1 << len)
            h.table[static_cast<std::size_t>(fill)] = entry;
    }
    return true;
}

// One symbol with its extra bits skipped (the reader must hold at least 28 bits); -1 for a
// pattern no code starts with.
inline int decode(BitReader& in, const Huffman& h) {
    if (h.bits == 0) return -1;
    std::uint32_t entry = h.table[in.peek(h.mask)];
    if (entry == 0) return -1;
    in.drop(static_cast<int>(entry & 0xff));
    return static_cast<int>(entry >> 8);
}

// Extra bits after each literal/length symbol (0-285; 286 and 287 are invalid) and each
// distance symbol (0-29; 30 and 31 are invalid).
constexpr std::array<int, 288> kLiteralLengthExtra = [] {
    std::array<int, 288> extra{};
    constexpr std::array<int, 29> kLength = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                             2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    for (std::size_t s = 0; s < kLength.size(); ++s) extra[257 + s] = kLength[s];
    return extra;
}();
constexpr std::array<int, 32> kDistanceExtra = {0,  0,  0,  0,  1,  1,  2,  2,  3, 3, 4,
                                                4,  5,  5,  6,  6,  7,  7,  8,  8, 9, 9,
                                                10, 10, 11, 11, 12, 12, 13, 13, 0, 0};

// Skips the codes of one compressed block up to its end-of-block symbol.
bool skip_codes(BitReader& reader, const Huffman& lengths, const Huffman& distances) {
    BitReader in = reader;  // a local copy stays in registers
    struct WriteBack {
        BitReader& to;
        const BitReader& from;
        ~WriteBack() { to = from; }
    } write_back{reader, in};
    for (;;) {
        // 48 bits: a length code with its extra bits (20), a distance code with its (28).
        if (in.available() < 48) in.refill();
        int symbol = decode(in, lengths);
        if (symbol < 0 || in.overrun()) return false;
        if (symbol < 256) continue;
        if (symbol == 256) return true;
        if (symbol > 285) return false;
        int distance = decode(in, distances);
        if (distance < 0 || distance >= 30 || in.overrun()) return false;
    }
}

const std::pair<Huffman, Huffman>& fixed_tables() {
    static const auto tables = [] {
        std::pair<Huffman, Huffman> result;
        std::array<std::uint8_t, 288> lengths{};
        std::fill(lengths.begin(), lengths.begin() + 144, 8);
        std::fill(lengths.begin() + 144, lengths.begin() + 256, 9);
        std::fill(lengths.begin() + 256, lengths.begin() + 280, 7);
        std::fill(lengths.begin() + 280, lengths.end(), 8);
        build(result.first, lengths.data(), 288, kLiteralLengthExtra.data());
        std::fill(lengths.begin(), lengths.begin() + 32, 5);
        build(result.second, lengths.data(), 32, kDistanceExtra.data());
        return result;
    }();
    return tables;
}

bool skip_dynamic(BitReader& in) {
    int nlen = static_cast<int>(in.bits(5)) + 257;
    int ndist = static_cast<int>(in.bits(5)) + 1;
    int ncode = static_cast<int>(in.bits(4)) + 4;
    if (nlen > 286 || ndist > 30) return false;
    static constexpr std::array<int, 19> kOrder = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                   11, 4,  12, 3, 13, 2, 14, 1, 15};
    std::array<std::uint8_t, 320> lengths{};
    for (int i = 0; i < ncode; ++i)
        lengths[static_cast<std::size_t>(kOrder[static_cast<std::size_t>(i)])] =
            static_cast<std::uint8_t>(in.bits(3));
    Huffman code_lengths;
    if (!build(code_lengths, lengths.data(), 19)) return false;
    lengths.fill(0);
    int index = 0;
    while (index < nlen + ndist) {
        in.refill();
        int symbol = decode(in, code_lengths);
        if (symbol < 0 || in.overrun()) return false;
        if (symbol < 16) {
            lengths[static_cast<std::size_t>(index++)] = static_cast<std::uint8_t>(symbol);
            continue;
        }
        std::uint8_t repeated = 0;
        int times = 0;
        if (symbol == 16) {
            if (index == 0) return false;
            repeated = lengths[static_cast<std::size_t>(index - 1)];
            times = 3 + static_cast<int>(in.bits(2));
        } else if (symbol == 17) {
            times = 3 + static_cast<int>(in.bits(3));
        } else {
            times = 11 + static_cast<int>(in.bits(7));
        }
        if (index + times > nlen + ndist) return false;
        while (times-- > 0) lengths[static_cast<std::size_t>(index++)] = repeated;
    }
    if (lengths[256] == 0) return false;  // no end-of-block code
    Huffman literal_lengths, distances;
    if (!build(literal_lengths, lengths.data(), nlen, kLiteralLengthExtra.data())) return false;
    if (!build(distances, lengths.data() + nlen, ndist, kDistanceExtra.data())) return false;
    return skip_codes(in, literal_lengths, distances);
}

void put_le32(std::vector<std::uint8_t>& out, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

}  // namespace

std::optional<DeflateLayout> scan_deflate(std::span<const std::uint8_t> stream) {
    BitReader in(stream);
    for (;;) {
        DeflateLayout layout;
        layout.last_header_bit = in.position();
        bool last = in.bits(1) != 0;
        unsigned type = in.bits(2);
        bool good = false;
        if (type == 0) {
            in.align();
            unsigned length = in.bits(16);
            unsigned complement = in.bits(16);
            good = (length ^ 0xffffu) == complement;
            in.skip_bytes(length);
        } else if (type == 1) {
            good = skip_codes(in, fixed_tables().first, fixed_tables().second);
        } else if (type == 2) {
            good = skip_dynamic(in);
        }
        if (!good || in.overrun()) return std::nullopt;
        if (last) {
            layout.end_bit = in.position();
            return layout;
        }
    }
}

ParallelGzipBuf::ParallelGzipBuf(std::ostream& sink, int level, unsigned threads)
    : sink_(sink), level_(level) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    max_in_flight_ = 2 * threads;
    // The gzip header: no name, no time stamp (reproducible output), OS 3 (Unix).
    static constexpr std::array<char, 10> kHeader = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, 3};
    sink_.write(kHeader.data(), kHeader.size());
    current_ = std::make_unique_for_overwrite<char[]>(kBlockSize);
    setp(current_.get(), current_.get() + kBlockSize);
    for (unsigned i = 0; i < threads; ++i)
        workers_.push_back(threads::thread_beside([this] { work(); }));
}

ParallelGzipBuf::~ParallelGzipBuf() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    for (auto& worker : workers_) worker.join();
}

void ParallelGzipBuf::next_block() {
    auto used = static_cast<std::size_t>(pptr() - pbase());
    if (used == 0) return;
    std::unique_lock lock(mutex_);
    // Bounded memory: the oldest block is written before another one starts.
    while (in_flight_.size() >= max_in_flight_) write_front(lock);
    // Jobs and their buffers are reused: a fresh 1 MiB buffer per block costs page faults and
    // zero-filling (a tenth of the run in the kernel).
    std::shared_ptr<Job> job;
    if (!free_.empty()) {
        job = std::move(free_.back());
        free_.pop_back();
    } else {
        job = std::make_shared<Job>();
    }
    job->input.swap(current_);  // current_ takes the job's old buffer, if it had one
    job->input_size = used;
    if (!current_) current_ = std::make_unique_for_overwrite<char[]>(kBlockSize);
    setp(current_.get(), current_.get() + kBlockSize);
    job->done = job->failed = false;
    in_flight_.push_back(job);
    pending_.push_back(std::move(job));
    changed_.notify_all();
}

void ParallelGzipBuf::write_front(std::unique_lock<std::mutex>& lock) {
    auto job = in_flight_.front();
    changed_.wait(lock, [&] { return job->done; });
    in_flight_.pop_front();
    lock.unlock();
    if (job->failed) failed_ = true;
    crc_ = static_cast<std::uint32_t>(
        crc32_combine(crc_, job->crc, static_cast<z_off_t>(job->input_size)));
    size_ += job->input_size;
    sink_.write(reinterpret_cast<const char*>(job->output.get()),
                static_cast<std::streamsize>(job->output_size));
    lock.lock();
    free_.push_back(std::move(job));
}

void ParallelGzipBuf::work() {
    std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> compressor(
        libdeflate_alloc_compressor(level_), &libdeflate_free_compressor);
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
        if (pending_.empty()) return;
        auto job = pending_.front();
        pending_.pop_front();
        lock.unlock();
        const char* input = job->input.get();
        std::size_t input_size = job->input_size;
        job->crc = static_cast<std::uint32_t>(libdeflate_crc32(0, input, input_size));
        auto& output = job->output;
        // Room for the compressed block, one padding byte and the empty stored block.
        std::size_t room =
            compressor ? libdeflate_deflate_compress_bound(compressor.get(), input_size) + 8 : 0;
        if (job->output_room < room) {
            output = std::make_unique_for_overwrite<std::uint8_t[]>(room);
            job->output_room = room;
        }
        std::size_t size = compressor
                               ? libdeflate_deflate_compress(compressor.get(), input, input_size,
                                                             output.get(), job->output_room)
                               : 0;
        auto layout = size == 0 ? std::nullopt : scan_deflate({output.get(), size});
        if (!layout) {
            job->failed = true;
            job->output_size = 0;
        } else {
            // Not the last block any more: clear its final bit, then close the piece with an
            // empty stored block (3 zero header bits, zero padding, LEN 0, NLEN 0xffff) so that
            // the next piece starts on a byte boundary.
            output[layout->last_header_bit >> 3] &=
                static_cast<std::uint8_t>(~(1u << (layout->last_header_bit & 7)));
            std::size_t bytes = (layout->end_bit + 3 + 7) / 8;
            if (layout->end_bit % 8 != 0) {
                // Bits after the end-of-block code must be zero (the stored block's header).
                output[layout->end_bit >> 3] &=
                    static_cast<std::uint8_t>((1u << (layout->end_bit & 7)) - 1);
            }
            for (std::size_t i = (layout->end_bit + 7) >> 3; i < bytes; ++i) output[i] = 0;
            const std::uint8_t kEmptyStored[] = {0x00, 0x00, 0xff, 0xff};
            std::copy(std::begin(kEmptyStored), std::end(kEmptyStored), output.get() + bytes);
            job->output_size = bytes + 4;
        }
        lock.lock();
        job->done = true;
        changed_.notify_all();
    }
}

bool ParallelGzipBuf::finish() {
    if (finished_) return !failed_ && sink_.good();
    finished_ = true;
    next_block();
    {
        std::unique_lock lock(mutex_);
        while (!in_flight_.empty()) write_front(lock);
    }
    // An empty final block with fixed codes (bits 1, 01, end-of-block 0000000), then the
    // trailer: CRC-32 and the input size modulo 2^32.
    std::vector<std::uint8_t> trailer = {0x03, 0x00};
    put_le32(trailer, crc_);
    put_le32(trailer, static_cast<std::uint32_t>(size_ & 0xffffffffu));
    sink_.write(reinterpret_cast<const char*>(trailer.data()),
                static_cast<std::streamsize>(trailer.size()));
    sink_.flush();
    return !failed_ && sink_.good();
}

}  // namespace ptune::io
