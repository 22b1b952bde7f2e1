// IBM classic heapdump reader: one sequential pass over the lines, then a resolution pass.
//
// Pass 1 (O(bytes)): each line is classified in place (blank, `//` comment, record header
// `<addr> [<size>] OBJ|CLS <type>`, reference line, trailer continuation) and the current record
// collects its reference tokens until the next header or comment flushes it. Objects go straight
// into the Snapshot columns; class records become types in a hash map keyed by class block
// address; class references are parked as pending roots because class records usually come after
// the objects. Pass 2: references to class block addresses are removed from the object refs
// (in-place CSR compaction, O(refs) with hash lookups only for candidates in the class address
// range), pending roots are resolved, type ids assigned, and ids/refs checked through an IdResolver
// (O((N + refs) log N)).
#include "xrpm/formats/ibm_classic_reader.h"
#include "xrpm/model/human_format.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <unordered_map>

#include "ibm_root_classes.h"
#include "xrpm/formats/jvm_names.h"
#include "xrpm/model/id_resolver.h"
#include "xrpm/model/mapped_file.h"

namespace xrpm::formats {
namespace {

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

// Splits off the next blank-separated token; `s` keeps the rest.
std::string_view NextToken(std::string_view& s) {
  size_t i = 0;
  while (i < s.size() && IsBlank(s[i])) ++i;
  size_t j = i;
  while (j < s.size() && !IsBlank(s[j])) ++j;
  std::string_view tok = s.substr(i, j - i);
  s.remove_prefix(j);
  return tok;
}

bool HasHexPrefix(std::string_view t) {
  return t.size() >= 2 && t[0] == '0' && (t[1] | 0x20) == 'x';
}

constexpr std::array<int8_t, 256> kHexDigit = [] {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (int i = 0; i < 10; ++i) t['0' + i] = static_cast<int8_t>(i);
  for (int i = 0; i < 6; ++i) t['a' + i] = t['A' + i] = static_cast<int8_t>(10 + i);
  return t;
}();

// `0x` prefix optional, 1..16 hex digits.
bool ParseHex(std::string_view t, uint64_t* v) {
  if (HasHexPrefix(t)) t.remove_prefix(2);
  if (t.empty() || t.size() > 16) return false;
  uint64_t x = 0;
  for (char c : t) {
    const int8_t d = kHexDigit[static_cast<unsigned char>(c)];
    if (d < 0) return false;
    x = x << 4 | static_cast<uint64_t>(d);
  }
  *v = x;
  return true;
}

bool ParseDec(std::string_view t, uint64_t* v) {
  t = Trim(t);
  if (t.empty()) return false;
  auto r = std::from_chars(t.data(), t.data() + t.size(), *v, 10);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

// Input text for a message: at most 48 bytes, control bytes shown as '?'.
std::string Quote(std::string_view s) {
  std::string q = "'";
  for (size_t i = 0; i < s.size() && i < 48; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    q += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  }
  if (s.size() > 48) q += "...";
  return q + "'";
}

// A heap reference of a class record, resolved into a root once every class is known.
struct PendingRoot {
  uint64_t line;
  ObjectId ref;
  uint32_t owner;  // type index for a static of a real class, else kNoIndex
  uint8_t kind;
  uint8_t flags;
};

// What an xrpm/roots/... pseudo class record stands for.
struct RootClass {
  uint8_t kind;
  uint8_t flags;
};

// IbmReader: one read of one text into one Snapshot (see the file comment for the passes).
// Single use, not thread-safe; separate readers are independent.
class IbmReader {
 public:
  IbmReader(std::string_view text, std::string_view name, Diagnostics& diags, bool strict,
            IbmReadStats& stats)
      : text_(text), name_(name), diags_(diags), strict_(strict), stats_(stats) {}

  Snapshot Run() {
    snap_.AddSection(AppDomainSection{});
    size_t pos = 0;
    while (pos < text_.size()) {
      size_t nl = text_.find('\n', pos);
      if (nl == std::string_view::npos) nl = text_.size();
      ++line_;
      HandleLine(Trim(text_.substr(pos, nl - pos)));
      pos = nl + 1;
    }
    FlushRecord();
    FlushTrailer();
    if (!saw_header_ && headers_ == 0)
      throw InputError(Diagnostic{std::string(name_), 1, "not-ibm-classic",
                                  "expected an IBM classic heapdump ('// Version:' header and "
                                  "'0x... [size] OBJ|CLS type' records), found none"});
    Resolve();
    CheckTrailers();
    AppDomainSection& s = snap_.sections.back();
    s.name = app_names_.empty() ? version_ : app_names_;
    s.closed = stats_.saw_eof;
    snap_.CloseSectionRanges();
    snap_.source = std::string(name_);
    return std::move(snap_);
  }

 private:
  enum class Rec { kNone, kObj, kCls, kSkip };
  enum class Trailer { kNone, kBreakdown, kEof };

  void Report(uint64_t line, const char* code, std::string message) {
    Diagnostic d{std::string(name_), line, code, std::move(message)};
    if (strict_) throw InputError(std::move(d));
    if (diags_.full())
      diags_.CountDropped(d.code, 1);
    else
      diags_.Add(std::move(d));
  }
  // True when a problem would only be counted: hot loops then count without formatting.
  bool CountOnly(const char* code) {
    if (strict_ || !diags_.full()) return false;
    diags_.CountDropped(code, 1);
    return true;
  }

  void HandleLine(std::string_view line) {
    if (line.empty()) return;
    if (line.substr(0, 2) == "//") {
      FlushRecord();
      FlushTrailer();
      HandleComment(line);
      return;
    }
    std::string_view rest = line;
    std::string_view first = NextToken(rest);
    if (trailer_ != Trailer::kNone && !HasHexPrefix(first) && trailer_lines_ < 4) {
      trailer_text_ += ' ';
      trailer_text_ += line;
      ++trailer_lines_;
      return;
    }
    FlushTrailer();
    std::string_view after_first = rest;
    std::string_view second = NextToken(after_first);
    if (!second.empty() && second[0] == '[') {
      FlushRecord();
      HandleHeader(first, second, after_first);
      return;
    }
    uint64_t v = 0;
    if (!ParseHex(first, &v)) {
      Report(line_, "bad-record",
             "expected a record '0x<address> [<size>] OBJ|CLS <type>' or a line of references, "
             "found " +
                 Quote(line));
      return;
    }
    HandleRefs(line);
  }

  void HandleComment(std::string_view line) {
    std::string_view body = Trim(line.substr(2));
    if (body.substr(0, 8) == "Version:") {
      if (saw_header_) {
        Report(line_, "duplicate-header",
               "a second '// Version:' header; records continue the "
               "first heap");
        return;
      }
      saw_header_ = true;
      version_ = std::string(Trim(body.substr(8)));
      dotnet_ = version_.rfind(".NET heap, xrpm ", 0) == 0;
      return;
    }
    if (body.substr(0, 15) == "xrpm AppDomain:") {
      if (!app_names_.empty()) app_names_ += ", ";
      app_names_ += Trim(body.substr(15));
      return;
    }
    if (body.substr(0, 11) == "xrpm class ") {
      std::string_view rest = body.substr(11);
      const size_t colon = rest.find(':');
      uint64_t addr = 0;
      if (colon != std::string_view::npos && ParseHex(Trim(rest.substr(0, colon)), &addr))
        renamed_[addr] = std::string(Trim(rest.substr(colon + 1)));
      return;
    }
    if (body.substr(0, 9) == "Breakdown") {
      StartTrailer(Trailer::kBreakdown, body.substr(9));
    } else if (body.substr(0, 4) == "EOF:") {
      StartTrailer(Trailer::kEof, body.substr(4));
    }
    // Any other comment is ignored: writers may add their own.
  }

  // The readable name of a JVM signature: in a .NET heap written by xrpm, primitive arrays
  // are .NET ones (`[B` -> System.Byte[]) unless a `// xrpm class` comment names the class.
  std::string Readable(std::string_view sig, uint64_t class_addr) const {
    if (class_addr != 0 && !renamed_.empty()) {
      auto it = renamed_.find(class_addr);
      if (it != renamed_.end()) return it->second;
    }
    return dotnet_ ? DotNetFromJvm(sig) : ReadableFromJvm(sig);
  }

  void StartTrailer(Trailer t, std::string_view body) {
    if ((t == Trailer::kBreakdown && stats_.saw_breakdown) ||
        (t == Trailer::kEof && stats_.saw_eof))
      Report(line_, "duplicate-trailer", "the trailer appears twice; the last one counts");
    trailer_ = t;
    trailer_line_ = line_;
    // The trailer describes the records before it (records after EOF are reported separately).
    Counts& c = t == Trailer::kBreakdown ? at_breakdown_ : at_eof_;
    c = Counts{stats_, headers_, obj_class_tokens_};
    trailer_lines_ = 0;
    trailer_text_.assign(body);
  }

  void FlushTrailer() {
    Trailer t = trailer_;
    trailer_ = Trailer::kNone;
    if (t == Trailer::kBreakdown) ParseBreakdown(trailer_text_);
    if (t == Trailer::kEof) ParseEof(trailer_text_);
  }

  // " - Classes: 321, Objects: 3718, ObjectArrays: 169, PrimitiveArrays: 2141", any spacing.
  void ParseBreakdown(std::string_view body) {
    stats_.saw_breakdown = true;
    body = Trim(body);
    if (!body.empty() && body[0] == '-') body.remove_prefix(1);
    static constexpr std::string_view kKeys[4] = {"Classes", "Objects", "ObjectArrays",
                                                  "PrimitiveArrays"};
    bool have[4] = {};
    uint64_t value[4] = {};
    while (!body.empty()) {
      size_t comma = body.find(',');
      std::string_view piece = Trim(body.substr(0, comma));
      body = comma == std::string_view::npos ? std::string_view{} : body.substr(comma + 1);
      if (piece.empty()) continue;
      size_t colon = piece.find(':');
      std::string_view key = Trim(piece.substr(0, colon));
      int k = -1;
      for (int i = 0; i < 4; ++i)
        if (key == kKeys[i]) k = i;
      uint64_t v = 0;
      if (colon == std::string_view::npos || k < 0 || !ParseDec(piece.substr(colon + 1), &v)) {
        Report(trailer_line_, "bad-trailer",
               "expected '<Classes|Objects|ObjectArrays|PrimitiveArrays>: <count>' in the "
               "Breakdown trailer, found " +
                   Quote(piece));
        continue;
      }
      have[k] = true;
      value[k] = v;
    }
    for (int i = 0; i < 4; ++i) {
      if (!have[i]) {
        Report(trailer_line_, "bad-trailer",
               "the Breakdown trailer has no '" + std::string(kKeys[i]) + ":' count");
      }
    }
    breakdown_ = {have[0] && have[1] && have[2] && have[3], value[0], value[1], value[2], value[3]};
    breakdown_line_ = trailer_line_;
  }

  // "  Total 'Objects',Refs(null) : 6349,23240(7282)", any spacing, "(N)" optional.
  void ParseEof(std::string_view body) {
    stats_.saw_eof = true;
    eof_line_ = trailer_line_;
    size_t refs = body.find("Refs(null)");
    size_t colon = refs == std::string_view::npos ? refs : body.find(':', refs);
    std::string_view nums =
        colon == std::string_view::npos ? std::string_view{} : Trim(body.substr(colon + 1));
    auto fail = [&] {
      Report(trailer_line_, "bad-trailer",
             "expected \"Total 'Objects',Refs(null) : <objects>,<refs>(<nulls>)\" in the EOF "
             "trailer, found " +
                 Quote(Trim(body)));
    };
    size_t comma = nums.find(',');
    if (comma == std::string_view::npos) return fail();
    uint64_t total = 0, refcount = 0, nulls = 0;
    std::string_view r = nums.substr(comma + 1);
    size_t open = r.find('(');
    bool have_nulls = open != std::string_view::npos;
    if (!ParseDec(nums.substr(0, comma), &total) || !ParseDec(r.substr(0, open), &refcount))
      return fail();
    if (have_nulls) {
      std::string_view n = Trim(r.substr(open + 1));
      if (n.empty() || n.back() != ')' || !ParseDec(n.substr(0, n.size() - 1), &nulls))
        return fail();
    }
    eof_ = {true, total, refcount, have_nulls, nulls};
  }

  void HandleHeader(std::string_view addr_tok, std::string_view size_tok, std::string_view rest) {
    std::string_view kind = NextToken(rest);
    std::string_view type = Trim(rest);
    if (kind == "OBJ" || kind == "CLS") ++headers_;
    if (!saw_header_ && !warned_header_) {
      warned_header_ = true;
      Report(line_, "missing-header", "expected the '// Version:' header before the first record");
    }
    if (stats_.saw_eof && !warned_after_eof_) {
      warned_after_eof_ = true;
      Report(line_, "after-eof", "records after the '// EOF:' trailer");
    }
    rec_ = Rec::kSkip;
    rec_line_ = line_;
    uint64_t addr = 0, size = 0;
    if (!ParseHex(addr_tok, &addr) || addr == 0) {
      ++skipped_records_;
      return Report(line_, "bad-number",
                    "expected a non-null hexadecimal address, found " + Quote(addr_tok));
    }
    if (size_tok.size() < 3 || size_tok.back() != ']' ||
        !ParseDec(size_tok.substr(1, size_tok.size() - 2), &size)) {
      ++skipped_records_;
      return Report(line_, "bad-size", "expected '[<size in decimal>]', found " + Quote(size_tok));
    }
    if (kind != "OBJ" && kind != "CLS") {
      ++skipped_records_;
      return Report(line_, "bad-record",
                    "expected OBJ or CLS after the size, found " + Quote(kind));
    }
    if (type.empty()) {
      ++skipped_records_;
      return Report(line_, "missing-type", "expected a type name after " + std::string(kind));
    }
    if (size > std::numeric_limits<uint32_t>::max()) {
      Report(line_, "size-overflow",
             "size " + std::to_string(size) + " exceeds 4 GiB - 1; clamped");
      size = std::numeric_limits<uint32_t>::max();
    }
    rec_ = kind == "OBJ" ? Rec::kObj : Rec::kCls;
    rec_addr_ = addr;
    rec_size_ = static_cast<uint32_t>(size);
    rec_type_ = type;
    tokens_.clear();
  }

  void HandleRefs(std::string_view line) {
    if (rec_ == Rec::kSkip) return;  // belongs to a record already reported
    if (rec_ == Rec::kNone) {
      return Report(line_, "stray-refs",
                    "references outside any object or class record: " + Quote(line));
    }
    std::string_view rest = line;
    for (std::string_view t = NextToken(rest); !t.empty(); t = NextToken(rest)) {
      uint64_t v = 0;
      if (!ParseHex(t, &v)) {
        ++bad_tokens_;
        if (!CountOnly("bad-number"))
          Report(line_, "bad-number", "expected a hexadecimal reference, found " + Quote(t));
        continue;
      }
      tokens_.push_back(v);
    }
  }

  uint32_t NewType(std::string name, uint64_t addr, bool has_addr) {
    uint32_t t = snap_.AddType(0, std::move(name), 0);
    type_addr_.push_back(has_addr ? addr : 0);
    type_has_addr_.push_back(has_addr);
    type_has_cls_.push_back(false);
    type_line_.push_back(rec_line_);
    type_jvm_.emplace_back(rec_type_);
    return t;
  }

  void FlushRecord() {
    Rec r = rec_;
    rec_ = Rec::kNone;
    if (r == Rec::kObj) FlushObject();
    if (r == Rec::kCls) FlushClass();
  }

  void FlushObject() {
    ++stats_.object_records;
    JvmShape shape = ClassifyJvm(rec_type_);
    if (shape == JvmShape::kObjectArray) ++stats_.object_arrays;
    if (shape == JvmShape::kPrimitiveArray) ++stats_.primitive_arrays;
    stats_.refs += tokens_.size();
    uint32_t type;
    size_t first_ref = 1;
    if (tokens_.empty() || tokens_[0] == 0) {
      Report(rec_line_, "missing-class-ref",
             "expected the class block address of " + Quote(rec_type_) + " to open the references");
      if (!tokens_.empty()) ++stats_.null_refs;
      first_ref = tokens_.empty() ? 0 : 1;
      std::string readable = Readable(rec_type_, 0);
      auto [it, added] = classless_.try_emplace(readable, 0);
      if (added) it->second = NewType(readable, 0, false);
      type = it->second;
    } else {
      ++obj_class_tokens_;
      auto [it, added] = class_of_.try_emplace(tokens_[0], 0);
      if (added) {
        it->second = NewType(Readable(rec_type_, tokens_[0]), tokens_[0], true);
      } else if (it->second != kNoIndex && type_jvm_[it->second] != rec_type_ &&
                 snap_.types[it->second].written_name() != Readable(rec_type_, tokens_[0])) {
        Report(rec_line_, "class-name-mismatch",
               "object of type " + Quote(rec_type_) + " uses class block " + FormatHex(tokens_[0]) +
                   ", which is " + Quote(snap_.types[it->second].written_name()));
      }
      type = it->second;
      if (type == kNoIndex) {  // a pseudo root class: not a type of objects
        Report(rec_line_, "class-name-mismatch",
               "object uses the class block of a root pseudo class " + FormatHex(tokens_[0]));
        auto [c, add2] = classless_.try_emplace(Readable(rec_type_, 0), 0);
        if (add2) c->second = NewType(Readable(rec_type_, 0), 0, false);
        type = c->second;
      }
    }
    refs_buf_.clear();
    for (size_t i = first_ref; i < tokens_.size(); ++i) {
      if (tokens_[i] == 0)
        ++stats_.null_refs;
      else
        refs_buf_.push_back(tokens_[i]);
    }
    snap_.AddObject(rec_addr_, type, rec_size_, refs_buf_.span());
    object_line_.push_back(rec_line_);
  }

  void FlushClass() {
    ++stats_.class_records;
    stats_.refs += tokens_.size();
    uint8_t kind = 0, flags = 0;
    bool pseudo = formats::ParseRootClassName(rec_type_, &kind, &flags);
    uint32_t owner = kNoIndex;
    auto it = class_of_.find(rec_addr_);
    if (pseudo) {
      if (it != class_of_.end() || root_classes_.count(rec_addr_)) {
        return Report(
            rec_line_, "duplicate-class",
            "a second class record for class block " + FormatHex(rec_addr_) + "; ignored");
      }
      root_classes_.emplace(rec_addr_, RootClass{kind, flags});
      class_of_.emplace(rec_addr_, kNoIndex);
    } else {
      std::string readable = Readable(rec_type_, rec_addr_);
      if (it == class_of_.end()) {
        owner = NewType(std::move(readable), rec_addr_, true);
        class_of_.emplace(rec_addr_, owner);
      } else if (it->second == kNoIndex || type_has_cls_[it->second]) {
        return Report(
            rec_line_, "duplicate-class",
            "a second class record for class block " + FormatHex(rec_addr_) + "; ignored");
      } else {
        owner = it->second;
        if (snap_.types[owner].written_name() != readable) {
          Report(rec_line_, "class-name-mismatch",
                 "class record " + Quote(rec_type_) + " at " + FormatHex(rec_addr_) +
                     " was named " + Quote(snap_.types[owner].written_name()) + " by its objects");
          snap_.types[owner].SetName(std::move(readable));
          type_jvm_[owner] = rec_type_;
        }
      }
      type_has_cls_[owner] = true;
      kind = static_cast<uint8_t>(RootKind::kStatic);
    }
    for (uint64_t v : tokens_) {
      if (v == 0)
        ++stats_.null_refs;
      else
        pending_roots_.push_back(PendingRoot{rec_line_, v, owner, kind, flags});
    }
  }

  // ---- pass 2 ----

  bool IsClassAddress(uint64_t v) const {
    return v >= class_lo_ && v <= class_hi_ && class_of_.count(v);
  }

  void Resolve() {
    class_lo_ = ~uint64_t{0};
    class_hi_ = 0;
    for (const auto& [addr, t] : class_of_) {
      class_lo_ = std::min(class_lo_, addr);
      class_hi_ = std::max(class_hi_, addr);
    }
    // Duplicate objects: the first is kept, as the NETCF reader does.
    const size_t n = snap_.object_count();
    PodVector<uint8_t> drop;  // 1 for a later duplicate
    {
      const IdResolver index = IdResolver::Build(snap_.object_id.span(), 1);
      if (index.duplicate_ids() > 0) {
        drop.resize(n, 0);
        index.ForEachDuplicate([&](uint32_t first, uint32_t dup) {
          drop[dup] = 1;
          if (!CountOnly("duplicate-object"))
            Report(object_line_[dup], "duplicate-object",
                   "object " + FormatHex(snap_.object_id[dup]) + " was already listed at line " +
                       std::to_string(object_line_[first]) + "; the first is kept");
        });
      }
    }
    // One in-place compaction pass over the columns: drops the duplicates and the references
    // to class blocks (they are not heap edges).
    uint64_t w = 0, r = 0, kept = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t end = snap_.ref_end[i];
      if (!drop.empty() && drop[i]) {
        r = end;
        continue;
      }
      for (; r < end; ++r) {
        ObjectId v = snap_.refs[r];
        if (IsClassAddress(v))
          ++stats_.class_refs;
        else
          snap_.refs[w++] = v;
      }
      snap_.object_id[kept] = snap_.object_id[i];
      snap_.object_type[kept] = snap_.object_type[i];
      snap_.object_size[kept] = snap_.object_size[i];
      object_line_[kept] = object_line_[i];
      snap_.ref_end[kept++] = w;
    }
    snap_.refs.resize(w);
    for (auto* col : {&snap_.object_type, &snap_.object_size}) col->resize(kept);
    snap_.object_id.resize(kept);
    snap_.ref_end.resize(kept);
    object_line_.resize(kept);
    stats_.class_refs += obj_class_tokens_;

    // Type ids: the class block address when all fit in 32 bits, else the ordinal.
    bool addresses = true;
    for (size_t t = 0; t < snap_.types.size(); ++t)
      if (!type_has_addr_[t] || type_addr_[t] > 0xFFFFFFFFu) addresses = false;
    for (size_t t = 0; t < snap_.types.size(); ++t) {
      snap_.types[t].id =
          addresses ? static_cast<TypeId>(type_addr_[t]) : static_cast<TypeId>(t + 1);
      if (type_has_addr_[t] && !type_has_cls_[t]) {
        Report(type_line_[t], "missing-class",
               "no class record for class block " + FormatHex(type_addr_[t]) + " (" +
                   Quote(snap_.types[t].name) + ")");
      }
    }

    const IdResolver index = IdResolver::Build(snap_.object_id.span(), 1);
    for (const PendingRoot& p : pending_roots_) {
      if (IsClassAddress(p.ref)) {
        ++stats_.class_refs;
        continue;
      }
      TypeId container = p.owner == kNoIndex ? 0 : snap_.types[p.owner].id;
      snap_.AddRoot(p.ref, static_cast<RootKind>(p.kind), p.flags, container);
      if (index.Find(p.ref) == kNoIndex && !CountOnly("dangling-root"))
        Report(
            p.line, "dangling-root",
            "class record references " + FormatHex(p.ref) + ", which is not an object in the dump");
    }
    for (size_t i = 0; i < snap_.object_count(); ++i) {
      for (ObjectId v : snap_.object_refs(i)) {
        if (index.Find(v) == kNoIndex && !CountOnly("dangling-ref"))
          Report(object_line_[i], "dangling-ref",
                 "object " + FormatHex(snap_.object_id[i]) + " references " + FormatHex(v) +
                     ", which is not an object in the dump");
      }
    }
  }

  void CheckTrailers() {
    if (!stats_.saw_breakdown)
      Report(line_, "missing-trailer", "no '// Breakdown - Classes: ...' trailer");
    if (!stats_.saw_eof)
      Report(line_, "missing-trailer", "the file ends without the '// EOF:' trailer (truncated?)");
    auto mismatch = [&](uint64_t line, const std::string& what, uint64_t said, uint64_t found) {
      Report(line, "trailer-mismatch",
             "the trailer says " + what + " " + std::to_string(said) + ", the file has " +
                 std::to_string(found));
    };
    if (breakdown_.complete && skipped_records_ == 0) {
      const IbmReadStats& b = at_breakdown_.stats;
      if (breakdown_.classes != b.class_records)
        mismatch(breakdown_line_, "Classes:", breakdown_.classes, b.class_records);
      uint64_t objs = breakdown_.objects + breakdown_.object_arrays + breakdown_.primitive_arrays;
      if (objs != b.object_records)
        mismatch(breakdown_line_, "Objects + ObjectArrays + PrimitiveArrays =", objs,
                 b.object_records);
    }
    if (eof_.complete) {
      if (eof_.total != at_eof_.headers)  // as the writer counted them, valid or not
        mismatch(eof_line_, "Total 'Objects'", eof_.total, at_eof_.headers);
      if (skipped_records_ == 0 && bad_tokens_ == 0 && !RefsConsistent())
        Report(eof_line_, "trailer-mismatch",
               "the trailer says Refs(null) " + std::to_string(eof_.refs) + "(" +
                   std::to_string(eof_.nulls) + "), the file lists " +
                   std::to_string(at_eof_.stats.refs) + " references of which " +
                   std::to_string(at_eof_.stats.null_refs) + " null");
    }
  }

  // Writers count references differently: nulls listed or only counted, the class block
  // reference of each object counted or not. Accept any of these conventions.
  bool RefsConsistent() const {
    const uint64_t all = at_eof_.stats.refs, nulls = at_eof_.stats.null_refs;
    const uint64_t without_class = all - at_eof_.obj_class_tokens;
    for (uint64_t listed : {all, without_class}) {
      if (eof_.refs == listed && (!eof_.have_nulls || eof_.nulls == nulls)) return true;
      if (nulls == 0 && eof_.have_nulls && eof_.refs == listed + eof_.nulls) return true;
    }
    return false;
  }

  std::string_view text_;
  std::string_view name_;
  Diagnostics& diags_;
  bool strict_;
  IbmReadStats& stats_;
  Snapshot snap_;
  uint64_t line_ = 0;

  bool saw_header_ = false, warned_header_ = false, warned_after_eof_ = false;
  std::string version_;                                // the `// Version:` string
  bool dotnet_ = false;                                // a .NET heap written by xrpm (see Readable)
  std::string app_names_;                              // `// xrpm AppDomain:` names, joined by ", "
  std::unordered_map<uint64_t, std::string> renamed_;  // `// xrpm class` names by class block
  uint64_t headers_ = 0;                               // OBJ/CLS header lines, valid or not
  uint64_t skipped_records_ = 0, bad_tokens_ = 0;
  uint64_t obj_class_tokens_ = 0;

  // The record being read.
  Rec rec_ = Rec::kNone;
  uint64_t rec_line_ = 0, rec_addr_ = 0;
  uint32_t rec_size_ = 0;
  std::string_view rec_type_;
  PodVector<uint64_t> tokens_;
  PodVector<ObjectId> refs_buf_;

  // The trailer being read (it may continue on the next lines).
  Trailer trailer_ = Trailer::kNone;
  uint64_t trailer_line_ = 0;
  int trailer_lines_ = 0;
  std::string trailer_text_;
  struct {
    bool complete = false;
    uint64_t classes = 0, objects = 0, object_arrays = 0, primitive_arrays = 0;
  } breakdown_;
  struct {
    bool complete = false;
    uint64_t total = 0, refs = 0;
    bool have_nulls = false;
    uint64_t nulls = 0;
  } eof_;
  uint64_t breakdown_line_ = 0, eof_line_ = 0;
  struct Counts {
    IbmReadStats stats;
    uint64_t headers = 0, obj_class_tokens = 0;
  } at_breakdown_, at_eof_;

  // Classes and roots.
  std::unordered_map<uint64_t, uint32_t> class_of_;  // class block -> type index (kNoIndex: pseudo)
  std::unordered_map<uint64_t, RootClass> root_classes_;
  std::unordered_map<std::string, uint32_t> classless_;  // types of objects without class ref
  std::vector<std::string> type_jvm_;                    // per type: its name as the file spells it
  std::vector<uint64_t> type_addr_, type_line_;          // per type: class block, line that made it
  std::vector<bool> type_has_addr_, type_has_cls_;
  std::vector<PendingRoot> pending_roots_;
  PodVector<uint64_t> object_line_;
  uint64_t class_lo_ = 0, class_hi_ = 0;
};

}  // namespace

Snapshot ReadIbmClassic(std::string_view text, std::string_view name, Diagnostics& diags,
                        const ReadOptions& opts, IbmReadStats* stats) {
  IbmReadStats local;
  IbmReader reader(text, name, diags, opts.strict || diags.strict(), stats ? *stats : local);
  return reader.Run();
}

Snapshot ReadIbmClassicFile(const std::string& path, Diagnostics& diags, const ReadOptions& opts,
                            IbmReadStats* stats) {
  MappedFile file(path);
  return ReadIbmClassic(file.text(), path, diags, opts, stats);
}

bool LooksLikeIbmClassic(std::string_view head) {
  size_t pos = 0;
  while (pos < head.size()) {
    size_t nl = head.find('\n', pos);
    std::string_view line = Trim(head.substr(pos, nl == std::string_view::npos ? nl : nl - pos));
    if (!line.empty()) {
      if (line.substr(0, 11) == "// Version:") return true;
      std::string_view rest = line;
      std::string_view addr = NextToken(rest);
      std::string_view size = NextToken(rest);
      std::string_view kind = NextToken(rest);
      uint64_t v = 0;
      return HasHexPrefix(addr) && ParseHex(addr, &v) && size.size() >= 3 && size[0] == '[' &&
             (kind == "OBJ" || kind == "CLS");
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return false;
}

}  // namespace xrpm::formats
