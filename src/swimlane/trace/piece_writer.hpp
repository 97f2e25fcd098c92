#pragma once
// Pieces of an output rendered in memory on two threads and written in order
// (trace_json.cpp's two-thread rendering).

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <ostream>
#include <string_view>
#include <utility>
#include <vector>

#include "ptune/core/threads.hpp"

namespace ptune::swimlane::detail {

/// The pieces of an output rendered on two threads, written to `out` in the order of their
/// numbers (Piece::number, 0, 1, 2, … as the threads took their work). A rendered piece whose
/// turn has not come waits in memory while its thread goes on with another piece, and
/// whichever thread writes piece n also writes the pieces after it that are ready: a thread
/// waits only when every piece is in use (each waited for the other's write, ~4 % of the
/// run's CPU at 20K tasks, when a thread had one piece). A Piece has `number`, `written()`
/// (its bytes) and `clear()`.
template <class Piece>
class PieceWriter {
  public:
    /// Pieces made from `args`, written to `out`.
    template <class... Args>
    explicit PieceWriter(std::ostream& out, const Args&... args) : out_(out) {
        for (auto& piece : pieces_) {
            piece = std::make_unique<Piece>(args...);
            free_.push_back(piece.get());
        }
    }
    /// A piece to render into, once one is free; nullptr once stopped.
    Piece* free_piece() {
        std::unique_lock lock(mutex_);
        freed_.wait(lock, [&] { return stopped_ || !free_.empty(); });
        if (stopped_) return nullptr;
        Piece* piece = free_.back();
        free_.pop_back();
        return piece;
    }
    /// Returns a piece that was not rendered into.
    void give_back(Piece* piece) {
        std::lock_guard lock(mutex_);
        free_.push_back(piece);
        freed_.notify_all();
    }
    /// Hands over a rendered piece, and writes the pieces that are ready from the one whose
    /// turn it is on. The turn moves on only once its piece is written, so no two threads
    /// write at once: the one that took the piece writes the ready ones after it too.
    void written_in_turn(Piece* piece) {
        std::unique_lock lock(mutex_);
        ready_[piece->number % kPieces] = piece;
        while (!stopped_ && ready_[next_ % kPieces] != nullptr) {
            Piece* turn = std::exchange(ready_[next_ % kPieces], nullptr);
            lock.unlock();
            const bool ok = write(*turn);
            lock.lock();
            ++next_;
            free_.push_back(turn);
            if (!ok) stopped_ = true;
            freed_.notify_all();
        }
    }
    /// Stops: no piece is handed out or written any more.
    void stop() {
        std::lock_guard lock(mutex_);
        stopped_ = true;
        freed_.notify_all();
    }
    bool stopped() {
        std::lock_guard lock(mutex_);
        return stopped_;
    }

  private:
    /// One being rendered by each thread, one being written or waiting its turn (a fourth
    /// measured no faster and its buffer is memory).
    static constexpr std::size_t kPieces = 3;

    /// Writes `piece` to the output and clears it.
    bool write(Piece& piece) {
        const std::string_view bytes = piece.written();
        out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        piece.clear();
        return out_.good();
    }

    std::ostream& out_;
    std::array<std::unique_ptr<Piece>, kPieces> pieces_;
    std::mutex mutex_;
    threads::SpinningCondition freed_{threads::Spinner()};
    std::vector<Piece*> free_;
    /// Rendered pieces by number % kPieces: at most kPieces numbers are out at once, from
    /// next_ on, so each has a slot of its own.
    std::array<Piece*, kPieces> ready_ = {};
    std::uint64_t next_ = 0;  ///< the number of the piece whose turn it is
    bool stopped_ = false;
};

}  // namespace ptune::swimlane::detail
