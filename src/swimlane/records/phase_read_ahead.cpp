// Phase objects read ahead on a second thread (phase_read_ahead.hpp).

#include "phase_read_ahead.hpp"

#include <algorithm>
#include <cstring>

#include "flat_object.hpp"

namespace ptune::swimlane::records {

PhaseReadAhead::PhaseReadAhead(RecordsReadAhead::ReadAt read_at, std::uint64_t size,
                               std::size_t block_bytes, bool walk_waits)
    : read_at_(std::move(read_at)),
      size_(size),
      block_bytes_(std::max<std::size_t>(block_bytes, 1)),
      walk_waits_(walk_waits),
      blocks_(kBlocks) {}

void PhaseReadAhead::run() {
    {
        std::lock_guard lock(mutex_);
        if (finished_) return;
        running_ = true;
    }
    std::uint64_t next = 0;
    for (;;) {
        Block* block = nullptr;
        std::uint64_t index = 0;
        {
            std::unique_lock lock(mutex_);
            for (;;) {
                if (!finished_) {
                    // Two blocks ahead of the walk at least, unless it waits: the walk reads
                    // the next one itself meanwhile rather than wait for it (the walk takes a
                    // block read ahead in about half the time this thread reads it, and reads
                    // one itself in about one and a half).
                    index = walk_waits_ ? next : std::max(next, walk_block_ + 2);
                    if (index * block_bytes_ < size_) {
                        Block& slot = blocks_[index % kBlocks];
                        // A slot is reused once the walk has left its block.
                        if (slot.state == State::Free || slot.index < walk_block_) {
                            slot.state = State::Reading;
                            slot.index = index;
                            block = &slot;
                            break;
                        }
                        const std::uint64_t walk_was = walk_block_;
                        changed_.wait(lock, [&] { return finished_ || walk_block_ != walk_was; });
                        continue;
                    }
                }
                running_ = false;
                read_all_ = true;
                changed_.notify_all();
                return;
            }
        }
        read_block(*block, index);
        {
            std::lock_guard lock(mutex_);
            block->state = State::Ready;
        }
        changed_.notify_all();
        next = index + 1;
    }
}

void PhaseReadAhead::read_block(Block& block, std::uint64_t index) {
    // Made here, on the reading thread, when first read. (Made in the walk's heap when each
    // thread had its own, they left a hole under what the capture and its analysis allocate
    // next: swimlane-analyze's peak RSS +2.6 MB at 20K tasks. With one heap for every thread,
    // main.cpp, that peak is what it was: 40.4 and 40.5 MiB.)
    block.text.reserve(block_bytes_ + kTail + 1);
    block.phases.reserve(block_bytes_ / 96);
    const std::uint64_t begin = index * block_bytes_;
    const std::uint64_t end = std::min<std::uint64_t>(begin + block_bytes_, size_);
    // From the byte before the block (is the block's first byte a line start?) to kTail past it.
    block.text_offset = index == 0 ? 0 : begin - 1;
    const std::uint64_t read_end = std::min<std::uint64_t>(end + kTail, size_);
    block.text.resize(static_cast<std::size_t>(read_end - block.text_offset));
    block.text.resize(read_at_(block.text_offset, block.text.data(), block.text.size()));
    block.phases.clear();
    block.kinds.clear();
    const char* text = block.text.data();
    const std::size_t length = block.text.size();
    const std::size_t stop = static_cast<std::size_t>(
        std::min<std::uint64_t>(end - block.text_offset, length));  // where the block ends
    std::size_t at = static_cast<std::size_t>(begin - block.text_offset);
    if (index > 0 && (length == 0 || text[0] != '\n')) {  // it starts inside a line
        const void* newline = at < length ? std::memchr(text + at, '\n', length - at) : nullptr;
        if (!newline) return;
        at = static_cast<std::size_t>(static_cast<const char*>(newline) - text) + 1;
    }
    bool too_many_kinds = false;
    auto intern = [&](std::string_view name) -> std::uint16_t {
        auto found = std::find(block.kinds.begin(), block.kinds.end(), name);
        if (found != block.kinds.end())
            return static_cast<std::uint16_t>(found - block.kinds.begin() + 1);
        if (block.kinds.size() >= 0xFFFE) {
            too_many_kinds = true;
            return 0;
        }
        block.kinds.emplace_back(name);
        return static_cast<std::uint16_t>(block.kinds.size());
    };
    // Past blanks other than the newline (as the flat reader skips them).
    auto skip_blanks = [&](std::size_t from) {
        flat::Cursor cursor{text + from, text + length};
        cursor.skip_space();
        return static_cast<std::size_t>(cursor.p - text);
    };
    FlatObject object;
    // The objects that start the lines beginning in the block, and those after them on a line.
    while (at < stop) {
        std::size_t p = skip_blanks(at);
        while (p < stop && text[p] == '{') {
            const std::size_t taken =
                read_flat_object(std::string_view(text + p, length - p), object);
            if (taken == 0) break;
            PrefetchedPhase read;
            read.offset = block.text_offset + p;
            read.length = static_cast<std::uint32_t>(taken);
            const RecordsWalker::FlatPhaseFacts facts =
                RecordsWalker::read_flat_phase(object, read.phase, intern);
            read.names_thread = facts.names_thread;
            // Two kind names: the walk interns both, which a record cannot say; it reads it.
            if (facts.kinds <= 1 && !too_many_kinds) block.phases.push_back(read);
            too_many_kinds = false;
            p = skip_blanks(p + taken);
            if (p < length && text[p] == ',') p = skip_blanks(p + 1);
        }
        const void* newline = p < length ? std::memchr(text + p, '\n', length - p) : nullptr;
        if (!newline) break;
        at = static_cast<std::size_t>(static_cast<const char*>(newline) - text) + 1;
    }
}

void PhaseReadAhead::finish() {
    std::unique_lock lock(mutex_);
    finished_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return !running_; });
    std::vector<Block>().swap(blocks_);
    current_ = nullptr;
    current_index_ = ~std::uint64_t{0};
}

void PhaseReadAhead::enter(std::uint64_t index) {
    std::unique_lock lock(mutex_);
    current_index_ = index;
    current_ = nullptr;
    if (blocks_.empty()) return;  // finished
    walk_block_ = index;
    Block& block = blocks_[index % kBlocks];
    auto ready = [&] { return block.index == index && block.state == State::Ready; };
    if (walk_waits_)
        changed_.wait(lock, [&] { return ready() || read_all_ || finished_; });
    else
        changed_.wait(lock, [&] { return block.index != index || block.state != State::Reading; });
    if (ready()) {
        current_ = &block;
        next_ = 0;
        kind_map_.assign(block.kinds.size() + 1, -1);
    }
    lock.unlock();
    changed_.notify_all();  // the reading thread may be waiting for the walk to move on
}

void PhaseReadAhead::at(std::uint64_t offset) {
    if (offset / block_bytes_ != current_index_) enter(offset / block_bytes_);
}

const PrefetchedPhase* PhaseReadAhead::find(std::uint64_t offset, std::string_view text) {
    at(offset);
    if (!current_) return nullptr;
    const std::vector<PrefetchedPhase>& phases = current_->phases;
    while (next_ < phases.size() && phases[next_].offset < offset) ++next_;
    if (next_ == phases.size() || phases[next_].offset != offset) return nullptr;
    const PrefetchedPhase& read = phases[next_];
    if (read.length > text.size() ||
        std::memcmp(text.data(), current_->text.data() + (offset - current_->text_offset),
                    read.length) != 0)
        return nullptr;
    return &read;
}

}  // namespace ptune::swimlane::records
