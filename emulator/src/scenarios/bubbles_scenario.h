// The `bubbles` and `leak` scenarios: an XNA game for the Xbox 360 as NETCF runs it.
//
// Bubbles rise from the bottom of a 1280x720 screen; the player pops them (hits are random but
// seeded), which raises the static event Bubbles.GameEvents.BubblePopped, bursts particles,
// plays a SoundEffectInstance and rebuilds the score. Every frame produces garbage the way XNA
// games on NETCF do: a fresh vertex array for the bubble outlines, bubbles.ToArray() for the
// collision test, smoke particles behind every bubble, the score string (Int32.ToString +
// String.Concat), String.Format with a boxed Int32, a boxed List<Bubble>.Enumerator from foreach
// over IEnumerable<T>, a boxed Vector2 in a debug overlay, particles that die after a second,
// delegate lists rebuilt on every subscribe/unsubscribe, banners kept through WeakReferences, a
// FormatException every 5 s.
//
// Roots at the frame boundary: thread 1 is parked in GraphicsDevice.Present (a native frame
// pinning the particle vertices) under Game.Tick (which holds an interior pointer into its
// GameTime), Game.Run and Program.Main; thread 2 is the finalizer thread; thread 3 streams audio
// with its buffer pinned in a native call and through a pinned GC handle; a normal handle keeps
// the audio callback; weak handles watch the banners; statics hold the game, the event and boxed
// Vector2 constants; the root table holds interned literals and RuntimeType objects.
//
// `leak` is the same game with one bug: a bubble that leaves the game never unsubscribes from
// BubblePopped, so the event's invocation list keeps every bubble (its label and trail) alive.
// Allocation sites: the Bubble is allocated in Bubbles.BubbleField.Spawn, its handler, label and
// trail in Bubbles.Bubble.OnSpawn (called from Spawn); the per-frame garbage comes from Update,
// Draw, the particle system and the score board, never from those two methods.
//
// Thread-safety: see Scenario.
#pragma once

#include <atomic>

#include "bubbles_types.h"
#include "xrpm/emulator/deterministic_random.h"
#include "xrpm/emulator/method_frame_scope.h"
#include "xrpm/emulator/scenario.h"

namespace xrpm::emulator {

class BubblesScenario final : public Scenario {
 public:
  BubblesScenario(const ScenarioParams& p, bool leak)
      : rng_(Mix(p.seed, 0x627562626c6573ull)), leak_(leak) {}
  const char* name() const override { return leak_ ? "leak" : "bubbles"; }
  void Setup(Runtime& rt) override;
  void Frame(Runtime& rt, uint64_t frame, double dt) override;
  std::string Status() const override;

 private:
  // bubbles_setup.cpp
  void CreateGame(Runtime& rt);
  void LoadContent(Runtime& rt);
  Addr LoadTexture(Runtime& rt, const char* asset, int32_t width, int32_t height);
  void CreateGameState(Runtime& rt);
  void StartAudio(Runtime& rt);
  void EnterPresent(Runtime& rt);
  // bubbles_frame.cpp
  void Update(Runtime& rt, uint64_t frame, double dt);
  void Draw(Runtime& rt);
  void DrawBubbles(Runtime& rt);
  void DrawParticles(Runtime& rt);
  void RebuildText(Runtime& rt);
  void RenderBanner(Runtime& rt, uint64_t frame);
  // bubbles_entities.cpp
  void SpawnBubble(Runtime& rt);
  void OnSpawn(Runtime& rt, Addr* bubble);
  void MoveBubbles(Runtime& rt, MethodFrameScope& update, uint64_t frame, double dt);
  void RemoveBubble(Runtime& rt, uint32_t index, bool hit);
  void RaisePopped(Runtime& rt, Addr* args);
  void Burst(Runtime& rt, float x, float y, int32_t color);
  void UpdateParticles(Runtime& rt, double dt);
  void EmitSmoke(Runtime& rt);
  void CheckCollisions(Runtime& rt);

  Addr game(Runtime& rt) const { return rt.statics().Get(t_.game1_instance); }
  Addr field(Runtime& rt, uint16_t game_field) const { return rt.Ref(game(rt), game_field); }
  void SetLocal(Runtime& rt, size_t depth, uint32_t i, Addr a, uint8_t flags = 0);

  BubblesTypes t_{};
  DeterministicRandom rng_;
  bool leak_;
  size_t tick_depth_ = 0;
  int32_t bubbles_spawned_ = 0;  // names them "Bubble 1", "Bubble 2", ... (game thread)
  std::atomic<uint32_t> bubbles_{0}, particles_{0}, handlers_{0};
  std::atomic<int32_t> score_{0};
};

}  // namespace xrpm::emulator
