// RecordStream: the objects a capture's collection reports (heap_record.h), kept as a byte
// stream of variable-length integers until the walk sends them after the world resumed.
//
// The port records inside the collection, in the game's pause, and holds the record until the
// walk has sent it; what it holds is the agent's peak memory. (Recorded by a snapshot process,
// record_child.h, the record comes to the port in steps, and the port holds a window of it.)
// Fixed-size records took 32 bytes per object, 12 per reference and 8 per value (~90 bytes per
// object on a heap of 3-4 references per object); this stream takes ~14 on the same heap (its
// references random across 50 MB) and less on real ones, whose references point near their holder
// and each other:
//   varint  flags: value word << 4 | slots in a run << 3 | has text << 2 | aligned << 1, where
//           the value word is the value count + 1 when the object's values were read, else 0
//   varint  zigzag(id - the previous object's id), divided by 8 when aligned
//   unless of the same shape:
//   varint  class: its index in classes() (in order of first appearance)
//   varint  size, then the reference count n << 1 | grouped references (below)
//   varint  when the slots are in a run (n > 0, none kNoSlot, each the one before + 1: a
//           class's reference fields as the runtime reports them, an array without nulls):
//           the first slot, and no slot per reference below
//   "Same shape": the object has the previous object's class, size, reference count, slot run
//   and value count, and neither has text (most of a game's objects come in runs of one class,
//   allocated together): the flags are instead value differences << 3 | grouped references
//   << 2 | aligned << 1 | 1, and the header ends after the id. A checkpoint's object (below)
//   never is of the same shape.
//   n x     a reference: z = zigzag(reference - the previous reference, or the id for the
//           first), divided by 8 when aligned; then, unless in a run, varint slot + 1 (so
//           agent::kNoSlot, 2^32 - 1, is 0). Each z is a varint, or, in an object flagged
//           "grouped", coded in groups of four references: a tag byte before each group gives
//           each one's length in 2 bits (length - 1), and z takes 1-4 bytes, little-endian.
//           A reference 8-64 MiB from the previous one takes 3 bytes and a quarter where a
//           varint takes 4. The writer groups an aligned object's references when that is
//           shorter (far references: HeapBench's, at random across 50 MB, take ~3.3 bytes
//           instead of 4; near ones stay varints, a byte each, without a tag).
//   values  one varint each; "value differences" (an object of the same shape only, where
//           shorter): zigzag(value - the previous object's value) instead (a counter, an
//           index, a float or a flag the same in each takes a byte)
//   text    varint unit count << 1 | narrow, then the UTF-16 units: narrow (every unit below
//           0x80: names, identifiers, most of a game's text), a byte each; else 2 bytes each,
//           little-endian as in memory
// "aligned": the id, the previous id and every reference are multiples of 8 (CoreCLR's objects
// always are on 64-bit systems; the stream stays exact when they are not).
//
// Memory: the bytes used, a class table of 12-24 bytes per class, a checkpoint (where a slice
// of the stream starts, for readers on several threads) of 16 bytes per 65,536 objects. The
// buffer is mapped in huge pages (huge_page_allocator.h) ahead of the collection (Reserve):
// the bytes expected are written once then, so that recording faults no page in the pause,
// and room beyond them is mapped but left untouched, costing no memory unless the record
// needs it. Append moves the buffer (a copy, in the pause) only when the mapping was short:
// it makes room part by part (the header, 1,024 references at a time), each for that part's
// most bytes, not for the whole object's worst case at once.
//
// Thread-safety: none; one writer (the collection's callbacks, serialised by the port), then
// readers after it, never both at once; the readers may run on several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "huge_page_allocator.h"

namespace xrpm {
namespace agent {
class ByteSource;  // walk_recording.h
}  // namespace agent
namespace dotnet {

// One object of the stream as Reader gives it back.
struct StreamObject {
  uint64_t id = 0;
  uintptr_t klass = 0;
  uint32_t class_index = 0;  // in RecordStream::classes()
  uint32_t size = 0;
  bool values_read = false;  // its values were read (its class had a layout)
  size_t ref_count = 0;      // its references, whether in refs or in parts (Reader::Part)
  // Its references and their slots, or a part of them (Reader::Part). In huge-page mappings of
  // their own once large (an array's million references read whole), given back when the
  // reader's object goes, not kept in the allocator's free lists.
  RecordVector<uint64_t> refs;
  RecordVector<uint32_t> slots;  // one per reference
  std::vector<uint64_t> values;
  std::vector<uint16_t> text;
};

class RecordStream {
 public:
  RecordStream() = default;
  ~RecordStream();
  RecordStream(const RecordStream&) = delete;
  RecordStream& operator=(const RecordStream&) = delete;

  // Appends one object: its references with their slots (slots null: 0, 1, 2, ..., an array's
  // elements without nulls), its values only when values_read (an object whose fields were not
  // read has none), a string's text. Throws std::bad_alloc when the buffer cannot grow.
  void Append(uint64_t id, uintptr_t klass, uint32_t size, bool values_read, const uint64_t* refs,
              const uint32_t* slots, size_t ref_count, const uint64_t* values, size_t value_count,
              const uint16_t* text, size_t text_units);

  // Ahead of a collection: maps `bytes` of buffer (at least), writes its first `touched` bytes
  // (so that their pages are in memory before the pause; the rest is touched only if used),
  // and makes room for `classes` classes.
  void Reserve(size_t bytes, size_t touched, size_t classes);
  // Forgets the objects, keeping the memory; Release gives the memory back.
  void Clear();
  void Release();
  // Gives back the memory of the bytes before `offset` (whole pages; the buffer stays mapped)
  // once the one reader left has read them for the last time (Reader::Consumed): the walk
  // frees the record behind it as its batches grow, so the two do not add up at the peak.
  // (Received in steps, the buffer is a window: the next step reuses their place.)
  // Those bytes are gone for every reader until they arrive again (Rewind) or Clear; appending
  // goes on as before.
  void Forget(size_t offset);

  size_t object_count() const { return objects_; }
  size_t ref_count() const { return refs_; }
  size_t bytes() const { return used_; }
  size_t reserved() const { return capacity_; }
  // How often Append had to grow the buffer since the last Clear (a reservation too short).
  size_t growths() const { return growths_; }
  // Every class met, in order of first appearance.
  const std::vector<uintptr_t>& classes() const { return classes_; }

  // The whole stream through a pipe and back (the record made in a copy-on-write child,
  // record_child.h): its bytes, classes, checkpoints and the state the next Append reads, so
  // that the receiver appends on as the sender would have. Send: false with *error when a
  // write failed. Receive: replaces this stream's objects (its buffer reused when large
  // enough); false with *error (the byte offset, what was expected, what came) on a short or
  // inconsistent stream, the stream then empty. Throws std::bad_alloc.
  // `at`: where the stream starts in its source, for the offsets in the error.
  bool Send(int fd, std::string* error) const;
  bool Receive(agent::ByteSource& in, std::string* error, uint64_t at = 0);
  // The same in steps, so that the receiver holds a window of the bytes, not all of them:
  // ReceiveHead takes what Send writes before the bytes (the stream then counts its objects,
  // its classes, but reads none), ReceiveMore the bytes from where the last step stopped to
  // the first object that starts `at_least` bytes on (or the end). A Reader stops where the
  // bytes received end (Next false) and goes on from there after the next ReceiveMore; Forget
  // says what it read, whose place the next step's bytes take (the buffer is a window).
  // Appending waits until every byte arrived. SendBytes sends the bytes once more; Rewind
  // makes the receiver take them again from the first (two passes over a record it never
  // holds whole), the objects appended meanwhile kept aside until then. A step moves the
  // bytes in the buffer: take it between objects (after an object's last Part). *offset
  // counts the source's bytes, for the errors. A stream received so is not sent on.
  bool SendBytes(int fd, std::string* error) const;
  bool ReceiveHead(agent::ByteSource& in, std::string* error, uint64_t* offset);
  bool ReceiveMore(agent::ByteSource& in, size_t at_least, uint64_t* offset, std::string* error);
  void Rewind();
  // Bytes of the record are still to arrive (ReceiveMore, after ReceiveHead or Rewind).
  bool arriving() const { return received_ < incoming_; }

  // Reads the objects back in order: all of them, or the part-th of `parts` slices of the
  // stream (cut at checkpoints, so that several threads can read it at once, each a slice).
  class Reader {
   public:
    explicit Reader(const RecordStream& stream);
    Reader(const RecordStream& stream, size_t part, size_t parts);
    // The next object into *o (its vectors reused), or false at the end. An object of more
    // than `most_refs` references comes without them (refs and slots empty, ref_count set):
    // Part then hands them over kRefChunk at a time (a million-element array needs no
    // million-entry vector; its references are read twice, once to reach its values).
    bool Next(StreamObject* o, size_t most_refs = SIZE_MAX);
    // The next part of the last object's references (Next without them) into o->refs and
    // o->slots; false when every one was given.
    bool Part(StreamObject* o);
    // Where the bytes this reader still reads start (an object given in parts is read again
    // from its references on, by Part): what RecordStream::Forget may give back.
    size_t Consumed() const;
    // The next object's id, and its references in order, handed to each(const uint64_t* refs,
    // size_t n) kRefChunk at most at a time (its slots, values and text stepped over: a
    // million-element array needs no million-entry vector); false at the end.
    template <typename Each>
    bool NextRefs(uint64_t* id, Each&& each) {
      const uint8_t* p;
      ObjectHeader h;
      if (!Header(&p, &h)) return false;
      *id = h.id;
      uint64_t previous = h.id;
      for (size_t from = 0; from < h.refs; from += kRefChunk) {
        const size_t n = h.refs - from < kRefChunk ? h.refs - from : kRefChunk;
        Refs(&p, h, from, n, &previous, chunk_, nullptr);
        each(static_cast<const uint64_t*>(chunk_), n);
      }
      Rest(p, h);
      return true;
    }
    static constexpr size_t kRefChunk = 1024;  // a multiple of the references' groups of 4

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
    // Reads n of the object's references, from the from-th on (a multiple of 4, where a group
    // starts), into refs and their slots into slots (stepped over when null); *previous is the
    // reference before them (the id for the first) and then the last one read, *p after them.
    void Refs(const uint8_t** p, const ObjectHeader& h, size_t from, size_t n, uint64_t* previous,
              uint64_t* refs, uint32_t* slots) const;
    // Reads the rest of the object at p (values, text); the reader then at the next one.
    void Rest(const uint8_t* p, const ObjectHeader& h);
    // Where this reader stops: its slice's end, or the stream's.
    const uint8_t* Limit() const;
    // Reads the object's values (as its flags say) into values_; *p then after them.
    void ReadValues(const uint8_t** p, uint64_t flags);

    const RecordStream& s_;
    size_t at_ = 0;
    size_t end_ = 0;  // SIZE_MAX: to the stream's end, objects appended meanwhile too
    uint64_t previous_id_ = 0;
    ObjectHeader shape_{};  // the last full header's (its flags without the object's own)
    bool shape_valid_ = false;
    std::vector<uint64_t> values_;  // the last object's
    // The object whose references Part hands over: its header, where its next part starts,
    // how many were given, the reference before them.
    ObjectHeader part_h_{};
    const uint8_t* part_at_ = nullptr;
    size_t part_from_ = 0;
    uint64_t part_previous_ = 0;
    uint64_t chunk_[kRefChunk];  // NextRefs' references
  };

 private:
  uint32_t ClassIndex(uintptr_t klass);
  // Where to write `bytes` more (at used_), the buffer grown if it has not that room.
  uint8_t* Room(size_t bytes);
  void Rehash(size_t capacity);
  // A buffer filled a window at a time, after the pause (ReceiveHead): advised small pages, so
  // that the window costs the 4 KiB pages it uses, not whole 2 MiB ones, and Rewind gives
  // back what the first pass left.
  static void SmallPages(uint8_t* data, size_t bytes);
  // Moves the bytes held into a new buffer of `bytes` (left untouched beyond them): those used,
  // less any given back (Forget) or still to arrive (ReceiveMore).
  void Reallocate(size_t bytes);
  void Unmap();

  uint8_t* data_ = nullptr;  // capacity_ bytes from HugePageAllocator
  size_t capacity_ = 0;
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
  // Forget's mark: the bytes before it were given back (whole pages), or, received in steps,
  // were read and are left for the next step's bytes to take their place.
  size_t forgotten_ = 0;
  // Received in steps (ReceiveHead): the first `incoming_` bytes come from a source, of which
  // `received_` are here; readers stop there until all are.
  size_t incoming_ = 0, received_ = 0;
  size_t readable() const { return received_ < incoming_ ? received_ : used_; }
  // The stream offset of data_[0]: 0, but for a stream received in steps, whose buffer holds a
  // window of it (ReceiveMore moves what the reader still needs to the front). And the
  // objects appended after the received bytes, aside while those come again (Rewind).
  size_t base_ = 0;
  std::vector<uint8_t> tail_;
  uint8_t* At(size_t offset) const { return data_ + (offset - base_); }
  size_t OffsetOf(const uint8_t* p) const { return base_ + static_cast<size_t>(p - data_); }
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
  // The previous object's values (its first value count; an object of its shape has as many).
  std::vector<uint64_t> previous_values_;
};

}  // namespace dotnet
}  // namespace xrpm
