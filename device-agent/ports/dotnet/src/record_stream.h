// RecordStream: the objects a capture's collection reports (heap_record.h), kept as a byte
// stream of variable-length integers until the walk sends them after the world resumed.
//
// The port records inside the collection, in the game's pause, and holds the record until the
// walk has sent it; what it holds is the agent's peak memory. Fixed-size records took 32 bytes
// per object, 12 per reference and 8 per value (~90 bytes per object on a heap of 3-4
// references per object); this stream takes ~18 on the same heap (its references random
// across 50 MB) and less on real ones, whose references point near their holder and each
// other:
//   varint  flags: value count << 5 | same shape << 4 | slots in a run << 3 | has text << 2 |
//           aligned << 1 | values read
//   varint  zigzag(id - the previous object's id), divided by 8 when aligned
//   unless of the same shape:
//   varint  class: its index in classes() (in order of first appearance)
//   varint  size, then the reference count n
//   varint  when the slots are in a run (n > 0, none kNoSlot, each the one before + 1: a
//           class's reference fields as the runtime reports them, an array without nulls):
//           the first slot, and no slot per reference below
//   "Same shape": the object has the previous object's class, size, reference count, slot run
//   and value count, and neither has text (most of a game's objects come in runs of one class,
//   allocated together): the flags say only same shape and aligned, and the header ends after
//   the id. A checkpoint's object (below) never is.
//   n x     varint zigzag(reference - the previous reference, or the id for the first)
//           (divided by 8 when aligned), then, unless in a run, varint slot + 1 (so
//           agent::kNoSlot, 2^32 - 1, is 0): an array's elements allocated one after another
//           take a byte or two each
//   values  one varint each
//   text    varint unit count, then the UTF-16 units, 2 bytes each, little-endian as in memory
// "aligned": the id, the previous id and every reference are multiples of 8 (CoreCLR's objects
// always are on 64-bit systems; the stream stays exact when they are not).
//
// Memory: the bytes used plus what was reserved (Reserve: mapped and written before the
// collection, so that recording faults no page in the pause; huge_page_allocator.h), a class
// table of 12-24 bytes per class, a checkpoint (where a slice of the stream starts, for readers
// on several threads) of 16 bytes per 65,536 objects. Append grows the buffer (a copy, in the
// pause) only when the reservation was short: it makes room part by part (the header, 1,024
// references at a time), each for that part's most bytes, not for the whole object's worst case at
// once.
//
// Thread-safety: none; one writer (the collection's callbacks, serialised by the port), then
// readers after it, never both at once; the readers may run on several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "huge_page_allocator.h"

namespace xrpm {
namespace dotnet {

// One object of the stream as Reader gives it back.
struct StreamObject {
  uint64_t id = 0;
  uintptr_t klass = 0;
  uint32_t class_index = 0;  // in RecordStream::classes()
  uint32_t size = 0;
  bool values_read = false;  // its values were read (its class had a layout)
  std::vector<uint64_t> refs;
  std::vector<uint32_t> slots;  // one per reference
  std::vector<uint64_t> values;
  std::vector<uint16_t> text;
};

class RecordStream {
 public:
  RecordStream() = default;
  RecordStream(const RecordStream&) = delete;
  RecordStream& operator=(const RecordStream&) = delete;

  // Appends one object. Throws std::bad_alloc when the buffer cannot grow.
  void Append(uint64_t id, uintptr_t klass, uint32_t size, bool values_read, const uint64_t* refs,
              const uint32_t* slots, size_t ref_count, const uint64_t* values, size_t value_count,
              const uint16_t* text, size_t text_units);

  // Maps and writes `bytes` of buffer and room for `classes` classes ahead of a collection.
  void Reserve(size_t bytes, size_t classes);
  // Forgets the objects, keeping the memory; Release gives the memory back.
  void Clear();
  void Release();

  size_t object_count() const { return objects_; }
  size_t ref_count() const { return refs_; }
  size_t bytes() const { return used_; }
  size_t reserved() const { return buffer_.size(); }
  // How often Append had to grow the buffer since the last Clear (a reservation too short).
  size_t growths() const { return growths_; }
  // Every class met, in order of first appearance.
  const std::vector<uintptr_t>& classes() const { return classes_; }

  // Reads the objects back in order: all of them, or the part-th of `parts` slices of the
  // stream (cut at checkpoints, so that several threads can read it at once, each a slice).
  class Reader {
   public:
    explicit Reader(const RecordStream& stream);
    Reader(const RecordStream& stream, size_t part, size_t parts);
    // The next object into *o (its vectors reused), or false at the end.
    bool Next(StreamObject* o);
    // The next object's id and references only (its slots, values and text skipped), or false
    // at the end.
    bool NextRefs(uint64_t* id, std::vector<uint64_t>* refs);

   private:
    struct ObjectHeader {
      uint64_t flags, id;
      uint32_t class_index, size;
      size_t refs;
      uint32_t first_slot;  // slots in a run (flags & kSlotRun): the first one's
    };
    // Reads an object's header up to its reference count, *p then at its first reference;
    // false at the end.
    bool Header(const uint8_t** p, ObjectHeader* h);
    // Reads the object's h.refs references into refs and their slots into slots (stepped
    // over when null); *p then after them.
    void Refs(const uint8_t** p, const ObjectHeader& h, uint64_t* refs, uint32_t* slots) const;
    // Where this reader stops: its slice's end, or the stream's.
    const uint8_t* Limit() const;

    const RecordStream& s_;
    size_t at_ = 0;
    size_t end_ = 0;  // SIZE_MAX: to the stream's end, objects appended meanwhile too
    uint64_t previous_id_ = 0;
    ObjectHeader shape_{};  // the last full header's (its flags without aligned and text)
    bool shape_valid_ = false;
  };

 private:
  uint32_t ClassIndex(uintptr_t klass);
  // Where to write `bytes` more (at used_), the buffer grown if it has not that room.
  uint8_t* Room(size_t bytes);
  void Rehash(size_t capacity);
  // Moves the bytes used into a new buffer of `bytes`, written once.
  void Reallocate(size_t bytes);

  RecordVector<uint8_t> buffer_;  // its size() is the reserved bytes, written once
  size_t used_ = 0;
  // Where every kCheckpointObjects-th object starts, and the id before it: where a Reader of
  // a slice starts (16 bytes per 65,536 objects).
  struct Checkpoint {
    size_t at;
    uint64_t previous_id;
  };
  static constexpr size_t kCheckpointObjects = size_t{1} << 16;
  std::vector<Checkpoint> checkpoints_;
  size_t objects_ = 0, refs_ = 0;
  size_t growths_ = 0;
  uint64_t previous_id_ = 0;
  std::vector<uintptr_t> classes_;
  // Open addressing, linear probing: class -> index + 1 (0: empty slot). Power-of-two size.
  std::vector<uintptr_t> keys_;
  std::vector<uint32_t> indices_;
  uintptr_t last_class_ = 0;  // runs of one class skip the lookup
  uint32_t last_index_ = 0;
  // The previous object's shape, when the next one may refer to it (not after a checkpoint).
  struct Shape {
    uint32_t class_index, size, first_slot;
    size_t refs, values;
    bool run, values_read;
  };
  Shape shape_{};
  bool shape_valid_ = false;
};

}  // namespace dotnet
}  // namespace xrpm
