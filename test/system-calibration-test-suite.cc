/*
 * Calibration against hardware (doc/validation.rst):
 *
 * - the cost terms a calibration uses, each against a closed form: a
 *   dimension's link-efficiency scales its links; collective-protocol adds
 *   NCCL's launch latency once per collective and its per-step latency to
 *   every ring step (or collective-step-latency-ns per dimension); LL and
 *   LL128 put 2 and 128/120 bytes on the wire per payload byte;
 *   reduction-fused removes the local-mem-bw term; their keys are validated;
 * - the shipped configuration (configs/hgx-h100) against the measurements
 *   of an 8-GPU HGX H100 (NCCL ring all-reduce: 1 GiB in 5,081 us, 2 GiB in
 *   10,053 us) and NCCL's own cost model at 128 MiB, within 5 %, on the
 *   analytical and flow backends (and RoCE at 128 MiB).
 */

#include "system-test-util.h"

#include "ns3/astra-config.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/collective-protocol.h"
#include "ns3/roce-config-reader.h"
#include "ns3/test.h"

#include <cstdio>
#include <fstream>

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::systest;

namespace
{

/// \return the text of an error thrown by \p f ("" if none)
template <class F>
std::string
ErrorOf(F f)
{
    try
    {
        f();
    }
    catch (const std::exception& e)
    {
        return e.what();
    }
    return "";
}

/// \return a network YAML parsed from \p text (through a temporary file)
std::string
NetError(const std::string& text)
{
    const std::string path = "/tmp/astra-sim-calibration-test.yml";
    {
        std::ofstream f(path);
        f << text;
    }
    std::string e = ErrorOf([&] { Topology::FromFile(path); });
    std::remove(path.c_str());
    return e;
}

/**
 * Ring all-reduce of one chunk of S bytes on a Switch of 8 NPUs (bandwidth B
 * at efficiency e, latency 200 ns, d = 10, local-mem-bw 100 GB/s): 14 steps
 * of T = round(400 + (S/8) / (B e)) + d + step latency, plus the reduction
 * term (S/8) / local-mem-bw on the first 7 unless fused, plus the launch
 * latency once.
 */
class CostTermsCase : public TestCase
{
  public:
    CostTermsCase()
        : TestCase("link-efficiency, protocol latencies, wire bytes, fused reduction: closed forms")
    {
    }

  private:
    static void Sent(uint64_t* bytes, const NetMessage& m)
    {
        if (m.src == 0)
        {
            *bytes += m.bytes;
        }
    }

    void DoRun() override
    {
        const uint64_t S = 8 << 20;
        const double gbps = 100;
        const double B = Bpns(gbps);
        for (double e : {1.0, 0.8})
        {
            auto topo = std::make_shared<Topology>(Topology::FromDimensions(
                {DimensionSpec{DimType::SWITCH, 8, gbps, 200, 0, 0, 0, -1, 0, 0, 0, e}}));

            struct Variant
            {
                CollProtocol proto;
                double stepNs; // -1: the protocol's NVLink step latency
                bool fused;
            };

            for (const Variant v : {Variant{CollProtocol::NONE, -1, false},
                                    Variant{CollProtocol::SIMPLE, -1, false},
                                    Variant{CollProtocol::SIMPLE, 777, true},
                                    Variant{CollProtocol::LL, -1, true},
                                    Variant{CollProtocol::LL128, -1, true}})
            {
                SystemParams p = Params(1, 1, 10, 100, false);
                p.protocol = v.proto;
                p.reductionFused = v.fused;
                if (v.stepNs >= 0)
                {
                    p.stepLatencyNs = {v.stepNs};
                }
                uint64_t wire = 0;
                AstraRunOptions o;
                o.hook = [&wire](Ptr<SystemContext> ctx,
                                 const std::vector<Ptr<AstraSimApplication>>&) {
                    ctx->TraceConnectWithoutContext("MessageSent", MakeBoundCallback(&Sent, &wire));
                };
                auto r = AstraSimHelper::Run(topo, p, CollGraphs(8, CollType::ALL_REDUCE, S), o);
                const ProtocolCosts& pc = GetProtocolCosts(v.proto);
                const uint64_t m = S / 8;
                const uint64_t mw = static_cast<uint64_t>(std::ceil(m * pc.wireFactor));
                const int64_t step = std::llround(400 + mw / (B * e)) + 10 +
                                     std::llround(v.stepNs >= 0 ? v.stepNs : pc.nvlinkStepNs);
                // the reduction is charged on the wire bytes received
                const int64_t red = v.fused ? 0 : std::llround(double(mw) / 100);
                const int64_t want = 14 * step + 7 * red + std::llround(pc.launchNs);
                NS_TEST_EXPECT_MSG_EQ(AllFinishAt(r, want),
                                      true,
                                      "efficiency " << e << ", " << CollProtocolName(v.proto)
                                                    << (v.fused ? ", fused" : "") << ": "
                                                    << r.MaxFinish() << " vs " << want);
                NS_TEST_EXPECT_MSG_EQ(wire, 14 * mw, "wire bytes of NPU 0");
            }
        }
    }
};

/// The keys: validated where they enter
class KeysCase : public TestCase
{
  public:
    KeysCase()
        : TestCase("calibration keys: link-efficiency, collective-protocol, step latencies")
    {
    }

  private:
    void DoRun() override
    {
        const std::string head =
            "topology: [ Switch, Ring ]\nnpus_count: [ 4, 2 ]\nbandwidth: [ 50, 25 ]\n"
            "latency: [ 500, 700 ]\n";
        NS_TEST_EXPECT_MSG_EQ(NetError(head + "link-efficiency: [ 0.9, ~ ]\n"), "", "valid");
        for (std::string bad : {"[ 0, 1 ]", "[ 1.5, 1 ]", "[ nan, 1 ]", "[ 0.9 ]"})
        {
            const std::string e = NetError(head + "link-efficiency: " + bad + "\n");
            NS_TEST_EXPECT_MSG_NE(e.find("link-efficiency"), std::string::npos, bad << ": " << e);
        }
        NS_TEST_EXPECT_MSG_NE(NetError(head + "link-eficiency: [ 1, 1 ]\n").find("did you mean"),
                              std::string::npos,
                              "misspelt key");
        auto sys = [](const std::string& json) {
            return ErrorOf([&] { ToSystemParams(ParseSystemConfigText(json, "s.json")); });
        };
        NS_TEST_EXPECT_MSG_NE(sys(R"({"collective-protocol": "simple"})").find("'Simple'"),
                              std::string::npos,
                              "protocol names are exact, with a hint");
        NS_TEST_EXPECT_MSG_NE(sys(R"({"collective-step-latency-ns": [1, -2]})").find(">= 0"),
                              std::string::npos,
                              "negative step latency");
        NS_TEST_EXPECT_MSG_NE(sys(R"({"reduction-fused": "yes"})").find("reduction-fused"),
                              std::string::npos,
                              "fused is a switch");
        SystemParams p = ToSystemParams(ParseSystemConfigText(
            R"({"collective-protocol": "LL128", "collective-step-latency-ns": [5, 6],
                "collective-launch-latency-ns": 7, "reduction-fused": true})",
            "s.json"));
        NS_TEST_EXPECT_MSG_EQ((p.protocol == CollProtocol::LL128), true, "LL128");
        NS_TEST_EXPECT_MSG_EQ(p.stepLatencyNs.size(), 2u, "two step latencies");
        NS_TEST_EXPECT_MSG_EQ(p.launchLatencyNs, 7, "launch latency");
        NS_TEST_EXPECT_MSG_EQ(p.reductionFused, true, "fused");
        // one step latency per dimension, checked against the network
        p.stepLatencyNs = {1, 2, 3};
        // (a bad input found while building the run is the result's error)
        const std::string e = AstraSimHelper::Run(Topo1D(DimType::SWITCH, 4),
                                                  p,
                                                  CollGraphs(4, CollType::ALL_REDUCE, 64))
                                  .error;
        NS_TEST_EXPECT_MSG_NE(e.find("one per dimension"), std::string::npos, e);
    }
};

/// A shipped configuration file
std::string
Config(const std::string& name)
{
    return GetSourceDir() + "/configs/hgx-h100/" + name;
}

/**
 * configs/hgx-h100 against the 8-GPU HGX H100 measurements (NCCL ring
 * all-reduce, the issue's figures) and, at 128 MiB where none is given,
 * NCCL's own cost model: launch 8.4 us + 14 steps x 3.4 us + 2 x 7/8 x S /
 * 370.8 GB/s (tuning.cc latencies, topo.h 18 x 20.6 GB/s): within 5 %.
 */
class HgxH100Case : public TestCase
{
  public:
    HgxH100Case()
        : TestCase("configs hgx-h100: 8-GPU ring all-reduce within 5 % of the H100 figures")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = std::make_shared<Topology>(Topology::FromFile(Config("network-8gpu.yml")));
        SystemParams p = AstraSimHelper::LoadSystemParams(Config("system-8gpu.json"));
        const double ncclModel128 = 8.4e3 + 14 * 3.4e3 + 2 * 7.0 / 8 * 134217728 / 370.8;

        const struct
        {
            uint64_t bytes;
            double ns;
        } points[] = {{134217728, ncclModel128}, {1073741824, 5081e3}, {2147483648, 10053e3}};

        for (std::string be : {"analytical", "flow"})
        {
            for (const auto& pt : points)
            {
                AstraRunOptions o;
                o.backend = be;
                auto r =
                    AstraSimHelper::Run(topo, p, CollGraphs(8, CollType::ALL_REDUCE, pt.bytes), o);
                const double err = (r.MaxFinish() - pt.ns) / pt.ns;
                NS_TEST_EXPECT_MSG_LT(std::fabs(err),
                                      0.05,
                                      be << " " << pt.bytes << " B: " << r.MaxFinish() << " ns vs "
                                         << pt.ns);
            }
        }
        // RoCE at 128 MiB with the shipped RoCE settings (the larger sizes take seconds:
        // doc/validation.rst)
        RoceConfigReader::Apply(Config("roce-nvlink.yml"));
        auto rtopo =
            std::make_shared<Topology>(Topology::FromFile(Config("network-8gpu-roce.yml")));
        AstraRunOptions o;
        o.backend = "roce";
        auto r = AstraSimHelper::Run(rtopo, p, CollGraphs(8, CollType::ALL_REDUCE, 134217728), o);
        Config::Reset();
        const double err = (r.MaxFinish() - ncclModel128) / ncclModel128;
        NS_TEST_EXPECT_MSG_LT(std::fabs(err), 0.05, "roce 128 MiB: " << r.MaxFinish());
    }
};

class SystemCalibrationTestSuite : public TestSuite
{
  public:
    SystemCalibrationTestSuite()
        : TestSuite("astra-sim-system-calibration", UNIT)
    {
        AddTestCase(new CostTermsCase, TestCase::QUICK);
        AddTestCase(new KeysCase, TestCase::QUICK);
        AddTestCase(new HgxH100Case, TestCase::QUICK);
    }
};

SystemCalibrationTestSuite g_systemCalibrationTestSuite;

} // namespace
