// The .xrpm container, read (xrpm_file.h, docs/FORMAT.md): the header, the table of contents and
// each part's block table validated against each other and the file's size, then blocks read,
// checksummed and decompressed on demand. What the parts mean (the snapshot's columns and blobs)
// is xrpm_reader.cpp's job; this file knows only which tags are xrpm's own, with their width and
// transform.
//
// Every failure is an InputError naming the file, the part's tag and a byte offset.
//
// Thread-safety: a FileReader and a Layout are read-only once built, so blocks may be loaded on
// several threads at once, each with its own Worker.
#pragma once

#include <zstd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/human_format.h"
#include "xrpm_blocks.h"
#include "xrpm_layout.h"

namespace xrpm::formats {

struct DctxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

struct KnownPart {
  std::string_view tag;
  uint8_t width;
  XrpmTransform transform;
};
// The part of xrpm's own with this tag, or nullptr.
const KnownPart* FindKnown(std::string_view tag);

class FileReader {
 public:
  explicit FileReader(const std::string& path);
  // Reads from memory instead (ReadXrpm); `bytes` must outlive the reader.
  FileReader(std::string_view bytes, std::string name)
      : path_(std::move(name)), mem_(bytes), size_(bytes.size()) {}
  ~FileReader();
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  [[noreturn]] void Fail(uint64_t offset, const std::string& code, const std::string& msg) const {
    throw InputError(
        Diagnostic{path_, 0, code, "at byte offset " + std::to_string(offset) + ": " + msg});
  }
  [[noreturn]] void FailPart(const TocEntry& e, uint64_t offset, const std::string& code,
                             const std::string& msg) const {
    Fail(offset, code, "part '" + e.tag_string() + "': " + msg);
  }

  // Reads exactly n bytes at `offset` (callers checked the range against size()).
  void Read(uint64_t offset, void* dst, size_t n) const;

  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // False only for fuzzing (XrpmReadOptions::verify_checksums).
  bool verify = true;
  // Fails with a checksum error unless the sums agree (or checks are off).
  void CheckSum(uint64_t stored, uint64_t computed, uint64_t offset,
                const std::string& what) const {
    if (verify && stored != computed)
      Fail(offset, "checksum",
           what + " checksum mismatch (stored " + FormatHex(stored, 16) + ", computed " +
               FormatHex(computed, 16) + ")");
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::string_view mem_;
  uint64_t size_ = 0;
};

struct PartState {
  TocEntry e;
  uint64_t toc_offset = 0;
  const KnownPart* known = nullptr;
  bool wanted = false;  // an extra part the caller asked for
  std::vector<BlockEntry> blocks;
  std::vector<uint64_t> block_offset;  // file offset of each block
};

// Validated header, TOC and block tables.
struct Layout {
  Header h;
  std::vector<PartState> parts;
};

// Steps 1-2 of xrpm_reader.cpp's order: the header and the table of contents.
Layout ReadLayout(const FileReader& f);
// Step 3, for one part: its block table.
void ReadBlockTable(const FileReader& f, PartState& p);

// One worker's buffers for reading and decompressing blocks.
struct Worker {
  std::unique_ptr<ZSTD_DCtx, DctxDeleter> ctx{ZSTD_createDCtx()};
  std::string stored, decoded;
};

// Reads, checks and decompresses block b of p into dst (decoded_bytes long).
void LoadBlock(const FileReader& f, const PartState& p, uint32_t b, Worker& w, char* dst);
// A blob part (width 0) whole.
std::string LoadBlob(const FileReader& f, const PartState& p, Worker& w);
// The range [begin, end) of values in block b.
std::pair<uint64_t, uint64_t> BlockRange(const TocEntry& e, uint32_t b);
// Block b of a column part, unpacked into col.
void LoadColumnBlock(const FileReader& f, const PartState& p, uint32_t b, Worker& w,
                     const ColumnView& col);

}  // namespace xrpm::formats
