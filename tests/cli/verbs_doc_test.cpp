// docs/ARCHITECTURE.md names every verb of `xrpm` (the `<!-- verbs: ... -->` line): this test
// fails when that list and the verbs `xrpm --help` prints differ, so the document follows the code.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "subprocess.h"

namespace xrpm {
namespace {

std::set<std::string> Words(const std::string& text) {
  std::set<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.insert(w);
  return words;
}

// The verbs in ARCHITECTURE.md's `<!-- verbs: a b c -->` line.
std::set<std::string> DocumentedVerbs() {
  std::ifstream f(XRPM_SOURCE_DIR "/docs/ARCHITECTURE.md");
  const std::string marker = "<!-- verbs:";
  for (std::string line; std::getline(f, line);) {
    const size_t b = line.find(marker);
    if (b == std::string::npos) continue;
    const size_t e = line.find("-->", b);
    if (e == std::string::npos) break;
    return Words(line.substr(b + marker.size(), e - b - marker.size()));
  }
  return {};
}

// The verbs under "Subcommands:" in `xrpm --help` (CLI11: two spaces, the name, its help).
std::set<std::string> HelpVerbs() {
  const testing::RunResult r = testing::RunProcess({XRPM_CLI_BIN, "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> verbs;
  std::istringstream in(r.out);
  bool in_list = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Subcommands:", 0) == 0) {
      in_list = true;
      continue;
    }
    if (!in_list || line.rfind("  ", 0) != 0) continue;
    std::istringstream words(line);
    std::string name;
    words >> name;
    verbs.insert(name);
  }
  return verbs;
}

TEST(VerbsDoc, ArchitectureListsExactlyTheVerbsOfXrpmHelp) {
  const std::set<std::string> documented = DocumentedVerbs();
  const std::set<std::string> help = HelpVerbs();
  ASSERT_FALSE(documented.empty()) << "no <!-- verbs: ... --> line in docs/ARCHITECTURE.md";
  ASSERT_FALSE(help.empty()) << "no Subcommands: in xrpm --help";
  for (const std::string& v : help)
    EXPECT_TRUE(documented.count(v)) << "xrpm " << v << " is not in docs/ARCHITECTURE.md";
  for (const std::string& v : documented)
    EXPECT_TRUE(help.count(v)) << "docs/ARCHITECTURE.md names `" << v << "`, xrpm --help does not";
}

}  // namespace
}  // namespace xrpm
