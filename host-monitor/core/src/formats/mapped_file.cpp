#include "mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "xrpm/core/diagnostics.h"

namespace xrpm::formats {
namespace {
[[noreturn]] void Fail(const std::string& path, const char* what, int err) {
  throw InputError(Diagnostic{path, 0, "cannot-open",
                              std::string(what) + " " + path + ": " + std::strerror(err)});
}
}  // namespace

MappedFile::MappedFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail(path, "cannot open", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    Fail(path, "cannot stat", e);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    Fail(path, "not a regular file:", EINVAL);
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      Fail(path, "cannot map", e);
    }
    ::madvise(p, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const char*>(p);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

}  // namespace xrpm::formats
