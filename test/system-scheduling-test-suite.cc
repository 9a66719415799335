/*
 * Scheduling and the root-based collectives of the system layer (default model):
 *
 * - Themis inter-dimension scheduling on an asymmetric 2-D load: the chunk
 *   orders it chooses, and the all-reduce time between the closed-form bounds
 *   of the busiest dimension, faster than the baseline order;
 * - intra-dimension smallest-chunk-first;
 * - REDUCE, GATHER, SCATTER, BROADCAST and BARRIER over several dimensions,
 *   hierarchically per dimension, with the root taken from the trace;
 * - the slot gate's latency (collective-gate-latency-ns).
 */

#include "system-test-util.h"

#include "ns3/astra-config.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/test.h"

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::systest;

namespace
{

const double kB = 64;                           // bytes per ns
const double kGbps = 64.0 * 1e9 / 1073741824.0; // -> exactly 64 bytes/ns
const double kLat = 100;
const int64_t kD = 10;

/// Switch time of m bytes: 2 hops of latency, serialization once (default rounding)
int64_t
T(uint64_t m)
{
    return std::llround(2 * kLat + double(m) / kB);
}

/// NPU 0's dimension of every message, per chunk (from the message tag)
struct ChunkDims
{
    std::map<uint32_t, std::vector<int32_t>> dims; // chunk -> dimension sequence (runs collapsed)

    static void Sent(ChunkDims* o, const NetMessage& m)
    {
        if (m.src != 0)
        {
            return;
        }
        const uint32_t chunk = static_cast<uint32_t>((m.tag >> 30) & 1023);
        auto& v = o->dims[chunk];
        if (v.empty() || v.back() != m.dim)
        {
            v.push_back(m.dim);
        }
    }
};

/**
 * Themis on [Switch 4, Switch 4] at equal bandwidth (64 B/ns, 100 ns, d = 10,
 * no reduction cost; localBWAware), an all-reduce cut into chunks of c bytes,
 * one chunk in flight per dimension. A phase of 3 ring steps of c/4-byte
 * messages lasts P_b = 3 (T(c/4) + d), one of c/16-byte messages P_s =
 * 3 (T(c/16) + d). The baseline order gives every chunk its large phases on
 * dimension 0 (reduce-scatter of c, all-gather of c/4) and only the small
 * all-reduce of c/4 (2 P_s) on dimension 1. Themis sends every other chunk to
 * dimension 1 first (whose estimated load is then the smaller).
 *
 * Two chunks, exactly: baseline: chunk 1's reduce-scatter follows chunk 0's
 * on dimension 0, and chunk 0's all-gather waits for it: 4 P_b. Themis: both
 * chunks' large reduce-scatters run at once (one per dimension), then both
 * small phases, then both large all-gathers: 2 P_b + 2 P_s.
 *
 * Sixteen chunks: each time lies above its busiest dimension's busy time (one
 * chunk at a time per dimension): baseline 16 x 2 P_b, Themis 8 x 2 (P_b +
 * P_s); Themis is faster.
 */
class ThemisCase : public TestCase
{
  public:
    ThemisCase()
        : TestCase("Themis: per-chunk dimension orders, all-reduce closed form, gain")
    {
    }

  private:
    AstraRunResult Run(InterDimScheduling s, ChunkDims& obs, uint64_t bytes, uint32_t splits)
    {
        SystemParams p = Params(splits, 1, kD, 0, false);
        p.optimization = CollOptimization::LOCAL_BW_AWARE;
        p.interDim = s;
        AstraRunOptions o;
        o.hook = [&obs](Ptr<SystemContext> ctx, const std::vector<Ptr<AstraSimApplication>>&) {
            ctx->TraceConnectWithoutContext("MessageSent",
                                            MakeBoundCallback(&ChunkDims::Sent, &obs));
        };
        auto topo =
            TopoDims({{DimType::SWITCH, 4, kGbps, kLat}, {DimType::SWITCH, 4, kGbps, kLat}});
        return AstraSimHelper::Run(topo, p, CollGraphs(16, CollType::ALL_REDUCE, bytes), o);
    }

    void DoRun() override
    {
        const uint64_t c = 1 << 20; // chunk bytes
        const int64_t pb = 3 * (T(c / 4) + kD);
        const int64_t ps = 3 * (T(c / 16) + kD);
        {
            ChunkDims base;
            ChunkDims themis;
            auto rb = Run(InterDimScheduling::BASELINE, base, 2 * c, 2);
            auto rt = Run(InterDimScheduling::THEMIS, themis, 2 * c, 2);
            NS_TEST_ASSERT_MSG_EQ(rb.unfinished.empty() && rt.unfinished.empty(), true, "finished");
            NS_TEST_EXPECT_MSG_EQ((themis.dims[0] == std::vector<int32_t>{0, 1, 0}),
                                  true,
                                  "themis chunk 0: dimension 0 first");
            NS_TEST_EXPECT_MSG_EQ((themis.dims[1] == std::vector<int32_t>{1, 0, 1}),
                                  true,
                                  "themis chunk 1: dimension 1 first");
            NS_TEST_EXPECT_MSG_EQ(AllFinishAt(rb, 4 * pb), true, "baseline: " << rb.MaxFinish());
            NS_TEST_EXPECT_MSG_EQ(AllFinishAt(rt, 2 * pb + 2 * ps),
                                  true,
                                  "themis: " << rt.MaxFinish());
        }
        const uint32_t S = 16;
        ChunkDims base;
        ChunkDims themis;
        auto rb = Run(InterDimScheduling::BASELINE, base, S * c, S);
        auto rt = Run(InterDimScheduling::THEMIS, themis, S * c, S);
        NS_TEST_ASSERT_MSG_EQ(rb.unfinished.empty() && rt.unfinished.empty(), true, "finished");
        for (uint32_t k = 0; k < S; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ((base.dims[k] == std::vector<int32_t>{0, 1, 0}),
                                  true,
                                  "baseline chunk " << k);
            const std::vector<int32_t> want =
                k % 2 == 0 ? std::vector<int32_t>{0, 1, 0} : std::vector<int32_t>{1, 0, 1};
            NS_TEST_EXPECT_MSG_EQ((themis.dims[k] == want), true, "themis chunk " << k);
        }
        NS_TEST_EXPECT_MSG_GT_OR_EQ(rb.MaxFinish(), int64_t(S) * 2 * pb, "baseline bound");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(rt.MaxFinish(), int64_t(S / 2) * 2 * (pb + ps), "themis bound");
        NS_TEST_EXPECT_MSG_LT(rt.MaxFinish(), rb.MaxFinish(), "themis is faster");
    }
};

/**
 * Intra-dimension smallest-chunk-first: three all-reduces X (1 MiB), Y (4 MiB),
 * Z (64 KiB) issued at t = 0 on a Ring of 4, one chunk each, one in flight,
 * FIFO policy. X starts alone; when it ends, FIFO runs Y then Z, smallest-first
 * Z then Y. Each alone takes f(s) = 6 (T(s/4) + d) (1 hop, no reduction cost).
 */
class SmallestFirstCase : public TestCase
{
  public:
    SmallestFirstCase()
        : TestCase("intra-dimension smallest chunk first")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t sizes[3] = {1 << 20, 4 << 20, 64 << 10};
        auto f = [](uint64_t s) { return 6 * (std::llround(kLat + double(s) / 4 / kB) + kD); };
        for (IntraDimScheduling intra :
             {IntraDimScheduling::FIFO, IntraDimScheduling::SMALLEST_FIRST})
        {
            Graphs gs;
            for (uint32_t r = 0; r < 4; ++r)
            {
                auto g = std::make_shared<WorkloadGraph>();
                g->rank = r;
                g->file = "synthetic." + std::to_string(r);
                for (uint32_t i = 0; i < 3; ++i)
                {
                    WorkloadNode n;
                    n.id = i + 1;
                    n.name = std::string(1, "XYZ"[i]);
                    n.kind = NodeKind::COMM_COLL;
                    n.collType = CollType::ALL_REDUCE;
                    n.commSize = sizes[i];
                    g->nodes.push_back(n);
                }
                g->BuildIndex();
                gs.push_back(g);
            }
            SystemParams p = Params(1, 1, kD, 0, false);
            p.scheduling = SchedulingPolicy::FIFO;
            p.intraDim = intra;
            auto r = AstraSimHelper::Run(Topo1D(DimType::RING, 4, kGbps, kLat), p, gs);
            NS_TEST_ASSERT_MSG_EQ(r.records.size(), 3u, "three collectives");
            std::map<std::string, int64_t> end;
            for (const auto& rec : r.records)
            {
                end[rec.name] = rec.end.GetNanoSeconds();
            }
            NS_TEST_EXPECT_MSG_EQ(end["X"], f(sizes[0]), "X first");
            const bool scf = intra == IntraDimScheduling::SMALLEST_FIRST;
            NS_TEST_EXPECT_MSG_EQ(end["Z"],
                                  f(sizes[0]) + f(sizes[2]) + (scf ? 0 : f(sizes[1])),
                                  "Z");
            NS_TEST_EXPECT_MSG_EQ(end["Y"],
                                  f(sizes[0]) + f(sizes[1]) + (scf ? f(sizes[2]) : 0),
                                  "Y");
        }
    }
};

/// The configuration keys select the strategies; modelled values warn not, misspellings fail
class SchedulingKeysCase : public TestCase
{
  public:
    SchedulingKeysCase()
        : TestCase("inter- and intra-dimension-scheduling keys take effect or are rejected")
    {
    }

  private:
    void DoRun() override
    {
        Warnings::SetStream(nullptr);
        Warnings::Reset();
        auto params = [](const std::string& json) {
            return ToSystemParams(ParseSystemConfigText(json, "s.json"));
        };
        NS_TEST_EXPECT_MSG_EQ((params("{}").interDim == InterDimScheduling::BASELINE),
                              true,
                              "default baseline");
        for (std::string v : {"themis", "offlineGreedy"})
        {
            auto p = params(R"({"inter-dimension-scheduling": ")" + v + "\"}");
            NS_TEST_EXPECT_MSG_EQ((p.interDim == InterDimScheduling::THEMIS), true, v);
        }

        for (std::string v : {"baseline", "ascending"})
        {
            auto p = params(R"({"inter-dimension-scheduling": ")" + v + "\"}");
            NS_TEST_EXPECT_MSG_EQ((p.interDim == InterDimScheduling::BASELINE), true, v);
        }
        for (std::string v : {"smallestFirst", "SCF"})

        {
            auto p = params(R"({"intra-dimension-scheduling": ")" + v + "\"}");
            NS_TEST_EXPECT_MSG_EQ((p.intraDim == IntraDimScheduling::SMALLEST_FIRST), true, v);
        }

        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("not-modelled:inter-dimension-scheduling") +
                                  Warnings::GetCount("not-modelled:intra-dimension-scheduling"),
                              0u,
                              "modelled values do not warn");
        std::string err;
        try
        {
            params(R"({"inter-dimension-scheduling": "themsi"})");
        }

        catch (const InputError& e)
        {
            err = e.what();
        }

        const bool hinted = err.find("did you mean 'themis'") != std::string::npos;
        NS_TEST_EXPECT_MSG_EQ(hinted, true, "a misspelling is an error: " << err);
        Warnings::Reset();
        Warnings::SetStream(&std::cerr);
    }
};

/**
 * Rooted collectives on [Switch 4, Switch 2] (NPU = c0 + 4 c1; 64 B/ns,
 * 100 ns, d = 10), root NPU 5 (c0 = 1, c1 = 1) from the trace (comm_src /
 * comm_dst), S = 1 MiB, one phase per dimension:
 *
 * SCATTER: dimension 0 on the root's line {5, 6, 7, 4}: the root sends S/4 to
 * 6, 7, 4, one after another on its uplink (ser0 = S/4 / B apart, T0 =
 * T(S/4)); dimension 1: each of them passes S/8 to its partner (T1 = T(S/8))
 * once it has its share. NPU 0 (partner of 4) finishes last: 2 ser0 + T0 + d
 * + T1 + d.
 *
 * GATHER: dimension 0 on every line to its member at c0 = 1 (each sends S:
 * T(S) + d), then dimension 1 from NPU 1 to the root (4S: T(4S) + d).
 *
 * BARRIER: dissemination on every line of each dimension: 2 + 1 rounds of
 * T(1) + d.
 */
class RootedHierarchicalCase : public TestCase
{
  public:
    RootedHierarchicalCase()
        : TestCase("REDUCE GATHER SCATTER BROADCAST BARRIER per dimension, root from the trace")
    {
    }

  private:
    static void Sent(std::map<int32_t, uint64_t>* bytes, const NetMessage& m)
    {
        (*bytes)[m.dim] += m.bytes;
    }

    AstraRunResult Run(CollType t, int32_t src, int32_t dst, std::map<int32_t, uint64_t>& bytes)
    {
        Graphs gs = CollGraphs(8, t, kS);
        for (auto& g : gs)
        {
            auto w = std::make_shared<WorkloadGraph>(*g);
            w->nodes[0].commSrc = src;
            w->nodes[0].commDst = dst;
            g = w;
        }
        AstraRunOptions o;
        o.hook = [&bytes](Ptr<SystemContext> ctx, const std::vector<Ptr<AstraSimApplication>>&) {
            ctx->TraceConnectWithoutContext("MessageSent", MakeBoundCallback(&Sent, &bytes));
        };
        auto topo =
            TopoDims({{DimType::SWITCH, 4, kGbps, kLat}, {DimType::SWITCH, 2, kGbps, kLat}});
        return AstraSimHelper::Run(topo, Params(1, 1, kD, 0, false), gs, o);
    }

    void DoRun() override
    {
        const int64_t ser0 = static_cast<int64_t>(kS / 4 / kB);
        const int64_t t0 = T(kS / 4);
        const int64_t t1 = T(kS / 8);
        {
            std::map<int32_t, uint64_t> b;
            auto r = Run(CollType::SCATTER, 5, -1, b);
            NS_TEST_ASSERT_MSG_EQ(r.unfinished.empty(), true, "scatter finishes");
            const int64_t want[8] = {2 * ser0 + t0 + 2 * kD + t1, // partner of 4
                                     2 * ser0 + t0 + t1 + kD,     // partner of the root
                                     t0 + 2 * kD + t1,            // partner of 6
                                     ser0 + t0 + 2 * kD + t1,     // partner of 7
                                     2 * ser0 + t0 + kD + t1,     // 3rd on the root's line
                                     2 * ser0 + t0 + t1,          // the root: sends acked
                                     t0 + kD + t1,                // 1st
                                     ser0 + t0 + kD + t1};        // 2nd
            for (uint32_t i = 0; i < 8; ++i)
            {
                NS_TEST_EXPECT_MSG_EQ(r.finishNs[i], want[i], "scatter: NPU " << i);
            }
            NS_TEST_EXPECT_MSG_EQ(b[0], 3 * kS / 4, "scatter: dimension 0 bytes");
            NS_TEST_EXPECT_MSG_EQ(b[1], 4 * kS / 8, "scatter: dimension 1 bytes");
        }
        {
            std::map<int32_t, uint64_t> b;
            auto r = Run(CollType::GATHER, -1, 5, b);
            NS_TEST_ASSERT_MSG_EQ(r.unfinished.empty(), true, "gather finishes");
            NS_TEST_EXPECT_MSG_EQ(r.finishNs[5], T(kS) + kD + T(4 * kS) + kD, "gather: root");
            NS_TEST_EXPECT_MSG_EQ(r.finishNs[1], T(kS) + kD + T(4 * kS), "gather: NPU 1");
            NS_TEST_EXPECT_MSG_EQ(r.finishNs[0], T(kS), "gather: a sender");
            NS_TEST_EXPECT_MSG_EQ(b[0], 6 * kS, "gather: dimension 0 bytes (2 lines x 3 x S)");
            NS_TEST_EXPECT_MSG_EQ(b[1], 4 * kS, "gather: dimension 1 bytes (one 4S)");
        }
        {
            std::map<int32_t, uint64_t> b;
            auto r = Run(CollType::BARRIER, -1, -1, b);
            NS_TEST_EXPECT_MSG_EQ(AllFinishAt(r, 3 * (T(1) + kD)),
                                  true,
                                  "barrier: 2 + 1 rounds: " << r.MaxFinish());
            NS_TEST_EXPECT_MSG_EQ(b[0], 8u * 2, "barrier: dimension 0, 2 rounds");
            NS_TEST_EXPECT_MSG_EQ(b[1], 8u * 1, "barrier: dimension 1, 1 round");
        }
        {
            // BROADCAST: dimension 0 on the root's line only (scatter of S/4 + ring
            // all-gather), then every pair along dimension 1 (S/2 + one ring step)
            std::map<int32_t, uint64_t> b;
            auto r = Run(CollType::BROADCAST, 5, -1, b);
            NS_TEST_ASSERT_MSG_EQ(r.unfinished.empty(), true, "broadcast finishes");
            NS_TEST_EXPECT_MSG_EQ(b[0], 3 * kS / 4 + 4 * 3 * kS / 4, "broadcast: dimension 0");
            NS_TEST_EXPECT_MSG_EQ(b[1], 4 * (kS / 2 + 2 * kS / 2), "broadcast: dimension 1");
            // REDUCE: dimension 0 on every line (ring reduce-scatter + shards to the line's
            // root), then dimension 1 between NPUs 1 and 5
            std::map<int32_t, uint64_t> rb;
            auto rr = Run(CollType::REDUCE, -1, 5, rb);
            NS_TEST_ASSERT_MSG_EQ(rr.unfinished.empty(), true, "reduce finishes");
            NS_TEST_EXPECT_MSG_EQ(rb[0], 2 * (4 * 3 * kS / 4 + 3 * kS / 4), "reduce: dimension 0");
            NS_TEST_EXPECT_MSG_EQ(rb[1], 2 * 1 * kS / 2 + kS / 2, "reduce: dimension 1");
        }
        // a root outside the group is an input error naming the collective
        Graphs gs = CollGraphs(2, CollType::BROADCAST, kS, "g");
        for (auto& g : gs)
        {
            auto w = std::make_shared<WorkloadGraph>(*g);
            w->nodes[0].commSrc = 3;
            g = w;
        }
        AstraRunOptions o;
        o.commGroups = {{"g", {0, 1}}};
        auto r = AstraSimHelper::Run(Topo1D(DimType::SWITCH, 4, kGbps, kLat),
                                     Params(1, 1, kD, 0, false),
                                     {gs[0],
                                      gs[1],
                                      CollGraphs(4, CollType::BARRIER, 1)[2],
                                      CollGraphs(4, CollType::BARRIER, 1)[3]},
                                     o);
        const bool named = r.error.find("root NPU 3") != std::string::npos;
        NS_TEST_EXPECT_MSG_EQ(named, true, "root outside the group: " << r.error);
    }

    static constexpr uint64_t kS = 1 << 20;
};

/**
 * collective-gate-latency-ns on a 4-NPU Ring (64 B/ns, 100 ns, d = 10), FIFO, one chunk
 * in flight: X (1 MiB) is issued by NPUs 0-2 at 0 and by NPU 3 after a COMP of c = 5 us;
 * Y (64 KiB) by every NPU at 0. A gate latency D delays each gate to the last member's
 * issue + D, so Y (its gate open at D) passes X (open at c + D) and
 * end(Y) = D + f(Y), end(X) = c + D + f(X), f(s) = 6 (round(100 + s/4/64) + 10): exact.
 * D = 0 is the instant gate (same ends with D = 0). The key is read and validated;
 * compat has no gate, so a gate latency there changes nothing and warns.
 */
class GateLatencyCase : public TestCase
{
  public:
    GateLatencyCase()
        : TestCase("collective-gate-latency-ns: gates open the latency after the last issue")
    {
    }

  private:
    static Graphs Make(int64_t c)
    {
        Graphs gs;
        for (uint32_t r = 0; r < 4; ++r)
        {
            auto g = std::make_shared<WorkloadGraph>();
            g->rank = r;
            g->file = "synthetic." + std::to_string(r);
            WorkloadNode comp;
            comp.id = 1;
            comp.name = "wait";
            comp.kind = NodeKind::COMP;
            comp.durationNs = r == 3 ? uint64_t(c) : 1;
            g->nodes.push_back(comp);
            WorkloadNode x;
            x.id = 2;
            x.name = "X";
            x.kind = NodeKind::COMM_COLL;
            x.collType = CollType::ALL_REDUCE;
            x.commSize = kX;
            if (r == 3)
            {
                x.dataDeps = {1};
            }
            g->nodes.push_back(x);
            WorkloadNode y = x;
            y.id = 3;
            y.name = "Y";
            y.commSize = kY;
            y.dataDeps.clear();
            g->nodes.push_back(y);
            g->BuildIndex();
            gs.push_back(g);
        }
        return gs;
    }

    void DoRun() override
    {
        auto f = [](uint64_t s) { return 6 * (std::llround(kLat + double(s) / 4 / kB) + kD); };
        const int64_t c = 5000;
        for (double d : {0.0, 700.0, 1500.0})
        {
            for (bool compat : {false, true})
            {
                std::ostringstream printed; // the run resets the counts at its end
                Warnings::SetStream(&printed);
                Warnings::Reset();
                SystemParams p = Params(1, 1, kD, 0, compat);
                p.scheduling = SchedulingPolicy::FIFO;
                p.gateLatencyNs = d;
                auto r = AstraSimHelper::Run(Topo1D(DimType::RING, 4, kGbps, kLat), p, Make(c));
                const bool warned =
                    printed.str().find("collective-gate-latency-ns") != std::string::npos;
                Warnings::Reset();
                Warnings::SetStream(&std::cerr);
                NS_TEST_ASSERT_MSG_EQ(r.error, "", "run");
                NS_TEST_ASSERT_MSG_EQ(r.records.size(), 2u, "two collectives");
                std::map<std::string, int64_t> end;
                for (const auto& rec : r.records)
                {
                    end[rec.name] = rec.end.GetNanoSeconds();
                }
                if (compat)
                {
                    // no gate: the latency has no effect (warned), the same ends as D = 0
                    NS_TEST_EXPECT_MSG_EQ(warned, (d > 0), "compat warns, D = " << d);
                    if (d == 0)
                    {
                        m_compatX = end["X"];
                        m_compatY = end["Y"];
                    }
                    NS_TEST_EXPECT_MSG_EQ(end["X"], m_compatX, "compat X, D = " << d);
                    NS_TEST_EXPECT_MSG_EQ(end["Y"], m_compatY, "compat Y, D = " << d);
                    continue;
                }
                const int64_t dn = std::llround(d);
                NS_TEST_EXPECT_MSG_EQ(end["Y"], dn + f(kY), "Y passes X, D = " << d);
                NS_TEST_EXPECT_MSG_EQ(end["X"], c + dn + f(kX), "X after c + D, D = " << d);
            }
        }
        // the key: read, and refused out of range
        auto params = [](const std::string& json) {
            return ToSystemParams(ParseSystemConfigText(json, "s.json"));
        };
        NS_TEST_EXPECT_MSG_EQ(params("{}").gateLatencyNs, 0, "default: instant gate");
        NS_TEST_EXPECT_MSG_EQ(params(R"({"collective-gate-latency-ns": 1000})").gateLatencyNs,
                              1000,
                              "read");
        for (std::string bad : {"-1", "1e13", "\"x\""})
        {
            std::string err;
            try
            {
                params(R"({"collective-gate-latency-ns": )" + bad + "}");
            }
            catch (const InputError& e)
            {
                err = e.what();
            }
            const bool named = err.find("collective-gate-latency-ns") != std::string::npos;
            NS_TEST_EXPECT_MSG_EQ(named, true, bad << ": " << err);
        }
    }

    static constexpr uint64_t kX = 1 << 20;
    static constexpr uint64_t kY = 64 << 10;
    int64_t m_compatX{0};
    int64_t m_compatY{0};
};

class SystemSchedulingTestSuite : public TestSuite
{
  public:
    SystemSchedulingTestSuite()
        : TestSuite("astra-sim-system-scheduling", UNIT)
    {
        AddTestCase(new ThemisCase, TestCase::QUICK);
        AddTestCase(new SmallestFirstCase, TestCase::QUICK);
        AddTestCase(new SchedulingKeysCase, TestCase::QUICK);
        AddTestCase(new RootedHierarchicalCase, TestCase::QUICK);
        AddTestCase(new GateLatencyCase, TestCase::QUICK);
    }
};

SystemSchedulingTestSuite g_systemSchedulingTestSuite;

} // namespace
