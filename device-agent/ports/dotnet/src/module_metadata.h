// ModuleMetadata: each module's metadata reader (IMetaDataImport), asked of the runtime once per
// module and kept, for the parts of the port that read type, method and field definitions (type
// names, static fields). A module without metadata is remembered as null.
//
// Thread-safety: none; each owner uses its own cache from one thread at a time.
#pragma once

#include <unordered_map>

#include "corprof_abi.h"

namespace xrpm {
namespace dotnet {

class ModuleMetadata {
 public:
  explicit ModuleMetadata(cor::ICorProfilerInfo10* info) : info_(info) {}
  ~ModuleMetadata() {
    for (auto& m : modules_)
      if (m.second) m.second->Release();
  }
  ModuleMetadata(const ModuleMetadata&) = delete;
  ModuleMetadata& operator=(const ModuleMetadata&) = delete;

  // The module's reader, or null when the runtime has none for it.
  cor::IMetaDataImport* Get(cor::ModuleID module) {
    auto it = modules_.find(module);
    if (it != modules_.end()) return it->second;
    cor::IUnknown* unknown = nullptr;
    cor::IMetaDataImport* md = nullptr;
    if (!cor::Failed(info_->GetModuleMetaData(module, cor::kOpenForRead, cor::kIID_IMetaDataImport,
                                              &unknown)) &&
        unknown)
      md = static_cast<cor::IMetaDataImport*>(unknown);  // the interface asked for
    modules_.emplace(module, md);
    return md;
  }
  // The module whose reader (asked here before) is `md`, or 0.
  cor::ModuleID ModuleOf(const cor::IMetaDataImport* md) const {
    for (const auto& m : modules_)
      if (m.second == md) return m.first;
    return 0;
  }

 private:
  cor::ICorProfilerInfo10* const info_;
  std::unordered_map<cor::ModuleID, cor::IMetaDataImport*> modules_;
};

}  // namespace dotnet
}  // namespace xrpm
