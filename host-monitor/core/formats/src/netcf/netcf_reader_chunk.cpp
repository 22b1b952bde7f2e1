// The per-chunk line parser of the NETCF reader; see netcf_reader_chunk.h.
#include "netcf_reader_chunk.h"

#include <bit>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include "xrpm/model/mapped_file.h"

namespace xrpm::formats {

namespace {

constexpr uint8_t kNotHex = 0xFF;
struct HexTable {
  uint8_t v[256];
  constexpr HexTable() : v{} {
    for (int i = 0; i < 256; ++i) v[i] = kNotHex;
    for (int i = 0; i < 10; ++i) v['0' + i] = static_cast<uint8_t>(i);
    for (int i = 0; i < 6; ++i) {
      v['a' + i] = static_cast<uint8_t>(10 + i);
      v['A' + i] = static_cast<uint8_t>(10 + i);
    }
  }
};
constexpr HexTable kHex;

inline bool IsDelim(char c) {
  return IsBlank(c) || c == '\n';
}
inline const char* SkipBlanks(const char* p) {
  while (IsBlank(*p)) ++p;
  return p;
}
inline const char* EndOfToken(const char* p) {
  while (!IsDelim(*p)) ++p;
  return p;
}
inline const char* EndOfLine(const char* p) {
  return static_cast<const char*>(rawmemchr(p, '\n'));
}

enum class Hex { kOk, kMissing, kBad, kOverflow };

// Scans one hex token starting at p (not a blank) and advances p past it. Byte by byte; the
// reference for ScanHex below and the path for every unusual token.
inline Hex ScanHexSlow(const char*& p, uint64_t& out) {
  const char* s = p;
  uint8_t d = kHex.v[static_cast<uint8_t>(*p)];
  if (d == kNotHex) {
    if (*p == '\n') return Hex::kMissing;
    p = EndOfToken(p);
    return Hex::kBad;
  }
  uint64_t v = d;
  ++p;
  while ((d = kHex.v[static_cast<uint8_t>(*p)]) != kNotHex) {
    v = v << 4 | d;
    ++p;
  }
  if (!IsDelim(*p)) {
    p = EndOfToken(p);
    return Hex::kBad;
  }
  if (p - s > 16) {
    const char* q = s;
    while (*q == '0') ++q;
    if (p - q > 16) return Hex::kOverflow;
  }
  out = v;
  return Hex::kOk;
}

static_assert(std::endian::native == std::endian::little, "HexRun8 assumes little-endian loads");

// SWAR: how many of the 8 bytes at p are leading hex digits (0-8), and their value. Each byte
// is classified with carry-free additions on 7-bit lanes, then the nibbles are combined
// pairwise (8 -> 4 -> 2 -> 1) with masks and shifts: ~25 instructions, no loop, no table.
[[gnu::always_inline]] inline unsigned HexRun8(const char* p, uint64_t& value) {
  constexpr uint64_t k1 = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  uint64_t w;
  std::memcpy(&w, p, 8);
  const uint64_t y = w & ~kHigh;
  const uint64_t ge30 = y + (0x80 - 0x30) * k1, ge3a = y + (0x80 - 0x3a) * k1;
  const uint64_t lo = y | (0x20 * k1);
  const uint64_t ge61 = lo + (0x80 - 0x61) * k1, ge67 = lo + (0x80 - 0x67) * k1;
  const uint64_t hex = ((ge30 & ~ge3a) | (ge61 & ~ge67)) & ~w & kHigh;
  const uint64_t non = ~hex & kHigh;
  const unsigned n = non ? static_cast<unsigned>(std::countr_zero(non)) >> 3 : 8;
  if (n == 0) return 0;
  uint64_t x = (y & (0x0f * k1)) + 9 * ((y >> 6) & k1);
  x <<= (8 - n) * 8;  // drop the bytes after the digits; the last digit is now the top byte
  x = ((x & 0x00ff00ff00ff00ffull) << 4) | ((x >> 8) & 0x00ff00ff00ff00ffull);
  x = ((x & 0x0000ffff0000ffffull) << 8) | ((x >> 16) & 0x0000ffff0000ffffull);
  value = ((x & 0xffffffffull) << 16) | (x >> 32);
  return n;
}

// ScanHexSlow's result, fast for tokens of 1-15 digits followed by a blank or '\n' when at
// least 16 bytes from p are readable (p + 16 <= limit); anything else takes the slow path.
[[gnu::always_inline]] inline Hex ScanHex(const char*& p, uint64_t& out, const char* limit) {
  if (limit - p < 16) return ScanHexSlow(p, out);
  uint64_t v;
  unsigned n = HexRun8(p, v);
  if (n == 8) {
    uint64_t v2;
    const unsigned n2 = HexRun8(p + 8, v2);
    if (n2 == 8) return ScanHexSlow(p, out);
    if (n2) v = (v << (4 * n2)) | v2;
    n += n2;
  } else if (n == 0) {
    return ScanHexSlow(p, out);
  }
  if (!IsDelim(p[n])) return ScanHexSlow(p, out);
  p += n;
  out = v;
  return Hex::kOk;
}

// A short printable excerpt of [b, e) for messages.
std::string Excerpt(const char* b, const char* e) {
  constexpr size_t kMax = 40;
  std::string s;
  for (const char* p = b; p < e && s.size() < kMax; ++p) {
    unsigned char c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c < 0x7f) {
      s += static_cast<char>(c);
    } else {
      static const char* kDigits = "0123456789abcdef";
      s += "\\x";
      s += kDigits[c >> 4];
      s += kDigits[c & 15];
    }
  }
  if (e - b > static_cast<ptrdiff_t>(kMax)) s += "...";
  return s;
}

// Splits the rest of an `a`/`c` line into the name and an optional trailing hex timestamp.
// The name may contain spaces; the last token is the timestamp when there are at least two
// tokens and the last one is a hex number that fits in 64 bits.
void SplitNameAndStamp(const char* p, const char* eol, std::string& name,
                       std::optional<uint64_t>& stamp) {
  while (eol > p && IsBlank(eol[-1])) --eol;
  stamp.reset();
  const char* last = eol;
  while (last > p && !IsBlank(last[-1])) --last;
  if (last > p) {
    const char* q = last;
    uint64_t v = 0;
    if (ScanHexSlow(q, v) == Hex::kOk && q == eol) {
      stamp = v;
      eol = last;
      while (eol > p && IsBlank(eol[-1])) --eol;
    }
  }
  name.assign(p, eol);
}

enum class State { kInherit, kOpen, kClosed };

class Parser {
 public:
  Parser(const ChunkOptions& o, ChunkResult& r)
      : o_(o), r_(r), out_(o.out), store_(o.out.store), line_(o.first_line - 1) {
    if (!store_) out_.room = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
  }
  const RecordCounts& stored() const { return n_; }

  // Parses the lines in [p, end); end[-1] is '\n'. `offset` is p's offset in the chunk text.
  // Returns false when parsing must stop (strict error or a stop_after_* limit).
  // Bytes up to `limit` (>= end) are readable.
  bool Run(const char* p, const char* end, const char* limit, uint64_t offset, bool releasable) {
    buf_ = p;
    limit_ = limit;
    buf_offset_ = offset;
    const char* released = p;
    while (p < end) {
      ++line_;
      const char* ls = p;
      p = SkipBlanks(p);
      const char* eol;
      if (*p == '\n') {
        eol = p;
      } else {
        r_.any_record = true;
        if (IsDelim(p[1])) {
          switch (*p) {
            case 'o':
              eol = Object(p + 1, ls);
              break;
            case 'r':
              eol = Root(p + 1, ls);
              break;
            case 't':
              eol = Type(p + 1);
              break;
            case 'a':
              eol = Begin(p + 1);
              break;
            case 'c':
              eol = End(p + 1);
              break;
            default:
              eol = Unknown(p);
              break;
          }
        } else {
          eol = Unknown(p);
        }
      }
      p = eol + 1;
      if (done_) return false;
      if (releasable && o_.release && p - released >= kReleaseBytes) {
        o_.release->Release(released, p);
        released = p;
      }
    }
    return true;
  }
  uint64_t line() const { return line_; }

 private:
  static constexpr ptrdiff_t kReleaseBytes = 16 << 20;

  template <class Msg>
  void Diag(const char* code, Msg&& msg) {
    if (r_.diags.size() < o_.max_diags)
      r_.diags.push_back(LocalDiag{line_, code, msg()});
    else
      ++r_.dropped[code];
    if (o_.strict) {
      r_.stopped = true;
      done_ = true;
    }
  }

  // Reads a required hex field; reports and returns false when it is missing or malformed.
  [[gnu::always_inline]] bool Field(const char*& p, uint64_t& v, const char* record,
                                    const char* what, uint64_t max = UINT64_MAX) {
    p = SkipBlanks(p);
    const char* tok = p;
    switch (ScanHex(p, v, limit_)) {
      case Hex::kOk:
        if (v <= max) return true;
        Diag(code::kBadNumber, [&] {
          return std::string(record) + ": " + what + " " + Excerpt(tok, p) +
                 " is out of range (at most " + HexString(max) + ")";
        });
        return false;
      case Hex::kMissing:
        Diag(code::kMissingField, [&] {
          return std::string(record) + ": expected " + what + ", found the end of the line";
        });
        return false;
      case Hex::kBad:
        Diag(code::kBadNumber, [&] {
          return std::string(record) + ": expected " + what + " (hex), found '" + Excerpt(tok, p) +
                 "'";
        });
        return false;
      case Hex::kOverflow:
        Diag(code::kBadNumber, [&] {
          return std::string(record) + ": " + what + " '" + Excerpt(tok, p) +
                 "' does not fit in 64 bits";
        });
        return false;
    }
    return false;
  }

  // A t/o/r record is about to be stored: tie it to a section.
  void BeforeContent() {
    if (state_ == State::kInherit) {
      if (!r_.first_record_line && r_.events.empty()) r_.first_record_line = line_;
    } else if (state_ == State::kClosed) {
      SectionEvent e = Event(SectionEvent::Kind::kImplicitBegin);
      r_.events.push_back(std::move(e));
      state_ = State::kOpen;
    }
  }

  SectionEvent Event(SectionEvent::Kind k) const {
    SectionEvent e;
    e.kind = k;
    e.line = line_;
    e.objects = n_.objects;
    e.roots = n_.roots;
    e.types = static_cast<uint32_t>(r_.types.size());
    return e;
  }

  void Anchor(std::vector<formats::Anchor>& anchors, size_t count, const char* ls) {
    if (count % kAnchorEvery == 0)
      anchors.push_back({buf_offset_ + static_cast<uint64_t>(ls - buf_), line_});
  }

  const char* Object(const char* p, const char* ls) {
    uint64_t id, type, size;
    if (!Field(p, id, "object record", "an object id") ||
        !Field(p, type, "object record", "a type id", UINT32_MAX) ||
        !Field(p, size, "object record", "a size", UINT32_MAX))
      return EndOfLine(p);
    BeforeContent();
    Anchor(r_.object_anchors, n_.objects, ls);
    if (n_.objects >= out_.room.objects) NoRoom();
    const uint64_t at = n_.objects++;
    if (store_) {
      out_.object_id[at] = id;
      out_.object_type[at] = static_cast<uint32_t>(type);
      out_.object_size[at] = static_cast<uint32_t>(size);
    }
    if (o_.record_lines) r_.object_lines.push_back(line_);
    for (;;) {
      p = SkipBlanks(p);
      if (*p == '\n') break;
      const char* tok = p;
      uint64_t ref;
      Hex h = ScanHex(p, ref, limit_);
      if (h == Hex::kOk) {
        if (n_.refs >= out_.room.refs) NoRoom();
        if (store_) out_.refs[n_.refs] = ref;
        ++n_.refs;
      } else {
        Diag(code::kBadNumber, [&] {
          return "object " + HexString(id) + ": reference '" + Excerpt(tok, p) +
                 (h == Hex::kOverflow ? "' does not fit in 64 bits" : "' is not a hex object id") +
                 "; the reference is skipped";
        });
      }
    }
    if (store_) out_.ref_end[at] = out_.ref_base + n_.refs;
    if (n_.objects >= o_.stop_after_objects) Stop();
    return p;
  }

  const char* Root(const char* p, const char* ls) {
    uint64_t id, kind, flags, container = 0;
    if (!Field(p, id, "root record", "an object id") ||
        !Field(p, kind, "root record", "a root descriptor") ||
        !Field(p, flags, "root record", "root flags", 0xFF))
      return EndOfLine(p);
    if (kind >= static_cast<uint64_t>(kRootKindCount)) {
      Diag(code::kBadRootKind, [&] {
        return "root record: descriptor " + HexString(kind) +
               " is not one of 0-5; the root is skipped";
      });
      return EndOfLine(p);
    }
    if (kind == static_cast<uint64_t>(RootKind::kStatic)) {
      if (!Field(p, container, "static root record", "the container type id", UINT32_MAX))
        container = 0;
    }
    p = SkipBlanks(p);
    if (*p != '\n') {
      const char* eol = EndOfLine(p);
      Diag(code::kExtraField, [&] {
        return "root record: unexpected extra field(s) '" + Excerpt(p, eol) + "' (ignored)";
      });
      p = eol;
    }
    if (flags & ~uint64_t{kNetcfRootFlags}) {
      Diag(code::kUnknownRootFlags, [&] {
        return "root record: flags " + HexString(flags) +
               " include unknown bits (known: 1 pinned, " + "2 weak, 4 interior)";
      });
    }
    BeforeContent();
    Anchor(r_.root_anchors, n_.roots, ls);
    if (n_.roots >= out_.room.roots) NoRoom();
    const uint64_t at = n_.roots++;
    if (store_) {
      out_.root_object[at] = id;
      out_.root_kind[at] = static_cast<uint8_t>(kind);
      // Unknown bits are kept as read, except 8: in the model that is xrpm's own conservative
      // flag, which a .gclog cannot carry (its writer drops it), so reading it would make one up.
      out_.root_flags[at] = static_cast<uint8_t>(flags & ~uint64_t{kRootConservative});
      out_.root_container[at] = static_cast<TypeId>(container);
    }
    if (o_.record_lines) r_.root_lines.push_back(line_);
    if (n_.roots >= o_.stop_after_roots) Stop();
    return p;
  }

  const char* Type(const char* p) {
    uint64_t id;
    if (!Field(p, id, "type record", "a type id", UINT32_MAX)) return EndOfLine(p);
    p = SkipBlanks(p);
    const char* eol = EndOfLine(p);
    const char* e = eol;
    while (e > p && IsBlank(e[-1])) --e;
    if (e == p) {
      Diag(code::kMissingField, [&] {
        return "type record " + HexString(id) + ": expected a type name, found the end of the line";
      });
      return eol;
    }
    BeforeContent();
    r_.types.push_back(TypeRecord{static_cast<TypeId>(id), std::string(p, e), line_});
    return eol;
  }

  const char* Begin(const char* p) {
    SectionEvent e = Event(SectionEvent::Kind::kBegin);
    uint64_t version = 2;
    if (!Field(p, version, "AppDomain record", "a version number", UINT32_MAX)) version = 2;
    const char* eol = EndOfLine(p);
    SplitNameAndStamp(SkipBlanks(p), eol, e.name, e.stamp);
    if (e.name.empty() && !done_) {
      Diag(code::kMissingField, [&] {
        return std::string(
            "AppDomain record: expected the AppDomain name, found the end of the line");
      });
    }
    e.version = static_cast<uint32_t>(version);
    r_.events.push_back(std::move(e));
    state_ = State::kOpen;
    return eol;
  }

  const char* End(const char* p) {
    SectionEvent e = Event(SectionEvent::Kind::kEnd);
    const char* eol = EndOfLine(p);
    SplitNameAndStamp(SkipBlanks(p), eol, e.name, e.stamp);
    if (e.name.empty()) {
      Diag(code::kMissingField, [&] {
        return std::string(
            "end AppDomain record: expected the application name, found the end of the line");
      });
    }
    r_.events.push_back(std::move(e));
    state_ = State::kClosed;
    return eol;
  }

  const char* Unknown(const char* p) {
    const char* eol = EndOfLine(p);
    Diag(code::kUnknownRecord, [&] {
      return "unknown record '" + Excerpt(p, eol) +
             "'; expected a line starting with a, t, o, r or c and a space";
    });
    return eol;
  }

  void Stop() {
    r_.stop_line = line_;
    done_ = true;
  }
  [[noreturn]] static void NoRoom() {
    throw std::logic_error("NETCF reader: more records than counted (internal error)");
  }

  const ChunkOptions& o_;
  ChunkResult& r_;
  ColumnsOut out_;
  const bool store_;
  RecordCounts n_;
  uint64_t line_;
  State state_ = State::kInherit;
  bool done_ = false;
  const char* buf_ = nullptr;
  const char* limit_ = nullptr;
  uint64_t buf_offset_ = 0;
};

}  // namespace

std::string HexString(uint64_t v) {
  char buf[17];
  int n = 0;
  do {
    buf[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  return std::string(std::make_reverse_iterator(buf + n), std::make_reverse_iterator(buf));
}

ChunkResult ParseChunk(std::string_view text, const ChunkOptions& opts) {
  ChunkResult r;
  Parser parser(opts, r);
  const char* b = text.data();
  const char* last_nl =
      text.empty() ? nullptr : static_cast<const char*>(memrchr(b, '\n', text.size()));
  const char* body_end = last_nl ? last_nl + 1 : b;
  bool go = true;
  const char* end = b + text.size();
  if (body_end > b) go = parser.Run(b, body_end, end, 0, true);
  if (go && body_end < end) {
    std::string tail(body_end, end);
    tail.push_back('\n');
    const size_t used = tail.size();
    tail.resize(used + 16, '\0');  // readable slack for the 8-byte loads
    parser.Run(tail.data(), tail.data() + used, tail.data() + tail.size(),
               static_cast<uint64_t>(body_end - b), false);
  }
  r.lines = parser.line() - (opts.first_line - 1);
  r.stored = parser.stored();
  return r;
}

std::vector<std::string_view> SplitAtLines(std::string_view text, unsigned n) {
  std::vector<std::string_view> out;
  if (n < 1) n = 1;
  size_t begin = 0;
  for (unsigned i = 1; i <= n && begin < text.size(); ++i) {
    size_t end = text.size();
    if (i < n) {
      size_t nominal = text.size() / n * i;
      if (nominal < begin) nominal = begin;
      size_t nl = text.find('\n', nominal);
      end = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    out.push_back(text.substr(begin, end - begin));
    begin = end;
  }
  return out;
}

}  // namespace xrpm::formats
