#include "xrpm/model/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "xrpm/model/diagnostics.h"

namespace xrpm {

namespace {
[[noreturn]] void Fail(const std::string& path, const char* what) {
  throw InputError(Diagnostic{path, 0, "open-failed",
                              std::string("cannot ") + what + ": " + std::strerror(errno)});
}
}  // namespace

MappedFile::MappedFile(const std::string& path) : path_(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail(path, "open the file");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    errno = e;
    Fail(path, "stat the file");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    Fail(path, "read it as a regular file");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      errno = e;
      Fail(path, "map the file");
    }
    data_ = static_cast<const char*>(p);
    ::madvise(p, size_, MADV_SEQUENTIAL);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

void MappedFile::Release(const char* begin, const char* end) const {
  constexpr uintptr_t kPage = 4096;
  if (!data_ || begin < data_) begin = data_;
  if (end > data_ + size_) end = data_ + size_;
  uintptr_t b = (reinterpret_cast<uintptr_t>(begin) + kPage - 1) & ~(kPage - 1);
  uintptr_t e = reinterpret_cast<uintptr_t>(end) & ~(kPage - 1);
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);
}

}  // namespace xrpm
