/*
 * QuadHeapScheduler: an ns-3 event scheduler (a 4-ary min-heap) for simulations with
 * thousands of events pending, as packet-level fabrics have.
 */

#ifndef QUAD_HEAP_SCHEDULER_H
#define QUAD_HEAP_SCHEDULER_H

#include "scheduler-entry.h"

#include "ns3/scheduler.h"

#include <cstddef>
#include <cstdint>
#include <typeinfo>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Event scheduler: a 4-ary min-heap ordered by (time stamp, event uid), the order of every
 * ns-3 scheduler, so swapping it for another scheduler never changes a result.
 *
 * An entry is a key ((time stamp << 64) | tie-break, 16 bytes, compared as one 128-bit number
 * without a branch; the tie-break is the uid here) with its event pointer, context and uid:
 * 32 bytes, in one 64-byte aligned array, so that the four children of a node fill two
 * cache lines and reading an event's pointer costs no line beyond its key's.
 * NodeOrderScheduler (ns3/node-order.h) is the same heap with another
 * tie-break. RemoveNext walks the hole
 * left by the root down to a leaf along the smaller children (three branch-free comparisons
 * per level, log4 of the pending events levels) and lifts the last element from there (the
 * last element is late, so it rarely climbs). Against ns-3's binary-heap
 * PriorityQueueScheduler this halves the levels and the cache lines touched per event and
 * avoids the mispredicted branches of comparing (time, uid) pairs.
 *
 * Remove (Simulator::Remove of a pending event) is a linear search: the module never calls
 * it on a per-packet path.
 *
 * Look-ahead prefetch (attribute PrefetchAhead, default true; only while PrefetchMinEvents,
 * default 1,024, or more events are pending: a smaller fabric fits the caches and pays for
 * the look-ahead without gaining from it): RemoveNext finds the next
 * kPrefetchStages + 1 events, prefetches the object of the last of them, and runs stage s
 * of the prefetch routine registered for each earlier one's class (RegisterPrefetch), s
 * being its distance from that last one minus one; the sift-down prefetches the
 * grandchildren while it compares the children. A routine reads only what the previous
 * stage prefetched and changes nothing, so results never depend on it; the events predicted
 * can be overtaken by events scheduled meanwhile, which only costs a useless prefetch. It
 * reads the pending events' objects (their dynamic type): turn it off for a scheduler fed
 * pointers that are not EventImpl objects.
 */
class QuadHeapScheduler : public Scheduler
{
  public:
    /**
     * A prefetch routine of one EventImpl class. Stage 0 runs two events before the event
     * and may read the event object (prefetched an event earlier); stage s > 0 runs an event
     * later than stage s - 1 and may read what that stage prefetched. It must change nothing
     * and read only memory the event keeps alive.
     */
    typedef void (*PrefetchFn)(const EventImpl*, std::size_t stage);
    /// prefetch stages run ahead of the head of the queue (0 .. kPrefetchStages - 1)
    static constexpr std::size_t kPrefetchStages = 2;
    /**
     * stages a window's prefetch runs (BucketScheduler::PrefetchBefore): stages 2 to 4
     * follow what stages 0 and 1 found (the receiver's state, a channel's next frames); a
     * routine without them does nothing
     */
    static constexpr std::size_t kWindowStages = 5;
    /**
     * Register fn for events whose dynamic type is ti (a class registered again gets the new
     * routine; classes beyond kMaxPrefetchTypes are not registered: a hint only).
     * \param ti the event class \param fn its prefetch routine
     */
    static void RegisterPrefetch(const std::type_info& ti, PrefetchFn fn);
    /**
     * Run stage \p stage of the routine registered for the class of \p e, if any (the
     * look-ahead of this scheduler and of BucketScheduler).
     * \param e a pending event \param stage the stage
     */
    static void RunPrefetch(const EventImpl* e, std::size_t stage);

    /// \return the TypeId
    static TypeId GetTypeId();
    QuadHeapScheduler();
    ~QuadHeapScheduler() override;

    void Insert(const Scheduler::Event& ev) override;
    bool IsEmpty() const override;
    Scheduler::Event PeekNext() const override;
    Scheduler::Event RemoveNext() override;
    void Remove(const Scheduler::Event& ev) override;

    /// \return the number of pending events
    std::size_t GetSize() const
    {
        return m_size;
    }

  protected:
    /**
     * Insert an event with the tie-break of its time stamp.
     * \param ev the event
     * \param tie events of one time stamp leave in increasing tie order
     */
    void InsertWithTie(const Scheduler::Event& ev, uint64_t tie);

  public:
    /**
     * Whether an event of time stamp ts is pending, ts being the smallest pending time
     * stamp or below it: a walk over the heap's top events of that time stamp only.
     * \param ts the time stamp \param uid the event's uid
     * \return whether the event is in the heap
     */
    bool IsPendingAt(uint64_t ts, uint32_t uid) const;

  protected:
    /// \return the tie-break of the next event (the heap is not empty)
    uint64_t PeekTie() const
    {
        return m_heap[kBase].Tie();
    }

  private:
    using Entry = SchedulerEntry; //!< one pending event
    using Key = Entry::Key;       //!< its order

    /// First array position of the heap: node i is at position i + kBase, so that the four
    /// children of a node (positions 4p - 8 .. 4p - 5 of the node at position p) start at a
    /// multiple of four positions: two whole 64-byte lines of entries.
    static constexpr std::size_t kBase = 3;
    static constexpr std::size_t kMaxPrefetchTypes = 4;

    struct PrefetchEntry
    {
        const std::type_info* ti;
        PrefetchFn fn;
    };

    void PrefetchAhead() const;
    static inline PrefetchEntry s_prefetch[kMaxPrefetchTypes]{};
    static inline std::size_t s_nPrefetch{0};

    void Grow(); //!< double the capacity

    Entry* m_heap{nullptr};                  //!< entries by position (64-byte aligned)
    std::size_t m_size{0};                   //!< pending events
    bool m_prefetch{true};                   //!< PrefetchAhead attribute
    uint32_t m_prefetchMin{1024};            //!< PrefetchMinEvents attribute
    std::size_t m_capacity{0};               //!< positions allocated past kBase
    mutable std::vector<std::size_t> m_walk; //!< IsPendingAt's positions to visit
};

} // namespace astra
} // namespace ns3

#endif /* QUAD_HEAP_SCHEDULER_H */
