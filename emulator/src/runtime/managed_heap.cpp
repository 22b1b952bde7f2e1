#include "xrpm/emulator/managed_heap.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace xrpm::emulator {
namespace {
constexpr uint64_t kCommitStep = 1u << 20;     // commit in 1 MiB steps
constexpr uint64_t kDecommitSlack = 8u << 20;  // keep up to 8 MiB committed above the top
constexpr uint32_t kMinUsefulFree = 64;        // smaller free blocks are skipped by next-fit
}  // namespace

ManagedHeap::ManagedHeap(uint64_t reserve_bytes) {
  reserved_ = std::min<uint64_t>(reserve_bytes, kMaxReserve);
  reserved_ = (reserved_ + kCommitStep - 1) & ~(kCommitStep - 1);
  void* p = mmap(nullptr, reserved_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  mem_ = static_cast<uint8_t*>(p);
}

ManagedHeap::~ManagedHeap() {
  if (mem_) munmap(mem_, reserved_);
}

bool ManagedHeap::CommitUpTo(uint64_t end_offset) {
  if (end_offset <= committed_) return true;
  if (end_offset > reserved_) return false;
  uint64_t target = std::min(reserved_, (end_offset + kCommitStep - 1) & ~(kCommitStep - 1));
  if (mprotect(mem_ + committed_, target - committed_, PROT_READ | PROT_WRITE) != 0) return false;
  committed_ = target;
  return true;
}

void ManagedHeap::Decommit() {
  uint64_t used = top_ - kBase;
  if (committed_ <= used + kDecommitSlack) return;
  uint64_t keep = (used + kCommitStep - 1) & ~(kCommitStep - 1);
  keep += kCommitStep;
  if (keep >= committed_) return;
  madvise(mem_ + keep, committed_ - keep, MADV_DONTNEED);
  mprotect(mem_ + keep, committed_ - keep, PROT_NONE);
  committed_ = keep;
}

void ManagedHeap::FormatFree(Addr a, uint32_t size) {
  uint32_t* h = Words(a);
  if (size == 4) {
    h[0] = kFree4Type;
  } else {
    h[0] = kFreeType;
    h[1] = size;
  }
}

Addr ManagedHeap::Allocate(uint32_t size) {
  // Next-fit over the free list; blocks too small for anything useful are skipped for good.
  while (cursor_ < free_.size()) {
    FreeBlock& b = free_[cursor_];
    if (b.size >= size) {
      Addr a = b.addr;
      b.addr += size;
      b.size -= size;
      free_bytes_ -= size;
      if (b.size)
        FormatFree(b.addr, b.size);
      else
        ++cursor_;
      std::memset(At(a), 0, size);
      return a;
    }
    if (b.size >= kMinUsefulFree) break;  // keep it for smaller objects; bump this one
    ++cursor_;
  }
  uint64_t end = uint64_t{top_ - kBase} + size;
  if (!CommitUpTo(end)) return kNull;
  Addr a = top_;
  top_ += size;
  std::memset(At(a), 0, size);
  return a;
}

void ManagedHeap::ResetAfterCollection(std::vector<FreeBlock> blocks, Addr new_top) {
  free_ = std::move(blocks);
  cursor_ = 0;
  free_bytes_ = 0;
  for (const FreeBlock& b : free_) free_bytes_ += b.size;
  top_ = new_top;
  Decommit();
}

}  // namespace xrpm::emulator
