#include "rdma-helper.h"

#include "ns3/abort.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-ecn-marker.h"
#include "ns3/rdma-forwarding-table.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-node-info.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-transit-forwarder.h"
#include "ns3/roce-header.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaHelper");

RdmaHelper::RdmaHelper()
{
    m_deviceFactory.SetTypeId("ns3::RdmaNetDevice");
    m_channelFactory.SetTypeId("ns3::RdmaChannel");
    m_switchFactory.SetTypeId("ns3::RdmaSwitch");
    m_forwarderFactory.SetTypeId("ns3::RdmaTransitForwarder");
    m_directory = CreateObject<RdmaHostDirectory>();
    SetHostStackType(m_hostType);
}

void
RdmaHelper::SetDeviceAttribute(std::string n, const AttributeValue& v)
{
    m_deviceFactory.Set(n, v);
}

void
RdmaHelper::SetChannelAttribute(std::string n, const AttributeValue& v)
{
    m_channelFactory.Set(n, v);
}

void
RdmaHelper::SetSwitchAttribute(std::string n, const AttributeValue& v)
{
    m_switchFactory.Set(n, v);
    m_forwarderFactory.Set(n, v);
}

void
RdmaHelper::SetMmuAttribute(std::string n, const AttributeValue& v)
{
    // validate the name now rather than at Install
    TypeId::AttributeInformation info;
    if (!TypeId::LookupByName("ns3::SwitchMmu").LookupAttributeByName(n, &info))
    {
        throw astra::InputError("RdmaHelper::SetMmuAttribute: ns3::SwitchMmu has no attribute '" +
                                n + "'");
    }
    m_mmuAttributes.emplace_back(n, v.Copy());
}

void
RdmaHelper::SetHostStackAttribute(std::string n, const AttributeValue& v)
{
    NS_ABORT_MSG_IF(m_hostType.empty(), "RdmaHelper: no host stack type set");
    m_hostFactory.Set(n, v);
}

void
RdmaHelper::SetForwarderAttribute(std::string n, const AttributeValue& v)
{
    m_forwarderFactory.Set(n, v);
}

void
RdmaHelper::SetHostStackType(std::string tid)
{
    m_hostType = tid;
    if (!tid.empty())
    {
        TypeId t;
        if (TypeId::LookupByNameFailSafe(tid, &t))
        {
            m_hostFactory = ObjectFactory();
            m_hostFactory.SetTypeId(t);
        }
        else
        {
            throw astra::InputError("RdmaHelper: host stack TypeId '" + tid + "' not found");
        }
    }
}

void
RdmaHelper::ConfigureMmu(Ptr<RdmaSwitch> obj)
{
    for (const auto& a : m_mmuAttributes)
    {
        obj->GetMmu()->SetAttribute(a.first, *a.second);
    }
    if (m_markerSet)
    {
        obj->SetEcnMarker(m_markerFactory.Create<RdmaEcnMarker>());
    }
}

void
RdmaHelper::CheckMarkerType(const std::string& type)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(type, &tid) || !tid.HasConstructor() ||
        !tid.IsChildOf(RdmaEcnMarker::GetTypeId()))
    {
        throw astra::InputError("RdmaHelper::SetEcnMarker: '" + type +
                                "' is not a constructible ns3::RdmaEcnMarker (ns3::RdmaEcnRed, "
                                "ns3::RdmaEcnStep)");
    }
}

void
RdmaHelper::InstallHosts(NodeContainer hosts)
{
    for (auto it = hosts.Begin(); it != hosts.End(); ++it)
    {
        Ptr<Node> node = *it;
        NS_ABORT_MSG_IF(node->GetObject<RdmaNodeInfo>(),
                        "RdmaHelper::InstallHosts: node " << node->GetId() << " already installed");
        const uint32_t idx = m_nextHost++;
        Ptr<RdmaNodeInfo> info = CreateObject<RdmaNodeInfo>();
        info->SetHost(idx);
        node->AggregateObject(info);
        if (!IsBuilt(node))
        {
            // a host of another rank: its address and initial PSN for QP set-up, and its
            // routes (the FCT writer's ideal path of a message from it)
            info->SetGhost(true);
            node->AggregateObject(CreateObject<RdmaForwardingTable>());
            if (!m_hostType.empty())
            {
                if (!m_hostTemplate)
                {
                    m_hostTemplate = m_hostFactory.Create<Object>();
                }
                UintegerValue psn(0);
                m_hostTemplate->GetAttributeFailSafe("InitialPsn", psn);
                m_directory->AddRemote(idx,
                                       RdmaAddressing::HostIndexToIp(idx),
                                       uint32_t(psn.Get()));
            }
            continue;
        }
        node->AggregateObject(CreateObject<RdmaForwardingTable>());
        if (!m_hostType.empty())
        {
            Ptr<Object> stack = m_hostFactory.Create<Object>();
            node->AggregateObject(stack);
            Ptr<RdmaHostStack> hs = DynamicCast<RdmaHostStack>(stack);
            if (hs)
            {
                hs->SetHostIndex(idx);
                hs->SetIpv4(Ipv4Address(RdmaAddressing::HostIndexToIp(idx)));
                hs->SetDirectory(m_directory);
            }
        }
    }
}

void
RdmaHelper::Install(NodeContainer switches)
{
    for (auto it = switches.Begin(); it != switches.End(); ++it)
    {
        Ptr<Node> node = *it;
        NS_ABORT_MSG_IF(node->GetObject<RdmaNodeInfo>(),
                        "RdmaHelper::Install: node " << node->GetId() << " already installed");
        Ptr<RdmaNodeInfo> info = CreateObject<RdmaNodeInfo>();
        info->SetSwitch();
        node->AggregateObject(info);
        if (!IsBuilt(node))
        {
            // a switch of another rank: its ports, and its routes (with the same ECMP seed)
            // for the FCT writer's ideal path of messages that cross it
            info->SetGhost(true);
            Ptr<RdmaForwardingTable> table = CreateObject<RdmaForwardingTable>();
            table->SetSeed(node->GetId() * 2654435761u + 0x5EED);
            node->AggregateObject(table);
            continue;
        }
        Ptr<RdmaSwitch> sw = m_switchFactory.Create<RdmaSwitch>();
        ConfigureMmu(sw);
        Ptr<RdmaForwardingTable> table = sw->GetForwardingTable();
        table->SetSeed(node->GetId() * 2654435761u + 0x5EED);
        node->AggregateObject(sw);
        node->AggregateObject(table);
    }
}

void
RdmaHelper::EnableHostTransit(NodeContainer hosts)
{
    for (auto it = hosts.Begin(); it != hosts.End(); ++it)
    {
        Ptr<Node> node = *it;
        Ptr<RdmaNodeInfo> info = node->GetObject<RdmaNodeInfo>();
        NS_ABORT_MSG_IF(!info || !info->IsHost(),
                        "RdmaHelper::EnableHostTransit: node " << node->GetId()
                                                               << " is not a host");
        info->SetRelay(true);
        if (info->IsGhost())
        {
            node->GetObject<RdmaForwardingTable>()->SetSeed(node->GetId() * 2654435761u + 0x5EED);
            continue;
        }
        if (node->GetObject<RdmaTransitForwarder>())
        {
            continue;
        }
        Ptr<RdmaTransitForwarder> fwd = m_forwarderFactory.Create<RdmaTransitForwarder>();
        ConfigureMmu(fwd);
        Ptr<RdmaForwardingTable> table = node->GetObject<RdmaForwardingTable>();
        table->SetSeed(node->GetId() * 2654435761u + 0x5EED);
        fwd->SetForwardingTable(table);
        node->AggregateObject(fwd);
        for (uint32_t i = 0; i < info->GetNPorts(); ++i)
        {
            fwd->AddHostPort(info->GetPort(i));
        }
    }
}

void
RdmaHelper::AddPortToNode(Ptr<Node> node, Ptr<RdmaNetDevice> dev)
{
    Ptr<RdmaNodeInfo> info = node->GetObject<RdmaNodeInfo>();
    NS_ABORT_MSG_IF(!info,
                    "RdmaHelper::Connect: node " << node->GetId()
                                                 << " is neither a host nor a switch: call "
                                                    "InstallHosts()/Install() first");
    info->AddPort(dev);
    if (info->IsGhost())
    {
        return;
    }
    if (info->IsHost())
    {
        Ptr<RdmaHostStack> hs = node->GetObject<RdmaHostStack>();
        if (hs)
        {
            hs->AddPort(dev);
        }
        Ptr<RdmaTransitForwarder> fwd = node->GetObject<RdmaTransitForwarder>();
        if (fwd)
        {
            fwd->AddHostPort(dev);
        }
    }
    else
    {
        node->GetObject<RdmaSwitch>()->AddPort(dev);
    }
}

std::pair<Ptr<RdmaNetDevice>, Ptr<RdmaNetDevice>>
RdmaHelper::Connect(Ptr<Node> a, Ptr<Node> b, DataRate rate, Time delay)
{
    NS_ABORT_MSG_IF(a == b, "RdmaHelper::Connect: a node cannot be linked to itself");
    Ptr<RdmaChannel> ch;
    if (m_distributed && a->GetSystemId() != b->GetSystemId())
    {
        // the link crosses ranks (lookahead = its delay)
        ObjectFactory remote;
        remote.SetTypeId("ns3::RdmaRemoteChannel");
        ch = remote.Create<RdmaChannel>();
    }
    else
    {
        ch = m_channelFactory.Create<RdmaChannel>();
    }
    ch->SetDelay(delay);
    Ptr<RdmaNetDevice> devs[2];
    Ptr<Node> nodes[2] = {a, b};
    for (int i = 0; i < 2; ++i)
    {
        Ptr<RdmaNetDevice> d = m_deviceFactory.Create<RdmaNetDevice>();
        d->SetDataRate(rate);
        Ptr<RdmaNodeInfo> info = nodes[i]->GetObject<RdmaNodeInfo>();
        const uint32_t port = info ? info->GetNPorts() : 0;
        d->SetAddress(RoceFrame::MacFromNodePort(nodes[i]->GetId(), port));
        nodes[i]->AddDevice(d);
        d->Attach(ch);
        devs[i] = d;
        m_devices.Add(d);
    }
    AddPortToNode(a, devs[0]);
    AddPortToNode(b, devs[1]);
    return {devs[0], devs[1]};
}

bool
RdmaHelper::HasRemoteChannel()
{
    TypeId tid;
    return TypeId::LookupByNameFailSafe("ns3::RdmaRemoteChannel", &tid);
}

void
RdmaHelper::SetDistributed(uint32_t localSystemId)
{
    if (!HasRemoteChannel())
    {
        throw astra::InputError("RdmaHelper: this build has no MPI support (ns3::RdmaRemoteChannel "
                                "needs ns-3's mpi module: build the module in an ns-3 tree "
                                "configured with --enable-mpi)");
    }
    m_distributed = true;
    m_directory->SetLocalSystem(localSystemId);
    SetLocalSystem(localSystemId);
}

void
RdmaHelper::SetLocalSystem(uint32_t localSystemId)
{
    NS_ABORT_MSG_IF(m_nextHost != 0 || m_devices.GetN() != 0,
                    "RdmaHelper::SetLocalSystem after nodes were installed");
    m_partial = true;
    m_localSystem = localSystemId;
}

bool
RdmaHelper::IsPartial() const
{
    return m_partial;
}

bool
RdmaHelper::IsBuilt(Ptr<Node> node) const
{
    return !m_partial || node->GetSystemId() == m_localSystem;
}

bool
RdmaHelper::IsDistributed() const
{
    return m_distributed;
}

NetDeviceContainer
RdmaHelper::GetDevices() const
{
    return m_devices;
}

uint32_t
RdmaHelper::GetNHosts() const
{
    return m_nextHost;
}

Ptr<RdmaHostDirectory>
RdmaHelper::GetHostDirectory() const
{
    return m_directory;
}

void
RdmaHelper::EnablePcap(std::string prefix, NodeContainer nodes)
{
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        for (uint32_t i = 0; i < (*it)->GetNDevices(); ++i)
        {
            Ptr<RdmaNetDevice> d = DynamicCast<RdmaNetDevice>((*it)->GetDevice(i));
            if (d)
            {
                RdmaNetDevice::EnablePcap(prefix, d);
            }
        }
    }
}

int64_t
RdmaHelper::AssignStreams(NodeContainer nodes, int64_t stream)
{
    int64_t used = 0;
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        Ptr<RdmaSwitch> sw = (*it)->GetObject<RdmaSwitch>();
        if (sw)
        {
            used += sw->AssignStreams(stream + used);
        }
        Ptr<RdmaTransitForwarder> fwd = (*it)->GetObject<RdmaTransitForwarder>();
        if (fwd && PeekPointer(fwd) != PeekPointer(sw))
        {
            used += fwd->AssignStreams(stream + used);
        }
        // a ghost (node of another rank) takes the streams its switch or forwarder takes
        // there, so that the local ones get the numbers of the whole fabric
        Ptr<RdmaNodeInfo> info = (*it)->GetObject<RdmaNodeInfo>();
        if (info && info->IsGhost() && (!info->IsHost() || info->IsRelay()))
        {
            used += RdmaSwitch::kStreamsUsed;
        }
    }
    return used;
}

uint32_t
RdmaHelper::GetHostIndex(Ptr<Node> node)
{
    Ptr<RdmaNodeInfo> info = node->GetObject<RdmaNodeInfo>();
    return info && info->IsHost() ? info->GetHostIndex() : RdmaAddressing::kInvalidHost;
}

Ipv4Address
RdmaHelper::GetHostAddress(uint32_t hostIndex)
{
    return Ipv4Address(RdmaAddressing::HostIndexToIp(hostIndex));
}

} // namespace ns3
