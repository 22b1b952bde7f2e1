// LoadedClasses: the classes of the JIT-compiled functions.
#include "loaded_classes.h"

#include <unordered_set>

namespace xrpm {
namespace dotnet {
namespace {

constexpr cor::ULONG kBatch = 256;
constexpr size_t kMaxFunctions = size_t{1} << 22;  // bounds the pass on a huge process

}  // namespace

size_t FindClassesOfCompiledCode(cor::ICorProfilerInfo10* info, std::vector<cor::ClassID>* out) {
  cor::ICorProfilerFunctionEnum* functions = nullptr;
  if (cor::Failed(info->EnumJITedFunctions(&functions)) || !functions) return 0;
  std::unordered_set<cor::ClassID> seen;
  size_t looked = 0;
  cor::PrfFunction batch[kBatch];
  cor::ULONG fetched = 0;
  while (looked < kMaxFunctions && !cor::Failed(functions->Next(kBatch, batch, &fetched)) &&
         fetched > 0) {
    for (cor::ULONG i = 0; i < fetched && i < kBatch; ++i) {
      cor::ClassID klass = 0;
      cor::ModuleID module = 0;
      cor::mdToken token = 0;
      if (!cor::Failed(info->GetFunctionInfo(batch[i].function, &klass, &module, &token)) &&
          klass != 0 && seen.insert(klass).second)
        out->push_back(klass);
    }
    looked += fetched;
  }
  functions->Release();
  return looked;
}

}  // namespace dotnet
}  // namespace xrpm
