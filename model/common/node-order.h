/*
 * Node event order: events of one time stamp ordered by the node that created them and
 * that node's own count, an order that does not depend on how nodes are split over MPI
 * ranks. A run in this order gives the same results in one process and on any number of
 * ranks.
 */

#ifndef ASTRA_NODE_ORDER_H
#define ASTRA_NODE_ORDER_H

#include "bucket-scheduler.h"

#include "ns3/default-simulator-impl.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Event scheduler whose events of one time stamp leave in *node order*: by the node
 * whose event created them (the context running when they were scheduled), then by that
 * node's count of events created.
 *
 * ns-3's own order breaks ties by a global count of scheduled events (the uid). On MPI
 * ranks that count differs from a single process's, and a frame from another rank is
 * scheduled when its message is received rather than when it was sent: same-nanosecond
 * events then run in another order, and results differ by a few nanoseconds. Node order
 * depends only on what each node did, which is the same on every partition:
 * - the tie-break of an event is (creator << 40) | sequence, creator 1 + node id of the
 *   running context; outside any node (set-up, global events) the node the event is for,
 *   or 0xFFFFFF for an event of no node (which then keep ns-3's order among themselves);
 * - a link's reception event takes the tie-break its sending node reserved when the frame
 *   left (EventOrder::Reserve / SetNext), also when the frame crosses ranks (it travels in
 *   the frame's message; RdmaRemoteChannel schedules the arrival under it).
 *
 * Running events out of uid order changes what ns-3's IsExpired says of events of the
 * current time stamp, so this scheduler runs only under NodeOrderSimulatorImpl or its
 * distributed variant, which ask the scheduler instead (IsPendingAt: a search of the
 * current time stamp's bucket). It is BucketScheduler with this tie-break. A node's
 * sequence has 40 bits:
 * 2^40 events created by one node.
 */
class NodeOrderScheduler : public BucketScheduler
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    NodeOrderScheduler();
    ~NodeOrderScheduler() override;

    void Insert(const Scheduler::Event& ev) override;
    Scheduler::Event RemoveNext() override;

    /// \return the scheduler of the running simulation if it is a NodeOrderScheduler
    static NodeOrderScheduler* GetActive()
    {
        return s_active;
    }

    /**
     * Reserve the tie-break of an event the running context will schedule later (a
     * reception event of a link, created when the frame leaves).
     * \return the tie-break
     */
    uint64_t Reserve()
    {
        return Next(m_current);
    }

    /**
     * Reserve a tie-break from another context's count (an event a node's own work runs
     * in, scheduled by an event of another node: the same place among same-time events
     * whichever rank schedules it).
     * \param ctx the context (node id) whose count is used
     * \return the tie-break
     */
    uint64_t ReserveFor(uint32_t ctx)
    {
        return Next(ctx);
    }

    /// The next Insert takes this tie-break. \param tie from Reserve
    void SetNext(uint64_t tie)
    {
        m_next = tie;
        m_hasNext = true;
    }

    /// \return the tie-break of the event that left last (the running one)
    uint64_t GetRunningTie() const
    {
        return m_runTie;
    }

    /**
     * The tie-break Insert gives \p ev (SetNext's, else the next of its creator's count),
     * for an event a WindowSimulatorImpl keeps in another calendar.
     * \param ev the event being scheduled \return its tie-break
     */
    uint64_t TakeTie(const Scheduler::Event& ev);

    /**
     * What RemoveNext records of the event about to run, for an event that left another
     * calendar (WindowSimulatorImpl): its context creates what it schedules.
     * \param ctx the event's context \param tie its tie-break
     */
    void SetRunning(uint32_t ctx, uint64_t tie)
    {
        m_current = ctx;
        m_runTie = tie;
    }

    /// \return the tie-break of the next event (not empty)
    uint64_t NextTie() const
    {
        return PeekTie();
    }

    static constexpr uint32_t kSeqBits = 40;                     //!< bits of the sequence
    static constexpr uint64_t kNoCreator = 0xFFFFFF;             //!< creator outside any node
    static constexpr uint32_t kMaxNodes = kNoCreator - 1;        //!< node ids 0 .. kMaxNodes - 1
    static constexpr uint64_t kSeqMask = (1ULL << kSeqBits) - 1; //!< sequence field

  private:
    /// \param ctx a creating context \return its next tie-break
    uint64_t Next(uint32_t ctx)
    {
        if (ctx < m_seq.size())
        {
            return (uint64_t(ctx + 1) << kSeqBits) | m_seq[ctx]++;
        }
        return NextSlow(ctx);
    }

    /// Next for no node or a node seen first \param ctx the context \return the tie-break
    uint64_t NextSlow(uint32_t ctx);

    static NodeOrderScheduler* s_active; //!< the live instance (one simulation at a time)

    uint32_t m_current{0xFFFFFFFF}; //!< context of the event that left last
    std::vector<uint64_t> m_seq;    //!< next sequence per creator field (nodes)
    uint64_t m_noCreatorSeq{0};     //!< next sequence outside any node
    uint64_t m_next{0};             //!< SetNext's tie-break
    bool m_hasNext{false};          //!< m_next is set
    uint64_t m_runTie{0};           //!< tie-break of the event that left last
};

/**
 * \ingroup astra-sim
 * The order of same-time events of a run: what the programs' --event-order selects and
 * the hooks the fabric calls (no-ops in ns-3's order).
 */
class EventOrder
{
  public:
    /**
     * Select the order of the simulation about to be created (before anything uses the
     * Simulator): binds SimulatorImplementationType and SchedulerType.
     * \param order "node" (NodeOrderScheduler), "window" (node order, run by groups of
     *        nodes one look-ahead window at a time: WindowSimulatorImpl; one process) or
     *        "fifo" (ns-3's order; the scheduler bound before, BucketScheduler in the
     *        module's programs, and the default or distributed simulator)
     * \param distributed the MPI engine (ns3::DistributedSimulatorImpl's node-order
     *        variant for "node"), else the sequential one
     * Throws InputError for another order, "node" with distributed in a build without
     * MPI, or "window" with distributed.
     */
    static void Select(const std::string& order, bool distributed);

    /// \return the tie-break for a later event of the running context (0 in ns-3's order)
    static uint64_t Reserve()
    {
        NodeOrderScheduler* s = NodeOrderScheduler::GetActive();
        return s ? s->Reserve() : 0;
    }

    /// \return a tie-break from the count of context \p ctx (0 in ns-3's order)
    static uint64_t ReserveFor(uint32_t ctx)
    {
        NodeOrderScheduler* s = NodeOrderScheduler::GetActive();
        return s ? s->ReserveFor(ctx) : 0;
    }

    /// The next scheduled event takes tie \param tie from Reserve (no-op in ns-3's order)
    static void SetNext(uint64_t tie)
    {
        if (NodeOrderScheduler* s = NodeOrderScheduler::GetActive())
        {
            s->SetNext(tie);
        }
    }

    /// \return the tie-break of the running event (0 in ns-3's order)
    static uint64_t GetRunningTie()
    {
        NodeOrderScheduler* s = NodeOrderScheduler::GetActive();
        return s ? s->GetRunningTie() : 0;
    }

    /// \return whether the running simulation is in node order
    static bool IsNodeOrder()
    {
        return NodeOrderScheduler::GetActive() != nullptr;
    }

    /**
     * The next scheduled event touches state of nodes other than its own (the system
     * layer's collective gate): under WindowSimulatorImpl it runs at a window's end,
     * merged with every group's events of its time stamp. A no-op otherwise.
     */
    static void MarkSync();

    /// \return whether the running simulator is a WindowSimulatorImpl
    static bool IsWindow();

    /**
     * \return the look-ahead of a running WindowSimulatorImpl in time steps (its groups
     * are formed if they were not), 0 under any other simulator
     */
    static uint64_t WindowLookaheadSteps();

    /**
     * Nodes interact \p steps after a cause on another node other than over a link (the
     * system layer's collective gate): a WindowSimulatorImpl refuses to run (InputError
     * when Run starts) with a longer look-ahead. A no-op under any other simulator.
     * \param steps the delay of the interaction (time steps)
     * \param what its name and how to lengthen it, for the message
     */
    static void LimitLookahead(uint64_t steps, const std::string& what);
};

/**
 * \ingroup astra-sim
 * ns-3's sequential simulator for NodeOrderScheduler: IsExpired asks the scheduler about
 * events of the current time stamp (they do not run in uid order).
 */
class NodeOrderSimulatorImpl : public DefaultSimulatorImpl
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    NodeOrderSimulatorImpl();
    ~NodeOrderSimulatorImpl() override;

    bool IsExpired(const EventId& id) const override;
    /// Only a NodeOrderScheduler (InputError otherwise) \param schedulerFactory the type
    void SetScheduler(ObjectFactory schedulerFactory) override;
};

/**
 * IsExpired of a node-order simulator.
 * \param id the event \param nowTs the current time stamp
 * \param[out] decided false if the base class must decide (destroy events)
 * \return whether the event ran, was cancelled or removed
 */
bool NodeOrderIsExpired(const EventId& id, uint64_t nowTs, bool& decided);

/**
 * Refuse any scheduler but NodeOrderScheduler for a node-order simulator.
 * \param f the factory \param impl the simulator's type name (for the message)
 */
void CheckNodeOrderScheduler(const ObjectFactory& f, const std::string& impl);

} // namespace astra
} // namespace ns3

#endif /* ASTRA_NODE_ORDER_H */
