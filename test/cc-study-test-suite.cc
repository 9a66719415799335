/*
 * Per-traffic-class congestion control and the cc-study core
 * (astra-sim-cc-study).
 *
 *  - RdmaHostStack::CongestionControlByPriority: parsing (short and full
 *    names, readable errors) and two flows on different priorities that get
 *    different CC objects (HPCC, DCQCN) and behave accordingly.
 *  - CcStudy::Run (the core of examples/cc-study): a ring all-reduce alone
 *    against its closed form, and a 2-CC sweep with incast background whose
 *    rows differ where they must.
 */

#include "ns3/astra-fabric-helper.h"
#include "ns3/boolean.h"
#include "ns3/cc-study-helper.h"
#include "ns3/config.h"
#include "ns3/dcqcn.h"
#include "ns3/double.h"
#include "ns3/hpcc.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-topology-helper.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-backend.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <fstream>
#include <vector>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// CongestionControlByPriority values: accepted forms and readable errors.
class CcByPriorityParseTestCase : public TestCase
{
  public:
    CcByPriorityParseTestCase()
        : TestCase("CongestionControlByPriority: short and full names, defaults, errors")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RdmaHostStack> s = CreateObject<RdmaHostStack>();
        s->SetAttribute("CongestionControl", TypeIdValue(RdmaCcDcqcn::GetTypeId()));
        s->SetAttribute("CongestionControlByPriority",
                        StringValue("1:hpcc, 5:ns3::RdmaCcTimely,6:none"));
        NS_TEST_ASSERT_MSG_EQ(s->Validate(), "", "valid value");
        NS_TEST_ASSERT_MSG_EQ(s->GetCongestionControl(1)->GetInstanceTypeId(),
                              RdmaCcHpcc::GetTypeId(),
                              "short name hpcc");
        NS_TEST_ASSERT_MSG_EQ(s->GetCongestionControl(5)->GetInstanceTypeId().GetName(),
                              "ns3::RdmaCcTimely",
                              "full TypeId name");
        NS_TEST_ASSERT_MSG_EQ(s->GetCongestionControl(6)->GetInstanceTypeId().GetName(),
                              "ns3::RdmaCcNone",
                              "short name none");
        NS_TEST_ASSERT_MSG_EQ(s->GetCongestionControl(3)->GetInstanceTypeId(),
                              RdmaCcDcqcn::GetTypeId(),
                              "unlisted priority: the global CongestionControl");
        // SetCongestionControl(priority, cc) wins over the attribute
        s->SetCongestionControl(1, CreateObject<RdmaCcDcqcn>());
        NS_TEST_ASSERT_MSG_EQ(s->Validate(), "", "still valid");
        NS_TEST_ASSERT_MSG_EQ(s->GetCongestionControl(1)->GetInstanceTypeId(),
                              RdmaCcDcqcn::GetTypeId(),
                              "explicit template wins");

        // through a --roce-config attribute file (RoceBackend::ApplyConfigFile)
        const std::string path = CreateTempDirFilename("cc-by-prio.json");
        {
            std::ofstream f(path);
            f << "{\"ns3::RdmaHostStack::CongestionControlByPriority\": \"2:swift\"}\n";
        }
        NS_TEST_ASSERT_MSG_EQ(RoceBackend::ApplyConfigFile(path), 1u, "one setting applied");
        Ptr<RdmaHostStack> fromFile = CreateObject<RdmaHostStack>();
        NS_TEST_ASSERT_MSG_EQ(fromFile->Validate(), "", "valid from file");
        NS_TEST_ASSERT_MSG_EQ(fromFile->GetCongestionControl(2)->GetInstanceTypeId().GetName(),
                              "ns3::RdmaCcSwift",
                              "config file reaches the host stack");
        Config::Reset();

        const char* bad[] = {"9:hpcc", "3=hpcc", "3:ns3::NoSuchCc", "3:ns3::RdmaHostStack", "x"};
        for (const char* b : bad)
        {
            Ptr<RdmaHostStack> e = CreateObject<RdmaHostStack>();
            e->SetAttribute("CongestionControlByPriority", StringValue(b));
            const std::string err = e->Validate();
            NS_TEST_ASSERT_MSG_NE(err.find("CongestionControlByPriority"),
                                  std::string::npos,
                                  "error for '" << b << "' names the attribute: " << err);
        }
    }
};

/// Two flows into one receiver, priority 3 on HPCC and priority 5 on DCQCN.
class CcByPriorityE2eTestCase : public TestCase
{
  public:
    CcByPriorityE2eTestCase()
        : TestCase("CongestionControlByPriority: HPCC and DCQCN flows on one fabric behave "
                   "as their algorithm")
    {
    }

  private:
    /// Rate changes per QP number of host 1 and host 2.
    struct Log
    {
        std::vector<std::pair<uint32_t, uint64_t>> ev; //!< (host, new rate)

        void On(uint32_t host, uint32_t, uint64_t, uint64_t newBps)
        {
            ev.emplace_back(host, newBps);
        }
    };

    void DoRun() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        // global DCQCN, priority 3 overridden to HPCC
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcDcqcn::GetTypeId()));
        Config::SetDefault("ns3::RdmaHostStack::CongestionControlByPriority",
                           StringValue("3:ns3::RdmaCcHpcc"));
        Config::SetDefault("ns3::RdmaHostStack::BaseRtt", TimeValue(MicroSeconds(5)));
        RdmaTopologyHelper th;
        RdmaHelper& rh = th.GetRdmaHelper();
        rh.SetMmuAttribute("LosslessPriorities", UintegerValue((1u << 3) | (1u << 5)));
        rh.SetSwitchAttribute("IntEnabled", BooleanValue(true));
        // no ECN marking: DCQCN gets no CNP and must keep the line rate; HPCC reacts to INT
        rh.SetSwitchAttribute("EcnEnabled", BooleanValue(false));
        RdmaTopology t = th.Star(3, DataRate("40Gbps"), MicroSeconds(1));
        rh.AssignStreams(t.AllNodes(), 1);
        Log log;
        Ptr<RdmaHostStack> s1 = t.hosts.Get(1)->GetObject<RdmaHostStack>();
        Ptr<RdmaHostStack> s2 = t.hosts.Get(2)->GetObject<RdmaHostStack>();
        s1->TraceConnectWithoutContext("QpRateChange", MakeCallback(&Log::On, &log));
        s2->TraceConnectWithoutContext("QpRateChange", MakeCallback(&Log::On, &log));
        Ptr<RdmaQueuePair> qHpcc = s1->GetOrCreateQp(0, 3);
        Ptr<RdmaQueuePair> qDcqcn = s2->GetOrCreateQp(0, 5);
        NS_TEST_ASSERT_MSG_EQ(qHpcc->GetCongestionOps()->GetInstanceTypeId(),
                              RdmaCcHpcc::GetTypeId(),
                              "priority 3 QP runs HPCC");
        NS_TEST_ASSERT_MSG_EQ(qDcqcn->GetCongestionOps()->GetInstanceTypeId(),
                              RdmaCcDcqcn::GetTypeId(),
                              "priority 5 QP runs DCQCN (global default)");
        // the responder ends follow the same selection
        Ptr<RdmaHostStack> s0 = t.hosts.Get(0)->GetObject<RdmaHostStack>();
        NS_TEST_ASSERT_MSG_EQ(s0->GetCongestionControl(3)->GetInstanceTypeId(),
                              RdmaCcHpcc::GetTypeId(),
                              "receiver's priority 3 template");
        s1->PostWrite(qHpcc, 4000000, 1);
        s2->PostWrite(qDcqcn, 4000000, 2);
        Simulator::Stop(MilliSeconds(2));
        Simulator::Run();
        const uint64_t line = 40000000000ull;
        uint64_t hpccMin = line;
        uint64_t dcqcnMin = line;
        uint32_t hpccChanges = 0;
        uint32_t dcqcnCuts = 0;
        for (const auto& e : log.ev)
        {
            if (e.first == s1->GetHostIndex())
            {
                hpccMin = std::min(hpccMin, e.second);
                ++hpccChanges;
            }
            else
            {
                dcqcnMin = std::min(dcqcnMin, e.second);
                dcqcnCuts += e.second < line ? 1 : 0;
            }
        }
        std::cout << "  HPCC QP: " << hpccChanges << " rate changes, min " << hpccMin / 1e9
                  << " Gbps; DCQCN QP: min " << dcqcnMin / 1e9 << " Gbps, "
                  << s2->GetStats().cnpsRcvd << " CNPs" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(s2->GetStats().cnpsRcvd, 0u, "no ECN, no CNP");
        NS_TEST_ASSERT_MSG_EQ(dcqcnCuts, 0u, "DCQCN without CNPs never leaves the line rate");
        NS_TEST_ASSERT_MSG_GT(hpccChanges, 10u, "HPCC reacts to INT");
        // two line-rate senders into one 40 Gbps port: HPCC's utilization > 1 cuts it at
        // least to ~eta x half the line rate at some point
        NS_TEST_ASSERT_MSG_LT(hpccMin, uint64_t(0.6 * line), "HPCC cut its rate");
        NS_TEST_ASSERT_MSG_EQ(qHpcc->GetSndUna(), 4000000u, "HPCC flow done");
        NS_TEST_ASSERT_MSG_EQ(qDcqcn->GetSndUna(), 4000000u, "DCQCN flow done");
        Simulator::Destroy();
        Config::Reset();
    }
};

/// A ring all-reduce alone: collective time and busbw against the closed form.
class CcStudyRingAloneTestCase : public TestCase
{
  public:
    CcStudyRingAloneTestCase()
        : TestCase("cc-study core: ring all-reduce alone matches its closed form")
    {
    }

  private:
    void DoRun() override
    {
        CcStudy::SetDefaults();
        CcStudyConfig c;
        c.cc = "none";
        c.background = "none";
        c.workload = "ring";
        c.npus = 4;
        c.collBytes = 1000000;
        CcStudyResult r = CcStudy::Run(c);
        Config::Reset();
        NS_TEST_ASSERT_MSG_EQ(r.error, "", "finished");
        // ring all-reduce, one chunk: 2 (N-1) lockstep steps (doc/system-model.rst), each one
        // message of m = S/N bytes alone on its 2-hop path (store and forward), while every
        // uplink also carries the ACKs (one per packet) of the message its NPU receives:
        //   step = 2 x 1 us + first packet serialization + (data + ACK wire bytes) / rate
        //          + 10 ns endpoint delay
        // and the phase ends when the last send is acknowledged (ACK back over 2 hops).
        const uint64_t m = c.collBytes / c.npus;
        const double first = RdmaHostStack::DataWireBytes(1000, true) * 8 / 100e3; // us
        const double wire = double(AstraFabricHelper::MessageWireBytes(m, 1000) +
                                   AstraFabricHelper::MessageAckWireBytes(m, 1000, 1));
        const double ackUs =
            double(AstraFabricHelper::MessageAckWireBytes(1000, 1000, 1)) * 8 / 100e3;
        const double stepUs = 2.0 + first + wire * 8 / 100e3 + 0.010;
        const double closedUs = 2.0 * (c.npus - 1) * stepUs + 2.0 + 2 * ackUs;
        const double busBw = 2.0 * (c.npus - 1) / c.npus * c.collBytes / (closedUs * 1e3);
        std::cout << "  ring alone: " << r.collTimeUs << " us (closed form " << closedUs
                  << " us), busbw " << r.busBwGBps << " GB/s (closed form " << busBw << ")"
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(r.collTimeUs / closedUs, 1.0, 0.03, "collective time");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.busBwGBps / busBw, 1.0, 0.03, "busbw");
        NS_TEST_ASSERT_MSG_EQ(r.drops, 0u, "no drops");
        NS_TEST_ASSERT_MSG_EQ(r.cnps, 0u, "no CNPs without ECN");
        NS_TEST_ASSERT_MSG_EQ(r.bgMessages, 0u, "no background");
    }
};

/// One lockstep step of a message of m bytes alone on a 2-hop path of 100 Gbps / 1 us links
/// whose uplinks also carry the ACKs of an equal message received (us), see RingAlone.
double
StepUs(uint64_t m)
{
    const double first = RdmaHostStack::DataWireBytes(1000, true) * 8 / 100e3;
    const double wire = double(AstraFabricHelper::MessageWireBytes(m, 1000) +
                               AstraFabricHelper::MessageAckWireBytes(m, 1000, 1));
    return 2.0 + first + wire * 8 / 100e3 + 0.010;
}

/// The ACK of a phase's last send, back over 2 hops (us).
double
AckBackUs()
{
    return 2.0 + 2 * double(AstraFabricHelper::MessageAckWireBytes(1000, 1000, 1)) * 8 / 100e3;
}

/// 2-D hierarchical all-reduce and all-to-all alone, permutation background.
class CcStudyWorkloadsTestCase : public TestCase
{
  public:
    CcStudyWorkloadsTestCase()
        : TestCase("cc-study core: hierarchical all-reduce closed form, all-to-all, permutation")
    {
    }

  private:
    void DoRun() override
    {
        CcStudy::SetDefaults();
        CcStudyConfig c;
        c.cc = "none";
        c.background = "none";
        c.workload = "hier";
        c.npus = 8;
        c.collBytes = 1000000;
        CcStudyResult h = CcStudy::Run(c);
        // 2 x 4 Switch x Switch, localBWAware: reduce-scatter in dim 0 (1 step of S/2),
        // all-reduce of S/2 in dim 1 (6 ring steps of S/8), all-gather in dim 0 (1 step of
        // S/2); each phase ends when its last send is acknowledged
        const double closedUs =
            2 * StepUs(c.collBytes / 2) + 6 * StepUs(c.collBytes / 8) + 3 * AckBackUs();
        std::cout << "  hier alone: " << h.collTimeUs << " us (closed form " << closedUs << " us)"
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ(h.error, "", "hier finished");
        NS_TEST_ASSERT_MSG_EQ_TOL(h.collTimeUs / closedUs, 1.0, 0.03, "hier collective time");

        c.workload = "a2a";
        c.background = "permutation";
        c.cc = "dcqcn";
        CcStudyResult a = CcStudy::Run(c);
        Config::Reset();
        // all-to-all of S: every NPU sends (N-1)/N x S through its link, at best at line rate
        const double boundUs =
            double(AstraFabricHelper::MessageWireBytes(c.collBytes / 8, 1000)) * 7 * 8 / 100e3;
        std::cout << "  a2a + permutation: " << a.collTimeUs << " us (wire bound " << boundUs
                  << " us), " << a.bgMessages << " background messages, p50 " << a.bgSlowdownP50
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ(a.error, "", "a2a finished");
        NS_TEST_ASSERT_MSG_GT(a.collTimeUs, boundUs, "a2a not faster than the wire");
        NS_TEST_ASSERT_MSG_GT(a.bgMessages, 0u, "permutation background ran");
        NS_TEST_ASSERT_MSG_GT(a.bgSlowdownP50, 0.999, "slowdown >= 1");
    }
};

/// Two CCs with incast background: the rows differ where they must.
class CcStudySweepTestCase : public TestCase
{
  public:
    CcStudySweepTestCase()
        : TestCase("cc-study core: DCQCN vs HPCC with incast background")
    {
    }

  private:
    void DoRun() override
    {
        CcStudy::SetDefaults();
        std::vector<CcStudyResult> rows;
        for (const char* cc : {"dcqcn", "hpcc"})
        {
            CcStudyConfig c;
            c.cc = cc;
            c.background = "incast";
            c.bgSenders = 3;
            c.workload = "ring";
            c.npus = 4;
            c.collBytes = 1000000;
            rows.push_back(CcStudy::Run(c));
        }
        Config::Reset();
        CcStudy::PrintTable(rows, std::cout);
        const CcStudyResult& d = rows[0];
        const CcStudyResult& h = rows[1];
        for (const auto& r : rows)
        {
            NS_TEST_ASSERT_MSG_EQ(r.error, "", r.name << " finished");
            NS_TEST_ASSERT_MSG_GT(r.bgMessages, 10u, r.name << " background ran");
            NS_TEST_ASSERT_MSG_GT(r.bgSlowdownP50, 0.999, r.name << " slowdown >= 1");
            NS_TEST_ASSERT_MSG_GT(r.bgSlowdownP99 + 1e-9, r.bgSlowdownP50, r.name << " p99>=p50");
            NS_TEST_ASSERT_MSG_EQ(r.drops, 0u, r.name << " lossless");
        }
        NS_TEST_ASSERT_MSG_GT(d.cnps, 0u, "DCQCN: CNPs");
        NS_TEST_ASSERT_MSG_GT(d.ecnMarks, 0u, "DCQCN: ECN marks");
        NS_TEST_ASSERT_MSG_EQ(h.cnps, 0u, "HPCC: no CNPs (ECN off for INT-based CC)");
        NS_TEST_ASSERT_MSG_EQ(h.ecnMarks, 0u, "HPCC: no ECN marks");
        NS_TEST_ASSERT_MSG_LT(h.maxQueueBytes, d.maxQueueBytes, "HPCC max queue < DCQCN's");
        NS_TEST_ASSERT_MSG_EQ((h.queue.empty() || d.queue.empty()), false, "queue series");
    }
};

/// The suite.
class CcStudyTestSuite : public TestSuite
{
  public:
    CcStudyTestSuite()
        : TestSuite("astra-sim-cc-study", UNIT)
    {
        AddTestCase(new CcByPriorityParseTestCase, TestCase::QUICK);
        AddTestCase(new CcByPriorityE2eTestCase, TestCase::QUICK);
        AddTestCase(new CcStudyRingAloneTestCase, TestCase::QUICK);
        AddTestCase(new CcStudyWorkloadsTestCase, TestCase::QUICK);
        AddTestCase(new CcStudySweepTestCase, TestCase::QUICK);
    }
};

static CcStudyTestSuite g_ccStudyTestSuite; //!< registration

} // namespace
