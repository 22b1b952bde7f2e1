#include "frame_batch_reader.h"

#include <algorithm>
#include <cstdio>

#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/gc_kinds.h"

namespace xrpm::client {
namespace {
constexpr size_t kMaxNameBytes = 1024;
}

void FrameBatchReader::Reset() {
  seq_ = 0;
  methods_ = types_ = stacks_ = tags_ = 0;
  frames_ = 0;
  dropped_ = 0;
}

bool FrameBatchReader::Read(const wire::FrameBatch& b, size_t wire_bytes, uint64_t room,
                            FrameRecording* d, std::string* error) {
  auto fail = [&](const std::string& why) {
    *error = "frame batch " + std::to_string(b.seq()) + ": " + why;
    return false;
  };
  if (b.seq() != seq_ + 1)
    return fail("out of sequence (expected " + std::to_string(seq_ + 1) + ")");
  const size_t defs = size_t(b.methods_size()) + b.types_size() + b.stacks_size() + b.tags_size();
  if (defs > protocol::kMaxFrameBatchDefs)
    return fail(std::to_string(defs) + " definitions, over the limit of " +
                std::to_string(protocol::kMaxFrameBatchDefs));
  const size_t rows = size_t(b.frames_size()) + b.samples_size();
  if (rows > protocol::kMaxFrameBatchRows)
    return fail(std::to_string(rows) + " rows, over the limit of " +
                std::to_string(protocol::kMaxFrameBatchRows));
  if (b.sample_bytes() < protocol::kMinSampleBytes || b.sample_bytes() > protocol::kMaxSampleBytes)
    return fail("sample interval " + std::to_string(b.sample_bytes()) + " out of range");
  if (b.dropped_records() < dropped_) return fail("dropped_records went backwards");
  if (b.markers_size() > static_cast<int>(protocol::kMaxBatchMarkers))
    return fail(std::to_string(b.markers_size()) + " markers, over the limit of " +
                std::to_string(protocol::kMaxBatchMarkers));
  for (const auto& x : b.markers()) {
    if (x.text().size() > protocol::kMaxMarkerBytes)
      return fail("marker of " + std::to_string(x.text().size()) + " bytes, over the limit of " +
                  std::to_string(protocol::kMaxMarkerBytes));
    if (x.kind() != wire::MARKER && x.kind() != wire::CAPTURE_REQUEST)
      return fail("marker of unknown kind " + std::to_string(x.kind()));
  }
  // Validate everything before changing any state.
  uint32_t m = methods_, t = types_, s = stacks_, g = tags_;
  for (const auto& x : b.methods()) {
    if (x.id() != m + 1) return fail("method id " + std::to_string(x.id()) + " out of order");
    if (x.name().size() > kMaxNameBytes) return fail("method name over 1024 bytes");
    if (++m > protocol::kMaxFrameDefs) return fail("more than 4096 methods");
  }
  for (const auto& x : b.types()) {
    if (x.id() != t + 1) return fail("type id " + std::to_string(x.id()) + " out of order");
    if (x.name().size() > kMaxNameBytes) return fail("type name over 1024 bytes");
    if (++t > protocol::kMaxFrameDefs) return fail("more than 4096 types");
  }
  for (const auto& x : b.stacks()) {
    if (x.id() != s + 1) return fail("stack id " + std::to_string(x.id()) + " out of order");
    if (static_cast<uint32_t>(x.methods_size()) > protocol::kMaxStackDepth)
      return fail("stack " + std::to_string(x.id()) + " deeper than " +
                  std::to_string(protocol::kMaxStackDepth));
    for (uint32_t id : x.methods())
      if (id == 0 || id > m)
        return fail("stack " + std::to_string(x.id()) + " names undefined method " +
                    std::to_string(id));
    if (++s > protocol::kMaxFrameDefs) return fail("more than 4096 stacks");
  }
  for (const auto& x : b.tags()) {
    if (x.id() != g + 1) return fail("tag id " + std::to_string(x.id()) + " out of order");
    if (x.name().size() > protocol::kMaxMarkerBytes)
      return fail("tag of " + std::to_string(x.name().size()) + " bytes, over the limit of " +
                  std::to_string(protocol::kMaxMarkerBytes));
    if (++g > protocol::kMaxFrameTags)
      return fail("more than " + std::to_string(protocol::kMaxFrameTags) + " tags");
  }
  for (const auto& x : b.frames())
    if (!protocol::GcKindsValid(x.gc_kinds(), x.gcs())) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "%08x", x.gc_kinds());
      return fail("frame " + std::to_string(x.frame()) + ": collection kinds 0x" + hex +
                  " malformed for " + std::to_string(x.gcs()) +
                  " collections (expected a byte per collection, bit 7 set, reason 0-4, no gaps)");
    }
  for (const auto& x : b.samples())
    if (x.stack() > s || x.type() > t || x.tag() > g)
      return fail("sample refers to undefined stack " + std::to_string(x.stack()) + ", type " +
                  std::to_string(x.type()) + " or tag " + std::to_string(x.tag()));

  seq_ = b.seq();
  methods_ = m;
  types_ = t;
  stacks_ = s;
  tags_ = g;
  dropped_ = b.dropped_records();
  d->dropped_markers = std::max(d->dropped_markers, b.dropped_markers());
  for (const auto& x : b.tags()) d->tags.push_back(x.name());
  for (const auto& x : b.markers()) {  // markers count against the host's row limit too
    if (room == 0) {
      ++d->host_dropped_rows;
      continue;
    }
    --room;
    d->markers.push_back(
        {x.kind() == wire::CAPTURE_REQUEST ? MarkerKind::kCaptureRequest : MarkerKind::kMarker,
         x.text(), x.frame(), x.time_us()});
  }
  d->sample_bytes = b.sample_bytes();
  d->dropped_records = b.dropped_records();
  ++d->batches;
  d->wire_bytes += wire_bytes;
  for (const auto& x : b.methods()) d->methods.push_back(x.name());
  for (const auto& x : b.types()) d->types.push_back(x.name());
  for (const auto& x : b.stacks()) d->stacks.emplace_back(x.methods().begin(), x.methods().end());
  for (const auto& x : b.frames()) {
    ++frames_;
    if (room == 0) {
      ++d->host_dropped_rows;
      continue;
    }
    --room;
    d->frames.push_back({x.frame(), x.end_us(), x.duration_us(), x.work_us(), x.alloc_bytes(),
                         x.alloc_objects(), x.gcs(), x.gc_pause_us(), x.gc_budget_left(),
                         x.gc_kinds()});
  }
  for (const auto& x : b.samples()) {
    if (room == 0) {
      ++d->host_dropped_rows;
      continue;
    }
    --room;
    d->samples.push_back({x.frame(), x.stack(), x.type(), x.size(), x.tag()});
  }
  return true;
}

}  // namespace xrpm::client
