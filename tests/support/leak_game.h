// LeakGame: the live heap of a simulated game with allocation origins, as the runtime would
// capture it at a given frame, for the leak filter, the CLI and the benchmarks.
//
// The game (one allocation site per kind of object, sites innermost first):
//   - LoadContent, frame 0: Game1 (static root) -> List (the event list) and -> Texture[] ->
//     `textures` Texture; it keeps them for the whole run.
//   - Every `leak_every` frames, BubbleField.Spawn <- Game1.Update creates `leak_per_spawn`
//     Bubble, and each Bubble.OnSpawn <- BubbleField.Spawn <- Game1.Update an EventHandler that
//     it subscribes to the static event list (never unsubscribed: the leak). The EventHandler
//     holds the Bubble.
//   - Every frame, Particle.Emit <- Game1.Update allocates `particles` Particle held by a local
//     (ParticleBuffer) and drops them the next frame: at a capture, the current frame's are
//     alive, the previous frame's are garbage not collected yet.
// Object ids move between captures (base address by frame), as after a compaction.
//
// Thread-safety: none (test and benchmark helper).
#pragma once

#include <cstdint>
#include <vector>

#include "xrpm/model/snapshot.h"

namespace xrpm::testing {

struct LeakGameShape {
  uint32_t textures = 50;
  uint32_t leak_every = 10;  // frames between spawns
  uint32_t leak_per_spawn = 1;
  uint32_t particles = 20;  // per frame
};

inline constexpr uint32_t kLeakGameSites = 4;  // LoadContent, Spawn, OnSpawn, Emit

inline Snapshot LeakGameCapture(uint64_t frame, const LeakGameShape& shape = {}) {
  Snapshot s;
  s.AddSection({.name = "leak.exe", .start_ms = 1000 + frame * 16});
  enum : uint32_t {
    kGame,
    kList,
    kHandlerArray,
    kTextureArray,
    kTexture,
    kBubble,
    kHandler,
    kParticle,
    kParticleBuffer
  };
  for (const char* name :
       {"Game1", "System.Collections.Generic.List`1", "System.EventHandler[]", "Texture2D[]",
        "Microsoft.Xna.Framework.Graphics.Texture2D", "Bubbles.Bubble", "System.EventHandler",
        "Bubbles.Particle", "Bubbles.ParticleBuffer"})
    s.AddType(0x100 + static_cast<TypeId>(s.types.size()), name, 0);
  AllocationOrigins o;
  o.capture_frame = frame;
  o.methods = {"Game1.LoadContent", "Bubbles.BubbleField.Spawn", "Game1.Update",
               "Bubbles.Bubble.OnSpawn", "Bubbles.Particle.Emit"};
  o.sites = {{{0}}, {{1, 2}}, {{3, 1, 2}}, {{4, 2}}};  // kLeakGameSites
  s.origins = std::move(o);

  const uint64_t spawns = frame / shape.leak_every;
  const uint64_t leaked = spawns * shape.leak_per_spawn;
  // Object i (in this order) has id base + 16 (i + 1); the base moves with every capture.
  const ObjectId base = ObjectId(1 + frame % 13) << 28;
  auto id = [base](uint64_t i) { return base + 16 * (i + 1); };
  const uint64_t game = 0, list = 1, handler_array = 2, texture_array = 3, first_leak = 4;
  const uint64_t first_texture = first_leak + 2 * leaked;
  const uint64_t buffer = first_texture + shape.textures, first_particle = buffer + 1;
  std::vector<ObjectId> refs;
  auto add = [&](uint64_t i, uint32_t type, uint32_t size, uint64_t alloc_frame, uint32_t site) {
    (void)i;  // objects are added in index order
    s.AddObject(id(i), type, size, refs);
    s.AddObjectOrigin(static_cast<uint32_t>(alloc_frame), site);
    refs.clear();
  };
  refs = {id(list), id(texture_array)};
  add(game, kGame, 40, 0, 0);
  refs = {id(handler_array)};
  add(list, kList, 24, 0, 0);
  for (uint64_t k = 0; k < leaked; ++k) refs.push_back(id(first_leak + 2 * k));
  // The list's array was last grown by the latest spawn.
  add(handler_array, kHandlerArray, static_cast<uint32_t>(16 + 4 * leaked),
      spawns * shape.leak_every, 2);
  for (uint32_t k = 0; k < shape.textures; ++k) refs.push_back(id(first_texture + k));
  add(texture_array, kTextureArray, 16 + 4 * shape.textures, 0, 0);
  for (uint64_t k = 0; k < leaked; ++k) {
    const uint64_t f = (k / shape.leak_per_spawn + 1) * shape.leak_every;
    refs = {id(first_leak + 2 * k + 1)};
    add(first_leak + 2 * k, kHandler, 32, f, 2);
    add(first_leak + 2 * k + 1, kBubble, 48, f, 1);
  }
  for (uint32_t k = 0; k < shape.textures; ++k) add(first_texture + k, kTexture, 256, 0, 0);
  // This frame's particles (held by the buffer, a local) and the last frame's (garbage).
  for (uint32_t k = 0; k < shape.particles; ++k) refs.push_back(id(first_particle + k));
  add(buffer, kParticleBuffer, 16 + 4 * shape.particles, frame, 3);
  for (uint32_t k = 0; k < shape.particles; ++k) add(first_particle + k, kParticle, 36, frame, 3);
  for (uint32_t k = 0; k < shape.particles && frame > 0; ++k)
    add(first_particle + shape.particles + k, kParticle, 36, frame - 1, 3);
  s.AddRoot(id(game), RootKind::kStatic, 0, 0x100);
  s.AddRoot(id(buffer), RootKind::kLocal, 0);
  s.CloseSectionRanges();
  s.source = "leak-" + std::to_string(frame) + ".xrpm";
  return s;
}

}  // namespace xrpm::testing
