// NETCF .gclog reader: orchestration of the stages in netcf_reader_stages.h.
#include "xrpm/formats/netcf_reader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "netcf_reader_stages.h"
#include "xrpm/model/fork_join.h"
#include "xrpm/model/mapped_file.h"

namespace xrpm::formats {

namespace {

// XRPM_NETCF_TIMING=1 prints how long each stage took to stderr (for benchmarking).
class StageTimer {
 public:
  StageTimer() : on_(std::getenv("XRPM_NETCF_TIMING") != nullptr), last_(Clock::now()) {}
  void Mark(const char* stage) {
    if (!on_) return;
    const auto now = Clock::now();
    std::fprintf(stderr, "netcf %-10s %8.3f s\n", stage,
                 std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool on_;
  Clock::time_point last_;
};

// Finds the line of the k-th object or root by re-parsing from the nearest anchor (at most
// kAnchorEvery records). Remembers the last block, so lookups sorted by index are cheap.
class LineFinder {
 public:
  LineFinder(const std::vector<std::string_view>& texts, const std::vector<ChunkResult>& chunks,
             const std::vector<uint64_t>& line_base)
      : texts_(texts), chunks_(chunks), line_base_(line_base) {
    obj_base_.push_back(0);
    root_base_.push_back(0);
    for (const ChunkResult& c : chunks) {
      obj_base_.push_back(obj_base_.back() + c.stored.objects);
      root_base_.push_back(root_base_.back() + c.stored.roots);
    }
  }

  uint64_t Line(bool root, uint64_t index) {
    const std::vector<uint64_t>& base = root ? root_base_ : obj_base_;
    if (index >= base.back()) return 0;
    const size_t c =
        static_cast<size_t>(std::upper_bound(base.begin(), base.end(), index) - base.begin()) - 1;
    const uint64_t local = index - base[c];
    const uint64_t block = local / kAnchorEvery;
    if (!(cached_ && root == cached_root_ && c == cached_chunk_ && block == cached_block_)) {
      const auto& anchors = root ? chunks_[c].root_anchors : chunks_[c].object_anchors;
      if (block >= anchors.size()) return 0;
      const Anchor& a = anchors[block];
      ChunkOptions o;
      o.max_diags = 0;
      o.first_line = a.line;
      o.record_lines = true;
      (root ? o.stop_after_roots : o.stop_after_objects) = kAnchorEvery;
      ChunkResult r = ParseChunk(texts_[c].substr(a.offset), o);
      lines_ = std::move(root ? r.root_lines : r.object_lines);
      cached_ = true;
      cached_root_ = root;
      cached_chunk_ = c;
      cached_block_ = block;
    }
    const uint64_t k = local - block * kAnchorEvery;
    return k < lines_.size() ? line_base_[c] + lines_[k] : 0;
  }

 private:
  const std::vector<std::string_view>& texts_;
  const std::vector<ChunkResult>& chunks_;
  const std::vector<uint64_t>& line_base_;
  std::vector<uint64_t> obj_base_, root_base_;
  bool cached_ = false, cached_root_ = false;
  size_t cached_chunk_ = 0;
  uint64_t cached_block_ = 0;
  std::vector<uint64_t> lines_;
};

// Reports everything pending to `diags` in line order. Strict: throws on the first.
void Flush(PendingDiags& pend, LineFinder* finder, Diagnostics& diags, const std::string& file,
           bool strict) {
  std::sort(pend.anchored.begin(), pend.anchored.end(), [](const auto& a, const auto& b) {
    return a.root != b.root ? a.root < b.root : a.index < b.index;
  });
  for (auto& a : pend.anchored)
    pend.lined.push_back(
        {finder ? finder->Line(a.root, a.index) : 0, a.code, std::move(a.message)});
  pend.anchored.clear();
  std::stable_sort(pend.lined.begin(), pend.lined.end(),
                   [](const auto& a, const auto& b) { return a.line < b.line; });
  if (strict && !pend.lined.empty()) {
    auto& d = pend.lined.front();
    throw InputError(Diagnostic{file, d.line, d.code, std::move(d.message)});
  }
  for (auto& d : pend.lined) {
    if (!diags.full())
      diags.Add(file, d.line, d.code, std::move(d.message));
    else
      diags.CountDropped(d.code, 1);
  }
  pend.lined.clear();
  for (auto& [code, n] : pend.dropped) diags.CountDropped(code, n);
  pend.dropped.clear();
}

Snapshot ReadImpl(std::string_view text, std::string_view name, Diagnostics& diags,
                  const ReadOptions& opts, const MappedFile* mapped) {
  const std::string file(name);
  const bool strict = opts.strict || diags.strict();
  const unsigned threads = ResolveThreads(opts.threads);
  const size_t by_size =
      std::max<size_t>(1, text.size() / std::max<size_t>(1, opts.min_chunk_bytes));
  const unsigned nchunks = static_cast<unsigned>(std::min<size_t>(threads, by_size));

  const std::vector<std::string_view> texts = SplitAtLines(text, nchunks);
  const unsigned n = static_cast<unsigned>(texts.size());
  StageTimer timer;
  std::vector<RecordCounts> room(n);
  // The file's pages stay mapped until the parse below releases them as it goes: the resident
  // set peaks near the model's size either way, and nothing is faulted in twice.
  ForkJoin(n, [&](unsigned i) { room[i] = CountRecords(texts[i]); });
  timer.Mark("count");

  Snapshot snap;
  const std::vector<ColumnsOut> windows = PlaceColumns(room, snap);
  std::vector<ChunkResult> chunks(n);
  ChunkOptions co;
  co.strict = strict;
  co.max_diags = strict ? 1 : std::max<size_t>(1, diags.max_kept());
  co.release = mapped;
  ForkJoin(n, [&](unsigned i) {
    ChunkOptions o = co;
    o.out = windows[i];
    chunks[i] = ParseChunk(texts[i], o);
  });
  timer.Mark("parse");
  CompactColumns(room, chunks, snap);
  timer.Mark("compact");

  std::vector<uint64_t> line_base(chunks.size() + 1, 0);
  bool any_record = false;
  for (size_t c = 0; c < chunks.size(); ++c) {
    line_base[c + 1] = line_base[c] + chunks[c].lines;
    any_record |= chunks[c].any_record;
  }

  PendingDiags pend;
  pend.cap = co.max_diags;
  for (size_t c = 0; c < chunks.size(); ++c) {
    for (LocalDiag& d : chunks[c].diags)
      pend.Add(line_base[c] + d.line, d.code, std::move(d.message));
    chunks[c].diags = {};
    for (auto& [code, n] : chunks[c].dropped) pend.dropped[code] += n;
  }
  LineFinder finder(texts, chunks, line_base);
  if (strict) Flush(pend, &finder, diags, file, true);

  SectionTypes section_types = AssembleSections(chunks, line_base, snap, pend);
  timer.Mark("sections");
  BuildTypes(section_types, snap, pend);
  timer.Mark("types");
  section_types = {};
  if (strict) Flush(pend, &finder, diags, file, true);

  std::vector<uint64_t> drop = CheckIds(snap, threads, pend);
  timer.Mark("check-ids");
  Flush(pend, &finder, diags, file, strict);
  RemoveObjects(snap, drop);
  snap.ShrinkToFit();
  timer.Mark("finish");
  snap.source = file;

  if (snap.sections.empty() && any_record) {
    throw InputError(Diagnostic{file, 0, code::kNoRecords,
                                "no valid NETCF heap dump records (a, t, o, r, c) found; " +
                                    std::to_string(diags.total()) + " problem(s) reported"});
  }
  if (!any_record) {
    // An empty or blank file is not a heap dump: an error under strict, a warning otherwise
    // (the empty snapshot still loads, so a lenient caller can show it).
    Diagnostic d{file, 0, code::kNoRecords,
                 text.empty() ? "the file is empty: no heap dump records (a, t, o, r, c)"
                              : "the file holds only blank lines: no heap dump records "
                                "(a, t, o, r, c)"};
    if (strict) throw InputError(std::move(d));
    diags.Add(std::move(d));
  }
  return snap;
}

}  // namespace

Snapshot ReadNetcf(std::string_view text, std::string_view name, Diagnostics& diags,
                   const ReadOptions& opts) {
  return ReadImpl(text, name, diags, opts, nullptr);
}

Snapshot ReadNetcfFile(const std::string& path, Diagnostics& diags, const ReadOptions& opts) {
  MappedFile mf(path);
  return ReadImpl(mf.text(), path, diags, opts, &mf);
}

}  // namespace xrpm::formats
