// The `mistakes` scenario: a small XNA-style game whose heap holds each classic mistake the
// automatic inspections (docs/INSPECTIONS.md) find, a known number of times, next to
// near-misses that must not be reported. Planted once in Setup; frames only tick.
//
//   duplicate-strings   "Grunt" held by 5 Enemy.name strings (one finding, 5 copies); near-miss:
//                       "Boss" held once
//   event-handler-leaks 4 Enemy subscribed to the static event Mistakes.GameEvents.EnemyKilled
//                       and held nowhere else (one finding, 4 objects); near-miss: a fifth
//                       subscriber that the game's enemy list also holds
//   disposed-but-held   2 Texture2D with isDisposed = true in Game.textures (one finding);
//                       near-misses: a live Texture2D not disposed, a disposed one unreachable
//   sparse-collections  List<Enemy> Game.spawnQueue: 1 of 32; 9 empty List<int>(4096) in
//                       Game.histories (two findings); near-misses: List<Enemy> Game.enemies 5 of
//                       16 (31 %), Game.reserve 12 of 20 (60 %), a tenth List<int> 2000 of 4096
//   boxed-values        40 boxed Mistakes.Hit (a struct no field declares: found by the type's
//                       trait) in Object[] Game.hits, 3 boxed Int32 in Object[] Game.scores (two
//                       findings); near-misses: a Hit and an Int32 box left unreachable
//   finalizable         2 Mistakes.SoundHandle (a class with a finalizer) dropped without
//                       Dispose: the capture's full collection queues them for finalization;
//                       with the 2 the game holds (the type's finalizer trait), one finding of 4
// The runtime's own objects (threads, assemblies, interned literals) add none of these.
//
// Thread-safety: see Scenario.
#pragma once

#include <atomic>

#include "xrpm/emulator/scenario.h"

namespace xrpm::emulator {

class MistakesScenario final : public Scenario {
 public:
  const char* name() const override { return "mistakes"; }
  void Setup(Runtime& rt) override;
  void Frame(Runtime& rt, uint64_t frame, double dt) override;
  std::string Status() const override;

 private:
  std::atomic<uint64_t> frames_{0};
};

}  // namespace xrpm::emulator
