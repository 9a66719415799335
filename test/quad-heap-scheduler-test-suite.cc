/*
 * QuadHeapScheduler against ns-3's own schedulers:
 * - 30,000 random operations (inserts with many equal time stamps, removals of the next
 *   event, removals of arbitrary pending events), the same on ns-3's PriorityQueueScheduler:
 *   every RemoveNext and PeekNext returns the same event (pointer, time, uid, context),
 *   the events come out in (time, uid) order, and both agree on emptiness throughout;
 * - a simulation of 2,000 self-rescheduling event chains with ties, cancellations and
 *   Simulator::Remove runs the events in the same order under QuadHeapScheduler as under
 *   ns-3's default MapScheduler.
 */

#include "ns3/object-factory.h"
#include "ns3/priority-queue-scheduler.h"
#include "ns3/quad-heap-scheduler.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <cstdint>
#include <random>
#include <vector>

using namespace ns3;

namespace
{

/// The two schedulers fed the same operations.
class QuadHeapOrderTestCase : public TestCase
{
  public:
    QuadHeapOrderTestCase()
        : TestCase("same events as PriorityQueueScheduler, in (time, uid) order")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<astra::QuadHeapScheduler> quad = CreateObject<astra::QuadHeapScheduler>();
        Ptr<PriorityQueueScheduler> ref = CreateObject<PriorityQueueScheduler>();
        std::mt19937_64 rng(12345);
        std::vector<Scheduler::Event> pending; // for arbitrary removals
        uint32_t uid = 0;
        uint64_t now = 0;
        uint64_t lastTs = 0;
        uint32_t lastUid = 0;
        bool any = false;
        uint32_t popped = 0;
        uint32_t removed = 0;
        for (int op = 0; op < 30000; ++op)
        {
            const uint64_t r = rng() % 100;
            if (r < 55 || ref->IsEmpty())
            {
                Scheduler::Event ev;
                // fake, distinct pointers: the schedulers never dereference them
                ev.impl = reinterpret_cast<EventImpl*>(uintptr_t(0x1000) + 16 * uid);
                ev.key.m_ts = now + rng() % 50; // many ties
                ev.key.m_uid = uid++;
                ev.key.m_context = uint32_t(rng() % 7);
                quad->Insert(ev);
                ref->Insert(ev);
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
                for (auto& e : pending)
                {
                    if (e.key.m_uid == a.key.m_uid)
                    {
                        e = pending.back();
                        pending.pop_back();
                        break;
                    }
                }
                ++popped;
            }
            else
            {
                // remove an arbitrary pending event from both
                const size_t k = rng() % pending.size();
                const Scheduler::Event ev = pending[k];
                pending[k] = pending.back();
                pending.pop_back();
                quad->Remove(ev);
                ref->Remove(ev);
                ++removed;
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
    QuadHeapSimTestCase()
        : TestCase("a simulation runs its events in MapScheduler's order")
    {
    }

  private:
    void DoRun() override
    {
        SimOrder a;
        SimOrder b;
        const auto map = a.Run("ns3::MapScheduler");
        const auto quad = b.Run("ns3::astra::QuadHeapScheduler");
        NS_TEST_ASSERT_MSG_GT(map.size(), 10000u, "the chains ran");
        NS_TEST_ASSERT_MSG_EQ(quad.size(), map.size(), "same number of events");
        for (size_t i = 0; i < map.size() && i < quad.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(quad[i].first, map[i].first, "time of event " << i);
            NS_TEST_ASSERT_MSG_EQ(quad[i].second, map[i].second, "chain of event " << i);
        }
    }
};

class QuadHeapSchedulerTestSuite : public TestSuite
{
  public:
    QuadHeapSchedulerTestSuite()
        : TestSuite("astra-sim-quad-heap-scheduler", UNIT)
    {
        AddTestCase(new QuadHeapOrderTestCase(), TestCase::QUICK);
        AddTestCase(new QuadHeapSimTestCase(), TestCase::QUICK);
    }
};

QuadHeapSchedulerTestSuite g_quadHeapSchedulerTestSuite; //!< registration

} // namespace
