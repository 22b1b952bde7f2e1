// Internals of the NETCF reader (netcf_reader.h): the stages after the per-chunk parse.
//
//   CountRecords (parallel) -> PlaceColumns: size the columns once, a window per chunk
//   -> ParseChunk (parallel, netcf_reader_chunk.h) into the windows
//   -> CompactColumns: close the gaps left where a chunk stored fewer records than counted
//   -> AssembleSections: stitch the chunks' section events into AppDomain sections   O(events)
//   -> BuildTypes: per section, the `t` records then placeholders for unknown ids;
//      object type ids become type indices                                         O(objects)
//   -> CheckIds: duplicate object ids, dangling references and roots (IdSet)   O(objects + refs)
//   -> RemoveObjects: drop later duplicates                                    O(objects + refs)
//
// Problems found after parsing are reported against a record index (AnchoredDiag); the reader
// turns that into a line number by re-parsing from the nearest anchor.
//
// Thread-safety: each stage works on the data it is given; CheckIds and BuildTypes use
// `threads` worker threads internally.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "netcf_reader_chunk.h"
#include "xrpm/model/fork_join.h"
#include "xrpm/model/id_hash.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

// Problems waiting to be reported, each list capped so hostile input stays bounded.
struct PendingDiags {
  struct Lined {
    uint64_t line;
    const char* code;
    std::string message;
  };
  struct Anchored {  // found after parsing: the line is that of object/root `index`
    bool root;
    uint64_t index;
    const char* code;
    std::string message;
  };
  size_t cap = 1000;
  std::vector<Lined> lined;
  std::vector<Anchored> anchored;
  std::map<std::string_view, uint64_t> dropped;  // per code, beyond the caps

  void Add(uint64_t line, const char* code, std::string message) {
    if (lined.size() < cap)
      lined.push_back({line, code, std::move(message)});
    else
      ++dropped[code];
  }
  bool HasRoom() const { return anchored.size() < cap; }
  void AddAnchored(bool root, uint64_t index, const char* code, std::string message) {
    if (HasRoom())
      anchored.push_back({root, index, code, std::move(message)});
    else
      ++dropped[code];
  }
  bool empty() const { return lined.empty() && anchored.empty() && dropped.empty(); }
};

// Per section: the `t` records that belong to it, in file order (pointers into the chunks).
using SectionTypes = std::vector<std::vector<TypeRecord*>>;

// Creates snap.sections (with object and root ranges) from the chunks' events. `line_base[c]`
// is the number of lines before chunk c.
SectionTypes AssembleSections(std::vector<ChunkResult>& chunks,
                              const std::vector<uint64_t>& line_base, Snapshot& snap,
                              PendingDiags& diags);

// Sizes snap's record columns for the sum of `room` (huge pages advised, nothing written) and
// returns one window per chunk.
std::vector<ColumnsOut> PlaceColumns(const std::vector<RecordCounts>& room, Snapshot& snap);

// After parsing into PlaceColumns' windows: moves each chunk's records down to follow the
// previous chunk's (fixing ref_end), sets the final column sizes, and fills root_origin.
// object_type still holds raw type ids afterwards.
void CompactColumns(const std::vector<RecordCounts>& room, const std::vector<ChunkResult>& chunks,
                    Snapshot& snap);

// Builds snap.types and turns object_type into type indices (placeholders for unknown ids).
void BuildTypes(SectionTypes& section_types, Snapshot& snap, PendingDiags& diags);

// Finds duplicate object ids (all of them, sorted: later occurrences), dangling references
// and dangling roots (reported to `diags`, capped).
std::vector<uint64_t> CheckIds(const Snapshot& snap, unsigned threads, PendingDiags& diags);

// Removes the objects at the sorted indices `drop` (and their references), fixing sections.
void RemoveObjects(Snapshot& snap, const std::vector<uint64_t>& drop);

}  // namespace xrpm::formats
