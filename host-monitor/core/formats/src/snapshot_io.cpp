// Snapshot I/O by format (snapshot_io.h). Every format is one entry of kFormats below: its
// description, a content sniffer, and read/write functions. Adding a format is adding an entry.
#include "xrpm/formats/snapshot_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "xrpm/formats/gcdump_reader.h"
#include "xrpm/formats/heapsnapshot_writer.h"
#include "xrpm/formats/ibm_classic_reader.h"
#include "xrpm/formats/ibm_classic_writer.h"
#include "xrpm/formats/netcf_reader.h"
#include "xrpm/formats/netcf_writer.h"
#include "xrpm/formats/xrpm_file.h"

namespace xrpm::formats {

namespace {

using SniffFn = bool (*)(std::string_view head);
using ReadFn = Snapshot (*)(const std::string& path, Diagnostics& diags, const ReadOptions& opts);
using WriteFn = void (*)(const Snapshot& snap, const std::string& path);

struct FormatEntry {
  FormatInfo info;
  SniffFn sniff;  // does the start of a file look like this format?
  ReadFn read;    // null when the format cannot be read
  WriteFn write;  // null when the format cannot be written
};

// NETCF: the first non-blank line is a record letter followed by a blank.
bool SniffNetcf(std::string_view head) {
  size_t i = 0;
  while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  if (i + 1 >= head.size()) return false;
  const char c = head[i], n = head[i + 1];
  return std::string_view("atorc").find(c) != std::string_view::npos && (n == ' ' || n == '\t');
}

const std::vector<FormatEntry>& Table() {
  static const std::vector<FormatEntry> kFormats = {
      {{"xrpm", "xrpm snapshot (lossless: root origins, capture metadata)", {".xrpm"}, true, true},
       LooksLikeXrpm,
       [](const std::string& path, Diagnostics& diags, const ReadOptions&) {
         return ReadXrpmSnapshotFile(path, diags);
       },
       [](const Snapshot& snap, const std::string& path) { WriteXrpmFile(snap, path); }},
      {{"netcf", "NETCF text heap dump (RPM .gclog)", {".gclog"}, true, true},
       SniffNetcf,
       ReadNetcfFile,
       WriteNetcfFile},
      {{"ibm-classic", "IBM classic text heapdump (Java, J9 heapdump .txt)", {".txt"}, true, true},
       LooksLikeIbmClassic,
       [](const std::string& path, Diagnostics& diags, const ReadOptions& opts) {
         return ReadIbmClassicFile(path, diags, opts);
       },
       [](const Snapshot& snap, const std::string& path) { WriteIbmClassicFile(snap, path); }},
      {{"heapsnapshot",
        "Chrome DevTools heap snapshot (V8 .heapsnapshot, export only)",
        {".heapsnapshot"},
        false,
        true},
       nullptr,
       nullptr,
       [](const Snapshot& snap, const std::string& path) { WriteHeapSnapshotFile(snap, path); }},
      {{"gcdump",
        ".NET heap snapshot (dotnet-gcdump / PerfView .gcdump, import only)",
        {".gcdump"},
        true,
        false},
       LooksLikeGcDump,
       [](const std::string& path, Diagnostics& diags, const ReadOptions& opts) {
         return ReadGcDumpFile(path, diags, opts);
       },
       nullptr},
  };
  return kFormats;
}

std::string Lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return r;
}

const FormatEntry* EntryByName(std::string_view name) {
  const std::string n = Lower(name);
  for (const FormatEntry& e : Table())
    if (e.info.name == n) return &e;
  return nullptr;
}

const FormatEntry* EntryByExtension(const std::string& path) {
  const std::string p = Lower(path);
  for (const FormatEntry& e : Table())
    for (const std::string& ext : e.info.extensions)
      if (p.size() > ext.size() && p.compare(p.size() - ext.size(), ext.size(), ext) == 0)
        return &e;
  return nullptr;
}

std::string ReadHead(const std::string& path, size_t n) {
  std::string head;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return head;
  head.resize(n);
  ssize_t got = ::read(fd, head.data(), n);
  ::close(fd);
  head.resize(got > 0 ? static_cast<size_t>(got) : 0);
  return head;
}

const FormatEntry* EntryForReading(const std::string& path) {
  const std::string head = ReadHead(path, 4096);
  for (const FormatEntry& e : Table())
    if (e.read && e.sniff && e.sniff(head)) return &e;
  return EntryByExtension(path);
}

std::string FormatNames() {
  std::string s;
  for (const FormatEntry& e : Table()) s += (s.empty() ? "" : ", ") + e.info.name;
  return s;
}

}  // namespace

const std::vector<FormatInfo>& Formats() {
  static const std::vector<FormatInfo> kInfos = [] {
    std::vector<FormatInfo> v;
    for (const FormatEntry& e : Table()) v.push_back(e.info);
    return v;
  }();
  return kInfos;
}

const FormatInfo* FindFormat(std::string_view name) {
  const FormatEntry* e = EntryByName(name);
  return e ? &e->info : nullptr;
}

const FormatInfo* FormatForPath(const std::string& path, bool for_reading) {
  const FormatEntry* e = for_reading ? EntryForReading(path) : EntryByExtension(path);
  return e ? &e->info : nullptr;
}

Snapshot LoadSnapshot(const std::string& path, Diagnostics& diags, const ReadOptions& opts,
                      std::string_view format) {
  const FormatEntry* e = nullptr;
  if (!format.empty()) {
    e = EntryByName(format);
    if (!e)
      throw InputError(Diagnostic{
          path, 0, "unknown-format",
          "unknown format '" + std::string(format) + "' (known: " + FormatNames() + ")"});
  } else {
    if (::access(path.c_str(), R_OK) != 0) {
      // Let the reader produce the precise open error.
      e = EntryByName("netcf");
    } else {
      e = EntryForReading(path);
    }
    if (!e)
      throw InputError(Diagnostic{path, 0, "unknown-format",
                                  "cannot tell the file's format from its content or extension "
                                  "(known: " +
                                      FormatNames() + "); name it with --from"});
  }
  if (!e->read)
    throw InputError(
        Diagnostic{path, 0, "unsupported-format", "format '" + e->info.name + "' cannot be read"});
  Snapshot snap = e->read(path, diags, opts);
  snap.source = path;
  return snap;
}

std::vector<std::string> FormatLosses(const Snapshot& snap, std::string_view format) {
  const std::string f = Lower(format);
  std::vector<std::string> lost;
  if (f == "xrpm") return lost;
  uint64_t with_origin = 0;
  for (uint32_t o : snap.root_origin) with_origin += o != kNoIndex;
  if (with_origin && f != "heapsnapshot")
    lost.push_back("root origins of " + std::to_string(with_origin) +
                   " roots (which thread, frame or handle table holds each root)");
  if (snap.capture)
    lost.push_back("the capture's metadata (device " + snap.capture->device.app_name + " on " +
                   snap.capture->device.runtime_name +
                   ", time, pause, GC and walk times, wire bytes, "
                   "agent memory)");
  if (snap.has_origins()) {
    uint64_t known = 0;
    for (size_t i = 0; i < snap.object_count(); ++i) known += snap.origin_known(i);
    lost.push_back("allocation sites and ages of " + std::to_string(known) +
                   " objects (where and in which frame each object was allocated)");
  }
  if (snap.fields.present()) {
    uint64_t with_values = 0;
    for (size_t i = 0; i < snap.fields.values.size(); ++i)
      with_values += !snap.fields.values_of(i).empty();
    if (f == "heapsnapshot")  // keeps field names on edges and string text
      lost.push_back("the type layouts and the field values of " + std::to_string(with_values) +
                     " objects (only field names and string text are exported)");
    else
      lost.push_back("the type layouts, the field names of " +
                     std::to_string(snap.fields.ref_slot.size()) +
                     " references, the root labels and the values of " +
                     std::to_string(with_values) + " objects (field values, string text)");
  }
  uint64_t with_traits = 0;
  for (const TypeInfo& t : snap.types) with_traits += t.traits.known() || t.has_finalizer;
  if (with_traits)
    lost.push_back("the traits of " + std::to_string(with_traits) +
                   " types (value type, enum, array rank, finalizer: what the runtime said each "
                   "type is; the inspections then guess from names)");
  uint64_t conservative = 0;
  for (uint8_t flags : snap.root_flags) conservative += (flags & kRootConservative) != 0;
  if (conservative && f == "netcf")
    lost.push_back("the conservative flag of " + std::to_string(conservative) +
                   " stack roots (a conservative scan found them; NETCF has no such flag)");
  if (snap.sections.size() > 1 && f != "netcf")
    lost.push_back("the " + std::to_string(snap.sections.size()) +
                   " AppDomain sections (merged into one heap)");
  return lost;
}

void SaveSnapshot(const Snapshot& snap, const std::string& path, std::string_view format) {
  const FormatEntry* e = format.empty() ? EntryByExtension(path) : EntryByName(format);
  if (!e && format.empty()) e = EntryByName("netcf");
  if (!e)
    throw std::runtime_error("unknown format '" + std::string(format) +
                             "' (known: " + FormatNames() + ")");
  if (!e->write) throw std::runtime_error("format '" + e->info.name + "' cannot be written");
  e->write(snap, path);
}

}  // namespace xrpm::formats
