/*
 * Tests of the RoCE configuration path: the strict reader of attribute files
 * (JSON / YAML) and of HPCC / SimAI config.txt files (RoceConfigReader), and
 * bad RoCE settings that used to end in SIGABRT: each now exits with status 1
 * and its message (RunMain in a forked child), or is derived from the fabric
 * (base RTT, INT for HPCC).
 */

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-fabric-helper.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/hpcc.h"
#include "ns3/rdma-ecn-marker.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-topology-helper.h"
#include "ns3/roce-backend.h"
#include "ns3/roce-config-reader.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <fstream>
#include <functional>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// Write a file and return its name.
std::string
WriteFile(const std::string& path, const std::string& text)
{
    std::ofstream f(path);
    f << text;
    return path;
}

/// The InputError text of a call ("" if none was thrown).
std::string
ErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const InputError& e)
    {
        Simulator::Destroy();
        Config::Reset();
        return e.what();
    }
    Simulator::Destroy();
    Config::Reset();
    return "";
}

bool
Has(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

/// The TypeId name a host stack would get for CongestionControl now.
std::string
DefaultCc()
{
    Ptr<RdmaHostStack> s = CreateObject<RdmaHostStack>();
    TypeIdValue v;
    s->GetAttribute("CongestionControl", v);
    return v.Get().GetName();
}

std::function<void()> g_body; //!< the body RunMainIn runs

int
Body(int, char**)
{
    g_body();
    return 0;
}

/// Exit status of a program body run under RunMain in a child process, with its stderr.
struct Outcome
{
    bool signaled{false}; //!< killed by a signal (SIGABRT)
    int status{-1};       //!< exit status
    std::string err;      //!< stderr
};

Outcome
RunMainIn(const std::function<void()>& body)
{
    Outcome o;
    int fds[2];
    if (pipe(fds) != 0)
    {
        return o;
    }
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = fork();
    if (pid == 0)
    {
        dup2(fds[1], 2);
        close(fds[0]);
        g_body = body;
        char* argv[] = {nullptr};
        const int rc = RunMain(&Body, 0, argv);
        std::cerr.flush();
        _exit(rc);
    }
    close(fds[1]);
    char buf[512];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0)
    {
        o.err.append(buf, size_t(n));
    }
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    o.signaled = WIFSIGNALED(st);
    o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return o;
}

/// A star of n hosts at 100 Gbps, 1 us.
RdmaTopology
Star(uint32_t n)
{
    RdmaTopologyHelper th;
    return th.Star(n, DataRate("100Gbps"), MicroSeconds(1));
}

} // namespace

/// Attribute files: unknown names with a did-you-mean, malformed values, parent attributes.
class AttributeFileTestCase : public TestCase
{
  public:
    AttributeFileTestCase()
        : TestCase("attribute file: misspelled keys are errors with a did-you-mean; bad values")
    {
    }

  private:
    /// The error of applying a one-key JSON file {key: value}.
    std::string One(const std::string& key, const std::string& value)
    {
        const std::string f =
            WriteFile(CreateTempDirFilename("one.json"), "{\"" + key + "\": " + value + "}\n");
        return ErrorOf([&]() { RoceConfigReader::Apply(f); });
    }

    void DoRun() override
    {
        // a valid file: every setting takes effect
        const std::string ok = WriteFile(CreateTempDirFilename("ok.yml"),
                                         "ns3::RdmaHostStack::Mtu: 2048\n"
                                         "RdmaEcnRed: {Kmin: 5000, Kmax: 50000}\n"
                                         "ns3::RdmaEcnMarker::AtDequeue: true\n"
                                         "RdmaHostStack::CongestionControl: ns3::RdmaCcTimely\n"
                                         "RngRun: 3\n");
        RoceConfig c = RoceConfigReader::Apply(ok);
        NS_TEST_ASSERT_MSG_EQ(c.applied, 6, "settings applied");
        NS_TEST_ASSERT_MSG_EQ(c.hpccFormat, false, "an attribute file");
        NS_TEST_ASSERT_MSG_EQ(DefaultCc(), "ns3::RdmaCcTimely", "CongestionControl set");
        Ptr<RdmaEcnRed> red = CreateObject<RdmaEcnRed>();
        red->AddPort(100000000000ull);
        NS_TEST_ASSERT_MSG_EQ(red->GetThresholds(0).kminBytes, 5000u, "grouped key set");
        NS_TEST_ASSERT_MSG_EQ(red->IsAtDequeue(), true, "parent attribute by its own type");
        Config::Reset();

        std::string e = One("ns3::RdmaSwitch::Kmn", "1");
        NS_TEST_ASSERT_MSG_EQ(Has(e,
                                  "one.json: ns3::RdmaSwitch has no attribute 'Kmn' (did "
                                  "you mean 'Kmin'?)"),
                              true,
                              e);
        e = One("ns3::RdmaSwich::Kmin", "1");
        NS_TEST_ASSERT_MSG_EQ(Has(e, "unknown type 'ns3::RdmaSwich'"), true, e);
        NS_TEST_ASSERT_MSG_EQ(Has(e, "did you mean 'ns3::RdmaSwitch'?"), true, e);
        e = One("RngSed", "1");
        NS_TEST_ASSERT_MSG_EQ(Has(e, "unknown global value 'RngSed' (did you mean 'RngSeed'?)"),
                              true,
                              e);
        const std::string grouped = WriteFile(CreateTempDirFilename("grouped.json"),
                                              "{\"RdmaHostStack\": {\"Mtuu\": 1000}}");
        e = ErrorOf([&]() { RoceConfigReader::Apply(grouped); });
        NS_TEST_ASSERT_MSG_EQ(Has(e, "has no attribute 'Mtuu' (did you mean 'Mtu'?)"), true, e);
        e = One("ns3::RdmaEcnRed::AtDequeue", "true");
        NS_TEST_ASSERT_MSG_EQ(Has(e, "write 'ns3::RdmaEcnMarker::AtDequeue'"), true, e);
        e = One("ns3::RdmaHostStack::CongestionControl", "\"ns3::RdmaCcHpc\"");
        NS_TEST_ASSERT_MSG_EQ(Has(e, "did you mean 'ns3::RdmaCcHpcc'?"), true, e);

        // values: the message names the file, the key and the value
        struct Bad
        {
            const char* key;
            const char* value;
            const char* expect;
        };

        const Bad bad[] = {
            {"ns3::RdmaHostStack::Mtu", "-5", "'-5': must be >= 0"},
            {"ns3::RdmaHostStack::Mtu", "\"12abc\"", "'12abc': is not a non-negative integer"},
            {"ns3::RdmaHostStack::Mtu", "99999999999", "not a valid value: expected"},
            {"ns3::RdmaEcnRed::Pmax", "\"nan\"", "'nan': is not a finite number"},
            {"ns3::RdmaEcnRed::Pmax", "\"inf\"", "'inf': is not a finite number"},
            {"ns3::RdmaHostStack::Rto", "\"soon\"", "'soon': is not a time"},
            {"ns3::RdmaHostStack::Rto", "\"1 us\"", "'1 us': a value of this attribute has no"},
            {"ns3::RdmaCcDcqcn::RateAi", "\"fast\"", "'fast': is not a data rate"},
            {"ns3::RdmaCcDcqcn::RateAi", "\"1e30Gbps\"", "'1e30Gbps': is not a data rate"},
            {"ns3::RdmaCcDcqcn::RateAi", "\"99999999999Gbps\"", "larger than 1e15 bit/s"},
            {"ns3::RdmaHostStack::Rto", "\"-1us\"", "'-1us': is negative"},
            {"ns3::RdmaHostStack::Rto", "\"1e300s\"", "larger than 1e15 ns"},
            {"ns3::RdmaSwitch::EcnEnabled", "\"maybe\"", "'maybe': not a valid value"},
            {"ns3::RdmaEcnRed::RateThresholds", "\"1:5:3:0.2\"", "not a valid value"},
            {"ns3::RdmaHostStack::Mtu", "[1, 2]", "must be a single value"},
        };
        for (const auto& b : bad)
        {
            e = One(b.key, b.value);
            NS_TEST_ASSERT_MSG_EQ(Has(e, "one.json"), true, b.key << ": names the file: " << e);
            NS_TEST_ASSERT_MSG_EQ(Has(e, b.key), true, "names the key: " << e);
            NS_TEST_ASSERT_MSG_EQ(Has(e, b.expect), true, b.value << ": " << e);
        }
        e = ErrorOf([]() { RoceConfigReader::Apply("/nonexistent/roce.json"); });
        NS_TEST_ASSERT_MSG_EQ(Has(e, "/nonexistent/roce.json: cannot open RoCE configuration"),
                              true,
                              e);
        // the forwarding function of the backend reads the same way
        const std::string fwd =
            WriteFile(CreateTempDirFilename("fwd.json"), "{\"ns3::RdmaHostStack::Mtuu\": 1}");
        e = ErrorOf([&]() { RoceBackend::ApplyConfigFile(fwd); });
        NS_TEST_ASSERT_MSG_EQ(Has(e, "did you mean 'Mtu'?"), true, e);
    }
};

/// HPCC / SimAI config.txt: mapped keys, reference-only keys warned, strict values.
class HpccConfigTextTestCase : public TestCase
{
  public:
    HpccConfigTextTestCase()
        : TestCase("config.txt: CC_MODE mapping, reference keys warned by name, strict values")
    {
    }

  private:
    std::string Apply(const std::string& text, RoceConfig* out = nullptr)
    {
        const std::string f = WriteFile(CreateTempDirFilename("config.txt"), text);
        std::string e;
        try
        {
            RoceConfig c = RoceConfigReader::Apply(f);
            if (out)
            {
                *out = c;
            }
        }
        catch (const InputError& x)
        {
            e = x.what();
        }
        return e;
    }

    void DoRun() override
    {
        Warnings::SetStream(nullptr);
        Warnings::Reset();
        // every algorithm the module has, by HPCC's CC_MODE number
        const std::pair<const char*, const char*> modes[] = {{"1", "ns3::RdmaCcDcqcn"},
                                                             {"3", "ns3::RdmaCcHpcc"},
                                                             {"7", "ns3::RdmaCcTimely"},
                                                             {"8", "ns3::RdmaCcDctcp"}};
        for (const auto& m : modes)
        {
            NS_TEST_ASSERT_MSG_EQ(Apply(std::string("CC_MODE ") + m.first + "\n"), "", m.first);
            NS_TEST_ASSERT_MSG_EQ(DefaultCc(), m.second, "CC_MODE " << m.first);
            Ptr<RdmaSwitch> sw = CreateObject<RdmaSwitch>();
            BooleanValue intOn;
            sw->GetAttribute("IntEnabled", intOn);
            NS_TEST_ASSERT_MSG_EQ(intOn.Get(), (std::string(m.first) == "3"), "INT for HPCC only");
            Ptr<RdmaHostStack> hs = CreateObject<RdmaHostStack>();
            TimeValue cnp;
            hs->GetAttribute("CnpInterval", cnp);
            NS_TEST_ASSERT_MSG_EQ(cnp.Get().IsZero(),
                                  (std::string(m.first) == "8"),
                                  "DCTCP: one CNP per marked packet");
            Config::Reset();
        }
        std::string e = Apply("CC_MODE 10\n");
        NS_TEST_ASSERT_MSG_EQ(Has(e,
                                  "CC_MODE = '10': HPCC-PINT (CC_MODE 10, HPCC on sampled "
                                  "telemetry) has no counterpart here"),
                              true,
                              e);
        e = Apply("CC_MODE 5\n");
        NS_TEST_ASSERT_MSG_EQ(Has(e, "unknown CC_MODE"), true, e);

        // every key HPCC or SimAI define without an effect here is accepted and named
        const char* reference[] = {"RATE_DECREASE_INTERVAL 4",
                                   "DCTCP_RATE_AI 1000Mb/s",
                                   "VAR_WIN 1",
                                   "FAST_REACT 1",
                                   "MULTI_RATE 0",
                                   "SAMPLE_FEEDBACK 0",
                                   "INT_MULTI 1",
                                   "PINT_LOG_BASE 1.05",
                                   "PINT_PROB 1.0",
                                   "PAUSE_TIME 5",
                                   "DATA_RATE 100Gbps",
                                   "LINK_DELAY 1us",
                                   "TOPOLOGY_FILE t.txt",
                                   "FLOW_FILE f.txt",
                                   "TRACE_FILE tr.txt",
                                   "TRACE_OUTPUT_FILE o.tr",
                                   "TRACE_NODE 0",
                                   "ENABLE_TRACE 1",
                                   "FCT_OUTPUT_FILE fct.txt",
                                   "PFC_OUTPUT_FILE pfc.txt",
                                   "SEND_OUTPUT_FILE s.txt",
                                   "SIMULATOR_STOP_TIME 4",
                                   "QLEN_MON_FILE q.txt",
                                   "QLEN_MON_START 0",
                                   "QLEN_MON_END 10",
                                   "BW_MON_FILE b.txt",
                                   "RATE_MON_FILE r.txt",
                                   "CNP_MON_FILE c.txt",
                                   "MON_START 0",
                                   "MON_END 20000",
                                   "QP_MON_INTERVAL 100",
                                   "QLEN_MON_INTERVAL 10000",
                                   "BW_MON_INTERVAL 10000",
                                   // keys whose value here is not the modelled one
                                   "HAS_WIN 1",
                                   "USE_DYNAMIC_PFC_THRESHOLD 0",
                                   "CLAMP_TARGET_RATE 0",
                                   "RATE_BOUND 0",
                                   "GLOBAL_T 0",
                                   "ACK_HIGH_PRIO 0",
                                   "L2_CHUNK_SIZE 4000",
                                   "L2_BACK_TO_ZERO 1",
                                   "ERROR_RATE_PER_LINK 0.01",
                                   "LINK_DOWN 1000 1 2"};
        std::string text;
        for (const char* r : reference)
        {
            text += std::string(r) + "\n";
        }
        RoceConfig c;
        e = Apply(text, &c);
        NS_TEST_ASSERT_MSG_EQ(e, "", "accepted");
        NS_TEST_ASSERT_MSG_EQ(c.unmodelled.size(), sizeof(reference) / sizeof(reference[0]), "all");
        for (size_t i = 0; i < c.unmodelled.size(); ++i)
        {
            const std::string key =
                std::string(reference[i]).substr(0, std::string(reference[i]).find(' '));
            NS_TEST_ASSERT_MSG_EQ(c.unmodelled[i].rfind(key, 0), 0u, "named: " << key);
        }
        NS_TEST_ASSERT_MSG_EQ(c.applied, 0, "nothing applied");
        const std::string warning = Warnings::GetFirstMessage("hpcc-config-unmodelled " + c.path);
        NS_TEST_ASSERT_MSG_EQ(Has(warning, "43 HPCC/SimAI key(s) accepted without an effect"),
                              true,
                              warning);
        NS_TEST_ASSERT_MSG_EQ(Has(warning, "LINK_DOWN 1000 1 2"), true, warning);
        Config::Reset();
        // keys at the value this module models are taken silently
        RoceConfig quiet;
        e = Apply("USE_DYNAMIC_PFC_THRESHOLD 1\nCLAMP_TARGET_RATE 1\nRATE_BOUND 1\nGLOBAL_T 1\n"
                  "ACK_HIGH_PRIO 1\nL2_CHUNK_SIZE 0\nL2_BACK_TO_ZERO 0\nERROR_RATE_PER_LINK 0\n"
                  "LINK_DOWN 0 0 0\nHAS_WIN 0\n",
                  &quiet);
        NS_TEST_ASSERT_MSG_EQ(e, "", "accepted");
        NS_TEST_ASSERT_MSG_EQ(quiet.unmodelled.size(), 0, "at the modelled values: silent");
        NS_TEST_ASSERT_MSG_EQ(quiet.applied, 1, "HAS_WIN 0 sets Window = 0");
        Config::Reset();
        // a key given twice is an error naming both lines (HPCC would keep the last)
        e = Apply("CC_MODE 1\nENABLE_QCN 1\nCC_MODE 3\n");
        NS_TEST_ASSERT_MSG_EQ(Has(e, "line 3: key 'CC_MODE' given twice (first on line 1)"),
                              true,
                              e);
        Config::Reset();

        // unknown keys and bad values name the file, the key and the value
        struct Bad
        {
            const char* text;
            const char* expect;
        };

        const Bad bad[] = {
            {"ENABLE_QCM 1\n", "unknown key 'ENABLE_QCM' (did you mean 'ENABLE_QCN'?)"},
            {"EWMA_GAIN nan\n", "EWMA_GAIN = 'nan': 'nan' is not a finite number"},
            {"BUFFER_SIZE -1\n", "BUFFER_SIZE = '-1': must be >= 0"},
            {"BUFFER_SIZE 0\n", "BUFFER_SIZE = '0': must be a buffer size in MB"},
            {"PACKET_PAYLOAD_SIZE abc\n",
             "PACKET_PAYLOAD_SIZE = 'abc': 'abc' is not a non-negative"},
            {"ENABLE_QCN 2\n", "ENABLE_QCN = '2': must be 0 or 1"},
            {"CC_MODE 1 2\n", "CC_MODE = '1 2': expects 1 value, got 2"},
            {"CC_MODE\n", "CC_MODE has no value"},
            {"RATE_AI fast\n", "RATE_AI = 'fast': cannot set ns3::RdmaCcDcqcn::RateAi"},
            {"RATE_AI nanGbps\n", "RATE_AI = 'nanGbps': cannot set ns3::RdmaCcDcqcn::RateAi"},
            {"LINK_DOWN 0 0\n", "LINK_DOWN = '0 0': expects 3 values, got 2"},
            {"KMIN_MAP 9223372036854775808 100000000000 400\n",
             "KMIN_MAP = '9223372036854775808 100000000000 400': '9223372036854775808' is "
             "larger than the largest count accepted"},
            {"KMIN_MAP 3 100000000000 400\n", "the count 3 does not match"},
            {"PACKET_PAYLOAD_SIZE 0\n", "expected an integer from 256 to 9000"},
            {"U_TARGET 1.5\n", "U_TARGET = '1.5': expected a number > 0 and at most 1"},
            {"KMIN_MAP 2 100000000000 400\n", "the count 2 does not match the 2 values"},
            {"KMIN_MAP 1 100000000000 -4\n", "must be >= 0"},
            {"KMIN_MAP 1 100000000000 400\nKMAX_MAP 1 100000000000 1600\n", "PMAX_MAP is missing"},
            {"KMIN_MAP 1 100000000000 400\nKMAX_MAP 1 25000000000 1600\nPMAX_MAP 1 "
             "100000000000 0.2\n",
             "rate 25000000000 bit/s is missing from KMIN_MAP"},
            {"KMIN_MAP 1 100000000000 400\nKMAX_MAP 1 100000000000 100\nPMAX_MAP 1 "
             "100000000000 0.2\n",
             "Kmin (400000 B) exceeds Kmax (100000 B)"},
            {"KMIN_MAP 1 100000000000 400\nKMAX_MAP 1 100000000000 1600\nPMAX_MAP 1 "
             "100000000000 1.5\n",
             "Pmax 1.5 is not within [0, 1]"},
        };
        for (const auto& b : bad)
        {
            e = Apply(b.text);
            NS_TEST_ASSERT_MSG_EQ(Has(e, "config.txt"), true, "names the file: " << e);
            NS_TEST_ASSERT_MSG_EQ(Has(e, b.expect), true, b.text << " -> " << e);
            Config::Reset();
        }
        Warnings::Reset();
        Warnings::SetStream(&std::cerr);
    }
};

/// Inputs that ended in SIGABRT (exit 134) now exit with status 1 and the message.
class FormerAbortTestCase : public TestCase
{
  public:
    FormerAbortTestCase()
        : TestCase("bad RoCE settings exit 1 with their message (no SIGABRT)")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            const char* what;
            std::function<void()> body;
            const char* expect;
        };

        const Case cases[] = {
            {"Kmin > Kmax",
             []() {
                 Config::SetDefault("ns3::RdmaSwitch::Kmin", UintegerValue(500000));
                 Config::SetDefault("ns3::RdmaSwitch::Kmax", UintegerValue(100000));
                 Star(2);
             },
             "ECN: Kmin (500000 B) must be <= Kmax (100000 B)"},
            {"buffer below the headroom (fabric helper)",
             []() {
                 Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(10000));
                 auto topo = std::make_shared<Topology>(
                     Topology::FromDimensions({{DimType::SWITCH, 4, 50.0, 500.0}}));
                 AstraFabricHelper fabric;
                 fabric.Install(topo);
             },
             "too small"},
            {"buffer below the headroom (found when the simulation starts)",
             []() {
                 Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(10000));
                 Star(2);
                 Simulator::Run();
             },
             "too small"},
            {"HPCC without a base RTT",
             []() {
                 Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                                    StringValue("ns3::RdmaCcHpcc"));
                 RdmaTopology t = Star(2);
                 t.hosts.Get(0)->GetObject<RdmaHostStack>()->GetOrCreateQp(1);
             },
             "HPCC needs T: set RdmaCcHpcc::BaseRtt or RdmaHostStack::BaseRtt"},
            {"DCTCP without a base RTT",
             []() {
                 Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                                    StringValue("ns3::RdmaCcDctcp"));
                 RdmaTopology t = Star(2);
                 t.hosts.Get(0)->GetObject<RdmaHostStack>()->GetOrCreateQp(1);
             },
             "DCTCP needs InitialWindow or a base RTT"},
            {"a payload above the port MTU",
             []() {
                 Config::SetDefault("ns3::RdmaHostStack::Mtu", UintegerValue(9000));
                 RdmaTopology t = Star(2);
                 t.hosts.Get(0)->GetObject<RdmaHostStack>()->GetOrCreateQp(1);
             },
             "raise ns3::RdmaNetDevice::Mtu"},
            {"a negative link delay",
             []() {
                 RdmaTopologyHelper th;
                 th.Star(2, DataRate("100Gbps"), MicroSeconds(-1));
             },
             "RdmaChannel: Delay must be >= 0"},
            {"a bad PriorityMap",
             []() {
                 Config::SetDefault("ns3::astra::RoceBackend::PriorityMap", StringValue("3,9"));
                 auto topo = std::make_shared<Topology>(
                     Topology::FromDimensions({{DimType::SWITCH, 2, 50.0, 500.0}}));
                 AstraFabricHelper fabric;
                 fabric.Install(topo);
                 CreateObject<RoceBackend>()->SetFabric(topo, fabric.GetNpus());
             },
             "PriorityMap '3,9': entry 1 '9' is not a priority 0..7"},
            {"an unknown partition policy",
             []() { AstraFabricHelper().SetPartition("blocks", 2); },
             "unknown partition policy 'blocks'"},
        };
        for (const auto& c : cases)
        {
            const Outcome o = RunMainIn(c.body);
            NS_TEST_ASSERT_MSG_EQ(o.signaled, false, c.what << ": no signal; stderr " << o.err);
            NS_TEST_ASSERT_MSG_EQ(o.status, 1, c.what << ": exit status 1; stderr " << o.err);
            NS_TEST_ASSERT_MSG_EQ(Has(o.err, c.expect), true, c.what << ": " << o.err);
        }
    }
};

/// Where AstraFabricHelper builds the fabric: base RTT derived, INT on for HPCC.
class FabricDerivedTestCase : public TestCase
{
  public:
    FabricDerivedTestCase()
        : TestCase("fabric helper: base RTT from the topology (closed form), INT on for HPCC")
    {
    }

  private:
    void DoRun() override
    {
        const double gbps100 = 100e9 / 8 / 1073741824.0; // 100 Gbit/s in GB/s (GB = 2^30 B)
        RdmaMeta ack;
        ack.opcode = RoceOpcode::ACK;
        const double ackBits = 8.0 * (RoceFrame::GetFrameBytes(ack) + kEthernetWireOverhead);
        const double dataBits = 8.0 * RdmaHostStack::DataWireBytes(1000, true);
        auto hop = [&](double gbitPerS, double ns) {
            return 2 * ns + (dataBits + ackBits) / gbitPerS; // ns
        };
        // a Switch dimension: two hops between any two NPUs
        {
            Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                               StringValue("ns3::RdmaCcHpcc"));
            auto topo = std::make_shared<Topology>(
                Topology::FromDimensions({{DimType::SWITCH, 4, gbps100, 500.0}}));
            AstraFabricHelper fabric;
            fabric.Install(topo);
            const double expect = std::ceil(2 * hop(100, 500.0));
            NS_TEST_ASSERT_MSG_EQ(fabric.ComputeBaseRtt(1000).GetNanoSeconds(),
                                  int64_t(expect),
                                  "2 x (2 x 500 ns + data and ACK frame at 100 Gbps)");
            TimeValue rtt;
            fabric.GetNpus().Get(3)->GetObject<RdmaHostStack>()->GetAttribute("BaseRtt", rtt);
            NS_TEST_ASSERT_MSG_EQ(rtt.Get().GetNanoSeconds(), int64_t(expect), "set on the hosts");
            BooleanValue intOn;
            fabric.GetSwitches().Get(0)->GetObject<RdmaSwitch>()->GetAttribute("IntEnabled", intOn);
            NS_TEST_ASSERT_MSG_EQ(intOn.Get(), true, "HPCC: INT on in the switches");
            // and HPCC runs on it (it failed without a base RTT before)
            Ptr<RoceBackend> rb = CreateObject<RoceBackend>();
            rb->SetFabric(topo, fabric.GetNpus());
            bool delivered = false;
            NetMessage m;
            m.src = 0;
            m.dst = 2;
            m.bytes = 100000;
            rb->Send(m, nullptr, [&](const NetMessage&) { delivered = true; });
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(delivered, true, "HPCC message delivered");
            Simulator::Destroy();
            Config::Reset();
        }
        // a Clos with slower, longer uplinks: the worst pair crosses a spine (4 hops)
        {
            auto topo = std::make_shared<Topology>(Topology::FromDimensions(
                {ClosDimension(8, 2, 2, gbps100, 500.0, gbps100 / 2, 2000.0)}));
            AstraFabricHelper fabric;
            fabric.Install(topo);
            const double expect = std::ceil(2 * hop(100, 500.0) + 2 * hop(50, 2000.0));
            NS_TEST_ASSERT_MSG_EQ(fabric.ComputeBaseRtt(1000).GetNanoSeconds(),
                                  int64_t(expect),
                                  "two host links and two uplinks");
            BooleanValue intOn;
            fabric.GetSwitches().Get(0)->GetObject<RdmaSwitch>()->GetAttribute("IntEnabled", intOn);
            NS_TEST_ASSERT_MSG_EQ(intOn.Get(), false, "DCQCN: INT stays off");
            Simulator::Destroy();
        }
        // a given base RTT is kept
        {
            Config::SetDefault("ns3::RdmaHostStack::BaseRtt", TimeValue(MicroSeconds(7)));
            auto topo = std::make_shared<Topology>(
                Topology::FromDimensions({{DimType::RING, 6, gbps100, 500.0}}));
            AstraFabricHelper fabric;
            fabric.Install(topo);
            TimeValue rtt;
            fabric.GetNpus().Get(0)->GetObject<RdmaHostStack>()->GetAttribute("BaseRtt", rtt);
            NS_TEST_ASSERT_MSG_EQ(rtt.Get(), MicroSeconds(7), "not overwritten");
            // a 6-ring: the farthest NPU is 3 hops away, through 2 relaying NPUs
            NS_TEST_ASSERT_MSG_EQ(fabric.ComputeBaseRtt(1000).GetNanoSeconds(),
                                  int64_t(std::ceil(3 * hop(100, 500.0))),
                                  "ring: 3 hops");
            Simulator::Destroy();
            Config::Reset();
        }
    }
};

/// The suite.
class RoceConfigTestSuite : public TestSuite
{
  public:
    RoceConfigTestSuite()
        : TestSuite("astra-sim-roce-config", UNIT)
    {
        AddTestCase(new AttributeFileTestCase, TestCase::QUICK);
        AddTestCase(new HpccConfigTextTestCase, TestCase::QUICK);
        AddTestCase(new FormerAbortTestCase, TestCase::QUICK);
        AddTestCase(new FabricDerivedTestCase, TestCase::QUICK);
    }
};

static RoceConfigTestSuite g_roceConfigTestSuite; //!< registration
