// Walk recording: a heap walk (heap_walker.h) serialised to a byte stream by one process and
// replayed into a real sink by another. It is what lets a runtime walk a copy-on-write snapshot
// of itself in a child process while the game runs on (the Mono port's snapshot walk,
// device-agent/ports/mono/src/snapshot_walk.h): the child walks into a WalkRecorder writing
// into a pipe, the parent replays the pipe into the agent's CaptureSink.
//
// Stream format (both ends are one machine and one build: integers in the host's byte order):
//   record  = tag:u8  length:u32  payload[length]
//   payload = the call's arguments in declaration order; a string or an array is a u32 count
//             followed by its elements; a null string (element_type_name) has count 0xFFFFFFFF;
//             ObjectReferencesWithSlots has a byte (0/1) before its count: slots follow the
//             references (1) or the call had none (0, null).
// A stream is one walk: every HeapInfoCallback call in order, the last record
// BeginContainer(kEnd), then end of file. Sink results do not travel back (the stream is one
// way): the recorder answers what the agent's CaptureSink answers, kPostponeReferences to
// objects (a flat list) and kOk to the rest, and kAbort to everything once a write failed.
//
// WalkRecorder: a HeapInfoCallback writing records into a file descriptor through a buffer
// allocated at construction; afterwards it calls nothing but write(2) and memcpy (no malloc, no
// stdio, no locks, no exceptions), so it may run in a child created by a raw clone(2) of a
// multi-threaded process. Detail() answers what the caller's real sink answered before.
//
// WalkReplayer: the parser. It reads a stream from a ByteSource and calls a real sink. Every
// record is checked (a known tag, a length that matches its payload exactly, counts within the
// record, enums in range, kEnd last); a truncated or garbled stream, or a source error, stops
// the replay with a message naming the byte offset, what was expected and what was found; the
// sink then gets WalkFailed(message) and BeginContainer(kEnd), so it never takes a broken walk
// for a finished one. A sink's kAbort stops the replay the same way (kEnd only).
// Memory: the largest record seen (at most kMaxRecordBytes), grown only as its bytes arrive,
// plus per-record pointer arrays (O(fields or depth of that record)).
//
// Complexity: O(bytes) at both ends; the recorder makes one write(2) per buffer_bytes.
//
// Thread-safety: each object is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "xrpm/agent/heap_walker.h"

namespace xrpm {
namespace agent {

// One record's largest payload: an array of 16 M references with slots (192 MiB) fits.
constexpr uint32_t kMaxWalkRecordBytes = 256u << 20;

// A string's length field when the string is null (absent, not empty).
constexpr uint32_t kWalkNullString = 0xFFFFFFFFu;

// Record tags (the stream format above). Values are part of the format: append only.
enum class WalkRecordTag : uint8_t {
  kBeginContainer = 1,
  kDescribeType = 2,
  kRootReferences = 3,
  kObjectReferences = 4,
  kAllocationClock = 5,
  kDescribeSite = 6,
  kObjectOrigin = 7,
  kDescribeEnum = 8,
  kDescribeLayout = 9,
  kContainerLabel = 10,
  kObjectReferencesWithSlots = 11,
  kObjectValues = 12,
  kStringValue = 13,
  kDescribeDomain = 14,
  kDescribeTypeInDomain = 15,
  kDescribeTypeWithTraits = 16,
};

class WalkRecorder final : public HeapInfoCallback {
 public:
  // `fd` stays the caller's. `buffer_bytes` (>= 64) is allocated here, once.
  WalkRecorder(int fd, WalkDetail detail, size_t buffer_bytes = size_t{1} << 20);
  WalkRecorder(const WalkRecorder&) = delete;
  WalkRecorder& operator=(const WalkRecorder&) = delete;

  // Writes what is buffered; false when a write failed (then or before).
  bool Flush();
  bool failed() const { return failed_; }
  int write_errno() const { return errno_; }  // the failed write's errno
  uint64_t bytes_written() const { return written_; }

  WalkResult BeginContainer(ContainerType type, uint64_t id1, uint64_t id2) override;
  WalkResult DescribeType(uint32_t type_id, const char* name, size_t name_len) override;
  WalkResult RootReferences(const RootRef* roots, size_t count) override;
  WalkResult ObjectReferences(uint64_t object, uint32_t type_id, uint32_t size,
                              const uint64_t* refs, size_t ref_count) override;
  WalkResult AllocationClock(uint64_t frame, uint32_t sample_bytes) override;
  WalkResult DescribeSite(uint32_t site_id, const char* const* method_names,
                          const size_t* name_lens, uint32_t depth) override;
  WalkResult ObjectOrigin(uint64_t object, uint64_t alloc_frame, uint32_t site_id) override;
  WalkDetail Detail() const override { return detail_; }
  WalkResult DescribeEnum(uint32_t enum_id, const char* name, size_t name_len, FieldKind underlying,
                          const EnumMemberInfo* members, size_t count) override;
  WalkResult DescribeLayout(uint32_t type_id, const TypeLayoutInfo& layout) override;
  WalkResult ContainerLabel(const char* label, size_t len) override;
  WalkResult ObjectReferencesWithSlots(uint64_t object, uint32_t type_id, uint32_t size,
                                       const uint64_t* refs, const uint32_t* slots,
                                       size_t ref_count) override;
  WalkResult ObjectValues(uint64_t object, const uint64_t* bits, size_t count) override;
  WalkResult StringValue(uint64_t object, uint32_t length, const uint16_t* units,
                         size_t count) override;
  WalkResult DescribeDomain(uint32_t domain, const char* name, size_t name_len) override;
  WalkResult DescribeTypeInDomain(uint32_t type_id, uint32_t domain, const char* name,
                                  size_t name_len) override;
  WalkResult DescribeTypeWithTraits(uint32_t type_id, uint32_t domain, const char* name,
                                    size_t name_len, const TypeTraits& traits) override;

 private:
  bool Begin(WalkRecordTag tag, uint64_t payload_bytes);  // false: too large or failed
  // Appends n bytes; inline while they fit the buffer (every record's small fields do).
  void Put(const void* p, size_t n) {
    if (n <= cap_ - used_) {
      if (n != 0) std::memcpy(buf_.get() + used_, p, n);  // p may be null when n is 0
      used_ += n;
    } else {
      PutSlow(p, n);
    }
  }
  void PutSlow(const void* p, size_t n);
  template <typename T>
  void Val(T v) {
    Put(&v, sizeof v);
  }
  void Str(const char* s, size_t n);  // count + bytes (null: count 0xFFFFFFFF)
  WalkResult Done();                  // end of a record: kAbort once failed

  const int fd_;
  const WalkDetail detail_;
  const std::unique_ptr<char[]> buf_;
  const size_t cap_;
  size_t used_ = 0;
  uint64_t written_ = 0;
  bool failed_ = false;
  int errno_ = 0;
};

// Where a replay reads from.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `n` (> 0) bytes into `out`: the count read, 0 at the end of the stream, -1 on
  // an error (described by error()).
  virtual long Read(void* out, size_t n) = 0;
  virtual std::string error() const = 0;
};

// A pipe or file: read(2), each wait for data bounded by `idle_timeout_ms` (poll(2)); with
// `stop`, the wait is cut into slices of at most 100 ms and ends early (an error) once stop()
// says so.
class FdByteSource final : public ByteSource {
 public:
  FdByteSource(int fd, uint32_t idle_timeout_ms, std::function<bool()> stop = nullptr)
      : fd_(fd), idle_timeout_ms_(idle_timeout_ms), stop_(std::move(stop)) {}
  long Read(void* out, size_t n) override;
  std::string error() const override { return error_; }

 private:
  int fd_;
  uint32_t idle_timeout_ms_;
  std::function<bool()> stop_;
  std::string error_;
};

// A byte range in memory (tests, the fuzz target).
class MemoryByteSource final : public ByteSource {
 public:
  MemoryByteSource(const void* data, size_t size)
      : data_(static_cast<const uint8_t*>(data)), size_(size) {}
  long Read(void* out, size_t n) override;
  std::string error() const override { return ""; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Writes all `n` bytes to a pipe or file (write(2), EINTR retried): false, with errno set (EIO
// for a write of 0 bytes), when a write failed. The writing side of FdByteSource.
bool WriteFully(int fd, const void* data, size_t n);
// Reads exactly `n` bytes from `in`, adding what it read to *offset: false at the stream's end
// or an error (in.error() says which) before all came.
bool ReadFully(ByteSource& in, void* out, size_t n, uint64_t* offset);

struct ReplayResult {
  bool ended = false;    // the stream's kEnd reached the sink, the sink never aborted
  bool aborted = false;  // the sink returned kAbort
  std::string error;     // why the stream broke (empty when ended or aborted)
  uint64_t bytes = 0;    // bytes consumed
  uint64_t records = 0;  // records delivered
};

class WalkReplayer {
 public:
  // Called once when the stream broke, before the sink hears of it: its text is appended to
  // the error ("; " + text) when not empty (the writer's fate: exit status, signal).
  void set_explain(std::function<std::string()> explain) { explain_ = std::move(explain); }
  // Replays the stream from `source` into `sink` (see the header comment).
  ReplayResult Replay(ByteSource& source, HeapInfoCallback& sink);

 private:
  bool Fill(ByteSource& source, size_t need, ReplayResult* r);  // buffer has `need` bytes
  std::vector<uint8_t> buf_;
  size_t begin_ = 0, end_ = 0;  // unread bytes buf_[begin_, end_)
  bool eof_ = false;
  std::string source_error_;
  std::function<std::string()> explain_;
};

}  // namespace agent
}  // namespace xrpm
