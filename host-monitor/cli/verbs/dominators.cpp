// `xrpm dominators FILE [--top N] [--depth D]`: the dominator tree from the top: the objects
// that keep the most memory alive, and (with --depth) what they keep alive in turn.
#include "shared/analysis.h"
#include "shared/verb.h"

namespace xrpm::cli {
namespace verb_dominators {

struct Opts : FileVerbOptions {
  size_t top = 20;
  int depth = 1;
  bool lean = false;
};

struct Walker {
  const analysis::HeapAnalysis& a;
  const analysis::DominatorChildren& ch;
  const Opts& o;

  // Depth-first preorder over the first `o.top` children of each node, down to `o.depth`
  // levels, iterative (a deep tree needs no deep recursion). `visit(v, level, parent)` handles
  // a node and returns what its children get as `parent`.
  template <class P, class Visit>
  void Walk(uint32_t root, P top, Visit visit) const {
    struct Item {
      uint32_t v;
      int level;
      P parent;
    };
    std::vector<Item> stack;
    auto push_children = [&](uint32_t v, int level, P parent) {
      auto kids = ch.Children(v);
      const size_t k = std::min(o.top, kids.size());
      for (size_t i = k; i-- > 0;) stack.push_back({kids[i], level, parent});
    };
    push_children(root, 1, top);
    while (!stack.empty()) {
      const Item it = stack.back();
      stack.pop_back();
      P mine = visit(it.v, it.level, it.parent);
      if (it.level < o.depth) push_children(it.v, it.level + 1, mine);
    }
  }

  nlohmann::json Json(uint32_t root) const {
    nlohmann::json top = nlohmann::json::array();
    // A node's `parent` points into its parent's entry, which cannot move any more: every
    // later append goes to a subtree not yet started.
    Walk(root, &top, [&](uint32_t v, int level, nlohmann::json* into) -> nlohmann::json* {
      nlohmann::json j = ObjectJson(a, v);
      j["retained_share"] =
          double(a.dom.retained(v)) / double(std::max<uint64_t>(1, a.dom.reachable_bytes()));
      j["dominated_children"] = ch.Children(v).size();
      into->push_back(std::move(j));
      if (level >= o.depth) return nullptr;
      nlohmann::json& me = into->back();
      me["children"] = nlohmann::json::array();
      return &me["children"];
    });
    return top;
  }

  void Rows(uint32_t root, TextTable& table) const {
    const Snapshot& s = *a.snapshot;
    Walk(root, 0, [&](uint32_t v, int level, int) {
      table.AddRow({FormatBytes(a.dom.retained(v)),
                    Percent(double(a.dom.retained(v)), double(a.dom.reachable_bytes())),
                    FormatBytes(s.object_size[v]), FormatCount(ch.Children(v).size()),
                    std::string(size_t(2 * (level - 1)), ' ') + ObjectLabel(a.index, v)});
      return 0;
    });
  }
};

int Run(const Opts& o) {
  auto f = DominanceForCli(o.file, o.in, o.lean);
  const analysis::HeapAnalysis& a = f->a;
  const analysis::DominatorChildren ch = analysis::DominatorChildren::Build(a.dom);
  Walker w{a, ch, o};
  const uint32_t root = a.dom.virtual_root();
  if (o.json) {
    PrintJson({{"file", f->loaded.path},
               {"reachable_objects", a.dom.reachable_count()},
               {"reachable_bytes", a.dom.reachable_bytes()},
               {"top_level_count", ch.Children(root).size()},
               {"dominators", w.Json(root)}});
    return kExitOk;
  }
  std::printf("%s: %s reachable objects, %s; %s directly under the roots\n\n",
              f->loaded.path.c_str(), FormatCount(a.dom.reachable_count()).c_str(),
              FormatBytes(a.dom.reachable_bytes()).c_str(),
              FormatCount(ch.Children(root).size()).c_str());
  using A = TextTable::Align;
  TextTable t({{"retained", A::kRight},
               {"of heap", A::kRight},
               {"shallow", A::kRight},
               {"dominates", A::kRight},
               {"object", A::kLeft}});
  w.Rows(root, t);
  t.Print();
  return kExitOk;
}

VerbRun Setup(CLI::App& cmd) {
  auto o = std::make_shared<Opts>();
  AddFileOptions(cmd, *o);
  cmd.add_option("--top", o->top, "Entries per level of the tree")
      ->default_val(20)
      ->check(CLI::PositiveNumber);
  cmd.add_option("--depth", o->depth, "Levels of the tree to show")
      ->default_val(1)
      ->check(CLI::Range(1, 64));
  cmd.add_flag("--lean", o->lean,
               "Keep no copy of the references: the least memory (for the largest heaps), "
               "slower; chosen by itself when that copy would not fit in the memory available");
  return [o] { return Run(*o); };
}

VerbRegistration reg{"dominators",
                     "The objects that keep the most memory alive (dominator tree, largest first)",
                     Setup};

}  // namespace verb_dominators
}  // namespace xrpm::cli
