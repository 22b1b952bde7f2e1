// Capture benchmark: the synthetic heap (1 M objects, 3 M references, 64 types, seed 1) measured
// in one run, each figure next to its baseline:
//   end-to-end capture   request -> verified Snapshot on the host, agent and client in this
//                        process over 127.0.0.1 (ENet, both network threads), values on (the
//                        host's default); also against the same capture's game pause
//   lower bound          the same walk, encoding and decoding with no network: WalkHeap ->
//                        HeapBatchWriter (encode + serialize) -> parse -> CaptureAssembler
//   game pause           the agent's stopped-world time (induced GC + walk + encode), and its
//                        walk+encode part, against one GC mark of the same heap
//   wire bytes           serialized messages of the capture against the .gclog of the same heap
//   agent memory         peak extra memory of the agent (bytes per object), default mode and a
//                        streaming mode (capture_memory_limit = 1 MiB)
// Each of `--runs` (default 5) runs measures every figure once, baselines next to captures, and
// the report gives medians and the medians of the per-run ratios (the machine is shared).
// `--walk snapshot`: the captures walk in a copy-on-write child (RuntimeConfig::snapshot_walks),
// the game paused for the collection and the fork only.
//
// Run: build/release/bin/capture_bench [--objects N] [--runs R] [--json] [--walk paused|snapshot]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "xrpm/agent/agent.h"
#include "xrpm/client/capture_assembler.h"
#include "xrpm/client/host_client.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/emulator/world_lock.h"
#include "xrpm/formats/netcf_writer.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"
#include "xrpm/protocol/heap_batch_writer.h"

namespace {

using namespace xrpm;
using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Wall time of fn; its CPU time (this thread) is appended to *cpu.
double TimeMs(const std::function<void()>& fn, std::vector<double>* cpu) {
  const double c0 = ThreadCpuMs();
  const auto t0 = Clock::now();
  fn();
  const double wall = Ms(Clock::now() - t0);
  cpu->push_back(ThreadCpuMs() - c0);
  return wall;
}

// The agent's encoding path without a network: each sealed batch is serialized, parsed and
// decoded into a snapshot, exactly as the host does on receipt.
class LowerBoundSink final : public agent::HeapInfoCallback {
 public:
  LowerBoundSink()
      : writer_(1, [this](wire::Envelope* env) {
          if (!protocol::SerializeEnvelope(*env, protocol::kMaxAgentMessageBytes, &bytes_))
            return false;
          wire_bytes_ += bytes_.size();
          wire::Envelope in;
          if (protocol::ParseEnvelope(reinterpret_cast<const uint8_t*>(bytes_.data()),
                                      bytes_.size(), protocol::kMaxAgentMessageBytes,
                                      &in) != protocol::ParseStatus::kOk)
            return false;
          return assembler_.Batch(in.heap_batch(), bytes_.size(), &error_);
        }) {
    wire::CaptureBegin b;
    b.set_capture_id(1);
    b.set_section_name("synthetic.exe");
    assembler_.Begin(b, 0, &error_);
  }
  agent::WalkResult BeginContainer(agent::ContainerType t, uint64_t id1, uint64_t id2) override {
    if (t == agent::ContainerType::kEnd) {
      writer_.Flush();
      return agent::WalkResult::kOk;
    }
    descriptor_ = agent::RootDescriptorFor(t);
    container_ = {static_cast<uint32_t>(t),
                  id1,
                  id2,
                  static_cast<uint32_t>(descriptor_ < 0 ? 0 : descriptor_),
                  false,
                  0};
    sent_ = false;
    return agent::WalkResult::kOk;
  }
  agent::WalkResult DescribeType(uint32_t id, const char* n, size_t len) override {
    return writer_.Type(id, n, len) ? agent::WalkResult::kOk : agent::WalkResult::kAbort;
  }
  agent::WalkResult RootReferences(const agent::RootRef* r, size_t n) override {
    if (!sent_) {
      index_ = writer_.next_container_index();
      writer_.Container(container_);
      sent_ = true;
    }
    for (size_t i = 0; i < n; ++i) writer_.Root(r[i].object, r[i].flags, index_);
    return agent::WalkResult::kOk;
  }
  agent::WalkResult ObjectReferences(uint64_t o, uint32_t t, uint32_t s, const uint64_t* refs,
                                     size_t n) override {
    return writer_.Object(o, t, s, refs, n) ? agent::WalkResult::kPostponeReferences
                                            : agent::WalkResult::kAbort;
  }
  bool Verify() {
    const protocol::CaptureTotals& t = writer_.totals();
    wire::CaptureEnd e;
    e.set_capture_id(1);
    e.set_batch_count(t.batches);
    e.set_type_count(t.types);
    e.set_container_count(t.containers);
    e.set_object_count(t.objects);
    e.set_ref_count(t.refs);
    e.set_root_count(t.roots);
    e.set_heap_bytes(t.heap_bytes);
    e.set_checksum(t.checksum);
    return assembler_.End(e, &error_);
  }
  uint64_t objects() const { return writer_.totals().objects; }
  uint64_t wire_bytes() const { return wire_bytes_; }
  const std::string& error() const { return error_; }

 private:
  protocol::HeapBatchWriter writer_;
  client::CaptureAssembler assembler_;
  std::string bytes_, error_;
  uint64_t wire_bytes_ = 0;
  protocol::RawContainer container_;
  int descriptor_ = -1;
  bool sent_ = false;
  uint32_t index_ = 0;
};

struct CaptureFigures {
  std::vector<double> elapsed, pause, gc, walk, stall;  // one entry per run (ms)
  uint64_t peak_bytes = 0, wire_bytes = 0, objects = 0, refs = 0;
  std::shared_ptr<const Snapshot> snapshot;
};

// An agent on the runtime and a host connected to it over 127.0.0.1.
struct Link {
  std::unique_ptr<agent::Agent> agent;
  std::unique_ptr<client::HostClient> client;
};

bool Connect(emulator::Runtime& rt, size_t memory_limit, Link* out) {
  agent::AgentOptions opt;
  opt.port = 0;
  opt.capture_memory_limit = memory_limit;
  opt.log = [](const std::string&) {};
  out->agent = std::make_unique<agent::Agent>(rt, opt);
  std::string error;
  if (!out->agent->Start(&error)) {
    std::fprintf(stderr, "agent: %s\n", error.c_str());
    return false;
  }
  client::ClientOptions co;
  co.endpoint = "127.0.0.1:" + std::to_string(out->agent->port());
  out->client = std::make_unique<client::HostClient>(co);
  out->client->Connect();
  if (!out->client->WaitConnected(10000, &error)) {
    std::fprintf(stderr, "connect: %s\n", error.c_str());
    return false;
  }
  return true;
}

// One capture, request -> verified snapshot, its figures appended to *out.
bool CaptureOnce(Link& link, CaptureFigures* out, const client::CaptureOptions& opts = {}) {
  std::string error;
  client::CaptureResult r;
  if (!link.client->StartCapture(&error, opts) || !link.client->WaitCapture(600000, &r) || !r.ok) {
    std::fprintf(stderr, "capture: %s %s\n", error.c_str(), r.error.c_str());
    return false;
  }
  out->elapsed.push_back(r.stats.elapsed_s * 1000);
  out->pause.push_back(r.stats.pause_us / 1000.0);
  out->gc.push_back(r.stats.gc_us / 1000.0);
  out->walk.push_back(r.stats.walk_us / 1000.0);
  out->stall.push_back(r.stats.stall_us / 1000.0);
  out->peak_bytes = std::max(out->peak_bytes, r.stats.agent_peak_bytes);
  out->wire_bytes = r.stats.wire_bytes;
  out->objects = r.stats.objects;
  out->refs = r.stats.refs;
  out->snapshot = r.snapshot;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t objects = 1000000;
  int runs = 5;
  bool json = false, lower_only = false, snapshot = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--objects") && i + 1 < argc)
      objects = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--json"))
      json = true;
    else if (!std::strcmp(argv[i], "--lower-bound-only"))
      lower_only = true;
    else if (!std::strcmp(argv[i], "--walk") && i + 1 < argc &&
             !std::strcmp(argv[i + 1], "snapshot"))
      ++i, snapshot = true;
    else if (!std::strcmp(argv[i], "--walk") && i + 1 < argc && !std::strcmp(argv[i + 1], "paused"))
      ++i, snapshot = false;
    else {
      std::fprintf(stderr,
                   "usage: capture_bench [--objects N] [--runs R] [--json] [--lower-bound-only] "
                   "[--walk paused|snapshot]\n");
      return 2;
    }
  }

  emulator::RuntimeConfig rc;
  rc.app_name = "synthetic.exe";
  rc.snapshot_walks = snapshot;  // the captures' walks; the lower bound always walks in place
  emulator::Runtime rt(rc);
  auto scenario = emulator::MakeScenario({"synthetic", 1, objects, 3, 64});
  {
    emulator::MutatorScope m(rt.world());
    scenario->Setup(rt);
  }
  rt.InduceFullCollection();  // compact once, as every capture will find it

  // Each run measures every figure once, in this order, so the machine's load (shared, noisy)
  // weighs on the baselines and the captures alike; the report takes each figure's median.
  std::vector<double> mark, full, lower, mark_cpu, full_cpu, lower_cpu;
  uint64_t marked = 0, lb_wire = 0;
  Link net_link, streaming_link;
  if (!lower_only && (!Connect(rt, size_t{256} << 20, &net_link) ||
                      !Connect(rt, size_t{1} << 20, &streaming_link)))
    return 1;
  CaptureFigures net, streaming, shape;  // shape: the same capture with --no-values
  client::CaptureOptions no_values;
  no_values.values = false;
  for (int i = 0; i < runs; ++i) {
    if (!lower_only) {
      // Baselines: one GC mark (and, for reference, a whole compacting collection).
      mark.push_back(TimeMs([&] { marked = rt.gc().MarkOnly(); }, &mark_cpu));
      full.push_back(
          TimeMs([&] { rt.gc().Collect(emulator::GcReason::kCapture, true); }, &full_cpu));
    }
    // Lower bound: walk + encode + decode, no network.
    LowerBoundSink sink;
    lower.push_back(TimeMs(
        [&] {
          rt.WalkPaused(sink);
          if (!sink.Verify()) std::fprintf(stderr, "lower bound: %s\n", sink.error().c_str());
        },
        &lower_cpu));
    lb_wire = sink.wire_bytes();
    if (!lower_only && (!CaptureOnce(net_link, &net) || !CaptureOnce(streaming_link, &streaming) ||
                        !CaptureOnce(net_link, &shape, no_values)))
      return 1;
  }
  if (lower_only) {
    std::printf("lower bound walk+enc+dec %.1f ms (CPU %.1f ms), %llu wire bytes\n", Median(lower),
                Median(lower_cpu), (unsigned long long)lb_wire);
    return 0;
  }
  net_link = {};
  streaming_link = {};
  uint64_t gclog_bytes = 0;
  formats::WriteNetcf(*net.snapshot, [&](std::string_view b) { gclog_bytes += b.size(); });

  // Medians of each figure, and medians of the per-run ratios (a capture against the baseline
  // measured moments before it, which cancels much of the machine's varying load).
  auto paired = [](const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> r;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) r.push_back(a[i] / b[i]);
    return Median(r);
  };
  const double gc_mark = Median(mark), gc_full = Median(full), lb = Median(lower);
  const double capture_ms = Median(net.elapsed), pause_ms = Median(net.pause);
  const double capture_ratio = paired(net.elapsed, lower);
  const double after_pause_ratio = paired(net.elapsed, net.pause);  // target: <= 2.0x
  const double pause_ratio = paired(net.pause, mark);
  const double shape_pause_ratio = paired(shape.pause, mark);
  const double per_object = static_cast<double>(net.peak_bytes) / static_cast<double>(net.objects);
  const double wire_ratio = static_cast<double>(net.wire_bytes) / static_cast<double>(gclog_bytes);
  const double mib = 1048576.0;
  auto met = [](bool ok) { return ok ? "met" : "NOT met"; };
  if (json) {
    std::printf(
        "{\"objects\": %llu, \"refs\": %llu, \"marked\": %llu, \"runs\": %d, \"gc_mark_ms\": %.2f, "
        "\"gc_mark_cpu_ms\": %.2f, \"full_gc_ms\": %.2f, \"lower_bound_ms\": %.2f, "
        "\"lower_bound_cpu_ms\": %.2f, \"capture_ms\": %.2f, \"capture_vs_lower_bound\": %.3f, "
        "\"capture_vs_pause\": %.3f, \"pause_ms\": %.2f, \"pause_vs_gc_mark\": %.3f, "
        "\"pause_gc_ms\": %.2f, "
        "\"pause_walk_ms\": %.2f, \"no_values_pause_ms\": %.2f, "
        "\"no_values_pause_vs_gc_mark\": %.3f, \"wire_bytes\": %llu, \"gclog_bytes\": %llu, "
        "\"agent_peak_bytes\": %llu, \"streaming_capture_ms\": %.2f, \"streaming_pause_ms\": %.2f, "
        "\"streaming_stall_ms\": %.2f, \"streaming_peak_bytes\": %llu}\n",
        (unsigned long long)net.objects, (unsigned long long)net.refs, (unsigned long long)marked,
        runs, gc_mark, Median(mark_cpu), gc_full, lb, Median(lower_cpu), capture_ms, capture_ratio,
        after_pause_ratio, pause_ms, pause_ratio, Median(net.gc), Median(net.walk),
        Median(shape.pause), shape_pause_ratio, (unsigned long long)net.wire_bytes,
        (unsigned long long)gclog_bytes, (unsigned long long)net.peak_bytes,
        Median(streaming.elapsed), Median(streaming.pause), Median(streaming.stall),
        (unsigned long long)streaming.peak_bytes);
    return 0;
  }
  std::printf(
      "synthetic heap: %llu objects, %llu references; %d runs, each measuring every line once "
      "(medians; wall time, CPU time of the measuring thread in brackets; ratios are medians "
      "of the per-run ratios)\n",
      (unsigned long long)net.objects, (unsigned long long)net.refs, runs);
  std::printf("  GC mark (baseline)                %9.1f ms  [%.1f]\n", gc_mark, Median(mark_cpu));
  std::printf("  full compacting GC                %9.1f ms  [%.1f]  %.2fx GC mark\n", gc_full,
              Median(full_cpu), paired(full, mark));
  std::printf("  lower bound: walk+enc+dec         %9.1f ms  [%.1f]\n", lb, Median(lower_cpu));
  std::printf(
      "  end-to-end capture                %9.1f ms  %.2fx lower bound (target <= 2x: %s); "
      "%.2fx (full GC + lower bound)\n",
      capture_ms, capture_ratio, met(capture_ratio <= 2.0), paired(net.elapsed, [&] {
        std::vector<double> v;
        for (size_t i = 0; i < full.size(); ++i) v.push_back(full[i] + lower[i]);
        return v;
      }()));
  std::printf("    of which the induced GC         %9.1f ms\n", Median(net.gc));
  std::printf("    against its own game pause      %9s     %.2fx (target <= 2.0x: %s)\n", "",
              after_pause_ratio, met(after_pause_ratio <= 2.0));
  std::printf("  game pause, values on             %9.1f ms  %.2fx GC mark (target <= 1.8x: %s)\n",
              pause_ms, pause_ratio, met(pause_ratio <= 1.8));
  std::printf("    of which the induced GC         %9.1f ms  %.2fx GC mark\n", Median(net.gc),
              paired(net.gc, mark));
  std::printf("    of which walk + encode          %9.1f ms  %.2fx GC mark\n", Median(net.walk),
              paired(net.walk, mark));
  std::printf(
      "  game pause, --no-values           %9.1f ms  %.2fx GC mark (walk + encode %.1f ms)\n",
      Median(shape.pause), shape_pause_ratio, Median(shape.walk));
  std::printf(
      "  wire bytes                        %9.2f MiB %.3fx the .gclog of the same heap "
      "(%.2f MiB; target <= 0.30x: %s)\n",
      net.wire_bytes / mib, wire_ratio, gclog_bytes / mib, met(wire_ratio <= 0.30));
  std::printf(
      "  agent peak extra memory           %9.2f MiB %.1f B/object (target <= 16 B/object: "
      "%s)\n",
      net.peak_bytes / mib, per_object, met(per_object <= 16.0));
  std::printf(
      "  streaming mode (1 MiB bound)      %9.1f ms capture, pause %.1f ms (%.1f ms waiting "
      "for the network), agent peak %.3f MiB (target <= 1 MiB: %s)\n",
      Median(streaming.elapsed), Median(streaming.pause), Median(streaming.stall),
      streaming.peak_bytes / mib, met(streaming.peak_bytes <= (1u << 20)));
  return 0;
}
