// Object contents through the CLI: `xrpm show`, `xrpm instances`, field names on
// `xrpm paths` (text and JSON) and the notice of `xrpm convert` to a format that drops them, on
// an .xrpm file of the synthetic game heap (tests/core/fields_game.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "fields_game.h"
#include "tool_process.h"
#include "xrpm/formats/xrpm_file.h"

namespace xrpm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class FieldsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("xrpm_fields_cli_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    file_ = (dir_ / "game.xrpm").string();
    formats::WriteXrpmFile(testing::MakeFieldsGame(), file_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs xrpm; returns the exit code, stdout (and stderr after it when asked) in *out.
  int Xrpm(const std::string& args, std::string* out, bool with_stderr = false) const {
    const testing::RunResult r = testing::RunXrpm(args, with_stderr);
    *out += r.out;
    return r.exit_code;
  }
  json Json(const std::string& args) const {
    std::string out;
    EXPECT_EQ(Xrpm(args + " --json", &out), 0) << args;
    return json::parse(out, nullptr, false);
  }

  fs::path dir_;
  std::string file_;
};

TEST_F(FieldsCli, ShowListsFieldsValuesAndReferrersWithTheirFields) {
  const json j = Json("show " + file_ + " 1340");
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["id"], "1340");
  EXPECT_EQ(j["type"], "Bubbles.Bubble");
  EXPECT_EQ(j["size"], 72);
  EXPECT_TRUE(j.contains("retained"));
  std::map<std::string, json> f;
  for (const json& x : j["fields"]) f[x["name"].get<std::string>()] = x;
  EXPECT_EQ(f["name"], json::parse(R"({"name": "name", "type": "System.String", "ref": "1540",
                                      "text": "Bubble 1"})"));
  EXPECT_EQ(f["IsAlive"]["value"], false);
  EXPECT_EQ(f["state"]["value"], "Popped");
  EXPECT_EQ(f["position.X"]["value"], -1.0);
  EXPECT_EQ(f["initial"]["value"], "\xc3\xa9");
  EXPECT_EQ(f["ticks"]["value"], 18000000000000000000ull);
  EXPECT_EQ(f["id"]["value"], 41);
  EXPECT_EQ(f["id"]["type"], "System.Int64");
  EXPECT_EQ(j["referrers"], json::parse(R"([{"id": "1600", "type": "System.EventHandler",
                                             "field": "_target"}])"));

  const json arr = Json("show " + file_ + " 1200");
  EXPECT_EQ(arr["length"], 4);
  const json str = Json("show " + file_ + " 1580");
  EXPECT_EQ(str["cut"], true);
  EXPECT_EQ(str["length"], 20);
  EXPECT_EQ(str["referrers"][0]["field"], "name");
  const json list = Json("show " + file_ + " 1200");
  EXPECT_EQ(list["referrers"][0]["field"], "_items");

  std::string text;
  EXPECT_EQ(Xrpm("show " + file_ + " 1340", &text), 0);
  EXPECT_NE(text.find("System.String@1540 \"Bubble 1\""), std::string::npos) << text;
  EXPECT_NE(text.find("System.EventHandler@1600._target"), std::string::npos) << text;
  std::string bad;
  EXPECT_EQ(Xrpm("show " + file_ + " 9999", &bad, true), 1);
  EXPECT_NE(bad.find("no object with id 9999"), std::string::npos) << bad;
}

// `xrpm show` says what the object's type is when the file carries type traits, and that it
// does not know otherwise.
TEST_F(FieldsCli, ShowSaysTheTypesTraits) {
  std::string text;
  EXPECT_EQ(Xrpm("show " + file_ + " 1340", &text), 0);
  EXPECT_NE(text.find("type: traits not known"), std::string::npos) << text;
  EXPECT_TRUE(Json("show " + file_ + " 1340")["type_traits"]["kind"].is_null());

  Snapshot s = testing::MakeFieldsGame();
  for (TypeInfo& t : s.types) {
    t.traits.kind = TypeKind::kClass;
    if (t.name == "Bubbles.Bubble") t.has_finalizer = true;
    if (t.name.ends_with("[]")) {
      t.traits = {TypeKind::kArray, 2, "", t.name.substr(0, t.name.size() - 2)};
    }
  }
  const std::string traits = (dir_ / "traits.xrpm").string();
  formats::WriteXrpmFile(s, traits);
  text.clear();
  EXPECT_EQ(Xrpm("show " + traits + " 1340", &text), 0);
  EXPECT_NE(text.find("type: class, has finalizer"), std::string::npos) << text;
  const json bubble = Json("show " + traits + " 1340");
  EXPECT_EQ(bubble["type_traits"]["kind"], "class");
  EXPECT_EQ(bubble["type_traits"]["has_finalizer"], true);
  const json arr = Json("show " + traits + " 1200");
  ASSERT_TRUE(arr["type"].get<std::string>().ends_with("[]")) << arr;
  EXPECT_EQ(arr["type_traits"]["kind"], "array");
  EXPECT_EQ(arr["type_traits"]["array_rank"], 2);
  EXPECT_EQ(arr["type_traits"]["text"],
            "array rank 2 of " + arr["type_traits"]["element_type"].get<std::string>());
}

TEST_F(FieldsCli, InstancesFiltersOnFieldsAndShowsChosenColumns) {
  const json j = Json("instances " + file_ + " Bubble --where IsAlive=false --columns name,state");
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["type"], "Bubbles.Bubble");
  EXPECT_EQ(j["count"], 1);
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["id"], "1340");
  EXPECT_EQ(j["rows"][0]["size"], 72);
  EXPECT_EQ(j["rows"][0]["fields"], json::parse(R"({"name": {"ref": "1540", "text": "Bubble 1"},
                                                    "state": "Popped"})"));
  EXPECT_EQ(Json("instances " + file_ + " Bubble --where 'name=Bubble 0'")["rows"][0]["id"],
            "1300");
  EXPECT_EQ(Json("instances " + file_ + " Bubble --where state=7")["rows"][0]["id"], "1380");
  EXPECT_EQ(Json("instances " + file_ + " Bubble --where position.X=1.5")["count"], 1);
  EXPECT_EQ(Json("instances " + file_ + " Bubble --where IsAlive=true --where tint=200")["count"],
            2);
  const json all = Json("instances " + file_ + " Bubble");
  EXPECT_EQ(all["count"], 3);
  EXPECT_EQ(all["rows"][0]["fields"].size(), 15u);  // every field by default

  std::string err;
  EXPECT_EQ(Xrpm("instances " + file_ + " Bubble --where nope=1", &err, true), 1);
  EXPECT_NE(err.find("has no field 'nope'; its fields: name IsAlive"), std::string::npos) << err;
  err.clear();
  EXPECT_EQ(Xrpm("instances " + file_ + " Bubble --where IsAlive", &err, true), 2);
  EXPECT_NE(err.find("expected FIELD=VALUE"), std::string::npos) << err;
}

TEST_F(FieldsCli, PathsNameTheFieldOfEveryStep) {
  const json j = Json("paths " + file_ + " --object 1580");
  std::vector<json> fields;
  for (const json& h : j["path"]["hops"]) fields.push_back(h["field"]);
  EXPECT_EQ(json(fields), json::parse(R"(["name", "[2]", "_items", "bubbles",
                                          "in Bubbles.Game1.Update, thread 1"])"));
  EXPECT_EQ(j["path"]["root"]["label"], "in Bubbles.Game1.Update, thread 1");

  const json m = Json("paths " + file_ + " --type Bubbles.Bubble");
  const json& top = m["merged_paths"]["paths"][1];
  EXPECT_EQ(top["root"]["label"], "Bubbles.GameEvents.Popped");
  EXPECT_EQ(top["steps"][0]["field"], "Bubbles.GameEvents.Popped");
  EXPECT_EQ(top["steps"][1]["field"], "_target");

  std::string text;
  EXPECT_EQ(Xrpm("paths " + file_ + " --type Bubbles.Bubble", &text), 0);
  EXPECT_NE(text.find("static Bubbles.GameEvents.Popped -> System.EventHandler._target -> "
                      "Bubbles.Bubble"),
            std::string::npos)
      << text;
  text.clear();
  EXPECT_EQ(Xrpm("paths " + file_ + " --object 1340", &text), 0);
  EXPECT_NE(text.find("System.EventHandler@1600._target"), std::string::npos) << text;
  EXPECT_NE(text.find("<- root: static Bubbles.GameEvents.Popped"), std::string::npos) << text;
}

TEST_F(FieldsCli, ConvertSaysWhatAFormatDrops) {
  std::string err;
  EXPECT_EQ(Xrpm("convert " + file_ + " " + (dir_ / "g.gclog").string(), &err, true), 0);
  EXPECT_NE(err.find("note: netcf does not keep the type layouts, the field names of 8 "
                     "references, the root labels and the values of 10 objects"),
            std::string::npos)
      << err;
  err.clear();
  EXPECT_EQ(Xrpm("convert " + file_ + " " + (dir_ / "g.heapsnapshot").string(), &err, true), 0);
  EXPECT_NE(err.find("only field names and string text are exported"), std::string::npos) << err;
}

}  // namespace
}  // namespace xrpm
