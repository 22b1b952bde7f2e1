// DotnetAllocations: the sampled route (the EventPipe session, AllocationSampled events) and the
// exact route (ObjectAllocated: counting, sampling, the stack walk), and the names both send.
#include "dotnet_allocations.h"

#include <pthread.h>

#include <cstdio>
#include <new>

#include "dotnet_game_api.h"
#include "type_names.h"
#include "xrpm/protocol/sampling.h"

namespace xrpm {
namespace dotnet {
namespace {

// Each allocating thread's sampler (SampleInterval). initial-exec: read at a fixed offset from
// the thread pointer on every allocation instead of through __tls_get_addr (the library is
// dlopen'ed by the runtime; these 32 bytes fit the static TLS surplus glibc keeps for that).
thread_local agent::ThreadSampler t_alloc_sampler __attribute__((tls_model("initial-exec")));

constexpr const char* kAllocMethodsFull = "<method: name table full>";
constexpr const char* kAllocClassesFull = "<class: name table full>";

// One sample's managed stack, filled by DoStackSnapshot's callback.
struct AllocStackWalk {
  uint64_t keys[agent::kMaxSampleStackDepth];
  uint32_t depth = 0;
};

cor::HRESULT CollectAllocFrame(cor::FunctionID function, cor::UINT_PTR, cor::UINT_PTR, cor::ULONG,
                               uint8_t[], void* client) {
  auto* walk = static_cast<AllocStackWalk*>(client);
  if (function == 0) return cor::S_OK;  // a run of native frames
  walk->keys[walk->depth++] = function;
  return walk->depth < agent::kMaxSampleStackDepth ? cor::S_OK : cor::E_FAIL;  // E_FAIL: enough
}

}  // namespace

void DotnetAllocations::OnAllocated(cor::ObjectID object, cor::ClassID klass) {
  size_t size = 0;
  if (cor::Failed(info_->GetObjectSize2(object, &size))) return;
  if (frame_->OnGameThread()) frame_->frames().CountAllocation(size);
  if (!interval_.Take(t_alloc_sampler, size, static_cast<uint64_t>(pthread_self()))) return;
  if (!origins_ && !frame_->frames().sink_active()) return;  // nobody keeps samples: no walk
  SampleAllocation(object, klass, size);
}

void DotnetAllocations::SampleAllocation(cor::ObjectID object, cor::ClassID klass, uint64_t size) {
  AllocStackWalk walk;
  // The calling thread (0), synchronously; an early stop (E_FAIL above) or a walk the runtime
  // cut short still leaves the frames collected so far.
  info_->DoStackSnapshot(0, &CollectAllocFrame, cor::kSnapshotDefault, &walk, nullptr, 0);
  KeepSample(object, klass, size, walk.keys, walk.depth);
}

std::string DotnetAllocations::OriginMethodName(void* self, uint64_t function) {
  return static_cast<DotnetAllocations*>(self)->MethodName(static_cast<cor::FunctionID>(function));
}

void DotnetAllocations::KeepSample(cor::ObjectID object, cor::ClassID klass, uint64_t size,
                                   const uint64_t* keys, uint32_t depth) {
  if (origins_)
    origins_->Record(object, klass, frame_->completed(), keys, depth, &OriginMethodName, this);
  if (frame_->frames().sink_active()) SendSample(klass, size, keys, depth);
}

std::string DotnetAllocations::StartSession() {
  if (route_ != AllocationRoute::kSampled || !info12_) return "no EventPipe session interface";
  static const cor::WCHAR kRuntimeProvider[] = u"Microsoft-Windows-DotNETRuntime";
  cor::EventPipeProviderConfig provider{kRuntimeProvider, kAllocationSamplingKeyword,
                                        kEventLevelInformational, nullptr};
  const cor::HRESULT hr = info12_->EventPipeStartSession(1, &provider, 0, &session_);
  if (!cor::Failed(hr)) return "";
  return "the runtime refused the allocation sampling session (EventPipe, " + cor::HexText(hr) +
         ")";
}

void DotnetAllocations::OnEventPipeEvent(uint32_t event_id, const uint8_t* data, size_t bytes,
                                         const cor::UINT_PTR* ips, uint32_t ip_count) {
  if (event_id != kAllocationSampledEventId) return;
  AllocationSampledEvent e;
  std::string error;
  if (!ParseAllocationSampled(data, bytes, sizeof(void*), &e, &error)) {
    if (bad_events_.fetch_add(1, std::memory_order_relaxed) == 0)
      std::fprintf(stderr, "xrpm-agent: an AllocationSampled event did not parse: %s\n",
                   error.c_str());
    return;
  }
  // The sample's weight (s / p(s) bytes, 1 / p(s) objects): the game thread's frame estimate.
  if (frame_->OnGameThread()) {
    const double p =
        protocol::SampleProbability(static_cast<double>(e.object_size), kRuntimeSampleBytes);
    frame_->frames().CountEstimate(static_cast<double>(e.object_size) / p, 1.0 / p);
  }
  if (!origins_ && !frame_->frames().sink_active()) return;  // nobody keeps samples: no names
  const auto object = static_cast<cor::ObjectID>(e.address);
  if (ip_count == 0) {  // what the runtime's own events carry to a profiler's session (below)
    SampleAllocation(object, static_cast<cor::ClassID>(e.type_id), e.object_size);
    return;
  }
  uint64_t keys[agent::kMaxSampleStackDepth];
  uint32_t depth = 0;
  for (uint32_t i = 0; i < ip_count && depth < agent::kMaxSampleStackDepth; ++i) {
    cor::FunctionID function = 0;
    // Not managed code (a stub, the runtime's own frames): left out, as DoStackSnapshot does.
    if (cor::Failed(
            info_->GetFunctionFromIP(reinterpret_cast<const uint8_t*>(ips[i]), &function)) ||
        function == 0)
      continue;
    keys[depth++] = function;
  }
  KeepSample(object, static_cast<cor::ClassID>(e.type_id), e.object_size, keys, depth);
}

void DotnetAllocations::SendSample(cor::ClassID klass, uint64_t size, const uint64_t* keys,
                                   uint32_t depth) {
  const char* names[agent::kMaxSampleStackDepth];
  for (uint32_t i = 0; i < depth; ++i) names[i] = MethodName(keys[i]);
  agent::AllocationSample s{};
  s.size = size > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(size);
  s.type_key = klass;
  s.type_name = ClassName(klass);
  s.depth = depth;
  s.method_keys = keys;
  s.method_names = names;
  const agent::ScopeTagStack& scopes = ThreadScopes();  // Xrpm.Profiler.Scope (dotnet_game_api.h)
  s.tag_key = scopes.key();
  s.tag_name = scopes.name();
  frame_->frames().Sample(s);
}

const char* DotnetAllocations::MethodName(cor::FunctionID function) {
  return CachedName(methods_, function, false);
}

const char* DotnetAllocations::ClassName(cor::ClassID klass) {
  return CachedName(classes_, klass, true);
}

const char* DotnetAllocations::CachedName(std::unordered_map<uintptr_t, std::string>& cache,
                                          uintptr_t key, bool is_class) {
  const char* full = is_class ? kAllocClassesFull : kAllocMethodsFull;
  {
    std::lock_guard<std::mutex> lock(names_mu_);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second.c_str();
    if (cache.size() >= kMaxAllocNames) return full;
  }
  // Outside the lock: the runtime's metadata calls (see the header). A reader per miss: misses
  // are bounded by the cache.
  try {
    TypeNames names(info_);
    std::string name = is_class ? names.ClassName(key) : names.MethodName(key);
    std::lock_guard<std::mutex> lock(names_mu_);
    if (cache.size() >= kMaxAllocNames && !cache.count(key)) return full;
    return cache.emplace(key, std::move(name)).first->second.c_str();  // or another thread's
  } catch (const std::bad_alloc&) {  // the sample goes out under the placeholder
    return full;
  }
}

}  // namespace dotnet
}  // namespace xrpm
