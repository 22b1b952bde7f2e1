// GlobMatch: the one wildcard match of names and texts the user gives as patterns (budget rules'
// type patterns, `xrpm capture --on-marker`). `*` matches any run of characters (dots included,
// also none), `?` one character, `\` makes the next character literal; everything else matches
// itself, so array types are written as they are named ("System.Int32[]"). A trailing `\`
// matches a literal `\`.
//
// Algorithm: greedy two-pointer match with one backtrack point (the last `*`): O(|pattern| x
// |text|) at worst, O(|pattern| + |text|) without stars.
//
// Thread-safety: a pure function.
#pragma once

#include <string_view>

namespace xrpm {

bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace xrpm
