// DotnetPort's walk: after the world resumed, the record (heap_record.h) reported to the agent:
// the non-GC heap's objects the record references, the types, the layouts, the roots (the
// runtime's, the static fields', the thread statics') and every object with its origin, values
// and references.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "address_ranges.h"
#include "dotnet_port.h"
#include "type_names.h"
#include "xrpm/agent/origin_reporter.h"
#include "xrpm/protocol/constants.h"

namespace xrpm {
namespace dotnet {
namespace {

using agent::ContainerType;
using agent::WalkResult;

// Handle tables of kStrongPtr containers (the Mono port's numbering).
constexpr uint64_t kWeakTable = 0;
constexpr uint64_t kStrongTable = 2;
constexpr uint64_t kPinnedTable = 3;

// How much of a record held whole the walk reads before giving that part's memory back, and
// how much of a snapshot process's record arrives at a time, into the same window (to the
// next checkpoint after it: RecordStream).
constexpr size_t kForgetStep = size_t{1} << 20;
constexpr size_t kArrivingStep = size_t{1} << 20;

struct Root {
  ContainerType type;
  uint64_t id2;  // kJitFrame: the FunctionID; kStrongPtr: the table; kClass: the type id
  uint8_t flags;
  uint64_t object;
  uint32_t slot = agent::kNoSlot;  // kClass: the static field's index
  bool operator<(const Root& o) const {
    return std::tie(type, id2, flags, object, slot) <
           std::tie(o.type, o.id2, o.flags, o.object, o.slot);
  }
};

Root Classify(const RecordedRoot& r) {
  const auto flags = static_cast<uint8_t>(r.flags & 0x7);  // pinned 1, weak 2, interior 4
  switch (r.kind) {
    case cor::kRootStack:
      return Root{ContainerType::kJitFrame, r.id, flags, r.object};
    case cor::kRootFinalizer:
      return Root{ContainerType::kFinalized, 0, 0, r.object};
    case cor::kRootHandle: {
      const uint64_t table = (flags & 2) ? kWeakTable : (flags & 1) ? kPinnedTable : kStrongTable;
      return Root{ContainerType::kStrongPtr, table, static_cast<uint8_t>(flags & 3), r.object};
    }
    default:
      return Root{ContainerType::kRootTable, 0, flags, r.object};
  }
}

}  // namespace

bool DotnetPort::AddFrozenObjects(const std::vector<uint64_t>& named,
                                  std::vector<uint64_t>* named_recorded, RecordChild* child,
                                  std::string* error) {
  // A referenced object that the walk did not report. With the GC heap's ranges (the runtime
  // gave them all): a reference outside them, unless the walk reported that object anyway (it
  // reports some objects of the non-GC heap itself: boxed statics, empty arrays, literals it
  // met), found among the few reported objects outside the ranges: a table lookup per reference
  // and object (address_ranges.h), in one pass over the record's ids and references, its two
  // halves on two threads (RecordStream's slices). Without the ranges: missing from the sorted
  // ids of every reported object (a sort of every object and a search per reference, in two
  // passes: several times slower on a big heap). The same pass finds which of the `named`
  // objects (sorted) were recorded. A record still arriving from its snapshot process is read
  // as it comes, on one thread, through the stream's window (each step in the place of the
  // bytes read).
  std::vector<uint64_t> missing;
  const bool arriving = record_.stream.arriving();
  // `named` holds tens to thousands of ids and every object is looked for: a bit per hash of
  // the id answers most of them without the binary search.
  constexpr size_t kFilterBits = size_t{1} << 16;
  std::vector<uint64_t> filter(kFilterBits / 64, 0);
  auto filter_bit = [](uint64_t id) {
    return static_cast<size_t>((id >> 3) * 0x9E3779B97F4A7C15ull >> 48);  // 16 bits
  };
  for (uint64_t id : named) filter[filter_bit(id) / 64] |= uint64_t{1} << (filter_bit(id) % 64);
  auto is_named = [&](uint64_t id) {  // reads only: the slices' threads call it too
    if (named.empty()) return false;
    const size_t bit = filter_bit(id);
    return (filter[bit / 64] >> (bit % 64) & 1) &&
           std::binary_search(named.begin(), named.end(), id);
  };
  auto others = [&](auto&& unreported) {  // the roots' and static fields' objects
    for (const RecordedRoot& r : record_.roots)
      if (unreported(r.object)) missing.push_back(r.object);
    for (const StaticValue& v : record_.statics)
      if (unreported(v.object)) missing.push_back(v.object);
  };
  AddressRanges ranges;
  ranges.Assign(record_.gc_ranges);
  std::vector<uint64_t> ids;  // reported: outside the ranges (with ranges), or all of them
  if (!ranges.empty()) {
    auto outside = [&](uint64_t id) { return !ranges.Contains(id); };
    std::vector<uint64_t> leaving;  // references outside the ranges, reported or not
    // The record's slices on two threads (the game runs on, but this walk is the capture's
    // wait): each reads ids and references only, into its own lists.
    struct Slice {
      std::vector<uint64_t> ids, leaving, named;
      std::exception_ptr failed;
      bool broken = false;  // the record's bytes stopped coming (*error says why)
    };
    const size_t parts = !arriving && std::thread::hardware_concurrency() > 1 ? 2 : 1;
    std::vector<Slice> slices(parts);
    auto scan = [&](size_t part) {
      Slice& out = slices[part];
      try {
        RecordStream::Reader reader(record_.stream, part, parts);
        uint64_t id;
        auto leaving = [&](const uint64_t* refs, size_t n) {
          for (size_t i = 0; i < n; ++i)
            if (outside(refs[i])) out.leaving.push_back(refs[i]);
        };
        for (;;) {
          while (reader.NextRefs(&id, leaving)) {
            if (outside(id)) out.ids.push_back(id);
            if (is_named(id)) out.named.push_back(id);
          }
          if (!record_.stream.arriving()) break;
          // Arriving (one slice): all read, the next bytes take their place in the window.
          record_.stream.Forget(reader.Consumed());
          if (!child->More(&record_.stream, kArrivingStep, error)) {
            out.broken = true;
            break;
          }
        }
      } catch (...) {  // bad_alloc
        out.failed = std::current_exception();
      }
    };
    std::thread helper;
    if (parts > 1) {
      try {
        helper = std::thread(scan, 1);
      } catch (const std::system_error&) {  // no thread: this one reads that slice too
        scan(1);
      }
    }
    scan(0);
    if (helper.joinable()) helper.join();
    for (Slice& slice : slices) {
      if (slice.failed) std::rethrow_exception(slice.failed);
      if (slice.broken) return false;
      ids.insert(ids.end(), slice.ids.begin(), slice.ids.end());
      leaving.insert(leaving.end(), slice.leaving.begin(), slice.leaving.end());
      named_recorded->insert(named_recorded->end(), slice.named.begin(), slice.named.end());
    }
    std::sort(ids.begin(), ids.end());
    auto unreported = [&](uint64_t id) {
      return outside(id) && !std::binary_search(ids.begin(), ids.end(), id);
    };
    for (uint64_t r : leaving)
      if (unreported(r)) missing.push_back(r);
    others(unreported);
  } else {
    // Two passes over the whole record: all of it held (its second sending then arrives over
    // the same bytes).
    if (arriving && !child->More(&record_.stream, SIZE_MAX, error)) return false;
    ids.reserve(record_.stream.object_count());
    uint64_t object;
    {
      RecordStream::Reader reader(record_.stream);
      while (reader.NextRefs(&object, [](const uint64_t*, size_t) {})) {
        ids.push_back(object);
        if (is_named(object)) named_recorded->push_back(object);
      }
    }
    std::sort(ids.begin(), ids.end());
    auto unreported = [&](uint64_t id) { return !std::binary_search(ids.begin(), ids.end(), id); };
    RecordStream::Reader reader(record_.stream);
    auto missed = [&](const uint64_t* refs, size_t n) {
      for (size_t i = 0; i < n; ++i)
        if (unreported(refs[i])) missing.push_back(refs[i]);
    };
    while (reader.NextRefs(&object, missed)) {
    }
    others(unreported);
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  for (uint64_t id : missing) {
    cor::BOOL frozen = 0;
    cor::ClassID klass = 0;
    size_t size = 0;
    if (cor::Failed(info_->IsFrozenObject(static_cast<cor::ObjectID>(id), &frozen)) || !frozen)
      continue;
    if (cor::Failed(info_->GetClassFromObject(static_cast<cor::ObjectID>(id), &klass))) continue;
    info_->GetObjectSize2(static_cast<cor::ObjectID>(id), &size);
    // A frozen object never moves: read after the collection.
    RecordObject(
        RecordedObject{id, klass, static_cast<uint32_t>(std::min<size_t>(size, UINT32_MAX))},
        nullptr, 0);
    ++record_.frozen;
    if (is_named(id)) named_recorded->push_back(id);
  }
  return true;
}

void DotnetPort::WalkHeap(agent::HeapInfoCallback& sink) {
  // However the walk ends, a snapshot process leaves this process's pages write-protected
  // (cow_child.h): made writable again once it is gone (declared first: ends after `child`),
  // so that the next collection does not take a fault on every page of the heap.
  struct AfterChild {
    const DotnetPort* port;
    bool made = false;
    ~AfterChild() {
      if (!made) return;
      const agent::CowChild::Rewritten w = agent::CowChild::MakeWritableAgain();
      try {
        if (w.supported)
          port->Log("capture: this process's pages made writable again after the snapshot " +
                    std::string("process in ") + std::to_string(w.us / 1000) + " ms (" +
                    std::to_string(w.bytes >> 20) + " MiB)");
      } catch (const std::exception&) {  // no memory for the line: not logged
      }
    }
  } after_child{this};
  std::unique_ptr<RecordChild> child;
  std::string no_child;  // why the recorded collection made no child, if it tried
  {
    std::lock_guard<std::mutex> lock(record_mu_);  // a collection of the game's may be ending
    child = std::move(child_);
    no_child.swap(snapshot_error_);
  }
  after_child.made = child != nullptr;
  if (!failure_.empty()) {
    child.reset();  // a child that made a record for nothing: killed
    sink.WalkFailed(failure_.data(), failure_.size());
    sink.BeginContainer(ContainerType::kEnd, 0, 0);
    return;
  }
  // The collection is over: the game runs again while the record is reported.
  sink.WorldResumed();
  if (!no_child.empty())
    Log("capture: no snapshot process (" + no_child + "): the heap report was recorded in the " +
        "pause");
  if (child && !ReceiveFromChild(*child, sink)) return;
  try {
    Walk(sink, child.get());
  } catch (const std::exception& e) {  // bad_alloc: no end, so the agent fails the capture
    Log(std::string("heap walk failed: ") + e.what());
  }
  child.reset();  // killed if the walk ended before its last byte (a cancel)
  std::lock_guard<std::mutex> lock(record_mu_);
  // A receive that failed mid-walk emptied the record: the last whole record's sizes stay.
  if (record_.stream.bytes() != 0) last_sizes_ = record_.sizes();
  record_.Release();
}

bool DotnetPort::ReceiveFromChild(RecordChild& child, agent::HeapInfoCallback& sink) {
  std::string error;
  bool ok = false;
  const int64_t start = agent::NowNs();
  {
    std::lock_guard<std::mutex> lock(record_mu_);
    try {
      // The test hook's child waits stopped for its test to kill it: a longer wait, so that a
      // loaded machine's test finds it before the parent gives up.
      ok = child.ReceiveHead(
          &record_, [&sink] { return sink.Cancelled(); }, &error,
          snapshot_stop_tested_ ? 10 * RecordChild::kIdleTimeoutMs : RecordChild::kIdleTimeoutMs);
    } catch (const std::exception&) {
      error = "out of memory receiving the record from the snapshot process";
    }
    if (ok) {
      Log("capture: the heap report recorded in a snapshot process, received (its head) in " +
          std::to_string((agent::NowNs() - start) / 1000000) + " ms; its " +
          std::to_string(record_.stream.bytes()) +
          " bytes are read as they come, twice, a window at a time");
      return true;
    }
    record_.Release();  // last_sizes_ stays the last whole record's
  }
  ChildFailed(error, sink);
  return false;
}

void DotnetPort::ChildFailed(std::string error, agent::HeapInfoCallback& sink) {
  if (!sink.Cancelled()) {
    snapshot_walk_.store(false, std::memory_order_release);
    Log("capture: the snapshot process failed (" + error +
        "): captures record the heap report in the pause from now on");
  }
  error = "the heap report's snapshot process failed: " + error;
  sink.WalkFailed(error.data(), error.size());
  sink.BeginContainer(ContainerType::kEnd, 0, 0);
}

void DotnetPort::Walk(agent::HeapInfoCallback& sink, RecordChild* child) {
  std::lock_guard<std::mutex> lock(record_mu_);  // uncontended: no collection is recorded now
  std::string broken;                            // why the child's bytes stopped coming
  // The objects the static fields name: only those recorded become roots (a stale slot names
  // nothing); found in AddFrozenObjects' pass over the record.
  std::vector<uint64_t> ids;
  int64_t frozen_us = 0;
  {
    std::vector<uint64_t> named;
    for (const StaticValue& v : record_.statics) named.push_back(v.object);
    std::sort(named.begin(), named.end());
    named.erase(std::unique(named.begin(), named.end()), named.end());
    const auto start = std::chrono::steady_clock::now();
    if (!AddFrozenObjects(named, &ids, child, &broken)) {
      ChildFailed(broken, sink);
      return;
    }
    frozen_us = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    std::sort(ids.begin(), ids.end());
  }
  TypeNames names(info_);
  // Type ids: the stream's classes (by first appearance) + 1, then the static roots' classes.
  std::unordered_map<cor::ClassID, uint32_t> type_ids;
  std::vector<cor::ClassID> classes(record_.stream.classes().begin(),
                                    record_.stream.classes().end());
  for (size_t i = 0; i < classes.size(); ++i)
    type_ids.emplace(classes[i], static_cast<uint32_t>(i + 1));
  std::vector<Root> roots;
  roots.reserve(record_.roots.size() + record_.statics.size());
  for (const RecordedRoot& r : record_.roots) roots.push_back(Classify(r));
  const auto& owners = statics_.classes();
  std::vector<uint32_t> owner_types(owners.size(), 0);  // type id of each class with a root
  // Per class, its thread statics' (field, thread) pairs met, in order: each one a static
  // field of the class's layout after the AppDomain-wide ones.
  std::unordered_map<size_t, std::vector<std::pair<uint32_t, uint32_t>>> thread_slots;
  size_t stale = 0, thread_statics = 0;
  for (const StaticValue& v : record_.statics) {
    if (v.owner >= owners.size() || !std::binary_search(ids.begin(), ids.end(), v.object)) {
      ++stale;
      continue;
    }
    const cor::ClassID klass = owners[v.owner].klass;
    auto added = type_ids.emplace(klass, static_cast<uint32_t>(classes.size() + 1));
    if (added.second) classes.push_back(klass);
    owner_types[v.owner] = added.first->second;
    uint32_t slot = v.slot;
    if (v.thread != kNotThreadStatic) {
      auto& pairs = thread_slots[v.owner];
      const std::pair<uint32_t, uint32_t> pair{v.slot, v.thread};
      auto at = std::find(pairs.begin(), pairs.end(), pair);
      if (at == pairs.end()) at = pairs.insert(pairs.end(), pair);
      slot = static_cast<uint32_t>(owners[v.owner].names.size() + (at - pairs.begin()));
      ++thread_statics;
    }
    roots.push_back(Root{ContainerType::kClass, added.first->second, 0, v.object, slot});
  }
  std::sort(roots.begin(), roots.end());

  // What the walk will report, for the host to prepare for (CaptureBegin, sent now).
  walk_objects_.store(record_.stream.object_count(), std::memory_order_release);
  walk_refs_.store(record_.stream.ref_count(), std::memory_order_release);
  const WalkResult begun = sink.BeginContainer(ContainerType::kBegin, 0, 0);
  walk_objects_.store(0, std::memory_order_release);
  walk_refs_.store(0, std::memory_order_release);
  if (begun == WalkResult::kAbort) {
    sink.BeginContainer(ContainerType::kEnd, 0, 0);
    return;
  }
  bool aborted = false;
  for (size_t i = 0; i < classes.size() && !aborted; ++i) {
    const std::string& name = names.ClassName(classes[i]);
    agent::TypeTraits traits;
    layouts_.Traits(classes[i], name, names, &traits);
    aborted = sink.DescribeTypeWithTraits(static_cast<uint32_t>(i + 1), 0, name.data(), name.size(),
                                          traits) == WalkResult::kAbort;
  }
  bool thread_sent = false;
  const agent::WalkDetail detail = sink.Detail();
  const bool labels = detail.fields;  // layouts, slots, a frame's method name
  // Each type's layout (field_layouts.h), with the static reference fields of the classes with
  // static roots (a static root's slot is an index there).
  std::unordered_map<cor::ClassID, size_t> owner_of;  // class -> index in owners
  for (size_t i = 0; i < owners.size(); ++i)
    if (owner_types[i] != 0) owner_of.emplace(owners[i].klass, i);
  std::vector<agent::StaticFieldInfo> static_fields;
  std::vector<std::string> thread_static_names;  // "Field (thread 4242 \"Worker\")"
  layouts_.BeginWalk();
  for (size_t i = 0; i < classes.size() && labels && !aborted; ++i) {
    static_fields.clear();
    thread_static_names.clear();
    auto owner = owner_of.find(classes[i]);
    if (owner != owner_of.end()) {
      const StaticRoots::ClassStatics& c = owners[owner->second];
      auto pairs = thread_slots.find(owner->second);
      if (pairs != thread_slots.end())
        for (const auto& [field, thread] : pairs->second)
          thread_static_names.push_back(c.thread_names[field] + " (" + threads_.Label(thread) +
                                        ")");
      const std::vector<std::string>* lists[] = {&c.names, &thread_static_names};
      for (const std::vector<std::string>* list : lists)  // the slots' order
        for (const std::string& name : *list)
          static_fields.push_back(agent::StaticFieldInfo{name.data(), name.size(), "", 0,
                                                         agent::FieldKind::kReference});
    }
    aborted =
        !layouts_.Describe(sink, static_cast<uint32_t>(i + 1), classes[i], static_fields, names);
  }
  std::vector<agent::RootRef> batch;
  for (size_t i = 0; i < roots.size() && !aborted;) {
    size_t j = i;
    batch.clear();
    while (j < roots.size() && roots[j].type == roots[i].type && roots[j].id2 == roots[i].id2 &&
           roots[j].flags == roots[i].flags) {
      batch.push_back(agent::RootRef{roots[j].object, roots[j].flags, roots[j].slot});
      ++j;
    }
    const Root& r = roots[i];
    if (r.type == ContainerType::kJitFrame && !thread_sent) {
      aborted = sink.BeginContainer(ContainerType::kThread, 0, 0) == WalkResult::kAbort;
      thread_sent = true;
    }
    const uint64_t id1 =
        r.type == ContainerType::kStrongPtr || r.type == ContainerType::kClass ? r.id2 : 0;
    const uint64_t id2 = r.type == ContainerType::kJitFrame ? r.id2 : 0;
    if (!aborted) aborted = sink.BeginContainer(r.type, id1, id2) == WalkResult::kAbort;
    if (!aborted && labels && r.type == ContainerType::kJitFrame) {
      const std::string method = names.MethodName(static_cast<cor::FunctionID>(r.id2));
      aborted = sink.ContainerLabel(method.data(), method.size()) == WalkResult::kAbort;
    }
    if (!aborted) aborted = sink.RootReferences(batch.data(), batch.size()) == WalkResult::kAbort;
    i = j;
  }
  if (!aborted) aborted = sink.BeginContainer(ContainerType::kHeap, 0, 0) == WalkResult::kAbort;
  // Allocation origins (dotnet_origins.h): the clock, then each sampled object's origin right
  // before its values and references.
  agent::OriginReporter origin_reporter;
  const std::vector<DotnetOrigins::Entry>& origins = record_.origins;
  size_t with_origin = 0;
  if (!aborted && origins_ && allocations_)
    aborted = origin_reporter.Begin(sink, origins_->sites(), stopped_after_.load(),
                                    allocations_->mean_bytes()) == WalkResult::kAbort;
  size_t with_values = 0;
  StreamObject o;
  RecordStream::Reader reader(record_.stream);
  // A sink that takes an object's references in parts gets a large one's kRefChunk at a time:
  // no copy of a million-element array's references (8 MB, and 4 MB of slots) in the walk.
  const size_t most_refs = sink.TakesReferenceParts() ? RecordStream::Reader::kRefChunk : SIZE_MAX;
  if (child) record_.stream.Rewind();  // the bytes' second sending, read as the walk goes
  size_t forgotten = 0;
  while (!aborted) {
    if (!reader.Next(&o, most_refs)) {
      if (!record_.stream.arriving()) break;
      record_.stream.Forget(reader.Consumed());  // all read: the next bytes take their place
      if (!child->More(&record_.stream, kArrivingStep, &broken)) break;
      continue;
    }
    // The bytes read are copied into o: a record held whole is given back behind the reader a
    // MiB at a time while the batches it becomes are held, so the walk's peak is not both at
    // once (one received in steps is a window already).
    if (reader.Consumed() >= forgotten + kForgetStep) {
      forgotten = reader.Consumed();
      record_.stream.Forget(forgotten);
    }
    if (!origins.empty()) {
      auto e = std::lower_bound(
          origins.begin(), origins.end(), o.id,
          [](const DotnetOrigins::Entry& x, uint64_t id) { return x.address < id; });
      if (e != origins.end() && e->address == o.id) {
        if (e->klass != o.klass) {
          origins_->CountClassMismatch();
        } else {
          ++with_origin;
          aborted = origin_reporter.Report(sink, origins_->sites(), o.id, e->frame, e->site) ==
                    WalkResult::kAbort;
          if (aborted) break;
        }
      }
    }
    if (o.values_read) {
      const bool string = layouts_.IsString(o.klass) && o.values.size() == 1;
      const uint32_t length = string ? static_cast<uint32_t>(o.values[0]) : 0;
      if (detail.values) {
        ++with_values;
        aborted =
            (string
                 ? sink.StringValue(o.id, length, o.text.data(),
                                    std::min<size_t>({length, detail.string_cap, o.text.size()}))
                 : sink.ObjectValues(o.id, o.values.data(), o.values.size())) == WalkResult::kAbort;
      }
      if (aborted) break;
    }
    const uint32_t type_id = o.class_index + 1;  // the stream's classes come first
    if (o.ref_count != o.refs.size()) {
      while (!aborted && reader.Part(&o))
        aborted = sink.ObjectReferencesPart(o.id, type_id, o.size, o.ref_count, o.refs.data(),
                                            labels ? o.slots.data() : nullptr,
                                            o.refs.size()) == WalkResult::kAbort;
      continue;
    }
    const size_t n = o.refs.size();
    aborted =
        (labels ? sink.ObjectReferencesWithSlots(o.id, type_id, o.size, n ? o.refs.data() : nullptr,
                                                 n ? o.slots.data() : nullptr, n)
                : sink.ObjectReferences(o.id, type_id, o.size, n ? o.refs.data() : nullptr, n)) ==
        WalkResult::kAbort;
  }
  origin_reporter.End();
  if (!broken.empty()) {
    ChildFailed(broken, sink);
    return;
  }
  if (child && !aborted && !child->Finish(&broken))  // every byte was read: the record is whole
    Log("capture: the snapshot process ended badly after sending its record (" + broken + ")");
  sink.BeginContainer(ContainerType::kEnd, 0, 0);
  if (origins_) Log(OriginsLine(with_origin));
  // After an attach, the classes met here may never have been reported loaded: their statics
  // are looked for at the next capture (StaticRoots looks at each class once).
  if (attached_)
    for (cor::ClassID klass : classes) statics_.OnClassLoaded(klass);
  Log("capture: " + std::to_string(record_.stream.object_count()) + " objects (" +
      std::to_string(record_.frozen) + " on the non-GC heap, looked for in " +
      std::to_string(frozen_us / 1000) + " ms; recorded in " +
      std::to_string(record_.stream.bytes()) + " bytes" +
      (record_.stream.growths()
           ? ", its reservation grown " + std::to_string(record_.stream.growths()) +
                 " times in the collection"
           : " of " + std::to_string(record_.stream.reserved()) + " reserved") +
      "), " + std::to_string(record_.roots.size()) + " roots, " +
      std::to_string(record_.statics.size() - stale) + " static fields (" +
      std::to_string(thread_statics) + " of them thread statics on " +
      std::to_string(threads_.size()) + " threads; found in " + std::to_string(resolve_us_) +
      " us before the collection, field layouts in " + std::to_string(layouts_us_) + " us)" +
      (stale ? " (" + std::to_string(stale) + " naming no recorded object, dropped)" : "") + ", " +
      std::to_string(classes.size()) + " types, " + std::to_string(with_values) +
      " objects' values sent");
}

}  // namespace dotnet
}  // namespace xrpm
