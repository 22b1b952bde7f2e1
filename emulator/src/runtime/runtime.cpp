#include "xrpm/emulator/runtime.h"

#include <algorithm>
#include <cstring>

#include "xrpm/emulator/method_frame_scope.h"
#include "xrpm/protocol/gc_kinds.h"

namespace xrpm::emulator {
namespace {

// Why a NETCF collection ran, in the frame rows' vocabulary (xrpm/protocol/gc_kinds.h).
protocol::GcReason ProtocolReason(GcReason r) {
  switch (r) {
    case GcReason::kBudget:
      return protocol::GcReason::kAllocation;
    case GcReason::kInduced:
    case GcReason::kCapture:
      return protocol::GcReason::kInduced;
    case GcReason::kLowMemory:
      return protocol::GcReason::kLowMemory;
  }
  return protocol::GcReason::kUnknown;
}

}  // namespace

Runtime::Runtime(RuntimeConfig config)
    : config_(std::move(config)),
      start_(std::chrono::steady_clock::now()),
      heap_(config_.heap_reserve_bytes),
      root_set_(roots_, threads_, statics_, handles_, finalizers_),
      gc_(*this) {
  core_ = DefineCoreTypes(types_, statics_);
  counters_.Add(Counter::kAppDomainsCreated, 1);

  // The AppDomain and the assemblies every program has.
  app_domain_slot_ = roots_.AddInternal(New(core_.app_domain));
  Addr name = NewString(config_.app_name);
  SetRef(roots_.internal()[app_domain_slot_], core_.app_domain_name, name);
  SetI32(roots_.internal()[app_domain_slot_], types_.Offset(core_.app_domain, "_id"), 1);
  LoadAssembly("mscorlib");
  LoadAssembly("System");

  // Exceptions the runtime preallocates so it can throw them without allocating.
  for (TypeIndex t :
       {core_.out_of_memory, core_.stack_overflow, core_.execution_engine, core_.thread_abort})
    roots_.AddInternal(New(t));

  statics_.Set(core_.string_empty, Intern(""));
  statics_.Set(core_.event_args_empty, New(core_.event_args));

  CreateThread("Main");
  ManagedThread& finalizer = CreateThread("Finalizer");
  // The finalizer thread idles in the runtime's wait for work: an internal frame, no roots.
  finalizer.frames.push_back(Frame{agent::ContainerType::kInternalFrame, kNoMethod, {}});
  SyncLoaderCounters();
  UpdateMemoryCounters();
  counters_.Publish();
}

Runtime::~Runtime() = default;

Addr Runtime::Allocate(TypeIndex t, uint32_t size, uint32_t length) {
  if (no_gc_depth_ == 0) {
    if (config_.gc_stress)
      gc_.Collect(GcReason::kBudget, true);
    else if (bytes_since_gc_ + size > config_.gc_budget_bytes)
      gc_.Collect(GcReason::kBudget, false);
  }
  Addr a = heap_.Allocate(size);
  if (a == kNull) {
    gc_.Collect(GcReason::kLowMemory, true);
    a = heap_.Allocate(size);
    if (a == kNull)
      throw ManagedOutOfMemory("managed heap exhausted: " + std::to_string(size) +
                               "-byte object does not fit in the " +
                               std::to_string(heap_.reserved_bytes() >> 20) + " MiB GC heap");
  }
  if (config_.record_origins) origins_.Record(a, frame_number_, CurrentSite());
  uint32_t* h = heap_.Words(a);
  h[0] = t;
  const TypeDesc& d = types_[t];
  if (d.kind != TypeKind::kClass) h[2] = length;
  bytes_since_gc_ += size;
  frame_bytes_ += size;
  ++frame_objects_;
  if (sampler_.Take(size)) ReportSample(t, size);
  if (ledger_) {
    const auto& frames = current_thread().frames;
    MethodId site = kNoMethod;
    for (auto it = frames.rbegin(); it != frames.rend() && site == kNoMethod; ++it)
      site = it->method;
    ledger_->Record(t, site, size);
  }
  counters_.Add(Counter::kManagedObjectsAllocated, 1);
  counters_.Add(Counter::kManagedBytesAllocated, size);
  if (d.options.finalizable) finalizers_.Register(a);
  if (d.options.value_type) counters_.Add(Counter::kBoxedValueTypes, 1);
  return a;
}

SiteId Runtime::CurrentSite() {
  if (threads_.all().empty()) return kOutsideManagedCode;  // the runtime's own startup
  std::deque<Frame>& frames = current_thread().frames;
  if (frames.empty()) return kOutsideManagedCode;
  if (frames.back().alloc_site != kNoSite) return frames.back().alloc_site;
  // From the innermost frame whose site is known (or the bottom), each frame above takes its
  // caller's site plus its method; runtime-internal frames (no method) add nothing.
  size_t i = frames.size() - 1;
  while (i > 0 && frames[i - 1].alloc_site == kNoSite) --i;
  SiteId site = i == 0 ? kOutsideManagedCode : frames[i - 1].alloc_site;
  for (; i < frames.size(); ++i) {
    if (frames[i].method != kNoMethod) site = sites_.Push(site, frames[i].method);
    frames[i].alloc_site = site;
  }
  return site;
}

Addr Runtime::New(TypeIndex t) {
  return Allocate(t, types_[t].instance_size, 0);
}

Addr Runtime::NewArray(TypeIndex t, uint32_t length) {
  const TypeDesc& d = types_[t];
  uint64_t bytes = kArrayHeaderBytes + uint64_t{length} * d.element_size;
  if (bytes > 0x7FFFFFF0u)
    throw ManagedOutOfMemory("array of " + std::to_string(length) + " is too large");
  return Allocate(t, AlignObject(static_cast<uint32_t>(bytes)), length);
}

Addr Runtime::NewString(std::string_view ascii) {
  auto len = static_cast<uint32_t>(ascii.size());
  uint32_t size = AlignObject(kArrayHeaderBytes + (len + 1) * 2);
  Addr s = Allocate(core_.string, size, len);
  auto* chars = reinterpret_cast<uint16_t*>(heap_.At(s) + kArrayHeaderBytes);
  for (uint32_t i = 0; i < len; ++i) chars[i] = static_cast<unsigned char>(ascii[i]);
  counters_.Add(Counter::kManagedStringObjectsAllocated, 1);
  counters_.Add(Counter::kBytesOfStringObjectsAllocated, size);
  return s;
}

void Runtime::GcCollect() {
  counters_.Add(Counter::kCallsToGcCollect, 1);
  gc_.Collect(GcReason::kInduced, true);
}

std::string Runtime::StringValue(Addr str) const {
  uint32_t len = heap_.Words(str)[2];
  const auto* chars = reinterpret_cast<const uint16_t*>(heap_.At(str) + kArrayHeaderBytes);
  std::string out(len, '\0');
  for (uint32_t i = 0; i < len; ++i) out[i] = chars[i] < 128 ? static_cast<char>(chars[i]) : '?';
  return out;
}

Addr Runtime::LoadAssembly(std::string_view name) {
  size_t slot = roots_.AddInternal(New(core_.assembly));
  Addr n = NewString(std::string(name) +
                     ", Version=" + (name.substr(0, 9) == "Microsoft" ? "3.0.0.0" : "3.5.0.0") +
                     ", Culture=neutral");
  SetRef(roots_.internal()[slot], core_.assembly_name, n);
  SetI32(roots_.internal()[slot], types_.Offset(core_.assembly, "m_handle"),
         static_cast<int32_t>(slot));
  counters_.Add(Counter::kAssembliesLoaded, 1);
  return roots_.internal()[slot];
}

Addr Runtime::Intern(std::string_view literal) {
  long found = roots_.FindInterned(literal);
  if (found >= 0) return roots_.gc_specific()[found];
  Addr s = NewString(literal);
  return roots_.gc_specific()[roots_.AddInterned(literal, s)];
}

Addr Runtime::TypeObject(TypeIndex t) {
  long found = roots_.FindTypeObject(t);
  if (found >= 0) return roots_.gc_specific()[found];
  Addr o = New(core_.runtime_type);
  SetI32(o, core_.runtime_type_handle, static_cast<int32_t>(t));
  return roots_.gc_specific()[roots_.AddTypeObject(t, o)];
}

ManagedThread& Runtime::CreateThread(std::string name) {
  size_t slot = roots_.AddInternal(New(core_.thread));
  Addr n = NewString(name);
  Addr obj = roots_.internal()[slot];
  SetRef(obj, core_.thread_name, n);
  ManagedThread& t = threads_.Create(std::move(name));
  SetI32(obj, core_.thread_id, static_cast<int32_t>(t.id));
  return t;
}

void Runtime::EnterMethod(MethodId m) {
  MethodDesc& d = methods_[m];
  if (d.jitted) return;
  d.jitted = true;
  counters_.Add(Counter::kMethodsJitted, 1);
  counters_.Add(Counter::kNativeBytesJitted, d.native_bytes);
}

size_t Runtime::PushFrame(ManagedThread& t, MethodId m, uint32_t locals,
                          agent::ContainerType kind) {
  if (m != kNoMethod) EnterMethod(m);
  Frame& f = t.frames.emplace_back();
  f.kind = kind;
  f.method = m;
  f.locals.resize(locals);
  return t.frames.size() - 1;
}

void Runtime::ThrowAndCatch(TypeIndex t, std::string_view message) {
  MethodFrameScope f(*this, current_thread(), "System.Exception..ctor", 1);
  f.set(0, New(t));
  Addr msg = NewString(message);
  SetRef(f.get(0), core_.exception_message, msg);
  // The stack trace names the method that threw (the frame below the constructor's).
  const auto& frames = current_thread().frames;
  MethodId thrower = frames.size() >= 2 ? frames[frames.size() - 2].method : kNoMethod;
  Addr trace = NewString(
      "   at " + (thrower == kNoMethod ? std::string("<unknown>") : methods_[thrower].name) + "()");
  SetRef(f.get(0), core_.exception_stack_trace, trace);
  SetI32(f.get(0), core_.exception_hresult, static_cast<int32_t>(0x80131537));
  counters_.Add(Counter::kExceptionsThrown, 1);
}

size_t Runtime::RunPendingFinalizers(size_t max) {
  size_t ran = 0;
  ManagedThread& ft = finalizer_thread();
  ManagedThread* previous = current_;
  current_ = &ft;
  while (ran < max && !finalizers_.pending().empty()) {
    Addr obj = finalizers_.pending().front();
    finalizers_.pending().pop_front();
    const TypeDesc& d = types_[TypeOf(obj)];
    MethodFrameScope f(*this, ft, d.name + ".Finalize", 1);
    f.set(0, obj);
    if (d.options.finalizer) d.options.finalizer(*this, f.get(0));
    counters_.Add(Counter::kObjectsFinalized, 1);
    ++ran;
  }
  current_ = previous;
  return ran;
}

void Runtime::BeginFrame() {
  if (sink_generation_.load(std::memory_order_acquire) != sink_applied_) ApplyFrameSink();
  frame_bytes_ = 0;
  frame_objects_ = 0;
  in_frame_ = true;
  frame_begin_ = std::chrono::steady_clock::now();
  RunPendingFinalizers(config_.finalizers_per_frame);
}

void Runtime::EndFrame() {
  SyncLoaderCounters();
  UpdateMemoryCounters();
  counters_.Publish();
  if (in_frame_) ReportFrame();
}

void Runtime::SyncLoaderCounters() {
  size_t classes = types_.loaded_classes();
  if (classes > classes_counted_) {
    counters_.Add(Counter::kClassesLoaded, static_cast<int64_t>(classes - classes_counted_));
    classes_counted_ = classes;
  }
  if (methods_.size() > methods_counted_) {
    counters_.Add(Counter::kMethodsLoaded,
                  static_cast<int64_t>(methods_.size() - methods_counted_));
    methods_counted_ = methods_.size();
  }
}

void Runtime::UpdateMemoryCounters() {
  // The GC heap is measured; the runtime's other heaps are modelled from what they hold.
  counters_.Set(Counter::kGcHeap, static_cast<int64_t>(heap_.committed_bytes()));
  counters_.Set(Counter::kJitHeap, counters_.Total(Counter::kNativeBytesJitted) + 16384);
  counters_.Set(Counter::kAppDomainHeap,
                static_cast<int64_t>(49152 + types_.loaded_classes() * 212 + methods_.size() * 48));
  counters_.Set(Counter::kProcessHeap, static_cast<int64_t>(1258291 + handles_.slots().size() * 16 +
                                                            threads_.all().size() * 4096));
  counters_.Set(Counter::kShortTermHeap,
                static_cast<int64_t>(8192 + (frame_bytes_ & ~uint64_t{1023}) / 4));
}

void Runtime::OnCollectionDone(const GcResult& r) {
  bytes_since_gc_ = 0;
  gc_pause_us_total_ += static_cast<uint64_t>(r.pause_ms * 1000.0 + 0.5);
  // NETCF's collector has one generation (0); the frame row keeps why each collection ran.
  gc_kinds_pending_ = protocol::AppendGcKind(gc_kinds_pending_, 0, ProtocolReason(r.reason));
  UpdateMemoryCounters();
  int64_t other = counters_.Total(Counter::kJitHeap) + counters_.Total(Counter::kAppDomainHeap) +
                  counters_.Total(Counter::kProcessHeap);
  counters_.Set(Counter::kManagedBytesInUseAfterGc, static_cast<int64_t>(r.live_bytes));
  counters_.Set(Counter::kTotalBytesInUseAfterGc, static_cast<int64_t>(r.live_bytes) + other);
  counters_.Publish();
}

agent::RuntimeInfo Runtime::Info() const {
  return agent::RuntimeInfo{"xrpm-emulator (NETCF 3.5 model)",
                            "3.5.7283.0",
                            config_.app_name.c_str(),
                            "Xbox 360 (emulated)",
                            4,
                            true,
                            2,
                            1};
}

uint64_t Runtime::BootMillis() const {
  auto up = std::chrono::steady_clock::now() - start_;
  return config_.boot_offset_ms +
         static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(up).count());
}

bool Runtime::RunWithWorldStopped(void (*fn)(void* ctx), void* ctx, uint32_t timeout_ms) {
  if (!world_.Stop(timeout_ms)) return false;
  world_stopped_ = true;
  resumed_early_ = false;
  fn(ctx);
  world_stopped_ = false;
  if (!resumed_early_) world_.Resume();  // a snapshot walk resumed it as soon as it could
  return true;
}

void Runtime::InduceFullCollection() {
  gc_.Collect(GcReason::kCapture, true);
}

}  // namespace xrpm::emulator

namespace xrpm::emulator {

// ---- frames and allocation samples (see the class comment) ----

bool Runtime::SetFrameEventSink(agent::FrameEventSink* sink, uint32_t sample_bytes) {
  std::lock_guard<std::mutex> lock(sink_mu_);
  sink_ = sink;
  sink_sample_bytes_ = sink ? sample_bytes : 0;
  sink_generation_.fetch_add(1, std::memory_order_release);
  return true;
}

void Runtime::ApplyFrameSink() {
  std::lock_guard<std::mutex> lock(sink_mu_);
  sink_applied_ = sink_generation_.load(std::memory_order_acquire);
  frames_on_ = sink_ != nullptr;
  // A fresh, deterministic gap sequence per subscription.
  sampler_.Reset(sink_sample_bytes_, 0x616c6c6f63ull ^ sink_applied_);
  // The first reported frame starts a fresh series.
  gcs_reported_ = gc_.collections();
  gc_pause_us_reported_ = gc_pause_us_total_;
  gc_kinds_pending_ = 0;
  last_frame_end_ = std::chrono::steady_clock::now();
}

uint64_t Runtime::DeviceMicros(std::chrono::steady_clock::time_point t) const {
  return config_.boot_offset_ms * 1000 +
         static_cast<uint64_t>(
             std::chrono::duration_cast<std::chrono::microseconds>(t - start_).count());
}

void Runtime::ReportSample(TypeIndex t, uint32_t size) {
  uint64_t keys[agent::kMaxSampleStackDepth];
  const char* names[agent::kMaxSampleStackDepth];
  uint32_t depth = 0;
  const auto& frames = current_thread().frames;
  for (auto it = frames.rbegin(); it != frames.rend() && depth < agent::kMaxSampleStackDepth;
       ++it) {
    if (it->method == kNoMethod) continue;  // runtime-internal frames have no method
    keys[depth] = MethodTable::WireId(it->method);
    names[depth] = methods_[it->method].name.c_str();
    ++depth;
  }
  agent::AllocationSample s{frame_number_, size, t,     types_[t].name.c_str(),
                            depth,         keys, names, scopes_.key(),
                            scopes_.name()};
  std::lock_guard<std::mutex> lock(sink_mu_);
  if (sink_) sink_->OnAllocationSample(s);
}

void Runtime::ReportFrame() {
  in_frame_ = false;
  const auto now = std::chrono::steady_clock::now();
  const uint64_t gcs = gc_.collections();
  if (frames_on_) {
    auto us = [](std::chrono::steady_clock::duration d) {
      return static_cast<uint32_t>(std::min<int64_t>(
          std::chrono::duration_cast<std::chrono::microseconds>(d).count(), UINT32_MAX));
    };
    agent::FrameRecord f{};
    f.frame = frame_number_;
    f.end_us = DeviceMicros(now);
    f.duration_us = us(now - last_frame_end_);
    f.work_us = us(now - frame_begin_);
    f.alloc_bytes = frame_bytes_;
    f.alloc_objects = static_cast<uint32_t>(std::min<uint64_t>(frame_objects_, UINT32_MAX));
    f.gcs = static_cast<uint32_t>(gcs - gcs_reported_);
    f.gc_pause_us = static_cast<uint32_t>(
        std::min<uint64_t>(gc_pause_us_total_ - gc_pause_us_reported_, UINT32_MAX));
    f.gc_kinds = gc_kinds_pending_;
    f.gc_budget_left = static_cast<int64_t>(config_.gc_budget_bytes) -
                       static_cast<int64_t>(std::min<uint64_t>(bytes_since_gc_, INT64_MAX / 2));
    std::lock_guard<std::mutex> lock(sink_mu_);
    if (sink_) sink_->OnFrame(f);
  }
  gcs_reported_ = gcs;
  gc_pause_us_reported_ = gc_pause_us_total_;
  gc_kinds_pending_ = 0;
  last_frame_end_ = now;
  ++frame_number_;
}

}  // namespace xrpm::emulator

namespace xrpm::emulator {

// ---- game events (see the class comment) ----

bool Runtime::SetGameEventSink(agent::GameEventSink* sink) {
  game_sink_.Set(sink);
  return true;
}

void Runtime::PostMarker(agent::MarkerKind kind, const char* text) {
  // No agent: one relaxed load (a marker racing the agent's start may be lost; it is a hint).
  if (!game_sink_.on()) return;
  game_sink_.Post(kind, text, frame_number_, DeviceMicros(std::chrono::steady_clock::now()));
}

void Runtime::EnterScope(const char* tag) {
  // The tag's key: its text's FNV-1a hash (never 0), stable for equal text.
  uint64_t h = 14695981039346656037ull;
  for (const char* c = tag ? tag : ""; *c; ++c)
    h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
  scopes_.Enter(h | 1, tag ? tag : "");
}

}  // namespace xrpm::emulator
