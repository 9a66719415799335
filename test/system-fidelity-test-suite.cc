/*
 * Fidelity of the system layer against ASTRA-sim 2.0 on whole workloads:
 *
 * - the 8-NPU STG GPT trace (dp2-tp2-pp2, roofline system, 50 GB/s, 500 ns) on
 *   the Ring, FullyConnected and Switch networks with both analytical backends:
 *   every NPU's printed cycles and exposed communication equal the reference
 *   program's output (obtained by building ASTRA-sim 2.0 master 518bd51 from its
 *   public sources and running it on the same inputs; doc/validation.rst);
 * - each rule of the reference's workload feeder in isolation, against a closed
 *   form: a RECV holds no slot (and ReferenceHwLimits no longer deadlocks on it),
 *   ready nodes go by increasing id, compute times are truncated, nodes finished
 *   without an event start no new pass (and compat does not stall on them),
 *   BROADCAST is replayed;
 * - the fewer-algorithms-than-dimensions rule (compat: unlisted dimensions
 *   unused; default: the last listed algorithm repeats) with its warnings.
 */

#include "system-test-util.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/test.h"

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::systest;

namespace
{

/// A per-NPU graph under construction (ids as given, file order as added).
struct Builder
{
    std::shared_ptr<WorkloadGraph> g = std::make_shared<WorkloadGraph>();

    WorkloadNode& Add(uint64_t id, NodeKind k, std::vector<uint64_t> deps = {})
    {
        WorkloadNode n;
        n.id = id;
        n.kind = k;
        n.name = std::string(NodeKindName(k)) + "_" + std::to_string(id);
        n.dataDeps = deps;
        g->nodes.push_back(n);
        return g->nodes.back();
    }

    std::shared_ptr<const WorkloadGraph> Done(uint32_t rank)
    {
        g->rank = rank;
        g->file = "synthetic." + std::to_string(rank);
        g->BuildIndex();
        return g;
    }
};

/// Warning counts and first messages seen during a run (AstraSimHelper::Run resets them)
struct SeenWarnings
{
    std::map<std::string, uint64_t> count;    //!< by cause
    std::map<std::string, std::string> first; //!< by cause
};

/// Run, recording the warnings of the run before the scenario forgets them
AstraRunResult
RunSeen(std::shared_ptr<const Topology> topo,
        const SystemParams& p,
        const Graphs& gs,
        SeenWarnings& seen,
        AstraRunOptions o = AstraRunOptions())
{
    auto inner = o.hook;
    o.hook = [&seen, inner](Ptr<SystemContext> ctx,
                            const std::vector<Ptr<AstraSimApplication>>& a) {
        if (inner)
        {
            inner(ctx, a);
        }
        Simulator::ScheduleDestroy([&seen]() {
            for (const auto& c : Warnings::GetCauses())
            {
                seen.count[c.first] = c.second;
                seen.first[c.first] = Warnings::GetFirstMessage(c.first);
            }
        });
    };
    // warnings of the set-up (before the hook) count too: they are still there at the end
    return AstraSimHelper::Run(topo, p, gs, o);
}

/// One reference output of the STG trace: per NPU finish and exposed communication.
struct StgExpect
{
    const char* backend;
    DimType topology;
    const char* name;
    int64_t finish[8];
    int64_t exposed[8];
};

/**
 * The reference's printed "sys[i] finished, F cycles, exposed communication E
 * cycles." on the STG trace (AstraSim_Analytical_Congestion_Unaware / _Aware,
 * system Ring_4chunks.json with roofline-enabled 1, 8 NPUs, 50 GB/s, 500 ns).
 */
const StgExpect kStg[] = {
    {"analytical",
     DimType::RING,
     "Ring",
     {5257290, 5257290, 5257290, 5257290, 3547024, 3547024, 3547024, 3547024},
     {4929098, 4929098, 4929098, 4929098, 3217528, 3217528, 3217528, 3217528}},
    {"analytical",
     DimType::FULLY_CONNECTED,
     "FullyConnected",
     {4995506, 4995506, 4995506, 4995506, 3304392, 3304392, 3304392, 3304392},
     {4667314, 4667314, 4667314, 4667314, 2974896, 2974896, 2974896, 2974896}},
    {"analytical",
     DimType::SWITCH,
     "Switch",
     {5303290, 5303290, 5303290, 5303290, 3581024, 3581024, 3581024, 3581024},
     {4975098, 4975098, 4975098, 4975098, 3251528, 3251528, 3251528, 3251528}},
    {"flow",
     DimType::RING,
     "Ring",
     {7178082, 7178289, 7178789, 7178289, 4818432, 4818639, 4819139, 4818639},
     {6849890, 6850097, 6850597, 6850097, 4488936, 4489143, 4489643, 4489143}},
    {"flow",
     DimType::FULLY_CONNECTED,
     "FullyConnected",
     {4995506, 4995506, 4995506, 4995506, 3304392, 3304392, 3304392, 3304392},
     {4667314, 4667314, 4667314, 4667314, 2974896, 2974896, 2974896, 2974896}},
    {"flow",
     DimType::SWITCH,
     "Switch",
     {9564050, 9564050, 9564050, 9564050, 6347688, 6347688, 6347688, 6347688},
     {9235858, 9235858, 9235858, 9235858, 6018192, 6018192, 6018192, 6018192}},
};

/// The STG system: Ring_4chunks.json with roofline-enabled 1
SystemParams
StgParams(bool compat)
{
    SystemParams p = AstraSimHelper::LoadSystemParams(
        GetReferenceDir() + "/astra-sim/examples/system/native_collectives/Ring_4chunks.json");
    p.rooflineEnabled = true;
    p.compat = compat;
    return p;
}

AstraRunResult
RunStg(const std::string& backend, DimType t, bool compat, bool hwLimits)
{
    AstraRunOptions o;
    o.backend = backend;
    o.commGroups = AstraSimHelper::LoadCommGroups(GetReferenceDir() +
                                                  "/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2.json");
    o.referenceHwLimits = hwLimits;
    return AstraSimHelper::Run(Topo1D(t, 8, 50, 500),
                               StgParams(compat),
                               RefGraphs("stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2", 8),
                               o);
}

/// The STG trace in compat mode: every NPU's two printed numbers equal the reference's
class StgReferenceCase : public TestCase
{
  public:
    StgReferenceCase(const StgExpect& e)
        : TestCase(std::string("STG dp2-tp2-pp2 = the reference's output (") + e.backend + ", " +
                   e.name + ")"),
          m_e(e)
    {
    }

  private:
    void DoRun() override
    {
        auto r = RunStg(m_e.backend, m_e.topology, true, false);
        NS_TEST_ASSERT_MSG_EQ(r.error, "", "no error");
        NS_TEST_ASSERT_MSG_EQ(r.unfinished.empty(), true, "every NPU finished");
        for (uint32_t i = 0; i < 8; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(r.finishNs[i], m_e.finish[i], "sys[" << i << "] cycles");
            NS_TEST_EXPECT_MSG_EQ(r.finishNs[i] - r.stats[i].compute.GetNanoSeconds(),
                                  m_e.exposed[i],
                                  "sys[" << i << "] exposed communication");
        }
    }

    StgExpect m_e;
};

/// ReferenceHwLimits in the default model finishes the STG trace on every backend
class HwLimitsNoDeadlockCase : public TestCase
{
  public:
    HwLimitsNoDeadlockCase()
        : TestCase("ReferenceHwLimits: the STG trace finishes (RECVs hold no slot)")
    {
    }

  private:
    void DoRun() override
    {
        for (std::string be : {"analytical", "flow"})
        {
            auto r = RunStg(be, DimType::RING, false, true);
            NS_TEST_EXPECT_MSG_EQ(r.error, "", be);
            NS_TEST_EXPECT_MSG_EQ(r.unfinished.empty(), true, be << ": every NPU finished");
            // one COMP at a time: the time computing is the sum of the COMP times (without
            // the limit, COMPs overlap and it is less)
            const auto graphs = RefGraphs("stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2", 8);
            const SystemParams p = StgParams(false);
            for (uint32_t i = 0; i < 8; ++i)
            {
                int64_t sum = 0;
                for (const auto& n : graphs[i]->nodes)
                {
                    sum += n.kind == NodeKind::COMP
                               ? AstraSimApplication::ComputeTime(n, p).GetNanoSeconds()
                               : 0;
                }
                NS_TEST_EXPECT_MSG_EQ(r.stats[i].compute.GetNanoSeconds(),
                                      sum,
                                      be << ": NPU " << i << " computes one COMP at a time");
            }
        }
    }
};

/**
 * A RECV ready at t = 0 must not hold the communication slot. NPU 0: RECV
 * (from 1) and an all-reduce, both ready at 0; NPU 1: COMP 1000 ns -> SEND to
 * 0, and the all-reduce. With the slot held by the RECV, NPU 0's all-reduce
 * waits for the SEND, which waits on NPU 1 for the all-reduce: a deadlock.
 * Without: both all-reduces run at t = 0 (time X, one ring all-reduce of 2
 * NPUs), NPU 1's SEND follows at X, and NPU 0 finishes at X + T(SEND).
 */
class RecvHoldsNoSlotCase : public TestCase
{
  public:
    RecvHoldsNoSlotCase()
        : TestCase("a RECV holds no slot; closed form with the reference feeder")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t arBytes = 1 << 20;
        const uint64_t p2pBytes = 100000;
        const double B = Bpns(50); // bytes per ns
        for (bool compat : {false, true})
        {
            Graphs gs;
            {
                Builder b;
                auto& r = b.Add(1, NodeKind::COMM_RECV);
                r.commSrc = 1;
                r.commSize = p2pBytes;
                r.commTag = 5;
                auto& c = b.Add(2, NodeKind::COMM_COLL);
                c.name = "ar";
                c.collType = CollType::ALL_REDUCE;
                c.commSize = arBytes;
                gs.push_back(b.Done(0));
            }
            {
                Builder b;
                b.Add(1, NodeKind::COMP).durationNs = 1000;
                auto& s = b.Add(2, NodeKind::COMM_SEND, {1});
                s.commDst = 0;
                s.commSize = p2pBytes;
                s.commTag = 5;
                auto& c = b.Add(3, NodeKind::COMM_COLL);
                c.name = "ar";
                c.collType = CollType::ALL_REDUCE;
                c.commSize = arBytes;
                gs.push_back(b.Done(1));
            }
            SystemParams p = Params(1, 1, 10, 0, compat);
            AstraRunOptions o;
            o.referenceHwLimits = true;
            auto res = AstraSimHelper::Run(Topo1D(DimType::RING, 2), p, gs, o);
            NS_TEST_ASSERT_MSG_EQ(res.unfinished.empty(), true, "no deadlock, compat " << compat);
            // ring all-reduce of 2 NPUs, one chunk: 2 steps of m = size / 2
            const double m = arBytes / 2.0;
            int64_t x;
            int64_t tSend;
            if (compat)
            {
                // (2N-2)(d + T) + d, T = trunc(500 + m / B); no reduction cost (local-mem-bw 0)
                const int64_t t = static_cast<int64_t>(500 + m / B);
                x = 2 * (10 + t) + 10;
                tSend = static_cast<int64_t>(500 + p2pBytes / B);
            }
            else
            {
                // default: 2 (T + d), T rounded
                x = 2 * (std::llround(500 + m / B) + 10);
                tSend = std::llround(500 + p2pBytes / B);
            }
            NS_TEST_ASSERT_MSG_EQ(res.records.size(), 1u, "one collective");
            NS_TEST_EXPECT_MSG_EQ(res.records[0].start.GetNanoSeconds(), 0, "both issue at 0");
            NS_TEST_EXPECT_MSG_EQ(res.records[0].end.GetNanoSeconds(),
                                  x,
                                  "the all-reduce, compat " << compat);
            // the SEND completes (both sides) when it has arrived
            NS_TEST_EXPECT_MSG_EQ(res.finishNs[0], x + tSend, "NPU 0: then the SEND");
            NS_TEST_EXPECT_MSG_EQ(res.finishNs[1], x + tSend, "NPU 1: then the SEND");
        }
    }
};

/// Ready nodes are issued by increasing node id, not in file order (reference feeder)
class IdOrderCase : public TestCase
{
  public:
    IdOrderCase()
        : TestCase("reference feeder: ready nodes by increasing id")
    {
    }

  private:
    static void OnStart(std::vector<uint64_t>* v, uint32_t npu, uint64_t id)
    {
        if (npu == 0)
        {
            v->push_back(id);
        }
    }

    void DoRun() override
    {
        for (bool compat : {false, true})
        {
            Graphs gs;
            for (uint32_t r = 0; r < 2; ++r)
            {
                // file order 9, 4, 6; 6 depends on 4
                Builder b;
                b.Add(9, NodeKind::COMP).durationNs = 3000;
                b.Add(4, NodeKind::COMP).durationNs = 1000;
                b.Add(6, NodeKind::COMP, {4}).durationNs = 500;
                gs.push_back(b.Done(r));
            }
            std::vector<uint64_t> order;
            AstraRunOptions o;
            o.referenceHwLimits = true;
            o.hook = [&order](Ptr<SystemContext>, const std::vector<Ptr<AstraSimApplication>>& a) {
                a[0]->TraceConnectWithoutContext("NodeStart", MakeBoundCallback(&OnStart, &order));
            };
            auto res =
                AstraSimHelper::Run(Topo1D(DimType::RING, 2), Params(1, 1, 10, 0, compat), gs, o);
            NS_TEST_ASSERT_MSG_EQ(order.size(), 3u, "three nodes");
            NS_TEST_EXPECT_MSG_EQ(order[0], 4u, "4 before 9 (both ready at 0)");
            NS_TEST_EXPECT_MSG_EQ(order[1], 6u, "6 before 9 (both ready at 1000)");
            NS_TEST_EXPECT_MSG_EQ(order[2], 9u, "9 last");
            NS_TEST_EXPECT_MSG_EQ(res.finishNs[0], 4500, "serial: 1000 + 500 + 3000");
        }
        // without the limits every ready node runs at once
        Graphs gs;
        for (uint32_t r = 0; r < 2; ++r)
        {
            Builder b;
            b.Add(9, NodeKind::COMP).durationNs = 3000;
            b.Add(4, NodeKind::COMP).durationNs = 1000;
            b.Add(6, NodeKind::COMP, {4}).durationNs = 500;
            gs.push_back(b.Done(r));
        }
        auto res = AstraSimHelper::Run(Topo1D(DimType::RING, 2), Params(1, 1, 10, 0, false), gs);
        NS_TEST_EXPECT_MSG_EQ(res.finishNs[0], 3000, "overlapped: max(3000, 1500)");
    }
};

/// Compute times: the reference truncates its roofline, replays 0 as 1 ns, skips tensor 0
class ComputeTruncationCase : public TestCase
{
  public:
    ComputeTruncationCase()
        : TestCase("compat compute: truncated roofline, replay 0 -> 1 ns, no tensor_size")
    {
    }

  private:
    void DoRun() override
    {
        SystemParams p;
        p.peakPerfTflops = 100;  // 1e14 FLOP/s
        p.localMemBwGBps = 1000; // 1e12 B/s
        p.rooflineEnabled = true;
        WorkloadNode n;
        n.kind = NodeKind::COMP;
        n.numOps = 100060000; // 1000.6 ns at peak (intensity 100060 > 100: compute bound)
        n.hasNumOps = true;
        n.tensorSize = 1000;
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::ComputeTime(n, p).GetNanoSeconds(),
                              1001,
                              "default: rounded");
        p.compat = true;
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::ComputeTime(n, p).GetNanoSeconds(),
                              1000,
                              "compat: truncated");
        n.tensorSize = 100060000; // intensity 1: memory bound, 1e12 FLOP/s -> 100060 ns
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::CompatComputeNs(n, p), 100060, "memory bound");
        n.tensorSize = 0;
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::CompatComputeNs(n, p),
                              -1,
                              "no tensor_size: skipped");
        p.rooflineEnabled = false;
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::CompatComputeNs(n, p), 1, "replay of 0: 1 ns");
        n.durationMicros = 3;
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::CompatComputeNs(n, p), 3000, "replay");
        n.isCpuOp = true;
        p.rooflineEnabled = true;
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::CompatComputeNs(n, p),
                              3000,
                              "a CPU node replays under the roofline");
    }
};

/**
 * Nodes the reference finishes without an event (METADATA, INVALID, roofline
 * COMP without tensor_size) start no new pass over the ready set; compat
 * issues what they freed with the next completion. If nothing else runs (the
 * reference would never finish), compat issues them at once and warns.
 */
class ZeroTimeNodesCase : public TestCase
{
  public:
    ZeroTimeNodesCase()
        : TestCase("compat: nodes finished without an event start no new pass")
    {
    }

  private:
    void DoRun() override
    {
        Warnings::SetStream(nullptr);
        Warnings::Reset();
        SystemParams p = Params(1, 1, 10, 0, true);
        {
            // METADATA 1 -> COMP 2 (1000 ns), COMP 3 (500 ns) independent: at t = 0 the pass
            // issues 1 (finished at once, frees 2) and 3; 2 waits for 3's completion
            Graphs gs;
            for (uint32_t r = 0; r < 2; ++r)
            {
                Builder b;
                b.Add(1, NodeKind::METADATA);
                b.Add(2, NodeKind::COMP, {1}).durationNs = 1000;
                b.Add(3, NodeKind::COMP).durationNs = 500;
                gs.push_back(b.Done(r));
            }
            SeenWarnings seen;
            auto res = RunSeen(Topo1D(DimType::RING, 2), p, gs, seen);
            NS_TEST_EXPECT_MSG_EQ(res.finishNs[0], 1500, "2 starts when 3 ends: 500 + 1000");
            NS_TEST_EXPECT_MSG_EQ(seen.count["compat-feeder-stall"], 0u, "no stall");
        }
        {
            // METADATA 1 -> COMP 2: nothing else runs; the reference would stall
            Graphs gs;
            for (uint32_t r = 0; r < 2; ++r)
            {
                Builder b;
                b.Add(1, NodeKind::METADATA);
                b.Add(2, NodeKind::COMP, {1}).durationNs = 1000;
                gs.push_back(b.Done(r));
            }
            SeenWarnings seen;
            auto res = RunSeen(Topo1D(DimType::RING, 2), p, gs, seen);
            NS_TEST_EXPECT_MSG_EQ(res.finishNs[0], 1000, "issued at once");
            NS_TEST_EXPECT_MSG_EQ(seen.count["compat-feeder-stall"], 2u, "warned per NPU");
        }
        {
            // BROADCAST is replayed (700 ns; 0 -> 1 ns), no message
            Graphs gs;
            for (uint32_t r = 0; r < 2; ++r)
            {
                Builder b;
                auto& c = b.Add(1, NodeKind::COMM_COLL);
                c.name = "bc";
                c.collType = CollType::BROADCAST;
                c.commSize = 1 << 20;
                c.durationNs = r == 0 ? 700 : 0;
                gs.push_back(b.Done(r));
            }
            auto res = AstraSimHelper::Run(Topo1D(DimType::RING, 2), p, gs);
            NS_TEST_EXPECT_MSG_EQ(res.finishNs[0], 700, "replayed");
            NS_TEST_EXPECT_MSG_EQ(res.finishNs[1], 1, "replayed 0 as 1 ns");
            NS_TEST_EXPECT_MSG_EQ(res.messages, 0u, "no network traffic");
        }
        Warnings::Reset();
        Warnings::SetStream(&std::cerr);
    }
};

/**
 * One algorithm listed for a 2-D network [Ring 4, Ring 2]. Compat (as the
 * reference): a collective on all NPUs runs on dimension 0 only:
 * (2N-2)(d + T) + d with N = 4, m = size / 4, T = trunc(500 + m / B) (no
 * reduction cost). Default: the listed ring repeats on dimension 1 (baseline:
 * all-reduce on dimension 0 then on dimension 1, each (2n-2)(T + d), T
 * rounded). Both warn, the default naming each dimension's algorithm.
 */
class FewerAlgorithmsCase : public TestCase
{
  public:
    FewerAlgorithmsCase()
        : TestCase("fewer algorithms than dimensions: compat as the reference, default says")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = TopoDims({{DimType::RING, 4, 50, 500}, {DimType::RING, 2, 50, 500}});
        const uint64_t bytes = 1 << 20;
        const double B = Bpns(50);
        const std::string cause = "fewer-algorithms-than-dimensions:all-reduce-implementation";
        Warnings::SetStream(nullptr);
        for (bool compat : {true, false})
        {
            Warnings::Reset();
            SystemParams p = Params(1, 1, 10, 0, compat);
            p.optimization = CollOptimization::BASELINE;
            SeenWarnings seen;
            auto res = RunSeen(topo, p, CollGraphs(8, CollType::ALL_REDUCE, bytes), seen);
            NS_TEST_ASSERT_MSG_EQ(res.unfinished.empty(), true, "finished");
            NS_TEST_EXPECT_MSG_EQ(seen.count[cause], 1u, "warned once, compat " << compat);
            if (compat)
            {
                const int64_t t = static_cast<int64_t>(500 + bytes / 4.0 / B);
                NS_TEST_EXPECT_MSG_EQ(AllFinishAt(res, 6 * (10 + t) + 10),
                                      true,
                                      "dimension 0 only: " << res.MaxFinish());
                const bool says = seen.first[cause].find("not used") != std::string::npos;
                NS_TEST_EXPECT_MSG_EQ(says,
                                      true,
                                      "says the dimension is unused: " << seen.first[cause]);
            }
            else
            {
                const int64_t t0 = std::llround(500 + bytes / 4.0 / B);
                const int64_t t1 = std::llround(500 + bytes / 2.0 / B);
                NS_TEST_EXPECT_MSG_EQ(AllFinishAt(res, 6 * (t0 + 10) + 2 * (t1 + 10)),
                                      true,
                                      "both dimensions: " << res.MaxFinish());
                const bool says = seen.first[cause].find("dimension 0 ring, dimension 1 ring") !=
                                  std::string::npos;
                NS_TEST_EXPECT_MSG_EQ(says, true, seen.first[cause]);
            }
        }
        Warnings::Reset();
        Warnings::SetStream(&std::cerr);
    }
};

/**
 * Multi-dimensional networks in compat mode, congestion-unaware (the
 * reference's congestion-aware backend supports 1-D topologies only): the
 * shipped 8-NPU microbenchmarks with Ring_4chunks.json (one algorithm listed:
 * dimension 1 unused) and with two rings listed, on [Ring 4, Ring 2] (50 GB/s,
 * 500 ns) and [Ring 4 at 100 GB/s, 200 ns; Switch 2 at 25 GB/s, 700 ns]: every
 * NPU's cycles equal the reference program's.
 */
class MultiDimReferenceCase : public TestCase
{
  public:
    MultiDimReferenceCase()
        : TestCase("compat on 2-D networks = the reference's output (congestion-unaware)")
    {
    }

  private:
    void DoRun() override
    {
        struct Row
        {
            const char* coll;
            CollType type;
            int64_t r4r2[2]; //!< one algorithm listed, two listed
            int64_t r4s2[2];
        };

        const Row rows[] = {
            {"all_reduce", CollType::ALL_REDUCE, {43000, 43040}, {21160, 26620}},
            {"all_gather", CollType::ALL_GATHER, {64744, 128742}, {31852, 72329}},
            {"reduce_scatter", CollType::REDUCE_SCATTER, {22240, 23430}, {11320, 14020}},
            {"all_to_all", CollType::ALL_TO_ALL, {41560, 44521}, {19720, 30138}},
        };
        auto r4r2 = TopoDims({{DimType::RING, 4, 50, 500}, {DimType::RING, 2, 50, 500}});
        auto r4s2 = TopoDims({{DimType::RING, 4, 100, 200}, {DimType::SWITCH, 2, 25, 700}});
        Warnings::SetStream(nullptr);
        for (const auto& row : rows)
        {
            const std::string mb = std::string("astra-sim/examples/workload/microbenchmarks/") +
                                   row.coll + "/8npus_1MB/" + row.coll;
            for (int listed = 1; listed <= 2; ++listed)
            {
                SystemParams p = StgParams(true);
                p.rooflineEnabled = false;
                p.allReduce.resize(listed);
                p.allGather.resize(listed);
                p.reduceScatter.resize(listed);
                p.allToAll.resize(listed);
                auto a = AstraSimHelper::Run(r4r2, p, RefGraphs(mb, 8));
                NS_TEST_EXPECT_MSG_EQ(AllFinishAt(a, row.r4r2[listed - 1]),
                                      true,
                                      row.coll << " [Ring 4, Ring 2], " << listed
                                               << " listed: " << a.MaxFinish());
                auto b = AstraSimHelper::Run(r4s2, p, RefGraphs(mb, 8));
                NS_TEST_EXPECT_MSG_EQ(AllFinishAt(b, row.r4s2[listed - 1]),
                                      true,
                                      row.coll << " [Ring 4, Switch 2], " << listed
                                               << " listed: " << b.MaxFinish());
            }
        }
        Warnings::Reset();
        Warnings::SetStream(&std::cerr);
    }
};

class SystemFidelityTestSuite : public TestSuite
{
  public:
    SystemFidelityTestSuite()
        : TestSuite("astra-sim-system-fidelity", UNIT)
    {
        for (const auto& e : kStg)
        {
            AddTestCase(new StgReferenceCase(e), TestCase::QUICK);
        }
        AddTestCase(new HwLimitsNoDeadlockCase, TestCase::QUICK);
        AddTestCase(new RecvHoldsNoSlotCase, TestCase::QUICK);
        AddTestCase(new IdOrderCase, TestCase::QUICK);
        AddTestCase(new ComputeTruncationCase, TestCase::QUICK);
        AddTestCase(new ZeroTimeNodesCase, TestCase::QUICK);
        AddTestCase(new FewerAlgorithmsCase, TestCase::QUICK);
        AddTestCase(new MultiDimReferenceCase, TestCase::QUICK);
    }
};

SystemFidelityTestSuite g_systemFidelityTestSuite;

} // namespace
