// GameSnapshot: a small game-like heap for the diff, suspect and CLI tests.
//
// Thread-safety: none (test helper).
#pragma once

#include <string>
#include <vector>

#include "heap_builder.h"

namespace xrpm::testing {

// Game (static) -> List -> Enemy[] -> `enemies` Enemy (each -> its Sprite); plus `explosions`
// Explosion (each a local root) and `bullets` Bullet (each on the finalizer queue). Ids depend
// on `shift` so no two snapshots share ids (like real dumps).
inline Snapshot GameSnapshot(int enemies, int explosions, int bullets, ObjectId shift) {
  HeapBuilder b("game.exe");
  std::vector<ObjectId> arr;
  for (int i = 0; i < enemies; ++i) arr.push_back(shift + 0x10000 + 0x40 * i);
  b.Obj(shift + 0x100, "Game", 40, {shift + 0x200});
  b.Obj(shift + 0x200, "List", 24, {shift + 0x300});
  b.Obj(shift + 0x300, "Enemy[]", 16 + 4 * enemies, arr);
  for (int i = 0; i < enemies; ++i) {
    b.Obj(shift + 0x10000 + 0x40 * i, "Enemy", 32, {shift + 0x10020 + 0x40 * i});
    b.Obj(shift + 0x10020 + 0x40 * i, "Sprite", 68);
  }
  for (int i = 0; i < explosions; ++i) b.Obj(shift + 0x800000 + 0x40 * i, "Explosion", 50);
  for (int i = 0; i < bullets; ++i) b.Obj(shift + 0x900000 + 0x40 * i, "Bullet", 24);
  b.Root(shift + 0x100, RootKind::kStatic, 0, b.RawTypeId("Game"));
  for (int i = 0; i < explosions; ++i) b.Root(shift + 0x800000 + 0x40 * i, RootKind::kLocal);
  for (int i = 0; i < bullets; ++i) b.Root(shift + 0x900000 + 0x40 * i, RootKind::kFinalizer);
  Snapshot s = b.Build();
  s.source = "dump" + std::to_string(shift >> 28) + ".gclog";
  return s;
}

}  // namespace xrpm::testing
