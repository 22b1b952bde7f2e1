// Class names for the wire (class_names.h).
#include "class_names.h"

#include <mono/metadata/metadata.h>

#include <vector>

#include "type_names.h"

namespace xrpm::mono {
namespace {

// The element class of an array (of arrays ...), else the class itself.
MonoClass* Innermost(MonoClass* klass) {
  for (int guard = 0; guard < 64 && mono_class_get_rank(klass) > 0; ++guard) {
    MonoClass* e = mono_class_get_element_class(klass);
    if (!e || e == klass) break;
    klass = e;
  }
  return klass;
}

// The nesting chain of a class, outermost first, and the outermost's namespace.
std::vector<std::string_view> Chain(MonoClass* klass, std::string_view* ns) {
  std::vector<std::string_view> chain;
  MonoClass* outer = klass;
  for (MonoClass* c = klass; c && chain.size() < 64; c = mono_class_get_nesting_type(c)) {
    const char* n = mono_class_get_name(c);
    chain.insert(chain.begin(), n ? n : "");
    outer = c;
  }
  const char* space = mono_class_get_namespace(outer);
  *ns = space ? space : "";
  return chain;
}

}  // namespace

std::string ClassName(MonoClass* klass) {
  char* n = mono_type_get_name(mono_class_get_type(klass));
  if (!n) return "<unnamed class>";
  std::string il = n;
  mono_free(n);
  std::string_view ns;
  const std::vector<std::string_view> chain = Chain(Innermost(klass), &ns);
  return ReflectionNesting(il, ns, chain);
}

std::string PlainClassName(MonoClass* klass) {
  std::string_view ns;
  const std::vector<std::string_view> chain = Chain(klass, &ns);
  std::string name(ns);
  if (!name.empty()) name += '.';
  for (size_t i = 0; i < chain.size(); ++i) {
    if (i) name += '+';
    name.append(chain[i]);
  }
  return name;
}

}  // namespace xrpm::mono
