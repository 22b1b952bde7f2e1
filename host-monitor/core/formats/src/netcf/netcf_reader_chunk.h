// Internals of the NETCF reader (netcf_reader.h): the per-chunk line parser.
//
// The reader splits the text at line boundaries into chunks. For each chunk (in parallel) it
// first counts an upper bound of the records (CountRecords: objects, references, roots), so the
// final Snapshot columns can be sized once and every chunk parses straight into its own window
// of them (no copy, no regrowth). A chunk does not know whether it starts inside an AppDomain
// section, so besides the columns it records in chunk-local terms the `t` records, section
// events (with the column positions they happened at) and diagnostics with chunk-local line
// numbers. The reader then stitches chunks together (netcf_reader_merge.cpp).
//
// Algorithm: one pass over the bytes with a hand-written scanner (SWAR hex digits, no
// allocation per record except `t`/`a`/`c` names), O(bytes). Every line is processed from a
// buffer ending in '\n' with at least 16 readable bytes after any token start, so the scanner
// needs no bounds checks; a last line without '\n' is copied into a padded buffer first.
//
// Thread-safety: a ChunkParser is used by one thread; separate parsers are independent.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/model/pod_vector.h"
#include "xrpm/model/snapshot.h"

namespace xrpm {
class MappedFile;
}

namespace xrpm::formats {

// The blanks between a `.gclog` line's tokens (the counter and the parser agree on them).
inline bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// Diagnostic codes (stable; tests and scripts match on them).
namespace code {
inline constexpr const char* kUnknownRecord = "unknown-record";
inline constexpr const char* kBadNumber = "bad-number";
inline constexpr const char* kMissingField = "missing-field";
inline constexpr const char* kExtraField = "extra-field";
inline constexpr const char* kBadRootKind = "bad-root-kind";
inline constexpr const char* kUnknownRootFlags = "unknown-root-flags";
inline constexpr const char* kOutsideSection = "outside-section";
inline constexpr const char* kUnclosedSection = "unclosed-section";
inline constexpr const char* kUnmatchedEnd = "unmatched-end";
inline constexpr const char* kEndNameMismatch = "end-name-mismatch";
inline constexpr const char* kDuplicateType = "duplicate-type";
inline constexpr const char* kUnknownType = "unknown-type";
inline constexpr const char* kDuplicateObject = "duplicate-object";
inline constexpr const char* kDanglingRef = "dangling-ref";
inline constexpr const char* kDanglingRoot = "dangling-root";
inline constexpr const char* kNoRecords = "no-records";
}  // namespace code

// Every this-many objects (and roots) a chunk remembers where the record's line starts, so a
// diagnostic found after parsing ("object #k has a dangling reference") can find its line by
// re-parsing at most this many records.
inline constexpr uint64_t kAnchorEvery = 1024;

struct LocalDiag {
  uint64_t line = 0;  // chunk-local, 1-based
  const char* code = "";
  std::string message;
};

struct SectionEvent {
  enum class Kind : uint8_t { kBegin, kEnd, kImplicitBegin };
  Kind kind = Kind::kBegin;
  uint64_t line = 0;     // chunk-local
  uint64_t objects = 0;  // chunk-local record counts when the record was read
  uint64_t roots = 0;
  uint32_t types = 0;
  uint32_t version = 2;           // kBegin
  std::string name;               // kBegin, kEnd ("" when missing)
  std::optional<uint64_t> stamp;  // kBegin, kEnd
};

struct TypeRecord {
  TypeId id = 0;
  std::string name;
  uint64_t line = 0;  // chunk-local
};

struct Anchor {
  uint64_t offset = 0;  // offset of the record's line in the chunk text
  uint64_t line = 0;    // its chunk-local line number
};

// Upper bounds of the records in a text: every line whose first non-blank byte is `o` may be
// an object with (blank bytes on the line - 3) references; every `r` line may be a root.
struct RecordCounts {
  uint64_t objects = 0, refs = 0, roots = 0;
};
// O(bytes), SSE2 when available: 16 bytes per step, newlines and blanks found by compares.
RecordCounts CountRecords(std::string_view text);

// Where a chunk writes its records: windows into the final Snapshot columns, with room for
// RecordCounts of the chunk. store == false: count only (re-parsing for line numbers).
struct ColumnsOut {
  bool store = false;
  ObjectId* object_id = nullptr;
  uint32_t* object_type = nullptr;  // raw type ids; BuildTypes turns them into indices
  uint32_t* object_size = nullptr;
  uint64_t* ref_end = nullptr;  // global CSR ends: ref_base + the chunk's refs so far
  ObjectId* refs = nullptr;
  ObjectId* root_object = nullptr;
  uint8_t* root_kind = nullptr;
  uint8_t* root_flags = nullptr;
  TypeId* root_container = nullptr;
  RecordCounts room;
  uint64_t ref_base = 0;
};

struct ChunkResult {
  RecordCounts stored;  // records written to the ColumnsOut (or counted)

  std::vector<TypeRecord> types;
  std::vector<SectionEvent> events;
  uint64_t first_record_line = 0;  // first record before any section event (0: none)
  bool any_record = false;         // any valid or invalid record (non-blank line)
  uint64_t lines = 0;              // lines in the chunk
  uint64_t stop_line = 0;          // the line at which a stop_after_* limit was reached

  std::vector<LocalDiag> diags;                  // the first max_diags, in line order
  std::map<std::string_view, uint64_t> dropped;  // per code, beyond max_diags
  std::vector<Anchor> object_anchors, root_anchors;
  std::vector<uint64_t> object_lines, root_lines;  // per record, only with record_lines
  bool stopped = false;                            // strict mode: stopped at the first diagnostic
};

struct ChunkOptions {
  ColumnsOut out;  // where records go
  bool strict = false;
  size_t max_diags = 1000;
  const MappedFile* release = nullptr;  // drop parsed pages of this mapping as we go
  uint64_t stop_after_objects = UINT64_MAX;
  uint64_t stop_after_roots = UINT64_MAX;
  uint64_t first_line = 1;    // local line number of the first line in `text`
  bool record_lines = false;  // fill object_lines / root_lines
};

// Parses `text`, which holds whole lines (the last may lack its '\n'). Throws
// std::logic_error if the text holds more records than opts.out has room for (a counting bug;
// never writes outside the windows).
ChunkResult ParseChunk(std::string_view text, const ChunkOptions& opts);

// Lowercase hex without prefix, as the format writes numbers.
std::string HexString(uint64_t v);

// Splits `text` into at most `n` pieces of similar size, each ending just after a '\n' (the
// last at the end of text).
std::vector<std::string_view> SplitAtLines(std::string_view text, unsigned n);

}  // namespace xrpm::formats
