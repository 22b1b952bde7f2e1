// CoreTypes: the mscorlib classes the runtime itself needs (strings, arrays, boxed primitives,
// AppDomain, Assembly, RuntimeType, Thread, the exceptions, WeakReference, delegates, List<T>),
// with the field offsets the runtime and the BCL helpers use.
//
// Thread-safety: a value, filled once when the runtime is constructed.
#pragma once

#include <cstdint>

#include "xrpm/emulator/statics.h"
#include "xrpm/emulator/type_table.h"

namespace xrpm::emulator {

struct CoreTypes {
  TypeIndex object, string, object_array, string_array, int32_array, byte_array, char_array;
  TypeIndex boxed_int32, boxed_single, boxed_boolean;
  TypeIndex app_domain, assembly, runtime_type, thread;
  TypeIndex exception, system_exception, out_of_memory, stack_overflow, execution_engine,
      thread_abort, format_exception, null_reference;
  TypeIndex weak_reference, event_args, random, delegate, multicast_delegate;
  TypeIndex string_builder;

  // Field offsets shared by every instance of the class (and of List`1 / delegate types made by
  // the BCL helpers, which use the same layouts).
  uint16_t app_domain_name, app_domain_assemblies;
  uint16_t assembly_name;
  uint16_t runtime_type_handle;
  uint16_t thread_name, thread_id;
  uint16_t exception_message, exception_stack_trace, exception_hresult;
  uint16_t weak_reference_handle;
  uint16_t random_seed_array;
  uint16_t boxed_value;

  StaticId string_empty, event_args_empty;
};

// System.WeakReference.Finalize: frees the weak GC handle (bcl_weak_reference.cpp).
void FinalizeWeakReference(Runtime& rt, Addr weak_reference);

// Defines the mscorlib types in `types` and their statics in `statics`.
CoreTypes DefineCoreTypes(TypeTable& types, Statics& statics);

}  // namespace xrpm::emulator
