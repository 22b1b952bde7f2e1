// CLI verb registry: each verb of `xrpm` lives in its own cli/verbs/<verb>.cpp and registers
// itself with a static VerbRegistration, so verbs are added without touching main.cpp.
//
//   static xrpm::cli::VerbRegistration reg{"info", "Show sections, counts and diagnostics",
//     [](CLI::App& cmd) -> xrpm::cli::VerbRun {
//       auto opts = std::make_shared<Opts>();
//       cmd.add_option("file", opts->file)->required();
//       return [opts] { return Run(*opts); };
//     }};
//
// Exit codes for every verb: 0 ok, 1 bad input or failure, 2 usage error (CLI11 parse errors).
// Thread-safety: registration happens during static initialisation, single-threaded.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace xrpm::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

using VerbRun = std::function<int()>;
using VerbSetup = std::function<VerbRun(CLI::App& cmd)>;

struct Verb {
  std::string name;
  std::string help;
  VerbSetup setup;
};

std::vector<Verb>& Verbs();

struct VerbRegistration {
  VerbRegistration(std::string name, std::string help, VerbSetup setup) {
    Verbs().push_back(Verb{std::move(name), std::move(help), std::move(setup)});
  }
};

}  // namespace xrpm::cli
