/*
 * Lazily built frames (RdmaQueuedFrame::packet null, bytes built from the meta only
 * when something looks at them) and the per-link in-flight FIFO of RdmaChannel:
 * - with no sink, a lazy frame crosses a link without bytes being built;
 * - with a sniffer, the bytes of a lazy frame equal, byte for byte, those of the same
 *   frame built eagerly with RoceFrame::Build, including a CE mark set before building;
 * - 240 back-to-back frames on a long link (10 us, ~113 frames in flight, more than the
 *   FIFO's initial capacity) arrive at the closed-form times k x txTime + delay;
 * - a pooled slot's reuse: RdmaMeta::ResetRoce gives the per-hop part its defaults, and
 *   the end-host part too if the opcode carries it; assigning a frame copies its
 *   per-hop part, its end-host part if its opcode carries one (CarriesEndHostFields, checked
 *   for every opcode), its PFC fields if it is a PFC frame, and its intHops valid INT
 *   entries (the rest, never read, are left as they were); the per-hop part fills one line
 *   of a slot, the end-host part the next.
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

/// RdmaMeta::ResetRoce / CopyFrom and RdmaQueuedFrame assignment (what a reused slot holds).
class RdmaMetaReuseTestCase : public TestCase
{
  public:
    RdmaMetaReuseTestCase()
        : TestCase(
              "meta reset and copy touch the parts a frame carries and only the valid INT entries")
    {
    }

  private:
    /// \return a RoCE frame's meta (\p opcode) whose every other byte differs from the
    /// default's
    static RdmaMeta Filled(uint8_t byte, uint8_t intHops, uint8_t opcode)
    {
        RdmaMeta m;
        std::memset(static_cast<void*>(&m), byte, sizeof(m));
        m.kind = RdmaFrameKind::ROCE;
        m.opcode = opcode;
        m.intHops = intHops;
        return m;
    }

    /// \return whether a and b agree on the bytes [from, to) of the meta
    static bool Same(const RdmaMeta& a, const RdmaMeta& b, std::size_t from, std::size_t to)
    {
        return std::memcmp(reinterpret_cast<const char*>(&a) + from,
                           reinterpret_cast<const char*>(&b) + from,
                           to - from) == 0;
    }

    /// \return whether a and b agree on the per-hop part
    static bool SameHop(const RdmaMeta& a, const RdmaMeta& b)
    {
        return Same(a, b, 0, offsetof(RdmaMeta, immTag));
    }

    /// \return whether a and b agree on the end-host part
    static bool SameEnd(const RdmaMeta& a, const RdmaMeta& b)
    {
        return Same(a, b, offsetof(RdmaMeta, immTag), offsetof(RdmaMeta, pfcClassEnable));
    }

    /// \return whether a and b agree on the PFC fields
    static bool SamePfc(const RdmaMeta& a, const RdmaMeta& b)
    {
        return Same(a, b, offsetof(RdmaMeta, pfcClassEnable), offsetof(RdmaMeta, intStack));
    }

    void DoRun() override
    {
        using namespace RoceOpcode;
        const RdmaMeta def{};
        // the per-hop part fills at most a slot's first line, the end-host part its second
        const std::size_t at = offsetof(RdmaFrameSlot, frame) + offsetof(RdmaQueuedFrame, meta);
        NS_TEST_ASSERT_MSG_EQ((at + offsetof(RdmaMeta, immTag) <= 64), true, "per-hop line");
        NS_TEST_ASSERT_MSG_EQ((at + offsetof(RdmaMeta, immTag) > 64 - sizeof(uint64_t)),
                              true,
                              "the per-hop line is full (the send time is its last field)");
        NS_TEST_ASSERT_MSG_EQ((at + offsetof(RdmaMeta, pfcClassEnable) <= 128),
                              true,
                              "end-host line");

        RdmaMeta m = Filled(0xA5, 3, WRITE_ONLY);
        NS_TEST_ASSERT_MSG_EQ(SameHop(m, def) || SameEnd(m, def), false, "filled headers");
        m.ResetRoce(WRITE_ONLY);
        RdmaMeta want = def;
        want.opcode = WRITE_ONLY;
        NS_TEST_ASSERT_MSG_EQ(SameHop(m, want), true, "every per-hop header back to default");
        NS_TEST_ASSERT_MSG_EQ(SameEnd(m, def), true, "a carried end-host part back to default");
        NS_TEST_ASSERT_MSG_EQ(unsigned(m.intHops), 0u, "no valid INT entry");
        NS_TEST_ASSERT_MSG_EQ(m.dport, 4791u, "a non-zero default (RoCEv2 port)");
        NS_TEST_ASSERT_MSG_EQ(unsigned(m.ttl), 64u, "a non-zero default (TTL)");
        NS_TEST_ASSERT_MSG_EQ(m.intStack[4].qlenBytes, 0xA5A5A5A5u, "INT lines untouched");
        NS_TEST_ASSERT_MSG_EQ(m.pfcQuanta[7], 0xA5A5u, "PFC fields untouched");

        m = Filled(0xA6, 0, WRITE_ONLY);
        m.kind = RdmaFrameKind::PFC;
        m.ResetRoce(WRITE_MIDDLE);
        want.opcode = WRITE_MIDDLE;
        NS_TEST_ASSERT_MSG_EQ(SameHop(m, want), true, "middle packet: per-hop part reset, ROCE");
        NS_TEST_ASSERT_MSG_EQ(m.msgBytes, 0xA6A6A6A6A6A6A6A6u, "... end-host line untouched");

        // which opcodes carry the end-host part
        const uint8_t carrying[] = {SEND_LAST,
                                    SEND_LAST_IMM,
                                    SEND_ONLY,
                                    SEND_ONLY_IMM,
                                    WRITE_FIRST,
                                    WRITE_LAST,
                                    WRITE_LAST_IMM,
                                    WRITE_ONLY,
                                    WRITE_ONLY_IMM,
                                    READ_REQUEST};
        const uint8_t bare[] = {SEND_FIRST,
                                SEND_MIDDLE,
                                WRITE_MIDDLE,
                                READ_RESP_FIRST,
                                READ_RESP_MIDDLE,
                                READ_RESP_LAST,
                                READ_RESP_ONLY,
                                ACK,
                                CNP};
        for (uint8_t op : carrying)
        {
            NS_TEST_ASSERT_MSG_EQ(Filled(0, 0, op).CarriesEndHostFields(), true, "opcode " << +op);
        }
        for (uint8_t op : bare)
        {
            NS_TEST_ASSERT_MSG_EQ(Filled(0, 0, op).CarriesEndHostFields(), false, "opcode " << +op);
        }
        RdmaMeta pfcMeta;
        pfcMeta.kind = RdmaFrameKind::PFC;
        NS_TEST_ASSERT_MSG_EQ(pfcMeta.CarriesEndHostFields(), false, "a PFC frame");

        // a frame with two INT entries assigned into a slot that held five
        RdmaQueuedFrame slot;
        slot.meta = Filled(0x11, 5, WRITE_ONLY);
        RdmaQueuedFrame src;
        src.packet = Create<Packet>(10);
        src.meta = Filled(0x5A, 2, WRITE_LAST);
        src.meta.inPort = 7;
        src.meta.intStack[0].qlenBytes = 100;
        src.meta.intStack[1].qlenBytes = 200;
        const Ptr<Packet> p = src.packet;
        slot = src; // copy
        NS_TEST_ASSERT_MSG_EQ(slot.packet, p, "packet copied");
        NS_TEST_ASSERT_MSG_EQ(slot.meta.inPort, 7u, "inPort copied");
        NS_TEST_ASSERT_MSG_EQ(SameHop(slot.meta, src.meta), true, "per-hop headers copied");
        NS_TEST_ASSERT_MSG_EQ(SameEnd(slot.meta, src.meta), true, "end-host fields copied");
        NS_TEST_ASSERT_MSG_EQ(slot.meta.intStack[1].qlenBytes, 200u, "valid INT entry copied");
        NS_TEST_ASSERT_MSG_EQ(slot.meta.intStack[2].qlenBytes, 0x11111111u, "stale entry kept");
        NS_TEST_ASSERT_MSG_EQ(slot.meta.pfcQuanta[0],
                              0x1111u,
                              "a non-PFC frame's PFC fields not copied");

        RdmaQueuedFrame moved;
        moved.meta = Filled(0x22, 5, ACK);
        moved = std::move(src);
        NS_TEST_ASSERT_MSG_EQ(moved.packet, p, "packet moved");
        NS_TEST_ASSERT_MSG_EQ(SameHop(moved.meta, slot.meta), true, "headers moved");
        NS_TEST_ASSERT_MSG_EQ(SameEnd(moved.meta, slot.meta), true, "end-host fields moved");
        NS_TEST_ASSERT_MSG_EQ(moved.meta.intStack[0].qlenBytes, 100u, "valid INT entry moved");
        NS_TEST_ASSERT_MSG_EQ(moved.meta.intStack[2].qlenBytes, 0x22222222u, "stale entry kept");

        // a middle packet (and an ACK) leaves the slot's end-host line as it was
        RdmaQueuedFrame middle;
        middle.meta = Filled(0x66, 0, SEND_MIDDLE);
        RdmaQueuedFrame middleSlot;
        middleSlot.meta = Filled(0x77, 0, WRITE_ONLY);
        const RdmaMeta before = middleSlot.meta;
        middleSlot = middle;
        NS_TEST_ASSERT_MSG_EQ(SameHop(middleSlot.meta, middle.meta), true, "middle: per-hop");
        NS_TEST_ASSERT_MSG_EQ(SameEnd(middleSlot.meta, before), true, "middle: end-host kept");

        // a PFC frame's class-enable vector and quanta are copied
        RdmaQueuedFrame pfc;
        pfc.meta = Filled(0x33, 0, 0);
        pfc.meta.kind = RdmaFrameKind::PFC;
        RdmaQueuedFrame pfcSlot;
        pfcSlot.meta = Filled(0x44, 0, WRITE_ONLY);
        pfcSlot = pfc;
        NS_TEST_ASSERT_MSG_EQ(SameHop(pfcSlot.meta, pfc.meta), true, "PFC frame headers");
        NS_TEST_ASSERT_MSG_EQ(SamePfc(pfcSlot.meta, pfc.meta), true, "PFC fields copied");

        RdmaQueuedFrame& alias = moved;
        moved = alias; // self-assignment keeps the frame
        NS_TEST_ASSERT_MSG_EQ(moved.packet, p, "packet kept");
        NS_TEST_ASSERT_MSG_EQ(SameHop(moved.meta, slot.meta), true, "headers kept");
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
