/*
 * Distributed-run building blocks that work in every build (astra-sim-distributed):
 * a message's user tag, immediate data, length and post time reach the responder in
 * the frame (no pointer to the requester's objects); a QP to a host of another system
 * opens the local end only and the peer opens its end from the first frame (passive
 * open) with the same timing as an eager connection; the topology partition policies
 * (scale-up, leaf, pod) and the cut report; and, without ns-3's mpi module, asking for
 * MPI is an input error. In an MPI build (NS3_MPI) the remote channel's frame encoding
 * is checked too. A rank's share (emulated in one process): applications and workloads
 * of its own NPUs only, after checking every NPU's trace; rank 0's reports from its own
 * applications and the other ranks' result holders are the single process's bytes.
 */

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-distributed.h"
#include "ns3/astra-fabric-helper.h"
#include "ns3/astra-report.h"
#include "ns3/astra-sim-scenario.h"
#include "ns3/config.h"
#include "ns3/network-backend-factory.h"
#include "ns3/node.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-congestion-ops.h"
#include "ns3/rdma-forwarding-table.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-node-info.h"
#include "ns3/rdma-routing-helper.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-trace-writers.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/topology.h"
#include "ns3/workload-generator.h"

#ifdef NS3_MPI
#include "ns3/rdma-remote-channel.h"
#endif

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// Completions of the QPs it owns (and of passively opened ends, as a listener).
class Recorder : public RdmaQpConsumer
{
  public:
    std::vector<RdmaMessageInfo> rx; //!< responder completions
    std::vector<RdmaMessageInfo> tx; //!< requester completions

    void RxComplete(RdmaQueuePair&, const RdmaMessageInfo& info) override
    {
        rx.push_back(info);
    }

    void TxComplete(RdmaQueuePair&, const RdmaMessageInfo& info) override
    {
        tx.push_back(info);
    }
};

/// Two hosts on one cable, host 1 on system id `sys1`.
struct TwoHosts
{
    Ptr<RdmaHostDirectory> dir = CreateObject<RdmaHostDirectory>();
    Ptr<RdmaHostStack> s[2];
    Ptr<RdmaNetDevice> d[2];

    explicit TwoHosts(uint32_t sys1)
    {
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<Node> n = CreateObject<Node>(i == 0 ? 0 : sys1);
            s[i] = CreateObject<RdmaHostStack>();
            n->AggregateObject(s[i]);
            s[i]->SetHostIndex(i);
            s[i]->SetDirectory(dir);
            d[i] = CreateObject<RdmaNetDevice>();
            d[i]->SetDataRate(DataRate("100Gbps"));
            d[i]->SetAddress(Mac48Address::Allocate());
            n->AddDevice(d[i]);
        }
        Ptr<RdmaChannel> ch = CreateObject<RdmaChannel>();
        ch->SetDelay(MicroSeconds(1));
        d[0]->Attach(ch);
        d[1]->Attach(ch);
        s[0]->AddPort(d[0]);
        s[1]->AddPort(d[1]);
    }
};

/// A frame's model-only fields, rewritten at the sender's port.
struct Rewriter
{
    uint32_t lastFrames{0}; //!< frames carrying message fields
    uint32_t frames{0};     //!< data frames

    void Dequeue(Ptr<RdmaNetDevice>, RdmaQueuedFrame& f)
    {
        if (f.meta.payload == 0 && f.meta.msgBytes == 0)
        {
            return;
        }
        ++frames;
        if (f.meta.msgBytes != 0)
        {
            ++lastFrames;
            f.meta.immTag += 1000; // what the responder reports must be what the frame says
            f.meta.msgUser ^= 0xFF;
        }
    }
};

class FrameCarriesMessageTestCase : public TestCase
{
  public:
    FrameCarriesMessageTestCase()
        : TestCase("The responder learns tag, immediate data, length and post time from the "
                   "frame")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcNone::GetTypeId()));
        TwoHosts net(0);
        Recorder rec;
        Rewriter rw;
        net.d[0]->SetDequeueHandler(MakeCallback(&Rewriter::Dequeue, &rw));
        Ptr<RdmaQueuePair> qp = net.s[0]->GetOrCreateQp(1, 255, 0, &rec);
        Simulator::Schedule(MicroSeconds(3), [&]() {
            net.s[0]->PostWrite(qp, 5500, 7, 0x1234);
            net.s[0]->PostSend(qp, 700, 8, 0x42);
        });
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(rec.rx.size(), 2u, "two messages delivered");
        NS_TEST_ASSERT_MSG_EQ(rec.tx.size(), 2u, "two acknowledged");
        NS_TEST_ASSERT_MSG_EQ(rw.frames, 7u, "6 + 1 data frames");
        NS_TEST_ASSERT_MSG_EQ(rw.lastFrames, 2u, "only a message's last frame carries it");
        NS_TEST_ASSERT_MSG_EQ(rec.rx[0].tag, 1007u, "tag as rewritten in the frame");
        NS_TEST_ASSERT_MSG_EQ(rec.rx[0].user, (0x1234u ^ 0xFFu), "immediate data from the frame");
        NS_TEST_ASSERT_MSG_EQ(rec.rx[0].bytes, 5500u, "length");
        NS_TEST_ASSERT_MSG_EQ(rec.rx[0].start, MicroSeconds(3), "post time");
        NS_TEST_ASSERT_MSG_EQ((int)rec.rx[0].kind, (int)RdmaMsgKind::WRITE, "WRITE");
        NS_TEST_ASSERT_MSG_EQ(rec.rx[1].tag, 1008u, "second message's tag");
        NS_TEST_ASSERT_MSG_EQ((int)rec.rx[1].kind, (int)RdmaMsgKind::SEND, "SEND");
        NS_TEST_ASSERT_MSG_EQ(rec.rx[1].msgId, 1u, "message sequence");
        NS_TEST_ASSERT_MSG_EQ(rec.tx[0].tag, 7u, "the requester keeps its own record");
        NS_TEST_ASSERT_MSG_EQ(rec.tx[0].user, 0x1234u, "and its immediate data");
        Simulator::Destroy();
    }
};

class PassiveOpenTestCase : public TestCase
{
  public:
    PassiveOpenTestCase()
        : TestCase("A QP to a host of another system opens there from its first frame, same "
                   "times as an eager connection")
    {
    }

  private:
    /// run: messages a->b and back; \return completion times (rx then tx, both hosts)
    std::vector<Time> Run(bool distributed, uint32_t& qpsAtB, uint32_t& peerQpnOk)
    {
        TwoHosts net(distributed ? 1 : 0);
        Recorder rec;
        if (distributed)
        {
            net.dir->SetLocalSystem(0);
            net.s[1]->SetListener(&rec);
        }
        Ptr<RdmaQueuePair> qp = net.s[0]->GetOrCreateQp(1, 255, 0, &rec);
        qpsAtB = net.s[1]->GetNQps();
        net.s[0]->PostWrite(qp, 20000, 1, 11);
        net.s[0]->PostWrite(qp, 3000, 2, 22);
        Simulator::Run();
        peerQpnOk = net.s[1]->GetNQps() == 1 &&
                            qp->GetPeerQpn() == net.s[1]->GetQpByIndex(0)->GetQpn() &&
                            net.s[1]->GetQpByIndex(0)->GetPeerQpn() == qp->GetQpn()
                        ? 1
                        : 0;
        std::vector<Time> t;
        for (const auto& i : rec.rx)
        {
            t.push_back(i.end);
            t.push_back(TimeStep(int64_t(i.tag * 1000 + i.user)));
        }
        for (const auto& i : rec.tx)
        {
            t.push_back(i.end);
        }
        Simulator::Destroy();
        return t;
    }

    void DoRun() override
    {
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcNone::GetTypeId()));
        uint32_t qpsEager = 0;
        uint32_t qpsPassive = 0;
        uint32_t okEager = 0;
        uint32_t okPassive = 0;
        std::vector<Time> eager = Run(false, qpsEager, okEager);
        std::vector<Time> passive = Run(true, qpsPassive, okPassive);
        NS_TEST_ASSERT_MSG_EQ(qpsEager, 1u, "eager: both ends at once");
        NS_TEST_ASSERT_MSG_EQ(qpsPassive, 0u, "other system: no end opened there yet");
        NS_TEST_ASSERT_MSG_EQ(okEager, 1u, "eager ends know each other");
        NS_TEST_ASSERT_MSG_EQ(okPassive, 1u, "passive ends learnt each other's QP number");
        NS_TEST_ASSERT_MSG_EQ(eager.size(), 6u, "2 deliveries (time, tag/imm), 2 ACKed");
        NS_TEST_ASSERT_MSG_EQ(passive.size(), eager.size(), "same completions");
        for (size_t i = 0; i < eager.size() && i < passive.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(passive[i], eager[i], "completion " << i);
        }
    }
};

/// System ids of all topology nodes of an installed fabric.
std::vector<uint32_t>
SystemIds(const AstraFabricHelper& f, const Topology& t)
{
    std::vector<uint32_t> s;
    for (uint32_t i = 0; i < t.GetNodeCount(); ++i)
    {
        s.push_back(f.GetSystemId(i));
    }
    return s;
}

/// Cut links counted directly from the system ids.
uint32_t
CountCut(const Topology& t, const std::vector<uint32_t>& s)
{
    uint32_t n = 0;
    for (const auto& l : t.GetLinks())
    {
        n += s[l.a] != s[l.b] ? 1 : 0;
    }
    return n;
}

class PartitionTestCase : public TestCase
{
  public:
    PartitionTestCase()
        : TestCase("Partition policies keep scale-up domains, leaves and pods together; cut "
                   "report")
    {
    }

  private:
    void DoRun() override
    {
        {
            // Switch 4 x Ring 4: four servers; scale-up over 2 systems: servers {0,1} | {2,3}
            auto topo = std::make_shared<Topology>(Topology::FromDimensions(
                {{DimType::SWITCH, 4, 400, 100}, {DimType::RING, 4, 50, 700}}));
            AstraFabricHelper fabric;
            fabric.SetPartition("scale-up", 2);
            fabric.Install(topo);
            const auto sys = SystemIds(fabric, *topo);
            uint32_t bad = 0;
            for (uint32_t g = 0; g < 16; ++g)
            {
                bad += sys[g] == (g / 4) / 2 ? 0 : 1;
                bad += sys[topo->GetAttachSwitch(g, 0)] == sys[g] ? 0 : 1;
            }
            NS_TEST_ASSERT_MSG_EQ(bad, 0u, "a server and its switch on one system, 2 + 2");
            const FabricCut& cut = fabric.GetCut();
            // each of the 4 dim-1 rings (0-1-2-3-0 over servers) crosses at 1-2 and 3-0
            NS_TEST_ASSERT_MSG_EQ(cut.links.size(), 8u, "cut links (closed form)");
            NS_TEST_ASSERT_MSG_EQ(CountCut(*topo, sys), 8u, "cut links (from the system ids)");
            NS_TEST_ASSERT_MSG_EQ(cut.lookahead, NanoSeconds(700), "lookahead = ring latency");
            NS_TEST_ASSERT_MSG_EQ(cut.npusPerSystem[0], 8u, "8 NPUs on system 0");
            NS_TEST_ASSERT_MSG_EQ(cut.npusPerSystem[1], 8u, "8 NPUs on system 1");
            NS_TEST_ASSERT_MSG_EQ(cut.linksPerSystem[1], 8u, "every cut link ends on system 1");
            const std::string rep = fabric.DescribePartition();
            NS_TEST_ASSERT_MSG_NE(rep.find("cut 8 link(s), lookahead 700 ns"),
                                  std::string::npos,
                                  rep);
            NS_TEST_ASSERT_MSG_NE(rep.find("system 1: 8 NPUs, 10 nodes"), std::string::npos, rep);
            Simulator::Destroy();
        }
        {
            // Switch 4 x Switch 4: four servers over 2 systems; each of the 4 scale-out
            // switches has 2 NPUs on either system: they go to system (switch id % 2), 2 + 2,
            // and each cuts the 2 links of the other system's NPUs
            auto topo = std::make_shared<Topology>(Topology::FromDimensions(
                {{DimType::SWITCH, 4, 400, 100}, {DimType::SWITCH, 4, 50, 700}}));
            AstraFabricHelper fabric;
            fabric.SetPartition("scale-up", 2);
            fabric.Install(topo);
            const auto sys = SystemIds(fabric, *topo);
            uint32_t bad = 0;
            uint32_t onOne = 0;
            for (uint32_t j = 0; j < 4; ++j)
            {
                const uint32_t sw = topo->GetAttachSwitch(j, 1); // NPU j of server 0
                bad += sys[sw] == sw % 2 ? 0 : 1;
                onOne += sys[sw];
            }
            NS_TEST_ASSERT_MSG_EQ(bad, 0u, "scale-out switch on system (id % 2)");
            NS_TEST_ASSERT_MSG_EQ(onOne, 2u, "2 of the 4 scale-out switches on system 1");
            NS_TEST_ASSERT_MSG_EQ(fabric.GetCut().links.size(), 8u, "4 switches x 2 cut links");
            NS_TEST_ASSERT_MSG_EQ(CountCut(*topo, sys), 8u, "cut links (from the system ids)");
            Simulator::Destroy();
        }
        {
            // Switch 2 x Switch 3: servers {0,1} | {2}; each scale-out switch has 2 of its 3
            // NPUs on system 0: both stay there, 1 cut link each
            auto topo = std::make_shared<Topology>(Topology::FromDimensions(
                {{DimType::SWITCH, 2, 400, 100}, {DimType::SWITCH, 3, 50, 700}}));
            AstraFabricHelper fabric;
            fabric.SetPartition("scale-up", 2);
            fabric.Install(topo);
            const auto sys = SystemIds(fabric, *topo);
            NS_TEST_ASSERT_MSG_EQ(sys[topo->GetAttachSwitch(0, 1)], 0u, "majority: system 0");
            NS_TEST_ASSERT_MSG_EQ(sys[topo->GetAttachSwitch(1, 1)], 0u, "majority: system 0");
            NS_TEST_ASSERT_MSG_EQ(sys[4], 1u, "server 2 on system 1");
            NS_TEST_ASSERT_MSG_EQ(fabric.GetCut().links.size(), 2u, "one cut link per switch");
            Simulator::Destroy();
        }
        {
            // fat-tree k = 4, pods over 2 systems: pods 0,1 | 2,3; only core links are cut
            auto topo = std::make_shared<Topology>(
                Topology::FromDimensions({FatTreeDimension(4, 50, 100, 1, 300)}));
            AstraFabricHelper fabric;
            fabric.SetPartition("pod", 2);
            fabric.Install(topo);
            const auto sys = SystemIds(fabric, *topo);
            uint32_t bad = 0;
            for (uint32_t g = 0; g < 16; ++g)
            {
                bad += sys[g] == (g / 4) / 2 ? 0 : 1;
            }
            NS_TEST_ASSERT_MSG_EQ(bad, 0u, "pods of 4 hosts, 2 per system");
            uint32_t nonCore = 0;
            for (uint32_t l : fabric.GetCut().links)
            {
                const TopoLink& tl = topo->GetLinks()[l];
                nonCore += topo->GetSwitchTier(tl.a) == SwitchTier::CORE ||
                                   topo->GetSwitchTier(tl.b) == SwitchTier::CORE
                               ? 0
                               : 1;
            }
            NS_TEST_ASSERT_MSG_EQ(nonCore, 0u, "edges and aggregations stay with their pod");
            NS_TEST_ASSERT_MSG_GT(fabric.GetCut().links.size(), 0u, "cores are shared");
            NS_TEST_ASSERT_MSG_EQ(fabric.GetCut().links.size(), CountCut(*topo, sys), "count");
            NS_TEST_ASSERT_MSG_EQ(fabric.GetCut().lookahead, NanoSeconds(300), "uplink latency");
            Simulator::Destroy();
        }
        {
            // Clos of 8 hosts, 2 per leaf, 2 spines: leaf policy over 4 systems, NPU g -> g / 2
            auto topo = std::make_shared<Topology>(
                Topology::FromDimensions({ClosDimension(8, 2, 2, 50, 100, 50, 250)}));
            AstraFabricHelper fabric;
            fabric.SetPartition("leaf", 4);
            fabric.Install(topo);
            const auto sys = SystemIds(fabric, *topo);
            uint32_t bad = 0;
            for (uint32_t g = 0; g < 8; ++g)
            {
                bad += sys[g] == g / 2 ? 0 : 1;
                bad += sys[topo->GetAttachSwitch(g, 0)] == g / 2 ? 0 : 1;
            }
            NS_TEST_ASSERT_MSG_EQ(bad, 0u, "a leaf with its hosts");
            // 8 leaf-spine links; a spine sits with one leaf: 2 spines x 3 other leaves
            NS_TEST_ASSERT_MSG_EQ(fabric.GetCut().links.size(), 6u, "leaf-spine links cut");
            NS_TEST_ASSERT_MSG_EQ(fabric.GetCut().lookahead, NanoSeconds(250), "lookahead");
            Simulator::Destroy();
        }
        {
            // a single ring is one scale-up domain: cannot be split in two
            auto topo =
                std::make_shared<Topology>(Topology::FromDimensions({{DimType::RING, 8, 50, 500}}));
            AstraFabricHelper fabric;
            fabric.SetPartition("scale-up", 2);
            bool thrown = false;
            try
            {
                fabric.Install(topo);
            }
            catch (const InputError& e)
            {
                thrown = std::string(e.what()).find("1 group(s)") != std::string::npos;
            }
            NS_TEST_ASSERT_MSG_EQ(thrown, true, "fewer groups than systems is an input error");
            Simulator::Destroy();
        }
        {
            // ComputeCut of a hand assignment: smallest delay of the cut links
            auto topo =
                std::make_shared<Topology>(Topology::FromDimensions({{DimType::RING, 4, 50, 500}}));
            const FabricCut none = AstraFabricHelper::ComputeCut(*topo, {0, 0, 0, 0}, 1);
            NS_TEST_ASSERT_MSG_EQ(none.links.size(), 0u, "no cut");
            NS_TEST_ASSERT_MSG_EQ(none.lookahead, Time::Max(), "no lookahead bound");
            const FabricCut two = AstraFabricHelper::ComputeCut(*topo, {0, 1, 1, 0}, 2);
            NS_TEST_ASSERT_MSG_EQ(two.links.size(), 2u, "0-1 and 2-3");
            NS_TEST_ASSERT_MSG_EQ(two.lookahead, NanoSeconds(500), "ring latency");
        }
        bool thrown = false;
        try
        {
            AstraFabricHelper().SetPartition("pods", 2);
        }
        catch (const InputError& e)
        {
            thrown = std::string(e.what()).find("scale-up, leaf, pod") != std::string::npos;
        }
        NS_TEST_ASSERT_MSG_EQ(thrown, true, "unknown policy names the known ones");
    }
};

/// What a node of a fabric carries, for comparing a whole and a partial build.
struct NodeShape
{
    uint32_t id{0};                            //!< ns-3 node id
    std::vector<std::string> devices;          //!< per ifIndex: MAC, peer node id
    bool sw{false};                            //!< has an RdmaSwitch
    bool stack{false};                         //!< has an RdmaHostStack
    bool table{false};                         //!< has an RdmaForwardingTable
    bool ghost{false};                         //!< RdmaNodeInfo::IsGhost
    std::vector<std::vector<uint32_t>> routes; //!< ports per destination host
    std::string path; //!< hosts only: the FCT writer's path to host 9 (hops, delay, rate)
};

class PartialBuildTestCase : public TestCase
{
  public:
    PartialBuildTestCase()
        : TestCase("A partial build (one system's part) keeps node ids, device indices, routes "
                   "and random streams of the whole fabric; other systems' nodes carry no "
                   "switch, table or stack; local traffic takes the same time")
    {
    }

  private:
    /// build a 16-NPU Clos (4 leaves of 4, 2 spines; leaf over 2 systems), whole (local <
    /// 0) or system `local` only; run a WRITE from host `a` to host `b`
    std::vector<NodeShape> Build(int local,
                                 uint32_t a,
                                 uint32_t b,
                                 int64_t& streams,
                                 Time& done,
                                 uint32_t& remoteQpOk)
    {
        auto topo = std::make_shared<Topology>(
            Topology::FromDimensions({ClosDimension(16, 4, 2, 50, 100, 50, 250)}));
        AstraFabricHelper fabric;
        fabric.SetPartition("leaf", 2);
        if (local >= 0)
        {
            fabric.GetRdmaHelper().SetLocalSystem(uint32_t(local));
        }
        fabric.Install(topo);
        streams = fabric.AssignStreams(7);
        std::vector<NodeShape> shape;
        const uint32_t hosts = topo->GetNpuCount();
        for (uint32_t i = 0; i < topo->GetNodeCount(); ++i)
        {
            Ptr<Node> n = fabric.GetNode(i);
            NodeShape s;
            s.id = n->GetId();
            for (uint32_t d = 0; d < n->GetNDevices(); ++d)
            {
                Ptr<RdmaNetDevice> dev = DynamicCast<RdmaNetDevice>(n->GetDevice(d));
                Ptr<RdmaNetDevice> peer = dev->GetRdmaChannel()->GetPeer(dev);
                std::ostringstream os;
                os << dev->GetIfIndex() << " " << dev->GetAddress() << " "
                   << peer->GetNode()->GetId() << ":" << peer->GetIfIndex();
                s.devices.push_back(os.str());
            }
            s.sw = n->GetObject<RdmaSwitch>() != nullptr;
            s.stack = n->GetObject<RdmaHostStack>() != nullptr;
            s.table = n->GetObject<RdmaForwardingTable>() != nullptr;
            s.ghost = n->GetObject<RdmaNodeInfo>()->IsGhost();
            for (uint32_t h = 0; h < hosts; ++h)
            {
                s.routes.push_back(RdmaRoutingHelper::GetPorts(n, h));
            }
            Ptr<RdmaNodeInfo> ni = n->GetObject<RdmaNodeInfo>();
            if (ni->IsHost() && ni->GetHostIndex() != 9)
            {
                // from hosts of the other system too (ghosts): the ideal FCT of a message
                // that arrives here from another rank
                RdmaPathInfo p = RdmaPathModel::GetPath(fabric.GetRdmaHelper().GetHostDirectory(),
                                                        ni->GetHostIndex(),
                                                        9,
                                                        uint16_t(49152 + i));
                std::ostringstream os;
                os << p.valid << " " << p.hops << " " << p.propagation.GetNanoSeconds() << " "
                   << p.bottleneckBps;
                s.path = os.str();
            }
            shape.push_back(s);
        }
        Recorder rec;
        Ptr<RdmaHostStack> sa = fabric.GetNode(a)->GetObject<RdmaHostStack>();
        Ptr<RdmaQueuePair> qp = sa->GetOrCreateQp(b, 255, 0, &rec);
        sa->PostWrite(qp, 100000, 1, 11);
        // a QP to a host of the other system: its local end only, set up from the directory
        remoteQpOk = 0;
        if (local >= 0)
        {
            const uint32_t other = fabric.GetSystemId(0) == uint32_t(local) ? hosts - 1 : 0;
            Ptr<RdmaQueuePair> r = sa->GetOrCreateQp(other, 255, 0, &rec);
            remoteQpOk = r && r->GetPeerQpn() == 0 && r->GetRemoteHost() == other ? 1 : 0;
        }
        Simulator::Run();
        done = rec.rx.size() == 1 ? rec.rx[0].end : Time(-1);
        Simulator::Destroy();
        return shape;
    }

    void DoRun() override
    {
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcNone::GetTypeId()));
        // hosts 8 and 9 share leaf 2, on system 1 (leaf policy: NPU g -> g / 8)
        int64_t streamsAll = 0;
        int64_t streamsPart = 0;
        Time doneAll;
        Time donePart;
        uint32_t qpAll = 0;
        uint32_t qpPart = 0;
        const auto all = Build(-1, 8, 9, streamsAll, doneAll, qpAll);
        const auto part = Build(1, 8, 9, streamsPart, donePart, qpPart);
        NS_TEST_ASSERT_MSG_EQ(all.size(), part.size(), "same nodes");
        uint32_t local = 0;
        uint32_t ghosts = 0;
        for (size_t i = 0; i < all.size() && i < part.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(part[i].id, all[i].id, "node id of topology node " << i);
            NS_TEST_ASSERT_MSG_EQ(part[i].devices.size(),
                                  all[i].devices.size(),
                                  "devices of node " << i);
            for (size_t d = 0; d < all[i].devices.size() && d < part[i].devices.size(); ++d)
            {
                NS_TEST_ASSERT_MSG_EQ(part[i].devices[d],
                                      all[i].devices[d],
                                      "node " << i << " device " << d);
            }
            NS_TEST_ASSERT_MSG_EQ(all[i].ghost, false, "whole build: no ghosts");
            NS_TEST_ASSERT_MSG_EQ(part[i].path, all[i].path, "path to host 9 from node " << i);
            NS_TEST_ASSERT_MSG_EQ(all[i].path.empty() || all[i].path[0] == '1',
                                  true,
                                  "a path to host 9 from node " << i << ": " << all[i].path);
            NS_TEST_ASSERT_MSG_EQ(all[i].table, true, "whole build: every node routes");
            if (part[i].ghost)
            {
                ++ghosts;
                NS_TEST_ASSERT_MSG_EQ(part[i].sw || part[i].stack,
                                      false,
                                      "node " << i << " of the other system: no switch or stack");
                // its routes only (the FCT writer's ideal path across it), as in the whole build
                NS_TEST_ASSERT_MSG_EQ(part[i].table, true, "routes of ghost node " << i);
                NS_TEST_ASSERT_MSG_EQ((part[i].routes == all[i].routes),
                                      true,
                                      "routes of ghost node " << i);
            }
            else
            {
                ++local;
                NS_TEST_ASSERT_MSG_EQ(part[i].sw, all[i].sw, "switch of node " << i);
                NS_TEST_ASSERT_MSG_EQ(part[i].stack, all[i].stack, "stack of node " << i);
                NS_TEST_ASSERT_MSG_EQ(part[i].table, true, "table of node " << i);
                NS_TEST_ASSERT_MSG_EQ((part[i].routes == all[i].routes),
                                      true,
                                      "routes of node " << i);
            }
        }
        // system 1: NPUs 8..15 and leaves 2 and 3 (the spines sit with their first
        // neighbour, leaf 0, on system 0)
        NS_TEST_ASSERT_MSG_EQ(local, 10u, "nodes built on system 1");
        NS_TEST_ASSERT_MSG_EQ(ghosts, 12u, "ghosts of system 0's nodes");
        NS_TEST_ASSERT_MSG_EQ(streamsPart, streamsAll, "random streams as in the whole fabric");
        NS_TEST_ASSERT_MSG_EQ(doneAll.IsStrictlyPositive(), true, "the WRITE completes");
        NS_TEST_ASSERT_MSG_EQ(donePart, doneAll, "same completion time on the local part");
        NS_TEST_ASSERT_MSG_EQ(qpPart, 1u, "QP to a host of the other system: local end only");
    }
};

class MpiAvailabilityTestCase : public TestCase
{
  public:
    MpiAvailabilityTestCase()
        : TestCase("Without ns-3's mpi module, asking for MPI is an input error; with it, frames "
                   "cross ranks whole")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(Distributed::GetRank(), 0u, "not enabled: rank 0");
        NS_TEST_ASSERT_MSG_EQ(Distributed::GetSize(), 1u, "not enabled: one rank");
        NS_TEST_ASSERT_MSG_EQ(Distributed::Gather("x").size(), 1u, "gather of one");
        NS_TEST_ASSERT_MSG_EQ(RdmaHelper::HasRemoteChannel(), Distributed::IsAvailable(), "same");
        if (!Distributed::IsAvailable())
        {
            bool thrown = false;
            try
            {
                int argc = 0;
                char** argv = nullptr;
                Distributed::Enable(&argc, &argv);
            }
            catch (const InputError& e)
            {
                thrown = std::string(e.what()).find("no MPI") != std::string::npos;
            }
            NS_TEST_ASSERT_MSG_EQ(thrown, true, "Enable says the build has no MPI");
            thrown = false;
            try
            {
                RdmaHelper().SetDistributed(0);
            }
            catch (const InputError& e)
            {
                thrown = std::string(e.what()).find("no MPI") != std::string::npos;
            }
            NS_TEST_ASSERT_MSG_EQ(thrown, true, "so does a distributed fabric");
        }
#ifdef NS3_MPI
        RdmaQueuedFrame f;
        f.meta.opcode = RoceOpcode::WRITE_LAST;
        f.meta.psn = 0x123456;
        f.meta.immTag = 77;
        f.meta.msgPostTs = 123456789;
        f.meta.intHops = 2;
        f.meta.intStack[1].qlenBytes = 4321;
        f.meta.frameBytes = 1100;
        // a batch of two frames, the second with bytes, as a window's batch carries them
        std::vector<uint8_t> batch;
        RdmaRemoteChannel::Encode(f, 0xABCDEF0123456789ULL, batch);
        const std::size_t first = batch.size();
        RdmaQueuedFrame h = f;
        h.meta.psn = 0x654321;
        h.packet = Create<Packet>(1100);
        RdmaRemoteChannel::Encode(h, 7, batch);
        const uint8_t* end = batch.data() + batch.size();
        RdmaQueuedFrame g;
        g.meta.inPort = 9;
        uint64_t tie = 0;
        const uint8_t* next = RdmaRemoteChannel::Decode(batch.data(), end, g, tie);
        NS_TEST_ASSERT_MSG_EQ(next, batch.data() + first, "decoded up to the second frame");
        NS_TEST_ASSERT_MSG_EQ(tie, 0xABCDEF0123456789ULL, "the node-order tie-break travels");
        NS_TEST_ASSERT_MSG_EQ(g.meta.psn, 0x123456u, "PSN");
        NS_TEST_ASSERT_MSG_EQ(g.meta.immTag, 77u, "tag");
        NS_TEST_ASSERT_MSG_EQ(g.meta.msgPostTs, 123456789, "post time");
        NS_TEST_ASSERT_MSG_EQ(g.meta.intStack[1].qlenBytes, 4321u, "INT");
        NS_TEST_ASSERT_MSG_EQ(g.meta.inPort, 0u, "no ingress port yet");
        NS_TEST_ASSERT_MSG_EQ(g.packet, nullptr, "lazy frame stays lazy");
        next = RdmaRemoteChannel::Decode(next, end, g, tie);
        NS_TEST_ASSERT_MSG_EQ(next, end, "decoded with bytes, up to the end of the batch");
        NS_TEST_ASSERT_MSG_EQ(tie, 7u, "its own tie-break");
        NS_TEST_ASSERT_MSG_EQ(g.meta.psn, 0x654321u, "second PSN");
        NS_TEST_ASSERT_MSG_EQ(g.packet ? g.packet->GetSize() : 0, 1100u, "frame bytes");
        NS_TEST_ASSERT_MSG_EQ(RdmaRemoteChannel::Decode(batch.data() + first, end - 1, g, tie),
                              nullptr,
                              "a truncated frame");
        NS_TEST_ASSERT_MSG_EQ(RdmaRemoteChannel::Decode(batch.data(), batch.data() + 8, g, tie),
                              nullptr,
                              "a truncated meta");
        const std::vector<uint8_t> zeros(500, 0);
        NS_TEST_ASSERT_MSG_EQ(RdmaRemoteChannel::Decode(zeros.data(), zeros.data() + 500, g, tie),
                              nullptr,
                              "not a frame");
#endif
    }
};

class SystemAcrossRanksTestCase : public TestCase
{
  public:
    SystemAcrossRanksTestCase()
        : TestCase("System layer across ranks: collective keys map to local numbers, records "
                   "merge, NPU results travel as text")
    {
    }

  private:
    void DoRun() override
    {
        auto topo =
            std::make_shared<Topology>(Topology::FromDimensions({{DimType::RING, 8, 50, 500}}));
        // an 8-NPU all-reduce, single process: results to carry over
        AstraSimScenario sc;
        sc.SetTopology(topo);
        sc.SetSystemParams(SystemParams());
        sc.SetWorkloads(MakeCollectiveWorkload(8, CollType::ALL_REDUCE, 1 << 20));
        sc.SetBackend("analytical");
        sc.Build();
        NS_TEST_ASSERT_MSG_EQ(sc.Run(), 0, "run");
        Ptr<AstraSimApplication> a3 = sc.GetApps()[3];
        const std::string text = a3->ExportResult();
        Ptr<AstraSimApplication> copy = CreateObject<AstraSimApplication>();
        copy->Setup(3, sc.GetContext(), a3->GetGraph());
        NS_TEST_ASSERT_MSG_EQ(copy->IsFinished(), false, "fresh copy");
        copy->ImportResult(text);
        NS_TEST_ASSERT_MSG_EQ(copy->IsFinished(), true, "finished travels");
        NS_TEST_ASSERT_MSG_EQ(copy->GetStats().finish, a3->GetStats().finish, "finish time");
        NS_TEST_ASSERT_MSG_EQ(copy->GetStats().exposedComm, a3->GetStats().exposedComm, "comm");
        NS_TEST_ASSERT_MSG_EQ(copy->GetStats().nodes, a3->GetStats().nodes, "nodes");
        NS_TEST_ASSERT_MSG_EQ(copy->GetTimeline().size(), a3->GetTimeline().size(), "timeline");
        NS_TEST_ASSERT_MSG_GT(copy->GetTimeline().size(), 0u, "a timeline at all");
        NS_TEST_ASSERT_MSG_EQ(copy->GetTimeline().back().end,
                              a3->GetTimeline().back().end,
                              "timeline event end");
        bool thrown = false;
        try
        {
            Ptr<AstraSimApplication> other = CreateObject<AstraSimApplication>();
            other->Setup(4, sc.GetContext(), a3->GetGraph());
            other->ImportResult(text);
        }
        catch (const std::runtime_error&)
        {
            thrown = true;
        }
        NS_TEST_ASSERT_MSG_EQ(thrown, true, "another NPU's result is refused");
        sc.Destroy();

        // two ranks' records of collectives (keys 5 and 7) merge into one table
        Ptr<SystemContext> ctx = CreateObject<SystemContext>();
        ctx->Setup(NetworkBackendFactory::Create("analytical", topo, false),
                   topo->GetDimensions(),
                   SystemParams());
        // key type bytes members start end started finished firstTie firstSeq n issuers...;
        // keys 7 and 9 start at 20 ns: 7's first issue ran earlier in that time step
        // (tie-break 200 < 300) though its issuer (NPU 6) is the larger
        const std::string rank0 =
            "5 0 1024 8 100 900 4 4 0 0 4 0 1 2 3\nar\n\nALL_REDUCE@dim0:ring\n"
            "9 0 64 2 20 30 1 1 300 1 1 1\nlate\ng\nx\n";
        const std::string rank1 =
            "7 0 64 2 20 30 1 1 200 5 1 6\nsmall\ng\nx\n"
            "5 0 1024 8 50 1000 4 4 0 0 4 4 5 6 7\nar\n\nALL_REDUCE@dim0:ring\n";
        ctx->MergeRecords({rank0, rank1});
        const auto& recs = ctx->GetRecords();
        NS_TEST_ASSERT_MSG_EQ(recs.size(), 3u, "three collectives");
        NS_TEST_ASSERT_MSG_EQ(recs[0].key, 7u, "numbered by start: key 7 (20) first");
        NS_TEST_ASSERT_MSG_EQ(recs[1].key, 9u, "then key 9 (20, a later event of that time)");
        NS_TEST_ASSERT_MSG_EQ(recs[0].group, "g", "group");
        NS_TEST_ASSERT_MSG_EQ(recs[2].start, TimeStep(50), "earliest start over ranks");
        NS_TEST_ASSERT_MSG_EQ(recs[2].end, TimeStep(1000), "latest end over ranks");
        NS_TEST_ASSERT_MSG_EQ(recs[2].started, 8u, "issuers add up");
        NS_TEST_ASSERT_MSG_EQ(recs[2].finished, 8u, "finishers add up");
        NS_TEST_ASSERT_MSG_EQ(recs[2].issuers.size(), 8u, "issuer list");
        NS_TEST_ASSERT_MSG_EQ(recs[2].placement, "ALL_REDUCE@dim0:ring", "placement");

        // keys: a message from another rank gets this rank's number for its collective
        std::vector<bool> local(8, false);
        for (uint32_t i = 0; i < 4; ++i)
        {
            local[i] = true;
        }
        Ptr<SystemContext> c2 = CreateObject<SystemContext>();
        c2->Setup(NetworkBackendFactory::Create("analytical", topo, false),
                  topo->GetDimensions(),
                  SystemParams());
        c2->SetLocalNpus(local);
        NS_TEST_ASSERT_MSG_EQ(c2->IsLocalNpu(3), true, "NPU 3 here");
        NS_TEST_ASSERT_MSG_EQ(c2->IsLocalNpu(4), false, "NPU 4 elsewhere");
        const uint64_t low = (uint64_t(1) << 40) - 1;
        NetMessage m;
        m.tclass = TrafficClass::COLLECTIVE;
        m.tag = (uint64_t(9) << 40) | 12345; // the sender's number 9
        c2->ImportKey(m, 0xABCDEF);
        NS_TEST_ASSERT_MSG_EQ((m.tag >> 40), 0u, "first collective met here: number 0");
        NS_TEST_ASSERT_MSG_EQ((m.tag & low), 12345u, "chunk, phase and step kept");
        m.tag = (uint64_t(3) << 40) | 7;
        c2->ImportKey(m, 0x123);
        NS_TEST_ASSERT_MSG_EQ((m.tag >> 40), 1u, "another key: number 1");
        m.tag = (uint64_t(77) << 40) | 7;
        c2->ImportKey(m, 0xABCDEF);
        NS_TEST_ASSERT_MSG_EQ((m.tag >> 40), 0u, "the first key again: number 0");
        NS_TEST_ASSERT_MSG_EQ(c2->ExportKey(m), 0xABCDEFu, "and back to its key");
        m.tclass = TrafficClass::POINT_TO_POINT;
        NS_TEST_ASSERT_MSG_EQ(c2->ExportKey(m), 0u, "SEND/RECV tags need no key");
        c2->Dispose();
        ctx->Dispose();
        Simulator::Destroy();
    }
};

/// An 8-NPU workload with names the report must carry (quotes, a newline, spaces): per NPU
/// a COMP, an all-reduce over all, an all-gather in its half's group and a second COMP.
std::vector<std::shared_ptr<const WorkloadGraph>>
LabelledWorkload()
{
    std::vector<std::shared_ptr<const WorkloadGraph>> graphs;
    for (uint32_t r = 0; r < 8; ++r)
    {
        auto g = std::make_shared<WorkloadGraph>();
        g->file = "labelled." + std::to_string(r) + ".et";
        g->rank = r;
        WorkloadNode a;
        a.id = 10;
        a.name = "fwd \"attn\"\nlayer " + std::to_string(r);
        a.kind = NodeKind::COMP;
        a.durationNs = 1000 + 100 * r;
        WorkloadNode b;
        b.id = 20;
        b.name = "grad all-reduce";
        b.kind = NodeKind::COMM_COLL;
        b.collType = CollType::ALL_REDUCE;
        b.commSize = 1 << 20;
        b.dataDeps = {10};
        WorkloadNode c;
        c.id = 30;
        c.name = "half gather";
        c.kind = NodeKind::COMM_COLL;
        c.collType = CollType::ALL_GATHER;
        c.commSize = 4096;
        c.pgName = r < 4 ? "front" : "back";
        c.dataDeps = {20};
        WorkloadNode d;
        d.id = 40;
        d.name = "bwd";
        d.kind = NodeKind::COMP;
        d.durationNs = 500;
        d.dataDeps = {30};
        g->nodes = {a, b, c, d};
        g->BuildIndex();
        graphs.push_back(g);
    }
    return graphs;
}

/// \return the content of a file ("" if none) \param path the file
std::string
ReadAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class RankBuildsOwnNpusTestCase : public TestCase
{
  public:
    RankBuildsOwnNpusTestCase()
        : TestCase("A rank installs applications for its own NPUs only and releases the other "
                   "NPUs' workloads after checking every trace; a bad trace of another rank's "
                   "NPU is still an input error there")
    {
    }

  private:
    void DoRun() override
    {
        auto topo =
            std::make_shared<Topology>(Topology::FromDimensions({{DimType::RING, 8, 50, 500}}));
        // rank 1 of two: NPUs 4..7
        std::vector<bool> local(8, false);
        for (uint32_t i = 4; i < 8; ++i)
        {
            local[i] = true;
        }
        auto setup = [&topo]() {
            Ptr<SystemContext> ctx = CreateObject<SystemContext>();
            ctx->Setup(NetworkBackendFactory::Create("analytical", topo, false),
                       topo->GetDimensions(),
                       SystemParams());
            ctx->SetCommGroups({{"front", {0, 1, 2, 3}}, {"back", {4, 5, 6, 7}}});
            return ctx;
        };
        {
            auto graphs = LabelledWorkload();
            std::vector<std::weak_ptr<const WorkloadGraph>> watch(graphs.begin(), graphs.end());
            Ptr<SystemContext> ctx = setup();
            NodeContainer nodes;
            nodes.Create(8);
            AstraSimHelper helper;
            helper.SetContext(ctx);
            helper.SetLocalNpus(local);
            helper.SetWorkloads(graphs);
            graphs.clear(); // the helper's references only, as the scenario leaves them
            ApplicationContainer apps = helper.Install(nodes);
            NS_TEST_ASSERT_MSG_EQ(apps.GetN(), 4u, "applications of the rank's 4 NPUs only");
            for (uint32_t i = 0; i < apps.GetN(); ++i)
            {
                Ptr<AstraSimApplication> a = DynamicCast<AstraSimApplication>(apps.Get(i));
                NS_TEST_ASSERT_MSG_EQ(a->GetNpuId(), 4 + i, "local NPUs in order");
                NS_TEST_ASSERT_MSG_EQ((a->GetGraph() == nullptr), false, "with its workload");
            }
            for (uint32_t i = 0; i < 8; ++i)
            {
                NS_TEST_ASSERT_MSG_EQ(nodes.Get(i)->GetNApplications(),
                                      local[i] ? 1u : 0u,
                                      "applications on node " << i);
                NS_TEST_ASSERT_MSG_EQ(watch[i].expired(),
                                      !local[i],
                                      "NPU " << i << "'s workload "
                                             << (local[i] ? "kept" : "released"));
            }
            apps = ApplicationContainer();
            ctx->Dispose();
            Simulator::Destroy();
        }
        {
            // a trace of NPU 1 (rank 0's) names an unknown group: rank 1 fails the same way
            auto graphs = LabelledWorkload();
            auto bad = std::make_shared<WorkloadGraph>(*graphs[1]);
            bad->nodes[2].pgName = "nowhere";
            bad->BuildIndex();
            graphs[1] = bad;
            Ptr<SystemContext> ctx = setup();
            NodeContainer nodes;
            nodes.Create(8);
            AstraSimHelper helper;
            helper.SetContext(ctx);
            helper.SetLocalNpus(local);
            helper.SetWorkloads(graphs);
            std::string what;
            try
            {
                helper.Install(nodes);
            }
            catch (const std::exception& e)
            {
                what = e.what();
            }
            NS_TEST_ASSERT_MSG_EQ((what.find("nowhere") != std::string::npos),
                                  true,
                                  "the remote NPU's unknown group is reported: '" << what << "'");
            for (uint32_t i = 0; i < 8; ++i)
            {
                NS_TEST_ASSERT_MSG_EQ(nodes.Get(i)->GetNApplications(), 0u, "nothing installed");
            }
            ctx->Dispose();
            Simulator::Destroy();
        }
    }
};

class RankZeroReportsTestCase : public TestCase
{
  public:
    RankZeroReportsTestCase()
        : TestCase("Rank 0's reports from its own applications and result holders of the other "
                   "ranks' NPUs (no workload graph) are the single process's bytes")
    {
    }

  private:
    void DoRun() override
    {
        auto topo =
            std::make_shared<Topology>(Topology::FromDimensions({{DimType::RING, 8, 50, 500}}));
        AstraSimScenario sc;
        sc.SetTopology(topo);
        sc.SetSystemParams(SystemParams());
        sc.SetWorkloads(LabelledWorkload());
        sc.SetCommGroups({{"front", {0, 1, 2, 3}}, {"back", {4, 5, 6, 7}}});
        sc.SetBackend("analytical");
        sc.Build();
        NS_TEST_ASSERT_MSG_EQ(sc.Run(), 0, "run");
        const auto& apps = sc.GetApps();
        NS_TEST_ASSERT_MSG_EQ(apps.size(), 8u, "a single process: every NPU");
        // rank 0 of two: its NPUs 0..3 ran here, 4..7 arrive as text (ExportResult)
        std::vector<Ptr<AstraSimApplication>> rank0;
        for (uint32_t i = 0; i < 8; ++i)
        {
            if (i < 4)
            {
                rank0.push_back(apps[i]);
                continue;
            }
            Ptr<AstraSimApplication> h = AstraSimApplication::FromResult(apps[i]->ExportResult());
            NS_TEST_ASSERT_MSG_EQ(h->GetNpuId(), i, "holder's NPU");
            NS_TEST_ASSERT_MSG_EQ((h->GetGraph() == nullptr), true, "a holder has no workload");
            NS_TEST_ASSERT_MSG_EQ(h->GetTimeline().size(), 4u, "its timeline");
            const TimelineLabel l = h->LabelOf(30);
            NS_TEST_ASSERT_MSG_EQ((l.name != nullptr), true, "label of node 30");
            if (l.name)
            {
                NS_TEST_ASSERT_MSG_EQ(*l.name, "half gather", "name");
                NS_TEST_ASSERT_MSG_EQ(*l.pgName, "back", "group");
                NS_TEST_ASSERT_MSG_EQ(l.commSize, 4096u, "bytes");
                NS_TEST_ASSERT_MSG_EQ((l.collType == CollType::ALL_GATHER), true, "type");
            }
            NS_TEST_ASSERT_MSG_EQ((h->LabelOf(99).name == nullptr), true, "no label of node 99");
            rank0.push_back(h);
        }
        char tmpl[] = "/tmp/astra-rank0-reports-XXXXXX";
        const char* d = mkdtemp(tmpl);
        NS_TEST_ASSERT_MSG_EQ((d != nullptr), true, "temporary folder");
        const std::string dir = d ? d : "/tmp";
        AstraReport single(sc.GetContext(), apps);
        AstraReport merged(sc.GetContext(), rank0);
        for (const std::string f : {"npus.csv", "collectives.csv", "timeline.json"})
        {
            const std::string a = dir + "/single-" + f;
            const std::string b = dir + "/rank0-" + f;
            if (f == "npus.csv")
            {
                single.WriteNpuCsv(a);
                merged.WriteNpuCsv(b);
            }
            else if (f == "collectives.csv")
            {
                single.WriteCollectiveCsv(a);
                merged.WriteCollectiveCsv(b);
            }
            else
            {
                single.WriteChromeTrace(a);
                merged.WriteChromeTrace(b);
            }
            const std::string sa = ReadAll(a);
            NS_TEST_ASSERT_MSG_GT(sa.size(), 100u, f << " written");
            NS_TEST_ASSERT_MSG_EQ(sa, ReadAll(b), f << ": rank 0's is the single process's");
            std::remove(a.c_str());
            std::remove(b.c_str());
        }
        rmdir(dir.c_str());
        // the names and groups of the other ranks' nodes are in the timeline
        std::ostringstream tl;
        {
            merged.WriteChromeTrace(dir + ".json");
            tl << ReadAll(dir + ".json");
            std::remove((dir + ".json").c_str());
        }
        NS_TEST_ASSERT_MSG_EQ((tl.str().find("fwd \\\"attn\\\" layer 7") != std::string::npos),
                              true,
                              "NPU 7's node name (escaped)");
        NS_TEST_ASSERT_MSG_EQ((tl.str().find("\"group\":\"back\"") != std::string::npos),
                              true,
                              "a group of the other rank's NPUs");
        std::ostringstream lines1;
        std::ostringstream lines2;
        single.PrintNpuLines(lines1);
        single.PrintSummary(lines1);
        merged.PrintNpuLines(lines2);
        merged.PrintSummary(lines2);
        NS_TEST_ASSERT_MSG_EQ(lines2.str(), lines1.str(), "stdout's lines and summary");
        // a truncated text is refused
        const std::string text = apps[5]->ExportResult();
        bool thrown = false;
        try
        {
            AstraSimApplication::FromResult(text.substr(0, text.size() - 20));
        }
        catch (const std::runtime_error&)
        {
            thrown = true;
        }
        NS_TEST_ASSERT_MSG_EQ(thrown, true, "a truncated result is refused");
        sc.Destroy();
    }
};

class DistributedTestSuite : public TestSuite
{
  public:
    DistributedTestSuite()
        : TestSuite("astra-sim-distributed", UNIT)
    {
        AddTestCase(new FrameCarriesMessageTestCase, TestCase::QUICK);
        AddTestCase(new PassiveOpenTestCase, TestCase::QUICK);
        AddTestCase(new PartitionTestCase, TestCase::QUICK);
        AddTestCase(new PartialBuildTestCase, TestCase::QUICK);
        AddTestCase(new MpiAvailabilityTestCase, TestCase::QUICK);
        AddTestCase(new SystemAcrossRanksTestCase, TestCase::QUICK);
        AddTestCase(new RankBuildsOwnNpusTestCase, TestCase::QUICK);
        AddTestCase(new RankZeroReportsTestCase, TestCase::QUICK);
    }
};

DistributedTestSuite g_distributedTestSuite;

} // namespace
