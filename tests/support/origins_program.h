// Checks of a capture of the Origins program (tests/mono/programs/Origins, run under Mono and,
// compiled by the SDK, under .NET), whose allocation origins are known by construction: every
// known origin of an Origins.Tracked object or its byte[] payload names
// Origins.Maker.MakeTracked under Origins.Program.Tick and the frame the program made them in;
// every known Origins.Early names Origins.Program.MakeEarly at frame 0.
//
// Thread-safety: plain functions on a snapshot; gtest assertions from the calling test thread.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "xrpm/model/snapshot.h"

namespace xrpm::testing {

// An object's allocation site, innermost method first.
inline std::vector<std::string> OriginMethods(const Snapshot& s, size_t i) {
  std::vector<std::string> m;
  for (uint32_t k : s.origins->sites[s.object_alloc_site[i]].methods)
    m.push_back(s.origins->methods[k]);
  return m;
}

struct OriginsCounts {
  size_t tracked = 0, tracked_known = 0, payloads = 0, payloads_known = 0, early_known = 0;
};

// Counts the Tracked objects and their payloads, checking every known origin among them
// (made when `make_frame` frames had completed).
inline OriginsCounts CheckOriginsProgram(const Snapshot& s, uint32_t make_frame) {
  OriginsCounts n;
  std::unordered_map<ObjectId, size_t> index;
  for (size_t i = 0; i < s.object_count(); ++i) index[s.object_id[i]] = i;
  auto check = [&](size_t i, const std::string& what) {
    const std::vector<std::string> m = OriginMethods(s, i);
    EXPECT_GE(m.size(), 2u) << what;
    if (m.size() < 2) return;
    EXPECT_EQ(m[0], "Origins.Maker.MakeTracked") << what;
    EXPECT_EQ(m[1], "Origins.Program.Tick") << what;
    EXPECT_EQ(s.object_alloc_frame[i], make_frame) << what;
    EXPECT_EQ(s.age_frames(i), s.origins->capture_frame - make_frame) << what;
  };
  for (size_t i = 0; i < s.object_count(); ++i) {
    const std::string type = s.type_name_of(i);
    if (type == "Origins.Early" && s.origin_known(i)) {
      ++n.early_known;
      EXPECT_EQ(s.object_alloc_frame[i], 0u);
      EXPECT_EQ(OriginMethods(s, i).front(), "Origins.Program.MakeEarly");
    }
    if (type != "Origins.Tracked") continue;
    ++n.tracked;
    if (s.origin_known(i)) {
      ++n.tracked_known;
      check(i, "Tracked");
    }
    for (ObjectId r : s.object_refs(i)) {
      auto it = index.find(r);
      if (it == index.end() || s.type_name_of(it->second) != "System.Byte[]") continue;
      ++n.payloads;
      if (s.origin_known(it->second)) {
        ++n.payloads_known;
        check(it->second, "payload");
      }
    }
  }
  return n;
}

}  // namespace xrpm::testing
