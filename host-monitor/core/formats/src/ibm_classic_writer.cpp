// IBM classic heapdump writer. One pass over the objects for the address range, one to write
// them, then the class records: O(objects + refs + roots log roots) time; extra memory is
// O(types + roots) (roots are grouped per class record by a stable sort of (class, object)).
// WriteIbmClassic plans the class records (PlaceRoots, NameClasses, PlaceClasses) and then
// writes the file's sections in order: header comments, OBJ records, CLS records, trailer.
#include "xrpm/formats/ibm_classic_writer.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "ibm_root_classes.h"
#include "xrpm/formats/jvm_names.h"
#include "xrpm/model/atomic_file.h"

namespace xrpm::formats {
namespace {

constexpr size_t kFlushBytes = 256 * 1024;
constexpr uint64_t kClassStep = 0x10;
constexpr uint64_t kClassAlign = 0x1000;

// One class record to write: a type or a root pseudo class.
struct ClassRecord {
  uint64_t address = 0;
  std::string name;  // JVM form
};

// Output: buffers the dump's text (fixed-width uppercase addresses) and hands it to the sink in
// ~256 KiB chunks. Not thread-safe.
class Output {
 public:
  explicit Output(const std::function<void(std::string_view)>& sink, bool wide)
      : sink_(sink), digits_(wide ? 16 : 8) {
    buf_.reserve(kFlushBytes + 4096);
  }
  void Str(std::string_view s) { buf_ += s; }
  void Char(char c) { buf_ += c; }
  void Addr(uint64_t v) {
    char tmp[18] = {'0', 'x'};
    for (int i = digits_ - 1; i >= 0; --i) {
      tmp[2 + i] = "0123456789ABCDEF"[v & 0xF];
      v >>= 4;
    }
    buf_.append(tmp, 2 + digits_);
  }
  void Dec(uint64_t v) { buf_ += std::to_string(v); }
  void MaybeFlush() {
    if (buf_.size() >= kFlushBytes) Flush();
  }
  void Flush() {
    if (!buf_.empty()) sink_(buf_);
    buf_.clear();
  }

 private:
  const std::function<void(std::string_view)>& sink_;
  int digits_;
  std::string buf_;
};

std::string OneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// The lowest and highest nonzero address the heap uses.
struct HeapRange {
  uint64_t lo = ~uint64_t{0}, hi = 0;
  void Add(uint64_t v) {
    if (v == 0) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
};

// The runtime whose heap a snapshot holds, judged by its type names (the model does not record
// it): .NET type names live in System.*, Java ones in java.*.
std::string_view RuntimeOf(const Snapshot& snap) {
  for (const TypeInfo& t : snap.types) {
    if (t.written_name().rfind("System.", 0) == 0) return ".NET";
    if (t.written_name().rfind("java.", 0) == 0) return "Java";
  }
  return "unknown runtime";
}

// The producer's version string for `// Version:`: the runtime, xrpm's version and the
// platform xrpm runs on (the spec's "SDK level, platform and build").
std::string ProducerVersion(std::string_view runtime) {
#if defined(__linux__)
  constexpr std::string_view os = "Linux";
#elif defined(__APPLE__)
  constexpr std::string_view os = "macOS";
#elif defined(_WIN32)
  constexpr std::string_view os = "Windows";
#else
  constexpr std::string_view os = "unknown OS";
#endif
#if defined(__x86_64__) || defined(_M_X64)
  constexpr std::string_view arch = "x86_64";
#elif defined(__aarch64__) || defined(_M_ARM64)
  constexpr std::string_view arch = "aarch64";
#elif defined(__i386__) || defined(_M_IX86)
  constexpr std::string_view arch = "x86-32";
#else
  constexpr std::string_view arch = "unknown architecture";
#endif
  return std::string(runtime) + " heap, xrpm " XRPM_VERSION " " + std::string(os) + " " +
         std::string(arch);
}

// Picks n addresses kClassStep apart outside [lo, hi]: above hi, or below lo if that overflows.
std::vector<uint64_t> SyntheticAddresses(size_t n, uint64_t lo, uint64_t hi) {
  const uint64_t span = kClassStep * (n + 1);
  std::vector<uint64_t> out(n);
  uint64_t base;
  if (hi <= ~uint64_t{0} - span - 2 * kClassAlign) {
    base = (hi + kClassAlign) & ~(kClassAlign - 1);
  } else if (lo > span + kClassAlign) {
    base = kClassAlign;
  } else {
    throw std::runtime_error(
        "IBM classic writer: the heap uses the whole address space; no room "
        "for class block addresses");
  }
  for (size_t i = 0; i < n; ++i) out[i] = base + kClassStep * i;
  return out;
}

// The lowest and highest address the heap uses: objects (first and last byte), references and
// roots.
HeapRange AddressRange(const Snapshot& snap) {
  HeapRange heap;
  for (size_t i = 0; i < snap.object_count(); ++i) {
    const uint64_t id = snap.object_id[i], size = snap.object_size[i];
    heap.Add(id);
    heap.Add(size == 0 ? id : (id > ~uint64_t{0} - (size - 1) ? ~uint64_t{0} : id + (size - 1)));
  }
  for (ObjectId r : snap.refs) heap.Add(r);
  for (ObjectId r : snap.root_object) heap.Add(r);
  return heap;
}

// The roots as the references of class records: a static root of a known class under that
// class, every other root under a pseudo class per (kind, flags). Class slots are type indexes,
// then ntypes + k for pseudo class k.
struct PlacedRoots {
  std::vector<std::pair<uint32_t, ObjectId>> placed;  // (class slot, rooted object), by slot
  std::vector<uint16_t> pseudo_key;                   // pseudo class k's kind << 8 | flags
};

PlacedRoots PlaceRoots(const Snapshot& snap, IbmWriteStats& st) {
  const size_t ntypes = snap.type_count();
  PlacedRoots out;
  std::unordered_map<uint64_t, uint32_t> type_by_section_id;  // section << 32 | id -> index
  for (uint32_t t = 0; t < ntypes; ++t)
    type_by_section_id.try_emplace(uint64_t{snap.types[t].section} << 32 | snap.types[t].id, t);
  std::map<uint16_t, uint32_t> pseudo_slot;  // kind << 8 | flags -> pseudo index
  auto place_roots = [&](uint32_t section, uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      const uint8_t kind = snap.root_kind[r], flags = snap.root_flags[r];
      if (kind == static_cast<uint8_t>(RootKind::kStatic) && flags == 0) {
        auto it = type_by_section_id.find(uint64_t{section} << 32 | snap.root_container[r]);
        if (it != type_by_section_id.end()) {
          out.placed.emplace_back(it->second, snap.root_object[r]);
          ++st.static_roots;
          continue;
        }
      }
      auto [it, added] = pseudo_slot.try_emplace(static_cast<uint16_t>(kind << 8 | flags), 0);
      if (added) it->second = static_cast<uint32_t>(pseudo_slot.size() - 1);
      out.placed.emplace_back(static_cast<uint32_t>(ntypes) + it->second, snap.root_object[r]);
      ++st.pseudo_class_roots;
    }
  };
  if (snap.sections.empty()) {
    place_roots(0, 0, snap.root_count());
  } else {
    for (uint32_t s = 0; s < snap.sections.size(); ++s)
      place_roots(s, snap.sections[s].roots_begin, snap.sections[s].roots_end);
  }
  // Pseudo slots were numbered in order of first use; renumber in (kind, flags) order.
  std::vector<uint32_t> pseudo_order(pseudo_slot.size());
  out.pseudo_key.resize(pseudo_slot.size());
  uint32_t k = 0;
  for (auto& [key, slot] : pseudo_slot) {
    pseudo_order[slot] = k;
    out.pseudo_key[k] = key;
    ++k;
  }
  for (auto& [slot, obj] : out.placed)
    if (slot >= ntypes) slot = static_cast<uint32_t>(ntypes) + pseudo_order[slot - ntypes];
  std::stable_sort(out.placed.begin(), out.placed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

// The class records (types, then pseudo classes), their names in JVM form and addresses.
struct ClassTable {
  std::string_view runtime;
  std::vector<ClassRecord> classes;
  std::vector<JvmShape> shape;    // per type
  std::vector<uint32_t> renamed;  // types the reader would not name back from the signature
  bool wide = false;              // 16-digit addresses
};

// Names every type in JVM form (noting the ones that would not read back as they are) and
// every pseudo class by its root kind.
void NameClasses(const Snapshot& snap, const std::vector<uint16_t>& pseudo_key, ClassTable& c) {
  const size_t ntypes = snap.type_count();
  c.classes.resize(ntypes + pseudo_key.size());
  c.shape.resize(ntypes);
  for (size_t t = 0; t < ntypes; ++t) {
    const std::string& name = snap.types[t].written_name();
    std::string sig = c.runtime == ".NET" ? JvmFromDotNetPrimitiveArray(name) : std::string();
    if (sig.empty()) sig = JvmFromReadable(name);
    c.classes[t].name = OneLine(std::move(sig));
    if ((c.runtime == ".NET" ? DotNetFromJvm(c.classes[t].name)
                             : ReadableFromJvm(c.classes[t].name)) != OneLine(name))
      c.renamed.push_back(static_cast<uint32_t>(t));
    c.shape[t] = ClassifyJvm(c.classes[t].name);
  }
  for (size_t k = 0; k < pseudo_key.size(); ++k)
    c.classes[ntypes + k].name =
        formats::RootClassName(static_cast<uint8_t>(pseudo_key[k] >> 8), pseudo_key[k] & 0xFF);
}

// Class addresses: the type ids when they are distinct, nonzero and outside the heap, synthetic
// ones beyond the heap for the rest; and whether any address needs 16 digits.
void PlaceClasses(const Snapshot& snap, const HeapRange& heap, ClassTable& c, IbmWriteStats& st) {
  const size_t ntypes = snap.type_count();
  std::vector<uint64_t> ids(ntypes);
  for (size_t t = 0; t < ntypes; ++t) ids[t] = snap.types[t].id;
  std::sort(ids.begin(), ids.end());
  const bool use_ids = ntypes > 0 && ids.front() != 0 &&
                       std::adjacent_find(ids.begin(), ids.end()) == ids.end() &&
                       (heap.lo > heap.hi || ids.back() < heap.lo || ids.front() > heap.hi);
  st.type_ids_as_addresses = use_ids;
  HeapRange taken = heap;
  if (use_ids) {
    for (size_t t = 0; t < ntypes; ++t) c.classes[t].address = snap.types[t].id;
    taken.Add(ids.front());
    taken.Add(ids.back());
  }
  const size_t nsynthetic = use_ids ? c.classes.size() - ntypes : c.classes.size();
  std::vector<uint64_t> synthetic = SyntheticAddresses(nsynthetic, taken.lo, taken.hi);
  for (size_t k = 0; k < nsynthetic; ++k)
    c.classes[c.classes.size() - nsynthetic + k].address = synthetic[k];
  c.wide = taken.hi > 0xFFFFFFFFu;
  for (const ClassRecord& r : c.classes) c.wide = c.wide || r.address > 0xFFFFFFFFu;
}

// The header comments: the producer, the AppDomains, and the real names of renamed types.
void WriteHeader(Output& out, const Snapshot& snap, const ClassTable& c) {
  out.Str("// Version: ");
  out.Str(ProducerVersion(c.runtime));
  out.Char('\n');
  for (const AppDomainSection& s : snap.sections) {
    out.Str("// xrpm AppDomain: ");
    out.Str(OneLine(s.name));
    out.Char('\n');
  }
  for (uint32_t t : c.renamed) {
    out.Str("// xrpm class ");
    out.Addr(c.classes[t].address);
    out.Str(": ");
    out.Str(OneLine(snap.types[t].written_name()));
    out.Char('\n');
  }
}

// One OBJ record per object with a nonzero id: its class, then its references.
void WriteObjects(Output& out, const Snapshot& snap, const ClassTable& c, IbmWriteStats& st) {
  for (size_t i = 0; i < snap.object_count(); ++i) {
    if (snap.object_id[i] == 0) continue;
    const uint32_t t = snap.object_type[i];
    out.Addr(snap.object_id[i]);
    out.Str(" [");
    out.Dec(snap.object_size[i]);
    out.Str("] OBJ ");
    out.Str(c.classes[t].name);
    out.Str("\n\t");
    out.Addr(c.classes[t].address);
    out.Char(' ');
    for (ObjectId r : snap.object_refs(i)) {
      out.Addr(r);
      out.Char(' ');
      if (r == 0) ++st.null_refs;
    }
    out.Char('\n');
    st.refs += 1 + snap.object_refs(i).size();
    ++st.objects;
    if (c.shape[t] == JvmShape::kObjectArray) ++st.object_arrays;
    if (c.shape[t] == JvmShape::kPrimitiveArray) ++st.primitive_arrays;
    out.MaybeFlush();
  }
  st.objects -= st.object_arrays + st.primitive_arrays;
}

// One CLS record per class with the roots placed under it, in address order, so the output does
// not depend on the type table's order (a snapshot read back from this file lists its types in
// order of first use).
void WriteClasses(Output& out, const ClassTable& c, const PlacedRoots& roots, IbmWriteStats& st) {
  const std::vector<ClassRecord>& classes = c.classes;
  const auto& placed = roots.placed;
  std::vector<uint64_t> begin(classes.size() + 1, 0);  // placed[begin[c], begin[c+1]) are c's
  for (const auto& pl : placed) ++begin[pl.first + 1];
  for (size_t k = 0; k < classes.size(); ++k) begin[k + 1] += begin[k];
  std::vector<uint32_t> order(classes.size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return classes[a].address < classes[b].address; });
  for (uint32_t k : order) {
    out.Addr(classes[k].address);
    out.Str(" [0] CLS ");
    out.Str(classes[k].name);
    out.Str("\n\t");
    for (uint64_t p = begin[k]; p < begin[k + 1]; ++p) {
      out.Addr(placed[p].second);
      out.Char(' ');
      ++st.refs;
      if (placed[p].second == 0) ++st.null_refs;
    }
    out.Char('\n');
    ++st.classes;
    out.MaybeFlush();
  }
}

// The breakdown and EOF comments with the record and reference counts.
void WriteTrailer(Output& out, const IbmWriteStats& st) {
  const uint64_t total = st.classes + st.objects + st.object_arrays + st.primitive_arrays;
  out.Str("// Breakdown - Classes: ");
  out.Dec(st.classes);
  out.Str(", Objects: ");
  out.Dec(st.objects);
  out.Str(", ObjectArrays: ");
  out.Dec(st.object_arrays);
  out.Str(", PrimitiveArrays: ");
  out.Dec(st.primitive_arrays);
  out.Str("\n// EOF:  Total 'Objects',Refs(null) : ");
  out.Dec(total);
  out.Char(',');
  out.Dec(st.refs);
  out.Char('(');
  out.Dec(st.null_refs);
  out.Str(")\n");
}

}  // namespace

IbmWriteStats WriteIbmClassic(const Snapshot& snap,
                              const std::function<void(std::string_view)>& sink) {
  IbmWriteStats st;
  const HeapRange heap = AddressRange(snap);
  const PlacedRoots roots = PlaceRoots(snap, st);
  ClassTable classes;
  classes.runtime = RuntimeOf(snap);
  NameClasses(snap, roots.pseudo_key, classes);
  PlaceClasses(snap, heap, classes, st);

  Output out(sink, classes.wide);
  WriteHeader(out, snap, classes);
  WriteObjects(out, snap, classes, st);
  WriteClasses(out, classes, roots, st);
  WriteTrailer(out, st);
  out.Flush();
  return st;
}

IbmWriteStats WriteIbmClassicFile(const Snapshot& snap, const std::string& path) {
  AtomicFile f(path);
  IbmWriteStats st = WriteIbmClassic(snap, [&](std::string_view b) { f.Write(b); });
  f.Commit();
  return st;
}

}  // namespace xrpm::formats
