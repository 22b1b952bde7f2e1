#include "xrpm/model/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace xrpm {
namespace {
constexpr size_t kBufferBytes = size_t{1} << 20;
std::atomic<uint64_t> g_counter{0};

[[noreturn]] void Fail(const std::string& what, const std::string& path) {
  throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}
}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  struct stat st;
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    in_place_ = true;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) Fail("cannot open", path_);
    buf_.reserve(kBufferBytes);
    return;
  }
  tmp_path_ = path_ + ".tmp." + std::to_string(getpid()) + "." + std::to_string(g_counter++);
  fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) Fail("cannot create", tmp_path_);
  buf_.reserve(kBufferBytes);
}

AtomicFile::~AtomicFile() {
  Abort();
}

void AtomicFile::Write(std::string_view bytes) {
  if (fd_ < 0) throw std::logic_error("AtomicFile::Write after Commit/Abort: " + path_);
  written_ += bytes.size();
  if (buf_.size() + bytes.size() > kBufferBytes) Flush();
  if (bytes.size() >= kBufferBytes) {
    buf_.assign(bytes);
    Flush();
  } else {
    buf_.append(bytes);
  }
}

void AtomicFile::Flush() {
  const char* p = buf_.data();
  size_t n = buf_.size();
  while (n) {
    ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      Fail("cannot write", in_place_ ? path_ : tmp_path_);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  buf_.clear();
}

void AtomicFile::Overwrite(uint64_t offset, std::string_view bytes) {
  if (fd_ < 0) throw std::logic_error("AtomicFile::Overwrite after Commit/Abort: " + path_);
  if (offset > written_ || bytes.size() > written_ - offset)
    throw std::out_of_range("AtomicFile::Overwrite past the written bytes of " + path_);
  Flush();
  const char* p = bytes.data();
  size_t n = bytes.size();
  while (n) {
    ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      Fail("cannot write", in_place_ ? path_ : tmp_path_);
    }
    p += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
}

void AtomicFile::Commit() {
  if (fd_ < 0) throw std::logic_error("AtomicFile::Commit twice: " + path_);
  Flush();
  if (in_place_) {
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) Fail("cannot close", path_);
    return;
  }
  if (::fsync(fd_) != 0) Fail("cannot sync", tmp_path_);
  if (::close(fd_) != 0) {
    fd_ = -1;
    Fail("cannot close", tmp_path_);
  }
  fd_ = -1;
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp_path_.c_str());
    errno = e;
    Fail("cannot rename into", path_);
  }
  tmp_path_.clear();
}

void AtomicFile::Abort() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!tmp_path_.empty()) {
    ::unlink(tmp_path_.c_str());
    tmp_path_.clear();
  }
}

}  // namespace xrpm
