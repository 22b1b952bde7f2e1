// The names the Mono port sends for classes (type tables, class-load events, allocation
// samples): mono_type_get_name's, with the class's own nesting written the reflection way
// (type_names.h: "Ns.Outer`1+Inner<A>"), or, before the runtime has finished initialising (when
// mono_type_get_name cannot run), the class's metadata name in the same form.
//
// Thread-safety: reads class metadata only (accessors that take no lock); callable from any
// thread, also while the world is stopped.
#pragma once

#include <mono/metadata/class.h>

#include <string>

namespace xrpm::mono {

// The class's name (arrays and generic instances included); "<unnamed class>" if Mono has none.
std::string ClassName(MonoClass* klass);

// Namespace.Outer+Inner from the class's metadata alone (no generic arguments).
std::string PlainClassName(MonoClass* klass);

}  // namespace xrpm::mono
