/*
 * Tests of the in-network aggregation model's shared parts (suite
 * astra-sim-innetwork-trees): reduction trees built from the topology's switch
 * hierarchy (Switch, Clos, fat-tree, rail-optimized Clos), the in_switch key
 * of the network configuration, the switches' finite resources under both
 * policies, the per-edge bytes and the closed form's terms.
 */

#include "ns3/aggregation-tree.h"
#include "ns3/analytical-in-switch.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/config.h"
#include "ns3/enum.h"
#include "ns3/test.h"
#include "ns3/topology.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>

using namespace ns3;
using namespace ns3::astra;

namespace
{

std::vector<uint32_t>
Range(uint32_t a, uint32_t b, uint32_t step = 1)
{
    std::vector<uint32_t> v;
    for (uint32_t i = a; i < b; i += step)
    {
        v.push_back(i);
    }
    return v;
}

/// \return true if following member m's path from its NPU reaches the tree's root
bool
PathReachesRoot(const Topology& topo, const AggregationTree& t, uint32_t m)
{
    const auto& links = topo.GetLinks();
    auto follow = [&](uint32_t from, Topology::Hop h) {
        const TopoLink& l = links[h.link];
        const uint32_t a = h.dir == 0 ? l.a : l.b;
        const uint32_t b = h.dir == 0 ? l.b : l.a;
        return a == from ? b : UINT32_MAX;
    };
    uint32_t at = follow(t.members[m], t.memberUp[m]);
    int32_t i = int32_t(t.attach[m]);
    if (at != t.nodes[i].sw)
    {
        return false;
    }
    while (t.nodes[i].parent >= 0)
    {
        at = follow(at, t.nodes[i].up);
        i = t.nodes[i].parent;
        if (at != t.nodes[i].sw)
        {
            return false;
        }
    }
    return uint32_t(i) == t.root;
}

/// Tree shapes from the switch hierarchy.
class TreeShapeTest : public TestCase
{
  public:
    TreeShapeTest()
        : TestCase("Reduction trees follow the switch hierarchy (Switch, Clos, fat-tree, rails)")
    {
    }

  private:
    void Check(const Topology& topo,
               uint32_t dim,
               const std::vector<uint32_t>& members,
               uint32_t depth,
               uint32_t switches,
               uint32_t candidates,
               const std::string& what)
    {
        AggregationTreeBuilder b(topo);
        const auto roots = b.RootCandidates(dim, members);
        NS_TEST_EXPECT_MSG_EQ(roots.size(), candidates, what << ": root candidates");
        std::set<uint32_t> distinct(roots.begin(), roots.end());
        NS_TEST_EXPECT_MSG_EQ(distinct.size(), roots.size(), what << ": distinct candidates");
        for (uint32_t r : roots)
        {
            const AggregationTree t = b.Build(dim, members, r);
            NS_TEST_EXPECT_MSG_EQ(t.depth, depth, what << ": depth");
            NS_TEST_EXPECT_MSG_EQ(t.nodes.size(), switches, what << ": switches");
            NS_TEST_EXPECT_MSG_EQ(t.nodes[t.root].sw, r, what << ": root");
            NS_TEST_EXPECT_MSG_EQ(t.nodes[t.root].subtree.size(), members.size(), what);
            NS_TEST_EXPECT_MSG_EQ(t.UpLinks().size(),
                                  members.size() + switches - 1,
                                  what << ": one edge per member and non-root switch");
            for (uint32_t m = 0; m < members.size(); ++m)
            {
                NS_TEST_EXPECT_MSG_EQ(PathReachesRoot(topo, t, m), true, what << " member " << m);
                NS_TEST_EXPECT_MSG_EQ(t.PathNodes(m).size(), depth, what << ": path length");
            }
            uint32_t ports = 0;
            for (const auto& n : t.nodes)
            {
                ports += n.ports;
                NS_TEST_EXPECT_MSG_EQ(n.portLinks.size(), n.ports, what);
            }
            // every edge counted at both of its switch ends, member edges once
            NS_TEST_EXPECT_MSG_EQ(ports, members.size() + 2 * (switches - 1), what << ": ports");
        }
    }

    void DoRun() override
    {
        const Topology sw = Topology::FromDimensions({DimensionSpec{DimType::SWITCH, 8, 50, 500}});
        Check(sw, 0, Range(0, 8), 1, 1, 1, "Switch 8");
        Check(sw, 0, {1, 5, 6}, 1, 1, 1, "Switch, part of the line");

        // Clos: 16 NPUs, 4 per leaf, 4 spines
        const Topology clos = Topology::FromDimensions({ClosDimension(16, 4, 4, 50, 500, 50, 700)});
        Check(clos, 0, Range(0, 16), 2, 5, 4, "Clos 16, every leaf");
        Check(clos, 0, Range(4, 8), 1, 1, 1, "Clos, one leaf");
        Check(clos, 0, {0, 5, 9}, 2, 4, 4, "Clos, three leaves");
        // groups spread over the spines
        AggregationTreeBuilder b(clos);
        std::set<uint32_t> firstRoots;
        for (uint32_t g = 0; g < 12; ++g)
        {
            firstRoots.insert(b.RootCandidates(0, {g % 4, 4 + g, 8 + g % 4})[0]);
        }
        NS_TEST_EXPECT_MSG_GT(firstRoots.size(), 1u, "groups start at different spines");

        // fat-tree k = 4: pods of 4 NPUs (2 edges of 2), 4 cores
        const Topology ft = Topology::FromDimensions({FatTreeDimension(4, 50, 500)});
        Check(ft, 0, {0, 1}, 1, 1, 1, "fat-tree, one edge");
        Check(ft, 0, Range(0, 4), 2, 3, 2, "fat-tree, one pod (root: an aggregation switch)");
        Check(ft, 0, Range(0, 16), 3, 4 * 2 + 4 + 1, 4, "fat-tree, every pod (root: a core)");
        Check(ft, 0, {0, 6, 13}, 3, 3 + 3 + 1, 4, "fat-tree, three pods");

        // rail-optimized: [Switch 4, RailClos 8 with 4 servers per leaf]: a rail's 8 GPUs sit
        // on 2 leaves of their rail, every leaf linked to the 4 shared spines
        DimensionSpec rail = ClosDimension(8, 4, 4, 50, 1000, 50, 1000);
        rail.type = DimType::RAIL_CLOS;
        const Topology rc =
            Topology::FromDimensions({DimensionSpec{DimType::SWITCH, 4, 400, 100}, rail});
        std::vector<uint32_t> railMembers;
        for (uint32_t s = 0; s < 8; ++s)
        {
            railMembers.push_back(s * 4 + 1); // local rank 1 of every server
        }
        Check(rc, 1, railMembers, 2, 3, 4, "rail 1 of a rail-optimized Clos");
        Check(rc, 0, {4, 5, 6, 7}, 1, 1, 1, "a server's scale-up switch");

        // errors: no switches, several dimensions
        const Topology ring = Topology::FromDimensions({DimensionSpec{DimType::RING, 8, 50, 500}});
        bool threw = false;
        try
        {
            AggregationTreeBuilder(ring).RootCandidates(0, Range(0, 8));
        }
        catch (const std::invalid_argument& e)
        {
            threw = std::string(e.what()).find("has no switches") != std::string::npos;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "a Ring has no switches");
        threw = false;
        try
        {
            AggregationTreeBuilder(rc).RootCandidates(1, {1, 6});
        }
        catch (const std::invalid_argument& e)
        {
            threw = std::string(e.what()).find("differ in more than") != std::string::npos;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "members of one line only");
    }
};

/// The in_switch key of the network configuration.
class InSwitchKeyTest : public TestCase
{
  public:
    InSwitchKeyTest()
        : TestCase("in_switch: read per dimension, only on switched types, 0 or 1")
    {
    }

  private:
    std::string Error(const std::string& text)
    {
        const std::string path = "innetwork-key-test.yml";
        {
            std::ofstream f(path);
            f << text;
        }
        std::string msg;
        try
        {
            Topology::FromFile(path);
        }
        catch (const std::exception& e)
        {
            msg = e.what();
        }
        std::remove(path.c_str());
        return msg;
    }

    void DoRun() override
    {
        const std::string path = "innetwork-key-ok.yml";
        {
            std::ofstream f(path);
            f << "topology: [ Switch, Ring, Clos ]\nnpus_count: [ 4, 2, 8 ]\n"
                 "bandwidth: [ 400, 50, 50 ]\nlatency: [ 100, 500, 500 ]\n"
                 "hosts_per_leaf: [ -, -, 4 ]\nin_switch: [ 1, 0, 1 ]\n";
        }
        const Topology t = Topology::FromFile(path);
        std::remove(path.c_str());
        NS_TEST_EXPECT_MSG_EQ(t.GetDimensions()[0].inSwitch, true, "Switch marked");
        NS_TEST_EXPECT_MSG_EQ(t.GetDimensions()[1].inSwitch, false, "Ring unmarked");
        NS_TEST_EXPECT_MSG_EQ(t.GetDimensions()[2].inSwitch, true, "Clos marked");

        const std::string base = "topology: [ Switch, Ring ]\nnpus_count: [ 4, 2 ]\n"
                                 "bandwidth: [ 400, 50 ]\nlatency: [ 100, 500 ]\n";
        std::string e = Error(base + "in_switch: [ 1, 1 ]\n");
        NS_TEST_EXPECT_MSG_NE(e.find("'in_switch'"), std::string::npos, e);
        NS_TEST_EXPECT_MSG_NE(e.find("Ring"), std::string::npos, "names the dimension: " << e);
        e = Error(base + "in_switch: [ 2, 0 ]\n");
        NS_TEST_EXPECT_MSG_NE(e.find("is not 0 or 1"), std::string::npos, e);
        e = Error(base + "in_swich: [ 1, 0 ]\n");
        NS_TEST_EXPECT_MSG_NE(e.find("did you mean 'in_switch'"), std::string::npos, e);
        e = Error(base + "in_switch: [ 1 ]\n");
        NS_TEST_EXPECT_MSG_NE(e.find("one per dimension"), std::string::npos, e);

        DimensionSpec bad{DimType::RING, 4, 50, 500};
        bad.inSwitch = true;
        bool threw = false;
        try
        {
            Topology::FromDimensions({bad});
        }
        catch (const std::invalid_argument& ex)
        {
            threw = std::string(ex.what()).find("'in_switch' does not apply") != std::string::npos;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "C++ description checked too");
    }
};

/// A model without data movement, to test the resource bookkeeping alone.
std::shared_ptr<const Topology>
MarkedClos()
{
    DimensionSpec d = ClosDimension(16, 4, 2, 50, 500, 50, 500);
    d.inSwitch = true;
    return std::make_shared<Topology>(Topology::FromDimensions({d}));
}

/// Resources and policies.
class ResourcesTest : public TestCase
{
  public:
    ResourcesTest()
        : TestCase("Slots, trees per switch and port, fallback and wait policies, bad settings")
    {
    }

  private:
    Ptr<AnalyticalInSwitch> Model(uint32_t slots,
                                  uint32_t treeSlots,
                                  uint32_t perSwitch,
                                  uint32_t perPort,
                                  int policy)
    {
        Ptr<AnalyticalInSwitch> m = CreateObject<AnalyticalInSwitch>();
        m->SetAttribute("Slots", UintegerValue(slots));
        m->SetAttribute("TreeSlots", UintegerValue(treeSlots));
        m->SetAttribute("TreesPerSwitch", UintegerValue(perSwitch));
        m->SetAttribute("TreesPerPort", UintegerValue(perPort));
        m->SetAttribute("NoResources", EnumValue(policy));
        m->SetTopology(MarkedClos());
        return m;
    }

    void DoRun() override
    {
        // two groups sharing leaf 0 (NPUs 0..3): one tree per switch
        const std::vector<uint32_t> g1 = {0, 4, 8, 12};
        const std::vector<uint32_t> g2 = {1, 5, 9, 13};
        const std::vector<uint32_t> g3 = {2, 3};
        std::string why;
        Ptr<AnalyticalInSwitch> m = Model(1024, 256, 1, 0, 0);
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, g1, &why), true, "first group gets its tree");
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, g2, &why), false, "second group: leaves are taken");
        NS_TEST_EXPECT_MSG_NE(why.find("TreesPerSwitch"), std::string::npos, why);
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, g2, &why), false, "the answer is kept");
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, g1, &why), true, "kept for the first group too");
        NS_TEST_EXPECT_MSG_EQ(m->GetStats().fallbacks, 1u, "one group fell back");
        NS_TEST_EXPECT_MSG_EQ(m->GetStats().trees, 1u, "one tree");

        // slots: 512 per switch, 256 per tree: two trees per leaf, the third is refused
        m = Model(512, 256, 0, 0, 0);
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, g1, &why), true, "tree 1");
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, g2, &why), true, "tree 2");
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, {0, 1, 2, 3}, &why), false, "no slots left at leaf 0");
        NS_TEST_EXPECT_MSG_NE(why.find("free slots"), std::string::npos, why);
        NS_TEST_EXPECT_MSG_EQ(m->GetStats().trees, 2u, "two trees hold the slots");
        // a spine full: the next group across leaves takes the other spine
        m = Model(256, 256, 0, 0, 0);
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, {0, 4}, &why), true, "tree on leaves 0, 1");
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, {8, 12}, &why), true, "tree on leaves 2, 3");
        NS_TEST_EXPECT_MSG_NE(m->GetTree(0).nodes[m->GetTree(0).root].sw,
                              m->GetTree(1).nodes[m->GetTree(1).root].sw,
                              "the second tree takes the other spine");

        // trees per port: NPU 0's link is in one tree at most
        m = Model(1024, 64, 0, 1, 0);
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, {0, 1}, &why), true, "tree on leaf 0");
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, {0, 2}, &why), false, "NPU 0's port is taken");
        NS_TEST_EXPECT_MSG_NE(why.find("TreesPerPort"), std::string::npos, why);
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, {2, 3}, &why), true, "other ports are free");

        // wait policy: every group gets a tree; resources are taken per operation
        m = Model(1024, 256, 1, 0, 1);
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, g1, &why), true, "wait: tree 1");
        NS_TEST_EXPECT_MSG_EQ(m->Reserve(0, g2, &why), true, "wait: tree 2 (waits when used)");
        NS_TEST_EXPECT_MSG_EQ(m->GetStats().fallbacks, 0u, "no fallback");

        // configurations that can never give a tree are input errors
        auto errorOf = [&](std::function<void()> f) {
            try
            {
                f();
            }
            catch (const InputError& e)
            {
                return std::string(e.what());
            }
            return std::string();
        };
        std::string e = errorOf([&] { Model(0, 256, 0, 0, 0)->Reserve(0, g3, &why); });
        NS_TEST_EXPECT_MSG_NE(e.find("Slots (0)"), std::string::npos, e);
        e = errorOf([&] { Model(128, 256, 0, 0, 0)->Reserve(0, g3, &why); });
        NS_TEST_EXPECT_MSG_NE(e.find("TreeSlots (256) exceeds Slots (128)"), std::string::npos, e);
        e = errorOf([&] { Model(128, 0, 0, 0, 0)->Reserve(0, g3, &why); });
        NS_TEST_EXPECT_MSG_NE(e.find("TreeSlots (0)"), std::string::npos, e);
        e = errorOf([&] {
            Ptr<AnalyticalInSwitch> w = Model(1024, 256, 0, 0, 0);
            w->SetAttribute("AggregationPorts", UintegerValue(4));
            w->Reserve(0, Range(0, 16), &why); // leaves: 4 NPUs + the spine = 5 ports
        });
        NS_TEST_EXPECT_MSG_NE(e.find("wider than the ports"), std::string::npos, e);
        e = errorOf([&] {
            Ptr<AnalyticalInSwitch> w = Model(1024, 256, 0, 0, 0);
            w->SetAttribute("SlotPayload", UintegerValue(100000));
            w->Reserve(0, g3, &why);
        });
        NS_TEST_EXPECT_MSG_NE(e.find("SlotPayload (100000)"), std::string::npos, e);
        e = errorOf([&] {
            Ptr<AnalyticalInSwitch> w = CreateObject<AnalyticalInSwitch>();
            w->SetTopology(std::make_shared<Topology>(
                Topology::FromDimensions({DimensionSpec{DimType::SWITCH, 4, 50, 500}})));
            w->Reserve(0, {0, 1}, &why);
        });
        NS_TEST_EXPECT_MSG_NE(e.find("in_switch: 1"), std::string::npos, e);
    }
};

/// Bytes per tree edge and the closed form's terms.
class EdgeBytesTest : public TestCase
{
  public:
    EdgeBytesTest()
        : TestCase("Bytes per member and tree edge; the closed form's latency and stream terms")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<AnalyticalInSwitch> m = CreateObject<AnalyticalInSwitch>();
        m->SetAttribute("SlotPayload", UintegerValue(1000));
        m->SetTopology(MarkedClos());
        std::string why;
        const std::vector<uint32_t> all = Range(0, 16);
        NS_TEST_ASSERT_MSG_EQ(m->Reserve(0, all, &why), true, why);
        const AggregationTree& t = m->GetTree(0);
        InSwitchOp op;
        op.members = std::make_shared<std::vector<uint32_t>>(all);
        op.dim = 0;
        op.bytes = 1 << 20;
        const uint32_t nn = uint32_t(t.nodes.size());
        const uint64_t s = op.bytes;
        // all-reduce: S up and S down on every edge, whatever its fan-in
        op.kind = InSwitchOpKind::ALL_REDUCE;
        for (uint32_t e = 0; e < nn + 16; ++e)
        {
            if (e < nn && t.nodes[e].parent < 0)
            {
                continue;
            }
            NS_TEST_EXPECT_MSG_EQ(InSwitchAggregation::EdgeBytes(op, t, e, true), s, "up " << e);
            NS_TEST_EXPECT_MSG_EQ(InSwitchAggregation::EdgeBytes(op, t, e, false), s, "dn " << e);
        }
        // all-gather: a leaf's uplink carries its 4 members' inputs up, all 16 down
        op.kind = InSwitchOpKind::ALL_GATHER;
        const uint32_t leaf = t.attach[0];
        NS_TEST_EXPECT_MSG_EQ(InSwitchAggregation::EdgeBytes(op, t, leaf, true), 4 * s, "AG up");
        NS_TEST_EXPECT_MSG_EQ(InSwitchAggregation::EdgeBytes(op, t, leaf, false), 16 * s, "AG dn");
        NS_TEST_EXPECT_MSG_EQ(InSwitchAggregation::EdgeBytes(op, t, nn + 3, false),
                              15 * s,
                              "AG: a member receives the others' data");
        // reduce-scatter: a leaf's downlink carries its members' shards
        op.kind = InSwitchOpKind::REDUCE_SCATTER;
        NS_TEST_EXPECT_MSG_EQ(InSwitchAggregation::EdgeBytes(op, t, leaf, false),
                              4 * (s / 16),
                              "RS");
        // reduce to member 0: only the root's path carries the result down
        op.kind = InSwitchOpKind::REDUCE;
        op.root = 0;
        NS_TEST_EXPECT_MSG_EQ(InSwitchAggregation::EdgeBytes(op, t, leaf, false), s, "reduce");
        NS_TEST_EXPECT_MSG_EQ(InSwitchAggregation::EdgeBytes(op, t, t.attach[4], false),
                              0u,
                              "reduce: other leaves get nothing");
        // broadcast from member 0: only its path carries the data up
        op.kind = InSwitchOpKind::BROADCAST;
        NS_TEST_EXPECT_MSG_EQ(InSwitchAggregation::EdgeBytes(op, t, t.attach[4], true), 0u, "bc");
        NS_TEST_EXPECT_MSG_EQ(InSwitchAggregation::EdgeBytes(op, t, leaf, true), s, "bc up");

        // closed form: 2 x (NPU link + uplink) latency, S / B (every link 50 GB/s)
        op.kind = InSwitchOpKind::ALL_REDUCE;
        const double b = 50 * 1073741824.0 / 1e9;
        NS_TEST_EXPECT_MSG_EQ_TOL(m->LatencyNs(op, 0, 5), 2 * (500 + 500), 1e-9, "latency");
        NS_TEST_EXPECT_MSG_EQ_TOL(m->StreamNs(op, 0), double(s) / b, 1e-6, "stream");
        // loop time of one slot: propagation both ways + one packet per link each way
        NS_TEST_EXPECT_MSG_EQ_TOL(m->LoopTimeNs(0), 2000 + 4 * 1000 / b, 1e-6, "loop");
        // a small window caps the stream: 4 slots of 1000 B per loop
        m->SetAttribute("TreeSlots", UintegerValue(4));
        const double seqs = std::ceil(double(s) / 1000);
        NS_TEST_EXPECT_MSG_EQ_TOL(m->StreamNs(op, 0), seqs * m->LoopTimeNs(0) / 4, 1e-6, "slots");
        // a slower reduction engine caps it too
        m->SetAttribute("TreeSlots", UintegerValue(256));
        m->SetAttribute("ReductionRate", DataRateValue(DataRate("100Gbps")));
        NS_TEST_EXPECT_MSG_EQ_TOL(m->StreamNs(op, 0), double(s) / 12.5, 1e-6, "engine rate");
    }
};

} // namespace

/// The suite.
class InNetworkTreesTestSuite : public TestSuite
{
  public:
    InNetworkTreesTestSuite()
        : TestSuite("astra-sim-innetwork-trees", UNIT)
    {
        AddTestCase(new TreeShapeTest, TestCase::QUICK);
        AddTestCase(new InSwitchKeyTest, TestCase::QUICK);
        AddTestCase(new ResourcesTest, TestCase::QUICK);
        AddTestCase(new EdgeBytesTest, TestCase::QUICK);
    }
};

static InNetworkTreesTestSuite g_inNetworkTreesTestSuite; //!< static instance
