// CheckMonoOption: see mono_command_line.h.
#include "mono_command_line.h"

#include <cstring>

namespace xrpm {
namespace mono {
namespace {

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

}  // namespace

bool CheckMonoOption(const std::string& option, std::string* problem) {
  const std::string quoted = "'" + option + "'";
  if (option.empty()) {
    *problem = "expected a Mono option such as --debug, found an empty string";
    return false;
  }
  if (option[0] != '-' || option == "-" || option == "--") {
    *problem = "expected a Mono option starting with '-' (such as --debug), found " + quoted;
    return false;
  }
  // Options after which Mono does not run the program.
  static const char* const kNotRunning[] = {
      "--help",        "-h",           "--version",    "-V",           "--aot",       "--compile",
      "--compile-all", "--verify-all", "--help-devel", "--help-debug", "--help-trace"};
  for (const char* o : kNotRunning)
    if (option == o || (StartsWith(option, o) && option[std::strlen(o)] == '=')) {
      *problem = quoted + " makes Mono do something other than run the program";
      return false;
    }
  // Options whose value is the next argument (it would be the program's name).
  static const char* const kSeparateValue[] = {"--config"};
  for (const char* o : kSeparateValue)
    if (option == o) {
      *problem = quoted + " takes its value in the next argument, which is not supported";
      return false;
    }
  if (StartsWith(option, "--profile=xrpm") &&
      (option.size() == 14 || option[14] == ':' || option[14] == ',')) {
    *problem = quoted + ": xrpm-mono loads the xrpm module itself (use its own options)";
    return false;
  }
  return true;
}

}  // namespace mono
}  // namespace xrpm
