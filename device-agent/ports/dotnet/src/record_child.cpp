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
                    record.stream.Send(fd_, &error);
  _exit(sent ? 0 : agent::CowChild::kExitWriteFailed);
}

bool RecordChild::Receive(HeapRecord* record, const std::function<bool()>& stop, std::string* error,
                          uint32_t idle_timeout_ms) {
  agent::FdByteSource in(fd_, idle_timeout_ms, stop);
  bool ok = false;
  uint64_t offset = 0;
  std::string why;
  for (;;) {
    char c = 0;
    const long r = in.Read(&c, 1);
    if (r <= 0) {
      why = "the record at byte " + std::to_string(offset) + ": expected the objects, found " +
            (r == 0 ? std::string("the end of the stream") : in.error());
      break;
    }
    ++offset;
    if (c == kAliveByte) continue;
    if (c != kRecordByte) {
      why = "the record at byte " + std::to_string(offset - 1) + ": expected 'A' or 'R', found " +
            std::to_string(static_cast<unsigned char>(c));
      break;
    }
    uint64_t roots = 0;
    long got = 0;
    for (size_t have = 0; have < sizeof roots; have += static_cast<size_t>(got)) {
      got = in.Read(reinterpret_cast<char*>(&roots) + have, sizeof roots - have);
      if (got <= 0) break;
    }
    if (got <= 0 || roots > kMaxRoots) {
      why = "the record at byte " + std::to_string(offset) + ": expected a root count, found " +
            (got <= 0 ? "the end of the stream" : std::to_string(roots));
      break;
    }
    offset += sizeof roots;
    record->roots.clear();
    size_t left = 0;
    for (uint64_t have = 0; have < roots && left == 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(roots - have, kRootsStep));
      record->roots.resize(static_cast<size_t>(have) + n);
      auto* p = reinterpret_cast<char*>(record->roots.data() + have);
      left = n * sizeof(RecordedRoot);
      while (left > 0 && (got = in.Read(p, left)) > 0) {
        p += got;
        left -= static_cast<size_t>(got);
        offset += static_cast<uint64_t>(got);
      }
      have += n;
    }
    if (left > 0) {
      record->roots.clear();
      why = "the record at byte " + std::to_string(offset) + ": expected " + std::to_string(left) +
            " more bytes of roots, found the end of the stream";
      break;
    }
    ok = record->stream.Receive(in, &why, offset);
    if (!ok) record->roots.clear();
    break;
  }
  close(fd_);  // a child still writing (a stop) fails its next write
  fd_ = -1;
  const std::string fate = child_.Reap(!ok);
  if (ok && fate.empty()) return true;
  *error = ok ? fate : fate.empty() ? why : why + " (" + fate + ")";
  record->stream.Clear();
  record->roots.clear();
  return false;
}

}  // namespace dotnet
}  // namespace xrpm
