#pragma once
// A vector in fixed chunks: it grows without copying what it holds.

#include <cstddef>
#include <utility>
#include <vector>

namespace ptune {

/// A vector in fixed chunks of 2^Shift elements: it grows without copying what it holds (its
/// elements never move, so references to them stay valid), so it never holds its old and new
/// buffers at once, and it leaves no freed buffers of half, a quarter… of its size behind (a
/// doubling vector of N bytes takes ~2N of heap on the way, which ptune keeps: main.cpp turns
/// glibc's unmapping of large blocks off). Unlike std::deque (512-byte blocks, so a large map of
/// them) an index costs one lookup in a chunk table small enough to stay in cache, which matters
/// when millions of elements are read in time order rather than memory order.
template <class T, unsigned Shift = 16>
class ChunkedVector {
  public:
    void push_back(T value) {
        if ((size_ & kMask) == 0) chunks_.emplace_back().reserve(kChunk);
        chunks_.back().push_back(std::move(value));
        ++size_;
    }
    /// Appends a default element and returns it.
    T& emplace_back() {
        if ((size_ & kMask) == 0) chunks_.emplace_back().reserve(kChunk);
        ++size_;
        return chunks_.back().emplace_back();
    }
    const T& operator[](std::size_t i) const { return chunks_[i >> Shift][i & kMask]; }
    T& operator[](std::size_t i) { return chunks_[i >> Shift][i & kMask]; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    /// Empties it and gives its memory back.
    void release() {
        std::vector<std::vector<T>>().swap(chunks_);
        size_ = 0;
    }

    /// Element order, for range-for.
    template <class Owner, class Ref>
    class Iterator {
      public:
        Iterator(Owner* owner, std::size_t i) : owner_(owner), i_(i) {}
        Ref operator*() const { return (*owner_)[i_]; }
        Iterator& operator++() {
            ++i_;
            return *this;
        }
        bool operator==(const Iterator& other) const { return i_ == other.i_; }

      private:
        Owner* owner_;
        std::size_t i_;
    };
    using iterator = Iterator<ChunkedVector, T&>;
    using const_iterator = Iterator<const ChunkedVector, const T&>;
    iterator begin() { return {this, 0}; }
    iterator end() { return {this, size_}; }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size_}; }

  private:
    static constexpr std::size_t kChunk = std::size_t{1} << Shift, kMask = kChunk - 1;
    std::vector<std::vector<T>> chunks_;  ///< each reserved to kChunk, filled in order
    std::size_t size_ = 0;
};

}  // namespace ptune
