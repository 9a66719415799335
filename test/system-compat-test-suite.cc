/*
 * Compatibility mode: ASTRA-sim 2.0's printed cycles reproduced exactly
 * (regression-8npu-ring, the microbenchmark table, the MSCCL custom ring) and
 * the cost-model terms of astra-sim-timing.md checked one by one.
 */

#include "system-test-util.h"

#include "ns3/test.h"

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::systest;

namespace
{

/// regression-8npu-ring: every NPU 117780 on both backends
class RegressionCase : public TestCase
{
  public:
    RegressionCase(std::string backend)
        : TestCase("regression-8npu-ring = 117780 cycles (" + backend + ")"),
          m_backend(backend)
    {
    }

  private:
    void DoRun() override
    {
        std::string in = GetReferenceDir() + "/astra-sim/regression-8npu-ring/inputs";
        auto topo = std::make_shared<Topology>(Topology::FromFile(in + "/network_cfg.yml"));
        SystemParams p = AstraSimHelper::LoadSystemParams(in + "/system_cfg.json");
        p.compat = true;
        AstraRunOptions o;
        o.backend = m_backend;
        o.memory = AnalyticalRemoteMemory::FromFile(in + "/remote_memory_cfg.json");
        auto r = AstraSimHelper::Run(
            topo,
            p,
            RefGraphs("astra-sim/regression-8npu-ring/inputs/workload/chakra_trace", 8),
            o);
        NS_TEST_ASSERT_MSG_EQ(r.error, "", "no error");
        NS_TEST_ASSERT_MSG_EQ(r.finishNs.size(), 8u, "8 NPUs");
        for (uint32_t i = 0; i < 8; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(r.finishNs[i], 117780, "sys[" << i << "] cycles");
            NS_TEST_ASSERT_MSG_EQ(r.finishNs[i] - r.stats[i].compute.GetNanoSeconds(),
                                  117780,
                                  "exposed communication");
        }
    }

    std::string m_backend;
};

/// The shipped microbenchmarks with Ring_4chunks.json (congestion-unaware reference numbers)
class MicrobenchmarkCase : public TestCase
{
  public:
    MicrobenchmarkCase()
        : TestCase("microbenchmark table (Ring = FullyConnected, Switch; 4, 8, 16 NPUs)")
    {
    }

  private:
    void DoRun() override
    {
        SystemParams p = AstraSimHelper::LoadSystemParams(
            GetReferenceDir() + "/astra-sim/examples/system/native_collectives/Ring_4chunks.json");
        p.compat = true;

        struct Row
        {
            const char* coll;
            int64_t ring[3];
            int64_t sw[3];
        };

        const Row rows[] = {
            {"all_reduce", {43000, 64440, 99640}, {55000, 92440, 159640}},
            {"reduce_scatter", {22240, 33080, 50740}, {28240, 47080, 80740}},
            {"all_gather", {64744, 151016, 323560}, {70744, -1, 353560}},
            {"all_to_all", {41560, 125480, 391240}, {53560, 181480, -1}},
        };
        const uint32_t ns[3] = {4, 8, 16};
        for (const auto& row : rows)
        {
            for (int i = 0; i < 3; ++i)
            {
                std::string rel = std::string("astra-sim/examples/workload/microbenchmarks/") +
                                  row.coll + "/" + std::to_string(ns[i]) + "npus_1MB/" + row.coll;
                auto graphs = RefGraphs(rel, ns[i]);
                for (DimType t : {DimType::RING, DimType::FULLY_CONNECTED, DimType::SWITCH})
                {
                    int64_t want = t == DimType::SWITCH ? row.sw[i] : row.ring[i];
                    if (want < 0)
                    {
                        continue;
                    }
                    auto r = AstraSimHelper::Run(Topo1D(t, ns[i]), p, graphs);
                    NS_TEST_ASSERT_MSG_EQ(r.error, "", "no error");
                    NS_TEST_EXPECT_MSG_EQ(AllFinishAt(r, want),
                                          true,
                                          row.coll << " " << DimTypeName(t) << " " << ns[i]
                                                   << " NPUs: got " << r.MaxFinish() << " want "
                                                   << want);
                }
            }
        }
    }
};

/// MSCCL custom ring all-reduce: 90174 on the 8-NPU ring (both backends)
class MscclCase : public TestCase
{
  public:
    MscclCase()
        : TestCase("MSCCL custom ring all-reduce = 90174 cycles")
    {
    }

  private:
    void DoRun() override
    {
        std::string base = GetReferenceDir() + "/astra-sim";
        SystemParams p = AstraSimHelper::LoadSystemParams(
            base + "/examples/system/custom_collectives/custom_collective.json",
            base);
        p.compat = true;
        auto topo = std::make_shared<Topology>(
            Topology::FromFile(base + "/examples/network/analytical/Ring_8npus.yml"));
        auto graphs =
            RefGraphs("astra-sim/examples/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce",
                      8);
        for (std::string b : {"analytical", "flow"})
        {
            AstraRunOptions o;
            o.backend = b;
            auto r = AstraSimHelper::Run(topo, p, graphs, o);
            NS_TEST_ASSERT_MSG_EQ(r.error, "", "no error");
            NS_TEST_EXPECT_MSG_EQ(AllFinishAt(r, 90174), true, b << ": got " << r.MaxFinish());
        }
    }
};

/// The cost-model terms, one by one, on synthetic collectives
class TermsCase : public TestCase
{
  public:
    TermsCase()
        : TestCase("compat cost terms: d, P(m), T(m), chunks, A', queues, direct")
    {
    }

  private:
    static int64_t T(double h, double lat, uint64_t m, double gbps)
    {
        return static_cast<int64_t>(h * lat + double(m) / Bpns(gbps));
    }

    void DoRun() override
    {
        // ring all-reduce, N=8, 3 MB, S=3, A=2, d=25, lmbw=100, 100 GB/s, 700 ns
        {
            const uint32_t n = 8;
            const uint64_t size = 3000000;
            SystemParams p = Params(3, 2, 25, 100, true);
            uint64_t chunk = size / 3;
            uint64_t m = chunk / n;
            int64_t t = T(1, 700, m, 100);
            int64_t P = 3 * int64_t(double(m) / 100);
            int64_t stream = (2 * n - 2) * (25 + t) + (n - 1) * P + 25;
            int64_t want = 2 * stream; // ceil(3 / 2) = 2 rounds
            auto r = AstraSimHelper::Run(Topo1D(DimType::RING, n, 100, 700),
                                         p,
                                         CollGraphs(n, CollType::ALL_REDUCE, size));
            NS_TEST_EXPECT_MSG_EQ(r.MaxFinish(), want, "ring all-reduce A'=2");
            NS_TEST_EXPECT_MSG_EQ(AllFinishAt(r, want), true, "lockstep");
        }
        // chunk smaller than N raised to N bytes: 20 bytes, S=8, N=4 -> chunk 4, C = 5
        {
            SystemParams p = Params(8, 1, 10, 0, true);
            int64_t t = T(1, 500, 1, 50); // m = 4/4 = 1
            int64_t stream = 6 * (10 + t) + 10;
            auto r = AstraSimHelper::Run(Topo1D(DimType::RING, 4),
                                         p,
                                         CollGraphs(4, CollType::ALL_REDUCE, 20));
            NS_TEST_EXPECT_MSG_EQ(r.MaxFinish(), 5 * stream, "raised chunk, C = ceil(20/4)");
        }
        // reduce-scatter with Q=2 queues, A=2: A' = 1, concurrency Q x A' = 2
        {
            SystemParams p = Params(4, 2, 10, 1600, true);
            p.queuesPerDim = 2;
            const uint32_t n = 8;
            uint64_t m = (1048576 / 4) / n;
            int64_t stream = n * 10 + (n - 1) * (T(1, 500, m, 50) + 3 * int64_t(m / 1600.0));
            auto r = AstraSimHelper::Run(Topo1D(DimType::RING, n),
                                         p,
                                         CollGraphs(n, CollType::REDUCE_SCATTER, 1048576));
            NS_TEST_EXPECT_MSG_EQ(r.MaxFinish(), 2 * stream, "Q=2: ceil(4 / 2) rounds");
        }
        // all-reduce with Q=2, A=2: half the queues -> concurrency A' = 1
        {
            SystemParams p = Params(4, 2, 10, 1600, true);
            p.queuesPerDim = 2;
            const uint32_t n = 4;
            uint64_t m = (1048576 / 4) / n;
            int64_t stream =
                (2 * n - 2) * (10 + T(1, 500, m, 50)) + (n - 1) * 3 * int64_t(m / 1600.0) + 10;
            auto r = AstraSimHelper::Run(Topo1D(DimType::RING, n),
                                         p,
                                         CollGraphs(n, CollType::ALL_REDUCE, 1048576));
            NS_TEST_EXPECT_MSG_EQ(r.MaxFinish(), 4 * stream, "all-reduce Q=2: concurrency 1");
        }
        // injection-scale scales d (truncated)
        {
            SystemParams p = Params(1, 1, 10, 0, true);
            p.injectionScale = 2.55; // d = trunc(25.5) = 25
            const uint32_t n = 4;
            int64_t stream = n * 25 + (n - 1) * T(1, 500, 1048576, 50);
            auto r = AstraSimHelper::Run(Topo1D(DimType::RING, n),
                                         p,
                                         CollGraphs(n, CollType::ALL_GATHER, 1048576));
            NS_TEST_EXPECT_MSG_EQ(r.MaxFinish(), stream, "all-gather m = chunk, d scaled");
        }
        // direct on Switch: all-to-all 2d + T, reduce-scatter 2d + T + P, all-reduce 3d + 2T + P
        {
            SystemParams p = Params(1, 1, 10, 50, true);
            SetAlgo(p, "direct");
            const uint32_t n = 8;
            const uint64_t size = 1048576;
            uint64_t m = size / n;
            int64_t t = T(2, 500, m, 50);
            int64_t P = 3 * int64_t(m / 50.0);
            auto a2a = AstraSimHelper::Run(Topo1D(DimType::SWITCH, n),
                                           p,
                                           CollGraphs(n, CollType::ALL_TO_ALL, size));
            NS_TEST_EXPECT_MSG_EQ(a2a.MaxFinish(), 20 + t, "direct all-to-all");
            auto rs = AstraSimHelper::Run(Topo1D(DimType::SWITCH, n),
                                          p,
                                          CollGraphs(n, CollType::REDUCE_SCATTER, size));
            NS_TEST_EXPECT_MSG_EQ(rs.MaxFinish(), 20 + t + P, "direct reduce-scatter");
            auto ar = AstraSimHelper::Run(Topo1D(DimType::SWITCH, n),
                                          p,
                                          CollGraphs(n, CollType::ALL_REDUCE, size));
            NS_TEST_EXPECT_MSG_EQ(ar.MaxFinish(), 30 + 2 * t + P, "direct all-reduce");
            auto ag = AstraSimHelper::Run(Topo1D(DimType::SWITCH, n),
                                          p,
                                          CollGraphs(n, CollType::ALL_GATHER, size));
            NS_TEST_EXPECT_MSG_EQ(ag.MaxFinish(), 20 + T(2, 500, size, 50), "direct all-gather");
            // Ring topology: T_max = farthest peer, floor(N/2) hops
            auto a2aRing = AstraSimHelper::Run(Topo1D(DimType::RING, n),
                                               p,
                                               CollGraphs(n, CollType::ALL_TO_ALL, size));
            NS_TEST_EXPECT_MSG_EQ(a2aRing.MaxFinish(),
                                  20 + T(n / 2, 500, m, 50),
                                  "direct all-to-all on a ring: farthest peer");
        }
    }
};

class SystemCompatTestSuite : public TestSuite
{
  public:
    SystemCompatTestSuite()
        : TestSuite("astra-sim-system-compat", UNIT)
    {
        AddTestCase(new RegressionCase("analytical"), TestCase::QUICK);
        AddTestCase(new RegressionCase("flow"), TestCase::QUICK);
        AddTestCase(new MicrobenchmarkCase(), TestCase::QUICK);
        AddTestCase(new MscclCase(), TestCase::QUICK);
        AddTestCase(new TermsCase(), TestCase::QUICK);
    }
};

SystemCompatTestSuite g_systemCompatTestSuite;

} // namespace
