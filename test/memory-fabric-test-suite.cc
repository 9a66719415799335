/*
 * Suite astra-sim-memory-fabric: disaggregated memory nodes on the network.
 * The memory device's schedule, placement and routes on the topology, and
 * the time of memory traffic on the RoCE fabric and the flow-level backend
 * against closed forms: one READ / WRITE of a PER_NPU node (latency + bytes /
 * min(memory, link) + wire time, and the exact bytes on the wire), k
 * requests pipelining from a pool node, two NPUs sharing a PER_NODE node, a
 * pool behind an oversubscribed link, an all-reduce sharing a link with
 * memory traffic, and the reference traces with memory nodes on all three
 * backends.
 */

#include "memory-test-util.h"

#include "ns3/double.h"
#include "ns3/flow-backend.h"
#include "ns3/memory-device.h"
#include "ns3/rdma-congestion-ops.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/roce-backend.h"
#include "ns3/roce-header.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"
#include "ns3/workload-loader.h"

#include <cmath>
#include <dirent.h>
#include <map>
#include <set>

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::memtest;

namespace
{

constexpr double kLinkGBps = 50;                            // topology GB/s (2^30 B)
const double kLinkBytesPerNs = GBpsToBytesPerNs(kLinkGBps); // 53.687 B/ns
constexpr double kLinkLatNs = 500;

/// Serialization time (ns) of a frame of \p frameBytes (plus preamble and IFG) on the links.
double
SerNs(uint32_t frameBytes)
{
    return double(frameBytes + kEthernetWireOverhead) / kLinkBytesPerNs;
}

/// Frame bytes of a RoCE frame with this opcode and payload.
uint32_t
FrameBytes(uint8_t opcode, uint32_t payload, uint32_t rethLen = 0)
{
    RdmaMeta m;
    m.kind = RdmaFrameKind::ROCE;
    m.opcode = opcode;
    m.payload = payload;
    m.rethLen = rethLen;
    return RoceFrame::GetFrameBytes(m);
}

/// Response frames of a READ of \p bytes with \p mtu payload per packet.
std::vector<uint32_t>
ReadResponseFrames(uint64_t bytes, uint32_t mtu)
{
    std::vector<uint32_t> f;
    const uint64_t n = bytes == 0 ? 1 : (bytes + mtu - 1) / mtu;
    for (uint64_t i = 0; i < n; ++i)
    {
        const uint32_t pay = uint32_t(std::min<uint64_t>(mtu, bytes - i * mtu));
        const uint8_t op = n == 1 ? RoceOpcode::READ_RESP_ONLY
                                  : (i == 0 ? RoceOpcode::READ_RESP_FIRST
                                            : (i + 1 == n ? RoceOpcode::READ_RESP_LAST
                                                          : RoceOpcode::READ_RESP_MIDDLE));
        f.push_back(FrameBytes(op, pay));
    }
    return f;
}

std::shared_ptr<const Topology>
SwitchTopo(uint32_t n)
{
    return std::make_shared<Topology>(
        Topology::FromDimensions({DimensionSpec{DimType::SWITCH, n, kLinkGBps, kLinkLatNs}}));
}

SystemParams
QuietParams()
{
    SystemParams p;
    p.endpointDelayNs = 0;
    return p;
}

} // namespace

/// MemoryDevice: channels, pipelined latency, serialised data path, writes; exact to the ps.
class MemoryDeviceTestCase : public TestCase
{
  public:
    MemoryDeviceTestCase()
        : TestCase(
              "MemoryDevice schedule: L + (i+1)(o + s over bw) with channels, (i+1)(L + o + s over "
              "bw) with one; writes")
    {
    }

  private:
    void DoRun() override
    {
        // 10 GB/s = 100 ps per byte; 10000 B = 1000 ns; L = 1000 ns; o = 100 ns
        auto make = [](uint32_t channels) {
            Ptr<MemoryDevice> d = CreateObject<MemoryDevice>();
            d->SetAttribute("Bandwidth", DoubleValue(10));
            d->SetAttribute("Latency", TimeValue(NanoSeconds(1000)));
            d->SetAttribute("RequestOverhead", TimeValue(NanoSeconds(100)));
            d->SetAttribute("Channels", UintegerValue(channels));
            return d;
        };
        Ptr<MemoryDevice> four = make(4);
        Ptr<MemoryDevice> one = make(1);
        std::vector<int64_t> ends4;
        std::vector<int64_t> ends1;
        int64_t writeDone0 = -1;
        int64_t writeDone5 = -1;
        MemoryDevice::Grant wg;
        Ptr<MemoryDevice> w = make(2);
        Simulator::Schedule(Time(0), [&]() {
            for (int i = 0; i < 5; ++i)
            {
                ends4.push_back(four->Read(10000).dataEnd.GetNanoSeconds());
            }
            for (int i = 0; i < 3; ++i)
            {
                ends1.push_back(one->Read(10000).dataEnd.GetNanoSeconds());
            }
            wg = w->WriteStart(10000);
            writeDone0 = w->WriteDone(wg).GetNanoSeconds();
        });
        Simulator::Schedule(NanoSeconds(5000),
                            [&]() { writeDone5 = w->WriteDone(wg).GetNanoSeconds(); });
        Simulator::Run();
        Simulator::Destroy();
        for (int i = 0; i < 4; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(ends4[i], 1000 + (i + 1) * 1100, "read " << i << ", 4 channels");
        }
        // the fifth waits for the first channel (free at 2100), then its latency; the data
        // path is busy until 5400
        NS_TEST_EXPECT_MSG_EQ(ends4[4], 5400 + 1100, "fifth read queued for a channel");
        NS_TEST_EXPECT_MSG_EQ(four->GetQueueingTime().GetNanoSeconds(), 2100, "queueing");
        NS_TEST_EXPECT_MSG_EQ(four->GetBusyTime().GetNanoSeconds(), 5 * 1100, "busy time");
        NS_TEST_EXPECT_MSG_EQ(four->GetBytesRead(), 50000u, "bytes read");
        for (int i = 0; i < 3; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(ends1[i], (i + 1) * 2100, "read " << i << ", one channel");
        }
        NS_TEST_EXPECT_MSG_EQ(wg.dataEnd.GetNanoSeconds(), 1100, "write data path");
        NS_TEST_EXPECT_MSG_EQ(writeDone0, 1100 + 1000, "written: data path end + latency");
        NS_TEST_EXPECT_MSG_EQ(writeDone5, 5000 + 1000, "written: last byte + latency");
        Ptr<MemoryDevice> bad = CreateObject<MemoryDevice>();
        NS_TEST_EXPECT_MSG_NE(bad->Validate(), "", "a device without bandwidth is invalid");
    }
};

/// Topology::PlaceMemory, AssignMemory and the routes to and from memory nodes.
class PlacementTestCase : public TestCase
{
  public:
    PlacementTestCase()
        : TestCase("placement: per NPU, per node, pools on spines, leaves, a memory leaf; routes; "
                   "errors")
    {
    }

  private:
    void DoRun() override
    {
        // 8 NPUs, 4 per leaf, 2 spines: NPUs 0-7, leaves 8-9, spines 10-11
        const DimensionSpec clos = ClosDimension(8, 4, 2, kLinkGBps, kLinkLatNs, kLinkGBps, 300);
        {
            Topology t = Topology::FromDimensions({clos});
            MemoryPlacement p;
            p.sharing = MemorySharing::PER_NPU;
            const auto mem = t.PlaceMemory(p);
            NS_TEST_ASSERT_MSG_EQ(mem.size(), 8u, "a node per NPU");
            for (uint32_t i = 0; i < 8; ++i)
            {
                NS_TEST_EXPECT_MSG_EQ((t.GetNodeKind(mem[i]) == TopoNodeKind::MEMORY),
                                      true,
                                      "kind");
                NS_TEST_EXPECT_MSG_EQ(t.GetNpuMemory(i).size(), 1u, "one node per NPU");
                NS_TEST_EXPECT_MSG_EQ(t.GetNpuMemory(i)[0], mem[i], "its own node");
                NS_TEST_EXPECT_MSG_EQ(t.Route(i, mem[i]).size(), 1u, "linked to the NPU");
            }
            // NPU 0 to NPU 5's node: leaf, spine, leaf, NPU 5 (relays: two links), memory
            NS_TEST_EXPECT_MSG_EQ(t.Route(0, mem[5]).size(), 5u, "through the fabric");
            NS_TEST_EXPECT_MSG_EQ(t.Route(mem[5], 0).size(), 5u, "and back");
            bool threw = false;
            try
            {
                t.PlaceMemory(p);
            }
            catch (const std::invalid_argument& e)
            {
                threw = std::string(e.what()).find("already") != std::string::npos;
            }
            NS_TEST_EXPECT_MSG_EQ(threw, true, "one placement per topology");
        }
        {
            Topology t = Topology::FromDimensions({clos});
            MemoryPlacement p;
            p.sharing = MemorySharing::PER_NODE;
            p.npusPerNode = 4;
            const auto mem = t.PlaceMemory(p);
            NS_TEST_ASSERT_MSG_EQ(mem.size(), 2u, "a node per 4 NPUs");
            NS_TEST_EXPECT_MSG_EQ((t.GetMemoryPlacement().attach == MemoryAttach::LEAF),
                                  true,
                                  "default");
            for (uint32_t i = 0; i < 8; ++i)
            {
                NS_TEST_EXPECT_MSG_EQ(t.GetNpuMemory(i)[0], mem[i / 4], "NPU " << i);
                NS_TEST_EXPECT_MSG_EQ(t.Route(i, mem[i / 4]).size(), 2u, "NPU, leaf, memory");
            }
            const TopoLink& l = t.GetLinks()[t.GetNodeLinks(mem[1]).front()];
            NS_TEST_EXPECT_MSG_EQ(l.b, t.GetAttachSwitch(4, 0), "on NPU 4's leaf");
        }
        {
            Topology t = Topology::FromDimensions({clos});
            MemoryPlacement p; // POOL
            p.pools = 2;
            const auto mem = t.PlaceMemory(p);
            NS_TEST_EXPECT_MSG_EQ((t.GetMemoryPlacement().attach == MemoryAttach::SPINE),
                                  true,
                                  "default");
            const auto spines = t.GetDimensionSwitches(0, SwitchTier::SPINE);
            for (uint32_t k = 0; k < 2; ++k)
            {
                const TopoLink& l = t.GetLinks()[t.GetNodeLinks(mem[k]).front()];
                NS_TEST_EXPECT_MSG_EQ(l.b, spines[k], "pool " << k << " on spine " << k);
            }
            for (uint32_t i = 0; i < 8; ++i)
            {
                NS_TEST_EXPECT_MSG_EQ(t.GetNpuMemory(i).size(), 2u, "every NPU uses both");
                NS_TEST_EXPECT_MSG_EQ(t.Route(i, mem[1]).size(), 3u, "leaf, spine, pool");
                NS_TEST_EXPECT_MSG_EQ(t.Route(mem[0], i).size(), 3u, "and back");
            }
        }
        {
            Topology t = Topology::FromDimensions({clos});
            MemoryPlacement p;
            p.pools = 3;
            p.attach = MemoryAttach::MEMORY_LEAF;
            p.uplinkGBps = 25;
            const uint32_t before = t.GetNodeCount();
            const auto mem = t.PlaceMemory(p);
            NS_TEST_EXPECT_MSG_EQ((t.GetNodeKind(before) == TopoNodeKind::SWITCH),
                                  true,
                                  "memory leaf");
            NS_TEST_EXPECT_MSG_EQ(t.GetNodeLinks(before).size(), 2u + 3u, "2 spines + 3 pools");
            NS_TEST_EXPECT_MSG_EQ_TOL(t.GetLinks()[t.GetNodeLinks(before)[0]].bytesPerNs,
                                      GBpsToBytesPerNs(25),
                                      1e-9,
                                      "uplink rate");
            NS_TEST_EXPECT_MSG_EQ(t.Route(6, mem[2]).size(), 4u, "leaf, spine, memory leaf, pool");
        }
        // errors
        auto fails = [&](const std::vector<DimensionSpec>& dims,
                         MemoryPlacement p,
                         const std::string& what) {
            Topology t = Topology::FromDimensions(dims);
            try
            {
                t.PlaceMemory(p);
            }
            catch (const std::invalid_argument& e)
            {
                NS_TEST_EXPECT_MSG_NE(std::string(e.what()).find(what),
                                      std::string::npos,
                                      e.what());
                return;
            }
            NS_TEST_EXPECT_MSG_EQ(true, false, "no error for: " << what);
        };
        MemoryPlacement leafOnRing;
        leafOnRing.sharing = MemorySharing::PER_NPU;
        leafOnRing.attach = MemoryAttach::LEAF;
        fails({DimensionSpec{DimType::RING, 4, 50, 500}}, leafOnRing, "no switches");
        MemoryPlacement spinePerNpu;
        spinePerNpu.sharing = MemorySharing::PER_NPU;
        spinePerNpu.attach = MemoryAttach::SPINE;
        fails({clos}, spinePerNpu, "is for pools");
        MemoryPlacement badDim;
        badDim.dimension = 3;
        fails({clos}, badDim, "dimension 3 out of range");
        // AssignMemory
        Topology t = Topology::FromDimensions({DimensionSpec{DimType::SWITCH, 4, 50, 500}});
        const uint32_t m = t.AttachMemoryNode(4, 100, 200); // on the switch
        t.AssignMemory(2, {m});
        NS_TEST_EXPECT_MSG_EQ(t.GetNpuMemory(2).size(), 1u, "assigned");
        NS_TEST_EXPECT_MSG_EQ(t.GetNpuMemory(1).size(), 0u, "not assigned");
        NS_TEST_EXPECT_MSG_EQ(t.Route(2, m).size(), 2u, "via the switch");
        bool threw = false;
        try
        {
            t.AssignMemory(1, {4});
        }
        catch (const std::invalid_argument&)
        {
            threw = true;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "a switch is not a memory node");
    }
};

/// One READ / WRITE of a PER_NPU node: closed form on both backends, bytes on the wire.
class SingleTransferTestCase : public TestCase
{
  public:
    SingleTransferTestCase()
        : TestCase("one READ or WRITE of a PER_NPU node: latency + S over min(memory, link) + wire "
                   "within 2 %; exact bytes on the wire")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t S = 1000000;
        const double L = 1000;
        const uint32_t mtu = 1000;
        const uint32_t n = (S + mtu - 1) / mtu;
        const auto resp = ReadResponseFrames(S, mtu);
        const uint32_t req = FrameBytes(RoceOpcode::READ_REQUEST, 0, S);
        const uint32_t ack = FrameBytes(RoceOpcode::ACK, 0);
        // memory-bound (20 GB/s) and link-bound (200 GB/s against 53.7 GB/s)
        for (double bw : {20.0, 200.0})
        {
            for (bool store : {false, true})
            {
                RemoteMemoryConfig c = MemConfig(MemoryType::PER_NPU_MEMORY_EXPANSION, bw, L);
                const Graphs gs = MemGraphs({S, 0}, store);
                // payload rate of the link (1000 B payload in 1086 B on the wire)
                const double linkPayload =
                    kLinkBytesPerNs * mtu / double(RdmaHostStack::DataWireBytes(mtu, false));
                const double d = kLinkLatNs;
                const double flowT = 2 * d + L + double(S) / std::min(bw, kLinkBytesPerNs);
                const MemRun fr = RunMem(SwitchTopo(2), gs, "flow", &c, QuietParams());
                NS_TEST_EXPECT_MSG_EQ(fr.status, 0, "flow run");
                NS_TEST_EXPECT_MSG_EQ_TOL(double(fr.finish[0]),
                                          flowT,
                                          1.0,
                                          "flow: 2d + L + S / min(bw, link), bw " << bw);
                uint64_t memTx = 0;
                uint64_t npuTx = 0;
                uint64_t memFrames = 0;
                uint64_t npuFrames = 0;
                const MemRun rr = RunMem(SwitchTopo(2),
                                         gs,
                                         "roce",
                                         &c,
                                         QuietParams(),
                                         nullptr,
                                         [&](AstraSimScenario& sc) {
                                             const auto topo = sc.GetTopology();
                                             const uint32_t mem = topo->GetNpuMemory(0)[0];
                                             const auto devs = sc.GetFabric().GetLinkDevices(
                                                 topo->GetNodeLinks(mem).front());
                                             memTx = devs.first->GetTxBytes();
                                             memFrames = devs.first->GetTxFrames();
                                             npuTx = devs.second->GetTxBytes();
                                             npuFrames = devs.second->GetTxFrames();
                                         });
                NS_TEST_EXPECT_MSG_EQ(rr.status, 0, "roce run");
                const double rate = std::min(bw, linkPayload);
                const double wire = store ? SerNs(FrameBytes(RoceOpcode::WRITE_FIRST, mtu)) +
                                                SerNs(FrameBytes(RoceOpcode::SEND_ONLY, 0))
                                          : SerNs(req) + SerNs(resp.back());
                const double roceT = 2 * d + L + double(S) / rate + wire;
                NS_TEST_EXPECT_MSG_EQ_TOL(double(rr.finish[0]),
                                          roceT,
                                          0.02 * roceT,
                                          "roce within 2 %, bw " << bw << " store " << store);
                if (!store)
                {
                    // READ: one request out, the responses back, nothing else (no ACKs)
                    uint64_t sum = 0;
                    for (uint32_t f : resp)
                    {
                        sum += f;
                    }
                    NS_TEST_EXPECT_MSG_EQ(npuFrames, 1u, "one READ request frame");
                    NS_TEST_EXPECT_MSG_EQ(npuTx, req, "READ request bytes");
                    NS_TEST_EXPECT_MSG_EQ(memFrames, uint64_t(n), "one response per MTU");
                    NS_TEST_EXPECT_MSG_EQ(memTx, sum, "S plus the response headers");
                }
                else
                {
                    // WRITE: n data frames and the ACK of the completion SEND out; n ACKs
                    // (AckInterval 1) and the zero-length completion SEND back
                    uint64_t data = 0;
                    for (uint32_t i = 0; i < n; ++i)
                    {
                        const uint8_t op = i == 0 ? RoceOpcode::WRITE_FIRST
                                                  : (i + 1 == n ? RoceOpcode::WRITE_LAST
                                                                : RoceOpcode::WRITE_MIDDLE);
                        data += FrameBytes(op, mtu, i == 0 ? S : 0);
                    }
                    NS_TEST_EXPECT_MSG_EQ(npuFrames, uint64_t(n) + 1, "data + 1 ACK");
                    NS_TEST_EXPECT_MSG_EQ(npuTx, data + ack, "WRITE bytes");
                    NS_TEST_EXPECT_MSG_EQ(memFrames, uint64_t(n) + 1, "ACKs + completion");
                    NS_TEST_EXPECT_MSG_EQ(memTx,
                                          uint64_t(n) * ack + FrameBytes(RoceOpcode::SEND_ONLY, 0),
                                          "ACK and completion bytes");
                }
                NS_TEST_ASSERT_MSG_EQ(rr.rows.size(), 2u, "two memory nodes");
                NS_TEST_EXPECT_MSG_EQ((store ? rr.rows[0].bytesWritten : rr.rows[0].bytesRead),
                                      S,
                                      "reported bytes");
                NS_TEST_EXPECT_MSG_EQ(rr.rows[0].requests, 1u, "one message (S < message size)");
            }
        }
    }
};

/// k requests pipeline from one pool node; one channel serialises; the link caps.
class PipelineTestCase : public TestCase
{
  public:
    PipelineTestCase()
        : TestCase("k READs from a pool node: L + k s over bw; one channel: k (L + s over bw); "
                   "capped by the link")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t s = 262144;
        const uint32_t k = 4;
        const double L = 2000;
        const double d = 2 * kLinkLatNs; // NPU, switch, pool

        struct Variant
        {
            double bw;
            uint32_t channels;
            uint32_t outstanding;
            double expect; // flow closed form (ns)
            const char* what;
        };

        const std::vector<Variant> vs = {
            {20, 16, k, 2 * d + L + k * s / 20.0, "pipelined: L + k s / bw"},
            {20, 1, k, 2 * d + k * (L + s / 20.0), "one channel: k (L + s / bw)"},
            {20, 16, 1, k * (2 * d + L + s / 20.0), "one outstanding: k round trips"},
            {400, 16, k, 2 * d + L + k * s / kLinkBytesPerNs, "link-bound: L + k s / link"},
        };
        for (const Variant& v : vs)
        {
            RemoteMemoryConfig c = MemConfig(MemoryType::MEMORY_POOL, v.bw, L);
            c.memoryAttach = "leaf";
            c.messageSize = s;
            c.channels = v.channels;
            c.outstandingRequests = v.outstanding;
            const Graphs gs = MemGraphs({k * s, 0}, false);
            const MemRun fr = RunMem(SwitchTopo(2), gs, "flow", &c, QuietParams());
            NS_TEST_EXPECT_MSG_EQ_TOL(double(fr.finish[0]), v.expect, 2.0, "flow: " << v.what);
            NS_TEST_EXPECT_MSG_EQ(fr.messages, uint64_t(k), "k messages");
            const MemRun rr = RunMem(SwitchTopo(2), gs, "roce", &c, QuietParams());
            // RoCE: the link carries 1000 B of payload per 1086 B frame
            double expect = v.expect;
            if (v.bw > kLinkBytesPerNs)
            {
                expect += k * s / kLinkBytesPerNs *
                          (double(RdmaHostStack::DataWireBytes(1000, false)) / 1000 - 1);
            }
            NS_TEST_EXPECT_MSG_EQ_TOL(double(rr.finish[0]),
                                      expect,
                                      0.02 * expect,
                                      "roce within 2 %: " << v.what);
        }
    }
};

/// Two NPUs sharing a PER_NODE node take twice as long as one.
class PerNodeSharingTestCase : public TestCase
{
  public:
    PerNodeSharingTestCase()
        : TestCase("PER_NODE: two NPUs sharing a node take twice as long as one")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t S = 4000000;
        const double bw = 20;
        const double L = 500;
        const double d = 2 * kLinkLatNs;
        RemoteMemoryConfig c = MemConfig(MemoryType::PER_NODE_MEMORY_EXPANSION, bw, L);
        c.numNodes = 1;
        c.numNpusPerNode = 2;
        for (const std::string be : {"flow", "roce"})
        {
            const MemRun one = RunMem(SwitchTopo(2), MemGraphs({S, 0}, false), be, &c);
            const MemRun two = RunMem(SwitchTopo(2), MemGraphs({S, S}, false), be, &c);
            const double t1 = double(MaxFinish(one));
            const double t2 = double(MaxFinish(two));
            const double c1 = 2 * d + L + S / bw;
            const double c2 = 2 * d + L + 2 * S / bw;
            NS_TEST_EXPECT_MSG_EQ_TOL(t1, c1, 0.02 * c1, be << ": one NPU");
            NS_TEST_EXPECT_MSG_EQ_TOL(t2, c2, 0.02 * c2, be << ": two NPUs");
            NS_TEST_EXPECT_MSG_EQ_TOL(t2 / t1, 2.0, 0.03, be << ": twice as long");
            NS_TEST_EXPECT_MSG_EQ(two.rows.size(), 1u, "one node");
            NS_TEST_EXPECT_MSG_EQ(two.rows[0].bytesRead, 2 * S, "both NPUs' bytes");
        }
    }
};

/// A pool behind one oversubscribed link (a memory leaf with a slow uplink).
class OversubscribedTestCase : public TestCase
{
  public:
    OversubscribedTestCase()
        : TestCase("a pool behind one oversubscribed leaf link is limited by that link")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t S = 2000000;
        const double up = 10; // GB/s (2^30 B): the memory leaf's one uplink
        RemoteMemoryConfig c = MemConfig(MemoryType::MEMORY_POOL, 200, 500);
        c.memoryAttach = "memory-leaf";
        c.memoryUplinkBw = up;
        c.memoryLinkBw = 200;
        c.keys.insert({"memory-attach", "memory-uplink-bw", "memory-link-bw"});
        const Graphs gs = MemGraphs({S, S, S, S}, false);
        const double upRate = GBpsToBytesPerNs(up);
        // request 3 hops, latency, 4 S through the uplink, response 3 hops
        const double lat = 6 * kLinkLatNs + 500;
        const double flowT = lat + 4 * S / upRate;
        const MemRun fr = RunMem(SwitchTopo(4), gs, "flow", &c);
        NS_TEST_EXPECT_MSG_EQ_TOL(double(MaxFinish(fr)), flowT, 0.01 * flowT, "flow");
        // RoCE: PFC alone (no congestion control) keeps the uplink busy; DCQCN's rate
        // cuts leave it partly idle, but can never beat it
        auto noCc = [](AstraSimScenario& sc) {
            sc.GetFabric().GetRdmaHelper().SetHostStackAttribute(
                "CongestionControl",
                TypeIdValue(RdmaCcNone::GetTypeId()));
        };
        const MemRun rr = RunMem(SwitchTopo(4), gs, "roce", &c, SystemParams{}, noCc);
        const double roceT =
            lat + 4 * S / upRate * RdmaHostStack::DataWireBytes(1000, false) / 1000.0;
        NS_TEST_EXPECT_MSG_EQ_TOL(double(MaxFinish(rr)), roceT, 0.03 * roceT, "roce, PFC");
        const MemRun dcqcn = RunMem(SwitchTopo(4), gs, "roce", &c);
        NS_TEST_EXPECT_MSG_GT(double(MaxFinish(dcqcn)), 0.99 * roceT, "roce, DCQCN");
        // the node could serve 200 GB/s: the uplink is what limits it
        NS_TEST_EXPECT_MSG_LT(4.0 * S / double(MaxFinish(fr)), upRate, "below the uplink");
        NS_TEST_EXPECT_MSG_GT(4.0 * S / double(MaxFinish(fr)), 0.95 * upRate, "at the uplink");
    }
};

/// An all-reduce sharing a link with memory traffic slows down by the closed-form share.
class SharedLinkTestCase : public TestCase
{
  public:
    SharedLinkTestCase()
        : TestCase("memory traffic and an all-reduce on one link: the closed-form share (flow), "
                   "within 5 % of it (RoCE)")
    {
    }

  private:
    void DoRun() override
    {
        // NPU 0 reads from its node (on the switch) at 25 % of the link rate (device-bound)
        // while both NPUs all-reduce: on the switch -> NPU 0 link the all-reduce keeps 75 %.
        // (25 % is below a third: a ring step may have two messages in flight on the link,
        // and max-min fairness per flow must still leave memory its whole rate.)
        const double share = 0.25;
        const double bw = share * kLinkBytesPerNs; // GB/s (1e9) = bytes per ns
        const uint64_t arBytes = 8000000;
        const uint64_t memBytes = 64000000;
        RemoteMemoryConfig c = MemConfig(MemoryType::PER_NPU_MEMORY_EXPANSION, bw, 500);
        c.memoryAttach = "leaf";
        c.messageSize = 262144;
        c.outstandingRequests = 8;
        c.keys.insert("memory-attach");
        Graphs with;
        Graphs without;
        for (uint32_t r = 0; r < 2; ++r)
        {
            for (bool mem : {true, false})
            {
                auto g = std::make_shared<WorkloadGraph>();
                g->rank = r;
                WorkloadNode coll;
                coll.id = 1;
                coll.name = "allreduce";
                coll.kind = NodeKind::COMM_COLL;
                coll.collType = CollType::ALL_REDUCE;
                coll.commSize = arBytes;
                g->nodes.push_back(coll);
                if (mem && r == 0)
                {
                    WorkloadNode m;
                    m.id = 2;
                    m.name = "offload";
                    m.kind = NodeKind::MEM_LOAD;
                    m.tensorSize = memBytes;
                    g->nodes.push_back(m);
                }
                g->BuildIndex();
                (mem ? with : without).push_back(g);
            }
        }
        const SystemParams p = QuietParams();
        auto collTime = [](const MemRun& r) {
            return double((r.records.at(0).end - r.records.at(0).start).GetNanoSeconds());
        };
        // Ring all-reduce of 2 NPUs: 2 steps of m = arBytes / 2 each way. Alone, a step
        // takes m / B plus the path's latency (2 hops): t0 = 2 (m / B + 2 d). With memory
        // traffic, the switch -> NPU 0 link carries NPU 1's two messages back to back (NPU 1
        // posts its second step when NPU 0's first message arrives, which the uncontended
        // direction delivers first) at B until the memory data starts (request 2 d + L),
        // then at (1 - share) B: the last byte leaves at
        //   lead + (2 m - lead B) / ((1 - share) B), and arrives 2 d later.
        const double m = arBytes / 2.0;
        const double B = kLinkBytesPerNs;
        const double d2 = 2 * kLinkLatNs;
        const double lead = d2 + 500;
        const double t0cf = 2 * (m / B + d2);
        const double t1cf = lead + (2 * m - lead * B) / ((1 - share) * B) + d2;
        {
            const MemRun off = RunMem(SwitchTopo(2), without, "flow", &c, p);
            const MemRun on = RunMem(SwitchTopo(2), with, "flow", &c, p);
            const double t0 = collTime(off);
            const double t1 = collTime(on);
            NS_TEST_EXPECT_MSG_EQ_TOL(t0, t0cf, 1.0, "flow: the all-reduce alone");
            NS_TEST_EXPECT_MSG_EQ_TOL(t1, t1cf, 1.0, "flow: the closed-form share");
            uint32_t matched = 0;
            const double slow = MemoryReport::CollectiveSlowdown(on.records, off.records, &matched);
            NS_TEST_EXPECT_MSG_EQ(matched, 1u, "one collective compared");
            NS_TEST_EXPECT_MSG_EQ_TOL(slow, t1 / t0, 1e-9, "CollectiveSlowdown");
            NS_TEST_EXPECT_MSG_GT(on.finish[0], int64_t(memBytes / bw), "memory outlasts it");
        }

        {
            // RoCE without congestion control (PFC keeps it lossless), 4 KiB payloads so
            // that headers cost ~2 %; memory on its own (lossless) priority
            auto configure = [](AstraSimScenario& sc) {
                sc.GetFabric().GetRdmaHelper().SetHostStackAttribute(
                    "CongestionControl",
                    TypeIdValue(RdmaCcNone::GetTypeId()));
                sc.GetFabric().GetRdmaHelper().SetHostStackAttribute("Mtu", UintegerValue(4096));
            };
            const MemRun off = RunMem(SwitchTopo(2), without, "roce", &c, p, configure);
            const MemRun on = RunMem(SwitchTopo(2), with, "roce", &c, p, configure);
            const double closed = t1cf / t0cf;
            const double slow = collTime(on) / collTime(off);
            NS_TEST_EXPECT_MSG_EQ_TOL(slow, closed, 0.05 * closed, "roce within 5 %");
            NS_TEST_EXPECT_MSG_GT(slow, 1.2, "a visible slowdown");
        }
    }
};

/// Every reference trace with MEM nodes runs on all three backends (and, since the
/// reference has none, two of them with MEM nodes added).
class ReferenceTracesTestCase : public TestCase
{
  public:
    ReferenceTracesTestCase()
        : TestCase("reference traces with MEM nodes on the analytical, flow and roce backends")
    {
    }

  private:
    /// Chakra prefixes (PREFIX.0.et) and text workloads under the reference folder.
    static void Scan(const std::string& dir, std::vector<std::string>& out)
    {
        DIR* d = opendir(dir.c_str());
        if (!d)
        {
            return;
        }
        std::set<std::string> seen;
        while (dirent* e = readdir(d))
        {
            const std::string name = e->d_name;
            if (name == "." || name == "..")
            {
                continue;
            }
            const std::string path = dir + "/" + name;
            if (e->d_type == DT_DIR)
            {
                Scan(path, out);
            }
            else if (name.size() > 5 && name.substr(name.size() - 5) == ".0.et")
            {
                out.push_back(path.substr(0, path.size() - 5));
            }
            else if (name.size() > 4 && name.substr(name.size() - 4) == ".txt" &&
                     path.find("workload") != std::string::npos)
            {
                out.push_back(path);
            }
        }
        closedir(d);
    }

    void RunAll(const std::string& what,
                const Graphs& gs,
                uint64_t memBytesPerNpu,
                const std::map<std::string, std::vector<uint32_t>>& groups = {})
    {
        auto topo = std::make_shared<Topology>(
            Topology::FromDimensions({DimensionSpec{DimType::RING, uint32_t(gs.size()), 50, 500}}));
        RemoteMemoryConfig c = MemConfig(MemoryType::PER_NODE_MEMORY_EXPANSION, 20, 1000);
        c.numNodes = uint32_t(gs.size() / 2);
        c.numNpusPerNode = 2;
        for (const std::string be : {"analytical", "flow", "roce"})
        {
            const MemRun r = RunMem(topo, gs, be, &c, SystemParams{}, [&](AstraSimScenario& sc) {
                sc.SetCommGroups(groups);
            });
            NS_TEST_EXPECT_MSG_EQ(r.status, 0, what << " on " << be << ": " << r.error);
            NS_TEST_EXPECT_MSG_GT(MaxFinish(r), 0, what << " on " << be);
            if (be != "analytical")
            {
                uint64_t read = 0;
                uint64_t written = 0;
                for (const auto& row : r.rows)
                {
                    read += row.bytesRead;
                    written += row.bytesWritten;
                }
                NS_TEST_EXPECT_MSG_EQ(read, gs.size() * memBytesPerNpu, what << " " << be);
                NS_TEST_EXPECT_MSG_EQ(written, gs.size() * memBytesPerNpu, what << " " << be);
            }
        }
    }

    void DoRun() override
    {
        std::vector<std::string> all;
        Scan(GetReferenceDir(), all);
        NS_TEST_ASSERT_MSG_GT(all.size(), 20u, "the reference traces are there");
        uint32_t withMem = 0;
        for (const auto& spec : all)
        {
            uint32_t npus = 8;
            if (spec.find(".txt") == std::string::npos)
            {
                npus = 0;
                while (access((spec + "." + std::to_string(npus) + ".et").c_str(), R_OK) == 0)
                {
                    ++npus;
                }
            }
            Graphs gs;
            try
            {
                for (auto& g : LoadWorkload(spec, npus))
                {
                    gs.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
                }
            }
            catch (const InputError&)
            {
                continue; // a text workload for a different NPU count; not a memory trace
            }
            bool mem = false;
            for (const auto& g : gs)
            {
                for (const auto& n : g->nodes)
                {
                    mem = mem || n.kind == NodeKind::MEM_LOAD || n.kind == NodeKind::MEM_STORE;
                }
            }
            if (mem && gs.size() % 2 == 0)
            {
                ++withMem;
                RunAll(spec, gs, 0);
            }
        }
        // the reference has no MEM nodes today (withMem == 0): add a load and a store of
        // 1 MB to every rank of a Chakra trace and of a text workload
        auto addMem = [](const Graphs& in) {
            Graphs out;
            for (const auto& g : in)
            {
                auto h = std::make_shared<WorkloadGraph>(*g);
                uint64_t id = 0;
                for (const auto& n : h->nodes)
                {
                    id = std::max(id, n.id);
                }
                for (NodeKind k : {NodeKind::MEM_LOAD, NodeKind::MEM_STORE})
                {
                    WorkloadNode n;
                    n.id = ++id;
                    n.name = k == NodeKind::MEM_LOAD ? "added.load" : "added.store";
                    n.kind = k;
                    n.tensorSize = 1000000;
                    if (!h->nodes.empty())
                    {
                        n.dataDeps = {h->nodes.front().id};
                    }
                    h->nodes.push_back(n);
                }
                h->BuildIndex();
                out.push_back(h);
            }
            return out;
        };
        const std::string ref = GetReferenceDir();
        Graphs stg;
        for (auto& g : LoadWorkload(ref + "/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2", 8))
        {
            stg.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
        }
        RunAll("stg-gpt with MEM nodes",
               addMem(stg),
               1000000,
               LoadCommGroups(ref + "/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2.json", 8));
        Graphs text;
        for (auto& g :
             LoadWorkload(ref + "/astra-sim-tutorials/hoti2024/demo2/workload_text.txt", 8))
        {
            text.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
        }
        RunAll("hoti2024 demo2 with MEM nodes", addMem(text), 1000000);
        std::cout << "reference workloads scanned: " << all.size()
                  << ", with MEM nodes: " << withMem << std::endl;
    }
};

/// The suite.
class MemoryFabricTestSuite : public TestSuite
{
  public:
    MemoryFabricTestSuite()
        : TestSuite("astra-sim-memory-fabric", UNIT)
    {
        AddTestCase(new MemoryDeviceTestCase(), TestCase::QUICK);
        AddTestCase(new PlacementTestCase(), TestCase::QUICK);
        AddTestCase(new SingleTransferTestCase(), TestCase::QUICK);
        AddTestCase(new PipelineTestCase(), TestCase::QUICK);
        AddTestCase(new PerNodeSharingTestCase(), TestCase::QUICK);
        AddTestCase(new OversubscribedTestCase(), TestCase::QUICK);
        AddTestCase(new SharedLinkTestCase(), TestCase::QUICK);
        AddTestCase(new ReferenceTracesTestCase(), TestCase::QUICK);
    }
};

static MemoryFabricTestSuite g_memoryFabricTestSuite;
