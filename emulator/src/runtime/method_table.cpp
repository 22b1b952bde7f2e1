#include "xrpm/emulator/method_table.h"

namespace xrpm::emulator {

MethodId MethodTable::Intern(std::string_view name, uint32_t native_bytes) {
  std::string key(name);
  auto it = by_name_.find(key);
  if (it != by_name_.end()) return it->second;
  // A plausible code size when none is given: 24 bytes per character of the name, bounded.
  if (native_bytes == 0) native_bytes = 96 + static_cast<uint32_t>(name.size() % 17) * 24;
  auto id = static_cast<MethodId>(methods_.size());
  methods_.push_back(MethodDesc{key, native_bytes, false});
  by_name_.emplace(std::move(key), id);
  return id;
}

MethodId MethodTable::FromWireId(uint64_t id) const {
  if (id < 0x06000001ull || id - 0x06000001ull >= methods_.size()) return kNoMethod;
  return static_cast<MethodId>(id - 0x06000001ull);
}

}  // namespace xrpm::emulator
