// The textual form: parse_topology(spec()) gives an equal network, and malformed or
// impossible specs are rejected with a message that says what was expected.
#include <gtest/gtest.h>

#include "tests/topology/sweep.hpp"
#include "topology/topology.hpp"

namespace vmc {
namespace {

bool same_network(const Topology& x, const Topology& y) {
  if (x.nodes() != y.nodes() || x.vertices() != y.vertices() ||
      x.link_count() != y.link_count())
    return false;
  for (LinkId id = 0; id < x.link_count(); ++id)
    if (x.link(id).from != y.link(id).from || x.link(id).to != y.link(id).to) return false;
  return true;
}

std::string error_of(const std::string& spec) {
  try {
    parse_topology(spec);
  } catch (const TopologyError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Parse, RoundTripsEverySweptSpec) {
  for (const std::string& spec : test::sweep_specs()) {
    const auto t = parse_topology(spec);
    const auto again = parse_topology(t->spec());
    EXPECT_EQ(again->spec(), t->spec()) << spec;
    EXPECT_TRUE(same_network(*t, *again)) << spec;
  }
}

TEST(Parse, PrintsTheCanonicalForm) {
  EXPECT_EQ(parse_topology("mesh:6x5")->spec(), "mesh:6x5");
  EXPECT_EQ(parse_topology("torus:8x8")->spec(), "torus:8x8");
  EXPECT_EQ(parse_topology("mesh:4wx4w")->spec(), "torus:4x4");
  EXPECT_EQ(parse_topology("mesh:4x5w")->spec(), "mesh:4x5w");
  EXPECT_EQ(parse_topology("ring:7")->spec(), "ring:7");
  EXPECT_EQ(parse_topology("array:7")->spec(), "array:7");
  EXPECT_EQ(parse_topology("mesh:007")->spec(), "mesh:7");
  EXPECT_EQ(parse_topology("hypercube:12")->spec(), "hypercube:12");
  EXPECT_EQ(parse_topology("tree:5")->spec(), "tree:5");
  EXPECT_EQ(parse_topology("full:3")->spec(), "full:3");
  EXPECT_EQ(parse_topology("mesh:4x5w")->family(), "mesh");
  EXPECT_EQ(parse_topology("torus:3x3")->family(), "torus");
  // A 1-D torus and a ring are the same network under different names.
  EXPECT_TRUE(same_network(*parse_topology("torus:9"), *parse_topology("ring:9")));
  EXPECT_TRUE(same_network(*parse_topology("mesh:9"), *parse_topology("array:9")));
}

TEST(Parse, GivesTheExampleMessage) {
  EXPECT_EQ(error_of("mesh:4y3"),
            "bad topology \"mesh:4y3\": expected mesh:AxB[x...] with positive lengths (a length "
            "ending in w wraps around, e.g. mesh:4x5w)");
}

TEST(Parse, RejectsMalformedSpecsSayingWhatWasExpected) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty; expected one of full:P"},
      {"star:5", "unknown family \"star\"; expected full:P, ring:P"},
      {"garbage", "unknown family \"garbage\""},
      {"Ring:4", "unknown family \"Ring\""},
      {" ring:4", "unknown family \" ring\""},
      {"ring", "missing size: expected ring:P with P a positive integer"},
      {"ring:", "expected ring:P with P a positive integer"},
      {"ring:0", "expected ring:P with P a positive integer"},
      {"ring:-3", "expected ring:P with P a positive integer"},
      {"ring:+3", "expected ring:P"},
      {"ring:3x", "expected ring:P"},
      {"ring:1.5", "expected ring:P"},
      {"ring:4 ", "expected ring:P"},
      {"ring:abc", "expected ring:P"},
      {"array:0", "expected array:P"},
      {"full:0", "expected full:P"},
      {"hypercube:0", "expected hypercube:P"},
      {"hypercube:-8", "expected hypercube:P"},
      {"tree:0", "expected tree:P"},
      {"tree", "missing size: expected tree:P"},
      {"mesh", "missing size: expected mesh:AxB[x...]"},
      {"mesh:", "expected mesh:AxB[x...] with positive lengths"},
      {"mesh:0x3", "expected mesh:AxB[x...] with positive lengths"},
      {"mesh:3x0", "expected mesh:AxB[x...]"},
      {"mesh:4x", "expected mesh:AxB[x...]"},
      {"mesh:x4", "expected mesh:AxB[x...]"},
      {"mesh:4xx3", "expected mesh:AxB[x...]"},
      {"mesh:4X3", "expected mesh:AxB[x...]"},
      {"mesh:4ww", "expected mesh:AxB[x...]"},
      {"mesh:w", "expected mesh:AxB[x...]"},
      {"mesh:-4x3", "expected mesh:AxB[x...]"},
      {"torus:4wx4", "expected torus:AxB[x...] with positive lengths"},
      {"torus:0", "expected torus:AxB[x...]"},
      {"ring:1048577", "too big: 1048577 nodes, at most 1048576 allowed"},
      {"ring:99999999999999999999999", "too big: more than 1048576 nodes"},
      {"hypercube:2000000", "too big"},
      {"tree:1048577", "too big"},
      {"mesh:2048x1024", "too big: 2097152 nodes, at most 1048576 allowed"},
      {"mesh:1024x1024x2", "too big"},
      {"torus:99999999999x99999999999", "too big"},
      {"full:32769", "too big: 32769 nodes, at most 32768 allowed"},
      {"mesh:1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1", "too many dimensions: at most 20"},
  };
  for (const auto& [spec, expected] : cases) {
    const std::string message = error_of(spec);
    EXPECT_EQ(message.rfind("bad topology \"" + spec + "\": ", 0), 0u) << message;
    EXPECT_NE(message.find(expected), std::string::npos)
        << "spec \"" << spec << "\" gave: " << message;
  }
}

TEST(Parse, AcceptsTheLargestSizes) {
  EXPECT_EQ(parse_topology("ring:1048576")->nodes(), 1 << 20);
  EXPECT_EQ(parse_topology("mesh:1024x1024")->nodes(), 1 << 20);
  EXPECT_EQ(parse_topology("full:32768")->nodes(), 32768);
  EXPECT_EQ(parse_topology("mesh:1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1")->nodes(), 1);
}

TEST(Parse, ErrorsAreInvalidArguments) {
  EXPECT_THROW(parse_topology("mesh:4y3"), std::invalid_argument);
}

}  // namespace
}  // namespace vmc
