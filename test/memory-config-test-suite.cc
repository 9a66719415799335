/*
 * Suite astra-sim-memory-config: the inputs of disaggregated memory. Bad
 * remote memory configurations, network YAML memory keys and workloads
 * (zero / negative bandwidth, pool count 0, unknown type, misspelled keys,
 * a MEM node under NO_MEMORY_EXPANSION, capacity exceeded, attach points that
 * do not exist, placement given twice) each end in an error that names the
 * file or the trace node, in the library and through astra-sim-runner (exit
 * status 1, never a signal); memory nodes declared in the network YAML;
 * ASTRA-sim's analytical model kept on the analytical backend; the report
 * files of a run with memory nodes.
 */

#include "memory-test-util.h"

#include "ns3/astra-config.h"
#include "ns3/error-model.h"
#include "ns3/et-writer.h"
#include "ns3/memory-offload-helper.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::memtest;

namespace
{

/// Write a file under /tmp for this process; \return its path.
std::string
TmpFile(const std::string& name, const std::string& text)
{
    const std::string path = "/tmp/astra-memcfg-" + std::to_string(getpid()) + "-" + name;
    std::ofstream(path) << text;
    return path;
}

std::string
ReadAll(const std::string& path)
{
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

/// 8 NPUs on a two-tier Clos (4 per leaf, 2 spines)
const char* kClosYaml = "topology: [ Clos ]\n"
                        "npus_count: [ 8 ]\n"
                        "bandwidth: [ 50 ]\n"
                        "latency: [ 500 ]\n"
                        "hosts_per_leaf: [ 4 ]\n"
                        "spines: [ 2 ]\n";

} // namespace

/// At least 10 bad memory configurations, each an error naming the file or the trace node.
class BadConfigTestCase : public TestCase
{
  public:
    BadConfigTestCase()
        : TestCase("bad memory configurations: an error naming the file or the trace node each")
    {
    }

  private:
    /// Parse, place, check the capacity and run \p graphs on \p backend; \return the error.
    std::string Error(const std::string& json,
                      const std::string& yaml,
                      const Graphs& graphs,
                      const std::string& backend = "flow")
    {
        try
        {
            Warnings::SetStream(nullptr);
            const std::string net = TmpFile("net.yml", yaml);
            auto topo = std::make_shared<const Topology>(Topology::FromFile(net));
            const RemoteMemoryConfig c = ParseRemoteMemoryConfig(TmpFile("mem.json", json));
            const MemRun r = RunMem(topo, graphs, backend, &c);
            Warnings::SetStream(&std::cerr);
            return r.error.empty() ? std::string("(no error)") : r.error;
        }
        catch (const InputError& e)
        {
            Warnings::SetStream(&std::cerr);
            Simulator::Destroy();
            return e.what();
        }
    }

    void DoRun() override
    {
        const Graphs load = MemGraphs({1000000, 0, 0, 0, 0, 0, 0, 0}, false);
        const Graphs store = MemGraphs({3000000, 3000000, 0, 0, 0, 0, 0, 0}, true);
        const std::string ring = "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\n"
                                 "latency: [ 500 ]\n";
        const std::string pool = R"("memory-type": "MEMORY_POOL", "remote-mem-latency": 500)";

        struct Bad
        {
            const char* what;
            std::string json;
            std::string yaml;
            const Graphs* graphs;
            std::vector<std::string> expect; // substrings of the message
        };

        const std::vector<Bad> bad = {
            {"negative bandwidth",
             "{" + pool + R"(, "remote-mem-bw": -5})",
             kClosYaml,
             &load,
             {"mem.json", "remote-mem-bw", "must be > 0", "-5"}},
            {"zero bandwidth",
             "{" + pool + R"(, "remote-mem-bw": 0})",
             kClosYaml,
             &load,
             {"mem.json", "remote-mem-bw", "must be > 0"}},
            {"missing bandwidth",
             "{" + pool + "}",
             kClosYaml,
             &load,
             {"mem.json", "remote-mem-bw", "missing"}},
            {"pool count 0",
             "{" + pool + R"(, "remote-mem-bw": 50, "pool-count": 0})",
             kClosYaml,
             &load,
             {"mem.json", "pool-count", "expected an integer from 1"}},
            {"unknown type",
             R"({"memory-type": "POOL_MEMORY", "remote-mem-bw": 50})",
             kClosYaml,
             &load,
             {"mem.json", "memory-type", "POOL_MEMORY", "MEMORY_POOL"}},
            {"misspelled key",
             "{" + pool + R"(, "remote-mem-bw": 50, "pool-cont": 2})",
             kClosYaml,
             &load,
             {"mem.json", "unknown key 'pool-cont'", "did you mean 'pool-count'"}},
            {"MEM node under NO_MEMORY_EXPANSION",
             R"({"memory-type": "NO_MEMORY_EXPANSION"})",
             kClosYaml,
             &load,
             {"memtest.0", "node 1 'load'", "MEM_LOAD", "NO_MEMORY_EXPANSION"}},
            {"capacity exceeded",
             R"({"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-bw": 50,
                 "memory-capacity": 0.002})",
             kClosYaml,
             &store,
             {"mem.json",
              "memory-capacity",
              "NPU 0",
              "trace node 1 'store'",
              "memtest.0",
              "above its capacity"}},
            {"spine attach for a private node",
             R"({"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-bw": 50,
                 "memory-attach": "spine"})",
             kClosYaml,
             &load,
             {"mem.json", "memory-attach", "is for MEMORY_POOL"}},
            {"leaf attach on a ring",
             "{" + pool + R"(, "remote-mem-bw": 50, "memory-attach": "leaf"})",
             ring,
             &load,
             {"mem.json", "no switches"}},
            {"zero message size",
             "{" + pool + R"(, "remote-mem-bw": 50, "message-size": 0})",
             kClosYaml,
             &load,
             {"mem.json", "message-size", "expected an integer from 1"}},
            {"zero link bandwidth",
             "{" + pool + R"(, "remote-mem-bw": 50, "memory-link-bw": 0})",
             kClosYaml,
             &load,
             {"mem.json", "memory-link-bw", "must be > 0"}},
            {"dimension out of range",
             "{" + pool + R"(, "remote-mem-bw": 50, "memory-dimension": 3})",
             kClosYaml,
             &load,
             {"mem.json", "dimension 3 out of range"}},
            {"uplink without a memory leaf",
             "{" + pool + R"(, "remote-mem-bw": 50, "memory-uplink-bw": 10})",
             kClosYaml,
             &load,
             {"mem.json", "memory-uplink-bw", "memory-leaf"}},
            {"PER_NODE without its node size",
             R"({"memory-type": "PER_NODE_MEMORY_EXPANSION", "remote-mem-bw": 50,
                 "num-nodes": 2})",
             kClosYaml,
             &load,
             {"mem.json", "num-npus-per-node", "missing"}},
            {"fractional channel count",
             "{" + pool + R"(, "remote-mem-bw": 50, "channels": 1.5})",
             kClosYaml,
             &load,
             {"mem.json", "channels", "1.5"}},
            {"placement in the YAML and the JSON",
             "{" + pool + R"(, "remote-mem-bw": 50, "pool-count": 2})",
             std::string(kClosYaml) + "memory_placement: pool\n",
             &load,
             {"mem.json", "pool-count", "declares the memory nodes already"}},
            {"type differs from the YAML",
             R"({"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-bw": 50})",
             std::string(kClosYaml) + "memory_placement: pool\n",
             &load,
             {"mem.json", "PER_NPU_MEMORY_EXPANSION", "memory_placement pool"}},
            {"YAML: misspelled memory key",
             "{" + pool + R"(, "remote-mem-bw": 50})",
             std::string(kClosYaml) + "memory_placement: pool\nmemory_atach: spine\n",
             &load,
             {"net.yml", "memory_atach", "did you mean 'memory_attach'"}},
            {"YAML: pool count for a private node",
             R"({"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-bw": 50})",
             std::string(kClosYaml) + "memory_placement: per_npu\nmemory_pool_count: 2\n",
             &load,
             {"net.yml", "memory_pool_count", "applies to memory_placement pool"}},
            {"YAML: unknown placement",
             "{" + pool + R"(, "remote-mem-bw": 50})",
             std::string(kClosYaml) + "memory_placement: pools\n",
             &load,
             {"net.yml", "pools", "did you mean 'pool'"}},
        };
        uint32_t checked = 0;
        for (const Bad& b : bad)
        {
            const std::string err = Error(b.json, b.yaml, *b.graphs);
            for (const auto& e : b.expect)
            {
                NS_TEST_EXPECT_MSG_NE(err.find(e),
                                      std::string::npos,
                                      b.what << ": '" << e << "' not in: " << err);
            }
            ++checked;
        }
        NS_TEST_EXPECT_MSG_GT(checked, 10u, "more than ten bad configurations");
        // the same capacity passes when it is large enough, and a name stored twice counts once
        Graphs twice = MemGraphs({1000000, 0, 0, 0, 0, 0, 0, 0}, true);
        {
            auto g = std::make_shared<WorkloadGraph>(*twice[0]);
            WorkloadNode again = g->nodes[0];
            again.id = 2;
            again.dataDeps = {1};
            g->nodes.push_back(again);
            g->BuildIndex();
            twice[0] = g;
        }
        const std::string ok =
            Error(R"({"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-bw": 50,
                      "memory-capacity": 0.0015})",
                  kClosYaml,
                  twice);
        NS_TEST_EXPECT_MSG_EQ(ok, "(no error)", "1 MB stored twice under one name fits 1.6 MB");
    }
};

/// Memory nodes declared in the network YAML; the JSON gives the device and the traffic.
class YamlMemoryTestCase : public TestCase
{
  public:
    YamlMemoryTestCase()
        : TestCase("memory nodes declared in the network YAML run on flow and roce")
    {
    }

  private:
    void DoRun() override
    {
        const std::string net =
            TmpFile("yaml-mem.yml",
                    std::string(kClosYaml) +
                        "memory_placement: pool\nmemory_pool_count: 2\nmemory_attach: "
                        "memory_leaf\nmemory_uplink_bandwidth: 100\nmemory_bandwidth: 100\n");
        auto topo = std::make_shared<const Topology>(Topology::FromFile(net));
        NS_TEST_ASSERT_MSG_EQ(topo->GetMemoryNodes().size(), 2u, "two pools");
        NS_TEST_EXPECT_MSG_EQ(topo->GetNpuMemory(5).size(), 2u, "every NPU uses both");
        const uint32_t leaf = topo->GetNodeCount() - 3; // memory leaf, then the pools
        NS_TEST_EXPECT_MSG_EQ((topo->GetNodeKind(leaf) == TopoNodeKind::SWITCH), true, "leaf");
        NS_TEST_EXPECT_MSG_EQ(topo->GetNodeLinks(leaf).size(), 4u, "2 spines + 2 pools");
        const RemoteMemoryConfig c =
            ParseRemoteMemoryConfig(TmpFile("yaml-mem.json",
                                            R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": 40,
                        "remote-mem-latency": 800, "message-size": 500000})"));
        const Graphs gs = MemGraphs({2000000, 2000000, 0, 0, 0, 0, 2000000, 0}, false);
        for (const std::string be : {"flow", "roce"})
        {
            const MemRun r = RunMem(topo, gs, be, &c);
            NS_TEST_EXPECT_MSG_EQ(r.status, 0, be);
            NS_TEST_ASSERT_MSG_EQ(r.rows.size(), 2u, be << ": two pool rows");
            // striped: 4 messages per NPU, alternating pools
            NS_TEST_EXPECT_MSG_EQ(r.rows[0].bytesRead + r.rows[1].bytesRead, 6000000u, be);
            NS_TEST_EXPECT_MSG_EQ(r.rows[0].bytesRead, 3000000u, be << ": half on each pool");
            NS_TEST_EXPECT_MSG_EQ(r.rows[0].npus, 8u, be << ": used by every NPU");
            NS_TEST_EXPECT_MSG_EQ(r.messages, 12u, be << ": 2 MB in 500 kB messages");
        }
    }
};

/// The analytical backend keeps ASTRA-sim's formula; fabric keys there warn.
class AnalyticalTestCase : public TestCase
{
  public:
    AnalyticalTestCase()
        : TestCase("analytical backend: ASTRA-sim's formula (FIFO per node), fabric keys warn")
    {
    }

  private:
    void DoRun() override
    {
        Warnings::SetStream(nullptr);
        Warnings::Reset();
        const RemoteMemoryConfig c = ParseRemoteMemoryConfig(
            TmpFile("an.json",
                    R"({"memory-type": "PER_NODE_MEMORY_EXPANSION", "remote-mem-bw": 10,
                "remote-mem-latency": 1000, "num-nodes": 2, "num-npus-per-node": 4,
                "outstanding-requests": 2})"));
        auto topo =
            std::make_shared<const Topology>(Topology::FromFile(TmpFile("an.yml", kClosYaml)));
        const Graphs gs = MemGraphs({100000, 100000, 100000, 0, 100000, 0, 0, 0}, false);
        bool warned = false;
        const MemRun r =
            RunMem(topo, gs, "analytical", &c, SystemParams{}, nullptr, [&](AstraSimScenario&) {
                warned =
                    Warnings::GetCount("remote-memory-key-analytical:outstanding-requests") == 1;
            });
        Warnings::SetStream(&std::cerr);
        // node 0 serves NPUs 0-3 one after another: 1000 + 10000 ns each
        NS_TEST_EXPECT_MSG_EQ(r.finish[0], 11000, "first of node 0");
        NS_TEST_EXPECT_MSG_EQ(r.finish[1], 22000, "second");
        NS_TEST_EXPECT_MSG_EQ(r.finish[2], 33000, "third");
        NS_TEST_EXPECT_MSG_EQ(r.finish[4], 11000, "node 1 is independent");
        NS_TEST_EXPECT_MSG_EQ(r.rows.size(), 0u, "no memory nodes on the analytical backend");
        NS_TEST_EXPECT_MSG_EQ(warned, true, "the fabric key warns once");
    }
};

/// astra-sim-runner with memory nodes: reports; bad input exits 1 with its message.
class RunnerTestCase : public TestCase
{
  public:
    RunnerTestCase()
        : TestCase("astra-sim-runner: memory reports on flow and roce; bad memory input exits 1")
    {
    }

  private:
    void DoRun() override
    {
        const std::string runner = FindProgram("astra-sim-runner");
        NS_TEST_ASSERT_MSG_NE(runner, "", "astra-sim-runner built next to the test runner");
        const std::string dir = "/tmp/astra-memcfg-" + std::to_string(getpid()) + "-run";
        mkdir(dir.c_str(), 0755);
        // a load and a store per NPU, written with the module's ET writer
        std::vector<WorkloadGraph> gs;
        for (uint32_t r = 0; r < 8; ++r)
        {
            WorkloadGraph g;
            g.rank = r;
            WorkloadNode l;
            l.id = 1;
            l.name = "state.load";
            l.kind = NodeKind::MEM_LOAD;
            l.tensorSize = 2000000;
            WorkloadNode s = l;
            s.id = 2;
            s.name = "state.store";
            s.kind = NodeKind::MEM_STORE;
            s.dataDeps = {1};
            g.nodes = {l, s};
            g.BuildIndex();
            gs.push_back(g);
        }
        WriteChakraPrefix(gs, dir + "/mem");
        const std::string sys =
            GetReferenceDir() + "/astra-sim/examples/system/native_collectives/Ring_4chunks.json";
        const std::string net = TmpFile("run.yml", kClosYaml);
        const std::string json = TmpFile(
            "run.json",
            R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": 50, "remote-mem-latency": 500,
                "pool-count": 2, "message-size": 500000})");
        const std::string base = runner + " --workload-configuration=" + dir + "/mem" +
                                 " --system-configuration=" + sys +
                                 " --network-configuration=" + net + " --progress-seconds=0";
        for (const std::string be : {"flow", "roce"})
        {
            const std::string out = dir + "/out-" + be;
            std::string text;
            const int rc = Shell(base + " --remote-memory-configuration=" + json +
                                     " --backend=" + be + " --output-dir=" + out +
                                     " --ns3::astra::FabricMemoryModel::SampleInterval=2us",
                                 text);
            NS_TEST_EXPECT_MSG_EQ(rc, 0, be << ": " << text);
            NS_TEST_EXPECT_MSG_NE(text.find("memory nodes (fabric/" + be + "): 2"),
                                  std::string::npos,
                                  be << ": memory table in the summary: " << text);
            const std::string csv = ReadAll(out + "/memory.csv");
            NS_TEST_EXPECT_MSG_NE(csv.find("node,attach,npus,bytes_read"), std::string::npos, be);
            // 8 NPUs x 2 MB striped over 2 pools: 8 MB read and written on each
            NS_TEST_EXPECT_MSG_NE(csv.find(",8,8000000,8000000,"), std::string::npos, be << csv);
            const std::string util = ReadAll(out + "/memory-utilisation.csv");
            NS_TEST_EXPECT_MSG_EQ(util.rfind("time_us,mem", 0), 0u, be << ": utilisation csv");
            NS_TEST_EXPECT_MSG_GT(std::count(util.begin(), util.end(), '\n'), 10, be);
            const std::string tl = ReadAll(out + "/timeline.json");
            NS_TEST_EXPECT_MSG_NE(tl.find("\"memory node "), std::string::npos, be);
            NS_TEST_EXPECT_MSG_NE(tl.find("\"MEM_LOAD\""), std::string::npos, be);
        }
        // --memory-isolated: the memory traffic on a private copy of the network
        {
            std::string text;
            const int rc =
                Shell(base + " --remote-memory-configuration=" + json +
                          " --backend=roce --memory-isolated=1 --output-dir=" + dir + "/iso",
                      text);
            NS_TEST_EXPECT_MSG_EQ(rc, 0, text);
            NS_TEST_EXPECT_MSG_NE(text.find("memory nodes (fabric/flow)"), std::string::npos, text);
            NS_TEST_EXPECT_MSG_EQ(Shell(base + " --remote-memory-configuration=" + json +
                                            " --backend=analytical --memory-isolated=1",
                                        text),
                                  1,
                                  text);
            NS_TEST_EXPECT_MSG_NE(text.find("--memory-isolated applies"), std::string::npos, text);
        }
        // bad input: status 1 and the message, never a signal
        const std::vector<std::pair<std::string, std::string>> bad = {
            {R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": -1})", "remote-mem-bw"},
            {R"({"memory-type": "MEMORY_POOL", "remote-mem-bw": 5, "pool-count": 0})",
             "pool-count"},
            {R"({"memory-type": "MEMORY_POL", "remote-mem-bw": 5})", "MEMORY_POOL"},
            {R"({"memory-type": "NO_MEMORY_EXPANSION"})", "NO_MEMORY_EXPANSION"},
            {R"({"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-bw": 5,
                 "memory-capacity": 0.001})",
             "trace node 2 'state.store'"},
        };
        for (const auto& [j, what] : bad)
        {
            for (const std::string be : {"analytical", "flow", "roce"})
            {
                if (what.find("trace node") != std::string::npos && be == "analytical")
                {
                    continue; // no memory nodes to fill on the analytical backend
                }
                std::string text;
                const int rc =
                    Shell(base + " --remote-memory-configuration=" + TmpFile("bad.json", j) +
                              " --backend=" + be + " --output-dir=" + dir + "/bad",
                          text);
                NS_TEST_EXPECT_MSG_EQ(rc, 1, be << " " << j << ": " << text);
                NS_TEST_EXPECT_MSG_NE(text.find("error:"), std::string::npos, text);
                NS_TEST_EXPECT_MSG_NE(text.find(what), std::string::npos, be << ": " << text);
            }
        }
    }
};

/// The memory-offload example's step: 16 bytes read and 14 written per parameter of a rank's
/// partition; the example runs and plots.
class OffloadStepTestCase : public TestCase
{
  public:
    OffloadStepTestCase()
        : TestCase("offload step: 16 B read, 14 B written per parameter of a partition; the "
                   "memory-offload example runs")
    {
    }

  private:
    void DoRun() override
    {
        OffloadStepWorkload w;
        w.layers = 3;
        w.hidden = 256;
        w.ranks = 8;
        w.tokens = 512;
        const uint64_t pl = 12 * 256 * 256 + 13 * 256;
        NS_TEST_EXPECT_MSG_EQ(w.LayerParams(), pl, "12 h^2 + 13 h");
        NS_TEST_EXPECT_MSG_EQ(w.ShardParams(), (pl + 7) / 8, "a rank's partition");
        const auto gs = w.Build();
        NS_TEST_ASSERT_MSG_EQ(gs.size(), 8u, "a graph per rank");
        for (const auto& g : gs)
        {
            uint64_t read = 0;
            uint64_t written = 0;
            uint64_t ag = 0;
            uint64_t rs = 0;
            std::set<std::string> names;
            for (const auto& n : g.nodes)
            {
                read += n.kind == NodeKind::MEM_LOAD ? n.tensorSize : 0;
                written += n.kind == NodeKind::MEM_STORE ? n.tensorSize : 0;
                ag += n.kind == NodeKind::COMM_COLL && n.collType == CollType::ALL_GATHER;
                rs += n.kind == NodeKind::COMM_COLL && n.collType == CollType::REDUCE_SCATTER;
                if (n.kind == NodeKind::MEM_LOAD || n.kind == NodeKind::MEM_STORE)
                {
                    names.insert(n.name);
                }
            }
            NS_TEST_EXPECT_MSG_EQ(read, 16 * 3 * w.ShardParams(), "16 B per parameter read");
            NS_TEST_EXPECT_MSG_EQ(written, 14 * 3 * w.ShardParams(), "14 B per parameter written");
            NS_TEST_EXPECT_MSG_EQ(read, w.ReadBytesPerRank(), "ReadBytesPerRank");
            NS_TEST_EXPECT_MSG_EQ(written, w.WriteBytesPerRank(), "WriteBytesPerRank");
            NS_TEST_EXPECT_MSG_EQ(ag, 6u, "two all-gathers per layer");
            NS_TEST_EXPECT_MSG_EQ(rs, 3u, "a reduce-scatter per layer");
            NS_TEST_EXPECT_MSG_EQ(names.size(), 9u, "params, grads, optimizer per layer");
        }
        // through the flow backend: every byte reaches the memory nodes
        Graphs graphs;
        for (const auto& g : gs)
        {
            graphs.push_back(std::make_shared<WorkloadGraph>(g));
        }
        auto topo = std::make_shared<const Topology>(
            Topology::FromDimensions({ClosDimension(8, 4, 2, 50, 500, 50, 500)}));
        RemoteMemoryConfig c = MemConfig(MemoryType::MEMORY_POOL, 50, 1000);
        c.poolCount = 2;
        const MemRun r = RunMem(topo, graphs, "flow", &c);
        NS_TEST_EXPECT_MSG_EQ(r.status, 0, "runs");
        uint64_t read = 0;
        uint64_t written = 0;
        for (const auto& row : r.rows)
        {
            read += row.bytesRead;
            written += row.bytesWritten;
        }
        NS_TEST_EXPECT_MSG_EQ(read, 8 * w.ReadBytesPerRank(), "all loads on the pools");
        NS_TEST_EXPECT_MSG_EQ(written, 8 * w.WriteBytesPerRank(), "all stores on the pools");
        NS_TEST_EXPECT_MSG_EQ(r.records.size(), 9u, "nine collectives");
        // the example, small, on both backends
        const std::string prog = FindProgram("memory-offload");
        NS_TEST_ASSERT_MSG_NE(prog, "", "memory-offload built next to the test runner");
        const std::string out = "/tmp/astra-memcfg-" + std::to_string(getpid()) + "-offload";
        for (const std::string be : {"flow", "roce"})
        {
            std::string text;
            const int rc = Shell(prog +
                                     " --npus=16 --npus-per-node=4 --spines=2 --layers=2 "
                                     "--hidden=256 --tokens=256 --backend=" +
                                     be + " --outDir=" + out + "-" + be,
                                 text);
            NS_TEST_EXPECT_MSG_EQ(rc, 0, be << ": " << text);
            NS_TEST_EXPECT_MSG_NE(text.find("per-node"), std::string::npos, text);
            NS_TEST_EXPECT_MSG_NE(text.find("coll. slowdn"), std::string::npos, text);
            NS_TEST_EXPECT_MSG_NE(
                ReadAll(out + "-" + be + "/memory-utilisation-pool.csv").find("time_us"),
                std::string::npos,
                be);
            if (std::system("command -v gnuplot >/dev/null 2>&1") == 0)
            {
                NS_TEST_EXPECT_MSG_EQ(
                    access((out + "-" + be + "/memory-utilisation.png").c_str(), R_OK),
                    0,
                    be << ": PNG");
            }
        }
        std::string text;
        NS_TEST_EXPECT_MSG_EQ(Shell(prog + " --placements=pools", text), 1, text);
        NS_TEST_EXPECT_MSG_NE(text.find("did you mean 'pool'"), std::string::npos, text);
    }
};

/// The run monitor and memory on the network: slow memory is no hang, a lost memory node is.
class MonitorTestCase : public TestCase
{
  public:
    MonitorTestCase()
        : TestCase("run monitor: a slow memory device is no hang, an unreachable memory node is")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = std::make_shared<const Topology>(
            Topology::FromDimensions({DimensionSpec{DimType::SWITCH, 2, 50, 500}}));
        const Graphs gs = MemGraphs({1000000, 0}, false);
        // 1 MB at 0.05 GB/s: 20 ms of data, twice the hang timeout (10 ms)
        RemoteMemoryConfig slow = MemConfig(MemoryType::PER_NPU_MEMORY_EXPANSION, 0.05, 1000);
        // 30 ms of access latency: nothing moves for three hang timeouts
        RemoteMemoryConfig late = MemConfig(MemoryType::PER_NPU_MEMORY_EXPANSION, 50, 30e6);
        for (const std::string be : {"flow", "roce"})
        {
            const MemRun a = RunMem(topo, gs, be, &slow);
            NS_TEST_EXPECT_MSG_EQ(a.status, 0, be << ": slow memory completes");
            NS_TEST_EXPECT_MSG_GT(a.finish[0], 20000000, be);
            const MemRun b = RunMem(topo, gs, be, &late);
            NS_TEST_EXPECT_MSG_EQ(b.status, 0, be << ": long latency completes");
            NS_TEST_EXPECT_MSG_GT(b.finish[0], 30000000, be);
        }
        // every frame into NPU 0's memory node lost: the READ never completes
        RemoteMemoryConfig fast = MemConfig(MemoryType::PER_NPU_MEMORY_EXPANSION, 50, 1000);
        std::string report;
        const MemRun c = RunMem(
            topo,
            gs,
            "roce",
            &fast,
            SystemParams{},
            [](AstraSimScenario& sc) {
                sc.GetMonitor()->SetAttribute("HangTimeout", TimeValue(MilliSeconds(2)));
            },
            [&](AstraSimScenario& sc) { report = sc.GetMonitor()->GetHangReport(); },
            [](AstraSimScenario& sc) {
                const auto t = sc.GetTopology();
                const uint32_t mem = t->GetNpuMemory(0)[0];
                const auto devs = sc.GetFabric().GetLinkDevices(t->GetNodeLinks(mem).front());
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetAttribute("ErrorRate", DoubleValue(1.0));
                em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
                devs.first->SetAttribute("ReceiveErrorModel", PointerValue(em));
            });
        NS_TEST_EXPECT_MSG_EQ(c.status, 2, "a hang");
        NS_TEST_EXPECT_MSG_NE(report.find("MEM_LOAD"), std::string::npos, report);
    }
};

/// The suite.
class MemoryConfigTestSuite : public TestSuite
{
  public:
    MemoryConfigTestSuite()
        : TestSuite("astra-sim-memory-config", UNIT)
    {
        AddTestCase(new BadConfigTestCase(), TestCase::QUICK);
        AddTestCase(new YamlMemoryTestCase(), TestCase::QUICK);
        AddTestCase(new AnalyticalTestCase(), TestCase::QUICK);
        AddTestCase(new RunnerTestCase(), TestCase::QUICK);
        AddTestCase(new OffloadStepTestCase(), TestCase::QUICK);
        AddTestCase(new MonitorTestCase(), TestCase::QUICK);
    }
};

static MemoryConfigTestSuite g_memoryConfigTestSuite;
