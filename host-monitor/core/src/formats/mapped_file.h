// MappedFile: a read-only view of a whole file through mmap, for readers that scan input once.
// The kernel pages the file in and out as the scan moves (MADV_SEQUENTIAL), so reading a file
// costs no heap memory proportional to its size. An empty file is an empty view.
//
// Thread-safety: the view is immutable; any number of threads may read it.
#pragma once

#include <string>
#include <string_view>

namespace xrpm::formats {

class MappedFile {
 public:
  // Throws InputError ("cannot open <path>: <errno text>") when the file cannot be read.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view text() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace xrpm::formats
