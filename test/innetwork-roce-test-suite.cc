/*
 * The packet-level aggregation engine on the RoCE fabric (suite
 * astra-sim-innetwork-roce): reductions checked on real values for every
 * operation on a two-tier Clos and a three-tier fat-tree; bytes per NPU and per
 * tree link against the ring's; latency and streaming time against the
 * packet-level closed form (within 3 %); a dropped upward packet retransmitted
 * by go-back-N and never counted twice; slot exhaustion; a straggler; ECN and
 * congestion control reacting on the engine's connections; the frames in
 * tshark (WRITE Only with Immediate, RETH address, ImmDt); and the NVLS-like
 * scale-up ratio on all three backends.
 */

#include "ns3/aggregation-engine.h"
#include "ns3/aggregation-helper.h"
#include "ns3/analytical-in-switch.h"
#include "ns3/astra-fabric-helper.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/rdma-congestion-ops.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-switch.h"
#include "ns3/roce-backend.h"
#include "ns3/roce-header.h"
#include "ns3/roce-in-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// GB/s (2^30 B) of a rate in Gbit/s
double
G(double gbps)
{
    return GbpsToGBps(gbps);
}

/// Records what the in-switch model reports to the system layer.
class Sink : public MessageSink
{
  public:
    std::map<uint32_t, int64_t> delivered; //!< NPU -> delivery time (ns)
    std::map<uint32_t, int64_t> sent;      //!< NPU -> contribution done (ns)
    uint64_t deliveredBytes{0};            //!< payload reported

    void MessageSent(const NetMessage& msg, uint64_t) override
    {
        sent[msg.src] = Simulator::Now().GetNanoSeconds();
    }

    void MessageDelivered(const NetMessage& msg) override
    {
        delivered[msg.dst] = Simulator::Now().GetNanoSeconds();
        deliveredBytes += msg.bytes;
    }
};

/// A RoCE fabric with aggregation engines on its switches.
struct Net
{
    std::shared_ptr<const Topology> topo;
    AstraFabricHelper fabric;
    AggregationHelper agg;
    Ptr<RoceBackend> backend;
    Ptr<RoceInSwitch> in;

    explicit Net(const std::vector<DimensionSpec>& dims)
    {
        topo = std::make_shared<Topology>(Topology::FromDimensions(dims));
    }

    void Build()
    {
        fabric.Install(topo);
        fabric.AssignStreams(1);
        backend = CreateObject<RoceBackend>();
        backend->SetFabric(topo, fabric.GetNpus());
        in = DynamicCast<RoceInSwitch>(agg.Install(backend, topo, &fabric));
    }

    Ptr<RdmaHostStack> Stack(uint32_t npu) const
    {
        return fabric.GetNpus().Get(npu)->GetObject<RdmaHostStack>();
    }
};

/// 16 NPUs, 4 per leaf, `spines` spines, every link 100 Gbit/s, 1 us / 2 us
DimensionSpec
Clos16(uint32_t spines = 2)
{
    DimensionSpec d = ClosDimension(16, 4, spines, G(100), 1000, G(100), 2000);
    d.inSwitch = true;
    return d;
}

std::vector<uint32_t>
All(uint32_t n)
{
    std::vector<uint32_t> v(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        v[i] = i;
    }
    return v;
}

/// Join every member of one operation (member m at joinNs[m], default 0).
InSwitchOp
Launch(Net& net,
       Sink& sink,
       InSwitchOpKind kind,
       uint64_t bytes,
       uint64_t key,
       const std::vector<int64_t>& joinNs = {})
{
    InSwitchOp op;
    op.key = key;
    op.kind = kind;
    op.dim = 0;
    op.members = std::make_shared<std::vector<uint32_t>>(All(net.topo->GetNpuCount()));
    op.bytes = bytes;
    op.root = 0;
    std::string why;
    net.in->Reserve(0, *op.members, &why);
    for (uint32_t m = 0; m < op.members->size(); ++m)
    {
        const int64_t t = m < joinNs.size() ? joinNs[m] : 0;
        Simulator::Schedule(NanoSeconds(t),
                            [&net, &sink, op, m]() { net.in->Join(op, m, &sink, m, true); });
    }
    return op;
}

/// Values of a test: a table drawn from a seeded generator (not the engine's pattern).
struct Values
{
    std::map<std::pair<uint32_t, uint64_t>, uint32_t> contributed; //!< (member, seq)
    std::map<std::pair<uint32_t, uint64_t>, uint32_t> received;    //!< (member, seq)
    uint64_t repeats{0};                                           //!< a result received twice
    uint64_t state{88172645463325252ull};                          //!< xorshift

    uint32_t Value(uint32_t m, uint64_t q)
    {
        auto it = contributed.find({m, q});
        if (it != contributed.end())
        {
            return it->second; // asked again (it must not be: posted once)
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        const uint32_t v = uint32_t(state >> 16);
        contributed[{m, q}] = v;
        return v;
    }

    void Result(uint32_t m, uint64_t q, uint32_t v)
    {
        if (!received.emplace(std::make_pair(m, q), v).second)
        {
            ++repeats;
        }
    }
};

void
UseValues(Net& net, Values& v)
{
    net.in->SetValueFunction([&v](uint64_t, uint32_t m, uint64_t q) { return v.Value(m, q); });
    net.in->SetResultCallback(
        [&v](uint64_t, uint32_t m, uint64_t q, uint32_t value) { v.Result(m, q, value); });
}

/// \return mismatches of the received results against sums recomputed here
uint64_t
CheckResults(const Values& v, const AggregationSchedule& s, uint64_t& expectedCount)
{
    uint64_t bad = 0;
    expectedCount = 0;
    for (uint64_t q = 0; q < s.sequences; ++q)
    {
        // the test's own expectation: what each member must hold for sequence q
        uint32_t sum = 0;
        uint32_t owner = UINT32_MAX;
        for (uint32_t m = 0; m < s.n; ++m)
        {
            auto it = v.contributed.find({m, q});
            if (it != v.contributed.end())
            {
                sum += it->second;
                owner = m;
            }
        }
        for (uint32_t m = 0; m < s.n; ++m)
        {
            bool receives = false;
            switch (s.kind)
            {
            case InSwitchOpKind::ALL_REDUCE:
                receives = true;
                break;
            case InSwitchOpKind::REDUCE_SCATTER:
                receives = q / s.perMember == m;
                break;
            case InSwitchOpKind::REDUCE:
                receives = m == 0;
                break;
            case InSwitchOpKind::ALL_GATHER:
            case InSwitchOpKind::BROADCAST:
                receives = m != owner;
                break;
            }
            auto it = v.received.find({m, q});
            if (receives)
            {
                ++expectedCount;
                bad += (it == v.received.end() || it->second != sum) ? 1 : 0;
            }
            else
            {
                bad += it != v.received.end() ? 1 : 0;
            }
        }
    }
    return bad;
}

/// Every operation on real values, on a Clos and on a fat-tree.
class ValuesTest : public TestCase
{
  public:
    ValuesTest()
        : TestCase("Reductions on real values: every operation, Clos (depth 2) and fat-tree (3)")
    {
    }

  private:
    void DoRun() override
    {
        DimensionSpec ft = FatTreeDimension(4, G(100), 1000);
        ft.inSwitch = true;
        for (const DimensionSpec& d : {Clos16(), ft})
        {
            for (InSwitchOpKind k : {InSwitchOpKind::ALL_REDUCE,
                                     InSwitchOpKind::REDUCE_SCATTER,
                                     InSwitchOpKind::ALL_GATHER,
                                     InSwitchOpKind::REDUCE,
                                     InSwitchOpKind::BROADCAST})
            {
                const std::string what = std::string(DimTypeName(d.type)) + " " + InSwitchOpName(k);
                Net net({d});
                // a small window: slots are reused many times in the operation
                net.agg.SetAttribute("TreeSlots", UintegerValue(8));
                net.Build();
                Values v;
                UseValues(net, v);
                Sink sink;
                const uint64_t bytes = 48000 + 123; // 49 sequences of 1000 B (last 123 B)
                Launch(net, sink, k, bytes, 77);
                Simulator::Run();
                const AggregationSchedule s = AggregationSchedule::Make(k, 16, 0, bytes, 1000);
                uint64_t count = 0;
                const uint64_t bad = CheckResults(v, s, count);
                NS_TEST_EXPECT_MSG_EQ(bad, 0u, what << ": every result is the exact sum");
                NS_TEST_EXPECT_MSG_EQ(v.received.size(), count, what << ": results received");
                NS_TEST_EXPECT_MSG_GT(count, 0u, what);
                NS_TEST_EXPECT_MSG_EQ(v.repeats, 0u, what << ": no result twice");
                uint32_t receivers = 0;
                for (uint32_t m = 0; m < 16; ++m)
                {
                    receivers += InSwitchBytes(k, 16, m, 0, bytes).down > 0 ? 1 : 0;
                }
                NS_TEST_EXPECT_MSG_EQ(sink.delivered.size(), receivers, what << ": deliveries");
                NS_TEST_EXPECT_MSG_EQ(net.in->GetPendingOperations(), 0u, what << ": finished");
                Simulator::Destroy();
            }
        }
        // the built-in pattern checks itself
        Net net({Clos16()});
        net.Build();
        Sink sink;
        Launch(net, sink, InSwitchOpKind::ALL_REDUCE, 100000, 5);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(net.in->GetHostStats().valuesChecked, 16u * 100, "checked");
        NS_TEST_EXPECT_MSG_EQ(net.in->GetHostStats().valueErrors, 0u, "pattern sums");
        Simulator::Destroy();
    }
};

/// Drops on the way up: go-back-N resends, the bitmap keeps the sum exact.
class DropTest : public TestCase
{
  public:
    DropTest()
        : TestCase("Dropped upward packets are retransmitted (go-back-N) and never counted twice")
    {
    }

  private:
    void DoRun() override
    {
        Net net({Clos16()});
        net.Build();
        // the leaves' receive side of the NPU links loses 1 % of the frames
        for (uint32_t l = 0; l < net.topo->GetLinks().size(); ++l)
        {
            const TopoLink& tl = net.topo->GetLinks()[l];
            if (net.topo->GetNodeKind(tl.a) == TopoNodeKind::NPU)
            {
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetAttribute("ErrorRate", DoubleValue(0.01));
                em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
                em->AssignStreams(100 + l);
                net.fabric.GetLinkDevices(l).second->SetReceiveErrorModel(em);
            }
        }
        Values v;
        UseValues(net, v);
        Sink sink;
        const uint64_t bytes = 400000;
        Launch(net, sink, InSwitchOpKind::ALL_REDUCE, bytes, 9);
        Simulator::Run();
        uint64_t retx = 0;
        for (uint32_t i = 0; i < 16; ++i)
        {
            retx += net.Stack(i)->GetStats().retxPkts;
        }
        uint64_t dups = 0;
        for (uint32_t sw : net.topo->GetDimensionSwitches(0, SwitchTier::LEAF))
        {
            dups += net.in->GetEngine(sw)->GetStats().duplicates;
        }
        NS_TEST_EXPECT_MSG_GT(retx, 0u, "upward packets were lost and sent again");
        NS_TEST_EXPECT_MSG_GT(dups, 0u, "retransmissions reached the engines a second time");
        uint64_t count = 0;
        const AggregationSchedule s =
            AggregationSchedule::Make(InSwitchOpKind::ALL_REDUCE, 16, 0, bytes, 1000);
        NS_TEST_EXPECT_MSG_EQ(CheckResults(v, s, count), 0u, "exact results, no double count");
        NS_TEST_EXPECT_MSG_EQ(v.received.size(), 16u * 400, "every result");
        NS_TEST_EXPECT_MSG_EQ(sink.delivered.size(), 16u, "every member finished");
        Simulator::Destroy();
    }
};

/// Payload bytes per directed link: in-switch vs ring.
class BytesTest : public TestCase
{
  public:
    BytesTest()
        : TestCase("Bytes: S up and S down per NPU and per tree link; ring 2(n-1) S over n")
    {
    }

    /// payload sent per device (raw pointers: a bound Ptr would keep its device alive)
    std::map<const RdmaNetDevice*, uint64_t> m_tx;

  private:
    static void OnTx(BytesTest* self, RdmaNetDevice* dev, const RdmaQueuedFrame& f)
    {
        if (f.meta.kind == RdmaFrameKind::ROCE && f.meta.opcode <= RoceOpcode::WRITE_ONLY_IMM)
        {
            self->m_tx[dev] += f.meta.payload;
        }
    }

    void Watch(Net& net)
    {
        for (uint32_t l = 0; l < net.topo->GetLinks().size(); ++l)
        {
            auto devs = net.fabric.GetLinkDevices(l);
            for (const Ptr<RdmaNetDevice>& d : {devs.first, devs.second})
            {
                d->TraceConnectWithoutContext("MacTx",
                                              MakeBoundCallback(&OnTx, this, PeekPointer(d)));
            }
        }
    }

    void DoRun() override
    {
        const uint64_t s = 160000; // a multiple of 16 and of the 1000 B slots
        Net net({Clos16()});
        net.Build();
        Watch(net);
        Sink sink;
        Launch(net, sink, InSwitchOpKind::ALL_REDUCE, s, 3);
        Simulator::Run();
        const AggregationTree& t = net.in->GetTree(0);
        const uint32_t rootSw = t.nodes[t.root].sw;
        for (uint32_t l = 0; l < net.topo->GetLinks().size(); ++l)
        {
            const TopoLink& tl = net.topo->GetLinks()[l];
            auto devs = net.fabric.GetLinkDevices(l);
            const uint64_t up = m_tx[PeekPointer(devs.first)];    // a: the NPU, or the leaf
            const uint64_t down = m_tx[PeekPointer(devs.second)]; // b: the leaf, or the spine
            if (net.topo->GetNodeKind(tl.a) == TopoNodeKind::NPU)
            {
                NS_TEST_EXPECT_MSG_EQ(up, s, "NPU " << tl.a << " sends S");
                NS_TEST_EXPECT_MSG_EQ(down, s, "NPU " << tl.a << " receives S");
            }
            else if (tl.b == rootSw)
            {
                NS_TEST_EXPECT_MSG_EQ(up, s, "tree link leaf -> root: S, fan-in 4 or not");
                NS_TEST_EXPECT_MSG_EQ(down, s, "tree link root -> leaf: S");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(up + down, 0u, "the other spine carries nothing");
            }
        }
        Simulator::Destroy();

        // the ring on the same fabric, through the system layer: 2(n - 1)/n S per NPU
        m_tx.clear();
        AstraSimScenario sc;
        sc.SetTopology(std::make_shared<Topology>(Topology::FromDimensions({Clos16()})));
        SystemParams p;
        p.endpointDelayNs = 10;
        sc.SetSystemParams(p);
        sc.SetWorkloads(AstraSimHelper::MakeCollectiveWorkload(16, CollType::ALL_REDUCE, s));
        sc.SetBackend("roce");
        sc.GetMonitor()->SetAttribute("ProgressInterval", DoubleValue(0));
        sc.Build();
        for (uint32_t l = 0; l < sc.GetFabric().GetTopology()->GetLinks().size(); ++l)
        {
            auto devs = sc.GetFabric().GetLinkDevices(l);
            devs.first->TraceConnectWithoutContext(
                "MacTx",
                MakeBoundCallback(&OnTx, this, PeekPointer(devs.first)));
        }
        NS_TEST_ASSERT_MSG_EQ(sc.Run(), 0, "ring finished");
        for (uint32_t i = 0; i < 16; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(m_tx[PeekPointer(sc.GetFabric().GetLinkDevices(i).first)],
                                  2 * 15 * s / 16,
                                  "ring: NPU " << i << " sends 2(n-1)/n S");
        }
        sc.Destroy();
    }
};

/// Frame and ACK wire bytes of one slot sequence of P payload bytes.
struct Wire
{
    double frame; //!< WRITE Only with Immediate, with preamble and IFG
    double ack;   //!< its ACK

    explicit Wire(uint32_t payload)
    {
        RdmaMeta m;
        m.opcode = RoceOpcode::WRITE_ONLY_IMM;
        m.payload = payload;
        frame = RoceFrame::GetFrameBytes(m) + kEthernetWireOverhead;
        RdmaMeta a;
        a.opcode = RoceOpcode::ACK;
        ack = RoceFrame::GetFrameBytes(a) + kEthernetWireOverhead;
    }
};

/// Latency and streaming against the packet-level closed form.
class LatencyTest : public TestCase
{
  public:
    LatencyTest()
        : TestCase(
              "One slot takes 2 x depth hops; S takes 2d hops + S over B (packet closed form, 3 %)")
    {
    }

  private:
    /// The packet-level closed form on Clos16(): one sequence climbs to the spine and back
    /// (4 link hops of latency + one frame each, 3 engine visits on internal ports), the
    /// others follow at the bottleneck's pace (a frame and an ACK per sequence).
    double ClosedForm(uint64_t bytes)
    {
        const uint32_t p = 1000;
        const Wire w(std::min<uint64_t>(p, bytes));
        const double b = 100e9 / 8e9; // bytes per ns
        // internal ports: leaf 6 x 100G (4 NPUs, 2 spines), spine 4 x 100G, 1 ns each way;
        // a leaf takes in 4 contributions and sends 4 results, the root 4 and 4
        const double leafFrame = w.frame / (6 * b);
        const double spineFrame = w.frame / (4 * b);
        const double one =
            2 * (1000 + 2000) + 4 * w.frame / b + 10 * leafFrame + 4 + 8 * spineFrame + 2;
        const uint64_t seqs = (bytes + p - 1) / p;
        return one + double(seqs - 1) * (Wire(p).frame + w.ack) / b;
    }

    void DoRun() override
    {
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcNone::GetTypeId()));
        for (uint64_t bytes : {uint64_t(1000), uint64_t(4) << 20})
        {
            Net net({Clos16()});
            net.Build();
            Sink sink;
            Launch(net, sink, InSwitchOpKind::ALL_REDUCE, bytes, 1);
            Simulator::Run();
            int64_t last = 0;
            for (const auto& d : sink.delivered)
            {
                last = std::max(last, d.second);
            }
            const double closed = ClosedForm(bytes);
            NS_TEST_EXPECT_MSG_EQ(sink.delivered.size(), 16u, bytes << " B");
            NS_TEST_EXPECT_MSG_EQ_TOL(double(last) / closed,
                                      1.0,
                                      0.03,
                                      bytes << " B: " << last << " vs " << closed);
            if (bytes == 1000)
            {
                // about 2 x depth store-and-forward hops (latency + one frame each; the rest
                // is the engines' internal ports); 30 ring steps would be far more
                const double hop = Wire(1000).frame / (100e9 / 8e9);
                NS_TEST_EXPECT_MSG_EQ_TOL(double(last) / (2 * (1000 + 2000) + 4 * hop),
                                          1.0,
                                          0.1,
                                          "2d hops");
            }
            Simulator::Destroy();
        }
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(TypeId::LookupByName("ns3::RdmaCcDcqcn")));
    }
};

/// A window of 4 slots caps the rate at 4 slots per loop time; nothing lost or stalled.
class SlotsTest : public TestCase
{
  public:
    SlotsTest()
        : TestCase("Slot exhaustion: about TreeSlots x payload per loop time, no loss, no stall")
    {
    }

  private:
    int64_t RunOne(uint32_t window, uint64_t bytes, bool& clean)
    {
        Net net({Clos16()});
        net.agg.SetAttribute("TreeSlots", UintegerValue(window));
        net.Build();
        Sink sink;
        Launch(net, sink, InSwitchOpKind::ALL_REDUCE, bytes, 11);
        Simulator::Run();
        int64_t last = 0;
        for (const auto& d : sink.delivered)
        {
            last = std::max(last, d.second);
        }
        clean = sink.delivered.size() == 16 && net.in->GetHostStats().valueErrors == 0;
        for (uint32_t i = 0; i < 16; ++i)
        {
            const RdmaHostStats& st = net.Stack(i)->GetStats();
            clean = clean && st.retxPkts == 0 && st.timeouts == 0 && st.naksRcvd == 0;
        }
        for (uint32_t i = 0; i < net.fabric.GetSwitches().GetN(); ++i)
        {
            Ptr<RdmaSwitch> sw = net.fabric.GetSwitches().Get(i)->GetObject<RdmaSwitch>();
            clean = clean && sw->GetDrops() == 0 && sw->GetLosslessDrops() == 0;
        }
        Simulator::Destroy();
        return last;
    }

    void DoRun() override
    {
        bool clean = false;
        // the loop time: one slot sequence from a member to the root and back
        const int64_t loop = RunOne(4, 1000, clean);
        NS_TEST_EXPECT_MSG_EQ(clean, true, "single sequence");
        const uint64_t bytes = 400000; // 400 sequences
        const int64_t windowed = RunOne(4, bytes, clean);
        NS_TEST_EXPECT_MSG_EQ(clean, true, "no loss, no retransmission, no stall");
        const double expect = 400.0 / 4 * double(loop);
        NS_TEST_EXPECT_MSG_EQ_TOL(double(windowed) / expect,
                                  1.0,
                                  0.1,
                                  windowed << " ns vs 400 / 4 x " << loop << " ns");
        const int64_t free = RunOne(256, bytes, clean);
        NS_TEST_EXPECT_MSG_LT(double(free) * 3, double(windowed), "a wide window streams");
    }
};

/// A straggler delays every member.
class StragglerTest : public TestCase
{
  public:
    StragglerTest()
        : TestCase("A straggler delays every member on the packet fabric")
    {
    }

  private:
    void DoRun() override
    {
        int64_t alone = 0;
        for (int64_t late : {int64_t(0), int64_t(30000)})
        {
            Net net({Clos16()});
            net.Build();
            Sink sink;
            std::vector<int64_t> join(16, 0);
            join[9] = late;
            Launch(net, sink, InSwitchOpKind::ALL_REDUCE, 50000, 2, join);
            Simulator::Run();
            int64_t first = INT64_MAX;
            int64_t last = 0;
            for (const auto& d : sink.delivered)
            {
                first = std::min(first, d.second);
                last = std::max(last, d.second);
            }
            if (late == 0)
            {
                alone = last;
            }
            else
            {
                NS_TEST_EXPECT_MSG_GT(first, late, "nobody finishes before the straggler joins");
                NS_TEST_EXPECT_MSG_EQ_TOL(double(last),
                                          double(late + alone),
                                          50.0,
                                          "everyone finishes the straggler's delay later");
            }
            Simulator::Destroy();
        }
    }
};

/// Background incast on an NPU's downlink: ECN marks, CNPs on the engine's connections.
class CongestionTest : public TestCase
{
  public:
    CongestionTest()
        : TestCase("PFC, ECN and DCQCN act on the engines' connections; results stay exact")
    {
    }

  private:
    void DoRun() override
    {
        Net net({Clos16()});
        net.fabric.GetRdmaHelper().SetSwitchAttribute("Kmin", UintegerValue(20000));
        net.fabric.GetRdmaHelper().SetSwitchAttribute("Kmax", UintegerValue(80000));
        net.Build();
        // NPUs 4..11 send 2 MB each to NPU 0 (through its leaf's downlink)
        for (uint32_t src = 4; src < 12; ++src)
        {
            Ptr<RdmaQueuePair> qp = net.Stack(src)->GetOrCreateQp(0, 3);
            net.Stack(src)->PostWrite(qp, 2000000, src);
        }
        Values v;
        UseValues(net, v);
        Sink sink;
        const uint64_t bytes = 1000000;
        Launch(net, sink, InSwitchOpKind::ALL_REDUCE, bytes, 4);
        Simulator::Run();
        uint64_t marks = 0;
        uint64_t drops = 0;
        for (uint32_t i = 0; i < net.fabric.GetSwitches().GetN(); ++i)
        {
            Ptr<RdmaSwitch> sw = net.fabric.GetSwitches().Get(i)->GetObject<RdmaSwitch>();
            marks += sw->GetEcnMarks();
            drops += sw->GetDrops() + sw->GetLosslessDrops();
        }
        uint64_t engineCnps = 0;
        for (uint32_t i = 0; i < net.agg.GetEngineNodes().GetN(); ++i)
        {
            engineCnps +=
                net.agg.GetEngineNodes().Get(i)->GetObject<RdmaHostStack>()->GetStats().cnpsRcvd;
        }
        NS_TEST_EXPECT_MSG_GT(marks, 0u, "ECN marks");
        NS_TEST_EXPECT_MSG_GT(engineCnps, 0u, "the engines' connections got CNPs (DCQCN)");
        NS_TEST_EXPECT_MSG_EQ(drops, 0u, "lossless (PFC)");
        uint64_t count = 0;
        const AggregationSchedule s =
            AggregationSchedule::Make(InSwitchOpKind::ALL_REDUCE, 16, 0, bytes, 1000);
        NS_TEST_EXPECT_MSG_EQ(CheckResults(v, s, count), 0u, "exact results");
        NS_TEST_EXPECT_MSG_EQ(sink.delivered.size(), 16u, "finished");
        Simulator::Destroy();
    }
};

/// The frames in tshark.
class PcapTest : public TestCase
{
  public:
    PcapTest()
        : TestCase("tshark decodes WRITE Only with Immediate: RETH address and ImmDt")
    {
    }

  private:
    void DoRun() override
    {
        Net net({Clos16()});
        net.Build();
        const std::string prefix = "innetwork-pcap";
        const std::string file = prefix + ".pcap";
        Ptr<PcapFileWrapper> pcap = RdmaNetDevice::EnablePcap(file, net.Stack(5)->GetPort(0), true);
        Sink sink;
        Launch(net, sink, InSwitchOpKind::ALL_REDUCE, 3000, 0xABC);
        Simulator::Run();
        pcap->Close();
        Simulator::Destroy();
        const std::string cmd = "tshark -r " + file +
                                " -Y 'infiniband.bth.opcode == 11' -T fields -e ip.src "
                                "-e infiniband.reth.va -e infiniband.immdt 2>&1";
        FILE* f = popen(cmd.c_str(), "r");
        NS_TEST_ASSERT_MSG_NE(f, nullptr, "tshark");
        std::string out;
        char buf[512];
        while (fgets(buf, sizeof(buf), f))
        {
            out += buf;
        }
        const int status = pclose(f);
        std::remove(file.c_str());
        NS_TEST_ASSERT_MSG_EQ(status, 0, "tshark ran (installed?): " << out);
        // NPU 5's contributions: address = operation serial 0, sequence q; ImmDt = its value
        for (uint64_t q = 0; q < 3; ++q)
        {
            char line[128];
            std::snprintf(line,
                          sizeof(line),
                          "11.0.0.6\t0x%016llx\t%08x",
                          static_cast<unsigned long long>(q),
                          RoceInSwitch::PatternValue(0xABC, 5, q));
            NS_TEST_EXPECT_MSG_NE(out.find(line),
                                  std::string::npos,
                                  "frame " << q << " in\n"
                                           << out);
        }
        // and the three results coming down, with the sums
        uint32_t n = 0;
        std::istringstream lines(out);
        for (std::string l; std::getline(lines, l);)
        {
            n += l.rfind("11.0.0.", 0) == 0 ? 1 : 0; // frame lines (not tshark's notes)
        }
        NS_TEST_EXPECT_MSG_EQ(n, 6u, "3 up, 3 down:\n" << out);
    }
};

/// NVLS-like: 8 GPUs on an NVLink-like switch, in-switch busbw over ring busbw.
class NvlsRatioTest : public TestCase
{
  public:
    NvlsRatioTest()
        : TestCase(
              "NVLS-like scale-up: in-switch busbw over ring busbw about 1.3 (480 vs 370 GB per s)")
    {
    }

  private:
    void DoRun() override
    {
        // NVLink-like links at the 370 GB/s (1e9 B) per direction that ring reaches on 8 GPUs
        // (450 GB/s x 0.82); the switch reduces 274 GB/s per port (480 / (2 x 7 / 8), the
        // published NVLS busbw's algorithm bandwidth)
        DimensionSpec d{DimType::SWITCH, 8, 370e9 / 1073741824.0, 150};
        d.inSwitch = true;
        auto topo = std::make_shared<Topology>(Topology::FromDimensions({d}));
        Config::SetDefault("ns3::astra::InSwitchAggregation::ReductionRate",
                           DataRateValue(DataRate(uint64_t(274e9 * 8))));
        // NVLink has credit-based flow control (PFC here), no ECN-driven rate control
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcNone::GetTypeId()));
        for (const std::string be : {"analytical", "flow", "roce"})
        {
            const uint64_t s = be == "roce" ? (32ull << 20) : (1ull << 30);
            double busbw[2] = {0, 0};
            for (int k = 0; k < 2; ++k)
            {
                SystemParams p;
                p.endpointDelayNs = 10;
                const AlgoSpec a = AlgoSpec::Parse(k == 0 ? "inSwitch" : "ring");
                p.allReduce = {a};
                AstraRunOptions o;
                o.backend = be;
                AstraRunResult r = AstraSimHelper::Run(
                    topo,
                    p,
                    AstraSimHelper::MakeCollectiveWorkload(8, CollType::ALL_REDUCE, s),
                    o);
                NS_TEST_ASSERT_MSG_EQ(r.unfinished.size(), 0u, be);
                busbw[k] = double(s) / double(r.MaxFinish()) * 2 * 7 / 8; // GB/s (1e9 B)
            }
            NS_TEST_EXPECT_MSG_GT(busbw[0],
                                  370.0 * (be == "roce" ? 0.8 : 1.0),
                                  be << ": in-switch busbw exceeds the link rate");
            NS_TEST_EXPECT_MSG_EQ_TOL(busbw[0] / busbw[1],
                                      1.30,
                                      0.05,
                                      be << ": " << busbw[0] << " vs " << busbw[1] << " GB/s");
        }
        Config::SetDefault("ns3::astra::InSwitchAggregation::ReductionRate",
                           DataRateValue(DataRate(0)));
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(TypeId::LookupByName("ns3::RdmaCcDcqcn")));
    }
};

/// WRITE with immediate data on the wire and through the transport.
class WireTest : public TestCase, private RdmaQpConsumer
{
  public:
    WireTest()
        : TestCase("WRITE with Immediate: frame sizes, fields, multi-packet message, completions")
    {
    }

  private:
    RdmaMessageInfo m_rx;           //!< RxComplete's record
    RdmaMessageInfo m_tx;           //!< TxComplete's record
    std::vector<RdmaMeta> m_frames; //!< data frames NPU 0 sent

    void RxComplete(RdmaQueuePair&, const RdmaMessageInfo& info) override
    {
        m_rx = info;
    }

    void TxComplete(RdmaQueuePair&, const RdmaMessageInfo& info) override
    {
        m_tx = info;
    }

    static void OnTx(WireTest* self, const RdmaQueuedFrame& f)
    {
        if (f.meta.opcode <= RoceOpcode::WRITE_ONLY_IMM)
        {
            self->m_frames.push_back(f.meta);
        }
    }

    void DoRun() override
    {
        // sizes: WRITE Only with Immediate = WRITE Only + 4 (ImmDt); the others + 4 over plain
        RdmaMeta m;
        m.kind = RdmaFrameKind::ROCE;
        m.opcode = RoceOpcode::WRITE_ONLY;
        m.payload = 1000;
        const uint32_t plain = RoceFrame::GetFrameBytes(m);
        m.opcode = RoceOpcode::WRITE_ONLY_IMM;
        NS_TEST_EXPECT_MSG_EQ(RoceFrame::GetFrameBytes(m), plain + 4, "WRITE Only w/ Imm");
        NS_TEST_EXPECT_MSG_EQ(plain, 1082u, "WRITE Only 1000 B (with FCS)");
        m.opcode = RoceOpcode::WRITE_LAST;
        const uint32_t last = RoceFrame::GetFrameBytes(m);
        for (uint8_t op :
             {RoceOpcode::WRITE_LAST_IMM, RoceOpcode::SEND_LAST_IMM, RoceOpcode::SEND_ONLY_IMM})
        {
            m.opcode = op;
            NS_TEST_EXPECT_MSG_EQ(RoceFrame::GetFrameBytes(m), last + 4, "ImmDt " << int(op));
        }
        // every field survives the bytes
        m.opcode = RoceOpcode::WRITE_ONLY_IMM;
        m.srcIp = 0x0B000001;
        m.dstIp = 0x0B000002;
        m.sport = 0xC001;
        m.destQp = 17;
        m.psn = 0xABCDEF;
        m.rethVa = AggregationAddress(0x123456, 0xFEDCBA9876ull);
        m.rethLen = 1000;
        m.immData = 0xDEADBEEF;
        m.priority = 3;
        m.ecn = 2;
        Ptr<Packet> pkt = RoceFrame::Build(m);
        RdmaMeta back;
        NS_TEST_ASSERT_MSG_EQ(RoceFrame::Parse(pkt, back), true, "parses");
        NS_TEST_EXPECT_MSG_EQ(int(back.opcode), int(RoceOpcode::WRITE_ONLY_IMM), "opcode");
        NS_TEST_EXPECT_MSG_EQ(back.rethVa, m.rethVa, "RETH address");
        NS_TEST_EXPECT_MSG_EQ((back.rethVa >> 40), 0x123456u, "serial");
        NS_TEST_EXPECT_MSG_EQ(back.immData, 0xDEADBEEFu, "ImmDt");
        NS_TEST_EXPECT_MSG_EQ(back.payload, 1000u, "payload");
        NS_TEST_EXPECT_MSG_EQ(back.frameBytes, m.frameBytes, "size");
        m.opcode = RoceOpcode::SEND_ONLY_IMM;
        NS_TEST_ASSERT_MSG_EQ(RoceFrame::Parse(RoceFrame::Build(m), back), true, "SEND w/ Imm");
        NS_TEST_EXPECT_MSG_EQ(back.immData, 0xDEADBEEFu, "SEND ImmDt");

        // a 2500 B WRITE with immediate between two NPUs: First (RETH: the given address),
        // Middle, Last with Immediate; both completions report the value
        Net net({Clos16()});
        net.Build();
        net.Stack(0)->GetPort(0)->TraceConnectWithoutContext("MacTx",
                                                             MakeBoundCallback(&OnTx, this));
        Ptr<RdmaQueuePair> qp = net.Stack(0)->GetOrCreateQp(5, 3, 0, this);
        net.Stack(0)->PostWriteImm(qp, 2500, 42, 0xCAFEF00D, 0x5000);
        Simulator::Run();
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(m_frames.size(), 3u, "three packets");
        NS_TEST_EXPECT_MSG_EQ(int(m_frames[0].opcode), int(RoceOpcode::WRITE_FIRST), "first");
        NS_TEST_EXPECT_MSG_EQ(m_frames[0].rethVa, 0x5000u, "the given remote address");
        NS_TEST_EXPECT_MSG_EQ(int(m_frames[1].opcode), int(RoceOpcode::WRITE_MIDDLE), "middle");
        NS_TEST_EXPECT_MSG_EQ(int(m_frames[2].opcode), int(RoceOpcode::WRITE_LAST_IMM), "last");
        NS_TEST_EXPECT_MSG_EQ(m_frames[2].immData, 0xCAFEF00Du, "ImmDt on the last frame");
        NS_TEST_EXPECT_MSG_EQ(m_rx.hasImm, true, "responder sees immediate data");
        NS_TEST_EXPECT_MSG_EQ(m_rx.imm, 0xCAFEF00Du, "from the frame");
        NS_TEST_EXPECT_MSG_EQ(m_rx.bytes, 2500u, "bytes");
        NS_TEST_EXPECT_MSG_EQ(m_tx.imm, 0xCAFEF00Du, "requester's completion");
        NS_TEST_EXPECT_MSG_EQ(m_tx.tag, 42u, "tag");
    }
};

} // namespace

/// The suite.
class InNetworkRoceTestSuite : public TestSuite
{
  public:
    InNetworkRoceTestSuite()
        : TestSuite("astra-sim-innetwork-roce", UNIT)
    {
        AddTestCase(new WireTest, TestCase::QUICK);
        AddTestCase(new ValuesTest, TestCase::QUICK);
        AddTestCase(new DropTest, TestCase::QUICK);
        AddTestCase(new BytesTest, TestCase::QUICK);
        AddTestCase(new LatencyTest, TestCase::QUICK);
        AddTestCase(new SlotsTest, TestCase::QUICK);
        AddTestCase(new StragglerTest, TestCase::QUICK);
        AddTestCase(new CongestionTest, TestCase::QUICK);
        AddTestCase(new PcapTest, TestCase::QUICK);
        AddTestCase(new NvlsRatioTest, TestCase::QUICK);
    }
};

static InNetworkRoceTestSuite g_inNetworkRoceTestSuite; //!< static instance
