// FieldCapture: a capture with fields (and values) taken over a RawPeer and decoded with the
// protocol library alone (DecodeHeapBatch + FieldChecker), flattened into whole-capture
// columns, for tests of what the device side sends (without the host's model), and a canonical
// text of it to compare two captures (the big-endian check).
//
// Thread-safety: none; one test thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "raw_peer.h"
#include "xrpm/protocol/field_checker.h"
#include "xrpm/protocol/heap_batch.h"

namespace xrpm::testing {

struct FieldCapture {
  wire::Welcome welcome;
  wire::CaptureBegin begin;
  wire::CaptureEnd end;
  uint64_t wire_bytes = 0;  // serialized CaptureBegin + batches
  std::map<uint32_t, std::string> type_names;
  std::map<uint32_t, uint32_t> type_domain;  // TypeEntry.domain (0: no AppDomains named)
  std::map<uint32_t, protocol::RawLayout> layouts;
  std::map<uint32_t, protocol::RawEnum> enums;
  std::vector<protocol::RawContainer> containers;
  // Roots, objects and references of the whole capture, in order (batches concatenated).
  std::vector<uint64_t> root_object;
  std::vector<uint32_t> root_container, root_slot;
  std::vector<uint64_t> object_id;
  std::vector<uint32_t> object_type, object_size, object_ref_count;
  std::vector<uint64_t> object_first_ref;    // index into refs
  std::vector<uint64_t> object_first_value;  // index into values
  std::vector<uint32_t> object_value_count;  // empty without values
  std::vector<uint64_t> refs, values;
  std::vector<uint32_t> ref_slot;
  std::map<uint64_t, size_t> index;  // object id -> its position

  const std::string& TypeName(size_t object) const { return type_names.at(object_type[object]); }
  const protocol::RawLayout* Layout(size_t object) const;
  // The layout index of field `name` of the object's type (kNoSlot when absent).
  uint32_t FieldIndex(size_t object, const std::string& name) const;
  // The target of the object's reference in slot `slot` (0 when none).
  uint64_t RefAt(size_t object, uint32_t slot) const;
  // The decoded value of a non-reference field (fields.h canonical bits); false when absent.
  bool Value(size_t object, const std::string& field, uint64_t* bits) const;
  // A string object's text as UTF-8 (U+FFFD for unpaired surrogates) and its full length.
  std::string Text(size_t object, uint64_t* length = nullptr) const;
};

// The handshake (`welcome` gets the agent's Welcome), then captures on that connection.
bool HandshakeFields(RawPeer& peer, wire::Welcome* welcome, std::string* error);
// A CaptureRequest with fields / values / string_cap and every heap message until CaptureEnd,
// each batch decoded and checked. False with *error set on any failure (refusal, abort, decode
// or check error, timeout). `fields` false: today's capture (neither fields nor values).
bool CaptureFields(RawPeer& peer, const wire::Welcome& welcome, bool values, uint32_t string_cap,
                   FieldCapture* out, std::string* error, uint32_t timeout_ms = 60000,
                   bool fields = true);

// One line per layout, per root (its container and label) and per object (type, size, values
// decoded by kind, strings as text, each reference's field or index and target): equal for two
// captures of the same heap, whatever the byte order of the device.
std::string CanonicalText(const FieldCapture& c);

}  // namespace xrpm::testing
