// Checks for fuzz targets: a failed check prints what broke and aborts, which libFuzzer (and the
// corpus replay test, tests/hardening) reports as a crash with the input that caused it.
//
// CheckSnapshot verifies the structural invariants every reader must keep however bad its input
// is: equal column lengths, a monotonic CSR ending at refs.size(), type indices in range,
// section ranges in order and inside the columns, root descriptors 0-5. Violations would crash
// later consumers (analysis, writers, the GUI), so they are findings even when the reader
// itself did not crash.
//
// Thread-safety: reentrant.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "xrpm/model/diagnostics.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::fuzz {

[[noreturn]] inline void Fail(const char* file, int line, const char* what,
                              const std::string& more) {
  std::fprintf(stderr, "%s:%d: fuzz check failed: %s %s\n", file, line, what, more.c_str());
  std::abort();
}

#define XRPM_FUZZ_CHECK(cond, more) \
  ((cond) ? (void)0 : ::xrpm::fuzz::Fail(__FILE__, __LINE__, #cond, (more)))

// Aborts with the first broken invariant of `s`.
void CheckSnapshot(const Snapshot& s);

// "code@line; code@line; ..." of the kept diagnostics plus the per-code totals, to compare two
// reads of the same input.
std::string DiagSummary(const Diagnostics& d);

}  // namespace xrpm::fuzz
