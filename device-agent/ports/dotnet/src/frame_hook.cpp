// FrameHook: finding the frame method, its ReJIT with the native calls, and the wait for a
// frame's end.
#include "frame_hook.h"

#include <time.h>

#include <cstdio>
#include <thread>

#include "il_method_body.h"
#include "type_names.h"
#include "wire_bytes.h"
#include "xrpm/agent/runtime_port.h"

namespace xrpm {
namespace dotnet {
namespace {

FrameHook* g_hook = nullptr;  // set once by the constructor; the native calls are plain functions

}  // namespace

FrameHook::FrameHook(cor::ICorProfilerInfo10* info, mono::FrameMethod method, uint32_t window_ms)
    : info_(info),
      method_(std::move(method)),
      name_((method_.name_space.empty() ? "" : method_.name_space + ".") + method_.class_name +
            ":" + method_.method),
      class_full_name_((method_.name_space.empty() ? "" : method_.name_space + ".") +
                       method_.class_name),
      window_ms_(window_ms),
      metadata_(info) {
  g_hook = this;
  // The metadata API's UTF-16, once; a name that is not UTF-8 matches no module (left empty).
  if (!Utf8ToUtf16(class_full_name_, &class_name16_) ||
      !Utf8ToUtf16(method_.method, &method_name16_))
    class_name16_.clear();
}

int64_t FrameHook::CoarseNowNs() {
  // The kernel's tick-granular monotonic clock (a few ms; read without the TSC): the frame
  // window is a second by default and an idle agent reads it once per frame.
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void FrameHook::set_log(std::function<void(const std::string&)> log) {
  std::lock_guard<std::mutex> lock(modules_mu_);
  log_ = std::move(log);
}

void FrameHook::Log(const std::string& line) {
  std::function<void(const std::string&)> log;
  {
    std::lock_guard<std::mutex> lock(modules_mu_);
    log = log_;
  }
  if (log)
    log(line);
  else
    std::fprintf(stderr, "xrpm-agent: %s\n", line.c_str());
}

void FrameHook::OnModuleLoaded(cor::ModuleID module) {
  const uint64_t ticket = Queue(module);
  if (ticket == 0) return;
  // The request is sent before the module's code runs, so the method's first call already
  // counts (the first frame is frame 0). The loading thread holds no runtime lock here; the wait
  // is bounded all the same.
  std::unique_lock<std::mutex> lock(modules_mu_);
  sent_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return sent_ >= ticket; });
}

uint64_t FrameHook::Queue(cor::ModuleID module) {
  if (class_name16_.empty()) return 0;
  std::vector<cor::mdToken> methods;
  std::string problem;
  uint64_t ticket = 0;
  {
    std::lock_guard<std::mutex> lock(modules_mu_);
    if (signature_.count(module)) return 0;  // seen (CatchUp after a load callback)
    if (InRuntimeDirectory(module)) return 0;
    cor::IMetaDataImport* md = metadata_.Get(module);
    cor::mdToken type_def = 0;
    if (!md || md->FindTypeDefByName(class_name16_.c_str(), 0, &type_def) != cor::S_OK) return 0;
    void* e = nullptr;
    cor::mdToken found[16];
    cor::ULONG count = 0;
    while (md->EnumMethodsWithName(&e, type_def, method_name16_.c_str(), found, 16, &count) ==
               cor::S_OK &&
           count > 0)
      methods.insert(methods.end(), found, found + count);
    if (e) md->CloseEnum(e);
    if (methods.empty()) return 0;
    // The calls' signature, added to the module's metadata now (its load is the time metadata
    // may still grow without ApplyMetaData).
    cor::IUnknown* unknown = nullptr;
    cor::mdToken signature = 0;
    if (cor::Failed(info_->GetModuleMetaData(module, cor::kOpenForRead | cor::kOpenForWrite,
                                             cor::kIID_IMetaDataEmit, &unknown)) ||
        !unknown) {
      problem = "the runtime gives no metadata writer for its module";
    } else {
      auto* emit = static_cast<cor::IMetaDataEmit*>(unknown);
      const std::vector<uint8_t>& blob = NativeCallSignature();
      const cor::HRESULT hr =
          emit->GetTokenFromSig(blob.data(), static_cast<cor::ULONG>(blob.size()), &signature);
      emit->Release();
      if (cor::Failed(hr)) problem = "its module refused a signature (" + cor::HexText(hr) + ")";
    }
    if (problem.empty()) {
      signature_[module] = signature;
      for (cor::mdToken m : methods) queued_.emplace_back(module, m);
      ticket = ++queued_count_;
      if (!thread_started_) {
        thread_started_ = true;
        std::thread([this] { RequestLoop(); }).detach();  // lives as long as the process
      }
      queued_cv_.notify_one();
    }
  }
  if (!problem.empty()) Log("the frame method " + name_ + " is not hooked: " + problem);
  return ticket;
}

bool FrameHook::InRuntimeDirectory(cor::ModuleID module) {
  // The runtime's own modules (the shared framework's directory, where the first module,
  // System.Private.CoreLib, lives) hold no game's frame method: not reading their metadata
  // keeps ~10 ms off the start-up of a small program. A self-contained program has CoreLib
  // beside its own modules: nothing is skipped there.
  cor::WCHAR name[kMetadataNameCapacity];
  cor::ULONG len = 0;
  const uint8_t* base = nullptr;
  uintptr_t assembly = 0;
  if (cor::Failed(
          info_->GetModuleInfo(module, &base, kMetadataNameCapacity, &len, name, &assembly)) ||
      len == 0 || len > kMetadataNameCapacity)
    return false;
  const std::string path = Utf8(name, len - 1);
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return false;
  if (runtime_dir_.empty()) {
    if (path.compare(slash + 1, std::string::npos, "System.Private.CoreLib.dll") != 0) return false;
    // <dotnet root>/shared/Microsoft.NETCore.App/<version>/: the shared framework.
    if (path.find("/shared/Microsoft.NETCore.App/") != std::string::npos)
      runtime_dir_ = path.substr(0, slash + 1);
    return true;
  }
  return path.compare(0, runtime_dir_.size(), runtime_dir_) == 0 &&
         path.find('/', runtime_dir_.size()) == std::string::npos;
}

void FrameHook::CatchUp() {
  cor::ICorProfilerModuleEnum* modules = nullptr;
  if (cor::Failed(info_->EnumModules(&modules)) || !modules) {
    Log("the frame method " + name_ + " is not hooked: the runtime lists no modules");
    return;
  }
  cor::ModuleID batch[64];
  cor::ULONG fetched = 0;
  std::vector<cor::ModuleID> all;
  while (!cor::Failed(modules->Next(64, batch, &fetched)) && fetched > 0)
    all.insert(all.end(), batch, batch + fetched);
  modules->Release();
  for (cor::ModuleID m : all) Queue(m);  // methods already running: no need to wait
}

void FrameHook::RequestLoop() {
  for (;;) {
    std::vector<std::pair<cor::ModuleID, cor::mdToken>> batch;
    uint64_t upto = 0;
    {
      std::unique_lock<std::mutex> lock(modules_mu_);
      queued_cv_.wait(lock, [&] { return !queued_.empty(); });
      batch.swap(queued_);
      upto = queued_count_;
    }
    std::vector<cor::ModuleID> modules;
    std::vector<cor::mdToken> methods;
    for (const auto& q : batch) {
      modules.push_back(q.first);
      methods.push_back(q.second);
    }
    const cor::HRESULT hr = info_->RequestReJIT(static_cast<cor::ULONG>(modules.size()),
                                                modules.data(), methods.data());
    if (cor::Failed(hr))
      Log("the frame method " + name_ + " is not hooked: the runtime refused its ReJIT (" +
          cor::HexText(hr) + ")");
    {
      std::lock_guard<std::mutex> lock(modules_mu_);
      sent_ = upto;
    }
    sent_cv_.notify_all();
  }
}

cor::HRESULT FrameHook::OnReJitParameters(cor::ModuleID module, cor::mdToken method,
                                          cor::ICorProfilerFunctionControl* control) {
  cor::mdToken signature = 0;
  {
    std::lock_guard<std::mutex> lock(modules_mu_);
    auto it = signature_.find(module);
    if (it == signature_.end()) return cor::S_OK;  // not ours: the method's own body
    signature = it->second;
  }
  const uint8_t* body = nullptr;
  cor::ULONG bytes = 0;
  cor::HRESULT hr = info_->GetILFunctionBody(module, method, &body, &bytes);
  std::string error;
  IlMethodBody parsed, wrapped;
  if (cor::Failed(hr) || !body) {
    error = "the runtime gives no body (" + cor::HexText(hr) + ")";
  } else if (!ParseIlMethodBody(body, bytes, &parsed, &error) ||
             !WrapInNativeCalls(parsed,
                                {reinterpret_cast<uint64_t>(&FrameHook::EnterCall),
                                 reinterpret_cast<uint64_t>(&FrameHook::ExitCall), signature},
                                &wrapped, &error)) {
    error = "its body: " + error;
  } else {
    const std::vector<uint8_t> encoded = EncodeIlMethodBody(wrapped);
    hr = control->SetILFunctionBody(static_cast<cor::ULONG>(encoded.size()), encoded.data());
    if (cor::Failed(hr)) error = "the runtime refused its new body (" + cor::HexText(hr) + ")";
  }
  if (!error.empty()) {
    Log("the frame method " + name_ + " is not hooked: " + error);
    return cor::S_OK;  // the method keeps its own body
  }
  found_.store(true, std::memory_order_relaxed);
  return cor::S_OK;
}

void FrameHook::OnReJitError(cor::ModuleID module, cor::mdToken, cor::HRESULT status) {
  {
    std::lock_guard<std::mutex> lock(modules_mu_);
    if (!signature_.count(module)) return;
  }
  Log("the frame method " + name_ + " is not hooked: its ReJIT failed (" + cor::HexText(status) +
      ")");
}

void FrameHook::EnterCall() {
  if (g_hook) g_hook->OnEnter();
}

void FrameHook::ExitCall() {
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
  // This call's place on the stack: a nested call of the method is deeper (lower); an entry no
  // deeper than the outermost one means an exception unwound that one: its frame is over.
  const auto sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (depth_ > 0 && sp >= outer_sp_) {
    depth_ = 1;
    OnLeave();
  }
  if (depth_++ == 0) {
    outer_sp_ = sp;
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
  last_leave_ns_.store(CoarseNowNs(), std::memory_order_relaxed);
  frames_.OnLeave(completed_.load(std::memory_order_relaxed));  // only this thread adds
  completed_.fetch_add(1, std::memory_order_release);           // only this thread adds
  if (hold_asked_.load(std::memory_order_acquire)) HoldHere();
}

void FrameHook::HoldHere() {
  std::unique_lock<std::mutex> lock(wait_mu_);
  if (hold_ != Hold::kAsked) return;
  hold_ = Hold::kHeld;
  held_since_ns_.store(agent::NowNs(), std::memory_order_release);  // the port's pause clock
  wait_cv_.notify_all();
  if (wait_cv_.wait_for(lock, kMaxHold, [&] { return hold_ != Hold::kHeld; }))
    return;             // released (Release reset the state; a new request since then stays)
  hold_ = Hold::kNone;  // never released: the game goes on
  hold_asked_.store(false, std::memory_order_release);
  held_since_ns_.store(0, std::memory_order_release);
}

bool FrameHook::HoldAtFrameEnd(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(wait_mu_);
  hold_ = Hold::kAsked;
  hold_asked_.store(true, std::memory_order_release);
  if (wait_cv_.wait_until(lock, deadline, [&] { return hold_ == Hold::kHeld; })) return true;
  hold_ = Hold::kNone;  // not returned in time: the next return goes on
  hold_asked_.store(false, std::memory_order_release);
  return false;
}

void FrameHook::Release() {
  std::lock_guard<std::mutex> lock(wait_mu_);
  if (hold_ != Hold::kHeld) return;
  hold_ = Hold::kNone;
  hold_asked_.store(false, std::memory_order_release);
  held_since_ns_.store(0, std::memory_order_release);
  wait_cv_.notify_all();
}

bool FrameHook::Recent() const {
  const int64_t last = last_leave_ns_.load(std::memory_order_relaxed);
  return last != 0 && CoarseNowNs() - last < int64_t{window_ms_} * 1000 * 1000;
}

}  // namespace dotnet
}  // namespace xrpm
