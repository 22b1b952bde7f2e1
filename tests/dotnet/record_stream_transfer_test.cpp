// RecordStream (device-agent/ports/dotnet/src/record_stream.h) through a pipe, as a snapshot
// process sends its record: whole, and in steps read as they come (the window the .NET port's
// walk reads twice), with every short or inconsistent stream refused with the byte and what was
// expected.
#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "record_stream.h"
#include "record_stream_objects.h"
#include "sanitizers.h"
#include "xrpm/agent/walk_recording.h"

namespace xrpm::dotnet {
namespace {

// Sends `s` through a pipe (a thread writes, as the child would) and receives it into *out.
bool ThroughAPipe(const RecordStream& s, RecordStream* out, std::string* error) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  std::string send_error;
  bool sent = false;
  std::thread writer([&] {
    // SIGPIPE blocked on this thread: a write after the reader closed fails with EPIPE.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
    sent = s.Send(fds[1], &send_error);
    close(fds[1]);
  });
  agent::FdByteSource in(fds[0], 5000);
  const bool received = out->Receive(in, error);
  close(fds[0]);  // a receive that gave up early: the writer's next write fails, it ends
  writer.join();
  EXPECT_TRUE(sent) << send_error;
  return received;
}

// What `s` writes to a pipe (Send, then SendBytes when bytes_again: a snapshot process's
// sending), read whole from the other end while a thread writes, as the child would.
std::string SentThroughAPipe(const RecordStream& s, bool bytes_again) {
  std::string bytes;
  int fds[2];
  if (pipe(fds) != 0) {
    ADD_FAILURE() << "pipe";
    return bytes;
  }
  std::string send_error;
  std::thread writer([&] {
    EXPECT_TRUE(s.Send(fds[1], &send_error) && (!bytes_again || s.SendBytes(fds[1], &send_error)))
        << send_error;
    close(fds[1]);
  });
  char buf[65536];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) bytes.append(buf, static_cast<size_t>(n));
  writer.join();
  close(fds[0]);
  return bytes;
}

// What a copy-on-write child records comes back whole through its pipe: every object, the
// slices a reader on several threads takes (checkpoints), and the state the next Append reads
// (the previous id and shape, the class table): objects appended after the transfer read back
// the same on either side.
TEST(RecordStream, ComesBackWholeThroughAPipeAndAppendsOnAsTheSender) {
  const std::vector<Made> made = MixedObjects(200000, 11);
  RecordStream sent;
  for (const Made& m : made) Put(sent, m);
  RecordStream received;
  received.Reserve(1000, 1000, 4);  // far too small: Receive maps what it needs
  std::string error;
  ASSERT_TRUE(ThroughAPipe(sent, &received, &error)) << error;
  EXPECT_EQ(received.object_count(), sent.object_count());
  EXPECT_EQ(received.ref_count(), sent.ref_count());
  EXPECT_EQ(received.bytes(), sent.bytes());
  EXPECT_EQ(received.classes(), sent.classes());
  ExpectSame(received, made);
  IdsAndRefs whole;
  for (const Made& m : made) whole.emplace_back(m.id, m.refs);
  ExpectSlicesGive(received, whole, 3);

  // Appended on both sides: objects of the last one's shape, of a known class, of a new one.
  std::vector<Made> more = {made.back(), made[5], made.back()};
  more[0].id = made.back().id + 64;
  more[1].id = more[0].id + 64;
  more[2].id = more[1].id + 64;
  more[2].klass = 0x7e00000f0000;
  std::vector<Made> all = made;
  for (const Made& m : more) {
    Put(sent, m);
    Put(received, m);
    all.push_back(m);
  }
  EXPECT_EQ(received.bytes(), sent.bytes());  // the same codes: the same state
  EXPECT_EQ(received.classes(), sent.classes());
  ExpectSame(received, all);

  // An empty stream too.
  RecordStream empty;
  ASSERT_TRUE(ThroughAPipe(empty, &received, &error)) << error;
  EXPECT_EQ(received.object_count(), 0u);
}

// The receive in steps, as the .NET port's walk reads a snapshot process's record: the head,
// then the bytes a window at a time, read as they come, each step in the place of what the
// reader left behind (Forget), twice (the sender's SendBytes, the receiver's Rewind), with
// objects appended between the passes; each pass reads every object as sent, and no read goes
// past the bytes that arrived (the reader stops there and goes on after the next step).
TEST(RecordStream, ArrivesInStepsAndIsReadTwiceThroughAWindow) {
  const std::vector<Made> made = MixedObjects(500000, 13);
  RecordStream sent;
  for (const Made& m : made) Put(sent, m);
  const std::string bytes = SentThroughAPipe(sent, /*bytes_again=*/true);
  agent::MemoryByteSource in(bytes.data(), bytes.size());
  RecordStream r;
  r.Reserve(4 << 20, 0, 8);  // mapped, untouched: as the port reserves for a child's record
  // Appended between the passes (the port's non-GC heap objects): enough to pass a checkpoint
  // (every 65,536 objects) that lies beyond the bytes that arrive.
  ASSERT_LT(made.size() % 65536 + 30000, 2 * 65536u);
  ASSERT_GT(made.size() % 65536 + 30000, 65536u);
  std::vector<Made> appended(made.begin() + 7, made.begin() + 30007);
  for (size_t i = 0; i < appended.size(); ++i) appended[i].id = made.back().id + 64 * (i + 1);
  std::vector<Made> all = made;
  all.insert(all.end(), appended.begin(), appended.end());
  std::string error;
  uint64_t offset = 0;
  const size_t resident_before = ResidentBytes();
  size_t resident_most = resident_before;
  ASSERT_TRUE(r.ReceiveHead(in, &error, &offset)) << error;
  EXPECT_EQ(r.object_count(), made.size());
  EXPECT_EQ(r.bytes(), sent.bytes());
  EXPECT_TRUE(r.arriving());
  long faults[2] = {0, 0};  // minor page faults in each pass
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      for (const Made& m : appended) Put(r, m);  // every byte here: appending goes on as sent
      r.Rewind();
      EXPECT_TRUE(r.arriving());
    }
    const std::vector<Made>& want = pass == 0 ? made : all;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    faults[pass] = -usage.ru_minflt;
    RecordStream::Reader reader(r);
    StreamObject o;
    std::vector<uint64_t> refs;  // one for every object: no allocation per object
    size_t i = 0, steps = 0;
    for (;;) {
      while (reader.Next(&o, 3)) {
        ASSERT_LT(i, want.size());
        const Made& m = want[i];
        ASSERT_EQ(o.id, m.id) << pass << " " << i;
        ASSERT_EQ(o.values, m.values) << i;
        ASSERT_EQ(o.text, m.text) << i;
        refs.assign(o.refs.begin(), o.refs.end());
        while (reader.Part(&o)) refs.insert(refs.end(), o.refs.begin(), o.refs.end());
        ASSERT_EQ(refs, m.refs) << i;
        ++i;
        r.Forget(reader.Consumed());
      }
      if (!r.arriving()) break;
      ASSERT_TRUE(r.ReceiveMore(in, 100000, &offset, &error)) << error;
      resident_most = std::max(resident_most, ResidentBytes());
      ++steps;
    }
    getrusage(RUSAGE_SELF, &usage);
    faults[pass] += usage.ru_minflt;
    EXPECT_EQ(i, want.size()) << pass;
    EXPECT_GT(steps, 3u) << "the bytes came in steps";
  }
  // A window, never the whole record. (Under ASan its quarantine keeps what the test frees
  // resident, and its shadow memory faults too: the release stage checks these.)
  ASSERT_GT(sent.bytes(), size_t{4} << 20);
  if (!xrpm::testing::kUnderAsan) {
    EXPECT_LT(resident_most - resident_before, sent.bytes() / 2)
        << "resident " << resident_most - resident_before << " of " << sent.bytes() << " bytes";
    // Each step's bytes take the place of those read before them: the window's pages fault
    // in once a pass (a fault per 4 KiB page of the record would be ~1,700 a pass).
    for (long f : faults) EXPECT_LT(f, static_cast<long>(sent.bytes() / 4096 / 3)) << f;
  }
  EXPECT_EQ(offset, bytes.size());  // both sendings read, nothing more
  // A step past the end of the source: refused with the byte and what was missing.
  agent::MemoryByteSource cut(bytes.data(), bytes.size() / 3);
  offset = 0;
  ASSERT_TRUE(r.ReceiveHead(cut, &error, &offset)) << error;
  EXPECT_FALSE(r.ReceiveMore(cut, SIZE_MAX, &offset, &error));
  EXPECT_NE(error.find("more bytes of objects, found the end of the stream"), std::string::npos)
      << error;
  EXPECT_EQ(r.object_count(), 0u);
}

// A stream cut short anywhere, or whose header contradicts itself, is refused with the byte
// offset and what was expected, and leaves the stream empty; never a crash or a read past the
// bytes given.
TEST(RecordStream, ReceiveRefusesAShortOrInconsistentStream) {
  const std::vector<Made> made = MixedObjects(70000, 12);
  RecordStream s;
  for (const Made& m : made) Put(s, m);
  const std::string bytes = SentThroughAPipe(s, /*bytes_again=*/false);
  RecordStream r;
  std::string error;
  for (const size_t cut :
       {size_t{0}, size_t{7}, size_t{100}, size_t{200}, bytes.size() / 2, bytes.size() - 1}) {
    agent::MemoryByteSource in(bytes.data(), cut);
    EXPECT_FALSE(r.Receive(in, &error)) << cut;
    EXPECT_NE(error.find("the record at byte "), std::string::npos) << error;
    EXPECT_NE(error.find("expected"), std::string::npos) << error;
    EXPECT_NE(error.find("found the end of the stream"), std::string::npos) << error;
    EXPECT_EQ(r.object_count(), 0u);
    EXPECT_EQ(r.bytes(), 0u);
  }
  // The header's counts: objects without a checkpoint each 65,536, a wrong magic.
  std::string wrong = bytes;
  wrong[0] ^= 0x20;
  agent::MemoryByteSource bad_magic(wrong.data(), wrong.size());
  EXPECT_FALSE(r.Receive(bad_magic, &error));
  EXPECT_NE(error.find("expected the magic XRS1"), std::string::npos) << error;
  wrong = bytes;
  // The object count (the u64 at 24, after the bytes used) 65,536 higher: a checkpoint short.
  wrong[24 + 2] = static_cast<char>(wrong[24 + 2] + 1);
  agent::MemoryByteSource bad_count(wrong.data(), wrong.size());
  EXPECT_FALSE(r.Receive(bad_count, &error));
  EXPECT_NE(error.find("the record at byte 0: expected"), std::string::npos) << error;
  EXPECT_EQ(r.object_count(), 0u);
  // The last class (the u64 at 56) not the class at the last index: the next Append would
  // take the wrong index.
  wrong = bytes;
  wrong[56] = static_cast<char>(wrong[56] ^ 0x40);
  agent::MemoryByteSource bad_last(wrong.data(), wrong.size());
  EXPECT_FALSE(r.Receive(bad_last, &error));
  EXPECT_NE(error.find("the record at byte 0: expected the last class"), std::string::npos)
      << error;
  // A checkpoint past the bytes (the header, 120 bytes, then 300 classes of 8, then the first
  // checkpoint's position).
  ASSERT_EQ(s.classes().size(), 300u);
  wrong = bytes;
  wrong[120 + 300 * 8 + 6] = 0x7f;
  agent::MemoryByteSource bad_checkpoint(wrong.data(), wrong.size());
  EXPECT_FALSE(r.Receive(bad_checkpoint, &error));
  EXPECT_NE(error.find("the record at byte 0: expected ascending checkpoints inside its"),
            std::string::npos)
      << error;
  EXPECT_EQ(r.object_count(), 0u);
  // And the whole stream is taken.
  agent::MemoryByteSource whole(bytes.data(), bytes.size());
  ASSERT_TRUE(r.Receive(whole, &error)) << error;
  ExpectSame(r, made);
}

}  // namespace
}  // namespace xrpm::dotnet
