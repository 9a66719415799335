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
    m_entry.clear();
    m_sets.clear();
    m_setIds.clear();
    m_hops.clear();
}

void
RdmaForwardingTable::SetRoute(uint32_t dstHostIndex,
                              const std::vector<uint32_t>& ports,
                              uint32_t hops)
{
    CheckHost(dstHostIndex);
    Store(dstHostIndex, ports);
    m_hops[dstHostIndex] = hops;
}

void
RdmaForwardingTable::Store(uint32_t dstHostIndex, const std::vector<uint32_t>& ports)
{
    for (uint32_t p : ports)
    {
        if (p >= kSetBit)
        {
            throw astra::InputError("RdmaForwardingTable: port index " + std::to_string(p) +
                                    " towards host " + std::to_string(dstHostIndex) +
                                    " is out of range");
        }
    }
    if (dstHostIndex >= m_entry.size())
    {
        m_entry.resize(dstHostIndex + 1, kNoRoute);
        m_hops.resize(dstHostIndex + 1, 0xFFFFFFFFu);
    }
    if (ports.empty())
    {
        m_entry[dstHostIndex] = kNoRoute;
        return;
    }
    if (ports.size() == 1)
    {
        m_entry[dstHostIndex] = ports[0];
        return;
    }
    auto it = m_setIds.find(ports);
    if (it == m_setIds.end())
    {
        const uint32_t offset = static_cast<uint32_t>(m_sets.size());
        if (offset + ports.size() + 1 >= kSetBit)
        {
            throw astra::InputError("RdmaForwardingTable: too many distinct ECMP port sets");
        }
        m_sets.push_back(static_cast<uint32_t>(ports.size()));
        m_sets.insert(m_sets.end(), ports.begin(), ports.end());
        it = m_setIds.emplace(ports, offset).first;
    }
    m_entry[dstHostIndex] = kSetBit | it->second;
}

std::vector<uint32_t>
RdmaForwardingTable::GetPorts(uint32_t dstHostIndex) const
{
    if (dstHostIndex >= m_entry.size() || m_entry[dstHostIndex] == kNoRoute)
    {
        return {};
    }
    const uint32_t e = m_entry[dstHostIndex];
    if ((e & kSetBit) == 0)
    {
        return {e};
    }
    const uint32_t* set = &m_sets[e & ~kSetBit];
    return std::vector<uint32_t>(set + 1, set + 1 + set[0]);
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
    std::vector<uint32_t> v = GetPorts(dstHostIndex);
    if (std::find(v.begin(), v.end(), port) == v.end())
    {
        v.push_back(port);
    }
    Store(dstHostIndex, v);
}

uint32_t
RdmaForwardingTable::GetHops(uint32_t dstHostIndex) const
{
    return dstHostIndex < m_hops.size() ? m_hops[dstHostIndex] : 0xFFFFFFFFu;
}

} // namespace ns3
