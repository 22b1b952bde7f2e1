#include "xrpm/core/diagnostics.h"

namespace xrpm {

std::string Diagnostic::ToString() const {
  std::string s = file;
  if (line) s += ":" + std::to_string(line);
  if (!s.empty()) s += ": ";
  s += message;
  if (!code.empty()) s += " [" + code + "]";
  return s;
}

void Diagnostics::Add(Diagnostic d) {
  if (strict_) throw InputError(std::move(d));
  ++total_;
  if (kept_.size() < max_kept_) kept_.push_back(std::move(d));
}

}  // namespace xrpm
