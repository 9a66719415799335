/*
 * Run monitor and scenario tests (astra-sim-run-monitor): the hang detector of
 * AstraRunMonitor on the packet-level RoCE backend and the scenario script's
 * path (examples/scenario-hierarchical-allreduce.cc, doc/tutorial.rst):
 *  (a) an unmatched RECV: hang reported within [HangTimeout, 1.5 HangTimeout],
 *      naming the NPU and the node (id, name, type, peer, tag, bytes); also
 *      while background traffic on the same host stacks keeps packets moving;
 *  (b) all-to-opposite on a switch-less ring with PFC: the cyclic buffer
 *      dependency deadlocks; the report contains the pause cycle;
 *  (c) NICs that ignore PFC on a lossless class: lossless drops reported with
 *      switch, ingress port (a sender's, never the receiver's) and priority;
 *  (d) the scenario: hierarchical all-reduce on Switch x Switch against the
 *      closed form (1 %), bytes and messages exact, traces by config path.
 */

#include "ns3/astra-fabric-helper.h"
#include "ns3/astra-sim-application.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/astra-system.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/roce-backend.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <sstream>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// A SEND or RECV node.
WorkloadNode
P2p(uint64_t id, const std::string& name, NodeKind kind, int32_t peer, int64_t tag, uint64_t bytes)
{
    WorkloadNode n;
    n.id = id;
    n.name = name;
    n.kind = kind;
    n.commSize = bytes;
    n.commTag = tag;
    if (kind == NodeKind::COMM_SEND)
    {
        n.commDst = peer;
    }
    else
    {
        n.commSrc = peer;
    }
    return n;
}

std::shared_ptr<const WorkloadGraph>
Graph(uint32_t rank, std::vector<WorkloadNode> nodes)
{
    auto g = std::make_shared<WorkloadGraph>();
    g->file = "monitor-test";
    g->rank = rank;
    g->nodes = std::move(nodes);
    g->BuildIndex();
    return g;
}

/// Gbit/s -> topology GB/s (GB = 2^30 bytes)
double
Gbps(double g)
{
    return g * 1e9 / 8 / 1073741824.0;
}

bool
Contains(const std::string& text, const std::string& what)
{
    return text.find(what) != std::string::npos;
}

/**
 * Build the unmatched-RECV scenario on a 2-NPU switch: NPU 0 waits for a
 * message (tag 7) NPU 1 never sends; NPU 1 runs \p other.
 */
void
BuildUnmatchedRecv(AstraSimScenario& sc, Time timeout, const WorkloadNode& other)
{
    std::vector<DimensionSpec> dims{{DimType::SWITCH, 2, 50.0, 500.0}};
    sc.SetTopology(std::make_shared<Topology>(Topology::FromDimensions(dims)));
    // a broken workload on purpose (the check before the run would name it): the monitor's test
    sc.SetWorkloadCheck(false);
    sc.SetWorkloads({Graph(0, {P2p(4, "recv-never-sent", NodeKind::COMM_RECV, 1, 7, 4096)}),
                     Graph(1, {other})});
    sc.SetBackend("roce");
    sc.GetMonitor()->SetAttribute("HangTimeout", TimeValue(timeout));
    sc.GetMonitor()->SetAttribute("ProgressInterval", DoubleValue(0));
    sc.Build();
}

/// (a) unmatched RECV on the RoCE backend.
class UnmatchedRecvTestCase : public TestCase
{
  public:
    UnmatchedRecvTestCase()
        : TestCase("(a) unmatched RECV: hang within [T, 1.5 T], report names NPU and node")
    {
    }

  private:
    void DoRun() override
    {
        const Time timeout = MicroSeconds(100);
        WorkloadNode comp;
        comp.id = 1;
        comp.name = "work";
        comp.kind = NodeKind::COMP;
        comp.durationNs = 1000;
        AstraSimScenario sc;
        BuildUnmatchedRecv(sc, timeout, comp);
        int status = sc.Run(Seconds(1));
        const Time stop = Simulator::Now();
        const std::string report = sc.GetMonitor()->GetHangReport();
        NS_TEST_ASSERT_MSG_EQ(status, 2, "non-zero status: unfinished");
        NS_TEST_ASSERT_MSG_EQ(sc.GetMonitor()->IsHung(), true, "hang flagged");
        NS_TEST_ASSERT_MSG_EQ(sc.GetApps()[1]->IsFinished(), true, "NPU 1 finished");
        NS_TEST_ASSERT_MSG_EQ(sc.GetMonitor()->GetFinishedNpus(), 1u, "one NPU finished");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(stop, timeout, "not before HangTimeout");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(stop, timeout * 3 / 2, "within 1.5 HangTimeout");
        NS_TEST_ASSERT_MSG_EQ(Contains(report, "1 of 2 NPUs unfinished"), true, report);
        NS_TEST_ASSERT_MSG_EQ(Contains(report, "NPU 0 waits on 1 node(s)"), true, report);
        NS_TEST_ASSERT_MSG_EQ(
            Contains(report, "node 4 'recv-never-sent' COMM_RECV from NPU 1 tag 7, 4096 B"),
            true,
            report);
        NS_TEST_ASSERT_MSG_EQ(Contains(report, "NPU 1 waits"), false, "NPU 1 is not stuck");
        std::ostringstream printed;
        sc.PrintStatus(printed);
        NS_TEST_ASSERT_MSG_EQ(
            Contains(printed.str(), "error: 1 of 2 NPU(s) unfinished at 150000 ns"),
            true,
            printed.str());
        NS_TEST_ASSERT_MSG_EQ(Contains(printed.str(), report), true, "status carries the report");
        sc.Destroy();
        Config::Reset();
    }
};

/**
 * (a') the same unmatched RECV while a long background flow (posted straight on
 * the host stacks, not by the workload) keeps packets moving: its packets are
 * not the workload's progress, so the hang is still reported within
 * [T, 1.5 T] and the background flow is still running then.
 */
class BackgroundTrafficHangTestCase : public TestCase
{
  public:
    BackgroundTrafficHangTestCase()
        : TestCase("(a') background traffic does not hide an unmatched RECV")
    {
    }

  private:
    void DoRun() override
    {
        const Time timeout = MicroSeconds(100);
        AstraSimScenario sc;
        BuildUnmatchedRecv(sc, timeout, P2p(5, "sent", NodeKind::COMM_SEND, 0, 8, 65536));
        Ptr<RoceBackend> rb = sc.GetRoceBackend();
        NS_TEST_ASSERT_MSG_NE(rb, nullptr, "roce backend");
        // 256 MiB from host 1 to host 0: ~5 ms at 50 GiB/s, far beyond the timeout
        Ptr<RdmaHostStack> h0 = rb->GetHostStack(0);
        Ptr<RdmaHostStack> h1 = rb->GetHostStack(1);
        Ptr<RdmaQueuePair> bg = h1->GetOrCreateQp(h0->GetHostIndex(), 3, 0);
        // a QP of its own (no consumer): the backend never sees its completions
        h1->PostWrite(bg, uint64_t(256) << 20, 99);
        int status = sc.Run(Seconds(1));
        const Time stop = Simulator::Now();
        const std::string report = sc.GetMonitor()->GetHangReport();
        NS_TEST_ASSERT_MSG_EQ(status, 2, "non-zero status: unfinished");
        NS_TEST_ASSERT_MSG_EQ(sc.GetMonitor()->IsHung(), true, "hang flagged");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(stop, timeout, "not before HangTimeout");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(stop, timeout * 3 / 2, "within 1.5 HangTimeout");
        NS_TEST_ASSERT_MSG_GT(bg->GetSndUna(), 0, "the background flow made progress");
        NS_TEST_ASSERT_MSG_LT(bg->GetSndUna(), uint64_t(256) << 20, "and was still running");
        NS_TEST_ASSERT_MSG_EQ(
            Contains(report, "node 4 'recv-never-sent' COMM_RECV from NPU 1 tag 7, 4096 B"),
            true,
            report);
        sc.Destroy();
        Config::Reset();
    }
};

/// (b) PFC deadlock on a switch-less ring (all-to-opposite, both directions).
class PfcDeadlockTestCase : public TestCase
{
  public:
    PfcDeadlockTestCase()
        : TestCase("(b) ring of 8, all-to-opposite with PFC: deadlock reported with its cycle")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(1000000));
        // four QPs (UDP source ports) per pair: ECMP uses both ring directions
        Config::SetDefault("ns3::astra::RoceBackend::QpsPerPair", UintegerValue(4));
        std::vector<DimensionSpec> dims{{DimType::RING, 8, Gbps(100), 1000.0}};
        auto topo = std::make_shared<Topology>(Topology::FromDimensions(dims));
        std::vector<std::shared_ptr<const WorkloadGraph>> graphs;
        for (uint32_t i = 0; i < 8; ++i)
        {
            std::vector<WorkloadNode> nodes;
            const int32_t peer = int32_t((i + 4) % 8);
            for (uint32_t q = 0; q < 4; ++q)
            {
                nodes.push_back(P2p(1 + q, "send", NodeKind::COMM_SEND, peer, q, 500000));
                nodes.push_back(P2p(11 + q, "recv", NodeKind::COMM_RECV, peer, q, 500000));
            }
            graphs.push_back(Graph(i, nodes));
        }
        AstraSimScenario sc;
        sc.SetTopology(topo);
        sc.SetWorkloads(graphs);
        sc.SetBackend("roce");
        sc.GetMonitor()->SetAttribute("HangTimeout", TimeValue(MilliSeconds(1)));
        sc.GetMonitor()->SetAttribute("ProgressInterval", DoubleValue(0));
        sc.Build();
        int status = sc.Run(Seconds(1));
        const std::string report = sc.GetMonitor()->GetHangReport();
        bool cycle = false;
        std::string pfc = sc.GetMonitor()->DescribePfc(&cycle);
        NS_TEST_ASSERT_MSG_EQ(status, 2, "non-zero status");
        NS_TEST_ASSERT_MSG_EQ(sc.GetMonitor()->IsHung(), true, "hang flagged");
        NS_TEST_ASSERT_MSG_EQ(cycle, true, "pause cycle found\n" << pfc);
        // the cycle runs around the whole ring (8 links, one direction)
        NS_TEST_ASSERT_MSG_EQ(Contains(report, "PFC deadlock: pause cycle of 8 "), true, report);
        NS_TEST_ASSERT_MSG_EQ(Contains(report, "RoCE messages in flight:"), true, report);
        NS_TEST_ASSERT_MSG_EQ(Contains(report, "COMM_RECV from NPU"), true, report);
        NS_TEST_ASSERT_MSG_LT(sc.GetRoceBackend()->GetDeliveredMessages(),
                              32u,
                              "not every message delivered");
        NS_TEST_ASSERT_MSG_EQ(sc.GetMonitor()->GetLosslessDrops(), 0u, "no lossless drop");
        std::printf("  (b) %s", report.substr(0, report.find('\n') + 1).c_str());
        sc.Destroy();
        Config::Reset();
    }
};

/// (c) lossless drops: NICs ignore PFC pauses of a lossless class.
class LosslessDropTestCase : public TestCase
{
  public:
    LosslessDropTestCase()
        : TestCase("(c) NICs ignoring PFC: lossless drops reported with switch, port, priority")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::RdmaNetDevice::PfcEnabled", BooleanValue(false));
        Config::SetDefault("ns3::RdmaSwitch::EcnEnabled", BooleanValue(false));
        Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(400000));
        std::vector<DimensionSpec> dims{{DimType::SWITCH, 4, Gbps(100), 1000.0}};
        auto topo = std::make_shared<Topology>(Topology::FromDimensions(dims));
        std::vector<std::shared_ptr<const WorkloadGraph>> graphs;
        std::vector<WorkloadNode> recvs;
        for (int32_t s = 1; s < 4; ++s)
        {
            recvs.push_back(P2p(s, "recv", NodeKind::COMM_RECV, s, 0, 300000));
            graphs.push_back(Graph(s, {P2p(1, "send", NodeKind::COMM_SEND, 0, 0, 300000)}));
        }
        graphs.insert(graphs.begin(), Graph(0, recvs));
        AstraSimScenario sc;
        sc.SetTopology(topo);
        sc.SetWorkloads(graphs);
        sc.SetBackend("roce");
        sc.GetMonitor()->SetAttribute("ProgressInterval", DoubleValue(0));
        sc.Build();
        int status = sc.Run(Seconds(1));
        const std::string drops = sc.GetMonitor()->DescribeLosslessDrops();
        NS_TEST_ASSERT_MSG_GT(sc.GetMonitor()->GetLosslessDrops(), 0u, "lossless drops seen");
        NS_TEST_ASSERT_MSG_NE(status, 0, "non-zero status");
        if (status != 2)
        {
            NS_TEST_ASSERT_MSG_EQ(status, 3, "finished after retransmissions: status 3");
        }
        const std::string sw =
            "switch node " + std::to_string(sc.GetFabric().GetSwitches().Get(0)->GetId());
        NS_TEST_ASSERT_MSG_EQ(Contains(drops, sw + " ingress port "), true, drops);
        NS_TEST_ASSERT_MSG_EQ(Contains(drops, "priority 3"), true, drops);
        // the receiver (port 0) sends only ACKs: every drop is at a sender's ingress
        NS_TEST_ASSERT_MSG_EQ(Contains(drops, "ingress port 0 "), false, drops);
        NS_TEST_ASSERT_MSG_EQ(Contains(drops, "-> host 0 "), true, drops);
        // one line per (switch, port, priority) with a count; the counts add up to the total
        {
            std::istringstream lines(drops);
            std::string line;
            uint64_t sum = 0;
            std::set<std::string> places;
            while (std::getline(lines, line))
            {
                const size_t f = line.find(" frame(s), the first at ");
                if (f == std::string::npos)
                {
                    continue;
                }
                const size_t colon = line.rfind(": ", f);
                sum += std::stoull(line.substr(colon + 2, f - colon - 2));
                NS_TEST_ASSERT_MSG_EQ(places.insert(line.substr(0, colon)).second,
                                      true,
                                      "one line per (switch, port, priority): " << drops);
            }
            NS_TEST_ASSERT_MSG_EQ(sum, sc.GetMonitor()->GetLosslessDrops(), drops);
            NS_TEST_ASSERT_MSG_EQ(
                Contains(drops,
                         "lossless drops: " + std::to_string(sc.GetMonitor()->GetLosslessDrops()) +
                             " frame(s) at " + std::to_string(places.size()) +
                             " (node, port, priority)"),
                true,
                drops);
        }
        std::printf("  (c) status %d, %llu lossless drops\n",
                    status,
                    (unsigned long long)sc.GetMonitor()->GetLosslessDrops());
        sc.Destroy();
        Config::Reset();
    }
};

uint64_t g_rdmaMessages = 0;
uint64_t g_pauseTraces = 0;

void
CountMessage(std::string context, const RdmaMessageInfo& info)
{
    ++g_rdmaMessages;
}

void
CountPause(uint32_t node, uint32_t port, uint8_t prio)
{
    ++g_pauseTraces;
}

/// (d) the scenario script's path against the closed form.
class ScenarioTestCase : public TestCase
{
  public:
    ScenarioTestCase()
        : TestCase("(d) scenario: hierarchical all-reduce 4 x 2 on RoCE = closed form (1 %)")
    {
    }

  private:
    void DoRun() override
    {
        // the same steps as examples/scenario-hierarchical-allreduce.cc, at 8 MiB
        const uint64_t bytes = 8 << 20;
        Config::SetDefault("ns3::RdmaHostStack::Mtu", UintegerValue(4096));
        std::vector<DimensionSpec> dims{{DimType::SWITCH, 4, 100.0, 250.0},
                                        {DimType::SWITCH, 2, Gbps(200), 1000.0}};
        auto topo = std::make_shared<Topology>(Topology::FromDimensions(dims));
        AstraFabricHelper fabric;
        NodeContainer npus = fabric.Install(topo);
        Ptr<RoceBackend> backend = CreateObject<RoceBackend>();
        backend->SetFabric(topo, npus);
        Ptr<SystemContext> system = CreateObject<SystemContext>();
        SystemParams params;
        params.optimization = CollOptimization::LOCAL_BW_AWARE;
        system->Setup(backend, topo->GetDimensions(), params);
        AstraSimHelper app;
        app.SetContext(system);
        app.SetWorkloads(
            AstraSimHelper::MakeCollectiveWorkload(npus.GetN(), CollType::ALL_REDUCE, bytes));
        ApplicationContainer apps = app.Install(npus);
        apps.Start(Seconds(0));
        g_rdmaMessages = 0;
        g_pauseTraces = 0;
        Config::ConnectWithoutContext("/NodeList/*/$ns3::RdmaSwitch/PfcPause",
                                      MakeCallback(&CountPause));
        Config::Connect("/NodeList/*/$ns3::RdmaHostStack/RxMessageComplete",
                        MakeCallback(&CountMessage));
        std::vector<Ptr<AstraSimApplication>> engines;
        for (uint32_t i = 0; i < apps.GetN(); ++i)
        {
            engines.push_back(DynamicCast<AstraSimApplication>(apps.Get(i)));
        }
        Ptr<AstraRunMonitor> monitor = CreateObject<AstraRunMonitor>();
        monitor->SetAttribute("ProgressInterval", DoubleValue(0));
        monitor->Watch(engines, backend);
        monitor->WatchFabric(fabric.GetAllNodes());
        monitor->Start();
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(monitor->AllFinished(), true, "every NPU finished");
        NS_TEST_ASSERT_MSG_EQ(monitor->IsHung(), false, "no hang");
        Time last;
        for (const auto& e : engines)
        {
            last = Max(last, e->GetStats().finish);
        }
        // per NPU: reduce-scatter and all-gather on dim 0 ((n0 - 1) messages of S / n0 each),
        // all-reduce of S / n0 on dim 1 (2 (n1 - 1) messages of S / n0 / n1)
        NS_TEST_ASSERT_MSG_EQ(backend->GetDeliveredBytes(),
                              8 * (2 * 3 * bytes / 4 + 2 * bytes / 4 / 2),
                              "bytes of the hierarchical ring all-reduce");
        NS_TEST_ASSERT_MSG_EQ(g_rdmaMessages, 8u * (2 * 3 + 2), "messages (config-path trace)");
        NS_TEST_ASSERT_MSG_EQ(g_rdmaMessages, backend->GetDeliveredMessages(), "trace = backend");
        const double overhead = double(AstraFabricHelper::MessageWireBytes(bytes, 4096)) / bytes;
        const double closed =
            AstraSimHelper::HierarchicalAllReduceNs(dims,
                                                    bytes,
                                                    overhead,
                                                    RdmaHostStack::DataWireBytes(4096, false));
        const double err = std::fabs(last.GetNanoSeconds() / closed - 1);
        std::printf("  (d) all-reduce 8 MiB on 4 x 2: %lld ns, closed form %.0f ns (%.2f %%), "
                    "PFC pauses %llu\n",
                    (long long)last.GetNanoSeconds(),
                    closed,
                    100 * err,
                    (unsigned long long)g_pauseTraces);
        NS_TEST_ASSERT_MSG_LT(err, 0.01, "RoCE vs closed form beyond 1 %");
        engines.clear();
        monitor->Dispose();
        system->Dispose();
        Simulator::Destroy();
        Config::Reset();
    }
};

/// The suite.
class AstraRunMonitorTestSuite : public TestSuite
{
  public:
    AstraRunMonitorTestSuite()
        : TestSuite("astra-sim-run-monitor", UNIT)
    {
        AddTestCase(new BackgroundTrafficHangTestCase, TestCase::QUICK);
        AddTestCase(new UnmatchedRecvTestCase(), TestCase::QUICK);
        AddTestCase(new PfcDeadlockTestCase(), TestCase::QUICK);
        AddTestCase(new LosslessDropTestCase(), TestCase::QUICK);
        AddTestCase(new ScenarioTestCase(), TestCase::QUICK);
    }
};

/// Static instance.
static AstraRunMonitorTestSuite g_astraRunMonitorTestSuite;

} // namespace
