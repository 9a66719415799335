/*
 * The fabric's files of a distributed run (astra-sim-distributed-outputs): each rank
 * writes its own nodes' lines and rank 0 merges them (AstraFabricOutputs::MergeParts)
 * into the file one process writes: lines by time, ties by the line's numbers, the size
 * cap applied to the merged lines; a real run's files split by node and merged again are
 * the same bytes. Also the runner's --link-error-rate (lossy links, retransmissions) and
 * --mpi on a build without MPI (training-on-roce and the runner with fabric outputs).
 */

#include "astra-test-programs.h"

#include "ns3/astra-distributed.h"
#include "ns3/astra-fabric-outputs.h"
#include "ns3/astra-paths.h"
#include "ns3/test.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::astra;

namespace
{

using ns3::astra::testutil::FindProgram;

/// \return the content of a file ("" if none) \param path the file
std::string
Slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// \return true if text contains part \param text the text \param part what to find
bool
Has(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/// A fresh temporary folder. \return its path
std::string
TempDir()
{
    char tmpl[] = "/tmp/astra-dist-outputs-XXXXXX";
    const char* d = mkdtemp(tmpl);
    return d ? d : "/tmp";
}

/// The reference inputs of an 8-NPU RoCE ring all-reduce (runner arguments).
std::string
Ring8Args()
{
    const std::string a = GetReferenceDir() + "/astra-sim/examples";
    return " --workload-configuration=" + a +
           "/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce"
           " --system-configuration=" +
           a +
           "/system/native_collectives/Ring_4chunks.json"
           " --network-configuration=" +
           a + "/network/analytical/Ring_8npus.yml --progress-seconds=0";
}

/**
 * Split a trace file into two parts as two ranks would write it: the header in both,
 * each data line in the part of its node's parity.
 * \param text the file \param field the line's node (or host) field
 * \return the two parts
 */
std::vector<std::string>
SplitByNode(const std::string& text, size_t field)
{
    std::vector<std::string> parts(2);
    std::istringstream in(text);
    std::string line;
    bool first = true;
    while (std::getline(in, line))
    {
        if (first)
        {
            first = false;
            parts[0] += line + "\n";
            parts[1] += line + "\n";
            continue;
        }
        std::istringstream ls(line);
        long long v = 0;
        for (size_t i = 0; i <= field; ++i)
        {
            ls >> v;
        }
        parts[size_t(v % 2)] += line + "\n";
    }
    return parts;
}

} // namespace

/// MergeParts on hand-written parts: order, ties, the FCT completion time, the size cap.
class MergePartsCase : public TestCase
{
  public:
    MergePartsCase()
        : TestCase("MergeParts: lines by time, ties by the line's numbers, FCT by completion, "
                   "the cap on the merged lines")
    {
    }

  private:
    void DoRun() override
    {
        const std::string h = "# time_ns node port priority bytes\n";
        // rank 0: nodes 1 and 5; rank 1: nodes 2 and 3 (one sample at 100 has all four)
        const std::string r0 = h + "100 1 0 3 10\n100 5 0 3 20\n300 5 1 3 0\n";
        const std::string r1 = h + "100 2 0 3 30\n100 3 0 3 40\n200 2 0 3 0\n";
        NS_TEST_ASSERT_MSG_EQ(AstraFabricOutputs::MergeParts({r0, r1}, false, 0),
                              h + "100 1 0 3 10\n100 2 0 3 30\n100 3 0 3 40\n100 5 0 3 20\n"
                                  "200 2 0 3 0\n300 5 1 3 0\n",
                              "by time, then node");
        NS_TEST_ASSERT_MSG_EQ(AstraFabricOutputs::MergeParts({r1, r0}, false, 0),
                              AstraFabricOutputs::MergeParts({r0, r1}, false, 0),
                              "independent of the rank order");
        NS_TEST_ASSERT_MSG_EQ(AstraFabricOutputs::MergeParts({r0}, false, 0), r0, "one part");
        NS_TEST_ASSERT_MSG_EQ(AstraFabricOutputs::MergeParts({r0, r1}, false, 0, 200),
                              h + "100 1 0 3 10\n100 2 0 3 30\n100 3 0 3 40\n100 5 0 3 20\n"
                                  "200 2 0 3 0\n",
                              "lines after the end left out");
        NS_TEST_ASSERT_MSG_EQ(AstraFabricOutputs::MergeParts({r0, h}, false, 0),
                              r0,
                              "a rank without lines");

        // fct.txt: written at the completion (start + fct), not by start
        const std::string f = "# src dst sport dport size start_ns fct_ns ideal_fct_ns\n";
        const std::string f0 = f + "0 1 10 4791 100 0 500 400\n";
        const std::string f1 = f + "2 3 11 4791 100 100 300 300\n";
        NS_TEST_ASSERT_MSG_EQ(AstraFabricOutputs::MergeParts({f0, f1}, true, 0),
                              f + "2 3 11 4791 100 100 300 300\n0 1 10 4791 100 0 500 400\n",
                              "FCT lines by completion time");

        // the cap: lines until the merged size reaches it, then the note at the next
        // line's time (each line of r0/r1 has 13 bytes: the cap of 26 keeps two)
        NS_TEST_ASSERT_MSG_EQ(AstraFabricOutputs::MergeParts({r0, r1}, false, 26),
                              h + "100 1 0 3 10\n100 2 0 3 30\n"
                                  "# truncated: size cap of 26 bytes reached at 100 ns\n",
                              "cap on the merged lines");
        // a rank that reached the cap on its own: its note ends the merged file where the
        // merged lines reach the cap
        const std::string t0 =
            h + "100 1 0 3 10\n100 5 0 3 20\n# truncated: size cap of 26 bytes reached at 300 "
                "ns\n";
        NS_TEST_ASSERT_MSG_EQ(AstraFabricOutputs::MergeParts({t0, r1}, false, 52),
                              h + "100 1 0 3 10\n100 2 0 3 30\n100 3 0 3 40\n100 5 0 3 20\n"
                                  "# truncated: size cap of 52 bytes reached at 200 ns\n",
                              "a rank's own cap");
        // pfc.txt: pause before resume at the same time on the same port
        const std::string p = "# time_ns node port priority pause|resume\n";
        NS_TEST_ASSERT_MSG_EQ(
            AstraFabricOutputs::MergeParts({p + "50 4 1 3 resume\n", p + "50 4 1 3 pause\n"},
                                           false,
                                           0),
            p + "50 4 1 3 pause\n50 4 1 3 resume\n",
            "equal numbers: by the text");
        bool thrown = false;
        try
        {
            AstraFabricOutputs::MergeParts({h + "# something else\n"}, false, 0);
        }
        catch (const std::runtime_error&)
        {
            thrown = true;
        }
        NS_TEST_ASSERT_MSG_EQ(thrown, true, "a comment that is not the cap's note is refused");
    }
};

/// A real run's files, split by node as two ranks write them and merged, are the same bytes;
/// GatherTo of a single process moves its files unchanged.
class SplitMergeCase : public TestCase
{
  public:
    SplitMergeCase()
        : TestCase("a RoCE run's fct, pfc, queue and rate files split by node and merged are "
                   "the same bytes")
    {
    }

  private:
    void DoRun() override
    {
        const std::string runner = FindProgram("astra-sim-runner");
        NS_TEST_ASSERT_MSG_NE(runner, "", "astra-sim-runner built");
        const std::string dir = TempDir();
        std::string out;
        // an incast: a direct all-to-all of 24 NPUs on a leaf-spine of 3 leaves of 8 with 4:1
        // oversubscribed uplinks and small switch buffers: queues, PFC pauses, rate changes
        {
            std::ofstream y(dir + "/clos24.yml");
            y << "topology: [ Clos ]\nnpus_count: [ 24 ]\nbandwidth: [ 50.0 ]\n"
                 "latency: [ 500.0 ]\nhosts_per_leaf: [ 8 ]\nspines: [ 2 ]\n"
                 "oversubscription: [ 4 ]\n";
            std::ofstream w(dir + "/a2a.txt");
            w << "DATA\n1\na2a -1 0 NONE 0 0 NONE 0 0 ALLTOALL 1048576 0\n";
            std::ofstream j(dir + "/direct.json");
            j << R"({"scheduling-policy": "LIFO", "endpoint-delay": 10,
                "active-chunks-per-dimension": 4, "preferred-dataset-splits": 4,
                "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],
                "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["direct"],
                "collective-optimization": "localBWAware", "local-mem-bw": 1600, "boost-mode": 0,
                "roofline-enabled": 0, "peak-perf": 900})";
        }
        const int rc = ns3::astra::testutil::RunCommand(
            runner + " --workload-configuration=" + dir + "/a2a.txt --system-configuration=" + dir +
                "/direct.json --network-configuration=" + dir +
                "/clos24.yml --backend=roce --progress-seconds=0 --queue-sample-ns=100"
                " --ns3::SwitchMmu::BufferSize=2000000 --output-dir=" +
                dir + "/run",
            out,
            300);
        NS_TEST_ASSERT_MSG_EQ(rc, 0, "run: " << out);
        // the node (or host) field of each file
        const std::vector<std::pair<std::string, size_t>> files = {{"fct.txt", 1},
                                                                   {"pfc.txt", 1},
                                                                   {"queue.txt", 1},
                                                                   {"rate.txt", 1}};
        for (const auto& [name, field] : files)
        {
            const std::string text = Slurp(dir + "/run/" + name);
            size_t lines = 0;
            for (char c : text)
            {
                lines += c == '\n';
            }
            NS_TEST_ASSERT_MSG_GT(lines, 2u, name << " has lines");
            const auto parts = SplitByNode(text, field);
            NS_TEST_ASSERT_MSG_NE(parts[0].size(), text.size(), name << " split in two");
            NS_TEST_ASSERT_MSG_EQ(AstraFabricOutputs::MergeParts(parts, name == "fct.txt", 0),
                                  text,
                                  name << ": merged parts are the file");
        }
        NS_TEST_ASSERT_MSG_EQ(Has(Slurp(dir + "/run/pfc.txt"), "pause"), true, "PFC paused");
    }
};

/// --link-error-rate: lossy links retransmit; validated; roce only.
class LinkErrorRateCase : public TestCase
{
  public:
    LinkErrorRateCase()
        : TestCase("runner --link-error-rate: frames lost on the links are retransmitted; "
                   "out of range or off the RoCE backend is an input error")
    {
    }

  private:
    void DoRun() override
    {
        const std::string runner = FindProgram("astra-sim-runner");
        NS_TEST_ASSERT_MSG_NE(runner, "", "astra-sim-runner built");
        const std::string dir = TempDir();
        auto retx = [](const std::string& text) {
            const std::string key = "retransmitted packets ";
            const size_t at = text.find(key);
            return at == std::string::npos ? -1LL : std::atoll(text.c_str() + at + key.size());
        };
        std::string lossless;
        std::string lossy;
        std::string again;
        int rc = ns3::astra::testutil::RunCommand(runner + Ring8Args() +
                                                      " --backend=roce --output-dir=" + dir + "/a",
                                                  lossless,
                                                  300);
        NS_TEST_ASSERT_MSG_EQ(rc, 0, lossless);
        NS_TEST_ASSERT_MSG_EQ(retx(lossless), 0, "no loss, no retransmission");
        rc = ns3::astra::testutil::RunCommand(runner + Ring8Args() +
                                                  " --backend=roce --link-error-rate=0.002"
                                                  " --output-dir=" +
                                                  dir + "/b",
                                              lossy,
                                              300);
        NS_TEST_ASSERT_MSG_EQ(rc, 0, lossy);
        NS_TEST_ASSERT_MSG_GT(retx(lossy), 0, "lost frames retransmitted: " << lossy);
        NS_TEST_ASSERT_MSG_EQ((Slurp(dir + "/a/npus.csv") != Slurp(dir + "/b/npus.csv")),
                              true,
                              "losses delay the NPUs");
        rc = ns3::astra::testutil::RunCommand(runner + Ring8Args() +
                                                  " --backend=roce --link-error-rate=0.002"
                                                  " --output-dir=" +
                                                  dir + "/c",
                                              again,
                                              300);
        NS_TEST_ASSERT_MSG_EQ(rc, 0, again);
        NS_TEST_ASSERT_MSG_EQ(Slurp(dir + "/b/npus.csv"),
                              Slurp(dir + "/c/npus.csv"),
                              "the losses are the same in every run (fixed streams)");
        std::string err;
        rc = ns3::astra::testutil::RunCommand(runner + Ring8Args() +
                                                  " --backend=roce --link-error-rate=0.7"
                                                  " --output-dir=" +
                                                  dir + "/d",
                                              err,
                                              300);
        NS_TEST_ASSERT_MSG_EQ(rc, 1, err);
        NS_TEST_ASSERT_MSG_EQ(Has(err, "link-error-rate"), true, "names the option: " << err);
        rc = ns3::astra::testutil::RunCommand(runner + Ring8Args() +
                                                  " --backend=analytical --link-error-rate=0.01"
                                                  " --output-dir=" +
                                                  dir + "/e",
                                              err,
                                              300);
        NS_TEST_ASSERT_MSG_EQ(rc, 1, err);
        NS_TEST_ASSERT_MSG_EQ(Has(err, "needs --backend=roce"), true, err);
    }
};

/// --mpi on a build without MPI: training-on-roce and the runner say so (status 1).
class NoMpiProgramsCase : public TestCase
{
  public:
    NoMpiProgramsCase()
        : TestCase("training-on-roce and the runner with fabric outputs: --mpi=1 without MPI "
                   "says the build has none")
    {
    }

  private:
    void DoRun() override
    {
        if (Distributed::IsAvailable())
        {
            return; // an MPI build runs them under mpirun (scripts/check-distributed.sh)
        }
        const std::string training = FindProgram("training-on-roce");
        const std::string runner = FindProgram("astra-sim-runner");
        NS_TEST_ASSERT_MSG_NE(training, "", "training-on-roce built");
        const std::string dir = TempDir();
        std::string out;
        int rc = ns3::astra::testutil::RunCommand(training +
                                                      " --mpi=1 --progress-seconds=0 "
                                                      "--output-dir=" +
                                                      dir + "/t",
                                                  out,
                                                  300);
        NS_TEST_ASSERT_MSG_EQ(rc, 1, out);
        NS_TEST_ASSERT_MSG_EQ(Has(out, "this build of astra-sim has no MPI"), true, out);
        rc = ns3::astra::testutil::RunCommand(runner + Ring8Args() +
                                                  " --backend=roce --mpi=1 --fabric-outputs=1"
                                                  " --output-dir=" +
                                                  dir + "/r",
                                              out,
                                              300);
        NS_TEST_ASSERT_MSG_EQ(rc, 1, out);
        NS_TEST_ASSERT_MSG_EQ(Has(out, "this build of astra-sim has no MPI"), true, out);
    }
};

/// The suite.
class DistributedOutputsTestSuite : public TestSuite
{
  public:
    DistributedOutputsTestSuite()
        : TestSuite("astra-sim-distributed-outputs", UNIT)
    {
        AddTestCase(new MergePartsCase, TestCase::QUICK);
        AddTestCase(new SplitMergeCase, TestCase::QUICK);
        AddTestCase(new LinkErrorRateCase, TestCase::QUICK);
        AddTestCase(new NoMpiProgramsCase, TestCase::QUICK);
    }
};

/// The suite's instance.
static DistributedOutputsTestSuite g_distributedOutputsTestSuite;
