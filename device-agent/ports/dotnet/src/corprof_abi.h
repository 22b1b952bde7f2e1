// The CoreCLR profiling API as the .NET port uses it, declared here from its documented ABI
// (the runtime's corprof.idl and cor.h, as of .NET 10.0; every interface below has kept its
// layout since the version that introduced it): COM interfaces on Linux are C++ classes with
// single inheritance, no virtual destructor and one vtable whose slots follow the declaration
// order, methods returning a 32-bit HRESULT; WCHAR is a 16-bit UTF-16 unit.
//
// Only the methods the port calls or implements are declared with their signatures. Every other
// slot is a placeholder that keeps the slots after it where the runtime expects them:
//   XRPM_COR_UNUSED(Name)   a method of a runtime-implemented interface we never call
//   XRPM_COR_IGNORED(Name)  a callback the runtime may call that we ignore: it returns S_OK and
//                           takes no parameters (on the SysV x86-64 and AArch64 calling
//                           conventions the caller owns its arguments, so ignoring them is safe);
//                           callbacks with out-parameters are only called for events the port
//                           never enables
// Placeholders are named after the documented method they stand for.
//
// Thread-safety: declarations only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace xrpm {
namespace dotnet {
namespace cor {

using HRESULT = int32_t;
using ULONG = uint32_t;
using DWORD = uint32_t;
using BOOL = int32_t;
using USHORT = uint16_t;
using WCHAR = char16_t;
using UINT_PTR = uintptr_t;
using ObjectID = uintptr_t;
using ClassID = uintptr_t;
using ModuleID = uintptr_t;
using FunctionID = uintptr_t;
using AppDomainID = uintptr_t;
using ThreadID = uintptr_t;
using mdToken = uint32_t;
using CorElementType = uint32_t;

constexpr HRESULT S_OK = 0;
constexpr HRESULT S_FALSE = 1;
constexpr HRESULT E_NOINTERFACE = static_cast<HRESULT>(0x80004002u);
constexpr HRESULT E_POINTER = static_cast<HRESULT>(0x80004003u);
constexpr HRESULT E_FAIL = static_cast<HRESULT>(0x80004005u);
constexpr HRESULT E_OUTOFMEMORY = static_cast<HRESULT>(0x8007000Eu);
constexpr HRESULT CLASS_E_NOAGGREGATION = static_cast<HRESULT>(0x80040110u);
constexpr HRESULT CLASS_E_CLASSNOTAVAILABLE = static_cast<HRESULT>(0x80040111u);
// A profiler call the runtime cannot serve until it has fully started.
constexpr HRESULT CORPROF_E_RUNTIME_UNINITIALIZED = static_cast<HRESULT>(0x80131371u);
// InitializeForAttach's refusal: the profiler does not attach (ours: it said why).
constexpr HRESULT CORPROF_E_PROFILER_NOT_ATTACHABLE = static_cast<HRESULT>(0x80131368u);
// Initialize's answer when the profiler should not run in this process: the runtime releases it
// and runs the program without a profiler, logging nothing.
constexpr HRESULT CORPROF_E_PROFILER_CANCEL_ACTIVATION = static_cast<HRESULT>(0x80131375u);
constexpr bool Failed(HRESULT hr) {
  return hr < 0;
}
// An HRESULT as messages show it ("0x80131363").
inline std::string HexText(HRESULT hr) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(hr));
  return buf;
}

struct GUID {
  uint32_t data1;
  uint16_t data2;
  uint16_t data3;
  uint8_t data4[8];
};
inline bool operator==(const GUID& a, const GUID& b) {
  if (a.data1 != b.data1 || a.data2 != b.data2 || a.data3 != b.data3) return false;
  for (int i = 0; i < 8; ++i)
    if (a.data4[i] != b.data4[i]) return false;
  return true;
}

constexpr GUID kIID_IUnknown = {0x00000000, 0x0000, 0x0000, {0xC0, 0, 0, 0, 0, 0, 0, 0x46}};
constexpr GUID kIID_IClassFactory = {0x00000001, 0x0000, 0x0000, {0xC0, 0, 0, 0, 0, 0, 0, 0x46}};
constexpr GUID kIID_ICorProfilerCallback = {
    0x176FBED1, 0xA55C, 0x4796, {0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7}};
constexpr GUID kIID_ICorProfilerCallback2 = {
    0x8A8CC829, 0xCCF2, 0x49FE, {0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A}};
constexpr GUID kIID_ICorProfilerCallback3 = {
    0x4FD2ED52, 0x7731, 0x4B8D, {0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5}};
constexpr GUID kIID_ICorProfilerCallback4 = {
    0x7B63B2E3, 0x107D, 0x4D48, {0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2}};
constexpr GUID kIID_ICorProfilerCallback5 = {
    0x8DFBA405, 0x8C9F, 0x45F8, {0xBF, 0xFA, 0x83, 0xB1, 0x4C, 0xEF, 0x78, 0xB5}};
constexpr GUID kIID_ICorProfilerCallback6 = {
    0xFC13DF4B, 0x4448, 0x4F4F, {0x95, 0x0C, 0xBA, 0x8D, 0x19, 0xD0, 0x0C, 0x36}};
constexpr GUID kIID_ICorProfilerCallback7 = {
    0xF76A2DBA, 0x1D52, 0x4539, {0x86, 0x6C, 0x2A, 0xA5, 0x18, 0xF9, 0xEF, 0xC3}};
constexpr GUID kIID_ICorProfilerCallback8 = {
    0x5BED9B15, 0xC079, 0x4D47, {0xBF, 0xE2, 0x21, 0x5A, 0x14, 0x0C, 0x07, 0xE0}};
constexpr GUID kIID_ICorProfilerCallback9 = {
    0x27583EC3, 0xC8F5, 0x482F, {0x80, 0x52, 0x19, 0x4B, 0x8C, 0xE4, 0x70, 0x5A}};
constexpr GUID kIID_ICorProfilerCallback10 = {
    0xCEC5B60E, 0xC69C, 0x495F, {0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB}};
constexpr GUID kIID_ICorProfilerInfo10 = {
    0x2F1B5152, 0xC869, 0x40C9, {0xAA, 0x5F, 0x3A, 0xBE, 0x02, 0x6B, 0xD7, 0x20}};
constexpr GUID kIID_ICorProfilerInfo12 = {
    0x27B24CCD, 0x1CB1, 0x47C5, {0x96, 0xEE, 0x98, 0x19, 0x0D, 0xC3, 0x09, 0x59}};
constexpr GUID kIID_IMetaDataImport = {
    0x7DAC8207, 0xD3AE, 0x4C75, {0x9B, 0x67, 0x92, 0x80, 0x1A, 0x49, 0x7D, 0x44}};
constexpr GUID kIID_IMetaDataEmit = {
    0xBA3FEE4C, 0xECB9, 0x4E41, {0x83, 0xB7, 0x18, 0x3F, 0xA4, 0x1C, 0xD8, 0x59}};

// COR_PRF_MONITOR (SetEventMask2's low word) and COR_PRF_HIGH_MONITOR (its high word).
constexpr DWORD kMonitorNone = 0x0;
constexpr DWORD kMonitorModuleLoads = 0x4;        // ModuleLoadStarted/Finished, ...
constexpr DWORD kMonitorClassLoads = 0x2;         // ClassLoadStarted/Finished
constexpr DWORD kMonitorGc = 0x80;                // GC callbacks, the heap walk (ObjectReferences)
constexpr DWORD kMonitorObjectAllocated = 0x100;  // ObjectAllocated (needs the next bit)
constexpr DWORD kMonitorThreads = 0x200;          // ThreadCreated/Destroyed, ThreadNameChanged
// The enter/leave hooks (start-up only). Also turns ReadyToRun code off in every module loaded
// after it (the runtime then needs "profile images"): all of the base library is JIT-compiled.
constexpr DWORD kMonitorEnterLeave = 0x1000;
// RequestReJIT may be called (allowed after an attach too); ReadyToRun code stays in use.
constexpr DWORD kEnableRejit = 0x40000;
// May ask for ObjectAllocated (start-up only; immutable: every later mask keeps it).
constexpr DWORD kEnableObjectAllocated = 0x800000;
constexpr DWORD kEnableStackSnapshot = 0x10000000;  // DoStackSnapshot may be called
constexpr DWORD kHighBasicGc = 0x10;                // GarbageCollectionStarted/Finished only
// With kHighBasicGc: MovedReferences2 for compacting collections (allowed after an attach too).
constexpr DWORD kHighMonitorGcMovedObjects = 0x20;
// EventPipeEventDelivered for the profiler's own EventPipe sessions (allowed after an attach too).
constexpr DWORD kHighMonitorEventPipe = 0x80;
constexpr DWORD kOpenForRead = 0x0;   // GetModuleMetaData: ofRead
constexpr DWORD kOpenForWrite = 0x1;  // GetModuleMetaData: ofWrite (IMetaDataEmit)

// COR_PRF_STATIC_TYPE.
constexpr DWORD kAppDomainStatic = 0x1;
constexpr DWORD kThreadStatic = 0x2;  // [ThreadStatic]: one slot per thread
// CorFieldAttr bits (GetFieldProps).
constexpr DWORD kFieldStatic = 0x0010;
constexpr DWORD kFieldLiteral = 0x0040;
constexpr DWORD kFieldHasRva = 0x0100;
// Metadata token kinds (the top byte).
constexpr mdToken kTokenTypeDef = 0x02000000;
constexpr mdToken kTokenTypeRef = 0x01000000;

// COR_PRF_GC_ROOT_KIND and COR_PRF_GC_ROOT_FLAGS (RootReferences2).
enum GcRootKind : int32_t { kRootOther = 0, kRootStack = 1, kRootFinalizer = 2, kRootHandle = 3 };
enum GcRootFlags : int32_t {
  kRootPinning = 0x1,
  kRootWeakRef = 0x2,
  kRootInterior = 0x4,
  kRootRefCounted = 0x8
};
// COR_PRF_GC_GENERATION: 0, 1, 2, 3 large object heap, 4 pinned object heap.
struct GcGenerationRange {  // COR_PRF_GC_GENERATION_RANGE
  int32_t generation;
  ObjectID range_start;
  UINT_PTR range_length;
  UINT_PTR range_length_reserved;
};
constexpr int32_t kGcInduced = 1;  // COR_PRF_GC_REASON
// COR_FIELD_OFFSET (GetClassLayout).
struct FieldOffset {
  mdToken field;
  ULONG offset;
};

class IUnknown {
 public:
  virtual HRESULT QueryInterface(const GUID& riid, void** object) = 0;
  virtual ULONG AddRef() = 0;
  virtual ULONG Release() = 0;
};

class IClassFactory : public IUnknown {
 public:
  virtual HRESULT CreateInstance(IUnknown* outer, const GUID& riid, void** object) = 0;
  virtual HRESULT LockServer(BOOL lock) = 0;
};

#define XRPM_COR_UNUSED(name) virtual HRESULT name() = 0;
#define XRPM_COR_IGNORED(name) \
  virtual HRESULT name() {     \
    return S_OK;               \
  }

// ICorProfilerCallback (slots 3..71) and ICorProfilerCallback2 (72..79); 3 below.
class ICorProfilerCallback2 : public IUnknown {
 public:
  virtual HRESULT Initialize(IUnknown* info) = 0;
  virtual HRESULT Shutdown() = 0;
  XRPM_COR_IGNORED(AppDomainCreationStarted)
  XRPM_COR_IGNORED(AppDomainCreationFinished)
  XRPM_COR_IGNORED(AppDomainShutdownStarted)
  XRPM_COR_IGNORED(AppDomainShutdownFinished)
  XRPM_COR_IGNORED(AssemblyLoadStarted)
  XRPM_COR_IGNORED(AssemblyLoadFinished)
  XRPM_COR_IGNORED(AssemblyUnloadStarted)
  XRPM_COR_IGNORED(AssemblyUnloadFinished)
  XRPM_COR_IGNORED(ModuleLoadStarted)
  // A module finished loading (kMonitorModuleLoads); status: the load's HRESULT.
  virtual HRESULT ModuleLoadFinished(ModuleID module, HRESULT status) = 0;
  XRPM_COR_IGNORED(ModuleUnloadStarted)
  XRPM_COR_IGNORED(ModuleUnloadFinished)
  XRPM_COR_IGNORED(ModuleAttachedToAssembly)
  XRPM_COR_IGNORED(ClassLoadStarted)
  // A class was loaded (COR_PRF_MONITOR_CLASS_LOADS); status: the load's HRESULT.
  virtual HRESULT ClassLoadFinished(ClassID klass, HRESULT status) = 0;
  XRPM_COR_IGNORED(ClassUnloadStarted)
  XRPM_COR_IGNORED(ClassUnloadFinished)
  XRPM_COR_IGNORED(FunctionUnloadStarted)
  XRPM_COR_IGNORED(JITCompilationStarted)
  XRPM_COR_IGNORED(JITCompilationFinished)
  XRPM_COR_IGNORED(JITCachedFunctionSearchStarted)
  XRPM_COR_IGNORED(JITCachedFunctionSearchFinished)
  XRPM_COR_IGNORED(JITFunctionPitched)
  XRPM_COR_IGNORED(JITInlining)
  XRPM_COR_IGNORED(ThreadCreated)
  // A managed thread ends (kMonitorThreads); its ThreadID is not valid after the call.
  virtual HRESULT ThreadDestroyed(ThreadID thread) = 0;
  XRPM_COR_IGNORED(ThreadAssignedToOSThread)
  XRPM_COR_IGNORED(RemotingClientInvocationStarted)
  XRPM_COR_IGNORED(RemotingClientSendingMessage)
  XRPM_COR_IGNORED(RemotingClientReceivingReply)
  XRPM_COR_IGNORED(RemotingClientInvocationFinished)
  XRPM_COR_IGNORED(RemotingServerReceivingMessage)
  XRPM_COR_IGNORED(RemotingServerInvocationStarted)
  XRPM_COR_IGNORED(RemotingServerInvocationReturned)
  XRPM_COR_IGNORED(RemotingServerSendingReply)
  XRPM_COR_IGNORED(UnmanagedToManagedTransition)
  XRPM_COR_IGNORED(ManagedToUnmanagedTransition)
  XRPM_COR_IGNORED(RuntimeSuspendStarted)
  XRPM_COR_IGNORED(RuntimeSuspendFinished)
  XRPM_COR_IGNORED(RuntimeSuspendAborted)
  XRPM_COR_IGNORED(RuntimeResumeStarted)
  XRPM_COR_IGNORED(RuntimeResumeFinished)
  XRPM_COR_IGNORED(RuntimeThreadSuspended)
  XRPM_COR_IGNORED(RuntimeThreadResumed)
  XRPM_COR_IGNORED(MovedReferences)
  // An object was allocated (kMonitorObjectAllocated), on the allocating thread, before the
  // constructor ran: its id and class.
  virtual HRESULT ObjectAllocated(ObjectID object, ClassID klass) = 0;
  XRPM_COR_IGNORED(ObjectsAllocatedByClass)
  // One live object after a collection and the objects it references (COR_PRF_MONITOR_GC).
  virtual HRESULT ObjectReferences(ObjectID object, ClassID klass, ULONG ref_count,
                                   ObjectID refs[]) = 0;
  XRPM_COR_IGNORED(RootReferences)
  XRPM_COR_IGNORED(ExceptionThrown)
  XRPM_COR_IGNORED(ExceptionSearchFunctionEnter)
  XRPM_COR_IGNORED(ExceptionSearchFunctionLeave)
  XRPM_COR_IGNORED(ExceptionSearchFilterEnter)
  XRPM_COR_IGNORED(ExceptionSearchFilterLeave)
  XRPM_COR_IGNORED(ExceptionSearchCatcherFound)
  XRPM_COR_IGNORED(ExceptionOSHandlerEnter)
  XRPM_COR_IGNORED(ExceptionOSHandlerLeave)
  XRPM_COR_IGNORED(ExceptionUnwindFunctionEnter)
  XRPM_COR_IGNORED(ExceptionUnwindFunctionLeave)
  XRPM_COR_IGNORED(ExceptionUnwindFinallyEnter)
  XRPM_COR_IGNORED(ExceptionUnwindFinallyLeave)
  XRPM_COR_IGNORED(ExceptionCatcherEnter)
  XRPM_COR_IGNORED(ExceptionCatcherLeave)
  XRPM_COR_IGNORED(COMClassicVTableCreated)
  XRPM_COR_IGNORED(COMClassicVTableDestroyed)
  XRPM_COR_IGNORED(ExceptionCLRCatcherFound)
  XRPM_COR_IGNORED(ExceptionCLRCatcherExecute)
  // ---- ICorProfilerCallback2 ----
  // A managed thread's name was set (kMonitorThreads): `length` UTF-16 units, no terminator.
  virtual HRESULT ThreadNameChanged(ThreadID thread, ULONG length, WCHAR name[]) = 0;
  // generation_collected[g] for g in COR_PRF_GC_GENERATION; reason: kGcInduced or 0.
  virtual HRESULT GarbageCollectionStarted(int32_t generation_count, BOOL generation_collected[],
                                           int32_t reason) = 0;
  XRPM_COR_IGNORED(SurvivingReferences)
  virtual HRESULT GarbageCollectionFinished() = 0;
  XRPM_COR_IGNORED(FinalizeableObjectQueued)
  // Roots after a collection: per root its object (0: null), kind, flags and id (stack: the
  // FunctionID, 0 when unknown; handle: the handle; else opaque).
  virtual HRESULT RootReferences2(ULONG count, ObjectID objects[], GcRootKind kinds[],
                                  GcRootFlags flags[], UINT_PTR ids[]) = 0;
  XRPM_COR_IGNORED(HandleCreated)
  XRPM_COR_IGNORED(HandleDestroyed)
};

// ICorProfilerCallback3 (slots 80..82): loading into a running process (attach).
class ICorProfilerCallback3 : public ICorProfilerCallback2 {
 public:
  // Instead of Initialize when the profiler is attached: client_data is what the attaching
  // client sent (valid during the call only). A failure HRESULT is answered to that client and
  // the runtime unloads the profiler.
  virtual HRESULT InitializeForAttach(IUnknown* info, void* client_data, ULONG client_bytes) = 0;
  // After InitializeForAttach: the profiler may now enumerate what was loaded before it
  // (EnumModules, EnumJITedFunctions) without missing a later load's callback.
  virtual HRESULT ProfilerAttachComplete() = 0;
  XRPM_COR_IGNORED(ProfilerDetachSucceeded)
};

// ICorProfilerCallback4 (83..88), 5 (89), 6 (90), 7 (91), 8 (92..93), 9 (94) and
// ICorProfilerCallback10 (95..96): EventPipe events of the profiler's own sessions. Callback4's
// MovedReferences2/SurvivingReferences2 are called (with GC monitoring) before the version-1
// callbacks, which follow when they succeed: the version-1 ones are ignored (S_OK), so each
// range is seen once. GetAssemblyReferences is never called on CoreCLR.
using EventPipeProvider = UINT_PTR;  // EVENTPIPE_PROVIDER
using EventPipeSession = uint64_t;   // EVENTPIPE_SESSION
class ICorProfilerFunctionControl;
class ICorProfilerCallback10 : public ICorProfilerCallback3 {
 public:
  XRPM_COR_IGNORED(ReJITCompilationStarted)
  // A method RequestReJIT named is about to be compiled again: `control` takes its new body.
  virtual HRESULT GetReJITParameters(ModuleID module, mdToken method,
                                     ICorProfilerFunctionControl* control) = 0;
  XRPM_COR_IGNORED(ReJITCompilationFinished)
  // A ReJIT request failed for a method (function: 0 when it failed for every instantiation).
  virtual HRESULT ReJITError(ModuleID module, mdToken method, FunctionID function,
                             HRESULT status) = 0;
  // The survivors of a compacting collection's condemned generations: objects in
  // [from[i], from[i] + lengths[i]) now start at to[i] + their offset (COR_PRF_MONITOR_GC).
  virtual HRESULT MovedReferences2(ULONG count, ObjectID from[], ObjectID to[],
                                   size_t lengths[]) = 0;
  // The survivors of a sweeping (non-compacting) collection's condemned generations: objects in
  // [starts[i], starts[i] + lengths[i]) stayed in place.
  virtual HRESULT SurvivingReferences2(ULONG count, ObjectID starts[], size_t lengths[]) = 0;
  // ---- 5 .. 9 ----
  XRPM_COR_IGNORED(ConditionalWeakTableElementReferences)
  XRPM_COR_IGNORED(GetAssemblyReferences)
  XRPM_COR_IGNORED(ModuleInMemorySymbolsUpdated)
  XRPM_COR_IGNORED(DynamicMethodJITCompilationStarted)
  XRPM_COR_IGNORED(DynamicMethodJITCompilationFinished)
  XRPM_COR_IGNORED(DynamicMethodUnloaded)
  // ---- 10 ----
  // An event of a session the profiler started (EventPipeStartSession), on the thread that wrote
  // it: its provider, id and version, the provider's metadata, the payload, the activity ids
  // (or null), the writing thread and its managed stack as instruction pointers, innermost
  // first. Every pointer is valid during the call only.
  virtual HRESULT EventPipeEventDelivered(EventPipeProvider provider, DWORD event_id,
                                          DWORD event_version, ULONG metadata_bytes,
                                          const uint8_t* metadata, ULONG data_bytes,
                                          const uint8_t* data, const GUID* activity,
                                          const GUID* related_activity, ThreadID thread,
                                          ULONG frame_count, UINT_PTR frames[]) = 0;
  XRPM_COR_IGNORED(EventPipeProviderCreated)
};

// The enter/leave hooks of SetEnterLeaveFunctionHooks2 (FunctionEnter2, FunctionLeave2,
// FunctionTailcall2): the function, what the function ID mapper returned for it, an opaque frame
// and argument (enter) or return value (leave) information we do not ask for. The runtime calls
// them through its own register-saving stub, as plain functions, with the thread in cooperative
// mode: a hook that blocks blocks every collection. (The version-3 hooks are called from the
// compiled code without that stub: they would have to save the registers themselves.)
using FunctionEnterLeave2 = void (*)(FunctionID function, UINT_PTR client_id, void* frame,
                                     void* info);
using FunctionTailcall2 = void (*)(FunctionID function, UINT_PTR client_id, void* frame);
// DoStackSnapshot's per-frame callback: a managed frame's function (0 for a run of native frames),
// its instruction pointer, an opaque frame info and the register context we do not ask for.
// S_OK goes on to the next frame; a failure HRESULT stops the walk (DoStackSnapshot then returns
// an error, the frames reported so far stand).
using StackSnapshotCallback = HRESULT (*)(FunctionID function, UINT_PTR ip, UINT_PTR frame_info,
                                          ULONG context_size, uint8_t context[], void* client);
constexpr ULONG kSnapshotDefault = 0;  // COR_PRF_SNAPSHOT_DEFAULT: no register context
// The function ID mapper (SetFunctionIDMapper2): called once per function before it is
// compiled; *hook = FALSE keeps the hooks out of that function.
using FunctionIdMapper2 = UINT_PTR (*)(FunctionID function, void* client_data, BOOL* hook);

// COR_PRF_FUNCTION and ICorProfilerFunctionEnum (corprof.idl): the runtime's enumerator of
// compiled functions.
struct PrfFunction {
  FunctionID function;
  UINT_PTR rejit_id;
};
class ICorProfilerFunctionEnum : public IUnknown {
 public:
  XRPM_COR_UNUSED(Skip)
  XRPM_COR_UNUSED(Reset)
  XRPM_COR_UNUSED(Clone)
  XRPM_COR_UNUSED(GetCount)
  // Up to `capacity` more functions; S_FALSE when fewer were left.
  virtual HRESULT Next(ULONG capacity, PrfFunction functions[], ULONG* fetched) = 0;
};

// ICorProfilerModuleEnum (corprof.idl): the runtime's enumerator of loaded modules.
class ICorProfilerModuleEnum : public IUnknown {
 public:
  XRPM_COR_UNUSED(Skip)
  XRPM_COR_UNUSED(Reset)
  XRPM_COR_UNUSED(Clone)
  XRPM_COR_UNUSED(GetCount)
  // Up to `capacity` more modules; S_FALSE when fewer were left.
  virtual HRESULT Next(ULONG capacity, ModuleID modules[], ULONG* fetched) = 0;
};

// ICorProfilerFunctionControl (corprof.idl): what GetReJITParameters sets for the new code.
class ICorProfilerFunctionControl : public IUnknown {
 public:
  XRPM_COR_UNUSED(SetCodegenFlags)
  // The method's new body (header, code, sections); the runtime copies it.
  virtual HRESULT SetILFunctionBody(ULONG bytes, const uint8_t* body) = 0;
  XRPM_COR_UNUSED(SetILInstrumentedCodeMap)
};

// ICorProfilerThreadEnum (corprof.idl): the runtime's enumerator of managed threads.
class ICorProfilerThreadEnum : public IUnknown {
 public:
  XRPM_COR_UNUSED(Skip)
  XRPM_COR_UNUSED(Reset)
  XRPM_COR_UNUSED(Clone)
  XRPM_COR_UNUSED(GetCount)
  // Up to `capacity` more threads; S_FALSE when fewer were left.
  virtual HRESULT Next(ULONG capacity, ThreadID threads[], ULONG* fetched) = 0;
};

// ICorProfilerInfo (3..35), 2 (36..56), 3 (57..70), 4 (71..80), 5 (81..82), 6 (83),
// 7 (84..86), 8 (87..89), 9 (90..92), 10 (93..98).
class ICorProfilerInfo10 : public IUnknown {
 public:
  virtual HRESULT GetClassFromObject(ObjectID object, ClassID* klass) = 0;
  XRPM_COR_UNUSED(GetClassFromToken)
  XRPM_COR_UNUSED(GetCodeInfo)
  XRPM_COR_UNUSED(GetEventMask)
  // The function whose compiled code holds `ip` (managed code only: fails elsewhere).
  virtual HRESULT GetFunctionFromIP(const uint8_t* ip, FunctionID* function) = 0;
  XRPM_COR_UNUSED(GetFunctionFromToken)
  XRPM_COR_UNUSED(GetHandleFromThread)
  XRPM_COR_UNUSED(GetObjectSize)
  // S_OK for an array class: its element type, the element's class (0 for some primitives) and
  // rank; S_FALSE otherwise.
  virtual HRESULT IsArrayClass(ClassID klass, CorElementType* element_type, ClassID* element_class,
                               ULONG* rank) = 0;
  // The operating system's id of a managed thread (on Linux its kernel thread id).
  virtual HRESULT GetThreadInfo(ThreadID thread, DWORD* os_thread_id) = 0;
  XRPM_COR_UNUSED(GetCurrentThreadID)
  XRPM_COR_UNUSED(GetClassIDInfo)
  virtual HRESULT GetFunctionInfo(FunctionID function, ClassID* klass, ModuleID* module,
                                  mdToken* token) = 0;
  XRPM_COR_UNUSED(SetEventMask)
  XRPM_COR_UNUSED(SetEnterLeaveFunctionHooks)
  XRPM_COR_UNUSED(SetFunctionIDMapper)
  XRPM_COR_UNUSED(GetTokenAndMetaDataFromFunction)
  // A module's base address, file name (`capacity` units with its terminator; *length counts
  // it) and assembly.
  virtual HRESULT GetModuleInfo(ModuleID module, const uint8_t** base, ULONG capacity,
                                ULONG* length, WCHAR name[], uintptr_t* assembly) = 0;
  virtual HRESULT GetModuleMetaData(ModuleID module, DWORD open_flags, const GUID& riid,
                                    IUnknown** out) = 0;
  // The method's body in the module's image (header, code and exception sections).
  virtual HRESULT GetILFunctionBody(ModuleID module, mdToken method, const uint8_t** body,
                                    ULONG* bytes) = 0;
  XRPM_COR_UNUSED(GetILFunctionBodyAllocator)
  XRPM_COR_UNUSED(SetILFunctionBody)
  XRPM_COR_UNUSED(GetAppDomainInfo)
  XRPM_COR_UNUSED(GetAssemblyInfo)
  XRPM_COR_UNUSED(SetFunctionReJIT)
  // A full blocking collection; from a thread that never ran managed code, outside callbacks.
  virtual HRESULT ForceGC() = 0;
  XRPM_COR_UNUSED(SetILInstrumentedCodeMap)
  XRPM_COR_UNUSED(GetInprocInspectionInterface)
  XRPM_COR_UNUSED(GetInprocInspectionIThisThread)
  XRPM_COR_UNUSED(GetThreadContext)
  XRPM_COR_UNUSED(BeginInprocDebugging)
  XRPM_COR_UNUSED(EndInprocDebugging)
  XRPM_COR_UNUSED(GetILToNativeMapping)
  // ---- ICorProfilerInfo2 ----
  // Walks `thread`'s managed frames (0: the calling thread, a synchronous walk, allowed inside
  // a callback), innermost first, calling `callback` per frame (kEnableStackSnapshot).
  virtual HRESULT DoStackSnapshot(ThreadID thread, StackSnapshotCallback callback, ULONG flags,
                                  void* client, uint8_t context[], ULONG context_size) = 0;
  // Initialize only, before the event mask that turns them on (kMonitorEnterLeave).
  virtual HRESULT SetEnterLeaveFunctionHooks2(FunctionEnterLeave2 enter, FunctionEnterLeave2 leave,
                                              FunctionTailcall2 tailcall) = 0;
  XRPM_COR_UNUSED(GetFunctionInfo2)
  XRPM_COR_UNUSED(GetStringLayout)
  // The instance fields the class itself declares (not its bases'): each one's token and
  // offset (from the object's start, the method table pointer, for a reference type; from the
  // value's start for a value type), *count of them, and the class's size. Fails for strings
  // and arrays. Callable inside a collection (no locks, triggers no collection).
  virtual HRESULT GetClassLayout(ClassID klass, FieldOffset offsets[], ULONG capacity, ULONG* count,
                                 ULONG* class_size) = 0;
  virtual HRESULT GetClassIDInfo2(ClassID klass, ModuleID* module, mdToken* type_def,
                                  ClassID* parent, ULONG type_arg_capacity, ULONG* type_arg_count,
                                  ClassID type_args[]) = 0;
  XRPM_COR_UNUSED(GetCodeInfo2)
  XRPM_COR_UNUSED(GetClassFromTokenAndTypeArgs)
  XRPM_COR_UNUSED(GetFunctionFromTokenAndTypeArgs)
  XRPM_COR_UNUSED(EnumModuleFrozenObjects)
  // An array object's dimension sizes and lower bounds (`rank` of each) and its first element.
  virtual HRESULT GetArrayObjectInfo(ObjectID object, ULONG rank, ULONG sizes[],
                                     int32_t lower_bounds[], uint8_t** data) = 0;
  // Where a boxed value type's value starts in the box.
  virtual HRESULT GetBoxClassLayout(ClassID klass, ULONG* value_offset) = 0;
  XRPM_COR_UNUSED(GetThreadAppDomain)
  XRPM_COR_UNUSED(GetRVAStaticAddress)
  // The address of a static field's storage (for a reference field: the slot holding the
  // reference); CORPROF_E_DATAINCOMPLETE before the class's static constructor ran.
  virtual HRESULT GetAppDomainStaticAddress(ClassID klass, mdToken field, AppDomainID domain,
                                            void** address) = 0;
  XRPM_COR_UNUSED(GetThreadStaticAddress)
  XRPM_COR_UNUSED(GetContextStaticAddress)
  // COR_PRF_STATIC_TYPE bits of a field: kAppDomainStatic, thread, context, RVA.
  virtual HRESULT GetStaticFieldInfo(ClassID klass, mdToken field, DWORD* static_type) = 0;
  // The heap's ranges by generation; the used lengths are exact inside GC callbacks.
  virtual HRESULT GetGenerationBounds(ULONG capacity, ULONG* count, GcGenerationRange ranges[]) = 0;
  XRPM_COR_UNUSED(GetObjectGeneration)
  XRPM_COR_UNUSED(GetNotifiedExceptionClauseInfo)
  // ---- ICorProfilerInfo3 ----
  // The functions the JIT compiled so far (an enumerator the caller releases).
  virtual HRESULT EnumJITedFunctions(ICorProfilerFunctionEnum** functions) = 0;
  XRPM_COR_UNUSED(RequestProfilerDetach)
  // Initialize only, before the event mask (after it, the runtime's first call crashes).
  virtual HRESULT SetFunctionIDMapper2(FunctionIdMapper2 mapper, void* client_data) = 0;
  // Where a string's length (a 32-bit count of UTF-16 units) and its first unit are, from the
  // object's start.
  virtual HRESULT GetStringLayout2(ULONG* length_offset, ULONG* buffer_offset) = 0;
  XRPM_COR_UNUSED(SetEnterLeaveFunctionHooks3)
  XRPM_COR_UNUSED(SetEnterLeaveFunctionHooks3WithInfo)
  XRPM_COR_UNUSED(GetFunctionEnter3Info)
  XRPM_COR_UNUSED(GetFunctionLeave3Info)
  XRPM_COR_UNUSED(GetFunctionTailcall3Info)
  // The modules loaded so far (an enumerator the caller releases).
  virtual HRESULT EnumModules(ICorProfilerModuleEnum** modules) = 0;
  virtual HRESULT GetRuntimeInformation(USHORT* clr_instance_id, int32_t* runtime_type,
                                        USHORT* major, USHORT* minor, USHORT* build, USHORT* qfe,
                                        ULONG version_capacity, ULONG* version_length,
                                        WCHAR version[]) = 0;
  // The address of `thread`'s slot of a thread-static field. The storage is a managed array
  // that a compacting collection moves: asked for inside the collection, after it moved
  // everything. E_INVALIDARG also when the thread never touched the class's thread statics.
  // Takes no lock the collection holds (callable inside GC callbacks).
  virtual HRESULT GetThreadStaticAddress2(ClassID klass, mdToken field, AppDomainID domain,
                                          ThreadID thread, void** address) = 0;
  virtual HRESULT GetAppDomainsContainingModule(ModuleID module, ULONG capacity, ULONG* count,
                                                AppDomainID domains[]) = 0;
  XRPM_COR_UNUSED(GetModuleInfo2)
  // ---- ICorProfilerInfo4 ----
  // The managed threads (an enumerator the caller releases). Takes the runtime's thread store
  // lock, which a collection holds: never inside GC callbacks.
  virtual HRESULT EnumThreads(ICorProfilerThreadEnum** threads) = 0;
  XRPM_COR_UNUSED(InitializeCurrentThread)
  // Compiles the methods again at their next call, asking GetReJITParameters for their body
  // (kEnableRejit). Called from a thread of our own, never inside a callback (it takes the
  // runtime's code version locks).
  virtual HRESULT RequestReJIT(ULONG count, ModuleID modules[], mdToken methods[]) = 0;
  XRPM_COR_UNUSED(RequestRevert)
  XRPM_COR_UNUSED(GetCodeInfo3)
  XRPM_COR_UNUSED(GetFunctionFromIP2)
  XRPM_COR_UNUSED(GetReJITIDs)
  XRPM_COR_UNUSED(GetILToNativeMapping2)
  XRPM_COR_UNUSED(EnumJITedFunctions2)
  virtual HRESULT GetObjectSize2(ObjectID object, size_t* size) = 0;
  // ---- ICorProfilerInfo5 ----
  virtual HRESULT GetEventMask2(DWORD* low, DWORD* high) = 0;
  virtual HRESULT SetEventMask2(DWORD low, DWORD high) = 0;
  // ---- ICorProfilerInfo6 .. 9 ----
  XRPM_COR_UNUSED(EnumNgenModuleMethodsInliningThisMethod)
  XRPM_COR_UNUSED(ApplyMetaData)
  XRPM_COR_UNUSED(GetInMemorySymbolsLength)
  XRPM_COR_UNUSED(ReadInMemorySymbols)
  XRPM_COR_UNUSED(IsFunctionDynamic)
  XRPM_COR_UNUSED(GetFunctionFromIP3)
  XRPM_COR_UNUSED(GetDynamicFunctionInfo)
  XRPM_COR_UNUSED(GetNativeCodeStartAddresses)
  XRPM_COR_UNUSED(GetILToNativeMapping3)
  XRPM_COR_UNUSED(GetCodeInfo4)
  // ---- ICorProfilerInfo10 ----
  XRPM_COR_UNUSED(EnumerateObjectReferences)
  // An object on the non-GC heap (a string literal, a frozen RuntimeType): never moves or dies.
  virtual HRESULT IsFrozenObject(ObjectID object, BOOL* frozen) = 0;
  XRPM_COR_UNUSED(GetLOHObjectSizeThreshold)
  XRPM_COR_UNUSED(RequestReJITWithInliners)
  XRPM_COR_UNUSED(SuspendRuntime)
  XRPM_COR_UNUSED(ResumeRuntime)
};

// COR_PRF_EVENTPIPE_PROVIDER_CONFIG: a provider a session enables, with its keywords and level
// (4: informational); filter_data may be null.
struct EventPipeProviderConfig {
  const WCHAR* provider_name;
  uint64_t keywords;
  uint32_t logging_level;
  const WCHAR* filter_data;
};

// ICorProfilerInfo11 (99..100) and ICorProfilerInfo12 (101..107): in-process EventPipe sessions
// (.NET 5 and later).
class ICorProfilerInfo12 : public ICorProfilerInfo10 {
 public:
  XRPM_COR_UNUSED(GetEnvironmentVariable)
  XRPM_COR_UNUSED(SetEnvironmentVariable)
  // ---- ICorProfilerInfo12 ----
  // A session delivering the providers' events to EventPipeEventDelivered (with the
  // kHighMonitorEventPipe mask bit); rundown: the runtime's rundown events at its end.
  virtual HRESULT EventPipeStartSession(uint32_t provider_count,
                                        EventPipeProviderConfig providers[], BOOL rundown,
                                        EventPipeSession* session) = 0;
  XRPM_COR_UNUSED(EventPipeAddProviderToSession)
  XRPM_COR_UNUSED(EventPipeStopSession)  // the session lasts as long as the process
  XRPM_COR_UNUSED(EventPipeCreateProvider)
  XRPM_COR_UNUSED(EventPipeGetProviderInfo)
  XRPM_COR_UNUSED(EventPipeDefineEvent)
  XRPM_COR_UNUSED(EventPipeWriteEvent)
};

// IMetaDataImport (cor.h), slots 3..64; what the names, the static fields and the field layouts
// need.
class IMetaDataImport : public IUnknown {
 public:
  virtual void CloseEnum(void* e) = 0;  // an HCORENUM
  XRPM_COR_UNUSED(CountEnum)
  XRPM_COR_UNUSED(ResetEnum)
  XRPM_COR_UNUSED(EnumTypeDefs)
  XRPM_COR_UNUSED(EnumInterfaceImpls)
  XRPM_COR_UNUSED(EnumTypeRefs)
  // The type definition of a full name ("System.String"; enclosing: 0 for a top-level type).
  virtual HRESULT FindTypeDefByName(const WCHAR* name, mdToken enclosing, mdToken* type_def) = 0;
  XRPM_COR_UNUSED(GetScopeProps)
  XRPM_COR_UNUSED(GetModuleFromScope)
  // The type's full name (namespace and name, "System.Collections.Generic.List`1"), flags and
  // base type token.
  virtual HRESULT GetTypeDefProps(mdToken type_def, WCHAR name[], ULONG capacity, ULONG* length,
                                  DWORD* flags, mdToken* extends) = 0;
  XRPM_COR_UNUSED(GetInterfaceImplProps)
  // A type reference's full name ("System.Enum") and resolution scope.
  virtual HRESULT GetTypeRefProps(mdToken type_ref, mdToken* scope, WCHAR name[], ULONG capacity,
                                  ULONG* length) = 0;
  // The scope (another module's metadata, AddRef'd) and type definition a reference names.
  virtual HRESULT ResolveTypeRef(mdToken type_ref, const GUID& riid, IUnknown** scope,
                                 mdToken* type_def) = 0;
  XRPM_COR_UNUSED(EnumMembers)
  XRPM_COR_UNUSED(EnumMembersWithName)
  XRPM_COR_UNUSED(EnumMethods)
  // The method definitions of a type with a name, `capacity` at a time (*e starts null).
  virtual HRESULT EnumMethodsWithName(void** e, mdToken type_def, const WCHAR* name,
                                      mdToken methods[], ULONG capacity, ULONG* count) = 0;
  // The field definitions of a type, `capacity` at a time (*e starts null; CloseEnum it).
  virtual HRESULT EnumFields(void** e, mdToken type_def, mdToken fields[], ULONG capacity,
                             ULONG* count) = 0;
  XRPM_COR_UNUSED(EnumFieldsWithName)
  XRPM_COR_UNUSED(EnumParams)
  XRPM_COR_UNUSED(EnumMemberRefs)
  XRPM_COR_UNUSED(EnumMethodImpls)
  XRPM_COR_UNUSED(EnumPermissionSets)
  XRPM_COR_UNUSED(FindMember)
  XRPM_COR_UNUSED(FindMethod)
  XRPM_COR_UNUSED(FindField)
  XRPM_COR_UNUSED(FindMemberRef)
  virtual HRESULT GetMethodProps(mdToken method, mdToken* type_def, WCHAR name[], ULONG capacity,
                                 ULONG* length, DWORD* attributes, const uint8_t** signature,
                                 ULONG* signature_bytes, ULONG* code_rva, DWORD* impl_flags) = 0;
  XRPM_COR_UNUSED(GetMemberRefProps)
  XRPM_COR_UNUSED(EnumProperties)
  XRPM_COR_UNUSED(EnumEvents)
  XRPM_COR_UNUSED(GetEventProps)
  XRPM_COR_UNUSED(EnumMethodSemantics)
  XRPM_COR_UNUSED(GetMethodSemantics)
  XRPM_COR_UNUSED(GetClassLayout)
  XRPM_COR_UNUSED(GetFieldMarshal)
  XRPM_COR_UNUSED(GetRVA)
  XRPM_COR_UNUSED(GetPermissionSetProps)
  XRPM_COR_UNUSED(GetSigFromToken)
  XRPM_COR_UNUSED(GetModuleRefProps)
  XRPM_COR_UNUSED(EnumModuleRefs)
  XRPM_COR_UNUSED(GetTypeSpecFromToken)
  XRPM_COR_UNUSED(GetNameFromToken)
  XRPM_COR_UNUSED(EnumUnresolvedMethods)
  XRPM_COR_UNUSED(GetUserString)
  XRPM_COR_UNUSED(GetPinvokeMap)
  XRPM_COR_UNUSED(EnumSignatures)
  XRPM_COR_UNUSED(EnumTypeSpecs)
  XRPM_COR_UNUSED(EnumUserStrings)
  XRPM_COR_UNUSED(GetParamForMethodIndex)
  XRPM_COR_UNUSED(EnumCustomAttributes)
  XRPM_COR_UNUSED(GetCustomAttributeProps)
  XRPM_COR_UNUSED(FindTypeRef)
  XRPM_COR_UNUSED(GetMemberProps)
  // A field's name, attributes (kFieldStatic...) and signature blob (ECMA-335 II.23.2.4).
  virtual HRESULT GetFieldProps(mdToken field, mdToken* type_def, WCHAR name[], ULONG capacity,
                                ULONG* length, DWORD* attributes, const uint8_t** signature,
                                ULONG* signature_bytes, DWORD* constant_type, const void** constant,
                                ULONG* constant_length) = 0;
  XRPM_COR_UNUSED(GetPropertyProps)
  XRPM_COR_UNUSED(GetParamProps)
  XRPM_COR_UNUSED(GetCustomAttributeByName)
  XRPM_COR_UNUSED(IsValidToken)
  // S_OK and the enclosing type for a nested type.
  virtual HRESULT GetNestedClassProps(mdToken nested, mdToken* enclosing) = 0;
};

// IMetaDataEmit (cor.h), slots 3..23: a module's metadata writer, for the one signature the
// frame method's calls need.
class IMetaDataEmit : public IUnknown {
 public:
  XRPM_COR_UNUSED(SetModuleProps)
  XRPM_COR_UNUSED(Save)
  XRPM_COR_UNUSED(SaveToStream)
  XRPM_COR_UNUSED(GetSaveSize)
  XRPM_COR_UNUSED(DefineTypeDef)
  XRPM_COR_UNUSED(DefineNestedType)
  XRPM_COR_UNUSED(SetHandler)
  XRPM_COR_UNUSED(DefineMethod)
  XRPM_COR_UNUSED(DefineMethodImpl)
  XRPM_COR_UNUSED(DefineTypeRefByName)
  XRPM_COR_UNUSED(DefineImportType)
  XRPM_COR_UNUSED(DefineMemberRef)
  XRPM_COR_UNUSED(DefineImportMember)
  XRPM_COR_UNUSED(DefineEvent)
  XRPM_COR_UNUSED(SetClassLayout)
  XRPM_COR_UNUSED(DeleteClassLayout)
  XRPM_COR_UNUSED(SetFieldMarshal)
  XRPM_COR_UNUSED(DeleteFieldMarshal)
  XRPM_COR_UNUSED(DefinePermissionSet)
  XRPM_COR_UNUSED(SetRVA)
  // The StandAloneSig token of a signature blob (an existing one when the module has it).
  virtual HRESULT GetTokenFromSig(const uint8_t* signature, ULONG bytes, mdToken* token) = 0;
};

#undef XRPM_COR_UNUSED
#undef XRPM_COR_IGNORED

}  // namespace cor
}  // namespace dotnet
}  // namespace xrpm
