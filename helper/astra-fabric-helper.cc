#include "astra-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-distributed.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-routing-helper.h"
#include "ns3/rdma-switch.h"
#include "ns3/roce-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraFabricHelper");

AstraFabricHelper::AstraFabricHelper()
    : m_rdma(&m_ownRdma)
{
}

AstraFabricHelper::AstraFabricHelper(RdmaHelper& rdma)
    : m_rdma(&rdma)
{
}

AstraFabricHelper::AstraFabricHelper(const AstraFabricHelper& other)
    : m_ownRdma(other.m_ownRdma),
      m_rdma(other.m_rdma == &other.m_ownRdma ? &m_ownRdma : other.m_rdma),
      m_partition(other.m_partition),
      m_systems(other.m_systems),
      m_transit(other.m_transit),
      m_autoConfigure(other.m_autoConfigure),
      m_topo(other.m_topo),
      m_npus(other.m_npus),
      m_switches(other.m_switches),
      m_memory(other.m_memory),
      m_byTopo(other.m_byTopo),
      m_systemIds(other.m_systemIds),
      m_anchor(other.m_anchor),
      m_group(other.m_group),
      m_cut(other.m_cut),
      m_linkDevs(other.m_linkDevs)
{
}

AstraFabricHelper&
AstraFabricHelper::operator=(const AstraFabricHelper& other)
{
    if (this != &other)
    {
        m_ownRdma = other.m_ownRdma;
        m_rdma = other.m_rdma == &other.m_ownRdma ? &m_ownRdma : other.m_rdma;
        m_partition = other.m_partition;
        m_systems = other.m_systems;
        m_transit = other.m_transit;
        m_autoConfigure = other.m_autoConfigure;
        m_topo = other.m_topo;
        m_npus = other.m_npus;
        m_switches = other.m_switches;
        m_memory = other.m_memory;
        m_byTopo = other.m_byTopo;
        m_systemIds = other.m_systemIds;
        m_anchor = other.m_anchor;
        m_group = other.m_group;
        m_cut = other.m_cut;
        m_linkDevs = other.m_linkDevs;
    }
    return *this;
}

RdmaHelper&
AstraFabricHelper::GetRdmaHelper()
{
    return *m_rdma;
}

void
AstraFabricHelper::SetPartition(const std::string& policy, uint32_t systems)
{
    const std::vector<std::string> policies = GetPartitionPolicies();
    if (std::find(policies.begin(), policies.end(), policy) == policies.end())
    {
        std::string list;
        for (const auto& p : policies)
        {
            list += (list.empty() ? "" : ", ") + p;
        }
        throw InputError("AstraFabricHelper: unknown partition policy '" + policy + "' (" + list +
                         ")");
    }
    if (systems == 0)
    {
        throw InputError("AstraFabricHelper: the number of systems (logical processes) must be "
                         ">= 1");
    }
    m_partition = policy;
    m_systems = systems;
}

void
AstraFabricHelper::SetHostTransit(bool enable)
{
    m_transit = enable;
}

void
AstraFabricHelper::SetAutoConfigure(bool enable)
{
    m_autoConfigure = enable;
}

int64_t
AstraFabricHelper::AssignStreams(int64_t stream)
{
    return m_rdma->AssignStreams(GetAllNodes(), stream);
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

std::vector<std::string>
AstraFabricHelper::GetPartitionPolicies()
{
    return {"none", "round-robin", "block", "dim0-line", "scale-up", "leaf", "pod"};
}

namespace
{
/// union-find root with path halving
uint32_t
FindRoot(std::vector<uint32_t>& parent, uint32_t x)
{
    while (parent[x] != x)
    {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}
} // namespace

void
AstraFabricHelper::ComputeGroups()
{
    // Nodes joined by the links the policy keeps inside one system form a group; groups
    // (those with NPUs) are dealt out in contiguous blocks of NPUs, by their lowest NPU.
    m_group.clear();
    if (m_partition != "scale-up" && m_partition != "leaf" && m_partition != "pod")
    {
        return;
    }
    const uint32_t nodes = m_topo->GetNodeCount();
    const uint32_t npus = m_topo->GetNpuCount();
    const auto& dims = m_topo->GetDimensions();
    std::vector<uint32_t> parent(nodes);
    for (uint32_t i = 0; i < nodes; ++i)
    {
        parent[i] = i;
    }
    const bool scaleUp0 = !dims.empty() && (dims[0].type == DimType::RING ||
                                            dims[0].type == DimType::FULLY_CONNECTED ||
                                            dims[0].type == DimType::SWITCH);
    for (const auto& l : m_topo->GetLinks())
    {
        const SwitchTier ta = m_topo->GetSwitchTier(l.a);
        const SwitchTier tb = m_topo->GetSwitchTier(l.b);
        const bool npuA = m_topo->GetNodeKind(l.a) == TopoNodeKind::NPU;
        const bool npuB = m_topo->GetNodeKind(l.b) == TopoNodeKind::NPU;
        // scale-up: the links of a scale-up dimension 0 (NPU-NPU, NPU-line switch)
        bool keep = scaleUp0 && l.dim == 0;
        if (m_partition != "scale-up")
        {
            // leaf: and every NPU with its leaf / edge switch
            keep = keep || (npuA && tb == SwitchTier::LEAF) || (npuB && ta == SwitchTier::LEAF);
            if (m_partition == "pod" && l.dim >= 0 && dims[l.dim].type == DimType::FAT_TREE)
            {
                // pod: and a fat-tree's edges with their aggregation switches
                keep = keep || (ta == SwitchTier::LEAF && tb == SwitchTier::SPINE) ||
                       (ta == SwitchTier::SPINE && tb == SwitchTier::LEAF);
            }
        }
        if (keep)
        {
            parent[FindRoot(parent, l.a)] = FindRoot(parent, l.b);
        }
    }
    // groups in order of their lowest NPU; sizes in NPUs
    std::vector<uint32_t> groupOfRoot(nodes, UINT32_MAX);
    std::vector<uint32_t> groupNpus;
    for (uint32_t i = 0; i < npus; ++i)
    {
        const uint32_t r = FindRoot(parent, i);
        if (groupOfRoot[r] == UINT32_MAX)
        {
            groupOfRoot[r] = static_cast<uint32_t>(groupNpus.size());
            groupNpus.push_back(0);
        }
        ++groupNpus[groupOfRoot[r]];
    }
    const uint32_t groups = static_cast<uint32_t>(groupNpus.size());
    if (groups < m_systems)
    {
        throw InputError("AstraFabricHelper: partition policy '" + m_partition + "' keeps " +
                         std::to_string(groups) + " group(s) of nodes together, fewer than the " +
                         std::to_string(m_systems) + " systems asked for");
    }
    // contiguous blocks balanced by NPUs: a group goes to the system of the NPU count
    // before it, and every system gets at least one group
    std::vector<uint32_t> sysOfGroup(groups);
    uint64_t before = 0;
    for (uint32_t g = 0; g < groups; ++g)
    {
        uint32_t sys = uint32_t(before * m_systems / npus);
        // leave enough groups for the systems after this one
        const uint32_t minSys = g + m_systems > groups ? g + m_systems - groups : 0;
        sys = std::max(sys, minSys);
        if (g > 0)
        {
            sys = std::max(sys, sysOfGroup[g - 1]);
            sys = std::min(sys, sysOfGroup[g - 1] + 1);
        }
        sysOfGroup[g] = std::min(sys, m_systems - 1);
        before += groupNpus[g];
    }
    m_group.assign(nodes, UINT32_MAX);
    for (uint32_t i = 0; i < nodes; ++i)
    {
        const uint32_t g = groupOfRoot[FindRoot(parent, i)];
        if (g != UINT32_MAX)
        {
            m_group[i] = sysOfGroup[g];
        }
    }
    if (m_partition != "scale-up")
    {
        return;
    }
    // scale-up: a switch next to NPUs outside every group (a scale-out switch) goes to the
    // system holding most of its NPUs; among equal systems the switch id picks one in turn,
    // so that the ranks share the scale-out switches (and their events) without a longer cut
    const auto& links = m_topo->GetLinks();
    std::vector<uint32_t> count(m_systems);
    std::vector<uint32_t> best;
    for (uint32_t w = npus; w < nodes; ++w)
    {
        if (m_group[w] != UINT32_MAX)
        {
            continue;
        }
        std::fill(count.begin(), count.end(), 0);
        for (uint32_t l : m_topo->GetNodeLinks(w))
        {
            const uint32_t v = links[l].a == w ? links[l].b : links[l].a;
            if (v < npus && m_group[v] != UINT32_MAX)
            {
                ++count[m_group[v]];
            }
        }
        const uint32_t most = *std::max_element(count.begin(), count.end());
        if (most == 0)
        {
            continue; // not next to an NPU: placed by its anchor
        }
        best.clear();
        for (uint32_t sys = 0; sys < m_systems; ++sys)
        {
            if (count[sys] == most)
            {
                best.push_back(sys);
            }
        }
        m_group[w] = best[w % best.size()];
    }
}

uint32_t
AstraFabricHelper::ComputeSystemId(uint32_t topoNode) const
{
    if (m_partition == "none" || m_systems <= 1)
    {
        return 0;
    }
    if (!m_group.empty())
    {
        // a node of a group takes its system; others (spines, cores, ...) that of their anchor
        const uint32_t g = m_group[topoNode];
        return g != UINT32_MAX ? g : m_group[topoNode < m_anchor.size() ? m_anchor[topoNode] : 0];
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
    ComputeGroups();
    for (uint32_t i = 0; i < nodes; ++i)
    {
        m_systemIds[i] = ComputeSystemId(i);
    }
    m_cut = ComputeCut(*topo, m_systemIds, m_systems);
    if (m_rdma->IsDistributed() && !m_cut.links.empty() && !m_cut.lookahead.IsStrictlyPositive())
    {
        const TopoLink& l = topo->GetLinks()[m_cut.zeroDelayLink];
        throw InputError("AstraFabricHelper: link " + std::to_string(m_cut.zeroDelayLink) +
                         " (node " + std::to_string(l.a) + " - node " + std::to_string(l.b) +
                         ") crosses systems with zero latency: a distributed run needs a "
                         "lookahead > 0 (choose another partition policy)");
    }
    if (m_rdma->IsDistributed() && !m_cut.links.empty())
    {
        astra::Distributed::BoundLookAhead(m_cut.lookahead);
        if (m_cut.lookahead <= TimeStep(1))
        {
            ASTRA_WARN("one-step-lookahead",
                       "a link crossing ranks has a delay of one time step: a frame of zero "
                       "serialization time over it may arrive in the time step the receiving "
                       "rank is running, and same-time events can then run in another order "
                       "than in one process");
        }
    }
    for (uint32_t i = 0; i < nodes; ++i)
    {
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
    NS_ABORT_MSG_IF(m_rdma->GetNHosts() != 0,
                    "AstraFabricHelper: the RdmaHelper already numbered hosts");
    m_rdma->InstallHosts(m_npus);
    if (m_memory.GetN())
    {
        m_rdma->InstallHosts(m_memory);
    }
    if (m_autoConfigure)
    {
        ConfigureMtuFrame();
    }
    if (m_switches.GetN())
    {
        m_rdma->Install(m_switches);
    }

    const auto& links = topo->GetLinks();
    m_linkDevs.reserve(links.size());
    for (const auto& l : links)
    {
        m_linkDevs.push_back(
            m_rdma->Connect(m_byTopo[l.a], m_byTopo[l.b], LinkRate(l), LinkDelay(l)));
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
            m_rdma->EnableHostTransit(multi);
        }
    }

    RdmaRoutingHelper routing;
    routing.PopulateRoutingTables(GetAllNodes());
    if (m_autoConfigure)
    {
        ConfigureFromFabric();
    }
    NS_LOG_INFO("fabric: " << m_npus.GetN() << " NPUs, " << m_switches.GetN() << " switches, "
                           << links.size() << " links");
    return m_npus;
}

void
AstraFabricHelper::ConfigureMtuFrame()
{
    // PFC headroom is sized from the largest frame: follow the hosts' Mtu
    // the first NPU built here (in a partial build, those of other ranks have no stack)
    Ptr<RdmaHostStack> hs;
    for (uint32_t i = 0; i < m_npus.GetN() && !hs; ++i)
    {
        hs = m_npus.Get(i)->GetObject<RdmaHostStack>();
    }
    TypeId mmu = TypeId::LookupByName("ns3::SwitchMmu");
    TypeId::AttributeInformation info;
    if (hs && mmu.LookupAttributeByName("MtuFrameBytes", &info))
    {
        uint64_t need = RdmaHostStack::DataWireBytes(hs->GetMtu(), true);
        UintegerValue cur;
        cur.DeserializeFromString(info.initialValue->SerializeToString(info.checker), info.checker);
        if (cur.Get() < need)
        {
            NS_LOG_INFO("SwitchMmu::MtuFrameBytes " << cur.Get() << " -> " << need << " (host Mtu "
                                                    << hs->GetMtu() << ")");
            m_rdma->SetMmuAttribute("MtuFrameBytes", UintegerValue(need));
        }
    }
}

void
AstraFabricHelper::ConfigureFromFabric()
{
    NodeContainer hosts(m_npus, m_memory);
    // every port carries the hosts' largest frame (e.g. SimAI's 9000 B payloads need an IP
    // MTU above the devices' default 9000)
    uint32_t needIp = 0;
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        if (Ptr<RdmaHostStack> hs = hosts.Get(i)->GetObject<RdmaHostStack>())
        {
            needIp =
                std::max(needIp,
                         RdmaHostStack::DataWireBytes(hs->GetMtu(), true) - kEthernetWireOverhead -
                             RoceHeader::kEthBytes - RoceHeader::kFcsBytes);
        }
    }
    if (needIp > 0xFFFF)
    {
        throw InputError("RdmaHostStack::Mtu makes " + std::to_string(needIp) +
                         " B IP packets, above the 65535 B an IPv4 packet can hold");
    }
    for (const auto& devs : m_linkDevs)
    {
        for (const Ptr<RdmaNetDevice>& d : {devs.first, devs.second})
        {
            if (d->GetMtu() < needIp)
            {
                d->SetMtu(uint16_t(needIp));
            }
        }
    }
    // base RTT where none is given (HPCC, DCTCP and Swift use it)
    Time baseRtt(0);
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        Ptr<RdmaHostStack> hs = hosts.Get(i)->GetObject<RdmaHostStack>();
        TimeValue rtt;
        if (hs && hs->GetAttributeFailSafe("BaseRtt", rtt) && rtt.Get().IsZero())
        {
            if (baseRtt.IsZero())
            {
                baseRtt = ComputeBaseRtt(hs->GetMtu());
            }
            if (baseRtt.IsStrictlyPositive())
            {
                hs->SetAttribute("BaseRtt", TimeValue(baseRtt));
                m_derivedBaseRtt = baseRtt;
            }
        }
    }
    // validate the host stacks now (not at the first message) and see whether a
    // congestion control needs INT
    bool needInt = false;
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        Ptr<RdmaHostStack> hs = hosts.Get(i)->GetObject<RdmaHostStack>();
        if (!hs)
        {
            continue;
        }
        for (uint8_t p = 0; p < 8; ++p)
        {
            Ptr<RdmaCongestionOps> cc = hs->GetCongestionControl(p); // validates
            needInt = needInt || cc->NeedsInt();
        }
    }
    if (needInt)
    {
        // a user who turned INT off explicitly contradicts the congestion control
        for (const auto& a : GetGivenAttributes())
        {
            if (a.name == "ns3::RdmaSwitch::IntEnabled" &&
                (a.value == "false" || a.value == "0" || a.value == "f"))
            {
                throw InputError(a.where + ": ns3::RdmaSwitch::IntEnabled=" + a.value +
                                 " contradicts the congestion control: HPCC needs INT (in-band "
                                 "telemetry) from every switch; leave IntEnabled unset (it is "
                                 "turned on) or choose another congestion control");
            }
        }
    }
    NodeContainer all = GetAllNodes();
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        Ptr<RdmaSwitch> sw = all.Get(i)->GetObject<RdmaSwitch>();
        if (!sw)
        {
            continue;
        }
        if (needInt)
        {
            BooleanValue on;
            sw->GetAttribute("IntEnabled", on);
            m_intAuto = m_intAuto || !on.Get();
            sw->SetAttribute("IntEnabled", BooleanValue(true));
        }
        const std::string err = sw->GetMmu()->CheckConfiguration();
        if (!err.empty())
        {
            throw InputError(err);
        }
    }
}

Time
AstraFabricHelper::GetDerivedBaseRtt() const
{
    return m_derivedBaseRtt;
}

bool
AstraFabricHelper::IsIntAutoEnabled() const
{
    return m_intAuto;
}

Time
AstraFabricHelper::ComputeBaseRtt(uint32_t mtu) const
{
    NS_ABORT_MSG_IF(!m_topo, "AstraFabricHelper::ComputeBaseRtt before Install");
    const uint32_t nodes = m_topo->GetNodeCount();
    const auto& links = m_topo->GetLinks();
    RdmaMeta ack;
    ack.opcode = RoceOpcode::ACK;
    const uint64_t ackBits = 8 * uint64_t(RoceFrame::GetFrameBytes(ack) + kEthernetWireOverhead);
    const uint64_t dataBits = 8 * uint64_t(RdmaHostStack::DataWireBytes(mtu, true));
    // cost of crossing one link both ways (ps): propagation twice, the data frame one way,
    // its ACK the other
    std::vector<uint64_t> cost(links.size());
    for (size_t l = 0; l < links.size(); ++l)
    {
        const uint64_t bps = std::max<uint64_t>(1, LinkRate(links[l]).GetBitRate());
        const uint64_t delayPs = uint64_t(LinkDelay(links[l]).GetPicoSeconds());
        cost[l] = 2 * delayPs + (dataBits * 1000000000000ull + bps - 1) / bps +
                  (ackBits * 1000000000000ull + bps - 1) / bps;
    }
    auto isHost = [&](uint32_t v) { return m_topo->GetNodeKind(v) != TopoNodeKind::SWITCH; };
    // hosts relay only when they forward transit traffic (several links, transit on)
    auto relays = [&](uint32_t v) {
        return !isHost(v) || (m_transit && m_topo->GetNodeLinks(v).size() > 1);
    };
    uint64_t worst = 0;
    std::vector<uint32_t> dist(nodes);
    std::vector<uint64_t> far(nodes);
    std::vector<uint32_t> layer;
    std::vector<uint32_t> next;
    for (uint32_t src = 0; src < nodes; ++src)
    {
        if (!isHost(src))
        {
            continue;
        }
        // breadth first by hops; far[v] = the costliest of the shortest paths to v
        std::fill(dist.begin(), dist.end(), UINT32_MAX);
        std::fill(far.begin(), far.end(), 0);
        dist[src] = 0;
        layer.assign(1, src);
        for (uint32_t d = 1; !layer.empty(); ++d)
        {
            next.clear();
            for (uint32_t u : layer)
            {
                if (u != src && !relays(u))
                {
                    continue;
                }
                for (uint32_t l : m_topo->GetNodeLinks(u))
                {
                    const uint32_t w = links[l].a == u ? links[l].b : links[l].a;
                    if (dist[w] == UINT32_MAX)
                    {
                        dist[w] = d;
                        next.push_back(w);
                    }
                    if (dist[w] == d)
                    {
                        far[w] = std::max(far[w], far[u] + cost[l]);
                    }
                }
            }
            layer.swap(next);
        }
        for (uint32_t v = 0; v < nodes; ++v)
        {
            if (v != src && isHost(v) && dist[v] != UINT32_MAX)
            {
                worst = std::max(worst, far[v]);
            }
        }
    }
    return NanoSeconds(int64_t((worst + 999) / 1000));
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

FabricCut
AstraFabricHelper::ComputeCut(const Topology& topo,
                              const std::vector<uint32_t>& systemIds,
                              uint32_t systems)
{
    FabricCut cut;
    cut.systems = std::max<uint32_t>(1, systems);
    cut.npusPerSystem.assign(cut.systems, 0);
    cut.nodesPerSystem.assign(cut.systems, 0);
    cut.linksPerSystem.assign(cut.systems, 0);
    for (uint32_t i = 0; i < topo.GetNodeCount() && i < systemIds.size(); ++i)
    {
        const uint32_t s = std::min(systemIds[i], cut.systems - 1);
        ++cut.nodesPerSystem[s];
        if (topo.GetNodeKind(i) == TopoNodeKind::NPU)
        {
            ++cut.npusPerSystem[s];
        }
    }
    const auto& links = topo.GetLinks();
    for (uint32_t l = 0; l < links.size(); ++l)
    {
        const uint32_t sa = systemIds[links[l].a];
        const uint32_t sb = systemIds[links[l].b];
        if (sa == sb)
        {
            continue;
        }
        cut.links.push_back(l);
        ++cut.linksPerSystem[std::min(sa, cut.systems - 1)];
        ++cut.linksPerSystem[std::min(sb, cut.systems - 1)];
        const Time d = LinkDelay(links[l]);
        if (d < cut.lookahead)
        {
            cut.lookahead = d;
            cut.zeroDelayLink = l;
        }
    }
    return cut;
}

const FabricCut&
AstraFabricHelper::GetCut() const
{
    return m_cut;
}

std::string
AstraFabricHelper::DescribePartition() const
{
    std::ostringstream os;
    os << "partition: policy " << m_partition << ", " << m_cut.systems << " system(s); cut "
       << m_cut.links.size() << " link(s)";
    if (!m_cut.links.empty())
    {
        os << ", lookahead " << m_cut.lookahead.GetPicoSeconds() / 1000.0 << " ns";
    }
    os << "\n";
    for (uint32_t s = 0; s < m_cut.systems; ++s)
    {
        os << "  system " << s << ": " << m_cut.npusPerSystem[s] << " NPUs, "
           << m_cut.nodesPerSystem[s] << " nodes, " << m_cut.linksPerSystem[s] << " cut link(s)\n";
    }
    return os.str();
}

uint32_t
AstraFabricHelper::GetSystemId(uint32_t topoNode) const
{
    NS_ABORT_MSG_IF(topoNode >= m_systemIds.size(), "AstraFabricHelper: no node " << topoNode);
    return m_systemIds[topoNode];
}

} // namespace astra
} // namespace ns3
