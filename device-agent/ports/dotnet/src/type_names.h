// TypeNames: the names of CoreCLR classes and methods as xrpm shows them, from the profiling API
// (ICorProfilerInfo10) and each module's metadata (IMetaDataImport):
//   classes  the C# form with full namespaces: "System.Collections.Generic.List<Graph.Item>",
//            "System.Collections.Generic.Dictionary<System.String, Graph.Entry>", nested types
//            "Outer+Inner" (the generic arity suffix `N is dropped), arrays "T[]", "T[,]"
//   methods  "Namespace.Class.Method" (the declaring type definition's name, without its
//            instantiation)
// A name the runtime cannot give (a failed call) is "<class 0x...>" / "<method 0x...>", never a
// failure of the capture.
//
// One object per capture: it caches names and each module's IMetaDataImport (released in the
// destructor), and is used after the capture's collection, while the world runs (ClassIDs of
// live objects and FunctionIDs stay valid; the port does not follow unloading of collectible
// assemblies yet).
//
// Thread-safety: one thread.
#pragma once

#include <string>
#include <unordered_map>

#include "corprof_abi.h"
#include "module_metadata.h"

namespace xrpm {
namespace dotnet {

// The UTF-16 buffer (NUL included) the metadata API fills with a type's, field's or method's name;
// a longer name comes back cut to it.
constexpr cor::ULONG kMetadataNameCapacity = 1024;
// Generic arguments read per class (GetClassIDInfo2): a class with more is named with these.
constexpr cor::ULONG kMaxTypeArgs = 32;

class TypeNames {
 public:
  explicit TypeNames(cor::ICorProfilerInfo10* info) : info_(info), metadata_(info) {}
  TypeNames(const TypeNames&) = delete;
  TypeNames& operator=(const TypeNames&) = delete;

  const std::string& ClassName(cor::ClassID klass);
  std::string MethodName(cor::FunctionID function);
  // A type definition's name in `md` ("Graph.Holder", "Outer+Inner", without generic arity).
  static std::string TypeDefName(cor::IMetaDataImport* md, cor::mdToken type_def);

 private:
  std::string Compute(cor::ClassID klass, int depth);

  cor::ICorProfilerInfo10* info_;
  std::unordered_map<cor::ClassID, std::string> classes_;
  ModuleMetadata metadata_;
};

// The name of a primitive (or string, object) element type code, "System.Int32"; null for others.
const char* PrimitiveName(cor::CorElementType t);
// "List`1" -> "List": a metadata name without its generic arity.
std::string WithoutArity(std::string name);

// UTF-16 -> UTF-8 (unpaired surrogates become U+FFFD).
std::string Utf8(const cor::WCHAR* text, size_t length);

}  // namespace dotnet
}  // namespace xrpm
