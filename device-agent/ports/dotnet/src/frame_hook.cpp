// FrameHook: matching the frame method, its hooks and the wait for a frame's end.
#include "frame_hook.h"

#include "type_names.h"

namespace xrpm {
namespace dotnet {
namespace {

FrameHook* g_hook = nullptr;  // set once by Install; the hooks are plain functions

}  // namespace

FrameHook::FrameHook(cor::ICorProfilerInfo10* info, mono::FrameMethod method, uint32_t window_ms)
    : info_(info),
      method_(std::move(method)),
      name_((method_.name_space.empty() ? "" : method_.name_space + ".") + method_.class_name +
            ":" + method_.method),
      class_full_name_((method_.name_space.empty() ? "" : method_.name_space + ".") +
                       method_.class_name),
      window_ms_(window_ms),
      metadata_(info) {}

int64_t FrameHook::NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool FrameHook::Install(std::string* error) {
  g_hook = this;
  if (cor::Failed(info_->SetFunctionIDMapper2(&FrameHook::Map, this)) ||
      cor::Failed(info_->SetEnterLeaveFunctionHooks2(&FrameHook::Enter, &FrameHook::Leave,
                                                     &FrameHook::Tailcall))) {
    *error = "the runtime refused the frame method's hooks";
    return false;
  }
  return true;
}

bool FrameHook::Matches(cor::FunctionID function) {
  cor::ClassID klass = 0;
  cor::ModuleID module = 0;
  cor::mdToken token = 0;
  if (cor::Failed(info_->GetFunctionInfo(function, &klass, &module, &token)) || module == 0)
    return false;
  std::lock_guard<std::mutex> lock(metadata_mu_);
  cor::IMetaDataImport* md = metadata_.Get(module);
  if (!md) return false;
  cor::WCHAR name[kMetadataNameCapacity];
  cor::ULONG len = 0, signature_bytes = 0, rva = 0;
  cor::mdToken type_def = 0;
  cor::DWORD attributes = 0, impl_flags = 0;
  const uint8_t* signature = nullptr;
  if (cor::Failed(md->GetMethodProps(token, &type_def, name, kMetadataNameCapacity, &len,
                                     &attributes, &signature, &signature_bytes, &rva,
                                     &impl_flags)) ||
      len == 0 || len > kMetadataNameCapacity || Utf8(name, len - 1) != method_.method)
    return false;

  cor::mdToken enclosing = 0;
  if (md->GetNestedClassProps(type_def, &enclosing) == cor::S_OK) return false;  // top-level only
  cor::DWORD flags = 0;
  cor::mdToken extends = 0;
  if (cor::Failed(
          md->GetTypeDefProps(type_def, name, kMetadataNameCapacity, &len, &flags, &extends)) ||
      len == 0 || len > kMetadataNameCapacity)
    return false;
  return Utf8(name, len - 1) == class_full_name_;
}

cor::UINT_PTR FrameHook::Map(cor::FunctionID function, void* self, cor::BOOL* hook) {
  auto* h = static_cast<FrameHook*>(self);

  const bool match = h->Matches(function);
  if (match) h->found_.store(true, std::memory_order_relaxed);
  if (hook) *hook = match ? 1 : 0;
  return function;
}

void FrameHook::Enter(cor::FunctionID, cor::UINT_PTR, void*, void*) {
  if (g_hook) g_hook->OnEnter();
}

void FrameHook::Leave(cor::FunctionID, cor::UINT_PTR, void*, void*) {
  if (g_hook) g_hook->OnLeave();
}

// The method left through a tail call: its frame is over as well.
void FrameHook::Tailcall(cor::FunctionID, cor::UINT_PTR, void*) {
  if (g_hook) g_hook->OnLeave();
}

void FrameHook::OnEnter() {
  if (!have_game_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(wait_mu_);  // the first thread in is the game thread
    if (!have_game_.load(std::memory_order_relaxed)) {
      game_ = pthread_self();
      have_game_.store(true, std::memory_order_release);
    }
  }
  if (!pthread_equal(game_, pthread_self())) return;
  if (depth_++ == 0) {
    frames_.OnEnter();
    inside_.store(true, std::memory_order_release);
  }
}

void FrameHook::OnLeave() {
  if (!have_game_.load(std::memory_order_acquire) || !pthread_equal(game_, pthread_self()) ||
      depth_ == 0)
    return;
  if (--depth_ > 0) return;
  inside_.store(false, std::memory_order_release);
  last_leave_ns_.store(NowNs(), std::memory_order_relaxed);
  frames_.OnLeave(completed_.load(std::memory_order_relaxed));  // only this thread adds
  // Sequentially consistent with the waiter's increment and check: one of them sees the other.
  completed_.fetch_add(1);
  if (waiters_.load() > 0) {
    // A short lock: the waiter never holds it while a collection runs.
    std::lock_guard<std::mutex> lock(wait_mu_);
    wait_cv_.notify_all();
  }
}

bool FrameHook::Recent() const {
  const int64_t last = last_leave_ns_.load(std::memory_order_relaxed);
  return last != 0 && NowNs() - last < int64_t{window_ms_} * 1000 * 1000;
}

bool FrameHook::WaitForFrameEnd(uint64_t after, std::chrono::steady_clock::time_point deadline) {
  waiters_.fetch_add(1);
  std::unique_lock<std::mutex> lock(wait_mu_);
  const bool ended = wait_cv_.wait_until(lock, deadline, [&] { return completed_.load() > after; });
  lock.unlock();
  waiters_.fetch_sub(1);
  return ended;
}

}  // namespace dotnet
}  // namespace xrpm
