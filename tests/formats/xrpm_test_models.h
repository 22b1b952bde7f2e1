// Snapshots for the .xrpm tests: random models with everything only .xrpm keeps (capture
// metadata, root origins, allocation origins, modules, sample multipliers, finalizers), the
// realistic game heap, and writing bytes to a file.
//
// Thread-safety: plain functions.
#pragma once

#include <fstream>
#include <random>
#include <string>
#include <string_view>

#include "netcf_gen.h"
#include "xrpm/formats/netcf_reader.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::testing {

inline void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline CaptureInfo SampleCapture(uint64_t seed) {
  CaptureInfo c;
  c.device.endpoint = "127.0.0.1:" + std::to_string(4510 + seed % 7);
  c.device.agent_name = "xrpm-agent 0.1.0";
  c.device.protocol_version = 3;
  c.device.capabilities = 0x1f;
  c.device.runtime_name = "NETCF emulator";
  c.device.runtime_version = "3.5.7283";
  c.device.app_name = "bubbles.exe";
  c.device.platform = "Xbox 360 (emulated) ünïcode";
  c.device.pointer_bytes = 4;
  c.device.big_endian = seed & 1;
  c.device.dump_version = 2;
  c.device.app_domain_count = 1 + seed % 3;
  c.device.boot_ms = 123456789 + seed;
  c.capture_id = static_cast<uint32_t>(seed + 1);
  c.captured_at_unix_ms = -5 + static_cast<int64_t>(seed) * 1000;  // negative survives too
  c.batches = 17;
  c.wire_bytes = 1234567;
  c.pause_us = 35210;
  c.gc_us = 1200;
  c.walk_us = 30000;
  c.stop_wait_us = 10;
  c.stall_us = 4000;
  c.agent_peak_bytes = 1 << 20;
  c.elapsed_us = 99999;
  if (seed % 2) c.walk_after_pause_us = 1'400'000 + seed;  // a snapshot walk
  return c;
}

// Allocation origins as the emulator records them (every object) or Mono (a sample of them).
inline void AddOrigins(Snapshot& s, std::mt19937_64& rng, bool sampled) {
  AllocationOrigins o;
  o.capture_frame = 5000 + rng() % 1000;
  o.sample_bytes = sampled ? 16384 : 0;
  o.methods = {"Game1.Update", "Bubbles.BubbleField.Spawn", "Bubbles.Bubble.OnSpawn",
               "Game1.LoadContent", "Ünïcode.Méthod"};
  o.sites = {{{2, 1, 0}}, {{3}}, {{}}, {{4, 0}}};
  s.origins = o;
  s.object_alloc_frame.clear();
  s.object_alloc_site.clear();
  for (size_t i = 0; i < s.object_count(); ++i) {
    const bool known = !sampled || rng() % 8 == 0;
    s.AddObjectOrigin(known ? static_cast<uint32_t>(rng() % o.capture_frame) : 0,
                      known ? static_cast<uint32_t>(rng() % o.sites.size()) : kUnknownSite);
  }
}

// A random model plus what only .xrpm keeps: root origins, capture metadata, allocation origins.
inline Snapshot RichModel(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Snapshot s = RandomModel(rng);
  if (seed % 3) {
    s.root_origins = {"thread 3 / Game1.Update", "GCHandle table", "statics of Game1", ""};
    for (size_t i = 0; i < s.root_count(); ++i)
      s.root_origin[i] = (i % 5 == 4) ? kNoIndex : static_cast<uint32_t>(rng() % 4);
  }
  if (seed % 2) s.capture = SampleCapture(seed);
  if (seed % 4 == 1 && !s.types.empty()) {  // what a .gcdump adds: modules, sampled types
    s.types[0].module = "System.Private.CoreLib";
    s.types.back().sample_multiplier = 12.5f;
  }
  if (seed % 3 == 2 && !s.types.empty()) {  // what xrpm captures add: types with a finalizer
    s.types[0].has_finalizer = true;
    s.types.back().has_finalizer = true;
  }
  if (seed % 5) AddOrigins(s, rng, seed % 5 == 3);
  return s;
}

inline Snapshot GameHeap(uint64_t objects) {
  std::string text;
  WriteGameHeap(objects, 7, [&](std::string_view b) { text.append(b); });
  Diagnostics d;
  return formats::ReadNetcf(text, "game", d);
}

}  // namespace xrpm::testing
