// RecordStream: writing and reading the capture record's byte stream.
#include "record_stream.h"

#include <errno.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include "xrpm/agent/walk_recording.h"
#include "xrpm/protocol/column_codec.h"

namespace xrpm {
namespace dotnet {
namespace {

using protocol::PutVarint;  // stores 8 bytes at least: Room keeps kPutSlack spare
using protocol::UnZigZag;
using protocol::VarintLength;
using protocol::ZigZag;

// A difference of two addresses, divided by 8 when both are aligned (exact then: a shift).
inline int64_t AddressDelta(uint64_t to, uint64_t from, bool aligned) {
  const auto d = static_cast<int64_t>(to - from);
  return aligned ? d >> 3 : d;
}

constexpr size_t kFirstClassSlots = 1024;

// Where linear probing for `klass` starts in a table of mask + 1 slots (Fibonacci hashing of
// the class's address without its always-zero low bits).
inline size_t FirstClassSlot(uintptr_t klass, size_t mask) {
  return (static_cast<size_t>(klass) >> 3) * 0x9E3779B97F4A7C15ull & mask;
}
// The most bytes of an object's header, of one reference with its slot (and a group's tag
// byte), of one value.
constexpr size_t kHeaderMaxBytes = 5 * 10;
constexpr size_t kRefMaxBytes = 1 + 10 + 5;
constexpr size_t kValueMaxBytes = 10;
constexpr size_t kRunLength = 1024;  // references or values written per check for room
constexpr size_t kPutSlack = 8;      // PutVarint and PutRef write 8 and 4 bytes whatever they code
constexpr size_t kPageBytes = 4096;

// An object's flags (the header's first varint). Of an object of the previous one's shape:
constexpr uint64_t kSameShape = 1, kAligned = 2, kSameGrouped = 4, kSameValueDeltas = 8;
// Of any other: kAligned and these, and the value word (its values read: their count + 1, else
// 0) shifted by kValueWordShift; "grouped" is the reference count's low bit instead.
constexpr uint64_t kWireText = 4, kWireRun = 8;
constexpr unsigned kValueWordShift = 4;
// The reader's flags of either kind of object: kAligned and these, and the value count shifted
// by kValueCountShift.
constexpr uint64_t kGroupedRefs = 4, kHasText = 8, kSlotRun = 16, kValueDeltas = 32,
                   kValuesRead = 64;
constexpr unsigned kValueCountShift = 7;
constexpr uint32_t kNoSlotWord = 0xFFFFFFFFu;  // agent::kNoSlot: a reference of no known slot

// References are coded in groups of four, a tag byte of four 2-bit lengths before each group.
constexpr size_t kRefGroup = 4;

// The bytes z takes in a group, 1-4 (z < 2^32).
inline unsigned RefLength(uint64_t z) {
  return static_cast<unsigned>(63 - __builtin_clzll(z | 1)) / 8 + 1;
}

// The i-th reference's z when the object is aligned: its difference from the one before (the
// object's id for the first) in 8-byte units, zigzagged. Exact only when aligned.
inline uint64_t AlignedZ(const uint64_t* refs, size_t i, uint64_t id) {
  return ZigZag(static_cast<int64_t>(refs[i] - (i ? refs[i - 1] : id)) >> 3);
}

// Stores z's low 4 bytes at p, little-endian whatever the processor's order (a compiler joins
// the four stores into one where the order is little-endian); the caller advances by z's length.
inline void PutRef(uint8_t* p, uint64_t z) {
  p[0] = static_cast<uint8_t>(z);
  p[1] = static_cast<uint8_t>(z >> 8);
  p[2] = static_cast<uint8_t>(z >> 16);
  p[3] = static_cast<uint8_t>(z >> 24);
}

}  // namespace

uint32_t RecordStream::ClassIndex(uintptr_t klass) {
  if (klass == last_class_ && !classes_.empty()) return last_index_;
  if (keys_.empty()) Rehash(kFirstClassSlots);
  const size_t mask = keys_.size() - 1;
  size_t at = FirstClassSlot(klass, mask);
  while (indices_[at] != 0 && keys_[at] != klass) at = (at + 1) & mask;
  uint32_t index;
  if (indices_[at] != 0) {
    index = indices_[at] - 1;
  } else {
    index = static_cast<uint32_t>(classes_.size());
    classes_.push_back(klass);
    keys_[at] = klass;
    indices_[at] = index + 1;
    if (classes_.size() * 2 > keys_.size()) Rehash(keys_.size() * 2);
  }
  last_class_ = klass;
  last_index_ = index;
  return index;
}

void RecordStream::Rehash(size_t capacity) {
  keys_.assign(capacity, 0);
  indices_.assign(capacity, 0);
  const size_t mask = capacity - 1;
  for (size_t i = 0; i < classes_.size(); ++i) {
    size_t at = FirstClassSlot(classes_[i], mask);
    while (indices_[at] != 0) at = (at + 1) & mask;
    keys_[at] = classes_[i];
    indices_[at] = static_cast<uint32_t>(i + 1);
  }
}

RecordStream::~RecordStream() {
  Unmap();
}

void RecordStream::Unmap() {
  if (data_) HugePageAllocator<uint8_t>().deallocate(data_, capacity_);
  data_ = nullptr;
  capacity_ = 0;
}

void RecordStream::Reallocate(size_t bytes) {
  uint8_t* bigger = HugePageAllocator<uint8_t>().allocate(bytes);
  if (incoming_) SmallPages(bigger, bytes);  // received in steps (ReceiveHead): before the copy
  // The bytes still held: not those given back or left behind (Forget), nor those still to
  // arrive, whose pages would be written with zeros here and so cost memory before their time.
  const size_t from = std::max(forgotten_, base_);
  const size_t to = std::min(readable(), base_ + capacity_);
  if (to > from) std::memcpy(bigger + (from - base_), At(from), to - from);
  Unmap();
  data_ = bigger;
  capacity_ = bytes;
}

void RecordStream::Append(uint64_t id, uintptr_t klass, uint32_t size, bool values_read,
                          const uint64_t* refs, const uint32_t* slots, size_t ref_count,
                          const uint64_t* values, size_t value_count, const uint16_t* text,
                          size_t text_units) {
  if ((objects_ & (kCheckpointObjects - 1)) == 0) {
    checkpoints_.push_back({used_, previous_id_});
    shape_valid_ = false;  // a slice's reader starts here, with no previous shape
  }
  uint64_t low_bits = id | previous_id_;
  // The references' z as if aligned (exact when they are), ORed, and the bytes groups would
  // save on them against varints.
  uint64_t zs = 0;
  size_t saving = 0;
  // Slots in a run: slots[i] - i the same for every i (kNoSlot breaks it: it is followed by 0).
  // No slots at all: 0, 1, 2, ... (an array's elements, none null).
  const uint32_t first_slot = slots ? slots[0] : 0;
  bool run = ref_count > 0 && first_slot != kNoSlotWord;
  for (size_t i = 0; i < ref_count; ++i) {
    low_bits |= refs[i];
    const uint64_t z = AlignedZ(refs, i, id);
    zs |= z;
    saving += VarintLength(z) - RefLength(z);  // 0 or 1 for z < 2^32
    if (slots) run &= slots[i] - static_cast<uint32_t>(i) == first_slot && slots[i] != kNoSlotWord;
  }
  const bool aligned = (low_bits & 7) == 0;
  // Groups where they are shorter (far references; a tag byte costs more than it saves on
  // near ones), for aligned references of a z below 2^32.
  const bool grouped =
      aligned && (zs >> 32) == 0 && saving > (ref_count + kRefGroup - 1) / kRefGroup;
  if (!values_read) value_count = 0;  // never any: their fields were not read
  // Room is made part by part, for each part's most bytes: a 1 M-element array's worst case
  // (16 MB) must not grow a buffer that its actual bytes fit in.
  const uint32_t class_index = ClassIndex(klass);
  const Shape shape{class_index, size, run ? first_slot : 0, ref_count,
                    value_count, run,  values_read};
  const bool same = shape_valid_ && text_units == 0 && shape.class_index == shape_.class_index &&
                    shape.size == shape_.size && shape.refs == shape_.refs &&
                    shape.run == shape_.run && shape.first_slot == shape_.first_slot &&
                    shape.values == shape_.values && shape.values_read == shape_.values_read;
  // An object of the previous one's shape codes its values as differences from that one's
  // where that is shorter (a counter, an index, a flag or a float the same in each).
  bool deltas = false;
  if (same && value_count) {
    size_t raw_bytes = 0, delta_bytes = 0;
    for (size_t i = 0; i < value_count; ++i) {
      raw_bytes += VarintLength(values[i]);
      delta_bytes += VarintLength(ZigZag(static_cast<int64_t>(values[i] - previous_values_[i])));
    }
    deltas = delta_bytes < raw_bytes;
  }
  uint8_t* p = Room(kHeaderMaxBytes + kValueMaxBytes);
  if (same) {
    p = PutVarint(p, kSameShape | (aligned ? kAligned : 0) | (grouped ? kSameGrouped : 0) |
                         (deltas ? kSameValueDeltas : 0));
    p = PutVarint(p, ZigZag(AddressDelta(id, previous_id_, aligned)));
  } else {
    const uint64_t value_word = values_read ? uint64_t{value_count} + 1 : 0;
    p = PutVarint(p, (value_word << kValueWordShift) | (run ? kWireRun : 0) |
                         (text_units ? kWireText : 0) | (aligned ? kAligned : 0));
    p = PutVarint(p, ZigZag(AddressDelta(id, previous_id_, aligned)));
    p = PutVarint(p, class_index);
    p = PutVarint(p, size);
    p = PutVarint(p, uint64_t{ref_count} << 1 | (grouped ? 1 : 0));
    if (run) p = PutVarint(p, first_slot);
    shape_ = shape;
    shape_valid_ = text_units == 0;
  }
  if (grouped) {  // aligned: z is the difference shifted by 3
    for (size_t g = 0; g < ref_count; g += kRefGroup) {
      if ((g & (kRunLength - 1)) == 0) {
        used_ = OffsetOf(p);
        p = Room(kRunLength * kRefMaxBytes);
      }
      uint8_t* const tag = p++;
      unsigned lengths = 0;
      const size_t end = std::min(ref_count, g + kRefGroup);
      for (size_t i = g; i < end; ++i) {
        const uint64_t z = AlignedZ(refs, i, id);
        const unsigned length = RefLength(z);
        PutRef(p, z);
        p += length;
        lengths |= (length - 1) << (2 * (i - g));
        if (!run) p = PutVarint(p, static_cast<uint32_t>(slots[i] + 1u));
      }
      *tag = static_cast<uint8_t>(lengths);
    }
  } else {
    for (size_t i = 0; i < ref_count; ++i) {
      if ((i & (kRunLength - 1)) == 0) {
        used_ = OffsetOf(p);
        p = Room(kRunLength * kRefMaxBytes);
      }
      p = PutVarint(p, ZigZag(AddressDelta(refs[i], i ? refs[i - 1] : id, aligned)));
      if (!run) p = PutVarint(p, static_cast<uint32_t>(slots[i] + 1u));
    }
  }
  // The values kept for the next object (at its largest: no call per object).
  if (previous_values_.size() < value_count) previous_values_.resize(value_count);
  uint64_t* const previous = previous_values_.data();
  for (size_t i = 0; i < value_count; ++i) {
    if ((i & (kRunLength - 1)) == 0) {
      used_ = OffsetOf(p);
      p = Room(kRunLength * kValueMaxBytes);
    }
    p = PutVarint(p, deltas ? ZigZag(static_cast<int64_t>(values[i] - previous[i])) : values[i]);
    previous[i] = values[i];
  }
  if (text_units) {
    used_ = OffsetOf(p);
    p = Room(kValueMaxBytes + text_units * 2);
    // Text of units below 0x80 only (names, identifiers, most of a game's strings): a byte each.
    uint16_t wide = 0;
    for (size_t i = 0; i < text_units; ++i) wide |= text[i];
    const bool narrow = wide < 0x80;
    p = PutVarint(p, uint64_t{text_units} << 1 | (narrow ? 1 : 0));
    if (narrow) {
      for (size_t i = 0; i < text_units; ++i) p[i] = static_cast<uint8_t>(text[i]);
      p += text_units;
    } else {
      std::memcpy(p, text, text_units * 2);
      p += text_units * 2;
    }
  }
  used_ = OffsetOf(p);
  previous_id_ = id;
  ++objects_;
  refs_ += ref_count;
}

uint8_t* RecordStream::Room(size_t bytes) {
  bytes += kPutSlack;
  if (used_ - base_ + bytes > capacity_) {
    Reallocate(std::max(used_ - base_ + bytes, capacity_ + capacity_ / 2 + 4096));
    ++growths_;
  }
  return At(used_);
}

void RecordStream::Reserve(size_t bytes, size_t touched, size_t classes) {
  if (capacity_ < bytes) Reallocate(bytes);
  // A write per page maps it now, not in the pause (a huge page at its first write).
  for (size_t at = used_ - base_; at < std::min(touched, capacity_); at += kPageBytes)
    data_[at] = 0;
  size_t slots = keys_.empty() ? kFirstClassSlots : keys_.size();
  while (slots < 2 * classes) slots *= 2;
  if (slots > keys_.size()) Rehash(slots);
  classes_.reserve(classes);
  checkpoints_.reserve(bytes / kCheckpointObjects + 1);  // an object takes a byte at least
}

void RecordStream::Clear() {
  used_ = 0;
  forgotten_ = received_ = incoming_ = base_ = 0;
  tail_ = std::vector<uint8_t>();
  objects_ = refs_ = growths_ = 0;
  previous_id_ = 0;
  shape_valid_ = false;
  checkpoints_.clear();
  classes_.clear();
  std::fill(indices_.begin(), indices_.end(), 0);
  last_class_ = 0;
  last_index_ = 0;
}

void RecordStream::Release() {
  Clear();
  Unmap();
}

void RecordStream::Forget(size_t offset) {
  if (incoming_ != 0) {  // received in steps: ReceiveMore moves what is left to the front
    forgotten_ = std::max(forgotten_, std::min(offset, readable()));
    return;
  }
  const size_t end = std::min(offset, readable()) & ~(kPageBytes - 1);
  // Only the huge-page allocator's own mappings are page-aligned and advised (a buffer under
  // 2 MiB comes from operator new: kept whole).
  if (end <= forgotten_ || capacity_ < kHugePageBytes) return;
  // The pages read zero when touched again; the mapping stays for the next record.
  madvise(At(forgotten_), end - forgotten_, MADV_DONTNEED);
  forgotten_ = end;
}

namespace {

// Reads a varint at *p, never past `end` (the stream is this process's own: a varint cut
// short, which only a bug would leave, reads as 0 and ends the stream).
inline uint64_t ReadVarint(const uint8_t** at, const uint8_t* end) {
  uint64_t v;
  if (protocol::GetVarint(at, end, &v)) return v;
  *at = end;
  return 0;
}

// Steps over a varint at *p, never past `end`.
inline void SkipVarint(const uint8_t** at, const uint8_t* end) {
  const uint8_t* p = *at;
  while (p < end && (*p & 0x80)) ++p;
  *at = p < end ? p + 1 : end;
}

// An address difference read back: times 8 when aligned, in unsigned arithmetic (a damaged
// stream's difference may be any 64-bit value; the result wraps, it is never undefined).
inline uint64_t AddressStep(int64_t d, bool aligned) {
  return aligned ? static_cast<uint64_t>(d) << 3 : static_cast<uint64_t>(d);
}

// Reads a reference's z of `length` bytes (1-4) at *p, never past `end`.
inline uint64_t ReadRef(const uint8_t** at, const uint8_t* end, unsigned length) {
  const uint8_t* p = *at;
  uint64_t z = 0;
  if (end - p >= 4) {  // four bytes at once, the bytes beyond the length masked off
    z = uint64_t{p[0]} | uint64_t{p[1]} << 8 | uint64_t{p[2]} << 16 | uint64_t{p[3]} << 24;
    z &= 0xFFFFFFFFu >> (32 - 8 * length);
    *at = p + length;
    return z;
  }
  for (unsigned i = 0; i < length && p < end; ++i) z |= uint64_t{*p++} << (8 * i);
  *at = p;
  return z;
}

// Reads n references of an object (coded as `flags` say; the first starts a group) into refs,
// their slots into slots (stepped over when null; none in a run), from *previous (the one
// before them, or the object's id) on; *previous is then the last one.
template <bool kRun>
const uint8_t* ReadRefs(const uint8_t* p, const uint8_t* end, uint64_t flags, size_t n,
                        uint64_t* last, uint64_t* refs, uint32_t* slots) {
  uint64_t previous = *last;
  const bool aligned = flags & kAligned, grouped = flags & kGroupedRefs;
  unsigned tag = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t z;
    if (!grouped) {
      z = ReadVarint(&p, end);
    } else {
      const size_t in_group = i & (kRefGroup - 1);
      if (in_group == 0) tag = p < end ? *p++ : 0;
      z = ReadRef(&p, end, ((tag >> (2 * in_group)) & 3) + 1);
    }
    previous += AddressStep(UnZigZag(z), aligned);
    refs[i] = previous;
    if (!kRun) {
      if (slots)
        slots[i] = static_cast<uint32_t>(ReadVarint(&p, end)) - 1u;
      else
        SkipVarint(&p, end);
    }
  }
  *last = previous;
  return p;
}

}  // namespace

RecordStream::Reader::Reader(const RecordStream& stream) : s_(stream), end_(SIZE_MAX) {}

RecordStream::Reader::Reader(const RecordStream& stream, size_t part, size_t parts) : s_(stream) {
  const std::vector<Checkpoint>& c = stream.checkpoints_;
  if (c.empty()) {  // nothing appended yet: the last slice reads on to the end
    if (part + 1 == parts) end_ = SIZE_MAX;
    return;
  }
  const size_t first = c.size() * part / parts, last = c.size() * (part + 1) / parts;
  if (first >= last) return;  // an empty slice
  at_ = c[first].at;
  previous_id_ = c[first].previous_id;
  end_ = last < c.size() ? c[last].at : SIZE_MAX;
}

bool RecordStream::Reader::Header(const uint8_t** at, ObjectHeader* h) {
  const uint8_t* p = s_.At(at_);
  const uint8_t* const end = Limit();
  if (p >= end) return false;
  const uint64_t flags = ReadVarint(&p, end);
  const bool aligned = flags & kAligned;
  const uint64_t id = previous_id_ + AddressStep(UnZigZag(ReadVarint(&p, end)), aligned);
  previous_id_ = id;
  uint64_t refs;
  if (flags & kSameShape) {
    if (!shape_valid_) return false;  // only a bug writes that: the stream ends here
    *h = shape_;
    h->flags |= (flags & kAligned) | ((flags & kSameGrouped) ? kGroupedRefs : 0) |
                ((flags & kSameValueDeltas) ? kValueDeltas : 0);
    refs = shape_.refs;
  } else {
    const uint64_t value_word = flags >> kValueWordShift;
    h->class_index = static_cast<uint32_t>(ReadVarint(&p, end));
    h->size = static_cast<uint32_t>(ReadVarint(&p, end));
    const uint64_t refs_word = ReadVarint(&p, end);
    refs = refs_word >> 1;
    h->flags = (flags & kAligned) | ((refs_word & 1) ? kGroupedRefs : 0) |
               ((flags & kWireText) ? kHasText : 0) | ((flags & kWireRun) ? kSlotRun : 0) |
               (value_word ? kValuesRead | (value_word - 1) << kValueCountShift : 0);
    h->first_slot = (flags & kWireRun) ? static_cast<uint32_t>(ReadVarint(&p, end)) : 0;
    shape_ = *h;
    shape_.refs = static_cast<size_t>(refs);
    shape_.flags = h->flags & ~(kAligned | kGroupedRefs | kHasText);
    shape_valid_ = !(flags & kWireText);
  }
  h->id = id;
  // Bounded by the bytes left (a reference takes 1 at least in a run of slots, else 2 with its
  // slot), whatever they say.
  h->refs = std::min<size_t>(static_cast<size_t>(refs),
                             static_cast<size_t>(end - p) / ((h->flags & kSlotRun) ? 1 : 2));
  *at = p;
  return true;
}

const uint8_t* RecordStream::Reader::Limit() const {
  return s_.At(std::min(end_, s_.readable()));
}

void RecordStream::Reader::Refs(const uint8_t** at, const ObjectHeader& h, size_t from, size_t n,
                                uint64_t* previous, uint64_t* refs, uint32_t* slots) const {
  const uint8_t* const end = Limit();
  if (h.flags & kSlotRun) {
    *at = ReadRefs<true>(*at, end, h.flags, n, previous, refs, nullptr);
    if (slots)
      for (size_t i = 0; i < n; ++i) slots[i] = h.first_slot + static_cast<uint32_t>(from + i);
  } else {
    *at = ReadRefs<false>(*at, end, h.flags, n, previous, refs, slots);
  }
}

void RecordStream::Reader::Rest(const uint8_t* p, const ObjectHeader& h) {
  const uint8_t* const end = Limit();
  ReadValues(&p, h.flags);  // the next object's may be differences from these
  if (h.flags & kHasText) {
    const uint64_t word = ReadVarint(&p, end);
    const size_t unit_bytes = (word & 1) ? 1 : 2;
    const size_t units =
        std::min<size_t>(static_cast<size_t>(word >> 1), static_cast<size_t>(end - p) / unit_bytes);
    p += units * unit_bytes;
  }
  at_ = s_.OffsetOf(p);
}

void RecordStream::Reader::ReadValues(const uint8_t** at, uint64_t flags) {
  const uint8_t* p = *at;
  const uint8_t* const end = Limit();
  const size_t n = std::min<size_t>(static_cast<size_t>(flags >> kValueCountShift),
                                    static_cast<size_t>(end - p));
  const bool deltas = flags & kValueDeltas;
  values_.resize(n);  // differences: from the previous object's, of the same count but for a bug
  for (uint64_t& v : values_) {
    const uint64_t word = ReadVarint(&p, end);
    v = deltas ? v + static_cast<uint64_t>(UnZigZag(word)) : word;
  }
  *at = p;
}

bool RecordStream::Reader::Next(StreamObject* o, size_t most_refs) {
  const uint8_t* p;
  ObjectHeader h;
  if (!Header(&p, &h)) return false;
  const uint8_t* const end = Limit();
  o->id = h.id;
  o->class_index = h.class_index;
  o->size = h.size;
  o->klass = o->class_index < s_.classes_.size() ? s_.classes_[o->class_index] : 0;
  o->values_read = h.flags & kValuesRead;
  o->ref_count = h.refs;
  uint64_t previous = h.id;
  if (h.refs > most_refs) {
    // In parts: stepped over now (their values come after them), read again by Part.
    part_h_ = h;
    part_at_ = p;
    part_from_ = 0;
    part_previous_ = h.id;
    for (size_t from = 0; from < h.refs; from += kRefChunk)
      Refs(&p, h, from, std::min(kRefChunk, h.refs - from), &previous, chunk_, nullptr);
    o->refs.clear();
    o->slots.clear();
  } else {
    part_at_ = nullptr;
    o->refs.resize(h.refs);
    o->slots.resize(h.refs);
    Refs(&p, h, 0, h.refs, &previous, o->refs.data(), o->slots.data());
  }
  ReadValues(&p, h.flags);
  o->values = values_;
  o->text.clear();
  if (h.flags & kHasText) {
    const uint64_t word = ReadVarint(&p, end);
    const bool narrow = word & 1;
    const size_t units = std::min<size_t>(static_cast<size_t>(word >> 1),
                                          static_cast<size_t>(end - p) / (narrow ? 1 : 2));
    o->text.resize(units);
    if (narrow) {
      for (size_t i = 0; i < units; ++i) o->text[i] = p[i];
      p += units;
    } else {
      if (units) std::memcpy(o->text.data(), p, units * 2);
      p += units * 2;
    }
  }
  at_ = s_.OffsetOf(p);
  return true;
}

size_t RecordStream::Reader::Consumed() const {
  return part_at_ && part_from_ < part_h_.refs ? s_.OffsetOf(part_at_) : at_;
}

bool RecordStream::Reader::Part(StreamObject* o) {
  if (!part_at_ || part_from_ >= part_h_.refs) return false;
  const size_t n = std::min(kRefChunk, part_h_.refs - part_from_);
  o->refs.resize(n);
  o->slots.resize(n);
  Refs(&part_at_, part_h_, part_from_, n, &part_previous_, o->refs.data(), o->slots.data());
  part_from_ += n;
  return true;
}

// ---- the stream through a pipe (Send, Receive) ----
//
// Layout, every integer in this machine's byte order (both ends are one program):
//   u32 magic "XRS1", then u64 each: bytes used, objects, references, growths, previous id,
//   last class, last index, classes, checkpoints, previous values; the shape: u32 class index,
//   size, first slot, u64 references, values, u8 run, values read, valid; then the classes
//   (u64 each), the checkpoints (u64 at, u64 previous id), the previous values (u64 each) and
//   the bytes used.

namespace {

constexpr uint32_t kTransferMagic = 0x31535258;  // "XRS1"

bool WriteAll(int fd, const void* data, size_t n, std::string* error) {
  if (agent::WriteFully(fd, data, n)) return true;
  *error = std::string("writing the record: ") + std::strerror(errno);
  return false;
}

// Reads n bytes, counting them in *offset; false with *error at the end or an error.
bool ReadAll(agent::ByteSource& in, void* data, size_t n, uint64_t* offset, const char* what,
             std::string* error) {
  const uint64_t at = *offset;
  if (agent::ReadFully(in, data, n, offset)) return true;
  const std::string error_text = in.error();
  *error = "the record at byte " + std::to_string(*offset) + ": expected " +
           std::to_string(n - (*offset - at)) + " more bytes of " + what + ", found " +
           (error_text.empty() ? std::string("the end of the stream") : error_text);
  return false;
}

// Reads `count` elements into *v, growing it as they arrive (a header's count alone never
// allocates: memory follows the bytes actually received).
template <typename T>
bool ReadArray(agent::ByteSource& in, std::vector<T>* v, uint64_t count, uint64_t* offset,
               const char* what, std::string* error) {
  constexpr uint64_t kStep = 65536;
  v->clear();
  for (uint64_t have = 0; have < count;) {
    const uint64_t n = std::min(count - have, kStep);
    v->resize(static_cast<size_t>(have + n));
    if (!ReadAll(in, v->data() + have, static_cast<size_t>(n) * sizeof(T), offset, what, error))
      return false;
    have += n;
  }
  return true;
}

struct TransferHeader {
  uint32_t magic;
  uint32_t shape_class_index, shape_size, shape_first_slot;
  uint64_t used, objects, refs, growths, previous_id, last_class, last_index, classes, checkpoints,
      previous_values, shape_refs, shape_values;
  uint8_t shape_run, shape_values_read, shape_valid, pad[5];
};

}  // namespace

bool RecordStream::Send(int fd, std::string* error) const {
  if (incoming_ != 0) {  // a window of the stream, not the stream
    *error = "a record received in steps is not sent on";
    return false;
  }
  TransferHeader h{};
  h.magic = kTransferMagic;
  h.used = used_;
  h.objects = objects_;
  h.refs = refs_;
  h.growths = growths_;
  h.previous_id = previous_id_;
  h.last_class = last_class_;
  h.last_index = last_index_;
  h.classes = classes_.size();
  h.checkpoints = checkpoints_.size();
  h.previous_values = previous_values_.size();
  h.shape_class_index = shape_.class_index;
  h.shape_size = shape_.size;
  h.shape_first_slot = shape_.first_slot;
  h.shape_refs = shape_.refs;
  h.shape_values = shape_.values;
  h.shape_run = shape_.run;
  h.shape_values_read = shape_.values_read;
  h.shape_valid = shape_valid_;
  static_assert(sizeof(uintptr_t) == sizeof(uint64_t) && sizeof(size_t) == sizeof(uint64_t),
                "a 64-bit process");
  return WriteAll(fd, &h, sizeof h, error) &&
         WriteAll(fd, classes_.data(), classes_.size() * sizeof(uintptr_t), error) &&
         WriteAll(fd, checkpoints_.data(), checkpoints_.size() * sizeof(Checkpoint), error) &&
         WriteAll(fd, previous_values_.data(), previous_values_.size() * sizeof(uint64_t), error) &&
         WriteAll(fd, data_, used_, error);
}

bool RecordStream::SendBytes(int fd, std::string* error) const {
  if (incoming_ != 0) {  // a window of the stream, not the stream
    *error = "a record received in steps is not sent on";
    return false;
  }
  return WriteAll(fd, data_, used_, error);
}

bool RecordStream::Receive(agent::ByteSource& in, std::string* error, uint64_t at) {
  uint64_t offset = at;
  return ReceiveHead(in, error, &offset) && ReceiveMore(in, SIZE_MAX, &offset, error);
}

bool RecordStream::ReceiveHead(agent::ByteSource& in, std::string* error, uint64_t* offset) {
  Clear();
  const uint64_t at = *offset;
  TransferHeader h{};
  if (!ReadAll(in, &h, sizeof h, offset, "its header", error)) return false;
  // What the counts must agree on: a checkpoint per 65,536 objects, each inside the bytes; the
  // last class and the shape's class among the classes; a class per object at most.
  const uint64_t checkpoints = (h.objects + kCheckpointObjects - 1) / kCheckpointObjects;
  const char* wrong = nullptr;
  if (h.magic != kTransferMagic)
    wrong = "the magic XRS1";
  else if (h.checkpoints != checkpoints)
    wrong = "a checkpoint per 65,536 objects";
  else if (h.classes > h.objects || (h.objects != 0 && h.classes == 0))
    wrong = "at least one class and at most one per object";
  else if (h.classes != 0 && (h.last_index >= h.classes || h.shape_class_index >= h.classes))
    wrong = "the last class among the classes";
  else if (h.used > (uint64_t{1} << 40) || h.previous_values > (uint64_t{1} << 32))
    wrong = "sizes below 1 TiB of record";
  else if (h.used < h.objects)
    wrong = "a byte per object at least";
  if (wrong) {
    *error = "the record at byte " + std::to_string(at) + ": expected " + wrong + ", found " +
             (h.magic != kTransferMagic
                  ? "magic " + std::to_string(h.magic)
                  : std::to_string(h.objects) + " objects, " + std::to_string(h.classes) +
                        " classes, " + std::to_string(h.checkpoints) + " checkpoints, " +
                        std::to_string(h.used) + " bytes");
    return false;
  }
  if (!ReadArray(in, &classes_, h.classes, offset, "classes", error) ||
      !ReadArray(in, &checkpoints_, h.checkpoints, offset, "checkpoints", error) ||
      !ReadArray(in, &previous_values_, h.previous_values, offset, "values", error)) {
    Clear();
    return false;
  }
  if (!classes_.empty() && classes_[h.last_index] != h.last_class) {
    *error = "the record at byte " + std::to_string(at) + ": expected the last class " +
             std::to_string(h.last_class) + " at index " + std::to_string(h.last_index) +
             ", found " + std::to_string(classes_[h.last_index]);
    Clear();
    return false;
  }
  // Ascending and inside the bytes: where ReceiveMore may stop (an object's start).
  for (size_t i = 0; i < checkpoints_.size(); ++i)
    if (checkpoints_[i].at >= h.used || (i > 0 && checkpoints_[i].at <= checkpoints_[i - 1].at)) {
      *error = "the record at byte " + std::to_string(at) +
               ": expected ascending checkpoints inside its " + std::to_string(h.used) +
               " bytes, found one at " + std::to_string(checkpoints_[i].at);
      Clear();
      return false;
    }
  used_ = h.used;
  incoming_ = h.used;
  received_ = 0;
  SmallPages(data_, capacity_);
  objects_ = h.objects;
  refs_ = h.refs;
  growths_ = h.growths;
  previous_id_ = h.previous_id;
  last_class_ = h.last_class;
  last_index_ = static_cast<uint32_t>(h.last_index);
  shape_ = Shape{h.shape_class_index, h.shape_size,     h.shape_first_slot,      h.shape_refs,
                 h.shape_values,      h.shape_run != 0, h.shape_values_read != 0};
  shape_valid_ = h.shape_valid != 0 && h.shape_values <= previous_values_.size();
  size_t slots = kFirstClassSlots;
  while (slots < classes_.size() * 2 + 2) slots *= 2;
  Rehash(slots);
  return true;
}

bool RecordStream::ReceiveMore(agent::ByteSource& in, size_t at_least, uint64_t* offset,
                               std::string* error) {
  if (received_ >= incoming_) return true;
  // What the reader left behind (Forget) makes room: the rest moves to the buffer's front,
  // whose pages are in memory already (a window's pages fault in once, not once per step).
  const size_t keep = std::max(forgotten_, base_);
  if (keep > base_) {
    std::memmove(data_, At(keep), received_ - keep);
    base_ = keep;
  }
  // To an object's start: the first checkpoint at or after the bytes asked for, or the end.
  const size_t want = at_least > incoming_ - received_ ? incoming_ : received_ + at_least;
  auto next = std::lower_bound(checkpoints_.begin(), checkpoints_.end(), want,
                               [](const Checkpoint& c, size_t at) { return c.at < at; });
  // (Checkpoints at or past incoming_ are those of objects appended after the bytes arrived.)
  const size_t stop = next == checkpoints_.end() || next->at >= incoming_ ? incoming_ : next->at;
  while (received_ < stop) {
    // The buffer grows as the bytes arrive (a header's size alone never maps memory); the
    // receiver's reservation normally holds them.
    const size_t n = std::min<size_t>(stop - received_, size_t{1} << 20);
    // The last part makes room for the objects appended after the bytes too (tail_).
    const size_t all = std::max(incoming_, used_);
    const size_t end = received_ + n == incoming_ ? all : received_ + n;
    if (capacity_ < end - base_ + kPutSlack)
      Reallocate(std::min(all - base_, std::max(2 * capacity_, end - base_)) + kPutSlack);
    if (!ReadAll(in, At(received_), n, offset, "objects", error)) {
      Clear();
      return false;
    }
    received_ += n;
  }
  if (received_ == incoming_ && !tail_.empty()) {  // the objects appended after them, back
    std::memcpy(At(incoming_), tail_.data(), tail_.size());
    tail_ = std::vector<uint8_t>();
  }
  return true;
}

void RecordStream::SmallPages(uint8_t* data, size_t bytes) {
#ifdef MADV_NOHUGEPAGE
  if (bytes >= kHugePageBytes) madvise(data, bytes, MADV_NOHUGEPAGE);  // our own mappings only
#endif
}

void RecordStream::Rewind() {
  // The objects appended after the bytes wait aside while the bytes come again through the
  // same window, from the first (once: a second Rewind keeps them aside).
  if (!arriving() && used_ > incoming_) tail_.assign(At(incoming_), At(used_));
  received_ = 0;
  forgotten_ = 0;
  base_ = 0;
  // What the buffer holds is stale: given back, so that only the window is in memory (a
  // record taken whole for its first pass held all of it).
  if (capacity_ >= kHugePageBytes) madvise(data_, capacity_, MADV_DONTNEED);
}

}  // namespace dotnet
}  // namespace xrpm
