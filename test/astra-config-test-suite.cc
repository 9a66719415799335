/*
 * Tests of the configuration parsers (suite "astra-sim-config").
 */

#include "ns3/astra-config.h"
#include "ns3/astra-paths.h"
#include "ns3/test.h"

#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/stat.h>
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
    catch (const ConfigError& e)
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

std::string
Slurp(const std::string& path)
{
    std::ifstream f(path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

void
FindFiles(const std::string& dir, const std::string& ext, std::vector<std::string>& out)
{
    DIR* d = opendir(dir.c_str());
    if (!d)
    {
        return;
    }
    while (dirent* e = readdir(d))
    {
        std::string n = e->d_name;
        if (n == "." || n == "..")
        {
            continue;
        }
        std::string p = dir + "/" + n;
        struct stat st;
        if (stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        {
            FindFiles(p, ext, out);
        }
        else if (n.size() > ext.size() && n.substr(n.size() - ext.size()) == ext)
        {
            out.push_back(p);
        }
    }
    closedir(d);
}

std::string
WriteTemp(const std::string& content)
{
    char tmpl[] = "/tmp/astra-cfg-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd >= 0)
    {
        close(fd);
    }
    std::ofstream f(tmpl);
    f << content;
    return tmpl;
}

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

/// Every reference configuration file parses; values of a few.
class ReferenceConfigTestCase : public GuardedCase
{
  public:
    ReferenceConfigTestCase()
        : GuardedCase("every reference system, remote-memory, comm-group and logical JSON parses")
    {
    }

  private:
    void Body() override
    {
        const std::string ref = GetReferenceDir();
        std::vector<std::string> jsons;
        FindFiles(ref, ".json", jsons);
        int sys = 0;
        int mem = 0;
        int groups = 0;
        int logical = 0;
        for (const auto& f : jsons)
        {
            std::string text = Slurp(f);
            std::string e;
            if (Has(text, "-implementation") || Has(text, "scheduling-policy"))
            {
                e = ErrorOf([&]() { ParseSystemConfig(f); });
                ++sys;
            }
            else if (Has(text, "memory-type"))
            {
                e = ErrorOf([&]() {
                    NS_TEST_EXPECT_MSG_EQ(
                        (ParseRemoteMemoryConfig(f).memoryType == MemoryType::NO_MEMORY_EXPANSION),
                        true,
                        f);
                });
                ++mem;
            }
            else if (Has(text, "logical-dims"))
            {
                e = ErrorOf([&]() { ParseLogicalTopology(f); });
                ++logical;
            }
            else if (!Has(text, "dimensions-count"))
            {
                e = ErrorOf([&]() { ParseCommGroups(f, 8); });
                ++groups;
            }
            NS_TEST_EXPECT_MSG_EQ(e, "", f);
        }
        NS_TEST_EXPECT_MSG_EQ(sys, 13, "reference system configurations");
        NS_TEST_EXPECT_MSG_EQ(mem, 8, "reference remote memory configurations");
        NS_TEST_EXPECT_MSG_EQ(groups, 1, "reference comm-group files");
        NS_TEST_EXPECT_MSG_EQ(logical, 7, "reference logical topologies");

        // ASTRA-sim 1.0 text system files
        std::vector<std::string> txts;
        FindFiles(ref + "/astra-sim-tutorials/asplos2023", ".txt", txts);
        int txtSys = 0;
        for (const auto& f : txts)
        {
            if (Has(f, "/system/"))
            {
                std::string e = ErrorOf([&]() { ParseSystemConfig(f); });
                NS_TEST_EXPECT_MSG_EQ(e, "", f);
                ++txtSys;
            }
        }
        NS_TEST_EXPECT_MSG_EQ(txtSys, 5, "asplos2023 system .txt files");

        SystemConfig r4 = ParseSystemConfig(
            ref + "/astra-sim/examples/system/native_collectives/Ring_4chunks.json");
        NS_TEST_EXPECT_MSG_EQ(r4.schedulingPolicy, "LIFO", "policy");
        NS_TEST_EXPECT_MSG_EQ(r4.collectiveOptimization, "localBWAware", "optimization");
        NS_TEST_EXPECT_MSG_EQ(r4.preferredDatasetSplits, 4, "splits");
        NS_TEST_EXPECT_MSG_EQ(r4.activeChunksPerDimension, 1, "chunks");
        NS_TEST_EXPECT_MSG_EQ(r4.endpointDelay, 10, "endpoint delay");
        NS_TEST_EXPECT_MSG_EQ(r4.localMemBw, 1600, "local-mem-bw");
        NS_TEST_EXPECT_MSG_EQ(r4.peakPerf, 900, "peak-perf");
        NS_TEST_EXPECT_MSG_EQ(r4.rooflineEnabled, false, "roofline");
        NS_TEST_EXPECT_MSG_EQ(r4.Has("roofline-enabled"), true, "key recorded");
        NS_TEST_EXPECT_MSG_EQ(r4.Has("L"), false, "absent key");
        NS_TEST_ASSERT_MSG_EQ(r4.allReduceImpl.size(), 1, "one dimension");
        NS_TEST_EXPECT_MSG_EQ((r4.allReduceImpl[0].kind == AlgoKind::RING), true, "ring");

        SystemConfig dgx = ParseSystemConfig(
            ref + "/astra-sim-tutorials/micro2024/astra-sim-demo/demo2/inputs/DGX_H100.json");
        NS_TEST_ASSERT_MSG_EQ(dgx.allGatherImpl.size(), 2, "two dimensions");
        NS_TEST_EXPECT_MSG_EQ((dgx.allGatherImpl[1].kind == AlgoKind::HALVING_DOUBLING),
                              true,
                              "halvingDoubling");

        SystemConfig custom = ParseSystemConfig(
            ref + "/astra-sim/examples/system/custom_collectives/custom_collective.json");
        NS_TEST_EXPECT_MSG_EQ(custom.schedulingPolicy, "FIFO", "custom policy");
        NS_TEST_ASSERT_MSG_EQ(custom.allReduceCustom.size(), 1, "custom prefix");
        NS_TEST_EXPECT_MSG_EQ(custom.allReduceImpl.size(), 0, "no native algorithm");
        std::string resolved = custom.ResolveCustomPrefix(custom.allReduceCustom[0]);
        NS_TEST_EXPECT_MSG_EQ(resolved,
                              ref + "/astra-sim/examples/system/custom_collectives/"
                                    "custom_ring_allreduce_8npus_1MB/custom_allreduce",
                              "custom prefix resolved against the config's parents");

        SystemConfig tpu = ParseSystemConfig(
            ref + "/astra-sim-tutorials/asplos2023/exercise_2/inputs/system/tpu.txt");
        NS_TEST_ASSERT_MSG_EQ(tpu.allReduceImpl.size(), 2, "ring_ring");
        NS_TEST_EXPECT_MSG_EQ((tpu.allToAllImpl[1].kind == AlgoKind::DIRECT), true, "direct");
        NS_TEST_EXPECT_MSG_EQ(tpu.boostMode, 1, "boost-mode accepted");
        NS_TEST_EXPECT_MSG_EQ(tpu.preferredDatasetSplits, 4, "txt splits");

        CommGroups g = ParseCommGroups(ref + "/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2.json", 8);
        NS_TEST_EXPECT_MSG_EQ(g.size(), 16, "16 groups");
        NS_TEST_EXPECT_MSG_EQ((g.at(5) == std::vector<uint32_t>{0, 2}), true, "group 5");
        NS_TEST_EXPECT_MSG_EQ((CommGroupsByName(g).at("16") == std::vector<uint32_t>{7}),
                              true,
                              "by name");

        auto dims =
            ParseLogicalTopology(ref + "/astra-sim/examples/network/ns3/sample_16nodes_2D.json");
        NS_TEST_EXPECT_MSG_EQ((dims == std::vector<uint32_t>{8, 2}), true, "logical dims");
    }
};

/// Bad keys and values give errors naming file, key and cause.
class ConfigErrorTestCase : public GuardedCase
{
  public:
    ConfigErrorTestCase()
        : GuardedCase("configuration errors name file, key and cause; algorithm names")
    {
    }

  private:
    void Sys(const std::string& json, const std::vector<std::string>& parts)
    {
        std::string e = ErrorOf([&]() { ParseSystemConfigText(json, "sys.json"); });
        bool ok = Has(e, "sys.json");
        for (const auto& p : parts)
        {
            ok = ok && Has(e, p);
        }
        NS_TEST_EXPECT_MSG_EQ(ok, true, "for " << json << " got: " << e);
    }

    void Body() override
    {
        Sys(R"({"scheduling-polcy": "LIFO"})",
            {"unknown key 'scheduling-polcy'", "did you mean 'scheduling-policy'"});
        Sys(R"({"endpoint_delay": 10})", {"'endpoint_delay'", "did you mean 'endpoint-delay'"});
        Sys(R"({"frobnicate": 1})", {"unknown key 'frobnicate'"});
        Sys(R"({"scheduling-policy": "RANDOM"})",
            {"key 'scheduling-policy'", "unknown value 'RANDOM'"});
        Sys(R"({"collective-optimization": "localBwAware"})",
            {"key 'collective-optimization'", "did you mean 'localBWAware'"});
        Sys(R"({"all-reduce-implementation": ["ringo"]})",
            {"key 'all-reduce-implementation'",
             "unknown algorithm 'ringo'",
             "did you mean 'ring'"});
        Sys(R"({"all-gather-implementation": [1]})", {"list of strings"});
        Sys(R"({"preferred-dataset-splits": 0})", {"key 'preferred-dataset-splits'", "from 1"});
        Sys(R"({"active-chunks-per-dimension": 1.5})", {"active-chunks-per-dimension", "integer"});
        Sys(R"({"endpoint-delay": "abc"})", {"key 'endpoint-delay'", "expected a number"});
        Sys(R"({"local-mem-bw": -5})", {"key 'local-mem-bw'", ">= 0"});
        Sys(R"({"roofline-enabled": 2})", {"key 'roofline-enabled'", "0/1"});
        Sys(R"({"all-to-all-implementation": ["oneDoubleBinaryTree"]})",
            {"unknown algorithm 'oneDoubleBinaryTree'"});
        Sys(R"({"all-to-all-implementation": ["direct0"]})", {"window must be > 0"});
        Sys(R"({"scheduling-policy": "LIFO",)", {"invalid JSON"});
        Sys("[1, 2]", {"must be a JSON object"});
        // 1.0 text form errors
        Sys("scheduling-policy LIFO\n", {"line 1", "key: value"});
        Sys("boost-mode: 1\nboost-mode: 0\n", {"line 2", "duplicate key 'boost-mode'"});
        // ASTRA-sim 1.0 keys in the text form
        SystemConfig old = ParseSystemConfigText(
            "packet-routing: software\ninjection-policy: aggressive\nseprate-log: 1\n"
            "all-reduce-implementation: direct4_oneRing\n",
            "old.txt");
        NS_TEST_EXPECT_MSG_EQ(old.packetRouting, "software", "packet-routing");
        NS_TEST_EXPECT_MSG_EQ(old.seprateLog, true, "seprate-log");
        NS_TEST_ASSERT_MSG_EQ(old.allReduceImpl.size(), 2, "two dims");
        NS_TEST_EXPECT_MSG_EQ(old.allReduceImpl[0].window, 4, "direct4");
        NS_TEST_EXPECT_MSG_EQ(old.allReduceImpl[1].flattened, true, "oneRing");
        // the one that is fine: "ring" as a single string
        NS_TEST_EXPECT_MSG_EQ(ParseSystemConfigText(R"({"all-gather-implementation": "ring"})", "s")
                                  .allGatherImpl.size(),
                              1,
                              "single string");

        // every key of the spec is accepted
        SystemConfig c = ParseSystemConfigText(R"({
            "scheduling-policy": "EXPLICIT", "collective-optimization": "baseline",
            "all-reduce-implementation": ["direct8", "oneRing", "doubleBinaryTree"],
            "all-gather-implementation": ["oneHalvingDoubling"],
            "reduce-scatter-implementation": ["oneDirect"],
            "all-to-all-implementation": ["halvingDoubling"],
            "all-reduce-implementation-custom": ["x"], "all-gather-implementation-custom": ["a/b"],
            "reduce-scatter-implementation-custom": ["c"],
            "all-to-all-implementation-custom": ["d"],
            "preferred-dataset-splits": 8, "active-chunks-per-dimension": 2,
            "endpoint-delay": 20.5, "local-reduction-delay": 2, "model-shared-bus": 1,
            "L": 1, "o": 2, "g": 3, "G": 0.5, "local-mem-bw": 50, "peak-perf": 100,
            "roofline-enabled": true, "replay-only": 0, "trace-enabled": 1,
            "track-local-mem": false, "local-mem-trace-filename": "mem.csv", "boost-mode": 0,
            "intra-dimension-scheduling": "FIFO", "inter-dimension-scheduling": "baseline"})",
                                               "all.json");
        NS_TEST_EXPECT_MSG_EQ(c.keys.size(), 29, "all keys recorded");
        NS_TEST_EXPECT_MSG_EQ(c.schedulingPolicy, "EXPLICIT", "EXPLICIT");
        NS_TEST_ASSERT_MSG_EQ(c.allReduceImpl.size(), 3, "three dims");
        NS_TEST_EXPECT_MSG_EQ((c.allReduceImpl[0].kind == AlgoKind::DIRECT), true, "direct8");
        NS_TEST_EXPECT_MSG_EQ(c.allReduceImpl[0].window, 8, "window 8");
        NS_TEST_EXPECT_MSG_EQ(c.allReduceImpl[1].flattened, true, "oneRing flattened");
        NS_TEST_EXPECT_MSG_EQ((c.allReduceImpl[1].kind == AlgoKind::RING), true, "oneRing ring");
        NS_TEST_EXPECT_MSG_EQ((c.allReduceImpl[2].kind == AlgoKind::DOUBLE_BINARY_TREE),
                              true,
                              "dbt");
        NS_TEST_EXPECT_MSG_EQ(
            (c.allGatherImpl[0].kind == AlgoKind::HALVING_DOUBLING && c.allGatherImpl[0].flattened),
            true,
            "oneHalvingDoubling");
        NS_TEST_EXPECT_MSG_EQ(c.preferredDatasetSplits, 8, "splits");
        NS_TEST_EXPECT_MSG_EQ(c.modelSharedBus, true, "model-shared-bus");
        NS_TEST_EXPECT_MSG_EQ(c.G, 0.5, "G");
        NS_TEST_EXPECT_MSG_EQ(c.traceEnabled, true, "1 is true");
        NS_TEST_EXPECT_MSG_EQ(c.localMemTraceFilename, "mem.csv", "filename");

        // remote memory
        std::string f = WriteTemp(
            R"({"memory-type": "MEMORY_POOL", "remote-mem-latency": 100, "remote-mem-bw": 50,
                "num-nodes": 2, "num-npus-per-node": 4})");
        RemoteMemoryConfig m = ParseRemoteMemoryConfig(f);
        NS_TEST_EXPECT_MSG_EQ((m.memoryType == MemoryType::MEMORY_POOL), true, "pool");
        NS_TEST_EXPECT_MSG_EQ(m.remoteMemBw, 50, "bw");
        NS_TEST_EXPECT_MSG_EQ(m.numNpusPerNode, 4, "npus per node");
        std::remove(f.c_str());
        f = WriteTemp(R"({"memory-type": "MEMORY_POOLS"})");
        std::string e = ErrorOf([&]() { ParseRemoteMemoryConfig(f); });
        NS_TEST_EXPECT_MSG_EQ(
            (Has(e, f) && Has(e, "memory-type") && Has(e, "did you mean 'MEMORY_POOL'")),
            true,
            e);
        std::remove(f.c_str());
        f = WriteTemp(R"({"memory-type": "NO_MEMORY_EXPANSION", "remote-mem-latncy": 1})");
        e = ErrorOf([&]() { ParseRemoteMemoryConfig(f); });
        NS_TEST_EXPECT_MSG_EQ((Has(e, f) && Has(e, "did you mean 'remote-mem-latency'")), true, e);
        std::remove(f.c_str());
        f = WriteTemp(R"({"memory-type": "PER_NPU_MEMORY_EXPANSION"})");
        e = ErrorOf([&]() { ParseRemoteMemoryConfig(f); });
        NS_TEST_EXPECT_MSG_EQ((Has(e, "remote-mem-bw") && Has(e, "> 0")), true, e);
        std::remove(f.c_str());

        // communicator groups
        CommGroups g = ParseCommGroupsText(R"({"0": [0, 1], "-3": [2], "7": [3, 2]})", "g.json", 4);
        NS_TEST_EXPECT_MSG_EQ(g.size(), 3, "groups");
        NS_TEST_EXPECT_MSG_EQ((g.at(0) == std::vector<uint32_t>{0, 1}), true, "id 0 accepted");
        NS_TEST_EXPECT_MSG_EQ(g.count(-3), 1, "negative id accepted");
        NS_TEST_EXPECT_MSG_EQ((g.at(7) == std::vector<uint32_t>{3, 2}), true, "file order");
        auto gerr = [&](const std::string& json, uint32_t npus, const std::string& part) {
            std::string err = ErrorOf([&]() { ParseCommGroupsText(json, "g.json", npus); });
            NS_TEST_EXPECT_MSG_EQ((Has(err, "g.json") && Has(err, part)),
                                  true,
                                  json << " got: " << err);
        };
        gerr(R"({"tp": [0, 1]})", 4, "group id 'tp' is not an integer");
        gerr(R"({"1.5": [0]})", 4, "not an integer");
        gerr(R"({"1": [0, 1, 0]})", 4, "NPU 0 listed twice");
        gerr(R"({"1": [0, 9]})", 8, "NPU 9 out of range (8 NPUs)");
        gerr(R"({"1": [0, -1]})", 8, "bad NPU id -1");
        gerr(R"({"1": 3})", 8, "expected a list");
        gerr(R"({"1": []})", 8, "group 1 is empty");
        gerr(R"({"1": [0], "01": [1]})", 8, "duplicates id 1");
        gerr("[[0, 1]]", 8, "must be a JSON object");
        NS_TEST_EXPECT_MSG_EQ(ParseCommGroups("empty").size(), 0, "'empty' = no groups");
        e = ErrorOf([&]() { ParseCommGroups("/nonexistent/g.json"); });
        NS_TEST_EXPECT_MSG_EQ((Has(e, "/nonexistent/g.json") && Has(e, "cannot open")), true, e);

        // logical topology
        f = WriteTemp(R"({"logical-dims": [4, "2"]})");
        NS_TEST_EXPECT_MSG_EQ((ParseLogicalTopology(f) == std::vector<uint32_t>{4, 2}),
                              true,
                              "numbers and strings");
        std::remove(f.c_str());
        f = WriteTemp(R"({"logical-dims": ["8", "x"]})");
        e = ErrorOf([&]() { ParseLogicalTopology(f); });
        NS_TEST_EXPECT_MSG_EQ((Has(e, f) && Has(e, "logical-dims") && Has(e, "'x'")), true, e);
        std::remove(f.c_str());
        f = WriteTemp(R"({"logical_dims": ["8"]})");
        e = ErrorOf([&]() { ParseLogicalTopology(f); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "did you mean 'logical-dims'"), true, e);
        std::remove(f.c_str());
    }
};

/// Suite "astra-sim-config".
class AstraConfigTestSuite : public TestSuite
{
  public:
    AstraConfigTestSuite()
        : TestSuite("astra-sim-config", UNIT)
    {
        AddTestCase(new ReferenceConfigTestCase, TestCase::QUICK);
        AddTestCase(new ConfigErrorTestCase, TestCase::QUICK);
    }
};

static AstraConfigTestSuite g_astraConfigTestSuite; //!< registration
