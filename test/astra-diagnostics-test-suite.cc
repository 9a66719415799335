/*
 * Tests of the user-facing diagnostics (suite "astra-sim-diagnostics"): the
 * Warnings facility, RunMain, the checked command line, and the exit status
 * of the built programs on bad input.
 */

#include "astra-test-programs.h"

#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-paths.h"
#include "ns3/nstime.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <glob.h>
#include <iostream>
#include <new>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

bool
Has(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

/// what() of the InputError \p f throws ("" if none)
std::string
InputErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const InputError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

/// Warnings: first message printed once, counts, summary, reset.
class WarningsTestCase : public TestCase
{
  public:
    WarningsTestCase()
        : TestCase("warnings: first message printed once per cause, counted, summary, reset")
    {
    }

  private:
    void DoRun() override
    {
        std::ostringstream out;
        Warnings::SetStream(&out);
        Warnings::Reset();
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetTotal(), 0, "clean after Reset");
        ASTRA_WARN("cause-a", "first a " << 1);
        ASTRA_WARN("cause-a", "second a " << 2);
        ASTRA_WARN("cause-b", "only b");
        ASTRA_WARN("cause-a", "third a");
        NS_TEST_EXPECT_MSG_EQ(out.str(),
                              "warning: first a 1\nwarning: only b\n",
                              "each cause printed once, its first message");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("cause-a"), 3, "a counted");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("cause-b"), 1, "b counted");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("cause-c"), 0, "never seen");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetTotal(), 4, "total");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetFirstMessage("cause-a"), "first a 1", "first message");
        const auto causes = Warnings::GetCauses();
        NS_TEST_ASSERT_MSG_EQ(causes.size(), 2, "two causes");
        NS_TEST_EXPECT_MSG_EQ(causes[0].first, "cause-a", "order of first occurrence");
        NS_TEST_EXPECT_MSG_EQ(causes[1].second, 1, "count of b");
        std::ostringstream summary;
        Warnings::PrintSummary(summary);
        NS_TEST_EXPECT_MSG_EQ(summary.str(),
                              "warning: cause-a: 3 times in all (first shown above)\n",
                              "summary lists the causes seen more than once");
        Warnings::Reset();
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetTotal(), 0, "reset total");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("cause-a"), 0, "reset count");
        std::ostringstream empty;
        Warnings::PrintSummary(empty);
        NS_TEST_EXPECT_MSG_EQ(empty.str(), "", "nothing to summarise");
        out.str("");
        ASTRA_WARN("cause-a", "after reset");
        NS_TEST_EXPECT_MSG_EQ(out.str(), "warning: after reset\n", "printed again after Reset");
        // no stream: counted only
        Warnings::SetStream(nullptr);
        ASTRA_WARN("cause-d", "silent");
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetCount("cause-d"), 1, "counted without a stream");
        NS_TEST_EXPECT_MSG_EQ(out.str(), "warning: after reset\n", "not printed");
        Warnings::Reset();
        Warnings::SetStream(&std::cerr);
    }
};

namespace
{

int
BodyOk(int argc, char**)
{
    return argc + 40;
}

int
BodyInputError(int, char**)
{
    throw InputError("net.yml: key 'bandwidth': must be positive");
}

int
BodyBadAlloc(int, char**)
{
    throw std::bad_alloc();
}

int
BodyRuntimeError(int, char**)
{
    throw std::runtime_error("NPU 3 failed");
}

/// RunMain(body) with std::cerr captured \param body the body \param err set to stderr
int
RunCaptured(int (*body)(int, char**), std::string& err)
{
    std::ostringstream os;
    std::streambuf* old = std::cerr.rdbuf(os.rdbuf());
    char name[] = "prog";
    char* argv[] = {name, nullptr};
    const int rc = RunMain(body, 1, argv);
    std::cerr.rdbuf(old);
    err = os.str();
    return rc;
}

} // namespace

/// RunMain turns exceptions into a message and status 1.
class RunMainTestCase : public TestCase
{
  public:
    RunMainTestCase()
        : TestCase("RunMain: the body's status; an exception is 'error: ...' and status 1")
    {
    }

  private:
    void DoRun() override
    {
        std::string err;
        NS_TEST_EXPECT_MSG_EQ(RunCaptured(&BodyOk, err), 41, "body status passed through");
        NS_TEST_EXPECT_MSG_EQ(err, "", "nothing printed");
        NS_TEST_EXPECT_MSG_EQ(RunCaptured(&BodyInputError, err),
                              EXIT_STATUS_INPUT_ERROR,
                              "input error");
        NS_TEST_EXPECT_MSG_EQ(err,
                              "error: net.yml: key 'bandwidth': must be positive\n",
                              "message on stderr");
        NS_TEST_EXPECT_MSG_EQ(RunCaptured(&BodyBadAlloc, err), 1, "bad_alloc");
        NS_TEST_EXPECT_MSG_EQ(err, "error: out of memory\n", "out of memory");
        NS_TEST_EXPECT_MSG_EQ(RunCaptured(&BodyRuntimeError, err), 1, "runtime_error");
        NS_TEST_EXPECT_MSG_EQ(err, "error: NPU 3 failed\n", "its message");
    }
};

/// The checked command line names a bad argument (and never lets ns-3 abort).
class CommandLineTestCase : public TestCase
{
  public:
    CommandLineTestCase()
        : TestCase("command line: options, attributes, TypeIds, global values checked first")
    {
    }

  private:
    void DoRun() override
    {
        uint64_t hangNs = 5;
        double seconds = 1;
        bool compat = false;
        std::string backend = "analytical";
        Time stop = Seconds(1);
        uint8_t prio = 3;
        AstraCommandLine cmd("test");
        cmd.AddValue("hang-ns", "hang", hangNs);
        cmd.AddValue("progress-seconds", "progress", seconds);
        cmd.AddValue("compat", "compat", compat);
        cmd.AddValue("backend", "backend", backend);
        cmd.AddValue("stop", "stop", stop);
        cmd.AddValue("prio", "priority", prio);
        auto error = [&](const std::vector<std::string>& args) {
            return InputErrorOf([&]() { cmd.Check(args); });
        };
        // good arguments pass
        NS_TEST_EXPECT_MSG_EQ(error({"--hang-ns=100",
                                     "--progress-seconds=0.5",
                                     "--compat",
                                     "-backend=flow",
                                     "--stop=10ms",
                                     "--prio=7",
                                     "--ns3::astra::AstraRunMonitor::MaxReportLines=8",
                                     "--ns3::astra::AnalyticalRemoteMemory::MemoryType=MEMORY_POOL",
                                     "--RngSeed=5",
                                     "--PrintAttributes=ns3::astra::AstraRunMonitor"}),
                              "",
                              "good arguments");
        NS_TEST_EXPECT_MSG_EQ(hangNs, 5, "Check does not apply anything");
        // program options
        const std::string trailing = error({"--hang-ns=12abc"});
        NS_TEST_EXPECT_MSG_EQ((Has(trailing, "--hang-ns=12abc") && Has(trailing, "integer")),
                              true,
                              trailing);
        NS_TEST_EXPECT_MSG_EQ(Has(error({"--hang-ns=-5"}), "non-negative"), true, "negative");
        NS_TEST_EXPECT_MSG_EQ(Has(error({"--progress-seconds=fast"}), "expected a number"),
                              true,
                              "number");
        NS_TEST_EXPECT_MSG_EQ(Has(error({"--compat=maybe"}), "true/false"), true, "bool");
        NS_TEST_EXPECT_MSG_EQ(Has(error({"--backend=a b"}), "space"), true, "space in a string");
        NS_TEST_EXPECT_MSG_EQ(Has(error({"--backend="}), "empty"), true, "empty string");
        NS_TEST_EXPECT_MSG_EQ(Has(error({"--stop=10 parsecs"}), "--stop"), true, "bad Time");
        NS_TEST_EXPECT_MSG_EQ(Has(error({"--stop=10xs"}), "--stop=10xs"),
                              true,
                              "Time unit ns-3 aborts on, read in a child");
        NS_TEST_EXPECT_MSG_EQ(Has(error({"--bakend=flow"}), "did you mean '--backend'"),
                              true,
                              "unknown option");
        NS_TEST_EXPECT_MSG_EQ(Has(error({"flow"}), "unexpected argument 'flow'"),
                              true,
                              "positional argument");
        // attributes and TypeIds
        const std::string cc = error({"--ns3::astra::AstraRunMonitor::MaxReportLine=8"});
        NS_TEST_EXPECT_MSG_EQ((Has(cc, "has no attribute 'MaxReportLine'") &&
                               Has(cc, "did you mean 'MaxReportLines'")),
                              true,
                              cc);
        const std::string type = error({"--ns3::astra::AstraRunMontor::MaxReportLines=8"});
        NS_TEST_EXPECT_MSG_EQ((Has(type, "unknown type 'ns3::astra::AstraRunMontor'") &&
                               Has(type, "did you mean 'ns3::astra::AstraRunMonitor'")),
                              true,
                              type);
        const std::string range = error({"--ns3::astra::AstraRunMonitor::MaxReportLines=0"});
        NS_TEST_EXPECT_MSG_EQ((Has(range, "invalid value '0'") && Has(range, "1:")),
                              true,
                              "below the checker's minimum: " << range);
        const std::string malformed = error({"--ns3::astra::AstraRunMonitor::MaxReportLines=abc"});
        NS_TEST_EXPECT_MSG_EQ(
            (Has(malformed, "invalid value 'abc'") && Has(malformed, "not properly formatted")),
            true,
            "ns-3 aborts on this one; the child reports it: " << malformed);
        const std::string en =
            error({"--ns3::astra::AnalyticalRemoteMemory::MemoryType=MEMORY_POL"});
        NS_TEST_EXPECT_MSG_EQ(Has(en, "did you mean 'MEMORY_POOL'"), true, en);
        const std::string tid = error({"--ns3::RdmaHostStack::CongestionControl=ns3::RdmaHpcc"});
        NS_TEST_EXPECT_MSG_EQ((Has(tid, "unknown TypeId 'ns3::RdmaHpcc'") &&
                               Has(tid, "did you mean 'ns3::RdmaCcHpcc'")),
                              true,
                              tid);
        NS_TEST_EXPECT_MSG_EQ(Has(error({"--RngSeed=abc"}), "invalid value 'abc'"),
                              true,
                              "global value");
        NS_TEST_EXPECT_MSG_EQ(Has(error({"--PrintAttributes=ns3::astra::AstraRunMontor"}),
                                  "did you mean 'ns3::astra::AstraRunMonitor'"),
                              true,
                              "--PrintAttributes of an unknown type");
        // values set from options
        NS_TEST_EXPECT_MSG_EQ(
            Has(InputErrorOf([]() {
                    SetDefaultFromOption("ns3::astra::AstraRunMonitor::MaxReportLines",
                                         UintegerValue(0),
                                         "--lines=0");
                }),
                "--lines=0: not a valid ns3::astra::AstraRunMonitor::MaxReportLines"),
            true,
            "SetDefaultFromOption");
        // lists
        NS_TEST_EXPECT_MSG_EQ(
            (ParseUnsignedList("64,256", "npus") == std::vector<uint64_t>{64, 256}),
            true,
            "list");
        NS_TEST_EXPECT_MSG_EQ(
            Has(InputErrorOf([]() { ParseUnsignedList("64,x", "npus"); }), "--npus=64,x: 'x'"),
            true,
            "bad entry");
    }
};

namespace
{

using ns3::astra::testutil::FindProgram;

/// Run a command line; \return the exit status \param out its output
int
Shell(const std::string& command, std::string& out)
{
    return ns3::astra::testutil::RunCommand(command, out);
}

std::string
WriteFile(const std::string& name, const std::string& text)
{
    const std::string path = "/tmp/astra-diag-" + std::to_string(getpid()) + "-" + name;
    std::ofstream(path) << text;
    return path;
}

} // namespace

/// The built programs exit 1 with "error: ..." on bad input, never by a signal.
class ExitStatusTestCase : public TestCase
{
  public:
    ExitStatusTestCase()
        : TestCase("programs: bad input exits 1 with its message (never SIGABRT); good input 0")
    {
    }

  private:
    void DoRun() override
    {
        const std::string runner = FindProgram("astra-sim-runner");
        const std::string training = FindProgram("training-on-roce");
        NS_TEST_ASSERT_MSG_NE(runner, "", "astra-sim-runner built next to the test runner");
        NS_TEST_ASSERT_MSG_NE(training, "", "training-on-roce built next to the test runner");
        const std::string ex = GetReferenceDir() + "/astra-sim/examples";
        const std::string out = "/tmp/astra-diag-" + std::to_string(getpid()) + "-out";
        const std::string good = " --workload-configuration=" + ex +
                                 "/workload/microbenchmarks/all_reduce/8npus_1MB/"
                                 "all_reduce --network-configuration=" +
                                 ex +
                                 "/network/analytical/Ring_8npus.yml"
                                 " --progress-seconds=0 --output-dir=" +
                                 out;
        const std::string sys = ex + "/system/native_collectives/Ring_4chunks.json";
        const std::string badSys =
            WriteFile("sys.json",
                      "{\"scheduling-policy\": \"LIFO\", \"preferred-dataset-splitz\": 4}");
        const std::string badMem =
            WriteFile("mem.json",
                      "{\"memory-type\": \"MEMORY_POOL\", \"remote-mem-latency\": 100}");

        struct Case
        {
            std::string name;
            std::string command;
            int status;
            std::vector<std::string> parts;
        };

        const std::vector<Case> cases = {
            {"good run", runner + good + " --system-configuration=" + sys, 0, {"sys[7] finished"}},
            {"misspelled system key",
             runner + good + " --system-configuration=" + badSys,
             1,
             {"error: " + badSys, "'preferred-dataset-splitz'", "did you mean"}},
            {"remote memory without bandwidth",
             runner + good + " --system-configuration=" + sys +
                 " --remote-memory-configuration=" + badMem,
             1,
             {"error: " + badMem, "'remote-mem-bw'", "missing"}},
            {"unknown congestion control TypeId",
             runner + good + " --system-configuration=" + sys +
                 " --ns3::RdmaHostStack::CongestionControl=ns3::RdmaHpcc",
             1,
             {"error: ", "did you mean 'ns3::RdmaCcHpcc'"}},
            {"malformed attribute value (ns-3 would abort)",
             runner + good + " --system-configuration=" + sys + " --ns3::RdmaHostStack::Mtu=abc",
             1,
             {"error: --ns3::RdmaHostStack::Mtu=abc"}},
            {"attribute checker refusal (ns-3 would abort)",
             runner + good + " --system-configuration=" + sys + " --hang-ns=0",
             1,
             {"error: --hang-ns=0"}},
            {"unknown backend",
             runner + good + " --system-configuration=" + sys + " --backend=rocee",
             1,
             {"error: ", "did you mean 'roce'"}},
            {"bad example option (was NS_ABORT)",
             training + " --scale-up-npus=3 --progress-seconds=0 --output-dir=" + out,
             1,
             {"error: --scale-up-npus=3"}},
        };
        for (const auto& c : cases)
        {
            std::string text;
            const int status = Shell(c.command, text);
            NS_TEST_EXPECT_MSG_EQ(status, c.status, c.name << ": " << text.substr(0, 2000));
            for (const auto& p : c.parts)
            {
                NS_TEST_EXPECT_MSG_EQ(Has(text, p), true, c.name << ": '" << p << "' in " << text);
            }
        }
        std::remove(badSys.c_str());
        std::remove(badMem.c_str());
        std::string ignored;
        Shell("rm -rf " + out, ignored);
    }
};

/// Suite "astra-sim-diagnostics".
class AstraDiagnosticsTestSuite : public TestSuite
{
  public:
    AstraDiagnosticsTestSuite()
        : TestSuite("astra-sim-diagnostics", UNIT)
    {
        AddTestCase(new WarningsTestCase, TestCase::QUICK);
        AddTestCase(new RunMainTestCase, TestCase::QUICK);
        AddTestCase(new CommandLineTestCase, TestCase::QUICK);
        AddTestCase(new ExitStatusTestCase, TestCase::QUICK);
    }
};

static AstraDiagnosticsTestSuite g_astraDiagnosticsTestSuite; //!< registration
