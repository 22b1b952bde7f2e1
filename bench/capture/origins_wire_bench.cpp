// Wire cost of allocation origins (target: the per-object columns <= 4 B/object on the wire).
// For each heap the agent's real capture path (RunCapture: CaptureSink -> HeapBatchWriter ->
// serialized envelopes in the capture queue, no network) runs twice in the same process: on
// the emulator with origins recorded (RuntimeConfig::record_origins, the default) and on the
// same heap built without them (the baseline: exactly the batches an old agent sends). From the
// queued HeapBatch messages it reports
//   columns   serialized bytes of the two per-object fields (object_sites, object_frames and
//             frame_base, with their protobuf tags and lengths) per object
//   defs      bytes of the clock and the method and site definitions (per capture)
//   total     all messages of the capture with origins vs without (the same-run baseline)
// Heaps: the synthetic 1 M-object heap (--objects, 3 refs, 64 types, seed 1: one allocation
// site) and the leak scenario after --frames frames (sites of a real game, mixed ages). A third
// row stresses the codec directly (HeapBatchWriter, the agent's encoder): --objects objects with
// one of 4096 sites each, uniformly at random, frames rising in allocation order with 2% of the
// objects much older (a fragmented, long-lived heap); its baseline is the same walk without
// the origin calls.
//
// Run: build/release/bin/origins_wire_bench [--objects N] [--frames F]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../../device-agent/src/capture_job.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/protocol/envelope_io.h"
#include "xrpm/protocol/heap_batch_writer.h"

namespace {

using namespace xrpm;

struct Wire {
  uint64_t objects = 0, heap_bytes = 0, refs = 0;
  uint64_t total = 0;    // every message of the capture (CaptureBegin, batches, CaptureEnd)
  uint64_t columns = 0;  // object_sites + frame_base + object_frames
  uint64_t defs = 0;     // origin_clock + origin_methods + site definitions
  uint64_t sites = 0, methods = 0;
};

// Serialized size of the fields of `b` that `keep` leaves (the others cleared).
template <class Keep>
uint64_t FieldBytes(const wire::HeapBatch& b, Keep keep) {
  wire::HeapBatch c;
  keep(b, &c);
  return c.ByteSizeLong();
}

// Sums one capture's batches into *w (the columns and definitions as Capture does).
void Account(const wire::HeapBatch& b, Wire* w) {
  w->columns += FieldBytes(b, [](const wire::HeapBatch& in, wire::HeapBatch* out) {
    out->set_object_sites(in.object_sites());
    out->set_frame_base(in.frame_base());
    out->set_object_frames(in.object_frames());
  });
  w->defs += FieldBytes(b, [](const wire::HeapBatch& in, wire::HeapBatch* out) {
    if (in.has_origin_clock()) *out->mutable_origin_clock() = in.origin_clock();
    *out->mutable_origin_methods() = in.origin_methods();
    out->set_site_count(in.site_count());
    out->set_site_depths(in.site_depths());
    out->set_site_methods(in.site_methods());
  });
  w->methods += b.origin_methods_size();
  w->sites += b.site_count();
}

Wire Capture(emulator::Runtime& rt) {
  agent::CaptureJob job(1, 1, size_t{1} << 30);  // holds the whole capture: no network here
  agent::RunCapture(rt, job, 10000);
  Wire w;
  std::string bytes;
  while (job.queue.Pop(&bytes)) {
    w.total += bytes.size();
    wire::Envelope env;
    if (!env.ParseFromString(bytes)) std::abort();
    if (env.has_capture_end()) {
      w.objects = env.capture_end().object_count();
      w.heap_bytes = env.capture_end().heap_bytes();
      w.refs = env.capture_end().ref_count();
      if (env.capture_end().origins_dropped() != 0) std::abort();
    }
    if (env.has_heap_batch()) Account(env.heap_batch(), &w);
  }
  if (!job.completed) {
    std::fprintf(stderr, "capture failed: %s\n", job.failure.c_str());
    std::exit(1);
  }
  return w;
}

struct Heap {
  emulator::Runtime rt;
  std::unique_ptr<emulator::Scenario> scenario;
  Heap(const emulator::ScenarioParams& p, uint64_t frames, bool origins)
      : rt([&] {
          emulator::RuntimeConfig c;
          c.heap_reserve_bytes = size_t{1} << 30;
          c.record_origins = origins;
          return c;
        }()),
        scenario(emulator::MakeScenario(p)) {
    emulator::GameLoop loop(rt, *scenario, emulator::LoopConfig{0, frames});
    loop.Setup();
    if (frames) loop.RunHere();
  }
};

Wire Adversarial(uint64_t objects, bool origins) {
  Wire w;
  protocol::HeapBatchWriter writer(1, [&](wire::Envelope* env) {
    w.total += env->ByteSizeLong();
    Account(env->heap_batch(), &w);
    return true;
  });
  std::mt19937_64 rng(1);
  constexpr uint32_t kSites = 4096, kMethods = 512;
  if (origins) {
    writer.Clock(1u << 20, 0);
    for (uint32_t m = 1; m <= kMethods; ++m)
      writer.OriginMethod("Game.Namespace.Class" + std::to_string(m) + ".Method");
    for (uint32_t s = 0; s < kSites; ++s) {
      uint32_t ids[8];
      for (uint32_t& id : ids) id = 1 + static_cast<uint32_t>(rng() % kMethods);
      writer.Site(ids, 8);
    }
  }
  uint64_t addr = 0x40000000, frame = 1000;
  for (uint64_t i = 0; i < objects; ++i) {
    const uint32_t size = 12 + 4 * static_cast<uint32_t>(rng() % 30);
    const uint64_t ref = 0x40000000 + 16 * (rng() % objects);
    if (rng() % 16 == 0) frame += 1 + rng() % 3;
    const uint32_t site = 1 + static_cast<uint32_t>(rng() % kSites);
    const uint64_t f = rng() % 50 == 0 ? rng() % frame : frame;
    writer.Object(addr, 1 + static_cast<uint32_t>(rng() % 64), size, &ref, 1, origins ? site : 0,
                  origins ? f : 0);
    addr += size;
  }
  writer.Flush();
  w.objects = writer.totals().objects;
  return w;
}

void Print(const char* name, const Wire& on, const Wire& off) {
  if (on.objects != off.objects || on.heap_bytes != off.heap_bytes || on.refs != off.refs ||
      off.columns != 0 || off.defs != 0) {
    std::fprintf(stderr, "%s: the baseline is not the same heap without origins\n", name);
    std::exit(1);
  }
  const double n = static_cast<double>(on.objects);
  std::printf(
      "%-11s objects %9llu  sites %5llu methods %5llu | columns %.3f B/object | defs %llu B | "
      "total %.3f B/object vs %.3f without: +%.3f B/object, ratio %.3fx\n",
      name, static_cast<unsigned long long>(on.objects), static_cast<unsigned long long>(on.sites),
      static_cast<unsigned long long>(on.methods), on.columns / n,
      static_cast<unsigned long long>(on.defs), on.total / n, off.total / n,
      (static_cast<double>(on.total) - off.total) / n, static_cast<double>(on.total) / off.total);
}

void Report(const char* name, const emulator::ScenarioParams& p, uint64_t frames) {
  Wire on, off;
  {
    Heap h(p, frames, true);
    on = Capture(h.rt);
  }
  {
    Heap h(p, frames, false);
    off = Capture(h.rt);
  }
  Print(name, on, off);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t objects = 1000000, frames = 36000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--objects")) objects = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--frames")) frames = std::strtoull(argv[i + 1], nullptr, 10);
  }
  Report("synthetic", emulator::ScenarioParams{"synthetic", 1, objects, 3, 64}, 0);
  Report("leak", emulator::ScenarioParams{"leak", 1}, frames);
  Print("adversarial", Adversarial(objects, true), Adversarial(objects, false));
  return 0;
}
