// Type traits on the wire (wire.proto TypeEntry.kind, enum_underlying, array_rank,
// element_type_name) and in the host's snapshot (TypeInfo::traits): each kind round-trips through
// the batches and the assembler, with the underlying kind as a type name and the element type
// canonical; the checksum covers them; an agent that sends none (an older one) leaves every
// kind unknown; traits that break the wire's rules fail the batch with the type and the rule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "assembled_walk.h"
#include "xrpm/client/capture_assembler.h"
#include "xrpm/protocol/envelope_io.h"
#include "xrpm/protocol/heap_batch.h"
#include "xrpm/protocol/heap_batch_writer.h"

namespace xrpm::testing {
namespace {

protocol::RawType Type(uint32_t id, std::string name, protocol::TypeKind kind) {
  protocol::RawType t;
  t.id = id;
  t.name = std::move(name);
  t.kind = kind;
  return t;
}

// Types 1 Game.Enemy (class), 2 Game.Hit (struct), 3 Game.Weapon (enum of Byte), 4
// System.Int32[,] (array rank 2), 5 Game.Hit[] (array rank 1); one object each. `traits`
// false: as an older agent, names only.
Walk WalkWithTraits(bool traits) {
  Walk w;
  protocol::HeapBatchWriter writer(1, [&](wire::Envelope* env) {
    w.batches.push_back(env->heap_batch());
    return true;
  });
  using K = protocol::TypeKind;
  std::vector<protocol::RawType> types = {
      Type(1, "Game.Enemy", K::kClass), Type(2, "Game.Hit", K::kValueType),
      Type(3, "Game.Weapon", K::kEnum), Type(4, "System.Int32[,]", K::kArray),
      Type(5, "Game.Hit[]", K::kArray)};
  types[2].enum_underlying = protocol::FieldKind::kByte;
  types[3].array_rank = 2;
  types[3].element_type = "System.Int32";
  types[4].array_rank = 1;
  types[4].element_type = "Game.Hit";
  for (protocol::RawType& t : types) {
    if (!traits) t = Type(t.id, t.name, K::kUnknown);
    EXPECT_TRUE(writer.Type(t));
  }
  EXPECT_TRUE(writer.Container(protocol::RawContainer{3, 0x10, 0, 1, true, 7}));  // a frame
  EXPECT_TRUE(writer.Root(0x1000, 0, 0));
  for (uint32_t i = 0; i < 5; ++i)
    EXPECT_TRUE(writer.Object(0x1000 + 0x10 * i, i + 1, 16, nullptr, 0));
  EXPECT_TRUE(writer.Flush());
  w.totals = writer.totals();
  return w;
}

TEST(TypeTraitsCapture, EachKindReachesTheSnapshotTypes) {
  const Walk w = WalkWithTraits(true);
  ASSERT_EQ(w.batches.size(), 1u);
  EXPECT_EQ(w.batches[0].types(3).kind(), wire::TYPE_KIND_ARRAY);
  EXPECT_EQ(w.batches[0].types(3).array_rank(), 2u);
  Snapshot s;
  std::string error;
  ASSERT_TRUE(Assemble(w, &s, &error)) << error;
  ASSERT_EQ(s.types.size(), 5u);
  EXPECT_TRUE(s.has_type_traits());
  EXPECT_EQ(s.types[0].traits.kind, TypeKind::kClass);
  EXPECT_TRUE(s.types[1].traits.value_type());
  EXPECT_EQ(s.types[2].traits.kind, TypeKind::kEnum);
  EXPECT_TRUE(s.types[2].traits.value_type());
  EXPECT_EQ(DescribeTypeTraits(s.types[2].traits, false), "enum of System.Byte");
  EXPECT_EQ(s.types[3].name, "System.Int32[,]");
  EXPECT_EQ(DescribeTypeTraits(s.types[3].traits, false), "array rank 2 of System.Int32");
  EXPECT_EQ(s.types[4].traits.element_type, "Game.Hit");
  EXPECT_EQ(s.types[4].traits.array_rank, 1u);
}

TEST(TypeTraitsCapture, OlderAgentsSayNothing) {
  const Walk w = WalkWithTraits(false);
  Snapshot s;
  std::string error;
  ASSERT_TRUE(Assemble(w, &s, &error)) << error;
  EXPECT_FALSE(s.has_type_traits());
  for (const TypeInfo& t : s.types) EXPECT_FALSE(t.traits.known()) << t.name;
}

TEST(TypeTraitsCapture, ChecksumCoversTheTraits) {
  Snapshot s;
  std::string error;
  Walk changed = WalkWithTraits(true);  // a struct said a class in transit
  changed.batches[0].mutable_types(1)->set_kind(wire::TYPE_KIND_CLASS);
  EXPECT_FALSE(Assemble(changed, &s, &error));
  EXPECT_NE(error.find("checksum"), std::string::npos) << error;
  Walk rank = WalkWithTraits(true);
  rank.batches[0].mutable_types(3)->set_array_rank(3);
  EXPECT_FALSE(Assemble(rank, &s, &error));
  EXPECT_NE(error.find("checksum"), std::string::npos) << error;
}

TEST(TypeTraitsCapture, TraitsAgainstTheRulesAreRefused) {
  struct Case {
    const char* what;
    void (*mutate)(wire::TypeEntry*);
    const char* error;
  };
  const Case cases[] = {
      {"unknown kind", [](wire::TypeEntry* t) { t->set_kind(static_cast<wire::TypeKind>(9)); },
       "type 4: kind 9, expected 0..4"},
      {"rank 0", [](wire::TypeEntry* t) { t->set_array_rank(0); },
       "type 4: array rank 0, expected 1..32"},
      {"rank 33", [](wire::TypeEntry* t) { t->set_array_rank(33); },
       "type 4: array rank 33, expected 1..32"},
      {"rank on a class", [](wire::TypeEntry* t) { t->set_kind(wire::TYPE_KIND_CLASS); },
       "type 4: an array rank or element type on a type that is not an array"},
      {"enum of Double",
       [](wire::TypeEntry* t) {
         t->set_kind(wire::TYPE_KIND_ENUM);
         t->clear_array_rank();
         t->clear_element_type_name();
         t->set_enum_underlying(wire::FIELD_DOUBLE);
       },
       "type 4: enum underlying kind 15, expected an integer kind"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Walk w = WalkWithTraits(true);
    c.mutate(w.batches[0].mutable_types(3));
    Snapshot s;
    std::string error;
    EXPECT_FALSE(Assemble(w, &s, &error));
    EXPECT_NE(error.find(c.error), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace xrpm::testing
