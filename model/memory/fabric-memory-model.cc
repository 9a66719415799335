/*
 * FabricMemoryModel and MemoryTransport (fabric-memory-model.h).
 */

#include "fabric-memory-model.h"

#include "ns3/astra-input.h"
#include "ns3/event-batcher.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraFabricMemoryModel");
NS_OBJECT_ENSURE_REGISTERED(MemoryTransport);
NS_OBJECT_ENSURE_REGISTERED(FabricMemoryModel);

// ------------------------------------------------------------ MemoryTransport

TypeId
MemoryTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::MemoryTransport").SetParent<Object>().SetGroupName("AstraSim");
    return tid;
}

MemoryTransport::~MemoryTransport() = default;

void
MemoryTransport::SetModel(FabricMemoryModel* model)
{
    m_model = model;
}

uint64_t
MemoryTransport::GetProgressCounter() const
{
    return 0;
}

void
MemoryTransport::DoDispose()
{
    m_model = nullptr;
    Object::DoDispose();
}

// ------------------------------------------------------------ FabricMemoryModel

TypeId
FabricMemoryModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::FabricMemoryModel")
            .SetParent<MemoryModel>()
            .SetGroupName("AstraSim")
            .AddConstructor<FabricMemoryModel>()
            .AddAttribute("MessageSize",
                          "Bytes per RDMA READ / WRITE an access is cut into (message-size)",
                          UintegerValue(1048576),
                          MakeUintegerAccessor(&FabricMemoryModel::m_messageSize),
                          MakeUintegerChecker<uint64_t>(1, 0xFFFFFFFFu))
            .AddAttribute("OutstandingRequests",
                          "Messages an NPU has in flight at most (outstanding-requests)",
                          UintegerValue(4),
                          MakeUintegerAccessor(&FabricMemoryModel::m_outstanding),
                          MakeUintegerChecker<uint32_t>(1, 65536))
            .AddAttribute("SampleInterval",
                          "Sample every memory node link's utilisation at this interval while "
                          "memory traffic is in flight (0: no samples)",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FabricMemoryModel::m_sampleInterval),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("MessageDone",
                            "A memory message completed (npu, memory node, bytes, write, "
                            "latency since posted)",
                            MakeTraceSourceAccessor(&FabricMemoryModel::m_messageTrace),
                            "ns3::astra::FabricMemoryModel::MessageTracedCallback");
    return tid;
}

FabricMemoryModel::FabricMemoryModel() = default;
FabricMemoryModel::~FabricMemoryModel() = default;

void
FabricMemoryModel::DoDispose()
{
    if (m_transport)
    {
        m_transport->Dispose();
    }
    m_transport = nullptr;
    m_accesses.clear();
    m_npus.clear();
    m_topo.reset();
    MemoryModel::DoDispose();
}

void
FabricMemoryModel::Setup(std::shared_ptr<const Topology> topo, Ptr<MemoryTransport> transport)
{
    if (!topo || !transport)
    {
        throw std::invalid_argument("FabricMemoryModel::Setup: needs a topology and a transport");
    }
    m_topo = topo;
    m_transport = transport;
    m_transport->SetModel(this);
    m_memNodes = topo->GetMemoryNodes();
    m_memIndex.assign(topo->GetNodeCount(), UINT32_MAX);
    m_stats.assign(m_memNodes.size(), MemoryNodeStats{});
    for (uint32_t i = 0; i < m_memNodes.size(); ++i)
    {
        m_memIndex[m_memNodes[i]] = i;
        m_stats[i].node = m_memNodes[i];
    }
    m_series.assign(m_memNodes.size(), {});
    m_npus.assign(topo->GetNpuCount(), NpuState{});
}

std::string
FabricMemoryModel::GetName() const
{
    return std::string("fabric/") + (m_transport ? m_transport->GetName() : "none");
}

void
FabricMemoryModel::CheckNpuCount(uint32_t npus) const
{
    if (!m_topo || npus > m_topo->GetNpuCount())
    {
        throw ConfigError("FabricMemoryModel: set up for " +
                          std::to_string(m_topo ? m_topo->GetNpuCount() : 0) +
                          " NPUs, the system has " + std::to_string(npus));
    }
}

void
FabricMemoryModel::Access(uint32_t npu, uint64_t bytes, bool store, std::function<void()> done)
{
    if (!m_topo || npu >= m_npus.size())
    {
        throw std::runtime_error("fabric memory: NPU " + std::to_string(npu) +
                                 " is not in the memory model's topology");
    }
    const auto& mem = m_topo->GetNpuMemory(npu);
    if (mem.empty())
    {
        throw std::runtime_error("fabric memory: NPU " + std::to_string(npu) +
                                 " has no memory node (the topology's memory placement gives it "
                                 "none)");
    }
    uint32_t a;
    if (m_freeAccesses.empty())
    {
        a = static_cast<uint32_t>(m_accesses.size());
        m_accesses.emplace_back();
    }
    else
    {
        a = m_freeAccesses.back();
        m_freeAccesses.pop_back();
    }
    AccessState& s = m_accesses[a];
    s.npu = npu;
    s.store = store;
    s.toPost = bytes;
    s.msgsToPost = bytes == 0 ? 1 : (bytes + m_messageSize - 1) / m_messageSize;
    s.outstanding = 0;
    s.done = std::move(done);
    s.used = true;
    m_npus[npu].queue.push_back(a);
    Pump(npu);
}

void
FabricMemoryModel::Pump(uint32_t npu)
{
    NpuState& st = m_npus[npu];
    const auto& mem = m_topo->GetNpuMemory(npu);
    while (st.inflight < m_outstanding && !st.queue.empty())
    {
        const uint32_t a = st.queue.front();
        AccessState& s = m_accesses[a];
        const uint64_t bytes = std::min(s.toPost, m_messageSize);
        s.toPost -= bytes;
        --s.msgsToPost;
        ++s.outstanding;
        if (s.msgsToPost == 0)
        {
            st.queue.pop_front();
        }
        uint32_t m;
        if (m_freeMessages.empty())
        {
            m = static_cast<uint32_t>(m_messages.size());
            m_messages.emplace_back();
        }
        else
        {
            m = m_freeMessages.back();
            m_freeMessages.pop_back();
        }
        const uint32_t node = mem[(npu + st.next++) % mem.size()];
        MessageState& msg = m_messages[m];
        msg.access = a;
        msg.mem = m_memIndex[node];
        msg.bytes = bytes;
        msg.posted = Simulator::Now();
        msg.used = true;
        ++st.inflight;
        ++m_pending;
        if (m_sampleInterval.IsStrictlyPositive() && !m_sampling)
        {
            // (re)start the samples: a first call sets each link's baseline; the links
            // were idle since the last sample (zeros, so that plots show the gap)
            m_sampling = true;
            const Time now = Simulator::Now();
            for (const Time& t :
                 {m_sampleTimes.empty() ? now : m_sampleTimes.back() + m_sampleInterval, now})
            {
                if (t <= now && (m_sampleTimes.empty() || t > m_sampleTimes.back()))
                {
                    m_sampleTimes.push_back(t);
                    for (auto& series : m_series)
                    {
                        series.push_back(0);
                    }
                }
            }
            for (uint32_t n : m_memNodes)
            {
                m_transport->SampleLinkUtilisation(n);
            }
            EventBatcher::Schedule(m_sampleInterval,
                                   [self = Ptr<FabricMemoryModel>(this)]() { self->Sample(); });
        }
        m_transport->Post(npu, node, bytes, s.store, m);
    }
}

void
FabricMemoryModel::MessageDone(uint64_t cookie)
{
    if (cookie >= m_messages.size() || !m_messages[cookie].used)
    {
        NS_LOG_WARN("fabric memory: completion of an unknown message " << cookie);
        return;
    }
    MessageState& msg = m_messages[cookie];
    const uint32_t a = msg.access;
    AccessState& s = m_accesses[a];
    const uint32_t npu = s.npu;
    const Time lat = Simulator::Now() - msg.posted;
    MemoryNodeStats& ns = m_stats[msg.mem];
    (s.store ? ns.bytesWritten : ns.bytesRead) += msg.bytes;
    ++ns.requests;
    ns.latencyNs.push_back(lat.GetNanoSeconds());
    m_messageTrace(npu, ns.node, msg.bytes, s.store, lat);
    msg.used = false;
    m_freeMessages.push_back(uint32_t(cookie));
    --m_npus[npu].inflight;
    --m_pending;
    ++m_done;
    --s.outstanding;
    std::function<void()> done;
    if (s.outstanding == 0 && s.msgsToPost == 0)
    {
        done = std::move(s.done);
        s.done = nullptr;
        s.used = false;
        m_freeAccesses.push_back(a);
        ++m_accessesDone;
    }
    Pump(npu);
    if (done)
    {
        done(); // may issue new accesses (re-entrant)
    }
}

void
FabricMemoryModel::Sample()
{
    m_sampleTimes.push_back(Simulator::Now());
    for (uint32_t i = 0; i < m_memNodes.size(); ++i)
    {
        m_series[i].push_back(m_transport->SampleLinkUtilisation(m_memNodes[i]));
    }
    if (m_pending > 0)
    {
        EventBatcher::Schedule(m_sampleInterval,
                               [self = Ptr<FabricMemoryModel>(this)]() { self->Sample(); });
    }
    else
    {
        m_sampling = false; // the next message restarts the samples
    }
}

Ptr<MemoryTransport>
FabricMemoryModel::GetTransport() const
{
    return m_transport;
}

std::shared_ptr<const Topology>
FabricMemoryModel::GetTopology() const
{
    return m_topo;
}

const std::vector<MemoryNodeStats>&
FabricMemoryModel::GetNodeStats() const
{
    return m_stats;
}

uint64_t
FabricMemoryModel::GetMessages() const
{
    return m_done;
}

uint64_t
FabricMemoryModel::GetAccesses() const
{
    return m_accessesDone;
}

uint64_t
FabricMemoryModel::GetPendingMessages() const
{
    return m_pending;
}

uint64_t
FabricMemoryModel::GetProgressCounter() const
{
    return m_done + (m_transport ? m_transport->GetProgressCounter() : 0);
}

bool
FabricMemoryModel::IsDeviceBusy() const
{
    const Time now = Simulator::Now();
    for (uint32_t m : m_memNodes)
    {
        Ptr<MemoryDevice> d = m_transport ? m_transport->GetDevice(m) : nullptr;
        if (d && d->GetBusyUntil() > now)
        {
            return true;
        }
    }
    return false;
}

uint64_t
FabricMemoryModel::GetMessageSize() const
{
    return m_messageSize;
}

uint32_t
FabricMemoryModel::GetOutstanding() const
{
    return m_outstanding;
}

Time
FabricMemoryModel::GetSampleInterval() const
{
    return m_sampleInterval;
}

const std::vector<Time>&
FabricMemoryModel::GetSampleTimes() const
{
    return m_sampleTimes;
}

const std::vector<std::vector<double>>&
FabricMemoryModel::GetUtilisationSeries() const
{
    return m_series;
}

} // namespace astra
} // namespace ns3
