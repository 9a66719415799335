/*
 * Tests of the configuration parsers (suite "astra-sim-config").
 */

#include "ns3/astra-config.h"
#include "ns3/astra-paths.h"
#include "ns3/test.h"
#include "ns3/topology.h"

#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
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
        // every real input goes through the loader the runner uses; none of the ASTRA-sim 2.0
        // inputs warns (their unmodelled keys, e.g. boost-mode 0, are at ASTRA-sim's defaults)
        Warnings::SetStream(nullptr);
        Warnings::Reset();
        std::vector<std::string> jsons;
        FindFiles(ref, ".json", jsons);
        int sys = 0;
        int mem = 0;
        int groups = 0;
        int logical = 0;
        int oldNetworks = 0;
        for (const auto& f : jsons)
        {
            std::string text = Slurp(f);
            std::string e;
            if (Has(text, "-implementation") || Has(text, "scheduling-policy"))
            {
                e = ErrorOf([&]() { LoadSystemParams(f, ref + "/astra-sim"); });
                ++sys;
            }
            else if (Has(text, "memory-type"))
            {
                e = ErrorOf([&]() {
                    NS_TEST_EXPECT_MSG_EQ((AnalyticalRemoteMemory::FromFile(f)->GetMemoryType() ==
                                           MemoryType::NO_MEMORY_EXPANSION),
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
            else if (Has(text, "dimensions-count"))
            {
                e = ErrorOf([&]() { Topology::FromFile(f); });
                ++oldNetworks;
            }
            else
            {
                e = ErrorOf([&]() { LoadCommGroups(f, 8); });
                ++groups;
            }
            NS_TEST_EXPECT_MSG_EQ(e, "", f);
        }
        NS_TEST_EXPECT_MSG_EQ(sys, 13, "reference system configurations");
        NS_TEST_EXPECT_MSG_EQ(mem, 8, "reference remote memory configurations");
        NS_TEST_EXPECT_MSG_EQ(groups, 1, "reference comm-group files");
        NS_TEST_EXPECT_MSG_EQ(logical, 7, "reference logical topologies");
        NS_TEST_EXPECT_MSG_EQ(oldNetworks, 5, "reference older-style JSON networks");
        std::vector<std::string> ymls;
        FindFiles(ref, ".yml", ymls);
        for (const auto& f : ymls)
        {
            NS_TEST_EXPECT_MSG_EQ(ErrorOf([&]() { Topology::FromFile(f); }), "", f);
        }
        NS_TEST_EXPECT_MSG_EQ(ymls.size(), 12, "reference network YAMLs");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetTotal(), 0, "no warning for the 2.0 inputs");

        // ASTRA-sim 1.0 text system files: boost-mode 1 (not modelled) warns once per file
        std::vector<std::string> txts;
        FindFiles(ref + "/astra-sim-tutorials/asplos2023", ".txt", txts);
        int txtSys = 0;
        for (const auto& f : txts)
        {
            if (Has(f, "/system/"))
            {
                std::string e = ErrorOf([&]() { LoadSystemParams(f); });
                NS_TEST_EXPECT_MSG_EQ(e, "", f);
                ++txtSys;
            }
        }
        NS_TEST_EXPECT_MSG_EQ(txtSys, 5, "asplos2023 system .txt files");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("not-modelled:boost-mode"), 5, "boost-mode 1");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetTotal(), 5, "nothing else warns");
        Warnings::Reset();
        Warnings::SetStream(&std::cerr);

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
        Sys(R"({"local-mem-bw": -5})", {"key 'local-mem-bw'", "> 0", "-5"});
        Sys(R"({"local-mem-bw": 0})", {"key 'local-mem-bw'", "must be > 0", "0"});
        Sys(R"({"local-mem-bw": 1e300})", {"key 'local-mem-bw'", "GB/s", "1e+300"});
        Sys(R"({"peak-perf": 0})", {"key 'peak-perf'", "must be > 0"});
        Sys(R"({"preferred-dataset-splits": 2000})", {"'preferred-dataset-splits'", "1 to 1024"});
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
        gerr(R"({"1": [0], "01": [1]})", 8, "group ids '01' and '1' are the same integer 1");
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

namespace
{

/// Error of parsing a system configuration held in memory ("" if none).
std::string
SysError(const std::string& text, const std::string& name)
{
    return ErrorOf([&]() { ParseSystemConfigText(text, name); });
}

/// Error of reading a file written with \p text ("" if none); the file is removed.
std::string
FileError(const std::string& text, const std::function<void(const std::string&)>& parse)
{
    const std::string f = WriteTemp(text);
    const std::string e = ErrorOf([&]() { parse(f); });
    std::remove(f.c_str());
    return e;
}

/// A value of the right type for a system configuration key, JSON and text form.
std::pair<std::string, std::string>
GoodValue(const std::string& key)
{
    static const std::map<std::string, std::pair<std::string, std::string>> special = {
        {"scheduling-policy", {"\"FIFO\"", "FIFO"}},
        {"collective-optimization", {"\"baseline\"", "baseline"}},
        {"local-mem-trace-filename", {"\"t.csv\"", "t.csv"}},
        {"intra-dimension-scheduling", {"\"FIFO\"", "FIFO"}},
        {"inter-dimension-scheduling", {"\"baseline\"", "baseline"}},
        {"packet-routing", {"\"software\"", "software"}},
        {"injection-policy", {"\"normal\"", "normal"}},
    };
    auto it = special.find(key);
    if (it != special.end())
    {
        return it->second;
    }
    if (Has(key, "-implementation-custom"))
    {
        return {"[\"x\"]", "x"};
    }
    if (Has(key, "-implementation"))
    {
        return {"[\"ring\"]", "ring"};
    }
    return {"1", "1"};
}

/// The keys of the ASTRA-sim system configuration (2.0 JSON and 1.0 text form).
const std::vector<std::string> kSystemKeys = {"scheduling-policy",
                                              "collective-optimization",
                                              "all-reduce-implementation",
                                              "all-gather-implementation",
                                              "reduce-scatter-implementation",
                                              "all-to-all-implementation",
                                              "all-reduce-implementation-custom",
                                              "all-gather-implementation-custom",
                                              "reduce-scatter-implementation-custom",
                                              "all-to-all-implementation-custom",
                                              "preferred-dataset-splits",
                                              "active-chunks-per-dimension",
                                              "endpoint-delay",
                                              "local-reduction-delay",
                                              "model-shared-bus",
                                              "L",
                                              "o",
                                              "g",
                                              "G",
                                              "local-mem-bw",
                                              "peak-perf",
                                              "roofline-enabled",
                                              "replay-only",
                                              "trace-enabled",
                                              "track-local-mem",
                                              "local-mem-trace-filename",
                                              "boost-mode",
                                              "intra-dimension-scheduling",
                                              "inter-dimension-scheduling",
                                              "packet-routing",
                                              "injection-policy",
                                              "seprate-log"};

/// Two misspellings of a key: one letter appended, the last letter dropped (keys of 4+ letters).
std::vector<std::string>
Misspellings(const std::string& key)
{
    std::vector<std::string> out{key + "z"};
    if (key.size() >= 4)
    {
        out.push_back(key.substr(0, key.size() - 1));
    }
    return out;
}

} // namespace

/// Every misspelled key of every file type is an error naming it and the right key.
class MisspelledKeyTestCase : public GuardedCase
{
  public:
    MisspelledKeyTestCase()
        : GuardedCase("every misspelled key of every file type: error naming it, did-you-mean")
    {
    }

  private:
    /// \p e names the file, the misspelled key and suggests the right one
    void Expect(const std::string& e,
                const std::string& file,
                const std::string& wrong,
                const std::string& right)
    {
        NS_TEST_EXPECT_MSG_EQ(
            (Has(e, file) && Has(e, "'" + wrong + "'") && Has(e, "did you mean '" + right + "'")),
            true,
            wrong << " -> " << right << ": " << e);
    }

    void Body() override
    {
        Warnings::SetStream(nullptr);
        uint32_t checked = 0;
        // system configuration, JSON and 1.0 text form
        for (const auto& key : kSystemKeys)
        {
            for (const auto& wrong : Misspellings(key))
            {
                const auto v = GoodValue(key);
                Expect(SysError("{\"" + wrong + "\": " + v.first + "}", "sys.json"),
                       "sys.json",
                       wrong,
                       key);
                Expect(SysError(wrong + ": " + v.second + "\n", "sys.txt"), "sys.txt", wrong, key);
                checked += 2;
            }
        }
        // the brief's examples
        Expect(SysError("{\"preferred-dataset-splitz\": 4}", "s.json"),
               "s.json",
               "preferred-dataset-splitz",
               "preferred-dataset-splits");
        // remote memory
        const std::vector<std::string> memKeys = {"memory-type",
                                                  "remote-mem-latency",
                                                  "remote-mem-bw",
                                                  "num-nodes",
                                                  "num-npus-per-node"};
        for (const auto& key : memKeys)
        {
            for (const auto& wrong : Misspellings(key))
            {
                std::string f;
                const std::string e =
                    FileError("{\"" + wrong + "\": 1}", [&](const std::string& p) {
                        f = p;
                        ParseRemoteMemoryConfig(p);
                    });
                Expect(e, f, wrong, key);
                ++checked;
            }
        }
        std::string f;
        Expect(FileError(R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": 5,
                             "remote-mem-latenc": 100})",
                         [&](const std::string& p) {
                             f = p;
                             ParseRemoteMemoryConfig(p);
                         }),
               f,
               "remote-mem-latenc",
               "remote-mem-latency");
        // logical topology
        for (const auto& wrong : Misspellings("logical-dims"))
        {
            Expect(FileError("{\"" + wrong + "\": [\"8\"]}",
                             [&](const std::string& p) {
                                 f = p;
                                 ParseLogicalTopology(p);
                             }),
                   f,
                   wrong,
                   "logical-dims");
            ++checked;
        }
        // network, current style (YAML) and older style (YAML and JSON), shape keys in both
        const std::map<std::string, std::string> current = {{"topology", "[ Ring, Clos ]"},
                                                            {"npus_count", "[ 2, 8 ]"},
                                                            {"bandwidth", "[ 50, 50 ]"},
                                                            {"latency", "[ 500, 500 ]"}};
        const std::map<std::string, std::string> older = {{"topology-name", "Hierarchical"},
                                                          {"dimensions-count", "2"},
                                                          {"topologies-per-dim", "[ Ring, Clos ]"},
                                                          {"units-count", "[ 2, 8 ]"},
                                                          {"links-count", "[ 2, 1 ]"},
                                                          {"link-latency", "[ 500, 500 ]"},
                                                          {"link-bandwidth", "[ 50, 50 ]"}};
        const std::vector<std::string> shape = {"hosts_per_leaf",
                                                "spines",
                                                "uplink_bandwidth",
                                                "uplink_latency",
                                                "oversubscription",
                                                "fat_tree_k",
                                                "rails"};
        auto network = [&](const std::map<std::string, std::string>& keys,
                           const std::string& wrong,
                           const std::string& right,
                           bool json) {
            std::string text = json ? "{" : "";
            bool first = true;
            for (const auto& kv : keys)
            {
                const std::string k = kv.first == right ? wrong : kv.first;
                std::string v = kv.second;
                if (json)
                {
                    // [ Ring, Clos ] -> ["Ring", "Clos"]; Hierarchical -> "Hierarchical"
                    std::string j;
                    std::string word;
                    for (char c : v + " ")
                    {
                        if (std::isalpha(static_cast<unsigned char>(c)))
                        {
                            word += c;
                            continue;
                        }
                        if (!word.empty())
                        {
                            j += "\"" + word + "\"";
                            word.clear();
                        }
                        if (c != ' ' || j.empty() || j.back() != ' ')
                        {
                            j += c;
                        }
                    }
                    text += std::string(first ? "" : ", ") + "\"" + k + "\": " + j;
                }
                else
                {
                    text += k + ": " + v + "\n";
                }
                first = false;
            }
            text += json ? "}" : "";
            Expect(FileError(text,
                             [&](const std::string& p) {
                                 f = p;
                                 Topology::FromFile(p);
                             }),
                   f,
                   wrong,
                   right);
            ++checked;
        };
        for (const auto& style : {current, older})
        {
            for (const auto& kv : style)
            {
                for (const auto& wrong : Misspellings(kv.first))
                {
                    network(style, wrong, kv.first, false);
                    if (&style != &current)
                    {
                        network(style, wrong, kv.first, true);
                    }
                }
            }
            for (const auto& key : shape)
            {
                auto keys = style;
                keys[key] = "[ -, 0 ]";
                for (const auto& wrong : Misspellings(key))
                {
                    network(keys, wrong, key, false);
                }
            }
        }
        NS_TEST_EXPECT_MSG_GT(checked, 200, "misspellings checked");
        Warnings::SetStream(&std::cerr);
    }
};

/// Keys ASTRA-sim defines but this module does not model: accepted, a warning names them.
class NotModelledKeyTestCase : public GuardedCase
{
  public:
    NotModelledKeyTestCase()
        : GuardedCase("keys ASTRA-sim defines but this module does not model warn with their name")
    {
    }

  private:
    void Body() override
    {
        std::ostringstream out;
        Warnings::SetStream(&out);
        // key, a value with an effect in ASTRA-sim, its default (no effect, no warning)
        const std::vector<std::vector<std::string>> keys = {
            {"model-shared-bus", "1", "0"},
            {"L", "5", "0"},
            {"o", "5", "0"},
            {"g", "5", "0"},
            {"G", "0.5", "0"},
            {"local-reduction-delay", "3", "1"},
            {"replay-only", "true", "false"},
            {"trace-enabled", "1", "0"},
            {"track-local-mem", "1", "0"},
            {"local-mem-trace-filename", "\"mine\"", "\"local_mem_trace\""},
            {"boost-mode", "1", "0"},
            {"intra-dimension-scheduling", "\"RG\"", "\"FIFO\""},
            {"inter-dimension-scheduling", "\"roundRobin\"", "\"baseline\""},
        };
        for (const auto& k : keys)
        {
            Warnings::Reset();
            out.str("");
            const std::string cause = "not-modelled:" + k[0];
            SystemConfig c = ParseSystemConfigText("{\"" + k[0] + "\": " + k[2] + "}", "d.json");
            NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount(cause), 0, k[0] << " at its default");
            NS_TEST_EXPECT_MSG_EQ(c.Has(k[0]), true, k[0] << " accepted");
            ParseSystemConfigText("{\"" + k[0] + "\": " + k[1] + "}", "w.json");
            ParseSystemConfigText("{\"" + k[0] + "\": " + k[1] + "}", "w2.json");
            NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount(cause), 2, k[0] << " counted twice");
            NS_TEST_EXPECT_MSG_EQ(
                (Has(out.str(), "w.json: key '" + k[0] + "'") && !Has(out.str(), "w2.json")),
                true,
                "printed once, naming file and key: " << out.str());
        }
        // the ASTRA-sim 1.0 keys without an equivalent warn whenever present (text form)
        for (const std::string k : {"packet-routing", "injection-policy", "seprate-log"})
        {
            Warnings::Reset();
            ParseSystemConfigText(k + ": " + (k == "seprate-log" ? "1" : "x") + "\n", "o.txt");
            NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("not-modelled:" + k), 1, k);
        }
        // the older analytical network's keys
        const std::string head = "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\n"
                                 "latency: [ 500 ]\n";
        const std::vector<std::vector<std::string>> net = {{"nic-latency", "[ 5 ]", "[ 0 ]"},
                                                           {"router-latency", "[ 5 ]", "[ 0 ]"},
                                                           {"hbm-latency", "[ 5 ]", "[ 0 ]"},
                                                           {"hbm-bandwidth", "[ 5 ]", "[ 1 ]"},
                                                           {"hbm-scale", "[ 5 ]", "[ 0 ]"},
                                                           {"dimension-type", "[ N ]", ""}};
        for (const auto& k : net)
        {
            const std::string cause = "not-modelled:" + k[0];
            Warnings::Reset();
            if (!k[2].empty())
            {
                NS_TEST_EXPECT_MSG_EQ(
                    FileError(head + k[0] + ": " + k[2] + "\n",
                              [](const std::string& p) { Topology::FromFile(p); }),
                    "",
                    k[0]);
                NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount(cause), 0, k[0] << " at its default");
            }
            NS_TEST_EXPECT_MSG_EQ(FileError(head + k[0] + ": " + k[1] + "\n",
                                            [](const std::string& p) { Topology::FromFile(p); }),
                                  "",
                                  k[0]);
            NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount(cause), 1, k[0] << " warns");
            NS_TEST_EXPECT_MSG_EQ(Has(Warnings::GetFirstMessage(cause), "'" + k[0] + "'"),
                                  true,
                                  Warnings::GetFirstMessage(cause));
        }
        // remote memory: keys without effect for the memory type warn
        Warnings::Reset();
        NS_TEST_EXPECT_MSG_EQ(
            FileError(R"({"memory-type": "NO_MEMORY_EXPANSION", "remote-mem-bw": 50})",
                      [](const std::string& p) { ParseRemoteMemoryConfig(p); }),
            "",
            "accepted");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("remote-memory-key-unused:remote-mem-bw"),
                              1,
                              "no effect");
        NS_TEST_EXPECT_MSG_EQ(
            Has(Warnings::GetFirstMessage("remote-memory-key-unused:remote-mem-bw"),
                "'remote-mem-bw'"),
            true,
            "names the key");
        Warnings::Reset();
        Warnings::SetStream(&std::cerr);
    }
};

/// Each class of bad value is an error naming file, key and value.
class BadValueTestCase : public GuardedCase
{
  public:
    BadValueTestCase()
        : GuardedCase("bad values: type, non-finite, negative, range, integer, switch, required")
    {
    }

  private:
    void Sys(const std::string& text, const std::vector<std::string>& parts)
    {
        const bool json = text.find('{') == 0;
        const std::string name = json ? "v.json" : "v.txt";
        const std::string e = SysError(text, name);
        bool ok = Has(e, name);
        for (const auto& p : parts)
        {
            ok = ok && Has(e, p);
        }
        NS_TEST_EXPECT_MSG_EQ(ok, true, text << " -> " << e);
    }

    void Mem(const std::string& text, const std::vector<std::string>& parts)
    {
        std::string f;
        const std::string e = FileError(text, [&](const std::string& p) {
            f = p;
            AnalyticalRemoteMemory::FromFile(p);
        });
        bool ok = !e.empty() && Has(e, f);
        for (const auto& p : parts)
        {
            ok = ok && Has(e, p);
        }
        NS_TEST_EXPECT_MSG_EQ(ok, true, text << " -> " << e);
    }

    void Net(const std::string& text, const std::vector<std::string>& parts)
    {
        std::string f;
        const std::string e = FileError(text, [&](const std::string& p) {
            f = p;
            Topology::FromFile(p);
        });
        bool ok = !e.empty() && Has(e, f);
        for (const auto& p : parts)
        {
            ok = ok && Has(e, p);
        }
        NS_TEST_EXPECT_MSG_EQ(ok, true, text << " -> " << e);
    }

    void Body() override
    {
        Warnings::SetStream(nullptr);
        // wrong type: JSON numbers are numbers, switches true/false or 0/1
        Sys(R"({"endpoint-delay": "10"})", {"'endpoint-delay'", "expected a number", "\"10\""});
        Sys(R"({"preferred-dataset-splits": true})", {"'preferred-dataset-splits'", "true"});
        Sys(R"({"roofline-enabled": "1"})", {"'roofline-enabled'", "0/1", "\"1\""});
        Sys(R"({"roofline-enabled": 2})", {"'roofline-enabled'", "0/1", "2"});
        Sys(R"({"scheduling-policy": 1})", {"'scheduling-policy'", "expected a string"});
        Sys(R"({"scheduling-policy": "HIGHEST"})",
            {"'scheduling-policy'", "unknown value 'HIGHEST'", "LIFO, FIFO, EXPLICIT"});
        Sys(R"({"all-reduce-implementation": ["Ring"]})",
            {"'all-reduce-implementation'", "'Ring'", "did you mean 'ring'"});
        Sys(R"({"all-reduce-implementation": []})", {"'all-reduce-implementation'", "empty"});
        Sys(R"({"intra-dimension-scheduling": "FIF0"})",
            {"'intra-dimension-scheduling'", "did you mean 'FIFO'"});
        // non-finite (the text form and JSON overflow)
        Sys("endpoint-delay: inf\n", {"'endpoint-delay'", "expected a number", "inf"});
        Sys("local-mem-bw: nan\n", {"'local-mem-bw'", "expected a number", "nan"});
        Sys(R"({"peak-perf": 1e999})", {"invalid JSON"});
        // negative
        Sys(R"({"endpoint-delay": -1})", {"'endpoint-delay'", ">= 0", "-1"});
        Sys(R"({"G": -0.5})", {"'G'", ">= 0"});
        // out of range
        Sys(R"({"endpoint-delay": 1e13})", {"'endpoint-delay'", "at most"});
        Sys(R"({"preferred-dataset-splits": 5000000000})", {"'preferred-dataset-splits'", "to"});
        Sys(R"({"active-chunks-per-dimension": 0})", {"'active-chunks-per-dimension'", "from 1"});
        // not an integer
        Sys(R"({"active-chunks-per-dimension": 1.5})", {"'active-chunks-per-dimension'", "1.5"});
        Sys("boost-mode: 0.5\n", {"'boost-mode'", "integer"});
        Sys("preferred-dataset-splits: 4x\n", {"'preferred-dataset-splits'", "'4x'"});
        // duplicate keys (JSON would keep the last one silently)
        Sys(R"({"endpoint-delay": 10, "endpoint-delay": 20})", {"duplicate key 'endpoint-delay'"});
        Sys("endpoint-delay: 10\nendpoint-delay: 20\n", {"duplicate key 'endpoint-delay'"});
        // custom traces that do not exist; more than one prefix
        NS_TEST_EXPECT_MSG_EQ(
            Has(ErrorOf([]() {
                    ToSystemParams(ParseSystemConfigText(
                        R"({"all-reduce-implementation-custom": ["no/such/prefix"]})",
                        "c.json"));
                }),
                "'all-reduce-implementation-custom': no traces no/such/prefix.0.et"),
            true,
            "custom prefix not found");
        NS_TEST_EXPECT_MSG_EQ(Has(ErrorOf([]() {
                                      ToSystemParams(ParseSystemConfigText(
                                          R"({"all-gather-implementation-custom": ["a", "b"]})",
                                          "c.json"));
                                  }),
                                  "one trace prefix expected"),
                              true,
                              "two custom prefixes");

        // remote memory: an expansion type needs a bandwidth; NO_MEMORY_EXPANSION nothing
        for (const std::string type :
             {"PER_NODE_MEMORY_EXPANSION", "PER_NPU_MEMORY_EXPANSION", "MEMORY_POOL"})
        {
            const std::string nodes = type == "PER_NODE_MEMORY_EXPANSION"
                                          ? R"(, "num-nodes": 2, "num-npus-per-node": 4)"
                                          : "";
            Mem("{\"memory-type\": \"" + type + "\"" + nodes + "}",
                {"'remote-mem-bw'", "missing", type});
            Mem("{\"memory-type\": \"" + type + "\", \"remote-mem-bw\": 0" + nodes + "}",
                {"'remote-mem-bw'", "must be > 0", "found 0"});
        }
        NS_TEST_EXPECT_MSG_EQ(FileError(R"({"memory-type": "NO_MEMORY_EXPANSION"})",
                                        [](const std::string& p) { ParseRemoteMemoryConfig(p); }),
                              "",
                              "NO_MEMORY_EXPANSION needs no bandwidth");
        Mem(R"({"memory-type": "PER_NODE_MEMORY_EXPANSION", "remote-mem-bw": 5,
                "num-npus-per-node": 4})",
            {"'num-nodes'", "missing"});
        Mem(R"({"memory-type": "PER_NODE_MEMORY_EXPANSION", "remote-mem-bw": 5, "num-nodes": 0,
                "num-npus-per-node": 4})",
            {"'num-nodes'", "from 1"});
        Mem(R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": 5, "remote-mem-latency": -3})",
            {"'remote-mem-latency'", ">= 0"});
        Mem(R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": "fast"})",
            {"'remote-mem-bw'", "expected a number"});
        // the model of a file: values, and the NPUs its nodes cover
        const std::string mf = WriteTemp(
            R"({"memory-type": "PER_NODE_MEMORY_EXPANSION", "remote-mem-latency": 100,
                "remote-mem-bw": 50, "num-nodes": 2, "num-npus-per-node": 4})");
        Ptr<AnalyticalRemoteMemory> m = AnalyticalRemoteMemory::FromFile(mf);
        NS_TEST_EXPECT_MSG_EQ((m->GetMemoryType() == MemoryType::PER_NODE_MEMORY_EXPANSION),
                              true,
                              "type");
        NS_TEST_EXPECT_MSG_EQ(ErrorOf([&]() { m->CheckNpuCount(8); }), "", "2 x 4 covers 8");
        NS_TEST_EXPECT_MSG_EQ(Has(ErrorOf([&]() { m->CheckNpuCount(9); }), "fewer than the 9 NPUs"),
                              true,
                              "2 x 4 does not cover 9");
        std::remove(mf.c_str());

        // network: values
        const std::string ring = "topology: [ Ring ]\nnpus_count: [ 4 ]\n";
        Net(ring + "bandwidth: [ inf ]\nlatency: [ 5 ]\n", {"'bandwidth'", "finite"});
        Net(ring + "bandwidth: [ 5 ]\nlatency: [ nan ]\n", {"'latency'", "finite"});
        Net(ring + "bandwidth: [ 5 ]\nlatency: [ -1 ]\n", {"'latency'", "negative"});
        Net(ring + "bandwidth: { a: 1 }\nlatency: [ 5 ]\n", {"'bandwidth'", "mapping"});
        Net(ring + "bandwidth: [ 5 ]\nlatency: [ 5 ]\nunits-count: [ 4 ]\n",
            {"'units-count'", "older key style"});
        Net(ring + "bandwidth: [ 5 ]\nlatency: [ 5 ]\nnic-latency: [ -2 ]\n",
            {"'nic-latency'", "negative"});
        Net(ring + "bandwidth: [ 5 ]\nlatency: [ 5 ]\nnic-latency: [ 1, 2 ]\n",
            {"'nic-latency'", "expected 1 values"});
        Net(R"({"topology": ["Ring"], "npus_count": [4], "bandwidth": [5], "latency": [5],
                "latency": [6]})",
            {"duplicate key 'latency'"});
        Net(ring + "bandwidth: [ 5 ]\nlatency: [ 5 ]\ntopology: [ Ring ]\n", {"'topology'"});
        Net("topology: [ Rign ]\nnpus_count: [ 4 ]\nbandwidth: [ 5 ]\nlatency: [ 5 ]\n",
            {"'topology'", "did you mean 'Ring'"});

        // communicator groups against the NPU count, logical topology values
        NS_TEST_EXPECT_MSG_EQ(
            Has(FileError(R"({"1": [0, 8]})", [](const std::string& p) { LoadCommGroups(p, 8); }),
                "NPU 8 out of range (8 NPUs)"),
            true,
            "group member beyond the NPUs");
        NS_TEST_EXPECT_MSG_EQ(Has(FileError(R"({"logical-dims": ["8", "0"]})",
                                            [](const std::string& p) { ParseLogicalTopology(p); }),
                                  "'logical-dims'"),
                              true,
                              "zero logical dimension");
        Warnings::SetStream(&std::cerr);
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
        AddTestCase(new MisspelledKeyTestCase, TestCase::QUICK);
        AddTestCase(new NotModelledKeyTestCase, TestCase::QUICK);
        AddTestCase(new BadValueTestCase, TestCase::QUICK);
    }
};

static AstraConfigTestSuite g_astraConfigTestSuite; //!< registration
