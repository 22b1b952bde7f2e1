#include "xrpm/app/demo_heap.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace xrpm::app {
namespace {

// SplitMix64: a fast, well-mixed deterministic hash of (seed, index).
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

enum Cat : uint8_t { kHolder, kContainer, kEntity, kLeaf };

constexpr const char* kHolders[] = {"Game.World", "Game.AssetCache", "Game.AudioManager",
                                    "Game.ParticleSystem", "Game.ScreenManager"};
constexpr const char* kContainers[] = {
    "System.Object[]", "Game.Bubble[]",
    "System.Collections.Generic.Dictionary`2+Entry[System.String,Game.Sprite][]",
    "Microsoft.Xna.Framework.Graphics.Texture2D[]",
    "System.Collections.Generic.List`1[Game.Enemy]"};
constexpr const char* kEntities[] = {"Game.Bubble",
                                     "Game.Particle",
                                     "Game.Enemy",
                                     "Game.Sprite",
                                     "Microsoft.Xna.Framework.Graphics.Texture2D",
                                     "Microsoft.Xna.Framework.Audio.SoundEffectInstance"};
constexpr const char* kLeaves[] = {"System.String",   "Microsoft.Xna.Framework.Vector2[]",
                                   "System.Byte[]",   "System.Int32[]",
                                   "System.Single[]", "System.Char[]"};
constexpr int kFillerTypes = 120;  // Game.Components.C000..: real heaps have hundreds of types

struct Builder {
  Snapshot& s;
  uint32_t seed;
  double extra = 0;
  // Type indices by category.
  std::vector<uint32_t> holders, containers, entities, leaves, fillers;
  uint32_t leak_hub = 0, leak_effect = 0, statics_class = 0;
  std::vector<uint8_t> cat;  // scratch: the category of each object of the current tree
  uint64_t base_index = 0;   // object index of cat[0]

  uint64_t H(uint64_t j, uint64_t salt) const {
    return Mix(j * 0x100000001b3ull ^ (salt << 48) ^ seed);
  }
  static ObjectId Address(uint64_t j) { return 0x00100000ull + j * 0x20; }

  uint32_t AddType(const std::string& name) {
    return s.AddType(0x10 + static_cast<TypeId>(s.types.size()) * 4, name, 0);
  }

  void MakeTypes() {
    for (auto* n : kHolders) holders.push_back(AddType(n));
    for (auto* n : kContainers) containers.push_back(AddType(n));
    for (auto* n : kEntities) entities.push_back(AddType(n));
    for (auto* n : kLeaves) leaves.push_back(AddType(n));
    char name[64];
    for (int i = 0; i < kFillerTypes; ++i) {
      std::snprintf(name, sizeof name, "Game.Components.C%03d", i);
      fillers.push_back(AddType(name));
    }
    leak_hub = AddType("Game.EventHub");
    leak_effect = AddType("Game.ParticleEffect");
    statics_class = AddType("Game.Program");
  }

  // Builds `count` objects as breadth-first trees whose first object (a holder) is rooted by a
  // static. `leak` restricts the shape to the leaking cache.
  void Tree(uint64_t count, bool leak) {
    base_index = s.object_count();
    cat.assign(count, kLeaf);
    uint64_t next = 0;  // next unassigned object (relative)
    std::vector<ObjectId> refs;
    for (uint64_t r = 0; r < count; ++r) {
      const uint64_t j = base_index + r;
      const uint64_t h = H(j, 1);
      if (r == next) {  // nothing reaches this object: start a new rooted tree, or leave garbage
        ++next;
        cat[r] = (r > 0 && h % 100 == 0) ? kEntity : kHolder;
        if (cat[r] == kHolder)
          s.AddRoot(Address(j), RootKind::kStatic, 0, s.types[statics_class].id);
      }
      uint32_t type;
      uint32_t size;
      uint64_t fan = 0;
      switch (cat[r]) {
        case kHolder:
          type = leak ? leak_hub : holders[h % holders.size()];
          size = 48;
          fan = leak ? 256 : 16 + h % 48;
          // A static field of Game.Program or of the manager's own class (a singleton).
          s.AddRoot(Address(j), RootKind::kStatic, 0,
                    s.types[(h >> 20) % 3 == 0 ? statics_class : type].id);
          break;
        case kContainer:
          type = leak ? containers[0] : containers[h % containers.size()];
          fan = 4 + h % 60;
          size = static_cast<uint32_t>(16 + 4 * fan);
          break;
        case kEntity:
          type = leak                 ? leak_effect
                 : (h >> 8) % 10 == 0 ? fillers[(h >> 16) % fillers.size()]
                                      : entities[(h >> 16) % entities.size()];
          size = 24 + static_cast<uint32_t>((type * 8) % 72);
          fan = 1 + (h >> 24) % 4;
          break;
        default:
          type = leaves[(h >> 8) % leaves.size()];
          size = 16 + static_cast<uint32_t>((h >> 32) % (type == leaves[2] ? 1024 : 128));
          break;
      }
      refs.clear();
      uint64_t end = std::min(count, next + fan);
      for (uint64_t c = next; c < end; ++c) {
        cat[c] = cat[r] == kHolder ? kContainer : cat[r] == kContainer ? kEntity : kLeaf;
        refs.push_back(Address(base_index + c));
      }
      next = end;
      if (cat[r] == kEntity && (h >> 40) % 20 == 0 && r > 0)  // shared reference / cycle
        refs.push_back(Address(base_index + (h >> 44) % r));
      if (extra > 0 && r > 0) {  // extra shared references, `extra` per object on average
        const double want = extra + double(H(j, 5) % 1000) / 1000.0;
        for (int k = 0; k < int(want); ++k) refs.push_back(Address(base_index + H(j, 16 + k) % r));
      }
      s.AddObject(Address(j), type, size, refs);
    }
  }

  void OtherRoots() {
    const uint64_t n = s.object_count();
    if (n == 0) return;
    const uint32_t origin = static_cast<uint32_t>(s.root_origins.size());
    s.root_origins.push_back("thread 1 / Game.Game1.Update");
    for (uint64_t k = 0; k < 24; ++k) {
      const uint64_t j = H(k, 7) % n;
      RootKind kind = k < 8    ? RootKind::kLocal
                      : k < 16 ? RootKind::kHandle
                      : k < 20 ? RootKind::kFinalizer
                               : RootKind::kInternal;
      uint8_t flags = kind == RootKind::kHandle && k % 2 ? kRootWeak : 0;
      if (kind == RootKind::kLocal && k % 3 == 0) flags |= kRootPinned;
      s.AddRoot(Address(j), kind, flags, 0, kind == RootKind::kLocal ? origin : kNoIndex);
    }
  }
};

}  // namespace

Snapshot GenerateDemoHeap(const DemoHeapOptions& opts) {
  Snapshot s;
  s.AddSection({.version = 2, .name = "demo.exe", .start_ms = 0x1000, .end_ms = 0x1400});
  Builder b{s, opts.seed, opts.extra_refs_per_object};
  b.MakeTypes();
  const uint64_t leaked = opts.objects / 10 * opts.generation;
  const uint64_t total = opts.objects + leaked;
  s.object_id.reserve(total);
  s.object_type.reserve(total);
  s.object_size.reserve(total);
  s.ref_end.reserve(total);
  s.refs.reserve(size_t(double(total) * (1.07 + opts.extra_refs_per_object)));
  b.Tree(opts.objects, /*leak=*/false);
  if (leaked) b.Tree(leaked, /*leak=*/true);
  b.cat = {};
  b.OtherRoots();
  s.CloseSectionRanges();
  s.source = "demo heap (" + std::to_string(total) + " objects, generation " +
             std::to_string(opts.generation) + ")";
  return s;
}

uint64_t DemoHeapPeakBytes(const DemoHeapOptions& opts) {
  const double per_object = 64 + 8 * (1 + std::max(0.0, opts.extra_refs_per_object));
  const double objects = double(opts.objects) * (1 + 0.1 * opts.generation);
  return static_cast<uint64_t>(objects * per_object);
}

}  // namespace xrpm::app
