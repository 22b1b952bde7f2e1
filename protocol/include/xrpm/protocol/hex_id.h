// HexId: an object's id (its address) as error messages and logs name it: "0x" and lowercase
// hex digits without leading zeros ("0x7f31a8c01010"). Shared by the agent, the protocol's
// checkers and the tools that compare captures, so that one object reads the same everywhere.
//
// Thread-safety: a pure function. Plain C++17 (the device agent uses it).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace xrpm {
namespace protocol {

inline std::string HexId(uint64_t id) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(id));
  return text;
}

}  // namespace protocol
}  // namespace xrpm
