#include "memory-model.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/event-batcher.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <fstream>
#include <nlohmann/json.hpp>
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
                          EnumValue(NO_MEMORY_EXPANSION),
                          MakeEnumAccessor(&AnalyticalRemoteMemory::m_type),
                          MakeEnumChecker(NO_MEMORY_EXPANSION,
                                          "NO_MEMORY_EXPANSION",
                                          PER_NODE_MEMORY_EXPANSION,
                                          "PER_NODE_MEMORY_EXPANSION",
                                          PER_NPU_MEMORY_EXPANSION,
                                          "PER_NPU_MEMORY_EXPANSION",
                                          MEMORY_POOL,
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
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

AnalyticalRemoteMemory::Type
AnalyticalRemoteMemory::GetMemoryType() const
{
    return m_type;
}

void
AnalyticalRemoteMemory::Access(uint32_t npu, uint64_t bytes, bool store, std::function<void()> done)
{
    Time t =
        Time::FromDouble(m_latencyNs + (m_bwGBps > 0 ? double(bytes) / m_bwGBps : 0.0), Time::NS);
    size_t res = 0;
    switch (m_type)
    {
    case NO_MEMORY_EXPANSION:
        throw std::runtime_error(
            std::string("NPU ") + std::to_string(npu) + " issues a " +
            (store ? "MEM_STORE" : "MEM_LOAD") + " node but the remote memory configuration" +
            (m_source.empty() ? "" : " (" + m_source + ")") + " is NO_MEMORY_EXPANSION");
    case PER_NPU_MEMORY_EXPANSION:
        EventBatcher::Schedule(t, std::move(done));
        return;
    case PER_NODE_MEMORY_EXPANSION:
        res = npu / std::max<uint32_t>(1, m_npusPerNode);
        break;
    case MEMORY_POOL:
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
    switch (m_type)
    {
    case NO_MEMORY_EXPANSION:
        return "NO_MEMORY_EXPANSION";
    case PER_NODE_MEMORY_EXPANSION:
        return "PER_NODE_MEMORY_EXPANSION";
    case PER_NPU_MEMORY_EXPANSION:
        return "PER_NPU_MEMORY_EXPANSION";
    case MEMORY_POOL:
        return "MEMORY_POOL";
    }
    return "?";
}

Ptr<AnalyticalRemoteMemory>
AnalyticalRemoteMemory::FromFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw std::runtime_error("cannot open remote memory configuration '" + path + "'");
    }
    nlohmann::json j;
    try
    {
        in >> j;
    }
    catch (const std::exception& e)
    {
        throw std::runtime_error("remote memory configuration '" + path +
                                 "' is not valid JSON: " + e.what());
    }
    Ptr<AnalyticalRemoteMemory> m = CreateObject<AnalyticalRemoteMemory>();
    m->m_source = path;
    std::string type = j.value("memory-type", std::string("NO_MEMORY_EXPANSION"));
    if (type == "NO_MEMORY_EXPANSION")
    {
        m->m_type = NO_MEMORY_EXPANSION;
    }
    else if (type == "PER_NODE_MEMORY_EXPANSION")
    {
        m->m_type = PER_NODE_MEMORY_EXPANSION;
    }
    else if (type == "PER_NPU_MEMORY_EXPANSION")
    {
        m->m_type = PER_NPU_MEMORY_EXPANSION;
    }
    else if (type == "MEMORY_POOL")
    {
        m->m_type = MEMORY_POOL;
    }
    else
    {
        throw std::runtime_error("remote memory configuration '" + path +
                                 "': unknown memory-type '" + type + "'");
    }
    auto num = [&](const char* key, double def) {
        if (!j.contains(key))
        {
            return def;
        }
        if (!j[key].is_number())
        {
            throw std::runtime_error("remote memory configuration '" + path + "': key '" + key +
                                     "' must be a number");
        }
        return j[key].get<double>();
    };
    m->m_latencyNs = num("remote-mem-latency", 0);
    m->m_bwGBps = num("remote-mem-bw", 0);
    m->m_npusPerNode = static_cast<uint32_t>(std::max(1.0, num("num-npus-per-node", 1)));
    return m;
}

} // namespace astra
} // namespace ns3
