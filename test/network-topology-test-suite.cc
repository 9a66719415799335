/*
 * Tests of the shared topology description: loading every reference network
 * file, link layout, coordinates, routing and error reporting.
 */

#include "ns3/test.h"
#include "ns3/topology.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

using namespace ns3;
using namespace ns3::astra;

namespace
{

std::string
SharedDir()
{
    if (const char* env = std::getenv("ASTRA_SIM_SHARED_DIR"))
    {
        return env;
    }
    return std::string(ASTRA_SIM_SOURCE_DIR) + "/../shared";
}

std::string
Ref(const std::string& rel)
{
    return SharedDir() + "/reference/" + rel;
}

uint32_t
CountKind(const Topology& t, TopoNodeKind k)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < t.GetNodeCount(); ++i)
    {
        c += t.GetNodeKind(i) == k ? 1 : 0;
    }
    return c;
}

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

std::string
WriteTemp(const std::string& name, const std::string& text)
{
    const std::string path = "/tmp/astra-topo-test-" + name;
    std::ofstream(path) << text;
    return path;
}

} // namespace

/// Every reference network file loads with the expected shape.
class TopologyReferenceFilesTest : public TestCase
{
  public:
    TopologyReferenceFilesTest()
        : TestCase("reference network files: NPUs, dimensions, links, switches")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            std::string file;
            uint32_t npus;
            uint32_t dims;
            uint32_t links;
            uint32_t switches;
            double bw0; // GB/s of dimension 0
        };

        const std::vector<Case> cases = {
            {"astra-sim/examples/network/analytical/Ring_4npus.yml", 4, 1, 4, 0, 50},
            {"astra-sim/examples/network/analytical/Ring_8npus.yml", 8, 1, 8, 0, 50},
            {"astra-sim/examples/network/analytical/Ring_16npus.yml", 16, 1, 16, 0, 50},
            {"astra-sim/examples/network/analytical/HGX-H100-validated.yml", 8, 1, 8, 1, 400},
            {"astra-sim/regression-8npu-ring/inputs/network_cfg.yml", 8, 1, 8, 0, 50},
            {"astra-sim/text-workloads-2025/network_analytical/Ring/network.yml", 8, 1, 8, 0, 50},
            {"astra-sim/text-workloads-2025/text_converter/network.yml", 8, 1, 8, 0, 50},
            {"astra-sim-tutorials/hoti2024/demo2/inputs/Ring_8.yml", 8, 1, 8, 0, 50},
            {"astra-sim-tutorials/micro2024/astra-sim-demo/demo1/inputs/Ring_8.yml",
             8,
             1,
             8,
             0,
             50},
            {"astra-sim-tutorials/micro2024/astra-sim-demo/demo1/inputs/FullyConnected_8.yml",
             8,
             1,
             28,
             0,
             50},
            // Ring 2x4x4: 16 x 1 + 8 x 4 + 8 x 4 links
            {"astra-sim-tutorials/micro2024/astra-sim-demo/demo2/inputs/TPUv4-32.yml",
             32,
             3,
             80,
             0,
             50},
            // Switch 8x4: 4 switches of 8 + 8 switches of 4
            {"astra-sim-tutorials/micro2024/astra-sim-demo/demo2/inputs/DGX_H100-32.yml",
             32,
             2,
             64,
             12,
             450},
            {"astra-sim-tutorials/asplos2023/exercise_1/inputs/network/ring.json", 8, 1, 8, 0, 50},
            {"astra-sim-tutorials/asplos2023/exercise_1/inputs/network/fullyconnected.json",
             8,
             1,
             28,
             0,
             50},
            {"astra-sim-tutorials/asplos2023/exercise_1/inputs/network/switch.json",
             8,
             1,
             8,
             1,
             50},
            // links-count 6 towards the switch: 6 x 25 GB/s
            {"astra-sim-tutorials/asplos2023/exercise_2/inputs/network/dgx2.json",
             256,
             2,
             512,
             32,
             150},
            {"astra-sim-tutorials/asplos2023/exercise_2/inputs/network/tpu.json",
             256,
             2,
             512,
             0,
             62},
        };
        for (const auto& c : cases)
        {
            Topology t;
            std::string error;
            try
            {
                t = Topology::FromFile(Ref(c.file));
            }
            catch (const std::exception& e)
            {
                error = e.what();
            }
            NS_TEST_ASSERT_MSG_EQ(error, "", c.file);
            if (!error.empty())
            {
                return; // the remaining checks need the file
            }
            NS_TEST_ASSERT_MSG_EQ(t.GetNpuCount(), c.npus, c.file);
            NS_TEST_ASSERT_MSG_EQ(t.GetDimensionCount(), c.dims, c.file);
            NS_TEST_ASSERT_MSG_EQ(t.GetLinks().size(), c.links, c.file);
            NS_TEST_ASSERT_MSG_EQ(CountKind(t, TopoNodeKind::SWITCH), c.switches, c.file);
            NS_TEST_ASSERT_MSG_EQ(t.GetNodeCount(), c.npus + c.switches, c.file);
            NS_TEST_ASSERT_MSG_EQ_TOL(t.GetDimensions()[0].bandwidthGBps, c.bw0, 1e-9, c.file);
            NS_TEST_ASSERT_MSG_EQ(t.source, Ref(c.file), c.file);
        }
        // rates: GB = 2^30 bytes
        const Topology r = Topology::FromFile(Ref(cases[1].file));
        NS_TEST_ASSERT_MSG_EQ_TOL(r.GetLinks()[0].bytesPerNs, 53.6870912, 1e-9, "50 GB/s");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.GetLinks()[0].latencyNs, 500.0, 1e-12, "latency");
        const Topology h = Topology::FromFile(Ref(cases[3].file));
        NS_TEST_ASSERT_MSG_EQ_TOL(h.GetLinks()[0].latencyNs, 936.25, 1e-12, "HGX latency");
        NS_TEST_ASSERT_MSG_EQ_TOL(h.GetLinks()[0].bytesPerNs, 429.4967296, 1e-9, "400 GB/s");
        NS_TEST_ASSERT_MSG_EQ(h.GetNodeLinks(8).size(), 8, "switch has 8 links");
    }
};

/// Link layout and per-node links of each building block.
class TopologyLayoutTest : public TestCase
{
  public:
    TopologyLayoutTest()
        : TestCase("link layout: ring, 2-ring, fully connected, switch, 4096-NPU 3-D")
    {
    }

  private:
    void DoRun() override
    {
        auto one = [](DimType t, uint32_t n) {
            return Topology::FromDimensions({DimensionSpec{t, n, 50, 500}});
        };
        const Topology ring = one(DimType::RING, 8);
        NS_TEST_ASSERT_MSG_EQ(ring.GetLinks().size(), 8, "ring 8");
        NS_TEST_ASSERT_MSG_EQ(ring.GetNodeLinks(3).size(), 2, "ring node degree");
        NS_TEST_ASSERT_MSG_EQ(ring.GetLinks()[7].a, 7, "ring wrap link a");
        NS_TEST_ASSERT_MSG_EQ(ring.GetLinks()[7].b, 0, "ring wrap link b");
        const Topology ring2 = one(DimType::RING, 2);
        NS_TEST_ASSERT_MSG_EQ(ring2.GetLinks().size(), 1, "2-ring: one full-duplex link");
        NS_TEST_ASSERT_MSG_EQ(one(DimType::RING, 1).GetLinks().size(), 0, "1-ring");
        const Topology fc = one(DimType::FULLY_CONNECTED, 8);
        NS_TEST_ASSERT_MSG_EQ(fc.GetLinks().size(), 28, "FC 8");
        NS_TEST_ASSERT_MSG_EQ(fc.GetNodeLinks(5).size(), 7, "FC degree");
        const Topology sw = one(DimType::SWITCH, 8);
        NS_TEST_ASSERT_MSG_EQ(sw.GetLinks().size(), 8, "switch 8 links");
        NS_TEST_ASSERT_MSG_EQ(sw.GetNodeCount(), 9, "switch 8 nodes");
        NS_TEST_ASSERT_MSG_EQ((int)sw.GetNodeKind(8),
                              (int)TopoNodeKind::SWITCH,
                              "node 8 is the switch");

        // 4096 NPUs: Ring 16 x FC 16 x Switch 16
        const Topology big = Topology::FromDimensions({{DimType::RING, 16, 100, 10},
                                                       {DimType::FULLY_CONNECTED, 16, 50, 20},
                                                       {DimType::SWITCH, 16, 25, 30}});
        NS_TEST_ASSERT_MSG_EQ(big.GetNpuCount(), 4096, "npus");
        NS_TEST_ASSERT_MSG_EQ(big.GetLinks().size(), 256 * 16 + 256 * 120 + 256 * 16, "links");
        NS_TEST_ASSERT_MSG_EQ(big.GetNodeCount(), 4096 + 256, "switches");
        NS_TEST_ASSERT_MSG_EQ(big.GetNodeLinks(1234).size(), 2 + 15 + 1, "NPU degree");
        uint32_t dimCount[3] = {0, 0, 0};
        for (const auto& l : big.GetLinks())
        {
            dimCount[l.dim]++;
        }
        NS_TEST_ASSERT_MSG_EQ(dimCount[1], 256 * 120, "FC dimension links");
    }
};

/// Coordinates (dimension 0 fastest) and dimension peers.
class TopologyCoordinatesTest : public TestCase
{
  public:
    TopologyCoordinatesTest()
        : TestCase("coordinates round-trip and dimension peers")
    {
    }

  private:
    void DoRun() override
    {
        const Topology t = Topology::FromDimensions({{DimType::RING, 2, 50, 1},
                                                     {DimType::SWITCH, 4, 50, 1},
                                                     {DimType::FULLY_CONNECTED, 3, 50, 1}});
        NS_TEST_ASSERT_MSG_EQ(t.GetNpuCount(), 24, "npus");
        for (uint32_t n = 0; n < t.GetNpuCount(); ++n)
        {
            const auto c = t.GetCoordinates(n);
            NS_TEST_ASSERT_MSG_EQ(t.GetNpuId(c), n, "round trip");
            for (uint32_t d = 0; d < 3; ++d)
            {
                NS_TEST_ASSERT_MSG_EQ(t.GetCoordinate(n, d), c[d], "coordinate");
                const auto peers = t.GetDimensionPeers(n, d);
                NS_TEST_ASSERT_MSG_EQ(peers.size(), t.GetDimensions()[d].npus, "peer count");
                NS_TEST_ASSERT_MSG_EQ(peers[c[d]], n, "npu is its own peer at its coordinate");
            }
        }
        const auto c13 = t.GetCoordinates(13); // 13 = 1 + 2*(2 + 4*1)
        NS_TEST_ASSERT_MSG_EQ(c13[0], 1, "dim 0 fastest");
        NS_TEST_ASSERT_MSG_EQ(c13[1], 2, "dim 1");
        NS_TEST_ASSERT_MSG_EQ(c13[2], 1, "dim 2");
        const auto p = t.GetDimensionPeers(13, 1);
        NS_TEST_ASSERT_MSG_EQ(p[0], 9, "peer 0");
        NS_TEST_ASSERT_MSG_EQ(p[3], 15, "peer 3");
        const auto q = t.GetDimensionPeers(13, 2);
        NS_TEST_ASSERT_MSG_EQ(q[2], 21, "dim 2 peer 2");
    }
};

/// Routes: ring shorter way with ties increasing, FC 1 hop, switch 2, dimension order.
class TopologyRouteTest : public TestCase
{
  public:
    TopologyRouteTest()
        : TestCase("routes: hop counts, directions, dimension order, connectivity")
    {
    }

  private:
    void DoRun() override
    {
        const Topology ring = Topology::FromDimensions({{DimType::RING, 8, 50, 500}});
        auto r = ring.Route(0, 4);
        NS_TEST_ASSERT_MSG_EQ(r.size(), 4, "0->4: 4 hops");
        NS_TEST_ASSERT_MSG_EQ(r[0].link, 0, "tie goes increasing: link 0");
        NS_TEST_ASSERT_MSG_EQ((int)r[0].dir, 0, "increasing direction");
        r = ring.Route(0, 5);
        NS_TEST_ASSERT_MSG_EQ(r.size(), 3, "0->5: 3 hops the other way");
        NS_TEST_ASSERT_MSG_EQ(r[0].link, 7, "first hop 0->7 over link 7");
        NS_TEST_ASSERT_MSG_EQ((int)r[0].dir, 1, "decreasing direction");
        NS_TEST_ASSERT_MSG_EQ(Walk(ring, 0, r), 5, "reaches 5");
        r = ring.Route(6, 1);
        NS_TEST_ASSERT_MSG_EQ(r.size(), 3, "6->1 wraps forward: 3 hops");
        NS_TEST_ASSERT_MSG_EQ(Walk(ring, 6, r), 1, "reaches 1");
        NS_TEST_ASSERT_MSG_EQ(ring.Route(3, 3).size(), 0, "self: no hops");

        const Topology ring2 = Topology::FromDimensions({{DimType::RING, 2, 50, 500}});
        r = ring2.Route(1, 0);
        NS_TEST_ASSERT_MSG_EQ(r.size(), 1, "2-ring one hop");
        NS_TEST_ASSERT_MSG_EQ((int)r[0].dir, 1, "2-ring 1->0 is b->a");

        const Topology fc = Topology::FromDimensions({{DimType::FULLY_CONNECTED, 8, 50, 500}});
        r = fc.Route(6, 2);
        NS_TEST_ASSERT_MSG_EQ(r.size(), 1, "FC one hop");
        NS_TEST_ASSERT_MSG_EQ(Walk(fc, 6, r), 2, "FC reaches 2");
        const Topology sw = Topology::FromDimensions({{DimType::SWITCH, 8, 50, 500}});
        r = sw.Route(6, 2);
        NS_TEST_ASSERT_MSG_EQ(r.size(), 2, "switch two hops");
        NS_TEST_ASSERT_MSG_EQ(sw.GetLinks()[r[0].link].b, 8, "through the switch");
        NS_TEST_ASSERT_MSG_EQ(Walk(sw, 6, r), 2, "switch reaches 2");

        // 3-D: Ring 4 x FullyConnected 3 x Switch 4 (48 NPUs); every pair
        const Topology t = Topology::FromDimensions({{DimType::RING, 4, 50, 1},
                                                     {DimType::FULLY_CONNECTED, 3, 50, 2},
                                                     {DimType::SWITCH, 4, 50, 3}});
        uint32_t bad = 0;
        uint32_t badOrder = 0;
        for (uint32_t s = 0; s < t.GetNpuCount(); ++s)
        {
            for (uint32_t d = 0; d < t.GetNpuCount(); ++d)
            {
                const auto cs = t.GetCoordinates(s);
                const auto cd = t.GetCoordinates(d);
                uint32_t expect = 0;
                if (cs[0] != cd[0])
                {
                    const uint32_t f = (cd[0] + 4 - cs[0]) % 4;
                    expect += std::min(f, 4 - f);
                }
                expect += cs[1] != cd[1] ? 1 : 0;
                expect += cs[2] != cd[2] ? 2 : 0;
                const auto hops = t.Route(s, d);
                if (hops.size() != expect || Walk(t, s, hops) != d)
                {
                    ++bad;
                }
                int32_t last = -1;
                for (const auto& h : hops)
                {
                    if (t.GetLinks()[h.link].dim < last)
                    {
                        ++badOrder;
                    }
                    last = t.GetLinks()[h.link].dim;
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(bad, 0, "3-D routes: hop counts and connectivity");
        NS_TEST_ASSERT_MSG_EQ(badOrder, 0, "3-D routes: dimension order");
        // (0,0,0) -> (2,2,3) = 2 + 4*2 + 12*3 = 46: 2 + 1 + 2 hops
        r = t.Route(0, 46);
        NS_TEST_ASSERT_MSG_EQ(r.size(), 5, "0->46 5 hops");
        NS_TEST_ASSERT_MSG_EQ(t.GetLinks()[r[0].link].dim, 0, "ring first");
        NS_TEST_ASSERT_MSG_EQ(t.GetLinks()[r[2].link].dim, 1, "then FC");
        NS_TEST_ASSERT_MSG_EQ(t.GetLinks()[r[4].link].dim, 2, "then switch");
        // dimension-restricted
        r = t.Route(0, 12, 2);
        NS_TEST_ASSERT_MSG_EQ(r.size(), 2, "dim 2 route");
        bool threw = false;
        try
        {
            t.Route(0, 13, 2);
        }
        catch (const std::invalid_argument&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "dim route across another dimension throws");
        threw = false;
        try
        {
            t.Route(0, 48);
        }
        catch (const std::out_of_range&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "out of range NPU throws");
    }
};

/// Errors name the file and the key.
class TopologyErrorsTest : public TestCase
{
  public:
    TopologyErrorsTest()
        : TestCase("file errors name the file and the key")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            std::string name;
            std::string text;
            std::string key;
        };

        const std::vector<Case> cases = {
            {"missing.yml",
             "topology: [ Ring ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n",
             "npus_count"},
            {"length.yml",
             "topology: [ Ring, Switch ]\nnpus_count: [ 4, 2 ]\nbandwidth: [ 50 ]\nlatency: [ 5, 5 "
             "]\n",
             "bandwidth"},
            {"unknown.yml",
             "topology: [ Torus ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 5 ]\n",
             "topology"},
            {"zero-bw.yml",
             "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 0 ]\nlatency: [ 5 ]\n",
             "bandwidth"},
            {"neg-lat.yml",
             "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 5 ]\nlatency: [ -5 ]\n",
             "latency"},
            {"zero-npus.yml",
             "topology: [ Ring ]\nnpus_count: [ 0 ]\nbandwidth: [ 5 ]\nlatency: [ 5 ]\n",
             "npus_count"},
            {"nan.yml",
             "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ fast ]\nlatency: [ 5 ]\n",
             "bandwidth"},
            {"old.json",
             "{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Ring\"], \"units-count\": [8],"
             " \"link-latency\": [500]}",
             "link-bandwidth"},
            {"old-count.json",
             "{\"dimensions-count\": 2, \"topologies-per-dim\": [\"Ring\"], \"units-count\": [8],"
             " \"link-latency\": [500], \"link-bandwidth\": [50]}",
             "dimensions-count"},
            {"old-name.yml",
             "topology-name: Torus\ntopologies-per-dim: [ Ring ]\nunits-count: [ 8 ]\n"
             "link-latency: [ 500 ]\nlink-bandwidth: [ 50 ]\n",
             "topology-name"},
            {"empty.yml", "foo: 1\n", "foo"},
            {"nothing.yml", "topolgy: [ Ring ]\n", "topology"},
        };
        for (const auto& c : cases)
        {
            const std::string path = WriteTemp(c.name, c.text);
            std::string msg;
            try
            {
                Topology::FromFile(path);
            }
            catch (const std::runtime_error& e)
            {
                msg = e.what();
            }
            NS_TEST_ASSERT_MSG_NE(msg, "", c.name << " must fail");
            NS_TEST_ASSERT_MSG_NE(msg.find(path), std::string::npos, c.name << ": " << msg);
            NS_TEST_ASSERT_MSG_NE(msg.find("'" + c.key + "'"),
                                  std::string::npos,
                                  c.name << ": " << msg);
            std::remove(path.c_str());
        }
        // older keys in YAML work too
        const std::string old =
            WriteTemp("old-ok.yml",
                      "topology-name: Hierarchical\ndimensions-count: 2\n"
                      "topologies-per-dim: [ Ring, FullyConnected ]\n"
                      "units-count: [ 4, 4 ]\nlinks-count: [ 2, 3 ]\n"
                      "link-latency: [ 100, 200 ]\nlink-bandwidth: [ 10, 20 ]\n");
        const Topology t = Topology::FromFile(old);
        NS_TEST_ASSERT_MSG_EQ(t.GetNpuCount(), 16, "old yaml npus");
        NS_TEST_ASSERT_MSG_EQ(t.GetLinks().size(), 4 * 4 + 4 * 6, "old yaml links");
        NS_TEST_ASSERT_MSG_EQ((int)t.GetDimensions()[1].type,
                              (int)DimType::FULLY_CONNECTED,
                              "type");
        NS_TEST_ASSERT_MSG_EQ_TOL(t.GetDimensions()[1].latencyNs, 200, 1e-12, "latency");
        std::remove(old.c_str());
        std::string msg;
        try
        {
            Topology::FromFile("/nonexistent/net.yml");
        }
        catch (const std::runtime_error& e)
        {
            msg = e.what();
        }
        NS_TEST_ASSERT_MSG_NE(msg.find("/nonexistent/net.yml"),
                              std::string::npos,
                              "missing file named");
    }
};

/// The topology test suite.
class TopologyTestSuite : public TestSuite
{
  public:
    TopologyTestSuite()
        : TestSuite("astra-sim-topology", UNIT)
    {
        AddTestCase(new TopologyReferenceFilesTest, TestCase::QUICK);
        AddTestCase(new TopologyLayoutTest, TestCase::QUICK);
        AddTestCase(new TopologyCoordinatesTest, TestCase::QUICK);
        AddTestCase(new TopologyRouteTest, TestCase::QUICK);
        AddTestCase(new TopologyErrorsTest, TestCase::QUICK);
    }
};

static TopologyTestSuite g_topologyTestSuite; //!< static instance
