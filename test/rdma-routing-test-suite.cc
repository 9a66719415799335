/*
 * Tests of RoCE routing and topology builders: BFS shortest-path ECMP on a
 * ring of 8 and a 4x4 torus (switch-less, hosts relay), leaf-spine and
 * dumbbell builders (node/link counts, rates, hop counts, ECMP set sizes,
 * ECMP spread over spines) and host transit forwarding.
 */

#include "ns3/boolean.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-forwarding-table.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-node-info.h"
#include "ns3/rdma-routing-helper.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-topology-helper.h"
#include "ns3/rdma-transit-forwarder.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cstdlib>
#include <functional>
#include <vector>

using namespace ns3;

namespace
{

/// \return host index at the other end of a node's port
uint32_t
PeerHost(Ptr<Node> node, uint32_t port)
{
    Ptr<RdmaNetDevice> dev = node->GetObject<RdmaNodeInfo>()->GetPort(port);
    return RdmaHelper::GetHostIndex(dev->GetRdmaChannel()->GetPeer(dev)->GetNode());
}

/// Check every (source, destination) pair of a switch-less host graph against a distance.
void
CheckAllPairs(TestCase* tc,
              const RdmaTopology& t,
              const std::function<uint32_t(uint32_t, uint32_t)>& dist,
              const std::function<uint32_t(uint32_t, uint32_t)>& ecmpSize,
              uint32_t& failures)
{
    const uint32_t n = t.hosts.GetN();
    for (uint32_t s = 0; s < n; ++s)
    {
        for (uint32_t d = 0; d < n; ++d)
        {
            if (s == d)
            {
                continue;
            }
            Ptr<Node> node = t.hosts.Get(s);
            const uint32_t hops = RdmaRoutingHelper::GetHops(node, d);
            const std::vector<uint32_t> ports = RdmaRoutingHelper::GetPorts(node, d);
            bool ok = hops == dist(s, d) && ports.size() == ecmpSize(s, d);
            for (uint32_t p : ports)
            {
                ok = ok && dist(PeerHost(node, p), d) + 1 == hops;
            }
            if (!ok)
            {
                ++failures;
            }
        }
    }
    (void)tc;
}

/// ring distance
uint32_t
RingDist(uint32_t a, uint32_t b, uint32_t n)
{
    const uint32_t d = a > b ? a - b : b - a;
    return std::min(d, n - d);
}

/// number of shortest directions along one ring dimension
uint32_t
RingWays(uint32_t a, uint32_t b, uint32_t n)
{
    const uint32_t d = RingDist(a, b, n);
    return d == 0 ? 0 : (2 * d == n ? 2 : 1);
}

} // namespace

/// Ring of 8 hosts: hops = ring distance, two next hops only for the opposite host.
class RingRoutingTestCase : public TestCase
{
  public:
    RingRoutingTestCase()
        : TestCase("Routing: ring of 8 (hosts relay): shortest hops and ECMP sets")
    {
    }

  private:
    void DoRun() override
    {
        RdmaTopologyHelper th;
        RdmaTopology t;
        th.AddHosts(t, 8);
        th.GetRdmaHelper().EnableHostTransit(t.hosts);
        for (uint32_t i = 0; i < 8; ++i)
        {
            th.Connect(t,
                       t.hosts.Get(i),
                       t.hosts.Get((i + 1) % 8),
                       DataRate("100Gbps"),
                       MicroSeconds(1));
        }
        th.Finish(t);
        NS_TEST_ASSERT_MSG_EQ(t.links.size(), 8u, "8 links");
        uint32_t failures = 0;
        CheckAllPairs(
            this,
            t,
            [](uint32_t a, uint32_t b) { return RingDist(a, b, 8); },
            [](uint32_t a, uint32_t b) { return RingWays(a, b, 8); },
            failures);
        NS_TEST_ASSERT_MSG_EQ(failures, 0u, "all 56 pairs correct");
        NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetHops(t.hosts.Get(0), 4), 4u, "0 -> 4");
        NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetPorts(t.hosts.Get(0), 4).size(),
                              2u,
                              "both ways");
        NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetHops(t.hosts.Get(0), 7), 1u, "0 -> 7");
        NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetHops(t.hosts.Get(2), 7), 3u, "2 -> 7 wraps");
        Simulator::Destroy();
    }
};

/// 4x4 torus: hops = sum of per-dimension ring distances; ECMP set = shortest directions.
class TorusRoutingTestCase : public TestCase
{
  public:
    TorusRoutingTestCase()
        : TestCase("Routing: 4x4 torus (hosts relay): shortest hops and ECMP sets")
    {
    }

  private:
    void DoRun() override
    {
        RdmaTopologyHelper th;
        RdmaTopology t;
        th.AddHosts(t, 16);
        th.GetRdmaHelper().EnableHostTransit(t.hosts);
        for (uint32_t y = 0; y < 4; ++y)
        {
            for (uint32_t x = 0; x < 4; ++x)
            {
                const uint32_t i = y * 4 + x;
                th.Connect(t,
                           t.hosts.Get(i),
                           t.hosts.Get(y * 4 + (x + 1) % 4),
                           DataRate("100Gbps"),
                           MicroSeconds(1));
                th.Connect(t,
                           t.hosts.Get(i),
                           t.hosts.Get(((y + 1) % 4) * 4 + x),
                           DataRate("100Gbps"),
                           MicroSeconds(1));
            }
        }
        th.Finish(t);
        NS_TEST_ASSERT_MSG_EQ(t.links.size(), 32u, "32 links");
        NS_TEST_ASSERT_MSG_EQ(t.hosts.Get(5)->GetObject<RdmaNodeInfo>()->GetNPorts(),
                              4u,
                              "degree 4");
        auto dist = [](uint32_t a, uint32_t b) {
            return RingDist(a % 4, b % 4, 4) + RingDist(a / 4, b / 4, 4);
        };
        auto ways = [](uint32_t a, uint32_t b) {
            return RingWays(a % 4, b % 4, 4) + RingWays(a / 4, b / 4, 4);
        };
        uint32_t failures = 0;
        CheckAllPairs(this, t, dist, ways, failures);
        NS_TEST_ASSERT_MSG_EQ(failures, 0u, "all 240 pairs correct");
        // (0,0) -> (2,2): 4 hops, all 4 directions are shortest
        NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetHops(t.hosts.Get(0), 10), 4u, "diameter");
        NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetPorts(t.hosts.Get(0), 10).size(), 4u, "4 ways");
        // (0,0) -> (1,1): 2 hops, 2 ways
        NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetHops(t.hosts.Get(0), 5), 2u, "2 hops");
        NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetPorts(t.hosts.Get(0), 5).size(), 2u, "2 ways");
        Simulator::Destroy();
    }
};

/// Leaf-spine and dumbbell builders; ECMP over spines.
class BuilderTestCase : public TestCase
{
  public:
    BuilderTestCase()
        : TestCase("Topology: leaf-spine and dumbbell builders, hop counts, ECMP over spines")
    {
    }

  private:
    void DoRun() override
    {
        {
            RdmaTopologyHelper th;
            RdmaLeafSpineParams p;
            p.nLeaves = 4;
            p.hostsPerLeaf = 3;
            p.nSpines = 2;
            p.hostRate = DataRate("100Gbps");
            p.oversubscription = 1.5;
            RdmaTopology t = th.LeafSpine(p);
            NS_TEST_ASSERT_MSG_EQ(t.hosts.GetN(), 12u, "hosts");
            NS_TEST_ASSERT_MSG_EQ(t.switches.GetN(), 6u, "leaves + spines");
            NS_TEST_ASSERT_MSG_EQ(t.links.size(), 20u, "12 host links + 4 x 2 fabric links");
            NS_TEST_ASSERT_MSG_EQ(t.devices.GetN(), 40u, "two devices per link");
            NS_TEST_ASSERT_MSG_EQ(t.links[12].rate.GetBitRate(),
                                  100000000000ULL,
                                  "derived fabric rate");
            NS_TEST_ASSERT_MSG_EQ_TOL(t.oversubscription, 1.5, 1e-9, "oversubscription");
            NS_TEST_ASSERT_MSG_EQ(t.switches.Get(0)->GetObject<RdmaSwitch>()->GetNPorts(),
                                  5u,
                                  "leaf ports");
            NS_TEST_ASSERT_MSG_EQ(t.switches.Get(4)->GetObject<RdmaSwitch>()->GetNPorts(),
                                  4u,
                                  "spine ports");
            NS_TEST_ASSERT_MSG_EQ(t.hostIps[11], Ipv4Address("11.0.0.12"), "host address");
            NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetHops(t.hosts.Get(0), 1), 2u, "same leaf");
            NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetHops(t.hosts.Get(0), 11), 4u, "via spine");
            NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetPorts(t.hosts.Get(0), 11).size(),
                                  1u,
                                  "host: 1 port");
            NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetPorts(t.switches.Get(0), 11).size(),
                                  2u,
                                  "leaf: 2 spines");
            NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetPorts(t.switches.Get(0), 1).size(),
                                  1u,
                                  "leaf: down");
            NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetPorts(t.switches.Get(4), 11).size(),
                                  1u,
                                  "spine: down");
            NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetHops(t.switches.Get(4), 11),
                                  2u,
                                  "spine hops");
            // hosts do not relay in a switched fabric
            NS_TEST_ASSERT_MSG_EQ(t.hosts.Get(0)->GetObject<RdmaTransitForwarder>(),
                                  nullptr,
                                  "no relay");

            // ECMP: 2000 flows host 0..2 -> host 9..11 over the 2 spines at leaf 0
            Ptr<RdmaForwardingTable> tab = t.switches.Get(0)->GetObject<RdmaForwardingTable>();
            std::vector<uint32_t> count(5, 0);
            RdmaMeta m;
            for (uint32_t f = 0; f < 2000; ++f)
            {
                m.srcIp = RdmaAddressing::HostIndexToIp(f % 3);
                m.dstIp = RdmaAddressing::HostIndexToIp(9 + f % 3);
                m.sport = uint16_t(49152 + f * 7);
                ++count[tab->SelectPort(m)];
            }
            NS_TEST_ASSERT_MSG_EQ(count[0] + count[1] + count[2], 0u, "never down to a host");
            NS_TEST_ASSERT_MSG_EQ_TOL(double(count[3]), 1000.0, 100.0, "spine 0 share");
            NS_TEST_ASSERT_MSG_EQ_TOL(double(count[4]), 1000.0, 100.0, "spine 1 share");
            NS_TEST_ASSERT_MSG_NE(tab->GetSeed(),
                                  t.switches.Get(1)->GetObject<RdmaForwardingTable>()->GetSeed(),
                                  "per-switch seeds");
            Simulator::Destroy();
        }
        {
            RdmaTopologyHelper th;
            RdmaLeafSpineParams p;
            p.nLeaves = 2;
            p.hostsPerLeaf = 6;
            p.nSpines = 2;
            p.fabricRate = DataRate("100Gbps");
            RdmaTopology t = th.LeafSpine(p);
            NS_TEST_ASSERT_MSG_EQ_TOL(t.oversubscription, 3.0, 1e-9, "given fabric rate: 600/200");
            Simulator::Destroy();
        }
        {
            RdmaTopologyHelper th;
            RdmaTopology t =
                th.Dumbbell(3, 2, DataRate("100Gbps"), DataRate("40Gbps"), MicroSeconds(2));
            NS_TEST_ASSERT_MSG_EQ(t.hosts.GetN(), 5u, "hosts");
            NS_TEST_ASSERT_MSG_EQ(t.switches.GetN(), 2u, "switches");
            NS_TEST_ASSERT_MSG_EQ(t.links.size(), 6u, "links");
            NS_TEST_ASSERT_MSG_EQ(t.links[5].rate.GetBitRate(), 40000000000ULL, "bottleneck");
            NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetHops(t.hosts.Get(0), 4), 3u, "across");
            NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetHops(t.hosts.Get(0), 2), 2u, "same side");
            Simulator::Destroy();
        }
        {
            RdmaTopologyHelper th;
            RdmaTopology t = th.Star(4, DataRate("25Gbps"), NanoSeconds(500));
            NS_TEST_ASSERT_MSG_EQ(t.switches.Get(0)->GetObject<RdmaSwitch>()->GetNPorts(),
                                  4u,
                                  "star");
            NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetHops(t.hosts.Get(3), 0), 2u, "2 hops");
            Simulator::Destroy();
        }
    }
};

/// A host's transit forwarder relays a frame towards its destination.
class TransitTestCase : public TestCase
{
  public:
    TransitTestCase()
        : TestCase("Routing: host transit forwarder relays on a ring with MMU accounting")
    {
    }

  private:
    uint32_t m_rx{0};
    uint32_t m_dstHost{0};

    void Rx(const RdmaQueuedFrame& f)
    {
        m_rx += RdmaAddressing::IpToHostIndex(f.meta.dstIp) == m_dstHost ? 1 : 0;
    }

    void DoRun() override
    {
        RdmaTopologyHelper th;
        RdmaTopology t;
        th.AddHosts(t, 4);
        th.GetRdmaHelper().EnableHostTransit(t.hosts);
        for (uint32_t i = 0; i < 4; ++i)
        {
            th.Connect(t,
                       t.hosts.Get(i),
                       t.hosts.Get((i + 1) % 4),
                       DataRate("100Gbps"),
                       MicroSeconds(1));
        }
        th.Finish(t);
        // host 1 receives frames from host 0 for host 2 and relays them (the host stack
        // would call Forward() for frames not addressed to it)
        Ptr<Node> h1 = t.hosts.Get(1);
        Ptr<RdmaTransitForwarder> fwd = h1->GetObject<RdmaTransitForwarder>();
        NS_TEST_ASSERT_MSG_NE(fwd, nullptr, "forwarder installed");
        NS_TEST_ASSERT_MSG_EQ(fwd->GetNPorts(), 2u, "two ports");
        NS_TEST_ASSERT_MSG_EQ(RdmaRoutingHelper::GetPorts(h1, 2).size(), 1u, "one way");
        const uint32_t out = RdmaRoutingHelper::GetPorts(h1, 2)[0];
        NS_TEST_ASSERT_MSG_EQ(PeerHost(h1, out), 2u, "towards host 2");
        Ptr<RdmaNetDevice> outDev = h1->GetObject<RdmaNodeInfo>()->GetPort(out);
        Ptr<RdmaNetDevice> peerDev = outDev->GetRdmaChannel()->GetPeer(outDev);
        m_dstHost = 2;
        peerDev->TraceConnectWithoutContext("MacRx", MakeCallback(&TransitTestCase::Rx, this));
        Ptr<RdmaNetDevice> inDev = h1->GetObject<RdmaNodeInfo>()->GetPort(1 - out);
        for (uint32_t i = 0; i < 10; ++i)
        {
            RdmaQueuedFrame f;
            f.meta.priority = 3;
            f.meta.srcIp = RdmaAddressing::HostIndexToIp(0);
            f.meta.dstIp = RdmaAddressing::HostIndexToIp(2);
            f.meta.opcode = RoceOpcode::WRITE_MIDDLE;
            f.meta.destQp = 1;
            f.meta.payload = 1000;
            f.packet = RoceFrame::Build(f.meta);
            Simulator::Schedule(NanoSeconds(10),
                                [fwd, inDev, f]() mutable { fwd->Forward(inDev, f); });
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_rx, 10u, "relayed to host 2");
        NS_TEST_ASSERT_MSG_EQ(fwd->GetForwarded(), 10u, "forwarder counted");
        NS_TEST_ASSERT_MSG_EQ(fwd->GetMmu()->GetEgressPortBytes(out), 0u, "egress released");
        NS_TEST_ASSERT_MSG_EQ(fwd->GetMmu()->GetIngressBytes(1 - out, 3), 0u, "ingress released");
        NS_TEST_ASSERT_MSG_GT(fwd->GetMmu()->GetMaxEgressPortBytes(out), 5000u, "queue built");
        Simulator::Destroy();
    }
};

/// Switch-less ring with the host stack: messages cross relaying hosts, PFC keeps it lossless.
class RingTrafficTestCase : public TestCase
{
  public:
    RingTrafficTestCase()
        : TestCase("Routing: ring of 8, all-to-opposite and 7-to-1 incast through relaying hosts")
    {
    }

  private:
    void DoRun() override
    {
        // 0: all-to-opposite, lossy; 1: 7-to-1 incast with PFC; 2: all-to-opposite with PFC
        for (int scenario = 0; scenario < 3; ++scenario)
        {
            RdmaTopologyHelper th;
            th.GetRdmaHelper().SetMmuAttribute("BufferSize", UintegerValue(1000000));
            th.GetRdmaHelper().SetMmuAttribute("LosslessPriorities", UintegerValue(0x08));
            // All-to-opposite on a ring has a cyclic buffer dependency: with PFC it
            // deadlocks (every relay's ingress paused, as in real fabrics without
            // dateline classes): scenario 2 checks that the PFC watchdog reports it.
            th.GetRdmaHelper().SetMmuAttribute("PfcEnabled", BooleanValue(scenario != 0));
            RdmaTopology t;
            th.AddHosts(t, 8);
            th.GetRdmaHelper().EnableHostTransit(t.hosts);
            for (uint32_t i = 0; i < 8; ++i)
            {
                th.Connect(t,
                           t.hosts.Get(i),
                           t.hosts.Get((i + 1) % 8),
                           DataRate("100Gbps"),
                           MicroSeconds(1));
            }
            th.Finish(t);
            const uint64_t bytes = 500000;
            uint32_t posted = 0;
            for (uint32_t i = 0; i < 8; ++i)
            {
                const uint32_t dst = scenario != 1 ? (i + 4) % 8 : 0;
                if (dst == i)
                {
                    continue;
                }
                Ptr<RdmaHostStack> s = t.hosts.Get(i)->GetObject<RdmaHostStack>();
                // several QPs (source ports) per pair so that ECMP uses both directions
                for (uint32_t q = 0; q < 4; ++q)
                {
                    s->PostWrite(s->GetOrCreateQp(dst, 3, uint16_t(50000 + q)), bytes, q);
                    ++posted;
                }
            }
            Simulator::Stop(MilliSeconds(50));
            Simulator::Run();
            uint64_t rcvd = 0;
            uint64_t lossless = 0;
            uint64_t drops = 0;
            uint64_t pauses = 0;
            uint64_t relayed = 0;
            uint64_t watchdog = 0;
            for (uint32_t i = 0; i < 8; ++i)
            {
                rcvd += t.hosts.Get(i)->GetObject<RdmaHostStack>()->GetStats().msgsRcvd;
                Ptr<RdmaTransitForwarder> f = t.hosts.Get(i)->GetObject<RdmaTransitForwarder>();
                lossless += f->GetLosslessDrops();
                drops += f->GetDrops();
                pauses += f->GetPausesSent();
                relayed += f->GetForwarded();
                watchdog += f->GetPfcWatchdogEvents();
            }
            if (scenario == 2)
            {
                NS_TEST_ASSERT_MSG_LT(rcvd, posted, "PFC deadlock on the ring");
                NS_TEST_ASSERT_MSG_GT(watchdog, 0u, "watchdog reports the deadlock");
            }
            else
            {
                NS_TEST_ASSERT_MSG_EQ(rcvd,
                                      posted,
                                      "every message received, scenario " << scenario);
                NS_TEST_ASSERT_MSG_EQ(watchdog, 0u, "no watchdog report");
            }
            NS_TEST_ASSERT_MSG_EQ(lossless, 0u, "no lossless drop");
            if (scenario != 0)
            {
                NS_TEST_ASSERT_MSG_EQ(drops, 0u, "no drop with PFC");
            }
            NS_TEST_ASSERT_MSG_GT(relayed, 0u, "hosts relayed transit frames");
            if (scenario == 1)
            {
                NS_TEST_ASSERT_MSG_GT(pauses, 0u, "incast through relays triggers PFC");
            }
            std::cout << "  ring scenario " << scenario << ": " << rcvd << " messages, " << relayed
                      << " frames relayed, " << drops << " drops, " << watchdog << " watchdog"
                      << ", " << pauses << " PFC pauses" << std::endl;
            Simulator::Destroy();
        }
    }
};

/// The routing test suite.
class RdmaRoutingTestSuite : public TestSuite
{
  public:
    RdmaRoutingTestSuite()
        : TestSuite("astra-sim-rdma-routing", UNIT)
    {
        AddTestCase(new RingRoutingTestCase, TestCase::QUICK);
        AddTestCase(new TorusRoutingTestCase, TestCase::QUICK);
        AddTestCase(new BuilderTestCase, TestCase::QUICK);
        AddTestCase(new TransitTestCase, TestCase::QUICK);
        AddTestCase(new RingTrafficTestCase, TestCase::QUICK);
    }
};

static RdmaRoutingTestSuite g_rdmaRoutingTestSuite; //!< registration
