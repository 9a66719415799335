/*
 * Wire format of RoCEv2 and PFC frames: sizes, byte positions, IPv4 checksum,
 * 24-bit PSN/QP encoding, CE marking and header sync, parse round trips.
 */

#include "ns3/pfc-header.h"
#include "ns3/rdma-meta.h"
#include "ns3/roce-header.h"
#include "ns3/test.h"

#include <vector>

using namespace ns3;

namespace
{

/// Bytes of a packet.
std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

uint32_t
Be16(const std::vector<uint8_t>& b, size_t o)
{
    return uint32_t(b[o]) << 8 | b[o + 1];
}

uint32_t
Be24(const std::vector<uint8_t>& b, size_t o)
{
    return uint32_t(b[o]) << 16 | uint32_t(b[o + 1]) << 8 | b[o + 2];
}

/// One's complement sum over the IPv4 header (bytes 18..37): 0xFFFF when valid.
uint32_t
IpSum(const std::vector<uint8_t>& b)
{
    uint32_t sum = 0;
    for (size_t o = 18; o < 38; o += 2)
    {
        sum += Be16(b, o);
    }
    while (sum >> 16)
    {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return sum;
}

RdmaMeta
MakeMeta(uint8_t opcode, uint32_t payload)
{
    RdmaMeta m;
    m.kind = RdmaFrameKind::ROCE;
    m.opcode = opcode;
    m.payload = payload;
    m.priority = 3;
    m.ecn = 2;
    m.ttl = 64;
    m.srcIp = 0x0A000102; // 10.0.1.2
    m.dstIp = 0x0A000203; // 10.0.2.3
    m.sport = 0xC123;
    m.destQp = 0x000ABC;
    m.psn = 0x123456;
    m.ackReq = 1;
    m.rethVa = 0x1122334455667788ULL;
    m.rethLen = 1000;
    return m;
}

} // namespace

/// Frame sizes of every frame type.
class RdmaWireSizeTestCase : public TestCase
{
  public:
    RdmaWireSizeTestCase()
        : TestCase("frame sizes per opcode (bytes in packet and frameBytes incl. FCS)")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            uint8_t op;
            uint32_t payload;
            uint32_t pktBytes;
        };

        const Case cases[] = {
            {RoceOpcode::WRITE_ONLY, 1000, 14 + 4 + 20 + 8 + 12 + 16 + 1000 + 4}, // 1078
            {RoceOpcode::WRITE_FIRST, 1000, 1078},
            {RoceOpcode::WRITE_MIDDLE, 1000, 1062},
            {RoceOpcode::WRITE_LAST, 1000, 1062},
            {RoceOpcode::SEND_ONLY, 0, 62},
            {RoceOpcode::READ_REQUEST, 0, 78},
            {RoceOpcode::READ_RESP_FIRST, 1000, 1066},
            {RoceOpcode::READ_RESP_MIDDLE, 1000, 1062}, // no AETH (IB spec)
            {RoceOpcode::READ_RESP_ONLY, 4096, 4096 + 66},
            {RoceOpcode::ACK, 0, 66},
            {RoceOpcode::CNP, 0, 78},
        };
        for (const auto& c : cases)
        {
            RdmaMeta m = MakeMeta(c.op, c.payload);
            Ptr<Packet> p = RoceFrame::Build(m);
            NS_TEST_ASSERT_MSG_EQ((p->GetSize()), (c.pktBytes), "packet bytes, opcode " << +c.op);
            NS_TEST_ASSERT_MSG_EQ((m.frameBytes), (c.pktBytes + 4), "frameBytes, opcode " << +c.op);
            NS_TEST_ASSERT_MSG_EQ((RoceFrame::GetFrameBytes(m)),
                                  (c.pktBytes + 4),
                                  "GetFrameBytes, opcode " << +c.op);
            RdmaMeta r;
            NS_TEST_ASSERT_MSG_EQ((RoceFrame::Parse(p, r)), (true), "parse opcode " << +c.op);
            NS_TEST_ASSERT_MSG_EQ((r.payload), (c.payload), "parsed payload, opcode " << +c.op);
            NS_TEST_ASSERT_MSG_EQ((r.frameBytes), (m.frameBytes), "parsed frameBytes");
        }
        // The fixed example of the specification: WRITE ONLY 1000 B -> 1082 B with FCS.
        RdmaMeta w = MakeMeta(RoceOpcode::WRITE_ONLY, 1000);
        RoceFrame::Build(w);
        NS_TEST_ASSERT_MSG_EQ((w.frameBytes), (1082u), "WRITE ONLY 1000 B frame");
        // PFC: 60 bytes + FCS = 64-byte minimum frame.
        RdmaMeta pfc;
        pfc.kind = RdmaFrameKind::PFC;
        Ptr<Packet> pp = RoceFrame::Build(pfc);
        NS_TEST_ASSERT_MSG_EQ((pp->GetSize()), (60u), "PFC packet bytes");
        NS_TEST_ASSERT_MSG_EQ((pfc.frameBytes), (64u), "PFC frameBytes");
    }
};

/// Byte positions, checksum and parse round trip of a WRITE ONLY frame.
class RdmaWireBytesTestCase : public TestCase
{
  public:
    RdmaWireBytesTestCase()
        : TestCase("RoCEv2 bytes: 802.1Q PCP, IPv4 ECN TTL checksum, UDP 4791, BTH, RETH, ICRC")
    {
    }

  private:
    void DoRun() override
    {
        RdmaMeta m = MakeMeta(RoceOpcode::WRITE_ONLY, 1000);
        Ptr<Packet> p = RoceFrame::Build(m);
        std::vector<uint8_t> b = Bytes(p);
        // Ethernet + 802.1Q
        NS_TEST_ASSERT_MSG_EQ((b[0]), (0x02), "dst MAC locally administered");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 12)), (0x8100u), "TPID");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 14) >> 13), (3u), "PCP = priority");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 16)), (0x0800u), "EtherType IPv4");
        // IPv4
        NS_TEST_ASSERT_MSG_EQ((b[18]), (0x45), "version/IHL");
        NS_TEST_ASSERT_MSG_EQ((b[19] & 0x3), (2), "ECN ECT(0)");
        NS_TEST_ASSERT_MSG_EQ((b[19] >> 2), (3 << 3), "DSCP = CS3");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 20)), (1078u - 18u), "IPv4 total length");
        NS_TEST_ASSERT_MSG_EQ((b[26]), (64), "TTL");
        NS_TEST_ASSERT_MSG_EQ((b[27]), (17), "protocol UDP");
        NS_TEST_ASSERT_MSG_EQ((IpSum(b)), (0xFFFFu), "IPv4 header checksum valid");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 30) << 16 | Be16(b, 32)), (0x0A000102u), "src IP");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 34) << 16 | Be16(b, 36)), (0x0A000203u), "dst IP");
        // UDP
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 38)), (0xC123u), "UDP src port (entropy)");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 40)), (4791u), "UDP dst port");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 42)), (1078u - 38u), "UDP length");
        // BTH at 46
        NS_TEST_ASSERT_MSG_EQ((b[46]), (RoceOpcode::WRITE_ONLY), "BTH opcode");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 48)), (0xFFFFu), "P_Key");
        NS_TEST_ASSERT_MSG_EQ((Be24(b, 51)), (0x000ABCu), "dest QP");
        NS_TEST_ASSERT_MSG_EQ((b[54] >> 7), (1), "AckReq");
        NS_TEST_ASSERT_MSG_EQ((Be24(b, 55)), (0x123456u), "PSN");
        // RETH at 58
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 58)), (0x1122u), "RETH VA high bytes");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 70)), (0u), "RETH DMA length high");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 72)), (1000u), "RETH DMA length low");
        NS_TEST_ASSERT_MSG_EQ((Be24(b, 67)), (0x000ABCu), "RETH R_Key (model: QP number)");
        // payload zero, ICRC at the end
        NS_TEST_ASSERT_MSG_EQ((b[74]), (0), "payload first byte");
        NS_TEST_ASSERT_MSG_EQ((b[1073]), (0), "payload last byte");
        uint32_t icrc = b[1074] | b[1075] << 8 | b[1076] << 16 | uint32_t(b[1077]) << 24;
        NS_TEST_ASSERT_MSG_EQ((icrc), (RoceIcrcTrailer::kDefaultIcrc), "ICRC");

        RdmaMeta r;
        NS_TEST_ASSERT_MSG_EQ((RoceFrame::Parse(p, r)), (true), "parse");
        NS_TEST_ASSERT_MSG_EQ((+r.opcode), (+m.opcode), "opcode");
        NS_TEST_ASSERT_MSG_EQ((r.psn), (m.psn), "psn");
        NS_TEST_ASSERT_MSG_EQ((r.destQp), (m.destQp), "qp");
        NS_TEST_ASSERT_MSG_EQ((+r.ackReq), (1), "ackReq");
        NS_TEST_ASSERT_MSG_EQ((+r.priority), (3), "priority");
        NS_TEST_ASSERT_MSG_EQ((+r.ecn), (2), "ecn");
        NS_TEST_ASSERT_MSG_EQ((+r.ttl), (64), "ttl");
        NS_TEST_ASSERT_MSG_EQ((r.srcIp), (m.srcIp), "srcIp");
        NS_TEST_ASSERT_MSG_EQ((r.dstIp), (m.dstIp), "dstIp");
        NS_TEST_ASSERT_MSG_EQ((r.sport), (m.sport), "sport");
        NS_TEST_ASSERT_MSG_EQ((r.dport), (4791), "dport");
        NS_TEST_ASSERT_MSG_EQ((r.rethVa), (m.rethVa), "rethVa");
        NS_TEST_ASSERT_MSG_EQ((r.rethLen), (m.rethLen), "rethLen");
        NS_TEST_ASSERT_MSG_EQ((r.payload), (1000u), "payload");

        // A corrupted IPv4 header (TTL byte changed) fails the checksum check.
        b[26] = 63;
        Ptr<Packet> bad = Create<Packet>(b.data(), b.size());
        NS_TEST_ASSERT_MSG_EQ((RoceFrame::Parse(bad, r)), (false), "bad checksum rejected");

        // ACK: AETH syndrome + MSN.
        RdmaMeta a = MakeMeta(RoceOpcode::ACK, 0);
        a.aethSyndrome = 0x60; // NAK, PSN sequence error
        a.msn = 0xABCDEF;
        Ptr<Packet> ap = RoceFrame::Build(a);
        std::vector<uint8_t> ab = Bytes(ap);
        NS_TEST_ASSERT_MSG_EQ((ab[58]), (0x60), "AETH syndrome");
        NS_TEST_ASSERT_MSG_EQ((Be24(ab, 59)), (0xABCDEFu), "AETH MSN");
        NS_TEST_ASSERT_MSG_EQ((RoceFrame::Parse(ap, r)), (true), "parse ACK");
        NS_TEST_ASSERT_MSG_EQ((+r.aethSyndrome), (0x60), "parsed syndrome");
        NS_TEST_ASSERT_MSG_EQ((r.msn), (0xABCDEFu), "parsed MSN");

        // CNP: opcode 0x81 followed by 16 zero bytes.
        RdmaMeta c = MakeMeta(RoceOpcode::CNP, 0);
        std::vector<uint8_t> cb = Bytes(RoceFrame::Build(c));
        NS_TEST_ASSERT_MSG_EQ((cb[46]), (0x81), "CNP opcode");
        uint32_t nz = 0;
        for (size_t o = 58; o < 74; ++o)
        {
            nz += cb[o] != 0;
        }
        NS_TEST_ASSERT_MSG_EQ((nz), (0u), "CNP reserved bytes are zero");
    }
};

/// 24-bit PSN / QP encoding and wrap.
class RdmaWirePsnTestCase : public TestCase
{
  public:
    RdmaWirePsnTestCase()
        : TestCase("24-bit PSN and QP encoding, wrap modulo 2^24, AckReq bit kept apart")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t psns[] = {0, 1, 0xFFFFFE, 0xFFFFFF, 0x1000000, 0x1234567, 0xFFFFFFFF};
        for (uint32_t psn : psns)
        {
            for (uint8_t ackReq : {0, 1})
            {
                RdmaMeta m = MakeMeta(RoceOpcode::WRITE_MIDDLE, 1000);
                m.psn = psn;
                m.ackReq = ackReq;
                m.destQp = 0xFF000000 | psn; // upper 8 bits must be dropped
                Ptr<Packet> p = RoceFrame::Build(m);
                std::vector<uint8_t> b = Bytes(p);
                NS_TEST_ASSERT_MSG_EQ((Be24(b, 55)), (psn & 0xFFFFFF), "PSN bytes for " << psn);
                NS_TEST_ASSERT_MSG_EQ((b[54] >> 7), (ackReq), "AckReq bit for psn " << psn);
                NS_TEST_ASSERT_MSG_EQ((b[54] & 0x7F), (0), "reserved bits for psn " << psn);
                NS_TEST_ASSERT_MSG_EQ((b[50]), (0), "BTH reserved byte before QP");
                NS_TEST_ASSERT_MSG_EQ((Be24(b, 51)), (psn & 0xFFFFFF), "QP bytes");
                RdmaMeta r;
                NS_TEST_ASSERT_MSG_EQ((RoceFrame::Parse(p, r)), (true), "parse");
                NS_TEST_ASSERT_MSG_EQ((r.psn), (psn & 0xFFFFFF), "parsed PSN wraps");
                NS_TEST_ASSERT_MSG_EQ((+r.ackReq), (+ackReq), "parsed AckReq");
            }
        }
        // A sequence crossing the wrap: 0xFFFFFE, 0xFFFFFF, 0x000000, 0x000001.
        uint32_t prev = 0xFFFFFD;
        for (uint32_t k = 0; k < 4; ++k)
        {
            RdmaMeta m = MakeMeta(RoceOpcode::WRITE_MIDDLE, 100);
            m.psn = (0xFFFFFE + k) & 0xFFFFFF;
            RdmaMeta r;
            RoceFrame::Parse(RoceFrame::Build(m), r);
            NS_TEST_ASSERT_MSG_EQ(((r.psn - prev) & 0xFFFFFF), (1u), "consecutive modulo 2^24");
            prev = r.psn;
        }
        NS_TEST_ASSERT_MSG_EQ((prev), (1u), "last PSN after the wrap");
    }
};

/// CE marking and header sync rewrite both bytes and meta.
class RdmaWireCeTestCase : public TestCase
{
  public:
    RdmaWireCeTestCase()
        : TestCase("SetCe rewrites ECN in bytes and meta, checksum stays valid; Sync rewrites TTL")
    {
    }

  private:
    void DoRun() override
    {
        RdmaMeta m = MakeMeta(RoceOpcode::WRITE_MIDDLE, 1000);
        Ptr<Packet> orig = RoceFrame::Build(m);
        Ptr<Packet> p = orig;
        uint16_t csBefore = uint16_t(Be16(Bytes(p), 28));
        RoceFrame::SetCe(p, m);
        NS_TEST_ASSERT_MSG_EQ((+m.ecn), (3), "meta CE");
        std::vector<uint8_t> b = Bytes(p);
        NS_TEST_ASSERT_MSG_EQ((b[19] & 0x3), (3), "bytes CE");
        NS_TEST_ASSERT_MSG_EQ((b[19] >> 2), (3 << 3), "DSCP kept");
        NS_TEST_ASSERT_MSG_EQ((IpSum(b)), (0xFFFFu), "checksum valid after CE");
        NS_TEST_ASSERT_MSG_NE((uint16_t(Be16(b, 28))), (csBefore), "checksum changed");
        NS_TEST_ASSERT_MSG_EQ((p->GetSize()), (1062u), "size unchanged");
        NS_TEST_ASSERT_MSG_EQ((Bytes(orig)[19] & 0x3), (2), "original packet untouched");
        RdmaMeta r;
        NS_TEST_ASSERT_MSG_EQ((RoceFrame::Parse(p, r)), (true), "parse CE frame");
        NS_TEST_ASSERT_MSG_EQ((+r.ecn), (3), "parsed CE");
        NS_TEST_ASSERT_MSG_EQ((r.psn), (m.psn), "psn kept");

        m.ttl = 61;
        m.psn = 77;
        RoceFrame::Sync(p, m);
        b = Bytes(p);
        NS_TEST_ASSERT_MSG_EQ((b[26]), (61), "TTL synced");
        NS_TEST_ASSERT_MSG_EQ((Be24(b, 55)), (77u), "PSN synced");
        NS_TEST_ASSERT_MSG_EQ((IpSum(b)), (0xFFFFu), "checksum valid after Sync");
        NS_TEST_ASSERT_MSG_EQ((b[19] & 0x3), (3), "CE kept by Sync");
    }
};

/// PFC frame bytes.
class RdmaWirePfcTestCase : public TestCase
{
  public:
    RdmaWirePfcTestCase()
        : TestCase("PFC frame: 01:80:C2:00:00:01, 0x8808, opcode 0x0101, CEV, 8 quanta, 60 B")
    {
    }

  private:
    void DoRun() override
    {
        RdmaMeta m;
        m.pfcClassEnable = 0x0108; // bit 8 is reserved and must not be sent
        m.pfcQuanta[3] = 0xFFFF;
        m.pfcQuanta[0] = 7;
        Ptr<Packet> p = RoceFrame::BuildPfc(m, Mac48Address("02:00:00:00:00:07"));
        NS_TEST_ASSERT_MSG_EQ((m.frameBytes), (64u), "frameBytes");
        std::vector<uint8_t> b = Bytes(p);
        NS_TEST_ASSERT_MSG_EQ((b.size()), (60u), "bytes");
        const uint8_t dst[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
        for (int k = 0; k < 6; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ((b[k]), (dst[k]), "dst MAC byte " << k);
        }
        NS_TEST_ASSERT_MSG_EQ((b[11]), (0x07), "src MAC");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 12)), (0x8808u), "EtherType");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 14)), (0x0101u), "opcode");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 16)), (0x0008u), "class-enable vector (reserved bits 0)");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 18 + 2 * 3)), (0xFFFFu), "quanta class 3");
        NS_TEST_ASSERT_MSG_EQ((Be16(b, 18 + 2 * 0)), (7u), "quanta class 0");
        NS_TEST_ASSERT_MSG_EQ((b[59]), (0), "padding");
        RdmaMeta r;
        NS_TEST_ASSERT_MSG_EQ((RoceFrame::Parse(p, r)), (true), "parse PFC");
        NS_TEST_ASSERT_MSG_EQ((r.kind == RdmaFrameKind::PFC), (true), "kind");
        NS_TEST_ASSERT_MSG_EQ((r.pfcClassEnable), (0x0008), "parsed CEV");
        NS_TEST_ASSERT_MSG_EQ((r.pfcQuanta[3]), (0xFFFF), "parsed quanta");
        NS_TEST_ASSERT_MSG_EQ((r.frameBytes), (64u), "parsed frameBytes");
    }
};

/// Wire format test suite.
class RdmaWireTestSuite : public TestSuite
{
  public:
    RdmaWireTestSuite()
        : TestSuite("astra-sim-rdma-wire", UNIT)
    {
        AddTestCase(new RdmaWireSizeTestCase, TestCase::QUICK);
        AddTestCase(new RdmaWireBytesTestCase, TestCase::QUICK);
        AddTestCase(new RdmaWirePsnTestCase, TestCase::QUICK);
        AddTestCase(new RdmaWireCeTestCase, TestCase::QUICK);
        AddTestCase(new RdmaWirePfcTestCase, TestCase::QUICK);
    }
};

static RdmaWireTestSuite g_rdmaWireTestSuite; //!< registration
