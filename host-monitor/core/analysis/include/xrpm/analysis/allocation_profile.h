// AllocationProfile: who allocated, estimated from a FrameRecording's samples over a range of
// frames: by type, by allocating method (bottom-up), by stack, and as a top-down call tree, each
// with estimated bytes and objects and their share, plus per-frame figures.
//
// Estimator (xrpm/protocol/sampling.h): the device samples an allocation of s bytes with
// probability p(s) = 1 - exp(-s / N) (N = the mean sampling interval, protocol::SampleProbability),
// independently of the others, so
//   estimated bytes   = sum over samples of s / p(s)
//   estimated objects = sum over samples of 1 / p(s)
// are unbiased (Horvitz-Thompson). For s << N this is about N bytes per sample; an object larger
// than N is always sampled and counts its own size. The relative error of the byte estimate
// over B bytes is about sqrt(N / B) (1.3 % for 100 MB at N = 16 KiB). Each estimate also carries
// the unbiased estimate of its variance, sum over samples of s^2 (1 - p) / p^2 (Poisson sampling),
// whose square root is the estimate's standard error (Estimate::Error).
//
// Algorithm: one pass over the samples in the range: O(samples x stack depth) with hash maps
// keyed by type, method, (stack, type) and call-tree edge; then each list is sorted by
// estimated bytes (descending), O(k log k).
//
// Thread-safety: pure functions over an immutable recording.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xrpm/model/frame_recording.h"

namespace xrpm::analysis {

// Frames first..last (inclusive frame numbers); the default is the whole recording.
struct FrameRange {
  uint64_t first = 0;
  uint64_t last = UINT64_MAX;
  bool Contains(uint64_t f) const { return f >= first && f <= last; }
};

struct Estimate {
  double bytes = 0;     // estimated bytes allocated
  double variance = 0;  // estimated variance of `bytes` (bytes^2)
  double objects = 0;   // estimated objects allocated
  uint64_t samples = 0;
  uint64_t sampled_bytes = 0;  // sum of the sampled objects' sizes
  void Add(uint32_t size, double sample_bytes);
  double Error() const;  // standard error of `bytes`: sqrt(variance)
};
// Adds `e` into `into` (estimates of disjoint sample sets add, variances too).
void Merge(Estimate& into, const Estimate& e);

struct TypeAlloc {
  std::string type;
  Estimate est;
  double share = 0;  // of the range's estimated bytes
};

// Samples grouped by the innermost scope tag open when they were allocated (Xrpm.Profiler.Scope);
// "<untagged>" for samples outside every scope.
struct TagAlloc {
  std::string tag;
  Estimate est;
  double share = 0;
};

struct MethodAlloc {
  std::string method;
  Estimate self;     // samples whose allocating (innermost) method this is
  Estimate total;    // samples with this method anywhere on the stack (once per sample)
  double share = 0;  // self bytes / the range's estimated bytes
};

struct StackAlloc {
  uint32_t stack = 0;
  std::vector<std::string> frames;  // innermost first
  std::string type;
  Estimate est;
  double share = 0;
};

// Top-down call tree: nodes[0] is the root (all samples); children in descending total bytes.
struct CallTreeNode {
  std::string method;  // "" for the root
  Estimate total;      // samples through this node
  Estimate self;       // samples allocated by this method itself
  std::vector<uint32_t> children;
  uint32_t depth = 0;
};

struct AllocationProfile {
  FrameRange range;
  uint32_t sample_bytes = 0;
  uint64_t frames = 0;  // frame rows in the range
  // Sums of the frame rows' alloc_bytes / alloc_objects: the runtime's exact count, or, where
  // frame_totals says kEstimated, an estimate from its samples (the names are an interface:
  // `xrpm allocations --json`'s exact_bytes / exact_objects).
  uint64_t exact_bytes = 0;
  uint64_t exact_objects = 0;
  FrameTotals frame_totals = FrameTotals::kExact;  // the recording's
  Estimate total;
  double EstimatedBytesPerFrame() const { return frames ? total.bytes / frames : 0; }
  double ExactBytesPerFrame() const { return frames ? double(exact_bytes) / frames : 0; }
  std::vector<TypeAlloc> by_type;
  std::vector<MethodAlloc> by_method;
  std::vector<TagAlloc> by_tag;
  std::vector<StackAlloc> by_stack;
  std::vector<CallTreeNode> tree;
};

AllocationProfile BuildAllocationProfile(const FrameRecording& r, FrameRange range = {});

// How the CLI and the monitor name the frame rows' allocation figures (FrameRecording::
// frame_totals): "exact" or "estimated from samples".
const char* FrameTotalsLabel(FrameTotals t);
// The frame rows' figure `amount` ("1.2 KiB") in a sentence: "exact 1.2 KiB" or "frame totals
// 1.2 KiB, estimated from samples".
std::string FrameTotalsPhrase(FrameTotals t, const std::string& amount);
// One sentence on where the frame rows' figures come from (the monitor's help marker).
const char* FrameTotalsHelp(FrameTotals t);

}  // namespace xrpm::analysis
