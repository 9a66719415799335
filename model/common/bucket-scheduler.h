/*
 * BucketScheduler: an ns-3 event scheduler for packet-level fabrics, a calendar of time
 * buckets with a sorted current bucket: constant work per event where a heap pays log N.
 */

#ifndef BUCKET_SCHEDULER_H
#define BUCKET_SCHEDULER_H

#include "scheduler-entry.h"

#include "ns3/scheduler.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Event scheduler: a calendar queue (time buckets of 2^shift time steps) whose current
 * bucket is a sorted array, ordered by (time stamp, event uid) like every ns-3 scheduler,
 * so swapping it for another scheduler never changes a result.
 *
 * - The **front** holds every pending event of the current bucket and earlier ones, sorted
 *   latest first: the next event is its last element (RemoveNext pops it), and the events
 *   after it are its last elements but one: the look-ahead prefetch reads them for free.
 *   An event scheduled into the current bucket (a same-time or very short delay) is put in
 *   place with a binary search (it usually lands near the end); one later than the whole
 *   front waits, unsorted, until the front runs low (a flood of same-time events costs no
 *   quadratic insertion).
 * - The **calendar**: nb buckets (a power of two) after the current one, each an unsorted
 *   array, with a bitmap of the non-empty ones. Inserting is an append. When fewer than
 *   three events are left in the front, the next non-empty bucket (found in the bitmap, 64
 *   buckets per word) is sorted and put before them, so the look-ahead never stops at a
 *   bucket's end; but ahead of need only if it is within four buckets of the front's
 *   latest event (or of the current time): a bucket far ahead (a watchdog's) is taken only
 *   when its event is the next to leave, else everything the running event schedules
 *   would land in the front (if a PeekNext took it and an earlier event comes, from
 *   another rank, the calendar is re-bucketed around the current time). An emptied
 *   bucket's array goes to a pool that the next bucket to fill takes from, the last freed
 *   first: the arrays in use are few and warm.
 * - The **far heap** holds events beyond the calendar's nb buckets (timers of milliseconds):
 *   a binary heap, emptied into the calendar as it advances.
 * - **Adaptive**: every 32,768 removals (1,024 at first, doubling) the mean events served
 *   per front decides the width: above 32 the buckets narrow, below 6 they widen, by powers
 *   of two towards 12. A histogram of how many buckets ahead that epoch's events were
 *   scheduled decides nb: enough buckets for all but about 3 % of them (grown at once,
 *   shrunk only when 16 times fewer would do). A rebuild moves every pending event once; it
 *   happens only when the load changes. A front of 512 events that still takes insertions
 *   (a dense load after wide buckets) narrows the buckets at the next removal, to about 12
 *   of its earliest events each, once an epoch.
 *
 * Look-ahead prefetch (attributes PrefetchAhead, PrefetchMinEvents; the routines are those
 * registered with QuadHeapScheduler::RegisterPrefetch): RemoveNext prefetches the object
 * of the event three places ahead, and runs stage 0 of the routine of the event two places
 * ahead and stage 1 of the next one's, as QuadHeapScheduler does; here finding them costs
 * nothing. A hint only: events scheduled meanwhile may come first.
 *
 * Window prefetch (PrefetchBefore, WindowSimulatorImpl's groups): every stage of the
 * routines of all the events before a time, in passes.
 *
 * Remove (Simulator::Remove) searches the event's bucket only.
 */
class BucketScheduler : public Scheduler
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    BucketScheduler();
    ~BucketScheduler() override;

    void Insert(const Scheduler::Event& ev) override;
    bool IsEmpty() const override;
    Scheduler::Event PeekNext() const override;
    Scheduler::Event RemoveNext() override;
    void Remove(const Scheduler::Event& ev) override;

    /**
     * Bring in what the pending events earlier than \p endTs will read (a group's window
     * about to run): their objects are prefetched, then stage 0 of their prefetch routines
     * (QuadHeapScheduler::RegisterPrefetch) runs on all of them, then stage 1, and so on to
     * QuadHeapScheduler::kWindowStages - 1, so the lines of one pass arrive together
     * instead of one event after another. A hint only (nothing without PrefetchAhead); at
     * most \p maxEvents events, wherever they are held (front, buckets, far heap).
     * \param endTs events before this time stamp \param maxEvents the most it looks at
     */
    void PrefetchBefore(uint64_t endTs, std::size_t maxEvents);

    /// \return the number of pending events
    std::size_t GetSize() const
    {
        return m_size;
    }

    /**
     * Whether an event of time stamp ts is pending (a search of its bucket).
     * \param ts the time stamp \param uid the event's uid
     * \return whether the event is pending
     */
    bool IsPendingAt(uint64_t ts, uint32_t uid) const;

    /// \return the current bucket width in time steps (a power of two; tests, benchmarks)
    uint64_t GetBucketWidth() const
    {
        return uint64_t(1) << m_shift;
    }

    /// \return the number of calendar buckets (tests, benchmarks)
    std::size_t GetBucketCount() const
    {
        return m_nb;
    }

    /// \return how many times every pending event was re-bucketed (tests, benchmarks)
    uint64_t GetRebuildCount() const
    {
        return m_rebuilds;
    }

    /// \return the events held sorted or waiting in the current bucket (tests)
    std::size_t GetFrontSize() const
    {
        return m_front.size() + m_late.size();
    }

  protected:
    /**
     * Insert an event with the tie-break of its time stamp.
     * \param ev the event
     * \param tie events of one time stamp leave in increasing tie order
     */
    void InsertWithTie(const Scheduler::Event& ev, uint64_t tie);

    /// \return the tie-break of the next event (the scheduler is not empty)
    uint64_t PeekTie() const
    {
        return Next().Tie();
    }

  private:
    using Entry = SchedulerEntry; //!< one pending event
    using Key = Entry::Key;       //!< its order

    /// events kept in the front: the next one and the look-ahead's two
    static constexpr std::size_t kKeep = 3;
    /// a front this long that still takes insertions in order (buckets too wide for a
    /// new, denser load) narrows the buckets at once rather than at the epoch's end
    static constexpr std::size_t kCrowded = 512;
    /// the front takes a bucket ahead of need only this many buckets beyond the latest
    /// event it holds (or, empty, beyond the current time)
    static constexpr uint64_t kPullAhead = 4;
    /// an insertion more than this many buckets before the current one (which only a
    /// PeekNext's jump to a far bucket leaves so far ahead) re-buckets around the time
    static constexpr uint64_t kRewind = 64;

    /// \param a an entry \param c another \return a leaves after c (the fronts' order)
    static bool Later(const Entry& a, const Entry& c)
    {
        return a.key > c.key;
    }

    void Place(const Entry& e);       //!< into the front, a bucket or the far heap \param e entry
    void InsertFront(const Entry& e); //!< into the sorted front \param e the entry
    /**
     * Into \p batch (unsorted) if of the current bucket or earlier, else as Place does.
     * \param e the entry \param batch events the caller sorts into the front
     */
    void PlaceInto(const Entry& e, std::vector<Entry>& batch);
    /**
     * Bring the next batches before the front until it holds kKeep events, each only if
     * near (kPullAhead); the next event however far when the front is empty and \p need.
     * \param need the next event is wanted now (RemoveNext, PeekNext)
     */
    void Refill(bool need = false);
    /// \return the next event's entry, its bucket taken if it was far (not empty)
    const Entry& Next() const;
    /// buckets of about kAimFront of the crowded front's events (once an epoch)
    void Narrow();

    /// \param n the length of the front (or of the events waiting after it): at kCrowded
    /// or more, with buckets still able to narrow, Narrow runs at the next removal
    void NoteLength(std::size_t n)
    {
        if (n >= kCrowded && m_shift > 0 && !m_narrowed)
        {
            m_crowded = true;
        }
    }

    /// move a calendar slot's events to \p out, its array to the pool
    /// \param slot the slot \param out where the events go
    void TakeBucket(std::size_t slot, std::vector<Entry>& out);
    /// far events now inside the calendar to their buckets (of the current one: to batch)
    /// \param batch events the caller sorts into the front
    void DrainFar(std::vector<Entry>& batch);
    void MaybeResize(); //!< adapt the width and bucket count to the load
    /// re-bucket every pending event \param shift new width \param nb new bucket count
    void Rebuild(uint32_t shift, std::size_t nb);
    void PrefetchAhead() const; //!< the look-ahead hints

    std::vector<Entry> m_front; //!< current bucket, sorted latest first
    std::vector<Entry> m_late;  //!< current bucket: events later than all of the front

    std::vector<std::vector<Entry>> m_buckets; //!< calendar (slot = bucket number & mask)
    /// arrays of emptied buckets, the last freed first: a bucket that fills takes one, so
    /// the calendar's arrays are few and warm however many slots it has
    std::vector<std::vector<Entry>> m_pool;
    std::vector<uint64_t> m_bits;          //!< non-empty calendar slots
    std::vector<Entry> m_far;              //!< min-heap of events past the calendar
    std::vector<Entry> m_scratch;          //!< Rebuild's entries
    std::vector<Entry> m_next;             //!< Refill's batch
    std::vector<const EventImpl*> m_ahead; //!< PrefetchBefore's events
    uint64_t m_cur{0};                     //!< front = events of bucket number <= m_cur
    uint32_t m_shift{12};                  //!< bucket width: 2^m_shift time steps
    std::size_t m_nb{0};                   //!< calendar buckets (a power of two)
    std::size_t m_size{0};                 //!< pending events
    std::size_t m_inBuckets{0};            //!< events in the calendar
    uint64_t m_now{0};                     //!< time stamp of the last event removed
    uint64_t m_advances{0};                //!< advances in this epoch
    uint64_t m_removed{0};                 //!< removals in this epoch
    uint64_t m_epoch{1024};                //!< removals of this epoch (doubling up to 32,768)
    uint64_t m_aheadLog2[65]{};            //!< insertions in this epoch by bits of buckets ahead
    uint64_t m_rebuilds{0};                //!< Rebuild calls
    bool m_crowded{false};                 //!< the front is crowded: Narrow at the next removal
    bool m_narrowed{false};                //!< Narrow ran in this epoch
    bool m_prefetch{true};                 //!< PrefetchAhead attribute
    uint32_t m_prefetchMin{1024};          //!< PrefetchMinEvents attribute
};

} // namespace astra
} // namespace ns3

#endif /* BUCKET_SCHEDULER_H */
