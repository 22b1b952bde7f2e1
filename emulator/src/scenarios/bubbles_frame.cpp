// BubblesScenario per frame: Game.Tick -> Update, Draw, then Present (the frame boundary).
#include <cstdio>
#include <cstring>

#include "bubbles_scenario.h"
#include "xrpm/emulator/bcl_delegate.h"
#include "xrpm/emulator/bcl_string.h"
#include "xrpm/emulator/bcl_weak_reference.h"

namespace xrpm::emulator {
namespace {
constexpr int64_t kTicksPerSecond = 10000000;  // TimeSpan ticks
constexpr uint32_t kBannerEvery = 120;
constexpr uint32_t kBannersCached = 4;
constexpr uint32_t kParseEvery = 300;
constexpr uint32_t kHistoryResetEvery = 1800;
constexpr uint32_t kAudioTimerEvery = 30;
// A wave of bubbles: the game marks its start ("Wave N") and asks for a capture when it ends
// ("Wave N ended"), as a game would through Xrpm.Profiler.
constexpr uint64_t kWaveFrames = 120;
}  // namespace

void BubblesScenario::Frame(Runtime& rt, uint64_t frame, double dt) {
  ManagedThread& main = rt.main_thread();
  main.frames.pop_back();  // GraphicsDevice.Present returns: the vertical blank came
  const uint64_t wave = frame / kWaveFrames + 1;
  char text[32];
  if (frame % kWaveFrames == 0) {
    std::snprintf(text, sizeof text, "Wave %llu", static_cast<unsigned long long>(wave));
    rt.Marker(text);
  }

  Addr time = field(rt, t_.game1_f.game_time);
  const auto ticks = static_cast<int64_t>(dt * kTicksPerSecond);
  rt.SetI64(time, t_.game_time_f.elapsed, ticks);
  rt.SetI64(time, t_.game_time_f.total, rt.I64(time, t_.game_time_f.total) + ticks);
  rt.SetI64(time, t_.game_time_f.elapsed_real, ticks);
  rt.SetI64(time, t_.game_time_f.total_real, rt.I64(time, t_.game_time_f.total_real) + ticks);

  Update(rt, frame, dt);
  Draw(rt);
  EnterPresent(rt);
  if (frame % kWaveFrames == kWaveFrames - 1) {
    std::snprintf(text, sizeof text, "Wave %llu ended", static_cast<unsigned long long>(wave));
    rt.RequestCapture(text);
  }

  Addr g = game(rt);
  rt.SetI32(g, t_.game1_f.frame_count, rt.I32(g, t_.game1_f.frame_count) + 1);
  bubbles_.store(ListCount(rt, rt.Ref(g, t_.game1_f.bubbles)), std::memory_order_relaxed);
  particles_.store(
      ListCount(rt, rt.Ref(rt.Ref(g, t_.game1_f.particles), t_.particle_system_f.particles)),
      std::memory_order_relaxed);
  Addr handlers = rt.statics().Get(t_.events_popped);
  handlers_.store(handlers ? DelegateInvocationCount(rt, handlers) : 0, std::memory_order_relaxed);
  score_.store(rt.I32(rt.Ref(g, t_.game1_f.score_board), t_.score_board_f.score),
               std::memory_order_relaxed);
}

void BubblesScenario::Update(Runtime& rt, uint64_t frame, double dt) {
  MethodFrameScope u(rt, rt.main_thread(), t_.update, 3);
  u.set(0, game(rt));

  MoveBubbles(rt, u, frame, dt);
  float timer = rt.F32(game(rt), t_.game1_f.spawn_timer) + static_cast<float>(dt);
  while (timer >= 0.25f) {
    timer -= 0.25f;
    if (ListCount(rt, field(rt, t_.game1_f.bubbles)) < 48) {
      rt.EnterScope("Spawn");  // using (Xrpm.Profiler.Scope("Spawn"))
      SpawnBubble(rt);
      rt.LeaveScope();
    }
  }
  rt.SetF32(game(rt), t_.game1_f.spawn_timer, timer);
  CheckCollisions(rt);
  rt.EnterScope("Particles");
  EmitSmoke(rt);
  UpdateParticles(rt, dt);
  rt.LeaveScope();
  RebuildText(rt);

  // The cursor drifts with the thumbstick; a debug overlay formats it through object[] args.
  Addr g = game(rt);
  float cx = rt.F32(g, t_.game1_f.cursor) + rng_.Range(-4, 4);
  float cy = rt.F32(g, t_.game1_f.cursor + 4) + rng_.Range(-4, 4);
  rt.SetF32(g, t_.game1_f.cursor, cx);
  rt.SetF32(g, t_.game1_f.cursor + 4, cy);
  u.set(1, rt.New(t_.vector2));  // (object)cursor
  rt.SetF32(u.get(1), t_.vec2.x, cx);
  rt.SetF32(u.get(1), t_.vec2.y, cy);
  Addr args = rt.NewArray(rt.core().object_array, 1);
  rt.SetElem(args, 0, u.get(1));
  rt.SetRef(game(rt), t_.game1_f.debug_args, args);

  if (frame % kBannerEvery == kBannerEvery - 1) RenderBanner(rt, frame);
  if (frame % kParseEvery == kParseEvery / 2) {
    // int.Parse of a corrupt high-score line throws; the game catches it and goes on.
    MethodFrameScope p(rt, rt.main_thread(), t_.parse_scores, 0);
    rt.ThrowAndCatch(rt.core().format_exception, "Input string was not in a correct format.");
  }
  if (frame % kHistoryResetEvery == kHistoryResetEvery - 1) {
    u.set(1, rt.Ref(field(rt, t_.game1_f.score_board), t_.score_board_f.history));
    ListClear(rt, u.get(1));
    ListTrimExcess(rt, t_.int_list, u.slot(1));
  }
  if (frame % kAudioTimerEvery == 0) {
    // The audio timer fires on the thread pool and submits the next buffer.
    rt.counters().Add(Counter::kScheduledTimers, 1);
    rt.counters().Add(Counter::kWorkItemsQueued, 1);
    rt.counters().Add(Counter::kPlatformInvokeCalls, 1);
  }
}

void BubblesScenario::RebuildText(Runtime& rt) {
  MethodFrameScope f(rt, rt.main_thread(), t_.rebuild_text, 3);
  Addr board = field(rt, t_.game1_f.score_board);
  // Text = Prefix + Score.ToString()
  f.set(0, rt.statics().Get(t_.score_prefix));
  f.set(1, Int32ToString(rt, rt.I32(board, t_.score_board_f.score)));
  f.set(2, StringConcat(rt, f.slot(0), f.slot(1)));
  rt.SetRef(field(rt, t_.game1_f.score_board), t_.score_board_f.text, f.get(2));
  // statusText = String.Format("{0} bubbles", bubbles.Count)
  f.set(0, rt.Intern("{0} bubbles"));
  Addr status = StringFormatInt(rt, f.slot(0),
                                static_cast<int32_t>(ListCount(rt, field(rt, t_.game1_f.bubbles))));
  rt.SetRef(game(rt), t_.game1_f.status_text, status);
}

void BubblesScenario::RenderBanner(Runtime& rt, uint64_t frame) {
  // A fresh banner texture replaces the old one, which only a WeakReference still sees.
  MethodFrameScope f(rt, rt.main_thread(), t_.make_banner, 2);
  f.set(0, rt.New(t_.texture2d));
  Addr name = rt.NewString("banner_" + std::to_string(frame));
  rt.SetRef(f.get(0), t_.texture_f.name, name);
  rt.SetRef(f.get(0), t_.texture_f.device,
            rt.Ref(field(rt, t_.game1_f.graphics), t_.graphics_f.device));
  rt.SetI32(f.get(0), t_.texture_f.width, 256);
  rt.SetI32(f.get(0), t_.texture_f.height, 64);
  rt.SetRef(field(rt, t_.game1_f.score_board), t_.score_board_f.banner, f.get(0));
  f.set(1, WeakReferenceNew(rt, f.slot(0)));
  f.set(0, field(rt, t_.game1_f.banner_cache));
  ListAdd(rt, t_.weak_list, f.slot(0), f.slot(1));
  if (ListCount(rt, f.get(0)) > kBannersCached) ListRemoveAt(rt, f.get(0), 0);
}

void BubblesScenario::Draw(Runtime& rt) {
  MethodFrameScope d(rt, rt.main_thread(), t_.draw, 1);
  d.set(0, game(rt));
  DrawBubbles(rt);
  DrawParticles(rt);
}

void BubblesScenario::DrawBubbles(Runtime& rt) {
  // Outlines: a new VertexPositionColor[] every frame (a common XNA mistake), eight vertices per
  // bubble, handed pinned to DrawUserPrimitives.
  constexpr uint32_t kSegments = 8;
  MethodFrameScope f(rt, rt.main_thread(), t_.draw_bubbles, 1);
  uint32_t count = ListCount(rt, field(rt, t_.game1_f.bubbles));
  f.set(0, rt.NewArray(t_.vertex_array, count * kSegments));
  Addr list = field(rt, t_.game1_f.bubbles);
  uint8_t* out = rt.ArrayData(f.get(0));
  for (uint32_t i = 0; i < count; ++i) {
    Addr b = ListGet(rt, list, i);
    const float x = rt.F32(b, t_.bubble_f.position), y = rt.F32(b, t_.bubble_f.position + 4);
    const float r = rt.F32(b, t_.bubble_f.radius);
    const int32_t color = rt.I32(b, t_.bubble_f.color);
    static constexpr float kCos[kSegments] = {1, 0.7071f, 0, -0.7071f, -1, -0.7071f, 0, 0.7071f};
    for (uint32_t s = 0; s < kSegments; ++s) {
      float v[3] = {x + r * kCos[s], y + r * kCos[(s + 2) % kSegments], 0};
      std::memcpy(out, v, 12);
      std::memcpy(out + 12, &color, 4);
      out += 16;
    }
  }
  MethodFrameScope native(rt, rt.main_thread(), t_.draw_user_primitives, 1,
                          agent::ContainerType::kNativeFrame);
  native.set(0, f.get(0), kRootFlagPinned);
  rt.counters().Add(Counter::kPlatformInvokeCalls, 1);
}

void BubblesScenario::DrawParticles(Runtime& rt) {
  // ParticleSystem.Draw: four vertices per particle into the system's own array, grown when it
  // is too small.
  MethodFrameScope p(rt, rt.main_thread(), t_.draw_particles, 1);
  Addr ps = field(rt, t_.game1_f.particles);
  uint32_t count = ListCount(rt, rt.Ref(ps, t_.particle_system_f.particles));
  uint32_t have = rt.Length(rt.Ref(ps, t_.particle_system_f.vertices));
  if (count * 4 > have) {
    uint32_t cap = have;
    while (cap < count * 4) cap *= 2;
    Addr bigger = rt.NewArray(t_.vertex_array, cap);
    rt.SetRef(field(rt, t_.game1_f.particles), t_.particle_system_f.vertices, bigger);
    ps = field(rt, t_.game1_f.particles);
  }
  Addr list = rt.Ref(ps, t_.particle_system_f.particles);
  Addr vertices = rt.Ref(ps, t_.particle_system_f.vertices);
  uint8_t* out = rt.ArrayData(vertices);
  for (uint32_t i = 0; i < count; ++i) {
    Addr particle = ListGet(rt, list, i);
    float x = rt.F32(particle, t_.particle_f.position);
    float y = rt.F32(particle, t_.particle_f.position + 4);
    int32_t color = rt.I32(particle, t_.particle_f.color);
    for (int v = 0; v < 4; ++v) {
      float xyz[3] = {x + ((v & 1) ? 2.f : -2.f), y + ((v & 2) ? 2.f : -2.f), 0};
      std::memcpy(out, xyz, 12);
      std::memcpy(out + 12, &color, 4);
      out += 16;
    }
  }
  p.set(0, vertices);
  MethodFrameScope native(rt, rt.main_thread(), t_.draw_user_primitives, 1,
                          agent::ContainerType::kNativeFrame);
  native.set(0, vertices, kRootFlagPinned);
  rt.counters().Add(Counter::kPlatformInvokeCalls, 1);
}

std::string BubblesScenario::Status() const {
  std::string s = std::to_string(bubbles_.load()) + " bubbles, " +
                  std::to_string(particles_.load()) + " particles, score " +
                  std::to_string(score_.load());
  if (leak_) s += ", " + std::to_string(handlers_.load()) + " BubblePopped handlers";
  return s;
}

}  // namespace xrpm::emulator
