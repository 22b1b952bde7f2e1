// GlobMatch: see glob.h.
#include "xrpm/model/glob.h"

namespace xrpm {

bool GlobMatch(std::string_view p, std::string_view s) {
  size_t i = 0, j = 0;
  size_t star = std::string_view::npos, mark = 0;  // the last '*' and where it resumed in s
  while (j < s.size()) {
    if (i < p.size() && p[i] == '*') {
      star = i++;
      mark = j;
      continue;
    }
    if (i < p.size()) {
      const bool escaped = p[i] == '\\' && i + 1 < p.size();
      const char want = escaped ? p[i + 1] : p[i];
      if ((!escaped && want == '?') || want == s[j]) {
        i += escaped ? 2 : 1;
        ++j;
        continue;
      }
    }
    if (star == std::string_view::npos) return false;
    i = star + 1;  // let the last '*' take one more character
    j = ++mark;
  }
  while (i < p.size() && p[i] == '*') ++i;
  return i == p.size();
}

}  // namespace xrpm
