// The names the Mono port gives classes. mono_type_get_name writes the IL form: namespaces,
// generic arguments in C# brackets, and nested classes joined by '.' with no arity marks
// ("System.Collections.Generic.Dictionary.Entry<System.String,System.Int32>"). The runtime's
// reflection joins them with '+' ("Dictionary`2+Entry"); from the '.' alone the host cannot
// tell a nested class from a namespace. ReflectionNesting rewrites the class's own nesting
// chain, which the port knows from the class, the reflection way, keeping the outer classes'
// arity marks so the host's canonical name (host-monitor/core/model/.../type_name.h) gives each
// segment its arguments: "System.Collections.Generic.Dictionary`2+Entry<System.String,
// System.Int32>" -> "System.Collections.Generic.Dictionary<System.String, System.Int32>+Entry",
// the same as the NETCF and emulator names of that type. Nested classes among the generic
// arguments keep Mono's '.' (the port cannot see into an instantiation with the public API).
//
// Complexity: O(length of the name). Thread-safety: pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace xrpm::mono {

// `il_name`: what mono_type_get_name wrote for a class (or an array of it); `ns`: the outermost
// class's namespace; `chain`: the class names from the outermost to the class itself, as
// mono_class_get_name gives them (with their arity marks, "Dictionary`2"). Returns `il_name`
// unchanged when the chain has one class or the name does not start with the chain's IL form.
inline std::string ReflectionNesting(std::string_view il_name, std::string_view ns,
                                     const std::vector<std::string_view>& chain) {
  if (chain.size() < 2) return std::string(il_name);
  auto bare = [](std::string_view n) { return n.substr(0, n.find('`')); };
  std::string il, reflection;
  if (!ns.empty()) {
    il.append(ns).push_back('.');
    reflection.append(ns).push_back('.');
  }
  for (size_t i = 0; i < chain.size(); ++i) {
    if (i) {
      il.push_back('.');
      reflection.push_back('+');
    }
    il.append(bare(chain[i]));
    reflection.append(chain[i]);
  }
  if (il_name.substr(0, il.size()) != il) return std::string(il_name);
  const std::string_view rest = il_name.substr(il.size());
  if (!rest.empty() && rest[0] != '<' && rest[0] != '[' && rest[0] != '*' && rest[0] != '&')
    return std::string(il_name);
  return reflection.append(rest);
}

}  // namespace xrpm::mono
