/*
 * WindowSimulatorImpl: a sequential simulator that runs the nodes in groups, one
 * look-ahead window at a time. Nodes joined by links shorter than the look-ahead form a
 * group; a group runs all its events of a window [T, T + lookahead) before the next
 * group starts the same window, so only that group's state is in the caches meanwhile.
 * What one group does reaches another only over a link at least the look-ahead long,
 * that is after the window: in node event order (NodeOrderScheduler's tie-break, which
 * does not depend on how the nodes are split) the results are those of a sequential
 * node-order run.
 */

#ifndef ASTRA_WINDOW_SIMULATOR_IMPL_H
#define ASTRA_WINDOW_SIMULATOR_IMPL_H

#include "bucket-scheduler.h"
#include "node-order.h"

#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"

#include <cstdint>
#include <list>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * The calendar of one group of a WindowSimulatorImpl: a BucketScheduler that takes the
 * tie-break the simulator computed (node event order) and tells the next event's.
 */
class GroupCalendar : public BucketScheduler
{
  public:
    /// Insert \p ev with tie-break \p tie
    void InsertTie(const Scheduler::Event& ev, uint64_t tie)
    {
        InsertWithTie(ev, tie);
    }

    /// \return the tie-break of the next event (not empty)
    uint64_t NextTie() const
    {
        return PeekTie();
    }
};

/**
 * \ingroup astra-sim
 * Sequential simulator that runs groups of nodes one look-ahead window at a time (see the
 * file comment). Select it with EventOrder::Select("window", false) (the programs'
 * ``--event-order=window``); it needs SchedulerType ns3::astra::NodeOrderScheduler.
 *
 * - **Groups.** When Run starts, nodes whose devices share a channel with a propagation
 *   delay (its ``Delay`` attribute) below Lookahead are joined (a channel with no such
 *   attribute joins its nodes whatever the delay). A context that is no node's
 *   (0xFFFFFFFF, set-up, global timers) is the *global* calendar.
 * - **Windows.** A window starts at the earliest pending event T and ends at
 *   min(T + Lookahead, the next global event). The groups then run their events of the
 *   window in group order, each in node event order.
 * - **Global events** (and events marked with EventOrder::MarkSync, such as the system
 *   layer's collective-gate notices) run at a window's end: the events of that time stamp
 *   of every group and the global calendar run merged in node event order, as in one
 *   sequential run.
 * - **Checked.** An event scheduled inside the running window for a group that has
 *   already run it, or a global or marked event scheduled inside it, would change the
 *   past of another group: the run stops with an InputError naming both nodes, the
 *   times and the look-ahead.
 * - **Simulator::Stop()** from an event stops at the end of its window (every group runs
 *   the window out); Stop(delay) from set-up is a global event and stops exactly there.
 *
 * - **Prefetch.** A group's state is cold when its window starts on a fabric larger than
 *   the caches: before the group runs, what its pending events of the window read is
 *   prefetched in passes (WindowPrefetch, BucketScheduler::PrefetchBefore), so those lines
 *   arrive together rather than one event after another. On fabrics of at least
 *   PrefetchMinNodes nodes (default: none) the calendars also run BucketScheduler's
 *   per-event look-ahead.
 *
 * Single-threaded (no ScheduleWithContext from other threads), single process.
 */
class WindowSimulatorImpl : public SimulatorImpl
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    WindowSimulatorImpl();
    ~WindowSimulatorImpl() override;

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    void Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    /// Only a NodeOrderScheduler (InputError otherwise) \param schedulerFactory the type
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

    /// \return the simulator of the running simulation if it is a WindowSimulatorImpl
    static WindowSimulatorImpl* GetActive()
    {
        return s_active;
    }

    /// The next event scheduled runs at a window's end, merged with every group's
    void MarkNextSync()
    {
        m_markSync = true;
    }

    /**
     * Form the groups now (Run does it if not done): a program may ask for the
     * look-ahead and groups before it runs.
     */
    void BuildGroups();

    /**
     * Refuse a look-ahead longer than \p steps (InputError from BuildGroups): nodes
     * interact that soon other than over a link (EventOrder::LimitLookahead).
     * \param steps the interaction's delay (time steps) \param what its name, for the message
     */
    void LimitLookahead(uint64_t steps, const std::string& what);

    /// \return the look-ahead in time steps (after BuildGroups)
    uint64_t GetLookaheadSteps() const
    {
        return m_lookahead;
    }

    /// \return the number of groups (after BuildGroups)
    uint32_t GetGroupCount() const
    {
        return static_cast<uint32_t>(m_cal.size());
    }

    /// \return the group of node \p node (after BuildGroups)
    uint32_t GetGroupOf(uint32_t node) const;

    /// \return whether the groups' calendars run the look-ahead prefetch (after
    /// BuildGroups; PrefetchMinNodes)
    bool IsPrefetching() const;

    /**
     * \return a time (steps) before which every group has run all its events: what is
     * recorded of earlier times is final (trace files sort and write it)
     */
    uint64_t GetSafeTs() const
    {
        return m_safeTs;
    }

    /// \return windows run so far
    uint64_t GetWindowCount() const
    {
        return m_windows;
    }

  protected:
    void DoDispose() override;

  private:
    /// An event scheduled before the groups exist, with its tie-break
    struct Pending
    {
        Scheduler::Event ev; //!< the event
        uint64_t tie;        //!< its tie-break
    };

    static constexpr uint32_t kGlobal = 0xFFFFFFFF; //!< "group" of the global calendar

    /// route \p ev (absolute time stamp set) to its calendar; sets its uid
    void Insert(Scheduler::Event& ev);
    /**
     * Schedule \p event for \p context after \p delay.
     * \param context the context \param delay the delay \param event the event
     * \return the event as scheduled
     */
    Scheduler::Event Insert(uint32_t context, const Time& delay, EventImpl* event);

    /// \return the group of context \p ctx (kGlobal for no node)
    uint32_t GroupOfContext(uint32_t ctx) const
    {
        return ctx < m_groupOf.size() ? m_groupOf[ctx] : kGlobal;
    }

    /// run \p ev, which left group \p g's calendar with tie-break \p tie
    void Invoke(const Scheduler::Event& ev, uint64_t tie);
    /// run the events of time stamp \p ts of every calendar merged in tie-break order
    void RunMerged(uint64_t ts);
    /// the calendar holding event \p id, or null
    BucketScheduler* Holder(const EventId& id) const;
    /// stop the run with a message: \p what was scheduled inside the window
    [[noreturn]] void Violation(const Scheduler::Event& ev, const std::string& what) const;

    static WindowSimulatorImpl* s_active; //!< the live instance

    Time m_lookaheadAttr;                    //!< Lookahead attribute (0: automatic)
    uint32_t m_prefetchMinNodes{0xFFFFFFFF}; //!< PrefetchMinNodes attribute
    uint32_t m_windowPrefetch{512};          //!< WindowPrefetch attribute
    Ptr<NodeOrderScheduler> m_global;        //!< global events, and the tie-break source
    std::vector<Ptr<GroupCalendar>> m_cal;   //!< one calendar per group
    std::vector<uint32_t> m_groupOf;         //!< group per node id
    std::vector<uint64_t> m_groupTs;         //!< time stamp of each group's last event
    uint64_t m_safeTs{0};                    //!< GetSafeTs
    uint64_t m_globalTs{0};                  //!< time stamp of the last merged time step
    std::vector<Pending> m_pending;          //!< events scheduled before the groups exist
    std::list<EventId> m_destroyEvents;      //!< ScheduleDestroy's events
    std::vector<std::pair<uint64_t, std::string>> m_limits; //!< LimitLookahead's
    uint64_t m_lookahead{0};                                //!< look-ahead (time steps)
    uint64_t m_currentTs{0};                                //!< time stamp of the running event
    uint32_t m_currentContext{0xFFFFFFFF};                  //!< context of the running event
    uint32_t m_currentUid{0};                               //!< uid of the running event
    uint32_t m_uid{4};                //!< next uid (0-3 are ns-3's reserved ones)
    uint64_t m_eventCount{0};         //!< events run
    uint64_t m_unscheduled{0};        //!< events pending
    uint64_t m_windows{0};            //!< windows run
    uint64_t m_windowEnd{0};          //!< end of the running window
    uint32_t m_runningGroup{kGlobal}; //!< group running its window (kGlobal: none)
    bool m_built{false};              //!< groups formed
    bool m_stop{false};               //!< stop now (outside a window)
    bool m_stopAtWindowEnd{false};    //!< Stop() inside a window
    bool m_backwards{true};           //!< the running window runs groups backwards
    bool m_markSync{false};           //!< MarkNextSync
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_WINDOW_SIMULATOR_IMPL_H */
