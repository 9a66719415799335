/*
 * The window simulator (ns3/window-simulator-impl.h):
 * - groups: nodes joined by links shorter than the look-ahead, the look-ahead by default
 *   the longest link delay, one group when no link has a delay; PrefetchMinNodes turns the
 *   groups' look-ahead prefetch on from that many nodes;
 * - WindowPrefetch: every event of a group's window pending when it starts gets each stage
 *   of its prefetch routine once, before it runs; at most WindowPrefetch of them; none
 *   with 0; the order is the same;
 * - 3,000-event chains on six nodes in three groups (same-node, same-group and
 *   cross-group events, global events, cancels and removals, Stop(delay) from set-up):
 *   every node sees the same events at the same times in the same order as under the
 *   sequential NodeOrderSimulatorImpl, and the run took many windows;
 * - an event scheduled inside the running window for a group that has run it, and a
 *   global event inside it, stop the run with an InputError naming the look-ahead;
 * - Simulator::Stop() from an event ends the run at its window's end;
 * - the programs: roce-bench --event-order=window prints the same times and counters as
 *   --event-order=node (2-D, ring, anchor), with the window prefetch (the default) and with the
 * look-ahead instead; the runner on the RoCE backend and training-on-roce write the same files
 * (trace files sorted, collectives numbered by first issue); a gate latency below the look-ahead is
 * an input error (status 1).
 */

#include "astra-test-programs.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-paths.h"
#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/node-container.h"
#include "ns3/node-order.h"
#include "ns3/quad-heap-scheduler.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-net-device.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"
#include "ns3/window-simulator-impl.h"

#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::astra;

namespace
{

using ns3::astra::testutil::FindProgram;
using ns3::astra::testutil::RunCommand;

/// Runs under a simulator type and NodeOrderScheduler; restores the global values after.
class SimScope
{
  public:
    /// \param impl the SimulatorImplementationType
    explicit SimScope(const std::string& impl)
    {
        GlobalValue::GetValueByName("SimulatorImplementationType", m_impl);
        GlobalValue::GetValueByName("SchedulerType", m_sched);
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType", StringValue(impl));
        GlobalValue::Bind("SchedulerType", StringValue("ns3::astra::NodeOrderScheduler"));
    }

    ~SimScope()
    {
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType", m_impl);
        GlobalValue::Bind("SchedulerType", m_sched);
    }

  private:
    StringValue m_impl;  //!< saved implementation type
    StringValue m_sched; //!< saved scheduler type
};

/**
 * Six nodes: 0-1 and 2-3 joined by 100 ns links, 1-2, 3-4 and 4-5 by 1,000 ns links
 * (groups {0,1}, {2,3}, {4}, {5} at the default look-ahead of 1,000 ns).
 * \return the nodes
 */
NodeContainer
MakeFabric()
{
    NodeContainer nodes;
    nodes.Create(6);
    const std::vector<std::pair<std::pair<uint32_t, uint32_t>, uint32_t>> links = {{{0, 1}, 100},
                                                                                   {{2, 3}, 100},
                                                                                   {{1, 2}, 1000},
                                                                                   {{3, 4}, 1000},
                                                                                   {{4, 5}, 1000}};
    for (const auto& l : links)
    {
        Ptr<RdmaChannel> ch = CreateObject<RdmaChannel>();
        ch->SetDelay(NanoSeconds(l.second));
        for (uint32_t n : {l.first.first, l.first.second})
        {
            Ptr<RdmaNetDevice> d = CreateObject<RdmaNetDevice>();
            d->SetAttribute("DataRate", StringValue("100Gbps"));
            nodes.Get(n)->AddDevice(d);
            d->Attach(ch);
        }
    }
    return nodes;
}

/// Random event chains on the six nodes; what each node saw, by node.
class Chains
{
  public:
    /// the group of each node (the test's fabric at the default look-ahead)
    static uint32_t Group(uint32_t n)
    {
        static const uint32_t g[6] = {0, 0, 1, 1, 2, 3};
        return g[n];
    }

    /// Start: seeds events, a global chain and Stop at 40 us; run.
    void Run()
    {
        m_rng.clear();
        for (uint32_t n = 0; n < 6; ++n)
        {
            m_rng.emplace_back(1000 + n);
        }
        for (uint32_t n = 0; n < 6; ++n)
        {
            for (int k = 0; k < 3; ++k)
            {
                Simulator::ScheduleWithContext(n,
                                               NanoSeconds(10 * k + n),
                                               &Chains::Step,
                                               this,
                                               n,
                                               std::string("seed") + std::to_string(k));
            }
        }
        Simulator::Schedule(NanoSeconds(2500), &Chains::Global, this, 0);
        // node events at the global events' times: the merge at a window's end must run
        // them first (a global event's tie-break comes after every node's)
        uint64_t g = 2500;
        for (int k = 0; k <= 10; ++k)
        {
            for (uint32_t n = 0; n < 6; ++n)
            {
                Simulator::ScheduleWithContext(n,
                                               NanoSeconds(g),
                                               &Chains::Step,
                                               this,
                                               n,
                                               std::string("at-global"));
            }
            g += 2500 + k;
        }
        Simulator::Stop(MicroSeconds(40));
        Simulator::Run();
    }

    /// \return each node's log, then the global one
    std::map<uint32_t, std::vector<std::string>> m_log;
    uint32_t m_steps{0}; //!< events run

  private:
    /// an event of node n
    void Step(uint32_t n, std::string tag)
    {
        ++m_steps;
        ++m_count[n];
        std::ostringstream os;
        os << Simulator::Now().GetNanoSeconds() << " " << tag;
        m_log[n].push_back(os.str());
        if (m_pending.count(n))
        {
            // the node's last same-node event: run (past or this very time step), pending
            // (this time step or later) or cancelled, as the sequential simulator says
            const EventId& e = m_pending[n];
            m_log[n].push_back("last " + std::to_string(e.GetTs()) +
                               (e.IsExpired() ? " expired" : " pending") + " left " +
                               std::to_string(Simulator::GetDelayLeft(e).GetNanoSeconds()));
        }
        std::mt19937& r = m_rng[n];
        if (m_count[n] > 500)
        {
            return; // per node: the same cut under any order
        }
        // a pending event of this node cancelled or removed now and then
        if (m_pending.count(n) && !m_pending[n].IsExpired() && r() % 5 == 0)
        {
            const bool remove = r() % 2 == 0;
            m_log[n].push_back(
                std::string(remove ? "remove " : "cancel ") + std::to_string(m_pending[n].GetTs()) +
                " left " + std::to_string(Simulator::GetDelayLeft(m_pending[n]).GetNanoSeconds()));
            if (remove)
            {
                Simulator::Remove(m_pending[n]);
            }
            else
            {
                Simulator::Cancel(m_pending[n]);
            }
            m_log[n].push_back(m_pending[n].IsExpired() ? "expired" : "still pending");
        }
        const uint32_t kids = r() % 10 < 8 ? 1 : 2; // chains grow slowly until the cap
        for (uint32_t k = 0; k < kids; ++k)
        {
            const uint32_t kind = r() % 3;
            const std::string t = tag.substr(0, 6) + "." + std::to_string(k);
            if (kind == 0)
            {
                // the same node, 0 to 1,500 ns on (same-time events: ties by node order)
                m_pending[n] =
                    Simulator::Schedule(NanoSeconds(r() % 4 * 500), &Chains::Step, this, n, t);
            }
            else if (kind == 1)
            {
                // a node of the same group, any delay
                const uint32_t m = Group(n) == Group(n ^ 1) ? (n ^ 1) : n;
                Simulator::ScheduleWithContext(m,
                                               NanoSeconds(r() % 3 * 50),
                                               &Chains::Step,
                                               this,
                                               m,
                                               t);
            }
            else
            {
                // another node, at least the look-ahead on
                const uint32_t m = r() % 6;
                Simulator::ScheduleWithContext(m,
                                               NanoSeconds(1000 + r() % 3 * 500),
                                               &Chains::Step,
                                               this,
                                               m,
                                               t);
            }
        }
        if (m_log[n].size() < 3)
        {
            // keep every node busy early on
            Simulator::Schedule(NanoSeconds(1000), &Chains::Step, this, n, tag + "+");
        }
    }

    /// a global event: logs and touches nothing of the nodes
    void Global(int k)
    {
        // what every node has run so far: the same only if the merge order is right
        std::string seen;
        for (uint32_t n = 0; n < 6; ++n)
        {
            seen += " " + std::to_string(m_count[n]);
        }
        m_log[99].push_back(std::to_string(Simulator::Now().GetNanoSeconds()) + " global " +
                            std::to_string(k) + seen);
        if (k < 10)
        {
            Simulator::Schedule(NanoSeconds(2500 + k), &Chains::Global, this, k + 1);
        }
    }

    std::vector<std::mt19937> m_rng;       //!< one stream per node: draws follow the node's events
    std::map<uint32_t, EventId> m_pending; //!< a node's last same-node event
    std::map<uint32_t, uint32_t> m_count;  //!< events per node
};

/// Groups and look-ahead.
class WindowGroupsCase : public TestCase
{
  public:
    WindowGroupsCase()
        : TestCase("groups: nodes joined by links below the look-ahead; default look-ahead the "
                   "longest link")
    {
    }

  private:
    void DoRun() override
    {
        {
            SimScope s("ns3::astra::WindowSimulatorImpl");
            Simulator::Now(); // create the simulator
            NodeContainer nodes = MakeFabric();
            WindowSimulatorImpl* w = WindowSimulatorImpl::GetActive();
            NS_TEST_ASSERT_MSG_NE(w, nullptr, "the window simulator runs");
            w->BuildGroups();
            NS_TEST_ASSERT_MSG_EQ(w->GetLookaheadSteps(),
                                  uint64_t(NanoSeconds(1000).GetTimeStep()),
                                  "look-ahead: the longest link");
            NS_TEST_ASSERT_MSG_EQ(w->GetGroupCount(), 4u, "groups {0,1}, {2,3}, {4}, {5}");
            for (uint32_t n = 0; n < 6; ++n)
            {
                NS_TEST_ASSERT_MSG_EQ(w->GetGroupOf(nodes.Get(n)->GetId()),
                                      Chains::Group(n),
                                      "group of node " << n);
            }
            NS_TEST_ASSERT_MSG_EQ(EventOrder::WindowLookaheadSteps(),
                                  uint64_t(NanoSeconds(1000).GetTimeStep()),
                                  "EventOrder sees the look-ahead");
            NS_TEST_ASSERT_MSG_EQ(w->IsPrefetching(), false, "PrefetchMinNodes: none by default");
        }
        {
            // PrefetchMinNodes takes effect (6 nodes: prefetch from 6 on, not from 7)
            for (uint32_t min : {6u, 7u})
            {
                Config::SetDefault("ns3::astra::WindowSimulatorImpl::PrefetchMinNodes",
                                   UintegerValue(min));
                SimScope s("ns3::astra::WindowSimulatorImpl");
                Simulator::Now();
                MakeFabric();
                WindowSimulatorImpl* w = WindowSimulatorImpl::GetActive();
                w->BuildGroups();
                NS_TEST_ASSERT_MSG_EQ(w->IsPrefetching(), (min == 6), "PrefetchMinNodes " << min);
            }
            Config::SetDefault("ns3::astra::WindowSimulatorImpl::PrefetchMinNodes",
                               UintegerValue(std::numeric_limits<uint32_t>::max()));
        }
        {
            // a shorter look-ahead: no link is shorter, every node its own group
            SimScope s("ns3::astra::WindowSimulatorImpl");
            Config::SetDefault("ns3::astra::WindowSimulatorImpl::Lookahead",
                               TimeValue(NanoSeconds(100)));
            Simulator::Now();
            Config::SetDefault("ns3::astra::WindowSimulatorImpl::Lookahead", TimeValue(Time(0)));
            MakeFabric();
            WindowSimulatorImpl* w = WindowSimulatorImpl::GetActive();
            w->BuildGroups();
            NS_TEST_ASSERT_MSG_EQ(w->GetGroupCount(), 6u, "look-ahead 100 ns: six groups");
        }
        {
            // no links: one group
            SimScope s("ns3::astra::WindowSimulatorImpl");
            Simulator::Now();
            NodeContainer nodes;
            nodes.Create(3);
            WindowSimulatorImpl* w = WindowSimulatorImpl::GetActive();
            w->BuildGroups();
            NS_TEST_ASSERT_MSG_EQ(w->GetGroupCount(), 1u, "no links: one group");
        }
        {
            // an interaction between nodes sooner than the look-ahead: refused when Run starts
            SimScope s("ns3::astra::WindowSimulatorImpl");
            MakeFabric();
            EventOrder::LimitLookahead(NanoSeconds(1000).GetTimeStep(), "fine");
            EventOrder::LimitLookahead(NanoSeconds(999).GetTimeStep(), "the test's 999 ns");
            std::string what;
            try
            {
                Simulator::Run();
            }
            catch (const InputError& e)
            {
                what = e.what();
            }
            NS_TEST_ASSERT_MSG_NE(what.find("look-ahead is 1000 ns (the longest link delay), but "
                                            "nodes interact sooner than that other than over a "
                                            "link: the test's 999 ns"),
                                  std::string::npos,
                                  what);
        }
        NS_TEST_ASSERT_MSG_EQ(EventOrder::WindowLookaheadSteps(),
                              0u,
                              "0 outside the window simulator");
    }
};

/// The chains: the same per-node histories as the sequential node-order simulator.
class WindowChainsCase : public TestCase
{
  public:
    WindowChainsCase()
        : TestCase("3,000-event chains: every node's history as under NodeOrderSimulatorImpl")
    {
    }

  private:
    void DoRun() override
    {
        std::map<uint32_t, std::vector<std::string>> seq;
        std::map<uint32_t, std::vector<std::string>> win;
        uint64_t seqEvents = 0;
        uint64_t winEvents = 0;
        uint64_t windows = 0;
        {
            SimScope s("ns3::astra::NodeOrderSimulatorImpl");
            MakeFabric();
            Chains c;
            c.Run();
            seq = c.m_log;
            seqEvents = Simulator::GetEventCount();
        }
        {
            SimScope s("ns3::astra::WindowSimulatorImpl");
            MakeFabric();
            Chains c;
            std::string error;
            try
            {
                c.Run();
            }
            catch (const InputError& e)
            {
                error = e.what();
            }
            NS_TEST_ASSERT_MSG_EQ(error, "", "the window simulator ran the chains");
            win = c.m_log;
            winEvents = Simulator::GetEventCount();
            windows = WindowSimulatorImpl::GetActive()->GetWindowCount();
        }
        NS_TEST_ASSERT_MSG_GT(seqEvents, 2500u, "the chains ran");
        NS_TEST_ASSERT_MSG_GT(windows, 20u, "the run took many windows");
        NS_TEST_ASSERT_MSG_EQ(winEvents, seqEvents, "events run");
        NS_TEST_ASSERT_MSG_EQ(win.size(), seq.size(), "nodes with events");
        uint32_t removals = 0;
        for (const auto& kv : seq)
        {
            const auto& a = kv.second;
            const auto& b = win[kv.first];
            NS_TEST_ASSERT_MSG_EQ(b.size(), a.size(), "node " << kv.first << ": entries");
            for (size_t i = 0; i < a.size() && i < b.size(); ++i)
            {
                NS_TEST_ASSERT_MSG_EQ(b[i], a[i], "node " << kv.first << " entry " << i);
                removals += a[i].find("remove") != std::string::npos ||
                            a[i].find("cancel") != std::string::npos;
            }
        }
        NS_TEST_ASSERT_MSG_GT(removals, 10u, "cancels and removals exercised");
        NS_TEST_ASSERT_MSG_EQ(seq.count(99), 1u, "global events ran");
    }
};

/// Scheduling into a group's past is refused.
class WindowViolationCase : public TestCase
{
  public:
    WindowViolationCase()
        : TestCase("an event inside the window for a group that has run it, or a global one, "
                   "is an InputError")
    {
    }

  private:
    static void Nothing()
    {
        ++s_ran;
    }

    static uint32_t s_ran; //!< Nothing's runs

    /// node 2 (group 1) schedules for node 0 (group 0) after \p delay ns
    static void Cross(uint32_t delay)
    {
        Simulator::ScheduleWithContext(0, NanoSeconds(delay), &Nothing);
    }

    /// node 2 schedules a global event after 10 ns
    static void GlobalSoon()
    {
        Simulator::ScheduleWithContext(0xFFFFFFFF, NanoSeconds(10), &Nothing);
    }

    void DoRun() override
    {
        for (int which = 0; which < 3; ++which)
        {
            SimScope s("ns3::astra::WindowSimulatorImpl");
            MakeFabric();
            s_ran = 0;
            Simulator::ScheduleWithContext(0, NanoSeconds(5), &Nothing);
            if (which == 0)
            {
                Simulator::ScheduleWithContext(2, NanoSeconds(5), &Cross, 0u);
            }
            else if (which == 1)
            {
                Simulator::ScheduleWithContext(2, NanoSeconds(5), &GlobalSoon);
            }
            else
            {
                // at the look-ahead: after the window, allowed
                Simulator::ScheduleWithContext(2, NanoSeconds(5), &Cross, 1000u);
            }
            std::string what;
            try
            {
                Simulator::Run();
            }
            catch (const InputError& e)
            {
                what = e.what();
            }
            if (which < 2)
            {
                NS_TEST_ASSERT_MSG_NE(what.find("look-ahead (1000 ns)"),
                                      std::string::npos,
                                      "refused: " << what);
                NS_TEST_ASSERT_MSG_NE(what.find("node 2 at 5 ns"), std::string::npos, what);
            }
            else
            {
                NS_TEST_ASSERT_MSG_EQ(what, "", "a delay of the look-ahead is allowed");
                NS_TEST_ASSERT_MSG_EQ(s_ran, 2u, "both of node 0's events ran");
            }
        }
    }
};

uint32_t WindowViolationCase::s_ran = 0;

/// What WindowPrefetchCase records: (event id, stage) of every hint, and the ids run.
struct WindowHintLog
{
    std::vector<std::pair<uint32_t, std::size_t>> hints; //!< in call order
    std::vector<uint32_t> ran;                           //!< ids in execution order
    std::map<uint32_t, std::size_t> hintsBeforeRun;      //!< hints.size() when each id ran
};

WindowHintLog g_windowHints; //!< the running case's record

/// An event with a registered prefetch routine that records its calls.
class WindowHintedEvent : public EventImpl
{
  public:
    /// \param id the event's id
    explicit WindowHintedEvent(uint32_t id)
        : m_id(id)
    {
    }

    /// the registered routine \param e the event \param stage the stage
    static void Hint(const EventImpl* e, std::size_t stage)
    {
        g_windowHints.hints.emplace_back(static_cast<const WindowHintedEvent*>(e)->m_id, stage);
    }

  protected:
    void Notify() override
    {
        g_windowHints.ran.push_back(m_id);
        g_windowHints.hintsBeforeRun[m_id] = g_windowHints.hints.size();
    }

  private:
    uint32_t m_id; //!< the event's id
};

/**
 * WindowPrefetch: before a group runs its window, every event of the window pending then
 * gets each stage of its prefetch routine (0 .. kWindowStages - 1) once, before it runs;
 * at most WindowPrefetch events a group and window; none with 0; the order is the same.
 */
class WindowPrefetchCase : public TestCase
{
  public:
    WindowPrefetchCase()
        : TestCase("WindowPrefetch: the events of a group's window get every prefetch stage "
                   "before it runs")
    {
    }

  private:
    /// 60 events, 137 ns apart, on the six nodes in turn; run with WindowPrefetch = cap
    static void RunOnce(uint32_t cap)
    {
        g_windowHints = WindowHintLog();
        Config::SetDefault("ns3::astra::WindowSimulatorImpl::WindowPrefetch", UintegerValue(cap));
        SimScope s("ns3::astra::WindowSimulatorImpl");
        Simulator::Now();
        Config::SetDefault("ns3::astra::WindowSimulatorImpl::WindowPrefetch", UintegerValue(512));
        MakeFabric();
        for (uint32_t id = 0; id < 60; ++id)
        {
            Simulator::ScheduleWithContext(id % 6,
                                           NanoSeconds(137 * id),
                                           new WindowHintedEvent(id));
        }
        Simulator::Run();
    }

    void DoRun() override
    {
        astra::QuadHeapScheduler::RegisterPrefetch(typeid(WindowHintedEvent),
                                                   &WindowHintedEvent::Hint);
        constexpr std::size_t kStages = astra::QuadHeapScheduler::kWindowStages;
        RunOnce(512);
        const WindowHintLog all = g_windowHints;
        NS_TEST_ASSERT_MSG_EQ(all.ran.size(), 60u, "every event ran");
        std::map<uint32_t, uint32_t> lastOfNode; // groups run in turn; a node's in time order
        for (const uint32_t id : all.ran)
        {
            if (lastOfNode.count(id % 6))
            {
                NS_TEST_ASSERT_MSG_LT(lastOfNode[id % 6], id, "node " << id % 6 << ": time order");
            }
            lastOfNode[id % 6] = id;
        }
        NS_TEST_ASSERT_MSG_EQ(std::set<uint32_t>(all.ran.begin(), all.ran.end()).size(),
                              60u,
                              "each once");
        NS_TEST_ASSERT_MSG_EQ(all.hints.size(), 60 * kStages, "every stage of every event");
        std::map<uint32_t, std::vector<std::size_t>> stages;
        for (std::size_t h = 0; h < all.hints.size(); ++h)
        {
            const uint32_t id = all.hints[h].first;
            stages[id].push_back(all.hints[h].second);
            NS_TEST_ASSERT_MSG_LT(h,
                                  all.hintsBeforeRun.at(id),
                                  "hint of " << id << " after it ran");
        }
        for (uint32_t id = 0; id < 60; ++id)
        {
            std::vector<std::size_t> want(kStages);
            for (std::size_t st = 0; st < kStages; ++st)
            {
                want[st] = st;
            }
            NS_TEST_ASSERT_MSG_EQ((stages[id] == want),
                                  true,
                                  "stages 0.." << kStages - 1 << " of " << id << ", in order");
        }

        RunOnce(0);
        NS_TEST_ASSERT_MSG_EQ(g_windowHints.hints.size(), 0u, "WindowPrefetch 0: no hint");
        NS_TEST_ASSERT_MSG_EQ((g_windowHints.ran == all.ran), true, "the same order");

        // the groups' windows hold up to 3 of these events: one each is looked at
        RunOnce(1);
        NS_TEST_ASSERT_MSG_EQ((g_windowHints.ran == all.ran), true, "the same order");
        NS_TEST_ASSERT_MSG_GT(g_windowHints.hints.size(), 0u, "WindowPrefetch 1: some hints");
        NS_TEST_ASSERT_MSG_LT(g_windowHints.hints.size(),
                              all.hints.size(),
                              "WindowPrefetch 1: fewer hints");
        NS_TEST_ASSERT_MSG_EQ(g_windowHints.hints.size() % kStages, 0u, "whole passes");
    }
};

/// Stop() from an event: the window is run out.
class WindowStopCase : public TestCase
{
  public:
    WindowStopCase()
        : TestCase("Simulator::Stop() from an event ends the run at its window's end")
    {
    }

  private:
    void Log(uint32_t n)
    {
        m_ran.push_back(n * 10000 + uint32_t(Simulator::Now().GetNanoSeconds()));
    }

    void StopNow()
    {
        Simulator::Stop();
    }

    void DoRun() override
    {
        SimScope s("ns3::astra::WindowSimulatorImpl");
        MakeFabric();
        // window [0, 1000): group 0 stops at 100; group 1's event at 900 runs, 1100 not
        Simulator::ScheduleWithContext(0, NanoSeconds(0), &WindowStopCase::Log, this, 0u);
        Simulator::ScheduleWithContext(0, NanoSeconds(100), &WindowStopCase::StopNow, this);
        Simulator::ScheduleWithContext(0, NanoSeconds(200), &WindowStopCase::Log, this, 0u);
        Simulator::ScheduleWithContext(2, NanoSeconds(900), &WindowStopCase::Log, this, 2u);
        Simulator::ScheduleWithContext(2, NanoSeconds(1100), &WindowStopCase::Log, this, 2u);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_ran.size(), 3u, "the window's events ran, the next one's not");
        NS_TEST_ASSERT_MSG_EQ(m_ran[1], 200u, "group 0 ran its window out");
        NS_TEST_ASSERT_MSG_EQ(m_ran[2], 20900u, "group 1 ran its window");
        NS_TEST_ASSERT_MSG_EQ(Simulator::IsFinished(), false, "the next window's event waits");
    }

    std::vector<uint32_t> m_ran; //!< node * 10000 + ns of each Log
};

/**
 * \return the result lines of a roce-bench output without what depends on the machine
 * (wall time, rate, RSS) nor the event count
 * \param out the output \param keepEvents keep the event count
 */
std::string
BenchResults(const std::string& out, bool keepEvents)
{
    std::istringstream in(out);
    std::string line;
    std::string r;
    while (std::getline(in, line))
    {
        const size_t w = line.find("wall");
        const size_t ev = line.find("events");
        const size_t hops = line.find("packet-hops");
        if (w != std::string::npos && ev != std::string::npos && hops != std::string::npos)
        {
            std::string l = line.substr(0, w) + line.substr(keepEvents ? ev : hops);
            l = l.substr(0, l.find("peak RSS"));
            r += std::regex_replace(l, std::regex(R"(\([0-9.]+ M/s\))"), "") + "\n";
        }
    }
    return r;
}

/// \return the event counts of a roce-bench output's result lines \param out the output
std::vector<uint64_t>
EventCounts(const std::string& out)
{
    std::vector<uint64_t> v;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line))
    {
        const size_t ev = line.find("  events ");
        if (line.find("wall") != std::string::npos && ev != std::string::npos)
        {
            v.push_back(std::stoull(line.substr(ev + 9)));
        }
    }
    return v;
}

/// The programs: same results as node order; the gate latency is checked.
class WindowProgramsCase : public TestCase
{
  public:
    WindowProgramsCase()
        : TestCase("roce-bench and the runner: --event-order=window gives node order's results")
    {
    }

  private:
    static std::string Slurp(const std::string& path)
    {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    }

    /**
     * Every file of \p a has the same bytes in \p b.
     * \param a a folder \param b another \param atLeast files expected at least
     */
    void CompareDirs(const std::string& a, const std::string& b, uint32_t atLeast)
    {
        std::string list;
        RunCommand("cd " + a + " && ls", list);
        std::istringstream files(list);
        std::string f;
        uint32_t compared = 0;
        while (std::getline(files, f))
        {
            const std::string x = Slurp(a + "/" + f);
            const std::string y = Slurp(b + "/" + f);
            const bool same = y == x && !x.empty();
            NS_TEST_ASSERT_MSG_EQ(same, true, a << ": file " << f << " differs or is empty");
            ++compared;
        }
        NS_TEST_ASSERT_MSG_GT_OR_EQ(compared, atLeast, a << ": files compared");
    }

    void DoRun() override
    {
        const std::string bench = FindProgram("roce-bench");
        const std::string runner = FindProgram("astra-sim-runner");
        NS_TEST_ASSERT_MSG_NE(bench, "", "roce-bench built");
        NS_TEST_ASSERT_MSG_NE(runner, "", "astra-sim-runner built");
        if (bench.empty() || runner.empty())
        {
            return;
        }
        const std::string args = " --cases=2d,ring,anchor --npus=32 --size=4194304 "
                                 "--anchor-sizes=1048576 --backends=roce --gate-latency-ns=12500";
        std::string node;
        std::string window;
        NS_TEST_ASSERT_MSG_EQ(RunCommand(bench + args + " --event-order=node", node), 0, node);
        NS_TEST_ASSERT_MSG_EQ(RunCommand(bench + args + " --event-order=window", window),
                              0,
                              window);
        std::string prefetch;
        NS_TEST_ASSERT_MSG_EQ(
            RunCommand(bench + args +
                           " --event-order=window --ns3::astra::WindowSimulatorImpl::"
                           "PrefetchMinNodes=0 --ns3::astra::WindowSimulatorImpl::WindowPrefetch=0",
                       prefetch),
            0,
            prefetch);
        const std::string a = BenchResults(node, false);
        const std::string b = BenchResults(window, false);
        NS_TEST_ASSERT_MSG_EQ(
            BenchResults(prefetch, false),
            a,
            "window with the look-ahead instead of the window prefetch: the same");
        NS_TEST_ASSERT_MSG_NE(a.find("anchor"), std::string::npos, "three cases ran: " << a);
        NS_TEST_ASSERT_MSG_NE(a.find("packet-hops"), std::string::npos, a);
        NS_TEST_ASSERT_MSG_EQ(b, a, "window: node order's times and counters");
        // roce-bench stops when the last NPU finishes (Simulator::Stop() in an event): the
        // window simulator runs that window out, so it may count a few more events
        const std::vector<uint64_t> ea = EventCounts(node);
        const std::vector<uint64_t> eb = EventCounts(window);
        NS_TEST_ASSERT_MSG_EQ(eb.size(), 3u, "three event counts");
        NS_TEST_ASSERT_MSG_EQ(ea.size(), eb.size(), "event counts");
        for (size_t i = 0; i < ea.size() && i < eb.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_GT_OR_EQ(eb[i], ea[i], "case " << i << ": the window run out");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(eb[i] - ea[i],
                                        ea[i] / 1000,
                                        "case " << i << ": at most 0.1 % more");
        }

        std::string out;
        NS_TEST_ASSERT_MSG_EQ(RunCommand(bench + " --cases=2d --npus=16 --size=1048576 "
                                                 "--backends=roce --event-order=window",
                                         out),
                              1,
                              out);
        NS_TEST_ASSERT_MSG_NE(out.find("look-ahead is 1000 ns (the longest link delay), but nodes "
                                       "interact sooner than that other than over a link: "
                                       "collective-gate-latency-ns (0 ns"),
                              std::string::npos,
                              out);
        NS_TEST_ASSERT_MSG_EQ(
            RunCommand(bench + " --cases=2d --npus=16 --event-order=windows", out),
            1,
            out);
        NS_TEST_ASSERT_MSG_NE(out.find("did you mean 'window'"), std::string::npos, out);

        // the runner on the RoCE backend, reference inputs, a gate latency of the longest link
        const std::string ref = GetReferenceDir() + "/astra-sim/examples";
        char tmpl[] = "/tmp/astra-window-XXXXXX";
        const std::string dir = mkdtemp(tmpl) ? tmpl : "/tmp";
        std::string sys = Slurp(ref + "/system/native_collectives/Ring_4chunks.json");
        const size_t brace = sys.find('{');
        NS_TEST_ASSERT_MSG_NE(brace, std::string::npos, "a JSON object");
        sys.insert(brace + 1, "\n  \"collective-gate-latency-ns\": 5000,");
        std::ofstream(dir + "/sys.json") << sys;
        const std::string common =
            runner + " --workload-configuration=" + ref +
            "/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce --system-configuration=" +
            dir + "/sys.json --network-configuration=" + ref +
            "/network/analytical/Ring_8npus.yml --backend=roce --progress-seconds=0";
        for (const std::string order : {"node", "window"})
        {
            NS_TEST_ASSERT_MSG_EQ(RunCommand(common + " --event-order=" + order +
                                                 " --output-dir=" + dir + "/" + order,
                                             out),
                                  0,
                                  out);
        }
        CompareDirs(dir + "/node", dir + "/window", 2);
        // the main example (its gate latency is the longest link's): collectives numbered,
        // trace files sorted as in one sequential run
        const std::string training = FindProgram("training-on-roce");
        NS_TEST_ASSERT_MSG_NE(training, "", "training-on-roce built");
        for (const std::string order : {"node", "window"})
        {
            NS_TEST_ASSERT_MSG_EQ(RunCommand(training + " --event-order=" + order +
                                                 " --progress-seconds=0 --output-dir=" + dir +
                                                 "/t-" + order,
                                             out),
                                  0,
                                  out);
        }
        CompareDirs(dir + "/t-node", dir + "/t-window", 6);
        RunCommand("rm -rf " + dir, out);
    }
};

} // namespace

/// The suite.
class WindowSimulatorTestSuite : public TestSuite
{
  public:
    WindowSimulatorTestSuite()
        : TestSuite("astra-sim-window-simulator", UNIT)
    {
        AddTestCase(new WindowGroupsCase, TestCase::QUICK);
        AddTestCase(new WindowChainsCase, TestCase::QUICK);
        AddTestCase(new WindowViolationCase, TestCase::QUICK);
        AddTestCase(new WindowStopCase, TestCase::QUICK);
        AddTestCase(new WindowPrefetchCase, TestCase::QUICK);
        AddTestCase(new WindowProgramsCase, TestCase::QUICK);
    }
};

static WindowSimulatorTestSuite g_windowSimulatorTestSuite; //!< registers the suite
