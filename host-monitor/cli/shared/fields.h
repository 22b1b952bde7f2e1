// Shared pieces of the verbs that show object contents (`show`, `instances`): a
// field value as JSON (number, boolean, string; a reference as {"ref": ID} with the string's
// text when it references one) and as text ("true", "Popped", "-> String@1500 \"Bubble 0\"").
//
// Thread-safety: none needed (CLI).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "xrpm/analysis/graph_index.h"
#include "xrpm/model/object_fields.h"

namespace xrpm::cli {

// A primitive or enum value as a JSON number, boolean or string (chars and enum names as
// strings; non-finite floats as "NaN" / "Infinity" / "-Infinity"); null when missing.
nlohmann::json ValueJson(const FieldValue& v);
// A field value for `instances`: ValueJson, or for references {"ref": "1500"} (+ "text" when the
// target is a string) and null for a null reference.
nlohmann::json CellJson(const analysis::GraphIndex& g, const FieldValue& v);
// Text for tables: FormatValue, references as "String@1500 \"Bubble 0\"" or "null".
std::string CellText(const analysis::GraphIndex& g, const FieldValue& v);
// String text shortened for tables: "\"Bubble 0\"", "\"Once upon a…\"…" (cut).
std::string ShortText(const StringValue& s, size_t max_chars = 40);

}  // namespace xrpm::cli
