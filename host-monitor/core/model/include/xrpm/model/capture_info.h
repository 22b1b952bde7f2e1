// CaptureInfo: what a live capture knew about itself that a heap dump file does not say: the
// device and runtime it came from, when it was taken, what it cost the device (pause, GC and
// walk times, whether the walk was a snapshot walk, agent memory) and what it cost the link
// (wire bytes, batches). DescribeCapturePause (capture_pause.h) puts the pause in words.
//
// A Snapshot captured from a device carries one (Snapshot::capture); snapshots read from
// .gclog and the other interchange formats have none, .xrpm files keep it (docs/FORMAT.md).
//
// Thread-safety: a plain value.
#pragma once

#include <cstdint>
#include <string>

namespace xrpm {

// The device a host is connected to, as its agent described itself in the handshake.
struct DeviceInfo {
  std::string endpoint;  // "127.0.0.1:4510"
  std::string agent_name;
  uint32_t protocol_version = 0;
  uint32_t capabilities = 0;
  std::string runtime_name, runtime_version, app_name, platform;
  uint32_t pointer_bytes = 0;
  bool big_endian = false;
  uint32_t dump_version = 0;
  uint32_t app_domain_count = 0;
  uint64_t boot_ms = 0;  // the device's boot-relative clock at the hello

  friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

struct CaptureInfo {
  DeviceInfo device;

  // ---- the capture ----
  uint32_t capture_id = 0;
  int64_t captured_at_unix_ms = 0;  // host wall clock when the snapshot was verified
  uint32_t batches = 0;
  uint64_t wire_bytes = 0;  // serialized messages received (CaptureBegin + batches)
  uint64_t pause_us = 0;    // the game was stopped (GC + walk + encode), agent-measured
  uint64_t gc_us = 0, walk_us = 0, stop_wait_us = 0, stall_us = 0;
  // A snapshot walk: the game paused for the collection and a copy-on-write snapshot
  // only (walk_us is then the snapshot's share of the pause) and the heap was walked from the
  // snapshot while the game ran, for this long (CaptureEnd.walk_after_pause_us). 0: the walk
  // was in the pause (paused walk), as in every capture before snapshot walks.
  uint64_t walk_after_pause_us = 0;
  uint64_t agent_peak_bytes = 0;  // the agent's peak memory during the capture
  uint64_t elapsed_us = 0;        // host: request sent -> snapshot verified
  // The last marker the game posted before the capture: its text and how long
  // before the world stopped (device clock); marker_age_us < 0 when there was none.
  std::string last_marker;
  int64_t marker_age_us = -1;

  // Whether the heap was walked from a snapshot after the game resumed (else in the pause).
  bool snapshot_walk() const { return walk_after_pause_us != 0; }

  friend bool operator==(const CaptureInfo&, const CaptureInfo&) = default;
};

}  // namespace xrpm
