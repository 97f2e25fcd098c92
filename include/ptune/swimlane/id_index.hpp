#pragma once
// A map from task ids to 32-bit values that stays small and in cache order for real captures.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ptune::swimlane {

/// Task id → 32-bit value. Task ids are `(ring << 32) | local`, and a ring's locals count up
/// from where the ring starts, so each ring gets a direct array indexed by the local id: 4 bytes
/// per id, and ids looked up in ascending order read memory in order. A hash table would miss
/// the cache on nearly every id once a graph outgrows it (that made 200K-task captures take 13×
/// the time of 20K ones). Ids that would leave a ring's array mostly empty (more than four slots
/// per id), ids below the ring's first one and rings beyond the first kDenseRings go into an
/// open-addressing hash table instead, so any set of ids costs expected O(1) per operation.
class IdIndex {
  public:
    /// Never a stored value (it marks an empty slot).
    static constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;
    static constexpr std::size_t kDenseRings = 8;

    /// The value stored for `id`, inserting `value` (not kAbsent) first when `id` is absent;
    /// the pointer is valid until the next insertion.
    std::pair<std::uint32_t*, bool> try_emplace(std::uint64_t id, std::uint32_t value);
    /// The value stored for `id`, or nullptr.
    const std::uint32_t* find(std::uint64_t id) const {
        if (const Ring* ring = ring_of(static_cast<std::uint32_t>(id >> 32))) {
            std::uint32_t offset = static_cast<std::uint32_t>(id) - ring->first_local;
            if (static_cast<std::uint32_t>(id) >= ring->first_local &&
                offset < ring->values.size() && ring->values[offset] != kAbsent)
                return &ring->values[offset];
        }
        return hashed_ == 0 ? nullptr : find_hashed(id);
    }
    std::uint32_t* find(std::uint64_t id) {
        return const_cast<std::uint32_t*>(std::as_const(*this).find(id));
    }
    bool contains(std::uint64_t id) const { return find(id) != nullptr; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

  private:
    struct Ring {
        std::uint32_t ring = 0;
        std::uint32_t first_local = 0;      ///< the local id of values[0]
        std::size_t count = 0;              ///< values that are not kAbsent
        std::vector<std::uint32_t> values;  ///< by local - first_local
    };
    struct Slot {
        std::uint64_t id = 0;
        std::uint32_t value = kAbsent;
    };

    const Ring* ring_of(std::uint32_t ring) const {
        if (last_ring_ < rings_.size() && rings_[last_ring_].ring == ring)
            return &rings_[last_ring_];
        for (std::size_t r = 0; r < rings_.size(); ++r)
            if (rings_[r].ring == ring) {
                last_ring_ = r;
                return &rings_[r];
            }
        return nullptr;
    }
    const std::uint32_t* find_hashed(std::uint64_t id) const;
    Slot& probe(std::uint64_t id);
    void grow_hashed();

    std::vector<Ring> rings_;
    std::vector<Slot> slots_;  ///< power-of-two size, at most half full
    std::size_t hashed_ = 0;   ///< ids in slots_
    std::size_t size_ = 0;
    /// The ring the last lookup used: consecutive ids are nearly always in one ring. So one
    /// index must not be searched from two threads at once.
    mutable std::size_t last_ring_ = 0;
};

}  // namespace ptune::swimlane
