#include "pfc-header.h"

#include "ns3/address-utils.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcHeader");

NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

PfcHeader::PfcHeader()
    : m_dst(GetPfcDestination())
{
}

Mac48Address
PfcHeader::GetPfcDestination()
{
    static const Mac48Address dst("01:80:c2:00:00:01");
    return dst;
}

void
PfcHeader::SetSource(Mac48Address src)
{
    m_src = src;
}

Mac48Address
PfcHeader::GetSource() const
{
    return m_src;
}

Mac48Address
PfcHeader::GetDestination() const
{
    return m_dst;
}

void
PfcHeader::SetClassEnable(uint16_t v)
{
    // 802.1Qbb: the 8 most significant bits of the vector are reserved (0).
    m_classEnable = v & 0x00FF;
}

uint16_t
PfcHeader::GetClassEnable() const
{
    return m_classEnable;
}

void
PfcHeader::SetQuanta(uint8_t priority, uint16_t quanta)
{
    NS_ABORT_MSG_IF(priority > 7, "PfcHeader: priority " << +priority << " out of range 0..7");
    m_quanta[priority] = quanta;
}

uint16_t
PfcHeader::GetQuanta(uint8_t priority) const
{
    NS_ABORT_MSG_IF(priority > 7, "PfcHeader: priority " << +priority << " out of range 0..7");
    return m_quanta[priority];
}

bool
PfcHeader::IsValid() const
{
    return m_valid;
}

void
PfcHeader::Print(std::ostream& os) const
{
    os << "PFC src=" << m_src << " cev=0x" << std::hex << m_classEnable << std::dec << " quanta=[";
    for (int p = 0; p < 8; ++p)
    {
        os << (p ? "," : "") << m_quanta[p];
    }
    os << "]";
}

uint32_t
PfcHeader::GetSerializedSize() const
{
    return kFrameBytes;
}

void
PfcHeader::Serialize(Buffer::Iterator i) const
{
    WriteTo(i, m_dst);
    WriteTo(i, m_src);
    i.WriteHtonU16(kEtherType);
    i.WriteHtonU16(kOpcode);
    i.WriteHtonU16(m_classEnable);
    for (int p = 0; p < 8; ++p)
    {
        i.WriteHtonU16(m_quanta[p]);
    }
    // 6 + 6 + 2 + 2 + 2 + 16 = 34 bytes; pad with zeros to the 60-byte minimum.
    i.WriteU8(0, kFrameBytes - 34);
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator i)
{
    ReadFrom(i, m_dst);
    ReadFrom(i, m_src);
    uint16_t type = i.ReadNtohU16();
    uint16_t opcode = i.ReadNtohU16();
    m_valid = (type == kEtherType && opcode == kOpcode);
    m_classEnable = i.ReadNtohU16();
    for (int p = 0; p < 8; ++p)
    {
        m_quanta[p] = i.ReadNtohU16();
    }
    return kFrameBytes;
}

} // namespace ns3
