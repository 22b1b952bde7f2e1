// AppDomains on the wire (wire.proto HeapBatch.domain_names, TypeEntry.domain) and in the host's
// snapshot: a walk that names its domains round-trips through the batches and the assembler
// into one section per domain in creation order (types by their domain, objects by their
// type's, roots by their object's, origins with their objects); the checksum covers the domain
// fields; a type naming a domain not yet defined, or an oversized name, fails the capture with a
// clear error; a walk without domains keeps its single section.
// Type finalizers ride the same type entries (TypeEntry.has_finalizer, TypeInfo::has_finalizer):
// the flag round-trips, the checksum covers it, and a walk that never sets it (an older agent)
// leaves every type without one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "assembled_walk.h"
#include "xrpm/client/capture_assembler.h"
#include "xrpm/client/domain_sections.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"
#include "xrpm/protocol/heap_batch_writer.h"

namespace xrpm::testing {
namespace {

using client::CaptureAssembler;

// Root domain "Game.exe" (types 1 Game.Root, 2 System.String), "Worker" (types 3 Game.Job,
// 4 System.String), objects interleaved in address order as a heap walk meets them; a static
// root and a stack root in each domain, and a root whose object is not in the capture.
Walk WalkTwoDomains(bool named, size_t batch_bytes = protocol::kTargetBatchBytes) {
  Walk w;
  protocol::HeapBatchWriter writer(
      1,
      [&](wire::Envelope* env) {
        w.batches.push_back(env->heap_batch());
        return true;
      },
      false, batch_bytes);
  if (named) {
    EXPECT_TRUE(writer.Domain("Game.exe"));
    EXPECT_TRUE(writer.Domain("Worker"));
  }
  const uint32_t d1 = named ? 1 : 0, d2 = named ? 2 : 0;
  EXPECT_TRUE(writer.Type(1, "Game.Root", 9, d1));
  EXPECT_TRUE(writer.Type(2, "System.String", 13, d1));
  EXPECT_TRUE(writer.Type(3, "Game.Job", 8, d2));
  EXPECT_TRUE(writer.Type(4, "System.String", 13, d2));
  EXPECT_TRUE(writer.Container(protocol::RawContainer{11, 1, 0, 4, false, 0}));  // statics
  EXPECT_TRUE(writer.Root(0x1000, 0, 0));
  EXPECT_TRUE(writer.Container(protocol::RawContainer{11, 3, 0, 4, false, 0}));
  EXPECT_TRUE(writer.Root(0x1010, 0, 1));
  EXPECT_TRUE(writer.Container(protocol::RawContainer{3, 0x10, 0, 1, true, 7}));  // a frame
  EXPECT_TRUE(writer.Root(0x1030, 0, 2));
  EXPECT_TRUE(writer.Root(0x99999990, 0, 2));  // not in the capture
  EXPECT_TRUE(writer.Root(0x1020, 0, 2));
  // 0x1000 Root -> 0x1020 String; 0x1010 Job -> 0x1030 String; then many of each, alternating.
  const uint64_t r1 = 0x1020, r2 = 0x1030;
  EXPECT_TRUE(writer.Object(0x1000, 1, 16, &r1, 1));
  EXPECT_TRUE(writer.Object(0x1010, 3, 16, &r2, 1));
  EXPECT_TRUE(writer.Object(0x1020, 2, 16, nullptr, 0));
  EXPECT_TRUE(writer.Object(0x1030, 4, 16, nullptr, 0));
  for (uint64_t i = 0; i < 4000; ++i) {
    const uint64_t id = 0x2000 + i * 16, ref = id - 16;
    EXPECT_TRUE(writer.Object(id, i % 2 ? 3 : 1, 16, &ref, i ? 1 : 0));
  }
  EXPECT_TRUE(writer.Flush());
  w.totals = writer.totals();
  return w;
}

TEST(DomainsCapture, OneSectionPerDomainInCreationOrder) {
  const Walk w = WalkTwoDomains(true, 4096);  // small batches: names, types and objects spread
  ASSERT_GT(w.batches.size(), 2u);
  EXPECT_EQ(w.totals.domains, 2u);
  Snapshot s;
  std::string error;
  ASSERT_TRUE(Assemble(w, &s, &error)) << error;
  ASSERT_EQ(s.sections.size(), 2u);
  EXPECT_EQ(s.sections[0].name, "Game.exe");
  EXPECT_EQ(s.sections[1].name, "Worker");
  for (const auto& sec : s.sections) {
    EXPECT_EQ(sec.version, 2u);
    EXPECT_EQ(sec.start_ms, 10u);
    EXPECT_EQ(sec.end_ms, 20u);
    EXPECT_TRUE(sec.closed);
  }
  // Types by domain, objects by their type's domain, in walk order within each.
  EXPECT_EQ(s.sections[0].types_begin, 0u);
  EXPECT_EQ(s.sections[0].types_end, 2u);
  EXPECT_EQ(s.sections[1].types_end, 4u);
  EXPECT_EQ(s.types[1].name, "System.String");
  EXPECT_EQ(s.types[3].name, "System.String");
  EXPECT_EQ(s.types[3].section, 1u);
  ASSERT_EQ(s.object_count(), 4004u);
  EXPECT_EQ(s.sections[0].objects_end, 2002u);
  EXPECT_EQ(s.sections[1].objects_begin, 2002u);
  EXPECT_EQ(s.object_id[0], 0x1000u);
  EXPECT_EQ(s.object_id[1], 0x1020u);
  EXPECT_EQ(s.object_id[2], 0x2000u);
  EXPECT_EQ(s.object_id[2002], 0x1010u);
  EXPECT_EQ(s.object_id[2003], 0x1030u);
  EXPECT_EQ(s.object_id[2004], 0x2010u);
  for (size_t i = 0; i < s.object_count(); ++i) {
    const uint32_t sec = i < 2002 ? 0 : 1;
    ASSERT_EQ(s.types[s.object_type[i]].section, sec) << i;
  }
  // References travel with their objects.
  ASSERT_EQ(s.object_refs(0).size(), 1u);
  EXPECT_EQ(s.object_refs(0)[0], 0x1020u);
  ASSERT_EQ(s.object_refs(2002).size(), 1u);
  EXPECT_EQ(s.object_refs(2002)[0], 0x1030u);
  EXPECT_EQ(s.object_refs(2004)[0], 0x2000u);  // a reference across domains stays as it was
  EXPECT_EQ(s.ref_count(), 4001u);
  // Roots by their object's domain; the root of an object not in the capture: first section.
  ASSERT_EQ(s.root_count(), 5u);
  EXPECT_EQ(s.sections[0].roots_end - s.sections[0].roots_begin, 3u);
  EXPECT_EQ(s.root_object[0], 0x1000u);
  EXPECT_EQ(s.root_container[0], 1u);
  EXPECT_EQ(s.root_object[1], 0x99999990u);
  EXPECT_EQ(s.root_object[2], 0x1020u);
  EXPECT_EQ(s.root_object[3], 0x1010u);
  EXPECT_EQ(s.root_container[3], 3u);
  EXPECT_EQ(s.root_object[4], 0x1030u);
  EXPECT_EQ(s.root_origins[s.root_origin[4]], "thread 0x7 / JIT frame (stack 0x10, method 0x0)");
}

TEST(DomainsCapture, WithoutNamesOneSectionAsBefore) {
  const Walk w = WalkTwoDomains(false);
  Snapshot s;
  std::string error;
  ASSERT_TRUE(Assemble(w, &s, &error)) << error;
  ASSERT_EQ(s.sections.size(), 1u);
  EXPECT_EQ(s.sections[0].name, "Game.exe");
  EXPECT_EQ(s.object_id[1], 0x1010u) << "walk order kept";
  for (const auto& m : w.batches) EXPECT_EQ(m.domain_names_size(), 0);
}

TEST(DomainsCapture, ChecksumCoversTheDomainFields) {
  Walk w = WalkTwoDomains(true);
  ASSERT_EQ(w.batches.size(), 1u);
  Snapshot s;
  std::string error;
  Walk moved = w;  // a type moved to the other domain in transit
  moved.batches[0].mutable_types(3)->set_domain(1);
  EXPECT_FALSE(Assemble(moved, &s, &error));
  EXPECT_NE(error.find("checksum"), std::string::npos) << error;
  Walk renamed = w;
  renamed.batches[0].set_domain_names(1, "Wroker");
  EXPECT_FALSE(Assemble(renamed, &s, &error));
  EXPECT_NE(error.find("checksum"), std::string::npos) << error;
}

TEST(DomainsCapture, UndefinedDomainsAndLongNamesAreRefused) {
  Snapshot s;
  std::string error;
  Walk undefined = WalkTwoDomains(true);
  undefined.batches[0].mutable_types(0)->set_domain(3);
  EXPECT_FALSE(Assemble(undefined, &s, &error));
  EXPECT_NE(error.find("batch 0: type 0x1 is in AppDomain 3, but only 2 are defined"),
            std::string::npos)
      << error;
  Walk long_name = WalkTwoDomains(true);
  long_name.batches[0].set_domain_names(0, std::string(protocol::kMaxShortString + 1, 'x'));
  EXPECT_FALSE(Assemble(long_name, &s, &error));
  EXPECT_NE(error.find("AppDomain name over 256 bytes"), std::string::npos) << error;
}

TEST(DomainSections, DomainZeroKeepsTheCaptureSectionAndOriginsMove) {
  Snapshot s;
  AppDomainSection capture;
  capture.name = "App";
  s.AddSection(capture);
  s.AddType(1, "A", 0);
  s.AddType(2, "B", 0);
  const ObjectId ref = 0x10;
  s.AddObject(0x10, 1, 8, {});
  s.AddObject(0x20, 0, 8, {&ref, 1});
  s.AddObject(0x30, 1, 8, {});
  s.origins = AllocationOrigins{};
  s.origins->sites.resize(3);
  for (uint32_t i = 0; i < 3; ++i) s.AddObjectOrigin(100 + i, i);
  s.AddRoot(0x30, RootKind::kLocal, 0);
  s.CloseSectionRanges();
  client::SplitIntoDomainSections(&s, {"Other"}, {0, 1});
  ASSERT_EQ(s.sections.size(), 2u);
  EXPECT_EQ(s.sections[0].name, "App");
  EXPECT_EQ(s.sections[1].name, "Other");
  EXPECT_EQ(s.object_id[0], 0x20u);
  EXPECT_EQ(s.object_alloc_frame[0], 101u);
  EXPECT_EQ(s.object_alloc_site[2], 2u);
  EXPECT_EQ(s.object_refs(0)[0], 0x10u);
  EXPECT_EQ(s.sections[1].roots_begin, 0u);
  EXPECT_EQ(s.sections[1].roots_end, 1u);
  EXPECT_EQ(s.types[s.object_type[1]].name, "B");
}

// Types 1 Game.Sound (finalizer when `flags`), 2 Game.Enemy; one object of each.
Walk WalkWithFinalizers(bool flags) {
  Walk w;
  protocol::HeapBatchWriter writer(1, [&](wire::Envelope* env) {
    w.batches.push_back(env->heap_batch());
    return true;
  });
  EXPECT_TRUE(writer.Type(1, "Game.Sound", 10, 0, flags));
  EXPECT_TRUE(writer.Type(2, "Game.Enemy", 10));
  EXPECT_TRUE(writer.Container(protocol::RawContainer{3, 0x10, 0, 1, true, 7}));  // a frame
  EXPECT_TRUE(writer.Root(0x1000, 0, 0));
  const uint64_t ref = 0x1010;
  EXPECT_TRUE(writer.Object(0x1000, 2, 16, &ref, 1));
  EXPECT_TRUE(writer.Object(0x1010, 1, 16, nullptr, 0));
  EXPECT_TRUE(writer.Flush());
  w.totals = writer.totals();
  return w;
}

TEST(TypeFinalizersCapture, FlagReachesTheSnapshotTypes) {
  const Walk w = WalkWithFinalizers(true);
  ASSERT_EQ(w.batches.size(), 1u);
  EXPECT_TRUE(w.batches[0].types(0).has_finalizer());
  EXPECT_FALSE(w.batches[0].types(1).has_finalizer());
  Snapshot s;
  std::string error;
  ASSERT_TRUE(Assemble(w, &s, &error)) << error;
  ASSERT_EQ(s.types.size(), 2u);
  EXPECT_EQ(s.types[0].name, "Game.Sound");
  EXPECT_TRUE(s.types[0].has_finalizer);
  EXPECT_FALSE(s.types[1].has_finalizer);
}

TEST(TypeFinalizersCapture, OlderAgentsSayNothing) {
  const Walk w = WalkWithFinalizers(false);
  Snapshot s;
  std::string error;
  ASSERT_TRUE(Assemble(w, &s, &error)) << error;
  for (const TypeInfo& t : s.types) EXPECT_FALSE(t.has_finalizer) << t.name;
}

TEST(TypeFinalizersCapture, ChecksumCoversTheFlag) {
  Snapshot s;
  std::string error;
  Walk dropped = WalkWithFinalizers(true);  // the flag lost in transit
  dropped.batches[0].mutable_types(0)->set_has_finalizer(false);
  EXPECT_FALSE(Assemble(dropped, &s, &error));
  EXPECT_NE(error.find("checksum"), std::string::npos) << error;
  Walk added = WalkWithFinalizers(true);  // or set on another type
  added.batches[0].mutable_types(1)->set_has_finalizer(true);
  EXPECT_FALSE(Assemble(added, &s, &error));
  EXPECT_NE(error.find("checksum"), std::string::npos) << error;
}

}  // namespace
}  // namespace xrpm::testing
