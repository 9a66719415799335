/*
 * Lazily built frames (RdmaQueuedFrame::packet null, bytes built from the meta only
 * when something looks at them) and the per-link in-flight FIFO of RdmaChannel:
 * - with no sink, a lazy frame crosses a link without bytes being built;
 * - with a sniffer, the bytes of a lazy frame equal, byte for byte, those of the same
 *   frame built eagerly with RoceFrame::Build, including a CE mark set before building;
 * - 240 back-to-back frames on a long link (10 us, ~113 frames in flight, more than the
 *   FIFO's initial capacity) arrive at the closed-form times k x txTime + delay;
 * - a pooled slot's reuse: RdmaMeta::ResetHeaders gives every field but the PFC fields and
 *   the INT stack its default, and assigning a frame copies all of its RoCE fields, its PFC
 *   fields if it is a PFC frame, and its intHops valid INT entries (the rest, never read,
 *   are left as they were).
 */

#include "ns3/rdma-channel.h"
#include "ns3/rdma-net-device.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <cstring>
#include <vector>

using namespace ns3;

namespace
{

/// One frame as seen by the receiver.
struct Seen
{
    int64_t ns;                 //!< arrival time (ns)
    bool hadPacket;             //!< frame.packet was non-null in the RxHandler
    std::vector<uint8_t> bytes; //!< bytes captured by the sniffer (empty without sniffer)
};

/// Same frame twice: eager (bytes built now) and lazy (no bytes).
RdmaQueuedFrame
MakeFrame(uint32_t psn, bool lazy, bool ce)
{
    RdmaQueuedFrame f;
    f.meta.kind = RdmaFrameKind::ROCE;
    f.meta.opcode = RoceOpcode::WRITE_ONLY;
    f.meta.priority = 3;
    f.meta.payload = 1000;
    f.meta.psn = psn;
    f.meta.destQp = 0x11;
    f.meta.sport = 0xC000 + psn;
    f.meta.srcIp = 0x0B000001;
    f.meta.dstIp = 0x0B000002;
    f.meta.ecn = 2;
    f.meta.rethVa = 4096;
    f.meta.rethLen = 1000;
    f.meta.frameBytes = RoceFrame::GetFrameBytes(f.meta);
    if (!lazy)
    {
        f.packet = RoceFrame::Build(f.meta);
    }
    if (ce)
    {
        RoceFrame::SetCe(f.packet, f.meta); // lazy: meta only
    }
    return f;
}

class RdmaLazyFrameTestCase : public TestCase
{
  public:
    RdmaLazyFrameTestCase()
        : TestCase("lazy frames: no bytes without a sink, same bytes as eager ones with a "
                   "sniffer, closed-form arrivals through the in-flight FIFO")
    {
    }

  private:
    std::vector<Seen> m_seen;
    std::vector<std::vector<uint8_t>> m_sniffed;

    void OnRx(Ptr<RdmaNetDevice>, RdmaQueuedFrame& f)
    {
        m_seen.push_back(Seen{Simulator::Now().GetNanoSeconds(), bool(f.packet), {}});
    }

    void OnSniff(Ptr<const Packet> p)
    {
        std::vector<uint8_t> b(p->GetSize());
        p->CopyData(b.data(), b.size());
        m_sniffed.push_back(b);
    }

    /// Send n frames (even index eager, odd lazy, pairs with equal headers) over a
    /// 100 Gbps, 10 us link; the receiver's sniffer connected if sniff.
    void RunLink(uint32_t n, bool sniff)
    {
        m_seen.clear();
        m_sniffed.clear();
        Ptr<RdmaNetDevice> a = CreateObject<RdmaNetDevice>();
        Ptr<RdmaNetDevice> b = CreateObject<RdmaNetDevice>();
        a->SetAttribute("DataRate", StringValue("100Gbps"));
        b->SetAttribute("DataRate", StringValue("100Gbps"));
        Ptr<RdmaChannel> ch = CreateObject<RdmaChannel>();
        ch->SetDelay(MicroSeconds(10));
        a->Attach(ch);
        b->Attach(ch);
        b->SetRxHandler(MakeCallback(&RdmaLazyFrameTestCase::OnRx, this), false);
        if (sniff)
        {
            b->TraceConnectWithoutContext("Sniffer",
                                          MakeCallback(&RdmaLazyFrameTestCase::OnSniff, this));
        }
        for (uint32_t k = 0; k < n; ++k)
        {
            a->EnqueueFrame(MakeFrame(k / 2, k % 2 == 1, (k / 2) % 7 == 3));
        }
        Simulator::Run();
        Simulator::Destroy();
        a->Dispose();
        b->Dispose();
        ch->Dispose();
    }

    void DoRun() override
    {
        const uint32_t n = 240;
        const uint64_t bits = (1082 + 20) * 8; // WRITE Only 1000 B: 1082 B + preamble/IFG
        // 1) no sink: lazy frames arrive without bytes; arrivals at the closed form
        RunLink(n, false);
        NS_TEST_ASSERT_MSG_EQ(m_seen.size(), n, "every frame delivered");
        for (uint32_t k = 0; k < m_seen.size(); ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(m_seen[k].hadPacket, (k % 2 == 0), "frame " << k);
            const int64_t expect = int64_t(bits * (k + 1) * 1000000000ULL / 100000000000ULL) +
                                   10000; // floor(k+1 frames) + 10 us
            NS_TEST_ASSERT_MSG_EQ(m_seen[k].ns, expect, "arrival of frame " << k);
        }
        // 2) sniffer on the receiver: lazy bytes == eager bytes, CE included
        RunLink(n, true);
        NS_TEST_ASSERT_MSG_EQ(m_sniffed.size(), n, "every frame sniffed");
        uint32_t ceFrames = 0;
        for (uint32_t k = 0; k + 1 < m_sniffed.size(); k += 2)
        {
            NS_TEST_ASSERT_MSG_EQ(m_sniffed[k].size(), 1078u, "captured size, frame " << k);
            NS_TEST_ASSERT_MSG_EQ((m_sniffed[k] == m_sniffed[k + 1]),
                                  true,
                                  "eager and lazy bytes differ, pair " << k / 2);
            Ptr<Packet> p = Create<Packet>(m_sniffed[k + 1].data(), m_sniffed[k + 1].size());
            RdmaMeta parsed;
            NS_TEST_ASSERT_MSG_EQ(RoceFrame::Parse(p, parsed), true, "parse pair " << k / 2);
            NS_TEST_ASSERT_MSG_EQ(uint32_t(parsed.psn), k / 2, "PSN on the wire");
            const bool ce = (k / 2) % 7 == 3;
            NS_TEST_ASSERT_MSG_EQ(uint32_t(parsed.ecn), (ce ? 3u : 2u), "ECN of pair " << k / 2);
            ceFrames += ce ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_EQ(ceFrames, 17u, "CE-marked pairs among 120");
    }
};

/// RdmaMeta::ResetHeaders / CopyFrom and RdmaQueuedFrame assignment (what a reused slot holds).
class RdmaMetaReuseTestCase : public TestCase
{
  public:
    RdmaMetaReuseTestCase()
        : TestCase("meta reset and copy touch every header and only the valid INT entries")
    {
    }

  private:
    /// \return a meta whose every byte before the INT stack differs from the default's
    /// (kind is neither RoCE nor PFC)
    static RdmaMeta Filled(uint8_t byte, uint8_t intHops)
    {
        RdmaMeta m;
        std::memset(static_cast<void*>(&m), byte, sizeof(m));
        m.intHops = intHops;
        return m;
    }

    /// \return whether a and b agree on every byte of the RoCE headers (before the PFC fields)
    static bool SameHeaders(const RdmaMeta& a, const RdmaMeta& b)
    {
        return std::memcmp(&a, &b, offsetof(RdmaMeta, pfcClassEnable)) == 0;
    }

    /// \return whether a and b agree on the PFC fields
    static bool SamePfc(const RdmaMeta& a, const RdmaMeta& b)
    {
        return std::memcmp(&a.pfcClassEnable,
                           &b.pfcClassEnable,
                           offsetof(RdmaMeta, intStack) - offsetof(RdmaMeta, pfcClassEnable)) == 0;
    }

    void DoRun() override
    {
        const RdmaMeta def{};
        RdmaMeta m = Filled(0xA5, 3);
        NS_TEST_ASSERT_MSG_EQ(SameHeaders(m, def), false, "filled headers differ");
        m.ResetHeaders();
        NS_TEST_ASSERT_MSG_EQ(SameHeaders(m, def), true, "every header back to its default");
        NS_TEST_ASSERT_MSG_EQ(unsigned(m.intHops), 0u, "no valid INT entry");
        NS_TEST_ASSERT_MSG_EQ(m.dport, 4791u, "a non-zero default (RoCEv2 port)");
        NS_TEST_ASSERT_MSG_EQ(unsigned(m.ttl), 64u, "a non-zero default (TTL)");
        NS_TEST_ASSERT_MSG_EQ(m.intStack[4].qlenBytes, 0xA5A5A5A5u, "INT lines untouched");
        NS_TEST_ASSERT_MSG_EQ(m.pfcQuanta[7], 0xA5A5u, "PFC fields untouched");
        // the RoCE headers end within a slot's second cache line (the PFC fields follow)
        NS_TEST_ASSERT_MSG_EQ((offsetof(RdmaFrameSlot, frame) + offsetof(RdmaQueuedFrame, meta) +
                                   offsetof(RdmaMeta, pfcClassEnable) <=
                               128),
                              true,
                              "RoCE headers within two lines of a slot");

        // a frame with two INT entries assigned into a slot that held five
        RdmaQueuedFrame slot;
        slot.meta = Filled(0x11, 5);
        RdmaQueuedFrame src;
        src.packet = Create<Packet>(10);
        src.inPort = 7;
        src.meta = Filled(0x5A, 2);
        src.meta.intStack[0].qlenBytes = 100;
        src.meta.intStack[1].qlenBytes = 200;
        const Ptr<Packet> p = src.packet;
        slot = src; // copy
        NS_TEST_ASSERT_MSG_EQ(slot.packet, p, "packet copied");
        NS_TEST_ASSERT_MSG_EQ(slot.inPort, 7u, "inPort copied");
        NS_TEST_ASSERT_MSG_EQ(SameHeaders(slot.meta, src.meta), true, "headers copied");
        NS_TEST_ASSERT_MSG_EQ(slot.meta.intStack[1].qlenBytes, 200u, "valid INT entry copied");
        NS_TEST_ASSERT_MSG_EQ(slot.meta.intStack[2].qlenBytes, 0x11111111u, "stale entry kept");
        NS_TEST_ASSERT_MSG_EQ(slot.meta.pfcQuanta[0],
                              0x1111u,
                              "a non-PFC frame's PFC fields not copied");

        RdmaQueuedFrame moved;
        moved.meta = Filled(0x22, 5);
        moved = std::move(src);
        NS_TEST_ASSERT_MSG_EQ(moved.packet, p, "packet moved");
        NS_TEST_ASSERT_MSG_EQ(SameHeaders(moved.meta, slot.meta), true, "headers moved");
        NS_TEST_ASSERT_MSG_EQ(moved.meta.intStack[0].qlenBytes, 100u, "valid INT entry moved");
        NS_TEST_ASSERT_MSG_EQ(moved.meta.intStack[2].qlenBytes, 0x22222222u, "stale entry kept");

        // a PFC frame's class-enable vector and quanta are copied
        RdmaQueuedFrame pfc;
        pfc.meta = Filled(0x33, 0);
        pfc.meta.kind = RdmaFrameKind::PFC;
        RdmaQueuedFrame pfcSlot;
        pfcSlot.meta = Filled(0x44, 0);
        pfcSlot = pfc;
        NS_TEST_ASSERT_MSG_EQ(SameHeaders(pfcSlot.meta, pfc.meta), true, "PFC frame headers");
        NS_TEST_ASSERT_MSG_EQ(SamePfc(pfcSlot.meta, pfc.meta), true, "PFC fields copied");

        RdmaQueuedFrame& alias = moved;
        moved = alias; // self-assignment keeps the frame
        NS_TEST_ASSERT_MSG_EQ(moved.packet, p, "packet kept");
        NS_TEST_ASSERT_MSG_EQ(SameHeaders(moved.meta, slot.meta), true, "headers kept");
    }
};

class RdmaLazyFrameTestSuite : public TestSuite
{
  public:
    RdmaLazyFrameTestSuite()
        : TestSuite("astra-sim-rdma-lazy-frame", UNIT)
    {
        AddTestCase(new RdmaLazyFrameTestCase(), TestCase::QUICK);
        AddTestCase(new RdmaMetaReuseTestCase(), TestCase::QUICK);
    }
};

RdmaLazyFrameTestSuite g_rdmaLazyFrameTestSuite; //!< registration

} // namespace
