#include "xrpm/emulator/ground_truth.h"

#include <stdexcept>

#include "xrpm/formats/snapshot_io.h"

namespace xrpm::emulator {

std::string RuntimeNamer::ThreadName(uint64_t thread_id) const {
  const ManagedThread* t = rt_.threads().Find(thread_id);
  return t ? t->name : std::string();
}

std::string RuntimeNamer::MethodName(uint64_t method_id) const {
  MethodId m = rt_.methods().FromWireId(method_id);
  return m == kNoMethod ? std::string() : rt_.methods()[m].name;
}

Snapshot DumpToSnapshot(Runtime& rt, uint32_t timeout_ms) {
  return DumpToSnapshot(rt, DumpContents{}, timeout_ms);
}

Snapshot DumpToSnapshot(Runtime& rt, const DumpContents& contents, uint32_t timeout_ms) {
  Snapshot snap;
  snap.source = std::string("xrpm-emulator dump of ") + rt.Info().app_name;
  RuntimeNamer namer(rt);
  SnapshotBuilderSink sink(
      snap,
      SectionInfo{rt.Info().app_name, rt.Info().dump_version, [&rt] { return rt.BootMillis(); }},
      &namer);
  if (contents.fields) {
    WalkWithContents(rt, sink, snap, contents, timeout_ms);
    snap.ShrinkToFit();
    return snap;
  }
  struct Ctx {
    Runtime* rt;
    SnapshotBuilderSink* sink;
  } ctx{&rt, &sink};
  bool stopped = rt.RunWithWorldStopped(
      [](void* p) {
        auto* c = static_cast<Ctx*>(p);
        c->rt->InduceFullCollection();
        c->rt->WalkPaused(*c->sink);  // the dump keeps its own depth-first order
      },
      &ctx, timeout_ms);
  if (!stopped)
    throw std::runtime_error("the game did not reach its frame boundary within " +
                             std::to_string(timeout_ms) + " ms");
  snap.ShrinkToFit();
  return snap;
}

Snapshot WriteGroundTruthDump(Runtime& rt, const std::string& path, uint32_t timeout_ms) {
  return WriteGroundTruthDump(rt, path, ContentsFor(path, true, 0), timeout_ms);
}

Snapshot WriteGroundTruthDump(Runtime& rt, const std::string& path, const DumpContents& contents,
                              uint32_t timeout_ms) {
  Snapshot snap = DumpToSnapshot(rt, contents, timeout_ms);
  formats::SaveSnapshot(snap, path);  // by extension; .gclog by default
  return snap;
}

}  // namespace xrpm::emulator
