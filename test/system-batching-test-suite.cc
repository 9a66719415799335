/*
 * EventBatcher: same-time events coalesced into one ns-3 event must run in
 * exactly the order ns-3 would run them one by one, and the system layer on
 * the analytical backend must produce identical results (and an identical
 * message sequence) with and without batching, with fewer ns-3 events.
 */

#include "system-test-util.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/event-batcher.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::systest;

namespace
{

/// A scripted set of items; each item logs (time, id) and may schedule more.
struct Script
{
    std::ostringstream log;

    static void Item(void* obj, uint64_t id, uint64_t)
    {
        auto* s = static_cast<Script*>(obj);
        s->log << Simulator::Now().GetNanoSeconds() << ":" << id << " ";
        // a few items schedule followers, some at the same time (zero delay)
        if (id == 2)
        {
            EventBatcher::Schedule(NanoSeconds(0), &Script::Item, s, 20);
            EventBatcher::Schedule(NanoSeconds(2), &Script::Item, s, 21);
        }
        if (id == 3)
        {
            EventBatcher::Schedule(NanoSeconds(0), &Script::Item, s, 30);
            EventBatcher::Schedule(NanoSeconds(0), [s]() {
                s->log << Simulator::Now().GetNanoSeconds() << ":fn ";
            });
        }
        if (id == 21)
        {
            EventBatcher::Schedule(NanoSeconds(0), &Script::Item, s, 210);
        }
    }

    /// Run the script; \return the log
    std::string Run(bool batched, uint64_t& nsEvents)
    {
        EventBatcher::Reset();
        EventBatcher::SetEnabled(batched);
        EventBatcher::Schedule(NanoSeconds(5), &Script::Item, this, 1);
        EventBatcher::Schedule(NanoSeconds(3), &Script::Item, this, 2);
        EventBatcher::Schedule(NanoSeconds(5), &Script::Item, this, 3);
        EventBatcher::Schedule(NanoSeconds(3), &Script::Item, this, 4);
        EventBatcher::Schedule(NanoSeconds(5), &Script::Item, this, 5);
        Simulator::Run();
        nsEvents = Simulator::GetEventCount();
        Simulator::Destroy();
        EventBatcher::Reset();
        return log.str();
    }
};

/// Order of same-time items is ns-3's insertion order, with or without batching.
class BatcherOrderCase : public TestCase
{
  public:
    BatcherOrderCase()
        : TestCase("EventBatcher runs items in ns-3's order")
    {
    }

  private:
    void DoRun() override
    {
        uint64_t plainEvents = 0;
        uint64_t batchedEvents = 0;
        Script a;
        Script b;
        std::string plain = a.Run(false, plainEvents);
        uint64_t before = EventBatcher::GetItemCount();
        std::string batched = b.Run(true, batchedEvents);
        // ns-3 order: time, then scheduling order (2 and 4 at 3 ns, 20 scheduled by 2 at 3 ns
        // runs after 4; 21 at 5 ns was scheduled after 1, 3, 5; 30 and fn after 21; 210 last)
        NS_TEST_EXPECT_MSG_EQ(plain, "3:2 3:4 3:20 5:1 5:3 5:5 5:21 5:30 5:fn 5:210 ", "ns-3");
        NS_TEST_EXPECT_MSG_EQ(batched, plain, "batched order differs from ns-3's");
        NS_TEST_EXPECT_MSG_EQ(plainEvents, 10, "one ns-3 event per item without batching");
        NS_TEST_EXPECT_MSG_EQ(batchedEvents, 2, "one ns-3 event per distinct time");
        NS_TEST_EXPECT_MSG_EQ(EventBatcher::GetItemCount() - before, 10, "items run");
        NS_TEST_EXPECT_MSG_EQ(EventBatcher::IsEnabled(), false, "Reset disables");
    }
};

/// A mixed workload: compute, a 2-chunk all-reduce, SEND/RECV pairs, an all-gather on
/// dimension 0, a memory load, on a 4 x 2 topology.
Graphs
Mixed(uint32_t n)
{
    Graphs gs;
    for (uint32_t r = 0; r < n; ++r)
    {
        auto g = std::make_shared<WorkloadGraph>();
        g->file = "mixed." + std::to_string(r);
        g->rank = r;
        auto add = [&](WorkloadNode w, std::vector<uint64_t> deps) {
            w.id = g->nodes.size() + 1;
            w.name = "n" + std::to_string(w.id);
            w.dataDeps = deps;
            g->nodes.push_back(w);
            return w.id;
        };
        WorkloadNode c;
        c.kind = NodeKind::COMP;
        c.durationNs = 1000 + 100 * (r % 3);
        uint64_t comp = add(c, {});
        WorkloadNode ar;
        ar.kind = NodeKind::COMM_COLL;
        ar.collType = CollType::ALL_REDUCE;
        ar.commSize = 1 << 20;
        uint64_t a = add(ar, {comp});
        WorkloadNode snd;
        snd.kind = NodeKind::COMM_SEND;
        snd.commDst = static_cast<int32_t>((r + 1) % n);
        snd.commSize = 65536;
        snd.commTag = 7;
        uint64_t s = add(snd, {a});
        WorkloadNode rcv;
        rcv.kind = NodeKind::COMM_RECV;
        rcv.commSrc = static_cast<int32_t>((r + n - 1) % n);
        rcv.commSize = 65536;
        rcv.commTag = 7;
        uint64_t rv = add(rcv, {comp});
        WorkloadNode ag;
        ag.kind = NodeKind::COMM_COLL;
        ag.collType = CollType::ALL_GATHER;
        ag.commSize = 8192;
        ag.involvedDim = {true, false};
        uint64_t agid = add(ag, {s, rv});
        WorkloadNode m;
        m.kind = NodeKind::MEM_LOAD;
        m.tensorSize = 4096;
        add(m, {agid});
        g->BuildIndex();
        gs.push_back(g);
    }
    return gs;
}

/// Same results and message order with and without batching; fewer ns-3 events with it.
class BatchingIdentityCase : public TestCase
{
  public:
    BatchingIdentityCase()
        : TestCase("EventBatching leaves results and message order unchanged")
    {
    }

  private:
    void Check(const std::string& what,
               std::shared_ptr<const Topology> topo,
               const SystemParams& p,
               const Graphs& gs,
               const std::string& backend = "analytical")
    {
        Observed off = RunObserved(false, topo, p, gs, backend);
        Observed on = RunObserved(true, topo, p, gs, backend);
        NS_TEST_EXPECT_MSG_EQ(off.res.unfinished.empty(), true, what << ": finished");
        NS_TEST_EXPECT_MSG_EQ(off.res.error, "", what << ": no error");
        NS_TEST_EXPECT_MSG_EQ((on.res.finishNs == off.res.finishNs), true, what << ": finish");
        NS_TEST_EXPECT_MSG_EQ(on.res.messages, off.res.messages, what << ": messages");
        NS_TEST_EXPECT_MSG_EQ(on.messages.empty(), false, what << ": traced");
        NS_TEST_EXPECT_MSG_EQ((on.messages == off.messages), true, what << ": message sequence");
        NS_TEST_EXPECT_MSG_EQ((on.ends == off.ends), true, what << ": end sequence");
        NS_TEST_EXPECT_MSG_EQ(on.res.records.size(), off.res.records.size(), what);
        for (size_t i = 0; i < on.res.records.size() && i < off.res.records.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(on.res.records[i].end, off.res.records[i].end, what);
        }
        NS_TEST_EXPECT_MSG_LT(on.res.events, off.res.events / 2, what << ": ns-3 events");
    }

    void DoRun() override
    {
        auto topo2 = TopoDims({{DimType::RING, 4, 100, 200}, {DimType::SWITCH, 2, 50, 700}});
        SystemParams p = Params(2, 1, 10, 500, false);
        Check("mixed, default model", topo2, p, Mixed(8));
        Check("mixed, default model, flow backend", topo2, p, Mixed(8), "flow");
        p.compat = true;
        // one algorithm per dimension: with fewer, compat (as the reference) would leave
        // dimension 1 unused
        p.allReduce.assign(2, AlgoSpec{});
        p.allGather.assign(2, AlgoSpec{});
        p.reduceScatter.assign(2, AlgoSpec{});
        p.allToAll.assign(2, AlgoSpec{});
        Check("mixed, compat", topo2, p, Mixed(8));
        Check("mixed, compat, flow backend", topo2, p, Mixed(8), "flow");
        // LIFO with more chunks than slots: slot choices depend on same-time order
        SystemParams q = Params(8, 2, 10, 1600, false);
        q.scheduling = SchedulingPolicy::LIFO;
        auto topo3 = TopoDims({{DimType::RING, 4, 200, 100},
                               {DimType::RING, 2, 100, 500},
                               {DimType::SWITCH, 2, 50, 1000}});
        Graphs gs;
        for (auto& g : CollGraphs(16, CollType::ALL_REDUCE, 3 << 20))
        {
            auto w = std::make_shared<WorkloadGraph>(*g);
            WorkloadNode second = w->nodes[0];
            second.id = 2;
            second.name = "coll2";
            second.collType = CollType::REDUCE_SCATTER;
            w->nodes.push_back(second); // independent: both run concurrently
            w->BuildIndex();
            gs.push_back(w);
        }
        Check("two concurrent collectives, LIFO, 3-D", topo3, q, gs);
        Check("two concurrent collectives, LIFO, 3-D, flow backend", topo3, q, gs, "flow");
    }
};

/**
 * The analytical backend's fixed-time shortcuts (sends completed by time, a
 * ring arrival folded with its processing) change no time: the same messages
 * at the same times, the same collective ends and finish times as with two
 * backend events per message. Workloads where NPUs reach collectives at
 * different times (steps posted before, between and after arrivals), several
 * chunks and hierarchical phases.
 */
class FixedTimeShortcutsCase : public TestCase
{
  public:
    FixedTimeShortcutsCase()
        : TestCase("Fixed-time shortcuts leave every message time unchanged")
    {
    }

  private:
    void Check(const std::string& what,
               std::shared_ptr<const Topology> topo,
               const SystemParams& p,
               const Graphs& gs,
               const std::map<std::string, std::vector<uint32_t>>& groups = {})
    {
        Observed plain = RunObserved(true, topo, p, gs, "analytical", false, groups);
        Observed fast = RunObserved(true, topo, p, gs, "analytical", true, groups);
        NS_TEST_EXPECT_MSG_EQ(plain.res.unfinished.empty(), true, what << ": finished");
        NS_TEST_EXPECT_MSG_EQ(fast.res.unfinished.empty(), true, what << ": finished");
        NS_TEST_EXPECT_MSG_EQ((fast.res.finishNs == plain.res.finishNs), true, what << ": finish");
        NS_TEST_EXPECT_MSG_EQ(fast.res.messages, plain.res.messages, what << ": messages");
        NS_TEST_EXPECT_MSG_EQ((SortedLines(fast.messages) == SortedLines(plain.messages)),
                              true,
                              what << ": message times");
        NS_TEST_EXPECT_MSG_EQ((SortedLines(fast.ends) == SortedLines(plain.ends)),
                              true,
                              what << ": collective end times");
        NS_TEST_EXPECT_MSG_EQ(fast.res.records.size(), plain.res.records.size(), what);
        for (size_t i = 0; i < fast.res.records.size() && i < plain.res.records.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(fast.res.records[i].end, plain.res.records[i].end, what);
        }
        // one item per ring message instead of two
        NS_TEST_EXPECT_MSG_LT(fast.res.events, plain.res.events, what << ": ns-3 events");
    }

    /// NPU r computes r * skew ns, then runs two collectives of \p bytes (on group
    /// \p group(r), "" = all NPUs)
    static Graphs Skewed(uint32_t n,
                         CollType t,
                         uint64_t bytes,
                         uint64_t skew,
                         std::function<std::string(uint32_t)> group = nullptr)
    {
        Graphs gs;
        for (const auto& base : CollGraphs(n, t, bytes))
        {
            auto g = std::make_shared<WorkloadGraph>(*base);
            WorkloadNode a = g->nodes[0]; // the collective, after a compute node
            a.id = 2;
            a.dataDeps = {1};
            a.pgName = group ? group(g->rank) : "";
            WorkloadNode c;
            c.id = 1;
            c.name = "c";
            c.kind = NodeKind::COMP;
            c.durationNs = 1 + g->rank * skew;
            WorkloadNode b = a;
            b.id = 3;
            b.name = "coll2";
            b.dataDeps = {2};
            g->nodes = {c, a, b};
            g->BuildIndex();
            gs.push_back(g);
        }
        return gs;
    }

    void DoRun() override
    {
        auto topo2 = TopoDims({{DimType::RING, 4, 100, 200}, {DimType::SWITCH, 2, 50, 700}});
        SystemParams p = Params(2, 1, 10, 500, false);
        Check("mixed", topo2, p, Mixed(8));
        auto ring8 = Topo1D(DimType::RING, 8);
        SystemParams q = Params(4, 2, 10, 1600, false);
        for (uint64_t skew : {0, 7, 300, 5000})
        {
            Check("ring 8, all-reduce, skew " + std::to_string(skew),
                  ring8,
                  q,
                  Skewed(8, CollType::ALL_REDUCE, 3 << 20, skew));
            Check("ring 8, all-gather, skew " + std::to_string(skew),
                  ring8,
                  q,
                  Skewed(8, CollType::ALL_GATHER, 1 << 18, skew));
        }
        auto topo3 = TopoDims({{DimType::RING, 4, 200, 100},
                               {DimType::RING, 2, 100, 500},
                               {DimType::SWITCH, 2, 50, 1000}});
        SystemParams h = Params(8, 2, 10, 1600, false);
        h.optimization = CollOptimization::LOCAL_BW_AWARE;
        Check("3-D hierarchical all-reduce, skew 900",
              topo3,
              h,
              Skewed(16, CollType::ALL_REDUCE, 5 << 20, 900));
        Check("3-D reduce-scatter, skew 40",
              topo3,
              h,
              Skewed(16, CollType::REDUCE_SCATTER, 1 << 20, 40));
        // irregular groups: a flat ring routed over paths of 1-3 hops, so neighbours' steps
        // are posted before, between and after the arrivals
        std::map<std::string, std::vector<uint32_t>> groups{{"A", {0, 1, 5, 6}},
                                                            {"B", {2, 3, 4, 7}}};
        auto inA = [](uint32_t r) { return r == 0 || r == 1 || r == 5 || r == 6 ? "A" : "B"; };
        for (uint64_t skew : {0, 150, 2000})
        {
            Check("irregular groups, all-reduce, skew " + std::to_string(skew),
                  topo2,
                  q,
                  Skewed(8, CollType::ALL_REDUCE, 1 << 20, skew, inA),
                  groups);
        }
        CheckAdmission();
        // a second all-reduce on line 0 only: that line's chunks reach dimension 1 late, so
        // its dimension-1 rings start with lags, and some steps are posted between a
        // message's arrival and the end of its processing (slow local memory: long
        // reduction delays)
        for (double lmbw : {1.0, 10.0})
        {
            auto t44 = TopoDims({{DimType::RING, 4, 100, 200}, {DimType::RING, 4, 50, 700}});
            SystemParams z = Params(2, 1, 10, lmbw, false);
            Graphs gl;
            for (const auto& base : CollGraphs(16, CollType::ALL_REDUCE, 1 << 20))
            {
                auto g = std::make_shared<WorkloadGraph>(*base);
                if (g->rank < 4)
                {
                    WorkloadNode l0 = g->nodes[0];
                    l0.id = 2;
                    l0.name = "Z";
                    l0.commSize = 1 << 16;
                    l0.pgName = "L0";
                    g->nodes.insert(g->nodes.begin(), l0); // issued first
                    g->BuildIndex();
                }
                gl.push_back(g);
            }
            Check("lagging line, local memory " + std::to_string(int(lmbw)) + " GB/s",
                  t44,
                  z,
                  gl,
                  {{"L0", {0, 1, 2, 3}}});
        }
    }

    /**
     * Two collectives issued in opposite orders on even and odd NPUs with one slot per
     * dimension: chunks are admitted when a peer's first message arrives (the first step
     * of a phase is never folded, so the admission happens at the arrival time).
     */
    void CheckAdmission()
    {
        auto topo2 = TopoDims({{DimType::RING, 4, 100, 200}, {DimType::SWITCH, 2, 50, 700}});
        SystemParams z = Params(4, 1, 10, 100, false);
        z.scheduling = SchedulingPolicy::LIFO;
        Graphs go;
        for (uint32_t r = 0; r < 8; ++r)
        {
            auto g = std::make_shared<WorkloadGraph>();
            g->file = "order." + std::to_string(r);
            g->rank = r;
            for (int k = 0; k < 2; ++k)
            {
                WorkloadNode a;
                a.id = k + 1;
                const bool x = (k == 0) == (r % 2 == 0);
                a.name = x ? "X" : "Y";
                a.kind = NodeKind::COMM_COLL;
                a.collType = CollType::ALL_REDUCE;
                a.commSize = x ? (1 << 20) : (3 << 20);
                g->nodes.push_back(a);
            }
            g->BuildIndex();
            go.push_back(g);
        }
        Check("chunks admitted on a peer's first message", topo2, z, go);
    }
};

/**
 * ns-3 event count with batching, closed form: a 1-chunk ring all-reduce on
 * n NPUs has 2(n-1) steps; on the analytical backend each ring message after
 * the first step is one item (its arrival folded with the receiver's
 * processing), the first step's messages two (arrival, then processing), and
 * all NPUs run in lock step, so each time is one batch: 2(n-1) + 1 batches,
 * plus the n application start events.
 */
class BatchingCountCase : public TestCase
{
  public:
    BatchingCountCase()
        : TestCase("EventBatching: one ns-3 event per distinct time")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 8;
        SystemParams p = Params(1, 1, 10, 0, false);
        uint64_t items0 = EventBatcher::GetItemCount();
        Observed on = RunObserved(true,
                                  Topo1D(DimType::RING, n),
                                  p,
                                  CollGraphs(n, CollType::ALL_REDUCE, 1 << 20));
        uint64_t items = EventBatcher::GetItemCount() - items0;
        Observed off = RunObserved(false,
                                   Topo1D(DimType::RING, n),
                                   p,
                                   CollGraphs(n, CollType::ALL_REDUCE, 1 << 20));
        NS_TEST_EXPECT_MSG_EQ(on.res.messages, 2 * n * (n - 1), "ring messages");
        // per message one item, the arrival folded with the processing; step 0: two
        NS_TEST_EXPECT_MSG_EQ(items, on.res.messages + n, "batched items");
        // unbatched: one ns-3 event per item plus ns-3's node/application start-up events
        NS_TEST_EXPECT_MSG_GT(off.res.events, items, "unbatched events");
        const uint64_t setup = off.res.events - items;
        NS_TEST_EXPECT_MSG_LT_OR_EQ(setup, 3 * n, "start-up events");
        NS_TEST_EXPECT_MSG_EQ(on.res.events, 2 * (n - 1) + 1 + setup, "ns-3 events with batching");
    }
};

class SystemBatchingTestSuite : public TestSuite
{
  public:
    SystemBatchingTestSuite()
        : TestSuite("astra-sim-system-batching", UNIT)
    {
        AddTestCase(new BatcherOrderCase(), TestCase::QUICK);
        AddTestCase(new BatchingIdentityCase(), TestCase::QUICK);
        AddTestCase(new FixedTimeShortcutsCase, TestCase::QUICK);
        AddTestCase(new BatchingCountCase(), TestCase::QUICK);
    }
};

SystemBatchingTestSuite g_systemBatchingTestSuite;

} // namespace
