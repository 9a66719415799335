#include "rdma-topology-helper.h"

#include "astra-fabric-helper.h"
#include "rdma-routing-helper.h"

#include "ns3/abort.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/log.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-forwarding-table.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaTopologyHelper");

RdmaTopologyHelper::RdmaTopologyHelper() = default;

RdmaHelper&
RdmaTopologyHelper::GetRdmaHelper()
{
    return m_helper;
}

RdmaTopology::Link
RdmaTopologyHelper::Connect(RdmaTopology& topo, Ptr<Node> a, Ptr<Node> b, DataRate rate, Time delay)
{
    auto devs = m_helper.Connect(a, b, rate, delay);
    RdmaTopology::Link l{a, b, devs.first, devs.second, rate, delay};
    topo.links.push_back(l);
    topo.devices.Add(devs.first);
    topo.devices.Add(devs.second);
    return l;
}

void
RdmaTopologyHelper::AddHosts(RdmaTopology& topo, uint32_t n)
{
    NodeContainer c;
    c.Create(n);
    m_helper.InstallHosts(c);
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t idx = RdmaHelper::GetHostIndex(c.Get(i));
        topo.hosts.Add(c.Get(i));
        topo.hostIndex.push_back(idx);
        topo.hostIps.push_back(RdmaHelper::GetHostAddress(idx));
    }
}

void
RdmaTopologyHelper::AddSwitches(RdmaTopology& topo, uint32_t n)
{
    NodeContainer c;
    c.Create(n);
    m_helper.Install(c);
    topo.switches.Add(c);
}

void
RdmaTopologyHelper::Finish(RdmaTopology& topo)
{
    RdmaRoutingHelper().PopulateRoutingTables(topo.AllNodes());
}

RdmaTopology
RdmaTopologyHelper::Dumbbell(uint32_t nLeft,
                             uint32_t nRight,
                             DataRate hostRate,
                             DataRate bottleneckRate,
                             Time delay)
{
    if (nLeft == 0 || nRight == 0)
    {
        throw astra::InputError("Dumbbell: needs hosts on both sides");
    }
    RdmaTopology t;
    AddHosts(t, nLeft + nRight);
    AddSwitches(t, 2);
    for (uint32_t i = 0; i < nLeft + nRight; ++i)
    {
        Connect(t, t.hosts.Get(i), t.switches.Get(i < nLeft ? 0 : 1), hostRate, delay);
    }
    Connect(t, t.switches.Get(0), t.switches.Get(1), bottleneckRate, delay);
    Finish(t);
    return t;
}

RdmaTopology
RdmaTopologyHelper::Star(uint32_t nHosts, DataRate rate, Time delay)
{
    if (nHosts == 0)
    {
        throw astra::InputError("Star: needs at least one host");
    }
    RdmaTopology t;
    AddHosts(t, nHosts);
    AddSwitches(t, 1);
    for (uint32_t i = 0; i < nHosts; ++i)
    {
        Connect(t, t.hosts.Get(i), t.switches.Get(0), rate, delay);
    }
    Finish(t);
    return t;
}

RdmaTopology
RdmaTopologyHelper::LeafSpine(const RdmaLeafSpineParams& p)
{
    if (p.nLeaves < 2 || p.hostsPerLeaf == 0 || p.nSpines == 0)
    {
        throw astra::InputError("LeafSpine: needs nLeaves >= 2 (one leaf has no spine: use Star), "
                                "hostsPerLeaf > 0 and nSpines > 0; got " +
                                std::to_string(p.nLeaves) + ", " + std::to_string(p.hostsPerLeaf) +
                                ", " + std::to_string(p.nSpines));
    }
    DataRate fabric = p.fabricRate;
    if (fabric.GetBitRate() == 0)
    {
        if (!(p.oversubscription > 0))
        {
            throw astra::InputError("LeafSpine: oversubscription must be > 0, got " +
                                    std::to_string(p.oversubscription));
        }
        const double bps = static_cast<double>(p.hostRate.GetBitRate()) * p.hostsPerLeaf /
                           (p.nSpines * p.oversubscription);
        fabric = DataRate(static_cast<uint64_t>(std::llround(bps)));
    }
    // the one leaf-spine description: a Clos dimension, built like every topology
    // (hosts 0..H-1, then the leaves, then the spines; host links, then leaf l - spine s)
    constexpr double kGBps = 8.0 * 1073741824.0; // bit/s per GB/s (GB = 2^30 bytes)
    const uint32_t n = p.nLeaves * p.hostsPerLeaf;
    auto topo = std::make_shared<astra::Topology>(astra::Topology::FromDimensions(
        {astra::ClosDimension(n,
                              p.hostsPerLeaf,
                              p.nSpines,
                              double(p.hostRate.GetBitRate()) / kGBps,
                              double(p.hostDelay.GetPicoSeconds()) / 1000.0,
                              double(fabric.GetBitRate()) / kGBps,
                              double(p.fabricDelay.GetPicoSeconds()) / 1000.0)}));
    astra::AstraFabricHelper builder(m_helper);
    builder.SetAutoConfigure(false); // every value as given by the RdmaHelper
    builder.Install(topo);

    RdmaTopology t;
    t.oversubscription = static_cast<double>(p.hostRate.GetBitRate()) * p.hostsPerLeaf /
                         (static_cast<double>(fabric.GetBitRate()) * p.nSpines);
    t.hosts = builder.GetNpus();
    t.switches = builder.GetSwitches();
    for (uint32_t i = 0; i < t.hosts.GetN(); ++i)
    {
        const uint32_t idx = RdmaHelper::GetHostIndex(t.hosts.Get(i));
        t.hostIndex.push_back(idx);
        t.hostIps.push_back(RdmaHelper::GetHostAddress(idx));
    }
    const auto& links = topo->GetLinks();
    for (uint32_t l = 0; l < links.size(); ++l)
    {
        const auto devs = builder.GetLinkDevices(l);
        t.links.push_back(RdmaTopology::Link{builder.GetNode(links[l].a),
                                             builder.GetNode(links[l].b),
                                             devs.first,
                                             devs.second,
                                             devs.first->GetDataRate(),
                                             devs.first->GetRdmaChannel()->GetDelay()});
        t.devices.Add(devs.first);
        t.devices.Add(devs.second);
    }
    return t;
}

} // namespace ns3
