// ManagedThreads: the runtime's thread list before a capture, and the threads' ends and names.
#include "managed_threads.h"

#include <unistd.h>

#include "type_names.h"

namespace xrpm {
namespace dotnet {
namespace {

constexpr cor::ULONG kThreadEnumBatch = 64;

}  // namespace

void ManagedThreads::OnDestroyed(cor::ThreadID thread) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Thread& t : threads_)
    if (t.id == thread) t.live = false;
  names_.erase(thread);
}

void ManagedThreads::OnNameChanged(cor::ThreadID thread, const cor::WCHAR* name,
                                   cor::ULONG length) {
  std::string text = name && length ? Utf8(name, length) : std::string();
  std::lock_guard<std::mutex> lock(mu_);
  names_[thread] = text;
  for (Thread& t : threads_)
    if (t.id == thread && t.live) t.name = text;
}

bool ManagedThreads::Refresh() {
  cor::ICorProfilerThreadEnum* e = nullptr;
  if (cor::Failed(info_->EnumThreads(&e)) || !e) return false;
  std::vector<Thread> listed;
  cor::ThreadID batch[kThreadEnumBatch];
  cor::ULONG n = 0;
  while (!cor::Failed(e->Next(kThreadEnumBatch, batch, &n)) && n > 0) {
    for (cor::ULONG i = 0; i < n; ++i) {
      Thread t;
      t.id = batch[i];
      cor::DWORD os_id = 0;
      if (!cor::Failed(info_->GetThreadInfo(batch[i], &os_id))) t.os_id = os_id;
      listed.push_back(std::move(t));
    }
    if (n < kThreadEnumBatch) break;
  }
  e->Release();
  std::lock_guard<std::mutex> lock(mu_);
  for (Thread& t : listed) {
    auto name = names_.find(t.id);
    if (name != names_.end()) t.name = name->second;
  }
  threads_.swap(listed);
  return true;
}

std::string ManagedThreads::Label(uint32_t index) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (index >= threads_.size()) return "thread ?";
  const Thread& t = threads_[index];
  // The process's first thread (its id is the process's) runs Main.
  const bool main = t.os_id != 0 && t.os_id == static_cast<uint32_t>(getpid());
  std::string label = std::string(main ? "main thread " : "thread ") +
                      (t.os_id ? std::to_string(t.os_id) : std::string("?"));
  if (!t.name.empty()) label += " \"" + t.name + "\"";
  return label;
}

size_t ManagedThreads::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return threads_.size();
}

}  // namespace dotnet
}  // namespace xrpm
