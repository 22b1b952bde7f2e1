// libFuzzer target: saved recordings (formats::ParseRecording: the .xrpm container, then the
// recording parts rhdr, rdef, rmrk, rf.., rs..) on arbitrary bytes.
//
// Per input, beyond "no crash, hang, leak or sanitizer report":
//   1. a read with checksums verified and one without (mutated inputs otherwise stop at the
//      first checksum) each return a recording or throw InputError, never anything else;
//   2. a recording that was accepted keeps what the analyses rely on: sample ids within the
//      tables, stacks of defined methods, strictly increasing frames, bounded text; and the
//      analyses of `xrpm frames` / `xrpm allocations` run on it;
//   3. it is lossless: encoding it and reading that back gives an equal recording, and the
//      rewrite is a fixed point;
//   4. the two reads agree whenever the checksummed one succeeds.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "xrpm/analysis/allocation_profile.h"
#include "xrpm/analysis/frame_summary.h"
#include "xrpm/formats/recording_file.h"
#include "xrpm/formats/xrpm_file.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::fuzz {
namespace {

std::optional<formats::SavedRecording> TryRead(std::string_view bytes, bool verify) {
  try {
    return formats::ParseRecording(bytes, "fuzz", verify);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::string Rewrite(const formats::SavedRecording& r) {
  formats::XrpmWriteOptions w;
  w.threads = 1;
  w.block_bytes = 4096;
  w.extra_parts = formats::EncodeRecordingParts(r);
  return formats::WriteXrpm(Snapshot{}, w);
}

void CheckRecording(const formats::SavedRecording& s) {
  const FrameRecording& r = s.rec;
  for (const auto& st : r.stacks) {
    XRPM_FUZZ_CHECK(st.size() <= protocol::kMaxStackDepth, "stack depth");
    for (uint32_t m : st) XRPM_FUZZ_CHECK(m >= 1 && m <= r.methods.size(), "stack method id");
  }
  for (const auto& x : r.samples)
    XRPM_FUZZ_CHECK(
        x.stack <= r.stacks.size() && x.type <= r.types.size() && x.tag <= r.tags.size(),
        "sample id");
  for (size_t i = 1; i < r.frames.size(); ++i)
    XRPM_FUZZ_CHECK(r.frames[i].frame > r.frames[i - 1].frame, "frame order");
  for (const auto& m : r.markers)
    XRPM_FUZZ_CHECK(m.text.size() <= protocol::kMaxMarkerBytes, "marker text");
  const analysis::FrameSummary fs = analysis::SummarizeFrames(r);
  XRPM_FUZZ_CHECK(fs.frames == r.frames.size(), "summary frame count");
  const analysis::AllocationProfile p = analysis::BuildAllocationProfile(r);
  XRPM_FUZZ_CHECK(p.total.samples == r.samples.size(), "profile sample count");
}

}  // namespace
}  // namespace xrpm::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm;
  using namespace xrpm::fuzz;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::optional<formats::SavedRecording> checked = TryRead(bytes, true);
  const std::optional<formats::SavedRecording> unchecked = TryRead(bytes, false);
  for (const auto* r : {&checked, &unchecked}) {
    if (!*r) continue;
    CheckRecording(**r);
    const std::string out = Rewrite(**r);
    const std::optional<formats::SavedRecording> again = TryRead(out, true);
    XRPM_FUZZ_CHECK(again.has_value(), "the rewrite does not read back");
    XRPM_FUZZ_CHECK(*again == **r, "the rewrite reads back differently");
    XRPM_FUZZ_CHECK(Rewrite(*again) == out, "the rewrite is not a fixed point");
  }
  if (checked)
    XRPM_FUZZ_CHECK(unchecked.has_value() && *unchecked == *checked,
                    "checksums on and off read differently");
  return 0;
}
