// RecordChild (device-agent/ports/dotnet/src/record_child.h): what the copy-on-write child
// records reaches the parent whole, roots and objects, its bytes twice and in steps; a child
// that dies (before it sent or while its bytes come), or a receive that is stopped, fails with
// the child's fate and leaves no child behind. Runs without the .NET SDK:
// the child here is this test process's own clone.
#include "record_child.h"

#include <gtest/gtest.h>

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <string>
#include <vector>

namespace xrpm::dotnet {
namespace {

// Waits until the child has stopped itself (stop_for_test): waitpid reports the stop.
bool WaitStopped(pid_t pid) {
  int status = 0;
  pid_t r;
  while ((r = waitpid(pid, &status, WUNTRACED | __WALL)) < 0 && errno == EINTR) {
  }
  return r == pid && WIFSTOPPED(status);
}

bool Gone(pid_t pid) {
  return kill(pid, 0) != 0 && errno == ESRCH;
}

// A child made with the test hook, stopped before it sends: its pid (-1 with a failure added).
// In the child, never returns.
pid_t StartStoppedChild(RecordChild& child, const HeapRecord& record) {
  std::string error;
  if (!child.Start(&error, /*stop_for_test=*/true)) {
    ADD_FAILURE() << error;
    return -1;
  }
  if (child.in_child()) child.SendAndExit(record);  // never reached: killed while stopped
  if (!WaitStopped(child.pid())) {
    ADD_FAILURE() << "the child did not stop";
    return -1;
  }
  return child.pid();
}

// The port's way: the head, then the bytes in steps of `step`, read twice (a Reader over
// what arrived, the stream rewound between), the child then finished. Each pass's ids and
// references into *seen (cleared first).
bool ReceiveAll(RecordChild& child, HeapRecord* record, size_t step, std::vector<uint64_t>* seen,
                std::string* error) {
  if (!child.ReceiveHead(record, nullptr, error)) return false;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) record->stream.Rewind();
    std::vector<uint64_t>& ids = seen[pass];
    ids.clear();
    RecordStream::Reader reader(record->stream);
    for (;;) {
      uint64_t id = 0;
      while (reader.NextRefs(
          &id, [&](const uint64_t* refs, size_t n) { ids.insert(ids.end(), refs, refs + n); })) {
        ids.push_back(id);
        record->stream.Forget(reader.Consumed());
      }
      if (!record->stream.arriving()) break;
      if (!child.More(&record->stream, step, error)) return false;
    }
  }
  return child.Finish(error);
}

// The child appends objects and a root after the clone (as the runtime's report goes on in it),
// says it is alive, and sends: the parent receives what the child had, not what it had itself.
TEST(RecordChild, TheParentReceivesWhatTheChildRecorded) {
  HeapRecord record;
  record.roots.push_back(RecordedRoot{0x1000, cor::GcRootKind{}, 0, 7});
  const uint64_t kObjects = 3 * RecordChild::kAliveObjects + 5;
  RecordChild child;
  std::string error;
  ASSERT_TRUE(child.Start(&error)) << error;
  if (child.in_child()) {
    // Only this thread exists here: no gtest assertions, the record and _exit.
    for (uint64_t i = 0; i < kObjects; ++i) {
      const uint64_t ref = 0x2000 + 8 * i;
      record.stream.Append(0x2000 + 8 * i, 0x9000 + 64 * (i % 3), 24, false, &ref, nullptr, 1,
                           nullptr, 0, nullptr, 0);
      if (i % RecordChild::kAliveObjects == 0 && !child.Alive()) RecordChild::Exit(5);
    }
    record.roots.push_back(RecordedRoot{0x2000, cor::GcRootKind{}, 1, 8});
    child.SendAndExit(record);
  }
  EXPECT_TRUE(child.pending());
  EXPECT_EQ(record.stream.object_count(), 0u);  // the parent recorded nothing itself
  std::vector<uint64_t> seen[2];
  ASSERT_TRUE(ReceiveAll(child, &record, 4096, seen, &error)) << error;
  EXPECT_FALSE(child.pending());
  // Both passes read every object, each once, though no step held them all.
  EXPECT_EQ(seen[0].size(), 2 * kObjects);
  EXPECT_EQ(seen[0], seen[1]);
  ASSERT_EQ(record.roots.size(), 2u);
  EXPECT_EQ(record.roots[1].object, 0x2000u);
  EXPECT_EQ(record.roots[1].flags, 1);
  ASSERT_EQ(record.stream.object_count(), kObjects);
  EXPECT_EQ(record.stream.classes().size(), 3u);
  for (uint64_t i = 0; i < kObjects; ++i) {  // NextRefs gives the references, then the id
    ASSERT_EQ(seen[1][2 * i], 0x2000 + 8 * i) << i;
    ASSERT_EQ(seen[1][2 * i + 1], 0x2000 + 8 * i) << i;
  }
}

// A child that dies while its bytes come (after the head): the step that wanted them fails
// with where the stream ended and the child's fate, and the child is reaped.
TEST(RecordChild, AChildKilledWhileItsBytesComeFailsThatStepWithItsFate) {
  HeapRecord record;
  RecordChild child;
  std::string error;
  std::vector<uint64_t> refs(16);  // allocated before the clone: the child only appends
  ASSERT_TRUE(child.Start(&error)) << error;
  if (child.in_child()) {
    // ~10 MB of references: more than the pipe holds, so the child is still writing.
    for (uint64_t i = 0; i < 200000; ++i) {
      for (size_t r = 0; r < refs.size(); ++r)
        refs[r] = 0x100000 + 8 * ((i * 7919 + r * 104729) % 1000000);
      record.stream.Append(0x2000 + 8 * i, 0x9000, 24, false, refs.data(), nullptr, refs.size(),
                           nullptr, 0, nullptr, 0);
    }
    child.SendAndExit(record);
  }
  const pid_t pid = child.pid();
  ASSERT_TRUE(child.ReceiveHead(&record, nullptr, &error)) << error;
  ASSERT_TRUE(record.stream.arriving());
  ASSERT_GT(record.stream.bytes(), size_t{2} << 20);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  EXPECT_FALSE(child.More(&record.stream, SIZE_MAX, &error));
  EXPECT_NE(error.find("more bytes of objects, found the end of the stream"), std::string::npos)
      << error;
  EXPECT_NE(error.find("killed by signal 9"), std::string::npos) << error;
  EXPECT_EQ(record.stream.object_count(), 0u);
  EXPECT_TRUE(Gone(pid));
}

// A child killed before it sent its record: the receive fails at once (no idle timeout), says
// the child was killed and where the stream ended, and the record stays empty.
TEST(RecordChild, AChildKilledBeforeItSentFailsTheReceiveWithItsFate) {
  HeapRecord record;
  RecordChild child;
  const pid_t pid = StartStoppedChild(child, record);
  ASSERT_GT(pid, 0);
  std::string error;
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  EXPECT_FALSE(child.ReceiveHead(&record, nullptr, &error));
  EXPECT_NE(error.find("the record at byte 0: expected the objects, found the end of the stream"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("killed by signal 9"), std::string::npos) << error;
  EXPECT_EQ(record.stream.object_count(), 0u);
  EXPECT_TRUE(Gone(pid));  // reaped
}

// A receive stopped while the child works (a cancelled capture): false within the stop's
// 100 ms slice, the child killed and reaped.
TEST(RecordChild, AStoppedReceiveKillsAndReapsTheChild) {
  HeapRecord record;
  RecordChild child;
  const pid_t pid = StartStoppedChild(child, record);
  ASSERT_GT(pid, 0);
  std::string error;
  std::atomic<int> asked{0};
  EXPECT_FALSE(child.ReceiveHead(
      &record, [&] { return ++asked > 2; }, &error));
  EXPECT_GE(asked.load(), 3);
  EXPECT_NE(error.find("the record at byte 0"), std::string::npos) << error;
  EXPECT_TRUE(Gone(pid));
}

}  // namespace
}  // namespace xrpm::dotnet
