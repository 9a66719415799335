/*
 * MemoryNodeHelper (memory-node-helper.h).
 */

#include "memory-node-helper.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-input.h"
#include "ns3/double.h"
#include "ns3/memory-server.h"
#include "ns3/memory-transport.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-switch.h"
#include "ns3/switch-mmu.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <map>
#include <sstream>

namespace ns3
{
namespace astra
{

namespace
{

/// The keys that place memory nodes (the rest configure devices and traffic).
const std::vector<std::string> kPlacementKeys = {"memory-attach",
                                                 "memory-dimension",
                                                 "pool-count",
                                                 "memory-link-bw",
                                                 "memory-link-latency",
                                                 "memory-uplink-bw"};

/// \return the sharing of a memory type (not NO_MEMORY_EXPANSION)
MemorySharing
SharingOf(MemoryType t)
{
    switch (t)
    {
    case MemoryType::PER_NPU_MEMORY_EXPANSION:
        return MemorySharing::PER_NPU;
    case MemoryType::PER_NODE_MEMORY_EXPANSION:
        return MemorySharing::PER_NODE;
    default:
        return MemorySharing::POOL;
    }
}

std::string
Bytes(double b)
{
    std::ostringstream os;
    os << uint64_t(b) << " bytes (" << b / 1073741824.0 << " GiB)";
    return os.str();
}

} // namespace

MemoryNodeHelper::MemoryNodeHelper()
{
    m_device.SetTypeId(MemoryDevice::GetTypeId());
    m_model.SetTypeId(FabricMemoryModel::GetTypeId());
}

void
MemoryNodeHelper::SetConfig(const RemoteMemoryConfig& c)
{
    m_config = c;
    m_hasConfig = true;
    m_device.Set("Bandwidth", DoubleValue(c.remoteMemBw));
    m_device.Set("Latency", TimeValue(Time::FromDouble(c.remoteMemLatency, Time::NS)));
    m_device.Set("Channels", UintegerValue(c.channels));
    m_device.Set("RequestOverhead", TimeValue(Time::FromDouble(c.requestOverhead, Time::NS)));
    m_device.Set("Capacity",
                 UintegerValue(uint64_t(std::llround(c.memoryCapacity * 1073741824.0))));
    m_model.Set("MessageSize", UintegerValue(c.messageSize));
    m_model.Set("OutstandingRequests", UintegerValue(c.outstandingRequests));
}

const RemoteMemoryConfig&
MemoryNodeHelper::GetConfig() const
{
    return m_config;
}

bool
MemoryNodeHelper::HasExpansion() const
{
    return m_config.memoryType != MemoryType::NO_MEMORY_EXPANSION;
}

void
MemoryNodeHelper::SetDeviceAttribute(const std::string& n, const AttributeValue& v)
{
    m_device.Set(n, v);
}

void
MemoryNodeHelper::SetModelAttribute(const std::string& n, const AttributeValue& v)
{
    m_model.Set(n, v);
}

void
MemoryNodeHelper::SetLosslessMemory(bool lossless)
{
    m_lossless = lossless;
}

void
MemoryNodeHelper::SetIsolatedNetwork(bool isolated)
{
    m_isolated = isolated;
}

bool
MemoryNodeHelper::GetIsolatedNetwork() const
{
    return m_isolated;
}

std::string
MemoryNodeHelper::Source() const
{
    return m_config.file.empty() ? std::string("remote memory") : m_config.file;
}

MemoryPlacement
MemoryNodeHelper::GetPlacement() const
{
    MemoryPlacement p;
    p.sharing = SharingOf(m_config.memoryType);
    p.npusPerNode = std::max<uint32_t>(1, m_config.numNpusPerNode);
    p.pools = m_config.poolCount;
    const std::vector<std::pair<std::string, MemoryAttach>> names = {
        {"npu", MemoryAttach::NPU},
        {"leaf", MemoryAttach::LEAF},
        {"spine", MemoryAttach::SPINE},
        {"memory-leaf", MemoryAttach::MEMORY_LEAF}};
    for (const auto& [name, at] : names)
    {
        if (m_config.memoryAttach == name)
        {
            p.attach = at;
        }
    }
    p.dimension = m_config.memoryDimension;
    p.linkGBps = m_config.memoryLinkBw;
    p.linkLatencyNs = m_config.memoryLinkLatency;
    p.uplinkGBps = m_config.memoryUplinkBw;
    return p;
}

std::shared_ptr<const Topology>
MemoryNodeHelper::Place(std::shared_ptr<const Topology> topo) const
{
    if (!HasExpansion())
    {
        return topo;
    }
    // PER_NODE: num-nodes x num-npus-per-node must cover the NPUs (as ASTRA-sim's model)
    AnalyticalRemoteMemory::FromConfig(m_config)->CheckNpuCount(topo->GetNpuCount());
    const bool declared = !topo->GetMemoryNodes().empty();
    if (declared)
    {
        for (const std::string& key : kPlacementKeys)
        {
            if (m_config.keys.count(key))
            {
                throw ConfigError(Source() + ": key '" + key + "': the network configuration" +
                                  (topo->source.empty() ? "" : " (" + topo->source + ")") +
                                  " declares the memory nodes already; give their placement "
                                  "in one place");
            }
        }
        if (topo->HasMemoryPlacement())
        {
            const MemoryPlacement& t = topo->GetMemoryPlacement();
            if (t.sharing != SharingOf(m_config.memoryType))
            {
                throw ConfigError(Source() + ": memory-type " +
                                  MemoryTypeName(m_config.memoryType) +
                                  " does not match the network configuration's memory_placement " +
                                  MemorySharingName(t.sharing) +
                                  (topo->source.empty() ? "" : " (" + topo->source + ")"));
            }
            if (t.sharing == MemorySharing::PER_NODE && t.npusPerNode != m_config.numNpusPerNode)
            {
                throw ConfigError(Source() + ": num-npus-per-node " +
                                  std::to_string(m_config.numNpusPerNode) +
                                  " differs from the network configuration's "
                                  "memory_npus_per_node " +
                                  std::to_string(t.npusPerNode));
            }
        }
        return topo;
    }
    auto placed = std::make_shared<Topology>(*topo);
    try
    {
        placed->PlaceMemory(GetPlacement());
    }
    catch (const std::invalid_argument& e)
    {
        throw ConfigError(Source() + ": " + e.what());
    }
    return placed;
}

void
MemoryNodeHelper::CheckCapacity(
    const Topology& topo,
    const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs) const
{
    const double capacity = m_config.memoryCapacity * 1073741824.0;
    if (!(capacity > 0))
    {
        return;
    }
    std::map<uint32_t, double> used; // memory node -> bytes
    for (uint32_t npu = 0; npu < graphs.size() && npu < topo.GetNpuCount(); ++npu)
    {
        if (!graphs[npu])
        {
            continue;
        }
        const auto& mem = topo.GetNpuMemory(npu);
        std::map<std::string, uint64_t> stored; // node name -> largest size stored
        for (const WorkloadNode& n : graphs[npu]->nodes)
        {
            if (n.kind != NodeKind::MEM_STORE)
            {
                continue;
            }
            if (mem.empty())
            {
                break; // reported when the access runs
            }
            const std::string name = n.name.empty() ? "#" + std::to_string(n.id) : n.name;
            uint64_t& prev = stored[name];
            if (n.tensorSize <= prev)
            {
                continue;
            }
            const double share = double(n.tensorSize - prev) / double(mem.size());
            prev = n.tensorSize;
            for (uint32_t m : mem)
            {
                used[m] += share;
                if (used[m] > capacity * (1 + 1e-12))
                {
                    std::ostringstream os;
                    os << Source() << ": memory-capacity: NPU " << npu << " stores more than "
                       << "memory node " << m << " holds: trace node " << n.id << " '" << n.name
                       << "' (MEM_STORE of " << n.tensorSize << " bytes"
                       << (graphs[npu]->file.empty() ? "" : ", " + graphs[npu]->file)
                       << ") brings it to " << Bytes(used[m]) << ", above its capacity of "
                       << Bytes(capacity);
                    if (mem.size() > 1)
                    {
                        os << " (the NPU's stores are spread over its " << mem.size()
                           << " pool nodes)";
                    }
                    throw ConfigError(os.str());
                }
            }
        }
    }
}

Ptr<MemoryModel>
MemoryNodeHelper::CreateAnalytical() const
{
    if (HasExpansion())
    {
        for (const std::string& key : RemoteMemoryFabricKeys())
        {
            if (m_config.keys.count(key))
            {
                ASTRA_WARN(std::string("remote-memory-key-analytical:") + key,
                           Source() << ": key '" << key
                                    << "' has no effect on ASTRA-sim's analytical remote memory "
                                       "(the analytical backend, or --compat=1); the flow and "
                                       "roce backends use it");
            }
        }
    }
    return AnalyticalRemoteMemory::FromConfig(m_config);
}

Ptr<MemoryDevice>
MemoryNodeHelper::NewDevice() const
{
    Ptr<MemoryDevice> d = m_device.Create<MemoryDevice>();
    const std::string err = d->Validate();
    if (!err.empty())
    {
        throw ConfigError(Source() + ": " + err);
    }
    return d;
}

Ptr<FabricMemoryModel>
MemoryNodeHelper::InstallFlow(Ptr<FlowBackend> backend)
{
    auto topo = backend->GetTopology();
    if (!topo)
    {
        throw std::invalid_argument("MemoryNodeHelper::InstallFlow: the backend has no topology");
    }
    m_devices.assign(topo->GetNodeCount(), nullptr);
    for (uint32_t m : topo->GetMemoryNodes())
    {
        m_devices[m] = NewDevice();
    }
    Ptr<FlowMemoryTransport> t = CreateObject<FlowMemoryTransport>();
    t->Setup(backend, m_devices);
    Ptr<FabricMemoryModel> model = m_model.Create<FabricMemoryModel>();
    model->Setup(topo, t);
    return model;
}

Ptr<FabricMemoryModel>
MemoryNodeHelper::InstallIsolated(std::shared_ptr<const Topology> topo)
{
    Ptr<FlowBackend> own = CreateObject<FlowBackend>();
    own->SetTopology(topo);
    return InstallFlow(own);
}

Ptr<FabricMemoryModel>
MemoryNodeHelper::InstallRoce(AstraFabricHelper& fabric, uint8_t priority)
{
    auto topo = fabric.GetTopology();
    if (!topo)
    {
        throw std::invalid_argument("MemoryNodeHelper::InstallRoce: the fabric is not installed");
    }
    const uint32_t nodes = topo->GetNodeCount();
    std::vector<Ptr<RdmaHostStack>> stacks(nodes);
    std::vector<Ptr<MemoryServer>> servers(nodes);
    m_devices.assign(nodes, nullptr);
    for (uint32_t i = 0; i < nodes; ++i)
    {
        if (topo->GetNodeKind(i) != TopoNodeKind::SWITCH)
        {
            stacks[i] = fabric.GetNode(i)->GetObject<RdmaHostStack>();
        }
    }
    Ptr<RoceMemoryTransport> t = CreateObject<RoceMemoryTransport>();
    for (uint32_t m : topo->GetMemoryNodes())
    {
        m_devices[m] = NewDevice();
        servers[m] = CreateObject<MemoryServer>();
        servers[m]->Setup(stacks[m], m_devices[m]);
        fabric.GetNode(m)->AggregateObject(servers[m]);
    }
    t->Setup(stacks, servers, priority);
    for (uint32_t m : topo->GetMemoryNodes())
    {
        if (topo->GetNodeLinks(m).empty())
        {
            continue;
        }
        const uint32_t l = topo->GetNodeLinks(m).front();
        const auto devs = fabric.GetLinkDevices(l);
        const bool memIsA = topo->GetLinks()[l].a == m;
        t->SetLinkDevices(m, memIsA ? devs.first : devs.second, memIsA ? devs.second : devs.first);
    }
    if (m_lossless)
    {
        NodeContainer all = fabric.GetAllNodes();
        for (uint32_t i = 0; i < all.GetN(); ++i)
        {
            Ptr<RdmaSwitch> sw = all.Get(i)->GetObject<RdmaSwitch>();
            if (!sw)
            {
                continue;
            }
            Ptr<SwitchMmu> mmu = sw->GetMmu();
            UintegerValue mask;
            mmu->GetAttribute("LosslessPriorities", mask);
            if (!(mask.Get() & (1u << priority)))
            {
                mmu->SetAttribute("LosslessPriorities",
                                  UintegerValue(mask.Get() | (1u << priority)));
                const std::string err = mmu->CheckConfiguration();
                if (!err.empty())
                {
                    throw InputError(err + " (the memory priority " + std::to_string(priority) +
                                     " was made lossless; MemoryNodeHelper::SetLosslessMemory)");
                }
            }
        }
    }
    Ptr<FabricMemoryModel> model = m_model.Create<FabricMemoryModel>();
    model->Setup(topo, t);
    return model;
}

const std::vector<Ptr<MemoryDevice>>&
MemoryNodeHelper::GetDevices() const
{
    return m_devices;
}

} // namespace astra
} // namespace ns3
