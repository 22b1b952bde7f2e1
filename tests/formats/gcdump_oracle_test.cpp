// The .gcdump decoder against PerfView's own XML rendering of the same file
// (tests/data/gcdump/perfview-test1_baseline.gcdump.xml): every node's type index, size,
// children and address, the type table, the root index and the graph totals must agree.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "file_bytes.h"
#include "xrpm/formats/gcdump_file.h"

namespace xrpm {
namespace {

const std::string kOracleDir = std::string(XRPM_TEST_DATA) + "/gcdump";

std::string Unescape(std::string_view s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      r += s[i];
      continue;
    }
    const size_t semi = s.find(';', i);
    const std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "lt")
      r += '<';
    else if (ent == "gt")
      r += '>';
    else if (ent == "amp")
      r += '&';
    else if (ent == "quot")
      r += '"';
    else if (ent == "apos")
      r += '\'';
    else
      ADD_FAILURE() << "unknown entity " << ent;
    i = semi;
  }
  return r;
}

// The value of attribute `name` in the tag text `tag`.
std::string Attr(std::string_view tag, std::string_view name) {
  const std::string key = " " + std::string(name) + "=\"";
  const size_t at = tag.find(key);
  if (at == std::string_view::npos) return {};
  const size_t b = at + key.size();
  return Unescape(tag.substr(b, tag.find('"', b) - b));
}

struct XmlNode {
  uint32_t type = 0;
  uint32_t size = 0;
  uint64_t address = 0;
  std::vector<uint32_t> children;
};
struct XmlGraph {
  uint64_t num_nodes = 0, num_types = 0, total_size = 0;
  int32_t root = -1;
  std::vector<std::string> type_names;
  std::vector<XmlNode> nodes;
};

XmlGraph ParseXml(const std::string& xml) {
  XmlGraph g;
  const size_t mg = xml.find("<MemoryGraph ");
  const std::string_view head(xml.data() + mg, xml.find('>', mg) - mg);
  g.num_nodes = std::stoull(Attr(head, "NumNodes"));
  g.num_types = std::stoull(Attr(head, "NumTypes"));
  g.total_size = std::stoull(Attr(head, "TotalSize"));
  const size_t ri = xml.find("<RootIndex>") + 11;
  g.root = std::stoi(xml.substr(ri, xml.find('<', ri) - ri));
  for (size_t p = xml.find("<NodeType "); p != std::string::npos;
       p = xml.find("<NodeType ", p + 1)) {
    const std::string_view tag(xml.data() + p, xml.find("/>", p) - p);
    EXPECT_EQ(std::stoul(Attr(tag, "Index")), g.type_names.size());
    g.type_names.push_back(Attr(tag, "Name"));
  }
  for (size_t p = xml.find("<Node "); p != std::string::npos; p = xml.find("<Node ", p + 1)) {
    const size_t close = xml.find('>', p);
    const std::string_view tag(xml.data() + p, close - p);
    EXPECT_EQ(std::stoul(Attr(tag, "Index")), g.nodes.size());
    XmlNode n;
    n.type = static_cast<uint32_t>(std::stoul(Attr(tag, "TypeIndex")));
    n.size = static_cast<uint32_t>(std::stoul(Attr(tag, "Size")));
    n.address = std::stoull(Attr(tag, "Address"), nullptr, 16);
    const size_t want = std::stoul(Attr(tag, "NumChildren"));
    if (xml[close - 1] != '/') {
      std::istringstream kids(xml.substr(close + 1, xml.find("</Node>", close) - close - 1));
      uint32_t c;
      while (kids >> c) n.children.push_back(c);
    }
    EXPECT_EQ(n.children.size(), want) << "node " << g.nodes.size();
    g.nodes.push_back(std::move(n));
  }
  return g;
}

TEST(GcDumpOracle, PerfViewTest1MatchesPerfViewsXmlRendering) {
  const std::string bytes = testing::FileBytes(kOracleDir + "/perfview-test1.gcdump");
  const XmlGraph want =
      ParseXml(testing::FileBytes(kOracleDir + "/perfview-test1_baseline.gcdump.xml"));
  ASSERT_EQ(want.nodes.size(), 6482u);
  ASSERT_EQ(want.type_names.size(), 1994u);

  const formats::GcDumpFile f = formats::ParseGcDumpFile(
      {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, "test1.gcdump");
  const formats::Graph& g = f.graph;
  EXPECT_EQ(f.version, 10);
  EXPECT_EQ(g.root_index, want.root);
  EXPECT_EQ(static_cast<uint64_t>(g.total_size), want.total_size);
  ASSERT_EQ(g.types.size(), want.num_types);
  for (size_t t = 0; t < g.types.size(); ++t)
    ASSERT_EQ(g.types[t].name, want.type_names[t]) << "type " << t;
  ASSERT_EQ(g.node_count(), want.num_nodes);
  ASSERT_EQ(g.addresses.size(), want.num_nodes);

  formats::NodeDecoder dec(g, "test1.gcdump");
  uint64_t edges = 0, size = 0;
  for (uint32_t i = 0; i < g.node_count(); ++i) {
    const formats::GraphNode n = dec.Decode(i);
    const XmlNode& x = want.nodes[i];
    ASSERT_EQ(n.type, x.type) << "node " << i;
    ASSERT_EQ(n.size, x.size) << "node " << i;
    ASSERT_EQ(g.addresses[i], x.address) << "node " << i;
    ASSERT_EQ(std::vector<uint32_t>(n.children.begin(), n.children.end()), x.children)
        << "node " << i;
    edges += n.children.size();
    size += n.size;
  }
  EXPECT_EQ(edges, 15020u);  // the README's figures
  EXPECT_EQ(size, 1009270u);
}

}  // namespace
}  // namespace xrpm
