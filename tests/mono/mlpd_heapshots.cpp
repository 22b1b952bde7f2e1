// ReadMlpd: see mlpd_heapshots.h.
#include "mlpd_heapshots.h"

#include <cstring>
#include <map>

namespace xrpm::testing {
namespace {

constexpr uint32_t kHeaderId = 0x4D505A01, kBufferId = 0x4D504C01;
constexpr int kFormat = 17;

struct Reader {
  const std::string& b;
  size_t pos = 0, end = 0;
  std::string error;

  bool Fail(const std::string& what) {
    if (error.empty()) error = "byte " + std::to_string(pos) + ": " + what;
    return false;
  }
  bool Fixed(size_t n, uint64_t* v) {
    if (end - pos < n) return Fail("expected " + std::to_string(n) + " bytes, found the end");
    uint64_t x = 0;
    for (size_t i = 0; i < n; ++i) x |= uint64_t{static_cast<uint8_t>(b[pos + i])} << (8 * i);
    pos += n;
    *v = x;
    return true;
  }
  bool Byte(uint64_t* v) { return Fixed(1, v); }
  bool Uleb(uint64_t* v) {
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= end) return Fail("expected a uleb128 value, found the end");
      const auto c = static_cast<uint8_t>(b[pos++]);
      x |= uint64_t{c & 0x7fu} << shift;
      if (!(c & 0x80)) {
        *v = x;
        return true;
      }
    }
    return Fail("a uleb128 value longer than 64 bits");
  }
  bool Sleb(int64_t* v) {
    uint64_t x = 0;
    int shift = 0;
    uint8_t c = 0;
    do {
      if (pos >= end) return Fail("expected a sleb128 value, found the end");
      if (shift >= 64) return Fail("a sleb128 value longer than 64 bits");
      c = static_cast<uint8_t>(b[pos++]);
      x |= uint64_t{c & 0x7fu} << shift;
      shift += 7;
    } while (c & 0x80);
    if (shift < 64 && (c & 0x40)) x |= ~uint64_t{0} << shift;
    *v = static_cast<int64_t>(x);
    return true;
  }
  bool Skip(uint64_t n) {  // n sleb/uleb values
    for (uint64_t i = 0; i < n; ++i) {
      int64_t v;
      if (!Sleb(&v)) return false;
    }
    return true;
  }
  bool String(std::string* s) {
    const void* nul = std::memchr(b.data() + pos, 0, end - pos);
    if (!nul) return Fail("expected a NUL-terminated string, found the end");
    const size_t n = static_cast<const char*>(nul) - (b.data() + pos);
    if (s) s->assign(b.data() + pos, n);
    pos += n + 1;
    return true;
  }
  // A count of values that each take at least one byte: no more than the bytes left.
  bool Count(uint64_t* n, const char* what) {
    if (!Uleb(n)) return false;
    if (*n > end - pos)
      return Fail(std::string(what) + " count " + std::to_string(*n) + " exceeds the " +
                  std::to_string(end - pos) + " bytes left");
    return true;
  }
  bool Backtrace() {
    uint64_t n;
    return Count(&n, "backtrace") && Skip(n);
  }
};

}  // namespace

std::string MlpdFile::ClassOf(uint64_t vtable) const {
  auto v = vtable_class.find(vtable);
  if (v == vtable_class.end()) return "";
  auto c = class_name.find(v->second);
  return c == class_name.end() ? "" : c->second;
}

bool ReadMlpd(const std::string& bytes, MlpdFile* out, std::string* error) {
  Reader r{bytes, 0, bytes.size(), {}};
  auto fail = [&] {
    *error = r.error;
    return false;
  };
  uint64_t v = 0;
  if (!r.Fixed(4, &v)) return fail();
  if (v != kHeaderId) {
    r.pos = 0;
    r.Fail("expected the log profiler's magic 0x4D505A01");
    return fail();
  }
  uint64_t major = 0, minor = 0, format = 0, ptrsize = 0;
  if (!r.Byte(&major) || !r.Byte(&minor) || !r.Byte(&format) || !r.Byte(&ptrsize)) return fail();
  if (format != kFormat) {
    r.pos = 6;
    r.Fail("expected data format " + std::to_string(kFormat) + ", found " + std::to_string(format));
    return fail();
  }
  if (!r.Fixed(8, &v) || !r.Fixed(8, &v) || !r.Fixed(4, &v) || !r.Fixed(4, &v) || !r.Fixed(4, &v) ||
      !r.Fixed(2, &v))
    return fail();
  for (int i = 0; i < 3; ++i) {  // args, arch, os
    uint64_t n;
    if (!r.Fixed(4, &n)) return fail();
    if (n > r.end - r.pos) {
      r.Fail("a header string of " + std::to_string(n) + " bytes exceeds the file");
      return fail();
    }
    r.pos += n;
  }

  // Heapshots by start, per thread the one it is filling.
  std::map<std::pair<uint64_t, size_t>, size_t> order;  // (start time, sequence) -> index
  std::vector<std::vector<MlpdObject>> shots;
  std::unordered_map<uint64_t, size_t> filling;  // thread -> index in shots
  std::vector<uint64_t> starts;
  while (r.pos < bytes.size()) {
    r.end = bytes.size();
    uint64_t id, len, time_base, ptr_base, obj_base, thread, method_base;
    if (!r.Fixed(4, &id)) return fail();
    if (id != kBufferId) {
      r.pos -= 4;
      r.Fail("expected a buffer (magic 0x4D504C01)");
      return fail();
    }
    if (!r.Fixed(4, &len) || !r.Fixed(8, &time_base) || !r.Fixed(8, &ptr_base) ||
        !r.Fixed(8, &obj_base) || !r.Fixed(8, &thread) || !r.Fixed(8, &method_base))
      return fail();
    if (len > bytes.size() - r.pos) {
      r.Fail("a buffer of " + std::to_string(len) + " bytes exceeds the file");
      return fail();
    }
    r.end = r.pos + len;
    uint64_t time = time_base;
    while (r.pos < r.end) {
      const size_t at = r.pos;
      uint64_t ev, dt;
      if (!r.Byte(&ev) || !r.Uleb(&dt)) return fail();
      time += dt;
      const uint64_t type = ev & 0xf, ext = ev & 0xf0;
      int64_t s;
      uint64_t u, n;
      bool ok = true;
      switch (type) {
        case 0:  // alloc
          ok = r.Sleb(&s) && r.Sleb(&s) && r.Uleb(&u) && (!(ext & 0x10) || r.Backtrace());
          break;
        case 1:  // gc
          switch (ext >> 4) {
            case 1:
              ok = r.Byte(&u) && r.Byte(&u);
              break;
            case 2:
              ok = r.Uleb(&u);
              break;
            case 3:
              ok = r.Count(&n, "moves") && r.Skip(n);
              break;
            case 4:
            case 6:
              ok = r.Uleb(&u) && r.Uleb(&u) && r.Sleb(&s) && (ext >> 4 != 6 || r.Backtrace());
              break;
            case 5:
            case 7:
              ok = r.Uleb(&u) && r.Uleb(&u) && (ext >> 4 != 7 || r.Backtrace());
              break;
            case 8:
            case 9:
              break;
            case 10:
            case 11:
              ok = r.Sleb(&s);
              break;
            default:
              ok = r.Fail("unknown GC event " + std::to_string(ext >> 4));
          }
          break;
        case 2: {  // metadata
          uint64_t mtype;
          int64_t ptr;
          ok = r.Byte(&mtype) && r.Sleb(&ptr);
          if (!ok) break;
          const uint64_t p = ptr_base + static_cast<uint64_t>(ptr);
          std::string name;
          switch (mtype) {
            case 1:  // class
              ok = r.Sleb(&s) && r.String(&name);
              if (ok) out->class_name[p] = name;
              break;
            case 2:
              ok = r.String(nullptr) && (ext != 0x20 || r.String(nullptr));
              break;  // image
            case 3:
              ok = r.Sleb(&s) && r.String(nullptr);
              break;  // assembly
            case 4:
            case 5:
              ok = ext != 0 || r.String(nullptr);
              break;  // domain, thread
            case 6:
              ok = r.Sleb(&s);
              break;   // context
            case 7: {  // vtable
              int64_t klass;
              ok = r.Sleb(&s) && r.Sleb(&klass);
              if (ok) out->vtable_class[p] = ptr_base + static_cast<uint64_t>(klass);
              break;
            }
            default:
              ok = r.Fail("unknown metadata type " + std::to_string(mtype));
          }
          break;
        }
        case 3:  // method
          ok = r.Sleb(&s) && (ext != 0x40 || (r.Sleb(&s) && r.Uleb(&u) && r.String(nullptr)));
          break;
        case 4:  // exception
          if (ext & 0x10)
            ok = r.Byte(&u) && r.Uleb(&u) && r.Sleb(&s) && r.Sleb(&s);
          else
            ok = r.Sleb(&s);
          if (ok && (ext & 0x80)) ok = r.Backtrace();
          break;
        case 5:  // monitor
          ok = r.Byte(&u) && r.Sleb(&s) && (!(ext & 0x80) || r.Backtrace());
          break;
        case 6:  // heap
          switch (ext >> 4) {
            case 0:  // start
              filling[thread] = shots.size();
              order[{time, shots.size()}] = shots.size();
              shots.emplace_back();
              break;
            case 1:
              filling.erase(thread);
              break;   // end
            case 2: {  // object
              int64_t obj, vt;
              uint64_t size, gen, refs;
              ok = r.Sleb(&obj) && r.Sleb(&vt) && r.Uleb(&size) && r.Byte(&gen) &&
                   r.Count(&refs, "references") && r.Skip(2 * refs);
              if (!ok) break;
              auto f = filling.find(thread);
              if (f == filling.end()) {
                r.pos = at;
                ok = r.Fail("a heap object outside a heapshot");
                break;
              }
              if (size != 0)
                // Object addresses are stored >> 3 (log.c emit_obj), the base too.
                shots[f->second].push_back(MlpdObject{(obj_base + static_cast<uint64_t>(obj)) << 3,
                                                      ptr_base + static_cast<uint64_t>(vt), size});
              break;
            }
            case 3:
              ok = r.Count(&n, "roots") && r.Skip(2 * n);
              break;
            case 4:
              ok = r.Sleb(&s) && r.Uleb(&u) && r.Byte(&u) && r.Sleb(&s) && r.String(nullptr);
              break;
            case 5:
              ok = r.Sleb(&s);
              break;
            default:
              ok = r.Fail("unknown heap event " + std::to_string(ext >> 4));
          }
          break;
        case 7:  // sample
          switch (ext >> 4) {
            case 0:
              ok = r.Sleb(&s) && r.Count(&n, "instruction pointers") && r.Skip(n) &&
                   r.Count(&n, "frames") && r.Skip(n);
              break;
            case 1:
              ok = r.Sleb(&s) && r.Uleb(&u) && r.String(nullptr);
              break;
            case 3:
              ok = r.Count(&n, "counters");
              for (uint64_t i = 0; ok && i < n; ++i) {
                uint64_t section;
                ok = r.Uleb(&section) && (section != (1u << 15) || r.String(nullptr)) &&
                     r.String(nullptr) && r.Uleb(&u) && r.Uleb(&u) && r.Uleb(&u) && r.Uleb(&u);
              }
              break;
            case 4:
              for (;;) {
                uint64_t index, vtype;
                if (!(ok = r.Uleb(&index)) || index == 0) break;
                if (!(ok = r.Uleb(&vtype))) break;
                if (vtype == 5)
                  ok = r.Fixed(8, &u);
                else if (vtype == 6)
                  ok = r.Byte(&u) && (u == 0 || r.String(nullptr));
                else
                  ok = r.Sleb(&s);
                if (!ok) break;
              }
              break;
            default:
              ok = r.Fail("unknown sample event " + std::to_string(ext >> 4));
          }
          break;
        case 8:  // runtime: JIT helper
          ok = r.Byte(&u);
          if (ok) {
            const uint64_t kind = u;
            ok = r.Sleb(&s) && r.Uleb(&u) && (kind != 5 || r.String(nullptr));
          }
          break;
        case 10:  // meta
          ok = ext == 0 ? r.Byte(&u) : r.String(nullptr);
          break;
        default:
          r.pos = at;
          ok = r.Fail("unknown event type " + std::to_string(type));
      }
      if (!ok) return fail();
    }
  }
  out->heapshots.clear();
  for (auto& [key, index] : order) out->heapshots.push_back(std::move(shots[index]));
  return true;
}

}  // namespace xrpm::testing
