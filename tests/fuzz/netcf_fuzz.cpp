// libFuzzer target: the NETCF .gclog reader (formats::ReadNetcf) on arbitrary bytes.
//
// Per input, beyond "no crash, hang, leak or sanitizer report":
//   1. lenient read (one chunk): returns a structurally valid Snapshot or throws InputError;
//      diagnostics stay within the sink's cap;
//   2. strict read: throws InputError exactly when the lenient read reported a problem (or threw),
//      otherwise returns the same Snapshot;
//   3. chunked read (2 or 3 chunks of a few bytes, so chunk boundaries fall anywhere; for a
//      quarter of the inputs): the same Snapshot and the same diagnostics (codes, lines,
//      counts) as the one-chunk read;
//   4. round trip: the canonical rewrite of the lenient Snapshot re-reads to the same records
//      (objects, references, roots, each object's type, sections) and rewrites to the same bytes;
//      a clean input re-reads without any diagnostic to an equal Snapshot.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "netcf_reader_chunk.h"  // HexString
#include "xrpm/formats/netcf_reader.h"
#include "xrpm/formats/netcf_writer.h"

namespace xrpm::fuzz {
namespace {

struct Read {
  std::optional<Snapshot> snap;  // empty: InputError
  std::string error;
  Diagnostics diags;
};

void ReadInto(Read& r, std::string_view text, const formats::ReadOptions& o) {
  try {
    r.snap = formats::ReadNetcf(text, "fuzz", r.diags, o);
  } catch (const InputError& e) {
    r.error = e.what();
  }
}

// True when `name` written without a timestamp reads back differently: the format takes the last
// word of an `a`/`c` line as the timestamp when it is a hex number and not the only word.
bool AmbiguousName(const std::string& name, const std::optional<uint64_t>& stamp) {
  const size_t blank = name.find_last_of(" \t\r");
  if (stamp || blank == std::string::npos) return false;
  const std::string last = name.substr(blank + 1);
  size_t digits = last.find_first_not_of('0');
  digits = digits == std::string::npos ? 1 : last.size() - digits;
  return !last.empty() && digits <= 16 &&
         last.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
}

bool AmbiguousSection(const AppDomainSection& x) {
  return AmbiguousName(x.name, x.start_ms) || AmbiguousName(x.end_name, x.end_ms) ||
         (x.end_name.empty() && AmbiguousName(x.name, x.end_ms));
}

// The records the file format carries, compared after a canonical rewrite. (Whole-Snapshot
// equality is too strong for dirty input: a placeholder type whose only objects were dropped as
// duplicates is not written, as the writer's contract says, so it does not come back.)
void CheckSameRecords(const Snapshot& a, const Snapshot& b, const std::string& text) {
  XRPM_FUZZ_CHECK(a.object_id == b.object_id && a.object_size == b.object_size &&
                      a.ref_end == b.ref_end && a.refs == b.refs,
                  "objects differ after the rewrite:\n" + text);
  XRPM_FUZZ_CHECK(a.root_object == b.root_object && a.root_kind == b.root_kind &&
                      a.root_flags == b.root_flags && a.root_container == b.root_container,
                  "roots differ after the rewrite:\n" + text);
  for (size_t i = 0; i < a.object_count(); ++i) {
    const TypeInfo& ta = a.types[a.object_type[i]];
    const TypeInfo& tb = b.types[b.object_type[i]];
    XRPM_FUZZ_CHECK(ta.id == tb.id && ta.name == tb.name && ta.placeholder == tb.placeholder,
                    "type of object " + std::to_string(i) + " differs:\n" + text);
  }
  XRPM_FUZZ_CHECK(a.sections.size() == b.sections.size(), text);
  for (size_t k = 0; k < a.sections.size(); ++k) {
    const AppDomainSection &x = a.sections[k], &y = b.sections[k];
    // Known format ambiguity (docs/RELIABILITY.md): such names cannot round trip.
    if (AmbiguousSection(x)) continue;
    XRPM_FUZZ_CHECK(x.version == y.version && x.name == y.name && x.start_ms == y.start_ms &&
                        x.end_ms == y.end_ms && x.end_name == y.end_name && x.closed == y.closed &&
                        x.objects_begin == y.objects_begin && x.objects_end == y.objects_end &&
                        x.roots_begin == y.roots_begin && x.roots_end == y.roots_end,
                    "section " + std::to_string(k) + " differs after the rewrite:\n" + text);
  }
}

// Valid prefixes of an open section with more than kAnchorEvery objects (or roots), so that
// problems in the input that follows are located through a later anchor block (the reader
// re-parses from anchors to find their lines). Ids 1..480 (objects) or 1..8 (roots) exist.
const std::string& LongPrefix(bool roots) {
  static const std::array<std::string, 2> prefixes = [] {
    std::string o = "a 2 prefix 1\nt 1 T\n", r = o;
    for (int i = 1; i <= 0x480; ++i)
      o += "o " + formats::HexString(i) + " 1 8 " + formats::HexString(i / 2 + 1) + "\n";
    for (int i = 1; i <= 8; ++i) r += "o " + formats::HexString(i) + " 1 8\n";
    for (int i = 1; i <= 0x480; ++i) r += "r " + formats::HexString(i % 8 + 1) + " 1 0\n";
    return std::array<std::string, 2>{o, r};
  }();
  return prefixes[roots];
}

std::string Write(const Snapshot& s) {
  std::string out;
  formats::WriteNetcf(s, [&](std::string_view b) { out.append(b); });
  return out;
}

}  // namespace
}  // namespace xrpm::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm;
  using namespace xrpm::fuzz;
  // The last byte picks extra paths, each costing more than the other checks together:
  // %32 == 1 or 2: the input follows LongPrefix(objects or roots); %4 == 0: a chunked read.
  const uint8_t last = size ? data[size - 1] : 0;
  std::string prefixed;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (last % 32 == 1 || last % 32 == 2) {
    prefixed = LongPrefix(last % 32 == 2);
    prefixed.append(text);
    text = prefixed;
  }

  formats::ReadOptions one;
  one.threads = 1;
  Read lenient;
  ReadInto(lenient, text, one);
  XRPM_FUZZ_CHECK(lenient.diags.kept().size() <= lenient.diags.max_kept(), "");
  if (lenient.snap) CheckSnapshot(*lenient.snap);
  const bool clean = lenient.snap && lenient.diags.empty();

  formats::ReadOptions strict = one;
  strict.strict = true;
  Read st;
  ReadInto(st, text, strict);
  XRPM_FUZZ_CHECK(st.snap.has_value() == clean, lenient.error + " / " + st.error);
  if (st.snap) {
    XRPM_FUZZ_CHECK(st.diags.empty(), DiagSummary(st.diags));
    XRPM_FUZZ_CHECK(*st.snap == *lenient.snap, "strict and lenient snapshots differ");
  }

  // Chunked reads start threads, which costs more than the rest of the checks under ASan.
  if (last % 4 == 0) {
    formats::ReadOptions chunked;
    chunked.threads = 2 + last / 4 % 2;
    chunked.min_chunk_bytes = 1;
    Read ch;
    ReadInto(ch, text, chunked);
    XRPM_FUZZ_CHECK(ch.snap.has_value() == lenient.snap.has_value(), ch.error + lenient.error);
    XRPM_FUZZ_CHECK(
        DiagSummary(ch.diags) == DiagSummary(lenient.diags),
        "\n chunked: " + DiagSummary(ch.diags) + "\n one:     " + DiagSummary(lenient.diags));
    if (ch.snap) XRPM_FUZZ_CHECK(*ch.snap == *lenient.snap, "chunked snapshot differs");
  }

  if (lenient.snap) {
    const std::string out = Write(*lenient.snap);
    Read again;
    ReadInto(again, out, one);
    XRPM_FUZZ_CHECK(again.snap.has_value(), again.error + "\n--- rewrite:\n" + out);
    CheckSnapshot(*again.snap);
    CheckSameRecords(*lenient.snap, *again.snap, out);
    bool ambiguous = false;
    for (const AppDomainSection& x : lenient.snap->sections) ambiguous |= AmbiguousSection(x);
    if (!ambiguous)
      XRPM_FUZZ_CHECK(Write(*again.snap) == out, "the rewrite is not a fixed point:\n" + out);
    if (clean) {
      XRPM_FUZZ_CHECK(again.diags.empty(), DiagSummary(again.diags) + "\n" + out);
      XRPM_FUZZ_CHECK(*again.snap == *lenient.snap, "rewrite re-reads differently:\n" + out);
    }
  }
  return 0;
}
