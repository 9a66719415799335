#include "rdma-topology-helper.h"

#include "rdma-routing-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"
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
    NS_ABORT_MSG_IF(nLeft == 0 || nRight == 0, "Dumbbell: need hosts on both sides");
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
    NS_ABORT_MSG_IF(nHosts == 0, "Star: need hosts");
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
    NS_ABORT_MSG_IF(p.nLeaves == 0 || p.hostsPerLeaf == 0 || p.nSpines == 0,
                    "LeafSpine: nLeaves, hostsPerLeaf and nSpines must be > 0");
    DataRate fabric = p.fabricRate;
    if (fabric.GetBitRate() == 0)
    {
        NS_ABORT_MSG_IF(p.oversubscription <= 0, "LeafSpine: oversubscription must be > 0");
        const double bps = static_cast<double>(p.hostRate.GetBitRate()) * p.hostsPerLeaf /
                           (p.nSpines * p.oversubscription);
        fabric = DataRate(static_cast<uint64_t>(std::llround(bps)));
    }
    RdmaTopology t;
    t.oversubscription = static_cast<double>(p.hostRate.GetBitRate()) * p.hostsPerLeaf /
                         (static_cast<double>(fabric.GetBitRate()) * p.nSpines);
    AddHosts(t, p.nLeaves * p.hostsPerLeaf);
    AddSwitches(t, p.nLeaves + p.nSpines);
    for (uint32_t h = 0; h < p.nLeaves * p.hostsPerLeaf; ++h)
    {
        Connect(t, t.hosts.Get(h), t.switches.Get(h / p.hostsPerLeaf), p.hostRate, p.hostDelay);
    }
    for (uint32_t l = 0; l < p.nLeaves; ++l)
    {
        for (uint32_t s = 0; s < p.nSpines; ++s)
        {
            Connect(t, t.switches.Get(l), t.switches.Get(p.nLeaves + s), fabric, p.fabricDelay);
        }
    }
    Finish(t);
    return t;
}

} // namespace ns3
