#include "astra-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-routing-helper.h"
#include "ns3/rdma-switch.h"
#include "ns3/roce-backend.h"
#include "ns3/roce-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraFabricHelper");

AstraFabricHelper::AstraFabricHelper() = default;

RdmaHelper&
AstraFabricHelper::GetRdmaHelper()
{
    return m_rdma;
}

void
AstraFabricHelper::SetPartition(const std::string& policy, uint32_t systems)
{
    NS_ABORT_MSG_IF(policy != "none" && policy != "round-robin" && policy != "block" &&
                        policy != "dim0-line",
                    "AstraFabricHelper: unknown partition policy '"
                        << policy << "' (none, round-robin, block, dim0-line)");
    NS_ABORT_MSG_IF(systems == 0, "AstraFabricHelper: systems must be >= 1");
    m_partition = policy;
    m_systems = systems;
}

void
AstraFabricHelper::SetHostTransit(bool enable)
{
    m_transit = enable;
}

DataRate
AstraFabricHelper::LinkRate(const TopoLink& l)
{
    return DataRate(static_cast<uint64_t>(std::llround(l.bytesPerNs * 8e9)));
}

Time
AstraFabricHelper::LinkDelay(const TopoLink& l)
{
    return PicoSeconds(static_cast<int64_t>(std::llround(l.latencyNs * 1000.0)));
}

uint64_t
AstraFabricHelper::MessageWireBytes(uint64_t bytes, uint32_t mtu)
{
    if (bytes == 0)
    {
        return RdmaHostStack::DataWireBytes(0, true);
    }
    uint64_t pkts = (bytes + mtu - 1) / mtu;
    uint64_t lastPayload = bytes - (pkts - 1) * mtu;
    if (pkts == 1)
    {
        return RdmaHostStack::DataWireBytes(uint32_t(bytes), true);
    }
    return RdmaHostStack::DataWireBytes(mtu, true) +
           (pkts - 2) * uint64_t(RdmaHostStack::DataWireBytes(mtu, false)) +
           RdmaHostStack::DataWireBytes(uint32_t(lastPayload), false);
}

uint64_t
AstraFabricHelper::MessageAckWireBytes(uint64_t bytes, uint32_t mtu, uint32_t ackInterval)
{
    RdmaMeta ack;
    ack.opcode = RoceOpcode::ACK;
    const uint64_t ackWire = RoceFrame::GetFrameBytes(ack) + kEthernetWireOverhead;
    const uint64_t pkts = bytes == 0 ? 1 : (bytes + mtu - 1) / mtu;
    const uint64_t interval = std::max<uint32_t>(1, ackInterval);
    return (pkts + interval - 1) / interval * ackWire;
}

void
AstraFabricHelper::ComputeAnchors()
{
    // Breadth-first from all NPUs at once, layer by layer, in node id order.
    const uint32_t nodes = m_topo->GetNodeCount();
    const uint32_t npus = m_topo->GetNpuCount();
    const auto& links = m_topo->GetLinks();
    std::vector<uint32_t> dist(nodes, UINT32_MAX);
    m_anchor.assign(nodes, 0);
    std::vector<uint32_t> layer;
    for (uint32_t i = 0; i < npus; ++i)
    {
        dist[i] = 0;
        m_anchor[i] = i;
        layer.push_back(i);
    }
    std::vector<uint32_t> next;
    std::vector<uint32_t> closer;
    for (uint32_t depth = 1; !layer.empty(); ++depth)
    {
        next.clear();
        for (uint32_t v : layer)
        {
            for (uint32_t l : m_topo->GetNodeLinks(v))
            {
                const uint32_t w = links[l].a == v ? links[l].b : links[l].a;
                if (dist[w] == UINT32_MAX)
                {
                    dist[w] = depth;
                    next.push_back(w);
                }
            }
        }
        std::sort(next.begin(), next.end());
        for (uint32_t w : next)
        {
            closer.clear();
            for (uint32_t l : m_topo->GetNodeLinks(w))
            {
                const uint32_t v = links[l].a == w ? links[l].b : links[l].a;
                if (dist[v] == depth - 1)
                {
                    closer.push_back(v);
                }
            }
            // one hop from an NPU: its first NPU neighbour; further: one of the
            // closer neighbours by node id, so spines / cores spread out
            m_anchor[w] = m_anchor[depth == 1 ? closer.front() : closer[w % closer.size()]];
        }
        layer.swap(next);
    }
}

uint32_t
AstraFabricHelper::ComputeSystemId(uint32_t topoNode) const
{
    if (m_partition == "none" || m_systems <= 1)
    {
        return 0;
    }
    const uint32_t npus = m_topo->GetNpuCount();
    const uint32_t npu = topoNode < m_anchor.size() ? m_anchor[topoNode] : 0;
    if (m_partition == "round-robin")
    {
        return npu % m_systems;
    }
    if (m_partition == "block")
    {
        return uint32_t(uint64_t(npu) * m_systems / npus);
    }
    // dim0-line: whole lines of dimension 0 stay together
    uint32_t lineSize = m_topo->GetDimensionCount() ? m_topo->GetDimensions()[0].npus : 1;
    uint32_t lines = std::max<uint32_t>(1, npus / lineSize);
    uint32_t line = npu / lineSize;
    return uint32_t(uint64_t(line) * std::min(m_systems, lines) / lines);
}

NodeContainer
AstraFabricHelper::Install(std::shared_ptr<const Topology> topo)
{
    NS_ABORT_MSG_IF(!topo, "AstraFabricHelper::Install: null topology");
    NS_ABORT_MSG_IF(m_topo, "AstraFabricHelper::Install: already installed");
    m_topo = topo;
    const uint32_t nodes = topo->GetNodeCount();
    m_byTopo.assign(nodes, nullptr);
    m_systemIds.assign(nodes, 0);
    ComputeAnchors();
    for (uint32_t i = 0; i < nodes; ++i)
    {
        m_systemIds[i] = ComputeSystemId(i);
        Ptr<Node> n = CreateObject<Node>(m_systemIds[i]);
        m_byTopo[i] = n;
        switch (topo->GetNodeKind(i))
        {
        case TopoNodeKind::NPU:
            m_npus.Add(n);
            break;
        case TopoNodeKind::SWITCH:
            m_switches.Add(n);
            break;
        case TopoNodeKind::MEMORY:
            m_memory.Add(n);
            break;
        }
    }
    // NPUs first: host index = NPU id
    NS_ABORT_MSG_IF(m_rdma.GetNHosts() != 0,
                    "AstraFabricHelper: the RdmaHelper already numbered hosts");
    m_rdma.InstallHosts(m_npus);
    if (m_memory.GetN())
    {
        m_rdma.InstallHosts(m_memory);
    }
    // PFC headroom is sized from the largest frame: follow the hosts' Mtu
    if (m_npus.GetN())
    {
        Ptr<RdmaHostStack> hs = m_npus.Get(0)->GetObject<RdmaHostStack>();
        TypeId mmu = TypeId::LookupByName("ns3::SwitchMmu");
        TypeId::AttributeInformation info;
        if (hs && mmu.LookupAttributeByName("MtuFrameBytes", &info))
        {
            uint64_t need = RdmaHostStack::DataWireBytes(hs->GetMtu(), true);
            UintegerValue cur;
            cur.DeserializeFromString(info.initialValue->SerializeToString(info.checker),
                                      info.checker);
            if (cur.Get() < need)
            {
                NS_LOG_INFO("SwitchMmu::MtuFrameBytes " << cur.Get() << " -> " << need
                                                        << " (host Mtu " << hs->GetMtu() << ")");
                m_rdma.SetMmuAttribute("MtuFrameBytes", UintegerValue(need));
            }
        }
    }
    if (m_switches.GetN())
    {
        m_rdma.Install(m_switches);
    }

    const auto& links = topo->GetLinks();
    m_linkDevs.reserve(links.size());
    for (const auto& l : links)
    {
        m_linkDevs.push_back(
            m_rdma.Connect(m_byTopo[l.a], m_byTopo[l.b], LinkRate(l), LinkDelay(l)));
    }

    if (m_transit)
    {
        NodeContainer multi;
        for (uint32_t i = 0; i < nodes; ++i)
        {
            if (topo->GetNodeKind(i) != TopoNodeKind::SWITCH && topo->GetNodeLinks(i).size() > 1)
            {
                multi.Add(m_byTopo[i]);
            }
        }
        if (multi.GetN())
        {
            m_rdma.EnableHostTransit(multi);
        }
    }

    ApplyEcnRateMap();

    RdmaRoutingHelper routing;
    routing.PopulateRoutingTables(GetAllNodes());
    NS_LOG_INFO("fabric: " << m_npus.GetN() << " NPUs, " << m_switches.GetN() << " switches, "
                           << links.size() << " links");
    return m_npus;
}

void
AstraFabricHelper::ApplyEcnRateMap()
{
    const auto& map = RoceBackend::GetEcnRateMap();
    if (map.empty())
    {
        return;
    }
    NodeContainer all = GetAllNodes();
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        Ptr<RdmaSwitch> sw = all.Get(i)->GetObject<RdmaSwitch>();
        if (!sw)
        {
            continue;
        }
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            const double rate = double(sw->GetPort(p)->GetDataRate().GetBitRate());
            // nearest entry (in log scale), scaled linearly to this port's rate
            auto best = map.begin();
            double bestDist = 1e300;
            for (auto it = map.begin(); it != map.end(); ++it)
            {
                double d = std::fabs(std::log(double(std::max<uint64_t>(it->first, 1)) / rate));
                if (d < bestDist)
                {
                    bestDist = d;
                    best = it;
                }
            }
            const double scale = rate / double(std::max<uint64_t>(best->first, 1));
            sw->SetEcnThresholds(p,
                                 uint32_t(std::llround(best->second.kminBytes * scale)),
                                 uint32_t(std::llround(best->second.kmaxBytes * scale)),
                                 best->second.pmax);
        }
    }
}

NodeContainer
AstraFabricHelper::GetNpus() const
{
    return m_npus;
}

NodeContainer
AstraFabricHelper::GetSwitches() const
{
    return m_switches;
}

NodeContainer
AstraFabricHelper::GetMemoryNodes() const
{
    return m_memory;
}

NodeContainer
AstraFabricHelper::GetAllNodes() const
{
    NodeContainer all;
    all.Add(m_npus);
    all.Add(m_memory);
    all.Add(m_switches);
    return all;
}

Ptr<Node>
AstraFabricHelper::GetNode(uint32_t topoNode) const
{
    NS_ABORT_MSG_IF(topoNode >= m_byTopo.size(), "AstraFabricHelper: no node " << topoNode);
    return m_byTopo[topoNode];
}

std::shared_ptr<const Topology>
AstraFabricHelper::GetTopology() const
{
    return m_topo;
}

std::pair<Ptr<RdmaNetDevice>, Ptr<RdmaNetDevice>>
AstraFabricHelper::GetLinkDevices(uint32_t link) const
{
    NS_ABORT_MSG_IF(link >= m_linkDevs.size(), "AstraFabricHelper: no link " << link);
    return m_linkDevs[link];
}

uint32_t
AstraFabricHelper::GetSystemId(uint32_t topoNode) const
{
    NS_ABORT_MSG_IF(topoNode >= m_systemIds.size(), "AstraFabricHelper: no node " << topoNode);
    return m_systemIds[topoNode];
}

} // namespace astra
} // namespace ns3
