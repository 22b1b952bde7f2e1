// Writes the .gcdump fuzz target's small seed corpus (run by hand when the test writer changes:
// xrpm_make_gcdump_seeds tests/fuzz/corpus/gcdump). The real samples (tests/data/gcdump) are far
// over libFuzzer's -max_len of 4096 bytes, so the seeds are tiny graphs built with the test-only
// writer: every root category, a sampled dump, a dump without addresses, an undefined node.
//
// Thread-safety: single-threaded program.
#include <cstdio>
#include <fstream>
#include <string>

#include "gcdump_test_writer.h"

namespace {

using xrpm::testing::GcDumpTestWriter;

void Save(const std::string& dir, const char* name, const std::string& bytes) {
  std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
  std::printf("%s/%s (%zu bytes)\n", dir.c_str(), name, bytes.size());
}

std::string AllRoots() {
  GcDumpTestWriter w;
  const uint32_t roots = w.AddType("[.NET Roots]", 0), statics = w.AddType("[static vars]", 0),
                 var = w.AddType("[static var Game.Instance]", 0),
                 other = w.AddType("[other roots]", 0), strong = w.AddType("[StrongHandle]", 0),
                 pinned = w.AddType("[PinnedHandle]", 0), locals = w.AddType("[local vars]", 0),
                 fin = w.AddType("[FinalizerQueue]", 0), game = w.AddType("Game", 64, "Game.dll"),
                 bytes = w.AddType("System.Byte[]", -1, "System.Private.CoreLib.dll"),
                 str = w.AddType("System.String", -1, "System.Private.CoreLib.dll");
  const uint32_t r0[] = {1, 3, 6, 7}, r1[] = {2}, r2[] = {8}, r3[] = {4, 5}, r4[] = {9},
                 r5[] = {10}, r6[] = {8, 11}, r7[] = {11}, g[] = {9, 10, 11};
  w.AddNode(roots, 0, r0, 0);
  w.AddNode(statics, 0, r1, 0);
  w.AddNode(var, 0, r2, 0);
  w.AddNode(other, 0, r3, 0);
  w.AddNode(strong, 0, r4, 0);
  w.AddNode(pinned, 0, r5, 0);
  w.AddNode(locals, 0, r6, 0);
  w.AddNode(fin, 0, r7, 0);
  w.AddNode(game, -1, g, 0x7ff000001000);
  w.AddNode(bytes, 1024, {}, 0x7ff000001040);
  w.AddNode(str, 40, {}, 0x7ff000001440);
  w.AddNode(game, -1, {}, 0x7ff000001468);
  return w.Finish();
}

std::string Sampled() {
  GcDumpTestWriter w;
  const uint32_t root = w.AddType("[.NET Roots]", 0), str = w.AddType("System.String", -1);
  const uint32_t kids[] = {1, 2};
  w.AddNode(root, 0, kids, 0);
  w.AddNode(str, 20, {}, 0x1000);
  w.AddNode(str, 30, {}, 0x1020);
  w.count_multipliers = {1, 1, 12.5f};
  w.average_count_multiplier = 12.5f;
  return w.Finish();
}

std::string NoAddressesWithUndefined() {
  GcDumpTestWriter w;
  const uint32_t root = w.AddType("[JS Roots]", 0), obj = w.AddType("(Type  JSObject)", 16);
  const uint32_t kids[] = {1}, next[] = {2, 1};
  w.AddNode(root, 0, kids, 0);
  w.AddNode(obj, -1, next, 0);
  w.AddUndefinedNode(0);
  w.write_addresses = false;
  return w.Finish();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  Save(dir, "all-root-kinds.gcdump", AllRoots());
  Save(dir, "sampled.gcdump", Sampled());
  Save(dir, "no-addresses-undefined.gcdump", NoAddressesWithUndefined());
  return 0;
}
