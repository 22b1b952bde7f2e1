#include "xrpm/app/budget.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "xrpm/model/diagnostics.h"

namespace xrpm::app {
namespace {

using nlohmann::json;

constexpr size_t kMaxBudgetBytes = 1 << 20;
constexpr size_t kMaxTagBytes = 128;  // protocol::kMaxMarkerBytes: longer tags never arrive

// The line (1-based) where each value of a valid JSON text starts, by JSON pointer ("/types/0").
// nlohmann::json keeps no positions, so a second pass over the text finds them. Iterative (an
// explicit stack), O(text).
class LineIndex {
 public:
  explicit LineIndex(std::string_view t) {
    struct Open {
      bool array;
      size_t index;
      std::string path;
    };
    std::vector<Open> stack;
    size_t pos = 0;
    uint64_t line = 1;
    auto ws = [&] {
      while (pos < t.size() &&
             (t[pos] == ' ' || t[pos] == '\t' || t[pos] == '\n' || t[pos] == '\r')) {
        if (t[pos] == '\n') ++line;
        ++pos;
      }
    };
    auto string = [&] {  // at '"': the raw text up to the closing quote
      std::string s;
      for (++pos; pos < t.size() && t[pos] != '"'; ++pos) {
        if (t[pos] == '\\' && pos + 1 < t.size()) s += t[pos++];
        s += t[pos];
      }
      ++pos;
      return s;
    };
    auto key = [&](const std::string& parent) {  // at a key: the path of its value
      ws();
      std::string k = pos < t.size() && t[pos] == '"' ? string() : std::string();
      ws();
      if (pos < t.size() && t[pos] == ':') ++pos;
      return parent + "/" + k;
    };
    std::string next;  // the path of the value that comes next
    bool expect_value = true;
    while (true) {
      ws();
      if (pos >= t.size()) break;
      const char c = t[pos];
      if (expect_value) {
        lines_.emplace(next, line);
        expect_value = false;
        if (c == '{' || c == '[') {
          ++pos;
          stack.push_back({c == '[', 0, next});
          ws();
          if (pos < t.size() && (t[pos] == '}' || t[pos] == ']')) {
            ++pos;
            stack.pop_back();
          } else {
            next = c == '[' ? next + "/0" : key(next);
            expect_value = true;
          }
        } else if (c == '"') {
          string();
        } else {
          const size_t start = pos;
          while (pos < t.size() && std::string_view(",]} \t\r\n").find(t[pos]) == t.npos) ++pos;
          if (pos == start) break;
        }
        continue;
      }
      if (stack.empty()) break;
      ++pos;
      if (c == ',') {
        Open& o = stack.back();
        next = o.array ? o.path + "/" + std::to_string(++o.index) : key(o.path);
        expect_value = true;
      } else if (c == '}' || c == ']') {
        stack.pop_back();
      } else {
        break;
      }
    }
  }
  // The line of `path`'s value, else of its closest parent's.
  uint64_t Line(std::string path) const {
    while (true) {
      if (auto it = lines_.find(path); it != lines_.end()) return it->second;
      if (path.empty()) return 1;
      path.resize(path.rfind('/'));
    }
  }

 private:
  std::map<std::string, uint64_t> lines_;
};

// Walks the parsed budget with the path of each value ("types[0].max_count" in messages,
// "/types/0/max_count" to find its line).
class Parser {
 public:
  Parser(std::string_view text, const std::string& name) : lines_(text), name_(name) {}

  struct At {
    const json& v;
    std::string pointer;  // "/types/0/name"
    std::string label;    // "types[0].name"
    At Key(const std::string& k) const {
      return {v.at(k), pointer + "/" + k, label.empty() ? k : label + "." + k};
    }
    At Index(size_t i) const {
      return {v.at(i), pointer + "/" + std::to_string(i), label + "[" + std::to_string(i) + "]"};
    }
  };

  [[noreturn]] void Fail(const At& at, const std::string& what) const {
    throw InputError(Diagnostic{name_, lines_.Line(at.pointer), "bad-budget",
                                (at.label.empty() ? "" : at.label + ": ") + what});
  }
  static std::string Found(const json& v) {
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return std::string(v.type_name()) + " " + s;
  }
  void Expect(const At& at, bool ok, const std::string& expected) const {
    if (!ok) Fail(at, "expected " + expected + ", found " + Found(at.v));
  }
  // An object whose keys are all in `known` (listed in the message otherwise).
  void Keys(const At& at, std::initializer_list<const char*> known, const std::string& what) const {
    Expect(at, at.v.is_object(), what);
    std::string list;
    for (const char* k : known) list += std::string(list.empty() ? "" : ", ") + k;
    for (const auto& item : at.v.items()) {
      const std::string& k = item.key();
      if (std::find_if(known.begin(), known.end(), [&](const char* x) { return k == x; }) ==
          known.end())
        Fail({item.value(), at.pointer + "/" + k, at.label},
             "unknown key \"" + k + "\", expected one of: " + list);
    }
  }
  void Require(const At& at, const char* key) const {
    if (!at.v.contains(key)) Fail(at, "missing \"" + std::string(key) + "\"");
  }
  uint64_t Count(const At& at) const {
    Expect(at, at.v.is_number_unsigned() || (at.v.is_number_integer() && at.v.get<int64_t>() >= 0),
           "a non-negative integer");
    return at.v.get<uint64_t>();
  }
  std::optional<uint64_t> OptCount(const At& obj, const char* key) const {
    if (!obj.v.contains(key)) return std::nullopt;
    return Count(obj.Key(key));
  }
  double Number(const At& at) const {
    Expect(at, at.v.is_number() && at.v.get<double>() >= 0 && std::isfinite(at.v.get<double>()),
           "a non-negative number");
    return at.v.get<double>();
  }
  std::optional<double> OptNumber(const At& obj, const char* key) const {
    if (!obj.v.contains(key)) return std::nullopt;
    return Number(obj.Key(key));
  }
  std::string Text(const At& at, size_t max_bytes) const {
    Expect(at, at.v.is_string() && !at.v.get<std::string>().empty(), "a non-empty string");
    std::string s = at.v.get<std::string>();
    if (s.size() > max_bytes)
      Fail(at, "expected at most " + std::to_string(max_bytes) + " bytes, found " +
                   std::to_string(s.size()));
    return s;
  }
  std::string Pattern(const At& at) const {
    Expect(at, at.v.is_string(), "a type name pattern (a string)");
    std::string p = at.v.get<std::string>();
    if (std::string why = CheckPattern(p); !why.empty())
      Fail(at, "bad pattern \"" + p + "\": " + why);
    return p;
  }
  // An array of rule objects, each checked by `one`.
  template <class Fn>
  void Rules(const At& at, Fn&& one) const {
    Expect(at, at.v.is_array(), "an array of rules ([{...}, ...])");
    for (size_t i = 0; i < at.v.size(); ++i) one(at.Index(i));
  }

  Budget Parse(const json& root) const {
    const At top{root, "", ""};
    if (!root.is_object())
      Fail(top, "expected an object of rules ({\"types\": [...], ...}), found " + Found(root));
    for (const auto& [k, v] : root.items())
      if (!std::set<std::string>{"types", "after_marker", "leaks", "frames", "tags"}.count(k))
        Fail({v, "/" + k, ""}, "unknown rule \"" + k +
                                   "\", expected one of: types, after_marker, leaks, frames, tags");
    Budget b;
    const auto line = [&](const At& at) { return lines_.Line(at.pointer); };
    if (root.contains("types"))
      Rules(top.Key("types"), [&](const At& r) {
        Keys(r, {"name", "max_count", "max_bytes", "max_retained_bytes"}, "a types rule object");
        Require(r, "name");
        TypeBudget t{Pattern(r.Key("name")), OptCount(r, "max_count"), OptCount(r, "max_bytes"),
                     OptCount(r, "max_retained_bytes"), line(r)};
        if (!t.max_count && !t.max_bytes && !t.max_retained_bytes)
          Fail(r, "expected a limit: max_count, max_bytes or max_retained_bytes");
        b.types.push_back(std::move(t));
      });
    if (root.contains("after_marker"))
      Rules(top.Key("after_marker"), [&](const At& r) {
        Keys(r, {"marker", "type", "max_count"}, "an after_marker rule object");
        for (const char* k : {"marker", "type", "max_count"}) Require(r, k);
        b.after_marker.push_back({Text(r.Key("marker"), kMaxTagBytes), Pattern(r.Key("type")),
                                  Count(r.Key("max_count")), line(r)});
      });
    if (root.contains("leaks"))
      Rules(top.Key("leaks"), [&](const At& r) {
        Keys(r, {"type", "max_count"}, "a leaks rule object");
        for (const char* k : {"type", "max_count"}) Require(r, k);
        b.leaks.push_back({Pattern(r.Key("type")), Count(r.Key("max_count")), line(r)});
      });
    if (root.contains("frames")) {
      const At f = top.Key("frames");
      Keys(f, {"alloc_bytes_mean", "alloc_bytes_p95", "alloc_bytes_max", "gcs_per_minute"},
           "an object of frame limits");
      b.frames = {OptNumber(f, "alloc_bytes_mean"), OptNumber(f, "alloc_bytes_p95"),
                  OptNumber(f, "alloc_bytes_max"), OptNumber(f, "gcs_per_minute"), line(f)};
      if (!b.frames.any())
        Fail(f,
             "expected a limit: alloc_bytes_mean, alloc_bytes_p95, alloc_bytes_max or "
             "gcs_per_minute");
    }
    if (root.contains("tags"))
      Rules(top.Key("tags"), [&](const At& r) {
        Keys(r, {"tag", "max_bytes_per_frame"}, "a tags rule object");
        for (const char* k : {"tag", "max_bytes_per_frame"}) Require(r, k);
        b.tags.push_back(
            {Text(r.Key("tag"), kMaxTagBytes), Number(r.Key("max_bytes_per_frame")), line(r)});
      });
    return b;
  }

 private:
  LineIndex lines_;
  const std::string& name_;
};

}  // namespace

std::string CheckPattern(std::string_view p) {
  if (p.empty()) return "empty (use \"*\" for every type)";
  for (size_t i = 0; i < p.size(); ++i) {
    if (static_cast<unsigned char>(p[i]) < 0x20)
      return "control character at position " + std::to_string(i);
    if (p[i] == '\\' && ++i == p.size()) return "a trailing \\ escapes nothing";
  }
  return "";
}

Budget ParseBudget(std::string_view text, const std::string& name) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // e.byte: 1-based byte position of the error; the message's tail says what was expected.
    const size_t at = std::min<size_t>(e.byte ? e.byte - 1 : 0, text.size());
    const uint64_t line = 1 + std::count(text.begin(), text.begin() + at, '\n');
    std::string what = e.what();
    if (size_t k = what.find("column "); k != what.npos && (k = what.find(": ", k)) != what.npos)
      what = what.substr(k + 2);
    throw InputError(Diagnostic{name, line, "bad-budget", "not JSON: " + what});
  } catch (const json::exception& e) {
    // A number beyond a double ("1E400"): the message quotes the number but has no position,
    // so the line is the one where that text first appears.
    std::string what = e.what();
    uint64_t line = 1;
    if (const size_t q = what.find('\''); q != what.npos) {
      const size_t end = what.find('\'', q + 1);
      const std::string token = what.substr(q + 1, end == what.npos ? end : end - q - 1);
      if (const size_t at = token.empty() ? text.npos : text.find(token); at != text.npos)
        line = 1 + std::count(text.begin(), text.begin() + at, '\n');
    }
    if (const size_t k = what.find("] "); k != what.npos) what = what.substr(k + 2);
    throw InputError(Diagnostic{name, line, "bad-budget", "expected a number, found " + what});
  }
  return Parser(text, name).Parse(root);
}

Budget LoadBudget(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(Diagnostic{path, 0, "open-failed", "cannot open the budget file"});
  std::string text;
  text.resize(kMaxBudgetBytes + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxBudgetBytes)
    throw InputError(
        Diagnostic{path, 0, "bad-budget", "larger than 1 MiB; a budget is a few rules of JSON"});
  return ParseBudget(text, path);
}

}  // namespace xrpm::app
