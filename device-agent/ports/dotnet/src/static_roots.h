// StaticRoots: the static reference fields of the loaded classes, so that a capture can report
// what each one holds as a static root named "Class.Field" (a kClass container, the field's
// index as the root's slot) instead of only as the runtime's handle to its statics storage.
//
// CoreCLR's root report (RootReferences2) does not tell statics apart: a class's reference
// statics live in an object array the runtime holds through one of its own handles. The port
// therefore finds them itself:
//   - the runtime reports every class it loads (ClassLoadFinished, COR_PRF_MONITOR_CLASS_LOADS
//     asked for at start-up): OnClassLoaded queues it;
//   - before the capture's collection, with the program running, Resolve looks at the queued
//     classes once: the class's type definition and module (GetClassIDInfo2), its fields in the
//     module's metadata (EnumFields, GetFieldProps) that are static, not constant, not RVA, of a
//     reference type by their signature (string, class, object, arrays, generic classes), and
//     AppDomain-wide or thread-static (GetStaticFieldInfo). Then, for every AppDomain-wide one
//     without one yet, the address of its slot (GetAppDomainStaticAddress), which the
//     runtime gives only once the class's static constructor has run: fields without an address
//     are asked again at the next capture. Arrays and classes without such fields are dropped.
//   - inside the capture's collection, with the world stopped and every object in its final
//     place (GarbageCollectionFinished), Read copies each slot's reference: the statics storage
//     is allocated where the collector does not move it (pinned), so the slot address stays
//     valid. The walk keeps only references to objects it recorded (a stale or torn slot names
//     nothing and is dropped, counted in the log).
//   - thread statics ([ThreadStatic]) have a slot per thread, in managed arrays the collection
//     moves: ReadThreadStatics asks for each listed thread's slot of each such field inside the
//     collection, after everything moved (GetThreadStaticAddress2, which takes no lock the
//     collection holds), and reads it. A thread that never touched the class has no slot.
// Collectible (unloadable) assemblies are not followed: their classes are assumed to stay.
//
// Cost: one queue push per class load; at each capture, the metadata of the classes loaded
// since the last one and one GetAppDomainStaticAddress per field still without an address
// (classes whose static constructor never ran: most of the base library's); one memory read per
// field inside the collection, and per running thread and thread-static field one runtime call
// (a lookup under the thread's own spin lock) and one read.
//
// Thread-safety: OnClassLoaded from any runtime thread (a mutex around the queue); Resolve and
// the accessors on the capture thread; Read and ReadThreadStatics on the GC thread of the
// recorded collection, which runs while the capture thread waits in ForceGC (so after Resolve,
// never concurrently).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "corprof_abi.h"
#include "managed_threads.h"
#include "module_metadata.h"

namespace xrpm {
namespace dotnet {

constexpr uint32_t kNotThreadStatic = UINT32_MAX;

// A static field's reference at the capture's collection.
struct StaticValue {
  uint64_t object;
  uint32_t owner;  // index into StaticRoots::classes()
  uint32_t slot;   // the field's index in that class's statics (or thread statics)
  // A thread static's thread (an index of the ManagedThreads list), else kNotThreadStatic.
  uint32_t thread = kNotThreadStatic;
};

class StaticRoots {
 public:
  struct ClassStatics {
    cor::ClassID klass;
    cor::ModuleID module;
    cor::ClassID parent;             // its base class (0: none), for the layout's shape
    std::vector<std::string> names;  // reference statics, in metadata order (slot = index)
    std::vector<cor::mdToken> fields;
    std::vector<uintptr_t> addresses;  // 0: not known yet (static constructor not run)
    // Reference thread statics, in metadata order (StaticValue::slot with a thread).
    std::vector<std::string> thread_names;
    std::vector<cor::mdToken> thread_fields;
    cor::AppDomainID domain = 0;  // asked for once the class has thread statics
  };

  explicit StaticRoots(cor::ICorProfilerInfo10* info) : info_(info), metadata_(info) {}
  StaticRoots(const StaticRoots&) = delete;
  StaticRoots& operator=(const StaticRoots&) = delete;

  // A class to look at (again: the first time counts). From the class load events, and after an
  // attach from the port's other sources (loaded_classes.h, the classes a capture met).
  void OnClassLoaded(cor::ClassID klass);
  // Appends the classes it looked at (those queued since the last call, each class once in the
  // process's life) to *loaded, if given.
  void Resolve(std::vector<cor::ClassID>* loaded = nullptr);
  // Appends the non-null references the resolved slots hold now (world stopped).
  void Read(std::vector<StaticValue>* out) const;
  // Appends the non-null references each running thread's thread-static slots hold now (inside
  // the collection, after it moved everything).
  void ReadThreadStatics(const ManagedThreads& threads, std::vector<StaticValue>* out) const;
  // Whether some class looked at has thread statics (the threads are worth listing).
  bool has_thread_statics() const { return !thread_classes_.empty(); }
  const std::vector<ClassStatics>& classes() const { return classes_; }

 private:
  void Examine(cor::ClassID klass);
  cor::AppDomainID DomainOf(cor::ModuleID module);

  cor::ICorProfilerInfo10* const info_;
  std::mutex queue_mu_;
  std::vector<cor::ClassID> queue_;  // loaded, not examined yet
  std::vector<ClassStatics> classes_;
  std::vector<size_t> unresolved_;      // classes_ indices with a field still without an address
  std::vector<size_t> thread_classes_;  // classes_ indices with thread statics
  std::unordered_set<cor::ClassID> examined_;  // a class queued twice is looked at once
  ModuleMetadata metadata_;
  std::unordered_map<cor::ModuleID, cor::AppDomainID> domains_;
};

// Whether a field signature (ECMA-335 II.23.2.4: FIELD, custom modifiers, type) declares a
// reference: string, object, class, array, or a generic instantiation of a class.
bool IsReferenceFieldSignature(const uint8_t* sig, size_t bytes);

}  // namespace dotnet
}  // namespace xrpm
