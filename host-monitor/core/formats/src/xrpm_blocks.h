// .xrpm blocks: how one block of a column is packed before zstd, and the task runner that
// (de)compresses independent blocks on several threads.
//
// A column block of n values of width W (1, 2, 4 or 8 bytes) decodes to
//   [w: u8][base: W bytes][plane 0: n bytes]...[plane w-1: n bytes]
// where each value t_i is the transformed value (see XrpmTransform) and plane k holds byte k of
// every t_i (w = the bytes needed by the largest t_i, 0..W). The planes group bytes of equal
// significance so zstd sees long runs of similar bytes; dropping the zero high planes makes the
// data zstd has to handle 2-8x smaller, which is most of the open-time win.
//   kNone:       t_i = v_i (base unused, zero)
//   kDelta:      base = v_0, t_i = zigzag_W(v_i - v_{i-1}) with v_{-1} = base (so t_0 = 0)
//   kOwnerDelta: t_i = zigzag_64(ref_i - object_id[owner of ref i]) (references, W = 8)
// zigzag_W works on W-bit wrapping differences, so every t_i fits in W bytes.
//
// Packing and unpacking are O(n * w) with one pass per plane over the block (in cache).
//
// Thread-safety: the functions are reentrant; ForEachTask runs fn concurrently on `threads`
// threads with a distinct worker index each.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/fork_join.h"

namespace xrpm::formats {

// Where the values of a column are (writing) or go (reading).
struct ColumnView {
  uint8_t* data = nullptr;  // count * width bytes
  uint8_t width = 8;
  XrpmTransform transform = XrpmTransform::kNone;
  // kOwnerDelta only: the snapshot's object ids and CSR ends (references of object i are
  // [ref_end[i-1], ref_end[i])).
  const uint64_t* owner_id = nullptr;
  const uint64_t* ref_end = nullptr;
  size_t owners = 0;
};

// Appends the packed form of values [begin, end) to `out` (cleared first). `scratch` is reused.
void PackColumnBlock(const ColumnView& col, size_t begin, size_t end, std::string& out,
                     std::vector<uint64_t>& scratch);
// Decodes a packed block into values [begin, end) of `col`. Throws std::runtime_error when the
// bytes are not a valid block of end - begin values.
void UnpackColumnBlock(std::string_view in, const ColumnView& col, size_t begin, size_t end);

// ForEachTask (xrpm/model/fork_join.h) runs the block tasks.
using xrpm::ForEachTask;

}  // namespace xrpm::formats
