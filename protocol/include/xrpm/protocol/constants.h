// Protocol constants shared by the device agent and the host: version, default port, ENet
// channels and every limit a receiver enforces before it parses or allocates.
// docs/PROTOCOL.md explains each one. Plain C++17; constants only, so thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xrpm {
namespace protocol {

// Bumped only for changes an older peer would misread (see wire.proto).
// 2: the token is proven by a challenge-response (auth.h) instead of sent in the Hello.
constexpr uint32_t kProtocolVersion = 2;
constexpr uint16_t kDefaultPort = 4510;
constexpr const char* kAgentName = "xrpm-agent 0.1.0";

// ENet channels.
constexpr uint8_t kChannelControl = 0;   // reliable: handshake, commands, errors
constexpr uint8_t kChannelHeap = 1;      // reliable: CaptureBegin, HeapBatch, CaptureEnd/Abort
constexpr uint8_t kChannelCounters = 2;  // unreliable sequenced: CounterSample
constexpr uint8_t kChannelFrames = 3;    // reliable: FrameBatch
constexpr size_t kChannelCount = 4;

// ---- message size limits (checked on the packet length, before parsing) ----
// Largest Envelope the agent sends (a HeapBatch is sealed well below it; see heap_batch.h).
constexpr size_t kMaxAgentMessageBytes = 256 * 1024;
// Largest Envelope the agent accepts from a host (commands are tiny).
constexpr size_t kMaxHostMessageBytes = 16 * 1024;
// ENet's own per-packet cap on both sides: larger packets are dropped by ENet before
// reassembly; packets between the message limit and this cap reach the application and are
// refused with a TOO_LARGE error.
constexpr size_t kEnetMaxPacketBytes = 1024 * 1024;
constexpr size_t kEnetMaxWaitingBytes = 4 * 1024 * 1024;

// ---- batch shape (the encoder's targets and the decoder's hard limits) ----
constexpr size_t kTargetBatchBytes = 64 * 1024;  // the encoder seals a batch at about this size
constexpr uint32_t kMaxBatchObjects = 16384;
constexpr uint32_t kMaxBatchRefs = 65536;
constexpr uint32_t kMaxBatchRoots = 16384;
constexpr uint32_t kMaxBatchTypes = 4096;
constexpr uint32_t kMaxBatchContainers = 4096;
constexpr uint32_t kMaxTypeNameBytes = 4096;
constexpr uint32_t kMaxShift = 16;

// ---- allocation origins in heap batches (optional columns) ----
constexpr uint32_t kMaxBatchOriginMethods = 4096;           // method definitions per batch
constexpr uint32_t kMaxBatchSites = 4096;                   // site definitions per batch
constexpr uint32_t kMaxMethodNameBytes = 1024;              // the agent cuts longer names
constexpr uint32_t kMaxCaptureOriginMethods = 16384;        // per capture (agent table; host check)
constexpr uint32_t kMaxCaptureSites = 16384;                // per capture (agent table; host check)
constexpr size_t kMaxCaptureMethodNameBytes = 1024 * 1024;  // all method names of a capture
// AppDomains (optional HeapBatch field 28, TypeEntry.domain): names are short strings.
constexpr uint32_t kMaxCaptureDomains = 1024;  // per capture (agent refuses more; host check)

// ---- fields and values in heap batches (optional; fields.h, docs/PROTOCOL.md) ----
constexpr uint32_t kMaxLayoutFields = 1024;    // instance fields (flattened), and statics, per type
constexpr uint32_t kMaxFieldNameBytes = 512;   // field names and declared type names
constexpr size_t kMaxLayoutBytes = 12 * 1024;  // names of one layout or enum: the agent cuts there
constexpr uint32_t kMaxEnumMembers = 1024;
constexpr uint32_t kMaxBatchLayouts = 4096;
constexpr uint32_t kMaxBatchEnums = 4096;
constexpr uint32_t kMaxBatchValues = 256 * 1024;  // value words per batch (each >= 1 wire byte)
constexpr uint32_t kDefaultStringCap = 1024;      // UTF-16 code units of text per string
constexpr uint32_t kMaxStringCap = 4096;
// Value words of one object: a string's length and text, or one per field.
constexpr uint32_t kMaxObjectValues =
    kMaxStringCap + 1 > kMaxLayoutFields ? kMaxStringCap + 1 : kMaxLayoutFields;

// ---- joining another tool's collection (CaptureRequest.join_induced_gc_ms) ----
constexpr uint32_t kMaxJoinInducedGcMs = 3600 * 1000;  // an hour

// ---- strings and counters ----
constexpr size_t kMaxShortString = 256;  // names, versions, platform, client name, token
constexpr size_t kMaxErrorMessage = 1024;
constexpr size_t kMaxCounters = 1024;
constexpr uint32_t kMinCounterIntervalMs = 10;  // up to 100 Hz

// ---- frames and allocation samples ----
constexpr uint32_t kDefaultSampleBytes = 16 * 1024;  // one sample per 16 KiB allocated
constexpr uint32_t kMinSampleBytes = 64;
constexpr uint32_t kMaxSampleBytes = 64u * 1024 * 1024;
constexpr uint32_t kMaxFrameBatchRows = 2048;  // frames + samples per FrameBatch
constexpr uint32_t kMaxFrameBatchDefs = 4096;  // methods + types + stacks per FrameBatch
constexpr uint32_t kMaxStackDepth = 32;        // methods per sampled stack and per site
constexpr uint32_t kMaxFrameDefs = 4096;       // methods, types, and stacks (each)
// Markers, capture requests and scope tags (CAP_MARKERS): text longer than kMaxMarkerBytes is
// cut there (at a UTF-8 boundary) by the agent, never refused; the host refuses longer.
constexpr uint32_t kMaxMarkerBytes = 128;
constexpr uint32_t kMaxBatchMarkers = 1024;  // markers per FrameBatch
constexpr uint32_t kMaxFrameTags = 1024;     // scope tags per subscription
// Frames-channel bytes inside ENet beyond which the agent stops draining its ring.
constexpr size_t kMaxFramesUnackedBytes = 256 * 1024;

// ---- flow control ----
// Bytes the sender hands to ENet and that are not yet acknowledged (reliable heap channel).
constexpr size_t kMaxUnackedBytes = 1024 * 1024;

}  // namespace protocol
}  // namespace xrpm
