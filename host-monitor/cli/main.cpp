// xrpm: the headless command-line front end of the host monitor. Each verb is in verbs/<verb>.cpp.
#include <algorithm>
#include <cstdio>
#include <exception>

#include "shared/verb.h"
#include "xrpm/model/diagnostics.h"

namespace xrpm::cli {
std::vector<Verb>& Verbs() {
  static std::vector<Verb> verbs;
  return verbs;
}
}  // namespace xrpm::cli

int main(int argc, char** argv) {
  using namespace xrpm::cli;
  CLI::App app{"xrpm: Remote Performance Monitor for managed heaps (NETCF / XNA)", "xrpm"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "xrpm 0.1.0");

  auto& verbs = Verbs();
  std::sort(verbs.begin(), verbs.end(),
            [](const Verb& a, const Verb& b) { return a.name < b.name; });
  std::vector<std::pair<CLI::App*, VerbRun>> runs;
  for (auto& v : verbs) {
    CLI::App* sub = app.add_subcommand(v.name, v.help);
    runs.emplace_back(sub, v.setup(*sub));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  for (auto& [sub, run] : runs) {
    if (!sub->parsed()) continue;
    try {
      return run();
    } catch (const xrpm::InputError& e) {
      std::fprintf(stderr, "xrpm %s: %s\n", sub->get_name().c_str(), e.what());
      return kExitBadInput;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "xrpm %s: error: %s\n", sub->get_name().c_str(), e.what());
      return kExitBadInput;
    }
  }
  return kExitUsage;
}
