/*
 * The seams of the system layer: scenarios run one after the other in one
 * process see nothing of each other (EventBatcher and configuration stamps are
 * per simulation); backends come from NetworkBackendFactory by name; the
 * collective algorithms are registered strategy objects whose fast-path
 * description agrees with their steps; the CollectivePlanner's placements and
 * warnings; the CustomCollective interpreter and the shared dependency
 * resolution (DependencyTable).
 */

#include "system-test-util.h"

#include "ns3/analytical-backend.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/collective-planner.h"
#include "ns3/custom-collective.h"
#include "ns3/event-batcher.h"
#include "ns3/flow-backend.h"
#include "ns3/network-backend-factory.h"
#include "ns3/roce-backend.h"
#include "ns3/test.h"
#include "ns3/workload-graph.h"

#include <algorithm>
#include <sstream>

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::systest;

namespace
{

/// \return true if \p f throws an exception of type E whose what() contains \p text
template <class E, class F>
bool
ThrowsWith(F f, const std::string& text)
{
    try
    {
        f();
    }
    catch (const E& e)
    {
        return std::string(e.what()).find(text) != std::string::npos;
    }
    catch (...)
    {
        return false;
    }
    return false;
}

/**
 * 8 NPUs (Ring 4 x Switch 2): compute of different lengths, a 2-chunk
 * all-reduce, SEND/RECV around a ring, a reduce-scatter on an irregular group
 * and an all-gather on dimension 0.
 */
Graphs
WorkloadA()
{
    const uint32_t n = 8;
    Graphs gs;
    for (uint32_t r = 0; r < n; ++r)
    {
        auto g = std::make_shared<WorkloadGraph>();
        g->file = "a." + std::to_string(r);
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
        c.durationNs = 700 + 130 * (r % 3);
        const uint64_t comp = add(c, {});
        WorkloadNode ar;
        ar.kind = NodeKind::COMM_COLL;
        ar.collType = CollType::ALL_REDUCE;
        ar.commSize = 3 << 19;
        const uint64_t a = add(ar, {comp});
        WorkloadNode snd;
        snd.kind = NodeKind::COMM_SEND;
        snd.commDst = static_cast<int32_t>((r + 1) % n);
        snd.commSize = 40000;
        snd.commTag = 3;
        const uint64_t s = add(snd, {a});
        WorkloadNode rcv;
        rcv.kind = NodeKind::COMM_RECV;
        rcv.commSrc = static_cast<int32_t>((r + n - 1) % n);
        rcv.commSize = 40000;
        rcv.commTag = 3;
        const uint64_t rv = add(rcv, {comp});
        WorkloadNode rs;
        rs.kind = NodeKind::COMM_COLL;
        rs.collType = CollType::REDUCE_SCATTER;
        rs.commSize = 1 << 18;
        rs.pgName = (r == 0 || r == 1 || r == 5 || r == 6) ? "A" : "B";
        const uint64_t rsid = add(rs, {s, rv});
        WorkloadNode ag;
        ag.kind = NodeKind::COMM_COLL;
        ag.collType = CollType::ALL_GATHER;
        ag.commSize = 8192;
        ag.involvedDim = {true, false};
        add(ag, {rsid});
        g->BuildIndex();
        gs.push_back(g);
    }
    return gs;
}

const std::map<std::string, std::vector<uint32_t>> kGroupsA{{"A", {0, 1, 5, 6}},
                                                            {"B", {2, 3, 4, 7}}};

/**
 * Two scenarios run one after the other in one process give the same results
 * as each alone: scenario A (analytical, then flow, batching on) is run, then
 * a different scenario that is stopped half-way with batched items, flows and
 * messages still pending, then A again; every message (with its time and in
 * its order), every collective end, the records, the finish times and the
 * ns-3 event counts must be identical.
 */
class ScenarioIsolationCase : public TestCase
{
  public:
    ScenarioIsolationCase()
        : TestCase("Scenarios run one after the other see nothing of each other")
    {
    }

  private:
    /// A different scenario (3-D, LIFO, 8 chunks, two concurrent collectives), stopped at
    /// \p stopNs on \p backend
    Observed Other(const std::string& backend, int64_t stopNs)
    {
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
            w->nodes.push_back(second);
            w->BuildIndex();
            gs.push_back(w);
        }
        return RunObserved(true, topo3, q, gs, backend, true, {}, [stopNs](Ptr<SystemContext>) {
            Simulator::Stop(NanoSeconds(stopNs));
        });
    }

    void Same(const Observed& a, const Observed& b, const std::string& what)
    {
        NS_TEST_EXPECT_MSG_EQ(a.res.unfinished.empty(), true, what << ": finished");
        NS_TEST_EXPECT_MSG_EQ(a.res.error, "", what << ": no error");
        NS_TEST_EXPECT_MSG_EQ((a.res.finishNs == b.res.finishNs), true, what << ": finish times");
        NS_TEST_EXPECT_MSG_EQ(a.res.messages, b.res.messages, what << ": messages");
        NS_TEST_EXPECT_MSG_EQ(a.messages.empty(), false, what << ": traced");
        NS_TEST_EXPECT_MSG_EQ((a.messages == b.messages), true, what << ": message sequence");
        NS_TEST_EXPECT_MSG_EQ((a.ends == b.ends), true, what << ": collective-end sequence");
        NS_TEST_EXPECT_MSG_EQ(a.res.events, b.res.events, what << ": ns-3 events");
        NS_TEST_EXPECT_MSG_EQ(a.res.records.size(), b.res.records.size(), what << ": records");
        for (size_t i = 0; i < a.res.records.size() && i < b.res.records.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(a.res.records[i].end, b.res.records[i].end, what);
            NS_TEST_EXPECT_MSG_EQ(a.res.records[i].placement, b.res.records[i].placement, what);
        }
    }

    void DoRun() override
    {
        Warnings::SetStream(nullptr);
        auto topo = TopoDims({{DimType::RING, 4, 100, 200}, {DimType::SWITCH, 2, 50, 700}});
        const SystemParams p = Params(2, 1, 10, 500, false);
        const Observed an1 = RunObserved(true, topo, p, WorkloadA(), "analytical", true, kGroupsA);
        NS_TEST_EXPECT_MSG_EQ(EventBatcher::IsEnabled(), false, "Destroy disables the batcher");
        const Observed fl1 = RunObserved(true, topo, p, WorkloadA(), "flow", true, kGroupsA);

        // in between: another scenario left half-way (its pending items must never run)
        const Observed x = Other("analytical", 20000);
        NS_TEST_EXPECT_MSG_EQ(x.res.unfinished.empty(), false, "the other scenario was cut short");
        NS_TEST_EXPECT_MSG_EQ(EventBatcher::IsEnabled(), false, "Destroy disables the batcher");
        const Observed an2 = RunObserved(true, topo, p, WorkloadA(), "analytical", true, kGroupsA);
        const Observed y = Other("flow", 30000);
        NS_TEST_EXPECT_MSG_EQ(y.res.unfinished.empty(), false, "the other scenario was cut short");
        const Observed fl2 = RunObserved(true, topo, p, WorkloadA(), "flow", true, kGroupsA);
        Same(an1, an2, "analytical before and after");
        Same(fl1, fl2, "flow before and after");

        // the other scenario, alone and after A: the same up to its stop
        const Observed x2 = Other("analytical", 20000);
        NS_TEST_EXPECT_MSG_EQ((x.messages == x2.messages), true, "cut-short scenario repeats");
        NS_TEST_EXPECT_MSG_EQ(x.res.events, x2.res.events, "cut-short scenario: events");

        // the two backends agree where they must: message count and collective placements
        NS_TEST_EXPECT_MSG_EQ(an1.res.messages, fl1.res.messages, "same messages on both backends");
        Warnings::SetStream(&std::cerr);
    }
};

/**
 * A Delivered trace on the analytical backend makes its fixed-time interface
 * decline SendUnscheduled: the system layer then sends through the sink path,
 * with the same message times, collective ends and finish times.
 */
class FixedTimeDeclineCase : public TestCase
{
  public:
    FixedTimeDeclineCase()
        : TestCase("A backend declining the fixed-time path changes no time")
    {
    }

  private:
    static void Count(uint64_t* n, const NetMessage&, Time)
    {
        ++*n;
    }

    void DoRun() override
    {
        Warnings::SetStream(nullptr);
        auto topo = TopoDims({{DimType::RING, 4, 100, 200}, {DimType::SWITCH, 2, 50, 700}});
        const SystemParams p = Params(4, 2, 10, 500, false);
        const Observed fast = RunObserved(true, topo, p, WorkloadA(), "analytical", true, kGroupsA);
        uint64_t delivered = 0;
        const Observed traced = RunObserved(true,
                                            topo,
                                            p,
                                            WorkloadA(),
                                            "analytical",
                                            true,
                                            kGroupsA,
                                            [&delivered](Ptr<SystemContext> ctx) {
                                                ctx->GetBackend()->TraceConnectWithoutContext(
                                                    "Delivered",
                                                    MakeBoundCallback(&Count, &delivered));
                                            });
        NS_TEST_EXPECT_MSG_EQ(traced.res.unfinished.empty(), true, "finished");
        NS_TEST_EXPECT_MSG_EQ(delivered, traced.res.messages, "the trace saw every message");
        NS_TEST_EXPECT_MSG_EQ((fast.res.finishNs == traced.res.finishNs), true, "finish times");
        NS_TEST_EXPECT_MSG_EQ((SortedLines(fast.messages) == SortedLines(traced.messages)),
                              true,
                              "message times");
        NS_TEST_EXPECT_MSG_EQ((SortedLines(fast.ends) == SortedLines(traced.ends)),
                              true,
                              "collective end times");
        // one item per folded message without the trace, two with it
        NS_TEST_EXPECT_MSG_LT(fast.res.events, traced.res.events, "ns-3 events");
        Warnings::SetStream(&std::cerr);
    }
};

/// NetworkBackendFactory: names, errors, attachment, registration.
class BackendFactoryCase : public TestCase
{
  public:
    BackendFactoryCase()
        : TestCase("NetworkBackendFactory creates backends by name")
    {
    }

  private:
    void DoRun() override
    {
        const auto names = NetworkBackendFactory::GetNames();
        NS_TEST_ASSERT_MSG_EQ((names.size() >= 3), true, "three built-in backends");
        NS_TEST_EXPECT_MSG_EQ(names[0] + "," + names[1] + "," + names[2],
                              "analytical,flow,roce",
                              "built-in names");
        NS_TEST_EXPECT_MSG_EQ(
            ThrowsWith<InputError>([] { NetworkBackendFactory::CheckName("analytcal"); },
                                   "did you mean 'analytical'"),
            true,
            "unknown name: InputError with a did-you-mean");
        NS_TEST_EXPECT_MSG_EQ(
            ThrowsWith<InputError>([] { NetworkBackendFactory::CheckName("packet"); },
                                   "known: analytical, flow, roce"),
            true,
            "unknown name lists the known ones");
        NS_TEST_EXPECT_MSG_EQ(ThrowsWith<InputError>(
                                  [] {
                                      AstraSimScenario sc;
                                      sc.SetBackend("flw");
                                  },
                                  "did you mean 'flow'"),
                              true,
                              "the scenario checks through the factory");
        NS_TEST_EXPECT_MSG_EQ(NetworkBackendFactory::NeedsFabric("roce"), true, "roce");
        NS_TEST_EXPECT_MSG_EQ(NetworkBackendFactory::NeedsFabric("flow"), false, "flow");

        // 2 hops of 500 ns at 50 GB/s (53.687 bytes/ns): 65539 B -> 1000 + 1220.76 ns
        auto topo = Topo1D(DimType::SWITCH, 4, 50, 500);
        NetMessage m;
        m.src = 0;
        m.dst = 3;
        m.bytes = 65539;
        for (bool compat : {false, true})
        {
            Ptr<NetworkBackend> b = NetworkBackendFactory::Create("analytical", topo, compat);
            Ptr<AnalyticalBackend> a = DynamicCast<AnalyticalBackend>(b);
            NS_TEST_ASSERT_MSG_NE(a, nullptr, "an AnalyticalBackend");
            NS_TEST_EXPECT_MSG_EQ(a->GetNpuCount(), 4, "topology attached");
            NS_TEST_EXPECT_MSG_EQ(a->GetMessageTime(m).GetNanoSeconds(),
                                  (compat ? 2220 : 2221),
                                  "Compat attribute applied (truncate vs round)");
            NS_TEST_EXPECT_MSG_EQ((b->GetFixedTimeInterface() != nullptr), true, "fixed times");
        }
        Ptr<NetworkBackend> f = NetworkBackendFactory::Create("flow", topo, true);
        NS_TEST_ASSERT_MSG_NE(DynamicCast<FlowBackend>(f), nullptr, "a FlowBackend");
        BooleanValue compat;
        f->GetAttribute("Compat", compat);
        NS_TEST_EXPECT_MSG_EQ(compat.Get(), true, "Compat attribute applied");
        NS_TEST_EXPECT_MSG_EQ(f->GetNpuCount(), 4, "topology attached");
        NS_TEST_EXPECT_MSG_EQ((f->GetFixedTimeInterface() == nullptr), true, "times not fixed");
        Ptr<NetworkBackend> r = NetworkBackendFactory::Create("roce", topo, false);
        NS_TEST_ASSERT_MSG_NE(DynamicCast<RoceBackend>(r), nullptr, "a RoceBackend");
        NS_TEST_EXPECT_MSG_EQ(r->GetNpuCount(), 0, "no fabric attached by the factory");
        NS_TEST_EXPECT_MSG_EQ(
            ThrowsWith<InputError>([&] { AstraSimHelper::CreateBackend("roce", topo, false); },
                                   "needs a fabric"),
            true,
            "CreateBackend cannot attach a fabric");

        // a program registers its own backend (here: the analytical one under another name)
        NetworkBackendFactory::Register(
            "test-analytical",
            AnalyticalBackend::GetTypeId(),
            [](NetworkBackend& b, std::shared_ptr<const Topology> t, bool) {
                static_cast<AnalyticalBackend&>(b).SetTopology(std::move(t));
            },
            "the analytical backend under a test name");
        Ptr<NetworkBackend> t = NetworkBackendFactory::Create("test-analytical", topo, false);
        NS_TEST_EXPECT_MSG_EQ(t->GetName(), "analytical", "registered type created");
        NS_TEST_EXPECT_MSG_EQ(t->GetNpuCount(), 4, "registered attach ran");
        NS_TEST_EXPECT_MSG_NE(NetworkBackendFactory::Describe().find("test-analytical: "),
                              std::string::npos,
                              "listed in the help text");
        NS_TEST_EXPECT_MSG_EQ(ThrowsWith<std::invalid_argument>(
                                  [] {
                                      NetworkBackendFactory::Register("bad",
                                                                      Object::GetTypeId(),
                                                                      nullptr,
                                                                      "not a backend");
                                  },
                                  "is not a NetworkBackend"),
                              true,
                              "only NetworkBackend types register");
        Simulator::Destroy();
    }
};

/**
 * The algorithm registry: names round-trip through AlgoSpec::Parse; where
 * an algorithm can run; for every algorithm that declares uniform steps (the
 * step engine's fast path), GetStep agrees with the declaration at every step.
 */
class AlgorithmRegistryCase : public TestCase
{
  public:
    AlgorithmRegistryCase()
        : TestCase("Collective algorithms are registered strategies")
    {
    }

  private:
    void DoRun() override
    {
        const auto names = CollectiveAlgorithm::GetNames();
        std::string all;
        for (const auto& n : names)
        {
            all += n + " ";
        }
        NS_TEST_EXPECT_MSG_EQ(all,
                              "ring direct halvingDoubling doubleBinaryTree inSwitch ",
                              "registry");
        for (const auto& n : names)
        {
            const AlgoSpec s = AlgoSpec::Parse(n);
            NS_TEST_EXPECT_MSG_EQ(std::string(AlgoKindName(s.kind)), n, "name round trip");
            NS_TEST_EXPECT_MSG_EQ(s.flattened, false, n);
            const std::string one =
                "one" + std::string(1, char(std::toupper(static_cast<unsigned char>(n[0])))) +
                n.substr(1);
            if (CollectiveAlgorithm::Get(s.kind)->CanFlatten())
            {
                NS_TEST_EXPECT_MSG_EQ(AlgoSpec::Parse(one).flattened, true, one);
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(ThrowsWith<InputError>([&one] { AlgoSpec::Parse(one); },
                                                             "unknown algorithm '" + one + "'"),
                                      true,
                                      one + " has no flattened variant");
            }
            NS_TEST_EXPECT_MSG_EQ(std::string(CollectiveAlgorithm::Get(s.kind)->GetName()),
                                  n,
                                  "registered under its kind");
        }
        NS_TEST_EXPECT_MSG_EQ(AlgoSpec::Parse("direct8").window, 8, "directN window");
        NS_TEST_EXPECT_MSG_EQ(ThrowsWith<InputError>([] { AlgoSpec::Parse("Direct8"); }, "Direct8"),
                              true,
                              "names are case sensitive, as in ASTRA-sim");
        NS_TEST_EXPECT_MSG_EQ((CollectiveAlgorithm::Get(AlgoKind::CUSTOM) == nullptr),
                              true,
                              "custom is interpreted, not a step generator");
        NS_TEST_EXPECT_MSG_EQ(std::string(AlgoKindName(AlgoKind::CUSTOM)), "custom", "custom");
        NS_TEST_EXPECT_MSG_EQ(ThrowsWith<InputError>([] { AlgoSpec::Parse("halvingDubling"); },
                                                     "did you mean 'halvingDoubling'"),
                              true,
                              "unknown name: did-you-mean");
        NS_TEST_EXPECT_MSG_EQ(
            ThrowsWith<InputError>([] { AlgoSpec::Parse("direct8x"); }, "direct8x"),
            true,
            "bad directN");

        const CollectiveAlgorithm* hd = CollectiveAlgorithm::Get(AlgoKind::HALVING_DOUBLING);
        const CollectiveAlgorithm* dbt = CollectiveAlgorithm::Get(AlgoKind::DOUBLE_BINARY_TREE);
        NS_TEST_EXPECT_MSG_EQ(hd->CanRun(PhaseOp::ALL_REDUCE, 8, nullptr), true, "HD on 8");
        NS_TEST_EXPECT_MSG_EQ(hd->CanRun(PhaseOp::ALL_REDUCE, 6, nullptr), false, "HD on 6");
        NS_TEST_EXPECT_MSG_EQ(dbt->CanRun(PhaseOp::ALL_REDUCE, 6, nullptr), true, "DBT AR");
        NS_TEST_EXPECT_MSG_EQ(dbt->CanRun(PhaseOp::ALL_GATHER, 8, nullptr), false, "DBT AG");

        // uniform-step declarations agree with the generated steps
        const PhaseOp ops[] = {PhaseOp::ALL_REDUCE,
                               PhaseOp::REDUCE_SCATTER,
                               PhaseOp::ALL_GATHER,
                               PhaseOp::ALL_TO_ALL};
        uint32_t uniform = 0;
        for (const auto& name : names)
        {
            PhaseAlgorithm pa;
            pa.spec = AlgoSpec::Parse(name);
            pa.steps = CollectiveAlgorithm::Get(pa.spec.kind);
            for (PhaseOp op : ops)
            {
                for (uint32_t n = 2; n <= 9; ++n)
                {
                    if (!pa.steps->CanRun(op, n, nullptr))
                    {
                        continue;
                    }
                    for (uint32_t rank = 0; rank < n; ++rank)
                    {
                        const uint64_t bytes = 1000003;
                        UniformStep u;
                        if (!pa.steps->GetUniformStep(op, n, rank, bytes, u))
                        {
                            continue;
                        }
                        ++uniform;
                        Step st;
                        const uint32_t steps = pa.NumSteps(op, n, rank);
                        for (uint32_t k = 0; k < steps; ++k)
                        {
                            pa.GetStep(op, n, rank, bytes, k, st);
                            const bool ok = st.sends.size() == 1 && st.sends[0].peer == u.peer &&
                                            st.sends[0].bytes == u.bytes &&
                                            st.sends[0].tagStep < 0 && st.recvs == 1 &&
                                            st.reduce == (k < u.reduceSteps);
                            NS_TEST_EXPECT_MSG_EQ(ok,
                                                  true,
                                                  name << " " << PhaseOpName(op) << " n=" << n
                                                       << " rank " << rank << " step " << k);
                        }
                    }
                }
            }
        }
        // ring declares uniform steps for the four operations on n = 2..9
        NS_TEST_EXPECT_MSG_EQ(uniform, 4 * (2 + 3 + 4 + 5 + 6 + 7 + 8 + 9), "ring is uniform");
    }
};

/// The planner: placements, member counts, anchors, fallbacks and their warnings.
class PlannerCase : public TestCase
{
  public:
    PlannerCase()
        : TestCase("CollectivePlanner places, decomposes and chooses algorithms")
    {
    }

  private:
    static std::shared_ptr<const std::vector<uint32_t>> Group(std::vector<uint32_t> v)
    {
        std::sort(v.begin(), v.end());
        return std::make_shared<const std::vector<uint32_t>>(v);
    }

    void DoRun() override
    {
        Warnings::Reset();
        Warnings::SetStream(nullptr);
        // 4 x 2 x 3 = 24 NPUs; dimension 1 is the fastest, dimension 2 the slowest
        const std::vector<DimensionSpec> dims{{DimType::RING, 4, 100, 200},
                                              {DimType::SWITCH, 2, 400, 700},
                                              {DimType::RING, 3, 50, 900}};
        SystemParams p;
        p.allReduce = {AlgoSpec::Parse("ring"),
                       AlgoSpec::Parse("direct"),
                       AlgoSpec::Parse("halvingDoubling")};
        CollectivePlanner pl;
        pl.Setup(dims, p);
        NS_TEST_ASSERT_MSG_EQ(pl.GetNpuCount(), 24, "NPUs");
        NS_TEST_EXPECT_MSG_EQ(pl.Coord(13, 0), 1, "13 = 1 + 4 * (1 + 2 * 1)");
        NS_TEST_EXPECT_MSG_EQ(pl.Coord(13, 2), 1, "coordinate along dimension 2");
        NS_TEST_EXPECT_MSG_EQ(pl.WithCoord(13, 2, 2), 21, "13 + 8");

        std::vector<uint32_t> all(24);
        for (uint32_t i = 0; i < 24; ++i)
        {
            all[i] = i;
        }
        CollectiveRequest ar;
        ar.name = "ar";
        CollectivePlan world = pl.Plan(ar, 13, Group(all));
        // halvingDoubling on dimension 2 (3 members) falls back to ring, once per instance
        NS_TEST_EXPECT_MSG_EQ(world.Placement(),
                              "ALL_REDUCE@dim0:ring ALL_REDUCE@dim1:direct ALL_REDUCE@dim2:ring",
                              "baseline: all-reduce per dimension, per-dimension algorithms");
        NS_TEST_EXPECT_MSG_EQ(world.MemberCount(), 24, "members");
        NS_TEST_EXPECT_MSG_EQ(world.anchor, 0, "anchor of the world");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("halvingDoubling-falls-back-to-ring"),
                              0,
                              "NPU 13 is not its line's first member");
        pl.Plan(ar, 1, Group(all));
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("halvingDoubling-falls-back-to-ring"),
                              1,
                              "the line's first member warns");

        // localBWAware: reduce-scatter up by bandwidth (1, 0, 2), all-reduce on 2, gather down
        SystemParams q = p;
        q.optimization = CollOptimization::LOCAL_BW_AWARE;
        q.allReduce = {AlgoSpec{}};
        q.reduceScatter = {AlgoSpec{}};
        q.allGather = {AlgoSpec{}};
        CollectivePlanner bw;
        bw.Setup(dims, q);
        NS_TEST_EXPECT_MSG_EQ(bw.Plan(ar, 5, Group(all)).Placement(),
                              "REDUCE_SCATTER@dim1:ring REDUCE_SCATTER@dim0:ring "
                              "ALL_REDUCE@dim2:ring ALL_GATHER@dim0:ring ALL_GATHER@dim1:ring",
                              "localBWAware decomposition");

        // involved_dim: only dimensions 0 and 2; the instance is my 4 x 3 sub-grid
        CollectiveRequest inv = ar;
        inv.involvedDim = {true, false, true};
        CollectivePlan sub = pl.Plan(inv, 13, Group(all));
        NS_TEST_EXPECT_MSG_EQ(sub.Placement(), "ALL_REDUCE@dim0:ring ALL_REDUCE@dim2:ring", "");
        NS_TEST_EXPECT_MSG_EQ(sub.MemberCount(), 12, "4 x 3");
        NS_TEST_EXPECT_MSG_EQ(sub.anchor, 4, "smallest NPU with 13's dimension-1 coordinate");

        // an explicit line along dimension 2 and an irregular group
        CollectiveRequest g = ar;
        g.group = "line";
        CollectivePlan line = pl.Plan(g, 9, Group({1, 9, 17}));
        NS_TEST_EXPECT_MSG_EQ(line.Placement(), "ALL_REDUCE@dim2:ring", "a line");
        NS_TEST_EXPECT_MSG_EQ(line.phases[0].myIndex, 1, "9 is the second member");
        g.group = "odd";
        for (uint32_t npu : {0, 3, 5})
        {
            CollectivePlan irr = pl.Plan(g, npu, Group({0, 3, 5}));
            NS_TEST_EXPECT_MSG_EQ(irr.Placement(), "ALL_REDUCE@flat:ring", "flattened");
            NS_TEST_EXPECT_MSG_EQ(irr.anchor, 0, "anchor: the smallest member");
        }
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("irregular-group-flattened"),
                              1,
                              "one warning per instance");
        NS_TEST_EXPECT_MSG_NE(Warnings::GetFirstMessage("irregular-group-flattened").find("'odd'"),
                              std::string::npos,
                              "the warning names the group");

        // rooted operations over several dimensions run one phase per dimension
        CollectiveRequest bc = ar;
        bc.type = CollType::BROADCAST;
        NS_TEST_EXPECT_MSG_EQ(pl.Plan(bc, 2, Group(all)).Placement(),
                              "BROADCAST@dim0:ring BROADCAST@dim1:ring BROADCAST@dim2:ring",
                              "rooted: hierarchical");

        // the custom kind without traces is an input error
        SystemParams c = p;
        AlgoSpec custom;
        custom.kind = AlgoKind::CUSTOM;
        c.allReduce = {custom};
        CollectivePlanner cp;
        cp.Setup(dims, c);
        NS_TEST_EXPECT_MSG_EQ(
            ThrowsWith<InputError>([&] { cp.Plan(ar, 0, Group(all)); }, "no custom ALL_REDUCE"),
            true,
            "custom without traces");
        Warnings::Reset();
        Warnings::SetStream(&std::cerr);
    }
};

/// The custom-collective interpreter, action by action.
class CustomCollectiveCase : public TestCase
{
  public:
    CustomCollectiveCase()
        : TestCase("CustomCollective runs a trace in dependency order")
    {
    }

  private:
    static std::string Show(const std::vector<CustomCollective::Action>& v)
    {
        std::ostringstream os;
        for (const auto& a : v)
        {
            if (a.kind == CustomCollective::Action::SEND)
            {
                os << "send" << a.node << ">" << a.peerRank << ":" << a.bytes << "#" << a.tag
                   << " ";
            }
            else
            {
                os << "after" << a.node << "@" << a.delay.GetNanoSeconds() << " ";
            }
        }
        return os.str();
    }

    void DoRun() override
    {
        Warnings::Reset();
        Warnings::SetStream(nullptr);
        WorkloadGraph g;
        g.file = "custom.0";
        g.nodes.reserve(4); // the pointers below stay valid
        auto add = [&](NodeKind k, std::vector<uint64_t> deps, std::vector<uint64_t> ctrl = {}) {
            WorkloadNode n;
            n.id = 10 + g.nodes.size();
            n.kind = k;
            n.dataDeps = deps;
            n.ctrlDeps = ctrl;
            g.nodes.push_back(n);
            return &g.nodes.back();
        };
        WorkloadNode* s = add(NodeKind::COMM_SEND, {}); // node 0, id 10
        s->commDst = 2;
        s->commSize = 0; // sent as 1 byte
        s->commTag = 0x12345;
        WorkloadNode* r = add(NodeKind::COMM_RECV, {}, {99}); // node 1, id 11: dangling ctrl
        r->commSrc = 1;
        r->commTag = 5;
        WorkloadNode* c = add(NodeKind::COMP, {10, 11}); // node 2, id 12
        c->durationNs = 100;
        add(NodeKind::METADATA, {12}); // node 3, id 13
        g.BuildIndex();

        CustomCollective cc(g, 3, 0xFF, 1.5);
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("custom-trace-dangling-dependency"),
                              1,
                              "dangling dependency dropped with a warning");
        NS_TEST_EXPECT_MSG_EQ(cc.IsFinished(), false, "four nodes");
        std::vector<CustomCollective::Action> out;
        cc.Run(out);
        NS_TEST_EXPECT_MSG_EQ(Show(out), "send0>2:1#69 ", "the SEND, tag masked");
        NS_TEST_EXPECT_MSG_EQ((cc.GetAwaitedRanks() == std::vector<int32_t>{1}), true, "RECV");
        out.clear();
        cc.Arrive(1, 4); // wrong tag
        cc.Arrive(2, 5); // wrong rank
        cc.MatchReceives(out);
        NS_TEST_EXPECT_MSG_EQ(Show(out), "", "no match");
        cc.Arrive(1, 5);
        cc.MatchReceives(out);
        NS_TEST_EXPECT_MSG_EQ(Show(out), "after1@0 ", "matched: the RECV finishes now");
        NS_TEST_EXPECT_MSG_EQ(cc.GetAwaitedRanks().empty(), true, "nothing posted");
        out.clear();
        NS_TEST_EXPECT_MSG_EQ(cc.NodeDone(1, out), false, "not last");
        NS_TEST_EXPECT_MSG_EQ(Show(out), "", "COMP still waits for the SEND");
        NS_TEST_EXPECT_MSG_EQ(cc.NodeDone(0, out), false, "not last");
        NS_TEST_EXPECT_MSG_EQ(Show(out), "after2@150 ", "COMP: 100 ns x compute scale 1.5");
        out.clear();
        NS_TEST_EXPECT_MSG_EQ(cc.NodeDone(2, out), false, "not last");
        NS_TEST_EXPECT_MSG_EQ(Show(out), "after3@0 ", "METADATA finishes at once");
        out.clear();
        NS_TEST_EXPECT_MSG_EQ(cc.NodeDone(3, out), true, "last node");
        NS_TEST_EXPECT_MSG_EQ(cc.IsFinished(), true, "finished");

        // a SEND outside the group is an input error
        s->commDst = 3;
        CustomCollective bad(g, 3, 0xFF, 1.0);
        NS_TEST_EXPECT_MSG_EQ(
            ThrowsWith<InputError>([&] { bad.Run(out); }, "comm_dst 3 outside the group of 3"),
            true,
            "comm_dst checked");
        Warnings::Reset();
        Warnings::SetStream(&std::cerr);
    }
};

/// DependencyTable: counts, dependents in node order, dangling dependencies listed.
class DependencyTableCase : public TestCase
{
  public:
    DependencyTableCase()
        : TestCase("DependencyTable resolves data and control dependencies")
    {
    }

  private:
    void DoRun() override
    {
        WorkloadGraph g;
        g.file = "deps";
        for (uint64_t id : {5, 7, 9, 11})
        {
            WorkloadNode n;
            n.id = id;
            g.nodes.push_back(n);
        }
        g.nodes[1].dataDeps = {5};
        g.nodes[2].dataDeps = {5, 7};
        g.nodes[2].ctrlDeps = {5, 42};
        g.nodes[3].ctrlDeps = {9};
        g.BuildIndex();
        const DependencyTable d = DependencyTable::Build(g);
        NS_TEST_EXPECT_MSG_EQ((d.pending == std::vector<uint32_t>{0, 1, 3, 1}),
                              true,
                              "counts (5 named twice by node 2 counts twice)");
        NS_TEST_ASSERT_MSG_EQ(d.childStart.size(), 5, "n + 1 offsets");
        auto deps = [&](uint32_t i) {
            return std::vector<uint32_t>(d.children.begin() + d.childStart[i],
                                         d.children.begin() + d.childStart[i + 1]);
        };
        NS_TEST_EXPECT_MSG_EQ((deps(0) == std::vector<uint32_t>{1, 2, 2}), true, "of node 0");
        NS_TEST_EXPECT_MSG_EQ((deps(1) == std::vector<uint32_t>{2}), true, "of node 1");
        NS_TEST_EXPECT_MSG_EQ((deps(2) == std::vector<uint32_t>{3}), true, "of node 2");
        NS_TEST_EXPECT_MSG_EQ(deps(3).empty(), true, "of node 3");
        NS_TEST_ASSERT_MSG_EQ(d.dangling.size(), 1, "one dangling dependency");
        NS_TEST_EXPECT_MSG_EQ(d.dangling[0].node, 2, "named by node 2");
        NS_TEST_EXPECT_MSG_EQ(d.dangling[0].dep, 42, "id 42");
        NS_TEST_EXPECT_MSG_EQ(d.dangling[0].ctrl, true, "a control dependency");
    }
};

class SystemSeamsTestSuite : public TestSuite
{
  public:
    SystemSeamsTestSuite()
        : TestSuite("astra-sim-system-seams", UNIT)
    {
        AddTestCase(new ScenarioIsolationCase(), TestCase::QUICK);
        AddTestCase(new FixedTimeDeclineCase(), TestCase::QUICK);
        AddTestCase(new BackendFactoryCase(), TestCase::QUICK);
        AddTestCase(new AlgorithmRegistryCase(), TestCase::QUICK);
        AddTestCase(new PlannerCase(), TestCase::QUICK);
        AddTestCase(new CustomCollectiveCase(), TestCase::QUICK);
        AddTestCase(new DependencyTableCase(), TestCase::QUICK);
    }
};

SystemSeamsTestSuite g_systemSeamsTestSuite;

} // namespace
