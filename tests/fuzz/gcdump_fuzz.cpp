// libFuzzer target: the .gcdump reader (formats::ReadGcDump) on arbitrary bytes.
//
// Per input, beyond "no crash, hang, leak or sanitizer report":
//   1. lenient read: a structurally valid Snapshot (one section) or InputError whose message
//      names a byte offset; consistent formats::GcDumpReadStats (every node is an object, a
//      pseudo-node or undefined; every root is an edge of a pseudo-node); formats::LooksLikeGcDump
//      does not crash;
//   2. strict read: throws InputError exactly when the lenient read reported a problem (or
//      threw), otherwise returns the same Snapshot;
//   3. round trip of a clean read whose type names are printable through the NETCF writer and
//      reader: the same objects (ids, sizes, references), type names and roots.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "xrpm/formats/gcdump_reader.h"
#include "xrpm/formats/netcf_reader.h"
#include "xrpm/formats/netcf_writer.h"

namespace xrpm::fuzz {
namespace {

struct Read {
  std::optional<Snapshot> snap;
  std::string error;
  Diagnostics diags;
  formats::GcDumpReadStats stats;
};

void ReadInto(Read& r, const uint8_t* data, size_t size, bool strict) {
  formats::ReadOptions o;
  o.strict = strict;
  try {
    r.snap = formats::ReadGcDump({data, size}, "fuzz", r.diags, o, &r.stats);
  } catch (const InputError& e) {
    r.error = e.what();
    XRPM_FUZZ_CHECK(r.error.find("byte offset ") != std::string::npos ||
                        e.diagnostic().code == "undefined-nodes" ||
                        e.diagnostic().code == "duplicate-address" ||
                        e.diagnostic().code == "pseudo-ref" || e.diagnostic().code == "total-size",
                    r.error);
  }
}

bool Printable(const Snapshot& s) {
  for (const TypeInfo& t : s.types) {
    if (t.name.empty() || t.name.front() == ' ' || t.name.back() == ' ') return false;
    for (unsigned char c : t.name)
      if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

}  // namespace
}  // namespace xrpm::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm;
  using namespace xrpm::fuzz;
  (void)formats::LooksLikeGcDump({reinterpret_cast<const char*>(data), size < 4096 ? size : 4096});

  Read lenient;
  ReadInto(lenient, data, size, false);
  XRPM_FUZZ_CHECK(lenient.diags.kept().size() <= lenient.diags.max_kept(), "");
  const bool clean = lenient.snap && lenient.diags.empty();
  if (lenient.snap) {
    const Snapshot& s = *lenient.snap;
    const formats::GcDumpReadStats& st = lenient.stats;
    CheckSnapshot(s);
    XRPM_FUZZ_CHECK(s.sections.size() == 1, "");
    XRPM_FUZZ_CHECK(s.object_count() + st.pseudo_nodes + st.undefined_nodes == st.nodes, "");
    XRPM_FUZZ_CHECK(s.root_count() == st.root_edges, "");
    XRPM_FUZZ_CHECK(s.ref_count() + st.root_edges <= st.edges, "");
    XRPM_FUZZ_CHECK(s.type_count() <= st.types, "");
  }

  Read st;
  ReadInto(st, data, size, true);
  XRPM_FUZZ_CHECK(st.snap.has_value() == clean, lenient.error + " / " + st.error);
  if (st.snap) XRPM_FUZZ_CHECK(*st.snap == *lenient.snap, "strict and lenient snapshots differ");

  if (clean && Printable(*lenient.snap)) {
    const Snapshot& s = *lenient.snap;
    std::string out;
    formats::WriteNetcf(s, [&](std::string_view b) { out.append(b); });
    Diagnostics d;
    std::optional<Snapshot> t;
    try {
      t = formats::ReadNetcf(out, "rewrite", d);
    } catch (const InputError& e) {
      XRPM_FUZZ_CHECK(false, std::string(e.what()) + "\n--- rewrite:\n" + out);
    }
    XRPM_FUZZ_CHECK(t->object_id == s.object_id && t->object_size == s.object_size &&
                        t->ref_end == s.ref_end && t->refs == s.refs,
                    "objects differ after the NETCF round trip:\n" + out);
    XRPM_FUZZ_CHECK(t->root_object == s.root_object && t->root_kind == s.root_kind &&
                        t->root_flags == s.root_flags,
                    "roots differ:\n" + out);
    for (size_t i = 0; i < s.object_count(); ++i)
      XRPM_FUZZ_CHECK(t->type_name_of(i) == s.type_name_of(i),
                      "type of object " + std::to_string(i));
  }
  return 0;
}
