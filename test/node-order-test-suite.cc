/*
 * Node event order (ns3/node-order.h):
 * - same-time events run by (creating node, that node's count), not by when they were
 *   scheduled; events created outside any node keep ns-3's order among themselves;
 * - a tie-break reserved by one node and set on an event another node schedules later
 *   places that event as if the first node had scheduled it (a link's reception event);
 * - IsExpired / Cancel / Remove / IsRunning of same-time events that run out of uid order
 *   are right (ns-3's own test, by uid, would call a pending event expired);
 * - with every event outside any node the order is ns-3's (checked against
 *   PriorityQueueScheduler on 2,000 event chains with ties, cancels and removals);
 * - the running tie-break is the running event's own when it was far ahead;
 * - the node-order simulators refuse another scheduler, EventOrder::Select refuses an
 *   unknown order and a user's other SchedulerType.
 */

#include "ns3/astra-diagnostics.h"
#include "ns3/global-value.h"
#include "ns3/node-order.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// Runs a simulation under NodeOrderSimulatorImpl; restores the global values after.
class NodeOrderSim
{
  public:
    NodeOrderSim()
    {
        GlobalValue::GetValueByName("SimulatorImplementationType", m_impl);
        GlobalValue::GetValueByName("SchedulerType", m_sched);
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue("ns3::astra::NodeOrderSimulatorImpl"));
        GlobalValue::Bind("SchedulerType", StringValue("ns3::astra::NodeOrderScheduler"));
    }

    ~NodeOrderSim()
    {
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType", m_impl);
        GlobalValue::Bind("SchedulerType", m_sched);
    }

  private:
    StringValue m_impl;  //!< saved implementation type
    StringValue m_sched; //!< saved scheduler type
};

/// Same-time events by creator, reserved tie-breaks.
class NodeOrderTiesTestCase : public TestCase
{
  public:
    NodeOrderTiesTestCase()
        : TestCase("same-time events by creating node and its count; reserved ties")
    {
    }

  private:
    void Log(std::string tag)
    {
        m_log.push_back(tag);
    }

    /// in context 5 at 1 ns: two events for 10 ns (5a, 5b)
    void From5()
    {
        Simulator::ScheduleWithContext(0, NanoSeconds(9), &NodeOrderTiesTestCase::Log, this, "5a");
        Simulator::ScheduleWithContext(1, NanoSeconds(9), &NodeOrderTiesTestCase::Log, this, "5b");
        m_reserved = EventOrder::Reserve(); // for "r": as if node 5 scheduled it now
    }

    /// in context 2 at 3 ns, later than From5: one event for 10 ns (2a)
    void From2()
    {
        Simulator::ScheduleWithContext(0, NanoSeconds(7), &NodeOrderTiesTestCase::Log, this, "2a");
    }

    /// in context 1 at 4 ns: "r" under node 5's reserved tie
    void From1()
    {
        EventOrder::SetNext(m_reserved);
        Simulator::ScheduleWithContext(3, NanoSeconds(6), &NodeOrderTiesTestCase::Log, this, "r");
    }

    void DoRun() override
    {
        NodeOrderSim sim;
        // set-up (no node): an event of no node and one for node 4, both for 10 ns and
        // first of all, so first in ns-3's order
        Simulator::Schedule(NanoSeconds(10), &NodeOrderTiesTestCase::Log, this, "x");
        Simulator::ScheduleWithContext(4, NanoSeconds(10), &NodeOrderTiesTestCase::Log, this, "y");
        Simulator::ScheduleWithContext(5, NanoSeconds(1), &NodeOrderTiesTestCase::From5, this);
        Simulator::ScheduleWithContext(2, NanoSeconds(3), &NodeOrderTiesTestCase::From2, this);
        Simulator::ScheduleWithContext(1, NanoSeconds(4), &NodeOrderTiesTestCase::From1, this);
        NS_TEST_ASSERT_MSG_EQ(EventOrder::IsNodeOrder(), true, "the node-order scheduler is on");
        Simulator::Run();
        // ns-3's order would be x y 5a 5b 2a r; node order by creator:
        // 2a (node 2), y (set-up, counted as node 4's), 5a 5b r (node 5, in its count),
        // x (no node) last
        std::string got;
        for (const std::string& s : m_log)
        {
            got += s + " ";
        }
        NS_TEST_ASSERT_MSG_EQ(got, std::string("2a y 5a 5b r x "), "order of the 10 ns events");
    }

    std::vector<std::string> m_log;
    uint64_t m_reserved{0};
};

/// IsExpired and Cancel of same-time events that run out of uid order.
class NodeOrderExpiryTestCase : public TestCase
{
  public:
    NodeOrderExpiryTestCase()
        : TestCase("IsExpired, Cancel and Remove of same-time events run out of uid order")
    {
    }

  private:
    void Mark(int i)
    {
        m_ran[i] = true;
        m_selfExpired[i] = Simulator::IsExpired(m_ids[i]);
    }

    /// runs first at 10 ns (created by node 0) though scheduled after the others
    void First()
    {
        m_ran[0] = true;
        m_selfExpired[0] = Simulator::IsExpired(m_ids[0]);
        m_pendingSeen = !Simulator::IsExpired(m_ids[1]) && m_ids[1].IsRunning() &&
                        !Simulator::IsExpired(m_ids[2]);
        Simulator::Cancel(m_ids[1]);
        Simulator::Remove(m_ids[2]);
        m_afterCancel = Simulator::IsExpired(m_ids[1]) && Simulator::IsExpired(m_ids[2]);
    }

    void Start0()
    {
        m_ids[0] = Simulator::Schedule(NanoSeconds(8), &NodeOrderExpiryTestCase::First, this);
    }

    void DoRun() override
    {
        NodeOrderSim sim;
        // set-up schedules three events for 10 ns (small uids)...
        m_ids[1] = Simulator::Schedule(NanoSeconds(10), &NodeOrderExpiryTestCase::Mark, this, 1);
        m_ids[2] = Simulator::Schedule(NanoSeconds(10), &NodeOrderExpiryTestCase::Mark, this, 2);
        m_ids[3] = Simulator::Schedule(NanoSeconds(10), &NodeOrderExpiryTestCase::Mark, this, 3);
        // ...node 0 schedules at 2 ns for 10 ns (larger uid): its event runs first
        Simulator::ScheduleWithContext(0, NanoSeconds(2), &NodeOrderExpiryTestCase::Start0, this);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_ran[0], true, "the first event ran");
        NS_TEST_ASSERT_MSG_EQ(m_selfExpired[0], true, "a running event is expired");
        NS_TEST_ASSERT_MSG_EQ(m_pendingSeen, true, "same-time events with smaller uids pending");
        NS_TEST_ASSERT_MSG_EQ(m_afterCancel, true, "cancelled and removed events are expired");
        NS_TEST_ASSERT_MSG_EQ(m_ran[1], false, "the cancelled event did not run");
        NS_TEST_ASSERT_MSG_EQ(m_ran[2], false, "the removed event did not run");
        NS_TEST_ASSERT_MSG_EQ(m_ran[3], true, "the other event ran");
        NS_TEST_ASSERT_MSG_EQ(m_selfExpired[3], true, "and was expired while it ran");
        NS_TEST_ASSERT_MSG_EQ(Simulator::IsExpired(m_ids[3]), true, "and after");
    }

    EventId m_ids[4];
    bool m_ran[4]{false, false, false, false};
    bool m_selfExpired[4]{false, false, false, false};
    bool m_pendingSeen{false};
    bool m_afterCancel{false};
};

/// Chains of events outside any node run in ns-3's order.
class NodeOrderNoNodeTestCase : public TestCase
{
  public:
    NodeOrderNoNodeTestCase()
        : TestCase("without node contexts the order is ns-3's (2,000 chains against "
                   "PriorityQueueScheduler)")
    {
    }

  private:
    static constexpr uint32_t kChains = 2000;

    std::vector<std::pair<int64_t, uint32_t>> RunChains(bool nodeOrder)
    {
        std::unique_ptr<NodeOrderSim> sim;
        if (nodeOrder)
        {
            sim = std::make_unique<NodeOrderSim>();
        }
        else
        {
            ObjectFactory f;
            f.SetTypeId("ns3::PriorityQueueScheduler");
            Simulator::SetScheduler(f);
        }
        m_order.clear();
        m_rng.seed(99);
        m_ids.assign(kChains, EventId());
        for (uint32_t c = 0; c < kChains; ++c)
        {
            m_ids[c] = Simulator::Schedule(NanoSeconds(m_rng() % 5),
                                           &NodeOrderNoNodeTestCase::Fire,
                                           this,
                                           c);
        }
        Simulator::Stop(MicroSeconds(10));
        Simulator::Run();
        Simulator::Destroy();
        return m_order;
    }

    void Fire(uint32_t c)
    {
        m_order.emplace_back(Simulator::Now().GetNanoSeconds(), c);
        const uint64_t r = m_rng();
        m_ids[c] = Simulator::Schedule(NanoSeconds(r % 8), &NodeOrderNoNodeTestCase::Fire, this, c);
        const uint32_t other = uint32_t((r >> 8) % kChains);
        if ((r >> 20) % 16 == 0)
        {
            Simulator::Cancel(m_ids[other]);
        }
        else if ((r >> 20) % 16 == 1 && m_ids[other].IsRunning())
        {
            Simulator::Remove(m_ids[other]);
        }
    }

    void DoRun() override
    {
        const auto ref = RunChains(false);
        const auto got = RunChains(true);
        NS_TEST_ASSERT_MSG_GT(ref.size(), 50000u, "the chains ran");
        NS_TEST_ASSERT_MSG_EQ(got.size(), ref.size(), "same number of events");
        bool same = got == ref;
        NS_TEST_ASSERT_MSG_EQ(same, true, "same events in the same order");
    }

    std::vector<std::pair<int64_t, uint32_t>> m_order;
    std::vector<EventId> m_ids;
    std::mt19937_64 m_rng;
};

/**
 * The running event's tie-break is its own when it was far ahead: the calendar takes a far
 * event's bucket only when the event leaves (BucketScheduler), and the tie-break read as it
 * leaves must be that event's, not the last one's.
 */
class NodeOrderFarEventTestCase : public TestCase
{
  public:
    NodeOrderFarEventTestCase()
        : TestCase("the running tie-break is the event's own after a far jump")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<NodeOrderScheduler> s = CreateObject<NodeOrderScheduler>();
        // outside any node an event counts as its context's: tie (context + 1) << kSeqBits
        const uint64_t far = 10000000000ULL; // 10 s in ns: far beyond the calendar
        const std::pair<uint64_t, uint32_t> events[] = {{10, 1}, {far, 2}, {far + 5, 3}};
        uint32_t uid = 0;
        for (const auto& [ts, ctx] : events)
        {
            Scheduler::Event ev;
            ev.impl = nullptr;
            ev.key.m_ts = ts;
            ev.key.m_uid = ++uid;
            ev.key.m_context = ctx;
            s->Insert(ev);
        }
        for (const auto& [ts, ctx] : events)
        {
            const Scheduler::Event ev = s->RemoveNext();
            NS_TEST_ASSERT_MSG_EQ(ev.key.m_ts, ts, "time order");
            NS_TEST_ASSERT_MSG_EQ(s->GetRunningTie(),
                                  uint64_t(ctx + 1) << NodeOrderScheduler::kSeqBits,
                                  "the running event's own tie-break");
        }
        NS_TEST_ASSERT_MSG_EQ(s->IsEmpty(), true, "empty");
    }
};

/// What is refused.
class NodeOrderInputTestCase : public TestCase
{
  public:
    NodeOrderInputTestCase()
        : TestCase("unknown orders, other schedulers and MPI without MPI are refused")
    {
    }

  private:
    static bool Throws(const std::function<void()>& f, const std::string& words)
    {
        try
        {
            f();
        }
        catch (const InputError& e)
        {
            return std::string(e.what()).find(words) != std::string::npos;
        }
        return false;
    }

    void DoRun() override
    {
        StringValue impl;
        StringValue sched;
        GlobalValue::GetValueByName("SimulatorImplementationType", impl);
        GlobalValue::GetValueByName("SchedulerType", sched);
        NS_TEST_ASSERT_MSG_EQ(Throws([] { EventOrder::Select("nodes", false); },
                                     "--event-order=nodes: unknown order"),
                              true,
                              "unknown order");
        GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
        NS_TEST_ASSERT_MSG_EQ(
            Throws([] { EventOrder::Select("node", false); }, "--SchedulerType=ns3::MapScheduler"),
            true,
            "a user's other scheduler");
        Ptr<NodeOrderSimulatorImpl> s = CreateObject<NodeOrderSimulatorImpl>();
        ObjectFactory own;
        own.SetTypeId("ns3::astra::NodeOrderScheduler");
        s->SetScheduler(own); // accepted (the simulator's destructor needs a scheduler)
        NS_TEST_ASSERT_MSG_EQ(Throws(
                                  [s] {
                                      ObjectFactory f;
                                      f.SetTypeId("ns3::astra::QuadHeapScheduler");
                                      s->SetScheduler(f);
                                  },
                                  "needs SchedulerType=ns3::astra::NodeOrderScheduler"),
                              true,
                              "the node-order simulator takes only its scheduler");
        GlobalValue::Bind("SchedulerType", StringValue("ns3::astra::QuadHeapScheduler"));
        EventOrder::Select("fifo", false);
        StringValue v;
        GlobalValue::GetValueByName("SchedulerType", v);
        NS_TEST_ASSERT_MSG_EQ(v.Get(), "ns3::astra::QuadHeapScheduler", "fifo binds nothing");
        EventOrder::Select("node", false);
        GlobalValue::GetValueByName("SchedulerType", v);
        NS_TEST_ASSERT_MSG_EQ(v.Get(),
                              "ns3::astra::NodeOrderScheduler",
                              "node binds its scheduler");
        GlobalValue::GetValueByName("SimulatorImplementationType", v);
        NS_TEST_ASSERT_MSG_EQ(v.Get(), "ns3::astra::NodeOrderSimulatorImpl", "and its simulator");
#ifndef NS3_MPI
        NS_TEST_ASSERT_MSG_EQ(Throws([] { EventOrder::Select("node", true); }, "no MPI"),
                              true,
                              "distributed node order needs MPI");
#endif
        GlobalValue::Bind("SimulatorImplementationType", impl);
        GlobalValue::Bind("SchedulerType", sched);
    }
};

class NodeOrderTestSuite : public TestSuite
{
  public:
    NodeOrderTestSuite()
        : TestSuite("astra-sim-node-order", UNIT)
    {
        AddTestCase(new NodeOrderTiesTestCase, TestCase::QUICK);
        AddTestCase(new NodeOrderExpiryTestCase, TestCase::QUICK);
        AddTestCase(new NodeOrderNoNodeTestCase, TestCase::QUICK);
        AddTestCase(new NodeOrderFarEventTestCase, TestCase::QUICK);
        AddTestCase(new NodeOrderInputTestCase, TestCase::QUICK);
    }
};

NodeOrderTestSuite g_nodeOrderTestSuite;

} // namespace
