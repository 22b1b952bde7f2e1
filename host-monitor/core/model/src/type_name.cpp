// Canonical type names: a recursive-descent parser of the grammar in type_name.h that writes
// the canonical form as it returns; any parse error leaves the written name as it was.
#include "xrpm/model/type_name.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace xrpm {
namespace {

constexpr int kMaxDepth = 32;
constexpr int kMaxArity = 1024;

// C# keywords for the BCL's types, expanded where a type is a generic argument.
std::string_view KeywordType(std::string_view k) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kKeywords{{
      {"bool", "System.Boolean"},
      {"byte", "System.Byte"},
      {"sbyte", "System.SByte"},
      {"char", "System.Char"},
      {"decimal", "System.Decimal"},
      {"double", "System.Double"},
      {"float", "System.Single"},
      {"int", "System.Int32"},
      {"uint", "System.UInt32"},
      {"long", "System.Int64"},
      {"ulong", "System.UInt64"},
      {"short", "System.Int16"},
      {"ushort", "System.UInt16"},
      {"object", "System.Object"},
      {"string", "System.String"},
      {"nint", "System.IntPtr"},
      {"nuint", "System.UIntPtr"},
  }};
  for (const auto& [key, type] : kKeywords)
    if (key == k) return type;
  return {};
}

bool Structural(char c) {
  switch (c) {
    case '[':
    case ']':
    case ',':
    case '<':
    case '>':
    case '+':
    case '`':
    case '*':
    case '&':
      return true;
    default:
      return false;
  }
}

// One '+'-separated part of a name, with the arguments it declares.
struct Segment {
  std::string ident;
  int arity = -1;  // the `n mark; -1 when absent
  bool has_args = false;
  std::vector<std::string> args;  // canonical; all empty for an unbound generic
};

class Parser {
 public:
  Parser(std::string_view s, bool unbound_top) : s_(s), unbound_top_(unbound_top) {}

  bool AtEnd() const { return pos_ == s_.size(); }

  // Parses one name at the cursor and appends its canonical form to `out`.
  bool Name(int depth, bool argument, std::string& out) {
    if (depth > kMaxDepth) return false;
    std::vector<Segment> segs(1);
    if (!ParseSegment(depth, segs.back())) return false;
    while (At('+')) {
      ++pos_;
      segs.emplace_back();
      if (!ParseSegment(depth, segs.back())) return false;
    }
    std::vector<std::string> rargs;
    const bool has_rargs = At('[') && !SuffixNext();
    if (has_rargs && !ReflectionArgs(depth, rargs)) return false;
    std::string suffix;
    for (;;) {
      if (At('[') && SuffixNext()) {
        suffix += '[';
        for (++pos_; s_[pos_] != ']'; ++pos_)
          if (s_[pos_] != ' ') suffix += s_[pos_];
        suffix += ']';
        ++pos_;
      } else if (At('*') || At('&')) {
        suffix += s_[pos_++];
      } else {
        break;
      }
    }
    if (!Distribute(segs, has_rargs, std::move(rargs))) return false;
    if (argument && segs.size() == 1 && !segs[0].has_args && segs[0].arity < 0)
      if (std::string_view k = KeywordType(segs[0].ident); !k.empty()) segs[0].ident = k;
    for (size_t i = 0; i < segs.size(); ++i) {
      if (i) out += '+';
      out += segs[i].ident;
      if (segs[i].has_args) AppendArgs(depth, segs[i].args, out);
    }
    out += suffix;
    return true;
  }

 private:
  bool At(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  void SkipSpaces() {
    while (At(' ')) ++pos_;
  }

  // After '[': an array suffix ("[]", "[,,]", "[*]") rather than reflection arguments.
  bool SuffixNext() const {
    size_t p = pos_ + 1;
    while (p < s_.size() && s_[p] == ' ') ++p;
    if (p < s_.size() && s_[p] == '*') {
      ++p;
      return p < s_.size() && s_[p] == ']';
    }
    while (p < s_.size() && (s_[p] == ',' || s_[p] == ' ')) ++p;
    return p < s_.size() && s_[p] == ']';
  }

  bool Ident(std::string& id) {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\\') {
        if (pos_ + 1 >= s_.size()) return false;
        id.append(s_.substr(pos_, 2));
        pos_ += 2;
      } else if (c == '<' && (id.empty() || id.back() == '.')) {
        // A compiler-generated name (<>c__DisplayClass4, <Main>d__0): through its '>'.
        int open = 0;
        do {
          open += s_[pos_] == '<' ? 1 : s_[pos_] == '>' ? -1 : 0;
          id += s_[pos_++];
        } while (open > 0 && pos_ < s_.size());
        if (open > 0) return false;
      } else if (Structural(c)) {
        break;
      } else {
        id += c;
        ++pos_;
      }
    }
    while (!id.empty() && id.back() == ' ') id.pop_back();
    return !id.empty() && id.front() != ' ';
  }

  bool ParseSegment(int depth, Segment& seg) {
    if (!Ident(seg.ident)) return false;
    if (At('`')) {
      ++pos_;
      int n = 0;
      const size_t start = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9' && n <= kMaxArity)
        n = n * 10 + (s_[pos_++] - '0');
      if (pos_ == start || n > kMaxArity) return false;
      seg.arity = n;
    }
    if (At('<')) return CSharpArgs(depth, seg);
    return true;
  }

  // '<' name (',' name)* '>' or '<' ','* '>' (unbound).
  bool CSharpArgs(int depth, Segment& seg) {
    ++pos_;
    size_t p = pos_;
    size_t commas = 0;
    while (p < s_.size() && (s_[p] == ',' || s_[p] == ' ')) commas += s_[p++] == ',';
    seg.has_args = true;
    if (p < s_.size() && s_[p] == '>') {
      if (commas + 1 > kMaxArity) return false;
      seg.args.assign(commas + 1, std::string());
      pos_ = p + 1;
      return true;
    }
    for (;;) {
      SkipSpaces();
      std::string a;
      if (!Name(depth + 1, true, a)) return false;
      seg.args.push_back(std::move(a));
      SkipSpaces();
      if (At('>')) return ++pos_, true;
      if (!At(',')) return false;
      ++pos_;
    }
  }

  // '[' rarg (',' rarg)* ']' where rarg is '[' name (',' assembly)? ']' or a bare name.
  bool ReflectionArgs(int depth, std::vector<std::string>& args) {
    ++pos_;
    for (;;) {
      SkipSpaces();
      std::string a;
      if (At('[')) {
        ++pos_;
        SkipSpaces();
        if (!Name(depth + 1, true, a)) return false;
        SkipSpaces();
        if (At(','))  // the assembly ("Bubbles, Version=1.0.0.0, ..."): not part of the name
          while (pos_ < s_.size() && s_[pos_] != ']' && s_[pos_] != '[') ++pos_;
        if (!At(']')) return false;
        ++pos_;
      } else if (!Name(depth + 1, true, a)) {
        return false;
      }
      args.push_back(std::move(a));
      SkipSpaces();
      if (At(']')) return ++pos_, true;
      if (!At(',')) return false;
      ++pos_;
    }
  }

  // Gives each segment the arguments its arity declares: the reflection form lists them all
  // after the last segment, outermost first, and so does Mono's (on the last segment, in
  // C# brackets) when the outer segments carry arities; without arities they are the last
  // segment's.
  static bool Distribute(std::vector<Segment>& segs, bool has_rargs,
                         std::vector<std::string> rargs) {
    if (!has_rargs && segs.size() > 1 && segs.back().has_args && !segs.back().args[0].empty()) {
      size_t outer = 0;
      bool outer_args = false;
      for (size_t i = 0; i + 1 < segs.size(); ++i) {
        outer_args = outer_args || segs[i].has_args;
        if (segs[i].arity > 0) outer += static_cast<size_t>(segs[i].arity);
      }
      Segment& last = segs.back();
      if (!outer_args && outer > 0 &&
          outer + static_cast<size_t>(std::max(last.arity, 0)) == last.args.size()) {
        rargs = std::move(last.args);
        last.args.clear();
        last.has_args = false;
        has_rargs = true;
      }
    }
    if (has_rargs) {
      size_t total = 0;
      bool marked = false;
      for (const Segment& sg : segs) {
        if (sg.has_args) return false;  // both forms at once
        if (sg.arity >= 0) total += static_cast<size_t>(sg.arity), marked = true;
      }
      if (!marked) {
        segs.back().has_args = true;
        segs.back().args = std::move(rargs);
        return true;
      }
      if (total != rargs.size()) return false;
      size_t k = 0;
      for (Segment& sg : segs) {
        if (sg.arity <= 0) continue;
        sg.has_args = true;
        for (int i = 0; i < sg.arity; ++i) sg.args.push_back(std::move(rargs[k++]));
      }
      return true;
    }
    for (Segment& sg : segs) {
      if (sg.has_args) {
        if (sg.arity >= 0 && static_cast<size_t>(sg.arity) != sg.args.size()) return false;
      } else if (sg.arity > 0) {
        sg.has_args = true;
        sg.args.assign(static_cast<size_t>(sg.arity), std::string());
      }
    }
    return true;
  }

  void AppendArgs(int depth, const std::vector<std::string>& args, std::string& out) const {
    out += '<';
    const bool unbound = (unbound_top_ && depth == 0) || args.front().empty();
    for (size_t i = 0; i < args.size(); ++i) {
      if (unbound) {
        if (i) out += ',';
      } else {
        if (i) out += ", ";
        out += args[i];
      }
    }
    out += '>';
  }

  std::string_view s_;
  size_t pos_ = 0;
  bool unbound_top_;
};

std::string Convert(std::string_view written, bool unbound_top) {
  if (written.find_first_of("`<[") == std::string_view::npos) return std::string(written);
  Parser p(written, unbound_top);
  std::string out;
  out.reserve(written.size());
  if (!p.Name(0, false, out) || !p.AtEnd()) return std::string(written);
  return out;
}

}  // namespace

std::string CanonicalTypeName(std::string_view written) {
  return Convert(written, false);
}

std::string GenericDefinitionName(std::string_view written) {
  return Convert(written, true);
}

}  // namespace xrpm
