#include "window-simulator-impl.h"

#include "astra-diagnostics.h"

#include "ns3/channel.h"
#include "ns3/event-id.h"
#include "ns3/log.h"
#include "ns3/net-device.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <sstream>
#include <typeinfo>
#include <unordered_set>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("WindowSimulatorImpl");
NS_OBJECT_ENSURE_REGISTERED(WindowSimulatorImpl);

WindowSimulatorImpl* WindowSimulatorImpl::s_active = nullptr;

TypeId
WindowSimulatorImpl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::WindowSimulatorImpl")
            .SetParent<SimulatorImpl>()
            .SetGroupName("AstraSim")
            .AddConstructor<WindowSimulatorImpl>()
            .AddAttribute("Lookahead",
                          "Window length: nodes joined by a link shorter than this run in one "
                          "group. 0: the longest link delay of the fabric.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&WindowSimulatorImpl::m_lookaheadAttr),
                          MakeTimeChecker(Time(0)))
            .AddAttribute(
                "PrefetchMinNodes",
                "The groups' calendars also run the per-event look-ahead prefetch "
                "(BucketScheduler PrefetchAhead: while an event is taken, the state of the "
                "next ones is fetched) on fabrics of at least this many nodes; 0: always. "
                "Off by default: WindowPrefetch does better (2-D all-reduce, roce-bench, "
                "1,160 nodes: 38-41 s with the look-ahead, 37.6-39.7 s with both, 33.5-34.4 s "
                "with WindowPrefetch alone). Results do not depend on it.",
                UintegerValue(std::numeric_limits<uint32_t>::max()),
                MakeUintegerAccessor(&WindowSimulatorImpl::m_prefetchMinNodes),
                MakeUintegerChecker<uint32_t>())
            .AddAttribute("WindowPrefetch",
                          "Before a group runs its window, what its pending events of the "
                          "window will read is prefetched in passes (BucketScheduler::"
                          "PrefetchBefore: the events' objects, then their frames, channels "
                          "and devices, then what those lead to), for at most this many "
                          "events; 0: never. Results do not depend on it.",
                          UintegerValue(512),
                          MakeUintegerAccessor(&WindowSimulatorImpl::m_windowPrefetch),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

WindowSimulatorImpl::WindowSimulatorImpl()
{
    s_active = this;
}

WindowSimulatorImpl::~WindowSimulatorImpl()
{
    if (s_active == this)
    {
        s_active = nullptr;
    }
}

void
WindowSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    CheckNodeOrderScheduler(schedulerFactory, "ns3::astra::WindowSimulatorImpl");
    Ptr<NodeOrderScheduler> s = schedulerFactory.Create<NodeOrderScheduler>();
    if (m_global)
    {
        // events scheduled so far keep their tie-breaks
        while (!m_global->IsEmpty())
        {
            s->Insert(m_global->RemoveNext());
        }
    }
    m_global = s;
}

void
WindowSimulatorImpl::DoDispose()
{
    for (const Pending& p : m_pending)
    {
        p.ev.impl->Unref();
    }
    m_pending.clear();
    for (const Ptr<GroupCalendar>& c : m_cal)
    {
        while (!c->IsEmpty())
        {
            c->RemoveNext().impl->Unref();
        }
    }
    m_cal.clear();
    if (m_global)
    {
        while (!m_global->IsEmpty())
        {
            m_global->RemoveNext().impl->Unref();
        }
        m_global = nullptr;
    }
    SimulatorImpl::DoDispose();
}

void
WindowSimulatorImpl::Destroy()
{
    while (!m_destroyEvents.empty())
    {
        Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
}

void
WindowSimulatorImpl::LimitLookahead(uint64_t steps, const std::string& what)
{
    m_limits.emplace_back(steps, what);
}

uint32_t
WindowSimulatorImpl::GetGroupOf(uint32_t node) const
{
    return GroupOfContext(node);
}

bool
WindowSimulatorImpl::IsPrefetching() const
{
    if (m_cal.empty())
    {
        return false;
    }
    UintegerValue min;
    m_cal.front()->GetAttribute("PrefetchMinEvents", min);
    return min.Get() == 0;
}

void
WindowSimulatorImpl::BuildGroups()
{
    if (m_built)
    {
        return;
    }
    const uint32_t n = NodeList::GetNNodes();

    // channels: their nodes and delay (a channel without a Delay attribute counts as 0)
    struct Link
    {
        std::vector<uint32_t> nodes;
        uint64_t delay;
    };

    std::vector<Link> links;
    std::unordered_set<const Channel*> seen;
    uint64_t longest = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<Node> node = NodeList::GetNode(i);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<Channel> ch = node->GetDevice(d)->GetChannel();
            if (!ch || !seen.insert(PeekPointer(ch)).second)
            {
                continue;
            }
            Link l;
            TimeValue delay(Time(0));
            l.delay = ch->GetAttributeFailSafe("Delay", delay)
                          ? static_cast<uint64_t>(std::max<int64_t>(0, delay.Get().GetTimeStep()))
                          : 0;
            for (std::size_t k = 0; k < ch->GetNDevices(); ++k)
            {
                Ptr<NetDevice> dev = ch->GetDevice(k);
                if (dev && dev->GetNode())
                {
                    l.nodes.push_back(dev->GetNode()->GetId());
                }
            }
            longest = std::max(longest, l.delay);
            links.push_back(std::move(l));
        }
    }
    const int64_t attr = m_lookaheadAttr.GetTimeStep();
    m_lookahead = attr > 0 ? static_cast<uint64_t>(attr) : longest;
    for (const auto& l : m_limits)
    {
        if (m_lookahead > l.first)
        {
            auto ns = [](uint64_t steps) {
                return std::to_string(TimeStep(static_cast<int64_t>(steps)).GetNanoSeconds());
            };
            throw InputError(
                "--event-order=window: the window simulator's look-ahead is " + ns(m_lookahead) +
                " ns (" +
                (attr > 0 ? std::string("ns3::astra::WindowSimulatorImpl::Lookahead")
                          : std::string("the longest link delay")) +
                "), but nodes interact sooner than that other than over a link: " + l.second +
                ". Set it to at least " + ns(m_lookahead) + " ns, or use --event-order=node");
        }
    }
    std::vector<uint32_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&parent](uint32_t x) {
        while (parent[x] != x)
        {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    };
    for (const Link& l : links)
    {
        if (l.delay >= m_lookahead && m_lookahead > 0)
        {
            continue;
        }
        for (std::size_t k = 1; k < l.nodes.size(); ++k)
        {
            const uint32_t a = find(l.nodes[0]);
            const uint32_t b = find(l.nodes[k]);
            if (a != b)
            {
                parent[std::max(a, b)] = std::min(a, b);
            }
        }
    }
    // groups numbered by their lowest node id
    m_groupOf.assign(n, 0);
    std::vector<uint32_t> number(n, kGlobal);
    uint32_t groups = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t r = find(i);
        if (number[r] == kGlobal)
        {
            number[r] = groups++;
        }
        m_groupOf[i] = number[r];
    }
    if (m_lookahead == 0)
    {
        // no link with a delay: one group, run as a sequential simulator would
        std::fill(m_groupOf.begin(), m_groupOf.end(), 0);
        groups = n > 0 ? 1 : 0;
    }
    m_cal.clear();
    m_groupTs.assign(groups, 0);
    // a group's calendar holds a few dozen events: the fabric's size, not the calendar's,
    // says whether its state is beyond the caches
    const bool prefetch = n >= m_prefetchMinNodes;
    for (uint32_t g = 0; g < groups; ++g)
    {
        Ptr<GroupCalendar> c = CreateObject<GroupCalendar>();
        c->SetAttribute("PrefetchMinEvents",
                        UintegerValue(prefetch ? 0 : std::numeric_limits<uint32_t>::max()));
        m_cal.push_back(c);
    }
    m_built = true;
    for (Pending& p : m_pending)
    {
        const uint32_t g = GroupOfContext(p.ev.key.m_context);
        if (g == kGlobal)
        {
            m_global->SetNext(p.tie);
            m_global->Insert(p.ev);
        }
        else
        {
            m_cal[g]->InsertTie(p.ev, p.tie);
        }
    }
    m_pending.clear();
    NS_LOG_INFO(n << " nodes, " << groups << " groups, look-ahead " << m_lookahead
                  << (prefetch ? ", prefetch" : ""));
}

void
WindowSimulatorImpl::Violation(const Scheduler::Event& ev, const std::string& what) const
{
    std::ostringstream os;
    const std::string type = typeid(*ev.impl).name();
    auto ns = [](uint64_t steps) { return TimeStep(static_cast<int64_t>(steps)).GetNanoSeconds(); };
    ev.impl->Unref(); // never scheduled
    os << "window simulator: node " << m_currentContext << " at " << ns(m_currentTs)
       << " ns scheduled " << what << " for ";
    if (ev.key.m_context == 0xFFFFFFFF)
    {
        os << "no node";
    }
    else
    {
        os << "node " << ev.key.m_context;
    }
    os << " at " << ns(ev.key.m_ts) << " ns (" << type << "), inside the window that ends at "
       << ns(m_windowEnd)
       << " ns, which that node's group has already run: nodes interact faster than the "
          "look-ahead ("
       << ns(m_lookahead)
       << " ns). Give zero-delay interactions between nodes a delay of at least the "
          "look-ahead (collective-gate-latency-ns), set a shorter "
          "ns3::astra::WindowSimulatorImpl::Lookahead, or use --event-order=node";
    throw InputError(os.str());
}

void
WindowSimulatorImpl::Insert(Scheduler::Event& ev)
{
    ev.key.m_uid = m_uid++;
    ++m_unscheduled;
    const bool sync = m_markSync;
    m_markSync = false;
    if (!m_built)
    {
        // before Run nothing runs in windows: a marked event is an ordinary one
        m_pending.push_back(Pending{ev, m_global->TakeTie(ev)});
        return;
    }
    const uint32_t g = sync ? kGlobal : GroupOfContext(ev.key.m_context);
    if (m_runningGroup != kGlobal && ev.key.m_ts < m_windowEnd)
    {
        if (g == kGlobal)
        {
            Violation(ev, sync ? "an event marked to run alone (MarkSync)" : "a global event");
        }
        if (m_backwards ? g > m_runningGroup : g < m_runningGroup)
        {
            Violation(ev, "an event");
        }
    }
    if (g == kGlobal)
    {
        m_global->Insert(ev);
    }
    else
    {
        m_cal[g]->InsertTie(ev, m_global->TakeTie(ev));
    }
}

EventId
WindowSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    const Scheduler::Event ev = Insert(m_currentContext, delay, event);
    // the calendar keeps the caller's reference; the id takes one of its own
    return EventId(Ptr<EventImpl>(event), ev.key.m_ts, ev.key.m_context, ev.key.m_uid);
}

void
WindowSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    Insert(context, delay, event);
}

Scheduler::Event
WindowSimulatorImpl::Insert(uint32_t context, const Time& delay, EventImpl* event)
{
    NS_ASSERT_MSG(delay.IsPositive(), "WindowSimulatorImpl: an event scheduled in the past");
    Scheduler::Event ev;
    ev.impl = event;
    ev.key.m_ts = m_currentTs + static_cast<uint64_t>(delay.GetTimeStep());
    ev.key.m_context = context;
    Insert(ev);
    return ev;
}

EventId
WindowSimulatorImpl::ScheduleNow(EventImpl* event)
{
    return Schedule(Time(0), event);
}

EventId
WindowSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    EventId id(Ptr<EventImpl>(event, false), m_currentTs, 0xffffffff, EventId::UID::DESTROY);
    m_destroyEvents.push_back(id);
    m_uid++;
    return id;
}

void
WindowSimulatorImpl::Invoke(const Scheduler::Event& ev, uint64_t tie)
{
    m_currentTs = ev.key.m_ts;
    m_currentContext = ev.key.m_context;
    m_currentUid = ev.key.m_uid;
    m_global->SetRunning(ev.key.m_context, tie);
    --m_unscheduled;
    ++m_eventCount;
    try
    {
        ev.impl->Invoke();
    }
    catch (...)
    {
        ev.impl->Unref();
        throw;
    }
    ev.impl->Unref();
}

void
WindowSimulatorImpl::RunMerged(uint64_t ts)
{
    // every calendar's events of ts in tie-break order (events of ts scheduled meanwhile
    // join them): the order of one sequential node-order run. Every group has run its
    // events before ts.
    std::fill(m_groupTs.begin(), m_groupTs.end(), ts);
    m_globalTs = ts;
    m_safeTs = ts;
    while (!m_stop)
    {
        BucketScheduler* best = nullptr;
        uint64_t bestTie = 0;
        if (!m_global->IsEmpty() && m_global->PeekNext().key.m_ts == ts)
        {
            best = PeekPointer(m_global);
            bestTie = m_global->NextTie();
        }
        for (const Ptr<GroupCalendar>& c : m_cal)
        {
            if (!c->IsEmpty() && c->PeekNext().key.m_ts == ts && (!best || c->NextTie() < bestTie))
            {
                best = PeekPointer(c);
                bestTie = c->NextTie();
            }
        }
        if (!best)
        {
            return;
        }
        const Scheduler::Event e = best->RemoveNext();
        Invoke(e, bestTie);
    }
}

void
WindowSimulatorImpl::Run()
{
    BuildGroups();
    s_active = this;
    m_stop = false;
    m_stopAtWindowEnd = false;
    while (!m_stop)
    {
        // the earliest pending time stamp
        uint64_t t = std::numeric_limits<uint64_t>::max();
        for (const Ptr<GroupCalendar>& c : m_cal)
        {
            if (!c->IsEmpty())
            {
                t = std::min(t, c->PeekNext().key.m_ts);
            }
        }
        const uint64_t tg = m_global->IsEmpty() ? std::numeric_limits<uint64_t>::max()
                                                : m_global->PeekNext().key.m_ts;
        if (t == std::numeric_limits<uint64_t>::max() && tg == t)
        {
            break;
        }
        if (tg <= t)
        {
            RunMerged(tg);
            continue;
        }
        m_windowEnd = std::min(tg, t + std::max<uint64_t>(m_lookahead, 1));
        m_safeTs = t;
        ++m_windows;
        // every other window runs the groups backwards: the groups that ran last are the
        // first again, while their state is still in the caches (a fabric larger than the
        // caches run in one cyclic order would find none of it there)
        m_backwards = !m_backwards;
        const uint32_t n = static_cast<uint32_t>(m_cal.size());
        for (uint32_t k = 0; k < n; ++k)
        {
            const uint32_t g = m_backwards ? n - 1 - k : k;
            GroupCalendar* c = PeekPointer(m_cal[g]);
            m_runningGroup = g;
            if (m_windowPrefetch > 0)
            {
                c->PrefetchBefore(m_windowEnd, m_windowPrefetch);
            }
            while (!c->IsEmpty() && c->PeekNext().key.m_ts < m_windowEnd)
            {
                const uint64_t tie = c->NextTie();
                const Scheduler::Event e = c->RemoveNext();
                m_groupTs[g] = e.key.m_ts;
                Invoke(e, tie);
            }
        }
        m_runningGroup = kGlobal;
        if (m_stopAtWindowEnd)
        {
            m_stop = true;
        }
    }
    m_runningGroup = kGlobal;
    NS_LOG_INFO(m_windows << " windows");
}

void
WindowSimulatorImpl::Stop()
{
    if (m_runningGroup != kGlobal)
    {
        m_stopAtWindowEnd = true;
    }
    else
    {
        m_stop = true;
    }
}

void
WindowSimulatorImpl::Stop(const Time& delay)
{
    ScheduleWithContext(0xFFFFFFFF, delay, MakeEvent(static_cast<void (*)()>(&Simulator::Stop)));
}

bool
WindowSimulatorImpl::IsFinished() const
{
    if (!m_pending.empty() || (m_global && !m_global->IsEmpty()))
    {
        return false;
    }
    return std::all_of(m_cal.begin(), m_cal.end(), [](const Ptr<GroupCalendar>& c) {
        return c->IsEmpty();
    });
}

BucketScheduler*
WindowSimulatorImpl::Holder(const EventId& id) const
{
    const uint64_t ts = id.GetTs();
    const uint32_t uid = id.GetUid();
    const uint32_t g = GroupOfContext(id.GetContext());
    if (g != kGlobal && g < m_cal.size() && m_cal[g]->IsPendingAt(ts, uid))
    {
        return PeekPointer(m_cal[g]);
    }
    if (m_global && m_global->IsPendingAt(ts, uid))
    {
        return PeekPointer(m_global);
    }
    return nullptr;
}

bool
WindowSimulatorImpl::IsExpired(const EventId& id) const
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        EventImpl* impl = id.PeekEventImpl();
        if (!impl || impl->IsCancelled())
        {
            return true;
        }
        return std::find(m_destroyEvents.begin(), m_destroyEvents.end(), id) ==
               m_destroyEvents.end();
    }
    EventImpl* impl = id.PeekEventImpl();
    if (!impl || impl->IsCancelled())
    {
        return true;
    }
    if (!m_built)
    {
        return std::none_of(m_pending.begin(), m_pending.end(), [&id](const Pending& p) {
            return p.ev.key.m_uid == id.GetUid();
        });
    }
    // each group keeps a time of its own: the event's group's decides (an event of a
    // group's past ran or was removed, one of its future is pending unless cancelled)
    const uint32_t g = GroupOfContext(id.GetContext());
    const uint64_t now = g == kGlobal ? m_globalTs : m_groupTs[g];
    if (id.GetTs() != now)
    {
        return id.GetTs() < now;
    }
    return Holder(id) == nullptr;
}

void
WindowSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        for (auto i = m_destroyEvents.begin(); i != m_destroyEvents.end(); ++i)
        {
            if (*i == id)
            {
                m_destroyEvents.erase(i);
                break;
            }
        }
        return;
    }
    if (IsExpired(id))
    {
        return;
    }
    Scheduler::Event ev;
    ev.impl = id.PeekEventImpl();
    ev.key.m_ts = id.GetTs();
    ev.key.m_context = id.GetContext();
    ev.key.m_uid = id.GetUid();
    if (!m_built)
    {
        auto it = std::find_if(m_pending.begin(), m_pending.end(), [&id](const Pending& p) {
            return p.ev.key.m_uid == id.GetUid();
        });
        m_pending.erase(it);
    }
    else if (BucketScheduler* h = Holder(id))
    {
        h->Remove(ev);
    }
    else
    {
        return; // not pending anywhere: it ran
    }
    ev.impl->Cancel();
    ev.impl->Unref();
    --m_unscheduled;
}

void
WindowSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

Time
WindowSimulatorImpl::Now() const
{
    return TimeStep(m_currentTs);
}

Time
WindowSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    if (IsExpired(id))
    {
        return TimeStep(0);
    }
    return TimeStep(id.GetTs() - m_currentTs);
}

Time
WindowSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(0x7fffffffffffffffLL);
}

uint32_t
WindowSimulatorImpl::GetSystemId() const
{
    return 0;
}

uint32_t
WindowSimulatorImpl::GetContext() const
{
    return m_currentContext;
}

uint64_t
WindowSimulatorImpl::GetEventCount() const
{
    return m_eventCount;
}

} // namespace astra
} // namespace ns3
