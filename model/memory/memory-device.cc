/*
 * MemoryDevice (memory-device.h).
 */

#include "memory-device.h"

#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <sstream>

namespace ns3
{
namespace astra
{

NS_OBJECT_ENSURE_REGISTERED(MemoryDevice);

TypeId
MemoryDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::MemoryDevice")
            .SetParent<Object>()
            .SetGroupName("AstraSim")
            .AddConstructor<MemoryDevice>()
            .AddAttribute("Bandwidth",
                          "Data path bandwidth in GB/s (GB = 1e9 bytes; remote-mem-bw), > 0",
                          DoubleValue(0),
                          MakeDoubleAccessor(&MemoryDevice::m_bwGBps),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Latency",
                          "Access latency (remote-mem-latency): before a READ's data, after "
                          "a WRITE's data",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&MemoryDevice::m_latency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Channels",
                          "Requests in service at once (the others wait in the device queue)",
                          UintegerValue(16),
                          MakeUintegerAccessor(&MemoryDevice::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddAttribute("RequestOverhead",
                          "Per-request time on the data path (serialised with the transfers)",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&MemoryDevice::m_overhead),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Capacity",
                          "Bytes the node holds (0: unlimited); checked against what the "
                          "NPUs store (MemoryNodeHelper::CheckCapacity)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MemoryDevice::m_capacity),
                          MakeUintegerChecker<uint64_t>());
    return tid;
}

MemoryDevice::MemoryDevice() = default;
MemoryDevice::~MemoryDevice() = default;

void
MemoryDevice::DoDispose()
{
    m_free = decltype(m_free)();
    Object::DoDispose();
}

std::string
MemoryDevice::Validate() const
{
    if (!(m_bwGBps > 0) || !std::isfinite(m_bwGBps))
    {
        std::ostringstream os;
        os << "MemoryDevice: Bandwidth must be a positive number of GB/s, found " << m_bwGBps;
        return os.str();
    }
    return "";
}

double
MemoryDevice::GetPsPerByte() const
{
    return m_bwGBps > 0 ? 1000.0 / m_bwGBps : 0.0;
}

double
MemoryDevice::GetBandwidthGBps() const
{
    return m_bwGBps;
}

Time
MemoryDevice::GetLatency() const
{
    return m_latency;
}

uint32_t
MemoryDevice::GetChannels() const
{
    return m_channels;
}

uint64_t
MemoryDevice::GetCapacity() const
{
    return m_capacity;
}

Time
MemoryDevice::TakeChannel()
{
    const Time now = Simulator::Now();
    Time start = now;
    if (m_free.size() >= m_channels)
    {
        start = std::max(now, m_free.top());
        m_free.pop();
    }
    m_queueing += start - now;
    return start;
}

MemoryDevice::Grant
MemoryDevice::Occupy(Time ready, uint64_t bytes)
{
    Grant g;
    const Time slot = std::max(ready, m_pathFree);
    g.dataStart = slot + m_overhead;
    g.dataEnd = g.dataStart + PicoSeconds(int64_t(std::llround(double(bytes) * GetPsPerByte())));
    m_pathFree = g.dataEnd;
    m_busy += g.dataEnd - slot;
    return g;
}

MemoryDevice::Grant
MemoryDevice::Read(uint64_t bytes)
{
    const Time start = TakeChannel();
    const Grant g = Occupy(start + m_latency, bytes);
    m_free.push(g.dataEnd);
    m_lastRelease = std::max(m_lastRelease, g.dataEnd);
    ++m_reads;
    m_bytesRead += bytes;
    return g;
}

MemoryDevice::Grant
MemoryDevice::WriteStart(uint64_t bytes)
{
    const Time start = TakeChannel();
    const Grant g = Occupy(start, bytes);
    m_free.push(g.dataEnd + m_latency);
    m_lastRelease = std::max(m_lastRelease, g.dataEnd + m_latency);
    ++m_writes;
    m_bytesWritten += bytes;
    return g;
}

Time
MemoryDevice::WriteDone(const Grant& g)
{
    return std::max(g.dataEnd, Simulator::Now()) + m_latency;
}

uint64_t
MemoryDevice::GetBytesRead() const
{
    return m_bytesRead;
}

uint64_t
MemoryDevice::GetBytesWritten() const
{
    return m_bytesWritten;
}

uint64_t
MemoryDevice::GetReads() const
{
    return m_reads;
}

uint64_t
MemoryDevice::GetWrites() const
{
    return m_writes;
}

Time
MemoryDevice::GetBusyTime() const
{
    return m_busy;
}

Time
MemoryDevice::GetQueueingTime() const
{
    return m_queueing;
}

Time
MemoryDevice::GetBusyUntil() const
{
    return std::max(m_pathFree, m_lastRelease);
}

} // namespace astra
} // namespace ns3
