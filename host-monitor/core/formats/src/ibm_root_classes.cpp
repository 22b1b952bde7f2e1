#include "ibm_root_classes.h"

#include <charconv>

#include "xrpm/model/snapshot.h"

namespace xrpm::formats {
namespace {
constexpr std::string_view kPrefix = "xrpm/roots/";
// Bits 0-3 (snapshot.h): kRootPinned, kRootWeak, kRootInterior, kRootConservative.
constexpr std::string_view kFlagNames[] = {"pinned", "weak", "interior", "conservative"};
constexpr int kNamedFlags = 4;

std::string KindName(uint8_t kind) {
  if (kind < kRootKindCount) return std::string(RootKindName(static_cast<RootKind>(kind)));
  return "kind" + std::to_string(kind);
}
}  // namespace

std::string RootClassName(uint8_t kind, uint8_t flags) {
  std::string s(kPrefix);
  s += KindName(kind);
  for (int bit = 0; bit < kNamedFlags; ++bit)
    if (flags & (1u << bit)) (s += '$') += kFlagNames[bit];
  if (uint8_t other = flags & ~kRootKnownFlags) {
    char buf[4];
    auto r = std::to_chars(buf, buf + sizeof buf, other, 16);
    (s += "$0x").append(buf, r.ptr);
  }
  return s;
}

bool ParseRootClassName(std::string_view name, uint8_t* kind, uint8_t* flags) {
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  name.remove_prefix(kPrefix.size());
  size_t dollar = name.find('$');
  std::string_view k = name.substr(0, dollar);
  bool found = false;
  for (int i = 0; i < kRootKindCount && !found; ++i) {
    if (k == RootKindName(static_cast<RootKind>(i))) {
      *kind = static_cast<uint8_t>(i);
      found = true;
    }
  }
  if (!found && k.substr(0, 4) == "kind") {
    unsigned v = 0;
    auto r = std::from_chars(k.data() + 4, k.data() + k.size(), v, 10);
    // Only the kinds a Snapshot can hold (0-5): "kind6" is an ordinary class name (fuzz
    // finding: a root of kind 6 broke the Snapshot invariant).
    if (r.ec != std::errc() || r.ptr != k.data() + k.size() || v >= kRootKindCount || k.size() == 4)
      return false;
    *kind = static_cast<uint8_t>(v);
    found = true;
  }
  if (!found) return false;
  *flags = 0;
  while (dollar != std::string_view::npos) {
    name.remove_prefix(dollar + 1);
    dollar = name.find('$');
    std::string_view f = name.substr(0, dollar);
    bool known = false;
    for (int bit = 0; bit < kNamedFlags; ++bit) {
      if (f == kFlagNames[bit]) {
        *flags |= static_cast<uint8_t>(1u << bit);
        known = true;
      }
    }
    if (!known) {
      unsigned v = 0;
      if (f.substr(0, 2) != "0x" || f.size() == 2) return false;
      auto r = std::from_chars(f.data() + 2, f.data() + f.size(), v, 16);
      if (r.ec != std::errc() || r.ptr != f.data() + f.size() || v > 255) return false;
      *flags |= static_cast<uint8_t>(v);
    }
  }
  return true;
}

}  // namespace xrpm::formats
