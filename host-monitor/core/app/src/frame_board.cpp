#include "xrpm/app/frame_board.h"

#include <algorithm>
#include <cctype>

namespace xrpm::app {

namespace {

bool Contains(const std::string& hay, const std::string& needle) {
  if (needle.empty()) return true;
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != hay.end();
}

}  // namespace

const char* AllocGroupName(AllocGroup g) {
  switch (g) {
    case AllocGroup::kType:
      return "type";
    case AllocGroup::kMethod:
      return "method";
    case AllocGroup::kStack:
      return "stack";
  }
  return "type";
}

std::optional<AllocGroup> AllocGroupFromName(const std::string& name) {
  for (AllocGroup g : {AllocGroup::kType, AllocGroup::kMethod, AllocGroup::kStack})
    if (name == AllocGroupName(g)) return g;
  return std::nullopt;
}

bool FrameBoard::Update(client::HostClient& c) {
  const size_t frames = rec_.frames.size(), samples = rec_.samples.size();
  const uint64_t sub = rec_.subscription;
  c.TakeFrames(&rec_);
  if (rec_.subscription != sub) {  // a new subscription: a new recording
    selection_.reset();
    follow_ = true;
  } else if (rec_.frames.size() == frames && rec_.samples.size() == samples) {
    return false;
  }
  dirty_ = true;
  ClampWindow();
  return true;
}

std::vector<FrameBoard::MarkerAt> FrameBoard::MarkersIn(size_t first_row, size_t count) const {
  std::vector<MarkerAt> out;
  const auto& frames = rec_.frames;
  const auto& markers = rec_.markers;
  if (first_row >= frames.size() || count == 0 || markers.empty()) return out;
  const size_t last_row = std::min(frames.size(), first_row + count) - 1;
  const uint64_t lo = frames[first_row].frame, hi = frames[last_row].frame;
  auto it = std::lower_bound(markers.begin(), markers.end(), lo,
                             [](const MarkerRow& m, uint64_t f) { return m.frame < f; });
  for (; it != markers.end() && it->frame <= hi; ++it) {
    const auto end = frames.begin() + static_cast<std::ptrdiff_t>(last_row) + 1;
    auto row =
        std::lower_bound(frames.begin() + static_cast<std::ptrdiff_t>(first_row), end, it->frame,
                         [](const FrameRow& f, uint64_t v) { return f.frame < v; });
    if (row == end || row->frame != it->frame) continue;  // its frame was not received
    out.push_back(
        {static_cast<size_t>(row - frames.begin()), static_cast<size_t>(it - markers.begin())});
  }
  return out;
}

void FrameBoard::Load(FrameRecording rec) {
  const bool same = rec.subscription == rec_.subscription;
  rec_ = std::move(rec);
  if (!same) {
    selection_.reset();
    follow_ = true;
  }
  dirty_ = true;
  ClampWindow();
}

void FrameBoard::Reset() {
  rec_ = {};
  selection_.reset();
  first_ = 0;
  count_ = kDefaultWindow;
  follow_ = true;
  dirty_ = rows_dirty_ = true;
}

void FrameBoard::ClampWindow() {
  const size_t n = rec_.frames.size();
  count_ = std::max<size_t>(count_, 10);
  if (follow_ || first_ + count_ > n) first_ = n > count_ ? n - count_ : 0;
}

void FrameBoard::Zoom(double factor, size_t anchor) {
  const size_t n = rec_.frames.size();
  if (n == 0) return;
  anchor = std::min(anchor, n - 1);
  const double rel = count_ ? double(anchor - std::min(anchor, first_)) / double(count_) : 0.5;
  const auto want = static_cast<size_t>(std::max(10.0, double(count_) * factor));
  count_ = std::min(want, std::max<size_t>(n, kDefaultWindow));
  const auto left = static_cast<int64_t>(double(anchor) - rel * double(count_));
  first_ = static_cast<size_t>(std::clamp<int64_t>(left, 0, int64_t(n > count_ ? n - count_ : 0)));
  follow_ = first_ + count_ >= n && factor >= 1.0 && follow_;
  ClampWindow();
}

void FrameBoard::Pan(int64_t rows) {
  const size_t n = rec_.frames.size();
  const int64_t max_first = int64_t(n > count_ ? n - count_ : 0);
  first_ = static_cast<size_t>(std::clamp<int64_t>(int64_t(first_) + rows, 0, max_first));
  follow_ = int64_t(first_) >= max_first && rows > 0;
}

void FrameBoard::Follow() {
  follow_ = true;
  ClampWindow();
}

void FrameBoard::Select(uint64_t a, uint64_t b) {
  selection_ = analysis::FrameRange{std::min(a, b), std::max(a, b)};
  dirty_ = true;
  Recompute(true);
}

void FrameBoard::ClearSelection() {
  selection_.reset();
  dirty_ = true;
  Recompute(true);
}

void FrameBoard::Recompute(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!dirty_) return;
  if (!force && now - computed_at_ < std::chrono::duration<double>(kRefreshSeconds)) return;
  const analysis::FrameRange range = selection_.value_or(analysis::FrameRange{});
  profile_ = analysis::BuildAllocationProfile(rec_, range);
  summary_ = analysis::SummarizeFrames(rec_, range);
  computed_at_ = now;
  dirty_ = false;
  rows_dirty_ = true;
}

const analysis::AllocationProfile& FrameBoard::profile() {
  Recompute(false);
  return profile_;
}

const analysis::FrameSummary& FrameBoard::summary() {
  Recompute(false);
  return summary_;
}

const std::vector<AllocRow>& FrameBoard::rows() {
  Recompute(false);
  if (!rows_dirty_ && rows_group_ == group && rows_column_ == column &&
      rows_descending_ == descending && rows_filter_ == filter)
    return rows_;
  rows_group_ = group;
  rows_column_ = column;
  rows_descending_ = descending;
  rows_filter_ = filter;
  rows_dirty_ = false;
  rows_.clear();
  const double per = profile_.frames ? 1.0 / double(profile_.frames) : 0;
  if (group == AllocGroup::kType) {
    for (const auto& t : profile_.by_type)
      if (Contains(t.type, filter))
        rows_.push_back({t.type, t.est, t.est, t.share, t.est.bytes * per});
  } else {
    for (const auto& m : profile_.by_method)
      if (Contains(m.method, filter))
        rows_.push_back({m.method, m.self, m.total, m.share, m.self.bytes * per});
  }
  auto key = [&](const AllocRow& r) -> double {
    switch (column) {
      case AllocColumn::kObjects:
        return r.est.objects;
      case AllocColumn::kSamples:
        return double(r.est.samples);
      case AllocColumn::kShare:
      case AllocColumn::kPerFrame:
      case AllocColumn::kBytes:
      case AllocColumn::kName:
        return r.est.bytes;
    }
    return r.est.bytes;
  };
  std::stable_sort(rows_.begin(), rows_.end(), [&](const AllocRow& a, const AllocRow& b) {
    if (column == AllocColumn::kName) return descending ? a.name > b.name : a.name < b.name;
    return descending ? key(a) > key(b) : key(a) < key(b);
  });
  return rows_;
}

}  // namespace xrpm::app
