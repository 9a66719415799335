/*
 * Tests of the ASTRA-sim 1.0 text-workload converter (suite "astra-sim-workload-text").
 */

#include "ns3/astra-paths.h"
#include "ns3/chakra-reader.h"
#include "ns3/et-writer.h"
#include "ns3/test.h"
#include "ns3/text-workload.h"
#include "ns3/workload-loader.h"

#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <unistd.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

std::string
ErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const WorkloadError& e)
    {
        return e.what();
    }
    return "";
}

bool
Has(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

std::vector<std::string>
TextFiles(const std::string& dir)
{
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str()))
    {
        while (dirent* e = readdir(d))
        {
            std::string n = e->d_name;
            if (n.size() > 4 && n.substr(n.size() - 4) == ".txt")
            {
                out.push_back(dir + "/" + n);
            }
        }
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string
TextDir()
{
    return GetReferenceDir() + "/astra-sim-tutorials/micro2024/chakra-demo/demo2/text_workloads";
}

std::map<NodeKind, int>
Kinds(const WorkloadGraph& g)
{
    std::map<NodeKind, int> k;
    for (const auto& n : g.nodes)
    {
        k[n.kind]++;
    }
    return k;
}

const WorkloadNode*
ByName(const WorkloadGraph& g, const std::string& name)
{
    for (const auto& n : g.nodes)
    {
        if (n.name == name)
        {
            return &n;
        }
    }
    return nullptr;
}

std::string
WriteTemp(const std::string& content)
{
    char tmpl[] = "/tmp/astra-text-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd >= 0)
    {
        close(fd);
    }
    std::ofstream f(tmpl);
    f << content;
    return tmpl;
}

/// Base with exception guard.
class GuardedCase : public TestCase
{
  public:
    using TestCase::TestCase;

  private:
    void DoRun() override
    {
        try
        {
            Body();
        }
        catch (const std::exception& e)
        {
            NS_TEST_ASSERT_MSG_EQ(true, false, "unexpected exception: " << e.what());
        }
    }

    virtual void Body() = 0;
};

} // namespace

/// Every reference text workload converts; per-file node counts and sizes.
class TextReferenceTestCase : public GuardedCase
{
  public:
    TextReferenceTestCase()
        : GuardedCase("every reference text workload converts; counts and sizes per layer")
    {
    }

  private:
    void Body() override
    {
        std::string ref = GetReferenceDir();
        std::vector<std::string> files = TextFiles(TextDir());
        for (const auto& f : TextFiles(ref + "/astra-sim/text-workloads-2025/text_converter/"
                                             "text_workloads"))
        {
            files.push_back(f);
        }
        for (const auto& f : TextFiles(ref + "/astra-sim-tutorials/asplos2023/exercise_1/inputs/"
                                             "workload"))
        {
            files.push_back(f);
        }
        for (const auto& f : TextFiles(ref + "/astra-sim-tutorials/asplos2023/exercise_2/inputs/"
                                             "workload"))
        {
            files.push_back(f);
        }
        files.push_back(ref + "/astra-sim-tutorials/hoti2024/demo2/workload_text.txt");
        NS_TEST_ASSERT_MSG_GT(files.size(), 20, "reference text workloads not found");
        for (const auto& f : files)
        {
            std::vector<WorkloadGraph> gs;
            std::string e = ErrorOf([&]() { gs = ReadTextWorkload(f, 32); });
            NS_TEST_ASSERT_MSG_EQ(e, "", f);
            NS_TEST_ASSERT_MSG_EQ(gs.size(), 32, f);
            NS_TEST_EXPECT_MSG_GT(gs[0].nodes.size(), 0, f);
            for (const auto& g : gs)
            {
                NS_TEST_EXPECT_MSG_EQ(g.nodes.size(), gs[0].nodes.size(), f << " rank " << g.rank);
            }
        }

        // MLP_ModelParallel: identical to Chakra's conversion shipped in demo2 (ids, names,
        // kinds, deps, collective types and sizes; our durationNs = their duration_micros,
        // which ASTRA-sim 2.0 replays as cycles)
        auto mine = ReadTextWorkload(TextDir() + "/MLP_ModelParallel.txt", 32);
        auto theirs =
            ReadChakraFile(ref + "/astra-sim-tutorials/micro2024/astra-sim-demo/demo2/workload/"
                                 "MLP_ModelParallel.5.et",
                           5);
        NS_TEST_ASSERT_MSG_EQ(mine[5].nodes.size(), 29, "MLP nodes");
        NS_TEST_ASSERT_MSG_EQ(mine[5].nodes.size(), theirs.nodes.size(), "same as Chakra");
        // Chakra numbers nodes across all ranks (rank 5 starts at 5 * 29): compare relative ids
        const uint64_t base = theirs.nodes[0].id;
        NS_TEST_EXPECT_MSG_EQ(base, 5 * 29, "Chakra's id base");
        for (size_t i = 0; i < theirs.nodes.size(); ++i)
        {
            const auto& a = mine[5].nodes[i];
            auto b = theirs.nodes[i];
            b.id -= base;
            for (auto& d : b.dataDeps)
            {
                d -= base;
            }
            NS_TEST_EXPECT_MSG_EQ(a.id, b.id, i);
            NS_TEST_EXPECT_MSG_EQ(a.name, b.name, i);
            NS_TEST_EXPECT_MSG_EQ(a.kind, b.kind, b.name);
            NS_TEST_EXPECT_MSG_EQ((a.dataDeps == b.dataDeps), true, b.name);
            NS_TEST_EXPECT_MSG_EQ(a.ctrlDeps.size(), b.ctrlDeps.size(), b.name);
            NS_TEST_EXPECT_MSG_EQ(a.commSize, b.commSize, b.name);
            NS_TEST_EXPECT_MSG_EQ(a.pgName, "", b.name);
            if (b.kind == NodeKind::COMM_COLL)
            {
                NS_TEST_EXPECT_MSG_EQ(a.collType, b.collType, b.name);
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(a.durationNs, b.durationMicros, b.name);
            }
        }

        // Resnet50 data-parallel: 54 layers x 3 COMP + 54 weight-gradient all-reduces
        TextWorkload resnet = ParseTextWorkload(TextDir() + "/Resnet50_DataParallel.txt");
        NS_TEST_ASSERT_MSG_EQ(resnet.layers.size(), 54, "resnet layers");
        NS_TEST_EXPECT_MSG_EQ(resnet.layers[0].name, "conv1", "first layer");
        NS_TEST_EXPECT_MSG_EQ(resnet.layers[0].wgCommSize, 37632, "conv1 wg size");
        auto rg = BuildTextWorkloadGraphs(resnet, 8);
        auto rk = Kinds(rg[3]);
        NS_TEST_EXPECT_MSG_EQ(rg[3].nodes.size(), 216, "resnet nodes");
        NS_TEST_EXPECT_MSG_EQ(rk[NodeKind::COMP], 162, "resnet COMP");
        NS_TEST_EXPECT_MSG_EQ(rk[NodeKind::COMM_COLL], 54, "resnet COLL");
        // collectives appear in backward order: the sizes of the layers reversed
        std::vector<uint64_t> sizes;
        for (const auto& n : rg[3].nodes)
        {
            if (n.kind == NodeKind::COMM_COLL)
            {
                sizes.push_back(n.commSize);
                NS_TEST_EXPECT_MSG_EQ(n.collType, CollType::ALL_REDUCE, n.name);
                NS_TEST_EXPECT_MSG_EQ(n.pgName, "", "DATA spans all NPUs");
                // non-blocking: no node of the pass depends on it
                for (const auto& m : rg[3].nodes)
                {
                    NS_TEST_EXPECT_MSG_EQ(std::count(m.dataDeps.begin(), m.dataDeps.end(), n.id),
                                          0,
                                          m.name << " waits for " << n.name);
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(sizes.size(), 54, "sizes");
        for (size_t i = 0; i < 54; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(sizes[i], resnet.layers[53 - i].wgCommSize, "layer " << 53 - i);
        }
        const WorkloadNode* fwd = ByName(rg[3], "COMP_NODE_conv1_FWD");
        NS_TEST_ASSERT_MSG_NE(fwd, nullptr, "conv1 FWD");
        NS_TEST_EXPECT_MSG_EQ(fwd->durationNs, 13003, "cycles = ns");
        NS_TEST_EXPECT_MSG_EQ(fwd->durationMicros, 14, "micros rounded up");

        // Transformer hybrid, model_parallel_NPU_group 4 on 16 NPUs
        auto tw = ParseTextWorkload(TextDir() + "/Transformer_HybridParallel.txt");
        NS_TEST_EXPECT_MSG_EQ(tw.modelParallelGroup, 4, "model_parallel_NPU_group");
        NS_TEST_ASSERT_MSG_EQ(tw.layers.size(), 57, "transformer layers");
        auto tg = BuildTextWorkloadGraphs(tw, 16);
        const auto& t5 = tg[5];
        auto tk = Kinds(t5);
        NS_TEST_EXPECT_MSG_EQ(tk[NodeKind::COMP], 171, "transformer COMP");
        NS_TEST_EXPECT_MSG_EQ(tk[NodeKind::COMM_COLL], 14 + 19 + 37, "transformer COLL");
        NS_TEST_EXPECT_MSG_EQ((t5.commGroups.at("mp1") == std::vector<uint32_t>{4, 5, 6, 7}),
                              true,
                              "mp1");
        NS_TEST_EXPECT_MSG_EQ((t5.commGroups.at("dp1") == std::vector<uint32_t>{1, 5, 9, 13}),
                              true,
                              "dp1");
        NS_TEST_EXPECT_MSG_EQ(t5.commGroups.size(), 8, "4 mp + 4 dp groups");
        const WorkloadNode* emb = ByName(t5, "COMM_COLL_NODE_Embedding_ALLGATHER");
        NS_TEST_ASSERT_MSG_NE(emb, nullptr, "embedding all-gather");
        NS_TEST_EXPECT_MSG_EQ(emb->pgName, "mp1", "forward comm in the model-parallel group");
        NS_TEST_EXPECT_MSG_EQ(emb->commSize, 8388608, "embedding all-gather size");
        int dpColls = 0;
        for (const auto& n : t5.nodes)
        {
            dpColls += n.pgName == "dp1" ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(dpColls, 37, "weight-gradient comms in the data-parallel group");
    }
};

/// DLRM, activation recompute, customized, multi-pass, round trip through .et.
class TextSemanticsTestCase : public GuardedCase
{
  public:
    TextSemanticsTestCase()
        : GuardedCase("text workloads: DLRM, FWD_IN_BCKWD, CUSTOMIZED, passes, .et round trip")
    {
    }

  private:
    void Body() override
    {
        // DLRM: 8 layers, last bottom layer 4
        auto dw = ParseTextWorkload(TextDir() + "/DLRM_HybridParallel.txt");
        NS_TEST_EXPECT_MSG_EQ(dw.dlrmLastBottomLayer, 4, "DLRM_LAST_BOTTOM_LAYER");
        auto dg = BuildTextWorkloadGraphs(dw, 8);
        NS_TEST_EXPECT_MSG_EQ(dg[0].nodes.size(), 33, "DLRM nodes");
        const WorkloadNode* a2a = nullptr;
        for (const auto& n : dg[0].nodes)
        {
            if (n.kind == NodeKind::COMM_COLL && n.collType == CollType::ALL_TO_ALL)
            {
                a2a = a2a ? a2a : &n; // first = forward all-to-all
            }
        }
        NS_TEST_ASSERT_MSG_NE(a2a, nullptr, "embedding all-to-all");
        const WorkloadNode* bottom0 = ByName(dg[0], "COMP_NODE_MLP_Bottom_0_FWD");
        const WorkloadNode* top0 = ByName(dg[0], "COMP_NODE_MLP_Top_0_FWD");
        NS_TEST_ASSERT_MSG_NE(top0, nullptr, "top");
        NS_TEST_EXPECT_MSG_EQ(
            std::count(bottom0->dataDeps.begin(), bottom0->dataDeps.end(), a2a->id),
            0,
            "bottom MLP overlaps the all-to-all");
        NS_TEST_EXPECT_MSG_EQ(std::count(top0->dataDeps.begin(), top0->dataDeps.end(), a2a->id),
                              1,
                              "top MLP waits for the all-to-all");

        // activation recompute: initiates 19 (from checkpoint 11) and 10 (from 2)
        auto fw = ParseTextWorkload(TextDir() + "/Transformer_HybridParallel_Fwd_In_Bckwd.txt");
        NS_TEST_EXPECT_MSG_EQ((fw.checkpoints == std::vector<uint32_t>{2, 11}), true, "ckpts");
        NS_TEST_EXPECT_MSG_EQ((fw.checkpointInitiates == std::vector<uint32_t>{19, 10}),
                              true,
                              "initiates");
        auto fg = BuildTextWorkloadGraphs(fw, 8);
        int recomp = 0;
        for (const auto& n : fg[0].nodes)
        {
            recomp += n.kind == NodeKind::COMP && Has(n.name, "_FWD_RECOMP") ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(recomp, 18, "layers 11..19 and 2..10 recomputed");

        // HYBRID_CUSTOMIZED: groups per layer
        auto cg =
            ReadTextWorkload(TextDir() + "/sample_per_layer_parallel_HybridCustomized.txt", 16, [] {
                TextWorkloadOptions o;
                o.packageSize = 4;
                return o;
            }());
        const auto& c6 = cg[6];
        const WorkloadNode* l0 = ByName(c6, "COMM_COLL_NODE_layer_64_2_mlp0_ALLGATHER");
        const WorkloadNode* l1 = ByName(c6, "COMM_COLL_NODE_layer_64_2_mlp1_ALLGATHER");
        const WorkloadNode* l2 = ByName(c6, "COMM_COLL_NODE_layer_64_2_mlp2_ALLREDUCE");
        NS_TEST_ASSERT_MSG_NE(l0, nullptr, "mlp0");
        NS_TEST_ASSERT_MSG_NE(l1, nullptr, "mlp1");
        NS_TEST_ASSERT_MSG_NE(l2, nullptr, "mlp2");
        NS_TEST_EXPECT_MSG_EQ(l0->pgName, "mp1", "HYBRID_DATA_MODEL fwd: inner group of rank 6");
        NS_TEST_EXPECT_MSG_EQ(l1->pgName, "hmd_mp2", "HYBRID_MODEL_DATA fwd: outer group");
        NS_TEST_EXPECT_MSG_EQ(l2->pgName, "", "DATA: all NPUs");
        NS_TEST_EXPECT_MSG_EQ((c6.commGroups.at("hmd_mp2") == std::vector<uint32_t>{2, 6, 10, 14}),
                              true,
                              "outer group");

        // two passes: pass 1 forward of a layer waits for pass 0's weight-gradient comm
        TextWorkloadOptions two;
        two.numPasses = 2;
        auto pg = ReadTextWorkload(TextDir() + "/Resnet50_DataParallel.txt", 4, two);
        NS_TEST_EXPECT_MSG_EQ(pg[0].nodes.size(), 2 * 216, "two passes");
        const WorkloadNode* wg0 = ByName(pg[0], "COMM_COLL_NODE_conv1_ALLREDUCE_pass0");
        const WorkloadNode* f1 = ByName(pg[0], "COMP_NODE_conv1_FWD_pass1");
        NS_TEST_ASSERT_MSG_NE(wg0, nullptr, "pass0 wg comm");
        NS_TEST_ASSERT_MSG_NE(f1, nullptr, "pass1 fwd");
        NS_TEST_EXPECT_MSG_EQ(std::count(f1->dataDeps.begin(), f1->dataDeps.end(), wg0->id),
                              1,
                              "next pass waits for the weight-gradient all-reduce");
        TextWorkloadOptions upd;
        upd.emitWeightUpdate = true;
        auto ug = ReadTextWorkload(TextDir() + "/Resnet50_DataParallel.txt", 4, upd);
        NS_TEST_EXPECT_MSG_EQ(ug[0].nodes.size(), 216 + 54, "weight update nodes");

        // LoadWorkload picks the format
        NS_TEST_EXPECT_MSG_EQ(IsTextWorkload(TextDir() + "/microAllReduce.txt"), true, "text");
        auto lw = LoadWorkload(TextDir() + "/microAllReduce.txt", 4);
        NS_TEST_ASSERT_MSG_EQ(lw.size(), 4, "text ranks");
        NS_TEST_EXPECT_MSG_EQ(lw[0].nodes.size(), 4, "3 COMP + 1 all-reduce");
        auto lc = LoadWorkload(GetReferenceDir() +
                                   "/astra-sim/examples/workload/microbenchmarks/all_reduce/"
                                   "8npus_1MB/all_reduce",
                               8);
        NS_TEST_EXPECT_MSG_EQ(lc.size(), 8, "chakra ranks");
        std::string e = ErrorOf([&]() { LoadWorkload(TextDir() + "/microAllReduce.txt", 0); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "needs the number of NPUs"), true, e);

        // .et round trip (HYBRID transformer: groups included)
        auto tg = ReadTextWorkload(TextDir() + "/Transformer_HybridParallel.txt", 8);
        char tmpl[] = "/tmp/astra-text-et-XXXXXX";
        std::string dir = mkdtemp(tmpl);
        WriteChakraPrefix(tg, dir + "/tr");
        auto back = ReadChakraPrefix(dir + "/tr", 8);
        NS_TEST_ASSERT_MSG_EQ(back.size(), 8, "ranks");
        for (uint32_t r = 0; r < 8; ++r)
        {
            NS_TEST_ASSERT_MSG_EQ(back[r].nodes.size(), tg[r].nodes.size(), "rank " << r);
            bool same = true;
            for (size_t i = 0; i < tg[r].nodes.size(); ++i)
            {
                same = same && back[r].nodes[i] == tg[r].nodes[i];
            }
            NS_TEST_EXPECT_MSG_EQ(same, true, "rank " << r << " nodes equal after .et");
            NS_TEST_EXPECT_MSG_EQ((back[r].commGroups == tg[r].commGroups), true, "groups");
            std::remove((dir + "/tr." + std::to_string(r) + ".et").c_str());
        }
        rmdir(dir.c_str());
    }
};

/// Parse errors name the file, the line and the cause.
class TextErrorTestCase : public GuardedCase
{
  public:
    TextErrorTestCase()
        : GuardedCase("text workload errors name file, line and cause")
    {
    }

  private:
    void Check(const std::string& content,
               const std::string& lineTag,
               const std::string& cause,
               uint32_t npus = 4)
    {
        std::string f = WriteTemp(content);
        std::string e = ErrorOf([&]() { ReadTextWorkload(f, npus); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, f + lineTag) && Has(e, cause), true, "got: " << e);
        std::remove(f.c_str());
    }

    void Body() override
    {
        const std::string good = "l0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1024 5\n";
        Check("BOGUS\n1\n" + good, ":1:", "unknown parallelism 'BOGUS'");
        Check("DATA\n2\n" + good, ":4:", "declares 2 layers but has only 1");
        Check("DATA\n1\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE\n", ":3:", "columns, expected 12");
        Check("DATA\n1\nl0 -1 5 NONE 0 5 NONE 0 5 BROADCAST 1024 5\n",
              ":3:",
              "unknown weight-gradient comm type 'BROADCAST'");
        Check("DATA\n1\nl0 -1 five NONE 0 5 NONE 0 5 ALLREDUCE 1024 5\n",
              ":3:",
              "bad forward compute time 'five'");
        Check("DATA\n\n1\n\n" + good + "extra -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
              ":6:",
              "extra line");
        Check("HYBRID_CUSTOMIZED\n1\n" + good, ":3:", "expected 13");
        Check("HYBRID_CUSTOMIZED\n1\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1024 5 SIDEWAYS\n",
              ":3:",
              "per-layer parallelism 'SIDEWAYS'");
        Check("HYBRID_TRANSFORMER model_parallel_NPU_group:\n1\n" + good, ":1:", "needs a value");
        Check("DATA\nmany\n" + good, ":2:", "bad number of layers");
        // group size must divide the NPU count
        std::string f = WriteTemp("HYBRID_TRANSFORMER model_parallel_NPU_group: 3\n1\n" + good);
        std::string e = ErrorOf([&]() { ReadTextWorkload(f, 8); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, f) && Has(e, "does not divide 8"), true, e);
        std::remove(f.c_str());
        e = ErrorOf([&]() { ReadTextWorkload("/nonexistent/w.txt", 4); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "/nonexistent/w.txt") && Has(e, "cannot open"), true, e);
    }
};

/// Suite "astra-sim-workload-text".
class WorkloadTextTestSuite : public TestSuite
{
  public:
    WorkloadTextTestSuite()
        : TestSuite("astra-sim-workload-text", UNIT)
    {
        AddTestCase(new TextReferenceTestCase, TestCase::QUICK);
        AddTestCase(new TextSemanticsTestCase, TestCase::QUICK);
        AddTestCase(new TextErrorTestCase, TestCase::QUICK);
    }
};

static WorkloadTextTestSuite g_workloadTextTestSuite; //!< registration
