#include "xrpm/model/frame_recording.h"

#include <algorithm>
#include <iterator>

namespace xrpm {
namespace {
const std::string kUnknownMethod = "<unknown method>";
const std::string kUnknownType = "<unknown type>";
const std::vector<uint32_t> kNoStack;
const std::string kUntagged = "<untagged>";
}  // namespace

const char* MarkerKindName(MarkerKind k) {
  return k == MarkerKind::kCaptureRequest ? "capture-request" : "marker";
}

const char* FrameTotalsName(FrameTotals t) {
  return t == FrameTotals::kEstimated ? "estimated" : "exact";
}

const std::string& FrameRecording::TagName(uint32_t id) const {
  return id >= 1 && id <= tags.size() ? tags[id - 1] : kUntagged;
}

const std::string& FrameRecording::MethodName(uint32_t id) const {
  return id >= 1 && id <= methods.size() ? methods[id - 1] : kUnknownMethod;
}

const std::string& FrameRecording::TypeName(uint32_t id) const {
  return id >= 1 && id <= types.size() ? types[id - 1] : kUnknownType;
}

const std::vector<uint32_t>& FrameRecording::Stack(uint32_t id) const {
  return id >= 1 && id <= stacks.size() ? stacks[id - 1] : kNoStack;
}

void FrameRecording::Append(FrameRecording&& d) {
  if (d.subscription != subscription) {  // a new subscription starts a new recording
    *this = std::move(d);
    return;
  }
  auto move_all = [](auto& into, auto& from) {
    into.insert(into.end(), std::make_move_iterator(from.begin()),
                std::make_move_iterator(from.end()));
  };
  if (!d.app.empty()) app = d.app;
  if (d.sample_bytes) sample_bytes = d.sample_bytes;
  frame_totals = d.frame_totals;  // the subscription's, as the device said it last
  move_all(methods, d.methods);
  move_all(types, d.types);
  move_all(stacks, d.stacks);
  move_all(frames, d.frames);
  move_all(samples, d.samples);
  move_all(tags, d.tags);
  move_all(markers, d.markers);
  dropped_markers = std::max(dropped_markers, d.dropped_markers);
  dropped_records = std::max(dropped_records, d.dropped_records);
  batches += d.batches;
  wire_bytes += d.wire_bytes;
  host_dropped_rows += d.host_dropped_rows;
}

}  // namespace xrpm
