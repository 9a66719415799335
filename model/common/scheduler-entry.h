/*
 * SchedulerEntry: one pending event as the module's schedulers (QuadHeapScheduler,
 * BucketScheduler) hold it.
 */

#ifndef ASTRA_SCHEDULER_ENTRY_H
#define ASTRA_SCHEDULER_ENTRY_H

#include "ns3/scheduler.h"

#include <cstdint>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * One pending event: a key ((time stamp << 64) | tie-break, compared as one 128-bit number
 * without a branch) with the event's pointer, context and uid; 32 bytes, two to a cache
 * line, so that reading an event's pointer costs no line beyond its key's. Events of one
 * time stamp leave in increasing tie-break order (the uid, ns-3's order, unless a scheduler
 * derived for another order gives its own).
 */
struct SchedulerEntry
{
    /// (time stamp << 64) | tie-break
    __extension__ typedef unsigned __int128 Key;

    Key key;         //!< its order
    EventImpl* impl; //!< the event
    uint32_t ctx;    //!< its context
    uint32_t uid;    //!< its uid (Remove, PeekNext)

    /**
     * \param ev an event \param tie its tie-break among the events of its time stamp
     * \return its entry
     */
    static SchedulerEntry From(const Scheduler::Event& ev, uint64_t tie)
    {
        return SchedulerEntry{(Key(ev.key.m_ts) << 64) | tie,
                              ev.impl,
                              ev.key.m_context,
                              ev.key.m_uid};
    }

    /// \return the time stamp
    uint64_t Ts() const
    {
        return static_cast<uint64_t>(key >> 64);
    }

    /// \return the tie-break
    uint64_t Tie() const
    {
        return static_cast<uint64_t>(key);
    }

    /// \return the event, as Scheduler::PeekNext and RemoveNext give it
    Scheduler::Event ToEvent() const
    {
        Scheduler::Event ev;
        ev.impl = impl;
        ev.key.m_ts = Ts();
        ev.key.m_uid = uid;
        ev.key.m_context = ctx;
        return ev;
    }
};

static_assert(sizeof(SchedulerEntry) == 32, "two entries to a cache line");

} // namespace astra
} // namespace ns3

#endif /* ASTRA_SCHEDULER_ENTRY_H */
