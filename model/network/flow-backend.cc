#include "flow-backend.h"

#include "event-batcher.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraFlowBackend");
NS_OBJECT_ENSURE_REGISTERED(FlowBackend);

namespace
{
/// Drains predicted within this many ns of an event's time are due at it.
constexpr double kTimeEps = 1e-6;

/// Tolerance at absolute time t (ns): covers double rounding at large t.
inline double
TimeEps(double t)
{
    return kTimeEps + 1e-12 * std::abs(t);
}
} // namespace

TypeId
FlowBackend::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::FlowBackend")
            .SetParent<NetworkBackend>()
            .SetGroupName("AstraSim")
            .AddConstructor<FlowBackend>()
            .AddAttribute("Compat",
                          "Store-and-forward model of ASTRA-sim's congestion_aware backend: "
                          "each hop costs trunc(latency + bytes / B) and holds its directed "
                          "link (FIFO) for trunc(bytes / B). Otherwise: fluid max-min sharing.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FlowBackend::m_compat),
                          MakeBooleanChecker())
            .AddAttribute("SelfCheck",
                          "Run CheckInvariants() after every rate recomputation (slow; tests).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FlowBackend::m_selfCheck),
                          MakeBooleanChecker())
            .AddAttribute("UpdateInterval",
                          "Fluid model: recompute rates at most once per this interval "
                          "(0 = exactly at every arrival and departure). With a positive "
                          "interval, bandwidth freed by a drained flow stays idle and new flows "
                          "wait (rate 0) until the next recomputation: faster for heavily "
                          "congested all-to-all patterns, slightly pessimistic.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FlowBackend::m_updateInterval),
                          MakeTimeChecker())
            .AddTraceSource("Delivered",
                            "A message was delivered (message, time since Send()).",
                            MakeTraceSourceAccessor(&FlowBackend::m_deliveredTrace),
                            "ns3::astra::FlowBackend::DeliveredTracedCallback");
    return tid;
}

FlowBackend::FlowBackend() = default;
FlowBackend::~FlowBackend() = default;

void
FlowBackend::DoDispose()
{
    ++m_completionGen; // a pending completion item is stale now
    m_completionAtNs = -1;
    m_flows.clear();
    m_hot.clear();
    m_links.clear();
    m_drained.clear();
    m_freeDrained.clear();
    m_drainBatches.clear();
    m_freeDrainBatches.clear();
    m_openDrainBatch = UINT32_MAX;
    m_topo.reset();
    NetworkBackend::DoDispose();
}

void
FlowBackend::SetTopology(const Topology& topo)
{
    SetTopology(std::make_shared<const Topology>(topo));
}

void
FlowBackend::SetTopology(std::shared_ptr<const Topology> topo)
{
    if (m_activeFlows != 0 || m_pending != 0)
    {
        throw std::logic_error("FlowBackend: SetTopology with messages in flight");
    }
    m_topo = std::move(topo);
    m_links.clear();
    m_linkFreeAt.clear();
}

std::shared_ptr<const Topology>
FlowBackend::GetTopology() const
{
    return m_topo;
}

void
FlowBackend::EnsureLinks()
{
    if (!m_topo)
    {
        throw std::logic_error("FlowBackend: no topology set (call SetTopology)");
    }
    const auto& links = m_topo->GetLinks();
    if (m_links.size() != 2 * links.size() + m_resources.size())
    {
        m_links.assign(2 * links.size() + m_resources.size(), DirLink{});
        for (size_t i = 0; i < links.size(); ++i)
        {
            m_links[2 * i].capacity = links[i].bytesPerNs;
            m_links[2 * i + 1].capacity = links[i].bytesPerNs;
        }
        for (size_t r = 0; r < m_resources.size(); ++r)
        {
            m_links[2 * links.size() + r].capacity = m_resources[r];
        }
        m_linkFreeAt.assign(2 * links.size(), 0);
    }
}

void
FlowBackend::CheckIds(const NetMessage& msg) const
{
    const uint32_t n = m_topo->GetNpuCount();
    if (msg.src >= n || msg.dst >= n)
    {
        const uint32_t nodes = m_topo->GetNodeCount();
        if (msg.src < nodes && msg.dst < nodes &&
            (m_topo->GetNodeKind(msg.src) == TopoNodeKind::MEMORY ||
             m_topo->GetNodeKind(msg.dst) == TopoNodeKind::MEMORY) &&
            m_topo->GetNodeKind(msg.src) != TopoNodeKind::SWITCH &&
            m_topo->GetNodeKind(msg.dst) != TopoNodeKind::SWITCH)
        {
            return; // to or from a memory node
        }
        throw std::out_of_range("FlowBackend: message " + std::to_string(msg.src) + " -> " +
                                std::to_string(msg.dst) + " names an NPU out of range (" +
                                std::to_string(n) + " NPUs)");
    }
}

double
FlowBackend::NowNs() const
{
    return double(Simulator::Now().GetNanoSeconds());
}

void
FlowBackend::Deliver(const NetMessage& msg,
                     const SentCallback& onSent,
                     const DeliveredCallback& onDelivered)
{
    CountDelivered(msg.bytes);
    if (onSent)
    {
        onSent(msg);
    }
    if (onDelivered)
    {
        onDelivered(msg);
    }
}

void
FlowBackend::DeliverToSink(const NetMessage& msg,
                           MessageSink* sink,
                           uint64_t cookie,
                           bool notifySent)
{
    CountDelivered(msg.bytes);
    if (notifySent)
    {
        sink->MessageSent(msg, cookie);
    }
    sink->MessageDelivered(msg);
}

void
FlowBackend::SendTo(const NetMessage& msg, MessageSink* sink, uint64_t cookie, bool notifySent)
{
    if (m_compat || msg.src == msg.dst || msg.bytes == 0)
    {
        NetworkBackend::SendTo(msg, sink, cookie, notifySent);
        return;
    }
    EnsureLinks();
    CheckIds(msg);
    NS_LOG_FUNCTION(this << msg.src << msg.dst << msg.bytes << msg.dim);
    SendFluid(msg, nullptr, nullptr, sink, cookie, notifySent);
}

void
FlowBackend::Send(const NetMessage& msg, SentCallback onSent, DeliveredCallback onDelivered)
{
    EnsureLinks();
    CheckIds(msg);
    NS_LOG_FUNCTION(this << msg.src << msg.dst << msg.bytes << msg.dim);
    if (msg.src == msg.dst)
    {
        ++m_pending;
        EventBatcher::Schedule(
            Time(0),
            [this, msg, onSent = std::move(onSent), onDelivered = std::move(onDelivered)]() {
                m_deliveredTrace(msg, Time(0));
                Deliver(msg, onSent, onDelivered);
            });
        return;
    }
    if (m_compat)
    {
        auto m = std::make_shared<SfMessage>();
        m_topo->AppendRoute(msg.src, msg.dst, msg.dim, m->hops);
        m->msg = msg;
        m->onSent = std::move(onSent);
        m->onDelivered = std::move(onDelivered);
        m->sendNs = Simulator::Now().GetNanoSeconds();
        ++m_pending;
        SfHop(std::move(m));
        return;
    }
    SendFluid(msg, std::move(onSent), std::move(onDelivered), nullptr, 0, false);
}

// ------------------------------------------------------- store-and-forward

void
FlowBackend::SfHop(std::shared_ptr<SfMessage> m)
{
    const int64_t now = Simulator::Now().GetNanoSeconds();
    if (m->next == m->hops.size())
    {
        m_deliveredTrace(m->msg, NanoSeconds(now - m->sendNs));
        Deliver(m->msg, m->onSent, m->onDelivered);
        return;
    }
    const auto& hop = m->hops[m->next++];
    const auto& link = m_topo->GetLinks()[hop.link];
    const uint32_t dl = 2 * hop.link + hop.dir;
    const double ser = double(m->msg.bytes) / link.bytesPerNs;
    const int64_t hold = static_cast<int64_t>(std::trunc(ser));
    const int64_t cost = static_cast<int64_t>(std::trunc(link.latencyNs + ser));
    const int64_t start = std::max(now, m_linkFreeAt[dl]);
    m_linkFreeAt[dl] = start + hold;
    EventBatcher::Schedule(NanoSeconds(start + cost - now),
                           [this, m = std::move(m)]() { SfHop(m); });
}

// ------------------------------------------------------------ fluid model

uint32_t
FlowBackend::AddSharedResource(double bytesPerNs)
{
    if (!(bytesPerNs > 0) || !std::isfinite(bytesPerNs))
    {
        throw std::invalid_argument("FlowBackend: a shared resource needs a positive capacity");
    }
    m_resources.push_back(bytesPerNs);
    if (!m_links.empty())
    {
        DirLink d; // built already: append (flows in flight keep their link ids)
        d.capacity = bytesPerNs;
        m_links.push_back(std::move(d));
    }
    return static_cast<uint32_t>(m_resources.size() - 1);
}

void
FlowBackend::SendThrough(const NetMessage& msg,
                         uint32_t resource,
                         MessageSink* sink,
                         uint64_t cookie)
{
    if (m_compat)
    {
        throw std::logic_error("FlowBackend::SendThrough: not available in the Compat model");
    }
    if (resource >= m_resources.size() || msg.bytes == 0 || msg.src == msg.dst || !sink)
    {
        throw std::invalid_argument("FlowBackend::SendThrough: needs a resource of "
                                    "AddSharedResource, a sink, bytes > 0 and src != dst");
    }
    EnsureLinks();
    CheckIds(msg);
    SendFluid(msg,
              nullptr,
              nullptr,
              sink,
              cookie,
              false,
              static_cast<uint32_t>(2 * m_topo->GetLinks().size() + resource));
}

double
FlowBackend::GetLinkRate(uint32_t link, uint8_t dir) const
{
    const size_t l = 2 * size_t(link) + (dir ? 1 : 0);
    if (l >= m_links.size())
    {
        return 0;
    }
    double r = 0;
    for (uint32_t fid : m_links[l].flows)
    {
        r += m_flows[fid].rate;
    }
    return r;
}

void
FlowBackend::SendFluid(const NetMessage& msg,
                       SentCallback onSent,
                       DeliveredCallback onDelivered,
                       MessageSink* sink,
                       uint64_t cookie,
                       bool notifySent,
                       uint32_t resource)
{
    m_hops.clear();
    m_topo->AppendRoute(msg.src, msg.dst, msg.dim, m_hops);
    const auto& links = m_topo->GetLinks();
    double latency = 0;
    for (const auto& h : m_hops)
    {
        latency += links[h.link].latencyNs;
    }
    ++m_pending;
    const int64_t now = Simulator::Now().GetNanoSeconds();
    if (msg.bytes == 0)
    {
        const int64_t delay = std::llround(latency);
        EventBatcher::Schedule(
            NanoSeconds(delay),
            [this, msg, delay, onSent = std::move(onSent), onDelivered = std::move(onDelivered)]() {
                m_deliveredTrace(msg, NanoSeconds(delay));
                Deliver(msg, onSent, onDelivered);
            });
        return;
    }
    uint32_t id;
    if (!m_freeFlows.empty())
    {
        id = m_freeFlows.back();
        m_freeFlows.pop_back();
    }
    else
    {
        id = static_cast<uint32_t>(m_flows.size());
        m_flows.emplace_back();
        m_hot.emplace_back();
    }
    Flow& f = m_flows[id];
    f.msg = msg;
    f.onSent = std::move(onSent);
    f.onDelivered = std::move(onDelivered);
    f.sink = sink;
    f.cookie = cookie;
    f.notifySent = notifySent;
    f.links.clear();
    for (const auto& h : m_hops)
    {
        const uint32_t dl = 2 * h.link + h.dir;
        f.links.push_back(dl);
        m_links[dl].flows.push_back(id);
        m_dirty.push_back(dl);
    }
    if (resource != UINT32_MAX)
    {
        f.links.push_back(resource);
        m_links[resource].flows.push_back(id);
        m_dirty.push_back(resource);
    }
    m_hot[id].links = f.links.data();
    m_hot[id].nLinks = static_cast<uint32_t>(f.links.size());
    f.remaining = double(msg.bytes);
    f.rate = 0;
    f.lastNs = double(now);
    f.finishNs = 0;
    f.latencyNs = latency;
    f.sendNs = now;
    ++f.version;
    f.active = true;
    ++m_activeFlows;
    if (!m_updateScheduled)
    {
        m_updateScheduled = true;
        EventBatcher::Schedule(Time(0), &FlowBackend::ProcessDirtyItem, this);
    }
}

void
FlowBackend::ProcessDirty()
{
    m_updateScheduled = false;
    if (MaybeRecompute())
    {
        Reschedule();
    }
}

bool
FlowBackend::MaybeRecompute()
{
    if (m_dirty.empty())
    {
        return false;
    }
    const int64_t now = Simulator::Now().GetNanoSeconds();
    const int64_t interval = m_updateInterval.GetNanoSeconds();
    if (interval > 0 && m_lastRecomputeNs >= 0 && now < m_lastRecomputeNs + interval)
    {
        // rate-limited: recompute at the end of the interval
        if (!m_updateScheduled)
        {
            m_updateScheduled = true;
            EventBatcher::Schedule(NanoSeconds(m_lastRecomputeNs + interval - now),
                                   &FlowBackend::ProcessDirtyItem,
                                   this);
        }
        return false;
    }
    m_lastRecomputeNs = now;
    Recompute();
    return true;
}

void
FlowBackend::Recompute()
{
    ++m_recomputations;
    ++m_epoch;
    const uint64_t epoch = m_epoch;
    m_compLinks.clear();
    m_compFlows.clear();
    // connected component (links <-> flows) of the changed links
    for (uint32_t l : m_dirty)
    {
        if (m_links[l].mark != epoch)
        {
            m_links[l].mark = epoch;
            m_compLinks.push_back(l);
        }
    }
    m_dirty.clear();
    for (size_t i = 0; i < m_compLinks.size(); ++i)
    {
        for (uint32_t fid : m_links[m_compLinks[i]].flows)
        {
            FlowHot& f = m_hot[fid];
            if (f.mark == epoch)
            {
                continue;
            }
            f.mark = epoch;
            f.frozen = false;
            m_compFlows.push_back(fid);
            for (uint32_t k = 0; k < f.nLinks; ++k)
            {
                const uint32_t l2 = f.links[k];
                if (m_links[l2].mark != epoch)
                {
                    m_links[l2].mark = epoch;
                    m_compLinks.push_back(l2);
                }
            }
        }
    }
    m_recomputedFlows += m_compFlows.size();

    // progressive filling: repeatedly saturate the link with the smallest fair share
    using Entry = std::pair<double, uint32_t>;
    std::vector<Entry> heapStore;
    heapStore.reserve(m_compLinks.size());
    for (uint32_t l : m_compLinks)
    {
        DirLink& dl = m_links[l];
        dl.capLeft = dl.capacity;
        dl.unfrozen = static_cast<uint32_t>(dl.flows.size());
        if (dl.unfrozen > 0)
        {
            heapStore.emplace_back(dl.capLeft / dl.unfrozen, l);
        }
    }
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap(std::greater<Entry>(),
                                                                             std::move(heapStore));
    // Each link has exactly one heap entry, a lower bound of its current fair
    // share (shares only grow as flows freeze). A popped entry that is out of
    // date goes back with the current share; an up-to-date one is the minimum.
    while (!heap.empty())
    {
        const Entry e = heap.top();
        heap.pop();
        DirLink& dl = m_links[e.second];
        if (dl.unfrozen == 0)
        {
            continue;
        }
        const double cur = std::max(0.0, dl.capLeft) / dl.unfrozen;
        if (cur > e.first)
        {
            heap.emplace(cur, e.second);
            continue;
        }
        // freeze every unfrozen flow of this link at its fair share
        // (never 0 through rounding: a flow without rate would never drain)
        const double share = std::max(cur, 1e-12 * dl.capacity);
        for (uint32_t fid : dl.flows)
        {
            FlowHot& f = m_hot[fid];
            if (f.frozen)
            {
                continue;
            }
            f.frozen = true;
            f.newRate = share;
            for (uint32_t k = 0; k < f.nLinks; ++k)
            {
                DirLink& o = m_links[f.links[k]];
                o.capLeft -= share;
                --o.unfrozen;
            }
        }
    }

    // apply the new rates
    const double now = NowNs();
    for (uint32_t fid : m_compFlows)
    {
        Flow& f = m_flows[fid];
        const double newRate = m_hot[fid].newRate;
        if (newRate == f.rate && f.rate > 0)
        {
            continue;
        }
        f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.lastNs));
        f.lastNs = now;
        f.rate = newRate;
        ++f.version;
        if (f.rate > 0)
        {
            f.finishNs = now + f.remaining / f.rate;
            m_heap.push(Pending{f.finishNs, fid, f.version});
        }
    }
    if (m_heap.size() > 4 * m_activeFlows + 1024)
    {
        CleanHeap();
    }
    if (m_selfCheck)
    {
        ++m_checks;
        const std::string err = CheckInvariants();
        if (!err.empty())
        {
            if (m_checkFailures++ == 0)
            {
                m_firstFailure = err;
            }
            ASTRA_WARN("flow-invariant-violated", "FlowBackend self check failed: " << err);
        }
    }
}

void
FlowBackend::CleanHeap()
{
    std::vector<Pending> keep;
    keep.reserve(m_activeFlows);
    for (uint32_t i = 0; i < m_flows.size(); ++i)
    {
        const Flow& f = m_flows[i];
        if (f.active && f.rate > 0)
        {
            keep.push_back(Pending{f.finishNs, i, f.version});
        }
    }
    m_heap = decltype(m_heap)(std::greater<Pending>(), std::move(keep));
}

void
FlowBackend::Reschedule()
{
    while (!m_heap.empty())
    {
        const Pending& p = m_heap.top();
        const Flow& f = m_flows[p.flow];
        if (f.active && f.version == p.version)
        {
            break;
        }
        m_heap.pop();
    }
    if (m_heap.empty())
    {
        ++m_completionGen; // cancel a pending completion
        m_completionAtNs = -1;
        return;
    }
    const int64_t now = Simulator::Now().GetNanoSeconds();
    const int64_t at = std::max(
        now,
        static_cast<int64_t>(std::ceil(m_heap.top().finishNs - TimeEps(m_heap.top().finishNs))));
    if (at == m_completionAtNs)
    {
        return; // already pending for that time
    }
    ++m_completionGen; // cancel a pending completion
    m_completionAtNs = at;
    EventBatcher::Schedule(NanoSeconds(at - now),
                           &FlowBackend::CompletionItem,
                           this,
                           m_completionGen);
}

void
FlowBackend::OnCompletion()
{
    m_completionAtNs = -1;
    const int64_t nowI = Simulator::Now().GetNanoSeconds();
    const double now = double(nowI);
    while (!m_heap.empty() && m_heap.top().finishNs <= now + TimeEps(now))
    {
        const Pending p = m_heap.top();
        m_heap.pop();
        Flow& f = m_flows[p.flow];
        if (!f.active || f.version != p.version)
        {
            continue;
        }
        // drained: leave the links, deliver after the propagation latency
        for (uint32_t l : f.links)
        {
            auto& v = m_links[l].flows;
            auto it = std::find(v.begin(), v.end(), p.flow);
            *it = v.back();
            v.pop_back();
            m_dirty.push_back(l);
        }
        f.active = false;
        ++f.version;
        --m_activeFlows;
        m_freeFlows.push_back(p.flow);
        const int64_t deliverAt =
            std::max(nowI, static_cast<int64_t>(std::llround(f.finishNs + f.latencyNs)));
        uint32_t slot;
        if (m_freeDrained.empty())
        {
            slot = static_cast<uint32_t>(m_drained.size());
            m_drained.emplace_back();
        }
        else
        {
            slot = m_freeDrained.back();
            m_freeDrained.pop_back();
        }
        Drained& d = m_drained[slot];
        d.msg = f.msg;
        d.sendNs = f.sendNs;
        d.sink = f.sink;
        d.cookie = f.cookie;
        d.notifySent = f.notifySent;
        if (!f.sink)
        {
            d.onSent = std::move(f.onSent);
            d.onDelivered = std::move(f.onDelivered);
            f.onSent = nullptr;
            f.onDelivered = nullptr;
        }
        // one event per distinct delivery time: the flows of a step drain together
        if (m_openDrainBatch == UINT32_MAX || m_openDrainAt != deliverAt)
        {
            if (m_freeDrainBatches.empty())
            {
                m_openDrainBatch = static_cast<uint32_t>(m_drainBatches.size());
                m_drainBatches.emplace_back();
            }
            else
            {
                m_openDrainBatch = m_freeDrainBatches.back();
                m_freeDrainBatches.pop_back();
            }
            m_openDrainAt = deliverAt;
            EventBatcher::Schedule(NanoSeconds(deliverAt - nowI),
                                   &FlowBackend::DeliverBatchItem,
                                   this,
                                   m_openDrainBatch);
        }
        m_drainBatches[m_openDrainBatch].push_back(slot);
    }
    MaybeRecompute();
    Reschedule();
}

void
FlowBackend::ProcessDirtyItem(void* obj, uint64_t, uint64_t)
{
    auto* f = static_cast<FlowBackend*>(obj);
    if (f->m_topo)
    {
        f->ProcessDirty();
    }
}

void
FlowBackend::CompletionItem(void* obj, uint64_t gen, uint64_t)
{
    auto* f = static_cast<FlowBackend*>(obj);
    if (gen == f->m_completionGen && f->m_topo)
    {
        f->OnCompletion();
    }
}

void
FlowBackend::DeliverBatchItem(void* obj, uint64_t b, uint64_t)
{
    static_cast<FlowBackend*>(obj)->DeliverBatch(static_cast<uint32_t>(b));
}

bool
FlowBackend::SupportsEventBatching() const
{
    return true;
}

void
FlowBackend::DeliverBatch(uint32_t b)
{
    if (b >= m_drainBatches.size())
    {
        return; // disposed
    }
    if (m_openDrainBatch == b)
    {
        m_openDrainBatch = UINT32_MAX; // drains from now on start a new batch
    }
    // by index: deliveries may send, and new drains go to other batches
    for (size_t i = 0; i < m_drainBatches[b].size(); ++i)
    {
        constexpr size_t kAhead = 4;
        if (i + kAhead < m_drainBatches[b].size())
        {
            const Drained& a = m_drained[m_drainBatches[b][i + kAhead]];
            if (a.sink)
            {
                a.sink->PrefetchHint(a.msg, a.notifySent ? a.cookie : 0);
            }
        }
        DeliverDrained(m_drainBatches[b][i]);
        if (b >= m_drainBatches.size())
        {
            return; // disposed by a callback
        }
    }
    m_drainBatches[b].clear();
    m_freeDrainBatches.push_back(b);
}

void
FlowBackend::DeliverDrained(uint32_t slot)
{
    if (slot >= m_drained.size())
    {
        return; // disposed
    }
    // move out first: the callbacks may send (and reuse or grow the slot table)
    Drained& d = m_drained[slot];
    const NetMessage msg = d.msg;
    const int64_t sendNs = d.sendNs;
    if (d.sink)
    {
        MessageSink* sink = d.sink;
        const uint64_t cookie = d.cookie;
        const bool notifySent = d.notifySent;
        d.sink = nullptr;
        m_freeDrained.push_back(slot);
        if (!m_deliveredTrace.IsEmpty())
        {
            m_deliveredTrace(msg, NanoSeconds(Simulator::Now().GetNanoSeconds() - sendNs));
        }
        DeliverToSink(msg, sink, cookie, notifySent);
        return;
    }
    SentCallback onSent = std::move(d.onSent);
    DeliveredCallback onDelivered = std::move(d.onDelivered);
    d.onSent = nullptr;
    d.onDelivered = nullptr;
    m_freeDrained.push_back(slot);
    m_deliveredTrace(msg, NanoSeconds(Simulator::Now().GetNanoSeconds() - sendNs));
    Deliver(msg, onSent, onDelivered);
}

// ------------------------------------------------------------ accessors

uint32_t
FlowBackend::GetNpuCount() const
{
    return m_topo ? m_topo->GetNpuCount() : 0;
}

std::string
FlowBackend::GetName() const
{
    return "flow";
}

uint64_t
FlowBackend::GetPendingMessages() const
{
    return m_pending;
}

uint64_t
FlowBackend::GetActiveFlows() const
{
    return m_activeFlows;
}

uint64_t
FlowBackend::GetDeliveredMessages() const
{
    return m_delivered;
}

uint64_t
FlowBackend::GetDeliveredBytes() const
{
    return m_deliveredBytes;
}

uint64_t
FlowBackend::GetRecomputations() const
{
    return m_recomputations;
}

uint64_t
FlowBackend::GetRecomputedFlows() const
{
    return m_recomputedFlows;
}

double
FlowBackend::GetFlowRate(uint64_t tag) const
{
    for (const auto& f : m_flows)
    {
        if (f.active && f.msg.tag == tag)
        {
            return f.rate;
        }
    }
    return -1;
}

uint64_t
FlowBackend::GetInvariantChecks() const
{
    return m_checks;
}

uint64_t
FlowBackend::GetInvariantFailures() const
{
    return m_checkFailures;
}

std::string
FlowBackend::GetFirstInvariantFailure() const
{
    return m_firstFailure;
}

std::string
FlowBackend::CheckInvariants() const
{
    std::ostringstream err;
    const double now = NowNs();
    std::vector<double> load(m_links.size(), 0.0);
    std::vector<double> maxRate(m_links.size(), 0.0);
    uint64_t active = 0;
    for (uint32_t i = 0; i < m_flows.size(); ++i)
    {
        const Flow& f = m_flows[i];
        if (!f.active)
        {
            continue;
        }
        ++active;
        const double rem = f.remaining - f.rate * (now - f.lastNs);
        if (rem < -1e-6 * double(f.msg.bytes) - 1e-6 || rem > double(f.msg.bytes) + 1e-6)
        {
            err << "flow " << i << " (tag " << f.msg.tag << ") has " << rem << " of " << f.msg.bytes
                << " bytes left";
            return err.str();
        }
        for (uint32_t l : f.links)
        {
            load[l] += f.rate;
            maxRate[l] = std::max(maxRate[l], f.rate);
            if (std::find(m_links[l].flows.begin(), m_links[l].flows.end(), i) ==
                m_links[l].flows.end())
            {
                err << "flow " << i << " missing from directed link " << l;
                return err.str();
            }
        }
    }
    if (active != m_activeFlows)
    {
        err << "active flow count " << m_activeFlows << " != " << active;
        return err.str();
    }
    for (size_t l = 0; l < m_links.size(); ++l)
    {
        if (load[l] > m_links[l].capacity * (1 + 1e-9) + 1e-12)
        {
            err << "directed link " << l << " carries " << load[l] << " B/ns > capacity "
                << m_links[l].capacity;
            return err.str();
        }
    }
    if (!m_dirty.empty())
    {
        return ""; // rates of just-started flows are assigned later in this ns
    }
    for (uint32_t i = 0; i < m_flows.size(); ++i)
    {
        const Flow& f = m_flows[i];
        if (!f.active)
        {
            continue;
        }
        if (!(f.rate > 0))
        {
            err << "flow " << i << " (tag " << f.msg.tag << ") has no rate";
            return err.str();
        }
        bool bottleneck = false;
        for (uint32_t l : f.links)
        {
            const double cap = m_links[l].capacity;
            if (load[l] >= cap * (1 - 1e-9) && f.rate >= maxRate[l] * (1 - 1e-9))
            {
                bottleneck = true;
                break;
            }
        }
        if (!bottleneck)
        {
            err << "flow " << i << " (tag " << f.msg.tag << ", rate " << f.rate
                << ") has no bottleneck link: not max-min fair";
            return err.str();
        }
    }
    return "";
}

} // namespace astra
} // namespace ns3
