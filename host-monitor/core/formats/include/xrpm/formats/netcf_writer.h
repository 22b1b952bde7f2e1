// NETCF text heap dump (.gclog) writer. Format: docs/formats/netcf-gclog.md.
//
// Canonical form (what `write(read(f))` reproduces byte for byte):
//   per section: `a <version> <name>[ <start>]`, then every `t` record in type-table order,
//   then every `o` record in object order, then every `r` record in root order, then
//   `c <end name>[ <end>]` (omitted when the section is unclosed). All numbers are lowercase
//   hex without prefix, fields are separated by one space, lines end with LF. Timestamps that
//   are absent in the model are omitted. Roots carry the container element only for kind 4.
//   Placeholder types (ids a lenient reader met without a `t` record) are not written: the input
//   did not have them either.
//
// NetcfTextWriter streams records to any byte sink (a file, a buffer, a socket); WriteNetcf
// writes a whole Snapshot atomically (temp file + rename).
//
// Thread-safety: none; one writer per output.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

class NetcfTextWriter {
 public:
  using Sink = std::function<void(std::string_view)>;
  explicit NetcfTextWriter(Sink sink) : sink_(std::move(sink)) { buf_.reserve(kFlushBytes + 4096); }
  ~NetcfTextWriter() = default;  // call Finish() to flush; the destructor does not write

  void BeginSection(uint32_t version, std::string_view name, std::optional<uint64_t> start_ms);
  void Type(TypeId id, std::string_view name);
  void Object(ObjectId id, TypeId type, uint32_t size, std::span<const ObjectId> refs);
  void Root(ObjectId object, RootKind kind, uint8_t flags, TypeId container);
  void EndSection(std::string_view name, std::optional<uint64_t> end_ms);
  void Finish();  // flushes buffered bytes to the sink

 private:
  static constexpr size_t kFlushBytes = 256 * 1024;
  void Hex(uint64_t v);
  void MaybeFlush() {
    if (buf_.size() >= kFlushBytes) Finish();
  }
  Sink sink_;
  std::string buf_;
};

// Writes every record of `snap` in canonical form through `sink`.
void WriteNetcf(const Snapshot& snap, const NetcfTextWriter::Sink& sink);
// Writes `snap` to `path` atomically. Throws std::runtime_error on I/O errors.
void WriteNetcfFile(const Snapshot& snap, const std::string& path);

}  // namespace xrpm::formats
