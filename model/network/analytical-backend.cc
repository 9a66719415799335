#include "analytical-backend.h"

#include "event-batcher.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraAnalyticalBackend");

namespace
{
/// route cache slots (direct-mapped; all-to-all on many NPUs would otherwise grow it as N^2)
constexpr size_t kRouteCacheBits = 16;
} // namespace

NS_OBJECT_ENSURE_REGISTERED(AnalyticalBackend);

TypeId
AnalyticalBackend::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::AnalyticalBackend")
            .SetParent<NetworkBackend>()
            .SetGroupName("AstraSim")
            .AddConstructor<AnalyticalBackend>()
            .AddAttribute("Compat",
                          "ASTRA-sim's congestion_unaware backend: every message takes "
                          "trunc(sum latency + bytes / B), whatever else its sender sends. "
                          "Otherwise a sender's messages are serialised on its outgoing "
                          "link and times are rounded to the nearest ns.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&AnalyticalBackend::m_compat),
                          MakeBooleanChecker())
            .AddTraceSource("Delivered",
                            "A message was delivered (message, network time).",
                            MakeTraceSourceAccessor(&AnalyticalBackend::m_deliveredTrace),
                            "ns3::astra::AnalyticalBackend::DeliveredTracedCallback");
    return tid;
}

AnalyticalBackend::AnalyticalBackend() = default;
AnalyticalBackend::~AnalyticalBackend() = default;

void
AnalyticalBackend::DoDispose()
{
    m_topo.reset();
    m_inFlight.clear();
    m_freeSlots.clear();
    m_sinkFlight.clear();
    m_sinkFree.clear();
    m_routeCache.clear();
    m_senderMemo.clear();
    m_linkFreeAt.clear();
    NetworkBackend::DoDispose();
}

void
AnalyticalBackend::SetTopology(const Topology& topo)
{
    m_topo = std::make_shared<const Topology>(topo);
    m_routeCache.clear();
    m_senderMemo.clear();
    m_linkFreeAt.clear();
    m_stamp = NewStamp();
}

void
AnalyticalBackend::SetTopology(std::shared_ptr<const Topology> topo)
{
    m_topo = std::move(topo);
    m_routeCache.clear();
    m_senderMemo.clear();
    m_linkFreeAt.clear();
    m_stamp = NewStamp();
}

std::shared_ptr<const Topology>
AnalyticalBackend::GetTopology() const
{
    return m_topo;
}

Time
AnalyticalBackend::GetMessageTime(const NetMessage& msg) const
{
    if (!m_topo)
    {
        throw std::logic_error("AnalyticalBackend: no topology set (call SetTopology)");
    }
    const uint32_t n = m_topo->GetNpuCount();
    if (msg.src >= n || msg.dst >= n)
    {
        throw std::out_of_range("AnalyticalBackend: message " + std::to_string(msg.src) + " -> " +
                                std::to_string(msg.dst) + " names an NPU out of range (" +
                                std::to_string(n) + " NPUs)");
    }
    if (msg.src == msg.dst)
    {
        return Time(0);
    }
    const uint64_t key = (uint64_t(msg.src) << 32) | msg.dst;
    if (m_routeCache.empty())
    {
        m_routeCache.resize(size_t(1) << kRouteCacheBits);
    }
    // Fibonacci hashing of the pair onto the table
    const size_t slot =
        static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - kRouteCacheBits));
    RouteCost& rc = m_routeCache[slot];
    if (rc.key != key || rc.dim != msg.dim)
    {
        m_hops.clear();
        m_topo->AppendRoute(msg.src, msg.dst, msg.dim, m_hops); // throws for a bad route
        const auto& links = m_topo->GetLinks();
        rc.dim = msg.dim;
        rc.latency = 0.0;
        rc.minRate = 0.0;
        for (const auto& h : m_hops)
        {
            const auto& l = links[h.link];
            rc.latency += l.latencyNs;
            if (rc.minRate == 0 || l.bytesPerNs < rc.minRate)
            {
                rc.minRate = l.bytesPerNs;
            }
        }
        rc.key = key;
        rc.lastBytes = UINT64_MAX;
    }
    if (rc.lastBytes == msg.bytes && rc.lastCompat == m_compat)
    {
        return NanoSeconds(rc.lastNs); // collectives repeat one size per route
    }
    const double latency = rc.latency;
    const double minRate = rc.minRate;
    const double t = latency + (minRate > 0 ? double(msg.bytes) / minRate : 0.0);
    const double ns = m_compat ? std::trunc(t) : std::round(t);
    rc.lastBytes = msg.bytes;
    rc.lastNs = static_cast<int64_t>(ns);
    rc.lastCompat = m_compat;
    return NanoSeconds(rc.lastNs);
}

const AnalyticalBackend::SenderMemo&
AnalyticalBackend::Sender(const NetMessage& msg)
{
    if (m_senderMemo.size() != m_topo->GetNpuCount())
    {
        m_senderMemo.assign(m_topo->GetNpuCount(), SenderMemo{});
        m_linkFreeAt.assign(2 * m_topo->GetLinks().size(), 0.0);
        m_stepsPerNs = double(NanoSeconds(1).GetTimeStep());
    }
    SenderMemo& m = m_senderMemo[msg.src];
    const uint64_t key = (uint64_t(msg.dst) << 32) | uint32_t(msg.dim);
    if (m.key == key && m.bytes == msg.bytes)
    {
        return m;
    }
    m_hops.clear();
    m_topo->AppendRoute(msg.src, msg.dst, msg.dim, m_hops);
    const auto& links = m_topo->GetLinks();
    double minRate = 0;
    m.latencyNs = 0;
    for (const auto& h : m_hops)
    {
        const auto& l = links[h.link];
        m.latencyNs += l.latencyNs;
        if (minRate == 0 || l.bytesPerNs < minRate)
        {
            minRate = l.bytesPerNs;
        }
    }
    m.link = 2 * m_hops.front().link + m_hops.front().dir;
    m.serNs = minRate > 0 ? double(msg.bytes) / minRate : 0.0;
    m.key = key;
    m.bytes = msg.bytes;
    return m;
}

int64_t
AnalyticalBackend::SenderTime(const NetMessage& msg, int64_t baseSteps, bool commit)
{
    if (m_compat || msg.src == msg.dst || msg.bytes == 0)
    {
        return baseSteps;
    }
    const SenderMemo& m = Sender(msg);
    // in time steps (the batcher's clock: no call into the simulator per message)
    double& freeAt = m_linkFreeAt[m.link];
    const double now = double(EventBatcher::NowSteps());
    const double start = std::max(now, freeAt);
    if (commit)
    {
        freeAt = start + m.serNs * m_stepsPerNs;
    }
    if (start <= now)
    {
        return baseSteps; // the link is idle: the time alone
    }
    // the wait plus the time alone, rounded to the ns like the time alone
    const double ns = (start - now) / m_stepsPerNs + m.latencyNs + m.serNs;
    return static_cast<int64_t>(std::round(ns)) * static_cast<int64_t>(m_stepsPerNs);
}

void
AnalyticalBackend::Send(const NetMessage& msg, SentCallback onSent, DeliveredCallback onDelivered)
{
    const Time t = TimeStep(SenderTime(msg, GetMessageTime(msg).GetTimeStep(), true));
    NS_LOG_FUNCTION(this << msg.src << msg.dst << msg.bytes << msg.dim << t);
    const uint32_t slot = AllocSlot();
    InFlight& f = m_inFlight[slot];
    f.msg = msg;
    f.t = t;
    f.onSent = std::move(onSent);
    f.onDeliv = std::move(onDelivered);
    EventBatcher::Schedule(t, &AnalyticalBackend::CompleteItem, this, slot);
}

int64_t
AnalyticalBackend::GetMessageTimeSteps(const NetMessage& msg, MessageTimeHint* hint)
{
    return SenderTime(msg, BaseTimeSteps(msg, hint), false);
}

int64_t
AnalyticalBackend::BaseTimeSteps(const NetMessage& msg, MessageTimeHint* hint)
{
    const uint64_t route = (uint64_t(msg.src) << 32) | msg.dst;
    const uint32_t stamp = m_stamp | (m_compat ? 1u : 0u);
    if (hint && hint->route == route && hint->bytes == msg.bytes && hint->dim == msg.dim &&
        hint->stamp == stamp && m_stamp != 0)
    {
        return hint->steps;
    }
    const int64_t steps = GetMessageTime(msg).GetTimeStep(); // validates the message
    if (hint)
    {
        hint->route = route;
        hint->bytes = msg.bytes;
        hint->dim = msg.dim;
        hint->stamp = stamp;
        hint->steps = steps;
    }
    return steps;
}

void
AnalyticalBackend::SendTo(const NetMessage& msg,
                          MessageSink* sink,
                          uint64_t cookie,
                          bool notifySent)
{
    const Time t = TimeStep(SenderTime(msg, GetMessageTime(msg).GetTimeStep(), true));
    NS_LOG_FUNCTION(this << msg.src << msg.dst << msg.bytes << msg.dim << t);
    const uint32_t slot = AllocSinkSlot();
    SinkFlight& f = m_sinkFlight[slot];
    f.msg = msg;
    f.t = t;
    f.sink = sink;
    f.cookie = cookie;
    EventBatcher::Schedule(t, &AnalyticalBackend::CompleteSinkItem, this, slot, notifySent ? 1 : 0);
}

FixedTimeNetwork*
AnalyticalBackend::GetFixedTimeInterface()
{
    return this;
}

int64_t
AnalyticalBackend::SendUnscheduled(const NetMessage& msg, MessageTimeHint* hint)
{
    if (!m_deliveredTrace.IsEmpty())
    {
        return -1;
    }
    const int64_t t = SenderTime(msg, BaseTimeSteps(msg, hint), true);
    ++m_pending;
    return t;
}

void
AnalyticalBackend::CompleteUnscheduled(const NetMessage& msg)
{
    CountDelivered(msg.bytes);
}

uint32_t
AnalyticalBackend::AllocSinkSlot()
{
    ++m_pending;
    if (m_sinkFree.empty())
    {
        m_sinkFlight.emplace_back();
        return static_cast<uint32_t>(m_sinkFlight.size() - 1);
    }
    const uint32_t slot = m_sinkFree.back();
    m_sinkFree.pop_back();
    return slot;
}

uint32_t
AnalyticalBackend::AllocSlot()
{
    ++m_pending;
    if (m_freeSlots.empty())
    {
        m_inFlight.emplace_back();
        return static_cast<uint32_t>(m_inFlight.size() - 1);
    }
    const uint32_t slot = m_freeSlots.back();
    m_freeSlots.pop_back();
    return slot;
}

void
AnalyticalBackend::CompleteItem(void* obj, uint64_t a, uint64_t)
{
    static_cast<AnalyticalBackend*>(obj)->Complete(static_cast<uint32_t>(a));
}

void
AnalyticalBackend::CompleteSinkItem(void* obj, uint64_t a, uint64_t b)
{
    static_cast<AnalyticalBackend*>(obj)->CompleteSink(static_cast<uint32_t>(a), b != 0);
}

void
AnalyticalBackend::CompleteSink(uint32_t slot, bool notifySent)
{
    if (slot >= m_sinkFlight.size())
    {
        return; // disposed
    }
    // plain values, the slot is free before the calls (they may send)
    const SinkFlight& f = m_sinkFlight[slot];
    const NetMessage msg = f.msg;
    const Time t = f.t;
    MessageSink* sink = f.sink;
    const uint64_t cookie = f.cookie;
    m_sinkFree.push_back(slot);
    CountDelivered(msg.bytes);
    if (!m_deliveredTrace.IsEmpty())
    {
        m_deliveredTrace(msg, t);
    }
    if (notifySent)
    {
        sink->MessageSent(msg, cookie);
    }
    sink->MessageDelivered(msg);
}

void
AnalyticalBackend::Complete(uint32_t slot)
{
    if (slot >= m_inFlight.size())
    {
        return; // disposed
    }
    // move out first: the callbacks may send (and reuse or grow the slot table)
    InFlight& f = m_inFlight[slot];
    const NetMessage msg = f.msg;
    const Time t = f.t;
    SentCallback onSent = std::move(f.onSent);
    DeliveredCallback onDelivered = std::move(f.onDeliv);
    f.onSent = nullptr;
    f.onDeliv = nullptr;
    m_freeSlots.push_back(slot);
    CountDelivered(msg.bytes);
    m_deliveredTrace(msg, t);
    if (onSent)
    {
        onSent(msg);
    }
    if (onDelivered)
    {
        onDelivered(msg);
    }
}

uint32_t
AnalyticalBackend::GetNpuCount() const
{
    return m_topo ? m_topo->GetNpuCount() : 0;
}

std::string
AnalyticalBackend::GetName() const
{
    return "analytical";
}

uint64_t
AnalyticalBackend::GetPendingMessages() const
{
    return m_pending;
}

bool
AnalyticalBackend::SupportsEventBatching() const
{
    return true;
}

uint64_t
AnalyticalBackend::GetDeliveredMessages() const
{
    return m_delivered;
}

uint64_t
AnalyticalBackend::GetDeliveredBytes() const
{
    return m_deliveredBytes;
}

} // namespace astra
} // namespace ns3
