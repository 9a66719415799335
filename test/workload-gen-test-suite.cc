/*
 * Tests of the LLM training workload generator (suite "astra-sim-workload-gen"):
 * the streaming ET encoder against the protobuf writer, the STG GPT dp2-tp2-pp2
 * reference (same collectives per rank, run time within 10 %), closed forms (DP
 * gradient bytes, ZeRO-1/3 patterns, TP collectives per layer, EP all-to-alls,
 * FLOPs, pipeline bubble), group placement by rank order, every backend, files
 * read back (module reader, Chakra schema, gzip, JSON), determinism, bad shapes.
 */

#include "chakra.pb.h"
#include "system-test-util.h"

#include "ns3/astra-config.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/et-writer.h"
#include "ns3/llm-workload.h"
#include "ns3/test.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unistd.h>

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::systest;

namespace
{

using Groups = std::map<std::string, std::vector<uint32_t>>;

/// The shape of ../shared/reference/stg-gpt-dp2-tp2-pp2 (generator_stdout.log and the
/// trace: 4 layers, hidden 1024, FFN 4096 with two matrices, vocab 32000, 512 tokens per
/// micro-batch and replica, 4 micro-batches, sequence parallel, embedding replicated over
/// TP, DP innermost; sizes are element counts, i.e. 1 byte per element; layer gradients
/// all-reduced per micro-batch, embedding gradients once; the weight update is a plain add).
LlmWorkloadConfig
StgConfig()
{
    LlmWorkloadConfig c;
    c.model.layers = 4;
    c.model.hidden = 1024;
    c.model.ffnHidden = 4096;
    c.model.heads = 16;
    c.model.kvHeads = 16;
    c.model.vocab = 32000;
    c.model.seqLength = 512;
    c.microBatch = 1;
    c.globalBatch = 8;
    c.dp = 2;
    c.tp = 2;
    c.pp = 2;
    c.sequenceParallel = true;
    c.vocabParallel = false;
    c.rankOrder = "dp,tp,pp";
    c.gradSync = LlmGradSync::MICROBATCH;
    c.bytesPerElement = 1;
    c.optimizerBytesPerParam = 0;
    return c;
}

/// A small GPT-style model (MHA, GeLU FFN 4h) for closed forms.
LlmWorkloadConfig
SmallGpt(uint32_t dp, uint32_t tp, uint32_t pp)
{
    LlmWorkloadConfig c;
    c.model.layers = 8;
    c.model.hidden = 256;
    c.model.ffnHidden = 1024;
    c.model.heads = 8;
    c.model.kvHeads = 8;
    c.model.vocab = 1024;
    c.model.seqLength = 128;
    c.microBatch = 2;
    c.globalBatch = uint64_t(2) * dp * 4; // 4 micro-batches
    c.dp = dp;
    c.tp = tp;
    c.pp = pp;
    return c;
}

/// (type, members) -> (count, bytes) of a rank's collectives
using CollSummary = std::map<std::pair<int, std::vector<uint32_t>>, std::pair<uint64_t, uint64_t>>;

CollSummary
Collectives(const WorkloadGraph& g, const Groups& groups, uint32_t npus)
{
    CollSummary s;
    std::vector<uint32_t> all;
    for (uint32_t r = 0; r < npus; ++r)
    {
        all.push_back(r);
    }
    for (const auto& n : g.nodes)
    {
        if (n.kind != NodeKind::COMM_COLL)
        {
            continue;
        }
        std::vector<uint32_t> members = all;
        if (!n.pgName.empty() && n.pgName != "0")
        {
            members = groups.at(n.pgName);
        }
        std::sort(members.begin(), members.end());
        auto& v = s[{int(n.collType), members}];
        v.first++;
        v.second += n.commSize;
    }
    return s;
}

/// (SEND?, peer) -> (count, bytes)
std::map<std::pair<bool, int32_t>, std::pair<uint64_t, uint64_t>>
PointToPoint(const WorkloadGraph& g)
{
    std::map<std::pair<bool, int32_t>, std::pair<uint64_t, uint64_t>> s;
    for (const auto& n : g.nodes)
    {
        if (n.kind == NodeKind::COMM_SEND || n.kind == NodeKind::COMM_RECV)
        {
            const bool send = n.kind == NodeKind::COMM_SEND;
            auto& v = s[{send, send ? n.commDst : n.commSrc}];
            v.first++;
            v.second += n.commSize;
        }
    }
    return s;
}

/// sum of comm_size of collectives of a type on a group name
std::pair<uint64_t, uint64_t>
CountBytes(const WorkloadGraph& g, CollType t, const std::string& pg)
{
    uint64_t n = 0;
    uint64_t b = 0;
    for (const auto& x : g.nodes)
    {
        if (x.kind == NodeKind::COMM_COLL && x.collType == t && x.pgName == pg)
        {
            n++;
            b += x.commSize;
        }
    }
    return {n, b};
}

std::string
TempDir(const std::string& tag)
{
    std::string d = std::filesystem::temp_directory_path().string() + "/astra-wgen-" + tag + "-" +
                    std::to_string(::getpid());
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

SystemParams
Roofline(double tflops, double membw)
{
    SystemParams p;
    p.splits = 4;
    p.activeChunks = 1;
    p.endpointDelayNs = 10;
    p.localMemBwGBps = membw;
    p.peakPerfTflops = tflops;
    return p;
}

AstraRunResult
RunGen(const LlmWorkloadGenerator& gen,
       std::shared_ptr<const Topology> topo,
       const SystemParams& p,
       const std::string& backend = "analytical")
{
    AstraRunOptions o;
    o.backend = backend;
    o.commGroups = gen.GetCommGroups();
    return AstraSimHelper::Run(topo, p, gen.BuildAll(), o);
}

// ------------------------------------------------------------------ cases

/// The streaming encoder writes the bytes of the protobuf writer.
class EncoderTestCase : public TestCase
{
  public:
    EncoderTestCase()
        : TestCase("streaming ET encoder = protobuf writer byte for byte; gzip round trip")
    {
    }

  private:
    static std::string Stream(const WorkloadGraph& g, bool legacy)
    {
        ChakraWriteOptions o;
        std::string s =
            legacy ? std::string()
                   : SerializeChakraHeader(g.version.empty() ? o.version : g.version, g.commGroups);
        for (const auto& n : g.nodes)
        {
            AppendChakraNode(s, n, legacy);
        }
        return s;
    }

    void DoRun() override
    {
        std::vector<WorkloadGraph> graphs;
        // every node kind and attribute, negative values, long deps
        WorkloadGraph g;
        g.version = "0.0.4";
        g.commGroups["7"] = {1, 3, 5};
        for (int i = 0; i < 9; ++i)
        {
            WorkloadNode n;
            n.id = i * 1000003ull;
            n.name = i == 3 ? std::string() : "node" + std::to_string(i) + std::string(i * 40, 'x');
            n.kind = NodeKind(i % 8);
            n.commSize = i == 2 ? 0 : (1ull << (i * 7));
            n.collType = CollType(i % 10);
            n.commSrc = i == 5 ? -1 : -7 + i;
            n.commDst = i == 6 ? 123456 : -1;
            n.commTag = i == 4 ? -99 : i * 77;
            n.commPriority = i == 1 ? -3 : i;
            n.pgName = i % 2 ? std::to_string(i) : std::string();
            n.involvedDim = std::vector<bool>(i % 4, true);
            if (i % 4 == 2)
            {
                n.involvedDim[0] = false;
            }
            n.hasNumOps = i % 3 != 0;
            n.numOps = i * 1234567891ull;
            n.tensorSize = i == 7 ? 0 : i * 4096ull;
            n.isCpuOp = i == 8;
            n.opType = i % 3 == 1 ? "GEMM" : "";
            n.durationMicros = i * 3;
            n.durationNs = i == 4 ? 0 : i * 3001ull;
            for (int d = 0; d < i * 30; ++d)
            {
                (d % 2 ? n.dataDeps : n.ctrlDeps).push_back(d * 991ull);
            }
            g.nodes.push_back(n);
        }
        graphs.push_back(g);
        graphs.push_back(LlmWorkloadGenerator(StgConfig()).BuildRank(5));
        LlmWorkloadConfig moe = SmallGpt(4, 2, 2);
        moe.model.experts = 4;
        moe.model.topK = 2;
        moe.ep = 2;
        moe.sequenceParallel = true;
        moe.zeroStage = 1;
        moe.computeTflops = 100;
        moe.offloadOptimizer = true;
        graphs.push_back(LlmWorkloadGenerator(moe).BuildRank(3));
        graphs.push_back(
            ReadChakraFile(GetReferenceDir() + "/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2.4.et", 4));
        for (size_t k = 0; k < graphs.size(); ++k)
        {
            for (bool legacy : {false, true})
            {
                ChakraWriteOptions o;
                o.legacy = legacy;
                const std::string ref = SerializeChakra(graphs[k], o);
                const std::string mine = Stream(graphs[k], legacy);
                NS_TEST_EXPECT_MSG_EQ(ref.size(),
                                      mine.size(),
                                      "graph " << k << " legacy " << legacy);
                NS_TEST_EXPECT_MSG_EQ((ref == mine),
                                      true,
                                      "identical bytes, graph " << k << " legacy " << legacy);
            }
        }
        // gzip: the reader takes it; the level is honoured and checked
        const std::string raw = Stream(graphs[1], false);
        const std::string z1 = GzipBytes(raw, 1);
        const std::string z9 = GzipBytes(raw, 9);
        NS_TEST_EXPECT_MSG_EQ((uint8_t(z1[0]) == 0x1f && uint8_t(z1[1]) == 0x8b),
                              true,
                              "gzip magic");
        NS_TEST_EXPECT_MSG_LT(z9.size(), raw.size() / 3, "compresses");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(z9.size(), z1.size(), "level 9 no larger than level 1");
        WorkloadGraph back = ReadChakraBuffer(z1, "gz", 5);
        NS_TEST_ASSERT_MSG_EQ(back.nodes.size(), graphs[1].nodes.size(), "gzip round trip");
        bool same = true;
        for (size_t i = 0; i < back.nodes.size(); ++i)
        {
            same = same && back.nodes[i] == graphs[1].nodes[i];
        }
        NS_TEST_EXPECT_MSG_EQ(same, true, "gzip round trip: every node equal");
        bool threw = false;
        try
        {
            GzipBytes(raw, 10);
        }
        catch (const WorkloadError& e)
        {
            threw = std::string(e.what()).find("gzip level 10") != std::string::npos;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "gzip level 10 rejected");
        ChakraWriteOptions bad;
        bad.gzip = true;
        bad.gzipLevel = 12;
        threw = false;
        try
        {
            SerializeChakra(graphs[1], bad);
        }
        catch (const WorkloadError&)
        {
            threw = true;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "SerializeChakra rejects gzip level 12");
    }
};

/// The STG GPT dp2-tp2-pp2 reference: same collectives and time within 10 %.
class StgReferenceTestCase : public TestCase
{
  public:
    StgReferenceTestCase()
        : TestCase("STG GPT dp2-tp2-pp2: per rank the same collectives (type, group, count, "
                   "bytes) and SEND and RECV; run time within 10 % (Ring_4chunks, Ring_8npus)")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = GetReferenceDir() + "/stg-gpt-dp2-tp2-pp2";
        auto ref = ReadChakraPrefix(dir + "/gpt_dp2_tp2_pp2", 8);
        Groups refGroups = AstraSimHelper::LoadCommGroups(dir + "/gpt_dp2_tp2_pp2.json");
        LlmWorkloadGenerator gen(StgConfig());
        NS_TEST_ASSERT_MSG_EQ(gen.GetNpuCount(), 8, "8 NPUs");
        auto mine = gen.BuildAll();
        for (uint32_t r = 0; r < 8; ++r)
        {
            const CollSummary a = Collectives(ref[r], refGroups, 8);
            const CollSummary b = Collectives(*mine[r], gen.GetCommGroups(), 8);
            NS_TEST_EXPECT_MSG_EQ(a.size(), b.size(), "rank " << r << ": (type, group) pairs");
            for (const auto& [k, v] : a)
            {
                auto it = b.find(k);
                NS_TEST_EXPECT_MSG_EQ((it != b.end()), true, "rank " << r << " type " << k.first);
                if (it != b.end())
                {
                    NS_TEST_EXPECT_MSG_EQ(it->second.first,
                                          v.first,
                                          "rank " << r << " count, type " << k.first);
                    NS_TEST_EXPECT_MSG_EQ(it->second.second,
                                          v.second,
                                          "rank " << r << " bytes, type " << k.first);
                }
            }
            const auto pa = PointToPoint(ref[r]);
            const auto pb = PointToPoint(*mine[r]);
            NS_TEST_EXPECT_MSG_EQ((pa == pb),
                                  true,
                                  "rank " << r << ": SEND/RECV peers, counts, bytes");
        }
        // totals per type on rank 0 (printed for the report)
        std::map<int, uint64_t> byType;
        for (const auto& [k, v] : Collectives(*mine[0], gen.GetCommGroups(), 8))
        {
            byType[k.first] += v.second;
        }
        std::printf("  rank 0 bytes: all-reduce %llu, all-gather %llu, reduce-scatter %llu\n",
                    (unsigned long long)byType[int(CollType::ALL_REDUCE)],
                    (unsigned long long)byType[int(CollType::ALL_GATHER)],
                    (unsigned long long)byType[int(CollType::REDUCE_SCATTER)]);
        NS_TEST_EXPECT_MSG_EQ(byType[int(CollType::ALL_REDUCE)],
                              8 * 6291456ull + 2 * 32768000ull,
                              "AR");

        // the same system and network as the reference suite, analytical backend
        const std::string ax = GetReferenceDir() + "/astra-sim/examples/";
        auto topo = std::make_shared<Topology>(
            Topology::FromFile(ax + "network/analytical/Ring_8npus.yml"));
        SystemParams p =
            AstraSimHelper::LoadSystemParams(ax + "system/native_collectives/Ring_4chunks.json",
                                             GetReferenceDir() + "/astra-sim");
        Graphs refGraphs;
        for (auto& g : ref)
        {
            refGraphs.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
        }
        AstraRunOptions o;
        o.commGroups = refGroups;
        AstraRunResult a = AstraSimHelper::Run(topo, p, refGraphs, o);
        AstraRunResult b = RunGen(gen, topo, p);
        NS_TEST_ASSERT_MSG_EQ(a.unfinished.size() + b.unfinished.size(),
                              0u,
                              a.pending << b.pending);
        const double err =
            std::fabs(double(b.MaxFinish()) - double(a.MaxFinish())) / double(a.MaxFinish());
        std::printf("  reference %lld ns, generated %lld ns (%+.2f %%)\n",
                    (long long)a.MaxFinish(),
                    (long long)b.MaxFinish(),
                    100.0 * (double(b.MaxFinish()) - double(a.MaxFinish())) /
                        double(a.MaxFinish()));
        NS_TEST_EXPECT_MSG_LT(err, 0.10, "run time within 10 % of the reference trace's");
    }
};

/// DP gradient all-reduce bytes = gradient bytes of the rank's parameters.
class DpBytesTestCase : public TestCase
{
  public:
    DpBytesTestCase()
        : TestCase("closed form: DP all-reduce comm_size per rank = 2 B x params over TP and PP; "
                   "buckets, per-micro-batch sync, expert gradients over expert-DP")
    {
    }

  private:
    void DoRun() override
    {
        // 4 stages: the middle stages hold layers only
        LlmWorkloadConfig c = SmallGpt(2, 2, 4);
        LlmWorkloadGenerator gen(c);
        const uint64_t D = 256;
        const uint64_t layerParams = 12 * D * D; // MHA + 4h GeLU FFN
        const uint64_t vocabParams = 1024 * D;
        NS_TEST_EXPECT_MSG_EQ(gen.GetModelParams(), 8 * layerParams + 2 * vocabParams, "params");
        uint64_t sumStages = 0;
        for (uint32_t s = 0; s < 4; ++s)
        {
            const uint32_t r = gen.GetRank({0, 0, s});
            WorkloadGraph g = gen.BuildRank(r);
            const auto [n, bytes] = CountBytes(g,
                                               CollType::ALL_REDUCE,
                                               gen.GetGroupName(r, LlmWorkloadGenerator::GROUP_DP));
            const uint64_t expect =
                2 * (8 * layerParams / 2 / 4 + ((s == 0 || s == 3) ? vocabParams / 2 : 0));
            NS_TEST_EXPECT_MSG_EQ(bytes, expect, "stage " << s);
            NS_TEST_EXPECT_MSG_EQ(n,
                                  2 + ((s == 0 || s == 3) ? 1u : 0u),
                                  "one all-reduce per layer (+ embedding / head)");
            if (s == 1 || s == 2)
            {
                // uniform stages: 2 x parameter bytes / TP / PP with 2-byte gradients
                NS_TEST_EXPECT_MSG_EQ(bytes, 2 * (8 * layerParams) / 2 / 4, "2 P / TP / PP");
            }
            sumStages += bytes;
        }
        NS_TEST_EXPECT_MSG_EQ(sumStages, 2 * gen.GetModelParams() / 2, "over the stages: 2 P / TP");

        // buckets: same total, fewer collectives, each closed bucket >= the bucket size
        LlmWorkloadConfig cb = SmallGpt(2, 2, 1);
        cb.bucketMiB = 1.5;
        LlmWorkloadGenerator gb(cb);
        WorkloadGraph g = gb.BuildRank(0);
        const std::string dp = gb.GetGroupName(0, LlmWorkloadGenerator::GROUP_DP);
        std::vector<uint64_t> sizes;
        for (const auto& n : g.nodes)
        {
            if (n.kind == NodeKind::COMM_COLL && n.pgName == dp)
            {
                sizes.push_back(n.commSize);
            }
        }
        uint64_t total = 0;
        for (size_t i = 0; i < sizes.size(); ++i)
        {
            total += sizes[i];
            if (i + 1 < sizes.size())
            {
                NS_TEST_EXPECT_MSG_GT_OR_EQ(sizes[i], uint64_t(1.5 * 1048576), "bucket " << i);
            }
        }
        NS_TEST_EXPECT_MSG_EQ(total, 2 * gb.GetStageParams(0), "bucketed total");
        NS_TEST_EXPECT_MSG_LT(sizes.size(), 10u, "fewer than one per layer");
        NS_TEST_EXPECT_MSG_GT(sizes.size(), 1u, "more than one bucket");

        // per micro-batch sync: layers m times, embedding and head once
        LlmWorkloadConfig cm = SmallGpt(2, 2, 1);
        cm.gradSync = LlmGradSync::MICROBATCH;
        LlmWorkloadGenerator gm(cm);
        const auto [nm, bm] = CountBytes(gm.BuildRank(0),
                                         CollType::ALL_REDUCE,
                                         gm.GetGroupName(0, LlmWorkloadGenerator::GROUP_DP));
        NS_TEST_EXPECT_MSG_EQ(gm.GetMicroBatches(), 4, "4 micro-batches");
        NS_TEST_EXPECT_MSG_EQ(nm,
                              4 * 8 + 2,
                              "per micro-batch: every layer; embedding and head once");
        NS_TEST_EXPECT_MSG_EQ(bm, 2 * (4 * 8 * layerParams / 2 + 2 * vocabParams / 2), "bytes");

        // MoE: expert gradients over the expert-DP group (tp x dp / ep ranks), dense over DP
        LlmWorkloadConfig ce = SmallGpt(4, 2, 1);
        ce.model.experts = 4;
        ce.model.topK = 2;
        ce.ep = 2;
        ce.sequenceParallel = true;
        LlmWorkloadGenerator ge(ce);
        WorkloadGraph gx = ge.BuildRank(0);
        const std::string edp = ge.GetGroupName(0, LlmWorkloadGenerator::GROUP_EDP);
        NS_TEST_EXPECT_MSG_EQ(ge.GetCommGroups().at(edp).size(),
                              4u,
                              "expert-DP group: tp x dp / ep");
        const auto [ne, be] = CountBytes(gx, CollType::ALL_REDUCE, edp);
        NS_TEST_EXPECT_MSG_EQ(be,
                              2 * 8 * (4 / 2) * 2 * D * 1024,
                              "expert gradient bytes: L x E/ep x 2 D F");
        NS_TEST_EXPECT_MSG_EQ(ne, 8u, "one per MoE layer");
        const auto [nd, bd] = CountBytes(gx,
                                         CollType::ALL_REDUCE,
                                         ge.GetGroupName(0, LlmWorkloadGenerator::GROUP_DP));
        NS_TEST_EXPECT_MSG_EQ(bd,
                              2 * (8 * (4 * D * D / 2 + D * 4) + 2 * vocabParams / 2),
                              "dense gradient bytes (router replicated)");
        NS_TEST_EXPECT_MSG_EQ(nd, 10u, "dense: per layer + embedding + head");
    }
};

/// ZeRO-3 (FSDP) and ZeRO-1/2 communication patterns.
class ZeroTestCase : public TestCase
{
  public:
    ZeroTestCase()
        : TestCase("closed forms: ZeRO-3 all-gathers parameters before every unit's forward and "
                   "backward and reduce-scatters gradients; ZeRO-1 and 2 reduce-scatter + "
                   "all-gather after the step")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t D = 256;
        const uint64_t layer = 12 * D * D / 2; // per TP rank
        const uint64_t vocab = 1024 * D / 2;
        for (auto sync : {LlmGradSync::ITERATION, LlmGradSync::MICROBATCH})
        {
            LlmWorkloadConfig c = SmallGpt(4, 2, 1);
            c.zeroStage = 3;
            c.gradSync = sync;
            LlmWorkloadGenerator gen(c);
            const uint32_t m = gen.GetMicroBatches();
            WorkloadGraph g = gen.BuildRank(0);
            const std::string dp = gen.GetGroupName(0, LlmWorkloadGenerator::GROUP_DP);
            const auto [nag, bag] = CountBytes(g, CollType::ALL_GATHER, dp);
            const auto [nrs, brs] = CountBytes(g, CollType::REDUCE_SCATTER, dp);
            const auto [nar, bar] = CountBytes(g, CollType::ALL_REDUCE, dp);
            const uint64_t units = 8 + 2;
            NS_TEST_EXPECT_MSG_EQ(nag,
                                  2 * m * units,
                                  "two parameter all-gathers per unit and micro-batch");
            NS_TEST_EXPECT_MSG_EQ(bag,
                                  2 * m * 2 * (8 * layer + 2 * vocab) / 4,
                                  "shards of 2 P / dp");
            NS_TEST_EXPECT_MSG_EQ(nar + bar, 0, "no DP all-reduce under ZeRO-3");
            if (sync == LlmGradSync::ITERATION)
            {
                NS_TEST_EXPECT_MSG_EQ(nrs, units, "one reduce-scatter per unit");
                NS_TEST_EXPECT_MSG_EQ(brs, 2 * (8 * layer + 2 * vocab), "full gradients");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(nrs,
                                      m * 8 + 2,
                                      "per micro-batch per layer, embedding/head once");
                NS_TEST_EXPECT_MSG_EQ(brs, 2 * (m * 8 * layer + 2 * vocab), "gradient bytes");
            }
            // every layer's first forward compute waits for that layer's parameter gather
            uint64_t checked = 0;
            bool ok = true;
            for (const auto& n : g.nodes)
            {
                const std::string& nm = n.name;
                const auto pos = nm.find(".f.ln1");
                if (pos == std::string::npos || nm.find("recompute") != std::string::npos)
                {
                    continue;
                }
                const std::string layerTag =
                    nm.substr(nm.find('.') + 1, pos - nm.find('.') - 1); // "L3"
                bool found = false;
                for (uint64_t d : n.dataDeps)
                {
                    const WorkloadNode* dep = g.Find(d);
                    found = found ||
                            (dep && dep->collType == CollType::ALL_GATHER &&
                             dep->kind == NodeKind::COMM_COLL &&
                             dep->name.find(layerTag + ".f.zero3_allgather") != std::string::npos);
                }
                ok = ok && found;
                checked++;
            }
            NS_TEST_EXPECT_MSG_EQ(checked, 8 * m, "layer forwards checked");
            NS_TEST_EXPECT_MSG_EQ(ok, true, "each waits for its own parameter all-gather");
            const LlmMemoryEstimate me = gen.GetMemoryEstimate(0);
            NS_TEST_EXPECT_MSG_EQ(me.params,
                                  2 * ((8 * layer + 2 * vocab + 3) / 4),
                                  "ZeRO-3 parameters sharded");
        }
        // ZeRO-1 = ZeRO-2 traces: reduce-scatter of gradients, all-gather of parameters after the
        // step
        WorkloadGraph g1;
        for (uint32_t z : {1u, 2u})
        {
            LlmWorkloadConfig c = SmallGpt(4, 2, 1);
            c.zeroStage = z;
            c.bucketMiB = 1;
            LlmWorkloadGenerator gen(c);
            WorkloadGraph g = gen.BuildRank(0);
            const std::string dp = gen.GetGroupName(0, LlmWorkloadGenerator::GROUP_DP);
            const auto [nrs, brs] = CountBytes(g, CollType::REDUCE_SCATTER, dp);
            const auto [nag, bag] = CountBytes(g, CollType::ALL_GATHER, dp);
            NS_TEST_EXPECT_MSG_EQ(brs, 2 * (8 * layer + 2 * vocab), "gradients reduce-scattered");
            NS_TEST_EXPECT_MSG_EQ(nag, nrs, "one parameter all-gather per bucket");
            NS_TEST_EXPECT_MSG_EQ(bag, brs / 4, "parameter shards (2-byte parameters) / dp");
            const WorkloadNode* step = nullptr;
            for (const auto& n : g.nodes)
            {
                if (n.opType == "OPTIMIZER")
                {
                    step = &n;
                }
            }
            NS_TEST_ASSERT_MSG_EQ((step != nullptr), true, "optimizer step");
            NS_TEST_EXPECT_MSG_EQ(step->numOps,
                                  10 * ((8 * layer + 2 * vocab + 3) / 4),
                                  "Adam on the shard");
            bool afterStep = true;
            for (const auto& n : g.nodes)
            {
                if (n.kind == NodeKind::COMM_COLL && n.collType == CollType::ALL_GATHER &&
                    n.pgName == dp)
                {
                    afterStep = afterStep && n.dataDeps == std::vector<uint64_t>{step->id};
                }
            }
            NS_TEST_EXPECT_MSG_EQ(afterStep, true, "parameter all-gathers wait for the step");
            const LlmMemoryEstimate me = gen.GetMemoryEstimate(0);
            NS_TEST_EXPECT_MSG_EQ(
                me.grads,
                2 * (z == 2 ? (8 * layer + 2 * vocab + 3) / 4 : 8 * layer + 2 * vocab),
                "ZeRO-2 shards gradients");
            if (z == 1)
            {
                g1 = g;
            }
            else
            {
                bool same = g.nodes.size() == g1.nodes.size();
                for (size_t i = 0; same && i < g.nodes.size(); ++i)
                {
                    same = g.nodes[i] == g1.nodes[i];
                }
                NS_TEST_EXPECT_MSG_EQ(same, true, "ZeRO-1 and ZeRO-2 communicate alike");
            }
        }
    }
};

/// Tensor-parallel collectives per layer, expert all-to-alls.
class TpCountTestCase : public TestCase
{
  public:
    TpCountTestCase()
        : TestCase("closed forms: TP collectives per layer and micro-batch (4 AR; SP 6 AG + "
                   "4 RS; + forward again with recompute); MoE 4 all-to-alls")
    {
    }

  private:
    void DoRun() override
    {
        struct Want
        {
            bool sp;
            bool rc;
            uint32_t ar;
            uint32_t ag;
            uint32_t rs;
        };

        for (const Want& w : {Want{false, false, 4, 0, 0},
                              Want{true, false, 0, 6, 4},
                              Want{false, true, 6, 0, 0},
                              Want{true, true, 0, 8, 6}})
        {
            LlmWorkloadConfig c = SmallGpt(1, 4, 2);
            c.sequenceParallel = w.sp;
            c.recompute = w.rc ? LlmRecompute::FULL : LlmRecompute::NONE;
            LlmWorkloadGenerator gen(c);
            const uint32_t r = gen.GetRank({0, 1, 1});
            WorkloadGraph g = gen.BuildRank(r);
            const std::string tp = gen.GetGroupName(r, LlmWorkloadGenerator::GROUP_TP);
            const uint64_t t = 2 * 128;
            bool ok = true;
            for (uint32_t mb = 0; mb < gen.GetMicroBatches(); ++mb)
            {
                for (uint32_t l = 4; l < 8; ++l)
                {
                    const std::string tag =
                        "mb" + std::to_string(mb) + ".L" + std::to_string(l) + ".";
                    const std::string rtag =
                        "mb" + std::to_string(mb) + ".recompute.L" + std::to_string(l) + ".";
                    uint32_t ar = 0, ag = 0, rs = 0;
                    for (const auto& n : g.nodes)
                    {
                        if (n.kind != NodeKind::COMM_COLL || n.pgName != tp ||
                            (n.name.compare(0, tag.size(), tag) != 0 &&
                             n.name.compare(0, rtag.size(), rtag) != 0))
                        {
                            continue;
                        }
                        const uint64_t shard = t / 4 * 256 * 2;
                        const uint64_t full = t * 256 * 2;
                        if (n.collType == CollType::ALL_REDUCE)
                        {
                            ar++;
                            ok = ok && n.commSize == full;
                        }
                        if (n.collType == CollType::ALL_GATHER)
                        {
                            ag++;
                            ok = ok && n.commSize == shard;
                        }
                        if (n.collType == CollType::REDUCE_SCATTER)
                        {
                            rs++;
                            ok = ok && n.commSize == full;
                        }
                    }
                    ok = ok && ar == w.ar && ag == w.ag && rs == w.rs;
                    if (mb == 0 && l == 4)
                    {
                        NS_TEST_EXPECT_MSG_EQ(ar,
                                              w.ar,
                                              "all-reduces, sp " << w.sp << " rc " << w.rc);
                        NS_TEST_EXPECT_MSG_EQ(ag, w.ag, "all-gathers");
                        NS_TEST_EXPECT_MSG_EQ(rs, w.rs, "reduce-scatters");
                    }
                }
            }
            NS_TEST_EXPECT_MSG_EQ(ok,
                                  true,
                                  "every layer and micro-batch, with the sizes t D e / (t/tp) D e");
        }
        // MoE: dispatch and combine in forward and backward, tokens x top-k x D x e
        LlmWorkloadConfig c = SmallGpt(4, 2, 1);
        c.model.experts = 8;
        c.model.topK = 2;
        c.ep = 4;
        c.sequenceParallel = true;
        c.capacityFactor = 1.25;
        LlmWorkloadGenerator gen(c);
        WorkloadGraph g = gen.BuildRank(0);
        const std::string ep = gen.GetGroupName(0, LlmWorkloadGenerator::GROUP_EP);
        NS_TEST_EXPECT_MSG_EQ(gen.GetCommGroups().at(ep).size(), 4u, "EP group of 4");
        const auto [n, b] = CountBytes(g, CollType::ALL_TO_ALL, ep);
        const uint64_t tokens = uint64_t(std::ceil(2 * 128 / 2 * 2 * 1.25));
        NS_TEST_EXPECT_MSG_EQ(n,
                              4u * 8 * gen.GetMicroBatches(),
                              "4 all-to-alls per MoE layer and micro-batch");
        NS_TEST_EXPECT_MSG_EQ(b, n * tokens * 256 * 2, "size: tokens x top-k x capacity x D x e");
        const auto [ntp, btp] = CountBytes(g,
                                           CollType::ALL_GATHER,
                                           gen.GetGroupName(0, LlmWorkloadGenerator::GROUP_TP));
        NS_TEST_EXPECT_MSG_EQ(ntp,
                              gen.GetMicroBatches() * (8 * 3 + 1 + 2),
                              "MoE layers: attention's 3 AG; embedding 1, head 2");
        (void)btp;
    }
};

/// FLOPs of GEMMs and attention = Narayanan et al. (2021) eq. (3).
class FlopsTestCase : public TestCase
{
  public:
    FlopsTestCase()
        : TestCase(
              "closed form: GEMM + attention FLOPs per iteration = 72 B s L h^2 (1 + s over 6h "
              "+ V over 12hL); 96 ... (1 + s over 6h + V over 16hL) with full recompute")
    {
    }

  private:
    void DoRun() override
    {
        for (bool rc : {false, true})
        {
            LlmWorkloadConfig c = SmallGpt(2, 2, 2);
            c.sequenceParallel = true;
            c.recompute = rc ? LlmRecompute::FULL : LlmRecompute::NONE;
            LlmWorkloadGenerator gen(c);
            uint64_t sum = 0;
            for (uint32_t r = 0; r < gen.GetNpuCount(); ++r)
            {
                for (const auto& n : gen.BuildRank(r).nodes)
                {
                    if (n.kind == NodeKind::COMP && (n.opType == "GEMM" || n.opType == "ATTENTION"))
                    {
                        sum += n.numOps;
                    }
                }
            }
            const uint64_t B = c.globalBatch, s = 128, L = 8, h = 256, V = 1024;
            const uint64_t want =
                rc ? 96 * B * s * L * h * h + 16 * B * s * s * L * h + 6 * B * s * h * V
                   : 72 * B * s * L * h * h + 12 * B * s * s * L * h + 6 * B * s * h * V;
            NS_TEST_EXPECT_MSG_EQ(sum, want, "recompute " << rc);
        }
    }
};

/// Pipeline bubble (p - 1) / (m + p - 1), measured on the analytical backend.
class BubbleTestCase : public TestCase
{
  public:
    BubbleTestCase()
        : TestCase("pipeline bubble = (p-1) over (m+p-1) for GPipe and 1F1B with equal stages "
                   "(analytical run); in-flight micro-batches m vs p - stage")
    {
    }

  private:
    void DoRun() override
    {
        for (auto sched : {LlmPipelineSchedule::GPIPE, LlmPipelineSchedule::ONE_F_ONE_B})
        {
            for (uint32_t m : {4u, 8u})
            {
                const uint32_t p = 4;
                LlmWorkloadConfig c;
                c.model.layers = 4;
                c.model.hidden = 1024;
                c.model.ffnHidden = 4096;
                c.model.heads = 16;
                c.model.kvHeads = 16;
                c.model.vocab = 8; // embedding and output layer negligible: equal stages
                c.model.seqLength = 512;
                c.microBatch = 2;
                c.globalBatch = 2 * m;
                c.pp = p;
                c.schedule = sched;
                c.optimizerStep = false;
                c.computeTflops = 1; // a layer's forward takes ~13 ms
                LlmWorkloadGenerator gen(c);
                auto res = RunGen(gen, Topo1D(DimType::SWITCH, p, 1000, 10), Roofline(0, 0));
                NS_TEST_ASSERT_MSG_EQ(res.unfinished.size(), 0u, res.pending);
                const double T = double(res.MaxFinish());
                const double want = double(p - 1) / (m + p - 1);
                for (uint32_t s = 0; s < p; ++s)
                {
                    const double busy = double(res.stats[s].compute.GetNanoSeconds());
                    const double bubble = 1.0 - busy / T;
                    std::printf("  %s m=%u stage %u: bubble %.4f (closed form %.4f)\n",
                                sched == LlmPipelineSchedule::GPIPE ? "gpipe" : "1f1b",
                                m,
                                s,
                                bubble,
                                want);
                    NS_TEST_EXPECT_MSG_LT(std::fabs(bubble - want), 0.002, "stage " << s);
                }
                // in-flight micro-batches along the compute stream (forwards started minus
                // backwards done): GPipe m on every stage, 1F1B p - stage
                for (uint32_t s = 0; s < p; ++s)
                {
                    WorkloadGraph g = gen.BuildRank(s);
                    int cur = 0, peak = 0;
                    std::set<std::string> seen;
                    for (const auto& n : g.nodes)
                    {
                        if (n.kind != NodeKind::COMP)
                        {
                            continue;
                        }
                        const std::string mb = n.name.substr(0, n.name.find('.'));
                        const bool fwd = n.name.find(".f.") != std::string::npos;
                        if (fwd && seen.insert(mb + "f").second)
                        {
                            peak = std::max(peak, ++cur);
                        }
                        if (!fwd && seen.insert(mb + "b").second)
                        {
                            --cur;
                        }
                    }
                    const int want2 =
                        sched == LlmPipelineSchedule::GPIPE ? int(m) : int(std::min(p - s, m));
                    NS_TEST_EXPECT_MSG_EQ(peak, want2, "in flight, stage " << s);
                }
            }
        }
    }
};

/// Groups land where the rank order puts them.
class PlacementTestCase : public TestCase
{
  public:
    PlacementTestCase()
        : TestCase("rank order: tp innermost puts TP groups on dimension 0 (scale-up) and DP on "
                   "dimension 1; dp innermost swaps them; JSON parsed by ParseCommGroups")
    {
    }

  private:
    void DoRun() override
    {
        for (std::string order : {"tp,dp,pp", "dp,tp,pp"})
        {
            LlmWorkloadConfig c = SmallGpt(2, 2, 1);
            c.rankOrder = order;
            c.sequenceParallel = true;
            LlmWorkloadGenerator gen(c);
            // JSON round trip through the module's parser
            const std::string dir = TempDir("json");
            {
                std::ofstream f(dir + "/g.json");
                f << gen.GetCommGroupsJson();
            }
            const auto parsed = CommGroupsByName(ParseCommGroups(dir + "/g.json", 4));
            NS_TEST_EXPECT_MSG_EQ((parsed == gen.GetCommGroups()), true, "JSON = groups");
            std::filesystem::remove_all(dir);
            const bool tpInner = order == "tp,dp,pp";
            const auto& tpg =
                gen.GetCommGroups().at(gen.GetGroupName(0, LlmWorkloadGenerator::GROUP_TP));
            NS_TEST_EXPECT_MSG_EQ((tpg == std::vector<uint32_t>{0, tpInner ? 1u : 2u}),
                                  true,
                                  order);
            // a 2 x 2 topology: dimension 0 = scale-up
            auto topo = TopoDims({{DimType::SWITCH, 2, 200, 100}, {DimType::SWITCH, 2, 25, 1000}});
            SystemParams p = Roofline(100, 1000);
            auto res = RunGen(gen, topo, p);
            NS_TEST_ASSERT_MSG_EQ(res.unfinished.size(), 0u, res.pending);
            std::map<std::string, int> kindOf;
            for (uint32_t r = 0; r < gen.GetNpuCount(); ++r)
            {
                for (int k = 0; k < LlmWorkloadGenerator::GROUP_KINDS; ++k)
                {
                    const std::string& nm = gen.GetGroupName(r, LlmWorkloadGenerator::GroupKind(k));
                    if (!nm.empty())
                    {
                        kindOf[nm] = k;
                    }
                }
            }
            uint32_t tpSeen = 0, dpSeen = 0;
            bool ok = true;
            for (const auto& rec : res.records)
            {
                const bool d0 = rec.placement.find("dim0") != std::string::npos;
                const bool d1 = rec.placement.find("dim1") != std::string::npos;
                const int kind = kindOf.at(rec.group);
                if (kind == LlmWorkloadGenerator::GROUP_TP)
                {
                    tpSeen++;
                    ok = ok && (tpInner ? (d0 && !d1) : (d1 && !d0));
                }
                if (kind == LlmWorkloadGenerator::GROUP_DP)
                {
                    dpSeen++;
                    ok = ok && (tpInner ? (d1 && !d0) : (d0 && !d1));
                }
            }
            NS_TEST_EXPECT_MSG_GT(tpSeen, 0u, "TP collectives ran");
            NS_TEST_EXPECT_MSG_GT(dpSeen, 0u, "DP collectives ran");
            NS_TEST_EXPECT_MSG_EQ(ok, true, order << ": every TP / DP collective on its dimension");
        }
    }
};

/// Files: every backend runs them; read back by the module's reader, by Chakra's schema, gzip.
class FilesAndBackendsTestCase : public TestCase
{
  public:
    FilesAndBackendsTestCase()
        : TestCase("written traces read back (reader, Chakra schema, gzip, legacy), identical for "
                   "any thread count; MoE + SP + PP + ZeRO-1 + offload runs on analytical, flow "
                   "and roce")
    {
    }

  private:
    void DoRun() override
    {
        LlmWorkloadConfig c = SmallGpt(2, 2, 2);
        c.model.hidden = 128;
        c.model.ffnHidden = 512;
        c.model.heads = 4;
        c.model.kvHeads = 2;
        c.model.ffn = LlmFfnKind::SWIGLU;
        c.model.experts = 4;
        c.model.topK = 2;
        c.model.moeEvery = 2;
        c.model.seqLength = 64;
        c.model.vocab = 512;
        c.model.tiedEmbeddings = true;
        c.ep = 2;
        c.sequenceParallel = true;
        c.zeroStage = 1;
        c.offloadOptimizer = true;
        c.bucketMiB = 0.25;
        LlmWorkloadGenerator gen(c);
        const std::string dir = TempDir("files");
        const LlmWriteResult w1 = gen.Write(dir + "/a", "", ChakraWriteOptions(), 1);
        const LlmWriteResult w3 =
            gen.Write(dir + "/b", dir + "/b-groups.json", ChakraWriteOptions(), 3);
        NS_TEST_EXPECT_MSG_EQ(w1.files, 8u, "8 files");
        NS_TEST_EXPECT_MSG_EQ(w1.rawBytes, w3.rawBytes, "same size");
        auto slurp = [](const std::string& p) {
            std::ifstream f(p, std::ios::binary);
            std::ostringstream s;
            s << f.rdbuf();
            return s.str();
        };
        bool identical = true;
        for (uint32_t r = 0; r < 8; ++r)
        {
            identical = identical && slurp(dir + "/a." + std::to_string(r) + ".et") ==
                                         slurp(dir + "/b." + std::to_string(r) + ".et");
        }
        NS_TEST_EXPECT_MSG_EQ(identical, true, "1 and 3 writer threads: identical files");
        NS_TEST_EXPECT_MSG_EQ(slurp(dir + "/a.json"), slurp(dir + "/b-groups.json"), "groups JSON");

        auto back = ReadChakraPrefix(dir + "/a", 8);
        auto built = gen.BuildAll();
        bool same = true;
        uint64_t mem = 0;
        for (uint32_t r = 0; r < 8; ++r)
        {
            same = same && back[r].nodes.size() == built[r]->nodes.size();
            for (size_t i = 0; same && i < back[r].nodes.size(); ++i)
            {
                same = back[r].nodes[i] == built[r]->nodes[i];
                mem += back[r].nodes[i].kind == NodeKind::MEM_LOAD ||
                       back[r].nodes[i].kind == NodeKind::MEM_STORE;
            }
        }
        NS_TEST_EXPECT_MSG_EQ(same, true, "module reader: every node as built");
        NS_TEST_EXPECT_MSG_EQ(mem, 16u, "MEM_LOAD + MEM_STORE of the optimizer state per rank");
        // Chakra's schema, strictly: GlobalMetadata then Node messages
        {
            const std::string bytes = slurp(dir + "/a.0.et");
            google::protobuf::io::CodedInputStream in(
                reinterpret_cast<const uint8_t*>(bytes.data()),
                int(bytes.size()));
            uint32_t len = 0;
            bool ok = in.ReadVarint32(&len);
            auto lim = in.PushLimit(int(len));
            ChakraProtoMsg::GlobalMetadata md;
            ok = ok && md.ParseFromCodedStream(&in) && md.version() == "0.0.4";
            in.PopLimit(lim);
            uint64_t nodes = 0;
            uint64_t colls = 0;
            while (ok && in.ReadVarint32(&len))
            {
                lim = in.PushLimit(int(len));
                ChakraProtoMsg::Node n;
                ok = n.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
                in.PopLimit(lim);
                nodes++;
                colls += n.type() == ChakraProtoMsg::COMM_COLL_NODE;
            }
            NS_TEST_EXPECT_MSG_EQ(ok, true, "every message parses as Chakra Node");
            NS_TEST_EXPECT_MSG_EQ(nodes, built[0]->nodes.size(), "node count");
            NS_TEST_EXPECT_MSG_GT(colls, 0u, "collectives");
        }
        // gzip and legacy files through the reader
        ChakraWriteOptions gz;
        gz.gzip = true;
        gz.gzipLevel = 1;
        const LlmWriteResult wz = gen.Write(dir + "/z", "", gz);
        NS_TEST_EXPECT_MSG_EQ(wz.firstFile, dir + "/z.0.et.gz", "gzip file name");
        NS_TEST_EXPECT_MSG_LT(wz.fileBytes, wz.rawBytes / 3, "compressed");
        auto zback = ReadChakraPrefix(dir + "/z", 8);
        ChakraWriteOptions lg;
        lg.legacy = true;
        gen.Write(dir + "/l", "", lg);
        auto lback = ReadChakraPrefix(dir + "/l", 8);
        bool zsame = true;
        bool lsame = true;
        for (uint32_t r = 0; r < 8; ++r)
        {
            for (size_t i = 0; i < built[r]->nodes.size(); ++i)
            {
                zsame = zsame && zback[r].nodes[i] == built[r]->nodes[i];
                const auto& a = lback[r].nodes[i];
                const auto& b = built[r]->nodes[i];
                std::vector<uint64_t> deps = b.ctrlDeps;
                deps.insert(deps.end(), b.dataDeps.begin(), b.dataDeps.end());
                lsame = lsame && lback[r].legacy && a.dataDeps.empty() && a.ctrlDeps == deps &&
                        a.name == b.name;
            }
        }
        NS_TEST_EXPECT_MSG_EQ(zsame, true, "gzip files read back");
        NS_TEST_EXPECT_MSG_EQ(lsame, true, "legacy files: deps as ctrl deps");
        std::filesystem::remove_all(dir);

        // every backend (RoCE: 8 NPUs, small messages)
        auto topo = TopoDims({{DimType::SWITCH, 2, 100, 250}, {DimType::SWITCH, 4, 25, 1000}});
        SystemParams p = Roofline(100, 1000);
        for (std::string be : {"analytical", "flow", "roce"})
        {
            auto res = RunGen(gen, topo, p, be);
            NS_TEST_EXPECT_MSG_EQ(res.error, "", be);
            NS_TEST_EXPECT_MSG_EQ(res.unfinished.size(), 0u, be << ": " << res.pending);
            uint64_t started = 0, finished = 0;
            for (const auto& rec : res.records)
            {
                started += rec.started;
                finished += rec.finished;
            }
            NS_TEST_EXPECT_MSG_EQ(finished, started, be << ": every collective finished");
            NS_TEST_EXPECT_MSG_GT(res.MaxFinish(), 0, be);
            std::printf("  %s: %lld ns, %zu collectives\n",
                        be.c_str(),
                        (long long)res.MaxFinish(),
                        res.records.size());
        }
    }
};

/// Any valid combination runs to completion.
class CombinationsTestCase : public TestCase
{
  public:
    CombinationsTestCase()
        : TestCase("64 pseudo-random valid combinations (schedule, ZeRO, SP, EP, tied, sync, "
                   "buckets, overlap, recompute, rank order, world size) complete on the "
                   "analytical backend with every collective finished")
    {
    }

  private:
    void DoRun() override
    {
        uint64_t x = 88172645463325252ull; // xorshift64, fixed seed
        auto rnd = [&x](uint32_t n) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            return uint32_t(x % n);
        };
        const std::vector<std::string> orders{"tp,dp,pp", "dp,tp,pp", "pp,tp,dp", "tp,pp,dp"};
        uint32_t runs = 0;
        for (int k = 0; k < 64; ++k)
        {
            const uint32_t tp = 1u << rnd(2);
            const uint32_t pp = 1u << rnd(3);
            const uint32_t dp = 1u << rnd(3);
            LlmWorkloadConfig c;
            c.model.layers = 4 * pp;
            c.model.hidden = 128;
            c.model.ffnHidden = 256;
            c.model.heads = 4;
            c.model.kvHeads = rnd(2) ? 4 : 2;
            c.model.vocab = 256;
            c.model.seqLength = 64;
            c.model.ffn = rnd(2) ? LlmFfnKind::GELU : LlmFfnKind::SWIGLU;
            c.model.tiedEmbeddings = rnd(2);
            const bool moe = rnd(3) == 0;
            c.tp = tp;
            c.pp = pp;
            c.dp = dp;
            c.sequenceParallel = tp > 1 && (moe || rnd(2));
            if (moe)
            {
                c.model.experts = 4;
                c.model.topK = 1 + rnd(2);
                c.model.moeEvery = 1 + rnd(2);
                c.ep = std::min<uint32_t>(dp, 1u << rnd(3));
            }
            c.vocabParallel = rnd(4) != 0;
            c.microBatch = 1 + rnd(2);
            c.globalBatch = uint64_t(c.microBatch) * dp * (1 + rnd(6));
            c.schedule = rnd(2) ? LlmPipelineSchedule::GPIPE : LlmPipelineSchedule::ONE_F_ONE_B;
            c.zeroStage = rnd(4);
            c.gradSync = rnd(2) ? LlmGradSync::ITERATION : LlmGradSync::MICROBATCH;
            c.bucketMiB = rnd(2) ? 0.0 : 0.05 * (1 + rnd(4));
            c.overlapGradReduce = rnd(3) != 0;
            c.recompute = rnd(3) == 0 ? LlmRecompute::FULL : LlmRecompute::NONE;
            c.rankOrder = orders[rnd(4)];
            c.optimizerStep = rnd(5) != 0;
            c.offloadOptimizer = c.optimizerStep && rnd(4) == 0;
            c.computeTflops = rnd(2) ? 50 : 0;
            LlmWorkloadGenerator gen(c);
            const uint32_t n = gen.GetNpuCount();
            auto topo =
                n <= 4
                    ? Topo1D(DimType::SWITCH, n, 100, 200)
                    : TopoDims({{DimType::SWITCH, 4, 100, 200}, {DimType::SWITCH, n / 4, 25, 800}});
            auto res = RunGen(gen, topo, Roofline(100, 1000));
            uint64_t started = 0, finished = 0;
            for (const auto& rec : res.records)
            {
                started += rec.started;
                finished += rec.finished;
            }
            const bool ok = res.error.empty() && res.unfinished.empty() && started == finished;
            NS_TEST_EXPECT_MSG_EQ(ok,
                                  true,
                                  "combination " << k << ":\n"
                                                 << gen.Describe() << res.error << res.pending);
            runs += ok;
        }
        std::printf("  %u of 64 combinations completed\n", runs);
    }
};

/// Durations from a throughput; roofline inputs.
class ComputeTestCase : public TestCase
{
  public:
    ComputeTestCase()
        : TestCase("COMP nodes: FLOPs and bytes of a GEMM; durations = max(FLOPs over throughput, "
                   "bytes over bandwidth) when asked, none otherwise")
    {
    }

  private:
    void DoRun() override
    {
        LlmWorkloadConfig c = SmallGpt(1, 2, 1);
        const uint64_t t = 256, D = 256;
        for (int mode = 0; mode < 3; ++mode)
        {
            c.computeTflops = mode == 0 ? 0 : 2;
            c.memoryGBps = mode == 2 ? 1 : 0;
            LlmWorkloadGenerator gen(c);
            WorkloadGraph g = gen.BuildRank(0);
            const WorkloadNode* qkv = nullptr;
            for (const auto& n : g.nodes)
            {
                if (n.name == "mb0.L0.f.qkv")
                {
                    qkv = &n;
                }
            }
            NS_TEST_ASSERT_MSG_EQ((qkv != nullptr), true, "qkv GEMM");
            const uint64_t flops = 2 * t * D * (3 * D / 2);
            const uint64_t bytes = 2 * (t * D + D * 3 * D / 2 + t * 3 * D / 2);
            NS_TEST_EXPECT_MSG_EQ(qkv->numOps, flops, "2 M K N");
            NS_TEST_EXPECT_MSG_EQ(qkv->tensorSize, bytes, "(MK + KN + MN) e");
            const uint64_t want = mode == 0 ? 0 : (mode == 1 ? (flops + 1999) / 2000 : bytes);
            NS_TEST_EXPECT_MSG_EQ(qkv->durationNs, want, "duration, mode " << mode);
            bool chain = true;
            uint64_t prev = ~0ull;
            for (const auto& n : g.nodes)
            {
                if (n.kind == NodeKind::COMP)
                {
                    const bool dep =
                        prev == ~0ull ||
                        std::find(n.ctrlDeps.begin(), n.ctrlDeps.end(), prev) != n.ctrlDeps.end() ||
                        std::find(n.dataDeps.begin(), n.dataDeps.end(), prev) != n.dataDeps.end();
                    chain = chain && dep;
                    prev = n.id;
                }
            }
            NS_TEST_EXPECT_MSG_EQ(chain,
                                  true,
                                  "one compute stream: each COMP depends on the previous");
        }
    }
};

/// Bad shapes and options are InputErrors naming the option; the program exits 1.
class BadShapesTestCase : public TestCase
{
  public:
    BadShapesTestCase()
        : TestCase("bad shapes: InputError naming the options (heads % tp, layers % pp, world "
                   "size, ep > experts, ...); astra-sim-workload-gen exits 1")
    {
    }

  private:
    static std::string Error(const LlmWorkloadConfig& c)
    {
        try
        {
            LlmWorkloadGenerator g(c);
        }
        catch (const InputError& e)
        {
            return e.what();
        }
        return "";
    }

    void DoRun() override
    {
        struct Bad
        {
            std::function<void(LlmWorkloadConfig&)> set;
            std::string want;
        };

        const std::vector<Bad> bad{
            {[](LlmWorkloadConfig& c) {
                 c.model.heads = 12;
                 c.model.kvHeads = 12;
                 c.model.hidden = 384;
                 c.tp = 8;
             },
             "--heads=12 is not divisible by --tp=8"},
            {[](LlmWorkloadConfig& c) { c.pp = 3; }, "--layers=8 is not divisible by --pp=3"},
            {[](LlmWorkloadConfig& c) { c.npus = 64; },
             "--npus=64 is not the product of the degrees"},
            {[](LlmWorkloadConfig& c) {
                 c.dp = 0;
                 c.npus = 31;
             },
             "--npus=31 is not a multiple of --tp x --pp"},
            {[](LlmWorkloadConfig& c) {
                 c.model.experts = 8;
                 c.ep = 16;
                 c.dp = 16;
                 c.globalBatch = 128;
             },
             "--ep=16 is larger than --experts=8"},
            {[](LlmWorkloadConfig& c) {
                 c.model.experts = 6;
                 c.ep = 4;
                 c.dp = 4;
                 c.globalBatch = 32;
             },
             "--experts=6 is not divisible by --ep=4"},
            {[](LlmWorkloadConfig& c) {
                 c.model.experts = 4;
                 c.ep = 2;
                 c.dp = 1;
                 c.tp = 1;
             },
             "--dp=1 is not divisible by --ep=2"},
            {[](LlmWorkloadConfig& c) {
                 c.model.experts = 4;
                 c.tp = 2;
                 c.dp = 1;
             },
             "need --sp=1"},
            {[](LlmWorkloadConfig& c) {
                 c.model.topK = 3;
                 c.model.experts = 2;
                 c.tp = 1;
             },
             "--top-k=3 is larger than --experts=2"},
            {[](LlmWorkloadConfig& c) { c.model.kvHeads = 3; },
             "--heads=8 is not divisible by --kv-heads=3"},
            {[](LlmWorkloadConfig& c) { c.model.kvHeads = 1; },
             "--kv-heads=1 is not divisible by --tp=2"},
            {[](LlmWorkloadConfig& c) { c.model.hidden = 250; },
             "--hidden=250 is not divisible by --heads=8"},
            {[](LlmWorkloadConfig& c) { c.globalBatch = 6; },
             "--global-batch=6 is not a multiple of --micro-batch x --dp"},
            {[](LlmWorkloadConfig& c) {
                 c.tp = 1;
                 c.sequenceParallel = true;
             },
             "--sp=1 needs --tp > 1"},
            {[](LlmWorkloadConfig& c) { c.model.layers = 0; }, "--layers must be > 0"},
            {[](LlmWorkloadConfig& c) { c.zeroStage = 4; }, "--zero=4 out of range"},
            {[](LlmWorkloadConfig& c) { c.bucketMiB = std::nan(""); },
             "--bucket-mib=nan out of range"},
            {[](LlmWorkloadConfig& c) { c.capacityFactor = 0; },
             "--capacity-factor=0 out of range"},
            {[](LlmWorkloadConfig& c) { c.rankOrder = "tp,dpp,pp"; },
             "unknown dimension 'dpp' (did you mean 'dp'?)"},
            {[](LlmWorkloadConfig& c) { c.rankOrder = "tp,tp,pp"; }, "'tp' appears twice"},
            {[](LlmWorkloadConfig& c) { c.memoryGBps = 100; },
             "--memory-gbps needs --compute-tflops"},
            {[](LlmWorkloadConfig& c) {
                 c.optimizerStep = false;
                 c.offloadOptimizer = true;
             },
             "--offload-optimizer=1 needs --optimizer=1"},
            {[](LlmWorkloadConfig& c) { c.bytesPerElement = 0; },
             "--bytes-per-element=0 out of range"},
        };
        for (const auto& b : bad)
        {
            LlmWorkloadConfig c = SmallGpt(2, 2, 1);
            b.set(c);
            const std::string e = Error(c);
            NS_TEST_EXPECT_MSG_NE(e.find(b.want),
                                  std::string::npos,
                                  "want '" << b.want << "', got '" << e << "'");
        }
        NS_TEST_EXPECT_MSG_EQ(Error(SmallGpt(2, 2, 1)), "", "the base shape is valid");
        bool threw = false;
        try
        {
            LlmModelShape::Preset("llama3-8B");
        }
        catch (const InputError& e)
        {
            threw = std::string(e.what()).find("did you mean 'llama3-8b'") != std::string::npos;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "unknown preset: did you mean");
        threw = false;
        try
        {
            ParseLlmSchedule("1f1f");
        }
        catch (const InputError& e)
        {
            threw = std::string(e.what()).find("did you mean '1f1b'") != std::string::npos;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "unknown schedule: did you mean");
        // every preset is a valid shape at tp 8 (kv heads divide)
        for (const auto& name : LlmModelShape::PresetNames())
        {
            LlmWorkloadConfig c = LlmWorkloadConfig::FromPreset(name);
            c.tp = 8;
            c.sequenceParallel = true;
            c.dp = 8;
            c.ep = c.model.experts > 1 ? 8 : 1;
            c.globalBatch = 64;
            NS_TEST_EXPECT_MSG_EQ(Error(c), "", name);
        }
        const LlmModelShape l70 = LlmModelShape::Preset("llama3-70b");
        NS_TEST_EXPECT_MSG_EQ(l70.layers * 10000 + l70.heads, 80 * 10000 + 64, "llama3-70b");

        // the program: exit status 1 on a bad shape, 0 on a valid dry run
        Warnings::SetStream(nullptr);
        std::vector<std::string> badArgs{"gen", "--preset=llama3-8b", "--tp=3", "--dry-run=1"};
        std::vector<std::string> okArgs{"gen",
                                        "--preset=llama3-8b",
                                        "--tp=8",
                                        "--dp=2",
                                        "--sp=1",
                                        "--global-batch=16",
                                        "--dry-run=1"};
        auto run = [](std::vector<std::string> a) {
            std::vector<char*> argv;
            for (auto& s : a)
            {
                argv.push_back(&s[0]);
            }
            argv.push_back(nullptr);
            return RunMain(&LlmWorkloadGenMain, int(a.size()), argv.data());
        };
        NS_TEST_EXPECT_MSG_EQ(run(badArgs), 1, "bad shape: exit 1");
        NS_TEST_EXPECT_MSG_EQ(run(okArgs), 0, "dry run: exit 0");
        NS_TEST_EXPECT_MSG_EQ(run({"gen",
                                   "--preset=llama3-8b",
                                   "--tp=8",
                                   "--global-batch=8",
                                   "--schedule=interleaved",
                                   "--dry-run=1"}),
                              1,
                              "bad schedule: exit 1");
        NS_TEST_EXPECT_MSG_EQ(
            run({"gen", "--preset=llama3-8b", "--tp=-1", "--global-batch=8", "--dry-run=1"}),
            1,
            "negative degree: exit 1");
        NS_TEST_EXPECT_MSG_EQ(
            run({"gen", "--preset=llama3-8b", "--zero=1.5", "--global-batch=8", "--dry-run=1"}),
            1,
            "non-integer ZeRO stage: exit 1");
        NS_TEST_EXPECT_MSG_EQ(run({"gen", "--preset=llama3-8b", "--tp=8", "--global-batch=8"}),
                              1,
                              "no --output: exit 1");
        Warnings::SetStream(&std::cerr);
        // an unwritable prefix is a WorkloadError naming the path
        threw = false;
        try
        {
            LlmWorkloadGenerator(SmallGpt(2, 2, 1)).Write("/nonexistent-astra-dir/x");
        }
        catch (const WorkloadError& e)
        {
            threw = std::string(e.what()).find("/nonexistent-astra-dir/x") != std::string::npos;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "unwritable output");
    }
};

class WorkloadGenTestSuite : public TestSuite
{
  public:
    WorkloadGenTestSuite()
        : TestSuite("astra-sim-workload-gen", UNIT)
    {
        AddTestCase(new EncoderTestCase, TestCase::QUICK);
        AddTestCase(new StgReferenceTestCase, TestCase::QUICK);
        AddTestCase(new DpBytesTestCase, TestCase::QUICK);
        AddTestCase(new ZeroTestCase, TestCase::QUICK);
        AddTestCase(new TpCountTestCase, TestCase::QUICK);
        AddTestCase(new FlopsTestCase, TestCase::QUICK);
        AddTestCase(new BubbleTestCase, TestCase::QUICK);
        AddTestCase(new PlacementTestCase, TestCase::QUICK);
        AddTestCase(new FilesAndBackendsTestCase, TestCase::QUICK);
        AddTestCase(new CombinationsTestCase, TestCase::QUICK);
        AddTestCase(new ComputeTestCase, TestCase::QUICK);
        AddTestCase(new BadShapesTestCase, TestCase::QUICK);
    }
};

static WorkloadGenTestSuite g_workloadGenTestSuite;

} // namespace
