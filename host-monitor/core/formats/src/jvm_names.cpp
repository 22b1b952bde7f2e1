#include "xrpm/formats/jvm_names.h"

#include <algorithm>
#include <array>

namespace xrpm::formats {
namespace {

struct Primitive {
  char letter;
  std::string_view name;
};
constexpr std::array<Primitive, 8> kPrimitives{{{'Z', "boolean"},
                                                {'B', "byte"},
                                                {'C', "char"},
                                                {'S', "short"},
                                                {'I', "int"},
                                                {'J', "long"},
                                                {'F', "float"},
                                                {'D', "double"}}};

// Element types of .NET arrays that hold no references (counted as primitive arrays).
constexpr std::array<std::string_view, 14> kDotNetPrimitives{
    "System/Boolean", "System/Byte",   "System/SByte",  "System/Char",   "System/Int16",
    "System/UInt16",  "System/Int32",  "System/UInt32", "System/Int64",  "System/UInt64",
    "System/Single",  "System/Double", "System/IntPtr", "System/UIntPtr"};

// .NET primitive element types -> JVM letter; the first type of each letter is its default.
struct DotNetPrimitive {
  std::string_view name;
  char letter;
};
constexpr std::array<DotNetPrimitive, 14> kDotNetLetters{{{"System.Boolean", 'Z'},
                                                          {"System.Byte", 'B'},
                                                          {"System.SByte", 'B'},
                                                          {"System.Char", 'C'},
                                                          {"System.Int16", 'S'},
                                                          {"System.UInt16", 'S'},
                                                          {"System.Int32", 'I'},
                                                          {"System.UInt32", 'I'},
                                                          {"System.Int64", 'J'},
                                                          {"System.UInt64", 'J'},
                                                          {"System.IntPtr", 'J'},
                                                          {"System.UIntPtr", 'J'},
                                                          {"System.Single", 'F'},
                                                          {"System.Double", 'D'}}};

std::string_view DefaultDotNet(char letter) {
  for (const DotNetPrimitive& p : kDotNetLetters)
    if (p.letter == letter) return p.name;  // the first of each letter
  return {};
}

std::string Replace(std::string_view s, char from, char to) {
  std::string r(s);
  std::replace(r.begin(), r.end(), from, to);
  return r;
}

}  // namespace

std::string ReadableFromJvm(std::string_view sig) {
  size_t dims = 0;
  while (dims < sig.size() && sig[dims] == '[') ++dims;
  if (dims == 0) return Replace(sig, '/', '.');
  std::string_view elem = sig.substr(dims);
  std::string base;
  if (elem.size() == 1) {
    for (const Primitive& p : kPrimitives)
      if (p.letter == elem[0]) base = p.name;
  } else if (elem.size() > 2 && elem.front() == 'L' && elem.back() == ';') {
    base = Replace(elem.substr(1, elem.size() - 2), '/', '.');
  }
  if (base.empty()) return std::string(sig);  // not a valid signature: keep it as it is
  for (size_t i = 0; i < dims; ++i) base += "[]";
  return base;
}

std::string JvmFromReadable(std::string_view name) {
  size_t dims = 0;
  std::string_view base = name;
  while (base.size() > 2 && base.substr(base.size() - 2) == "[]") {
    base.remove_suffix(2);
    ++dims;
  }
  if (dims == 0) return Replace(name, '.', '/');
  std::string sig(dims, '[');
  for (const Primitive& p : kPrimitives) {
    if (p.name == base) return sig + p.letter;
  }
  return sig + 'L' + Replace(base, '.', '/') + ';';
}

std::string JvmFromDotNetPrimitiveArray(std::string_view name, bool* is_default) {
  size_t dims = 0;
  std::string_view base = name;
  while (base.size() > 2 && base.substr(base.size() - 2) == "[]") {
    base.remove_suffix(2);
    ++dims;
  }
  if (dims == 0) return {};
  for (const DotNetPrimitive& p : kDotNetLetters) {
    if (p.name != base) continue;
    if (is_default) *is_default = DefaultDotNet(p.letter) == base;
    return std::string(dims, '[') + p.letter;
  }
  return {};
}

std::string DotNetFromJvm(std::string_view sig) {
  size_t dims = 0;
  while (dims < sig.size() && sig[dims] == '[') ++dims;
  if (dims > 0 && sig.size() == dims + 1) {
    const std::string_view base = DefaultDotNet(sig[dims]);
    if (!base.empty()) {
      std::string r(base);
      for (size_t i = 0; i < dims; ++i) r += "[]";
      return r;
    }
  }
  return ReadableFromJvm(sig);
}

JvmShape ClassifyJvm(std::string_view sig) {
  if (sig.empty() || sig[0] != '[') return JvmShape::kObject;
  std::string_view elem = sig.substr(1);
  if (elem.size() == 1) {
    for (const Primitive& p : kPrimitives)
      if (p.letter == elem[0]) return JvmShape::kPrimitiveArray;
  }
  if (elem.size() > 2 && elem.front() == 'L' && elem.back() == ';') {
    std::string_view cls = elem.substr(1, elem.size() - 2);
    for (std::string_view p : kDotNetPrimitives)
      if (p == cls) return JvmShape::kPrimitiveArray;
  }
  return JvmShape::kObjectArray;
}

}  // namespace xrpm::formats
