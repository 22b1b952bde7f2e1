// ReportError: the one way the protocol's checkers and decoders hand an error back through an
// optional `std::string* error` and say "not accepted" (false), so each check reads
// `return ReportError(error, "...")`.
//
// Thread-safety: a pure function.
#pragma once

#include <string>

namespace xrpm {
namespace protocol {

inline bool ReportError(std::string* error, const std::string& what) {
  if (error) *error = what;
  return false;
}

}  // namespace protocol
}  // namespace xrpm
