#include "node-order.h"

#include "astra-diagnostics.h"
#include "astra-input.h"
#include "window-simulator-impl.h"

#include "ns3/event-impl.h"
#include "ns3/global-value.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <string>

namespace ns3
{
namespace astra
{

NS_OBJECT_ENSURE_REGISTERED(NodeOrderScheduler);
NS_OBJECT_ENSURE_REGISTERED(NodeOrderSimulatorImpl);

NodeOrderScheduler* NodeOrderScheduler::s_active = nullptr;

TypeId
NodeOrderScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::astra::NodeOrderScheduler")
                            .SetParent<BucketScheduler>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<NodeOrderScheduler>();
    return tid;
}

NodeOrderScheduler::NodeOrderScheduler()
{
    s_active = this;
}

NodeOrderScheduler::~NodeOrderScheduler()
{
    if (s_active == this)
    {
        s_active = nullptr;
    }
}

uint64_t
NodeOrderScheduler::NextSlow(uint32_t ctx)
{
    if (ctx == 0xFFFFFFFF)
    {
        return (kNoCreator << kSeqBits) | m_noCreatorSeq++;
    }
    if (ctx >= kMaxNodes)
    {
        throw InputError("node event order: node id " + std::to_string(ctx) + " past its " +
                         std::to_string(kMaxNodes) + " nodes (use --event-order=fifo)");
    }
    m_seq.resize(std::size_t(ctx) + 1, 0);
    return Next(ctx);
}

uint64_t
NodeOrderScheduler::TakeTie(const Scheduler::Event& ev)
{
    if (m_hasNext)
    {
        m_hasNext = false;
        return m_next;
    }
    // outside any node (set-up, global events) an event for a node counts as that
    // node's: set-up schedules only its own nodes' events on each rank
    return Next(m_current != 0xFFFFFFFF ? m_current : ev.key.m_context);
}

void
NodeOrderScheduler::Insert(const Scheduler::Event& ev)
{
    InsertWithTie(ev, TakeTie(ev));
}

Scheduler::Event
NodeOrderScheduler::RemoveNext()
{
    m_runTie = PeekTie();
    const Scheduler::Event ev = BucketScheduler::RemoveNext();
    // the simulator runs this event next, in its context: what it schedules, it creates
    m_current = ev.key.m_context;
    return ev;
}

bool
NodeOrderIsExpired(const EventId& id, uint64_t nowTs, bool& decided)
{
    const NodeOrderScheduler* s = NodeOrderScheduler::GetActive();
    if (id.GetUid() == EventId::UID::DESTROY || !s)
    {
        decided = false;
        return false;
    }
    decided = true;
    EventImpl* impl = id.PeekEventImpl();
    if (!impl || impl->IsCancelled())
    {
        return true;
    }
    if (id.GetTs() != nowTs)
    {
        return id.GetTs() < nowTs;
    }
    // not cancelled, of the current time stamp: it ran (or runs) unless still pending
    return !s->IsPendingAt(nowTs, id.GetUid());
}

void
CheckNodeOrderScheduler(const ObjectFactory& f, const std::string& impl)
{
    if (f.GetTypeId() != NodeOrderScheduler::GetTypeId())
    {
        throw InputError(impl + " needs SchedulerType=ns3::astra::NodeOrderScheduler, not " +
                         f.GetTypeId().GetName() + " (event order 'node')");
    }
}

TypeId
NodeOrderSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::astra::NodeOrderSimulatorImpl")
                            .SetParent<DefaultSimulatorImpl>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<NodeOrderSimulatorImpl>();
    return tid;
}

NodeOrderSimulatorImpl::NodeOrderSimulatorImpl() = default;
NodeOrderSimulatorImpl::~NodeOrderSimulatorImpl() = default;

bool
NodeOrderSimulatorImpl::IsExpired(const EventId& id) const
{
    bool decided = false;
    const bool expired = NodeOrderIsExpired(id, uint64_t(Now().GetTimeStep()), decided);
    return decided ? expired : DefaultSimulatorImpl::IsExpired(id);
}

void
NodeOrderSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    CheckNodeOrderScheduler(schedulerFactory, "ns3::astra::NodeOrderSimulatorImpl");
    DefaultSimulatorImpl::SetScheduler(schedulerFactory);
}

void
EventOrder::Select(const std::string& order, bool distributed)
{
    if (order != "node" && order != "fifo" && order != "window")
    {
        throw InputError(
            "--event-order=" + order +
            ": unknown order (node: same-time events by the node that created them, the "
            "same on any number of MPI ranks; window: node order, run by groups of nodes "
            "one look-ahead window at a time, one process; fifo: ns-3's order)" +
            DidYouMean(order, {"node", "fifo", "window"}));
    }
    if (order == "window" && distributed)
    {
        throw InputError("--event-order=window runs in one process; on MPI ranks use "
                         "--event-order=node");
    }
    if (order == "fifo")
    {
        return;
    }
    StringValue impl;
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    const std::string simulator = impl.Get();
    if (simulator != "ns3::DefaultSimulatorImpl" && simulator != "ns3::DistributedSimulatorImpl" &&
        simulator != "ns3::astra::NodeOrderSimulatorImpl" &&
        simulator != "ns3::astra::WindowSimulatorImpl" &&
        simulator != "ns3::astra::NodeOrderDistributedSimulatorImpl")
    {
        throw InputError("--SimulatorImplementationType=" + simulator +
                         " does not keep the node event order (--event-order=node has its "
                         "own simulator); drop it or pass --event-order=fifo");
    }
    StringValue current;
    GlobalValue::GetValueByName("SchedulerType", current);
    const std::string sched = current.Get();
    if (sched != "ns3::astra::BucketScheduler" && sched != "ns3::astra::QuadHeapScheduler" &&
        sched != "ns3::astra::NodeOrderScheduler")
    {
        throw InputError("--SchedulerType=" + sched +
                         " does not keep the node event order (--event-order=node has "
                         "its own scheduler); drop it or pass --event-order=fifo");
    }
    if (distributed)
    {
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe("ns3::astra::NodeOrderDistributedSimulatorImpl", &tid))
        {
            throw InputError("--event-order=node on MPI ranks: this build has no MPI");
        }
    }
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(order == "window" ? "ns3::astra::WindowSimulatorImpl"
                                  : distributed ? "ns3::astra::NodeOrderDistributedSimulatorImpl"
                                                : "ns3::astra::NodeOrderSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", StringValue("ns3::astra::NodeOrderScheduler"));
}

void
EventOrder::MarkSync()
{
    if (WindowSimulatorImpl* w = WindowSimulatorImpl::GetActive())
    {
        w->MarkNextSync();
    }
}

bool
EventOrder::IsWindow()
{
    // the simulator is created on first use: a program may ask before it runs
    return WindowSimulatorImpl::GetActive() != nullptr ||
           DynamicCast<WindowSimulatorImpl>(Simulator::GetImplementation()) != nullptr;
}

void
EventOrder::LimitLookahead(uint64_t steps, const std::string& what)
{
    Ptr<WindowSimulatorImpl> w = DynamicCast<WindowSimulatorImpl>(Simulator::GetImplementation());
    if (w)
    {
        w->LimitLookahead(steps, what);
    }
}

uint64_t
EventOrder::WindowLookaheadSteps()
{
    WindowSimulatorImpl* w = WindowSimulatorImpl::GetActive();
    if (!w)
    {
        return 0;
    }
    w->BuildGroups();
    return w->GetLookaheadSteps();
}

} // namespace astra
} // namespace ns3
