/*
 * QuadHeapScheduler and BucketScheduler against ns-3's own schedulers:
 * - 30,000 random operations (inserts with many equal time stamps, short, long and very
 *   long delays, a flood of same-time events, removals of the next event, removals of
 *   arbitrary pending events), the same on ns-3's PriorityQueueScheduler:
 *   every RemoveNext and PeekNext returns the same event (pointer, time, uid, context),
 *   the events come out in (time, uid) order, and both agree on emptiness throughout;
 * - a simulation of 2,000 self-rescheduling event chains with ties, cancellations and
 *   Simulator::Remove runs the events in the same order under QuadHeapScheduler as under
 *   ns-3's default MapScheduler;
 * - the prefetch hints (RegisterPrefetch): every event of a registered class gets its stages
 *   0 .. kPrefetchStages - 1, in that order, before it runs and never after, with the
 *   event's own object; events scheduled while others run keep MapScheduler's order;
 *   PrefetchAhead = false calls no routine;
 * - BucketScheduler with a lone far event between bursts keeps its front a few buckets
 *   long (the far event is taken only when it is next);
 * - BucketScheduler looked at while only a far event is pending, then fed earlier events
 *   (a distributed rank), keeps its front short;
 * - BucketScheduler after a sparse phase (wide buckets) narrows them as soon as a dense
 *   load crowds its front;
 * - BucketScheduler::PrefetchBefore (a window's prefetch) runs every stage of exactly the
 *   events before the window's end, in passes, at most maxEvents (the earliest), none
 *   without PrefetchAhead, and leaves the order unchanged.
 */

#include "ns3/boolean.h"
#include "ns3/bucket-scheduler.h"
#include "ns3/event-impl.h"
#include "ns3/object-factory.h"
#include "ns3/priority-queue-scheduler.h"
#include "ns3/quad-heap-scheduler.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <type_traits>
#include <vector>

using namespace ns3;

namespace
{

/// The scheduler under test and PriorityQueueScheduler fed the same operations.
template <class S>
class QuadHeapOrderTestCase : public TestCase
{
  public:
    /// \param name the scheduler's name
    explicit QuadHeapOrderTestCase(const std::string& name)
        : TestCase(name + ": same events as PriorityQueueScheduler, in (time, uid) order")
    {
    }

  private:
    /// \param rng the generator \param op the operation \return a delay in time steps
    static uint64_t Delay(std::mt19937_64& rng, int op)
    {
        const uint64_t r = rng();
        if (op >= 12000 && op < 14000)
        {
            return 0; // a flood of same-time events
        }
        switch (r % 16)
        {
        case 0:
            return (r >> 8) % 100000; // medium
        case 1:
            return (r >> 8) % 1000000000000ULL; // far beyond any calendar
        case 2:
            return (r >> 8) % 20000000; // long
        default:
            return (r >> 8) % 50; // many ties
        }
    }

    void DoRun() override
    {
        // fake event pointers: the prefetch routines would read them
        Ptr<S> quad = CreateObjectWithAttributes<S>("PrefetchAhead", BooleanValue(false));
        Ptr<PriorityQueueScheduler> ref = CreateObject<PriorityQueueScheduler>();
        std::mt19937_64 rng(12345);
        std::vector<Scheduler::Event> pending; // for arbitrary removals
        uint32_t uid = 0;
        uint64_t now = 0;
        uint64_t lastTs = 0;
        uint32_t lastUid = 0;
        bool any = false;
        std::set<uint64_t> widths; // BucketScheduler: its resizes took place
        std::set<std::size_t> counts;
        uint32_t popped = 0;
        uint32_t removed = 0;
        // BucketScheduler resizes every 32,768 removals: run long enough for several
        const int ops = std::is_same_v<S, astra::BucketScheduler> ? 240000 : 30000;
        std::map<uint32_t, std::size_t> where; // uid -> index in pending
        for (int op = 0; op < ops; ++op)
        {
            const uint64_t r = rng() % 100;
            if (r < 55 || ref->IsEmpty())
            {
                Scheduler::Event ev;
                // fake, distinct pointers: the schedulers never dereference them
                ev.impl = reinterpret_cast<EventImpl*>(uintptr_t(0x1000) + 16 * uid);
                ev.key.m_ts = now + Delay(rng, op);
                ev.key.m_uid = uid++;
                ev.key.m_context = uint32_t(rng() % 7);
                quad->Insert(ev);
                ref->Insert(ev);
                where[ev.key.m_uid] = pending.size();
                pending.push_back(ev);
            }
            else if (r < 90)
            {
                NS_TEST_ASSERT_MSG_EQ(quad->IsEmpty(), false, "quad empty at op " << op);
                const Scheduler::Event p = quad->PeekNext();
                const Scheduler::Event a = quad->RemoveNext();
                const Scheduler::Event b = ref->RemoveNext();
                NS_TEST_ASSERT_MSG_EQ(p.key.m_uid, a.key.m_uid, "PeekNext = RemoveNext");
                NS_TEST_ASSERT_MSG_EQ(a.key.m_uid, b.key.m_uid, "uid at op " << op);
                NS_TEST_ASSERT_MSG_EQ(a.key.m_ts, b.key.m_ts, "ts at op " << op);
                NS_TEST_ASSERT_MSG_EQ(a.key.m_context, b.key.m_context, "context at op " << op);
                NS_TEST_ASSERT_MSG_EQ(a.impl, b.impl, "impl at op " << op);
                // inserts are at or after the last removed time with a larger uid, so
                // the removed events are strictly increasing in (time, uid)
                NS_TEST_ASSERT_MSG_EQ(!any || a.key.m_ts > lastTs ||
                                          (a.key.m_ts == lastTs && a.key.m_uid > lastUid),
                                      true,
                                      "order at op " << op);
                lastTs = a.key.m_ts;
                lastUid = a.key.m_uid;
                any = true;
                now = a.key.m_ts;
                const std::size_t at = where[a.key.m_uid];
                where.erase(a.key.m_uid);
                if (at + 1 < pending.size())
                {
                    pending[at] = pending.back();
                    where[pending[at].key.m_uid] = at;
                }
                pending.pop_back();
                ++popped;
            }
            else
            {
                // remove an arbitrary pending event from both
                const size_t k = rng() % pending.size();
                const Scheduler::Event ev = pending[k];
                where.erase(ev.key.m_uid);
                if (k + 1 < pending.size())
                {
                    pending[k] = pending.back();
                    where[pending[k].key.m_uid] = k;
                }
                pending.pop_back();
                quad->Remove(ev);
                ref->Remove(ev);
                ++removed;
            }
            if constexpr (std::is_same_v<S, astra::BucketScheduler>)
            {
                widths.insert(quad->GetBucketWidth());
                counts.insert(quad->GetBucketCount());
            }
            NS_TEST_ASSERT_MSG_EQ(quad->IsEmpty(), ref->IsEmpty(), "emptiness at op " << op);
            NS_TEST_ASSERT_MSG_EQ(quad->GetSize(), pending.size(), "size at op " << op);
        }
        while (!ref->IsEmpty())
        {
            const Scheduler::Event a = quad->RemoveNext();
            const Scheduler::Event b = ref->RemoveNext();
            NS_TEST_ASSERT_MSG_EQ(a.key.m_uid, b.key.m_uid, "drain uid");
            NS_TEST_ASSERT_MSG_EQ(a.impl, b.impl, "drain impl");
        }
        NS_TEST_ASSERT_MSG_EQ(quad->IsEmpty(), true, "both drained");
        NS_TEST_ASSERT_MSG_GT(popped, 5000u, "the sequence exercised RemoveNext");
        NS_TEST_ASSERT_MSG_GT(removed, 1000u, "the sequence exercised Remove");
        NS_TEST_ASSERT_MSG_GT(uid, 15000u, "the sequence exercised Insert");
        if constexpr (std::is_same_v<S, astra::BucketScheduler>)
        {
            NS_TEST_ASSERT_MSG_GT(widths.size(), 1u, "the bucket width adapted");
            NS_TEST_ASSERT_MSG_GT(counts.size(), 1u, "the bucket count adapted");
        }
    }
};

/// Execution order of a simulation under a given scheduler.
class SimOrder
{
  public:
    /// \param scheduler TypeId name \return (time ns, chain) of every executed event
    std::vector<std::pair<int64_t, uint32_t>> Run(const std::string& scheduler)
    {
        m_order.clear();
        m_rng.seed(777);
        ObjectFactory f;
        f.SetTypeId(scheduler);
        Simulator::SetScheduler(f);
        m_ids.assign(kChains, EventId());
        for (uint32_t c = 0; c < kChains; ++c)
        {
            m_ids[c] = Simulator::Schedule(NanoSeconds(m_rng() % 5), &SimOrder::Fire, this, c);
        }
        Simulator::Stop(MicroSeconds(20));
        Simulator::Run();
        Simulator::Destroy();
        return m_order;
    }

  private:
    static constexpr uint32_t kChains = 2000;

    void Fire(uint32_t c)
    {
        m_order.emplace_back(Simulator::Now().GetNanoSeconds(), c);
        const uint64_t r = m_rng();
        // reschedule with many ties (steps of 0-7 ns)
        m_ids[c] = Simulator::Schedule(NanoSeconds(r % 8), &SimOrder::Fire, this, c);
        const uint32_t other = uint32_t((r >> 8) % kChains);
        if ((r >> 20) % 16 == 0)
        {
            Simulator::Cancel(m_ids[other]); // lazily skipped by the simulator
        }
        else if ((r >> 20) % 16 == 1 && m_ids[other].IsRunning())
        {
            Simulator::Remove(m_ids[other]); // taken out of the scheduler
        }
    }

    std::vector<std::pair<int64_t, uint32_t>> m_order;
    std::vector<EventId> m_ids;
    std::mt19937_64 m_rng;
};

/// A simulation runs the same under both schedulers.
class QuadHeapSimTestCase : public TestCase
{
  public:
    /// \param scheduler the scheduler's TypeId name
    explicit QuadHeapSimTestCase(const std::string& scheduler)
        : TestCase(scheduler + ": a simulation runs its events in MapScheduler's order"),
          m_scheduler(scheduler)
    {
    }

  private:
    std::string m_scheduler; //!< under test

    void DoRun() override
    {
        SimOrder a;
        SimOrder b;
        const auto map = a.Run("ns3::MapScheduler");
        const auto quad = b.Run(m_scheduler);
        NS_TEST_ASSERT_MSG_GT(map.size(), 10000u, "the chains ran");
        NS_TEST_ASSERT_MSG_EQ(quad.size(), map.size(), "same number of events");
        for (size_t i = 0; i < map.size() && i < quad.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(quad[i].first, map[i].first, "time of event " << i);
            NS_TEST_ASSERT_MSG_EQ(quad[i].second, map[i].second, "chain of event " << i);
        }
    }
};

/// What the prefetch test records: (event id, stage) of every hint, and the ids run.
struct HintLog
{
    std::vector<std::pair<uint32_t, std::size_t>> hints; //!< in call order
    std::vector<uint32_t> ran;                           //!< ids in execution order
    std::vector<std::size_t> hintsBeforeRun;             //!< hints.size() when each id ran
};

HintLog g_hintLog; //!< the running test's record

/// An event class with a registered prefetch routine; may schedule another one.
class HintedEvent : public EventImpl
{
  public:
    /// \param id event id \param spawn schedule event spawn (if nonzero) when run, 3 ns later
    HintedEvent(uint32_t id, uint32_t spawn)
        : m_id(id),
          m_spawn(spawn)
    {
    }

    /// the registered routine \param e the event \param stage the stage
    static void Hint(const EventImpl* e, std::size_t stage)
    {
        g_hintLog.hints.emplace_back(static_cast<const HintedEvent*>(e)->m_id, stage);
    }

  protected:
    void Notify() override
    {
        g_hintLog.ran.push_back(m_id);
        g_hintLog.hintsBeforeRun.push_back(g_hintLog.hints.size());
        if (m_spawn)
        {
            Simulator::Schedule(NanoSeconds(3), Ptr<EventImpl>(new HintedEvent(m_spawn, 0), false));
        }
    }

  private:
    uint32_t m_id;
    uint32_t m_spawn;
};

/// Prefetch hints reach each event's own object, in stage order, before it runs.
class QuadHeapPrefetchTestCase : public TestCase
{
  public:
    /// \param scheduler the scheduler's TypeId name
    explicit QuadHeapPrefetchTestCase(const std::string& scheduler)
        : TestCase(scheduler +
                   ": prefetch hints: every stage before the event runs, never after; order kept"),
          m_scheduler(scheduler)
    {
    }

  private:
    std::string m_scheduler; //!< under test

    /// Run n events at i/2 ns (ties in pairs); every fifth spawns one 3 ns later if spawn.
    void RunOnce(const std::string& scheduler,
                 bool prefetch,
                 uint32_t n,
                 bool spawn,
                 uint32_t minEvents = 0)
    {
        g_hintLog = HintLog();
        ObjectFactory f;
        f.SetTypeId(scheduler);
        if (scheduler != "ns3::MapScheduler")
        {
            f.Set("PrefetchAhead", BooleanValue(prefetch));
            f.Set("PrefetchMinEvents", UintegerValue(minEvents));
        }
        Simulator::SetScheduler(f);
        for (uint32_t i = 1; i <= n; ++i)
        {
            const uint32_t child = spawn && i % 5 == 0 ? n + i : 0;
            Simulator::Schedule(NanoSeconds(i / 2),
                                Ptr<EventImpl>(new HintedEvent(i, child), false));
        }
        Simulator::Run();
        Simulator::Destroy();
    }

    void DoRun() override
    {
        astra::QuadHeapScheduler::RegisterPrefetch(typeid(HintedEvent), &HintedEvent::Hint);
        constexpr std::size_t kStages = astra::QuadHeapScheduler::kPrefetchStages;
        const uint32_t n = 2000;

        // nothing scheduled while running: the hints are exact
        RunOnce(m_scheduler, true, n, false);
        NS_TEST_ASSERT_MSG_EQ(g_hintLog.ran.size(), n, "every event ran");
        std::map<uint32_t, std::size_t> runIndex;
        for (std::size_t k = 0; k < g_hintLog.ran.size(); ++k)
        {
            runIndex[g_hintLog.ran[k]] = k;
            NS_TEST_ASSERT_MSG_EQ(g_hintLog.ran[k], k + 1, "order (time, uid)");
        }
        std::map<uint32_t, std::vector<std::pair<std::size_t, std::size_t>>> byId; // (stage, at)
        for (std::size_t h = 0; h < g_hintLog.hints.size(); ++h)
        {
            byId[g_hintLog.hints[h].first].emplace_back(g_hintLog.hints[h].second, h);
        }
        uint32_t complete = 0;
        for (uint32_t id = 1; id <= n; ++id)
        {
            const auto& calls = byId[id];
            const std::size_t ranAt = g_hintLog.hintsBeforeRun[runIndex[id]];
            for (const auto& c : calls)
            {
                NS_TEST_ASSERT_MSG_LT(c.second, ranAt, "hint of event " << id << " after it ran");
            }
            // event id is the id-th to run: it is kStages + 1 places from the head only
            // once kStages events ran before it
            if (id > kStages)
            {
                NS_TEST_ASSERT_MSG_EQ(calls.size(), kStages, "stages of event " << id);
                for (std::size_t s = 0; s < calls.size(); ++s)
                {
                    NS_TEST_ASSERT_MSG_EQ(calls[s].first, s, "stage order of event " << id);
                }
                ++complete;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(complete, n - kStages, "every event but the first got every stage");

        // events scheduled while others run: the order stays MapScheduler's, no late hint
        RunOnce("ns3::MapScheduler", true, n, true);
        const std::vector<uint32_t> mapOrder = g_hintLog.ran;
        NS_TEST_ASSERT_MSG_EQ(g_hintLog.hints.size(), 0u, "MapScheduler calls no hint");
        RunOnce(m_scheduler, true, n, true);
        NS_TEST_ASSERT_MSG_EQ(g_hintLog.ran.size(), n + n / 5, "every event ran");
        NS_TEST_ASSERT_MSG_EQ((g_hintLog.ran == mapOrder), true, "MapScheduler's order");
        std::map<uint32_t, std::size_t> ranAt;
        for (std::size_t k = 0; k < g_hintLog.ran.size(); ++k)
        {
            ranAt[g_hintLog.ran[k]] = g_hintLog.hintsBeforeRun[k];
        }
        for (std::size_t h = 0; h < g_hintLog.hints.size(); ++h)
        {
            NS_TEST_ASSERT_MSG_LT(h, ranAt[g_hintLog.hints[h].first], "no hint after the run");
        }
        NS_TEST_ASSERT_MSG_GT(g_hintLog.hints.size(), (n + n / 5) * kStages * 9 / 10, "hints");

        // below PrefetchMinEvents pending events no routine runs; at or above it they do
        RunOnce(m_scheduler, true, n, false, n);
        NS_TEST_ASSERT_MSG_EQ(g_hintLog.hints.size(), 0u, "fewer than PrefetchMinEvents");
        RunOnce(m_scheduler, true, n, false, n - 10);
        // the removals that leave n - 10 .. n - 1 pending events look ahead: 10 x kStages
        NS_TEST_ASSERT_MSG_EQ(g_hintLog.hints.size(), 10 * kStages, "PrefetchMinEvents");

        // switched off: no routine runs, same order
        RunOnce(m_scheduler, false, n, true);
        NS_TEST_ASSERT_MSG_EQ(g_hintLog.hints.size(), 0u, "PrefetchAhead = false");
        NS_TEST_ASSERT_MSG_EQ((g_hintLog.ran == mapOrder), true, "same order without hints");
    }
};

/// A BucketScheduler fed bare time stamps (no event objects, so no look-ahead), with
/// uids in insertion order; -> reaches the scheduler.
class BareBucketScheduler
{
  public:
    /// \param ts the time stamp of a new event
    void Insert(uint64_t ts)
    {
        Scheduler::Event ev;
        ev.impl = nullptr;
        ev.key.m_ts = ts;
        ev.key.m_uid = m_uid++;
        ev.key.m_context = 0;
        m_s->Insert(ev);
    }

    /// \return the scheduler
    astra::BucketScheduler* operator->() const
    {
        return PeekPointer(m_s);
    }

  private:
    Ptr<astra::BucketScheduler> m_s{
        CreateObjectWithAttributes<astra::BucketScheduler>("PrefetchAhead", BooleanValue(false))};
    uint32_t m_uid{0}; //!< the next event's uid
};

/**
 * BucketScheduler with one far event (a watchdog) and bursts of near events that drain
 * completely between bursts. Whenever only the far event is pending, the event just removed
 * may still schedule earlier ones, so the far event must not become the current bucket
 * (every later event would then be inserted into one sorted array). With \p peek the
 * scheduler is looked at (PeekNext) before each burst, as a distributed rank looks at its
 * next event to agree on a time window before it receives the other ranks' events: the
 * look takes the far bucket, and the earlier events must re-bucket rather than all land in
 * the front. Either way the front holds a few buckets' events at most; the order is
 * (time, uid).
 */
class BucketFarEventTestCase : public TestCase
{
  public:
    /// \param peek look at the next event before each burst
    explicit BucketFarEventTestCase(bool peek)
        : TestCase(peek ? "BucketScheduler: events earlier than a peeked far event re-bucket"
                        : "BucketScheduler: a lone far event stays in the calendar until it "
                          "is next"),
          m_peek(peek)
    {
    }

  private:
    void DoRun() override
    {
        BareBucketScheduler s;
        std::mt19937_64 rng(m_peek ? 5 : 7);
        const uint64_t far = 10000000000ULL; // 10 s in ns
        s.Insert(far);
        uint64_t now = 0;
        std::size_t maxFront = 0;
        bool ordered = true;
        const int kBurst = 1000;
        for (int burst = 0; burst < 100; ++burst)
        {
            if (burst == 10)
            {
                // the first bursts fit one bucket of the initial width (4,096 steps); by
                // now the width has followed the load
                NS_TEST_ASSERT_MSG_LT(s->GetBucketWidth(), 256u, "width adapted");
                maxFront = 0;
            }
            if (m_peek)
            {
                NS_TEST_ASSERT_MSG_EQ(s->PeekNext().key.m_ts, far, "only the far event");
            }
            // a burst of distinct times, 1 .. 4,000 ns on
            for (int i = 0; i < kBurst; ++i)
            {
                s.Insert(now + 1 + 4 * i + rng() % 4);
            }
            maxFront = std::max(maxFront, s->GetFrontSize());
            for (int i = 0; i < kBurst; ++i)
            {
                const uint64_t ts = s->RemoveNext().key.m_ts;
                ordered = ordered && ts >= now && ts < far;
                now = ts;
                maxFront = std::max(maxFront, s->GetFrontSize());
            }
            NS_TEST_ASSERT_MSG_EQ(s->GetSize(), 1u, "only the far event is pending");
        }
        NS_TEST_ASSERT_MSG_EQ(ordered, true, "time order");
        // a few events a bucket after resizing, a few buckets in the front; the far bucket
        // as the current one would have put each whole burst (1,000 events) into it
        NS_TEST_ASSERT_MSG_LT(maxFront, std::size_t(kBurst / 10), "front stays a few buckets");
        if (!m_peek)
        {
            // the far bucket is not taken between bursts, so nothing needs re-bucketing
            // then: the rebuilds are the resizes of about ten epochs (taking it and
            // re-bucketing at the next burst would add one a burst)
            NS_TEST_ASSERT_MSG_LT(s->GetRebuildCount(), 20u, "no rebuild a burst");
        }
        NS_TEST_ASSERT_MSG_EQ(s->PeekNext().key.m_ts, far, "the far event is next");
        NS_TEST_ASSERT_MSG_EQ(s->RemoveNext().key.m_ts, far, "and leaves last");
        NS_TEST_ASSERT_MSG_EQ(s->IsEmpty(), true, "empty");
    }

    bool m_peek; //!< look at the next event before each burst
};

/**
 * BucketScheduler through a change of load: a long sparse phase (one chain of 1 ms steps:
 * the buckets widen to milliseconds) then a dense one (5,000 events pending, scheduled
 * 1 .. 5,000 ns ahead). With buckets that wide, the whole dense load would land in the
 * front, each insertion moving thousands of entries, until the epoch's end; a crowded
 * front narrows the buckets at once. The order is (time, uid) throughout.
 */
class BucketLoadChangeTestCase : public TestCase
{
  public:
    BucketLoadChangeTestCase()
        : TestCase("BucketScheduler: a crowded front narrows the buckets before the epoch ends")
    {
    }

  private:
    void DoRun() override
    {
        BareBucketScheduler s;
        std::mt19937_64 rng(11);
        uint64_t now = 0;
        auto next = [&]() {
            const Scheduler::Event ev = s->RemoveNext();
            const bool ordered = ev.key.m_ts >= now;
            now = ev.key.m_ts;
            return ordered;
        };
        bool ordered = true;
        s.Insert(1000000);
        for (int i = 0; i < 70000; ++i) // the sparse phase: 1 ms a step
        {
            ordered = next() && ordered;
            s.Insert(now + 1000000);
        }
        const uint64_t sparseWidth = s->GetBucketWidth();
        NS_TEST_ASSERT_MSG_GT(sparseWidth, 100000u, "the sparse phase widened the buckets");
        // the dense phase, started by the last sparse event
        for (int i = 0; i < 5000; ++i)
        {
            s.Insert(now + 1 + rng() % 5000);
        }
        std::size_t maxFront = 0;
        for (int i = 0; i < 20000; ++i) // within the first epoch after the change
        {
            ordered = next() && ordered;
            s.Insert(now + 1 + rng() % 5000);
            if (i >= 10)
            {
                maxFront = std::max(maxFront, s->GetFrontSize());
            }
        }
        NS_TEST_ASSERT_MSG_EQ(ordered, true, "events leave in time order");
        NS_TEST_ASSERT_MSG_LT(s->GetBucketWidth(), sparseWidth / 64, "the buckets narrowed");
        // the front held the dense load's first few thousand events until it narrowed
        // (the first removals); after, a few buckets' worth, never again kCrowded
        NS_TEST_ASSERT_MSG_LT(maxFront, std::size_t(512), "the front stays short");
    }
};

/**
 * BucketScheduler::PrefetchBefore (a window's prefetch): the routines of exactly the pending
 * events earlier than the window's end run, wherever the events are held (the front, the
 * calendar's buckets, the far heap), in passes: stage 0 of all of them, then stage 1, up to
 * kWindowStages - 1; at most maxEvents of them; none with PrefetchAhead = false; the order
 * of the events is unchanged.
 */
class BucketPrefetchBeforeTestCase : public TestCase
{
  public:
    BucketPrefetchBeforeTestCase()
        : TestCase("BucketScheduler: a window's prefetch runs every stage of the events before "
                   "its end, in passes")
    {
    }

  private:
    void DoRun() override
    {
        astra::QuadHeapScheduler::RegisterPrefetch(typeid(HintedEvent), &HintedEvent::Hint);
        constexpr std::size_t kStages = astra::QuadHeapScheduler::kWindowStages;
        for (const bool prefetch : {true, false})
        {
            Ptr<astra::BucketScheduler> s = CreateObjectWithAttributes<astra::BucketScheduler>(
                "PrefetchAhead",
                BooleanValue(prefetch),
                "PrefetchMinEvents",
                UintegerValue(1u << 30)); // no look-ahead at removals: only PrefetchBefore
            // ids 1..400 at 7 ns steps (2.8 us), then 20 far ones (1 ms apart); ids follow
            // the time stamps, uids the ids
            std::vector<HintedEvent*> events;
            std::map<uint32_t, uint64_t> tsOf;
            for (uint32_t id = 1; id <= 420; ++id)
            {
                const uint64_t ts = id <= 400 ? 7 * id : 1000000 * (id - 400);
                auto* e = new HintedEvent(id, 0);
                events.push_back(e);
                tsOf[id] = ts;
                Scheduler::Event ev;
                ev.impl = e;
                ev.key.m_ts = ts;
                ev.key.m_uid = id;
                ev.key.m_context = 0;
                s->Insert(ev);
            }
            // remove the first 10 (the front and calendar are set up as in a run)
            uint32_t next = 1;
            for (; next <= 10; ++next)
            {
                const Scheduler::Event ev = s->RemoveNext();
                NS_TEST_ASSERT_MSG_EQ(ev.key.m_uid, next, "order before");
            }
            // windows ending at 1,000 ns, 2,001 ns (between two events) and past the far ones
            for (const uint64_t end : {uint64_t(1000), uint64_t(2001), uint64_t(30000000)})
            {
                g_hintLog = HintLog();
                s->PrefetchBefore(end, 100000);
                std::set<uint32_t> expected;
                for (uint32_t id = next; id <= 420; ++id)
                {
                    if (tsOf[id] < end)
                    {
                        expected.insert(id);
                    }
                }
                const std::size_t n = prefetch ? expected.size() : 0;
                NS_TEST_ASSERT_MSG_EQ(g_hintLog.hints.size(),
                                      n * kStages,
                                      "hints before " << end << " ns");
                for (std::size_t st = 0; st < kStages && prefetch; ++st)
                {
                    std::set<uint32_t> ids;
                    for (std::size_t k = st * n; k < (st + 1) * n && k < g_hintLog.hints.size();
                         ++k)
                    {
                        NS_TEST_ASSERT_MSG_EQ(g_hintLog.hints[k].second, st, "pass " << st);
                        ids.insert(g_hintLog.hints[k].first);
                    }
                    NS_TEST_ASSERT_MSG_EQ((ids == expected),
                                          true,
                                          "pass " << st << " before " << end << " ns: the events "
                                                  << "of the window, each once");
                }
            }
            // at most maxEvents: the earliest ones
            g_hintLog = HintLog();
            s->PrefetchBefore(30000000, 25);
            NS_TEST_ASSERT_MSG_EQ(g_hintLog.hints.size(),
                                  prefetch ? 25 * kStages : 0,
                                  "maxEvents 25");
            for (const auto& h : g_hintLog.hints)
            {
                NS_TEST_ASSERT_MSG_EQ((h.first >= next && h.first < next + 25),
                                      true,
                                      "maxEvents 25: event " << h.first << " is not among the "
                                                             << "25 earliest");
            }
            // the order is unchanged
            for (; !s->IsEmpty(); ++next)
            {
                const Scheduler::Event ev = s->RemoveNext();
                NS_TEST_ASSERT_MSG_EQ(ev.key.m_uid, next, "order after");
            }
            NS_TEST_ASSERT_MSG_EQ(next, 421u, "every event left");
            for (HintedEvent* e : events)
            {
                e->Unref();
            }
        }
    }
};

class QuadHeapSchedulerTestSuite : public TestSuite
{
  public:
    QuadHeapSchedulerTestSuite()
        : TestSuite("astra-sim-quad-heap-scheduler", UNIT)
    {
        AddTestCase(new QuadHeapOrderTestCase<astra::QuadHeapScheduler>("QuadHeapScheduler"),
                    TestCase::QUICK);
        AddTestCase(new QuadHeapOrderTestCase<astra::BucketScheduler>("BucketScheduler"),
                    TestCase::QUICK);
        AddTestCase(new BucketFarEventTestCase(false), TestCase::QUICK);
        AddTestCase(new BucketFarEventTestCase(true), TestCase::QUICK);
        AddTestCase(new BucketLoadChangeTestCase, TestCase::QUICK);
        AddTestCase(new BucketPrefetchBeforeTestCase, TestCase::QUICK);
        for (const char* s : {"ns3::astra::QuadHeapScheduler", "ns3::astra::BucketScheduler"})
        {
            AddTestCase(new QuadHeapSimTestCase(s), TestCase::QUICK);
            AddTestCase(new QuadHeapPrefetchTestCase(s), TestCase::QUICK);
        }
    }
};

QuadHeapSchedulerTestSuite g_quadHeapSchedulerTestSuite; //!< registration

} // namespace
