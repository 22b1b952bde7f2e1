// Test-only .gcdump writer: builds a GCHeapDump (version 10) FastSerialization image byte for
// byte as PerfView's Serializer would, for hand-built test inputs, tiny fuzz seeds and the
// 5 M-node import benchmark. xrpm itself does not write .gcdump files.
//
// Nodes are added in index order; children may name nodes added later (the records store
// deltas). Knobs below produce the malformed variants the hardening tests need.
//
// Thread-safety: none (a value being built).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace xrpm::testing {

class GcDumpTestWriter {
 public:
  GcDumpTestWriter();  // type 0 is "UNDEFINED" (size 0) and blob offset 0 its record

  uint32_t AddType(std::string name, int32_t size = -1, std::string module = {});
  // Appends node `node_count()`; returns its index. `size` < 0: the type's size.
  uint32_t AddNode(uint32_t type, int32_t size, std::span<const uint32_t> children,
                   uint64_t address);
  // Appends a node that is referenced but never defined (PerfView's UNDEFINED).
  uint32_t AddUndefinedNode(uint64_t address);
  uint32_t node_count() const { return static_cast<uint32_t>(offsets_.size()); }

  int32_t root = 0;
  std::vector<float> count_multipliers;  // per type; empty: not sampled
  float average_count_multiplier = 1, average_size_multiplier = 1;
  std::string process_name = "test.exe", creation_tool = "xrpm-test";
  bool write_addresses = true;
  // Malformed variants:
  bool unknown_object = false;          // an object of type "Xrpm.Unknown" in the JSHeapInfo slot
  bool backward_skip_region = false;    // a tagged InteropInfo whose skip region ends before it
  bool self_forward_reference = false;  // DotNetHeapInfo as a forward reference whose
                                        // definition holds a forward reference to itself

  std::string Finish() const;

  // PerfView's compressed int, appended to `out`.
  static void PutVarint(std::string& out, int32_t v);

 private:
  struct Type {
    std::string name;
    int32_t size;
    std::string module;
  };
  std::vector<Type> types_;
  std::vector<uint32_t> offsets_;
  std::vector<uint64_t> addresses_;
  std::string blob_;
  int64_t total_size_ = 0;
};

}  // namespace xrpm::testing
