#include "memory-model.h"

#include "ns3/astra-config.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/event-batcher.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraMemoryModel");

NS_OBJECT_ENSURE_REGISTERED(MemoryModel);
NS_OBJECT_ENSURE_REGISTERED(LocalMemoryModel);
NS_OBJECT_ENSURE_REGISTERED(AnalyticalRemoteMemory);

TypeId
MemoryModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::MemoryModel").SetParent<Object>().SetGroupName("AstraSim");
    return tid;
}

MemoryModel::~MemoryModel() = default;

void
MemoryModel::CheckNpuCount(uint32_t) const
{
}

TypeId
LocalMemoryModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::LocalMemoryModel")
            .SetParent<MemoryModel>()
            .SetGroupName("AstraSim")
            .AddConstructor<LocalMemoryModel>()
            .AddAttribute("Latency",
                          "Fixed access latency (ns)",
                          DoubleValue(0),
                          MakeDoubleAccessor(&LocalMemoryModel::m_latencyNs),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Bandwidth",
                          "Local memory bandwidth in GB/s (GB = 1e9 bytes); 0 = infinite",
                          DoubleValue(0),
                          MakeDoubleAccessor(&LocalMemoryModel::m_bwGBps),
                          MakeDoubleChecker<double>(0));
    return tid;
}

Time
LocalMemoryModel::GetAccessTime(uint64_t bytes) const
{
    double ns = m_latencyNs + (m_bwGBps > 0 ? double(bytes) / m_bwGBps : 0.0);
    return Time::FromDouble(ns, Time::NS);
}

void
LocalMemoryModel::Access(uint32_t, uint64_t bytes, bool, std::function<void()> done)
{
    EventBatcher::Schedule(GetAccessTime(bytes), std::move(done));
}

std::string
LocalMemoryModel::GetName() const
{
    return "local";
}

const char*
MemoryTypeName(MemoryType t)
{
    switch (t)
    {
    case MemoryType::NO_MEMORY_EXPANSION:
        return "NO_MEMORY_EXPANSION";
    case MemoryType::PER_NODE_MEMORY_EXPANSION:
        return "PER_NODE_MEMORY_EXPANSION";
    case MemoryType::PER_NPU_MEMORY_EXPANSION:
        return "PER_NPU_MEMORY_EXPANSION";
    case MemoryType::MEMORY_POOL:
        return "MEMORY_POOL";
    }
    return "?";
}

TypeId
AnalyticalRemoteMemory::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::AnalyticalRemoteMemory")
            .SetParent<MemoryModel>()
            .SetGroupName("AstraSim")
            .AddConstructor<AnalyticalRemoteMemory>()
            .AddAttribute("MemoryType",
                          "ASTRA-sim remote memory type",
                          EnumValue(static_cast<int>(MemoryType::NO_MEMORY_EXPANSION)),
                          MakeEnumAccessor(&AnalyticalRemoteMemory::SetTypeValue,
                                           &AnalyticalRemoteMemory::GetTypeValue),
                          MakeEnumChecker(static_cast<int>(MemoryType::NO_MEMORY_EXPANSION),
                                          "NO_MEMORY_EXPANSION",
                                          static_cast<int>(MemoryType::PER_NODE_MEMORY_EXPANSION),
                                          "PER_NODE_MEMORY_EXPANSION",
                                          static_cast<int>(MemoryType::PER_NPU_MEMORY_EXPANSION),
                                          "PER_NPU_MEMORY_EXPANSION",
                                          static_cast<int>(MemoryType::MEMORY_POOL),
                                          "MEMORY_POOL"))
            .AddAttribute("Latency",
                          "remote-mem-latency (ns)",
                          DoubleValue(0),
                          MakeDoubleAccessor(&AnalyticalRemoteMemory::m_latencyNs),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Bandwidth",
                          "remote-mem-bw in GB/s (GB = 1e9 bytes); 0 = infinite",
                          DoubleValue(0),
                          MakeDoubleAccessor(&AnalyticalRemoteMemory::m_bwGBps),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("NpusPerNode",
                          "num-npus-per-node (PER_NODE_MEMORY_EXPANSION)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&AnalyticalRemoteMemory::m_npusPerNode),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("NumNodes",
                          "num-nodes (PER_NODE_MEMORY_EXPANSION): NPUs beyond NumNodes x "
                          "NpusPerNode are rejected when installed; 0: not checked",
                          UintegerValue(0),
                          MakeUintegerAccessor(&AnalyticalRemoteMemory::m_numNodes),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

MemoryType
AnalyticalRemoteMemory::GetMemoryType() const
{
    return m_type;
}

void
AnalyticalRemoteMemory::SetMemoryType(MemoryType t)
{
    m_type = t;
}

void
AnalyticalRemoteMemory::SetTypeValue(int t)
{
    m_type = static_cast<MemoryType>(t);
}

int
AnalyticalRemoteMemory::GetTypeValue() const
{
    return static_cast<int>(m_type);
}

void
AnalyticalRemoteMemory::CheckNpuCount(uint32_t npus) const
{
    if (m_type == MemoryType::PER_NODE_MEMORY_EXPANSION && m_numNodes > 0 &&
        uint64_t(m_numNodes) * m_npusPerNode < npus)
    {
        throw ConfigError((m_source.empty() ? std::string("remote memory") : m_source) +
                          ": num-nodes (" + std::to_string(m_numNodes) + ") x num-npus-per-node (" +
                          std::to_string(m_npusPerNode) + ") covers fewer than the " +
                          std::to_string(npus) + " NPUs of the system");
    }
    const uint64_t needed =
        (uint64_t(npus) + m_npusPerNode - 1) / std::max<uint32_t>(1, m_npusPerNode);
    if (m_type == MemoryType::PER_NODE_MEMORY_EXPANSION && m_numNodes > needed)
    {
        throw ConfigError(
            (m_source.empty() ? std::string("remote memory") : m_source) + ": num-nodes (" +
            std::to_string(m_numNodes) + ") x num-npus-per-node (" + std::to_string(m_npusPerNode) +
            ") does not fit the " + std::to_string(npus) +
            " NPUs of the system: " + std::to_string(m_numNodes - needed) +
            " node(s) would have no NPU (expected num-nodes = " + std::to_string(needed) + ")");
    }
}

void
AnalyticalRemoteMemory::Access(uint32_t npu, uint64_t bytes, bool store, std::function<void()> done)
{
    Time t =
        Time::FromDouble(m_latencyNs + (m_bwGBps > 0 ? double(bytes) / m_bwGBps : 0.0), Time::NS);
    size_t res = 0;
    switch (m_type)
    {
    case MemoryType::NO_MEMORY_EXPANSION:
        throw std::runtime_error(
            std::string("NPU ") + std::to_string(npu) + " issues a " +
            (store ? "MEM_STORE" : "MEM_LOAD") + " node but the remote memory configuration" +
            (m_source.empty() ? "" : " (" + m_source + ")") + " is NO_MEMORY_EXPANSION");
    case MemoryType::PER_NPU_MEMORY_EXPANSION:
        EventBatcher::Schedule(t, std::move(done));
        return;
    case MemoryType::PER_NODE_MEMORY_EXPANSION:
        res = npu / std::max<uint32_t>(1, m_npusPerNode);
        break;
    case MemoryType::MEMORY_POOL:
        res = 0;
        break;
    }
    if (m_busyUntil.size() <= res)
    {
        m_busyUntil.resize(res + 1, Time(0));
    }
    Time start = std::max(Simulator::Now(), m_busyUntil[res]);
    m_busyUntil[res] = start + t;
    EventBatcher::Schedule(m_busyUntil[res] - Simulator::Now(), std::move(done));
}

std::string
AnalyticalRemoteMemory::GetName() const
{
    return MemoryTypeName(m_type);
}

Ptr<AnalyticalRemoteMemory>
AnalyticalRemoteMemory::FromConfig(const RemoteMemoryConfig& c)
{
    Ptr<AnalyticalRemoteMemory> m = CreateObject<AnalyticalRemoteMemory>();
    m->m_source = c.file;
    m->m_type = c.memoryType;
    m->m_latencyNs = c.remoteMemLatency;
    m->m_bwGBps = c.remoteMemBw;
    if (c.memoryType == MemoryType::PER_NODE_MEMORY_EXPANSION)
    {
        m->m_npusPerNode = c.numNpusPerNode;
        m->m_numNodes = c.numNodes;
    }
    return m;
}

Ptr<AnalyticalRemoteMemory>
AnalyticalRemoteMemory::FromFile(const std::string& path)
{
    return FromConfig(ParseRemoteMemoryConfig(path));
}

} // namespace astra
} // namespace ns3
