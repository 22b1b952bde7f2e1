#include "xrpm/emulator/core_types.h"

namespace xrpm::emulator {
namespace {
constexpr const char* kCorlib = "mscorlib";
}  // namespace

CoreTypes DefineCoreTypes(TypeTable& t, Statics& statics) {
  using F = FieldType;
  CoreTypes c{};
  c.object = t.DefineClass("System.Object", kCorlib, 0, {});
  c.string = t.DefineString(kCorlib);
  c.object_array = t.DefineRefArray(c.object, kCorlib);
  c.string_array = t.DefineRefArray(c.string, kCorlib);
  c.int32_array = t.DefineArray("System.Int32[]", kCorlib, 4, false);
  c.byte_array = t.DefineArray("System.Byte[]", kCorlib, 1, false);
  c.char_array = t.DefineArray("System.Char[]", kCorlib, 2, false);
  c.boxed_int32 =
      t.DefineClass("System.Int32", kCorlib, 0, {{"m_value", F::kInt32}}, {.value_type = true});
  c.boxed_single =
      t.DefineClass("System.Single", kCorlib, 0, {{"m_value", F::kFloat}}, {.value_type = true});
  c.boxed_boolean =
      t.DefineClass("System.Boolean", kCorlib, 0, {{"m_value", F::kBool}}, {.value_type = true});
  c.boxed_value = t.Offset(c.boxed_int32, "m_value");

  c.app_domain = t.DefineClass("System.AppDomain", kCorlib, 0,
                               {{"_friendlyName", F::kRef},
                                {"_assemblies", F::kRef},
                                {"_unhandledException", F::kRef},
                                {"_id", F::kInt32}});
  c.app_domain_name = t.Offset(c.app_domain, "_friendlyName");
  c.app_domain_assemblies = t.Offset(c.app_domain, "_assemblies");
  c.assembly = t.DefineClass("System.Reflection.Assembly", kCorlib, 0,
                             {{"m_fullName", F::kRef}, {"m_handle", F::kInt32}});
  c.assembly_name = t.Offset(c.assembly, "m_fullName");
  c.runtime_type = t.DefineClass("System.RuntimeType", kCorlib, 0,
                                 {{"m_handle", F::kInt32}, {"m_cache", F::kRef}});
  c.runtime_type_handle = t.Offset(c.runtime_type, "m_handle");
  c.thread = t.DefineClass("System.Threading.Thread", kCorlib, 0,
                           {{"m_Name", F::kRef},
                            {"m_Delegate", F::kRef},
                            {"m_ManagedThreadId", F::kInt32},
                            {"m_Priority", F::kInt32}});
  c.thread_name = t.Offset(c.thread, "m_Name");
  c.thread_id = t.Offset(c.thread, "m_ManagedThreadId");

  c.exception = t.DefineClass("System.Exception", kCorlib, 0,
                              {{"_message", F::kRef},
                               {"_innerException", F::kRef},
                               {"_stackTrace", F::kRef},
                               {"_HResult", F::kInt32}});
  c.exception_message = t.Offset(c.exception, "_message");
  c.exception_stack_trace = t.Offset(c.exception, "_stackTrace");
  c.exception_hresult = t.Offset(c.exception, "_HResult");
  c.system_exception = t.DefineClass("System.SystemException", kCorlib, c.exception, {});
  c.out_of_memory = t.DefineClass("System.OutOfMemoryException", kCorlib, c.system_exception, {});
  c.stack_overflow =
      t.DefineClass("System.StackOverflowException", kCorlib, c.system_exception, {});
  c.execution_engine =
      t.DefineClass("System.ExecutionEngineException", kCorlib, c.system_exception, {});
  c.thread_abort =
      t.DefineClass("System.Threading.ThreadAbortException", kCorlib, c.system_exception, {});
  c.format_exception = t.DefineClass("System.FormatException", kCorlib, c.system_exception, {});
  c.null_reference =
      t.DefineClass("System.NullReferenceException", kCorlib, c.system_exception, {});

  c.weak_reference = t.DefineClass("System.WeakReference", kCorlib, 0,
                                   {{"m_handle", F::kInt32}, {"m_IsLongReference", F::kBool}},
                                   {.finalizable = true, .finalizer = &FinalizeWeakReference});
  c.weak_reference_handle = t.Offset(c.weak_reference, "m_handle");
  c.event_args = t.DefineClass("System.EventArgs", kCorlib, 0, {});
  c.random = t.DefineClass("System.Random", kCorlib, 0,
                           {{"inext", F::kInt32}, {"inextp", F::kInt32}, {"SeedArray", F::kRef}});
  c.random_seed_array = t.Offset(c.random, "SeedArray");
  c.delegate = t.DefineClass("System.Delegate", kCorlib, 0,
                             {{"_target", F::kRef},
                              {"_methodBase", F::kRef},
                              {"_methodPtr", F::kInt32},
                              {"_methodPtrAux", F::kInt32}});
  c.multicast_delegate =
      t.DefineClass("System.MulticastDelegate", kCorlib, c.delegate,
                    {{"_invocationList", F::kRef}, {"_invocationCount", F::kInt32}});
  c.string_builder = t.DefineClass(
      "System.Text.StringBuilder", kCorlib, 0,
      {{"m_StringValue", F::kRef}, {"m_currentThread", F::kInt32}, {"m_MaxCapacity", F::kInt32}});

  c.string_empty = statics.Define(c.string, "Empty");
  c.event_args_empty = statics.Define(c.event_args, "Empty");
  return c;
}

}  // namespace xrpm::emulator
