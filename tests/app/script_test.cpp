#include <gtest/gtest.h>

#include "xrpm/app/script.h"

namespace xrpm::app {
namespace {

TEST(Script, ParsesStepsSkippingCommentsAndBlankLines) {
  auto steps = ParseScript(
      "# a test\n\ndemo 1000 2\nselect-type System.Collections.Generic.List`1[Game Enemy]\r\n"
      "view types\n  wait-idle  \nscreenshot /tmp/a b.png\nfilter\nquit\n",
      "t.script");
  ASSERT_EQ(steps.size(), 7u);
  EXPECT_EQ(steps[0].verb, "demo");
  EXPECT_EQ(steps[0].args, (std::vector<std::string>{"1000", "2"}));
  EXPECT_EQ(steps[0].line, 3u);
  EXPECT_EQ(steps[1].args[0], "System.Collections.Generic.List`1[Game Enemy]");
  EXPECT_EQ(steps[3].verb, "wait-idle");
  EXPECT_TRUE(steps[3].args.empty());
  EXPECT_EQ(steps[4].args[0], "/tmp/a b.png");
  EXPECT_TRUE(steps[5].args.empty());
  EXPECT_EQ(steps[6].ToString(), "line 9: quit");
}

void ExpectError(const char* text, const char* code, uint64_t line, const char* fragment) {
  try {
    ParseScript(text, "s.txt");
    ADD_FAILURE() << "no error for: " << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.diagnostic().code, code) << e.what();
    EXPECT_EQ(e.diagnostic().line, line) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("s.txt:"), std::string::npos) << e.what();
  }
}

TEST(Script, CaptureCanBeSplitToShowItsProgress) {
  auto steps = ParseScript("capture-start\nscreenshot p.png\nwait-capture\n", "t.script");
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].verb, "capture-start");
  EXPECT_EQ(steps[2].verb, "wait-capture");
  ExpectError("wait-capture now\n", "bad-args", 1, "wait-capture");
}

TEST(Script, KeysAndDialogsAreCheckedWhenParsed) {
  auto steps = ParseScript("key ctrl+o\nkey enter\nexpect-dialog quit-unsaved\n", "t.script");
  ASSERT_EQ(steps.size(), 3u);
  auto k = ParseScriptKey("ctrl+o");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->ctrl);
  EXPECT_EQ(k->key, 'o');
  EXPECT_EQ(ParseScriptKey("escape")->key, ScriptKey::kEscape);
  EXPECT_FALSE(ParseScriptKey("ctrl+O"));
  ExpectError("key ctrl+shift+o\n", "bad-key", 1, "ctrl+shift+o");
  ExpectError("expect-dialog save-as\n", "unknown-dialog", 1, "save-as");
  ExpectError("expect-view typez\n", "unknown-view", 1, "typez");
}

TEST(Script, RejectsMistakesWithFileAndLine) {
  ExpectError("quit\nscreenshoot x.png\n", "unknown-step", 2, "screenshoot");
  ExpectError("view typez\n", "unknown-view", 1, "typez");
  ExpectError("open\n", "bad-args", 1, "open FILE");
  ExpectError("quit now\n", "bad-args", 1, "extra text");
  ExpectError("demo lots\n", "bad-number", 1, "lots");
  ExpectError("demo 1 2 3 4\n", "bad-args", 1, "4 arguments");
  EXPECT_EQ(ParseScript("demo 1000 0 2\n", "t.script")[0].args.size(), 3u);
  ExpectError("select-object last\n", "bad-args", 1, "last");
  ExpectError("select-finding leaks\n", "bad-args", 1, "leaks");
  ExpectError("select-finding boxed-values 0\n", "bad-args", 1, "boxed-values 0");
  ExpectError("select-finding boxed-values 1 2\n", "bad-args", 1, "1 2");
}

TEST(Script, SelectFindingTakesAnInspectionAndAnOptionalNumber) {
  auto steps = ParseScript(
      "select-finding event-handler-leaks\nselect-finding boxed-values 2\n"
      "view inspections\n",
      "t.script");
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].args, (std::vector<std::string>{"event-handler-leaks"}));
  EXPECT_EQ(steps[1].args, (std::vector<std::string>{"boxed-values", "2"}));
}

TEST(Script, RecordingStepsTakeAFileOrTwoRecordingsAndASiteKind) {
  auto steps = ParseScript(
      "save-recording /tmp/a b.xrpm\nopen-recording a.xrpm\ncompare-allocations live 1\n"
      "compare-allocations 2 1 tag\n",
      "t.script");
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].id, ScriptVerb::kSaveRecording);
  EXPECT_EQ(steps[0].args, (std::vector<std::string>{"/tmp/a b.xrpm"}));
  EXPECT_EQ(steps[1].id, ScriptVerb::kOpenRecording);
  EXPECT_EQ(steps[2].args, (std::vector<std::string>{"live", "1"}));
  EXPECT_EQ(steps[3].args, (std::vector<std::string>{"2", "1", "tag"}));
  ExpectError("compare-allocations live\n", "bad-args", 1, "live|N live|N");
  ExpectError("compare-allocations live 0\n", "bad-args", 1, "live 0");
  ExpectError("compare-allocations live 1 frames\n", "bad-args", 1, "frames");
  ExpectError("compare-allocations dead 1\n", "bad-args", 1, "dead");
  ExpectError("save-recording\n", "bad-args", 1, "save-recording FILE");
}

TEST(Script, MissingFileIsAnInputError) {
  EXPECT_THROW(ParseScriptFile("/nonexistent/dir/s.txt"), InputError);
}

}  // namespace
}  // namespace xrpm::app
