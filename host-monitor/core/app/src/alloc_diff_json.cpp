#include "xrpm/app/alloc_diff_json.h"

namespace xrpm::app {

nlohmann::json AllocDiffRowJson(const analysis::AllocDiffRow& r) {
  return {{"site", r.site},
          {"a_bytes_per_frame", r.a_per_frame},
          {"a_error", r.a_error},
          {"b_bytes_per_frame", r.b_per_frame},
          {"b_error", r.b_error},
          {"change", r.change},
          {"change_error", r.change_error},
          {"only_in", r.only_a   ? nlohmann::json("a")
                      : r.only_b ? nlohmann::json("b")
                                 : nlohmann::json(nullptr)}};
}

}  // namespace xrpm::app
