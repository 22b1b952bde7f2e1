#include "view_registry.h"

namespace xrpm::gui {
namespace {
struct Names {
  const char* name;
  const char* title;
};
constexpr Names kNames[kViewCount] = {
    {"connection", "Connection"},
    {"counters", "Live counters"},
    {"timeline", "Timeline"},
    {"allocations", "Allocations"},
    {"summary", "Summary"},
    {"inspections", "Inspections"},
    {"types", "Types"},
    {"instances", "Instances"},
    {"inspector", "Inspector"},
    {"roots", "Roots"},
    {"dominators", "Dominator tree"},
    {"age", "Age"},
    {"compare", "Compare"},
};
}  // namespace

const char* ViewName(View v) {
  return kNames[static_cast<int>(v)].name;
}
const char* ViewTitle(View v) {
  return kNames[static_cast<int>(v)].title;
}

std::optional<View> ViewFromName(const std::string& name) {
  for (int i = 0; i < kViewCount; ++i)
    if (name == kNames[i].name) return static_cast<View>(i);
  return std::nullopt;
}

}  // namespace xrpm::gui
