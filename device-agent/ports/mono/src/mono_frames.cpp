#include "mono_frames.h"

#include "class_names.h"
#include "game_api.h"

#include <mono/metadata/class.h>
#include <mono/metadata/debug-helpers.h>
#include <mono/metadata/loader.h>
#include <mono/metadata/object.h>

namespace xrpm {
namespace mono {

bool MonoFrames::SetSink(agent::FrameEventSink* sink) {
  if (!enabled_) return false;
  std::lock_guard<std::mutex> lock(sink_mu_);
  sink_ = sink;
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
  const agent::GcTally::Taken gc = gc_tally_.Take();
  r.gcs = gc.gcs;
  r.gc_pause_us = gc.pause_us;
  r.gc_kinds = gc.kinds;
  r.gc_budget_left = -1;  // SGen has no per-frame byte budget to report
  if (sink_active_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(sink_mu_);
    if (sink_) sink_->OnFrame(r);
  }
  ++frame_;
  completed_.store(frame_, std::memory_order_relaxed);
  last_end_ns_ = now;
  bytes_ = 0;
  objects_ = 0;
}

bool MonoFrames::CountAllocation(uint32_t size) {
  if (!enabled_ || !OnGameThread()) return false;
  bytes_ += size;
  ++objects_;
  return true;
}

void MonoFrames::Sample(void* object, uint32_t size, const StackWalk& walk) {
  if (!sink_active()) return;
  const char* names[agent::kMaxSampleStackDepth];
  for (uint32_t i = 0; i < walk.depth; ++i) names[i] = CachedMethodName(walk.methods[i]).c_str();
  MonoClass* klass = mono_object_get_class(static_cast<MonoObject*>(object));
  agent::AllocationSample s{};
  s.frame = frame_;
  s.size = size;
  s.type_key = reinterpret_cast<uint64_t>(klass);
  s.type_name = TypeName(klass).c_str();
  s.depth = walk.depth;
  s.method_keys = walk.keys;
  s.method_names = names;
  const agent::ScopeTagStack& scopes = ThreadScopes();  // Xrpm.Profiler.Scope (game_api.h)
  s.tag_key = scopes.key();
  s.tag_name = scopes.name();
  std::lock_guard<std::mutex> lock(sink_mu_);
  if (sink_) sink_->OnAllocationSample(s);
}

const std::string& MonoFrames::CachedMethodName(void* method) {
  auto it = method_names_.find(method);
  if (it != method_names_.end()) return it->second;
  return method_names_.emplace(method, MethodName(method)).first->second;
}

const std::string& MonoFrames::TypeName(void* klass) {
  auto it = type_names_.find(klass);
  if (it != type_names_.end()) return it->second;
  return type_names_.emplace(klass, ClassName(static_cast<MonoClass*>(klass))).first->second;
}

}  // namespace mono
}  // namespace xrpm
