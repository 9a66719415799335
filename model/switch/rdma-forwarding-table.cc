#include "rdma-forwarding-table.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaForwardingTable");
NS_OBJECT_ENSURE_REGISTERED(RdmaForwardingTable);

TypeId
RdmaForwardingTable::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaForwardingTable")
                            .SetParent<Object>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<RdmaForwardingTable>()
                            .AddAttribute("Seed",
                                          "ECMP hash seed of this node",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&RdmaForwardingTable::m_seed),
                                          MakeUintegerChecker<uint32_t>());
    return tid;
}

RdmaForwardingTable::RdmaForwardingTable() = default;
RdmaForwardingTable::~RdmaForwardingTable() = default;

void
RdmaForwardingTable::Clear()
{
    m_ports.clear();
    m_hops.clear();
}

void
RdmaForwardingTable::SetRoute(uint32_t dstHostIndex,
                              const std::vector<uint32_t>& ports,
                              uint32_t hops)
{
    CheckHost(dstHostIndex);
    if (dstHostIndex >= m_ports.size())
    {
        m_ports.resize(dstHostIndex + 1);
        m_hops.resize(dstHostIndex + 1, 0xFFFFFFFFu);
    }
    m_ports[dstHostIndex] = ports;
    m_hops[dstHostIndex] = hops;
}

void
RdmaForwardingTable::CheckHost(uint32_t dstHostIndex)
{
    if (dstHostIndex >= RdmaAddressing::kMaxHosts)
    {
        throw astra::InputError("RdmaForwardingTable: host index " + std::to_string(dstHostIndex) +
                                " exceeds the address plan (at most " +
                                std::to_string(RdmaAddressing::kMaxHosts) + " hosts)");
    }
}

void
RdmaForwardingTable::AddRoute(uint32_t dstHostIndex, uint32_t port)
{
    CheckHost(dstHostIndex);
    if (dstHostIndex >= m_ports.size())
    {
        m_ports.resize(dstHostIndex + 1);
        m_hops.resize(dstHostIndex + 1, 0xFFFFFFFFu);
    }
    std::vector<uint32_t>& v = m_ports[dstHostIndex];
    if (std::find(v.begin(), v.end(), port) == v.end())
    {
        v.push_back(port);
    }
}

uint32_t
RdmaForwardingTable::GetHops(uint32_t dstHostIndex) const
{
    return dstHostIndex < m_hops.size() ? m_hops[dstHostIndex] : 0xFFFFFFFFu;
}

} // namespace ns3
