// HeapBatchWriter: the sealing policy around BatchEncoder. Feed it the walk in order (types,
// containers and roots, objects with their references); it hands each sealed HeapBatch to a
// sink and keeps the capture totals and the chained checksum that CaptureEnd reports.
//
// Two modes:
//   - inline: a full batch is encoded, checksummed and handed to the sink on the calling thread;
//   - background (`background_sealing`): the calling thread (the heap walk, with the game
//     stopped) only appends values; a full batch is swapped to a sealer thread that encodes,
//     checksums and calls the sink, while the walk fills the next one (double buffering: the
//     walk waits only if the sealer is still busy with the previous batch). On a 2-core device
//     whose game thread is parked, this takes the encoding off the game's pause.
// Batches reach the sink in order either way. A writer may start inline and switch to
// background later (StartBackgroundSealing), between two batches.
//
// Memory: the column buffers of the batch being filled, plus (background) the batch being
// sealed and the handed-over one: a few hundred KiB each for ~64 KiB batches (they scale with
// the batch size), reused; a column a sealed batch left empty gives its buffer back (the walk's
// phases: types, then roots, then objects); FootprintBytes() reports them.
//
// Thread-safety: the Add methods, Flush and totals() belong to one thread (the walk). In
// background mode the sink runs on the sealer thread; FootprintBytes() may be called from
// either. totals() is complete after Flush().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/heap_batch.h"

namespace xrpm {
namespace protocol {

struct CaptureTotals {
  uint32_t batches = 0;
  uint64_t types = 0;
  uint64_t containers = 0;
  uint64_t objects = 0;
  uint64_t refs = 0;
  uint64_t roots = 0;
  uint64_t heap_bytes = 0;
  uint64_t checksum = 0;
  // Allocation origins (0 without them).
  uint64_t origin_methods = 0;
  uint64_t sites = 0;
  uint64_t known_origins = 0;  // objects sent with a site
  // Fields and values (0 without them).
  uint64_t layouts = 0;
  uint64_t enums = 0;
  uint64_t value_words = 0;
  uint64_t domains = 0;  // AppDomains named (0: the runtime names none)
};

class HeapBatchWriter {
 public:
  // Receives each sealed batch (the envelope may be consumed). Returning false stops the
  // writer: every later call returns false.
  using Sink = std::function<bool(wire::Envelope* batch)>;

  // `batch_bytes`: the encoded size a batch is sealed at (constants.h kTargetBatchBytes).
  HeapBatchWriter(uint32_t capture_id, Sink sink, bool background_sealing = false,
                  size_t batch_bytes = kTargetBatchBytes);
  ~HeapBatchWriter() { Stop(); }
  HeapBatchWriter(const HeapBatchWriter&) = delete;
  HeapBatchWriter& operator=(const HeapBatchWriter&) = delete;

  bool Type(uint32_t id, const char* name, size_t len, uint32_t domain = 0,
            bool has_finalizer = false);
  bool Type(const RawType& t);  // with traits (RawType::kind ...)
  // An AppDomain: the next capture-wide domain id (totals().domains after it).
  bool Domain(const std::string& name);
  bool Container(const RawContainer& c);  // gets the next container index
  bool Root(uint64_t object, uint32_t flags, uint32_t container_index, uint32_t slot = kNoSlot);
  // Fields and values (heap_batch.h BatchEncoder): EnableFields before anything else; layouts
  // and enums before the objects and roots that use them.
  void EnableFields(bool values) { enc_.EnableFields(values); }
  // Seals at about `batch_bytes` from now on (the batch being filled included).
  void SetBatchBytes(size_t batch_bytes) { enc_.SetBatchBytes(batch_bytes); }
  // An inline writer seals in background mode from the next batch on (idempotent). Batches
  // already sealed reached the sink. False if the sealer thread cannot be started (the writer
  // stays inline).
  bool StartBackgroundSealing();
  bool Layout(const RawLayout& layout);
  bool Enum(const RawEnum& e);
  // Allocation origins (heap_batch.h BatchEncoder): the clock once, before any origin; a
  // method or a site gets the next capture-wide id (totals().origin_methods / .sites after it).
  bool Clock(uint64_t capture_frame, uint32_t sample_bytes);
  bool OriginMethod(const std::string& name);
  bool Site(const uint32_t* method_ids, uint32_t depth);
  // An object; `site` (0 unknown) and `frame` are its origin once the clock was sent;
  // `detail` its slots and value words in a fields / values capture.
  bool Object(uint64_t id, uint32_t type, uint32_t size, const uint64_t* refs, size_t n,
              uint32_t site = 0, uint64_t frame = 0, const ObjectDetail& detail = {});
  // The same in parts, for an object whose references are not at hand all at once: ObjectBegin
  // with its reference count n (detail's slots unused), then ObjectRefs until n were given (in
  // order, each part's slots or null for unknown ones). No other call in between.
  bool ObjectBegin(uint64_t id, uint32_t type, uint32_t size, size_t n, uint32_t site = 0,
                   uint64_t frame = 0, const ObjectDetail& detail = {});
  bool ObjectRefs(const uint64_t* refs, const uint32_t* slots, size_t n);
  // Seals the last, partial batch and waits until the sink has every batch. Call once at the
  // end of the walk.
  bool Flush();
  // Stops the sealer thread (after the batch it is sealing, if any); unflushed batches are
  // dropped. Idempotent; the destructor calls it.
  void Stop();

  const CaptureTotals& totals() const { return totals_; }
  uint32_t next_container_index() const { return static_cast<uint32_t>(totals_.containers); }
  // Heap memory held by the encoder, the batches in the pipeline and the sealed message.
  size_t FootprintBytes() const {
    return walk_bytes_.load(std::memory_order_relaxed) +
           sealer_bytes_.load(std::memory_order_relaxed);
  }

 private:
  bool Seal();               // the walk thread: a full batch leaves the encoder
  void SealerLoop();         // background mode
  bool Emit(RawBatch& raw);  // encode, checksum, sink; on whichever thread seals
  void NoteWalkBytes() { walk_bytes_.store(enc_.FootprintBytes(), std::memory_order_relaxed); }

  const uint32_t capture_id_;
  Sink sink_;
  BatchEncoder enc_;
  CaptureTotals totals_;  // counts: walk thread; batches and checksum: whoever seals
  std::atomic<bool> stopped_{false};
  std::atomic<size_t> walk_bytes_{0}, sealer_bytes_{0};

  // Sealing state (inline: walk thread; background: sealer thread).
  wire::Envelope env_;
  EncodeScratch scratch_;
  uint32_t sealed_ = 0;  // batches handed to the sink
  uint64_t checksum_ = 0;

  // Background hand-off (guarded by mu_). background_ belongs to the walk thread (the sealer
  // never reads it).
  bool background_;
  std::thread sealer_;
  std::mutex mu_;
  std::condition_variable cv_;
  RawBatch handoff_;  // a full batch waiting for the sealer
  RawBatch sealing_;  // the batch the sealer works on
  bool handoff_full_ = false;
  bool sealer_busy_ = false;
  bool exit_ = false;
};

}  // namespace protocol
}  // namespace xrpm
