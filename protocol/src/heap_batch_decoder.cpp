// DecodeHeapBatch and ChecksumBatch (see heap_batch.h). Every count is checked against the
// limits in constants.h before anything is allocated for it.
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "xrpm/protocol/column_codec.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/heap_batch.h"

namespace xrpm {
namespace protocol {
namespace {

bool Fail(std::string* error, const std::string& what) {
  if (error) *error = what;
  return false;
}

template <class T>
bool Column(const std::string& bytes, size_t n, std::vector<T>* out, const char* name,
            std::string* error) {
  out->resize(n);
  if (n == 0) {
    if (!bytes.empty()) return Fail(error, std::string(name) + ": bytes present for 0 values");
    return true;
  }
  if (!DecodeColumn(bytes, n, out->data()))
    return Fail(error, std::string(name) + ": not a valid column of " + std::to_string(n) +
                           " values (" + std::to_string(bytes.size()) + " bytes)");
  return true;
}

// The optional origin fields (heap_batch.h). Checks what one batch can check: counts against
// the batch limits, depths, method ids >= 1, column lengths; the capture-wide checks (ids
// defined before use, capture limits) are the assembler's. O(objects + sites).
bool DecodeOrigins(const wire::HeapBatch& in, RawBatch* out, std::string* error) {
  if (in.has_origin_clock()) {
    out->has_clock = true;
    out->capture_frame = in.origin_clock().capture_frame();
    out->sample_bytes = in.origin_clock().sample_bytes();
  }
  if (static_cast<size_t>(in.origin_methods_size()) > kMaxBatchOriginMethods)
    return Fail(error, std::to_string(in.origin_methods_size()) +
                           " origin method definitions, over the batch limit of " +
                           std::to_string(kMaxBatchOriginMethods));
  out->origin_methods.reserve(in.origin_methods_size());
  for (const std::string& m : in.origin_methods()) {
    if (m.size() > kMaxMethodNameBytes)
      return Fail(error, "origin method " + std::to_string(out->origin_methods.size()) + " is " +
                             std::to_string(m.size()) + " bytes, over the limit of " +
                             std::to_string(kMaxMethodNameBytes));
    out->origin_methods.push_back(m);
  }
  if (in.site_count() > kMaxBatchSites)
    return Fail(error, std::to_string(in.site_count()) +
                           " site definitions, over the batch limit of " +
                           std::to_string(kMaxBatchSites));
  if (!Column(in.site_depths(), in.site_count(), &out->site_depth, "site depths", error))
    return false;
  size_t total = 0;
  for (size_t i = 0; i < out->site_depth.size(); ++i) {
    if (out->site_depth[i] > kMaxStackDepth)
      return Fail(error, "site " + std::to_string(i) + " of the batch has depth " +
                             std::to_string(out->site_depth[i]) + ", over the limit of " +
                             std::to_string(kMaxStackDepth));
    total += out->site_depth[i];
  }
  if (!Column(in.site_methods(), total, &out->site_method, "site methods", error)) return false;
  for (uint32_t m : out->site_method)
    if (m == 0) return Fail(error, "site methods: method id 0 (ids start at 1)");

  const size_t nobj = out->object_id.size();
  if (in.object_sites().empty()) {
    if (!in.object_frames().empty() || in.frame_base() != 0)
      return Fail(error, "object frames without object sites");
    return true;
  }
  if (!Column(in.object_sites(), nobj, &out->object_site, "object sites", error)) return false;
  size_t known = 0;
  for (uint32_t site : out->object_site) known += site != 0;
  std::vector<uint64_t> deltas;
  if (!Column(in.object_frames(), known, &deltas, "object frames", error)) return false;
  out->object_frame.assign(nobj, 0);
  uint64_t prev = in.frame_base();
  for (size_t i = 0, k = 0; i < nobj; ++i) {
    if (out->object_site[i] == 0) continue;
    prev += static_cast<uint64_t>(UnZigZag(deltas[k++]));
    out->object_frame[i] = prev;
  }
  return true;
}

}  // namespace

bool DecodeHeapBatch(const wire::HeapBatch& in, RawBatch* out, std::string* error_out) {
  std::string local_error;
  std::string* error = error_out ? error_out : &local_error;
  out->Clear();
  const std::string where = "batch " + std::to_string(in.seq()) + ": ";
  if (in.shift() > kMaxShift)
    return Fail(error, where + "shift " + std::to_string(in.shift()) + " over " +
                           std::to_string(kMaxShift));
  if (in.root_count() > kMaxBatchRoots || in.object_count() > kMaxBatchObjects ||
      in.ref_count() > kMaxBatchRefs || static_cast<size_t>(in.types_size()) > kMaxBatchTypes ||
      static_cast<size_t>(in.containers_size()) > kMaxBatchContainers)
    return Fail(error, where + "counts over the batch limits (roots " +
                           std::to_string(in.root_count()) + ", objects " +
                           std::to_string(in.object_count()) + ", refs " +
                           std::to_string(in.ref_count()) + ")");
  if (in.cont_refs() > in.ref_count()) return Fail(error, where + "cont_refs exceeds ref_count");
  const uint32_t shift = in.shift();

  out->types.reserve(in.types_size());
  for (const wire::TypeEntry& t : in.types()) {
    if (t.name().size() > kMaxTypeNameBytes)
      return Fail(error, where + "type name over " + std::to_string(kMaxTypeNameBytes) + " bytes");
    out->types.push_back(RawType{t.id(), t.name(), t.domain()});
  }
  if (static_cast<size_t>(in.domain_names_size()) > kMaxCaptureDomains)
    return Fail(error, where + std::to_string(in.domain_names_size()) +
                           " AppDomain names, over the limit of " +
                           std::to_string(kMaxCaptureDomains));
  out->domain_names.reserve(in.domain_names_size());
  for (const std::string& d : in.domain_names()) {
    if (d.size() > kMaxShortString)
      return Fail(error, where + "AppDomain name over " + std::to_string(kMaxShortString) +
                             " bytes");
    out->domain_names.push_back(d);
  }
  out->containers.reserve(in.containers_size());
  for (const wire::Container& c : in.containers()) {
    if (c.kind() < 1 || c.kind() > 16 || c.descriptor() > 5)
      return Fail(error, where + "container kind " + std::to_string(c.kind()) + " / descriptor " +
                             std::to_string(c.descriptor()) + " out of range");
    out->containers.push_back(
        RawContainer{c.kind(), c.id1(), c.id2(), c.descriptor(), c.has_thread(), c.thread_id()});
  }

  // Roots.
  const size_t nroots = in.root_count();
  std::vector<uint64_t> tmp;
  if (!Column(in.root_objects(), nroots, &out->root_object, "root objects", error) ||
      !Column(in.root_flags(), nroots, &out->root_flags, "root flags", error) ||
      !Column(in.root_containers(), nroots, &tmp, "root containers", error)) {
    *error = where + *error;
    return false;
  }
  uint64_t prev = 0;
  for (uint64_t& v : out->root_object)
    v = prev = prev + (static_cast<uint64_t>(UnZigZag(v)) << shift);
  out->root_container.resize(nroots);
  int64_t prevc = 0;
  for (size_t i = 0; i < nroots; ++i) {
    const int64_t c = prevc + UnZigZag(tmp[i]);
    if (c < 0 || c > 0xFFFFFFFFll) return Fail(error, where + "root container index out of range");
    if (out->root_flags[i] > 0xFF) return Fail(error, where + "root flags over 8 bits");
    out->root_container[i] = static_cast<uint32_t>(c);
    prevc = c;
  }

  // Objects.
  const size_t nobj = in.object_count();
  if (!Column(in.object_gaps(), nobj, &out->object_id, "object ids", error) ||
      !Column(in.object_types(), nobj, &out->object_type, "object types", error) ||
      !Column(in.object_sizes(), nobj, &out->object_size, "object sizes", error) ||
      !Column(in.object_ref_counts(), nobj, &out->object_ref_count, "object ref counts", error)) {
    *error = where + *error;
    return false;
  }
  uint64_t prev_end = in.id_base();
  for (size_t i = 0; i < nobj; ++i) {
    const uint64_t id = prev_end + (static_cast<uint64_t>(UnZigZag(out->object_id[i])) << shift);
    const uint64_t size = static_cast<uint64_t>(out->object_size[i]) << shift;
    if (size > 0xFFFFFFFFull) return Fail(error, where + "object size over 32 bits");
    out->object_id[i] = id;
    out->object_size[i] = static_cast<uint32_t>(size);
    prev_end = id + size;
  }

  // References: cont_refs for cont_object, then each object's; only the last object may be
  // short (continued in the next batch).
  const size_t nrefs = in.ref_count();
  out->cont_object = in.cont_object();
  out->cont_refs = in.cont_refs();
  uint64_t need = out->cont_refs;
  for (size_t i = 0; i + 1 < nobj; ++i) need += out->object_ref_count[i];
  const uint64_t last = nobj ? out->object_ref_count[nobj - 1] : 0;
  if (nrefs < need || nrefs > need + last)
    return Fail(error, where + "ref_count " + std::to_string(nrefs) +
                           " does not match the objects' reference counts (" +
                           std::to_string(need) + ".." + std::to_string(need + last) + ")");
  if (!Column(in.refs(), nrefs, &out->refs, "refs", error)) {
    *error = where + *error;
    return false;
  }
  size_t r = 0;
  for (; r < out->cont_refs; ++r)
    out->refs[r] = out->cont_object + (static_cast<uint64_t>(UnZigZag(out->refs[r])) << shift);
  for (size_t i = 0; i < nobj && r < nrefs; ++i) {
    const uint64_t owner = out->object_id[i];
    const size_t end = std::min<size_t>(nrefs, r + out->object_ref_count[i]);
    for (; r < end; ++r)
      out->refs[r] = owner + (static_cast<uint64_t>(UnZigZag(out->refs[r])) << shift);
  }
  if (!DecodeOrigins(in, out, error)) {
    *error = where + *error;
    return false;
  }
  return true;
}

namespace {

// Feeds values to the hash as little-endian bytes, whatever the machine's byte order.
template <class T>
void Feed(XXH3_state_t* st, const T* p, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  T buf[256];
  while (n) {
    const size_t k = n < 256 ? n : 256;
    for (size_t i = 0; i < k; ++i) {
      T v = p[i];
      if (sizeof(T) == 8) v = static_cast<T>(__builtin_bswap64(v));
      if (sizeof(T) == 4) v = static_cast<T>(__builtin_bswap32(v));
      buf[i] = v;
    }
    XXH3_64bits_update(st, buf, k * sizeof(T));
    p += k;
    n -= k;
  }
#else
  if (n) XXH3_64bits_update(st, p, n * sizeof(T));
#endif
}

void Feed64(XXH3_state_t* st, uint64_t v) {
  Feed(st, &v, 1);
}

}  // namespace

uint64_t ChecksumBatch(const RawBatch& b, uint64_t seed) {
  XXH3_state_t st;
  std::memset(&st, 0, sizeof st);  // XXH3_INITSTATE is not enough for -Wmaybe-uninitialized
  XXH3_64bits_reset_withSeed(&st, seed);
  const uint64_t header[] = {b.types.size(),     b.containers.size(), b.root_object.size(),
                             b.object_id.size(), b.refs.size(),       b.cont_object,
                             b.cont_refs};
  Feed(&st, header, sizeof header / sizeof header[0]);
  for (const RawType& t : b.types) {
    Feed64(&st, t.id);
    Feed64(&st, t.name.size());
    XXH3_64bits_update(&st, t.name.data(), t.name.size());
  }
  for (const RawContainer& c : b.containers) {
    const uint64_t v[] = {c.kind, c.id1, c.id2, c.descriptor, c.has_thread ? 1u : 0u, c.thread_id};
    Feed(&st, v, sizeof v / sizeof v[0]);
  }
  Feed(&st, b.root_object.data(), b.root_object.size());
  Feed(&st, b.root_flags.data(), b.root_flags.size());
  Feed(&st, b.root_container.data(), b.root_container.size());
  Feed(&st, b.object_id.data(), b.object_id.size());
  Feed(&st, b.object_type.data(), b.object_type.size());
  Feed(&st, b.object_size.data(), b.object_size.size());
  Feed(&st, b.object_ref_count.data(), b.object_ref_count.size());
  Feed(&st, b.refs.data(), b.refs.size());
  // Allocation origins, each part only when present: a batch without them hashes exactly as
  // before origins existed (an old agent's checksum still verifies).
  if (b.has_clock) {
    const uint64_t v[] = {0x434c4f434bull /* "CLOCK" */, b.capture_frame, b.sample_bytes};
    Feed(&st, v, 3);
  }
  if (!b.origin_methods.empty()) {
    Feed64(&st, 0x4d4554484f44ull);  // "METHOD"
    Feed64(&st, b.origin_methods.size());
    for (const std::string& m : b.origin_methods) {
      Feed64(&st, m.size());
      XXH3_64bits_update(&st, m.data(), m.size());
    }
  }
  if (!b.site_depth.empty()) {
    const uint64_t v[] = {0x53495445ull /* "SITE" */, b.site_depth.size(), b.site_method.size()};
    Feed(&st, v, 3);
    Feed(&st, b.site_depth.data(), b.site_depth.size());
    Feed(&st, b.site_method.data(), b.site_method.size());
  }
  if (!b.object_site.empty()) {
    Feed64(&st, 0x4f524947494eull);  // "ORIGIN"
    Feed(&st, b.object_site.data(), b.object_site.size());
    Feed(&st, b.object_frame.data(), b.object_frame.size());
  }
  // AppDomains, likewise only when present.
  if (!b.domain_names.empty()) {
    Feed64(&st, 0x444f4d41494eull);  // "DOMAIN"
    Feed64(&st, b.domain_names.size());
    for (const std::string& d : b.domain_names) {
      Feed64(&st, d.size());
      XXH3_64bits_update(&st, d.data(), d.size());
    }
  }
  bool typed = false;
  for (const RawType& t : b.types) typed = typed || t.domain != 0;
  if (typed) {
    Feed64(&st, 0x54444f4dull);  // "TDOM"
    for (const RawType& t : b.types) Feed64(&st, t.domain);
  }
  return XXH3_64bits_digest(&st);
}

}  // namespace protocol
}  // namespace xrpm
