/*
 * Every reference trace set runs to completion on both backends (default and
 * compat models) with its communicator groups: microbenchmarks, the
 * regression case, the tutorial cases (incl. the 32-NPU MLP), the STG GPT
 * dp2-tp2-pp2 trace with its comm-group JSON and roofline compute, the MSCCL
 * custom ring and the text workloads; identical reruns give identical outputs.
 */

#include "system-test-util.h"

#include "ns3/test.h"
#include "ns3/workload-loader.h"

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::systest;

namespace
{

struct RefSet
{
    std::string name;
    std::string workload; //!< prefix or .txt (absolute)
    std::string system;
    std::string network;
    std::string groups; //!< "" = none
};

std::string
Ref(const std::string& rel)
{
    return GetReferenceDir() + "/" + rel;
}

AstraRunResult
RunSet(const RefSet& s, const std::string& backend, bool compat, uint32_t& npus)
{
    auto topo = std::make_shared<Topology>(Topology::FromFile(s.network));
    npus = topo->GetNpuCount();
    SystemParams p = AstraSimHelper::LoadSystemParams(s.system, Ref("astra-sim"));
    p.compat = compat;
    Graphs gs;
    for (auto& g : LoadWorkload(s.workload, npus))
    {
        gs.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
    }
    AstraRunOptions o;
    o.backend = backend;
    if (!s.groups.empty())
    {
        o.commGroups = AstraSimHelper::LoadCommGroups(s.groups);
    }
    return AstraSimHelper::Run(topo, p, gs, o);
}

std::vector<RefSet>
AllSets()
{
    std::vector<RefSet> v;
    const std::string mb = "astra-sim/examples/workload/microbenchmarks/";
    const std::string ring4 = Ref("astra-sim/examples/system/native_collectives/Ring_4chunks.json");
    for (std::string c : {"all_reduce", "reduce_scatter", "all_gather", "all_to_all"})
    {
        for (std::string n : {"4", "8", "16"})
        {
            v.push_back({c + "-" + n,
                         Ref(mb + c + "/" + n + "npus_1MB/" + c),
                         ring4,
                         Ref("astra-sim/examples/network/analytical/Ring_" + n + "npus.yml"),
                         ""});
        }
    }
    const std::string reg = "astra-sim/regression-8npu-ring/inputs/";
    v.push_back({"regression-8npu-ring",
                 Ref(reg + "workload/chakra_trace"),
                 Ref(reg + "system_cfg.json"),
                 Ref(reg + "network_cfg.yml"),
                 ""});
    v.push_back({"msccl-custom-ring",
                 Ref(mb + "all_reduce/8npus_1MB/all_reduce"),
                 Ref("astra-sim/examples/system/custom_collectives/custom_collective.json"),
                 Ref("astra-sim/examples/network/analytical/Ring_8npus.yml"),
                 ""});
    const std::string t = "astra-sim-tutorials/micro2024/astra-sim-demo/";
    v.push_back({"demo1-ring",
                 Ref(t + "demo1/allreduce/allreduce"),
                 Ref(t + "demo1/inputs/Ring_sys.json"),
                 Ref(t + "demo1/inputs/Ring_8.yml"),
                 ""});
    v.push_back({"demo1-direct",
                 Ref(t + "demo1/allreduce/allreduce"),
                 Ref(t + "demo1/inputs/Direct_sys.json"),
                 Ref(t + "demo1/inputs/FullyConnected_8.yml"),
                 ""});
    v.push_back({"demo2-mlp32-tpuv4",
                 Ref(t + "demo2/workload/MLP_ModelParallel"),
                 Ref(t + "demo2/inputs/TPUv4.json"),
                 Ref(t + "demo2/inputs/TPUv4-32.yml"),
                 ""});
    v.push_back({"demo2-mlp32-dgx",
                 Ref(t + "demo2/workload/MLP_ModelParallel"),
                 Ref(t + "demo2/inputs/DGX_H100.json"),
                 Ref(t + "demo2/inputs/DGX_H100-32.yml"),
                 ""});
    v.push_back({"demo3-allreduce8",
                 Ref(t + "demo3/allreduce_1D/allreduce_8/allreduce"),
                 Ref(t + "demo3/inputs/Ring_sys.json"),
                 Ref(t + "demo1/inputs/Ring_8.yml"),
                 ""});
    v.push_back({"stg-gpt-dp2-tp2-pp2",
                 Ref("stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2"),
                 ring4,
                 Ref("astra-sim/examples/network/analytical/Ring_8npus.yml"),
                 Ref("stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2.json")});
    const std::string tw = "astra-sim/text-workloads-2025/text_converter/";
    for (std::string f : {"DLRM_HybridParallel",
                          "MLP_HybridParallel_Data_Model",
                          "MLP_HybridParallel_Model_Data",
                          "MLP_ModelParallel",
                          "Resnet50_DataParallel",
                          "Transformer_HybridParallel",
                          "Transformer_HybridParallel_Fwd_In_Bckwd",
                          "microAllReduce",
                          "microAllToAll",
                          "sample_per_layer_parallel_HybridCustomized"})
    {
        v.push_back({"text-" + f,
                     Ref(tw + "text_workloads/" + f + ".txt"),
                     Ref(tw + "system.json"),
                     Ref(tw + "network.yml"),
                     ""});
    }
    v.push_back({"hoti2024-demo2-text",
                 Ref("astra-sim-tutorials/hoti2024/demo2/workload_text.txt"),
                 Ref("astra-sim-tutorials/hoti2024/demo2/inputs/Ring_sys.json"),
                 Ref("astra-sim-tutorials/hoti2024/demo2/inputs/Ring_8.yml"),
                 ""});
    const std::string tr = "astra-sim/text-workloads-2025/network_analytical/Ring/";
    v.push_back({"text-2025-allreduce-chakra",
                 Ref(tr + "workload/AllReduce_1MB"),
                 Ref(tr + "system.json"),
                 Ref(tr + "network.yml"),
                 ""});
    return v;
}

/// One reference set: completes on analytical and flow, default and compat
class CompletesCase : public TestCase
{
  public:
    CompletesCase(RefSet s)
        : TestCase("completes: " + s.name),
          m_set(s)
    {
    }

  private:
    void DoRun() override
    {
        for (std::string b : {"analytical", "flow"})
        {
            for (bool compat : {false, true})
            {
                uint32_t n = 0;
                auto r = RunSet(m_set, b, compat, n);
                NS_TEST_ASSERT_MSG_EQ(r.error, "", m_set.name << " " << b);
                NS_TEST_EXPECT_MSG_EQ(r.unfinished.size(),
                                      0u,
                                      m_set.name << " " << b << " compat=" << compat << ":\n"
                                                 << r.pending);
                NS_TEST_EXPECT_MSG_EQ(r.finishNs.size(), n, "one result per NPU");
                NS_TEST_EXPECT_MSG_GT(r.MaxFinish(), 0, "takes time");
                uint64_t started = 0;
                uint64_t finished = 0;
                for (const auto& rec : r.records)
                {
                    started += rec.started;
                    finished += rec.finished;
                }
                NS_TEST_EXPECT_MSG_EQ(finished, started, "every issued collective finished");
            }
        }
    }

    RefSet m_set;
};

/// Identical reruns give identical outputs; symmetric microbenchmarks end together
class DeterminismCase : public TestCase
{
  public:
    DeterminismCase()
        : TestCase("identical reruns, identical outputs")
    {
    }

  private:
    void DoRun() override
    {
        for (const auto& s : AllSets())
        {
            if (s.name != "stg-gpt-dp2-tp2-pp2" && s.name != "demo2-mlp32-dgx" &&
                s.name != "text-Transformer_HybridParallel")
            {
                continue;
            }
            for (std::string b : {"analytical", "flow"})
            {
                uint32_t n = 0;
                auto a = RunSet(s, b, false, n);
                auto c = RunSet(s, b, false, n);
                NS_TEST_EXPECT_MSG_EQ((a.finishNs == c.finishNs), true, s.name << " " << b);
                NS_TEST_EXPECT_MSG_EQ(a.events, c.events, "same event count");
                NS_TEST_EXPECT_MSG_EQ(a.records.size(), c.records.size(), "same collectives");
                bool same = true;
                for (size_t i = 0; i < a.records.size() && i < c.records.size(); ++i)
                {
                    same = same && a.records[i].end == c.records[i].end &&
                           a.records[i].start == c.records[i].start;
                }
                NS_TEST_EXPECT_MSG_EQ(same, true, "same collective times");
            }
        }
        // the 1 MiB ring all-reduce on 16 NPUs: every NPU ends at the same ns, both backends
        auto sets = AllSets();
        for (const auto& s : sets)
        {
            if (s.name == "all_reduce-16")
            {
                uint32_t n = 0;
                auto a = RunSet(s, "analytical", false, n);
                auto f = RunSet(s, "flow", false, n);
                NS_TEST_EXPECT_MSG_EQ(AllFinishAt(a, a.MaxFinish()), true, "lockstep");
                NS_TEST_EXPECT_MSG_EQ((a.finishNs == f.finishNs),
                                      true,
                                      "ring on Ring: flow = analytical");
            }
        }
    }
};

class SystemReferenceTestSuite : public TestSuite
{
  public:
    SystemReferenceTestSuite()
        : TestSuite("astra-sim-system-reference", SYSTEM)
    {
        for (const auto& s : AllSets())
        {
            AddTestCase(new CompletesCase(s), TestCase::QUICK);
        }
        AddTestCase(new DeterminismCase(), TestCase::QUICK);
    }
};

SystemReferenceTestSuite g_systemReferenceTestSuite;

} // namespace
