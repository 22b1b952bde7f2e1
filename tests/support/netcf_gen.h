// Test and benchmark data for the NETCF reader (header-only; used by tests/netcf and
// bench/netcf).
//
// RandomModel: a random Snapshot made only of things a .gclog can represent, so that
//   read(write(x)) == x must hold: several sections, absent timestamps, unclosed sections,
//   end names that differ, names with spaces, placeholder types (in first-use order, as the
//   reader creates them), unknown root flag bits, dangling references.
// WriteGameHeap: a realistic XNA game heap (bubbles.exe: strings, particles, textures, lists,
//   arrays, statics...) streamed in canonical form through formats::NetcfTextWriter, deterministic
//   for a seed, in O(1) memory whatever the object count.
//
// Thread-safety: functions of their arguments only.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "xrpm/formats/netcf_writer.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::testing {

inline std::string HexName(uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), d[v & 15]);
    v >>= 4;
  } while (v);
  return s;
}

inline bool IsHexWord(const std::string& w) {
  return !w.empty() && w.size() <= 16 && std::all_of(w.begin(), w.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c));
  });
}

// A random name; with `spaces`, it may have several words (never ending in a hex-looking word,
// which a record without timestamp could not tell from one).
inline std::string RandomName(std::mt19937_64& rng, bool spaces) {
  static const char* kWords[] = {"Bubbles", "Game1.exe",      "My",     "Racer",
                                 "Tile[]",  "List`1[[x, y]]", "Sprite", "HH3.exe",
                                 "Zed",     "ünïcode",        "a.b.c",  "<>c__Display"};
  std::string s = kWords[rng() % std::size(kWords)];
  if (spaces)
    for (int n = static_cast<int>(rng() % 3); n > 0; --n)
      s += std::string(" ") + kWords[rng() % std::size(kWords)];
  return s;
}

struct RandomModelOptions {
  int max_sections = 4;
  int max_types = 12;
  int max_objects = 60;
  int max_refs = 6;
  int max_roots = 20;
};

inline Snapshot RandomModel(std::mt19937_64& rng, const RandomModelOptions& o = {}) {
  Snapshot s;
  auto chance = [&](int pct) { return static_cast<int>(rng() % 100) < pct; };
  auto u64 = [&] {
    switch (rng() % 4) {
      case 0:
        return rng() & 0xff;
      case 1:
        return rng() & 0xffffff;
      case 2:
        return rng();
      default:
        return uint64_t{0};
    }
  };
  std::vector<ObjectId> all_ids;
  const int sections = 1 + static_cast<int>(rng() % static_cast<unsigned>(o.max_sections));
  uint64_t next_id = 1 + (rng() & 0xfff);
  for (int si = 0; si < sections; ++si) {
    AppDomainSection sec;
    sec.version = chance(80) ? 2 : static_cast<uint32_t>(rng());
    sec.start_ms = chance(70) ? std::optional<uint64_t>(u64()) : std::nullopt;
    // Without a timestamp, a last word that looks hex would be read as one: avoid it.
    auto representable = [](std::string n, bool stamped) {
      if (!stamped && n.find(' ') != std::string::npos && IsHexWord(n.substr(n.rfind(' ') + 1)))
        n += "_";
      return n;
    };
    sec.name = representable(RandomName(rng, chance(40)), sec.start_ms.has_value());
    sec.closed = !chance(20);
    if (sec.closed) {
      sec.end_ms = chance(70) ? std::optional<uint64_t>(u64()) : std::nullopt;
      if (chance(15)) {
        sec.end_name = representable(RandomName(rng, chance(40)), sec.end_ms.has_value());
        if (sec.end_name == sec.name) sec.end_name += "2";
      }
    }
    const uint32_t sec_index = s.AddSection(sec);
    // Real types.
    std::vector<TypeId> real;
    const int ntypes = static_cast<int>(rng() % static_cast<unsigned>(o.max_types + 1));
    for (int t = 0; t < ntypes; ++t) {
      TypeId id = static_cast<TypeId>(chance(80) ? rng() % 0x200 : rng());
      if (id >= 0x1000 && id < 0x1008) continue;  // reserved for placeholders below
      if (std::find(real.begin(), real.end(), id) != real.end()) continue;
      real.push_back(id);
      s.AddType(id, RandomName(rng, chance(40)), sec_index);
    }
    const uint32_t first_placeholder = static_cast<uint32_t>(s.types.size());
    // Objects; some use type ids without a `t` record (placeholders, created in first-use order).
    const int nobj = static_cast<int>(rng() % static_cast<unsigned>(o.max_objects + 1));
    for (int i = 0; i < nobj; ++i) {
      uint32_t type_index;
      if (real.empty() || chance(10)) {
        TypeId id = static_cast<TypeId>(0x1000 + rng() % 8);
        type_index = kNoIndex;
        for (uint32_t t = first_placeholder; t < s.types.size(); ++t)
          if (s.types[t].id == id) type_index = t;
        if (type_index == kNoIndex)
          type_index = s.AddType(id, "<unknown type " + HexName(id) + ">", sec_index, true);
      } else {
        type_index = s.sections[sec_index].types_begin + static_cast<uint32_t>(rng() % real.size());
      }
      next_id += 1 + rng() % 64;
      ObjectId id = chance(5) ? rng() : next_id;  // occasionally a wild address
      while (std::find(all_ids.begin(), all_ids.end(), id) != all_ids.end()) id = ++next_id;
      std::vector<ObjectId> refs(rng() % static_cast<unsigned>(o.max_refs + 1));
      for (ObjectId& r : refs)
        r = (!all_ids.empty() && chance(85)) ? all_ids[rng() % all_ids.size()] : u64();
      s.AddObject(id, type_index, static_cast<uint32_t>(chance(90) ? rng() % 0x400 : rng()), refs);
      all_ids.push_back(id);
    }
    const int nroots = static_cast<int>(rng() % static_cast<unsigned>(o.max_roots + 1));
    for (int r = 0; r < nroots; ++r) {
      auto kind = static_cast<RootKind>(rng() % kRootKindCount);
      // Any bits a .gclog may carry: all but xrpm's own conservative bit, which it drops.
      uint8_t flags = static_cast<uint8_t>((chance(70) ? rng() % 8 : rng()) & ~kRootConservative);
      TypeId container = kind == RootKind::kStatic ? static_cast<TypeId>(rng() % 0x300) : 0;
      ObjectId obj = (!all_ids.empty() && chance(90)) ? all_ids[rng() % all_ids.size()] : u64();
      s.AddRoot(obj, kind, flags, container);
    }
    s.CloseSectionRanges();
  }
  return s;
}

// ---- a realistic game heap ----

struct GameType {
  const char* name;
  uint32_t base_size;  // bytes
  uint32_t size_step;  // extra bytes per "element" for strings and arrays
  uint32_t weight;     // relative share of objects (0: a singleton, created first)
  uint32_t max_refs;   // references per object: 0..max_refs (arrays: per element)
};

inline const std::vector<GameType>& GameTypes() {
  static const std::vector<GameType> k = {
      {"System.String", 16, 2, 220, 0},
      {"System.Object[]", 16, 4, 75, 1},
      {"System.Int32[]", 16, 4, 25, 0},
      {"System.Byte[]", 16, 1, 12, 0},
      {"System.Single[]", 16, 4, 12, 0},
      {"System.Char[]", 16, 2, 10, 0},
      {"System.RuntimeType", 20, 0, 8, 3},
      {"System.Text.StringBuilder", 20, 0, 6, 2},
      {"System.Collections.Generic.List`1[[Bubbles.Bubble, Bubbles, Version=1.0.0.0, "
       "Culture=neutral, PublicKeyToken=null]]",
       24, 0, 10, 1},
      {"System.Collections.Generic.List`1[[Bubbles.Particle, Bubbles, Version=1.0.0.0, "
       "Culture=neutral, PublicKeyToken=null]]",
       24, 0, 6, 1},
      {"System.Collections.Generic.Dictionary`2[[System.String, "
       "mscorlib],[Microsoft.Xna.Framework.Graphics.Texture2D, Microsoft.Xna.Framework]]",
       48, 0, 3, 4},
      {"System.Collections.Generic.Dictionary`2+Entry[[System.String, "
       "mscorlib],[Microsoft.Xna.Framework.Graphics.Texture2D, Microsoft.Xna.Framework]][]",
       16, 16, 3, 2},
      {"System.EventHandler", 32, 0, 12, 3},
      {"System.Action`1[[Microsoft.Xna.Framework.GameTime, Microsoft.Xna.Framework]]", 32, 0, 6, 2},
      {"Microsoft.Xna.Framework.GameTime", 40, 0, 4, 0},
      {"Microsoft.Xna.Framework.Graphics.Texture2D", 64, 0, 6, 3},
      {"Microsoft.Xna.Framework.Graphics.SpriteBatch", 96, 0, 0, 4},
      {"Microsoft.Xna.Framework.Graphics.SpriteFont", 56, 0, 2, 4},
      {"Microsoft.Xna.Framework.Audio.SoundEffect", 48, 0, 3, 2},
      {"Microsoft.Xna.Framework.Audio.SoundEffectInstance", 40, 0, 8, 2},
      {"Microsoft.Xna.Framework.Content.ContentManager", 52, 0, 0, 4},
      {"Bubbles.Game1", 120, 0, 0, 8},
      {"Bubbles.Bubble", 56, 0, 120, 8},
      {"Bubbles.Particle", 44, 0, 180, 6},
      {"Bubbles.ParticleSystem", 64, 0, 8, 5},
      {"Bubbles.ScoreBoard", 36, 0, 0, 3},
      {"Bubbles.Level", 80, 0, 2, 6},
      {"Bubbles.<>c__DisplayClass4", 20, 0, 10, 3},
      {"System.Threading.Thread", 60, 0, 2, 3},
      {"System.NullReferenceException", 64, 0, 1, 3},
      {"System.OutOfMemoryException", 64, 0, 1, 3},
      {"System.AppDomain", 72, 0, 0, 5},
      {"System.Reflection.Assembly", 40, 0, 3, 2},
  };
  return k;
}

// Deterministic per-index pseudo-random value (SplitMix64).
inline uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Writes a canonical one-section .gclog of `objects` objects. Type ids are small hex numbers,
// addresses increase, references favour nearby objects and a few hubs (textures, the game).
inline void WriteGameHeap(uint64_t objects, uint64_t seed,
                          const formats::NetcfTextWriter::Sink& sink) {
  const auto& types = GameTypes();
  std::vector<uint32_t> cumulative;
  uint32_t total_weight = 0;
  for (const GameType& t : types) cumulative.push_back(total_weight += t.weight);
  // Singletons (weight 0: the game, its SpriteBatch, ...) are the first objects: hubs.
  std::vector<uint32_t> singletons;
  for (uint32_t t = 0; t < types.size(); ++t)
    if (types[t].weight == 0) singletons.push_back(t);
  auto type_of = [&](uint64_t i) {
    if (i < singletons.size()) return singletons[i];
    uint32_t w = static_cast<uint32_t>(Mix(seed ^ (i * 3)) % total_weight);
    return static_cast<uint32_t>(std::upper_bound(cumulative.begin(), cumulative.end(), w) -
                                 cumulative.begin());
  };
  auto type_id = [](uint32_t t) { return static_cast<TypeId>(t * 7 % 61 + 1); };  // distinct, 1..61
  auto addr = [&](uint64_t i) { return 0x1c0000 + i * 0x40 + (Mix(seed + i) & 0x3c); };

  formats::NetcfTextWriter w(sink);
  w.BeginSection(2, "Bubbles.exe", 0x763f9d2 + (seed & 0xfff));
  for (uint32_t t = 0; t < types.size(); ++t) w.Type(type_id(t), types[t].name);
  std::vector<ObjectId> refs;
  for (uint64_t i = 0; i < objects; ++i) {
    const uint32_t t = type_of(i);
    const GameType& g = types[t];
    const uint64_t r = Mix(seed * 31 + i);
    uint32_t elements = 0, size = g.base_size;
    if (g.size_step) {
      elements = static_cast<uint32_t>(r % 24);
      size = (g.base_size + elements * g.size_step + 3) & ~3u;
    }
    refs.clear();
    const uint32_t nrefs = g.size_step ? (g.max_refs ? elements : 0)
                                       : static_cast<uint32_t>((r >> 8) % (g.max_refs + 1));
    for (uint32_t k = 0; k < nrefs; ++k) {
      const uint64_t x = Mix(r + k);
      uint64_t target;
      if (x % 8 == 0)
        target = x % 64 % (objects ? objects : 1);  // hubs: the first objects (game, textures)
      else {
        const uint64_t span = 2048;
        const uint64_t lo = i > span ? i - span : 0, hi = std::min(objects - 1, i + span);
        target = lo + (x >> 8) % (hi - lo + 1);
      }
      refs.push_back(addr(target));
    }
    w.Object(addr(i), type_id(t), size, refs);
  }
  // Roots: ~1% of objects, deterministic from the index.
  for (uint64_t i = 0; i < objects; ++i) {
    const uint64_t r = Mix(seed ^ (i * 0x51));
    if (r % 100) continue;
    const RootKind kinds[] = {RootKind::kLocal,    RootKind::kLocal,      RootKind::kStatic,
                              RootKind::kHandle,   RootKind::kGcSpecific, RootKind::kGcSpecific,
                              RootKind::kInternal, RootKind::kFinalizer};
    const RootKind k = kinds[(r >> 8) % std::size(kinds)];
    uint8_t flags = 0;
    if (k == RootKind::kHandle)
      flags = static_cast<uint8_t>((r >> 16) % 3 == 0   ? kRootWeak
                                   : (r >> 16) % 3 == 1 ? kRootPinned
                                                        : 0);
    if (k == RootKind::kLocal && (r >> 20) % 10 == 0) flags = kRootPinned;
    const TypeId container =
        k == RootKind::kStatic ? type_id(static_cast<uint32_t>(21 + (r >> 24) % 6)) : 0;
    w.Root(addr(i), k, flags, container);
  }
  w.EndSection("Bubbles.exe", 0x763fbef + (seed & 0xfff) + objects / 1000);
  w.Finish();
}

}  // namespace xrpm::testing
