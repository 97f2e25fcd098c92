// ParallelGzipBuf: the gzip it writes is ONE member (Perfetto's reader stops after the first
// member) that zlib inflates back to the input, across block boundaries, with every thread count;
// scan_deflate finds the final block of libdeflate and zlib streams alike.

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "ptune/core/gzip_writer.hpp"

namespace gzip_writer_test {

using namespace ptune;

namespace {

// Trace-like text: repetitive JSON with varying numbers, so blocks compress as traces do.
std::string trace_like(std::size_t bytes) {
    std::string out = "{\"traceEvents\":[\n";
    std::mt19937 random(7);
    while (out.size() < bytes) {
        out += "{\"name\":\"QK\",\"ph\":\"X\",\"pid\":1,\"tid\":" + std::to_string(random() % 24) +
               ",\"ts\":" + std::to_string(random() % 1000000) +
               ",\"dur\":" + std::to_string(random() % 500) + "},\n";
    }
    return out;
}

std::string compress(const std::string& text, unsigned threads, std::size_t write_size,
                     int level = 5) {
    std::ostringstream sink;
    io::ParallelGzipBuf buf(sink, level, threads);
    std::ostream out(&buf);
    for (std::size_t i = 0; i < text.size(); i += write_size)
        out.write(text.data() + i,
                  static_cast<std::streamsize>(std::min(write_size, text.size() - i)));
    out.flush();
    REQUIRE(buf.finish());
    return sink.str();
}

// Inflates ONE gzip member and returns its content; `rest` gets the bytes after that member.
std::string inflate_member(const std::string& packed, std::size_t& rest) {
    z_stream z{};
    REQUIRE(inflateInit2(&z, 15 + 16) == Z_OK);
    std::string out;
    std::string chunk(1 << 16, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
    z.avail_in = static_cast<uInt>(packed.size());
    int status = Z_OK;
    while (status == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(chunk.data());
        z.avail_out = static_cast<uInt>(chunk.size());
        status = inflate(&z, Z_NO_FLUSH);
        out.append(chunk.data(), chunk.size() - z.avail_out);
    }
    CHECK(status == Z_STREAM_END);
    rest = z.avail_in;
    inflateEnd(&z);
    return out;
}

}  // namespace

TEST_CASE("parallel gzip is one member that inflates to the input", "[gzip]") {
    // 3.3 MiB: three full 1 MiB blocks and a partial one.
    std::string text = trace_like((3u << 20) + 300000);
    for (unsigned threads : {1u, 2u, 4u}) {
        for (std::size_t write_size : {std::size_t{1}, std::size_t{4096}, std::size_t{3} << 20}) {
            if (write_size == 1 && threads != 2) continue;  // byte-wise writes: once is enough
            CAPTURE(threads, write_size);
            std::string packed =
                compress(write_size == 1 ? text.substr(0, 200000) : text, threads, write_size);
            std::size_t rest = 0;
            std::string inflated = inflate_member(packed, rest);
            CHECK(rest == 0);  // nothing after the first member: a single-member file
            CHECK(inflated == (write_size == 1 ? text.substr(0, 200000) : text));
        }
    }
}

// The default level (what swimlane-merge writes .json.gz traces with) and the fastest and
// slowest others: libdeflate's level 1 uses another match finder and block splitting, so the
// splice (final bit cleared, empty stored block) is checked on its blocks too.
TEST_CASE("parallel gzip splices the blocks of every level", "[gzip]") {
    std::string text = trace_like((2u << 20) + 54321);
    for (int level : {io::ParallelGzipBuf::kDefaultLevel, 1, 2, 4, 9, 12}) {
        CAPTURE(level);
        std::string packed = compress(text, 2, 4096, level);
        std::size_t rest = 0;
        CHECK(inflate_member(packed, rest) == text);
        CHECK(rest == 0);
        CHECK(compress(text, 1, 3u << 20, level) == packed);
    }
}

// The file depends on the data (and on where a renderer writing in place, as swimlane-merge does
// through BlockBuf::space / submit, handed blocks on), never on the number of threads.
TEST_CASE("parallel gzip bytes do not depend on the thread count", "[gzip]") {
    std::string text = trace_like((2u << 20) + 12345);
    std::string expected = compress(text, 1, 4096);
    CHECK(compress(text, 2, 3u << 20) == expected);
    CHECK(compress(text, 4, 777) == expected);
    auto in_place = [&](unsigned threads) {
        std::ostringstream sink;
        io::ParallelGzipBuf buf(sink, 5, threads);
        std::size_t done = 0;
        for (std::size_t piece = 1; done < text.size(); piece = piece * 7 % 300007 + 1) {
            auto space = buf.space();
            std::size_t n = std::min({piece, space.size(), text.size() - done});
            std::copy_n(text.data() + done, n, space.data());
            buf.submit(n);
            done += n;
        }
        REQUIRE(buf.finish());
        return sink.str();
    };
    std::string packed = in_place(1);
    CHECK(in_place(2) == packed);
    CHECK(in_place(4) == packed);
    std::size_t rest = 0;
    CHECK(inflate_member(packed, rest) == text);
    CHECK(rest == 0);
}

TEST_CASE("parallel gzip of nothing is a valid empty gzip file", "[gzip]") {
    std::string packed = compress("", 2, 1);
    std::size_t rest = 0;
    CHECK(inflate_member(packed, rest).empty());
    CHECK(rest == 0);
}

TEST_CASE("parallel gzip stays within 10 % of zlib level 6", "[gzip]") {
    std::string text = trace_like(4u << 20);
    std::string packed = compress(text, 2, 1 << 16);
    uLongf zlib_size = compressBound(static_cast<uLong>(text.size()));
    std::string zlib_out(zlib_size, '\0');
    REQUIRE(compress2(reinterpret_cast<Bytef*>(zlib_out.data()), &zlib_size,
                      reinterpret_cast<const Bytef*>(text.data()), static_cast<uLong>(text.size()),
                      6) == Z_OK);
    CAPTURE(packed.size(), zlib_size);
    CHECK(static_cast<double>(packed.size()) <= 1.10 * static_cast<double>(zlib_size));
}

TEST_CASE("scan_deflate finds the final block of libdeflate and zlib streams", "[gzip]") {
    std::string text = trace_like(700000);
    for (int level : {1, 6, 12}) {
        CAPTURE(level);
        libdeflate_compressor* compressor = libdeflate_alloc_compressor(level);
        std::vector<std::uint8_t> out(libdeflate_deflate_compress_bound(compressor, text.size()));
        std::size_t size = libdeflate_deflate_compress(compressor, text.data(), text.size(),
                                                       out.data(), out.size());
        libdeflate_free_compressor(compressor);
        auto layout = io::scan_deflate({out.data(), size});
        REQUIRE(layout);
        CHECK((layout->end_bit + 7) / 8 == size);
        CHECK(((out[layout->last_header_bit / 8] >> (layout->last_header_bit % 8)) & 1) == 1);
        // Cut short (the word-wise refill reads ahead; what it reads past the cut is not used).
        CHECK_FALSE(io::scan_deflate({out.data(), size / 2}));
        CHECK_FALSE(io::scan_deflate({out.data(), size - 1}));
    }
    // Stored blocks (level 0 in zlib) and a fixed-code block ("a" compresses to one).
    for (int level : {0, 9}) {
        std::string input = level == 0 ? text.substr(0, 100000) : std::string("a");
        z_stream z{};
        REQUIRE(deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
        std::vector<std::uint8_t> out(deflateBound(&z, static_cast<uLong>(input.size())));
        z.next_in = reinterpret_cast<Bytef*>(input.data());
        z.avail_in = static_cast<uInt>(input.size());
        z.next_out = out.data();
        z.avail_out = static_cast<uInt>(out.size());
        REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
        std::size_t size = z.total_out;
        deflateEnd(&z);
        auto layout = io::scan_deflate({out.data(), size});
        REQUIRE(layout);
        CHECK((layout->end_bit + 7) / 8 == size);
    }
    // Not a deflate stream: reserved block type 3, and a truncated stream.
    std::vector<std::uint8_t> bad = {0x07, 0x00};
    CHECK_FALSE(io::scan_deflate(bad));
    std::vector<std::uint8_t> truncated = {0x04};
    CHECK_FALSE(io::scan_deflate(truncated));
}

}  // namespace gzip_writer_test
