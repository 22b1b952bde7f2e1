// AppDomains of a real C# program under Mono (tests/mono/programs/Domains): a capture has one
// section per live AppDomain, named by its friendly name, in creation order; each domain's
// objects, types and static roots are in its own section; the objects of an unloaded domain are
// not reported; the .gclog has one `a ... c` section per domain.
#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <set>
#include <sstream>

#include "mono_fields_run.h"
#include "mono_process.h"
#include "test_util.h"

namespace xrpm::testing {
namespace {

constexpr int kRoot = 120, kWorker = 70, kDoomed = 40;

// (section, type name) -> objects
std::map<std::pair<uint32_t, std::string>, size_t> CountBySection(const Snapshot& s) {
  std::map<std::pair<uint32_t, std::string>, size_t> n;
  for (size_t i = 0; i < s.object_count(); ++i) {
    const TypeInfo& t = s.types[s.object_type[i]];
    ++n[{t.section, t.name}];
  }
  return n;
}

void ExpectDomains(const Snapshot& s) {
  ASSERT_EQ(s.sections.size(), 2u);
  EXPECT_EQ(s.sections[0].name, "Domains.exe");
  EXPECT_EQ(s.sections[1].name, "Worker");
  auto n = CountBySection(s);
  EXPECT_EQ((n[{0, "Domains.RootHeld"}]), static_cast<size_t>(kRoot));
  EXPECT_EQ((n[{1, "Domains.WorkerHeld"}]), static_cast<size_t>(kWorker));
  EXPECT_EQ((n[{1, "Domains.RootHeld"}]), 0u);
  EXPECT_EQ((n[{0, "Domains.WorkerHeld"}]), 0u);
  for (uint32_t sec = 0; sec < 2; ++sec)
    EXPECT_EQ((n[{sec, "Domains.DoomedHeld"}]), 0u) << "the unloaded domain's objects";
  // Each section holds its own types, objects and roots (the ranges tile the columns).
  for (uint32_t sec = 0; sec < 2; ++sec) {
    const AppDomainSection& a = s.sections[sec];
    for (uint32_t t = a.types_begin; t < a.types_end; ++t) ASSERT_EQ(s.types[t].section, sec);
    for (uint64_t i = a.objects_begin; i < a.objects_end; ++i)
      ASSERT_EQ(s.types[s.object_type[i]].section, sec);
  }
  EXPECT_EQ(s.sections[1].objects_end, s.object_count());
  EXPECT_EQ(s.sections[1].roots_end, s.root_count());
  // Both domains have a System.String type of their own.
  size_t strings = 0;
  for (const TypeInfo& t : s.types) strings += t.name == "System.String";
  EXPECT_EQ(strings, 2u);
  // The worker's static list is a static root of the worker's section, contained by its holder.
  bool worker_static = false;
  for (uint64_t r = s.sections[1].roots_begin; r < s.sections[1].roots_end; ++r) {
    if (s.root_kind_of(r) != RootKind::kStatic) continue;
    for (uint32_t t = s.sections[1].types_begin; t < s.sections[1].types_end; ++t)
      worker_static = worker_static || (s.types[t].id == s.root_container[r] &&
                                        s.types[t].name == "Domains.WorkerHolder");
  }
  EXPECT_TRUE(worker_static);
}

TEST(MonoDomains, OneSectionPerLiveAppDomain) {
  SKIP_WITHOUT_MONO();
  MonoRun run({"--frame", "Domains.Program:Tick", "--frame-window-ms", "30000"}, "Domains.exe",
              {std::to_string(kRoot), std::to_string(kWorker), std::to_string(kDoomed)});
  ASSERT_FALSE(run.endpoint.empty()) << run.proc->log().All();
  ASSERT_FALSE(run.proc->log().WaitFor("Domains: ready", 30000).empty()) << run.proc->log().All();
  auto c = ConnectTo(run.endpoint);
  ASSERT_TRUE(c);
  for (int i = 0; i < 2; ++i) {  // twice: the second capture reuses the types of the first
    const client::CaptureResult r = CaptureOnce(*c, 120000);
    ASSERT_TRUE(r.ok) << r.error << "\n" << run.proc->log().All();
    ExpectDomains(*r.snapshot);
    if (i == 1) {
      const std::string gclog = GclogText(*r.snapshot);
      std::istringstream lines(gclog);
      std::vector<std::string> sections;
      for (std::string l; std::getline(lines, l);)
        if (l.rfind("a ", 0) == 0 || l.rfind("c ", 0) == 0)
          sections.push_back(l.substr(0, l.rfind(' ')));
      EXPECT_EQ(sections, (std::vector<std::string>{"a 2 Domains.exe", "c Domains.exe",
                                                    "a 2 Worker", "c Worker"}));
    }
  }
  EXPECT_EQ(run.proc->Stop(30000), 128 + SIGTERM);
}

// Fields and values with AppDomains (and the port's layout cache): a type made for a class met in
// another domain shares its class's layout, so the worker's objects and its static root carry
// their fields, values and slots like the root domain's.
TEST(MonoDomains, FieldsAndValuesInEveryDomain) {
  SKIP_WITHOUT_MONO();
  MonoFieldsRun f({"--frame", "Domains.Program:Tick", "--frame-window-ms", "30000"}, "Domains.exe",
                  {std::to_string(kRoot), std::to_string(kWorker), std::to_string(kDoomed)},
                  "Domains: ready");
  ASSERT_EQ(f.error, "");
  FieldCapture c;
  ASSERT_TRUE(f.Capture(&c)) << f.error;
  EXPECT_EQ(c.end.fields_dropped(), 0u);
  // Each held object of either domain: its type's domain, a layout, its Index (all of 0..n-1)
  // and, in the worker, its Label string "w<Index>".
  std::map<std::string, std::set<int64_t>> indexes;
  std::set<uint32_t> string_types;
  for (size_t i = 0; i < c.object_id.size(); ++i) {
    const std::string& type = c.TypeName(i);
    if (type == "System.String") string_types.insert(c.object_type[i]);
    if (type != "Domains.RootHeld" && type != "Domains.WorkerHeld") continue;
    const bool worker = type == "Domains.WorkerHeld";
    EXPECT_EQ(c.type_domain.at(c.object_type[i]), worker ? 2u : 1u) << type;
    ASSERT_NE(c.Layout(i), nullptr) << type << " has no layout";
    uint64_t bits = 0;
    ASSERT_TRUE(c.Value(i, "Index", &bits)) << type;
    const auto index = static_cast<int64_t>(bits);
    indexes[type].insert(index);
    if (!worker) continue;
    const uint64_t label = c.RefAt(i, c.FieldIndex(i, "Label"));
    ASSERT_TRUE(c.index.count(label)) << "WorkerHeld " << index << " without its Label";
    EXPECT_EQ(c.Text(c.index.at(label)), "w" + std::to_string(index));
  }
  EXPECT_EQ(indexes["Domains.RootHeld"].size(), static_cast<size_t>(kRoot));
  EXPECT_EQ(indexes["Domains.WorkerHeld"].size(), static_cast<size_t>(kWorker));
  ASSERT_EQ(string_types.size(), 2u) << "one System.String type per domain";
  for (uint32_t t : string_types) {
    ASSERT_TRUE(c.layouts.count(t)) << "System.String of domain " << c.type_domain.at(t);
    EXPECT_EQ(c.layouts.at(t).shape, protocol::TypeShape::kString);
  }
  // Both holders' static lists are roots with their static field named.
  std::set<std::string> statics;
  for (size_t r = 0; r < c.root_object.size(); ++r) {
    const protocol::RawContainer& k = c.containers.at(c.root_container[r]);
    const auto id = static_cast<uint32_t>(k.id1);
    if (k.kind != 11 || !c.type_names.count(id) || c.root_slot[r] == protocol::kNoSlot) continue;
    const std::string& holder = c.type_names.at(id);
    if (holder == "Domains.RootHolder" || holder == "Domains.WorkerHolder")
      statics.insert(holder + "." + c.layouts.at(id).statics.at(c.root_slot[r]).name + " in " +
                     std::to_string(c.type_domain.at(id)));
  }
  EXPECT_EQ(statics, (std::set<std::string>{"Domains.RootHolder.Items in 1",
                                            "Domains.WorkerHolder.Items in 2"}));
  EXPECT_EQ(f.run.proc->Stop(30000), 128 + SIGTERM);
}

}  // namespace
}  // namespace xrpm::testing
