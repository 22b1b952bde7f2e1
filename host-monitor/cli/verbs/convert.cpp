// `xrpm convert IN OUT`: reads a snapshot in any readable format and writes it in canonical
// form (atomically), choosing formats by --from/--to or by content/extension. What the output
// format cannot keep (root origins, capture metadata: see docs/FORMAT.md) is said on stderr
// and listed in the JSON's "dropped".
#include "shared/common.h"
#include "shared/verb.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::cli {
namespace verb_convert {

struct Opts {
  std::string in, out, to;
  InputOptions input;
  bool json = false;
};

int Run(const Opts& o) {
  LoadedSnapshot l = LoadForCli(o.in, o.input);
  std::string to = o.to;
  if (to.empty()) {
    const formats::FormatInfo* f = formats::FormatForPath(o.out, false);
    to = f ? f->name : "netcf";
  }
  const std::vector<std::string> lost = formats::FormatLosses(l.snap, to);
  for (const std::string& x : lost)
    std::fprintf(stderr, "note: %s does not keep %s\n", to.c_str(), x.c_str());
  formats::SaveSnapshot(l.snap, o.out, to);
  const Snapshot& s = l.snap;
  if (o.json) {
    PrintJson({{"input", o.in},
               {"output", o.out},
               {"from", l.format},
               {"to", to},
               {"sections", s.sections.size()},
               {"types", s.type_count()},
               {"objects", s.object_count()},
               {"references", s.ref_count()},
               {"roots", s.root_count()},
               {"dropped", lost},
               {"diagnostics", DiagnosticsJson(l.diags)}});
  } else {
    std::printf("wrote %s (%s): %s section(s), %s objects, %s references, %s roots\n",
                o.out.c_str(), to.c_str(), FormatCount(s.sections.size()).c_str(),
                FormatCount(s.object_count()).c_str(), FormatCount(s.ref_count()).c_str(),
                FormatCount(s.root_count()).c_str());
  }
  return kExitOk;
}

VerbRegistration reg{
    "convert", "Read a snapshot and write it in canonical form (format by extension or --to)",
    [](CLI::App& cmd) -> VerbRun {
      auto o = std::make_shared<Opts>();
      cmd.add_option("input", o->in, "Snapshot file to read")->required();
      cmd.add_option("output", o->out, "File to write (replaced atomically)")->required();
      cmd.add_option("--to", o->to, "Output format; default: by extension, else netcf")
          ->check(FormatValidator(false));
      AddInputOptions(cmd, o->input);
      AddJsonFlag(cmd, o->json);
      return [o] { return Run(*o); };
    }};

}  // namespace verb_convert
}  // namespace xrpm::cli
