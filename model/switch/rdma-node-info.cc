#include "rdma-node-info.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaNodeInfo);

TypeId
RdmaNodeInfo::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaNodeInfo")
                            .SetParent<Object>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<RdmaNodeInfo>();
    return tid;
}

RdmaNodeInfo::RdmaNodeInfo() = default;
RdmaNodeInfo::~RdmaNodeInfo() = default;

void
RdmaNodeInfo::DoDispose()
{
    m_ports.clear();
    Object::DoDispose();
}

void
RdmaNodeInfo::SetHost(uint32_t hostIndex)
{
    m_isHost = true;
    m_hostIndex = hostIndex;
}

void
RdmaNodeInfo::SetSwitch()
{
    m_isHost = false;
    m_hostIndex = RdmaAddressing::kInvalidHost;
}

void
RdmaNodeInfo::SetGhost(bool ghost)
{
    m_ghost = ghost;
}

bool
RdmaNodeInfo::IsGhost() const
{
    return m_ghost;
}

void
RdmaNodeInfo::SetRelay(bool relay)
{
    m_relay = relay;
}

bool
RdmaNodeInfo::IsRelay() const
{
    return m_relay;
}

bool
RdmaNodeInfo::IsHost() const
{
    return m_isHost;
}

uint32_t
RdmaNodeInfo::GetHostIndex() const
{
    return m_hostIndex;
}

uint32_t
RdmaNodeInfo::GetIp() const
{
    return m_isHost ? RdmaAddressing::HostIndexToIp(m_hostIndex) : 0;
}

uint32_t
RdmaNodeInfo::AddPort(Ptr<RdmaNetDevice> dev)
{
    const uint32_t idx = static_cast<uint32_t>(m_ports.size());
    dev->SetPortIndex(idx);
    m_ports.push_back(dev);
    return idx;
}

uint32_t
RdmaNodeInfo::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<RdmaNetDevice>
RdmaNodeInfo::GetPort(uint32_t i) const
{
    return m_ports.at(i);
}

} // namespace ns3
