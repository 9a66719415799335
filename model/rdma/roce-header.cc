#include "roce-header.h"

#include "pfc-header.h"

#include "ns3/abort.h"
#include "ns3/address-utils.h"
#include "ns3/log.h"

#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceHeader");

NS_OBJECT_ENSURE_REGISTERED(RoceHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceIcrcTrailer);

namespace
{
constexpr uint16_t kTpidVlan = 0x8100;
constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint8_t kIpProtoUdp = 17;
constexpr uint16_t kIpFlagsDf = 0x4000;
constexpr uint16_t kPkeyDefault = 0xFFFF;
constexpr uint32_t kMask24 = 0x00FFFFFF;
/// Ethernet with 802.1Q, IPv4, UDP, BTH and the largest extension (RETH + ImmDt of
/// RDMA WRITE Only with Immediate)
constexpr uint32_t kMaxHeaderBytes = 18 + 20 + 8 + 12 + 16 + 4;

/// IPv4 total length for meta (IPv4 + UDP + BTH + ext + payload + ICRC).
inline uint32_t
Ipv4TotalLength(const RdmaMeta& m)
{
    return RoceHeader::kIpv4Bytes + RoceHeader::kUdpBytes + RoceHeader::kBthBytes +
           RoceHeader::GetExtBytes(m.opcode) + m.payload + RoceHeader::kIcrcBytes;
}

inline uint8_t
Tos(const RdmaMeta& m)
{
    return static_cast<uint8_t>(((m.priority & 0x7) << 5) | (m.ecn & 0x3));
}
} // namespace

// ---------------------------------------------------------------------------- RoceHeader

TypeId
RoceHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceHeader")
                            .SetParent<Header>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<RoceHeader>();
    return tid;
}

TypeId
RoceHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

RoceHeader::RoceHeader() = default;

RoceHeader::RoceHeader(const RdmaMeta& meta, Mac48Address src, Mac48Address dst)
    : m_meta(meta),
      m_src(src),
      m_dst(dst)
{
}

uint32_t
RoceHeader::GetExtBytes(uint8_t opcode)
{
    switch (opcode)
    {
    case RoceOpcode::WRITE_FIRST:
    case RoceOpcode::WRITE_ONLY:
    case RoceOpcode::READ_REQUEST:
        return 16; // RETH
    case RoceOpcode::ACK:
    case RoceOpcode::READ_RESP_FIRST:
    case RoceOpcode::READ_RESP_LAST:
    case RoceOpcode::READ_RESP_ONLY:
        return 4; // AETH (IB spec: READ Response Middle carries none)
    case RoceOpcode::CNP:
        return 16; // reserved bytes
    case RoceOpcode::WRITE_ONLY_IMM:
        return 16 + 4; // RETH, ImmDt
    case RoceOpcode::WRITE_LAST_IMM:
    case RoceOpcode::SEND_LAST_IMM:
    case RoceOpcode::SEND_ONLY_IMM:
        return 4; // ImmDt
    default:
        return 0;
    }
}

uint32_t
RoceHeader::GetHeaderBytes(uint8_t opcode)
{
    return kEthBytes + kIpv4Bytes + kUdpBytes + kBthBytes + GetExtBytes(opcode);
}

const RdmaMeta&
RoceHeader::GetMeta() const
{
    return m_meta;
}

RdmaMeta&
RoceHeader::GetMeta()
{
    return m_meta;
}

Mac48Address
RoceHeader::GetSource() const
{
    return m_src;
}

Mac48Address
RoceHeader::GetDestination() const
{
    return m_dst;
}

bool
RoceHeader::IsIpv4ChecksumOk() const
{
    return m_checksumOk;
}

bool
RoceHeader::IsValid() const
{
    return m_valid;
}

uint16_t
RoceHeader::GetIpv4Checksum() const
{
    return m_ipChecksum;
}

uint16_t
RoceHeader::ComputeIpv4Checksum(const RdmaMeta& m)
{
    uint32_t sum = (0x45u << 8) | Tos(m);
    sum += Ipv4TotalLength(m);
    sum += 0;          // identification
    sum += kIpFlagsDf; // flags + fragment offset
    sum += (uint32_t(m.ttl) << 8) | kIpProtoUdp;
    sum += (m.srcIp >> 16) + (m.srcIp & 0xFFFF);
    sum += (m.dstIp >> 16) + (m.dstIp & 0xFFFF);
    while (sum >> 16)
    {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return static_cast<uint16_t>(~sum & 0xFFFF);
}

void
RoceHeader::Print(std::ostream& os) const
{
    os << "RoCEv2 " << m_src << "->" << m_dst << " pcp=" << +m_meta.priority
       << " ecn=" << +m_meta.ecn << " ttl=" << +m_meta.ttl << " sport=" << m_meta.sport << " op=0x"
       << std::hex << +m_meta.opcode << std::dec << " qp=" << m_meta.destQp << " psn=" << m_meta.psn
       << " payload=" << m_meta.payload;
}

uint32_t
RoceHeader::GetSerializedSize() const
{
    return GetHeaderBytes(m_meta.opcode);
}

namespace
{
/// Big-endian stores into a byte array (the header is assembled locally and written to
/// the buffer with one Buffer::Iterator::Write: one call instead of ~40).
inline uint8_t*
Put16(uint8_t* b, uint16_t v)
{
    b[0] = uint8_t(v >> 8);
    b[1] = uint8_t(v);
    return b + 2;
}

inline uint8_t*
Put32(uint8_t* b, uint32_t v)
{
    b[0] = uint8_t(v >> 24);
    b[1] = uint8_t(v >> 16);
    b[2] = uint8_t(v >> 8);
    b[3] = uint8_t(v);
    return b + 4;
}
} // namespace

void
RoceHeader::Serialize(Buffer::Iterator i) const
{
    const RdmaMeta& m = m_meta;
    uint8_t buf[kMaxHeaderBytes];
    uint8_t* b = buf;
    // Ethernet II with 802.1Q tag
    m_dst.CopyTo(b);
    m_src.CopyTo(b + 6);
    b += 12;
    b = Put16(b, kTpidVlan);
    b = Put16(b, static_cast<uint16_t>((m.priority & 0x7) << 13)); // PCP, DEI 0, VID 0
    b = Put16(b, kEtherTypeIpv4);
    // IPv4
    const uint16_t totalLen = static_cast<uint16_t>(Ipv4TotalLength(m));
    *b++ = 0x45;
    *b++ = Tos(m);
    b = Put16(b, totalLen);
    b = Put16(b, 0); // identification
    b = Put16(b, kIpFlagsDf);
    *b++ = m.ttl;
    *b++ = kIpProtoUdp;
    b = Put16(b, ComputeIpv4Checksum(m));
    b = Put32(b, m.srcIp);
    b = Put32(b, m.dstIp);
    // UDP (checksum 0: not computed, allowed for RoCEv2 over IPv4)
    b = Put16(b, m.sport);
    b = Put16(b, m.dport);
    b = Put16(b, static_cast<uint16_t>(totalLen - kIpv4Bytes));
    b = Put16(b, 0);
    // BTH
    *b++ = m.opcode;
    *b++ = 0; // SE 0, M 0, PadCnt 0, TVer 0
    b = Put16(b, kPkeyDefault);
    b = Put32(b, m.destQp & kMask24); // reserved byte + 24-bit destination QP
    b = Put32(b, (uint32_t(m.ackReq ? 1 : 0) << 31) | (m.psn & kMask24));
    // extension headers
    switch (m.opcode)
    {
    case RoceOpcode::WRITE_FIRST:
    case RoceOpcode::WRITE_ONLY:
    case RoceOpcode::READ_REQUEST:
        b = Put32(b, static_cast<uint32_t>(m.rethVa >> 32));
        b = Put32(b, static_cast<uint32_t>(m.rethVa));
        b = Put32(b, m.destQp & kMask24); // R_Key: the model uses the QP number
        b = Put32(b, m.rethLen);
        break;
    case RoceOpcode::WRITE_ONLY_IMM:
        b = Put32(b, static_cast<uint32_t>(m.rethVa >> 32));
        b = Put32(b, static_cast<uint32_t>(m.rethVa));
        b = Put32(b, m.destQp & kMask24);
        b = Put32(b, m.rethLen);
        b = Put32(b, m.immData);
        break;
    case RoceOpcode::WRITE_LAST_IMM:
    case RoceOpcode::SEND_LAST_IMM:
    case RoceOpcode::SEND_ONLY_IMM:
        b = Put32(b, m.immData);
        break;
    case RoceOpcode::ACK:
    case RoceOpcode::READ_RESP_FIRST:
    case RoceOpcode::READ_RESP_LAST:
    case RoceOpcode::READ_RESP_ONLY:
        b = Put32(b, (uint32_t(m.aethSyndrome) << 24) | (m.msn & kMask24));
        break;
    case RoceOpcode::CNP:
        std::memset(b, 0, 16);
        b += 16;
        break;
    default:
        break;
    }
    i.Write(buf, static_cast<uint32_t>(b - buf));
}

uint32_t
RoceHeader::Deserialize(Buffer::Iterator i)
{
    RdmaMeta& m = m_meta;
    m = RdmaMeta();
    m.kind = RdmaFrameKind::ROCE;
    m_valid = true;
    ReadFrom(i, m_dst);
    ReadFrom(i, m_src);
    uint16_t type = i.ReadNtohU16();
    if (type != kTpidVlan)
    {
        m_valid = false;
        return 14;
    }
    uint16_t tci = i.ReadNtohU16();
    m.priority = static_cast<uint8_t>(tci >> 13);
    type = i.ReadNtohU16();
    if (type != kEtherTypeIpv4)
    {
        m_valid = false;
        return kEthBytes;
    }
    // IPv4: sum all ten 16-bit words (checksum included) for verification
    uint8_t verIhl = i.ReadU8();
    uint8_t tos = i.ReadU8();
    uint16_t totalLen = i.ReadNtohU16();
    uint16_t ident = i.ReadNtohU16();
    uint16_t flags = i.ReadNtohU16();
    m.ttl = i.ReadU8();
    uint8_t proto = i.ReadU8();
    m_ipChecksum = i.ReadNtohU16();
    m.srcIp = i.ReadNtohU32();
    m.dstIp = i.ReadNtohU32();
    m.ecn = tos & 0x3;
    uint32_t sum = (uint32_t(verIhl) << 8 | tos) + totalLen + ident + flags +
                   (uint32_t(m.ttl) << 8 | proto) + m_ipChecksum + (m.srcIp >> 16) +
                   (m.srcIp & 0xFFFF) + (m.dstIp >> 16) + (m.dstIp & 0xFFFF);
    while (sum >> 16)
    {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    m_checksumOk = (sum == 0xFFFF);
    if (verIhl != 0x45 || proto != kIpProtoUdp)
    {
        m_valid = false;
        return kEthBytes + kIpv4Bytes;
    }
    // UDP
    m.sport = i.ReadNtohU16();
    m.dport = i.ReadNtohU16();
    i.ReadNtohU16(); // length
    i.ReadNtohU16(); // checksum
    // BTH
    m.opcode = i.ReadU8();
    i.ReadU8();
    i.ReadNtohU16(); // P_Key
    m.destQp = i.ReadNtohU32() & kMask24;
    uint32_t w = i.ReadNtohU32();
    m.ackReq = static_cast<uint8_t>(w >> 31);
    m.psn = w & kMask24;
    switch (m.opcode)
    {
    case RoceOpcode::WRITE_FIRST:
    case RoceOpcode::WRITE_ONLY:
    case RoceOpcode::READ_REQUEST:
        m.rethVa = i.ReadNtohU64();
        i.ReadNtohU32(); // R_Key
        m.rethLen = i.ReadNtohU32();
        break;
    case RoceOpcode::WRITE_ONLY_IMM:
        m.rethVa = i.ReadNtohU64();
        i.ReadNtohU32(); // R_Key
        m.rethLen = i.ReadNtohU32();
        m.immData = i.ReadNtohU32();
        break;
    case RoceOpcode::WRITE_LAST_IMM:
    case RoceOpcode::SEND_LAST_IMM:
    case RoceOpcode::SEND_ONLY_IMM:
        m.immData = i.ReadNtohU32();
        break;
    case RoceOpcode::ACK:
    case RoceOpcode::READ_RESP_FIRST:
    case RoceOpcode::READ_RESP_LAST:
    case RoceOpcode::READ_RESP_ONLY:
        w = i.ReadNtohU32();
        m.aethSyndrome = static_cast<uint8_t>(w >> 24);
        m.msn = w & kMask24;
        break;
    case RoceOpcode::CNP:
        i.Next(16);
        break;
    default:
        break;
    }
    uint32_t fixed = kIpv4Bytes + kUdpBytes + kBthBytes + GetExtBytes(m.opcode) + kIcrcBytes;
    if (totalLen < fixed)
    {
        m_valid = false;
        m.payload = 0;
    }
    else
    {
        m.payload = totalLen - fixed;
    }
    m.frameBytes = RoceFrame::GetFrameBytes(m);
    return GetHeaderBytes(m.opcode);
}

// ---------------------------------------------------------------------- RoceIcrcTrailer

TypeId
RoceIcrcTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceIcrcTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<RoceIcrcTrailer>();
    return tid;
}

TypeId
RoceIcrcTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

RoceIcrcTrailer::RoceIcrcTrailer()
    : m_icrc(kDefaultIcrc)
{
}

RoceIcrcTrailer::RoceIcrcTrailer(uint32_t icrc)
    : m_icrc(icrc)
{
}

uint32_t
RoceIcrcTrailer::GetIcrc() const
{
    return m_icrc;
}

void
RoceIcrcTrailer::Print(std::ostream& os) const
{
    os << "ICRC=0x" << std::hex << m_icrc << std::dec;
}

uint32_t
RoceIcrcTrailer::GetSerializedSize() const
{
    return 4;
}

void
RoceIcrcTrailer::Serialize(Buffer::Iterator end) const
{
    end.Prev(4);
    end.WriteU32(m_icrc); // ICRC is transmitted little-endian (like the FCS)
}

uint32_t
RoceIcrcTrailer::Deserialize(Buffer::Iterator end)
{
    end.Prev(4);
    m_icrc = end.ReadU32();
    return 4;
}

// --------------------------------------------------------------------------- RoceFrame

uint32_t
RoceFrame::GetFrameBytes(const RdmaMeta& m)
{
    if (m.kind == RdmaFrameKind::PFC)
    {
        return PfcHeader::kFrameBytes + RoceHeader::kFcsBytes;
    }
    // The smallest RoCE frame (no extension header, no payload) has 62 bytes + FCS,
    // above the 64-byte Ethernet minimum: no padding is ever needed.
    return RoceHeader::GetHeaderBytes(m.opcode) + m.payload + RoceHeader::kIcrcBytes +
           RoceHeader::kFcsBytes;
}

Mac48Address
RoceFrame::MacFromIp(uint32_t ip)
{
    uint8_t b[6] =
        {0x02, 0x00, uint8_t(ip >> 24), uint8_t(ip >> 16), uint8_t(ip >> 8), uint8_t(ip)};
    Mac48Address a;
    a.CopyFrom(b);
    return a;
}

Mac48Address
RoceFrame::MacFromNodePort(uint32_t nodeId, uint32_t port)
{
    uint8_t b[6] = {0x02,
                    uint8_t(nodeId >> 16),
                    uint8_t(nodeId >> 8),
                    uint8_t(nodeId),
                    uint8_t(port >> 8),
                    uint8_t(port)};
    Mac48Address a;
    a.CopyFrom(b);
    return a;
}

Ptr<Packet>
RoceFrame::Build(RdmaMeta& meta, Mac48Address src, Mac48Address dst)
{
    if (meta.kind == RdmaFrameKind::PFC)
    {
        return BuildPfc(meta, src);
    }
    meta.frameBytes = GetFrameBytes(meta);
    Ptr<Packet> p = Create<Packet>(meta.payload); // zero area: no payload allocation
    p->AddHeader(RoceHeader(meta, src, dst));
    p->AddTrailer(RoceIcrcTrailer());
    return p;
}

Ptr<Packet>
RoceFrame::Build(RdmaMeta& meta)
{
    if (meta.kind == RdmaFrameKind::PFC)
    {
        return BuildPfc(meta, Mac48Address("02:00:00:00:00:00"));
    }
    return Build(meta, MacFromIp(meta.srcIp), MacFromIp(meta.dstIp));
}

Ptr<Packet>
RoceFrame::Build(const RdmaMeta& meta)
{
    RdmaMeta copy = meta;
    return Build(copy);
}

Ptr<Packet>
RoceFrame::BuildPfc(RdmaMeta& meta, Mac48Address src)
{
    meta.kind = RdmaFrameKind::PFC;
    meta.frameBytes = PfcHeader::kFrameBytes + RoceHeader::kFcsBytes;
    PfcHeader h;
    h.SetSource(src);
    h.SetClassEnable(meta.pfcClassEnable);
    for (uint8_t p = 0; p < 8; ++p)
    {
        h.SetQuanta(p, meta.pfcQuanta[p]);
    }
    Ptr<Packet> pkt = Create<Packet>();
    pkt->AddHeader(h);
    return pkt;
}

void
RoceFrame::SetCe(Ptr<Packet>& packet, RdmaMeta& meta)
{
    NS_ABORT_MSG_IF(meta.kind != RdmaFrameKind::ROCE, "RoceFrame::SetCe on a non-RoCE frame");
    meta.ecn = 3;
    if (!packet)
    {
        return; // lazily built frame: the bytes will be built from meta
    }
    Ptr<Packet> p = packet->Copy();
    RoceHeader h;
    p->RemoveHeader(h);
    NS_ABORT_MSG_IF(!h.IsValid(), "RoceFrame::SetCe: packet is not a RoCEv2 frame");
    h.GetMeta().ecn = 3;
    p->AddHeader(h);
    packet = p;
}

void
RoceFrame::Sync(Ptr<Packet>& packet, RdmaMeta& meta)
{
    if (meta.kind == RdmaFrameKind::PFC)
    {
        PfcHeader old;
        packet->PeekHeader(old);
        packet = BuildPfc(meta, old.GetSource());
        return;
    }
    if (!packet)
    {
        meta.frameBytes = GetFrameBytes(meta); // lazily built frame: meta is the truth
        return;
    }
    Ptr<Packet> p = packet->Copy();
    RoceHeader h;
    p->RemoveHeader(h);
    NS_ABORT_MSG_IF(!h.IsValid(), "RoceFrame::Sync: packet is not a RoCEv2 frame");
    NS_ABORT_MSG_IF(
        h.GetMeta().payload != meta.payload ||
            RoceHeader::GetExtBytes(h.GetMeta().opcode) != RoceHeader::GetExtBytes(meta.opcode),
        "RoceFrame::Sync: payload size or header layout changed ("
            << h.GetMeta().payload << " -> " << meta.payload << " B); build a new frame instead");
    meta.frameBytes = GetFrameBytes(meta);
    p->AddHeader(RoceHeader(meta, h.GetSource(), h.GetDestination()));
    packet = p;
}

bool
RoceFrame::Parse(Ptr<const Packet> packet, RdmaMeta& meta)
{
    uint8_t buf[kMaxHeaderBytes];
    uint32_t size = packet->GetSize();
    uint32_t n = packet->CopyData(buf, std::min<uint32_t>(size, kMaxHeaderBytes));
    if (n < 14)
    {
        return false;
    }
    uint16_t type = uint16_t(buf[12] << 8 | buf[13]);
    if (type == PfcHeader::kEtherType)
    {
        if (size < PfcHeader::kFrameBytes)
        {
            return false;
        }
        PfcHeader h;
        packet->PeekHeader(h);
        if (!h.IsValid() || h.GetDestination() != PfcHeader::GetPfcDestination())
        {
            return false;
        }
        meta = RdmaMeta();
        meta.kind = RdmaFrameKind::PFC;
        meta.pfcClassEnable = h.GetClassEnable();
        for (uint8_t p = 0; p < 8; ++p)
        {
            meta.pfcQuanta[p] = h.GetQuanta(p);
        }
        meta.frameBytes = size + RoceHeader::kFcsBytes;
        return true;
    }
    const uint32_t bthEnd = RoceHeader::GetHeaderBytes(0xFF); // no extension
    if (type != kTpidVlan || n < bthEnd)
    {
        return false;
    }
    uint8_t opcode = buf[bthEnd - RoceHeader::kBthBytes];
    if (size < RoceHeader::GetHeaderBytes(opcode) + RoceHeader::kIcrcBytes)
    {
        return false;
    }
    RoceHeader h;
    packet->PeekHeader(h);
    if (!h.IsValid() || !h.IsIpv4ChecksumOk())
    {
        return false;
    }
    meta = h.GetMeta();
    // The IPv4 total length must agree with the packet's size.
    if (meta.frameBytes != size + RoceHeader::kFcsBytes)
    {
        return false;
    }
    return true;
}

} // namespace ns3
