// RecordChild: the recording in a copy-on-write child, sent back through a pipe
// (record_child.h).
#include "record_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "xrpm/agent/walk_recording.h"

namespace xrpm {
namespace dotnet {
namespace {

constexpr char kAliveByte = 'A';
constexpr char kRecordByte = 'R';
constexpr int kPipeBytes = 1 << 20;
// More roots than this is a broken stream (the runtime reports tens of thousands).
constexpr uint64_t kMaxRoots = uint64_t{1} << 28;
constexpr size_t kRootsStep = 65536;  // roots read (and their memory grown) at a time

bool g_in_child = false;  // set in a record child only

}  // namespace

RecordChild::~RecordChild() {
  if (!child_.child() && fd_ >= 0) close(fd_);
  child_.Reap(true);  // nothing in the child
}

bool RecordChild::Start(std::string* error, bool stop_for_test) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  fcntl(fds[1], F_SETPIPE_SZ, kPipeBytes);  // best effort: the child writes with fewer waits
  if (!child_.Make(agent::CowChild::Clone::kRaw, error)) {
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (child_.child()) {
    g_in_child = true;
    close(fds[0]);
    fd_ = fds[1];
    // glibc's raise() would signal the parent's thread (its cached thread id, after a raw clone).
    if (stop_for_test) syscall(SYS_kill, static_cast<pid_t>(syscall(SYS_getpid)), SIGSTOP);
    return true;
  }
  close(fds[1]);
  fd_ = fds[0];
  return true;
}

bool RecordChild::Alive() {
  return agent::WriteFully(fd_, &kAliveByte, 1);
}

void RecordChild::Exit(int code) {
  _exit(code);
}

bool RecordChild::InChild() {
  return g_in_child;
}

void RecordChild::SendAndExit(const HeapRecord& record) {
  const uint64_t roots = record.roots.size();
  std::string error;
  const bool sent = agent::WriteFully(fd_, &kRecordByte, 1) &&
                    agent::WriteFully(fd_, &roots, sizeof roots) &&
                    agent::WriteFully(fd_, record.roots.data(), roots * sizeof(RecordedRoot)) &&
                    record.stream.Send(fd_, &error) && record.stream.SendBytes(fd_, &error);
  _exit(sent ? 0 : agent::CowChild::kExitWriteFailed);
}

bool RecordChild::ReceiveHead(HeapRecord* record, std::function<bool()> stop, std::string* error,
                              uint32_t idle_timeout_ms) {
  in_ = std::make_unique<agent::FdByteSource>(fd_, idle_timeout_ms, std::move(stop));
  agent::FdByteSource& in = *in_;
  offset_ = 0;
  // What was expected at the offset reached, and what came instead.
  auto broken = [&](const std::string& expected) {
    const std::string e = in.error();
    return Broken("the record at byte " + std::to_string(offset_) + ": expected " + expected +
                      ", found " + (e.empty() ? std::string("the end of the stream") : e),
                  error);
  };
  char c = kAliveByte;
  while (c == kAliveByte)
    if (!agent::ReadFully(in, &c, 1, &offset_)) return broken("the objects");
  if (c != kRecordByte)
    return Broken("the record at byte " + std::to_string(offset_ - 1) +
                      ": expected 'A' or 'R', found " +
                      std::to_string(static_cast<unsigned char>(c)),
                  error);
  uint64_t roots = 0;
  if (!agent::ReadFully(in, &roots, sizeof roots, &offset_)) return broken("a root count");
  if (roots > kMaxRoots)
    return Broken("the record at byte " + std::to_string(offset_ - sizeof roots) +
                      ": expected at most " + std::to_string(kMaxRoots) + " roots, found " +
                      std::to_string(roots),
                  error);
  record->roots.clear();
  for (uint64_t have = 0; have < roots;) {  // their memory grows with what arrives
    const size_t n = static_cast<size_t>(std::min<uint64_t>(roots - have, kRootsStep));
    record->roots.resize(static_cast<size_t>(have) + n);
    if (!agent::ReadFully(in, record->roots.data() + have, n * sizeof(RecordedRoot), &offset_))
      return broken(std::to_string(roots) + " roots");
    have += n;
  }
  std::string why;
  if (!record->stream.ReceiveHead(in, &why, &offset_)) return Broken(why, error);
  return true;
}

bool RecordChild::More(RecordStream* stream, size_t at_least, std::string* error) {
  if (!in_) return Broken("the record's bytes asked for before its head", error);
  std::string why;
  if (stream->ReceiveMore(*in_, at_least, &offset_, &why)) return true;
  return Broken(why, error);
}

bool RecordChild::Finish(std::string* error) {
  const std::string fate = End(false);
  if (fate.empty()) return true;
  *error = fate;
  return false;
}

std::string RecordChild::End(bool kill) {
  if (fd_ >= 0) close(fd_);  // a child still writing (a stop) fails its next write
  fd_ = -1;
  in_.reset();
  return child_.Reap(kill);
}

bool RecordChild::Broken(const std::string& why, std::string* error) {
  const std::string fate = End(true);
  *error = fate.empty() ? why : why + " (" + fate + ")";
  return false;
}

}  // namespace dotnet
}  // namespace xrpm
