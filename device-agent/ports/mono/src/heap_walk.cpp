// MonoPort::WalkHeap: the heap as NETCF shows it, from a stopped Mono runtime.
//
// Roots: the (slot address, object) pairs Mono reported during the capture's collection
// (gc_roots), each object mapped through the collection's moves (a root may be reported before
// its object was copied), each slot matched to the root range registered around it
// (gc_root_register) for its kind:
//   stack                          -> thread container + frame container  (1 local)
//   finalizer queue                -> kFinalized                           (2 finalizer)
//   GC handle (normal / pinned)    -> kStrongPtr, table 2 / 3 (pinned flag) (3 handle)
//   weak GC handles (live targets) -> kStrongPtr, table 0, weak flag        (3 handle)
//   static                         -> kClass, the declaring class          (4 static)
//   thread / context static        -> kClass, "<thread statics>" / "<context statics>"
//   domain, reflection, JIT, threading, marshal, thread pool, debugger -> kInternalVm (0)
//   anything else                  -> kRootTable                           (5 other)
// Objects: mono_gc_walk_heap, which at PRE_START_WORLD of a full collection reports live
// objects only; an object with more than 128 references arrives in several calls, merged here.
// AppDomains: with two or more live domains (registry.h, in creation order, the first the root
// domain) the walk names them (DescribeDomain 1, 2, ...) and every type carries its domain
// (DescribeTypeInDomain): a loaded class is in the root domain; an object's domain comes from
// its vtable (MonoVTable is per class and domain), and a class met in another domain gets a
// type of its own there. Objects whose vtable's domain is not live (an unloading domain) and
// static roots of such domains are not reported. With one domain the walk is as it always was.
// Allocation origins (when recorded, origin_tracker.h): AllocationClock(frames completed, the
// sample interval in force) right after the heap container begins, then for each object whose
// allocation was sampled DescribeSite (first use in this walk) and ObjectOrigin right before
// its ObjectReferences; a walk that saw every object prunes the origins of the rest (dead).
//
// Fields and values (when the sink's Detail() asks; field_layouts.h): the layouts Prepare
// computed and cached before the collection, each described only where this capture uses it:
// the types of static roots after the type table (a static root's field from its offset in the
// class's static data), any other type right before its first object; per object its values
// and ObjectReferencesWithSlots, each slot from the offset Mono reports with the reference. A
// type made for a class met in another AppDomain gets its class's layout (FieldLayouts::Bind).
//
// Where it runs: WalkLocked is the walk proper. With the snapshot walk (snapshot_walk.h) the
// collector takes this collection's roots and moves and the registry's lock, starts a child
// that runs WalkLocked into a WalkRecorder, and lets the world go; WalkHeap, on the capture
// thread, then tells the sink the world resumed and replays the child's walk into it. Without
// (--walk paused, allocation origins, no child possible) the collector runs WalkLocked into the
// sink in the pause.
//
// Complexity: O(R log R + R log M) for R roots and M moves, O(objects + references) for the
// heap; memory: the roots and moves of one collection plus the largest object's references
// (and, with domains, one entry per distinct vtable met).
#include <mono/metadata/class.h>
#include <mono/metadata/metadata.h>
#include <mono/metadata/mono-gc.h>
#include <mono/metadata/object.h>
#include <mono/metadata/profiler.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <tuple>
#include <unordered_set>

#include "class_names.h"
#include "mono_port.h"

namespace xrpm {
namespace mono {
namespace {

using agent::ContainerType;
using agent::WalkResult;

// Keys no MonoClass* can have, for the synthetic container types.
constexpr uintptr_t kThreadStaticsKey = 1;
constexpr uintptr_t kContextStaticsKey = 2;

constexpr uint64_t kWeakTable = MONO_GC_HANDLE_WEAK;
constexpr uint64_t kNormalTable = MONO_GC_HANDLE_NORMAL;
constexpr uint64_t kPinnedTable = MONO_GC_HANDLE_PINNED;

struct Root {
  ContainerType type;
  uint64_t id1;   // thread id (stack), type id (class), handle table
  uint8_t flags;  // NETCF root flags
  uint64_t object;
  uint32_t slot = agent::kNoSlot;  // a static's field index (not part of the order)
  bool operator<(const Root& o) const {
    return std::tie(type, id1, flags, object) < std::tie(o.type, o.id1, o.flags, o.object);
  }
};

// The live AppDomains of one walk: MonoDomain* -> 1, 2, 3, ... (creation order); off (empty)
// with fewer than two.
struct Domains {
  std::unordered_map<uintptr_t, uint32_t> index;
  uintptr_t root = 0;
  bool on() const { return !index.empty(); }
  uint32_t Of(uintptr_t domain) const {  // 0: not a live domain
    auto it = index.find(domain);
    return it == index.end() ? 0 : it->second;
  }
};

// What the type is comes from its class (`key`, a MonoClass*; none for a synthetic key); with
// layouts (a fields capture) whether it has a finalizer from its class's cached layout.
WalkResult Describe(agent::HeapInfoCallback& sink, const Domains& domains,
                    const FieldLayouts* layouts, uint32_t id, uint32_t domain,
                    const std::string& name, uintptr_t key) {
  agent::TypeTraits traits;
  if (key > Registry::kMaxSyntheticKey)
    FieldLayouts::Traits(reinterpret_cast<void*>(key), name, &traits);
  traits.has_finalizer = layouts && layouts->HasFinalizer(id);
  return sink.DescribeTypeWithTraits(id, domains.on() ? domain : 0, name.data(), name.size(),
                                     traits);
}

// The heap pass: merges Mono's per-128-reference chunks into one ObjectReferences call.
struct HeapPass {
  agent::HeapInfoCallback* sink;
  Registry* registry;
  OriginTracker* origins;  // null: no origins
  FieldLayouts* layouts;   // null: no fields
  agent::WalkDetail detail;
  const Domains* domains;
  bool aborted = false;
  bool skip = false;  // the current object is in a domain that is not reported
  uint64_t object = 0;
  uint32_t type_id = 0;
  uint32_t size = 0;
  std::vector<uint64_t> refs;
  std::vector<uintptr_t> offsets;  // with fields: each reference's offset in the object
  std::unordered_map<uintptr_t, uint32_t> vtable_types;  // with domains: vtable -> type (0 skip)
  // MonoClass* -> type id, direct-mapped in front of the registry's hash table (a lookup per
  // object; a few classes' objects interleave in heap order).
  static constexpr size_t kRecent = 1024;
  std::vector<std::pair<uintptr_t, uint32_t>> recent =
      std::vector<std::pair<uintptr_t, uint32_t>>(kRecent);

  void Flush() {
    if (skip) {
      skip = false;
      object = 0;
      refs.clear();
      offsets.clear();
      return;
    }
    if (object == 0 || aborted) return;
    if (origins && origins->ReportObject(*sink, object) == WalkResult::kAbort) {
      aborted = true;
      return;
    }
    if (!layouts) {
      aborted = sink->ObjectReferences(object, type_id, size, refs.data(), refs.size()) ==
                WalkResult::kAbort;
    } else {
      const void* obj = reinterpret_cast<const void*>(object);
      aborted = (detail.values && layouts->ReportValues(*sink, type_id, obj, detail.string_cap) ==
                                      WalkResult::kAbort) ||
                sink->ObjectReferencesWithSlots(
                    object, type_id, size, refs.data(),
                    layouts->Slots(type_id, obj, offsets.data(), offsets.size()),
                    refs.size()) == WalkResult::kAbort;
    }
    object = 0;
    refs.clear();
    offsets.clear();
  }

  uint32_t TypeOf(MonoClass* klass) {
    const auto key = reinterpret_cast<uintptr_t>(klass);
    std::pair<uintptr_t, uint32_t>& cached = recent[(key >> 4) % kRecent];
    if (cached.first == key) return cached.second;
    uint32_t id = registry->TypeId(key);
    if (id == 0) {
      id = registry->AddClass(key, ClassName(klass));  // a class whose load was not reported
      if (Describe(*sink, *domains, layouts, id, 1, registry->names()[id - 1], key) ==
          WalkResult::kAbort)
        aborted = true;  // a class loaded during the collection: no layout (field_layouts.h)
    }
    cached = {key, id};
    return id;
  }

  // With domains: the object's type in its vtable's domain; 0 when that domain is not live.
  uint32_t TypeInDomain(MonoObject* obj, MonoClass* klass) {
    // SGen keeps tag bits in the vtable word during a collection; vtables are 8-aligned.
    const uintptr_t vt = reinterpret_cast<uintptr_t>(obj->vtable) & ~uintptr_t{7};
    auto it = vtable_types.find(vt);
    if (it != vtable_types.end()) return it->second;
    const auto domain =
        reinterpret_cast<uintptr_t>(mono_vtable_domain(reinterpret_cast<MonoVTable*>(vt)));
    uint32_t id = 0;
    if (domain == domains->root) {
      id = TypeOf(klass);
    } else if (const uint32_t index = domains->Of(domain)) {
      bool added = false;
      id = TypeInOtherDomain(*registry, layouts, klass, domain, &added);
      if (added && Describe(*sink, *domains, layouts, id, index, registry->names()[id - 1],
                            reinterpret_cast<uintptr_t>(klass)) == WalkResult::kAbort)
        aborted = true;
    }
    vtable_types.emplace(vt, id);
    return id;
  }

  // *added: the type is new (the caller describes it, and its layout, if the type table was
  // sent already). With `layouts`, a new type gets its class's cached layout.
  static uint32_t TypeInOtherDomain(Registry& reg, FieldLayouts* layouts, MonoClass* klass,
                                    uintptr_t domain, bool* added) {
    const auto key = reinterpret_cast<uintptr_t>(klass);
    uint32_t id = reg.TypeIdIn(key, domain);
    *added = id == 0;
    if (id != 0) return id;
    const uint32_t loaded = reg.TypeId(key);
    id = reg.AddClassIn(key, domain, loaded ? reg.names()[loaded - 1] : ClassName(klass));
    if (layouts) layouts->Bind(id, key);
    return id;
  }

  static int OnObject(MonoObject* obj, MonoClass* klass, uintptr_t size, uintptr_t num,
                      MonoObject** refs, uintptr_t* offsets, void* data) {
    auto* self = static_cast<HeapPass*>(data);
    if (self->aborted) return 0;
    const auto id = reinterpret_cast<uint64_t>(obj);
    if (id != self->object) {  // a new object (continuations repeat the object with size 0)
      self->Flush();
      if (self->aborted) return 0;
      self->object = id;
      self->type_id = self->domains->on() ? self->TypeInDomain(obj, klass) : self->TypeOf(klass);
      self->skip = self->type_id == 0;
      // Its layout before its first object's values and slots (once per walk: a byte test).
      if (self->layouts && !self->skip && !self->layouts->Describe(*self->sink, self->type_id)) {
        self->aborted = true;
        return 0;
      }
      self->size = static_cast<uint32_t>((size + 7) & ~uintptr_t{7});
    }
    if (self->skip) return 0;
    for (uintptr_t i = 0; i < num; ++i)
      if (refs[i]) {
        self->refs.push_back(reinterpret_cast<uint64_t>(refs[i]));
        if (self->layouts) self->offsets.push_back(offsets ? offsets[i] : ~uintptr_t{0});
      }
    return 0;
  }
};

ContainerType ContainerFor(int source) {
  switch (source) {
    case MONO_ROOT_SOURCE_STACK:
      return ContainerType::kJitFrame;
    case MONO_ROOT_SOURCE_FINALIZER_QUEUE:
      return ContainerType::kFinalized;
    case MONO_ROOT_SOURCE_STATIC:
    case MONO_ROOT_SOURCE_THREAD_STATIC:
    case MONO_ROOT_SOURCE_CONTEXT_STATIC:
      return ContainerType::kClass;
    case MONO_ROOT_SOURCE_GC_HANDLE:
      return ContainerType::kStrongPtr;
    case MONO_ROOT_SOURCE_DOMAIN:
    case MONO_ROOT_SOURCE_REFLECTION:
    case MONO_ROOT_SOURCE_JIT:
    case MONO_ROOT_SOURCE_THREADING:
    case MONO_ROOT_SOURCE_MARSHAL:
    case MONO_ROOT_SOURCE_THREAD_POOL:
    case MONO_ROOT_SOURCE_DEBUGGER:
      return ContainerType::kInternalVm;
    default:
      return ContainerType::kRootTable;
  }
}

// What the snapshot's child walks: its copy of the port and of this collection's roots.
struct ChildWalk {
  MonoPort* port;
  void (MonoPort::*walk)(agent::HeapInfoCallback&, std::vector<std::pair<uintptr_t, uintptr_t>>&,
                         const std::vector<std::pair<uintptr_t, uintptr_t>>&);
  std::vector<std::pair<uintptr_t, uintptr_t>> moves, raw;
  static void Run(void* ctx, agent::HeapInfoCallback& rec) {
    auto* w = static_cast<ChildWalk*>(ctx);
    (w->port->*(w->walk))(rec, w->moves, w->raw);
  }
};

}  // namespace

void MonoPort::WalkHeap(agent::HeapInfoCallback& sink) {
  std::unique_lock<std::mutex> lock(mu_);
  if (phase_ != Phase::kWorldStopped) {
    // Not inside the capture's collection (the collector gave up): walking now would race
    // the running game. Begin without an end, so the agent reports the walk as failed.
    lock.unlock();
    sink.BeginContainer(ContainerType::kBegin, 0, 0);
    return;
  }
  walk_sink_ = &sink;
  phase_ = Phase::kWalking;
  cv_.notify_all();
  cv_.wait(lock, [&] { return phase_ == Phase::kWalked || snapshot_taken_; });
  walk_sink_ = nullptr;
  if (!snapshot_taken_) return;
  // A snapshot walk: the collector has let the world go; replay the child's walk.
  snapshot_taken_ = false;
  std::unique_ptr<SnapshotWalk> snapshot = std::move(snapshot_);
  lock.unlock();
  sink.WorldResumed();
  const pid_t pid = snapshot->pid();
  const auto start = std::chrono::steady_clock::now();
  const agent::ReplayResult r = snapshot->Replay(sink);
  const agent::CowChild::Rewritten rewritten = snapshot->rewritten();
  snapshot.reset();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  std::string note = "capture: walked in snapshot process " + std::to_string(pid) +
                     " while the game ran: " + std::to_string(r.bytes >> 10) + " KiB in " +
                     std::to_string(ms) + " ms";
  if (rewritten.supported)
    note += " (of which " + std::to_string(rewritten.us / 1000) + " ms making " +
            std::to_string(rewritten.bytes >> 20) + " MiB of this process's pages writable again)";
  if (r.aborted) note += ", stopped by the agent";
  if (!r.error.empty()) note += ", failed: " + r.error;
  // A child that died or hung (not a cancel) may do so again: walk paused from now on.
  const bool broke = !r.ended && !r.aborted && !sink.Cancelled();
  if (broke) note += "; the game will be paused for the walk from now on";
  lock.lock();
  snapshot_failed_ = snapshot_failed_ || broke;
  walk_note_ = note;
}

std::unique_ptr<SnapshotWalk> MonoPort::WalkOnCollector(agent::HeapInfoCallback& sink,
                                                        bool snapshot, std::string* note) {
  try {
    return WalkOnCollectorUnguarded(sink, snapshot, note);
  } catch (const std::exception& e) {  // bad_alloc: no end, so the agent fails the capture
    std::fprintf(stderr, "xrpm-agent: heap walk failed: %s\n", e.what());
    return nullptr;
  }
}

std::unique_ptr<SnapshotWalk> MonoPort::WalkOnCollectorUnguarded(agent::HeapInfoCallback& sink,
                                                                 bool snapshot, std::string* note) {
  registry_.Drain(events_);
  // Held across the clone, so the child's copy of the registry is whole (the bookkeeper is not
  // in the middle of a drain); the child never takes it.
  std::lock_guard<std::mutex> reg_lock(registry_.mutex());
  Registry& reg = registry_;
  if (reg.TypeId(kThreadStaticsKey) == 0) reg.AddClass(kThreadStaticsKey, "<thread statics>");
  if (reg.TypeId(kContextStaticsKey) == 0) reg.AddClass(kContextStaticsKey, "<context statics>");
  ChildWalk w{this, &MonoPort::WalkLocked, {}, {}};
  {
    std::lock_guard<std::mutex> lock(roots_mu_);
    w.moves.swap(moves_);
    w.raw.swap(roots_);
  }
  if (snapshot) {
    auto child = std::make_unique<SnapshotWalk>();
    std::string error;
    const bool stop = snapshot_stop_for_test_;
    if (child->Start(sink.Detail(), &ChildWalk::Run, &w, stop, &error)) {
      snapshot_stop_for_test_ = false;
      return child;
    }
    *note = "capture: no snapshot process (" + error + "): walked with the game paused";
  }
  WalkLocked(sink, w.moves, w.raw);
  return nullptr;
}

void MonoPort::WalkLocked(agent::HeapInfoCallback& sink, AddressPairs& moves,
                          const AddressPairs& raw) {
  Registry& reg = registry_;
  Domains domains;
  if (reg.domains().size() >= 2) {
    domains.root = reg.domains().front().domain;
    for (size_t i = 0; i < reg.domains().size(); ++i)
      domains.index.emplace(reg.domains()[i].domain, static_cast<uint32_t>(i + 1));
  }

  // Moves of this collection, sorted by old address; then every root mapped to its object now.
  std::sort(moves.begin(), moves.end());
  auto now = [&](uintptr_t obj) {
    auto it = std::lower_bound(moves.begin(), moves.end(), std::make_pair(obj, uintptr_t{0}));
    return it != moves.end() && it->first == obj ? it->second : obj;
  };

  const agent::WalkDetail detail = sink.Detail();
  std::unordered_set<uint64_t> pinned;
  std::vector<Root> roots;
  roots.reserve(raw.size());
  for (const auto& h : reg.handles()) {
    const int type = h.second;
    if (type != MONO_GC_HANDLE_PINNED && type != MONO_GC_HANDLE_WEAK &&
        type != MONO_GC_HANDLE_WEAK_TRACK_RESURRECTION)
      continue;
    MonoObject* target = mono_gchandle_get_target(h.first);
    if (!target) continue;
    const auto id = reinterpret_cast<uint64_t>(target);
    if (type == MONO_GC_HANDLE_PINNED)
      pinned.insert(id);
    else  // weak handles are not roots to the collector; NETCF lists live targets, flagged
      roots.push_back(Root{ContainerType::kStrongPtr, kWeakTable, agent::kRootFlagWeak, id});
  }
  for (const auto& r : raw) {
    const uint64_t obj = now(r.second);
    const RootRange* range = reg.FindRange(r.first);
    const int source = range ? range->source : -1;
    Root root{ContainerFor(source), 0, 0, obj};
    switch (source) {
      case MONO_ROOT_SOURCE_STACK:  // SGen scans thread stacks conservatively
        root.id1 = range->key;      // thread id
        root.flags = agent::kRootFlagConservative;
        break;
      case MONO_ROOT_SOURCE_STATIC: {
        auto* vtable = reinterpret_cast<MonoVTable*>(range->key);
        MonoClass* klass = vtable ? mono_vtable_class(vtable) : nullptr;
        const auto key = reinterpret_cast<uintptr_t>(klass);
        const auto domain =
            domains.on() && vtable ? reinterpret_cast<uintptr_t>(mono_vtable_domain(vtable)) : 0;
        uint32_t id = 0;
        if (klass && domain != domains.root) {    // a class's statics in another domain
          if (domains.Of(domain) == 0) continue;  // an unloading domain: not reported
          bool added = false;                     // described with the type table below
          id = HeapPass::TypeInOtherDomain(reg, detail.fields ? &layouts_ : nullptr, klass, domain,
                                           &added);
        } else {
          id = klass ? reg.TypeId(key) : 0;
          if (klass && id == 0) id = reg.AddClass(key, ClassName(klass));
        }
        root.id1 = id;
        if (detail.fields) root.slot = layouts_.StaticSlot(id, r.first - range->start);
        break;
      }
      case MONO_ROOT_SOURCE_THREAD_STATIC:
        root.id1 = reg.TypeId(kThreadStaticsKey);
        break;
      case MONO_ROOT_SOURCE_CONTEXT_STATIC:
        root.id1 = reg.TypeId(kContextStaticsKey);
        break;
      case MONO_ROOT_SOURCE_GC_HANDLE:
        if (pinned.count(obj)) {
          root.id1 = kPinnedTable;
          root.flags = agent::kRootFlagPinned;
        } else {
          root.id1 = kNormalTable;
        }
        break;
      default:
        break;
    }
    roots.push_back(root);
  }
  std::sort(roots.begin(), roots.end());

  // ---- the walk ----
  if (sink.BeginContainer(ContainerType::kBegin, 0, 0) == WalkResult::kAbort) {
    sink.BeginContainer(ContainerType::kEnd, 0, 0);
    return;
  }
  bool aborted = false;
  for (size_t i = 0; i < domains.index.size() && !aborted; ++i) {
    std::string n = reg.domains()[i].name;
    if (n.empty()) n = "<AppDomain " + std::to_string(i + 1) + ">";
    aborted =
        sink.DescribeDomain(static_cast<uint32_t>(i + 1), n.data(), n.size()) == WalkResult::kAbort;
  }
  if (detail.fields) layouts_.BeginWalk();
  for (size_t i = 0; i < reg.names().size() && !aborted; ++i) {
    const uintptr_t d = reg.type_domains()[i];
    const uint32_t domain = d == 0 ? 1 : domains.Of(d);
    if (domain == 0) continue;  // a type of an unloaded domain
    const auto id = static_cast<uint32_t>(i + 1);
    aborted = Describe(sink, domains, detail.fields ? &layouts_ : nullptr, id, domain,
                       reg.names()[i], reg.keys()[i]) == WalkResult::kAbort;
  }
  // The layouts the roots name (a static root's slot is a static field of its class's layout).
  for (size_t i = 0; i < roots.size() && !aborted && detail.fields; ++i)
    if (roots[i].type == ContainerType::kClass)
      aborted = !layouts_.Describe(sink, static_cast<uint32_t>(roots[i].id1));
  std::vector<agent::RootRef> batch;
  for (size_t i = 0; i < roots.size() && !aborted;) {
    size_t j = i;
    batch.clear();
    while (j < roots.size() && roots[j].type == roots[i].type && roots[j].id1 == roots[i].id1 &&
           roots[j].flags == roots[i].flags) {
      batch.push_back(agent::RootRef{roots[j].object, roots[j].flags, roots[j].slot});
      ++j;
    }
    const Root& r = roots[i];
    if (r.type == ContainerType::kJitFrame)
      aborted = sink.BeginContainer(ContainerType::kThread, r.id1, 0) == WalkResult::kAbort;
    if (!aborted) aborted = sink.BeginContainer(r.type, r.id1, 0) == WalkResult::kAbort;
    if (!aborted) aborted = sink.RootReferences(batch.data(), batch.size()) == WalkResult::kAbort;
    i = j;
  }
  if (!aborted) aborted = sink.BeginContainer(ContainerType::kHeap, 0, 0) == WalkResult::kAbort;
  if (!aborted) {
    OriginTracker* origins = origins_.get();
    if (origins)
      aborted = origins->BeginWalk(sink, frames_.completed(), interval_.mean_bytes()) ==
                WalkResult::kAbort;
    HeapPass pass{&sink, &reg, origins, detail.fields ? &layouts_ : nullptr, detail, &domains};
    pass.aborted = aborted;
    if (!aborted) {
      mono_gc_walk_heap(0, &HeapPass::OnObject, &pass);
      pass.Flush();
    }
    if (origins) origins->EndWalk(!pass.aborted);
  }
  sink.BeginContainer(ContainerType::kEnd, 0, 0);
}

}  // namespace mono
}  // namespace xrpm
