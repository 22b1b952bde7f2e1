#include "xrpm/emulator/dump_contents.h"

#include <stdexcept>

#include "walk_tee.h"
#include "xrpm/agent/local_capture.h"
#include "xrpm/client/capture_assembler.h"
#include "xrpm/formats/snapshot_io.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"

namespace xrpm::emulator {
namespace {

// Feeds one serialized envelope to the assembler; false with *error when it refuses it.
bool Assemble(client::CaptureAssembler& a, const std::string& bytes, std::string* error) {
  wire::Envelope env;
  if (protocol::ParseEnvelope(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                              protocol::kMaxAgentMessageBytes, &env) != protocol::ParseStatus::kOk)
    return *error = "a capture message does not parse", false;
  switch (env.body_case()) {
    case wire::Envelope::kCaptureBegin:
      return a.Begin(env.capture_begin(), bytes.size(), error);
    case wire::Envelope::kHeapBatch:
      return a.Batch(env.heap_batch(), bytes.size(), error);
    case wire::Envelope::kCaptureEnd:
      return a.End(env.capture_end(), error);
    case wire::Envelope::kCaptureAbort:
      return *error = env.capture_abort().reason(), false;
    default:
      return *error = std::string("unexpected ") + protocol::BodyName(env), false;
  }
}

// "" when `cap` and `dump` hold the same types, objects, references and roots in the same
// order (the indices the fields are keyed by), else which differ. O(objects + references).
std::string SameHeap(const Snapshot& cap, const Snapshot& dump) {
  if (cap.type_count() != dump.type_count()) return "types";
  for (size_t t = 0; t < cap.type_count(); ++t)
    if (cap.types[t].id != dump.types[t].id) return "types";
  if (!(cap.object_id == dump.object_id)) return "objects";
  if (!(cap.refs == dump.refs) || !(cap.ref_end == dump.ref_end)) return "references";
  if (!(cap.root_object == dump.root_object)) return "roots";
  return "";
}

}  // namespace

DumpContents ContentsFor(const std::string& path, bool values, uint32_t string_cap) {
  const formats::FormatInfo* f = formats::FormatForPath(path, false);
  DumpContents c;
  c.fields = f && (f->name == "xrpm" || f->name == "heapsnapshot");
  c.values = c.fields && values;
  c.string_cap = string_cap;
  return c;
}

void WalkWithContents(Runtime& rt, agent::HeapInfoCallback& builder, Snapshot& snap,
                      const DumpContents& contents, uint32_t timeout_ms) {
  agent::LocalCaptureOptions o;
  o.detail.fields = contents.fields;
  o.detail.values = contents.fields && contents.values;
  o.detail.string_cap = contents.string_cap;
  o.stop_timeout_ms = timeout_ms;
  o.walk = [&rt, &builder](agent::HeapInfoCallback& capture) {
    WalkTee tee(builder, capture);
    rt.WalkPaused(tee);  // the dump sink descends depth-first: never a replayed walk
  };
  client::CaptureAssembler assembler(UINT64_MAX, rt.Info().pointer_bytes);
  std::string assembly_error;
  const std::string capture_error = agent::CaptureLocally(rt, o, [&](const std::string& envelope) {
    if (assembly_error.empty()) Assemble(assembler, envelope, &assembly_error);
  });
  if (!capture_error.empty())
    throw std::runtime_error("the dump's capture failed: " + capture_error);
  if (!assembly_error.empty())
    throw std::runtime_error("the dump's capture does not assemble: " + assembly_error);
  Snapshot captured = assembler.Take();
  const std::string differ = SameHeap(captured, snap);
  if (!differ.empty())
    throw std::runtime_error("the dump and its capture walked different " + differ);
  snap.fields = std::move(captured.fields);
}

}  // namespace xrpm::emulator
