/*
 * Default (non-compat) model: closed-form times of every algorithm and
 * collective type on Ring, FullyConnected and Switch with 4, 8 and 16 NPUs
 * (analytical backend; the flow backend where it must agree), and the
 * multi-dimensional decompositions (baseline vs localBWAware).
 *
 * Numbers are chosen so every term is a whole ns: B = 64 bytes/ns
 * (59.6046... GB/s with GB = 2^30), latency 500 ns, endpoint delay d = 10 ns,
 * local-mem-bw 32 GB/s (GB = 1e9: 32 bytes/ns), 1 MiB, one chunk.
 * Default model: T(m) = h x latency + m / B, processing after every receive
 * = d + (reduction ? m / local-mem-bw : 0), no start delay.
 */

#include "system-test-util.h"

#include "ns3/test.h"

#include <map>

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::systest;

namespace
{

const double kB = 64;                           // bytes per ns
const double kGbps = 64.0 * 1e9 / 1073741824.0; // -> exactly 64 bytes/ns
const double kLat = 500;
const double kD = 10;
const double kMem = 32;
const uint64_t kSize = 1 << 20;

int64_t
T(uint32_t hops, uint64_t m)
{
    return static_cast<int64_t>(hops * kLat + double(m) / kB);
}

int64_t
R(uint64_t m)
{
    return static_cast<int64_t>(double(m) / kMem);
}

uint32_t
Hops(DimType t, uint32_t n, uint32_t dist)
{
    switch (t)
    {
    case DimType::SWITCH:
        return 2;
    case DimType::FULLY_CONNECTED:
        return 1;
    default:
        return std::min(dist % n, n - dist % n);
    }
}

uint32_t
Log2(uint32_t n)
{
    uint32_t l = 0;
    while ((1u << l) < n)
    {
        ++l;
    }
    return l;
}

/// Closed form of one collective on one 1-D topology (default model, 1 chunk)
int64_t
Expected(const std::string& algo, CollType c, DimType t, uint32_t n)
{
    const int64_t d = static_cast<int64_t>(kD);
    const uint64_t m = kSize / n;
    if (algo == "ring")
    {
        int64_t tm = T(Hops(t, n, 1), m);
        switch (c)
        {
        case CollType::ALL_REDUCE:
            return (2 * n - 2) * (tm + d) + (n - 1) * R(m);
        case CollType::REDUCE_SCATTER:
            return (n - 1) * (tm + d + R(m));
        case CollType::ALL_GATHER:
            return (n - 1) * (T(Hops(t, n, 1), kSize) + d);
        case CollType::ALL_TO_ALL:
            return int64_t(n) * (n - 1) / 2 * (tm + d);
        default:
            return -1;
        }
    }
    if (algo == "direct" || algo == "direct2")
    {
        // rounds of W peers at offsets kW+1 .. (k+1)W, sent in offset order; a sender's
        // messages leave one after another on its outgoing link (Switch: one link for all;
        // FullyConnected: one per peer; Ring: one per direction, the tie going clockwise),
        // so the k-th on a link arrives k x bytes / B later; a round lasts until its last
        // arrival plus the processing
        const uint32_t w = algo == "direct" ? n - 1 : 2;
        auto rounds = [&](uint64_t bytes, bool reduce) {
            int64_t sum = 0;
            for (uint32_t first = 1; first < n; first += w)
            {
                std::map<int64_t, int64_t> onLink; // first directed link -> messages so far
                int64_t last = 0;
                for (uint32_t o = first; o < std::min(n, first + w); ++o)
                {
                    const int64_t link = t == DimType::SWITCH            ? 0
                                         : t == DimType::FULLY_CONNECTED ? int64_t(o)
                                         : (o <= n - o)                  ? 1
                                                                         : -1;
                    const int64_t k = onLink[link]++;
                    last =
                        std::max(last, k * int64_t(double(bytes) / kB) + T(Hops(t, n, o), bytes));
                }
                sum += last + d + (reduce ? R(bytes) : 0);
            }
            return sum;
        };
        switch (c)
        {
        case CollType::ALL_REDUCE:
            return rounds(m, true) + rounds(m, false);
        case CollType::REDUCE_SCATTER:
            return rounds(m, true);
        case CollType::ALL_GATHER:
            return rounds(kSize, false);
        case CollType::ALL_TO_ALL:
            return rounds(m, false);
        default:
            return -1;
        }
    }
    if (algo == "halvingDoubling")
    {
        const uint32_t l = Log2(n);
        auto rs = [&](uint64_t in) {
            int64_t sum = 0;
            for (uint32_t k = 0; k < l; ++k)
            {
                uint64_t b = in >> (k + 1);
                sum += T(Hops(t, n, n >> (k + 1)), b) + d + R(b);
            }
            return sum;
        };
        auto ag = [&](uint64_t in) {
            int64_t sum = 0;
            for (uint32_t k = 0; k < l; ++k)
            {
                sum += T(Hops(t, n, 1u << k), in << k) + d;
            }
            return sum;
        };
        switch (c)
        {
        case CollType::ALL_REDUCE:
            return rs(kSize) + ag(kSize / n);
        case CollType::REDUCE_SCATTER:
            return rs(kSize);
        case CollType::ALL_GATHER:
            return ag(kSize);
        case CollType::ALL_TO_ALL: {
            int64_t sum = 0;
            for (uint32_t k = 0; k < l; ++k)
            {
                sum += T(Hops(t, n, 1u << k), kSize / 2) + d;
            }
            return sum;
        }
        default:
            return -1;
        }
    }
    return -1;
}

SystemParams
DefaultParams(const std::string& algo)
{
    SystemParams p = Params(1, 1, kD, kMem, false);
    SetAlgo(p, algo);
    return p;
}

/// Every algorithm x type x topology x size against its closed form
class ClosedFormCase : public TestCase
{
  public:
    ClosedFormCase(std::string algo)
        : TestCase("closed forms: " + algo),
          m_algo(algo)
    {
    }

  private:
    void DoRun() override
    {
        const CollType types[] = {CollType::ALL_REDUCE,
                                  CollType::REDUCE_SCATTER,
                                  CollType::ALL_GATHER,
                                  CollType::ALL_TO_ALL};
        for (DimType t : {DimType::RING, DimType::FULLY_CONNECTED, DimType::SWITCH})
        {
            for (uint32_t n : {4u, 8u, 16u})
            {
                for (CollType c : types)
                {
                    int64_t want = Expected(m_algo, c, t, n);
                    auto r = AstraSimHelper::Run(Topo1D(t, n, kGbps, kLat),
                                                 DefaultParams(m_algo),
                                                 CollGraphs(n, c, kSize));
                    NS_TEST_ASSERT_MSG_EQ(r.error, "", "no error");
                    NS_TEST_EXPECT_MSG_EQ(r.MaxFinish(),
                                          want,
                                          m_algo << " " << CollTypeName(c) << " on "
                                                 << DimTypeName(t) << " " << n);
                    NS_TEST_EXPECT_MSG_EQ(r.unfinished.size(), 0u, "all finish");
                }
            }
        }
    }

    std::string m_algo;
};

/// Chunks are pipelined: S chunks, A in flight
class ChunkingCase : public TestCase
{
  public:
    ChunkingCase()
        : TestCase("chunking: S chunks, A active, exact sizes")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 8;
        // S = 4, A = 1: four chunks back to back
        SystemParams p = Params(4, 1, kD, kMem, false);
        uint64_t m = kSize / 4 / n;
        int64_t stream = (2 * n - 2) * (T(1, m) + 10) + (n - 1) * R(m);
        auto r = AstraSimHelper::Run(Topo1D(DimType::RING, n, kGbps, kLat),
                                     p,
                                     CollGraphs(n, CollType::ALL_REDUCE, kSize));
        NS_TEST_EXPECT_MSG_EQ(r.MaxFinish(), 4 * stream, "S=4 A=1");
        // A = 4 on the analytical (congestion-unaware) backend: all chunks at once, their
        // messages serialised on each NPU's outgoing link, so chunk j runs j x m / B late.
        // With d = 2000 the link is never saturated (a step's cycle T + d >= 4 m / B) and
        // the stagger is all: stream + 3 m / B
        {
            SystemParams q = Params(4, 4, 2000, kMem, false);
            const int64_t slow = (2 * n - 2) * (T(1, m) + 2000) + (n - 1) * R(m);
            r = AstraSimHelper::Run(Topo1D(DimType::RING, n, kGbps, kLat),
                                    q,
                                    CollGraphs(n, CollType::ALL_REDUCE, kSize));
            NS_TEST_EXPECT_MSG_EQ(r.MaxFinish(),
                                  slow + 3 * static_cast<int64_t>(m / kB),
                                  "S=4 A=4 analytical: staggered by m / B");
            q.compat = true; // the reference gives every chunk the full link
            r = AstraSimHelper::Run(Topo1D(DimType::RING, n, kGbps, kLat),
                                    q,
                                    CollGraphs(n, CollType::ALL_REDUCE, kSize));
            const int64_t tc = static_cast<int64_t>(kLat + m / kB);
            NS_TEST_EXPECT_MSG_EQ(r.MaxFinish(),
                                  (2 * n - 2) * (2000 + tc) + (n - 1) * 3 * R(m) + 2000,
                                  "S=4 A=4 compat: all chunks alone, one stream time");
        }
        p.activeChunks = 4;
        // flow backend shares the links among the 4 chunks: slower than one stream
        AstraRunOptions o;
        o.backend = "flow";
        auto f = AstraSimHelper::Run(Topo1D(DimType::RING, n, kGbps, kLat),
                                     p,
                                     CollGraphs(n, CollType::ALL_REDUCE, kSize),
                                     o);
        NS_TEST_EXPECT_MSG_GT(f.MaxFinish(), stream, "flow: link sharing costs time");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(f.MaxFinish(), 4 * stream, "flow: still pipelined");
        // the default model does not round chunks up: 1000 bytes in S = 3 -> 334 + 333 + 333
        SystemParams q = Params(3, 1, kD, 0, false);
        uint64_t bytes = 0;
        AstraRunOptions ob;
        ob.hook = [&bytes](Ptr<SystemContext> ctx, const std::vector<Ptr<AstraSimApplication>>&) {
            ctx->TraceConnectWithoutContext("MessageSent",
                                            MakeCallback(+[](uint64_t* b, const NetMessage& msg) {
                                                *b += msg.bytes;
                                            }).Bind(&bytes));
        };
        r = AstraSimHelper::Run(Topo1D(DimType::RING, 4, kGbps, kLat),
                                q,
                                CollGraphs(4, CollType::ALL_GATHER, 1000),
                                ob);
        NS_TEST_EXPECT_MSG_EQ(bytes, 4u * 3u * 1000u, "all-gather bytes = N (N-1) size");
    }
};

/// Flow backend agrees with the analytical one where links are never shared
class FlowAgreesCase : public TestCase
{
  public:
    FlowAgreesCase()
        : TestCase("flow backend = analytical for ring on Ring (no link sharing)")
    {
    }

  private:
    void DoRun() override
    {
        AstraRunOptions o;
        o.backend = "flow";
        for (uint32_t n : {4u, 8u, 16u})
        {
            for (CollType c : {CollType::ALL_REDUCE,
                               CollType::REDUCE_SCATTER,
                               CollType::ALL_GATHER,
                               CollType::ALL_TO_ALL})
            {
                auto r = AstraSimHelper::Run(Topo1D(DimType::RING, n, kGbps, kLat),
                                             DefaultParams("ring"),
                                             CollGraphs(n, c, kSize),
                                             o);
                NS_TEST_EXPECT_MSG_EQ(r.MaxFinish(),
                                      Expected("ring", c, DimType::RING, n),
                                      "flow " << CollTypeName(c) << " " << n);
            }
        }
        // direct all-to-all on a Switch: each NPU's 7 messages share its uplink, fairly on
        // the flow backend, one after another on the analytical one: the last byte leaves at
        // 7 m / B either way (the analytical backend used to give each the full link)
        auto a = AstraSimHelper::Run(Topo1D(DimType::SWITCH, 8, kGbps, kLat),
                                     DefaultParams("direct"),
                                     CollGraphs(8, CollType::ALL_TO_ALL, kSize));
        auto f = AstraSimHelper::Run(Topo1D(DimType::SWITCH, 8, kGbps, kLat),
                                     DefaultParams("direct"),
                                     CollGraphs(8, CollType::ALL_TO_ALL, kSize),
                                     o);
        NS_TEST_EXPECT_MSG_EQ(a.MaxFinish(),
                              Expected("direct", CollType::ALL_TO_ALL, DimType::SWITCH, 8),
                              "analytical: serialised on the uplink");
        NS_TEST_EXPECT_MSG_EQ(f.MaxFinish(), a.MaxFinish(), "flow: shared uplink, same end");
    }
};

/// Rooted and other collectives, double binary tree: completion, bytes, times on a Switch
class OtherCollectivesCase : public TestCase
{
  public:
    OtherCollectivesCase()
        : TestCase("REDUCE GATHER SCATTER BROADCAST BARRIER, double binary tree")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 8;
        const int64_t d = 10;
        auto run = [&](CollType c, const std::string& algo, uint64_t* bytes, uint64_t* msgs) {
            AstraRunOptions o;
            o.hook = [bytes, msgs](Ptr<SystemContext> ctx,
                                   const std::vector<Ptr<AstraSimApplication>>&) {
                ctx->TraceConnectWithoutContext(
                    "MessageSent",
                    MakeCallback(+[](uint64_t* b, uint64_t* k, const NetMessage& msg) {
                        *b += msg.bytes;
                        ++*k;
                    }).Bind(bytes, msgs));
            };
            return AstraSimHelper::Run(Topo1D(DimType::SWITCH, n, kGbps, kLat),
                                       DefaultParams(algo),
                                       CollGraphs(n, c, kSize),
                                       o);
        };
        uint64_t b = 0, k = 0;
        auto g = run(CollType::GATHER, "ring", &b, &k);
        NS_TEST_EXPECT_MSG_EQ(g.finishNs[0], T(2, kSize) + d, "gather: root");
        NS_TEST_EXPECT_MSG_EQ(g.finishNs[1], T(2, kSize), "gather: member done when sent");
        NS_TEST_EXPECT_MSG_EQ(b, (n - 1) * kSize, "gather bytes");
        b = k = 0;
        auto s = run(CollType::SCATTER, "ring", &b, &k);
        // the root's 7 messages leave one after another on its uplink: member j gets the
        // (j-1)-th, (j-1) x (size / n) / B later
        const int64_t ser = static_cast<int64_t>(kSize / n / kB);
        NS_TEST_EXPECT_MSG_EQ(s.finishNs[1], T(2, kSize / n) + d, "scatter: first member");
        NS_TEST_EXPECT_MSG_EQ(s.finishNs[3], 2 * ser + T(2, kSize / n) + d, "scatter: member 3");
        NS_TEST_EXPECT_MSG_EQ(s.finishNs[7], 6 * ser + T(2, kSize / n) + d, "scatter: last");
        NS_TEST_EXPECT_MSG_EQ(b, (n - 1) * (kSize / n), "scatter bytes");
        b = k = 0;
        auto bar = run(CollType::BARRIER, "ring", &b, &k);
        NS_TEST_EXPECT_MSG_EQ(bar.MaxFinish(), 3 * (T(2, 1) + d), "barrier: log2(8) rounds");
        NS_TEST_EXPECT_MSG_EQ(k, 3u * n, "barrier messages");
        b = k = 0;
        auto bc = run(CollType::BROADCAST, "ring", &b, &k);
        NS_TEST_EXPECT_MSG_EQ(bc.unfinished.size(), 0u, "broadcast finishes");
        NS_TEST_EXPECT_MSG_EQ(b,
                              (n - 1) * (kSize / n) + n * (n - 1) * (kSize / n),
                              "broadcast = scatter + ring all-gather");
        b = k = 0;
        auto rd = run(CollType::REDUCE, "ring", &b, &k);
        NS_TEST_EXPECT_MSG_EQ(rd.unfinished.size(), 0u, "reduce finishes");
        NS_TEST_EXPECT_MSG_EQ(b,
                              n * (n - 1) * (kSize / n) + (n - 1) * (kSize / n),
                              "reduce = ring reduce-scatter + gather of shards");
        b = k = 0;
        auto rsb = run(CollType::REDUCE_SCATTER_BLOCK, "ring", &b, &k);
        NS_TEST_EXPECT_MSG_EQ(rsb.MaxFinish(),
                              Expected("ring", CollType::REDUCE_SCATTER, DimType::SWITCH, n),
                              "REDUCE_SCATTER_BLOCK = REDUCE_SCATTER");
        b = k = 0;
        auto dbt = run(CollType::ALL_REDUCE, "doubleBinaryTree", &b, &k);
        NS_TEST_EXPECT_MSG_EQ(dbt.unfinished.size(), 0u, "double binary tree finishes");
        NS_TEST_EXPECT_MSG_EQ(b, 2u * (n - 1) * kSize, "two trees, up and down, half each");
        NS_TEST_EXPECT_MSG_EQ(k, 4u * (n - 1), "messages");
        // up the tree with reduction, then down: the root finishes tree 0 after its subtree
        // (depth 2 below the root's children) has reduced into it
        NS_TEST_EXPECT_MSG_GT(dbt.MaxFinish(),
                              2 * 3 * (T(2, kSize / 2) + d),
                              "at least 2 x 3 hops");
    }
};

/// Multi-dimensional: phase order and per-dimension bytes of baseline vs localBWAware
class MultiDimCase : public TestCase
{
  public:
    MultiDimCase()
        : TestCase("multi-dimensional baseline vs localBWAware")
    {
    }

  private:
    struct Obs
    {
        std::vector<int32_t> order;        // NPU 0's dimension sequence (runs collapsed)
        std::map<int32_t, uint64_t> bytes; // NPU 0's bytes per dimension
    };

    static void Sent(Obs* o, const NetMessage& m)
    {
        if (m.src != 0)
        {
            return;
        }
        if (o->order.empty() || o->order.back() != m.dim)
        {
            o->order.push_back(m.dim);
        }
        o->bytes[m.dim] += m.bytes;
    }

    AstraRunResult Run(CollOptimization opt, double bw0, double bw1, Obs& obs)
    {
        SystemParams p = DefaultParams("ring");
        p.optimization = opt;
        AstraRunOptions o;
        o.hook = [&obs](Ptr<SystemContext> ctx, const std::vector<Ptr<AstraSimApplication>>&) {
            ctx->TraceConnectWithoutContext("MessageSent", MakeBoundCallback(&Sent, &obs));
        };
        auto topo = TopoDims({{DimType::RING, 4, bw0, kLat}, {DimType::RING, 2, bw1, kLat}});
        return AstraSimHelper::Run(topo, p, CollGraphs(8, CollType::ALL_REDUCE, kSize), o);
    }

    void DoRun() override
    {
        const int64_t d = 10;
        // baseline: AR on dim 0 then AR on dim 1, full size each
        Obs base;
        auto rb = Run(CollOptimization::BASELINE, kGbps, kGbps, base);
        NS_TEST_EXPECT_MSG_EQ((base.order == std::vector<int32_t>{0, 1}), true, "baseline order");
        NS_TEST_EXPECT_MSG_EQ(base.bytes[0], 6u * kSize / 4, "baseline dim0 bytes");
        NS_TEST_EXPECT_MSG_EQ(base.bytes[1], 2u * kSize / 2, "baseline dim1 bytes");
        int64_t ar4 = 6 * (T(1, kSize / 4) + d) + 3 * R(kSize / 4);
        int64_t ar2 = 2 * (T(1, kSize / 2) + d) + 1 * R(kSize / 2);
        NS_TEST_EXPECT_MSG_EQ(rb.MaxFinish(), ar4 + ar2, "baseline time");
        // localBWAware, equal bandwidths: RS dim0, AR dim1 on size/4, AG dim0
        Obs lbw;
        auto rl = Run(CollOptimization::LOCAL_BW_AWARE, kGbps, kGbps, lbw);
        NS_TEST_EXPECT_MSG_EQ((lbw.order == std::vector<int32_t>{0, 1, 0}), true, "lbw order");
        NS_TEST_EXPECT_MSG_EQ(lbw.bytes[0], 6u * kSize / 4, "lbw dim0 bytes (RS + AG)");
        NS_TEST_EXPECT_MSG_EQ(lbw.bytes[1], 2u * kSize / 8, "lbw dim1 bytes (AR of a quarter)");
        int64_t rs4 = 3 * (T(1, kSize / 4) + d + R(kSize / 4));
        int64_t arq = 2 * (T(1, kSize / 8) + d) + R(kSize / 8);
        int64_t ag4 = 3 * (T(1, kSize / 4) + d);
        NS_TEST_EXPECT_MSG_EQ(rl.MaxFinish(), rs4 + arq + ag4, "localBWAware time");
        NS_TEST_EXPECT_MSG_LT(rl.MaxFinish(), rb.MaxFinish(), "localBWAware is faster");
        // dim 1 faster: reduce-scatter starts there
        Obs swapped;
        Run(CollOptimization::LOCAL_BW_AWARE, kGbps, 4 * kGbps, swapped);
        NS_TEST_EXPECT_MSG_EQ((swapped.order == std::vector<int32_t>{1, 0, 1}),
                              true,
                              "highest bandwidth first");
        NS_TEST_EXPECT_MSG_EQ(swapped.bytes[1], 2u * kSize / 2, "RS + AG on dim1");
        NS_TEST_EXPECT_MSG_EQ(swapped.bytes[0], 6u * kSize / 8, "AR of half on dim0");
        // oneRing flattens both dimensions into one ring routed through the network
        Obs flat;
        SystemParams p = DefaultParams("oneRing");
        AstraRunOptions o;
        o.hook = [&flat](Ptr<SystemContext> ctx, const std::vector<Ptr<AstraSimApplication>>&) {
            ctx->TraceConnectWithoutContext("MessageSent", MakeBoundCallback(&Sent, &flat));
        };
        auto rf = AstraSimHelper::Run(
            TopoDims({{DimType::RING, 4, kGbps, kLat}, {DimType::RING, 2, kGbps, kLat}}),
            p,
            CollGraphs(8, CollType::ALL_REDUCE, kSize),
            o);
        NS_TEST_EXPECT_MSG_EQ((flat.order == std::vector<int32_t>{-1}), true, "flat, dim -1");
        NS_TEST_EXPECT_MSG_EQ(flat.bytes[-1], 14u * kSize / 8, "one 8-ring");
        NS_TEST_EXPECT_MSG_EQ(rf.unfinished.size(), 0u, "finishes");
    }
};

class SystemCollectivesTestSuite : public TestSuite
{
  public:
    SystemCollectivesTestSuite()
        : TestSuite("astra-sim-system-collectives", UNIT)
    {
        for (std::string a : {"ring", "direct", "direct2", "halvingDoubling"})
        {
            AddTestCase(new ClosedFormCase(a), TestCase::QUICK);
        }
        AddTestCase(new ChunkingCase(), TestCase::QUICK);
        AddTestCase(new FlowAgreesCase(), TestCase::QUICK);
        AddTestCase(new OtherCollectivesCase(), TestCase::QUICK);
        AddTestCase(new MultiDimCase(), TestCase::QUICK);
    }
};

SystemCollectivesTestSuite g_systemCollectivesTestSuite;

} // namespace
