// IdIndex: direct arrays per ring, a hash table for the ids that do not fit them.

#include <algorithm>
#include <cassert>

#include "ptune/swimlane/id_index.hpp"

namespace ptune::swimlane {

std::pair<std::uint32_t*, bool> IdIndex::try_emplace(std::uint64_t id, std::uint32_t value) {
    assert(value != kAbsent);
    if (std::uint32_t* stored = find(id)) return {stored, false};
    ++size_;
    auto ring_id = static_cast<std::uint32_t>(id >> 32);
    auto local = static_cast<std::uint32_t>(id);
    auto* ring = const_cast<Ring*>(ring_of(ring_id));
    if (!ring && rings_.size() < kDenseRings) {
        rings_.push_back(Ring{ring_id, local, 0, {}});
        ring = &rings_.back();
    }
    if (ring && local >= ring->first_local) {
        std::uint64_t offset = local - ring->first_local;
        // The array may grow to four slots per stored id (plus a page's worth), not more.
        if (offset < ring->values.size() || offset < 4 * (ring->count + 1) + 1024) {
            if (offset >= ring->values.size()) ring->values.resize(offset + 1, kAbsent);
            ++ring->count;
            ring->values[offset] = value;
            return {&ring->values[offset], true};
        }
    }
    if (2 * (hashed_ + 1) > slots_.size()) grow_hashed();
    Slot& slot = probe(id);
    slot = Slot{id, value};
    ++hashed_;
    return {&slot.value, true};
}

const std::uint32_t* IdIndex::find_hashed(std::uint64_t id) const {
    const Slot& slot = const_cast<IdIndex*>(this)->probe(id);
    return slot.value != kAbsent ? &slot.value : nullptr;
}

IdIndex::Slot& IdIndex::probe(std::uint64_t id) {
    std::size_t mask = slots_.size() - 1;
    std::size_t at = static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    while (slots_[at].value != kAbsent && slots_[at].id != id) at = (at + 1) & mask;
    return slots_[at];
}

void IdIndex::grow_hashed() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<std::size_t>(16, 2 * old.size()), Slot{});
    for (const Slot& slot : old)
        if (slot.value != kAbsent) probe(slot.id) = slot;
}

}  // namespace ptune::swimlane
