// libFuzzer target: the IBM classic heapdump reader (formats::ReadIbmClassic) on arbitrary bytes.
//
// Per input, beyond "no crash, hang, leak or sanitizer report":
//   1. lenient read: a structurally valid Snapshot (one section) or InputError; consistent
//      formats::IbmReadStats; diagnostics within the sink's cap; formats::LooksLikeIbmClassic does
//      not crash;
//   2. strict read: throws InputError exactly when the lenient read reported a problem (or
//      threw), otherwise returns the same Snapshot;
//   3. round trip of a clean read through the IBM writer: re-reads without a diagnostic to the
//      same objects (ids, sizes, references), the same type names and as many roots.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "xrpm/formats/ibm_classic_reader.h"
#include "xrpm/formats/ibm_classic_writer.h"

namespace xrpm::fuzz {
namespace {

struct Read {
  std::optional<Snapshot> snap;
  std::string error;
  Diagnostics diags;
  formats::IbmReadStats stats;
};

void ReadInto(Read& r, std::string_view text, bool strict) {
  formats::ReadOptions o;
  o.strict = strict;
  try {
    r.snap = formats::ReadIbmClassic(text, "fuzz", r.diags, o, &r.stats);
  } catch (const InputError& e) {
    r.error = e.what();
  }
}

}  // namespace
}  // namespace xrpm::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm;
  using namespace xrpm::fuzz;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)formats::LooksLikeIbmClassic(text.substr(0, 4096));

  Read lenient;
  ReadInto(lenient, text, false);
  XRPM_FUZZ_CHECK(lenient.diags.kept().size() <= lenient.diags.max_kept(), "");
  const bool clean = lenient.snap && lenient.diags.empty();
  if (lenient.snap) {
    const Snapshot& s = *lenient.snap;
    CheckSnapshot(s);
    XRPM_FUZZ_CHECK(s.sections.size() == 1, "");
    XRPM_FUZZ_CHECK(lenient.stats.null_refs <= lenient.stats.refs, "");
    XRPM_FUZZ_CHECK(s.object_count() <= lenient.stats.object_records, "");  // duplicates dropped
  }

  Read st;
  ReadInto(st, text, true);
  XRPM_FUZZ_CHECK(st.snap.has_value() == clean, lenient.error + " / " + st.error);
  if (st.snap) XRPM_FUZZ_CHECK(*st.snap == *lenient.snap, "strict and lenient snapshots differ");

  if (clean) {
    const Snapshot& s = *lenient.snap;
    std::string out;
    formats::WriteIbmClassic(s, [&](std::string_view b) { out.append(b); });
    Read again;
    ReadInto(again, out, false);
    XRPM_FUZZ_CHECK(again.snap.has_value(), again.error + "\n--- rewrite:\n" + out);
    const Snapshot& t = *again.snap;
    XRPM_FUZZ_CHECK(again.diags.empty(), DiagSummary(again.diags) + "\n--- rewrite:\n" + out);
    XRPM_FUZZ_CHECK(t.object_id == s.object_id && t.object_size == s.object_size &&
                        t.ref_end == s.ref_end && t.refs == s.refs,
                    "objects differ after the IBM round trip:\n" + out);
    XRPM_FUZZ_CHECK(t.root_count() == s.root_count(), "roots differ:\n" + out);
    XRPM_FUZZ_CHECK(t.types.size() == s.types.size(), "types differ:\n" + out);
    for (size_t i = 0; i < s.object_count(); ++i)
      XRPM_FUZZ_CHECK(t.type_name_of(i) == s.type_name_of(i),
                      "type of object " + std::to_string(i));
  }
  return 0;
}
