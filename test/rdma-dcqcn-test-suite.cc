/*
 * DCQCN reaction-point math driven by synthetic events (no network): CNPs at
 * known times and bytes sent, checked against the DCQCN equations computed
 * independently here. Also checks PSN arithmetic and attribute validation.
 */

#include "ns3/dcqcn.h"
#include "ns3/double.h"
#include "ns3/rdma-congestion-ops.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <vector>

using namespace ns3;

namespace
{

/// Rate trace recorder.
struct RateLog
{
    std::vector<std::pair<double, uint64_t>> changes; //!< (time us, new rate)

    void Record(uint64_t, uint64_t newBps)
    {
        changes.emplace_back(Simulator::Now().GetMicroSeconds(), newBps);
    }
};

/**
 * CNP reaction, alpha update/decay, fast recovery, additive and hyper increase
 * on the timer, against a reference model written from the equations.
 */
class DcqcnTimerTestCase : public TestCase
{
  public:
    DcqcnTimerTestCase()
        : TestCase("DCQCN: CNP cut, alpha EWMA and decay, timer-driven recovery stages")
    {
    }

  private:
    void DoRun() override
    {
        const double line = 100e9;
        const double g = 1.0 / 256;
        Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
        cc->SetAttribute("ByteCounter", UintegerValue(0)); // timer only
        RdmaCcInit init;
        init.lineRateBps = uint64_t(line);
        cc->Init(init);
        RateLog log;
        cc->SetRateChangeCallback(MakeCallback(&RateLog::Record, &log));
        NS_TEST_ASSERT_MSG_EQ(cc->GetRate(), uint64_t(line), "starts at line rate");
        // R_AI, R_HAI scaled from 40G to 100G
        NS_TEST_ASSERT_MSG_EQ(cc->GetRai(), 100000000ull, "R_AI 40 Mbps x 2.5");
        NS_TEST_ASSERT_MSG_EQ(cc->GetRhai(), 500000000ull, "R_HAI 200 Mbps x 2.5");

        RdmaMeta cnp;
        double alphaAfter1 = 0;
        double rateAfter1 = 0;
        Simulator::Schedule(MicroSeconds(10), [&]() {
            cc->OnCnp(cnp);
            alphaAfter1 = cc->GetAlpha();
            rateAfter1 = double(cc->GetRate());
        });
        // second CNP at 100 us: one alpha period (55 us) elapsed since 10 us, and one timer
        // increase (at 65 us) happened.
        double alphaAfter2 = 0;
        double rateAfter2 = 0;
        double rtAfter2 = 0;
        Simulator::Schedule(MicroSeconds(100), [&]() {
            cc->OnCnp(cnp);
            alphaAfter2 = cc->GetAlpha();
            rateAfter2 = double(cc->GetRate());
            rtAfter2 = double(cc->GetTargetRate());
        });
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();

        // reference
        double alpha = 1.0;
        double rc = line;
        double rt = rc;
        rt = rc;
        rc = rc * (1 - alpha / 2);
        alpha = (1 - g) * alpha + g;
        NS_TEST_ASSERT_MSG_EQ_TOL(alphaAfter1, alpha, 1e-12, "alpha after CNP 1");
        NS_TEST_ASSERT_MSG_EQ_TOL(rateAfter1, rc, 1.0, "Rc after CNP 1 = 50 Gbps");
        // timer at 65 us: fast recovery step 1
        rc = (rt + rc) / 2;
        // alpha decays once (65 us), then CNP at 100 us
        alpha = (1 - g) * alpha;
        rt = rc;
        rc = rc * (1 - alpha / 2);
        alpha = (1 - g) * alpha + g;
        NS_TEST_ASSERT_MSG_EQ_TOL(alphaAfter2, alpha, 1e-12, "alpha after decay + CNP 2");
        NS_TEST_ASSERT_MSG_EQ_TOL(rtAfter2, rt, 1.0, "Rt = Rc before CNP 2");
        NS_TEST_ASSERT_MSG_EQ_TOL(rateAfter2, rc, 2.0, "Rc after CNP 2");

        // timer increases from 155 us on: 5 fast recovery, then additive (T in [F, ...)),
        // byte counter disabled -> timer-only: T >= F -> hyper with i = T - F + 1.
        std::vector<double> expected;
        double r = rc;
        double t = rt;
        const double rai = 100e6;
        const double rhai = 500e6;
        for (uint32_t stage = 1; stage <= 40; ++stage)
        {
            if (stage < 5)
            {
            }
            else
            {
                t = std::min(line, t + (stage - 5 + 1) * rhai);
            }
            r = std::min(line, (t + r) / 2);
            expected.push_back(r);
        }
        (void)rai;
        // find the log entries after 100 us
        std::vector<uint64_t> got;
        for (auto& c : log.changes)
        {
            if (c.first > 100.5)
            {
                got.push_back(c.second);
            }
        }
        NS_TEST_ASSERT_MSG_GT(got.size(), 10u, "timer increases happened");
        for (size_t i = 0; i < 8 && i < got.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(double(got[i]),
                                      expected[i],
                                      8.0,
                                      "increase step " << i + 1 << " (timer period 55 us)");
        }
        // first increase is exactly one period after CNP 2
        size_t firstIdx = 0;
        while (firstIdx < log.changes.size() && log.changes[firstIdx].first <= 100.5)
        {
            ++firstIdx;
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(log.changes[firstIdx].first, 155.0, 0.01, "timer period");
        NS_TEST_ASSERT_MSG_EQ(cc->GetRate(), uint64_t(line), "recovers to line rate");
        // alpha keeps decaying lazily: 20 ms after the CNP at 100 us
        double alphaEnd = cc->GetAlpha();
        double periods = std::floor((20000.0 - 100.0) / 55.0);
        NS_TEST_ASSERT_MSG_EQ_TOL(alphaEnd, alpha * std::pow(1 - g, periods), 1e-12, "decay");
        Simulator::Destroy();
    }
};

/**
 * Byte counter: with the timer effectively off, every ByteCounter bytes
 * sent is one increase event; with both counters the additive stage is used
 * while only one of them passed F.
 */
class DcqcnByteCounterTestCase : public TestCase
{
  public:
    DcqcnByteCounterTestCase()
        : TestCase("DCQCN: byte-counter increase events and additive stage")
    {
    }

  private:
    void DoRun() override
    {
        const double line = 40e9;
        Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
        cc->SetAttribute("RateIncreasePeriod", TimeValue(Seconds(10))); // timer never fires
        cc->SetAttribute("ByteCounter", UintegerValue(1000000));
        RdmaCcInit init;
        init.lineRateBps = uint64_t(line);
        cc->Init(init);
        RdmaMeta cnp;
        cc->OnCnp(cnp);
        double rc = line / 2;
        double rt = line;
        NS_TEST_ASSERT_MSG_EQ_TOL(double(cc->GetRate()), rc, 1.0, "cut to half");
        for (int i = 1; i <= 8; ++i)
        {
            for (int k = 0; k < 1000; ++k)
            {
                cc->OnSent(1000);
            }
            NS_TEST_ASSERT_MSG_EQ(cc->GetByteStage(), uint32_t(i), "one event per 1 MB");
            if (i >= 5)
            {
                rt = std::min(line, rt + 40e6); // additive: BC >= F, T = 0 < F
            }
            rc = std::min(line, (rt + rc) / 2);
            NS_TEST_ASSERT_MSG_EQ_TOL(double(cc->GetRate()), rc, 8.0, "stage " << i);
        }
        cc->OnSent(999999);
        NS_TEST_ASSERT_MSG_EQ(cc->GetByteStage(), 8u, "no event below the counter");
        cc->Stop();
        Simulator::Destroy();
    }
};

/// Min-rate floor, fork copies attributes, validation strings.
class DcqcnConfigTestCase : public TestCase
{
  public:
    DcqcnConfigTestCase()
        : TestCase("DCQCN: MinRate floor, Fork copies attributes, invalid values rejected")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
        cc->SetAttribute("MinRate", DataRateValue(DataRate("30Gbps")));
        cc->SetAttribute("G", DoubleValue(0.5));
        Ptr<RdmaCongestionOps> f = cc->Fork();
        RdmaCcInit init;
        init.lineRateBps = 100000000000ull;
        f->Init(init);
        RdmaMeta cnp;
        f->OnCnp(cnp);
        NS_TEST_ASSERT_MSG_EQ(f->GetRate(), 50000000000ull, "cut to 50G");
        f->OnCnp(cnp);
        NS_TEST_ASSERT_MSG_EQ(f->GetRate(), 30000000000ull, "floored at MinRate (copied by Fork)");
        NS_TEST_ASSERT_MSG_EQ(DynamicCast<RdmaCcDcqcn>(f)->GetAlpha(), 1.0, "G=0.5 copied");
        f->Stop();

        Ptr<RdmaCcDcqcn> bad = CreateObject<RdmaCcDcqcn>();
        NS_TEST_ASSERT_MSG_EQ(bad->Validate(), "", "defaults are valid");
        bad->SetAttribute("G", DoubleValue(0.0));
        NS_TEST_ASSERT_MSG_NE(bad->Validate().find("G must be in (0, 1]"),
                              std::string::npos,
                              "G = 0 rejected");
        bad->SetAttribute("G", DoubleValue(1.0 / 256));
        bad->SetAttribute("MinRate", DataRateValue(DataRate(0)));
        NS_TEST_ASSERT_MSG_NE(bad->Validate().find("MinRate must be > 0"),
                              std::string::npos,
                              "zero MinRate rejected");
        bad->SetAttribute("MinRate", DataRateValue(DataRate("1Mbps")));
        bad->SetAttribute("AlphaPeriod", TimeValue(Seconds(0)));
        NS_TEST_ASSERT_MSG_NE(bad->Validate().find("AlphaPeriod must be > 0"),
                              std::string::npos,
                              "zero alpha period rejected");
        Simulator::Destroy();
    }
};

/// 24-bit PSN arithmetic.
class PsnArithmeticTestCase : public TestCase
{
  public:
    PsnArithmeticTestCase()
        : TestCase("PSN: modulo-2^24 difference and 64-bit unwrap")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(RdmaPsn::Diff(5, 3), 2, "simple");
        NS_TEST_ASSERT_MSG_EQ(RdmaPsn::Diff(3, 5), -2, "negative");
        NS_TEST_ASSERT_MSG_EQ(RdmaPsn::Diff(1, 0xFFFFFF), 2, "across the wrap");
        NS_TEST_ASSERT_MSG_EQ(RdmaPsn::Diff(0xFFFFFE, 0), -2, "backwards across the wrap");
        NS_TEST_ASSERT_MSG_EQ(RdmaPsn::Diff(0x7FFFFF, 0), 0x7FFFFF, "max ahead");
        NS_TEST_ASSERT_MSG_EQ(RdmaPsn::Diff(0x800000, 0), -0x800000, "half is behind");
        NS_TEST_ASSERT_MSG_EQ(RdmaPsn::FromIndex(0, 0xFFFFF0), 0xFFFFF0u, "base");
        NS_TEST_ASSERT_MSG_EQ(RdmaPsn::FromIndex(0x10, 0xFFFFF0), 0u, "wraps to 0");
        uint64_t ref = (uint64_t(5) << 24) + 100; // 5 wraps in
        NS_TEST_ASSERT_MSG_EQ(RdmaPsn::ToIndex(RdmaPsn::FromIndex(ref - 7, 3), ref, 3),
                              int64_t(ref - 7),
                              "unwrap behind");
        NS_TEST_ASSERT_MSG_EQ(RdmaPsn::ToIndex(RdmaPsn::FromIndex(ref + 1000, 3), ref, 3),
                              int64_t(ref + 1000),
                              "unwrap ahead");
        uint64_t nearWrap = (uint64_t(1) << 24) - 3;
        NS_TEST_ASSERT_MSG_EQ(RdmaPsn::ToIndex(RdmaPsn::FromIndex(nearWrap + 10, 0), nearWrap, 0),
                              int64_t(nearWrap + 10),
                              "unwrap across 2^24");
    }
};

/// The suite.
class RdmaDcqcnTestSuite : public TestSuite
{
  public:
    RdmaDcqcnTestSuite()
        : TestSuite("astra-sim-rdma-dcqcn", UNIT)
    {
        AddTestCase(new PsnArithmeticTestCase, TestCase::QUICK);
        AddTestCase(new DcqcnTimerTestCase, TestCase::QUICK);
        AddTestCase(new DcqcnByteCounterTestCase, TestCase::QUICK);
        AddTestCase(new DcqcnConfigTestCase, TestCase::QUICK);
    }
};

static RdmaDcqcnTestSuite g_rdmaDcqcnTestSuite; //!< registration

} // namespace
