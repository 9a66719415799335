/*
 * Bad input never crashes, hangs or passes silently (doc/testing.rst).
 *
 * Each case builds a bad input (a trace, a configuration file, an option) in a
 * temporary folder from the reference inputs under ../shared or from
 * generated traces, runs a built program (astra-sim-runner, training-on-roce,
 * rdma-incast, ...) as a subprocess under a time limit, and checks its exit
 * status (1 input error, 2 hang, 0 a control case that must run) and one or
 * more fragments of its message. A case fails if the program crashes (killed
 * by a signal, e.g. SIGABRT or SIGSEGV), is killed by the time limit (a hang),
 * exits with another status (e.g. 0: passed silently) or says something else.
 *
 * The cases are grouped by the classes of bad input of issue 14, one TestCase
 * per class: numbers, trace content, files, groups and memory, root causes,
 * HPCC/SimAI config.txt, congestion control from the runner, PyTorch captures.
 *
 * With ASTRA_BAD_INPUT_REPORT=1 in the environment every case's status and
 * first message line are printed (to see what the programs answer).
 */

#include "astra-test-programs.h"
#include "chakra.pb.h"

#include "ns3/astra-paths.h"
#include "ns3/et-writer.h"
#include "ns3/test.h"
#include "ns3/workload-graph.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <glob.h>
#include <iostream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// Time limit of one program run (s): far above any case's run time, also under sanitizers.
constexpr int kTimeLimitSeconds = 120;

using ns3::astra::testutil::FindProgram;

/// Run a shell command under the time limit; \return its status (128 + signal if killed)
int
Shell(const std::string& command, std::string& out)
{
    return ns3::astra::testutil::RunCommand(command, out, kTimeLimitSeconds, 1u << 20);
}

/// One bad input and what the program must answer.
struct Case
{
    std::string name;               //!< what is wrong
    std::string command;            //!< the command line
    int status;                     //!< expected exit status
    std::vector<std::string> parts; //!< fragments of the expected output
};

// ------------------------------------------------------------------ workload nodes

WorkloadNode
Node(uint64_t id, NodeKind kind, const std::string& name, std::vector<uint64_t> deps = {})
{
    WorkloadNode n;
    n.id = id;
    n.kind = kind;
    n.name = name;
    n.dataDeps = std::move(deps);
    return n;
}

WorkloadNode
Coll(uint64_t id,
     CollType t,
     uint64_t bytes,
     const std::string& pg = "",
     std::vector<uint64_t> deps = {})
{
    WorkloadNode n = Node(id, NodeKind::COMM_COLL, "coll" + std::to_string(id), std::move(deps));
    n.collType = t;
    n.commSize = bytes;
    n.pgName = pg;
    return n;
}

WorkloadNode
Send(uint64_t id, int32_t dst, uint64_t bytes, int64_t tag, std::vector<uint64_t> deps = {})
{
    WorkloadNode n = Node(id, NodeKind::COMM_SEND, "send" + std::to_string(id), std::move(deps));
    n.commDst = dst;
    n.commSize = bytes;
    n.commTag = tag;
    return n;
}

WorkloadNode
Recv(uint64_t id, int32_t src, uint64_t bytes, int64_t tag, std::vector<uint64_t> deps = {})
{
    WorkloadNode n = Node(id, NodeKind::COMM_RECV, "recv" + std::to_string(id), std::move(deps));
    n.commSrc = src;
    n.commSize = bytes;
    n.commTag = tag;
    return n;
}

WorkloadNode
Comp(uint64_t id, uint64_t ns, std::vector<uint64_t> deps = {})
{
    WorkloadNode n = Node(id, NodeKind::COMP, "comp" + std::to_string(id), std::move(deps));
    n.durationNs = ns;
    return n;
}

/// Nodes of one rank.
using RankNodes = std::function<std::vector<WorkloadNode>(uint32_t rank)>;

// ------------------------------------------------------------------ raw Chakra bytes

/// varint32-length-delimited message
std::string
Framed(const google::protobuf::MessageLite& m)
{
    std::string body;
    m.SerializeToString(&body);
    std::string out;
    uint64_t len = body.size();
    do
    {
        uint8_t b = len & 0x7f;
        len >>= 7;
        out.push_back(static_cast<char>(b | (len ? 0x80 : 0)));
    } while (len);
    return out + body;
}

std::string
RawHeader()
{
    ChakraProtoMsg::GlobalMetadata md;
    md.set_version("0.0.4");
    return Framed(md);
}

/// A raw node: id, type number, and integer attributes
std::string
RawNode(uint64_t id, int type, const std::vector<std::pair<std::string, int64_t>>& attrs)
{
    ChakraProtoMsg::Node n;
    n.set_id(id);
    n.set_name("raw" + std::to_string(id));
    n.set_type(static_cast<ChakraProtoMsg::NodeType>(type));
    for (const auto& a : attrs)
    {
        auto* p = n.add_attr();
        p->set_name(a.first);
        p->set_int64_val(a.second);
    }
    return Framed(n);
}

// ------------------------------------------------------------------ the environment

/// Temporary folder, programs and inputs of one class of cases.
class Env
{
  public:
    Env()
    {
        char tmpl[] = "/tmp/astra-bad-input-XXXXXX";
        const char* d = mkdtemp(tmpl);
        dir = d ? d : "/tmp";
        ref = GetReferenceDir();
        ex = ref + "/astra-sim/examples";
        runner = FindProgram("astra-sim-runner");
        training = FindProgram("training-on-roce");
        incast = FindProgram("rdma-incast");
        gen = FindProgram("astra-sim-workload-gen");
        ccStudy = FindProgram("cc-study");
        w8 = ex + "/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce";
        sys = ex + "/system/native_collectives/Ring_4chunks.json";
        net8 = ex + "/network/analytical/Ring_8npus.yml";
        out = dir + "/out";
        net4 = File("ring4.yml",
                    "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n");
    }

    ~Env()
    {
        if (dir.rfind("/tmp/astra-bad-input-", 0) == 0)
        {
            std::string ignored;
            Shell("rm -rf '" + dir + "'", ignored);
        }
    }

    /// Write a file \return its path \param name file name \param text content
    std::string File(const std::string& name, const std::string& text) const
    {
        const std::string p = dir + "/" + name;
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }

    /// Write traces PREFIX.<r>.et for ranks 0..n-1 \return the prefix
    std::string Traces(const std::string& name, uint32_t n, const RankNodes& nodes) const
    {
        std::vector<WorkloadGraph> gs;
        for (uint32_t r = 0; r < n; ++r)
        {
            WorkloadGraph g;
            g.rank = r;
            g.nodes = nodes(r);
            gs.push_back(std::move(g));
        }
        const std::string prefix = dir + "/" + name;
        WriteChakraPrefix(gs, prefix);
        return prefix;
    }

    /// Write raw trace bytes PREFIX.<r>.et \return the prefix
    std::string RawTraces(const std::string& name,
                          uint32_t n,
                          const std::function<std::string(uint32_t)>& bytes) const
    {
        const std::string prefix = dir + "/" + name;
        for (uint32_t r = 0; r < n; ++r)
        {
            std::ofstream(prefix + "." + std::to_string(r) + ".et", std::ios::binary) << bytes(r);
        }
        return prefix;
    }

    /**
     * A runner command line: the reference 8-NPU all-reduce on Ring_8npus
     * with Ring_4chunks, each of which \p over may replace (keys "workload",
     * "system", "network"), then \p extra.
     */
    std::string Runner(const std::map<std::string, std::string>& over,
                       const std::string& extra = "") const
    {
        auto get = [&](const char* k, const std::string& d) {
            auto it = over.find(k);
            return it == over.end() ? d : it->second;
        };
        const bool progress = extra.find("--progress-seconds") == std::string::npos;
        return runner + " --workload-configuration=" + get("workload", w8) +
               " --system-configuration=" + get("system", sys) +
               " --network-configuration=" + get("network", net8) +
               (progress ? " --progress-seconds=0" : "") + " --output-dir=" + out +
               (extra.empty() ? "" : " " + extra);
    }

    /// A runner command line on generated 4-NPU traces (Ring of 4) \param prefix traces
    std::string Runner4(const std::string& prefix, const std::string& extra = "") const
    {
        return Runner({{"workload", prefix}, {"network", net4}}, extra);
    }

    /// training-on-roce with \p extra options
    std::string Training(const std::string& extra) const
    {
        return training + " --progress-seconds=0 --output-dir=" + out + " " + extra;
    }

    std::string dir;      //!< the temporary folder
    std::string ref;      //!< ../shared/reference
    std::string ex;       //!< ASTRA-sim's examples
    std::string runner;   //!< astra-sim-runner
    std::string training; //!< training-on-roce
    std::string incast;   //!< rdma-incast
    std::string gen;      //!< astra-sim-workload-gen
    std::string ccStudy;  //!< cc-study
    std::string w8;       //!< reference 8-NPU all-reduce traces
    std::string sys;      //!< reference system configuration
    std::string net8;     //!< reference 8-NPU ring
    std::string net4;     //!< a 4-NPU ring
    std::string out;      //!< output folder
};

/// The reference system JSON with one key replaced (or added) by \p value (JSON text).
std::string
SysJson(const std::string& key, const std::string& value)
{
    std::vector<std::pair<std::string, std::string>> kv = {
        {"scheduling-policy", "\"LIFO\""},
        {"endpoint-delay", "10"},
        {"active-chunks-per-dimension", "1"},
        {"preferred-dataset-splits", "4"},
        {"all-reduce-implementation", "[\"ring\"]"},
        {"all-gather-implementation", "[\"ring\"]"},
        {"reduce-scatter-implementation", "[\"ring\"]"},
        {"all-to-all-implementation", "[\"ring\"]"},
        {"collective-optimization", "\"localBWAware\""},
        {"local-mem-bw", "1600"},
        {"boost-mode", "0"},
        {"roofline-enabled", "0"},
        {"peak-perf", "900"}};
    bool found = false;
    for (auto& p : kv)
    {
        if (p.first == key)
        {
            p.second = value;
            found = true;
        }
    }
    if (!found)
    {
        kv.emplace_back(key, value);
    }
    std::string s = "{";
    for (size_t i = 0; i < kv.size(); ++i)
    {
        s += (i ? ", " : "") + std::string("\"") + kv[i].first + "\": " + kv[i].second;
    }
    return s + "}\n";
}

/// A network YAML of the current key style.
std::string
NetYaml(const std::string& topo,
        const std::string& npus,
        const std::string& bw,
        const std::string& lat)
{
    return "topology: [ " + topo + " ]\nnpus_count: [ " + npus + " ]\nbandwidth: [ " + bw +
           " ]\nlatency: [ " + lat + " ]\n";
}

/// Every rank runs one 1 MiB all-reduce on all NPUs.
std::vector<WorkloadNode>
AllReduce(uint32_t)
{
    return {Coll(1, CollType::ALL_REDUCE, 1048576)};
}

// ------------------------------------------------------------------ the classes

/// Class 1: numbers (finite, in range after unit conversion, positive, limits, booleans).
std::vector<Case>
NumberCases(const Env& e)
{
    std::vector<Case> c;
    auto sys = [&](const std::string& name,
                   const std::string& key,
                   const std::string& value,
                   std::vector<std::string> parts) {
        const std::string f =
            e.File("sys-" + std::to_string(c.size()) + ".json", SysJson(key, value));
        parts.insert(parts.begin(), "'" + key + "'");
        c.push_back({"system " + name, e.Runner({{"system", f}}), 1, parts});
    };
    sys("endpoint-delay 1e300", "endpoint-delay", "1e300", {"at most 1e+12", "1e+300"});
    sys("endpoint-delay negative", "endpoint-delay", "-1", {">= 0", "-1"});
    sys("endpoint-delay 1e19 ns", "endpoint-delay", "1e19", {"at most 1e+12"});
    sys("local-mem-bw 0", "local-mem-bw", "0", {"must be > 0"});
    sys("local-mem-bw 1e300 (overflows into a zero time)",
        "local-mem-bw",
        "1e300",
        {"GB/s", "1e+300"});
    sys("local-mem-bw negative", "local-mem-bw", "-5", {"must be > 0", "-5"});
    sys("local-mem-bw as a string", "local-mem-bw", "\"1600\"", {"expected a number"});
    sys("peak-perf 0", "peak-perf", "0", {"must be > 0"});
    sys("peak-perf 1e308", "peak-perf", "1e308", {"TFLOPS"});
    {
        const std::string f = e.File("sys-1e400.json", SysJson("peak-perf", "1e400"));
        c.push_back({"system peak-perf 1e400 (JSON overflow)",
                     e.Runner({{"system", f}}),
                     1,
                     {"invalid JSON", "number overflow", "1e400"}});
    }
    sys("preferred-dataset-splits 0", "preferred-dataset-splits", "0", {"1 to 1024"});
    sys("preferred-dataset-splits 2.5", "preferred-dataset-splits", "2.5", {"1 to 1024", "2.5"});
    sys("preferred-dataset-splits 1e6", "preferred-dataset-splits", "1000000", {"1 to 1024"});
    sys("preferred-dataset-splits negative", "preferred-dataset-splits", "-4", {"1 to 1024"});
    sys("active-chunks-per-dimension 0", "active-chunks-per-dimension", "0", {"from 1"});
    sys("active-chunks-per-dimension 1e12", "active-chunks-per-dimension", "1e12", {"from 1"});
    sys("roofline-enabled 2 (not a boolean)", "roofline-enabled", "2", {"0/1 or true/false", "2"});
    sys("roofline-enabled \"true\"", "roofline-enabled", "\"true\"", {"0/1 or true/false"});
    sys("model-shared-bus 7", "model-shared-bus", "7", {"0/1 or true/false"});
    sys("L negative", "L", "-3", {">= 0"});
    sys("G 1e200", "G", "1e200", {"at most 1e+12"});
    sys("boost-mode 1.5", "boost-mode", "1.5", {"expected an integer"});
    sys("local-reduction-delay 1e13", "local-reduction-delay", "1e13", {"at most 1e+12"});
    sys("scheduling-policy as a number", "scheduling-policy", "1", {"expected a string"});
    sys("collective-gate-latency-ns negative", "collective-gate-latency-ns", "-5", {">= 0"});
    sys("collective-gate-latency-ns 1e13", "collective-gate-latency-ns", "1e13", {"at most 1e+12"});

    // the 1.0 text form
    {
        const std::string f =
            e.File("sys-nan.txt", "scheduling-policy: LIFO\nendpoint-delay: nan\n");
        c.push_back({"system text endpoint-delay nan",
                     e.Runner({{"system", f}}),
                     1,
                     {"'endpoint-delay'", "expected a number", "nan"}});
        const std::string g = e.File("sys-hex.txt", "preferred-dataset-splits: 0x10\n");
        c.push_back({"system text splits 0x10",
                     e.Runner({{"system", g}}),
                     1,
                     {"'preferred-dataset-splits'", "0x10"}});
    }

    auto net =
        [&](const std::string& name, const std::string& yaml, std::vector<std::string> parts) {
            const std::string f = e.File("net-" + std::to_string(c.size()) + ".yml", yaml);
            c.push_back({"network " + name, e.Runner({{"network", f}}), 1, parts});
        };
    net("bandwidth 0", NetYaml("Ring", "8", "0", "500"), {"'bandwidth'", "positive"});
    net("bandwidth negative", NetYaml("Ring", "8", "-50", "500"), {"'bandwidth'", "positive"});
    net("bandwidth 1e300 (nonsense time)",
        NetYaml("Ring", "8", "1e300", "500"),
        {"'bandwidth'", "1e+300", "accepted range"});
    net("bandwidth 1e-300 (hang)",
        NetYaml("Ring", "8", "1e-300", "500"),
        {"'bandwidth'", "accepted range"});
    net("bandwidth nan",
        NetYaml("Ring", "8", "nan", "500"),
        {"'bandwidth'", "not a finite number"});
    net("bandwidth .inf",
        NetYaml("Ring", "8", ".inf", "500"),
        {"'bandwidth'", "not a finite number"});
    net("bandwidth true",
        NetYaml("Ring", "8", "true", "500"),
        {"'bandwidth'", "not a finite number"});
    net("latency negative", NetYaml("Ring", "8", "50", "-1"), {"'latency'", "negative"});
    net("latency 1e19 ns (hang)",
        NetYaml("Ring", "8", "50", "1e19"),
        {"'latency'", "largest latency"});
    net("latency .nan", NetYaml("Ring", "8", "50", ".nan"), {"'latency'", "not a finite number"});
    net("npus_count 8.5",
        NetYaml("Ring", "8.5", "50", "500"),
        {"'npus_count'", "positive integers"});
    net("npus_count 0", NetYaml("Ring", "0", "50", "500"), {"'npus_count'", "positive integers"});
    net("npus_count negative",
        NetYaml("Ring", "-8", "50", "500"),
        {"'npus_count'", "positive integers"});
    net("npus_count 10^9 (hang)",
        NetYaml("Ring", "1000000000", "50", "500"),
        {"'npus_count'", "limit of 1048576"});
    net("two dimensions of 10^5 NPUs",
        NetYaml("Ring, Ring", "100000, 100000", "50, 50", "500, 500"),
        {"limit of 1048576 NPUs"});
    net("FullyConnected of 10^5 NPUs (10^10 links)",
        NetYaml("FullyConnected", "100000", "50", "500"),
        {"links", "limit of 16777216"});
    net("one value for two dimensions",
        NetYaml("Ring, Ring", "4, 2", "50", "500"),
        {"'bandwidth'", "expected 2 values"});
    net("older style link-bandwidth 0",
        "{\"topology-name\": \"Hierarchical\", \"topologies-per-dim\": [\"Ring\"], "
        "\"dimensions-count\": 1, "
        "\"units-count\": [8], \"link-latency\": [500], \"link-bandwidth\": [0]}",
        {"'link-bandwidth'", "positive"});
    net("older style links-count 0",
        "{\"topology-name\": \"Hierarchical\", \"topologies-per-dim\": [\"Ring\"], "
        "\"dimensions-count\": 1, "
        "\"units-count\": [8], \"link-latency\": [500], \"link-bandwidth\": [50], \"links-count\": "
        "[0]}",
        {"'links-count'", "integer from 1"});
    net("older style units-count 1e10",
        "{\"topology-name\": \"Hierarchical\", \"topologies-per-dim\": [\"Ring\"], "
        "\"dimensions-count\": 1, "
        "\"units-count\": [1e10], \"link-latency\": [500], \"link-bandwidth\": [50]}",
        {"'units-count'", "limit of 1048576"});
    net("uplink_bandwidth 1e300",
        NetYaml("Clos", "8", "50", "500") +
            "hosts_per_leaf: [ 4 ]\nspines: [ 2 ]\nuplink_bandwidth: [ 1e300 ]\n",
        {"'uplink_bandwidth'", "accepted range"});
    net("oversubscription 1e9",
        NetYaml("Clos", "8", "50", "500") +
            "hosts_per_leaf: [ 4 ]\nspines: [ 2 ]\noversubscription: [ 1e9 ]\n",
        {"'oversubscription'", "largest oversubscription"});
    net("hosts_per_leaf 1e12",
        NetYaml("Clos", "8", "50", "500") + "hosts_per_leaf: [ 1e12 ]\n",
        {"'hosts_per_leaf'", "positive integer"});

    // runner options
    auto opt = [&](const std::string& arg, std::vector<std::string> parts) {
        parts.insert(parts.begin(), "error: " + arg);
        c.push_back({"option " + arg, e.Runner({}, arg), 1, parts});
    };
    opt("--compute-scale=-1", {"must be >= 0"});
    opt("--compute-scale=nan", {"expected a number"});
    opt("--compute-scale=1e300", {"at most"});
    opt("--comm-scale=0", {"must be > 0"});
    opt("--comm-scale=1e12", {"at most"});
    opt("--injection-scale=-2", {"must be >= 0"});
    opt("--num-queues-per-dim=0", {"must be >= 1"});
    opt("--num-queues-per-dim=1000000000", {"at most 1024"});
    opt("--text-passes=0", {"must be >= 1"});
    opt("--text-passes=4000000000", {"at most 1000"});
    opt("--progress-seconds=-1", {"must be >= 0"});
    opt("--progress-seconds=inf", {"expected a number"});
    opt("--hang-ns=-5", {"non-negative integer"});
    opt("--hang-ns=12abc", {"expected an integer"});
    opt("--rng-stream=-2", {"must be >= -1"});
    opt("--event-order=nod", {"unknown order", "did you mean 'node'"});
    c.push_back({"option --SchedulerType with --event-order=node",
                 e.Runner({}, "--event-order=node --SchedulerType=ns3::MapScheduler"),
                 1,
                 {"error: --SchedulerType=ns3::MapScheduler does not keep the node event order",
                  "--event-order=fifo"}});
    c.push_back({"option --SimulatorImplementationType with --event-order=node",
                 e.Runner({}, "--SimulatorImplementationType=ns3::RealtimeSimulatorImpl"),
                 1,
                 {"error: --SimulatorImplementationType=ns3::RealtimeSimulatorImpl does not "
                  "keep the node event order",
                  "--event-order=fifo"}});
    opt("--compat=2", {"expected true/false or 1/0"});
    opt("--compat=1abc", {"expected true/false or 1/0"});
    opt("--summary=yes", {"expected true/false or 1/0"});
    opt("--RngSeed=0", {"needs a seed >= 1"});
    opt("--RngRun=-1", {"must be >= 0"});
    c.push_back({"option --backend given twice",
                 e.Runner({}, "--backend=flow --backend=roce"),
                 1,
                 {"error: --backend=roce: '--backend' given twice (first as --backend=flow)"}});

    // attributes (ns-3 would abort, wrap, overflow or accept a meaningless value)
    auto attr = [&](const std::string& arg, std::vector<std::string> parts) {
        parts.insert(parts.begin(), "error: ");
        c.push_back({"attribute " + arg, e.Runner({}, "--backend=roce " + arg), 1, parts});
    };
    attr("--ns3::RdmaHostStack::Mtu=0", {"Mtu"});
    attr("--ns3::RdmaHostStack::Mtu=-1000", {"invalid value '-1000'"});
    attr("--ns3::RdmaHostStack::Mtu=abc", {"invalid value 'abc'"});
    attr("--ns3::RdmaNetDevice::DataRate=0bps", {"DataRate"});
    attr("--ns3::RdmaNetDevice::DataRate=1e30Gbps", {"1e30Gbps"});
    attr("--ns3::RdmaNetDevice::DataRate=99999999999999Gbps", {"larger than 1e15 bit/s"});
    attr("--ns3::RdmaHostStack::AckInterval=0", {"AckInterval"});
    attr("--ns3::RdmaHostStack::Rto=-1us", {"is negative"});
    attr("--ns3::RdmaHostStack::Rto=0s", {"Rto"});
    attr("--ns3::RdmaHostStack::Rto=1e300s", {"larger than 1e15 ns"});
    attr("--ns3::RdmaHostStack::BaseRtt=-1us", {"is negative"});
    attr("--ns3::SwitchMmu::BufferSize=0", {"buffer"});
    attr("--ns3::RdmaCcDcqcn::G=nan", {"'nan'"});
    attr("--ns3::RdmaCcDcqcn::G=-0.5", {"G"});
    attr("--ns3::RdmaCcDcqcn::G=2", {"G"});
    attr("--ns3::RdmaCcHpcc::Eta=0 --ns3::RdmaHostStack::CongestionControl=ns3::RdmaCcHpcc",
         {"Eta"});
    attr("--ns3::RdmaSwitch::IntEnabled=2", {"invalid value '2'"});
    attr("--ns3::RdmaCcDcqcn::RateAi=-5Mbps", {"invalid value '-5Mbps'"});
    attr("--ns3::RdmaChannel::Delay=-1ns", {"invalid value '-1ns'"});
    attr("--ns3::astra::AstraRunMonitor::HangTimeout=0s", {"HangTimeout"});
    attr("--ns3::RdmaHostStack::Mtu=1000 --ns3::RdmaHostStack::Mtu=2000", {"given twice"});
    {
        // an attribute of the fabric on a backend without one has no effect
        c.push_back({"fabric attribute with --backend=analytical",
                     e.Runner({}, "--ns3::RdmaHostStack::Mtu=2000"),
                     1,
                     {"ns3::RdmaHostStack::Mtu", "no effect", "--backend=analytical"}});
    }

    // training-on-roce options
    auto train = [&](const std::string& arg, std::vector<std::string> parts) {
        parts.insert(parts.begin(), "error: " + arg);
        c.push_back({"training-on-roce " + arg, e.Training(arg), 1, parts});
    };
    train("--scale-up-GBps=0", {"must be > 0"});
    train("--scale-up-GBps=1e300", {"at most"});
    train("--scale-out-Gbps=-400", {"must be > 0"});
    train("--scale-up-latency=-1", {"must be >= 0"});
    train("--scale-out-latency=1e19", {"at most"});
    train("--max-sim-ms=nan", {"expected a number"});
    train("--max-sim-ms=0", {"must be > 0"});
    train("--queue-sample-ns=0", {"must be >= 1"});
    train("--hosts-per-leaf=0", {"must be >= 1"});
    train("--peak-perf=-1", {"must be > 0"});
    train("--local-mem-bw=0", {"must be > 0"});
    train("--splits=0", {"must be >= 1"});
    train("--splits=5000", {"must be at most 1024"});
    train("--active-chunks=0", {"must be >= 1"});
    train("--systems=0", {"must be >= 1"});
    train("--comm-scale=-1", {"must be > 0"});
    train("--gate-latency-ns=-1", {"gate-latency-ns"});
    train("--gate-latency-ns=nan", {"gate-latency-ns"});

    // sizes that cannot finish: errors naming the limit, not hangs
    {
        const std::string big = e.Traces("coll-2e62", 4, [](uint32_t) {
            return std::vector<WorkloadNode>{Coll(1, CollType::ALL_REDUCE, uint64_t(1) << 62)};
        });
        c.push_back({"a 2^62-byte collective",
                     e.Runner4(big),
                     1,
                     {"ALL_REDUCE of 4611686018427387904 bytes", "limit of 1099511627776 bytes"}});
        const std::string send = e.Traces("send-2e50", 4, [](uint32_t r) {
            if (r == 0)
            {
                return std::vector<WorkloadNode>{Send(1, 1, uint64_t(1) << 50, 5)};
            }
            if (r == 1)
            {
                return std::vector<WorkloadNode>{Recv(1, 0, uint64_t(1) << 50, 5)};
            }
            return std::vector<WorkloadNode>{Comp(1, 10)};
        });
        c.push_back(
            {"a 2^50-byte SEND", e.Runner4(send), 1, {"SEND of 1125899906842624 bytes", "limit"}});
        const std::string two = e.Traces("coll-2m", 4, [](uint32_t) {
            return std::vector<WorkloadNode>{Coll(1, CollType::ALL_REDUCE, 2u << 20)};
        });
        c.push_back({"2 MiB collectives x --comm-scale=1e6",
                     e.Runner4(two, "--comm-scale=1e6"),
                     1,
                     {"(x --comm-scale 1e+06)", "limit"}});
        c.push_back({"--comm-scale=1e7",
                     e.Runner({}, "--comm-scale=1e7"),
                     1,
                     {"--comm-scale=1e7: must be at most 1e+06"}});
        const std::string comp = e.Traces("comp-long", 4, [](uint32_t) {
            WorkloadNode n = Node(1, NodeKind::COMP, "forever");
            n.durationMicros = uint64_t(1) << 60;
            return std::vector<WorkloadNode>{n};
        });
        c.push_back({"COMP of 2^60 microseconds (overflows x 1000)",
                     e.Runner4(comp),
                     1,
                     {"duration_micros 1152921504606846976", "1000 s"}});
        const std::string roof = e.Traces("comp-flops", 4, [](uint32_t) {
            WorkloadNode n = Node(1, NodeKind::COMP, "flops");
            n.numOps = uint64_t(1) << 63;
            n.hasNumOps = true;
            return std::vector<WorkloadNode>{n};
        });
        c.push_back(
            {"COMP of 2^63 FLOPs on the roofline", e.Runner4(roof), 1, {"compute time", "1000 s"}});
        const std::string mem = e.Traces("mem-huge", 4, [](uint32_t) {
            WorkloadNode n = Node(1, NodeKind::MEM_LOAD, "load");
            n.tensorSize = uint64_t(1) << 62;
            return std::vector<WorkloadNode>{n};
        });
        c.push_back({"MEM_LOAD of 2^62 bytes",
                     e.Runner4(mem),
                     1,
                     {"tensor_size 4611686018427387904", "limit"}});
        c.push_back({"--compute-scale=1e12 on a 1 ms node",
                     e.Runner4(e.Traces("comp-ms",
                                        4,
                                        [](uint32_t) {
                                            return std::vector<WorkloadNode>{Comp(1, 1000000)};
                                        }),
                               "--compute-scale=1e12"),
                     1,
                     {"at most"}});
    }
    return c;
}

/// Class 2: trace content.
std::vector<Case>
TraceCases(const Env& e)
{
    std::vector<Case> c;
    auto traces = [&](const std::string& name,
                      const RankNodes& nodes,
                      int status,
                      std::vector<std::string> parts,
                      const std::string& extra = "") {
        const std::string p = e.Traces("t" + std::to_string(c.size()), 4, nodes);
        c.push_back({"trace: " + name, e.Runner4(p, extra), status, parts});
    };
    auto raw = [&](const std::string& name,
                   const std::function<std::string(uint32_t)>& bytes,
                   std::vector<std::string> parts) {
        const std::string p = e.RawTraces("raw" + std::to_string(c.size()), 4, bytes);
        c.push_back({"trace: " + name, e.Runner4(p), 1, parts});
    };
    traces(
        "a BROADCAST whose root is not a member of its group",
        [](uint32_t) {
            WorkloadNode n = Coll(1, CollType::BROADCAST, 1024, "1");
            n.commSrc = 3;
            return std::vector<WorkloadNode>{n};
        },
        1,
        {"BROADCAST: its root NPU 3", "not a member of communicator group '1'"},
        "--comm-group-configuration=" + e.File("root-g.json", "{\"1\": [0, 1], \"2\": [2, 3]}"));
    traces("a REDUCE whose root is beyond the topology",
           [](uint32_t) {
               WorkloadNode n = Coll(1, CollType::REDUCE, 1024);
               n.commDst = 9;
               return std::vector<WorkloadNode>{n};
           },
           1,
           {"REDUCE: its root NPU 9", "not a member"});
    raw("an INVALID node",
        [](uint32_t) { return RawHeader() + RawNode(1, 0, {}); },
        {"node 1 'raw1' (INVALID)", "no operation"});
    raw("an INVALID node among good ones",
        [](uint32_t) {
            return RawHeader() + RawNode(1, 7, {{"comm_type", 0}, {"comm_size", 1024}}) +
                   RawNode(2, 0, {});
        },
        {"node 2", "INVALID"});
    raw("an unknown node type 9",
        [](uint32_t) { return RawHeader() + RawNode(1, 9, {}); },
        {"unknown node type 9"});
    raw("a COMM_COLL without comm_size",
        [](uint32_t) {
            return RawHeader() + RawNode(1, 7, {{"comm_type", 0}});
        },
        {"ALL_REDUCE without a size", "comm_size missing or 0"});
    raw("a COMM_COLL of 0 bytes",
        [](uint32_t) {
            return RawHeader() + RawNode(1, 7, {{"comm_type", 2}, {"comm_size", 0}});
        },
        {"ALL_GATHER without a size"});
    raw("comm_type 12",
        [](uint32_t) {
            return RawHeader() + RawNode(1, 7, {{"comm_type", 12}, {"comm_size", 64}});
        },
        {"unknown comm_type 12"});
    raw("comm_size negative",
        [](uint32_t) {
            return RawHeader() + RawNode(1, 7, {{"comm_type", 0}, {"comm_size", -5}});
        },
        {"'comm_size' value -5 out of range"});
    raw("comm_dst beyond int32",
        [](uint32_t) {
            return RawHeader() + RawNode(1, 5, {{"comm_dst", int64_t(1) << 40}, {"comm_size", 8}});
        },
        {"'comm_dst' value 1099511627776 out of range"});
    raw("a node depending on itself",
        [](uint32_t) {
            ChakraProtoMsg::Node n;
            n.set_id(1);
            n.set_type(ChakraProtoMsg::COMP_NODE);
            n.add_data_deps(1);
            return RawHeader() + Framed(n);
        },
        {"cycle"});
    {
        // a BARRIER carries no data: accepted (control)
        const std::string p = e.RawTraces("barrier", 4, [](uint32_t) {
            return RawHeader() + RawNode(1, 7, {{"comm_type", 9}});
        });
        c.push_back({"trace: a BARRIER without comm_size (control: runs)",
                     e.Runner4(p),
                     0,
                     {"sys[3] finished"}});
    }
    traces("involved_dim longer than the topology (warned, counted)",
           [](uint32_t) {
               WorkloadNode n = Coll(1, CollType::ALL_REDUCE, 1048576);
               n.involvedDim = {true, true, false};
               return std::vector<WorkloadNode>{n};
           },
           0,
           {"involved_dim has 3 entries but the topology has 1 dimension",
            "ignored",
            "involved-dim-beyond-topology: 4 times in all"});
    traces("SEND to a negative rank",
           [](uint32_t r) {
               return r == 0 ? std::vector<WorkloadNode>{Send(1, -3, 64, 0)}
                             : std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"node 1 'send1' (COMM_SEND)", "comm_dst -3"});
    traces("SEND without comm_dst",
           [](uint32_t r) {
               return r == 0 ? std::vector<WorkloadNode>{Send(1, -1, 64, 0)}
                             : std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"comm_dst -1 (missing)"});
    traces("SEND to its own rank",
           [](uint32_t r) {
               return r == 2 ? std::vector<WorkloadNode>{Send(1, 2, 64, 0), Recv(2, 2, 64, 0)}
                             : std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"comm_dst 2 is the node's own NPU"});
    traces("RECV from its own rank",
           [](uint32_t r) {
               return r == 1 ? std::vector<WorkloadNode>{Recv(1, 1, 64, 0)}
                             : std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"comm_src 1 is the node's own NPU"});
    traces("RECV from a negative rank",
           [](uint32_t r) {
               return r == 1 ? std::vector<WorkloadNode>{Recv(1, -7, 64, 0)}
                             : std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"comm_src -7"});
    traces("SEND to a rank beyond the topology",
           [](uint32_t r) {
               return r == 0 ? std::vector<WorkloadNode>{Send(1, 9, 64, 0)}
                             : std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"comm_dst 9", "NPUs 0..3"});
    traces("RECV from a rank beyond the topology",
           [](uint32_t r) {
               return r == 0 ? std::vector<WorkloadNode>{Recv(1, 4, 64, 0)}
                             : std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"comm_src 4", "NPUs 0..3"});
    traces("SEND/RECV size mismatch",
           [](uint32_t r) {
               if (r == 0)
                   return std::vector<WorkloadNode>{Send(1, 1, 4096, 3)};
               if (r == 1)
                   return std::vector<WorkloadNode>{Recv(1, 0, 1024, 3)};
               return std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"SEND/RECV sizes differ", "sends 4096 bytes to NPU 1", "receives 1024 bytes"});
    traces("a SEND nobody receives (must not end 'finished')",
           [](uint32_t r) {
               return r == 0 ? std::vector<WorkloadNode>{Send(1, 3, 4096, 11)}
                             : std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"its SEND to NPU 3 (tag 11, 4096 bytes) is never received"});
    traces("a SEND received with another tag",
           [](uint32_t r) {
               if (r == 0)
                   return std::vector<WorkloadNode>{Send(1, 1, 64, 1)};
               if (r == 1)
                   return std::vector<WorkloadNode>{Recv(1, 0, 64, 2)};
               return std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"is never received"});
    traces("a RECV nobody sends (would hang)",
           [](uint32_t r) {
               return r == 2 ? std::vector<WorkloadNode>{Recv(1, 0, 64, 4)}
                             : std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"its RECV from NPU 0 (tag 4) has no matching SEND"});
    traces("two SENDs, one RECV",
           [](uint32_t r) {
               if (r == 0)
                   return std::vector<WorkloadNode>{Send(1, 1, 64, 1), Send(2, 1, 64, 1)};
               if (r == 1)
                   return std::vector<WorkloadNode>{Recv(1, 0, 64, 1)};
               return std::vector<WorkloadNode>{Comp(1, 5)};
           },
           1,
           {"node 2", "never received", "1 RECV(s)", "2 SEND(s)"});
    traces("a collective whose size differs between ranks",
           [](uint32_t r) {
               return std::vector<WorkloadNode>{
                   Coll(1, CollType::ALL_REDUCE, r == 2 ? 2048 : 1024)};
           },
           1,
           {"collective 'coll1'", "of 2048 bytes on NPU 2", "of 1024 bytes on NPU"});
    traces("a collective whose type differs between ranks",
           [](uint32_t r) {
               return std::vector<WorkloadNode>{
                   Coll(1, r == 1 ? CollType::ALL_GATHER : CollType::ALL_REDUCE, 1024)};
           },
           1,
           {"collective 'coll1'", "ALL_GATHER", "ALL_REDUCE", "disagree"});
    traces("a collective one rank never issues",
           [](uint32_t r) {
               return r == 3 ? std::vector<WorkloadNode>{Comp(1, 5)}
                             : std::vector<WorkloadNode>{Coll(1, CollType::ALL_REDUCE, 1024)};
           },
           1,
           {"collective 'coll1' on all NPUs", "(NPU 3) 0 time(s)"});
    traces("a collective one rank issues twice",
           [](uint32_t r) {
               std::vector<WorkloadNode> v{Coll(1, CollType::ALL_REDUCE, 1024)};
               if (r == 1)
               {
                   WorkloadNode n = Coll(2, CollType::ALL_REDUCE, 1024, "", {1});
                   n.name = "coll1";
                   v.push_back(n);
               }
               return v;
           },
           1,
           {"(NPU 1) issues it 2 time(s)", "1 time(s)"});
    traces(
        "a collective on a group the rank is not in",
        [](uint32_t r) {
            return std::vector<WorkloadNode>{Coll(1, CollType::ALL_REDUCE, 1024, "1")};
        },
        1,
        {"is not a member"},
        "--comm-group-configuration=" + e.File("g01.json", "{\"1\": [0, 1]}"));
    traces("a collective on an unknown group",
           [](uint32_t) {
               return std::vector<WorkloadNode>{Coll(1, CollType::ALL_REDUCE, 1024, "tp7")};
           },
           1,
           {"unknown communicator group 'tp7'"});
    traces("a dependency on an absent node (data)",
           [](uint32_t) { return std::vector<WorkloadNode>{Comp(1, 5, {99})}; },
           1,
           {"node 1", "99"});
    traces("duplicate node ids",
           [](uint32_t) {
               return std::vector<WorkloadNode>{Comp(1, 5), Comp(1, 6)};
           },
           1,
           {"duplicate", "1"});
    traces("a dependency cycle",
           [](uint32_t) {
               return std::vector<WorkloadNode>{Comp(1, 5, {2}), Comp(2, 5, {1})};
           },
           1,
           {"cycle"});
    traces(
        "a MEM_LOAD with remote memory of no expansion",
        [](uint32_t) {
            WorkloadNode n = Node(1, NodeKind::MEM_LOAD, "load");
            n.tensorSize = 100;
            return std::vector<WorkloadNode>{n};
        },
        1,
        {"NO_MEMORY_EXPANSION"},
        "--remote-memory-configuration=" + e.ex +
            "/remote_memory/analytical/no_memory_expansion.json");
    {
        // rank files: fewer or more than the topology's NPUs
        c.push_back({"trace: 8 rank files on 4 NPUs",
                     e.Runner({{"network", e.net4}}),
                     1,
                     {"extra rank files beyond the topology"}});
        c.push_back({"trace: 8 rank files on 16 NPUs",
                     e.Runner({{"network", e.ex + "/network/analytical/Ring_16npus.yml"}}),
                     1,
                     {"missing file for rank 8"}});
        c.push_back({"trace: a .et file given as the prefix",
                     e.Runner({{"workload", e.w8 + ".0.et"}}),
                     1,
                     {"pass the prefix without the .<rank>.et suffix"}});
    }
    // custom-collective traces that do not fit
    {
        const std::string custom =
            e.ex + "/system/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce";
        const std::string sys =
            e.File("custom8.json",
                   SysJson("all-reduce-implementation-custom", "[\"" + custom + "\"]"));
        c.push_back({"custom: 8 rank traces for a 4-NPU all-reduce",
                     e.Runner({{"system", sys},
                               {"network", e.net4},
                               {"workload", e.Traces("c4", 4, AllReduce)}}),
                     1,
                     {"custom ALL_REDUCE algorithm has 8 rank traces", "4 members"}});
        const std::string bad = e.Traces("custom-bad", 4, [](uint32_t r) {
            return std::vector<WorkloadNode>{Send(1, int32_t((r + 1) % 4), 1024, 0),
                                             Recv(2, int32_t((r + 3) % 4), 1024, 0),
                                             Coll(3, CollType::ALL_REDUCE, 8)};
        });
        const std::string sysBad =
            e.File("custom-bad.json",
                   SysJson("all-reduce-implementation-custom", "[\"" + bad + "\"]"));
        c.push_back({"custom: a COMM_COLL inside a custom trace",
                     e.Runner({{"system", sysBad},
                               {"network", e.net4},
                               {"workload", e.Traces("c4b", 4, AllReduce)}}),
                     1,
                     {"custom ALL_REDUCE", "SEND, RECV and COMP nodes only"}});
        const std::string peer = e.Traces("custom-peer", 4, [](uint32_t r) {
            return std::vector<WorkloadNode>{Send(1, int32_t(r + 4), 1024, 0)};
        });
        const std::string sysPeer =
            e.File("custom-peer.json",
                   SysJson("all-reduce-implementation-custom", "[\"" + peer + "\"]"));
        c.push_back({"custom: a SEND to a rank beyond the traces",
                     e.Runner({{"system", sysPeer},
                               {"network", e.net4},
                               {"workload", e.Traces("c4c", 4, AllReduce)}}),
                     1,
                     {"comm_dst 4", "another rank of the 4 traces"}});
        const std::string unmatched = e.Traces("custom-unmatched", 4, [](uint32_t r) {
            return r == 0 ? std::vector<WorkloadNode>{Send(1, 1, 1024, 0)}
                          : std::vector<WorkloadNode>{Comp(1, 1)};
        });
        const std::string sysUn =
            e.File("custom-unmatched.json",
                   SysJson("all-reduce-implementation-custom", "[\"" + unmatched + "\"]"));
        c.push_back({"custom: a SEND no rank receives",
                     e.Runner({{"system", sysUn},
                               {"network", e.net4},
                               {"workload", e.Traces("c4d", 4, AllReduce)}}),
                     1,
                     {"its SEND to rank 1", "never received"}});
        const std::string sysMissing =
            e.File("custom-missing.json",
                   SysJson("all-reduce-implementation-custom", "[\"no/such/prefix\"]"));
        c.push_back({"custom: traces not found",
                     e.Runner({{"system", sysMissing}}),
                     1,
                     {"all-reduce-implementation-custom", "no traces no/such/prefix.0.et found"}});
    }
    // text workloads
    {
        auto text =
            [&](const std::string& name, const std::string& body, std::vector<std::string> parts) {
                const std::string f = e.File("text-" + std::to_string(c.size()) + ".txt", body);
                c.push_back({"text workload: " + name, e.Runner({{"workload", f}}), 1, parts});
            };
        text("empty file", "", {"empty"});
        text("a layer count that is not a number", "DATA\nabc\n", {"layer"});
        text("fewer layers than declared",
             "DATA\n3\nl1 -1 5 ALLREDUCE 1024 5 NONE 0 5 NONE 0 10\n",
             {"layer"});
        text("a negative compute time",
             "DATA\n1\nl1 -1 -5 ALLREDUCE 1024 5 NONE 0 5 NONE 0 10\n",
             {"-5"});
        text("a size of 1e30", "DATA\n1\nl1 -1 5 ALLREDUCE 1e30 5 NONE 0 5 NONE 0 10\n", {"1e30"});
        text("an unknown parallelism",
             "DATTA\n1\nl1 -1 5 ALLREDUCE 1024 5 NONE 0 5 NONE 0 10\n",
             {"DATTA"});
        text("an unknown collective",
             "DATA\n1\nl1 -1 5 ALLREDUX 1024 5 NONE 0 5 NONE 0 10\n",
             {"ALLREDUX"});
        text("binary garbage", std::string("\x01\x02\xff\xfe\x00garbage", 12), {"error: "});
    }
    return c;
}

/// Class 3: files that are not regular files, empty files, a gzip bomb.
std::vector<Case>
FileCases(const Env& e)
{
    std::vector<Case> c;
    const std::string fifo = e.dir + "/fifo";
    mkfifo(fifo.c_str(), 0600);
    const std::string empty = e.File("empty.txt", "");
    const std::string zero = "/dev/zero";
    const std::string dir = e.dir;

    struct Input
    {
        const char* key;  //!< the option
        const char* what; //!< what the message calls the file
        bool runnerMap;   //!< passed through Runner's map
    };

    const Input inputs[] = {{"system", "system configuration", true},
                            {"network", "network configuration", true},
                            {"comm-group-configuration", "communicator group configuration", false},
                            {"remote-memory-configuration", "remote memory configuration", false},
                            {"roce-config", "RoCE configuration", false},
                            {"logical-topology-configuration", "logical topology", false}};
    for (const auto& in : inputs)
    {
        auto cmd = [&](const std::string& path) {
            if (in.runnerMap)
            {
                return e.Runner({{in.key, path}},
                                std::string(in.key) == "roce-config" ? "--backend=roce" : "");
            }
            return e.Runner({},
                            std::string("--") + in.key + "=" + path +
                                (std::string(in.key) == "roce-config" ? " --backend=roce" : ""));
        };
        c.push_back({std::string(in.key) + " is a directory",
                     cmd(dir),
                     1,
                     {"is a directory; the " + std::string(in.what) + " must be a regular file"}});
        c.push_back({std::string(in.key) + " is a FIFO (would block)",
                     cmd(fifo),
                     1,
                     {"is a FIFO (named pipe)"}});
        c.push_back({std::string(in.key) + " is /dev/zero (endless)",
                     cmd(zero),
                     1,
                     {"is a character device"}});
        c.push_back({std::string(in.key) + " does not exist",
                     cmd(e.dir + "/no-such-file"),
                     1,
                     {"cannot open", "No such file"}});
        if (std::string(in.key) != "roce-config")
        {
            c.push_back({std::string(in.key) + " is empty", cmd(empty), 1, {"empty"}});
        }
        c.push_back({std::string(in.key) + " is binary garbage",
                     cmd(e.File(std::string("garbage-") + in.key,
                                std::string("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 16))),
                     1,
                     {"error: "}});
    }
    // YAML whose key is a list (found by fuzz-config and fuzz-config-txt: an escaping
    // yaml-cpp conversion error)
    c.push_back({"network YAML with a list as a key",
                 e.Runner({{"network",
                            e.File("listkey.yml",
                                   "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\n"
                                   "latency: [ 500 ]\n[bandwidth]: 3\n")}}),
                 1,
                 {"listkey.yml: a key must be a name, found a list (line 5)"}});
    c.push_back(
        {"RoCE attribute YAML with a mapping as a key",
         e.Runner({}, "--backend=roce --roce-config=" + e.File("mapkey.yml", "{a: 1}: 2\n")),
         1,
         {"mapkey.yml: a key must be an attribute or type name"}});
    // traces
    {
        const std::string d = e.dir + "/tdir";
        mkdir(d.c_str(), 0755);
        for (uint32_t r = 0; r < 4; ++r)
        {
            mkdir((d + "/w." + std::to_string(r) + ".et").c_str(), 0755);
        }
        c.push_back(
            {"rank files are directories",
             e.Runner4(d + "/w"),
             1,
             {"w.0.et: is a directory; the workload file for rank 0 must be a regular file"}});
        c.push_back({"the workload prefix is a directory",
                     e.Runner({{"workload", d}}),
                     1,
                     {"no workload files"}});
        const std::string f = e.dir + "/fifo-w";
        e.Traces("fifo-w", 4, AllReduce);
        std::remove((f + ".2.et").c_str());
        mkfifo((f + ".2.et").c_str(), 0600);
        c.push_back(
            {"a rank file is a FIFO (would block)", e.Runner4(f), 1, {"fifo-w.2.et: is a FIFO"}});
        const std::string z = e.dir + "/zero-w";
        e.Traces("zero-w", 4, AllReduce);
        std::remove((z + ".1.et").c_str());
        symlink("/dev/zero", (z + ".1.et").c_str());
        c.push_back({"a rank file links to /dev/zero (endless)",
                     e.Runner4(z),
                     1,
                     {"zero-w.1.et: is a character device"}});
        const std::string emp = e.RawTraces("empty-w", 4, [](uint32_t) { return std::string(); });
        c.push_back({"an empty file for every rank",
                     e.Runner4(emp),
                     1,
                     {"the trace of every rank has no nodes", "nothing to simulate"}});
        const std::string hdr = e.RawTraces("header-w", 4, [](uint32_t) { return RawHeader(); });
        c.push_back({"a header only for every rank",
                     e.Runner4(hdr),
                     1,
                     {"the trace of every rank has no nodes"}});
        const std::string bomb = e.RawTraces("bomb", 4, [](uint32_t) {
            return GzipBytes(std::string(64u << 20, '\0'), 9);
        });
        c.push_back({"a gzip bomb (64 MiB of zeros) beyond --max-trace-mib=16",
                     e.Runner4(bomb, "--max-trace-mib=16"),
                     1,
                     {"decompresses to more than 16777216 bytes", "gzip bomb"}});
        c.push_back({"a trace file beyond --max-trace-mib=1",
                     e.Runner4(e.RawTraces("big",
                                           4,
                                           [](uint32_t) {
                                               return RawHeader() + std::string(2u << 20, '\0');
                                           }),
                               "--max-trace-mib=1"),
                     1,
                     {"exceeds the limit of 1048576 bytes"}});
        c.push_back({"--max-trace-mib=0",
                     e.Runner({}, "--max-trace-mib=0"),
                     1,
                     {"--max-trace-mib=0", "must be >= 1"}});
        const std::string corrupt = e.RawTraces("corrupt-gz", 4, [](uint32_t) {
            return std::string("\x1f\x8b\x08\x00garbage-after-gzip-magic", 28);
        });
        c.push_back({"corrupt gzip data", e.Runner4(corrupt), 1, {"corrupt gzip data"}});
        const std::string cut = e.RawTraces("cut-gz", 4, [](uint32_t) {
            const std::string z =
                GzipBytes(RawHeader() + RawNode(1, 7, {{"comm_type", 0}, {"comm_size", 1024}}));
            return z.substr(0, z.size() / 2);
        });
        c.push_back({"truncated gzip data", e.Runner4(cut), 1, {"gzip"}});
        const std::string garbage = e.RawTraces("garbage", 4, [](uint32_t) {
            return std::string("\x08\x96\x01garbage\xff\xff\xff\xff\xff\xff", 16);
        });
        c.push_back({"garbage bytes as a trace", e.Runner4(garbage), 1, {"stream"}});
    }
    // output folders
    c.push_back({"output folder in /proc (not writable)",
                 e.runner + " --workload-configuration=" + e.w8 +
                     " --system-configuration=" + e.sys + " --network-configuration=" + e.net8 +
                     " --progress-seconds=0 --output-dir=/proc/astra-out",
                 1,
                 {"cannot write reports into '/proc/astra-out'"}});
    c.push_back({"output folder is a file",
                 e.runner + " --workload-configuration=" + e.w8 +
                     " --system-configuration=" + e.sys + " --network-configuration=" + e.net8 +
                     " --progress-seconds=0 --output-dir=" + empty,
                 1,
                 {"cannot write reports into '" + empty + "': not a folder"}});
    return c;
}

/// Class 4: communicator groups and remote memory.
std::vector<Case>
GroupCases(const Env& e)
{
    std::vector<Case> c;
    auto groups = [&](const std::string& name,
                      const std::string& json,
                      std::vector<std::string> parts) {
        const std::string f = e.File("groups-" + std::to_string(c.size()) + ".json", json);
        c.push_back({"groups: " + name, e.Runner({}, "--comm-group-configuration=" + f), 1, parts});
    };
    groups("duplicate id \"1\" and \"1\"", "{\"1\": [0, 1], \"1\": [2, 3]}", {"duplicate key '1'"});
    groups("duplicate id \"1\" and \"01\"",
           "{\"1\": [0, 1], \"01\": [2, 3]}",
           {"group ids '01' and '1' are the same integer 1"});
    groups("duplicate id \"2\" and \"+2\"",
           "{\"2\": [0, 1], \"+2\": [2, 3]}",
           {"are the same integer 2"});
    groups("a non-numeric id", "{\"tp\": [0, 1]}", {"group id 'tp' is not an integer"});
    groups("an id \"1.5\"", "{\"1.5\": [0, 1]}", {"'1.5' is not an integer"});
    groups("an id with a space", "{\" 3\": [0, 1]}", {"' 3' is not an integer"});
    groups("an id beyond 64 bits", "{\"99999999999999999999\": [0, 1]}", {"is not an integer"});
    groups("an NPU twice in a group", "{\"1\": [0, 1, 0]}", {"NPU 0 listed twice"});
    groups("an NPU beyond the topology", "{\"1\": [0, 8]}", {"NPU 8 out of range (8 NPUs)"});
    groups("a negative NPU", "{\"1\": [0, -1]}", {"bad NPU id -1"});
    groups("an NPU as a string", "{\"1\": [0, \"1\"]}", {"bad NPU id \"1\""});
    groups("an NPU as a float", "{\"1\": [0, 1.5]}", {"bad NPU id 1.5"});
    groups("an empty group", "{\"1\": []}", {"group 1 is empty"});
    groups("members not a list", "{\"1\": 3}", {"expected a list of NPU ids"});
    groups("a list instead of an object", "[[0, 1]]", {"must be a JSON object"});
    groups("invalid JSON", "{\"1\": [0, 1}", {"invalid JSON"});
    {
        // group names in traces: read as integers, as the reference reads them
        const std::string g = e.File("g3.json", "{\"3\": [0, 1, 2, 3]}");
        const std::string p = e.Traces("pg30", 4, [](uint32_t) {
            return std::vector<WorkloadNode>{Coll(1, CollType::ALL_REDUCE, 1024, "3.0")};
        });
        c.push_back({"groups: pg_name \"3.0\" names group 3 (control: runs, warned)",
                     e.Runner4(p, "--comm-group-configuration=" + g),
                     0,
                     {"pg_name '3.0' names communicator group 3",
                      "read as an integer",
                      "sys[3] finished"}});
        const std::string mixed = e.Traces("pgmix", 4, [](uint32_t r) {
            return std::vector<WorkloadNode>{
                Coll(1, CollType::ALL_REDUCE, 1024, r % 2 ? "03" : "3")};
        });
        c.push_back(
            {"groups: pg_name \"3\" and \"03\" on different ranks are one collective (control)",
             e.Runner4(mixed, "--comm-group-configuration=" + g),
             0,
             {"sys[3] finished"}});
        const std::string abc = e.Traces("pgabc", 4, [](uint32_t) {
            return std::vector<WorkloadNode>{Coll(1, CollType::ALL_REDUCE, 1024, "x3")};
        });
        c.push_back({"groups: pg_name \"x3\" names no group",
                     e.Runner4(abc, "--comm-group-configuration=" + g),
                     1,
                     {"unknown communicator group 'x3'"}});
        const std::string seven = e.Traces("pg7", 4, [](uint32_t) {
            return std::vector<WorkloadNode>{Coll(1, CollType::ALL_REDUCE, 1024, "7.0")};
        });
        c.push_back({"groups: pg_name \"7.0\" reads as 7, which is not defined",
                     e.Runner4(seven, "--comm-group-configuration=" + g),
                     1,
                     {"unknown communicator group '7.0'"}});
        const std::string zero = e.Traces("pg0", 4, [](uint32_t) {
            return std::vector<WorkloadNode>{Coll(1, CollType::ALL_REDUCE, 1024, "0.0")};
        });
        c.push_back({"groups: pg_name \"0.0\" reads as 0, all NPUs (control)",
                     e.Runner4(zero),
                     0,
                     {"pg_name '0.0' names all NPUs", "sys[3] finished"}});
    }
    {
        // groups declared inside the traces
        const std::string p = e.Traces("decl", 4, [](uint32_t r) {
            std::vector<WorkloadNode> v{Coll(1, CollType::ALL_REDUCE, 1024, "tp")};
            WorkloadNode md = Node(0, NodeKind::METADATA, "pg");
            v.insert(v.begin(), md);
            (void)r;
            return v;
        });
        // rewrite with declared groups that disagree between ranks
        std::vector<WorkloadGraph> gs;
        for (uint32_t r = 0; r < 4; ++r)
        {
            WorkloadGraph g;
            g.nodes = {Coll(1, CollType::ALL_REDUCE, 1024, "tp")};
            g.commGroups["tp"] =
                r == 2 ? std::vector<uint32_t>{0, 1, 2} : std::vector<uint32_t>{0, 1, 2, 3};
            gs.push_back(g);
        }
        WriteChakraPrefix(gs, e.dir + "/decl-bad");
        c.push_back({"groups: a trace-declared group that differs between ranks",
                     e.Runner4(e.dir + "/decl-bad"),
                     1,
                     {"communicator group 'tp' declared in the trace has other members"}});
        gs[2].commGroups["tp"] = {0, 1, 2, 9};
        WriteChakraPrefix(gs, e.dir + "/decl-range");
        c.push_back({"groups: a trace-declared group beyond the topology",
                     e.Runner4(e.dir + "/decl-range"),
                     1,
                     {"names NPU 9 but the topology has 4 NPUs"}});
        gs[2].commGroups["tp"] = {0, 1, 1, 3};
        WriteChakraPrefix(gs, e.dir + "/decl-dup");
        c.push_back({"groups: a trace-declared group listing an NPU twice",
                     e.Runner4(e.dir + "/decl-dup"),
                     1,
                     {"lists NPU 1 twice"}});
        (void)p;
    }
    auto mem = [&](const std::string& name,
                   const std::string& json,
                   std::vector<std::string> parts,
                   const std::string& network = "") {
        const std::string f = e.File("mem-" + std::to_string(c.size()) + ".json", json);
        std::map<std::string, std::string> over;
        if (!network.empty())
        {
            over["network"] = network;
        }
        c.push_back(
            {"memory: " + name, e.Runner(over, "--remote-memory-configuration=" + f), 1, parts});
    };
    mem("bandwidth 0",
        "{\"memory-type\": \"MEMORY_POOL\", \"remote-mem-bw\": 0}",
        {"'remote-mem-bw'", "must be > 0"});
    mem("bandwidth 0 without expansion",
        "{\"memory-type\": \"NO_MEMORY_EXPANSION\", \"remote-mem-bw\": 0}",
        {"'remote-mem-bw'", "must be > 0"});
    mem("bandwidth 1e300",
        "{\"memory-type\": \"MEMORY_POOL\", \"remote-mem-bw\": 1e300}",
        {"'remote-mem-bw'", "GB/s"});
    mem("bandwidth missing",
        "{\"memory-type\": \"PER_NPU_MEMORY_EXPANSION\"}",
        {"'remote-mem-bw'", "missing"});
    mem("negative latency",
        "{\"memory-type\": \"MEMORY_POOL\", \"remote-mem-bw\": 50, \"remote-mem-latency\": -10}",
        {"'remote-mem-latency'", ">= 0"});
    mem("latency 1e300",
        "{\"memory-type\": \"MEMORY_POOL\", \"remote-mem-bw\": 50, \"remote-mem-latency\": 1e300}",
        {"'remote-mem-latency'", "at most"});
    mem("an unknown memory type",
        "{\"memory-type\": \"PER_NODE_MEMORY_EXPANSON\"}",
        {"'memory-type'", "did you mean 'PER_NODE_MEMORY_EXPANSION'"});
    mem("a misspelled key",
        "{\"memory-type\": \"MEMORY_POOL\", \"remote-mem-bandwidth\": 5}",
        {"unknown key 'remote-mem-bandwidth'"});
    mem("PER_NODE counts covering too few NPUs",
        "{\"memory-type\": \"PER_NODE_MEMORY_EXPANSION\", \"remote-mem-bw\": 50, \"num-nodes\": 1, "
        "\"num-npus-per-node\": 2}",
        {"covers fewer than the 8 NPUs"});
    mem("PER_NODE counts leaving nodes without NPUs",
        "{\"memory-type\": \"PER_NODE_MEMORY_EXPANSION\", \"remote-mem-bw\": 50, \"num-nodes\": "
        "16, \"num-npus-per-node\": 1}",
        {"does not fit the 8 NPUs", "8 node(s) would have no NPU"});
    mem("PER_NODE num-nodes 0",
        "{\"memory-type\": \"PER_NODE_MEMORY_EXPANSION\", \"remote-mem-bw\": 50, \"num-nodes\": 0, "
        "\"num-npus-per-node\": 2}",
        {"'num-nodes'", "from 1"});
    mem("PER_NODE without num-npus-per-node",
        "{\"memory-type\": \"PER_NODE_MEMORY_EXPANSION\", \"remote-mem-bw\": 50, \"num-nodes\": 4}",
        {"'num-npus-per-node'", "missing"});
    mem("PER_NODE num-npus-per-node 2.5",
        "{\"memory-type\": \"PER_NODE_MEMORY_EXPANSION\", \"remote-mem-bw\": 50, \"num-nodes\": 4, "
        "\"num-npus-per-node\": 2.5}",
        {"'num-npus-per-node'", "2.5"});
    // memory nodes on the network (flow and RoCE backends): the remote-memory file's fabric
    // keys and the network YAML's placement keys
    const std::string pool = "{\"memory-type\": \"MEMORY_POOL\", \"remote-mem-bw\": 50, ";
    auto memFlow = [&](const std::string& name,
                       const std::string& json,
                       std::vector<std::string> parts,
                       const std::string& network = "") {
        const std::string f = e.File("memf-" + std::to_string(c.size()) + ".json", json);
        std::map<std::string, std::string> over;
        if (!network.empty())
        {
            over["network"] = network;
        }
        c.push_back({"memory nodes: " + name,
                     e.Runner(over, "--backend=flow --remote-memory-configuration=" + f),
                     1,
                     parts});
    };
    memFlow("memory-link-bw 0", pool + "\"memory-link-bw\": 0}", {"'memory-link-bw'", "> 0"});
    memFlow("memory-link-bw 1e300",
            pool + "\"memory-link-bw\": 1e300}",
            {"'memory-link-bw'", "GB/s", "1e+300"});
    memFlow("memory-link-latency -1",
            pool + "\"memory-link-latency\": -1}",
            {"'memory-link-latency'", ">= 0"});
    memFlow("pool-count 0", pool + "\"pool-count\": 0}", {"'pool-count'", "from 1"});
    memFlow("message-size 0", pool + "\"message-size\": 0}", {"'message-size'", "from 1"});
    memFlow("outstanding-requests 0",
            pool + "\"outstanding-requests\": 0}",
            {"'outstanding-requests'", "from 1"});
    memFlow("memory-capacity -1", pool + "\"memory-capacity\": -1}", {"'memory-capacity'", ">= 0"});
    memFlow("a misspelled attach point",
            pool + "\"memory-attach\": \"lef\"}",
            {"'memory-attach'", "did you mean 'leaf'"});
    memFlow(
        "a memory dimension the network does not have",
        pool + "\"memory-dimension\": 3}",
        {"dimension 3 out of range", "1 dimension"},
        e.File("memf-sw8.yml",
               "topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n"));
    const std::string memYaml =
        "topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n";
    // the window simulator refuses what it does not run in node order's results
    c.push_back({"window simulator: in-network aggregation",
                 e.Runner({{"network", e.File("win-insw.yml", memYaml + "in_switch: [ 1 ]\n")}},
                          "--backend=roce --event-order=window"),
                 1,
                 {"--event-order=window does not carry in-network aggregation", "dimension 0"}});
    c.push_back({"window simulator: memory nodes on the network",
                 e.Runner({{"network", e.File("win-mem.yml", memYaml)}},
                          "--backend=roce --event-order=window --remote-memory-configuration=" +
                              e.File("win-mem.json", pool + "\"remote-mem-latency\": 0}")),
                 1,
                 {"--event-order=window does not carry remote memory on the network"}});
    c.push_back(
        {"window simulator: a gate latency below the look-ahead",
         e.Runner({{"network", e.File("win-gate.yml", memYaml)}},
                  "--backend=roce --event-order=window"),
         1,
         {"look-ahead is 500 ns (the longest link delay)", "collective-gate-latency-ns (0 ns"}});
    memFlow("YAML: memory_bandwidth 1e300",
            pool + "\"remote-mem-latency\": 0}",
            {"memory_bandwidth", "outside the accepted range"},
            e.File("memf-bw.yml", memYaml + "memory_placement: pool\nmemory_bandwidth: 1e300\n"));
    memFlow("YAML: a misspelled placement",
            pool + "\"remote-mem-latency\": 0}",
            {"'memory_placement'", "did you mean 'pool'"},
            e.File("memf-pl.yml", memYaml + "memory_placement: pools\n"));
    memFlow("a memory type other than the YAML's placement",
            "{\"memory-type\": \"PER_NPU_MEMORY_EXPANSION\", \"remote-mem-bw\": 50}",
            {"does not match the network configuration's memory_placement pool"},
            e.File("memf-mt.yml", memYaml + "memory_placement: pool\n"));
    c.push_back({"memory nodes: --memory-isolated without a remote-memory file",
                 e.Runner({}, "--backend=flow --memory-isolated=1"),
                 1,
                 {"--memory-isolated needs --remote-memory-configuration"}});
    c.push_back({"memory nodes: --memory-isolated on the analytical backend",
                 e.Runner({},
                          "--memory-isolated=1 --remote-memory-configuration=" +
                              e.File("memf-iso.json",
                                     "{\"memory-type\": \"MEMORY_POOL\", \"remote-mem-bw\": 50}")),
                 1,
                 {"--memory-isolated applies to the flow and roce backends"}});
    // logical topology of the ns-3 variant
    {
        const std::string bad = e.File("logical-bad.json", "{\"logical-dims\": [\"4\", \"2\"]}");
        c.push_back({"logical topology: dimensions differ from the network",
                     e.Runner({}, "--logical-topology-configuration=" + bad),
                     1,
                     {"key 'logical-dims': [4, 2] differs from the network configuration's "
                      "dimensions [8]"}});
        const std::string zero = e.File("logical-zero.json", "{\"logical-dims\": [\"0\"]}");
        c.push_back({"logical topology: a dimension of 0",
                     e.Runner({}, "--logical-topology-configuration=" + zero),
                     1,
                     {"'logical-dims'", "from 1"}});
        const std::string typo = e.File("logical-typo.json", "{\"logical-dim\": [\"8\"]}");
        c.push_back({"logical topology: a misspelled key",
                     e.Runner({}, "--logical-topology-configuration=" + typo),
                     1,
                     {"did you mean 'logical-dims'"}});
        c.push_back({"logical topology: the reference's file (control)",
                     e.Runner({},
                              "--logical-topology-configuration=" + e.ex +
                                  "/network/ns3/sample_8nodes_1D.json"),
                     0,
                     {"sys[7] finished"}});
    }
    return c;
}

/// Class 5: root causes named instead of symptoms; exit 2 only for real hangs.
std::vector<Case>
RootCauseCases(const Env& e)
{
    std::vector<Case> c;
    {
        // a rank with no nodes while the others run a collective on all NPUs
        const std::string p = e.RawTraces("norank", 4, [](uint32_t r) {
            return r == 2 ? std::string()
                          : RawHeader() + RawNode(1, 7, {{"comm_type", 0}, {"comm_size", 1024}});
        });
        c.push_back({"a rank with no nodes",
                     e.Runner4(p),
                     1,
                     {"norank.2.et (NPU 2) 0 time(s); it has no nodes at all"}});
        // a truncated file that still parsed (cut at a message boundary)
        const std::string t = e.RawTraces("trunc", 4, [](uint32_t r) {
            std::string s = RawHeader() + RawNode(1, 7, {{"comm_type", 0}, {"comm_size", 1024}});
            if (r != 1)
            {
                ChakraProtoMsg::Node n;
                n.set_id(2);
                n.set_name("raw2");
                n.set_type(ChakraProtoMsg::COMM_COLL_NODE);
                n.add_data_deps(1);
                auto* a = n.add_attr();
                a->set_name("comm_type");
                a->set_int64_val(2);
                auto* b = n.add_attr();
                b->set_name("comm_size");
                b->set_int64_val(4096);
                s += Framed(n);
            }
            return s;
        });
        c.push_back({"a truncated file that still parsed",
                     e.Runner4(t),
                     1,
                     {"collective 'raw2' on all NPUs",
                      "trunc.1.et (NPU 1) 0 time(s)",
                      "a truncated trace?"}});
        // a file cut inside a message
        const std::string cut = e.RawTraces("cut", 4, [](uint32_t r) {
            const std::string s =
                RawHeader() + RawNode(1, 7, {{"comm_type", 0}, {"comm_size", 1024}});
            return r == 3 ? s.substr(0, s.size() - 3) : s;
        });
        c.push_back(
            {"a file cut inside a message", e.Runner4(cut), 1, {"cut.3.et: truncated stream"}});
        // a real hang: two NPUs wait for each other (every SEND has its RECV)
        const std::string dl = e.Traces("deadlock", 4, [](uint32_t r) {
            if (r == 0)
                return std::vector<WorkloadNode>{Recv(1, 1, 64, 1), Send(2, 1, 64, 2, {1})};
            if (r == 1)
                return std::vector<WorkloadNode>{Recv(1, 0, 64, 2), Send(2, 0, 64, 1, {1})};
            return std::vector<WorkloadNode>{Comp(1, 5)};
        });
        c.push_back(
            {"a real hang (exit 2): two NPUs wait for each other",
             e.Runner4(dl, "--hang-ns=100000"),
             2,
             {"first NPU that could not start: NPU 0", "node 1 'recv1'", "RECV from NPU 1 tag 1"}});
        c.push_back({"a real hang on the RoCE fabric (exit 2)",
                     e.Runner4(dl, "--hang-ns=100000 --backend=roce"),
                     2,
                     {"first NPU that could not start: NPU 0"}});
        c.push_back({"a real hang on the flow backend (exit 2)",
                     e.Runner4(dl, "--hang-ns=100000 --backend=flow"),
                     2,
                     {"first NPU that could not start: NPU 0"}});
        // a hang later in the run: NPU 2 finished its first node but waits afterwards
        const std::string later = e.Traces("later", 4, [](uint32_t r) {
            if (r == 2)
                return std::vector<WorkloadNode>{Comp(1, 5),
                                                 Recv(2, 3, 64, 1, {1}),
                                                 Send(3, 3, 64, 2, {2})};
            if (r == 3)
                return std::vector<WorkloadNode>{Recv(1, 2, 64, 2), Send(2, 2, 64, 1, {1})};
            return std::vector<WorkloadNode>{Comp(1, 5)};
        });
        c.push_back({"a real hang after some progress (exit 2)",
                     e.Runner4(later, "--hang-ns=100000"),
                     2,
                     {"first NPU that could not start: NPU 3", "waits on"}});
    }
    {
        // an NPU error at run time is exit 1 with the NPU named
        const std::string sys =
            e.File("sys-flat.json", SysJson("all-reduce-implementation", "[\"oneRing\"]"));
        c.push_back({"an unknown algorithm name",
                     e.Runner({{"system",
                                e.File("sys-algo.json",
                                       SysJson("all-reduce-implementation", "[\"rign\"]"))}}),
                     1,
                     {"'all-reduce-implementation'", "rign"}});
        (void)sys;
    }
    return c;
}

/// Class 6: HPCC / SimAI config.txt.
std::vector<Case>
HpccCases(const Env& e)
{
    std::vector<Case> c;
    auto cfg = [&](const std::string& name,
                   const std::string& text,
                   int status,
                   std::vector<std::string> parts) {
        const std::string f = e.File("config-" + std::to_string(c.size()) + ".txt", text);
        c.push_back({"config.txt: " + name,
                     e.Runner({}, "--backend=roce --roce-config=" + f),
                     status,
                     parts});
    };
    cfg("binary garbage",
        std::string("CC_MODE 1\n\x00\x01\x02\xff garbage\n", 20),
        1,
        {"line 2: binary content"});
    cfg("NaN", "CC_MODE 1\nEWMA_GAIN nan\n", 1, {"EWMA_GAIN = 'nan'", "not a finite number"});
    cfg("a negative buffer size", "BUFFER_SIZE -32\n", 1, {"BUFFER_SIZE = '-32'", ">= 0"});
    cfg("a buffer size of 1e300", "BUFFER_SIZE 1e300\n", 1, {"BUFFER_SIZE = '1e300'"});
    cfg("a KMIN_MAP count of 2^63",
        "KMIN_MAP 9223372036854775808 100000000000 400\n",
        1,
        {"KMIN_MAP", "'9223372036854775808' is larger than the largest count accepted"});
    cfg("a KMIN_MAP count of 1e30",
        "KMIN_MAP 1e30 100000000000 400\n",
        1,
        {"KMIN_MAP", "'1e30' is not a non-negative integer"});
    cfg("a KMIN_MAP count of 18446744073709551615",
        "KMIN_MAP 18446744073709551615\n",
        1,
        {"KMIN_MAP", "larger than the largest count accepted"});
    cfg("a KMIN_MAP count of 2^64",
        "KMIN_MAP 18446744073709551616 1 2\n",
        1,
        {"KMIN_MAP", "larger than the largest count accepted"});
    cfg("RATE_AI 0", "RATE_AI 0Mb/s\n", 1, {"RATE_AI = '0Mb/s'", "a rate of 0"});
    cfg("KMIN above KMAX",
        "KMIN_MAP 1 100000000000 400\nKMAX_MAP 1 100000000000 100\nPMAX_MAP 1 100000000000 0.2\n",
        1,
        {"exceeds Kmax"});
    cfg("PMAX_MAP 1.5",
        "KMIN_MAP 1 100000000000 400\nKMAX_MAP 1 100000000000 1600\nPMAX_MAP 1 100000000000 1.5\n",
        1,
        {"Pmax 1.5"});
    cfg("a CC_MODE that is not a number",
        "CC_MODE hpcc\n",
        1,
        {"CC_MODE = 'hpcc'", "not a CC_MODE number"});
    cfg("an unknown CC_MODE",
        "CC_MODE 99\n",
        1,
        {"CC_MODE = '99'", "1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP"});
    cfg("CC_MODE 10 (HPCC-PINT)",
        "CC_MODE 10\n",
        1,
        {"CC_MODE = '10'", "HPCC-PINT", "is CC_MODE 3"});
    cfg("a payload of 0", "PACKET_PAYLOAD_SIZE 0\n", 1, {"PACKET_PAYLOAD_SIZE = '0'", "256"});
    cfg("a payload of 1e9",
        "PACKET_PAYLOAD_SIZE 1000000000\n",
        1,
        {"PACKET_PAYLOAD_SIZE = '1000000000'"});
    cfg("a negative ACK interval", "L2_ACK_INTERVAL -1\n", 1, {"L2_ACK_INTERVAL = '-1'"});
    cfg("RATE_AI nan", "RATE_AI nanMb/s\n", 1, {"RATE_AI = 'nanMb/s'"});
    cfg("RATE_AI negative", "RATE_AI -5Mb/s\n", 1, {"RATE_AI = '-5Mb/s'"});
    cfg("MIN_RATE 1e30Gb/s",
        "MIN_RATE 99999999999999Gb/s\n",
        1,
        {"MIN_RATE", "larger than 1e15 bit/s"});
    cfg("EWMA_GAIN 2", "EWMA_GAIN 2\n", 1, {"EWMA_GAIN = '2'"});
    cfg("U_TARGET 0", "CC_MODE 3\nU_TARGET 0\n", 1, {"U_TARGET = '0'"});
    cfg("U_TARGET 5", "CC_MODE 3\nU_TARGET 5\n", 1, {"U_TARGET = '5'"});
    cfg("MI_THRESH 1e30", "MI_THRESH 1e30\n", 1, {"MI_THRESH = '1e30'"});
    cfg("RP_TIMER negative", "RP_TIMER -55\n", 1, {"RP_TIMER = '-55'"});
    cfg("RP_TIMER 1e300", "RP_TIMER 1e300\n", 1, {"RP_TIMER = '1e300'"});
    cfg("ENABLE_PFC 2", "ENABLE_PFC 2\n", 1, {"ENABLE_PFC = '2'", "must be 0 or 1"});
    cfg("a key given twice", "CC_MODE 1\nCC_MODE 3\n", 1, {"key 'CC_MODE' given twice"});
    cfg("a misspelled key",
        "ENABLE_QCM 1\n",
        1,
        {"unknown key 'ENABLE_QCM' (did you mean 'ENABLE_QCN'?)"});
    cfg("a key without a value", "CC_MODE\n", 1, {"CC_MODE has no value"});
    cfg("CC_MODE 3 (control: HPCC with INT)",
        "CC_MODE 3\n",
        0,
        {"congestion control ns3::RdmaCcHpcc", "INT on"});

    // the reference ns-3 backend's inputs as its users bring them: config.txt as the network
    // configuration, its TOPOLOGY_FILE in HPCC's format, a logical-topology file
    std::string star = "9 1 8\n8\n";
    for (int i = 0; i < 8; ++i)
    {
        star += std::to_string(i) + " 8 400Gbps 0.0005ms 0\n";
    }
    std::string clos = "12 4 12\n8 9 10 11\n";
    for (int i = 0; i < 8; ++i)
    {
        clos += std::to_string(i) + " " + std::to_string(8 + i / 4) + " 100Gbps 0.001ms 0\n";
    }
    clos += "8 10 400Gbps 0.001ms 0\n8 11 400Gbps 0.001ms 0\n9 10 400Gbps 0.001ms 0\n"
            "9 11 400Gbps 0.001ms 0\n";
    std::string ring = "8 0 8\n\n";
    for (int i = 0; i < 8; ++i)
    {
        ring += std::to_string(i) + " " + std::to_string((i + 1) % 8) + " 100Gbps 0.001ms 0\n";
    }
    const std::map<std::string, std::string> topos = {
        {"star.txt", star},
        {"clos.txt", clos},
        {"ring.txt", ring},
        {"short.txt", star.substr(0, star.rfind("7 8"))},
        {"lossy.txt", "3 1 2\n2\n0 2 100Gbps 0.001ms 0.01\n1 2 100Gbps 0.001ms 0\n"},
        {"badrate.txt", "3 1 2\n2\n0 2 fast 0.001ms 0\n1 2 100Gbps 0.001ms 0\n"},
        {"badid.txt", "3 1 2\n0\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n"},
        {"mixed.txt", "3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 400Gbps 0.001ms 0\n"}};
    for (const auto& t : topos)
    {
        e.File(t.first, t.second);
    }
    auto ns3 = [&](const std::string& name,
                   const std::string& topo,
                   const std::string& extra,
                   int status,
                   std::vector<std::string> parts) {
        const std::string f =
            e.File("ns3-" + std::to_string(c.size()) + ".txt",
                   "CC_MODE 1\nPACKET_PAYLOAD_SIZE 1000\nBUFFER_SIZE 32\n" +
                       (topo.empty() ? std::string() : "TOPOLOGY_FILE " + topo + "\n"));
        c.push_back(
            {"ns-3 backend inputs: " + name, e.Runner({{"network", f}}, extra), status, parts});
    };
    ns3("config.txt and a single-switch TOPOLOGY_FILE (control)",
        "star.txt",
        "--logical-topology-configuration=" + e.ex +
            "/network/ns3/sample_8nodes_1D.json --comm-group-configuration=empty",
        0,
        {"ns-3 backend config.txt",
         "(8 NPUs, Switch)",
         "roce: congestion control ns3::RdmaCcDcqcn",
         "sys[7] finished"});
    ns3("a leaf-spine TOPOLOGY_FILE (control)",
        "clos.txt",
        "",
        0,
        {"(8 NPUs, Clos)", "sys[7] finished"});
    ns3("a config.txt without TOPOLOGY_FILE", "", "", 1, {"without TOPOLOGY_FILE"});
    ns3("a TOPOLOGY_FILE that does not exist",
        "nope.txt",
        "",
        1,
        {"TOPOLOGY_FILE 'nope.txt' not found"});
    ns3("a ring TOPOLOGY_FILE (no dimension of that shape)",
        "ring.txt",
        "",
        1,
        {"NPU 0 has 2 link(s)", "network YAML"});
    ns3("a TOPOLOGY_FILE with a link missing", "short.txt", "", 1, {"declares 8 links but has 7"});
    ns3("a TOPOLOGY_FILE with an error rate", "lossy.txt", "", 1, {"error rate '0.01'"});
    ns3("a TOPOLOGY_FILE with a malformed rate",
        "badrate.txt",
        "",
        1,
        {"rate 'fast'", "not a data rate"});
    ns3("a TOPOLOGY_FILE naming an NPU as the switch", "badid.txt", "", 1, {"switch id 0"});
    ns3("a TOPOLOGY_FILE with NPU links of two rates",
        "mixed.txt",
        "",
        1,
        {"differ in rate or delay"});
    ns3("logical dimensions that differ from TOPOLOGY_FILE's",
        "star.txt",
        "--logical-topology-configuration=" +
            e.File("logical-42.json", "{\"logical-dims\": [\"4\", \"2\"]}"),
        1,
        {"[4, 2] differs from the network configuration's dimensions [8]"});
    ns3("config.txt as the network with --backend=analytical",
        "star.txt",
        "--backend=analytical",
        1,
        {"is an ns-3 backend config.txt", "--backend=roce"});
    cfg("CC_MODE 8 (control: DCTCP)",
        "CC_MODE 8\n",
        0,
        {"congestion control ns3::RdmaCcDctcp", "base RTT"});
    cfg("CC_MODE 7 (control: TIMELY)", "CC_MODE 7\n", 0, {"congestion control ns3::RdmaCcTimely"});
    return c;
}

/// Class 7: congestion control chosen from the runner.
std::vector<Case>
CcCases(const Env& e)
{
    std::vector<Case> c;
    const std::string cc = "--backend=roce --ns3::RdmaHostStack::CongestionControl=ns3::";
    c.push_back(
        {"HPCC turns INT on (control)",
         e.Runner({}, cc + "RdmaCcHpcc"),
         0,
         {"congestion control ns3::RdmaCcHpcc", "INT on (needed by", "derived from the topology"}});
    c.push_back({"DCTCP derives its base RTT (control)",
                 e.Runner({}, cc + "RdmaCcDctcp"),
                 0,
                 {"congestion control ns3::RdmaCcDctcp", "derived from the topology"}});
    c.push_back({"TIMELY derives its base RTT (control)",
                 e.Runner({}, cc + "RdmaCcTimely"),
                 0,
                 {"congestion control ns3::RdmaCcTimely", "derived from the topology"}});
    c.push_back({"Swift derives its base RTT (control)",
                 e.Runner({}, cc + "RdmaCcSwift"),
                 0,
                 {"congestion control ns3::RdmaCcSwift", "derived from the topology"}});
    c.push_back({"HPCC with INT turned off",
                 e.Runner({}, cc + "RdmaCcHpcc --ns3::RdmaSwitch::IntEnabled=false"),
                 1,
                 {"RdmaSwitch::IntEnabled=false", "HPCC", "needs INT"}});
    c.push_back({"HPCC by priority with INT turned off",
                 e.Runner({},
                          "--backend=roce --ns3::RdmaHostStack::CongestionControlByPriority=3:hpcc "
                          "--ns3::RdmaSwitch::IntEnabled=false"),
                 1,
                 {"needs INT"}});
    c.push_back({"an explicit base RTT wins (control)",
                 e.Runner({}, cc + "RdmaCcHpcc --ns3::RdmaHostStack::BaseRtt=13us"),
                 0,
                 {"base RTT 13000 ns (given)"}});
    c.push_back({"training-on-roce with HPCC (control)",
                 e.Training(std::string("--ns3::RdmaHostStack::CongestionControl=ns3::RdmaCcHpcc")),
                 0,
                 {"INT on"}});
    c.push_back({"an unknown congestion control",
                 e.Runner({}, cc + "RdmaHpcc"),
                 1,
                 {"did you mean 'ns3::RdmaCcHpcc'"}});
    c.push_back({"a CongestionControl that is not one",
                 e.Runner({}, cc + "RdmaSwitch"),
                 1,
                 {"ns3::RdmaSwitch"}});
    for (const char* name : {"dcqcn", "hpcc", "timely", "dctcp", "swift", "none"})
    {
        c.push_back({std::string("rdma-incast --cc=") + name + " (control)",
                     e.incast + " --senders=4 --size=100000 --cc=" + name + " --out=" + e.dir +
                         "/incast-" + name,
                     0,
                     {std::string("cc ") + name}});
    }
    c.push_back({"rdma-incast --cc=hpc",
                 e.incast + " --cc=hpc --out=" + e.dir + "/incast-x",
                 1,
                 {"--cc", "did you mean 'hpcc'"}});
    c.push_back({"rdma-incast --pcap=1 (control)",
                 e.incast + " --senders=2 --size=10000 --pcap=1 --out=" + e.dir + "/incast-pcap",
                 0,
                 {"pcap"}});
    c.push_back({"rdma-incast --senders=0",
                 e.incast + " --senders=0 --out=" + e.dir + "/incast-0",
                 1,
                 {"--senders=0"}});
    c.push_back({"rdma-incast --size=0",
                 e.incast + " --size=0 --out=" + e.dir + "/incast-0",
                 1,
                 {"--size=0"}});
    c.push_back({"rdma-incast --pmax=1.5",
                 e.incast + " --pmax=1.5 --out=" + e.dir + "/incast-0",
                 1,
                 {"--pmax=1.5: must be at most 1"}});
    c.push_back({"rdma-incast --stop=-1",
                 e.incast + " --stop=-1 --out=" + e.dir + "/incast-0",
                 1,
                 {"--stop=-1"}});
    return c;
}

/// Class 8: real PyTorch captures (dangling dependencies).
std::vector<Case>
PytorchCases(const Env& e)
{
    std::vector<Case> c;
    auto dangling = [](bool ctrl) {
        return [ctrl](uint32_t) {
            WorkloadNode a = Comp(1, 5);
            WorkloadNode b = Coll(2, CollType::ALL_REDUCE, 1024, "", {1});
            if (ctrl)
            {
                b.ctrlDeps = {4711, 4712};
                a.ctrlDeps = {4713};
            }
            else
            {
                b.dataDeps.push_back(4711);
            }
            return std::vector<WorkloadNode>{a, b};
        };
    };
    const std::string ctrl = e.Traces("pt-ctrl", 4, dangling(true));
    const std::string data = e.Traces("pt-data", 4, dangling(false));
    c.push_back({"dangling control dependencies: an error naming node and id",
                 e.Runner4(ctrl),
                 1,
                 {"pt-ctrl.0.et: node 1", "dependency on id 4713", "--drop-dangling-ctrl-deps"}});
    c.push_back({"dangling control dependencies dropped, with a count (control)",
                 e.Runner4(ctrl, "--drop-dangling-ctrl-deps=1"),
                 0,
                 {"pt-ctrl.0.et: dropped 3 control dependencies",
                  "dropped 12 dangling dependencies in all, in 4 of 4 trace files",
                  "sys[3] finished"}});
    c.push_back({"dangling data dependencies stay an error with the option",
                 e.Runner4(data, "--drop-dangling-ctrl-deps=1"),
                 1,
                 {"node 2", "data dependency on id 4711"}});
    c.push_back({"training-on-roce: dangling control dependencies",
                 e.Training("--workload-configuration=" + ctrl +
                            " --comm-group-configuration=empty --network-configuration=" + e.net4),
                 1,
                 {"dependency on id 4713"}});
    c.push_back({"training-on-roce: dropped with a count (control)",
                 e.Training("--workload-configuration=" + ctrl +
                            " --comm-group-configuration=empty --network-configuration=" + e.net4 +
                            " --drop-dangling-ctrl-deps=1"),
                 0,
                 {"dropped 12 dangling dependencies in all"}});
    c.push_back({"training-on-roce: --scale-up-npus beside --network-configuration",
                 e.Training("--network-configuration=" + e.net4 + " --scale-up-npus=2"),
                 1,
                 {"--scale-up-npus shapes the default network and has no effect with "
                  "--network-configuration"}});
    c.push_back({"training-on-roce: --splits beside --system-configuration",
                 e.Training("--system-configuration=" + e.sys + " --splits=8"),
                 1,
                 {"--splits sets the default system"}});
    c.push_back({"--text-passes with a Chakra workload",
                 e.Runner({}, "--text-passes=3"),
                 1,
                 {"--text-passes=3 applies to a text workload"}});
    c.push_back({"--rendezvous-protocol=1 (not modelled: warned)",
                 e.Runner({}, "--rendezvous-protocol=1"),
                 0,
                 {"warning: ", "rendezvous-protocol", "not modelled"}});
    return c;
}

/// One TestCase per class: every case ends with its status and message, none crashes or hangs.
class BadInputClassCase : public TestCase
{
  public:
    BadInputClassCase(const std::string& name, std::vector<Case> (*cases)(const Env&))
        : TestCase("bad input, " + name + ": expected status and message, no crash, no hang"),
          m_cases(cases)
    {
    }

  private:
    void DoRun() override
    {
        Env e;
        NS_TEST_ASSERT_MSG_NE(e.runner, "", "astra-sim-runner built next to the test runner");
        NS_TEST_ASSERT_MSG_NE(e.training, "", "training-on-roce built next to the test runner");
        NS_TEST_ASSERT_MSG_NE(e.incast, "", "rdma-incast built next to the test runner");
        const bool report = std::getenv("ASTRA_BAD_INPUT_REPORT") != nullptr;
        for (const Case& c : m_cases(e))
        {
            std::string text;
            const int status = Shell(c.command, text);
            if (report)
            {
                std::string first = text.substr(0, text.find('\n'));
                const size_t err = text.find("error: ");
                if (err != std::string::npos)
                {
                    first = text.substr(err, text.find('\n', err) - err);
                }
                std::cout << "[" << status
                          << (status == c.status ? "" : " EXPECTED " + std::to_string(c.status))
                          << "] " << c.name << ": " << first.substr(0, 300) << "\n";
            }
            NS_TEST_EXPECT_MSG_LT(status,
                                  128,
                                  c.name << ": crashed or hung (status " << status << "): "
                                         << text.substr(0, 2000) << "\n  command: " << c.command);
            NS_TEST_EXPECT_MSG_EQ(status,
                                  c.status,
                                  c.name << ": " << text.substr(0, 2000)
                                         << "\n  command: " << c.command);
            for (const auto& p : c.parts)
            {
                NS_TEST_EXPECT_MSG_NE(text.find(p),
                                      std::string::npos,
                                      c.name << ": '" << p << "' not in: " << text.substr(0, 3000));
            }
        }
    }

    std::vector<Case> (*m_cases)(const Env&);
};

/// Suite "astra-sim-bad-input".
class BadInputTestSuite : public TestSuite
{
  public:
    BadInputTestSuite()
        : TestSuite("astra-sim-bad-input", UNIT)
    {
        AddTestCase(new BadInputClassCase("numbers", &NumberCases), TestCase::QUICK);
        AddTestCase(new BadInputClassCase("trace content", &TraceCases), TestCase::QUICK);
        AddTestCase(new BadInputClassCase("files", &FileCases), TestCase::QUICK);
        AddTestCase(new BadInputClassCase("groups and memory", &GroupCases), TestCase::QUICK);
        AddTestCase(new BadInputClassCase("root causes", &RootCauseCases), TestCase::QUICK);
        AddTestCase(new BadInputClassCase("HPCC-SimAI config.txt", &HpccCases), TestCase::QUICK);
        AddTestCase(new BadInputClassCase("congestion control from the runner", &CcCases),
                    TestCase::QUICK);
        AddTestCase(new BadInputClassCase("PyTorch captures", &PytorchCases), TestCase::QUICK);
    }
};

static BadInputTestSuite g_badInputTestSuite; //!< registration

} // namespace
