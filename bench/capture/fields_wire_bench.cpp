// Wire cost, pause and agent memory of fields and values (targets: bytes on the wire with
// values <= 1.6x the same capture with --no-values; with --no-values <= 1.05x today's capture,
// i.e. field identity <= 1 B/reference; the pause with values <= 1.2x the pause without; agent
// memory within today's budget plus the values' own bytes; the 1 MiB streaming mode holds).
//
// For each heap the agent's real capture path (RunCapture: CaptureSink -> HeapBatchWriter ->
// serialized envelopes in the capture queue, no network) runs in the same process on the same
// heap, after one warm-up capture whose collection leaves nothing more to free:
//   shape      today's capture (the host does not ask for fields): the same-run baseline
//   fields     CaptureRequest.fields (layouts, slots, labels): `xrpm capture --no-values`
//   values     fields + values (the default)
//   stream     values with a 1 MiB capture memory limit (streaming mode)
// Each mode runs --repeat times; bytes are exact (deterministic), the pause is the median.
// Before each capture one GC mark of the same heap is timed (Collector::MarkOnly): the pause and
// its walk part (CaptureEnd.walk_us: after the induced collection, until the world resumes)
// are also given as the median of their per-capture ratios to that mark (target with values:
// pause <= 1.8x the mark).
// Reported per mode: total bytes (every message), bytes/object, the slot columns' bytes per
// reference, the value columns' bytes per object, the layouts' bytes, the pause and the agent's
// peak memory, and the ratios the targets bound.
//
// Heaps: the synthetic heap (--objects, 3 refs, 64 types, seed 1), bubbles and leak after
// --frames frames.
//
// Run: build/release/bin/fields_wire_bench [--objects N] [--frames F] [--repeat R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../../device-agent/src/capture_job.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/protocol/constants.h"

namespace {

using namespace xrpm;

struct Result {
  uint64_t objects = 0, refs = 0, total = 0, slots = 0, values = 0, layouts = 0;
  uint64_t peak = 0, dropped = 0;
  double pause_ms = 0, walk_ms = 0;
  double mark_ms = 0;  // one GC mark of the same heap, measured just before the capture
  double pause_vs_mark = 0, walk_vs_mark = 0;
  // CPU time of the capture's thread (induced collection + walk: RunCapture runs them on the
  // calling thread) against the mark's CPU time: steadier than wall time on a shared machine.
  double cpu_ms = 0, mark_cpu_ms = 0, cpu_vs_mark = 0;
};

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

template <class Keep>
uint64_t FieldBytes(const wire::HeapBatch& b, Keep keep) {
  wire::HeapBatch c;
  keep(b, &c);
  return c.ByteSizeLong();
}

Result CaptureOnce(emulator::Runtime& rt, const agent::WalkDetail& detail, size_t limit) {
  agent::CaptureJob job(1, 1, limit);
  job.detail = detail;
  Result r;
  // Streaming: the queue must drain while the walk runs (no network here: a thread pops).
  std::vector<std::string> messages;
  std::thread drain;
  const bool streaming = limit < (size_t{8} << 20);
  if (streaming)
    drain = std::thread([&] {
      std::string bytes;
      while (!job.queue.closed_and_empty()) {
        if (!job.queue.Pop(&bytes)) {
          std::this_thread::sleep_for(std::chrono::microseconds(50));  // a network's pace
          continue;
        }
        job.memory.Release(bytes.size());  // as ENet's free callback does once sent
        job.queue.Wake();
        messages.push_back(std::move(bytes));
      }
    });
  {  // the baseline, moments before the capture (the machine is shared)
    const double c0 = ThreadCpuMs();
    const auto t0 = std::chrono::steady_clock::now();
    rt.gc().MarkOnly();
    r.mark_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    r.mark_cpu_ms = ThreadCpuMs() - c0;
  }
  const double c0 = ThreadCpuMs();
  agent::RunCapture(rt, job, 10000);
  r.cpu_ms = ThreadCpuMs() - c0;
  r.cpu_vs_mark = r.cpu_ms / r.mark_cpu_ms;
  if (streaming) {
    drain.join();
  } else {
    std::string bytes;
    while (job.queue.Pop(&bytes)) messages.push_back(std::move(bytes));
  }
  if (!job.completed) {
    std::fprintf(stderr, "capture failed: %s\n", job.failure.c_str());
    std::exit(1);
  }
  for (const std::string& bytes : messages) {
    r.total += bytes.size();
    wire::Envelope env;
    if (!env.ParseFromString(bytes)) std::abort();
    if (env.has_capture_end()) {
      r.objects = env.capture_end().object_count();
      r.refs = env.capture_end().ref_count();
      r.dropped = env.capture_end().fields_dropped();
      r.walk_ms = env.capture_end().walk_us() / 1000.0;
    }
    if (!env.has_heap_batch()) continue;
    const wire::HeapBatch& b = env.heap_batch();
    r.slots += FieldBytes(b, [](const wire::HeapBatch& in, wire::HeapBatch* out) {
      out->set_ref_slots(in.ref_slots());
      out->set_root_slots(in.root_slots());
    });
    r.values += FieldBytes(b, [](const wire::HeapBatch& in, wire::HeapBatch* out) {
      out->set_object_value_counts(in.object_value_counts());
      out->set_value_count(in.value_count());
      out->set_values(in.values());
    });
    r.layouts += FieldBytes(b, [](const wire::HeapBatch& in, wire::HeapBatch* out) {
      *out->mutable_layouts() = in.layouts();
      *out->mutable_enums() = in.enums();
    });
  }
  r.peak = job.peak_bytes;
  r.pause_ms = job.pause_us / 1000.0;
  r.pause_vs_mark = r.pause_ms / r.mark_ms;
  r.walk_vs_mark = r.walk_ms / r.mark_ms;
  return r;
}

Result Capture(emulator::Runtime& rt, const agent::WalkDetail& detail, size_t limit, int repeat) {
  std::vector<double> pauses, walks, marks, pause_ratios, walk_ratios, cpu_ratios;
  Result r;
  for (int i = 0; i < repeat; ++i) {
    r = CaptureOnce(rt, detail, limit);
    pauses.push_back(r.pause_ms);
    walks.push_back(r.walk_ms);
    marks.push_back(r.mark_ms);
    pause_ratios.push_back(r.pause_vs_mark);
    walk_ratios.push_back(r.walk_vs_mark);
    cpu_ratios.push_back(r.cpu_vs_mark);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  r.pause_ms = median(pauses);
  r.walk_ms = median(walks);
  r.mark_ms = median(marks);
  r.pause_vs_mark = median(pause_ratios);  // medians of the per-capture ratios
  r.walk_vs_mark = median(walk_ratios);
  r.cpu_vs_mark = median(cpu_ratios);
  return r;
}

void Row(const char* mode, const Result& r, const Result& base) {
  const double n = static_cast<double>(r.objects);
  std::printf(
      "  %-6s %11llu B  %6.2f B/object  slots %.3f B/ref  values %6.2f B/object  layouts %7llu "
      "B  pause %7.2f ms (%.2fx GC mark; walk %.2f ms, %.2fx; thread CPU %.2fx the mark's)  "
      "peak %8.2f MiB  %.3fx shape  dropped %llu\n",
      mode, static_cast<unsigned long long>(r.total), r.total / n,
      r.refs ? static_cast<double>(r.slots) / static_cast<double>(r.refs) : 0.0, r.values / n,
      static_cast<unsigned long long>(r.layouts), r.pause_ms, r.pause_vs_mark, r.walk_ms,
      r.walk_vs_mark, r.cpu_vs_mark, r.peak / 1048576.0,
      static_cast<double>(r.total) / static_cast<double>(base.total),
      static_cast<unsigned long long>(r.dropped));
}

void Report(const char* name, const emulator::ScenarioParams& p, uint64_t frames, int repeat) {
  emulator::RuntimeConfig c;
  c.heap_reserve_bytes = size_t{1} << 30;
  emulator::Runtime rt(c);
  std::unique_ptr<emulator::Scenario> scenario = emulator::MakeScenario(p);
  emulator::GameLoop loop(rt, *scenario, emulator::LoopConfig{0, frames});
  loop.Setup();
  if (frames) loop.RunHere();
  const size_t kBuffered = size_t{1} << 30, kStreaming = size_t{1} << 20;
  const agent::WalkDetail shape{}, fields{true, false, protocol::kDefaultStringCap},
      values{true, true, protocol::kDefaultStringCap};
  CaptureOnce(rt, shape, kBuffered);  // warm-up: its collection frees what the game dropped
  const Result s = Capture(rt, shape, kBuffered, repeat);
  const Result f = Capture(rt, fields, kBuffered, repeat);
  const Result v = Capture(rt, values, kBuffered, repeat);
  const Result st = Capture(rt, values, kStreaming, 1);
  if (s.objects != f.objects || s.objects != v.objects || s.objects != st.objects) {
    std::fprintf(stderr, "%s: the captures are not of the same heap\n", name);
    std::exit(1);
  }
  std::printf("%s: %llu objects, %llu references\n", name,
              static_cast<unsigned long long>(s.objects), static_cast<unsigned long long>(s.refs));
  Row("shape", s, s);
  Row("fields", f, s);
  Row("values", v, s);
  Row("stream", st, s);
  std::printf(
      "  => values/no-values %.3fx (<= 1.6), no-values/today %.3fx (<= 1.05), field identity "
      "%.3f B/ref (<= 1), pause values/no-values %.2fx (<= 1.2), streaming peak %.2f MiB\n",
      static_cast<double>(v.total) / static_cast<double>(f.total),
      static_cast<double>(f.total) / static_cast<double>(s.total),
      s.refs ? (static_cast<double>(f.total) - static_cast<double>(s.total)) /
                   static_cast<double>(s.refs)
             : 0.0,
      f.pause_ms > 0 ? v.pause_ms / f.pause_ms : 0.0, st.peak / 1048576.0);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t objects = 1000000, frames = 3600;
  int repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--objects")) objects = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--frames")) frames = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::atoi(argv[i + 1]);
  }
  Report("synthetic", emulator::ScenarioParams{"synthetic", 1, objects, 3, 64}, 0, repeat);
  Report("bubbles", emulator::ScenarioParams{"bubbles", 1}, frames, repeat);
  Report("leak", emulator::ScenarioParams{"leak", 1}, frames, repeat);
  return 0;
}
