// WalkReplayer and its byte sources: a recorded heap walk (walk_recording.h) checked record by
// record and replayed into a sink.
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "xrpm/agent/walk_recording.h"

namespace xrpm {
namespace agent {
namespace {

constexpr size_t kHeaderBytes = 5;
constexpr size_t kMinBuffer = size_t{64} << 10;
constexpr uint8_t kMaxTag = static_cast<uint8_t>(WalkRecordTag::kDescribeTypeWithTraits);

const char* TagName(uint8_t tag) {
  static const char* const kNames[] = {
      "",
      "BeginContainer",
      "DescribeType",
      "RootReferences",
      "ObjectReferences",
      "AllocationClock",
      "DescribeSite",
      "ObjectOrigin",
      "DescribeEnum",
      "DescribeLayout",
      "ContainerLabel",
      "ObjectReferencesWithSlots",
      "ObjectValues",
      "StringValue",
      "DescribeDomain",
      "DescribeTypeInDomain",
      "DescribeTypeWithTraits",
  };
  return tag >= 1 && tag <= kMaxTag ? kNames[tag] : "unknown";
}

// Reads one record's payload; the first failure is kept in `error` (what was expected, what
// was found) with the payload offset it happened at in `at`.
struct Payload {
  const uint8_t* p;
  size_t size;
  size_t pos = 0;
  std::string error;
  size_t at = 0;

  // Read without error and to its last byte: only then is the record passed to the sink.
  bool Whole() const { return error.empty() && pos == size; }
  bool Fail(const std::string& what) { return FailAt(pos, what); }
  bool FailAt(size_t where, const std::string& what) {
    if (error.empty()) {
      error = what;
      at = where;
    }
    return false;
  }
  bool Bytes(void* out, size_t n, const char* what) {
    if (!error.empty()) return false;
    if (size - pos < n)
      return Fail(std::string("expected ") + what + " (" + std::to_string(n) + " bytes), found " +
                  std::to_string(size - pos) + " bytes left in the record");
    std::memcpy(out, p + pos, n);
    pos += n;
    return true;
  }
  template <typename T>
  T Val(const char* what) {
    T v{};
    Bytes(&v, sizeof v, what);
    return v;
  }
  bool Bool(const char* what) {
    const size_t start = pos;
    const auto v = Val<uint8_t>(what);
    if (v > 1)
      FailAt(start, std::string("expected ") + what + " 0 or 1, found " + std::to_string(v));
    return v == 1;
  }
  // A count of `elem` bytes each that must fit in what is left of the record.
  uint32_t Count(size_t elem, const char* what) {
    const size_t start = pos;
    const auto n = Val<uint32_t>(what);
    if (error.empty() && elem > 0 && n > (size - pos) / elem) {
      FailAt(start, std::string("expected ") + what + " <= " + std::to_string((size - pos) / elem) +
                        " (what is left of the record), found " + std::to_string(n));
      return 0;
    }
    return n;
  }
  // A string: its bytes stay in the record (valid until the next record). Null: count ~0.
  bool Str(const char** s, size_t* n, const char* what) {
    *s = nullptr;
    *n = 0;
    const auto len = Val<uint32_t>(what);
    if (!error.empty() || len == kWalkNullString) return error.empty();
    if (size - pos < len)
      return Fail(std::string("expected ") + what + " of " + std::to_string(len) +
                  " bytes, found " + std::to_string(size - pos) + " bytes left in the record");
    *s = reinterpret_cast<const char*>(p + pos);
    *n = len;
    pos += len;
    return true;
  }
  template <typename T>
  void Array(std::vector<T>* out, size_t n, const char* what) {
    out->resize(n);
    if (n) Bytes(out->data(), n * sizeof(T), what);
  }
  uint8_t Enum(uint32_t max, const char* what, uint32_t min = 0) {
    const size_t start = pos;
    const auto v = Val<uint8_t>(what);
    if (error.empty() && (v < min || v > max))
      FailAt(start, std::string("expected ") + what + " " + std::to_string(min) + "-" +
                        std::to_string(max) + ", found " + std::to_string(v));
    return v;
  }
};

// Per-record scratch: arrays copied out of the byte stream, aligned for the sink.
struct Scratch {
  std::vector<uint64_t> u64;
  std::vector<uint32_t> u32;
  std::vector<uint16_t> u16;
  std::vector<RootRef> roots;
  std::vector<const char*> names;
  std::vector<size_t> lens;
  std::vector<EnumMemberInfo> members;
  std::vector<FieldInfo> fields;
  std::vector<StaticFieldInfo> statics;
};

// Decodes the payload of `tag` and, when it is whole and valid, makes the call. *is_end: the
// record is BeginContainer(kEnd) (not delivered: the caller checks the stream ends first).
// *end_ids: that record's ids.
WalkResult Deliver(uint8_t tag, Payload& in, Scratch& s, HeapInfoCallback& sink, bool* is_end,
                   uint64_t end_ids[2]) {
  *is_end = false;
  switch (static_cast<WalkRecordTag>(tag)) {
    case WalkRecordTag::kBeginContainer: {
      const auto type = static_cast<ContainerType>(
          in.Enum(static_cast<uint32_t>(ContainerType::kEnd), "a container type", 1));
      const auto id1 = in.Val<uint64_t>("id1");
      const auto id2 = in.Val<uint64_t>("id2");
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      if (type == ContainerType::kEnd) {
        *is_end = true;
        end_ids[0] = id1;
        end_ids[1] = id2;
        return WalkResult::kOk;
      }
      return sink.BeginContainer(type, id1, id2);
    }
    case WalkRecordTag::kDescribeType: {
      const auto id = in.Val<uint32_t>("a type id");
      const char* name;
      size_t len;
      in.Str(&name, &len, "a type name");
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return sink.DescribeType(id, name, len);
    }
    case WalkRecordTag::kRootReferences: {
      const uint32_t n = in.Count(13, "a root count");
      s.roots.resize(n);
      for (uint32_t i = 0; i < n && in.error.empty(); ++i) {
        s.roots[i].object = in.Val<uint64_t>("a root's object");
        s.roots[i].flags = in.Val<uint8_t>("a root's flags");
        s.roots[i].slot = in.Val<uint32_t>("a root's slot");
      }
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return sink.RootReferences(s.roots.data(), n);
    }
    case WalkRecordTag::kObjectReferences:
    case WalkRecordTag::kObjectReferencesWithSlots: {
      const bool slots =
          static_cast<WalkRecordTag>(tag) == WalkRecordTag::kObjectReferencesWithSlots;
      const auto object = in.Val<uint64_t>("an object");
      const auto type = in.Val<uint32_t>("a type id");
      const auto size = in.Val<uint32_t>("a size");
      const bool has_slots = slots && in.Bool("a slots flag");
      const uint32_t n = in.Count(has_slots ? 12 : 8, "a reference count");
      in.Array(&s.u64, n, "references");
      if (has_slots) in.Array(&s.u32, n, "slots");
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return slots ? sink.ObjectReferencesWithSlots(object, type, size, s.u64.data(),
                                                    has_slots ? s.u32.data() : nullptr, n)
                   : sink.ObjectReferences(object, type, size, s.u64.data(), n);
    }
    case WalkRecordTag::kAllocationClock: {
      const auto frame = in.Val<uint64_t>("a frame");
      const auto bytes = in.Val<uint32_t>("a sample interval");
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return sink.AllocationClock(frame, bytes);
    }
    case WalkRecordTag::kDescribeSite: {
      const auto site = in.Val<uint32_t>("a site id");
      const uint32_t depth = in.Count(4, "a site depth");
      s.names.resize(depth);
      s.lens.resize(depth);
      for (uint32_t i = 0; i < depth && in.error.empty(); ++i)
        in.Str(&s.names[i], &s.lens[i], "a method name");
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return sink.DescribeSite(site, s.names.data(), s.lens.data(), depth);
    }
    case WalkRecordTag::kObjectOrigin: {
      const auto object = in.Val<uint64_t>("an object");
      const auto frame = in.Val<uint64_t>("an allocation frame");
      const auto site = in.Val<uint32_t>("a site id");
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return sink.ObjectOrigin(object, frame, site);
    }
    case WalkRecordTag::kDescribeEnum: {
      const auto id = in.Val<uint32_t>("an enum id");
      const char* name;
      size_t len;
      in.Str(&name, &len, "an enum name");
      const auto underlying = static_cast<FieldKind>(in.Enum(protocol::kMaxFieldKind, "a kind"));
      const uint32_t n = in.Count(12, "a member count");
      s.members.resize(n);
      for (uint32_t i = 0; i < n && in.error.empty(); ++i) {
        in.Str(&s.members[i].name, &s.members[i].name_len, "a member name");
        s.members[i].value = in.Val<uint64_t>("a member value");
      }
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return sink.DescribeEnum(id, name, len, underlying, s.members.data(), n);
    }
    case WalkRecordTag::kDescribeLayout: {
      const auto id = in.Val<uint32_t>("a type id");
      TypeLayoutInfo l{};
      l.shape = static_cast<TypeShape>(in.Enum(protocol::kMaxTypeShape, "a type shape"));
      l.element_kind = static_cast<FieldKind>(in.Enum(protocol::kMaxFieldKind, "an element kind"));
      in.Str(&l.element_type_name, &l.element_type_name_len, "an element type name");
      const uint32_t nf = in.Count(18, "a field count");
      s.fields.resize(nf);
      for (uint32_t i = 0; i < nf && in.error.empty(); ++i) {
        FieldInfo& f = s.fields[i];
        in.Str(&f.name, &f.name_len, "a field name");
        in.Str(&f.type_name, &f.type_name_len, "a field type name");
        f.offset = in.Val<uint32_t>("a field offset");
        f.kind = static_cast<FieldKind>(in.Enum(protocol::kMaxFieldKind, "a field kind"));
        f.is_enum = in.Bool("a field's enum flag");
        f.enum_id = in.Val<uint32_t>("a field's enum id");
      }
      const uint32_t ns = in.Count(9, "a static field count");
      s.statics.resize(ns);
      for (uint32_t i = 0; i < ns && in.error.empty(); ++i) {
        StaticFieldInfo& f = s.statics[i];
        in.Str(&f.name, &f.name_len, "a static field name");
        in.Str(&f.type_name, &f.type_name_len, "a static field type name");
        f.kind = static_cast<FieldKind>(in.Enum(protocol::kMaxFieldKind, "a static field kind"));
      }
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      l.fields = s.fields.data();
      l.field_count = nf;
      l.statics = s.statics.data();
      l.static_count = ns;
      return sink.DescribeLayout(id, l);
    }
    case WalkRecordTag::kContainerLabel: {
      const char* label;
      size_t len;
      in.Str(&label, &len, "a label");
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return sink.ContainerLabel(label, len);
    }
    case WalkRecordTag::kObjectValues: {
      const auto object = in.Val<uint64_t>("an object");
      const uint32_t n = in.Count(8, "a value count");
      in.Array(&s.u64, n, "values");
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return sink.ObjectValues(object, s.u64.data(), n);
    }
    case WalkRecordTag::kStringValue: {
      const auto object = in.Val<uint64_t>("an object");
      const auto length = in.Val<uint32_t>("a string length");
      const uint32_t n = in.Count(2, "a code unit count");
      in.Array(&s.u16, n, "code units");
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return sink.StringValue(object, length, s.u16.data(), n);
    }
    case WalkRecordTag::kDescribeDomain: {
      const auto domain = in.Val<uint32_t>("a domain");
      const char* name;
      size_t len;
      in.Str(&name, &len, "a domain name");
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return sink.DescribeDomain(domain, name, len);
    }
    case WalkRecordTag::kDescribeTypeInDomain:
    case WalkRecordTag::kDescribeTypeWithTraits: {
      const bool traits = static_cast<WalkRecordTag>(tag) == WalkRecordTag::kDescribeTypeWithTraits;
      const auto id = in.Val<uint32_t>("a type id");
      const auto domain = in.Val<uint32_t>("a domain");
      TypeTraits t;
      if (traits) {
        t.has_finalizer = in.Bool("a finalizer flag");
        t.kind = static_cast<TypeKind>(in.Enum(protocol::kMaxTypeKind, "a type kind"));
        t.enum_underlying =
            static_cast<FieldKind>(in.Enum(protocol::kMaxFieldKind, "an enum underlying kind"));
        t.array_rank = in.Val<uint32_t>("an array rank");
      }
      const char* name;
      size_t len;
      in.Str(&name, &len, "a type name");
      if (traits) in.Str(&t.element_type_name, &t.element_type_name_len, "an element type name");
      if (!in.Whole()) return WalkResult::kOk;  // the caller reports why
      return traits ? sink.DescribeTypeWithTraits(id, domain, name, len, t)
                    : sink.DescribeTypeInDomain(id, domain, name, len);
    }
  }
  in.Fail("a known record");  // not reached: the tag was checked
  return WalkResult::kOk;
}

}  // namespace

bool WriteFully(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool ReadFully(ByteSource& in, void* out, size_t n, uint64_t* offset) {
  auto* p = static_cast<uint8_t*>(out);
  while (n > 0) {
    const long r = in.Read(p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
    *offset += static_cast<uint64_t>(r);
  }
  return true;
}

long FdByteSource::Read(void* out, size_t n) {
  uint32_t waited_ms = 0;
  for (;;) {
    if (stop_ && stop_()) {
      error_ = "the replay was stopped";
      return -1;
    }
    const uint32_t slice = stop_ ? std::min<uint32_t>(100, idle_timeout_ms_ - waited_ms)
                                 : idle_timeout_ms_ - waited_ms;
    pollfd p{fd_, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(slice));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      error_ = std::string("poll failed: ") + std::strerror(errno);
      return -1;
    }
    if (r == 0) {
      waited_ms += slice;
      if (waited_ms < idle_timeout_ms_) continue;
      error_ = "no data for " + std::to_string(idle_timeout_ms_) + " ms";
      return -1;
    }
    waited_ms = 0;
    const ssize_t got = read(fd_, out, n);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) {
      error_ = std::string("read failed: ") + std::strerror(errno);
      return -1;
    }
    return static_cast<long>(got);
  }
}

long MemoryByteSource::Read(void* out, size_t n) {
  const size_t k = std::min(n, size_ - pos_);
  std::memcpy(out, data_ + pos_, k);
  pos_ += k;
  return static_cast<long>(k);
}

bool WalkReplayer::Fill(ByteSource& source, size_t need, ReplayResult*) {
  while (end_ - begin_ < need) {
    if (eof_) return false;
    if (buf_.size() - begin_ < need) {  // room for the record: move what is unread to the front
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (end_ == buf_.size()) {  // grow as the bytes arrive, never past the record
      const size_t want = std::max(kMinBuffer, buf_.size() * 2);
      buf_.resize(std::max(end_ + 1, std::min(need, want)));
    }
    const long got = source.Read(buf_.data() + end_, buf_.size() - end_);
    if (got <= 0) {
      eof_ = true;
      if (got < 0) source_error_ = source.error();
      return false;
    }
    end_ += static_cast<size_t>(got);
  }
  return true;
}

ReplayResult WalkReplayer::Replay(ByteSource& source, HeapInfoCallback& sink) {
  ReplayResult r;
  Scratch scratch;
  begin_ = end_ = 0;
  eof_ = false;
  source_error_.clear();
  auto broken = [&](const std::string& why) {
    r.error = "walk stream: byte " + std::to_string(r.bytes) + ": " + why;
    if (explain_) {
      const std::string more = explain_();
      if (!more.empty()) r.error += "; " + more;
    }
    sink.WalkFailed(r.error.data(), r.error.size());
    sink.BeginContainer(ContainerType::kEnd, 0, 0);
    return r;
  };
  auto short_read = [&](const std::string& expected) {
    const size_t have = end_ - begin_;
    return broken("expected " + expected + ", found " +
                  (source_error_.empty() ? "the end of the stream" : source_error_) +
                  (have ? " after " + std::to_string(have) + " bytes of it" : ""));
  };
  if (buf_.size() < kMinBuffer) buf_.resize(kMinBuffer);
  for (;;) {
    if (!Fill(source, kHeaderBytes, &r))
      return short_read(r.records == 0 ? "the first record" : "a record or BeginContainer(kEnd)");
    const uint8_t tag = buf_[begin_];
    uint32_t len;
    std::memcpy(&len, buf_.data() + begin_ + 1, 4);
    if (tag < 1 || tag > kMaxTag)
      return broken("expected a record tag 1-" + std::to_string(kMaxTag) + ", found " +
                    std::to_string(tag));
    if (len > kMaxWalkRecordBytes)
      return broken(std::string("expected a ") + TagName(tag) + " record of at most " +
                    std::to_string(kMaxWalkRecordBytes) + " bytes, found a length of " +
                    std::to_string(len));
    if (!Fill(source, kHeaderBytes + len, &r))
      return short_read(std::string("a ") + TagName(tag) + " record of " +
                        std::to_string(kHeaderBytes + len) + " bytes");
    Payload in{buf_.data() + begin_ + kHeaderBytes, len};
    bool is_end = false;
    uint64_t end_ids[2] = {0, 0};
    const WalkResult result = Deliver(tag, in, scratch, sink, &is_end, end_ids);
    if (!in.Whole()) {
      const std::string why = in.error.empty()
                                  ? "expected " + std::to_string(in.pos) +
                                        " bytes of payload, found " + std::to_string(in.size)
                                  : in.error;
      r.bytes += kHeaderBytes + (in.error.empty() ? in.pos : in.at);
      return broken(std::string(TagName(tag)) + " record: " + why);
    }
    begin_ += kHeaderBytes + len;
    r.bytes += kHeaderBytes + len;
    ++r.records;
    if (is_end) {  // the last record: the stream must end here
      if (Fill(source, 1, &r))
        return broken("expected the end of the stream after BeginContainer(kEnd), found " +
                      std::to_string(end_ - begin_) + " more bytes");
      if (!source_error_.empty())
        return broken("expected the end of the stream after BeginContainer(kEnd), found " +
                      source_error_);
      sink.BeginContainer(ContainerType::kEnd, end_ids[0], end_ids[1]);
      r.ended = true;
      return r;
    }
    if (result == WalkResult::kAbort) {
      sink.BeginContainer(ContainerType::kEnd, 0, 0);
      r.aborted = true;
      return r;
    }
  }
}

}  // namespace agent
}  // namespace xrpm
