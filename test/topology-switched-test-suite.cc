/*
 * Tests of the switched dimension types of the topology description (suite
 * astra-sim-topology-switched): two-tier leaf-spine Clos, k-ary fat-tree and
 * rail-optimized Clos. Node, switch and link counts against their closed
 * forms, oversubscription measured on the built links, shortest-path hop
 * counts over every pair, spreading of the spine / core choice, dimension
 * peers in a rail-optimized layout, the network YAML keys and their errors.
 */

#include "ns3/test.h"
#include "ns3/topology.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// Follow a route from src; \return the node reached (UINT32_MAX if the hops are not connected)
uint32_t
Walk(const Topology& t, uint32_t src, const std::vector<Topology::Hop>& hops)
{
    uint32_t cur = src;
    for (const auto& h : hops)
    {
        const auto& l = t.GetLinks().at(h.link);
        const uint32_t from = h.dir == 0 ? l.a : l.b;
        const uint32_t to = h.dir == 0 ? l.b : l.a;
        if (from != cur)
        {
            return UINT32_MAX;
        }
        cur = to;
    }
    return cur;
}

uint32_t
CountTier(const Topology& t, SwitchTier tier)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < t.GetNodeCount(); ++i)
    {
        c += t.GetSwitchTier(i) == tier ? 1 : 0;
    }
    return c;
}

/// Capacity (bytes/ns) of a node's links towards NPUs and towards switches.
std::pair<double, double>
DownUpCapacity(const Topology& t, uint32_t node)
{
    double down = 0;
    double up = 0;
    const SwitchTier mine = t.GetSwitchTier(node);
    for (uint32_t l : t.GetNodeLinks(node))
    {
        const TopoLink& link = t.GetLinks()[l];
        const uint32_t other = link.a == node ? link.b : link.a;
        const SwitchTier ot = t.GetSwitchTier(other);
        if (t.GetNodeKind(other) == TopoNodeKind::NPU || (ot != SwitchTier::NONE && ot < mine))
        {
            down += link.bytesPerNs;
        }
        else
        {
            up += link.bytesPerNs;
        }
    }
    return {down, up};
}

std::string
WriteTemp(const std::string& name, const std::string& text)
{
    const std::string path = "/tmp/astra-topo-switched-test-" + name;
    std::ofstream(path) << text;
    return path;
}

/// 200 Gbit/s in ASTRA-sim GB/s (2^30 bytes)
const double k200G = GbpsToGBps(200);

/// The 128-host two-tier Clos: 8 leaves x 16 hosts, 8 spines, 200 Gbps, 5 us / 12.5 us.
Topology
Clos128()
{
    return Topology::FromDimensions({ClosDimension(128, 16, 8, k200G, 5000, k200G, 12500)});
}

} // namespace

/// Two-tier Clos: counts, tiers, oversubscription, hop counts, spine spreading.
class ClosShapeTest : public TestCase
{
  public:
    ClosShapeTest()
        : TestCase(
              "Clos: 128 hosts, 8 leaves x 16, 8 spines: counts, 2:1, hops 2 and 4, ECMP spread")
    {
    }

  private:
    void DoRun() override
    {
        const Topology t = Clos128();
        NS_TEST_ASSERT_MSG_EQ(t.GetNpuCount(), 128, "hosts");
        NS_TEST_ASSERT_MSG_EQ(t.GetNodeCount(), 128 + 8 + 8, "hosts + leaves + spines");
        NS_TEST_ASSERT_MSG_EQ(CountTier(t, SwitchTier::LEAF), 8, "leaves = 128 / 16");
        NS_TEST_ASSERT_MSG_EQ(CountTier(t, SwitchTier::SPINE), 8, "spines");
        NS_TEST_ASSERT_MSG_EQ(t.GetLinks().size(), 128 + 8 * 8, "host links + leaf x spine");
        NS_TEST_ASSERT_MSG_EQ(t.GetDimensionSwitches(0, SwitchTier::SPINE).size(), 8, "spines");
        const uint32_t leaf0 = t.GetDimensionSwitches(0, SwitchTier::LEAF)[0];
        const uint32_t spine0 = t.GetDimensionSwitches(0, SwitchTier::SPINE)[0];
        NS_TEST_ASSERT_MSG_EQ(t.GetNodeLinks(leaf0).size(), 16 + 8, "leaf degree");
        NS_TEST_ASSERT_MSG_EQ(t.GetNodeLinks(spine0).size(), 8, "spine degree");
        NS_TEST_ASSERT_MSG_EQ(t.GetAttachSwitch(17, 0), leaf0 + 1, "host 17 under leaf 1");
        NS_TEST_ASSERT_MSG_EQ(t.GetSwitchDimension(spine0), 0, "spine of dimension 0");
        // 200 Gbit/s = 25 bytes/ns
        NS_TEST_ASSERT_MSG_EQ_TOL(t.GetLinks()[0].bytesPerNs, 25.0, 1e-9, "host link rate");
        NS_TEST_ASSERT_MSG_EQ_TOL(t.GetLinks()[0].latencyNs, 5000, 1e-9, "host link latency");
        NS_TEST_ASSERT_MSG_EQ_TOL(t.GetLinks()[128].latencyNs, 12500, 1e-9, "uplink latency");
        const auto cap = DownUpCapacity(t, leaf0);
        NS_TEST_ASSERT_MSG_EQ_TOL(cap.first / cap.second, 2.0, 1e-12, "16 x 200 / 8 x 200 = 2:1");

        // oversubscription sets the uplink rate: 16 hosts, 4 spines, 4:1 -> uplink = host rate
        const Topology o = Topology::FromDimensions(
            {DimensionSpec{DimType::CLOS, 64, 50, 100, 16, 4, 0, -1, 4.0}});
        const auto oc = DownUpCapacity(o, o.GetAttachSwitch(0, 0));
        NS_TEST_ASSERT_MSG_EQ_TOL(oc.first / oc.second, 4.0, 1e-12, "4:1 on the leaf");
        NS_TEST_ASSERT_MSG_EQ_TOL(o.GetUplinkGBps(0), 50.0, 1e-12, "16 x 50 / (4 x 4)");
        NS_TEST_ASSERT_MSG_EQ(o.GetLinks().size(), 64 + 4 * 4, "4 leaves x 4 spines");
        // defaults: spines = hosts per leaf, non-blocking
        const Topology d = Topology::FromDimensions({DimensionSpec{DimType::CLOS, 32, 50, 100, 8}});
        NS_TEST_ASSERT_MSG_EQ(CountTier(d, SwitchTier::SPINE), 8, "default spines = 8");
        NS_TEST_ASSERT_MSG_EQ_TOL(d.GetUplinkGBps(0), 50.0, 1e-12, "default non-blocking");
        NS_TEST_ASSERT_MSG_EQ_TOL(d.GetLinks().back().latencyNs, 100, 1e-12, "uplink latency");
        // a single leaf has no spines
        const Topology s = Topology::FromDimensions({DimensionSpec{DimType::CLOS, 8, 50, 100}});
        NS_TEST_ASSERT_MSG_EQ(s.GetNodeCount(), 9, "one leaf");
        NS_TEST_ASSERT_MSG_EQ(s.Route(1, 6).size(), 2, "under one leaf");

        // every pair: 2 hops under one leaf, 4 across; connected; spines spread
        uint32_t bad = 0;
        std::map<uint32_t, uint32_t> spineUse;
        for (uint32_t a = 0; a < 128; ++a)
        {
            for (uint32_t b = 0; b < 128; ++b)
            {
                const auto hops = t.Route(a, b, 0);
                const uint32_t expect = a == b ? 0 : (a / 16 == b / 16 ? 2 : 4);
                if (hops.size() != expect || Walk(t, a, hops) != b)
                {
                    ++bad;
                }
                if (hops.size() == 4)
                {
                    const auto& l = t.GetLinks()[hops[1].link];
                    ++spineUse[l.b];
                    // up and down through the same spine
                    bad += t.GetLinks()[hops[2].link].b == l.b ? 0 : 1;
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(bad, 0, "hop counts, connectivity");
        NS_TEST_ASSERT_MSG_EQ(spineUse.size(), 8, "every spine used");
        // 128 x 112 cross-leaf pairs over 8 spines: 1792 each on average
        for (const auto& kv : spineUse)
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(kv.second, 1792.0, 1792 * 0.1, "spine " << kv.first);
        }
        // deterministic
        NS_TEST_ASSERT_MSG_EQ(t.Route(3, 100)[1].link, Clos128().Route(3, 100)[1].link, "same");

        // Switch (8) x Clos (16 servers, 4 per leaf): dimension-order routes
        const Topology c2 = Topology::FromDimensions(
            {{DimType::SWITCH, 8, 400, 100}, ClosDimension(16, 4, 2, 50, 1000, 50, 2000)});
        NS_TEST_ASSERT_MSG_EQ(c2.GetNpuCount(), 128, "NPUs");
        // 16 line switches + 8 Clos fabrics (one per dim-1 line) x (4 leaves + 2 spines)
        NS_TEST_ASSERT_MSG_EQ(c2.GetNodeCount(), 128 + 16 + 8 * 6, "nodes");
        NS_TEST_ASSERT_MSG_EQ(c2.Route(0, 8 * 15 + 3).size(), 2 + 4, "switch then Clos");
        NS_TEST_ASSERT_MSG_EQ(Walk(c2, 0, c2.Route(0, 8 * 15 + 3)), 8 * 15 + 3, "reaches");
        NS_TEST_ASSERT_MSG_EQ(c2.Route(5, 8 * 2 + 5, 1).size(), 2, "same leaf in dim 1");
    }
};

/// k-ary fat-tree: counts vs closed forms, hop counts 2 / 4 / 6, cores spread.
class FatTreeShapeTest : public TestCase
{
  public:
    FatTreeShapeTest()
        : TestCase(
              "fat-tree: k^3 over 4 hosts, 5k^2 over 4 switches, 3k^3 over 4 links, hops 2, 4, 6")
    {
    }

  private:
    void DoRun() override
    {
        for (uint32_t k : {2u, 4u, 6u, 8u})
        {
            const Topology t = Topology::FromDimensions({FatTreeDimension(k, 50, 100)});
            const uint32_t h = k / 2;
            NS_TEST_ASSERT_MSG_EQ(t.GetNpuCount(), k * k * k / 4, "k^3/4 hosts, k=" << k);
            NS_TEST_ASSERT_MSG_EQ(t.GetNodeCount() - t.GetNpuCount(),
                                  5 * k * k / 4,
                                  "5k^2/4 switches, k=" << k);
            NS_TEST_ASSERT_MSG_EQ(CountTier(t, SwitchTier::LEAF), k * h, "edges, k=" << k);
            NS_TEST_ASSERT_MSG_EQ(CountTier(t, SwitchTier::SPINE), k * h, "aggs, k=" << k);
            NS_TEST_ASSERT_MSG_EQ(CountTier(t, SwitchTier::CORE), h * h, "cores, k=" << k);
            NS_TEST_ASSERT_MSG_EQ(t.GetLinks().size(), 3 * k * k * k / 4, "links, k=" << k);
            uint32_t badDegree = 0;
            for (uint32_t i = t.GetNpuCount(); i < t.GetNodeCount(); ++i)
            {
                badDegree += t.GetNodeLinks(i).size() == k ? 0 : 1;
            }
            NS_TEST_ASSERT_MSG_EQ(badDegree, 0, "every switch has k ports, k=" << k);
        }
        // k derived from the NPU count
        const Topology d = Topology::FromDimensions({DimensionSpec{DimType::FAT_TREE, 54, 50, 1}});
        NS_TEST_ASSERT_MSG_EQ(d.GetNodeCount() - 54, 45, "k = 6 from 54 NPUs");

        const uint32_t k = 8;
        const uint32_t h = 4;
        const Topology t = Topology::FromDimensions({FatTreeDimension(k, 50, 100, 1, 300)});
        uint32_t bad = 0;
        std::set<uint32_t> cores;
        std::set<uint32_t> aggs;
        double latBad = 0;
        for (uint32_t a = 0; a < 128; ++a)
        {
            for (uint32_t b = 0; b < 128; ++b)
            {
                const auto hops = t.Route(a, b);
                uint32_t expect = 6;
                if (a == b)
                {
                    expect = 0;
                }
                else if (a / h == b / h)
                {
                    expect = 2;
                }
                else if (a / (h * h) == b / (h * h))
                {
                    expect = 4;
                }
                if (hops.size() != expect || Walk(t, a, hops) != b)
                {
                    ++bad;
                }
                double lat = 0;
                for (const auto& x : hops)
                {
                    lat += t.GetLinks()[x.link].latencyNs;
                }
                latBad += std::abs(lat - (expect ? 200 + (expect - 2) * 300.0 : 0));
                if (expect == 6)
                {
                    cores.insert(t.GetLinks()[hops[2].link].b);
                    aggs.insert(t.GetLinks()[hops[1].link].b);
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(bad, 0, "hop counts and connectivity");
        NS_TEST_ASSERT_MSG_EQ_TOL(latBad, 0, 1e-9, "2 x 100 + (hops - 2) x 300 ns");
        NS_TEST_ASSERT_MSG_EQ(cores.size(), h * h, "every core used");
        NS_TEST_ASSERT_MSG_EQ(aggs.size(), k * h, "every aggregation switch used");

        // oversubscription 2: uplinks at half rate, edge 2:1, aggregation 1:1
        const Topology o = Topology::FromDimensions({FatTreeDimension(4, 50, 100, 2)});
        const auto edge = DownUpCapacity(o, o.GetAttachSwitch(0, 0));
        NS_TEST_ASSERT_MSG_EQ_TOL(edge.first / edge.second, 2.0, 1e-12, "edge 2:1");
        const uint32_t agg = o.GetDimensionSwitches(0, SwitchTier::SPINE)[0];
        const auto ac = DownUpCapacity(o, agg);
        NS_TEST_ASSERT_MSG_EQ_TOL(ac.first / ac.second, 1.0, 1e-12, "aggregation 1:1");
        NS_TEST_ASSERT_MSG_EQ_TOL(o.GetUplinkGBps(0), 25.0, 1e-12, "50 / 2");
    }
};

/// Rail-optimized Clos under a scale-up Switch dimension.
class RailClosTest : public TestCase
{
  public:
    RailClosTest()
        : TestCase("rail-optimized: Switch 8 x RailClos 16: rails, peers, shared spines, routes")
    {
    }

  private:
    void DoRun() override
    {
        DimensionSpec rail{DimType::RAIL_CLOS, 16, 50, 1000, 8, 4};
        rail.uplinkGBps = 100;
        const Topology t = Topology::FromDimensions({{DimType::SWITCH, 8, 400, 100}, rail});
        NS_TEST_ASSERT_MSG_EQ(t.GetNpuCount(), 128, "8 GPUs x 16 servers");
        // 16 server switches; one fabric: 8 rails x 2 leaves + 4 spines
        NS_TEST_ASSERT_MSG_EQ(t.GetNodeCount(), 128 + 16 + 16 + 4, "nodes");
        NS_TEST_ASSERT_MSG_EQ(t.GetDimensionSwitches(1, SwitchTier::LEAF).size(), 16, "leaves");
        NS_TEST_ASSERT_MSG_EQ(t.GetLinks().size(), 128 + 128 + 16 * 4, "links");
        for (uint32_t sp : t.GetDimensionSwitches(1, SwitchTier::SPINE))
        {
            NS_TEST_ASSERT_MSG_EQ(t.GetNodeLinks(sp).size(), 16, "spine joins all rails' leaves");
        }
        // dim-1 peers of GPU 3 of server 5: GPU 3 of every server
        const auto peers = t.GetDimensionPeers(8 * 5 + 3, 1);
        NS_TEST_ASSERT_MSG_EQ(peers.size(), 16, "16 servers");
        for (uint32_t s = 0; s < 16; ++s)
        {
            NS_TEST_ASSERT_MSG_EQ(peers[s], 8 * s + 3, "same local rank, server " << s);
        }
        // local rank r attaches to rail r's two leaves only
        std::map<uint32_t, std::set<uint32_t>> railLeaves;
        for (uint32_t g = 0; g < 128; ++g)
        {
            railLeaves[g % 8].insert(t.GetAttachSwitch(g, 1));
        }
        std::set<uint32_t> all;
        for (const auto& kv : railLeaves)
        {
            NS_TEST_ASSERT_MSG_EQ(kv.second.size(), 2, "rail " << kv.first << ": 2 leaves");
            all.insert(kv.second.begin(), kv.second.end());
        }
        NS_TEST_ASSERT_MSG_EQ(all.size(), 16, "rails do not share leaves");
        NS_TEST_ASSERT_MSG_EQ(t.GetAttachSwitch(3, 1), t.GetAttachSwitch(8 * 7 + 3, 1), "leaf");
        NS_TEST_ASSERT_MSG_NE(t.GetAttachSwitch(3, 1), t.GetAttachSwitch(8 * 8 + 3, 1), "2nd");
        // routes within a rail: 2 under a leaf, 4 through a spine
        uint32_t bad = 0;
        for (uint32_t a = 0; a < 128; ++a)
        {
            for (uint32_t s = 0; s < 16; ++s)
            {
                const uint32_t b = 8 * s + a % 8;
                const auto hops = t.Route(a, b, 1);
                const uint32_t expect = a == b ? 0 : ((a / 8) / 8 == s / 8 ? 2 : 4);
                bad += hops.size() == expect && Walk(t, a, hops) == b ? 0 : 1;
                if (expect == 4)
                {
                    bad += t.GetLinks()[hops[1].link].bytesPerNs == GBpsToBytesPerNs(100) ? 0 : 1;
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(bad, 0, "rail routes");
        // across rails: scale-up switch first, then the rail
        const auto x = t.Route(0, 8 * 13 + 6);
        NS_TEST_ASSERT_MSG_EQ(x.size(), 2 + 4, "NVSwitch + rail");
        NS_TEST_ASSERT_MSG_EQ(Walk(t, 0, x), 8 * 13 + 6, "reaches");
        NS_TEST_ASSERT_MSG_EQ_TOL(DownUpCapacity(t, t.GetAttachSwitch(0, 1)).first /
                                      DownUpCapacity(t, t.GetAttachSwitch(0, 1)).second,
                                  1.0,
                                  1e-12,
                                  "8 x 50 down, 4 x 100 up");

        // rails = 4: two fabrics of 4 rails each
        rail.rails = 4;
        const Topology r4 = Topology::FromDimensions({{DimType::SWITCH, 8, 400, 100}, rail});
        NS_TEST_ASSERT_MSG_EQ(r4.GetNodeCount(), 128 + 16 + 2 * (4 * 2 + 4), "two fabrics");
        NS_TEST_ASSERT_MSG_EQ(
            r4.GetNodeLinks(r4.GetDimensionSwitches(1, SwitchTier::SPINE)[0]).size(),
            8,
            "a spine joins its 4 rails x 2 leaves");
        // a Clos dimension is a rail-optimized one with one rail per fabric
        rail.type = DimType::CLOS;
        rail.rails = 0;
        const Topology c = Topology::FromDimensions({{DimType::SWITCH, 8, 400, 100}, rail});
        NS_TEST_ASSERT_MSG_EQ(c.GetNodeCount(), 128 + 16 + 8 * (2 + 4), "rail-only: 8 fabrics");
    }
};

/// Bad shapes through the C++ API.
class SwitchedSpecErrorsTest : public TestCase
{
  public:
    SwitchedSpecErrorsTest()
        : TestCase("switched dimensions: bad shapes are rejected with the dimension named")
    {
    }

  private:
    void DoRun() override
    {
        auto fails = [](std::vector<DimensionSpec> dims, const std::string& what) {
            try
            {
                Topology::FromDimensions(dims);
            }
            catch (const std::invalid_argument& e)
            {
                return std::string(e.what()).find(what) != std::string::npos;
            }
            return false;
        };
        DimensionSpec c{DimType::CLOS, 12, 50, 100, 5};
        NS_TEST_ASSERT_MSG_EQ(fails({c}, "'hosts_per_leaf' (5) must divide"), true, "divide");
        c.hostsPerLeaf = 4;
        c.uplinkGBps = 10;
        c.oversubscription = 2;
        NS_TEST_ASSERT_MSG_EQ(fails({c}, "not both"), true, "uplink and oversubscription");
        DimensionSpec f{DimType::FAT_TREE, 16, 50, 100};
        f.fatTreeK = 6;
        NS_TEST_ASSERT_MSG_EQ(fails({f}, "dimension 0 (FatTree): 'fat_tree_k'"), true, "k");
        f.fatTreeK = 0;
        f.npus = 20;
        NS_TEST_ASSERT_MSG_EQ(fails({f}, "k^3/4"), true, "no k for 20");
        DimensionSpec r{DimType::RING, 4, 50, 100, 2};
        NS_TEST_ASSERT_MSG_EQ(fails({r}, "dimension 0 (Ring)"), true, "ring with hosts/leaf");
        DimensionSpec rc{DimType::RAIL_CLOS, 8, 50, 100, 4};
        rc.rails = 3;
        NS_TEST_ASSERT_MSG_EQ(fails({{DimType::SWITCH, 8, 50, 1}, rc}, "dimension 1 (RailClos)"),
                              true,
                              "rails must divide 8");
    }
};

/// The network YAML keys of the switched dimensions, and their errors.
class SwitchedYamlTest : public TestCase
{
  public:
    SwitchedYamlTest()
        : TestCase("network YAML: Clos, FatTree, RailClos keys, defaults, errors naming the key")
    {
    }

  private:
    void DoRun() override
    {
        // the 128-host Clos in YAML is the one of the C++ API
        const std::string bw = "23.283064365386963"; // 200 Gbit/s in GB/s of 2^30 bytes
        const std::string clos = WriteTemp("clos.yml",
                                           "topology: [ Clos ]\nnpus_count: [ 128 ]\n"
                                           "bandwidth: [ " +
                                               bw +
                                               " ]\nlatency: [ 5000 ]\n"
                                               "hosts_per_leaf: [ 16 ]\nspines: [ 8 ]\n"
                                               "uplink_bandwidth: [ " +
                                               bw + " ]\nuplink_latency: [ 12500 ]\n");
        const Topology y = Topology::FromFile(clos);
        const Topology c = Clos128();
        NS_TEST_ASSERT_MSG_EQ(y.GetNodeCount(), c.GetNodeCount(), "nodes");
        NS_TEST_ASSERT_MSG_EQ(y.GetLinks().size(), c.GetLinks().size(), "links");
        uint32_t diff = 0;
        for (size_t i = 0; i < c.GetLinks().size(); ++i)
        {
            const auto& a = y.GetLinks()[i];
            const auto& b = c.GetLinks()[i];
            diff += (a.a == b.a && a.b == b.b && std::abs(a.bytesPerNs - b.bytesPerNs) < 1e-9 &&
                     a.latencyNs == b.latencyNs)
                        ? 0
                        : 1;
        }
        NS_TEST_ASSERT_MSG_EQ(diff, 0, "same links as ClosDimension()");
        std::remove(clos.c_str());

        // Switch x RailClos with defaults ("-", "~", 0) on the Switch dimension, hyphen keys
        const std::string rail = WriteTemp("rail.yml",
                                           "topology: [ Switch, RailOptimized ]\n"
                                           "npus_count: [ 8, 16 ]\nbandwidth: [ 400, 50 ]\n"
                                           "latency: [ 100, 1000 ]\nhosts-per-leaf: [ -, 8 ]\n"
                                           "spines: [ ~, 4 ]\noversubscription: [ 0, 2 ]\n"
                                           "uplink_latency: [ -, 3000 ]\n");
        const Topology r = Topology::FromFile(rail);
        NS_TEST_ASSERT_MSG_EQ((int)r.GetDimensions()[1].type, (int)DimType::RAIL_CLOS, "type");
        NS_TEST_ASSERT_MSG_EQ(r.GetNodeCount(), 128 + 16 + 16 + 4, "nodes");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.GetUplinkGBps(1), 8 * 50 / (4 * 2.0), 1e-12, "2:1 uplinks");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.GetLinks().back().latencyNs, 3000, 1e-12, "uplink latency");
        std::remove(rail.c_str());

        const std::string ft = WriteTemp("ft.yml",
                                         "topology: [ FatTree ]\nnpus_count: [ 16 ]\n"
                                         "bandwidth: [ 50 ]\nlatency: [ 100 ]\n"
                                         "fat_tree_k: [ 4 ]\n");
        NS_TEST_ASSERT_MSG_EQ(Topology::FromFile(ft).GetNodeCount(), 16 + 20, "k = 4 fat-tree");
        std::remove(ft.c_str());

        // JSON (null = default) and the older key style take the same keys
        const std::string js = WriteTemp("clos.json",
                                         "{\"topology\": [\"Ring\", \"LeafSpine\"],"
                                         " \"npus_count\": [2, 16], \"bandwidth\": [100, 50],"
                                         " \"latency\": [10, 500], \"hosts_per_leaf\": [null, 4],"
                                         " \"spines\": [0, 2], \"uplink_bandwidth\": [null, 25]}");
        const Topology j = Topology::FromFile(js);
        // 2-ring: 16 links; 2 Clos fabrics of 4 leaves + 2 spines, 16 + 8 links each
        NS_TEST_ASSERT_MSG_EQ(j.GetNodeCount(), 32 + 2 * 6, "JSON Clos nodes");
        NS_TEST_ASSERT_MSG_EQ(j.GetLinks().size(), 16 + 2 * (16 + 8), "JSON Clos links");
        NS_TEST_ASSERT_MSG_EQ_TOL(j.GetUplinkGBps(1), 25, 1e-12, "JSON uplink");
        std::remove(js.c_str());
        const std::string old =
            WriteTemp("old.yml",
                      "topology-name: Hierarchical\n"
                      "topologies-per-dim: [ Switch, FatTree ]\n"
                      "units-count: [ 2, 16 ]\nlink-latency: [ 10, 100 ]\n"
                      "link-bandwidth: [ 100, 50 ]\noversubscription: [ -, 2 ]\n");
        const Topology o = Topology::FromFile(old);
        NS_TEST_ASSERT_MSG_EQ(o.GetNodeCount(), 32 + 16 + 2 * 20, "old-style FatTree nodes");
        NS_TEST_ASSERT_MSG_EQ_TOL(o.GetUplinkGBps(1), 25, 1e-12, "old-style oversubscription");
        std::remove(old.c_str());

        struct Case
        {
            std::string name;
            std::string extra; // keys after topology [Switch, Clos], npus [4, 16]
            std::string key;
        };

        const std::string head = "topology: [ Switch, Clos ]\nnpus_count: [ 4, 16 ]\n"
                                 "bandwidth: [ 100, 50 ]\nlatency: [ 10, 500 ]\n";
        const std::vector<Case> cases = {
            {"divide.yml", "hosts_per_leaf: [ -, 5 ]\n", "hosts_per_leaf"},
            {"frac.yml", "hosts_per_leaf: [ -, 2.5 ]\n", "hosts_per_leaf"},
            {"neg.yml", "spines: [ -, -2 ]\n", "spines"},
            {"length.yml", "spines: [ 2 ]\n", "spines"},
            {"na.yml", "spines: [ 2, 2 ]\n", "spines"},
            {"nan.yml", "uplink_bandwidth: [ -, fast ]\n", "uplink_bandwidth"},
            {"both.yml",
             "uplink_bandwidth: [ -, 10 ]\noversubscription: [ -, 2 ]\n",
             "uplink_bandwidth"},
            {"twice.yml", "hosts-per-leaf: [ -, 4 ]\nhosts_per_leaf: [ -, 4 ]\n", "hosts_per_leaf"},
            {"k.yml", "fat_tree_k: [ -, 4 ]\n", "fat_tree_k"},
            {"rails.yml", "rails: [ -, 2 ]\n", "rails"},
        };
        for (const auto& cs : cases)
        {
            const std::string path = WriteTemp(cs.name, head + cs.extra);
            std::string msg;
            try
            {
                Topology::FromFile(path);
            }
            catch (const std::runtime_error& e)
            {
                msg = e.what();
            }
            NS_TEST_ASSERT_MSG_NE(msg, "", cs.name << " must fail");
            NS_TEST_ASSERT_MSG_NE(msg.find(path), std::string::npos, cs.name << ": " << msg);
            NS_TEST_ASSERT_MSG_NE(msg.find("'" + cs.key + "'"),
                                  std::string::npos,
                                  cs.name << ": " << msg);
            std::remove(path.c_str());
        }
        // a fat-tree whose NPU count does not match k; a RailClos whose rails do not divide
        const std::vector<Case> shape = {
            {"ft-k.yml",
             "topology: [ FatTree ]\nnpus_count: [ 16 ]\nbandwidth: [ 50 ]\nlatency: [ 1 ]\n"
             "fat_tree_k: [ 6 ]\n",
             "fat_tree_k"},
            {"rail-r.yml",
             "topology: [ Switch, RailClos ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 50, 50 ]\n"
             "latency: [ 1, 1 ]\nrails: [ 0, 3 ]\n",
             "rails"},
        };
        for (const auto& cs : shape)
        {
            const std::string path = WriteTemp(cs.name, cs.extra);
            std::string msg;
            try
            {
                Topology::FromFile(path);
            }
            catch (const std::runtime_error& e)
            {
                msg = e.what();
            }
            NS_TEST_ASSERT_MSG_NE(msg.find(path), std::string::npos, cs.name << ": " << msg);
            NS_TEST_ASSERT_MSG_NE(msg.find("'" + cs.key + "'"),
                                  std::string::npos,
                                  cs.name << ": " << msg);
            std::remove(path.c_str());
        }
    }
};

/// The suite.
class TopologySwitchedTestSuite : public TestSuite
{
  public:
    TopologySwitchedTestSuite()
        : TestSuite("astra-sim-topology-switched", UNIT)
    {
        AddTestCase(new ClosShapeTest, TestCase::QUICK);
        AddTestCase(new FatTreeShapeTest, TestCase::QUICK);
        AddTestCase(new RailClosTest, TestCase::QUICK);
        AddTestCase(new SwitchedSpecErrorsTest, TestCase::QUICK);
        AddTestCase(new SwitchedYamlTest, TestCase::QUICK);
    }
};

static TopologySwitchedTestSuite g_topologySwitchedTestSuite; //!< static instance
