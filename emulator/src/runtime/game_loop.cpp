#include "xrpm/emulator/game_loop.h"

#include <chrono>
#include <exception>

namespace xrpm::emulator {

GameLoop::GameLoop(Runtime& rt, Scenario& scenario, LoopConfig config)
    : rt_(rt), scenario_(scenario), config_(config) {}

GameLoop::~GameLoop() {
  RequestStop();
  Join();
}

void GameLoop::Setup() {
  MutatorScope m(rt_.world());
  scenario_.Setup(rt_);
  rt_.EndFrame();
}

void GameLoop::Start(std::function<void()> on_finished) {
  on_finished_ = std::move(on_finished);
  thread_ = std::thread([this] { Loop(); });
}

void GameLoop::RunHere() {
  Loop();
}

void GameLoop::RunHereUntil(uint64_t frames) {
  config_.max_frames = frames;
  Loop();
}

void GameLoop::RequestStop() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
}

void GameLoop::Join() {
  if (thread_.joinable()) thread_.join();
}

std::string GameLoop::error() const {
  std::lock_guard<std::mutex> lock(m_);
  return error_;
}

void GameLoop::Loop() {
  using Clock = std::chrono::steady_clock;
  const double dt = 1.0 / (config_.fps > 0 ? config_.fps : 60.0);
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(dt));
  auto deadline = Clock::now();
  try {
    for (uint64_t frame = frames();; ++frame) {
      {
        std::lock_guard<std::mutex> lock(m_);
        if (stop_ || (config_.max_frames && frame >= config_.max_frames)) break;
      }
      {
        MutatorScope m(rt_.world());
        rt_.BeginFrame();
        scenario_.Frame(rt_, frame, dt);
        rt_.EndFrame();
        // Inside the mutator scope: a stopped world sees a frame counter that does not move.
        frames_.store(frame + 1, std::memory_order_relaxed);
      }
      if (config_.fps > 0) {
        deadline += period;
        auto now = Clock::now();
        if (now > deadline + 10 * period) deadline = now;  // fell far behind: resynchronise
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait_until(lock, deadline, [&] { return stop_; });
      }
    }
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(m_);
    error_ = e.what();
  }
  finished_.store(true);
  if (on_finished_) on_finished_();
}

}  // namespace xrpm::emulator
