#include "mono_frames.h"

#include <mono/metadata/class.h>
#include <mono/metadata/debug-helpers.h>
#include <mono/metadata/loader.h>
#include <mono/metadata/object.h>

#include <exception>
#include <vector>

namespace xrpm {
namespace mono {
namespace {

struct StackWalk {
  MonoMethod* methods[agent::kMaxSampleStackDepth];
  uint32_t depth = 0;
};

mono_bool CollectFrame(MonoMethod* method, int32_t, int32_t, mono_bool managed, void* data) {
  auto* w = static_cast<StackWalk*>(data);
  if (managed && method) w->methods[w->depth++] = method;
  return w->depth >= agent::kMaxSampleStackDepth;  // true stops the walk
}

}  // namespace

bool MonoFrames::SetSink(agent::FrameEventSink* sink, uint32_t sample_bytes) {
  if (!enabled_) return false;
  std::lock_guard<std::mutex> lock(sink_mu_);
  sink_ = sink;
  pending_mean_.store(sample_bytes, std::memory_order_relaxed);
  mean_changed_.store(true, std::memory_order_release);
  sink_active_.store(sink != nullptr, std::memory_order_release);
  return true;
}

void MonoFrames::OnFrameEnter() {
  if (!enabled_) return;
  if (!have_game_.load(std::memory_order_acquire)) {
    game_ = pthread_self();
    have_game_.store(true, std::memory_order_release);
  }
  if (OnGameThread()) enter_ns_ = NowNs();
}

void MonoFrames::OnFrameLeave() {
  if (!enabled_ || !OnGameThread()) return;
  const int64_t now = NowNs();
  agent::FrameRecord r{};
  r.frame = frame_;
  r.end_us = static_cast<uint64_t>(now / 1000);
  r.duration_us = last_end_ns_ < 0 ? 0 : static_cast<uint32_t>((now - last_end_ns_) / 1000);
  r.work_us = enter_ns_ < 0 ? 0 : static_cast<uint32_t>((now - enter_ns_) / 1000);
  r.alloc_bytes = bytes_;
  r.alloc_objects = objects_;
  r.gcs = gcs_.exchange(0, std::memory_order_relaxed);
  r.gc_pause_us = gc_pause_us_.exchange(0, std::memory_order_relaxed);
  r.gc_budget_left = -1;  // SGen has no per-frame byte budget to report
  if (sink_active_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(sink_mu_);
    if (sink_) sink_->OnFrame(r);
  }
  ++frame_;
  last_end_ns_ = now;
  bytes_ = 0;
  objects_ = 0;
  if (mean_changed_.exchange(false, std::memory_order_acq_rel))
    sampler_.Reset(pending_mean_.load(std::memory_order_relaxed), 0x5eed0000ull + frame_);
}

void MonoFrames::OnAllocation(void* object) {
  if (!enabled_ || !OnGameThread()) return;
  const auto size = static_cast<uint32_t>(mono_object_get_size(static_cast<MonoObject*>(object)));
  bytes_ += size;
  ++objects_;
  if (sink_active_.load(std::memory_order_relaxed) && sampler_.Take(size)) {
    try {
      Sample(object, size);
    } catch (const std::exception&) {  // bad_alloc caching a name: the sample is lost
    }
  }
}

void MonoFrames::Sample(void* object, uint32_t size) {
  StackWalk walk;
  mono_stack_walk_no_il(&CollectFrame, &walk);
  uint64_t keys[agent::kMaxSampleStackDepth];
  const char* names[agent::kMaxSampleStackDepth];
  for (uint32_t i = 0; i < walk.depth; ++i) {
    keys[i] = reinterpret_cast<uint64_t>(walk.methods[i]);
    names[i] = MethodName(walk.methods[i]).c_str();
  }
  MonoClass* klass = mono_object_get_class(static_cast<MonoObject*>(object));
  agent::AllocationSample s{};
  s.frame = frame_;
  s.size = size;
  s.type_key = reinterpret_cast<uint64_t>(klass);
  s.type_name = TypeName(klass).c_str();
  s.depth = walk.depth;
  s.method_keys = keys;
  s.method_names = names;
  std::lock_guard<std::mutex> lock(sink_mu_);
  if (sink_) sink_->OnAllocationSample(s);
}

const std::string& MonoFrames::MethodName(void* method) {
  auto it = method_names_.find(method);
  if (it != method_names_.end()) return it->second;
  char* n = mono_method_full_name(static_cast<MonoMethod*>(method), 0);
  std::string name = n ? n : "<unknown method>";
  if (n) mono_free(n);
  for (char& c : name)  // "Namespace.Class:Method" -> "Namespace.Class.Method", as NETCF names it
    if (c == ':') c = '.';
  return method_names_.emplace(method, std::move(name)).first->second;
}

const std::string& MonoFrames::TypeName(void* klass) {
  auto it = type_names_.find(klass);
  if (it != type_names_.end()) return it->second;
  char* n = mono_type_get_name(mono_class_get_type(static_cast<MonoClass*>(klass)));
  std::string name = n ? n : "<unnamed class>";
  if (n) mono_free(n);
  return type_names_.emplace(klass, std::move(name)).first->second;
}

}  // namespace mono
}  // namespace xrpm
