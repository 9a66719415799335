/*
 * The outputs users expect from every RoCE run: astra-sim-runner
 * --backend=roce writes the fabric's files and summary lines as
 * training-on-roce does, every trace file has a size cap (the FCT file too),
 * --plots draws PNGs on both programs, rdma-incast takes every congestion
 * control and --pcap.
 */

#include "astra-test-programs.h"

#include "ns3/astra-fabric-outputs.h"
#include "ns3/astra-paths.h"
#include "ns3/rdma-trace-writers.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <cstdio>
#include <fstream>
#include <glob.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

using ns3::astra::testutil::FindProgram;

/// Run a command (time limit 300 s); \return its exit status \param out stdout and stderr
int
Shell(const std::string& command, std::string& out)
{
    return ns3::astra::testutil::RunCommand(command, out, 300);
}

/// \return the content of a file ("" if none)
std::string
Slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// \return the lines of a file that are not comments
uint64_t
DataLines(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    uint64_t n = 0;
    while (std::getline(in, line))
    {
        n += !line.empty() && line[0] != '#';
    }
    return n;
}

/// \return the first line of a file
std::string
FirstLine(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

bool
Has(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/// A fresh temporary folder.
std::string
TempDir()
{
    char tmpl[] = "/tmp/astra-outputs-XXXXXX";
    const char* d = mkdtemp(tmpl);
    return d ? d : "/tmp";
}

} // namespace

/// The runner on the RoCE backend writes what training-on-roce writes.
class RunnerFabricFilesCase : public TestCase
{
  public:
    RunnerFabricFilesCase()
        : TestCase("runner --backend=roce: fct, pfc, queue and rate files and summary lines as "
                   "training-on-roce")
    {
    }

  private:
    void DoRun() override
    {
        const std::string runner = FindProgram("astra-sim-runner");
        const std::string training = FindProgram("training-on-roce");
        NS_TEST_ASSERT_MSG_NE(runner, "", "astra-sim-runner built");
        NS_TEST_ASSERT_MSG_NE(training, "", "training-on-roce built");
        const std::string ref = GetReferenceDir();
        const std::string stg = ref + "/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2";
        const std::string dir = TempDir();
        std::string out;
        const int rc = Shell(runner + " --workload-configuration=" + stg +
                                 " --comm-group-configuration=" + stg + ".json" +
                                 " --system-configuration=" + ref +
                                 "/astra-sim/examples/system/native_collectives/Ring_4chunks.json"
                                 " --network-configuration=" +
                                 ref +
                                 "/astra-sim/examples/network/analytical/Ring_8npus.yml"
                                 " --backend=roce --progress-seconds=0 --output-dir=" +
                                 dir + "/runner",
                             out);
        NS_TEST_ASSERT_MSG_EQ(rc, 0, out);
        std::string tout;
        const int trc =
            Shell(training + " --progress-seconds=0 --output-dir=" + dir + "/training", tout);
        NS_TEST_ASSERT_MSG_EQ(trc, 0, tout);
        for (const auto& f : AstraFabricOutputs::GetFileNames())
        {
            const std::string a = dir + "/runner/" + f;
            const std::string b = dir + "/training/" + f;
            NS_TEST_EXPECT_MSG_EQ(FirstLine(a).empty(), false, "runner writes " << f);
            NS_TEST_EXPECT_MSG_EQ(FirstLine(a), FirstLine(b), f << ": the same header");
        }
        // the summary lines of training-on-roce, and the FCT file holds every message
        for (const char* line : {"roce: congestion control ",
                                 "fabric: PFC pause frames ",
                                 "FCT slowdown p50 ",
                                 "roce backend: "})
        {
            NS_TEST_EXPECT_MSG_EQ(Has(out, line), true, "runner prints '" << line << "'");
            NS_TEST_EXPECT_MSG_EQ(Has(tout, line), true, "training prints '" << line << "'");
        }
        const size_t at = out.find(" messages\n", out.find("FCT slowdown"));
        const size_t from = out.rfind("over ", at);
        NS_TEST_ASSERT_MSG_NE(at, std::string::npos, out);
        const uint64_t messages = std::stoull(out.substr(from + 5, at - from - 5));
        NS_TEST_EXPECT_MSG_GT(messages, 0u, "messages completed");
        NS_TEST_EXPECT_MSG_EQ(DataLines(dir + "/runner/fct.txt"), messages, "one FCT line each");
        NS_TEST_EXPECT_MSG_GT(DataLines(dir + "/runner/rate.txt"), 0u, "DCQCN changed rates");
        NS_TEST_EXPECT_MSG_GT(DataLines(dir + "/runner/queue.txt"), 0u, "queues sampled");
        // the analytical backend has no fabric: no such files, no such lines
        const int arc = Shell(runner + " --workload-configuration=" + stg +
                                  " --comm-group-configuration=" + stg + ".json" +
                                  " --system-configuration=" + ref +
                                  "/astra-sim/examples/system/native_collectives/"
                                  "Ring_4chunks.json --network-configuration=" +
                                  ref +
                                  "/astra-sim/examples/network/analytical/Ring_8npus.yml"
                                  " --progress-seconds=0 --output-dir=" +
                                  dir + "/analytical",
                              out);
        NS_TEST_EXPECT_MSG_EQ(arc, 0, out);
        NS_TEST_EXPECT_MSG_EQ(Has(out, "fabric: "), false, "no fabric line on analytical");
        struct stat st;
        NS_TEST_EXPECT_MSG_NE(stat((dir + "/analytical/fct.txt").c_str(), &st), 0, "no fct.txt");
        Shell("rm -rf '" + dir + "'", out);
    }
};

/// --plots draws PNGs (or, without gnuplot, says so and leaves the scripts).
class PlotsCase : public TestCase
{
  public:
    PlotsCase()
        : TestCase("--plots on the runner and training-on-roce: queue, rate and timeline PNGs")
    {
    }

  private:
    void DoRun() override
    {
        const std::string runner = FindProgram("astra-sim-runner");
        const std::string training = FindProgram("training-on-roce");
        NS_TEST_ASSERT_MSG_NE(runner, "", "astra-sim-runner built");
        const std::string ex = GetReferenceDir() + "/astra-sim/examples";
        const std::string stg = GetReferenceDir() + "/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2";
        const std::string dir = TempDir();
        std::string ignored;
        const bool gnuplot = Shell("sh -c \"command -v gnuplot\"", ignored) == 0;
        const std::string runs[] = {
            runner + " --workload-configuration=" + stg + " --comm-group-configuration=" + stg +
                ".json --system-configuration=" + ex +
                "/system/native_collectives/Ring_4chunks.json --network-configuration=" + ex +
                "/network/analytical/Ring_8npus.yml --backend=roce --plots=1"
                " --progress-seconds=0 --output-dir=" +
                dir + "/runner",
            training + " --plots=1 --progress-seconds=0 --output-dir=" + dir + "/training"};
        for (const auto& cmd : runs)
        {
            std::string out;
            NS_TEST_ASSERT_MSG_EQ(Shell(cmd, out), 0, out);
            NS_TEST_EXPECT_MSG_EQ(Has(out, "plots: "), true, out);
            const std::string folder = cmd.substr(cmd.rfind('=') + 1);
            for (const char* name : {"queue", "rate", "timeline"})
            {
                const std::string gp = Slurp(folder + "/" + name + ".gp");
                NS_TEST_EXPECT_MSG_EQ(Has(gp, std::string("set output '") + name + ".png'"),
                                      true,
                                      name << ".gp written: " << out);
                if (gnuplot)
                {
                    const std::string png = Slurp(folder + "/" + name + ".png");
                    NS_TEST_EXPECT_MSG_EQ(png.compare(0, 8, "\x89PNG\r\n\x1a\n"),
                                          0,
                                          name << ".png is a PNG: " << out);
                    NS_TEST_EXPECT_MSG_GT(png.size(), 1000u, name << ".png has content");
                }
            }
            NS_TEST_EXPECT_MSG_EQ(Has(out, gnuplot ? "3 PNG file(s) written" : "gnuplot not found"),
                                  true,
                                  out.substr(out.find("plots:")));
        }
        // the analytical backend has no queues: --plots is an error there
        std::string out;
        NS_TEST_EXPECT_MSG_EQ(Shell(runner + " --workload-configuration=" + ex +
                                        "/workload/microbenchmarks/all_reduce/8npus_1MB/"
                                        "all_reduce --system-configuration=" +
                                        ex +
                                        "/system/native_collectives/Ring_4chunks.json"
                                        " --network-configuration=" +
                                        ex +
                                        "/network/analytical/Ring_8npus.yml --plots=1"
                                        " --progress-seconds=0 --output-dir=" +
                                        dir + "/analytical",
                                    out),
                              1,
                              out);
        NS_TEST_EXPECT_MSG_EQ(Has(out, "--plots draws the RoCE fabric's queues"), true, out);
        Shell("rm -rf '" + dir + "'", ignored);
    }
};

/// The FCT file has a size cap; the records in memory stay whole.
class FctCapCase : public TestCase
{
  public:
    FctCapCase()
        : TestCase("FCT file: size cap with a '# truncated' line, records kept whole")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = TempDir();
        const uint64_t cap = 200;
        {
            RdmaFctWriter w(dir + "/fct.txt", cap);
            for (uint32_t i = 0; i < 50; ++i)
            {
                RdmaMessageInfo info;
                info.srcHost = 1;
                info.dstHost = 2;
                info.sport = uint16_t(1000 + i);
                info.bytes = 4096;
                info.start = NanoSeconds(i * 10);
                info.end = NanoSeconds(i * 10 + 500);
                w.Record(info);
            }
            w.Close();
            NS_TEST_EXPECT_MSG_EQ(w.GetRecords().size(), 50u, "every record kept in memory");
        }
        const std::string text = Slurp(dir + "/fct.txt");
        NS_TEST_EXPECT_MSG_EQ(Has(text, "# truncated: size cap of 200 bytes"), true, text);
        // header + lines until the cap was reached + the note: well below 50 lines of ~30 B
        const uint64_t lines = DataLines(dir + "/fct.txt");
        NS_TEST_EXPECT_MSG_GT(lines, 0u, text);
        NS_TEST_EXPECT_MSG_LT(lines, 20u, text);
        // without a cap every record is written
        {
            RdmaFctWriter w(dir + "/fct-all.txt", 0);
            for (uint32_t i = 0; i < 50; ++i)
            {
                RdmaMessageInfo info;
                info.bytes = 1;
                info.end = NanoSeconds(1);
                w.Record(info);
            }
        }
        NS_TEST_EXPECT_MSG_EQ(DataLines(dir + "/fct-all.txt"), 50u, "no cap: all lines");
        std::string ignored;
        Shell("rm -rf '" + dir + "'", ignored);
        Simulator::Destroy();
    }
};

/// rdma-incast takes every congestion control and --pcap.
class IncastCase : public TestCase
{
  public:
    IncastCase()
        : TestCase("rdma-incast: every congestion control, HPCC with INT, --pcap")
    {
    }

  private:
    void DoRun() override
    {
        const std::string incast = FindProgram("rdma-incast");
        NS_TEST_ASSERT_MSG_NE(incast, "", "rdma-incast built");
        const std::string dir = TempDir();
        std::string out;
        // 8-to-1 incast of 1 MB each: the queue a controlled flow set keeps is far below the
        // uncontrolled one (HPCC reads INT: without it, it could not react)
        uint64_t noneQueue = 0;
        uint64_t hpccQueue = 0;
        for (const char* cc : {"none", "dcqcn", "hpcc", "timely", "dctcp", "swift"})
        {
            const int rc = Shell(incast + " --senders=8 --size=1000000 --cc=" + cc +
                                     " --out=" + dir + "/" + cc,
                                 out);
            NS_TEST_ASSERT_MSG_EQ(rc, 0, cc << ": " << out);
            NS_TEST_EXPECT_MSG_EQ(Has(out, std::string("cc ") + cc), true, out);
            NS_TEST_EXPECT_MSG_EQ(Has(out, "bytes delivered         : 8000000 of 8000000"),
                                  true,
                                  out);
            const size_t q = out.find("max egress queue        : ");
            NS_TEST_ASSERT_MSG_NE(q, std::string::npos, out);
            const uint64_t queue = std::stoull(out.substr(q + 26));
            if (std::string(cc) == "none")
            {
                noneQueue = queue;
            }
            else if (std::string(cc) == "hpcc")
            {
                hpccQueue = queue;
            }
        }
        NS_TEST_EXPECT_MSG_LT(hpccQueue * 4, noneQueue, "HPCC holds the queue down");
        NS_TEST_ASSERT_MSG_EQ(
            Shell(incast + " --senders=2 --size=10000 --pcap=1 --out=" + dir + "/pcap", out),
            0,
            out);
        const std::string pcap = Slurp(dir + "/pcap-pcap-0-0.pcap");
        NS_TEST_ASSERT_MSG_GT(pcap.size(), 24u, "pcap written: " << out);
        const uint32_t magic = *reinterpret_cast<const uint32_t*>(pcap.data());
        NS_TEST_EXPECT_MSG_EQ((magic == 0xa1b2c3d4u || magic == 0xd4c3b2a1u), true, "pcap magic");
        Shell("rm -rf '" + dir + "'", out);
    }
};

/// Suite "astra-sim-runner-outputs".
class RunnerOutputsTestSuite : public TestSuite
{
  public:
    RunnerOutputsTestSuite()
        : TestSuite("astra-sim-runner-outputs", UNIT)
    {
        AddTestCase(new RunnerFabricFilesCase, TestCase::QUICK);
        AddTestCase(new PlotsCase, TestCase::QUICK);
        AddTestCase(new FctCapCase, TestCase::QUICK);
        AddTestCase(new IncastCase, TestCase::QUICK);
    }
};

static RunnerOutputsTestSuite g_runnerOutputsTestSuite; //!< registration
