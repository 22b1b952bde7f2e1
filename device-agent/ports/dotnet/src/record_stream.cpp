// RecordStream: writing and reading the capture record's byte stream.
#include "record_stream.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include "xrpm/protocol/column_codec.h"

namespace xrpm {
namespace dotnet {
namespace {

using protocol::PutVarint;  // stores 8 bytes at least: Room keeps kPutSlack spare
using protocol::UnZigZag;
using protocol::ZigZag;

// A difference of two addresses, divided by 8 when both are aligned (exact then).
inline int64_t AddressDelta(uint64_t to, uint64_t from, bool aligned) {
  const auto d = static_cast<int64_t>(to - from);
  return aligned ? d / 8 : d;
}

constexpr size_t kFirstClassSlots = 1024;

// Where linear probing for `klass` starts in a table of mask + 1 slots (Fibonacci hashing of
// the class's address without its always-zero low bits).
inline size_t FirstClassSlot(uintptr_t klass, size_t mask) {
  return (static_cast<size_t>(klass) >> 3) * 0x9E3779B97F4A7C15ull & mask;
}
// The most bytes of an object's header, of one reference with its slot, of one value.
constexpr size_t kHeaderMaxBytes = 5 * 10;
constexpr size_t kRefMaxBytes = 10 + 5;
constexpr size_t kValueMaxBytes = 10;
constexpr size_t kRunLength = 1024;  // references or values written per check for room
constexpr size_t kPutSlack = 8;      // PutVarint writes 8 bytes whatever the varint's length

// An object's flags (the header's first varint).
constexpr uint64_t kValuesRead = 1, kAligned = 2, kHasText = 4, kSlotRun = 8, kSameShape = 16;
constexpr unsigned kValueCountShift = 5;
constexpr uint32_t kNoSlotWord = 0xFFFFFFFFu;  // agent::kNoSlot: a reference of no known slot

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

void RecordStream::Reallocate(size_t bytes) {
  RecordVector<uint8_t> bigger;
  bigger.resize(bytes);  // writes every byte: its pages are mapped now
  if (used_) std::memcpy(bigger.data(), buffer_.data(), used_);
  buffer_.swap(bigger);
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
  // Slots in a run: slots[i] - i the same for every i (kNoSlot breaks it: it is followed by 0).
  bool run = ref_count > 0 && slots[0] != kNoSlotWord;
  for (size_t i = 0; i < ref_count; ++i) {
    low_bits |= refs[i];
    run &= slots[i] - static_cast<uint32_t>(i) == slots[0] && slots[i] != kNoSlotWord;
  }
  const bool aligned = (low_bits & 7) == 0;
  // Room is made part by part, for each part's most bytes: a 1 M-element array's worst case
  // (15 MB) must not grow a buffer that its actual bytes fit in.
  const uint32_t class_index = ClassIndex(klass);
  const Shape shape{class_index, size, run ? slots[0] : 0, ref_count,
                    value_count, run,  values_read};
  const bool same = shape_valid_ && text_units == 0 && shape.class_index == shape_.class_index &&
                    shape.size == shape_.size && shape.refs == shape_.refs &&
                    shape.run == shape_.run && shape.first_slot == shape_.first_slot &&
                    shape.values == shape_.values && shape.values_read == shape_.values_read;
  uint8_t* p = Room(kHeaderMaxBytes + kValueMaxBytes);
  if (same) {
    p = PutVarint(p, kSameShape | (aligned ? kAligned : 0));
    p = PutVarint(p, ZigZag(AddressDelta(id, previous_id_, aligned)));
  } else {
    p = PutVarint(p, (static_cast<uint64_t>(value_count) << kValueCountShift) |
                         (run ? kSlotRun : 0) | (text_units ? kHasText : 0) |
                         (aligned ? kAligned : 0) | (values_read ? kValuesRead : 0));
    p = PutVarint(p, ZigZag(AddressDelta(id, previous_id_, aligned)));
    p = PutVarint(p, class_index);
    p = PutVarint(p, size);
    p = PutVarint(p, ref_count);
    if (run) p = PutVarint(p, slots[0]);
    shape_ = shape;
    shape_valid_ = text_units == 0;
  }
  for (size_t i = 0; i < ref_count; ++i) {
    if ((i & (kRunLength - 1)) == 0) {
      used_ = static_cast<size_t>(p - buffer_.data());
      p = Room(kRunLength * kRefMaxBytes);
    }
    p = PutVarint(p, ZigZag(AddressDelta(refs[i], i ? refs[i - 1] : id, aligned)));
    if (!run) p = PutVarint(p, static_cast<uint32_t>(slots[i] + 1u));
  }
  for (size_t i = 0; i < value_count; ++i) {
    if ((i & (kRunLength - 1)) == 0) {
      used_ = static_cast<size_t>(p - buffer_.data());
      p = Room(kRunLength * kValueMaxBytes);
    }
    p = PutVarint(p, values[i]);
  }
  if (text_units) {
    used_ = static_cast<size_t>(p - buffer_.data());
    p = Room(kValueMaxBytes + text_units * 2);
    p = PutVarint(p, text_units);
    std::memcpy(p, text, text_units * 2);
    p += text_units * 2;
  }
  used_ = static_cast<size_t>(p - buffer_.data());
  previous_id_ = id;
  ++objects_;
  refs_ += ref_count;
}

uint8_t* RecordStream::Room(size_t bytes) {
  bytes += kPutSlack;
  if (used_ + bytes > buffer_.size()) {
    Reallocate(std::max(used_ + bytes, buffer_.size() + buffer_.size() / 2 + 4096));
    ++growths_;
  }
  return buffer_.data() + used_;
}

void RecordStream::Reserve(size_t bytes, size_t classes) {
  if (buffer_.size() < bytes) Reallocate(bytes);  // mapped now, not in the pause
  size_t slots = keys_.empty() ? kFirstClassSlots : keys_.size();
  while (slots < 2 * classes) slots *= 2;
  if (slots > keys_.size()) Rehash(slots);
  classes_.reserve(classes);
  checkpoints_.reserve(bytes / kCheckpointObjects + 1);  // an object takes a byte at least
}

void RecordStream::Clear() {
  used_ = 0;
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
  RecordVector<uint8_t>().swap(buffer_);
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
  const uint8_t* p = s_.buffer_.data() + at_;
  const uint8_t* const end = Limit();
  if (p >= end) return false;
  const uint64_t flags = ReadVarint(&p, end);
  const bool aligned = flags & kAligned;
  const int64_t id_delta = UnZigZag(ReadVarint(&p, end));
  const uint64_t id = previous_id_ + static_cast<uint64_t>(aligned ? id_delta * 8 : id_delta);
  previous_id_ = id;
  uint64_t refs;
  if (flags & kSameShape) {
    if (!shape_valid_) return false;  // only a bug writes that: the stream ends here
    *h = shape_;
    h->flags |= flags;
    refs = shape_.refs;
  } else {
    h->flags = flags;
    h->class_index = static_cast<uint32_t>(ReadVarint(&p, end));
    h->size = static_cast<uint32_t>(ReadVarint(&p, end));
    refs = ReadVarint(&p, end);
    h->first_slot = (flags & kSlotRun) ? static_cast<uint32_t>(ReadVarint(&p, end)) : 0;
    shape_ = *h;
    shape_.refs = static_cast<size_t>(refs);
    shape_.flags = flags & ~(kAligned | kHasText);
    shape_valid_ = !(flags & kHasText);
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
  return s_.buffer_.data() + std::min(end_, s_.used_);
}

void RecordStream::Reader::Refs(const uint8_t** at, const ObjectHeader& h, uint64_t* refs,
                                uint32_t* slots) const {
  const uint8_t* p = *at;
  const uint8_t* const end = Limit();
  const bool aligned = h.flags & kAligned;
  uint64_t previous = h.id;
  if (h.flags & kSlotRun) {
    for (size_t i = 0; i < h.refs; ++i) {
      const int64_t d = UnZigZag(ReadVarint(&p, end));
      previous += static_cast<uint64_t>(aligned ? d * 8 : d);
      refs[i] = previous;
    }
    if (slots)
      for (size_t i = 0; i < h.refs; ++i) slots[i] = h.first_slot + static_cast<uint32_t>(i);
  } else {
    for (size_t i = 0; i < h.refs; ++i) {
      const int64_t d = UnZigZag(ReadVarint(&p, end));
      previous += static_cast<uint64_t>(aligned ? d * 8 : d);
      refs[i] = previous;
      if (slots)
        slots[i] = static_cast<uint32_t>(ReadVarint(&p, end)) - 1u;
      else
        SkipVarint(&p, end);
    }
  }
  *at = p;
}

bool RecordStream::Reader::Next(StreamObject* o) {
  const uint8_t* p;
  ObjectHeader h;
  if (!Header(&p, &h)) return false;
  const uint8_t* const end = Limit();
  o->id = h.id;
  o->class_index = h.class_index;
  o->size = h.size;
  o->klass = o->class_index < s_.classes_.size() ? s_.classes_[o->class_index] : 0;
  o->values_read = h.flags & kValuesRead;
  o->refs.resize(h.refs);
  o->slots.resize(h.refs);
  Refs(&p, h, o->refs.data(), o->slots.data());
  o->values.resize(std::min<size_t>(static_cast<size_t>(h.flags >> kValueCountShift),
                                    static_cast<size_t>(end - p)));
  for (uint64_t& v : o->values) v = ReadVarint(&p, end);
  o->text.clear();
  if (h.flags & kHasText) {
    const size_t units = std::min<size_t>(static_cast<size_t>(ReadVarint(&p, end)),
                                          static_cast<size_t>(end - p) / 2);
    o->text.resize(units);
    if (units) std::memcpy(o->text.data(), p, units * 2);
    p += units * 2;
  }
  at_ = static_cast<size_t>(p - s_.buffer_.data());
  return true;
}

bool RecordStream::Reader::NextRefs(uint64_t* id, std::vector<uint64_t>* refs) {
  const uint8_t* p;
  ObjectHeader h;
  if (!Header(&p, &h)) return false;
  const uint8_t* const end = Limit();
  *id = h.id;
  refs->resize(h.refs);
  Refs(&p, h, refs->data(), nullptr);
  const size_t values = std::min<size_t>(static_cast<size_t>(h.flags >> kValueCountShift),
                                         static_cast<size_t>(end - p));
  for (size_t i = 0; i < values; ++i) SkipVarint(&p, end);
  if (h.flags & kHasText) {
    const size_t units = std::min<size_t>(static_cast<size_t>(ReadVarint(&p, end)),
                                          static_cast<size_t>(end - p) / 2);
    p += units * 2;
  }
  at_ = static_cast<size_t>(p - s_.buffer_.data());
  return true;
}

}  // namespace dotnet
}  // namespace xrpm
