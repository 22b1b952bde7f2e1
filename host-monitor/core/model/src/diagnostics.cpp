#include "xrpm/model/diagnostics.h"

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
  ++counts_[d.code];
  if (kept_.size() < max_kept_) kept_.push_back(std::move(d));
}

void Diagnostics::CountDropped(std::string_view code, uint64_t n) {
  if (n == 0) return;
  total_ += n;
  auto it = counts_.find(code);
  if (it == counts_.end()) it = counts_.emplace(std::string(code), 0).first;
  it->second += n;
}

}  // namespace xrpm
