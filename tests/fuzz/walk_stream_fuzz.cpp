// libFuzzer target: the walk recording replayer (device-agent walk_recording.h), the parser of
// the byte stream a snapshot walk's child process sends, on arbitrary bytes.
//
// Per input, beyond "no crash, hang, leak or sanitizer report":
//   1. the replay ends one way: the stream's end reached the sink, or an error naming the byte
//      offset and what was expected (no abort: the sink never asks for one);
//   2. the sink's last call is BeginContainer(kEnd), and only a broken stream calls WalkFailed,
//      with the error;
//   3. a stream that replays to its end records again (WalkRecorder) to the same bytes: every
//      argument of every record reaches the sink.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "xrpm/agent/walk_recording.h"

namespace {

using namespace xrpm::agent;

// Forwards every call to a recorder and notes the end and any failure.
class CheckingSink final : public HeapInfoCallback {
 public:
  explicit CheckingSink(WalkRecorder& rec) : rec_(rec) {}
  bool last_was_end = false;
  int ends = 0;
  std::string failed;

  WalkResult BeginContainer(ContainerType t, uint64_t a, uint64_t b) override {
    last_was_end = t == ContainerType::kEnd;
    ends += last_was_end;
    return Ok(rec_.BeginContainer(t, a, b));
  }
  WalkResult DescribeType(uint32_t id, const char* n, size_t len) override {
    return Ok(rec_.DescribeType(id, n, len));
  }
  WalkResult RootReferences(const RootRef* r, size_t n) override {
    return Ok(rec_.RootReferences(r, n));
  }
  WalkResult ObjectReferences(uint64_t o, uint32_t t, uint32_t s, const uint64_t* r,
                              size_t n) override {
    return Ok(rec_.ObjectReferences(o, t, s, r, n));
  }
  WalkResult AllocationClock(uint64_t f, uint32_t b) override {
    return Ok(rec_.AllocationClock(f, b));
  }
  WalkResult DescribeSite(uint32_t id, const char* const* n, const size_t* l, uint32_t d) override {
    return Ok(rec_.DescribeSite(id, n, l, d));
  }
  WalkResult ObjectOrigin(uint64_t o, uint64_t f, uint32_t s) override {
    return Ok(rec_.ObjectOrigin(o, f, s));
  }
  WalkResult DescribeEnum(uint32_t id, const char* n, size_t len, FieldKind k,
                          const EnumMemberInfo* m, size_t c) override {
    return Ok(rec_.DescribeEnum(id, n, len, k, m, c));
  }
  WalkResult DescribeLayout(uint32_t id, const TypeLayoutInfo& l) override {
    return Ok(rec_.DescribeLayout(id, l));
  }
  WalkResult ContainerLabel(const char* n, size_t len) override {
    return Ok(rec_.ContainerLabel(n, len));
  }
  WalkResult ObjectReferencesWithSlots(uint64_t o, uint32_t t, uint32_t s, const uint64_t* r,
                                       const uint32_t* sl, size_t n) override {
    return Ok(rec_.ObjectReferencesWithSlots(o, t, s, r, sl, n));
  }
  WalkResult ObjectValues(uint64_t o, const uint64_t* b, size_t n) override {
    return Ok(rec_.ObjectValues(o, b, n));
  }
  WalkResult StringValue(uint64_t o, uint32_t len, const uint16_t* u, size_t n) override {
    return Ok(rec_.StringValue(o, len, u, n));
  }
  WalkResult DescribeDomain(uint32_t d, const char* n, size_t len) override {
    return Ok(rec_.DescribeDomain(d, n, len));
  }
  WalkResult DescribeTypeInDomain(uint32_t id, uint32_t d, const char* n, size_t len) override {
    return Ok(rec_.DescribeTypeInDomain(id, d, n, len));
  }
  WalkResult DescribeTypeWithTraits(uint32_t id, uint32_t d, const char* n, size_t len,
                                    const TypeTraits& t) override {
    return Ok(rec_.DescribeTypeWithTraits(id, d, n, len, t));
  }
  void WalkFailed(const char* reason, size_t len) override { failed.assign(reason, len); }

 private:
  WalkResult Ok(WalkResult r) {
    XRPM_FUZZ_CHECK(r != WalkResult::kAbort, std::string("the recorder failed"));
    return WalkResult::kOk;
  }
  WalkRecorder& rec_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("walk_stream_fuzz", 0);
  XRPM_FUZZ_CHECK(fd >= 0, std::string("memfd_create"));
  ReplayResult r;
  std::string failed;
  {
    WalkRecorder rec(fd, WalkDetail{}, 4096);
    CheckingSink sink(rec);
    MemoryByteSource src(data, size);
    r = WalkReplayer().Replay(src, sink);
    XRPM_FUZZ_CHECK(rec.Flush(), std::string("re-recording"));
    XRPM_FUZZ_CHECK(sink.last_was_end && sink.ends == 1, std::string("kEnd last, once"));
    failed = sink.failed;
  }
  XRPM_FUZZ_CHECK(!r.aborted, std::string("nothing aborted"));
  XRPM_FUZZ_CHECK(r.bytes <= size, std::to_string(r.bytes));
  if (!r.ended) {
    XRPM_FUZZ_CHECK(r.error.rfind("walk stream: byte ", 0) == 0, r.error);
    XRPM_FUZZ_CHECK(r.error.find("expected") != std::string::npos, r.error);
    XRPM_FUZZ_CHECK(failed == r.error, failed);
  } else {
    XRPM_FUZZ_CHECK(r.error.empty() && failed.empty(), r.error);
    XRPM_FUZZ_CHECK(r.bytes == size, std::to_string(r.bytes));
    std::vector<uint8_t> again(size);
    XRPM_FUZZ_CHECK(lseek(fd, 0, SEEK_CUR) == static_cast<off_t>(size), std::string("length"));
    XRPM_FUZZ_CHECK(pread(fd, again.data(), size, 0) == static_cast<ssize_t>(size),
                    std::string("pread"));
    XRPM_FUZZ_CHECK(std::equal(again.begin(), again.end(), data), std::string("round trip"));
  }
  close(fd);
  return 0;
}
