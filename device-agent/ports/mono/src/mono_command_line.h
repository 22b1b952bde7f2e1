// Mono's own command-line options as xrpm-mono passes them on (`--mono-option=OPT`, repeatable):
// each OPT is one argument for `mono`, placed before xrpm's `--profile=xrpm:...` and the
// program, e.g. `--debug` (file and line numbers in stack traces), `--gc-params=...`,
// `--profile=log:heapshot=ondemand` (another profiler beside xrpm's module).
//
// CheckMonoOption refuses what cannot be one such argument: an empty string, a word that does
// not start with '-' (Mono would take it for the program), options that make Mono do something
// other than run the program (--help, --version, --aot, ...), options whose value is the next
// argument (--config FILE: it would swallow the program's name), and a second xrpm module.
// What Mono itself does not know is found by asking it (`mono OPTS --version`, see the
// launcher): Mono's own message says which option it refused.
//
// Thread-safety: plain functions on values.
#pragma once

#include <string>

namespace xrpm {
namespace mono {

// True when `option` can be passed on to mono; else false with *problem saying what was found
// and what was expected.
bool CheckMonoOption(const std::string& option, std::string* problem);

}  // namespace mono
}  // namespace xrpm
