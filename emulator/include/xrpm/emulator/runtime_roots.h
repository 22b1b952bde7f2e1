// RuntimeRoots: roots the runtime itself holds, outside any thread, class or handle:
//   internal (descriptor 0): the AppDomain, Assembly objects, the preallocated exceptions, the
//     System.Threading.Thread objects;
//   GC-specific (descriptor 5): interned string literals and class descriptions
//     (System.RuntimeType objects created by typeof / GetType()).
//
// Thread-safety: none; used by the thread that holds the world.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "xrpm/emulator/object_model.h"

namespace xrpm::emulator {

class RuntimeRoots {
 public:
  // Adds an internal root; returns its slot index (stable).
  size_t AddInternal(Addr obj) {
    internal_.push_back(obj);
    return internal_.size() - 1;
  }
  std::vector<Addr>& internal() { return internal_; }
  std::vector<Addr>& gc_specific() { return gc_specific_; }

  // The interned string's slot in gc_specific(), or -1.
  long FindInterned(std::string_view s) const;
  size_t AddInterned(std::string_view s, Addr str);
  long FindTypeObject(TypeIndex t) const;
  size_t AddTypeObject(TypeIndex t, Addr obj);

 private:
  std::vector<Addr> internal_;
  std::vector<Addr> gc_specific_;
  std::unordered_map<std::string, size_t> interned_;
  std::unordered_map<TypeIndex, size_t> type_objects_;
};

}  // namespace xrpm::emulator
