// MethodTable: the managed methods the emulated program runs, and their JIT state.
//
// A method is compiled the first time a frame of it is pushed (MethodFrameScope), which moves
// the JIT counters (Methods Jitted, Native Bytes Jitted) as on a real device. A method's wire
// id, used as the MethodID of frame containers, is a MethodDef-style token 0x06000001 + index.
//
// Thread-safety: none; used by the thread that holds the world.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xrpm::emulator {

using MethodId = uint32_t;
inline constexpr MethodId kNoMethod = 0xFFFFFFFFu;

struct MethodDesc {
  std::string name;       // "Bubbles.Game1.Update"
  uint32_t native_bytes;  // size of the jitted code
  bool jitted = false;
};

class MethodTable {
 public:
  // Returns the method named `name`, defining it on first use.
  MethodId Intern(std::string_view name, uint32_t native_bytes = 0);
  const MethodDesc& operator[](MethodId m) const { return methods_[m]; }
  MethodDesc& operator[](MethodId m) { return methods_[m]; }
  size_t size() const { return methods_.size(); }
  static uint64_t WireId(MethodId m) { return m == kNoMethod ? 0 : 0x06000001ull + m; }
  // The method for a wire id, or kNoMethod.
  MethodId FromWireId(uint64_t id) const;

 private:
  std::vector<MethodDesc> methods_;
  std::unordered_map<std::string, MethodId> by_name_;
};

}  // namespace xrpm::emulator
