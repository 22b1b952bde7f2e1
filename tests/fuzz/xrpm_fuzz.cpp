// libFuzzer target: the .xrpm reader (formats::ReadXrpm) on arbitrary bytes.
//
// Per input, beyond "no crash, hang, leak or sanitizer report":
//   1. a read with checksums verified and one without (mutated inputs otherwise stop at the
//      first checksum; the second read reaches every check behind them) each return a
//      structurally valid Snapshot (CheckSnapshot) or throw InputError, never anything else;
//   2. a read that succeeds is lossless: writing the Snapshot (and the extra parts it asked for)
//      and reading that back gives an equal Snapshot and equal parts, and the rewrite is a fixed
//      point; the Snapshot can be written as .gclog (the writers trust validated models);
//   3. the two reads agree whenever the checksummed one succeeds.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "xrpm/formats/netcf_writer.h"
#include "xrpm/formats/xrpm_file.h"

namespace xrpm::fuzz {
namespace {

std::optional<formats::XrpmContents> TryRead(std::string_view bytes, bool verify,
                                             unsigned threads) {
  formats::XrpmReadOptions o;
  o.verify_checksums = verify;
  o.threads = threads;
  o.wanted = {"aseq", "rfrm"};  // the seeds' extra parts: decoded, not skipped
  try {
    return formats::ReadXrpm(bytes, "fuzz", o);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

bool SameParts(const formats::XrpmContents& a, const formats::XrpmContents& b) {
  if (a.parts.size() != b.parts.size()) return false;
  for (size_t i = 0; i < a.parts.size(); ++i)
    if (a.parts[i].tag != b.parts[i].tag || a.parts[i].width != b.parts[i].width ||
        !(a.parts[i].data == b.parts[i].data))
      return false;
  return true;
}

}  // namespace
}  // namespace xrpm::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm;
  using namespace xrpm::fuzz;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The last byte picks the thread count (threads cost more than the rest under ASan).
  const unsigned threads = size && data[size - 1] % 8 == 0 ? 2 : 1;

  const std::optional<formats::XrpmContents> checked = TryRead(bytes, true, threads);
  const std::optional<formats::XrpmContents> unchecked = TryRead(bytes, false, 1);
  for (const auto* r : {&checked, &unchecked}) {
    if (!*r) continue;
    const formats::XrpmContents& c = **r;
    CheckSnapshot(c.snapshot);
    for (const formats::XrpmPart& p : c.parts)
      XRPM_FUZZ_CHECK(p.data.size() == (p.width ? p.count() * p.width : p.count()), p.tag);
    // Lossless: write what was read, read it back.
    formats::XrpmWriteOptions w;
    w.threads = 1;
    for (const formats::XrpmPart& p : c.parts) {
      formats::XrpmPart copy{p.tag, p.required, p.width, p.transform, {}};
      copy.data = p.data;
      w.extra_parts.push_back(std::move(copy));
    }
    const std::string out = formats::WriteXrpm(c.snapshot, w);
    const std::optional<formats::XrpmContents> again = TryRead(out, true, 1);
    XRPM_FUZZ_CHECK(again.has_value(), "the rewrite does not read back");
    XRPM_FUZZ_CHECK(again->snapshot == c.snapshot, "the rewrite reads back differently");
    XRPM_FUZZ_CHECK(SameParts(*again, c), "extra parts differ after the rewrite");
    XRPM_FUZZ_CHECK(formats::WriteXrpm(again->snapshot, w) == out,
                    "the rewrite is not a fixed point");
    size_t text = 0;
    formats::WriteNetcf(c.snapshot, [&](std::string_view b) { text += b.size(); });
    XRPM_FUZZ_CHECK(c.snapshot.object_count() == 0 || text > 0, "empty .gclog");
  }
  if (checked) {
    XRPM_FUZZ_CHECK(unchecked.has_value(), "checksums on: read; off: refused");
    XRPM_FUZZ_CHECK(unchecked->snapshot == checked->snapshot && SameParts(*unchecked, *checked),
                    "checksums on and off read differently");
  }
  return 0;
}
