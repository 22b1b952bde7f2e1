// MappedFile: a read-only memory mapping of a whole file, for readers that parse in place.
//
// The mapping is private and read-only. ReleaseBefore() lets a streaming parser hand pages it
// has finished with back to the kernel (madvise MADV_DONTNEED), so parsing a multi-GB dump does
// not keep the whole file in the process's resident set; the data stays in the page cache and is
// faulted back in if it is read again.
//
// Thread-safety: const members may be called from any number of threads; ReleaseBefore() may be
// called concurrently for disjoint ranges.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace xrpm {

class MappedFile {
 public:
  // Maps `path`. Throws InputError (code "open-failed") when it cannot be opened or mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view text() const { return {data_, size_}; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // Drops the resident pages wholly inside [begin, end) of text(); contents remain readable.
  void Release(const char* begin, const char* end) const;

 private:
  std::string path_;
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace xrpm
