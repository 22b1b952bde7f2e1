// ManagedHeap: the emulated device's GC heap, a contiguous range of 32-bit device addresses
// backed by host memory, always linearly parsable (objects and free blocks back to back from
// base() to top()).
//
// Address space is reserved once (PROT_NONE, so it costs no memory) and committed in 1 MiB
// steps as the heap grows; after a compaction the unused tail beyond a slack is decommitted
// again. Allocation is next-fit over the free blocks left by the last sweep, then a bump of
// top(). Allocated bytes are zeroed, as the runtime's allocator does.
//
// Thread-safety: none. Owned by the Runtime and used only by the thread that holds the world
// (the game thread during a frame, or the stopper while the world is stopped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "xrpm/emulator/object_model.h"
#include "xrpm/emulator/type_table.h"

namespace xrpm::emulator {

struct FreeBlock {
  Addr addr;
  uint32_t size;
};

class ManagedHeap {
 public:
  static constexpr Addr kBase = 0x01000000;  // where the GC heap starts in the device's space
  static constexpr uint64_t kMaxReserve = 0xF0000000ull - kBase;

  // Reserves `reserve_bytes` of address space (clamped to what 32-bit addresses allow).
  explicit ManagedHeap(uint64_t reserve_bytes);
  ~ManagedHeap();
  ManagedHeap(const ManagedHeap&) = delete;
  ManagedHeap& operator=(const ManagedHeap&) = delete;

  Addr base() const { return kBase; }
  Addr top() const { return top_; }
  uint64_t reserved_bytes() const { return reserved_; }
  uint64_t committed_bytes() const { return committed_; }
  uint64_t used_bytes() const { return top_ - kBase; }
  bool Contains(Addr a) const { return a >= kBase && a < top_; }

  uint8_t* At(Addr a) { return mem_ + (a - kBase); }
  const uint8_t* At(Addr a) const { return mem_ + (a - kBase); }
  uint32_t* Words(Addr a) { return reinterpret_cast<uint32_t*>(At(a)); }
  const uint32_t* Words(Addr a) const { return reinterpret_cast<const uint32_t*>(At(a)); }

  // `size` bytes (a multiple of 4, at least 8), zeroed. Returns kNull when the reservation is
  // exhausted.
  Addr Allocate(uint32_t size);

  // Writes a free block header over [a, a + size).
  void FormatFree(Addr a, uint32_t size);
  // Installs the free blocks found by a sweep (ascending addresses) and the new top; decommits
  // memory beyond the top when much of it is unused.
  void ResetAfterCollection(std::vector<FreeBlock> blocks, Addr new_top);
  uint64_t free_list_bytes() const { return free_bytes_; }

  // Calls fn(addr, header words, size) for every object (free blocks skipped), ascending.
  template <class Fn>
  void ForEachObject(const TypeTable& types, Fn&& fn) {
    for (Addr a = kBase; a < top_;) {
      uint32_t* h = Words(a);
      uint32_t size = types.SizeOf(h);
      if ((h[0] & kTypeMask) >= kFirstRealType) fn(a, h, size);
      a += size;
    }
  }

 private:
  bool CommitUpTo(uint64_t end_offset);
  void Decommit();

  uint8_t* mem_ = nullptr;
  uint64_t reserved_ = 0;
  uint64_t committed_ = 0;
  Addr top_ = kBase;
  std::vector<FreeBlock> free_;
  size_t cursor_ = 0;
  uint64_t free_bytes_ = 0;
};

}  // namespace xrpm::emulator
