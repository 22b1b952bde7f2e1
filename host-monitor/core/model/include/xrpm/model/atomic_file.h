// AtomicFile: writes a file so that readers see either the old file or the complete new one,
// never a half-written file: data goes to "<path>.tmp.<pid>.<n>" in the same directory, is
// flushed and fsync'ed, then renamed over <path> by Commit(). Destroying an uncommitted
// AtomicFile (an error, an exception, a cancelled capture) removes the temporary file.
// A target that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is written in
// place: renaming over it would replace the device or pipe with a file. Nothing is atomic then,
// Overwrite needs a seekable target, and Abort leaves the target where it is.
//
// Writes are buffered (1 MiB). Errors throw std::runtime_error naming the path and errno text.
//
// Thread-safety: none; one writer per instance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace xrpm {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void Write(std::string_view bytes);
  void Write(const void* data, size_t n) {
    Write(std::string_view(static_cast<const char*>(data), n));
  }
  // Replaces bytes already written at [offset, offset + size) (a header whose content is known
  // only once the rest is written). Throws std::out_of_range past bytes_written().
  void Overwrite(uint64_t offset, std::string_view bytes);
  // Flushes, fsyncs and renames the temporary file over the target path.
  void Commit();
  // Removes the temporary file; the target path is left untouched.
  void Abort();

  const std::string& path() const { return path_; }
  uint64_t bytes_written() const { return written_; }

 private:
  void Flush();

  std::string path_;
  std::string tmp_path_;
  int fd_ = -1;
  std::string buf_;
  uint64_t written_ = 0;
  bool in_place_ = false;  // the target is a device or pipe: fd_ is the target itself
};

}  // namespace xrpm
