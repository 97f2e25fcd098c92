#pragma once
/// A streambuf whose put area is one whole block that a renderer may fill in place: the trace
/// writers (src/swimlane/trace/) render straight into the block that is then written out or
/// compressed, so a 100 MB trace is not copied on its way to the file.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <streambuf>

namespace ptune::io {

/// The block interface: space() is the free room of the current block, submit(used) hands the
/// block on with `used` more bytes written into it and opens the next one. Ordinary stream
/// writes fill the same blocks (with a copy).
class BlockBuf : public std::streambuf {
  public:
    /// Zero-copy writing: the free space of the current block, filled by the caller, ...
    std::span<char> space() { return {pptr(), static_cast<std::size_t>(epptr() - pptr())}; }
    /// ... then handed on with the number of bytes used; a fresh block follows.
    void submit(std::size_t used) {
        pbump(static_cast<int>(used));
        next_block();
    }

  protected:
    /// Hands on what the put area holds and sets a fresh, empty one.
    virtual void next_block() = 0;

    int_type overflow(int_type ch) override {
        next_block();
        if (!traits_type::eq_int_type(ch, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(ch);
            pbump(1);
        }
        return traits_type::not_eof(ch);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        std::streamsize done = 0;
        while (done < n) {
            if (pptr() == epptr()) next_block();
            auto room = std::min<std::streamsize>(n - done, epptr() - pptr());
            std::memcpy(pptr(), s + done, static_cast<std::size_t>(room));
            pbump(static_cast<int>(room));
            done += room;
        }
        return n;
    }
};

}  // namespace ptune::io
