// IlMethodBody (device-agent/ports/dotnet/src/il_method_body.h): method bodies parse from their
// tiny and fat forms with their exception sections and encode back; the frame method's rewrite
// puts the native calls at the entry and before every ret, keeps every branch and clause on the
// instruction it named, and refuses what it cannot rewrite with the byte it stopped at.
#include "il_method_body.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace xrpm::dotnet {
namespace {

constexpr uint64_t kEnter = 0x1122334455667788ull;
constexpr uint64_t kExit = 0x99aabbccddeeff00ull;
constexpr uint32_t kSig = 0x11000001;
const NativeCalls kCalls{kEnter, kExit, kSig};

std::vector<uint8_t> Call(uint64_t function) {
  std::vector<uint8_t> b = {0x21};
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(function >> (8 * i)));
  b.push_back(0xd3);
  b.push_back(0x29);
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(kSig >> (8 * i)));
  return b;
}

std::vector<uint8_t> Cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

IlMethodBody Parse(const std::vector<uint8_t>& bytes) {
  IlMethodBody body;
  std::string error;
  EXPECT_TRUE(ParseIlMethodBody(bytes.data(), bytes.size(), &body, &error)) << error;
  return body;
}

IlMethodBody Wrap(const IlMethodBody& in) {
  IlMethodBody out;
  std::string error;
  EXPECT_TRUE(WrapInNativeCalls(in, kCalls, &out, &error)) << error;
  return out;
}

std::string ParseError(const std::vector<uint8_t>& bytes) {
  IlMethodBody body;
  std::string error;
  EXPECT_FALSE(ParseIlMethodBody(bytes.data(), bytes.size(), &body, &error));
  return error;
}

std::string WrapError(const IlMethodBody& in) {
  IlMethodBody out;
  std::string error;
  EXPECT_FALSE(WrapInNativeCalls(in, kCalls, &out, &error));
  return error;
}

bool SameBody(const IlMethodBody& a, const IlMethodBody& b) {
  if (a.max_stack != b.max_stack || a.init_locals != b.init_locals ||
      a.local_signature != b.local_signature || a.code != b.code ||
      a.clauses.size() != b.clauses.size())
    return false;
  for (size_t i = 0; i < a.clauses.size(); ++i) {
    const IlClause& x = a.clauses[i];
    const IlClause& y = b.clauses[i];
    if (x.flags != y.flags || x.try_offset != y.try_offset || x.try_length != y.try_length ||
        x.handler_offset != y.handler_offset || x.handler_length != y.handler_length ||
        x.class_or_filter != y.class_or_filter)
      return false;
  }
  return true;
}

TEST(IlMethodBody, ATinyBodyGetsTheEntryCallAndTheExitCallBeforeItsRet) {
  const IlMethodBody in = Parse({0x0a, 0x02, 0x2a});  // tiny, 2 bytes: ldarg.0; ret
  EXPECT_EQ(in.max_stack, 8u);
  EXPECT_EQ(in.local_signature, 0u);
  EXPECT_EQ(in.code, (std::vector<uint8_t>{0x02, 0x2a}));
  const IlMethodBody out = Wrap(in);
  EXPECT_EQ(out.code, Cat({Call(kEnter), {0x02}, Call(kExit), {0x2a}}));
  EXPECT_EQ(out.max_stack, 9u);
  EXPECT_TRUE(SameBody(Parse(EncodeIlMethodBody(out)), out));
}

TEST(IlMethodBody, ABranchToARetLandsOnTheExitCall) {
  // ldarg.0; brfalse.s R; nop; R: ret
  const IlMethodBody out = Wrap(Parse({0x16, 0x02, 0x2c, 0x01, 0x00, 0x2a}));
  // entry 0..14, ldarg.0 15, brfalse 16..20, nop 21, exit call 22..36, ret 37
  EXPECT_EQ(out.code, Cat({Call(kEnter), {0x02, 0x39, 0x01, 0, 0, 0, 0x00}, Call(kExit), {0x2a}}));
}

TEST(IlMethodBody, ClausesFollowTheirInstructionsAndStayOutsideTheCalls) {
  // Fat header, small exception section: try { nop; leave.s E } finally { nop; endfinally }
  // E: ret
  const std::vector<uint8_t> bytes = {
      0x0b, 0x30, 0x02, 0x00, 0x06, 0,    0,    0,    0, 0, 0, 0,  // fat, more sections, stack 2
      0x00, 0xde, 0x02, 0x00, 0xdc, 0x2a,                          // code
      0,    0,                                                     // to a 4-byte boundary
      0x01, 16,   0,    0,                                         // small EH table, one clause
      0x02, 0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x02, 0, 0, 0, 0};
  const IlMethodBody in = Parse(bytes);
  ASSERT_EQ(in.clauses.size(), 1u);
  EXPECT_EQ(in.clauses[0].flags, kIlClauseFinally);
  EXPECT_EQ(in.clauses[0].try_length, 3u);
  EXPECT_EQ(in.clauses[0].handler_offset, 3u);
  EXPECT_EQ(in.clauses[0].handler_length, 2u);
  const IlMethodBody out = Wrap(in);
  // entry 0..14, nop 15, leave 16..20, nop 21, endfinally 22, exit call 23..37, ret 38
  EXPECT_EQ(out.code,
            Cat({Call(kEnter), {0x00, 0xdd, 0x02, 0, 0, 0, 0x00, 0xdc}, Call(kExit), {0x2a}}));
  ASSERT_EQ(out.clauses.size(), 1u);
  EXPECT_EQ(out.clauses[0].try_offset, 15u);
  EXPECT_EQ(out.clauses[0].try_length, 6u);
  EXPECT_EQ(out.clauses[0].handler_offset, 21u);
  EXPECT_EQ(out.clauses[0].handler_length, 2u);
  EXPECT_EQ(out.max_stack, 3u);
  // The fat exception section round-trips.
  EXPECT_TRUE(SameBody(Parse(EncodeIlMethodBody(out)), out));
}

TEST(IlMethodBody, SwitchTargetsAreRelativeToTheMovedSwitch) {
  // ldarg.0; switch (A, B); A: ret; B: nop; ret
  const IlMethodBody out = Wrap(
      Parse({0x46, 0x02, 0x45, 0x02, 0, 0, 0, 0x00, 0, 0, 0, 0x01, 0, 0, 0, 0x2a, 0x00, 0x2a}));
  // entry 0..14, ldarg.0 15, switch 16..28, exit 29..43, ret 44, nop 45, exit 46..60, ret 61
  EXPECT_EQ(out.code, Cat({Call(kEnter),
                           {0x02, 0x45, 0x02, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0},
                           Call(kExit),
                           {0x2a, 0x00},
                           Call(kExit),
                           {0x2a}}));
}

TEST(IlMethodBody, ATailCallLosesItsPrefix) {
  // tail. call 0x0a000001; ret
  const IlMethodBody out = Wrap(Parse({0x22, 0xfe, 0x14, 0x28, 0x01, 0, 0, 0x0a, 0x2a}));
  EXPECT_EQ(out.code, Cat({Call(kEnter), {0x28, 0x01, 0, 0, 0x0a}, Call(kExit), {0x2a}}));
}

TEST(IlMethodBody, BadBodiesSayWhereAndWhat) {
  EXPECT_EQ(ParseError({}), "byte 0: expected a method header, found the end");
  EXPECT_EQ(ParseError({0x01}), "byte 0: expected a tiny (..10) or fat (..11) header, found 0x1");
  EXPECT_EQ(ParseError({0x16, 0x02}), "byte 1: expected 5 bytes of code, found 1");
  EXPECT_EQ(ParseError({0x0b, 0x30, 0, 0, 1, 0, 0, 0}),
            "byte 8: expected a 12-byte fat header, found the end");
  EXPECT_EQ(ParseError({0x0b, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
            "byte 1: expected a fat header of 3 dwords, found 4");
  // A section that is not an exception table, and one whose size is not whole clauses.
  EXPECT_EQ(ParseError({0x0b, 0x30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 4, 0, 0}),
            "byte 12: expected an exception section, found section kind 0x2");
  EXPECT_EQ(ParseError({0x0b, 0x30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 3, 0, 0}),
            "byte 13: expected a section of at least 4 bytes, found 3");
  // A section's bytes beyond its whole clauses are ignored, as the runtime does.
  EXPECT_TRUE(Parse({0x0b, 0x30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 5, 0, 0, 0}).clauses.empty());
  EXPECT_EQ(ParseError({0x0b, 0x30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 16, 0, 0}),
            "byte 12: expected 16 bytes of clauses, found 4");

  EXPECT_EQ(WrapError(Parse({0x06, 0x24})), "code byte 0: expected an opcode, found 0x24");
  EXPECT_EQ(WrapError(Parse({0x0a, 0xfe, 0x08})), "code byte 0: expected an opcode, found 0xfe08");
  EXPECT_EQ(WrapError(Parse({0x06, 0xfe})),
            "code byte 1: expected a two-byte opcode, found the end");
  EXPECT_EQ(WrapError(Parse({0x0a, 0x20, 0x01})),
            "code byte 1: expected an operand, found the end");
  // br.s into the middle of ldc.i4's operand
  EXPECT_EQ(WrapError(Parse({0x1e, 0x20, 0, 0, 0, 0, 0x2b, 0xfa})),
            "code byte 6: expected a branch to an instruction, found a target at 1");
  EXPECT_EQ(WrapError(Parse({0x16, 0x45, 0xff, 0xff, 0xff, 0xff})),
            "code byte 1: expected a switch's targets, found a count of 4294967295 past the end");
  EXPECT_EQ(WrapError(Parse({0x16, 0x27, 0x01, 0, 0, 0x06})),
            "code byte 0: expected no jmp (it would skip the exit call), found jmp");
  EXPECT_EQ(WrapError(Parse({0x0e, 0x16, 0xfe, 0x0f})),
            "code byte 1: expected no localloc, found localloc");
  // tail. must prefix a call (the rewrite drops it, so a branch to it lands on the call).
  EXPECT_EQ(WrapError(Parse({0x12, 0x2b, 0x00, 0xfe, 0x14})),
            "code byte 4: expected a call after tail., found the end");
  EXPECT_EQ(WrapError(Parse({0x12, 0xfe, 0x14, 0x00, 0x2a})),
            "code byte 2: expected a call after tail., found 0x0");
  IlMethodBody bad_clause = Parse({0x1e, 0x20, 0, 0, 0, 0, 0x00, 0x2a});
  bad_clause.clauses.push_back({kIlClauseFinally, 2, 4, 6, 1, 0});
  EXPECT_EQ(WrapError(bad_clause),
            "clause 0: expected regions on instruction boundaries, found try 2+4, handler 6+1");
}

// The generator's instructions, as the test's own decoder reads them back.
struct Op {
  std::vector<uint8_t> bytes;
  int target = -1;             // a branch's target instruction
  std::vector<int> switch_to;  // a switch's
};

// Decodes the instruction set the generator uses; native-call groups become one entry each
// (kind "enter"/"exit"). Targets are instruction indices.
struct Decoded {
  std::vector<std::string> kinds;
  std::vector<std::vector<int>> targets;
};

Decoded DecodeGenerated(const std::vector<uint8_t>& code) {
  Decoded d;
  std::vector<size_t> starts;
  std::vector<std::vector<int64_t>> raw;
  size_t i = 0;
  while (i < code.size()) {
    starts.push_back(i);
    const uint8_t op = code[i];
    std::vector<int64_t> t;
    size_t len = 1;
    std::string kind = std::to_string(op);
    auto rel32 = [&](size_t at) {
      return static_cast<int32_t>(code[at] | code[at + 1] << 8 | code[at + 2] << 16 |
                                  uint32_t{code[at + 3]} << 24);
    };
    if (op == 0x21) {  // a native call
      uint64_t f = 0;
      for (int k = 0; k < 8; ++k) f |= uint64_t{code[i + 1 + k]} << (8 * k);
      kind = f == kEnter ? "enter" : f == kExit ? "exit" : "ldc.i8?";
      len = 15;
    } else if (op == 0x2b || op == 0x2d) {
      len = 2;
      t.push_back(int64_t(i) + 2 + static_cast<int8_t>(code[i + 1]));
      kind = op == 0x2b ? "br" : "brtrue";
    } else if (op == 0x38 || op == 0x3a) {
      len = 5;
      t.push_back(int64_t(i) + 5 + rel32(i + 1));
      kind = op == 0x38 ? "br" : "brtrue";
    } else if (op == 0x45) {
      const uint32_t n = static_cast<uint32_t>(rel32(i + 1));
      len = 5 + 4 * n;
      for (uint32_t k = 0; k < n; ++k) t.push_back(int64_t(i) + len + rel32(i + 5 + 4 * k));
    } else if (op == 0x1f) {
      len = 2;
    } else if (op == 0x20 || op == 0x28) {
      len = 5;
    } else if (op == 0xfe) {
      len = code[i + 1] == 0x14 ? 2 : 4;  // tail. or ldloc
      kind = code[i + 1] == 0x14 ? "tail" : "ldloc";
    }
    d.kinds.push_back(kind);
    raw.push_back(t);
    i += len;
  }
  for (const auto& t : raw) {
    std::vector<int> idx;
    for (int64_t target : t) {
      const auto it = std::find(starts.begin(), starts.end(), static_cast<size_t>(target));
      idx.push_back(it == starts.end() ? -1 : static_cast<int>(it - starts.begin()));
    }
    d.targets.push_back(idx);
  }
  return d;
}

TEST(IlMethodBody, RandomCodeKeepsEveryInstructionAndBranchTarget) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 300; ++round) {
    // Instructions first, then branch targets among them.
    const int count = 1 + static_cast<int>(rng() % 60);
    std::vector<Op> ops;
    for (int k = 0; k < count; ++k) {
      Op op;
      switch (rng() % 9) {
        case 0:
          op.bytes = {0x00};
          break;
        case 1:
          op.bytes = {0x02};
          break;
        case 2:
          op.bytes = {0x1f, static_cast<uint8_t>(rng())};
          break;
        case 3:
          op.bytes = {0x20, 1, 2, 3, 4};
          break;
        case 4:
          op.bytes = {0x2a};
          break;
        case 5:
          op.bytes = {static_cast<uint8_t>(rng() % 2 ? 0x2b : 0x2d), 0};
          op.target = 0;
          break;
        case 6:
          op.bytes = {0x38, 0, 0, 0, 0};
          op.target = 0;
          break;
        case 7:
          op.switch_to.resize(rng() % 4);
          op.bytes = {0x45};
          break;
        case 8:
          op.bytes = {0xfe, 0x14, 0x28, 1, 0, 0, 0x0a};
          break;  // tail. call
      }
      ops.push_back(op);
    }
    ops.push_back({{0x2a}});
    // Offsets, then targets (short branches only where they reach).
    std::vector<size_t> at(ops.size() + 1, 0);
    for (auto& op : ops)
      if (op.bytes[0] == 0x45) op.bytes.resize(5 + 4 * op.switch_to.size());
    for (size_t k = 0; k < ops.size(); ++k) at[k + 1] = at[k] + ops[k].bytes.size();
    std::vector<uint8_t> code;
    std::vector<int> expected_targets;  // flattened, as instruction indices
    for (size_t k = 0; k < ops.size(); ++k) {
      Op& op = ops[k];
      auto put32 = [&](size_t pos, int32_t v) {
        for (int b = 0; b < 4; ++b) op.bytes[pos + b] = static_cast<uint8_t>(v >> (8 * b));
      };
      const int64_t end = static_cast<int64_t>(at[k + 1]);
      if (op.target >= 0) {
        int t = static_cast<int>(rng() % ops.size());
        if (op.bytes[0] != 0x38) {
          for (int tries = 0; tries < 50 && std::llabs(int64_t(at[t]) - end) > 127; ++tries)
            t = static_cast<int>(rng() % ops.size());
          if (std::llabs(int64_t(at[t]) - end) > 127) t = static_cast<int>(k + 1);
          op.bytes[1] = static_cast<uint8_t>(static_cast<int8_t>(int64_t(at[t]) - end));
        } else {
          put32(1, static_cast<int32_t>(int64_t(at[t]) - end));
        }
        op.target = t;
      }
      if (op.bytes[0] == 0x45) {
        put32(1, static_cast<int32_t>(op.switch_to.size()));
        for (size_t s = 0; s < op.switch_to.size(); ++s) {
          op.switch_to[s] = static_cast<int>(rng() % ops.size());
          put32(5 + 4 * s, static_cast<int32_t>(int64_t(at[op.switch_to[s]]) - end));
        }
      }
      code.insert(code.end(), op.bytes.begin(), op.bytes.end());
    }
    IlMethodBody in;
    in.code = code;
    const IlMethodBody out = Wrap(in);

    // Expected, instruction by instruction: the entry call, then each original instruction (a
    // tail. prefix gone, an exit call before each ret), targets on the same instructions (a
    // branch to a ret on its exit call).
    std::vector<std::string> kinds = {"enter"};
    std::vector<int> index_of(ops.size(), 0);
    for (size_t k = 0; k < ops.size(); ++k) {
      const Op& op = ops[k];
      index_of[k] = static_cast<int>(kinds.size());
      if (op.bytes[0] == 0x2a) kinds.push_back("exit");
      if (op.bytes[0] == 0xfe) {
        kinds.push_back(std::to_string(0x28));
        continue;
      }
      const uint8_t b = op.bytes[0];
      kinds.push_back(b == 0x2b || b == 0x38 ? "br" : b == 0x2d ? "brtrue" : std::to_string(b));
    }
    const Decoded d = DecodeGenerated(out.code);
    ASSERT_EQ(d.kinds, kinds) << "round " << round;
    for (size_t k = 0; k < ops.size(); ++k) {
      const Op& op = ops[k];
      const size_t pos = static_cast<size_t>(index_of[k]) + (op.bytes[0] == 0x2a ? 1 : 0);
      std::vector<int> want;
      if (op.target >= 0) want.push_back(index_of[op.target]);
      for (int s : op.switch_to) want.push_back(index_of[s]);
      ASSERT_EQ(d.targets[pos], want) << "round " << round << " instruction " << k;
    }
  }
}

}  // namespace
}  // namespace xrpm::dotnet
