// CountRecords (netcf_reader_chunk.h): upper bounds of the records in a text, so the reader can
// size the Snapshot columns once before parsing. 16 bytes per step with SSE2 (newline and
// blank masks, a 256-entry popcount table), a plain byte loop elsewhere and for the tail.
#include <bit>

#include "netcf_reader_chunk.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace xrpm::formats {

namespace {

struct PopTable {
  uint8_t v[256];
  constexpr PopTable() : v{} {
    for (int i = 0; i < 256; ++i)
      v[i] = static_cast<uint8_t>(std::popcount(static_cast<unsigned>(i)));
  }
};
constexpr PopTable kPop;
inline unsigned Pop16(unsigned x) {
  return kPop.v[x & 0xff] + kPop.v[(x >> 8) & 0xff];
}

class Counter {
 public:
  Counter(const char* b, const char* e) : e_(e), kind_(KindAt(b)) {}

  // A newline at `nl`: close the line, look at the next one.
  void EndLine(const char* nl) {
    Finish();
    kind_ = KindAt(nl + 1);
    blanks_ = 0;
  }
  void AddBlanks(uint64_t n) { blanks_ += n; }
  RecordCounts Done() {
    Finish();  // a last line without '\n' (no-op after a final newline: kind_ is 0)
    return c_;
  }

 private:
  char KindAt(const char* p) const {
    while (p < e_ && IsBlank(*p)) ++p;
    return p < e_ ? *p : 0;
  }
  void Finish() {
    if (kind_ == 'o') {
      ++c_.objects;
      if (blanks_ > 3) c_.refs += blanks_ - 3;
    } else if (kind_ == 'r') {
      ++c_.roots;
    }
  }
  const char* e_;
  char kind_;
  uint64_t blanks_ = 0;
  RecordCounts c_;
};

}  // namespace

RecordCounts CountRecords(std::string_view text) {
  const char* p = text.data();
  const char* const e = p + text.size();
  Counter c(p, e);
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n'), sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'),
                cr = _mm_set1_epi8('\r');
  for (; e - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    unsigned n = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)));
    unsigned b = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab)), _mm_cmpeq_epi8(v, cr))));
    while (n) {
      const unsigned i = static_cast<unsigned>(std::countr_zero(n));
      c.AddBlanks(Pop16(b & ((1u << i) - 1)));
      b &= ~((2u << i) - 1);
      n &= n - 1;
      c.EndLine(p + i);
    }
    c.AddBlanks(Pop16(b));
  }
#endif
  for (; p < e; ++p) {
    if (*p == '\n')
      c.EndLine(p);
    else if (IsBlank(*p))
      c.AddBlanks(1);
  }
  return c.Done();
}

}  // namespace xrpm::formats
