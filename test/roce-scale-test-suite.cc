/*
 * astra-sim-roce-scale: a scaled-down version of roce-bench's anchor scenario
 * (ring all-reduce driven by the system layer on a two-tier Clos RoCE fabric,
 * 1000 B payload per packet), checked against closed forms:
 *  (a) one chunk: the collective time equals the critical path of the ring's
 *      step dependencies, each message timed as propagation + wire bytes /
 *      rate + one frame of store-and-forward per switch (1 %);
 *  (b) four chunks, one active per dimension (the anchor's chunking): the
 *      time is within 3 % of the flow-level backend on the same Clos
 *      (Topology's Clos dimension) once the RoCE header and ACK bytes are
 *      counted, and between one and four times a chunk's critical path;
 *  and in both: zero drops, zero retransmissions, no PFC pause, and the bytes
 *  every host link and every leaf's uplinks carry are exactly the ring
 *  algorithm's messages (data frames) plus the ACK frames of the messages
 *  flowing the other way.
 */

#include "ns3/astra-fabric-helper.h"
#include "ns3/astra-sim-application.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/astra-system.h"
#include "ns3/config.h"
#include "ns3/flow-backend.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-meta.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-topology-helper.h"
#include "ns3/roce-backend.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

using namespace ns3;
using namespace ns3::astra;

namespace
{

constexpr uint32_t kMtu = 1000;          //!< payload per packet (the anchor's)
constexpr uint32_t kLeaves = 4;          //!< leaf switches
constexpr uint32_t kHostsPerLeaf = 8;    //!< hosts per leaf
constexpr uint32_t kSpines = 4;          //!< spines (2:1 oversubscribed leaves, as the anchor)
constexpr double kGbps = 200;            //!< every link
constexpr double kHostDelayNs = 5000;    //!< host-leaf propagation
constexpr double kFabricDelayNs = 12500; //!< leaf-spine propagation
constexpr double kEndpointNs = 10;       //!< system-layer endpoint delay

/// What a run measured.
struct ScaleRun
{
    bool finished{false};
    int64_t finishNs{0};
    uint64_t messages{0};
    uint64_t drops{0};
    uint64_t retx{0};
    uint64_t pfcFrames{0};
    std::vector<uint64_t> hostTx;     //!< tx bytes of each host's NIC
    std::vector<uint64_t> leafUpTx;   //!< tx bytes summed over each leaf's uplinks
    std::vector<uint64_t> leafDownTx; //!< tx bytes summed over the spines' links into each leaf
};

uint32_t g_done = 0;

void
Finished(uint32_t, Time)
{
    if (++g_done == kLeaves * kHostsPerLeaf)
    {
        Simulator::Stop();
    }
}

ScaleRun
RunAnchorSmall(uint64_t bytes, uint32_t splits)
{
    Config::SetDefault("ns3::RdmaHostStack::Mtu", UintegerValue(kMtu));
    const uint32_t n = kLeaves * kHostsPerLeaf;
    RdmaTopologyHelper th;
    RdmaLeafSpineParams lp;
    lp.nLeaves = kLeaves;
    lp.hostsPerLeaf = kHostsPerLeaf;
    lp.nSpines = kSpines;
    lp.hostRate = DataRate(uint64_t(kGbps * 1e9));
    lp.fabricRate = DataRate(uint64_t(kGbps * 1e9));
    lp.hostDelay = NanoSeconds(int64_t(kHostDelayNs));
    lp.fabricDelay = NanoSeconds(int64_t(kFabricDelayNs));
    RdmaTopology t = th.LeafSpine(lp);
    // the system layer sees one dimension of all hosts (host h = NPU h)
    auto topo = std::make_shared<Topology>(Topology::FromDimensions(
        {{DimType::SWITCH, n, kGbps * 1e9 / 8 / 1073741824.0, kHostDelayNs}}));
    Ptr<RoceBackend> backend = CreateObject<RoceBackend>();
    backend->SetFabric(topo, t.hosts);
    SystemParams p;
    p.splits = splits;
    p.activeChunks = 1;
    p.endpointDelayNs = kEndpointNs;
    Ptr<SystemContext> ctx = CreateObject<SystemContext>();
    ctx->Setup(backend, topo->GetDimensions(), p);
    const auto graphs = MakeCollectiveWorkload(n, CollType::ALL_REDUCE, bytes);
    AstraSimHelper helper;
    helper.SetContext(ctx);
    helper.SetWorkloads(graphs);
    ApplicationContainer ac = helper.Install(t.hosts);
    std::vector<Ptr<AstraSimApplication>> apps;
    g_done = 0;
    for (uint32_t i = 0; i < ac.GetN(); ++i)
    {
        apps.push_back(DynamicCast<AstraSimApplication>(ac.Get(i)));
        apps.back()->TraceConnectWithoutContext("Finished", MakeCallback(&Finished));
    }
    ac.Start(Seconds(0));
    Simulator::Stop(Seconds(1));
    Simulator::Run();

    ScaleRun r;
    r.finished = true;
    for (const auto& a : apps)
    {
        r.finished = r.finished && a->IsFinished() && a->GetError().empty();
        if (a->IsFinished())
        {
            r.finishNs = std::max(r.finishNs, a->GetStats().finish.GetNanoSeconds());
        }
    }
    r.messages = ctx->GetMessagesSent();
    r.leafUpTx.assign(kLeaves, 0);
    r.leafDownTx.assign(kLeaves, 0);
    // LeafSpine link order: host h - leaf h / hostsPerLeaf (a = host), then leaf l - spine s
    for (uint32_t i = 0; i < t.links.size(); ++i)
    {
        const auto& l = t.links[i];
        r.drops += l.devA->GetDrops() + l.devB->GetDrops();
        r.pfcFrames += l.devA->GetPfcTxFrames() + l.devB->GetPfcTxFrames();
        if (i < n)
        {
            r.hostTx.push_back(l.devA->GetTxBytes());
        }
        else
        {
            const uint32_t leaf = (i - n) / kSpines;
            r.leafUpTx[leaf] += l.devA->GetTxBytes();
            r.leafDownTx[leaf] += l.devB->GetTxBytes();
        }
    }
    for (uint32_t s = 0; s < t.switches.GetN(); ++s)
    {
        r.drops += t.switches.Get(s)->GetObject<RdmaSwitch>()->GetDrops();
    }
    for (uint32_t h = 0; h < n; ++h)
    {
        r.retx += t.hosts.Get(h)->GetObject<RdmaHostStack>()->GetStats().retxPkts;
    }
    apps.clear();
    ctx->Dispose();
    backend->Dispose();
    Simulator::Destroy();
    Config::Reset();
    return r;
}

/// Frame bytes on the link (GetTxBytes counts frames without preamble and IFG).
uint64_t
DataFrameBytes(uint64_t msg)
{
    const uint64_t pkts = (msg + kMtu - 1) / kMtu;
    return AstraFabricHelper::MessageWireBytes(msg, kMtu) - pkts * kEthernetWireOverhead;
}

uint64_t
AckFrameBytes(uint64_t msg)
{
    const uint64_t pkts = (msg + kMtu - 1) / kMtu;
    return AstraFabricHelper::MessageAckWireBytes(msg, kMtu, 1) - pkts * kEthernetWireOverhead;
}

/**
 * Closed form of one chunk of a ring all-reduce on the Clos: NPU i sends step
 * k to i+1 at S_i(k); it arrives at A = S_i(k) + T(i), is processed kEndpointNs
 * after max(A, S_{i+1}(k)), which is S_{i+1}(k+1). T(i) = propagation of the
 * path (2 host links; 2 more fabric links when i and i+1 sit on different
 * leaves) + the message's wire bytes at the link rate + one full frame of
 * store-and-forward per switch. A host finishes at its last receive's
 * processing or its last send's ACK, whichever is later.
 * \return the latest finish (ns)
 */
double
RingCriticalPath(uint64_t msg)
{
    const uint32_t n = kLeaves * kHostsPerLeaf;
    const double bytesPerNs = kGbps / 8.0;
    const double frameNs = RdmaHostStack::DataWireBytes(kMtu, false) / bytesPerNs;
    RdmaMeta ackMeta;
    ackMeta.opcode = RoceOpcode::ACK;
    const double ackNs = (RoceFrame::GetFrameBytes(ackMeta) + kEthernetWireOverhead) / bytesPerNs;
    const double wireNs = AstraFabricHelper::MessageWireBytes(msg, kMtu) / bytesPerNs;
    std::vector<double> T(n);
    std::vector<double> ackBack(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        const bool cross = i / kHostsPerLeaf != ((i + 1) % n) / kHostsPerLeaf;
        const uint32_t switches = cross ? 3 : 1;
        const double prop = 2 * kHostDelayNs + (cross ? 2 * kFabricDelayNs : 0);
        T[i] = prop + wireNs + switches * std::min(frameNs, wireNs);
        ackBack[i] = prop + (switches + 1) * ackNs;
    }
    const uint32_t steps = 2 * (n - 1);
    std::vector<double> S(n, 0.0);
    std::vector<double> next(n);
    std::vector<double> lastSend(n, 0.0);
    for (uint32_t k = 0; k < steps; ++k)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            const uint32_t from = (i + n - 1) % n;
            const double arrive = S[from] + T[from];
            next[i] = std::max(arrive, S[i]) + kEndpointNs;
        }
        lastSend = S;
        S = next;
    }
    double finish = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        finish = std::max(finish, std::max(S[i], lastSend[i] + T[i] + ackBack[i]));
    }
    return finish;
}

/**
 * The flow-level backend on the same Clos, every link's rate divided by the
 * wire/payload factor of the messages (data frames and the ACKs sharing the
 * uplink) and half a frame of store-and-forward added to every link's latency.
 * \return the latest NPU finish (ns), -1 if unfinished
 */
int64_t
FlowOnClos(uint64_t bytes, uint32_t splits, double factor)
{
    const uint32_t n = kLeaves * kHostsPerLeaf;
    const double gbps = kGbps / factor;
    const double halfFrameNs = 0.5 * RdmaHostStack::DataWireBytes(kMtu, false) / (kGbps / 8.0);
    auto topo = std::make_shared<Topology>(
        Topology::FromDimensions({ClosDimension(n,
                                                kHostsPerLeaf,
                                                kSpines,
                                                GbpsToGBps(gbps),
                                                kHostDelayNs + halfFrameNs,
                                                GbpsToGBps(gbps),
                                                kFabricDelayNs + halfFrameNs)}));
    SystemParams p;
    p.splits = splits;
    p.activeChunks = 1;
    p.endpointDelayNs = kEndpointNs;
    const auto graphs = MakeCollectiveWorkload(n, CollType::ALL_REDUCE, bytes);
    AstraRunOptions o;
    o.backend = "flow";
    AstraRunResult r = AstraSimHelper::Run(topo, p, graphs, o);
    return r.unfinished.empty() ? r.MaxFinish() : -1;
}

/// Byte checks shared by both cases.
class ScaleCheck : public TestCase
{
  public:
    ScaleCheck(std::string name, uint64_t bytes, uint32_t splits)
        : TestCase(name),
          m_bytes(bytes),
          m_splits(splits)
    {
    }

  protected:
    /// Assert the run's counters; \return false on failure
    void CheckBytes(const ScaleRun& r)
    {
        const uint32_t n = kLeaves * kHostsPerLeaf;
        const uint64_t msg = m_bytes / m_splits / n;
        const uint64_t perNpu = uint64_t(m_splits) * 2 * (n - 1);
        NS_TEST_ASSERT_MSG_EQ(r.finished, true, "every NPU finished");
        NS_TEST_ASSERT_MSG_EQ(r.messages, perNpu * n, "messages of the ring algorithm");
        NS_TEST_ASSERT_MSG_EQ(r.drops, 0, "zero drops");
        NS_TEST_ASSERT_MSG_EQ(r.retx, 0, "zero retransmissions");
        NS_TEST_ASSERT_MSG_EQ(r.pfcFrames, 0, "no PFC pause (no link is shared by two flows)");
        // a host's uplink: its data to i+1 and the ACKs of the data from i-1
        const uint64_t link = perNpu * (DataFrameBytes(msg) + AckFrameBytes(msg));
        for (uint32_t h = 0; h < n; ++h)
        {
            NS_TEST_ASSERT_MSG_EQ(r.hostTx[h], link, "bytes on host " << h << "'s uplink");
        }
        // a leaf's uplinks: the ring's flow leaving the leaf and the ACKs of the one entering
        for (uint32_t l = 0; l < kLeaves; ++l)
        {
            NS_TEST_ASSERT_MSG_EQ(r.leafUpTx[l], link, "bytes on leaf " << l << "'s uplinks");
            NS_TEST_ASSERT_MSG_EQ(r.leafDownTx[l], link, "bytes into leaf " << l);
        }
    }

    uint64_t m_bytes;
    uint32_t m_splits;
};

/// (a) one chunk: time = the ring's critical path.
class OneChunkTestCase : public ScaleCheck
{
  public:
    OneChunkTestCase()
        : ScaleCheck("(a) 32-host Clos, 256 KiB ring all-reduce, one chunk: critical path (1 %)",
                     256 * 1024,
                     1)
    {
    }

  private:
    void DoRun() override
    {
        ScaleRun r = RunAnchorSmall(m_bytes, m_splits);
        CheckBytes(r);
        const double expect = RingCriticalPath(m_bytes / kLeaves / kHostsPerLeaf);
        const double err = std::fabs(double(r.finishNs) - expect) / expect;
        std::printf("  (a) RoCE %lld ns, closed form %.0f ns, diff %.2f %%\n",
                    (long long)r.finishNs,
                    expect,
                    err * 100);
        NS_TEST_ASSERT_MSG_LT(err, 0.01, "RoCE vs the ring's critical path beyond 1 %");
    }
};

/// (b) the anchor's chunking: 4 chunks, one active per dimension.
class FourChunkTestCase : public ScaleCheck
{
  public:
    FourChunkTestCase()
        : ScaleCheck("(b) 32-host Clos, 256 KiB ring all-reduce, 4 chunks, 1 active: flow-level on "
                     "the same Clos (3 %)",
                     256 * 1024,
                     4)
    {
    }

  private:
    void DoRun() override
    {
        ScaleRun r = RunAnchorSmall(m_bytes, m_splits);
        CheckBytes(r);
        const uint64_t msg = m_bytes / m_splits / kLeaves / kHostsPerLeaf;
        const double one = RingCriticalPath(msg);
        const double factor = double(AstraFabricHelper::MessageWireBytes(msg, kMtu) +
                                     AstraFabricHelper::MessageAckWireBytes(msg, kMtu, 1)) /
                              double(msg);
        const int64_t flow = FlowOnClos(m_bytes, m_splits, factor);
        NS_TEST_ASSERT_MSG_GT(flow, 0, "flow-level run finished");
        const double err = std::fabs(double(r.finishNs - flow)) / double(flow);
        std::printf("  (b) RoCE %lld ns, flow (derated x%.4f) %lld ns, diff %.2f %%; one chunk "
                    "of 64 KiB %.0f ns\n",
                    (long long)r.finishNs,
                    factor,
                    (long long)flow,
                    err * 100,
                    one);
        NS_TEST_ASSERT_MSG_LT(err, 0.03, "RoCE vs flow-level on the same Clos beyond 3 %");
        // chunks overlap at most by the admission on arrival of the next chunk
        NS_TEST_ASSERT_MSG_GT_OR_EQ(double(r.finishNs), one, "at least one chunk's time");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(double(r.finishNs), 4.02 * one, "at most 4 chunks in series");
    }
};

/// The suite.
class RoceScaleTestSuite : public TestSuite
{
  public:
    RoceScaleTestSuite()
        : TestSuite("astra-sim-roce-scale", UNIT)
    {
        AddTestCase(new OneChunkTestCase(), TestCase::QUICK);
        AddTestCase(new FourChunkTestCase(), TestCase::QUICK);
    }
};

static RoceScaleTestSuite g_roceScaleTestSuite; //!< static instance

} // namespace
