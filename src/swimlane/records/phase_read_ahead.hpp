#pragma once
// Phase objects read ahead on a second thread (RecordsReadAhead, reader.hpp). The records file is
// cut into blocks; the second thread reads blocks ahead of the walk from the file, finds the phase
// objects at the start of their lines (a records file holds one per line) and reads each as
// take_container would (read_flat_object, RecordsWalker::read_flat_phase). The walk, at a phase
// object, takes the record read ahead at its offset when the bytes are the same as its own (so
// what it takes is what it would have read), and reads it itself otherwise. A block the second
// thread is reading when the walk reaches it is waited for; a block it never got to the walk reads
// itself.

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/threads.hpp"
#include "ptune/swimlane/reader.hpp"
#include "walker.hpp"

namespace ptune::swimlane::records {

/// One phase object read ahead: where it is, its length through the '}', the record as
/// read_flat_phase reads it (its kind an index into the block's own names, 0 for none, and its
/// thread 0 unless it names it).
struct PrefetchedPhase {
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    bool names_thread = false;
    RawPhase phase;
};

class PhaseReadAhead {
  public:
    /// The blocks a records file is read ahead in.
    static constexpr std::size_t kBlockBytes = 1u << 16;

    /// `size`: the file's. With `walk_waits` (tests), the walk waits for every block to be read
    /// ahead instead of reading on.
    PhaseReadAhead(RecordsReadAhead::ReadAt read_at, std::uint64_t size, std::size_t block_bytes,
                   bool walk_waits);

    /// The second thread's loop (RecordsReadAhead::run).
    void run();
    /// Stops run() and frees the blocks (RecordsReadAhead::finish).
    void finish();

    // ---- the walk's side (one thread) ------------------------------------------------------

    /// The walk is at `offset` (a container it was offered).
    void at(std::uint64_t offset);
    /// The record read ahead for the phase object at `offset` whose text (as far as the walk has
    /// it) starts `text`, when its bytes are the same; else null.
    const PrefetchedPhase* find(std::uint64_t offset, std::string_view text);
    /// The walk's kind index of a record's block-local `kind`, interned by `intern(name)` the
    /// first time the block's name is used (in the order the walk would have met it).
    template <class Intern>
    std::uint16_t kind(std::uint16_t local, Intern&& intern) {
        if (local == 0) return 0;
        std::int32_t& walk_kind = kind_map_[local];
        if (walk_kind < 0) walk_kind = intern(std::string_view(current_->kinds[local - 1]));
        return static_cast<std::uint16_t>(walk_kind);
    }

  private:
    enum class State { Free, Reading, Ready };
    struct Block {
        State state = State::Free;
        std::uint64_t index = 0;
        std::uint64_t text_offset = 0;  ///< where `text` starts in the file
        std::string text;
        std::vector<PrefetchedPhase> phases;  ///< by offset
        std::vector<std::string> kinds;       ///< the block's kind names (index + 1)
    };
    static constexpr std::size_t kBlocks = 4;
    /// Bytes read past a block's end, for the objects that start in it and end in the next one.
    static constexpr std::size_t kTail = 4096;

    /// Reads block `index` into `block` (no lock held: the block is this thread's meanwhile).
    void read_block(Block& block, std::uint64_t index);
    /// The walk reached block `index`: waits for it if it is being read, and makes it current.
    void enter(std::uint64_t index);

    RecordsReadAhead::ReadAt read_at_;
    const std::uint64_t size_;
    const std::size_t block_bytes_;
    const bool walk_waits_;  ///< tests: the walk waits for every block to be read ahead

    std::mutex mutex_;
    threads::SpinningCondition changed_;  ///< the two threads spin before they sleep
    // Under mutex_:
    std::vector<Block> blocks_;  ///< block b in blocks_[b % kBlocks]
    std::uint64_t walk_block_ = 0;
    bool finished_ = false, running_ = false;
    bool read_all_ = false;  ///< the reading thread got to the end (or was stopped)

    // The walk's own (its thread only):
    std::uint64_t current_index_ = ~std::uint64_t{0};
    const Block* current_ = nullptr;  ///< the current block when it was read ahead
    std::size_t next_ = 0;            ///< the current block's first record not yet passed
    std::vector<std::int32_t> kind_map_;
};

}  // namespace ptune::swimlane::records
