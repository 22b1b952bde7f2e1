// StaticRoots: finding the static reference fields of loaded classes and reading their slots.
#include "static_roots.h"

#include <algorithm>
#include <utility>

#include "ecma_signature.h"
#include "type_names.h"

namespace xrpm {
namespace dotnet {
namespace {

constexpr cor::ULONG kFieldBatch = 64;

}  // namespace

bool IsReferenceFieldSignature(const uint8_t* sig, size_t bytes) {
  if (!sig || bytes < 2 || (sig[0] & 0x0f) != kSigField) return false;
  size_t i = 1;
  while (i < bytes && (sig[i] == kEtCmodReqd || sig[i] == kEtCmodOpt)) {
    ++i;
    uint32_t token = 0;  // the modifier's type
    if (!ReadCompressed(sig, bytes, &i, &token)) return false;
  }
  if (i >= bytes) return false;
  switch (sig[i]) {
    case kEtString:
    case kEtClass:
    case kEtArray:
    case kEtObject:
    case kEtSzArray:
      return true;
    case kEtGenericInst:
      return i + 1 < bytes && sig[i + 1] == kEtClass;
    default:
      return false;
  }
}

void StaticRoots::OnClassLoaded(cor::ClassID klass) {
  std::lock_guard<std::mutex> lock(queue_mu_);
  queue_.push_back(klass);
}

cor::AppDomainID StaticRoots::DomainOf(cor::ModuleID module) {
  auto it = domains_.find(module);
  if (it != domains_.end()) return it->second;
  cor::AppDomainID domain = 0;
  cor::ULONG n = 0;
  if (cor::Failed(info_->GetAppDomainsContainingModule(module, 1, &n, &domain)) || n == 0)
    domain = 0;
  domains_.emplace(module, domain);
  return domain;
}

void StaticRoots::Examine(cor::ClassID klass) {
  cor::ModuleID module = 0;
  cor::mdToken type_def = 0;
  cor::ClassID parent = 0;
  cor::ULONG nargs = 0;
  cor::ClassID args[kMaxTypeArgs];
  if (cor::Failed(
          info_->GetClassIDInfo2(klass, &module, &type_def, &parent, kMaxTypeArgs, &nargs, args)) ||
      module == 0 || type_def == 0)
    return;  // an array or another class without a type definition of its own
  cor::IMetaDataImport* md = metadata_.Get(module);
  if (!md) return;
  ClassStatics c{klass, module, parent, {}, {}, {}};
  void* e = nullptr;
  cor::mdToken fields[kFieldBatch];
  cor::ULONG n = 0;
  while (!cor::Failed(md->EnumFields(&e, type_def, fields, kFieldBatch, &n)) && n > 0) {
    for (cor::ULONG i = 0; i < n; ++i) {
      cor::WCHAR name[kMetadataNameCapacity];
      cor::ULONG len = 0;
      cor::DWORD attributes = 0;
      const uint8_t* sig = nullptr;
      cor::ULONG sig_bytes = 0;
      if (cor::Failed(md->GetFieldProps(fields[i], nullptr, name, kMetadataNameCapacity, &len,
                                        &attributes, &sig, &sig_bytes, nullptr, nullptr, nullptr)))
        continue;
      if (!(attributes & cor::kFieldStatic) ||
          (attributes & (cor::kFieldLiteral | cor::kFieldHasRva)))
        continue;
      if (!IsReferenceFieldSignature(sig, sig_bytes)) continue;
      cor::DWORD kind = 0;
      if (cor::Failed(info_->GetStaticFieldInfo(klass, fields[i], &kind))) continue;
      std::string utf8 =
          Utf8(name, len > 0 ? std::min(len, kMetadataNameCapacity) - 1 : 0);  // len: + NUL
      if (kind & cor::kAppDomainStatic) {
        c.names.push_back(std::move(utf8));
        c.fields.push_back(fields[i]);
      } else if (kind & cor::kThreadStatic) {
        c.thread_names.push_back(std::move(utf8));
        c.thread_fields.push_back(fields[i]);
      }
    }
  }
  if (e) md->CloseEnum(e);
  if (c.fields.empty() && c.thread_fields.empty()) return;
  c.addresses.assign(c.fields.size(), 0);
  if (!c.thread_fields.empty()) {
    c.domain = DomainOf(module);  // here: ReadThreadStatics runs in the collection
    thread_classes_.push_back(classes_.size());
  }
  if (!c.fields.empty()) unresolved_.push_back(classes_.size());
  classes_.push_back(std::move(c));
}

void StaticRoots::Resolve(std::vector<cor::ClassID>* examined) {
  std::vector<cor::ClassID> loaded;
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    loaded.swap(queue_);
  }
  loaded.erase(std::remove_if(loaded.begin(), loaded.end(),
                              [&](cor::ClassID k) { return !examined_.insert(k).second; }),
               loaded.end());
  for (cor::ClassID klass : loaded) Examine(klass);
  if (examined) examined->insert(examined->end(), loaded.begin(), loaded.end());
  std::vector<size_t> still;
  for (size_t index : unresolved_) {
    ClassStatics& c = classes_[index];
    const cor::AppDomainID domain = DomainOf(c.module);
    bool missing = false;
    for (size_t f = 0; f < c.fields.size(); ++f) {
      if (c.addresses[f] != 0) continue;
      void* address = nullptr;
      if (domain != 0 &&
          !cor::Failed(info_->GetAppDomainStaticAddress(c.klass, c.fields[f], domain, &address)) &&
          address)
        c.addresses[f] = reinterpret_cast<uintptr_t>(address);
      else
        missing = true;
    }
    if (missing) still.push_back(index);
  }
  unresolved_.swap(still);
}

void StaticRoots::Read(std::vector<StaticValue>* out) const {
  for (size_t i = 0; i < classes_.size(); ++i) {
    const ClassStatics& c = classes_[i];
    for (size_t f = 0; f < c.addresses.size(); ++f) {
      if (c.addresses[f] == 0) continue;
      const uint64_t object = *reinterpret_cast<const volatile uintptr_t*>(c.addresses[f]);
      if (object != 0)
        out->push_back(StaticValue{object, static_cast<uint32_t>(i), static_cast<uint32_t>(f)});
    }
  }
}

void StaticRoots::ReadThreadStatics(const ManagedThreads& threads,
                                    std::vector<StaticValue>* out) const {
  if (thread_classes_.empty()) return;
  threads.ForEachLive([&](uint32_t index, cor::ThreadID thread) {
    for (size_t i : thread_classes_) {
      const ClassStatics& c = classes_[i];
      if (c.domain == 0) continue;
      for (size_t f = 0; f < c.thread_fields.size(); ++f) {
        void* address = nullptr;
        if (cor::Failed(info_->GetThreadStaticAddress2(c.klass, c.thread_fields[f], c.domain,
                                                       thread, &address)) ||
            !address)
          continue;  // the thread never touched the class's thread statics
        const uint64_t object = *static_cast<const volatile uintptr_t*>(address);
        if (object != 0)
          out->push_back(
              StaticValue{object, static_cast<uint32_t>(i), static_cast<uint32_t>(f), index});
      }
    }
  });
}

}  // namespace dotnet
}  // namespace xrpm
