// ctest-labels: threaded
// Walk recording (walk_recording.h): a walk recorded into a pipe and replayed into a sink makes
// the same calls, with the same arguments, as the walk made into that sink directly (the
// emulator's heap with origins, fields and values, and a synthetic walk using every call); a
// truncated, garbled or over-long stream, a failed write and a sink's abort end the replay
// with a clear error and a final kEnd, never a crash.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "xrpm/agent/walk_recording.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"

namespace xrpm::agent {
namespace {

std::string S(const char* p, size_t n) {
  return p ? "'" + std::string(p, n) + "'" : "null";
}

// Every call, with every argument, as one line; objects answer kPostponeReferences (as the
// agent's CaptureSink does); `abort_at` > 0: that call (1-based) answers kAbort.
class LogSink final : public HeapInfoCallback {
 public:
  explicit LogSink(WalkDetail detail = {}) : detail_(detail) {}
  std::vector<std::string> log;
  size_t abort_at = 0;
  std::string failed;

  WalkResult BeginContainer(ContainerType t, uint64_t a, uint64_t b) override {
    return Add("container " + std::to_string(int(t)) + " " + std::to_string(a) + " " +
               std::to_string(b));
  }
  WalkResult DescribeType(uint32_t id, const char* n, size_t len) override {
    return Add("type " + std::to_string(id) + " " + S(n, len));
  }
  WalkResult RootReferences(const RootRef* r, size_t n) override {
    std::string l = "roots";
    for (size_t i = 0; i < n; ++i)
      l += " " + std::to_string(r[i].object) + "/" + std::to_string(r[i].flags) + "/" +
           std::to_string(r[i].slot);
    return Add(l);
  }
  WalkResult ObjectReferences(uint64_t o, uint32_t t, uint32_t size, const uint64_t* refs,
                              size_t n) override {
    return Object("object", o, t, size, refs, nullptr, n);
  }
  WalkResult AllocationClock(uint64_t f, uint32_t b) override {
    return Add("clock " + std::to_string(f) + " " + std::to_string(b));
  }
  WalkResult DescribeSite(uint32_t id, const char* const* names, const size_t* lens,
                          uint32_t depth) override {
    std::string l = "site " + std::to_string(id);
    for (uint32_t i = 0; i < depth; ++i) l += " " + S(names[i], lens[i]);
    return Add(l);
  }
  WalkResult ObjectOrigin(uint64_t o, uint64_t f, uint32_t site) override {
    return Add("origin " + std::to_string(o) + " " + std::to_string(f) + " " +
               std::to_string(site));
  }
  WalkDetail Detail() const override { return detail_; }
  WalkResult DescribeEnum(uint32_t id, const char* n, size_t len, FieldKind k,
                          const EnumMemberInfo* m, size_t count) override {
    std::string l = "enum " + std::to_string(id) + " " + S(n, len) + " " + std::to_string(int(k));
    for (size_t i = 0; i < count; ++i)
      l += " " + S(m[i].name, m[i].name_len) + "=" + std::to_string(m[i].value);
    return Add(l);
  }
  WalkResult DescribeLayout(uint32_t id, const TypeLayoutInfo& t) override {
    std::string l = "layout " + std::to_string(id) + " " + std::to_string(int(t.shape)) + " " +
                    std::to_string(int(t.element_kind)) + " " +
                    S(t.element_type_name, t.element_type_name_len);
    for (size_t i = 0; i < t.field_count; ++i) {
      const FieldInfo& f = t.fields[i];
      l += " f:" + S(f.name, f.name_len) + ":" + S(f.type_name, f.type_name_len) + ":" +
           std::to_string(f.offset) + ":" + std::to_string(int(f.kind)) + ":" +
           std::to_string(f.is_enum) + ":" + std::to_string(f.enum_id);
    }
    for (size_t i = 0; i < t.static_count; ++i) {
      const StaticFieldInfo& f = t.statics[i];
      l += " s:" + S(f.name, f.name_len) + ":" + S(f.type_name, f.type_name_len) + ":" +
           std::to_string(int(f.kind));
    }
    return Add(l);
  }
  WalkResult ContainerLabel(const char* n, size_t len) override {
    return Add("label " + S(n, len));
  }
  WalkResult ObjectReferencesWithSlots(uint64_t o, uint32_t t, uint32_t size, const uint64_t* refs,
                                       const uint32_t* slots, size_t n) override {
    return Object("object+slots", o, t, size, refs, slots, n);
  }
  WalkResult ObjectValues(uint64_t o, const uint64_t* bits, size_t n) override {
    std::string l = "values " + std::to_string(o);
    for (size_t i = 0; i < n; ++i) l += " " + std::to_string(bits[i]);
    return Add(l);
  }
  WalkResult StringValue(uint64_t o, uint32_t length, const uint16_t* u, size_t n) override {
    std::string l = "string " + std::to_string(o) + " " + std::to_string(length);
    for (size_t i = 0; i < n; ++i) l += " " + std::to_string(u[i]);
    return Add(l);
  }
  WalkResult DescribeDomain(uint32_t d, const char* n, size_t len) override {
    return Add("domain " + std::to_string(d) + " " + S(n, len));
  }
  WalkResult DescribeTypeInDomain(uint32_t id, uint32_t d, const char* n, size_t len) override {
    return Add("type-in " + std::to_string(id) + " " + std::to_string(d) + " " + S(n, len));
  }
  WalkResult DescribeTypeWithTraits(uint32_t id, uint32_t d, const char* n, size_t len,
                                    const TypeTraits& tr) override {
    return Add(
        "type-traits " + std::to_string(id) + " " + std::to_string(d) + " " + S(n, len) + " " +
        std::to_string(tr.has_finalizer) + " " + std::to_string(static_cast<int>(tr.kind)) + " " +
        std::to_string(static_cast<int>(tr.enum_underlying)) + " " + std::to_string(tr.array_rank) +
        " " + S(tr.element_type_name, tr.element_type_name_len));
  }
  void WalkFailed(const char* reason, size_t len) override { failed.assign(reason, len); }

 private:
  WalkResult Object(const char* what, uint64_t o, uint32_t t, uint32_t size, const uint64_t* refs,
                    const uint32_t* slots, size_t n) {
    std::string l = std::string(what) + " " + std::to_string(o) + " " + std::to_string(t) + " " +
                    std::to_string(size);
    for (size_t i = 0; i < n; ++i)
      l += " " + std::to_string(refs[i]) + (slots ? "@" + std::to_string(slots[i]) : "");
    const WalkResult r = Add(l);
    return r == WalkResult::kOk ? WalkResult::kPostponeReferences : r;
  }
  WalkResult Add(std::string line) {
    log.push_back(std::move(line));
    return abort_at == log.size() ? WalkResult::kAbort : WalkResult::kOk;
  }
  WalkDetail detail_;
};

// One call of every kind (and the odd ones: null strings, no slots, empty arrays).
void SyntheticWalk(HeapInfoCallback& s) {
  s.BeginContainer(ContainerType::kBegin, 0, 0);
  s.DescribeDomain(1, "root", 4);
  s.DescribeDomain(2, "", 0);
  s.DescribeType(1, "System.Object", 13);
  s.DescribeTypeInDomain(2, 2, "Game.Ball", 9);
  s.DescribeTypeWithTraits(3, 1, "Game.Res", 8, TypeTraits{true});
  TypeTraits grid;  // an array of rank 2
  grid.kind = TypeKind::kArray;
  grid.array_rank = 2;
  grid.element_type_name = "System.Int32";
  grid.element_type_name_len = 12;
  s.DescribeTypeWithTraits(4, 1, "System.Int32[,]", 15, grid);
  TypeTraits mode;  // an enum of Byte
  mode.kind = TypeKind::kEnum;
  mode.enum_underlying = FieldKind::kByte;
  s.DescribeTypeWithTraits(5, 1, "Game.Mode", 9, mode);
  const EnumMemberInfo members[] = {{"Red", 3, 0}, {"Blue", 4, ~uint64_t{0}}};
  s.DescribeEnum(1, "Game.Color", 10, FieldKind::kInt32, members, 2);
  const FieldInfo fields[] = {{"next", 4, "Game.Ball", 9, 8, FieldKind::kReference, false, 0},
                              {"color", 5, "Game.Color", 10, 16, FieldKind::kInt32, true, 1}};
  const StaticFieldInfo statics[] = {{"count", 5, "System.Int32", 12, FieldKind::kInt32}};
  s.DescribeLayout(
      2, TypeLayoutInfo{TypeShape::kClass, fields, 2, statics, 1, FieldKind::kUnknown, nullptr, 0});
  s.DescribeLayout(3, TypeLayoutInfo{TypeShape::kArray, nullptr, 0, nullptr, 0, FieldKind::kDouble,
                                     "System.Double", 13});
  s.BeginContainer(ContainerType::kThread, 7, 0);
  s.BeginContainer(ContainerType::kJitFrame, 70, 5);
  s.ContainerLabel("Game.Update", 11);
  const RootRef roots[] = {{0x1000, 1, kNoSlot}, {0x2000, 6, 3}};
  s.RootReferences(roots, 2);
  s.RootReferences(nullptr, 0);
  s.BeginContainer(ContainerType::kHeap, 0, 0);
  s.AllocationClock(42, 4096);
  const char* names[] = {"Game.Spawn", ""};
  const size_t lens[] = {10, 0};
  s.DescribeSite(1, names, lens, 2);
  s.DescribeSite(2, nullptr, nullptr, 0);
  s.ObjectOrigin(0x1000, 40, 1);
  const uint64_t bits[] = {1, ~uint64_t{0}};
  s.ObjectValues(0x1000, bits, 2);
  const uint64_t refs[] = {0x2000, 0x3000};
  const uint32_t slots[] = {0, kNoSlot};
  s.ObjectReferencesWithSlots(0x1000, 2, 24, refs, slots, 2);
  s.ObjectReferencesWithSlots(0x2000, 2, 24, refs, nullptr, 2);
  s.ObjectReferences(0x3000, 1, 16, nullptr, 0);
  const uint16_t units[] = {'h', 'i', 0xD800};
  s.StringValue(0x4000, 99, units, 3);
  s.ObjectReferences(0x4000, 1, 40, refs, 1);
  s.BeginContainer(ContainerType::kEnd, 0, 0);
}

// The bytes a walk records (through a memfd).
template <typename Walk>
std::vector<uint8_t> Record(Walk walk, WalkDetail detail = {}, size_t buffer = 64) {
  const int fd = memfd_create("walk", 0);
  EXPECT_GE(fd, 0);
  WalkRecorder rec(fd, detail, buffer);
  walk(rec);
  EXPECT_TRUE(rec.Flush());
  EXPECT_FALSE(rec.failed());
  std::vector<uint8_t> bytes(static_cast<size_t>(lseek(fd, 0, SEEK_CUR)));
  EXPECT_EQ(pread(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
  EXPECT_EQ(rec.bytes_written(), bytes.size());
  close(fd);
  return bytes;
}

// Records `walk` on a second thread into a pipe and replays it here into `sink`.
template <typename Walk>
ReplayResult ThroughPipe(Walk walk, HeapInfoCallback& sink) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  std::thread writer([&] {
    WalkRecorder rec(fds[1], sink.Detail(), 4096);
    walk(rec);
    close(fds[1]);
  });
  FdByteSource source(fds[0], 10000);
  WalkReplayer replayer;
  ReplayResult r = replayer.Replay(source, sink);
  // The writer is done or fails on its next write (the read end is closed).
  close(fds[0]);
  writer.join();
  return r;
}

class EmulatorWalk : public ::testing::Test {
 protected:
  void SetUp() override {
    scenario_ = emulator::MakeScenario({"bubbles", 11});
    loop_ = std::make_unique<emulator::GameLoop>(rt_, *scenario_, emulator::LoopConfig{0, 300});
    loop_->Setup();
    loop_->RunHere();
    rt_.InduceFullCollection();
  }
  emulator::Runtime rt_;
  std::unique_ptr<emulator::Scenario> scenario_;
  std::unique_ptr<emulator::GameLoop> loop_;
};

TEST_F(EmulatorWalk, ReplayedWalkMakesTheDirectWalksCalls) {
  for (const WalkDetail detail : {WalkDetail{}, WalkDetail{true, true, 8}}) {
    LogSink direct(detail), replayed(detail);
    rt_.WalkHeap(direct);
    const ReplayResult r = ThroughPipe([&](HeapInfoCallback& rec) { rt_.WalkHeap(rec); }, replayed);
    EXPECT_TRUE(r.ended) << r.error;
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.records, direct.log.size());
    ASSERT_GT(direct.log.size(), 100u);
    EXPECT_EQ(replayed.log, direct.log) << "fields " << detail.fields;
    size_t origins = 0, values = 0;
    for (const std::string& l : direct.log) {
      origins += l.rfind("origin ", 0) == 0;
      values += l.rfind("values ", 0) == 0;
    }
    EXPECT_GT(origins, 0u) << "the emulator records every object's origin";
    EXPECT_EQ(values > 0, detail.values);
  }
}

TEST(WalkRecording, EveryCallRoundTrips) {
  LogSink direct, replayed;
  SyntheticWalk(direct);
  const ReplayResult r = ThroughPipe(&SyntheticWalk, replayed);
  EXPECT_TRUE(r.ended) << r.error;
  EXPECT_EQ(replayed.log, direct.log);
  EXPECT_EQ(replayed.log.back(), "container 16 0 0");
  // A recording of the replay is the same bytes (every argument kept).
  const std::vector<uint8_t> bytes = Record(&SyntheticWalk);
  const std::vector<uint8_t> again = Record([&](HeapInfoCallback& rec) {
    MemoryByteSource src(bytes.data(), bytes.size());
    EXPECT_TRUE(WalkReplayer().Replay(src, rec).ended);
  });
  EXPECT_EQ(again, bytes);
}

TEST(WalkRecording, EveryTruncationFailsWithItsOffset) {
  const std::vector<uint8_t> bytes = Record(&SyntheticWalk);
  WalkReplayer replayer;  // reused: each replay starts afresh
  for (size_t n = 0; n < bytes.size(); ++n) {
    LogSink sink;
    MemoryByteSource src(bytes.data(), n);
    const ReplayResult r = replayer.Replay(src, sink);
    ASSERT_FALSE(r.ended) << n;
    EXPECT_FALSE(r.aborted);
    EXPECT_NE(r.error.find("walk stream: byte "), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("found the end of the stream"), std::string::npos) << r.error;
    EXPECT_EQ(sink.failed, r.error);
    ASSERT_FALSE(sink.log.empty());
    EXPECT_EQ(sink.log.back(), "container 16 0 0") << "kEnd always comes last";
    EXPECT_LE(r.bytes, n);
  }
  LogSink sink;
  MemoryByteSource src(bytes.data(), 0);
  EXPECT_EQ(replayer.Replay(src, sink).error,
            "walk stream: byte 0: expected the first record, found the end of the stream");
}

TEST(WalkRecording, GarbledStreamsNameWhatWasExpected) {
  const std::vector<uint8_t> good = Record(&SyntheticWalk);
  auto replay = [](std::vector<uint8_t> bytes) {
    LogSink sink;
    MemoryByteSource src(bytes.data(), bytes.size());
    const ReplayResult r = WalkReplayer().Replay(src, sink);
    EXPECT_FALSE(r.ended);
    EXPECT_EQ(sink.log.back(), "container 16 0 0");
    return r.error;
  };
  std::vector<uint8_t> b = good;
  b[0] = 99;
  EXPECT_EQ(replay(b), "walk stream: byte 0: expected a record tag 1-16, found 99");
  b = good;
  b[5] = 0;  // the first container's type
  EXPECT_EQ(replay(b),
            "walk stream: byte 5: BeginContainer record: expected a container type 1-16, found 0");
  b = good;
  b[1] = 18;  // the first record says 18 payload bytes, has 17
  EXPECT_NE(replay(b).find("BeginContainer record: expected 17 bytes of payload, found 18"),
            std::string::npos);
  b = good;
  const uint32_t huge = kMaxWalkRecordBytes + 1;
  std::memcpy(&b[1], &huge, 4);
  EXPECT_NE(replay(b).find("of at most 268435456 bytes, found a length of 268435457"),
            std::string::npos);
  b = good;
  b.push_back(1);
  EXPECT_EQ(replay(b), "walk stream: byte " + std::to_string(good.size()) +
                           ": expected the end of the stream after BeginContainer(kEnd), "
                           "found 1 more bytes");
}

TEST(WalkRecording, ASinksAbortEndsTheReplayWithKEnd) {
  LogSink direct;
  SyntheticWalk(direct);
  for (size_t at = 1; at < direct.log.size(); ++at) {
    LogSink sink;
    sink.abort_at = at;
    const std::vector<uint8_t> bytes = Record(&SyntheticWalk);
    MemoryByteSource src(bytes.data(), bytes.size());
    const ReplayResult r = WalkReplayer().Replay(src, sink);
    EXPECT_TRUE(r.aborted);
    EXPECT_FALSE(r.ended);
    EXPECT_EQ(r.error, "");
    ASSERT_EQ(sink.log.size(), at + 1);
    EXPECT_EQ(sink.log.back(), "container 16 0 0");
  }
}

TEST(WalkRecording, AFailedWriteAbortsTheWalk) {
  const int fd = open("/dev/full", O_WRONLY);
  ASSERT_GE(fd, 0);
  WalkRecorder rec(fd, WalkDetail{}, 64);
  WalkResult last = WalkResult::kOk;
  for (int i = 0; i < 100 && last == WalkResult::kOk; ++i)
    last = rec.DescribeType(1, "System.Object", 13);
  EXPECT_EQ(last, WalkResult::kAbort);
  EXPECT_TRUE(rec.failed());
  EXPECT_EQ(rec.write_errno(), ENOSPC);
  EXPECT_EQ(rec.BeginContainer(ContainerType::kEnd, 0, 0), WalkResult::kAbort);
  close(fd);
}

TEST(WalkRecording, AnIdleSourceTimesOut) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  FdByteSource src(fds[0], 20);  // the writer never writes: costs the 20 ms
  LogSink sink;
  const ReplayResult r = WalkReplayer().Replay(src, sink);
  EXPECT_EQ(r.error, "walk stream: byte 0: expected the first record, found no data for 20 ms");
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace xrpm::agent
