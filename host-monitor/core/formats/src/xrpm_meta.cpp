// .xrpm metadata blobs (xrpm_meta.h). Records are fixed sequences of little-endian fields and
// u32-length-prefixed strings; CAPT is a list of (field id u32, length u32, bytes) so that later
// versions can add fields an older reader skips.
#include "xrpm_meta.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "xrpm_layout.h"

namespace xrpm::formats {
namespace {

// Smallest encoded record sizes, to bound counts by the bytes left before allocating.
constexpr size_t kMinSectionBytes = 4 + 4 + 1 + 8 + 1 + 8 + 4 + 1 + 4 * 2 + 8 * 4;
constexpr size_t kMinTypeBytes = 4 + 4 + 1 + 4 + 4 + 4;

std::string HexBits(uint32_t bits) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", bits);
  return buf;
}

// CAPT field ids. Never reuse a number; add new fields at the end.
enum CaptureField : uint32_t {
  kEndpoint = 1,
  kAgentName,
  kProtocolVersion,
  kCapabilities,
  kRuntimeName,
  kRuntimeVersion,
  kAppName,
  kPlatform,
  kPointerBytes,
  kBigEndian,
  kDumpVersion,
  kAppDomainCount,
  kBootMs,
  kCaptureId,
  kCapturedAt,
  kBatches,
  kWireBytes,
  kPauseUs,
  kGcUs,
  kWalkUs,
  kStopWaitUs,
  kStallUs,
  kAgentPeakBytes,
  kElapsedUs,
  kLastMarker,
  kMarkerAgeUs,       // microseconds, 0..INT64_MAX; absent: no marker
  kWalkAfterPauseUs,  // microseconds, > 0; absent: the walk was in the pause
};

}  // namespace

std::string EncodeSections(const Snapshot& s) {
  BlobWriter w;
  w.U32(static_cast<uint32_t>(s.sections.size()));
  for (const AppDomainSection& a : s.sections) {
    w.U32(a.version);
    w.Str(a.name);
    w.U8(a.start_ms.has_value());
    w.U64(a.start_ms.value_or(0));
    w.U8(a.end_ms.has_value());
    w.U64(a.end_ms.value_or(0));
    w.Str(a.end_name);
    w.U8(a.closed);
    w.U32(a.types_begin);
    w.U32(a.types_end);
    w.U64(a.objects_begin);
    w.U64(a.objects_end);
    w.U64(a.roots_begin);
    w.U64(a.roots_end);
  }
  return std::move(w.bytes());
}

void DecodeSections(std::string_view blob, Snapshot& s) {
  BlobReader r(blob);
  const uint32_t n = r.Count(kMinSectionBytes);
  s.sections.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    AppDomainSection a;
    a.version = r.U32();
    a.name = r.Str();
    const bool has_start = r.U8();
    const uint64_t start = r.U64();
    if (has_start) a.start_ms = start;
    const bool has_end = r.U8();
    const uint64_t end = r.U64();
    if (has_end) a.end_ms = end;
    a.end_name = r.Str();
    a.closed = r.U8() != 0;
    a.types_begin = r.U32();
    a.types_end = r.U32();
    a.objects_begin = r.U64();
    a.objects_end = r.U64();
    a.roots_begin = r.U64();
    a.roots_end = r.U64();
    s.sections.push_back(std::move(a));
  }
  if (r.left()) BadBlob(std::to_string(r.left()) + " unexpected bytes after the sections");
}

std::string EncodeTypes(const Snapshot& s) {
  BlobWriter w;
  w.U32(static_cast<uint32_t>(s.types.size()));
  for (const TypeInfo& t : s.types) {
    w.U32(t.id);
    w.U32(t.section);
    w.U8(t.placeholder);
    w.Str(t.written_name());
    w.Str(t.module);
    uint32_t bits;
    std::memcpy(&bits, &t.sample_multiplier, 4);
    w.U32(bits);
  }
  return std::move(w.bytes());
}

void DecodeTypes(std::string_view blob, Snapshot& s) {
  BlobReader r(blob);
  const uint32_t n = r.Count(kMinTypeBytes);
  s.types.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    TypeInfo t;
    t.id = r.U32();
    t.section = r.U32();
    const uint8_t placeholder = r.U8();
    t.placeholder = placeholder != 0;
    t.SetName(r.Str());
    t.module = r.Str();
    const uint32_t bits = r.U32();
    std::memcpy(&t.sample_multiplier, &bits, 4);
    // NaN would make a snapshot unequal to itself; counts scale by it (as .gcdump's check).
    if (!std::isfinite(t.sample_multiplier) || t.sample_multiplier < 0)
      BadBlob("type " + std::to_string(i) + " has sample multiplier " +
              std::to_string(t.sample_multiplier) + " (bits 0x" + HexBits(bits) +
              "): expected a finite number >= 0");
    if (t.section >= s.sections.size())
      BadBlob("type " + std::to_string(i) + " names section " + std::to_string(t.section) + " of " +
              std::to_string(s.sections.size()));
    s.types.push_back(std::move(t));
  }
  if (r.left()) BadBlob(std::to_string(r.left()) + " unexpected bytes after the types");
}

std::string EncodeTypeFinalizers(const Snapshot& s) {
  std::vector<uint32_t> with;
  for (uint32_t t = 0; t < s.types.size(); ++t)
    if (s.types[t].has_finalizer) with.push_back(t);
  if (with.empty()) return {};
  BlobWriter w;
  w.U8(1);  // version
  w.U32(static_cast<uint32_t>(with.size()));
  for (const uint32_t t : with) w.U32(t);
  return std::move(w.bytes());
}

void DecodeTypeFinalizers(std::string_view blob, Snapshot& s) {
  BlobReader r(blob);
  const uint8_t version = r.U8();
  if (version != 1) BadBlob("type finalizers version " + std::to_string(version) + ", expected 1");
  const uint32_t n = r.Count(4);
  for (uint32_t i = 0, prev = 0; i < n; ++i) {
    const uint32_t t = r.U32();
    if (t >= s.types.size() || (i > 0 && t <= prev))
      BadBlob("type finalizers entry " + std::to_string(i) + " names type " + std::to_string(t) +
              ": expected ascending type indices below " + std::to_string(s.types.size()));
    s.types[t].has_finalizer = true;
    prev = t;
  }
  if (r.left()) BadBlob(std::to_string(r.left()) + " unexpected bytes after the type finalizers");
}

std::string EncodeTypeTraits(const Snapshot& s) {
  std::vector<uint32_t> with;
  for (uint32_t t = 0; t < s.types.size(); ++t)
    if (s.types[t].traits.known()) with.push_back(t);
  if (with.empty()) return {};
  BlobWriter w;
  w.U8(1);  // version
  w.U32(static_cast<uint32_t>(with.size()));
  for (const uint32_t t : with) {
    const TypeTraits& tr = s.types[t].traits;
    w.U32(t);
    w.U8(static_cast<uint8_t>(tr.kind));
    w.U32(tr.array_rank);
    w.Str(tr.enum_underlying);
    w.Str(tr.element_type);
  }
  return std::move(w.bytes());
}

void DecodeTypeTraits(std::string_view blob, Snapshot& s) {
  BlobReader r(blob);
  const uint8_t version = r.U8();
  if (version != 1) BadBlob("type traits version " + std::to_string(version) + ", expected 1");
  const uint32_t n = r.Count(4 + 1 + 4 + 2 * kMinBlobStringBytes);
  for (uint32_t i = 0, prev = 0; i < n; ++i) {
    const uint32_t t = r.U32();
    const std::string entry = "type traits entry " + std::to_string(i);
    if (t >= s.types.size() || (i > 0 && t <= prev))
      BadBlob(entry + " names type " + std::to_string(t) +
              ": expected ascending type indices below " + std::to_string(s.types.size()));
    TypeTraits tr;
    const uint8_t kind = r.U8();
    if (kind == 0 || kind > kMaxTypeKindValue)
      BadBlob(entry + " has kind " + std::to_string(kind) + ", expected 1.." +
              std::to_string(kMaxTypeKindValue));
    tr.kind = static_cast<TypeKind>(kind);
    tr.array_rank = r.U32();
    tr.enum_underlying = r.Str();
    tr.element_type = r.Str();
    if ((tr.kind == TypeKind::kArray) != (tr.array_rank != 0) || tr.array_rank > kMaxArrayRankValue)
      BadBlob(entry + " (" + TypeKindName(tr.kind) + ") has array rank " +
              std::to_string(tr.array_rank) + ": expected 1.." +
              std::to_string(kMaxArrayRankValue) + " for an array, 0 otherwise");
    if (!tr.enum_underlying.empty() && tr.kind != TypeKind::kEnum)
      BadBlob(entry + " (" + TypeKindName(tr.kind) + ") has an underlying type: expected an enum");
    if (!tr.element_type.empty() && tr.kind != TypeKind::kArray)
      BadBlob(entry + " (" + TypeKindName(tr.kind) + ") has an element type: expected an array");
    s.types[t].traits = std::move(tr);
    prev = t;
  }
  if (r.left()) BadBlob(std::to_string(r.left()) + " unexpected bytes after the type traits");
}

std::string EncodeOrigins(const Snapshot& s) {
  BlobWriter w;
  w.U32(static_cast<uint32_t>(s.root_origins.size()));
  for (const std::string& o : s.root_origins) w.Str(o);
  return std::move(w.bytes());
}

void DecodeOrigins(std::string_view blob, Snapshot& s) {
  BlobReader r(blob);
  const uint32_t n = r.Count(kMinBlobStringBytes);
  s.root_origins.reserve(n);
  for (uint32_t i = 0; i < n; ++i) s.root_origins.push_back(r.Str());
  if (r.left()) BadBlob(std::to_string(r.left()) + " unexpected bytes after the root origins");
}

std::string EncodeCapture(const CaptureInfo& c) {
  BlobWriter w;
  auto str = [&](CaptureField f, const std::string& v) {
    w.U32(f);
    w.Str(v);
  };
  auto num = [&](CaptureField f, uint64_t v) {
    w.U32(f);
    w.U32(8);
    w.U64(v);
  };
  str(kEndpoint, c.device.endpoint);
  str(kAgentName, c.device.agent_name);
  num(kProtocolVersion, c.device.protocol_version);
  num(kCapabilities, c.device.capabilities);
  str(kRuntimeName, c.device.runtime_name);
  str(kRuntimeVersion, c.device.runtime_version);
  str(kAppName, c.device.app_name);
  str(kPlatform, c.device.platform);
  num(kPointerBytes, c.device.pointer_bytes);
  num(kBigEndian, c.device.big_endian);
  num(kDumpVersion, c.device.dump_version);
  num(kAppDomainCount, c.device.app_domain_count);
  num(kBootMs, c.device.boot_ms);
  num(kCaptureId, c.capture_id);
  num(kCapturedAt, static_cast<uint64_t>(c.captured_at_unix_ms));
  num(kBatches, c.batches);
  num(kWireBytes, c.wire_bytes);
  num(kPauseUs, c.pause_us);
  num(kGcUs, c.gc_us);
  num(kWalkUs, c.walk_us);
  num(kStopWaitUs, c.stop_wait_us);
  num(kStallUs, c.stall_us);
  num(kAgentPeakBytes, c.agent_peak_bytes);
  num(kElapsedUs, c.elapsed_us);
  // Each written when set, independently: a file may carry one without the other (the reader
  // takes what it finds), and a rewrite must keep exactly that.
  if (!c.last_marker.empty()) str(kLastMarker, c.last_marker);
  if (c.marker_age_us >= 0) num(kMarkerAgeUs, static_cast<uint64_t>(c.marker_age_us));
  // Only after a snapshot walk, so a paused walk's file is what older writers wrote.
  if (c.snapshot_walk()) num(kWalkAfterPauseUs, c.walk_after_pause_us);
  return std::move(w.bytes());
}

CaptureInfo DecodeCapture(std::string_view blob) {
  CaptureInfo c;
  BlobReader r(blob);
  while (r.left()) {
    const size_t at = r.pos();
    const uint32_t field = r.U32();
    const uint32_t len = r.U32();
    if (len > r.left())
      BadBlob("field " + std::to_string(field) + " at blob offset " + std::to_string(at) +
              " claims " + std::to_string(len) + " bytes, only " + std::to_string(r.left()) +
              " remain");
    const std::string_view bytes = r.Bytes(len);
    const std::string value(bytes);
    BlobReader v(bytes);
    auto num = [&]() -> uint64_t {
      if (len != 8)
        BadBlob("numeric field " + std::to_string(field) + " at blob offset " + std::to_string(at) +
                " has " + std::to_string(len) + " bytes, expected 8");
      return v.U64();
    };
    auto u32 = [&]() -> uint32_t {
      const uint64_t x = num();
      if (x > UINT32_MAX)
        BadBlob("field " + std::to_string(field) + " at blob offset " + std::to_string(at) +
                " is out of range: " + std::to_string(x));
      return static_cast<uint32_t>(x);
    };
    switch (field) {
      case kEndpoint:
        c.device.endpoint = value;
        break;
      case kAgentName:
        c.device.agent_name = value;
        break;
      case kProtocolVersion:
        c.device.protocol_version = u32();
        break;
      case kCapabilities:
        c.device.capabilities = u32();
        break;
      case kRuntimeName:
        c.device.runtime_name = value;
        break;
      case kRuntimeVersion:
        c.device.runtime_version = value;
        break;
      case kAppName:
        c.device.app_name = value;
        break;
      case kPlatform:
        c.device.platform = value;
        break;
      case kPointerBytes:
        c.device.pointer_bytes = u32();
        break;
      case kBigEndian:
        c.device.big_endian = num() != 0;
        break;
      case kDumpVersion:
        c.device.dump_version = u32();
        break;
      case kAppDomainCount:
        c.device.app_domain_count = u32();
        break;
      case kBootMs:
        c.device.boot_ms = num();
        break;
      case kCaptureId:
        c.capture_id = u32();
        break;
      case kCapturedAt:
        c.captured_at_unix_ms = static_cast<int64_t>(num());
        break;
      case kBatches:
        c.batches = u32();
        break;
      case kWireBytes:
        c.wire_bytes = num();
        break;
      case kPauseUs:
        c.pause_us = num();
        break;
      case kGcUs:
        c.gc_us = num();
        break;
      case kWalkUs:
        c.walk_us = num();
        break;
      case kStopWaitUs:
        c.stop_wait_us = num();
        break;
      case kStallUs:
        c.stall_us = num();
        break;
      case kAgentPeakBytes:
        c.agent_peak_bytes = num();
        break;
      case kElapsedUs:
        c.elapsed_us = num();
        break;
      case kLastMarker:
        c.last_marker = value;
        break;
      case kMarkerAgeUs: {
        const uint64_t x = num();
        if (x > uint64_t{INT64_MAX})
          BadBlob("marker age at blob offset " + std::to_string(at) +
                  " is out of range: " + std::to_string(x));
        c.marker_age_us = static_cast<int64_t>(x);
        break;
      }
      case kWalkAfterPauseUs:
        c.walk_after_pause_us = num();  // 0 would mean a paused walk, as its absence does
        break;
      default:
        break;  // a field from a newer writer
    }
  }
  return c;
}

// ASIT: u8 version (1), u64 capture frame, u32 sample bytes, u32 method count + str each,
// u32 site count + per site u32 depth and depth u32 method indices (innermost first). Later
// versions append fields, which this reader ignores.
constexpr uint8_t kAllocSitesVersion = 1;

std::string EncodeAllocSites(const AllocationOrigins& o) {
  BlobWriter w;
  w.U8(kAllocSitesVersion);
  w.U64(o.capture_frame);
  w.U32(o.sample_bytes);
  w.U32(static_cast<uint32_t>(o.methods.size()));
  for (const std::string& m : o.methods) w.Str(m);
  w.U32(static_cast<uint32_t>(o.sites.size()));
  for (const AllocationSite& site : o.sites) {
    w.U32(static_cast<uint32_t>(site.methods.size()));
    for (const uint32_t m : site.methods) w.U32(m);
  }
  return std::move(w.bytes());
}

AllocationOrigins DecodeAllocSites(std::string_view blob) {
  AllocationOrigins o;
  BlobReader r(blob);
  const uint8_t version = r.U8();
  if (version == 0) BadBlob("allocation sites version 0 does not exist");
  o.capture_frame = r.U64();
  o.sample_bytes = r.U32();
  const uint32_t methods = r.Count(kMinBlobStringBytes);
  o.methods.reserve(methods);
  for (uint32_t i = 0; i < methods; ++i) o.methods.push_back(r.Str());
  const uint32_t sites = r.Count(4);
  o.sites.reserve(sites);
  for (uint32_t i = 0; i < sites; ++i) {
    const size_t at = r.pos();
    const uint32_t depth = r.Count(4);
    AllocationSite& site = o.sites.emplace_back();
    site.methods.reserve(depth);
    for (uint32_t k = 0; k < depth; ++k) {
      const uint32_t m = r.U32();
      if (m >= methods)
        BadBlob("site " + std::to_string(i) + " (blob offset " + std::to_string(at) +
                ") names method " + std::to_string(m) + " of " + std::to_string(methods));
      site.methods.push_back(m);
    }
  }
  if (version == kAllocSitesVersion && r.left())
    BadBlob(std::to_string(r.left()) + " unexpected bytes after the allocation sites");
  return o;
}

}  // namespace xrpm::formats
