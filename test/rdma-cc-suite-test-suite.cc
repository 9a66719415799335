/*
 * Congestion-control algorithms beside DCQCN (astra-sim-rdma-cc): HPCC,
 * TIMELY, DCTCP and Swift.
 *
 *  - Unit: each algorithm is driven by synthetic ACK / INT / RTT / CNP events
 *    (no network) and checked against its equations evaluated here.
 *  - Validate(): bad attribute values give readable errors.
 *  - E2E: two flows through one dumbbell bottleneck converge within 10 % of the
 *    fair share for each algorithm; HPCC's average incast queue is well under
 *    DCQCN's; different algorithms give different QpRateChange traces; a
 *    16-to-1 incast with PFC has no drops and less pause time than without CC.
 */

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/dcqcn.h"
#include "ns3/dctcp.h"
#include "ns3/double.h"
#include "ns3/hpcc.h"
#include "ns3/rdma-congestion-ops.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-topology-helper.h"
#include "ns3/rdma-trace-writers.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/swift.h"
#include "ns3/test.h"
#include "ns3/timely.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/// Rate trace recorder for a single CC object.
struct CcRateLog
{
    std::vector<uint64_t> rates; //!< new rates in order

    void Record(uint64_t, uint64_t newBps)
    {
        rates.push_back(newBps);
    }
};

/// An ACK meta carrying a one- or two-hop INT stack.
RdmaMeta
IntAck(uint64_t tNs, uint64_t txBytes, uint32_t qlen, uint32_t rateMbps)
{
    RdmaMeta m;
    m.opcode = RoceOpcode::ACK;
    m.intHops = 1;
    m.intStack[0].timeNs = tNs;
    m.intStack[0].txBytes = txBytes;
    m.intStack[0].qlenBytes = qlen;
    m.intStack[0].rateMbps = rateMbps;
    return m;
}

// ------------------------------------------------------------------- HPCC unit

/// HPCC window arithmetic against Algorithm 1 of the paper.
class HpccUnitTestCase : public TestCase
{
  public:
    HpccUnitTestCase()
        : TestCase("HPCC: U from INT, W = Wc eta over U + W_AI, per-RTT Wc commit, maxStage, EWMA")
    {
    }

  private:
    void DoRun() override
    {
        const double line = 100e9;
        const double t = 10e-6;
        const uint32_t mbps = 100000;
        Ptr<RdmaCcHpcc> cc = CreateObject<RdmaCcHpcc>();
        RdmaCcInit init;
        init.lineRateBps = uint64_t(line);
        init.baseRtt = MicroSeconds(10);
        cc->Init(init);
        const double winit = line * t / 8; // 125000 B
        const double wai = winit * (1 - 0.95) / 16;
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWinit(), winit, 1e-6, "W_init = BDP");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWai(), wai, 1e-9, "W_AI = W_init (1-eta)/N");
        NS_TEST_ASSERT_MSG_EQ(cc->GetRate(), uint64_t(line), "starts at W_init / T = line");
        NS_TEST_ASSERT_MSG_EQ(cc->GetWindow(), 125000u, "window W_init");

        // first INT sample: reference only
        uint64_t tx = 1000000;
        uint64_t tNs = 1000;
        cc->OnSent(200000);
        cc->OnAck(1000, RdmaMeta());
        cc->OnInt(IntAck(tNs, tx, 0, mbps));
        NS_TEST_ASSERT_MSG_EQ(cc->GetWindow(), 125000u, "no rate from one sample");

        // one hop at U = 2 eta: txRate = B (1.0) + qlen = 0.9 B T; tau = T -> EWMA = sample
        tNs += 10000;
        tx += 125000;
        cc->OnInt(IntAck(tNs, tx, 112500, mbps));
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetUtilization(), 1.9, 1e-9, "U = qlen/BT + txRate/B");
        double w = winit / 2 + wai;
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWindowBytes(), w, 1e-6, "U = 2 eta halves W (+W_AI)");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetCommitted(), w, 1e-6, "first update commits Wc");
        NS_TEST_ASSERT_MSG_EQ(cc->GetIncStage(), 0u, "incStage reset");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(cc->GetRate()), w * 8 / t, 1.0, "rate = W / T");
        double wc = w;

        // same RTT (acked 1000 <= lastUpdateSeq 200000), U = 0.5: W = Wc + W_AI, no commit
        tNs += 10000;
        tx += 62500;
        cc->OnInt(IntAck(tNs, tx, 0, mbps));
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetUtilization(), 0.5, 1e-9, "U = 0.5");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWindowBytes(), wc + wai, 1e-6, "additive W");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetCommitted(), wc, 1e-6, "Wc not committed within RTT");
        NS_TEST_ASSERT_MSG_EQ(cc->GetIncStage(), 0u, "incStage unchanged within RTT");

        // five RTTs of additive increase (each: ack passes the last update sequence)
        uint64_t sent = 200000;
        uint64_t acked = 1000;
        for (uint32_t i = 1; i <= 5; ++i)
        {
            sent += 50000;
            cc->OnSent(50000);
            uint64_t a = sent - 50000 - acked + 1; // pass lastUpdateSeq
            acked += a;
            cc->OnAck(a, RdmaMeta());
            tNs += 10000;
            tx += 62500;
            cc->OnInt(IntAck(tNs, tx, 0, mbps));
            wc += wai;
            NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetCommitted(), wc, 1e-6, "committed AI " << i);
            NS_TEST_ASSERT_MSG_EQ(cc->GetIncStage(), i, "incStage " << i);
        }
        // incStage >= maxStage: multiplicative step even though U = 0.5 < eta
        sent += 50000;
        cc->OnSent(50000);
        cc->OnAck(sent - 50000 - acked + 1, RdmaMeta());
        tNs += 10000;
        tx += 62500;
        cc->OnInt(IntAck(tNs, tx, 0, mbps));
        w = wc / (0.5 / 0.95) + wai;
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWindowBytes(), w, 1e-6, "MI after maxStage");
        NS_TEST_ASSERT_MSG_EQ(cc->GetIncStage(), 0u, "incStage reset after MI");
        NS_TEST_ASSERT_MSG_LT(w, winit, "not clamped");

        // EWMA with tau = T/2: U = U/2 + u/2; u = 1.5 (txRate = 1.5 B is fine for the math)
        tNs += 5000;
        tx += 93750;
        cc->OnInt(IntAck(tNs, tx, 0, mbps));
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetUtilization(), 0.5 / 2 + 1.5 / 2, 1e-9, "EWMA tau/T");

        // two hops: U is the max over hops (hop 1 at 1.9, hop 0 idle)
        Ptr<RdmaCcHpcc> c2 = CreateObject<RdmaCcHpcc>();
        c2->SetAttribute("UseEwma", BooleanValue(false));
        c2->Init(init);
        RdmaMeta m = IntAck(1000, 0, 0, mbps);
        m.intHops = 2;
        m.intStack[1] = m.intStack[0];
        c2->OnInt(m);
        m.intStack[0].timeNs = 6000; // tau = T/2: irrelevant without EWMA
        m.intStack[0].txBytes = 6250;
        m.intStack[1].timeNs = 6000;
        m.intStack[1].txBytes = 62500;
        m.intStack[1].qlenBytes = 112500;
        c2->OnInt(m);
        NS_TEST_ASSERT_MSG_EQ_TOL(c2->GetUtilization(), 1.9, 1e-9, "max over hops");
        NS_TEST_ASSERT_MSG_EQ_TOL(c2->GetWindowBytes(), winit / 2 + wai, 1e-6, "halved");
        // PathHops = 1 ignores the second (reverse-path) hop
        Ptr<RdmaCcHpcc> c3 = CreateObject<RdmaCcHpcc>();
        c3->SetAttribute("UseEwma", BooleanValue(false));
        c3->SetAttribute("PathHops", UintegerValue(1));
        c3->Init(init);
        RdmaMeta m0 = IntAck(1000, 0, 0, mbps);
        m0.intHops = 2;
        m0.intStack[1] = m0.intStack[0];
        c3->OnInt(m0);
        c3->OnInt(m);
        NS_TEST_ASSERT_MSG_EQ_TOL(c3->GetUtilization(), 0.1, 1e-9, "only the first hop");
    }
};

// ----------------------------------------------------------------- TIMELY unit

/// TIMELY rate updates in closed form.
class TimelyUnitTestCase : public TestCase
{
  public:
    TimelyUnitTestCase()
        : TestCase("TIMELY: gradient decrease, T_high decrease, T_low and HAI increase")
    {
    }

  private:
    void DoRun() override
    {
        const double line = 10e9;
        const double delta = 10e6;
        Ptr<RdmaCcTimely> cc = CreateObject<RdmaCcTimely>();
        cc->SetAttribute("ScaleWithLinkRate", BooleanValue(false));
        cc->SetAttribute("SegmentBytes", UintegerValue(0));
        RdmaCcInit init;
        init.lineRateBps = uint64_t(line);
        cc->Init(init);
        NS_TEST_ASSERT_MSG_EQ(cc->GetDelta(), uint64_t(delta), "delta");
        RdmaMeta m;
        const double a = 0.875;
        const double beta = 0.8;
        const double minRtt = 20e-6;
        cc->OnRttSample(MicroSeconds(100), m);
        NS_TEST_ASSERT_MSG_EQ(cc->GetRate(), uint64_t(line), "first sample: no gradient");
        // gradient: new diff 10 us; rtt_diff = a * 10 us; R = line (1 - beta g)
        cc->OnRttSample(MicroSeconds(110), m);
        double diff = a * 10e-6;
        double r = line * (1 - beta * diff / minRtt);
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRttDiff(), diff, 1e-15, "rtt_diff EWMA");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(cc->GetRate()), r, 2.0, "R (1 - beta g) = 6.5 G");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(cc->GetRate()), 6.5e9, 2.0, "closed form 6.5 Gbps");
        // above T_high (500 us): R *= 1 - beta (1 - T_high/rtt)
        cc->OnRttSample(MicroSeconds(600), m);
        diff = (1 - a) * diff + a * 490e-6;
        r *= 1 - beta * (1 - 500.0 / 600.0);
        NS_TEST_ASSERT_MSG_EQ_TOL(double(cc->GetRate()), r, 2.0, "T_high decrease");
        // below T_low (50 us): R += delta
        cc->OnRttSample(MicroSeconds(40), m);
        diff = (1 - a) * diff + a * (-560e-6);
        r += delta;
        NS_TEST_ASSERT_MSG_EQ_TOL(double(cc->GetRate()), r, 2.0, "T_low increase");
        // negative gradient inside [T_low, T_high]: 5 x delta, then 5 x (5 delta) (HAI)
        const double rttUs[] = {100, 100, 100, 100, 100, 100, 100};
        double prev = 40e-6;
        for (int i = 0; i < 7; ++i)
        {
            diff = (1 - a) * diff + a * (rttUs[i] * 1e-6 - prev);
            prev = rttUs[i] * 1e-6;
            cc->OnRttSample(MicroSeconds(rttUs[i]), m);
            NS_TEST_ASSERT_MSG_LT_OR_EQ(diff, 0.0, "gradient <= 0 at " << i);
            r += (i >= 5 ? 5 : 1) * delta;
            NS_TEST_ASSERT_MSG_EQ_TOL(double(cc->GetRate()), r, 2.0, "increase " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(cc->GetIncreaseCount(), 7u, "consecutive increases");

        // SegmentBytes: no update until that many bytes were acknowledged
        Ptr<RdmaCcTimely> c2 = CreateObject<RdmaCcTimely>();
        c2->Init(init);
        c2->OnRttSample(MicroSeconds(100), m);
        c2->OnAck(8000, m);
        c2->OnRttSample(MicroSeconds(200), m);
        NS_TEST_ASSERT_MSG_EQ(c2->GetRate(), uint64_t(line), "8 KB < 16 KB: no update");
        c2->OnAck(8000, m);
        c2->OnRttSample(MicroSeconds(200), m);
        NS_TEST_ASSERT_MSG_LT(c2->GetRate(), uint64_t(line), "16 KB: update (gradient > 0)");
        const double expect = std::max(100e6, line * (1 - beta * (a * 100e-6) / minRtt));
        NS_TEST_ASSERT_MSG_EQ_TOL(double(c2->GetRate()), expect, 2.0, "clamped to MinRate");
    }
};

// ------------------------------------------------------------------ DCTCP unit

/// DCTCP alpha, once-per-window cut and additive increase.
class DctcpUnitTestCase : public TestCase
{
  public:
    DctcpUnitTestCase()
        : TestCase("DCTCP: alpha after a window with F = 0.5, one cut per window, AI per RTT")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RdmaCcDctcp> cc = CreateObject<RdmaCcDctcp>();
        cc->SetAttribute("InitialWindow", UintegerValue(10000));
        RdmaCcInit init;
        init.lineRateBps = 10000000000ull;
        init.baseRtt = MicroSeconds(10);
        init.mtuBytes = 1000;
        cc->Init(init);
        RdmaMeta m;
        NS_TEST_ASSERT_MSG_EQ(cc->GetWindow(), 10000u, "initial window");
        NS_TEST_ASSERT_MSG_EQ(cc->GetRate(), 8000000000ull, "paced at cwnd / T");
        for (int i = 0; i < 10; ++i)
        {
            cc->OnSent(1000);
        }
        cc->OnCnp(m); // first mark: cut with alpha = 1
        double cwnd = 5000;
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetCwnd(), cwnd, 1e-9, "cut by 1 - alpha/2");
        for (int i = 0; i < 10; ++i)
        {
            if (i == 9)
            {
                for (int k = 0; k < 10; ++k)
                {
                    cc->OnSent(1000); // the sender keeps sending: next window ends at 20000
                }
            }
            cc->OnAck(1000, m);
            cwnd += 1000.0 * 1000.0 / cwnd;
            if (i % 2 == 1 && i < 9)
            {
                cc->OnCnp(m); // marks within the window: no further cut
            }
            NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetCwnd(), cwnd, 1e-6, "AI / no second cut " << i);
            if (i < 9)
            {
                NS_TEST_ASSERT_MSG_EQ(cc->GetWindowsEnded(), 0u, "window open " << i);
            }
        }
        // window of 10 ACKs with 5 CNPs: F = 0.5
        const double alpha = (1 - 1.0 / 16) * 1.0 + (1.0 / 16) * 0.5;
        NS_TEST_ASSERT_MSG_EQ(cc->GetWindowsEnded(), 1u, "window ended");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetAlpha(), alpha, 1e-12, "alpha = 0.96875");
        // the ACKs passed the cut point: the next mark cuts with the new alpha
        cc->OnCnp(m);
        cwnd *= 1 - alpha / 2;
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetCwnd(), cwnd, 1e-6, "second cut with new alpha");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(cc->GetRate()), cwnd * 8 / 10e-6, 2.0, "pacing");
        // next window: 10 ACKs, that one CNP: F = 0.1
        for (int i = 0; i < 10; ++i)
        {
            cc->OnAck(1000, m);
            cwnd += 1000.0 * 1000.0 / cwnd;
            if (i == 4)
            {
                cc->OnCnp(m); // before the ACKs pass the cut point (20000): no cut
            }
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetCwnd(), cwnd, 1e-6, "one cut per window");
        NS_TEST_ASSERT_MSG_EQ(cc->GetWindowsEnded(), 2u, "second window ended");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetAlpha(),
                                  alpha * 15 / 16 + 0.2 / 16,
                                  1e-12,
                                  "F = 2/10 window");
    }
};

// ------------------------------------------------------------------ Swift unit

/// Swift target, AI, bounded MD once per RTT, pacing below one packet.
class SwiftUnitTestCase : public TestCase
{
  public:
    SwiftUnitTestCase()
        : TestCase("Swift: hop-scaled target, AI below, MD bounded by max_mdf once per RTT, pacing")
    {
    }

  private:
    Ptr<RdmaCcSwift> m_cc;
    std::vector<double> m_cwnd;

    void Sample(uint32_t rttUs, uint64_t acked)
    {
        RdmaMeta m;
        m.intHops = 2;
        m_cc->OnAck(acked, m);
        m_cc->OnRttSample(MicroSeconds(rttUs), m);
        m_cwnd.push_back(m_cc->GetCwnd());
    }

    void DoRun() override
    {
        m_cc = CreateObject<RdmaCcSwift>();
        RdmaCcInit init;
        init.lineRateBps = 100000000000ull;
        init.baseRtt = MicroSeconds(10);
        init.mtuBytes = 1000;
        m_cc->Init(init);
        NS_TEST_ASSERT_MSG_EQ_TOL(m_cc->GetCwnd(), 125.0, 1e-9, "initial cwnd = BDP");
        // t = 0: delay 100 us vs target 25 + 2 x 1 us: 1 - 0.8 x 73/100 < 0.6 -> max_mdf
        Simulator::Schedule(MicroSeconds(0), &SwiftUnitTestCase::Sample, this, 100, 1000);
        // same RTT: no second decrease
        Simulator::Schedule(MicroSeconds(50), &SwiftUnitTestCase::Sample, this, 100, 1000);
        // one RTT later, delay 30 us: 1 - 0.8 x 3/30 = 0.92
        Simulator::Schedule(MicroSeconds(101), &SwiftUnitTestCase::Sample, this, 30, 1000);
        // below target: cwnd += ai / cwnd per acked packet (2 packets)
        Simulator::Schedule(MicroSeconds(102), &SwiftUnitTestCase::Sample, this, 20, 2000);
        // many RTTs far above target: cwnd falls below one packet (paced)
        for (int i = 0; i < 12; ++i)
        {
            Simulator::Schedule(MicroSeconds(300 + 200 * i),
                                &SwiftUnitTestCase::Sample,
                                this,
                                150,
                                1000);
        }
        Simulator::Run();
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(m_cc->GetTarget(), MicroSeconds(27), "target 25 + 2 hops x 1 us");
        NS_TEST_ASSERT_MSG_EQ_TOL(m_cwnd[0], 125.0 * 0.6, 1e-9, "MD bounded by max_mdf");
        NS_TEST_ASSERT_MSG_EQ_TOL(m_cwnd[1], 125.0 * 0.6, 1e-9, "once per RTT");
        double c = 75.0 * 0.92;
        NS_TEST_ASSERT_MSG_EQ_TOL(m_cwnd[2], c, 1e-9, "MD 1 - beta (d - t)/d");
        c += 2.0 / c;
        NS_TEST_ASSERT_MSG_EQ_TOL(m_cwnd[3], c, 1e-9, "AI ai/cwnd per packet");
        // at 150 us: 1 - 0.8 x 123/150 = 0.344 < 0.6 -> 0.6 each RTT
        for (int i = 0; i < 12; ++i)
        {
            c *= 0.6;
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(m_cwnd.back(), c, 1e-9, "12 bounded decreases");
        NS_TEST_ASSERT_MSG_LT(c, 1.0, "below one packet");
        NS_TEST_ASSERT_MSG_EQ(m_cc->GetWindow(), 1000u, "window one packet");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(m_cc->GetRate()),
                                  c * 1000 * 8 / 150e-6,
                                  2.0,
                                  "paced at cwnd x MTU / RTT");
        NS_TEST_ASSERT_MSG_EQ(m_cc->GetDecreases(), 14u, "decreases");
    }
};

// -------------------------------------------------------------------- Validate

/// Bad attribute values are reported by Validate().
class ValidateTestCase : public TestCase
{
  public:
    ValidateTestCase()
        : TestCase("CC suite: Validate() reports bad attribute values")
    {
    }

  private:
    static bool Has(const std::string& s, const std::string& what)
    {
        return s.find(what) != std::string::npos;
    }

    void DoRun() override
    {
        Ptr<RdmaCcHpcc> h = CreateObject<RdmaCcHpcc>();
        NS_TEST_ASSERT_MSG_EQ(h->Validate(), "", "HPCC defaults valid");
        h->SetAttribute("Eta", DoubleValue(1.5));
        NS_TEST_ASSERT_MSG_EQ(Has(h->Validate(), "Eta"), true, h->Validate());
        Ptr<RdmaCcTimely> t = CreateObject<RdmaCcTimely>();
        NS_TEST_ASSERT_MSG_EQ(t->Validate(), "", "TIMELY defaults valid");
        t->SetAttribute("TLow", TimeValue(MicroSeconds(600)));
        NS_TEST_ASSERT_MSG_EQ(Has(t->Validate(), "TLow < THigh"), true, t->Validate());
        t->SetAttribute("TLow", TimeValue(MicroSeconds(50)));
        t->SetAttribute("Beta", DoubleValue(0));
        NS_TEST_ASSERT_MSG_EQ(Has(t->Validate(), "Beta"), true, t->Validate());
        Ptr<RdmaCcDctcp> d = CreateObject<RdmaCcDctcp>();
        NS_TEST_ASSERT_MSG_EQ(d->Validate(), "", "DCTCP defaults valid");
        d->SetAttribute("G", DoubleValue(0));
        NS_TEST_ASSERT_MSG_EQ(Has(d->Validate(), "G must be"), true, d->Validate());
        d->SetAttribute("G", DoubleValue(0.0625));
        d->SetAttribute("MaxWindow", UintegerValue(1000));
        d->SetAttribute("InitialWindow", UintegerValue(5000));
        NS_TEST_ASSERT_MSG_EQ(Has(d->Validate(), "InitialWindow"), true, d->Validate());
        Ptr<RdmaCcSwift> s = CreateObject<RdmaCcSwift>();
        NS_TEST_ASSERT_MSG_EQ(s->Validate(), "", "Swift defaults valid");
        s->SetAttribute("MaxMdf", DoubleValue(1.0));
        NS_TEST_ASSERT_MSG_EQ(Has(s->Validate(), "MaxMdf"), true, s->Validate());
        s->SetAttribute("MaxMdf", DoubleValue(0.4));
        s->SetAttribute("BaseTarget", TimeValue(Time(0)));
        NS_TEST_ASSERT_MSG_EQ(Has(s->Validate(), "BaseTarget"), true, s->Validate());
        // the host stack reports the CC template's errors
        Ptr<RdmaHostStack> hs = CreateObject<RdmaHostStack>();
        hs->SetCongestionControl(h);
        NS_TEST_ASSERT_MSG_EQ(Has(hs->Validate(), "Eta"), true, hs->Validate());
    }
};

// ------------------------------------------------------------------------- E2E

/// One rate-change event (time ns, host, qpn, new rate).
using RateEvent = std::tuple<int64_t, uint32_t, uint32_t, uint64_t>;

/// Collects QpRateChange events of all hosts.
struct RateTrace
{
    std::vector<RateEvent> events; //!< in order

    void On(uint32_t host, uint32_t qpn, uint64_t, uint64_t newBps)
    {
        events.emplace_back(Simulator::Now().GetNanoSeconds(), host, qpn, newBps);
    }
};

/**
 * Per-algorithm fabric settings of the end-to-end tests: INT for HPCC, DCTCP's
 * step marking at K with a CNP per marked packet, TIMELY thresholds scaled to
 * these fabrics' few-microsecond base RTT.
 * \param cc algorithm \param rh helper whose switch attributes are set
 */
void
ApplyCcFabricSettings(TypeId cc, RdmaHelper& rh)
{
    rh.SetSwitchAttribute("IntEnabled", BooleanValue(cc == RdmaCcHpcc::GetTypeId()));
    if (cc == RdmaCcDctcp::GetTypeId())
    {
        rh.SetSwitchAttribute("Kmin", UintegerValue(20000));
        rh.SetSwitchAttribute("Kmax", UintegerValue(20000));
        rh.SetSwitchAttribute("Pmax", DoubleValue(1.0));
        Config::SetDefault("ns3::RdmaHostStack::CnpInterval", TimeValue(Time(0)));
    }
    else if (cc == RdmaCcTimely::GetTypeId())
    {
        Config::SetDefault("ns3::RdmaCcTimely::TLow", TimeValue(MicroSeconds(10)));
        Config::SetDefault("ns3::RdmaCcTimely::THigh", TimeValue(MicroSeconds(100)));
        Config::SetDefault("ns3::RdmaCcTimely::MinRtt", TimeValue(MicroSeconds(10)));
    }
}

/// Result of one dumbbell run.
struct FairnessResult
{
    double thr[2]{0, 0};        //!< goodput of the two flows in the window (bit/s)
    double fair{0};             //!< fair share (bit/s)
    double cap{0};              //!< goodput capacity (bit/s)
    double avgQueue{0};         //!< average bottleneck queue (bytes)
    RateTrace trace;            //!< rate changes
    uint32_t swiftDecreases{0}; //!< Swift: multiplicative decreases of flow 0
};

/**
 * Two long flows (host 0 -> 2 from 0, host 1 -> 3 from 1 ms) over a 40 Gbps
 * dumbbell bottleneck; goodput measured over [t1, t2].
 */
FairnessResult
RunDumbbell(TypeId cc, Time t1, Time t2)
{
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    Config::SetDefault("ns3::RdmaHostStack::CongestionControl", TypeIdValue(cc));
    Config::SetDefault("ns3::RdmaHostStack::BaseRtt", TimeValue(MicroSeconds(7)));
    RdmaTopologyHelper th;
    RdmaHelper& rh = th.GetRdmaHelper();
    ApplyCcFabricSettings(cc, rh);
    if (cc == RdmaCcDcqcn::GetTypeId())
    {
        Config::SetDefault("ns3::RdmaCcDcqcn::AlphaPeriod", TimeValue(MicroSeconds(1)));
    }
    RdmaTopology t = th.Dumbbell(2, 2, DataRate("40Gbps"), DataRate("40Gbps"), MicroSeconds(1));
    rh.AssignStreams(t.AllNodes(), 1);
    FairnessResult r;
    std::vector<Ptr<RdmaQueuePair>> qps;
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<RdmaHostStack> s = t.hosts.Get(i)->GetObject<RdmaHostStack>();
        s->TraceConnectWithoutContext("QpRateChange", MakeCallback(&RateTrace::On, &r.trace));
        qps.push_back(s->GetOrCreateQp(2 + i));
    }
    Ptr<RdmaHostStack> s0 = t.hosts.Get(0)->GetObject<RdmaHostStack>();
    Ptr<RdmaHostStack> s1 = t.hosts.Get(1)->GetObject<RdmaHostStack>();
    s0->PostWrite(qps[0], 2000000000ull, 1);
    Simulator::Schedule(MilliSeconds(1), [&]() { s1->PostWrite(qps[1], 2000000000ull, 2); });
    RdmaQueueSampler qs("", MicroSeconds(2));
    qs.Install(t.switches, t1, t2);
    uint64_t at1[2];
    uint64_t at2[2];
    Simulator::Schedule(t1, [&]() {
        for (int i = 0; i < 2; ++i)
        {
            at1[i] = qps[i]->GetSndUna();
        }
    });
    Simulator::Schedule(t2, [&]() {
        for (int i = 0; i < 2; ++i)
        {
            at2[i] = qps[i]->GetSndUna();
        }
    });
    Simulator::Stop(t2 + NanoSeconds(1));
    Simulator::Run();
    const double secs = (t2 - t1).GetSeconds();
    for (int i = 0; i < 2; ++i)
    {
        r.thr[i] = double(at2[i] - at1[i]) * 8.0 / secs;
    }
    r.cap = 40e9 * 1000.0 / RdmaHostStack::DataWireBytes(1000, false);
    r.fair = r.cap / 2;
    Ptr<RdmaSwitch> sw = t.switches.Get(0)->GetObject<RdmaSwitch>();
    for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
    {
        r.avgQueue = std::max(r.avgQueue, qs.GetAverage(0, p, 3));
    }
    Ptr<RdmaCcSwift> sc = DynamicCast<RdmaCcSwift>(qps[0]->GetCongestionOps());
    if (sc)
    {
        r.swiftDecreases = sc->GetDecreases();
    }
    Simulator::Destroy();
    Config::Reset();
    return r;
}

/// Two flows converge to within 10 % of the fair share.
class FairnessTestCase : public TestCase
{
  public:
    FairnessTestCase(TypeId cc, std::string name, Time t1, Time t2)
        : TestCase(name + ": two flows on a dumbbell converge within 10% of the fair share"),
          m_cc(cc),
          m_name(name),
          m_t1(t1),
          m_t2(t2)
    {
    }

  private:
    void DoRun() override
    {
        FairnessResult r = RunDumbbell(m_cc, m_t1, m_t2);
        std::cout << "  " << m_name << ": flows " << r.thr[0] / 1e9 << " / " << r.thr[1] / 1e9
                  << " Gbps (fair " << r.fair / 1e9 << "), avg queue " << r.avgQueue
                  << " B, rate changes " << r.trace.events.size() << std::endl;
        for (int i = 0; i < 2; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(r.thr[i] / r.fair, 1.0, 0.10, "flow " << i << " fair share");
        }
        NS_TEST_ASSERT_MSG_GT(r.thr[0] + r.thr[1], 0.85 * r.cap, "bottleneck utilized");
        // each algorithm's own queue signature (40 Gbps bottleneck, 7 us base RTT)
        const double qDelayUs = r.avgQueue * 8 / 40e9 * 1e6;
        if (m_cc == RdmaCcHpcc::GetTypeId())
        {
            NS_TEST_ASSERT_MSG_LT(r.avgQueue, 5000.0, "HPCC: near-zero queue (eta < 1)");
        }
        else if (m_cc == RdmaCcDctcp::GetTypeId())
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(r.avgQueue / 20000.0, 1.0, 0.5, "DCTCP: queue around K");
        }
        else if (m_cc == RdmaCcTimely::GetTypeId())
        {
            NS_TEST_ASSERT_MSG_GT(7.0 + qDelayUs, 0.8 * 10.0, "TIMELY: RTT near/above T_low");
            NS_TEST_ASSERT_MSG_LT(7.0 + qDelayUs, 100.0, "TIMELY: RTT below T_high");
        }
        if (m_cc == RdmaCcSwift::GetTypeId())
        {
            NS_TEST_ASSERT_MSG_GT(r.swiftDecreases, 10u, "Swift decreased its window");
            NS_TEST_ASSERT_MSG_EQ_TOL((7.0 + qDelayUs) / 25.0, 1.0, 0.2, "Swift: RTT at target");
        }
        else
        {
            NS_TEST_ASSERT_MSG_GT(r.trace.events.size(), 10u, "rate changes");
        }
    }

    TypeId m_cc;
    std::string m_name;
    Time m_t1;
    Time m_t2;
};

/// Different algorithms give different rate traces on the same scenario.
class TracesDifferTestCase : public TestCase
{
  public:
    TracesDifferTestCase()
        : TestCase("CC suite: DCQCN, HPCC, TIMELY, DCTCP, Swift give different QpRateChange traces")
    {
    }

  private:
    void DoRun() override
    {
        const TypeId ids[] = {RdmaCcDcqcn::GetTypeId(),
                              RdmaCcHpcc::GetTypeId(),
                              RdmaCcTimely::GetTypeId(),
                              RdmaCcDctcp::GetTypeId(),
                              RdmaCcSwift::GetTypeId()};
        std::vector<std::vector<RateEvent>> traces;
        for (const TypeId& id : ids)
        {
            FairnessResult r = RunDumbbell(id, MilliSeconds(1), MilliSeconds(2));
            std::cout << "  " << id.GetName() << ": " << r.trace.events.size()
                      << " rate changes in 2 ms" << std::endl;
            traces.push_back(r.trace.events);
        }
        for (size_t i = 0; i < traces.size(); ++i)
        {
            for (size_t j = i + 1; j < traces.size(); ++j)
            {
                NS_TEST_ASSERT_MSG_EQ((traces[i] == traces[j]),
                                      false,
                                      ids[i].GetName() << " vs " << ids[j].GetName());
            }
        }
        // the rate-based / paced ones really moved their rate
        for (size_t i = 0; i < 4; ++i)
        {
            NS_TEST_ASSERT_MSG_GT(traces[i].size(), 10u, ids[i].GetName() << " acted");
        }
    }
};

/// HPCC keeps the incast queue far below DCQCN's.
class IncastQueueTestCase : public TestCase
{
  public:
    IncastQueueTestCase()
        : TestCase("HPCC: 8-to-1 incast average bottleneck queue well under DCQCN's")
    {
    }

  private:
    static double Run(TypeId cc, uint64_t& delivered)
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl", TypeIdValue(cc));
        Config::SetDefault("ns3::RdmaHostStack::BaseRtt", TimeValue(MicroSeconds(5)));
        RdmaTopologyHelper th;
        RdmaHelper& rh = th.GetRdmaHelper();
        rh.SetMmuAttribute("LosslessPriorities", UintegerValue(1u << 3));
        rh.SetMmuAttribute("BufferSize", UintegerValue(4 * 1000 * 1000));
        rh.SetSwitchAttribute("IntEnabled", BooleanValue(cc == RdmaCcHpcc::GetTypeId()));
        RdmaTopology t = th.Star(9, DataRate("40Gbps"), MicroSeconds(1));
        rh.AssignStreams(t.AllNodes(), 1);
        RdmaFctWriter fct("");
        fct.Install(t.hosts);
        for (uint32_t i = 1; i <= 8; ++i)
        {
            Ptr<RdmaHostStack> s = t.hosts.Get(i)->GetObject<RdmaHostStack>();
            s->PostWrite(s->GetOrCreateQp(0), 1000000, i);
        }
        RdmaQueueSampler qs("", NanoSeconds(500));
        qs.Install(t.switches, Seconds(0), MicroSeconds(1500));
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        Ptr<RdmaSwitch> sw = t.switches.Get(0)->GetObject<RdmaSwitch>();
        double q = 0;
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            q = std::max(q, qs.GetAverage(0, p, 3));
        }
        delivered = 0;
        for (const auto& rec : fct.GetRecords())
        {
            delivered += rec.info.bytes;
        }
        Simulator::Destroy();
        Config::Reset();
        return q;
    }

    void DoRun() override
    {
        uint64_t dDcqcn = 0;
        uint64_t dHpcc = 0;
        const double qDcqcn = Run(RdmaCcDcqcn::GetTypeId(), dDcqcn);
        const double qHpcc = Run(RdmaCcHpcc::GetTypeId(), dHpcc);
        std::cout << "  8-to-1 incast avg bottleneck queue: DCQCN " << qDcqcn << " B, HPCC "
                  << qHpcc << " B" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(dDcqcn, 8000000u, "DCQCN delivered everything");
        NS_TEST_ASSERT_MSG_EQ(dHpcc, 8000000u, "HPCC delivered everything");
        NS_TEST_ASSERT_MSG_GT(qDcqcn, 0.0, "DCQCN queue sampled");
        NS_TEST_ASSERT_MSG_LT(qHpcc, 0.25 * qDcqcn, "HPCC queue well under DCQCN's");
    }
};

/**
 * 16-to-1 incast with PFC for every algorithm: zero drops, every byte
 * delivered, and less total pause time than with no congestion control.
 */
class IncastPfcTestCase : public TestCase
{
  public:
    IncastPfcTestCase()
        : TestCase("CC suite: 16-to-1 incast with PFC: no drops, less pause time than none")
    {
    }

  private:
    /// Outcome of one incast run.
    struct Outcome
    {
        RdmaRunSummary sum;    //!< counters
        uint64_t delivered{0}; //!< bytes completed at receivers
    };

    static Outcome Run(TypeId cc)
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl", TypeIdValue(cc));
        Config::SetDefault("ns3::RdmaHostStack::BaseRtt", TimeValue(MicroSeconds(5)));
        RdmaTopologyHelper th;
        RdmaHelper& rh = th.GetRdmaHelper();
        rh.SetMmuAttribute("LosslessPriorities", UintegerValue(1u << 3));
        rh.SetMmuAttribute("BufferSize", UintegerValue(2 * 1000 * 1000));
        ApplyCcFabricSettings(cc, rh);
        RdmaTopology t = th.Star(17, DataRate("40Gbps"), MicroSeconds(1));
        rh.AssignStreams(t.AllNodes(), 1);
        RdmaFctWriter fct("");
        fct.Install(t.hosts);
        for (uint32_t i = 1; i <= 16; ++i)
        {
            Ptr<RdmaHostStack> s = t.hosts.Get(i)->GetObject<RdmaHostStack>();
            s->PostWrite(s->GetOrCreateQp(0), 1000000, i);
        }
        Simulator::Stop(MilliSeconds(50));
        Simulator::Run();
        Outcome o;
        o.sum = RdmaRunSummary::Collect(t.hosts, t.switches, &fct);
        for (const auto& rec : fct.GetRecords())
        {
            o.delivered += rec.info.bytes;
        }
        Simulator::Destroy();
        Config::Reset();
        return o;
    }

    void DoRun() override
    {
        const Outcome none = Run(RdmaCcNone::GetTypeId());
        std::cout << "  16-to-1 incast, PFC: none paused "
                  << none.sum.totalPauseTime.GetMicroSeconds() << " us (" << none.sum.pauseFrames
                  << " frames)" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(none.sum.drops, 0u, "none: lossless");
        NS_TEST_ASSERT_MSG_EQ(none.delivered, 16000000u, "none: every byte delivered");
        NS_TEST_ASSERT_MSG_GT(none.sum.pauseFrames, 0u, "none: the incast pauses the senders");
        const std::vector<std::pair<TypeId, const char*>> ccs{{RdmaCcDcqcn::GetTypeId(), "DCQCN"},
                                                              {RdmaCcHpcc::GetTypeId(), "HPCC"},
                                                              {RdmaCcTimely::GetTypeId(), "TIMELY"},
                                                              {RdmaCcDctcp::GetTypeId(), "DCTCP"},
                                                              {RdmaCcSwift::GetTypeId(), "Swift"}};
        for (const auto& [cc, name] : ccs)
        {
            const Outcome o = Run(cc);
            std::cout << "  " << name << " paused " << o.sum.totalPauseTime.GetMicroSeconds()
                      << " us (" << o.sum.pauseFrames << " frames), drops " << o.sum.drops
                      << std::endl;
            NS_TEST_ASSERT_MSG_EQ(o.sum.drops, 0u, name << ": no drops with PFC");
            NS_TEST_ASSERT_MSG_EQ(o.sum.losslessDrops, 0u, name << ": no lossless drops");
            NS_TEST_ASSERT_MSG_EQ(o.delivered, 16000000u, name << ": every byte delivered");
            NS_TEST_ASSERT_MSG_LT(o.sum.totalPauseTime,
                                  none.sum.totalPauseTime,
                                  name << ": less total pause time than without CC");
        }
    }
};

/// The suite.
class RdmaCcSuiteTestSuite : public TestSuite
{
  public:
    RdmaCcSuiteTestSuite()
        : TestSuite("astra-sim-rdma-cc", UNIT)
    {
        AddTestCase(new HpccUnitTestCase, TestCase::QUICK);
        AddTestCase(new TimelyUnitTestCase, TestCase::QUICK);
        AddTestCase(new DctcpUnitTestCase, TestCase::QUICK);
        AddTestCase(new SwiftUnitTestCase, TestCase::QUICK);
        AddTestCase(new ValidateTestCase, TestCase::QUICK);
        AddTestCase(new FairnessTestCase(RdmaCcHpcc::GetTypeId(),
                                         "HPCC",
                                         MilliSeconds(5),
                                         MilliSeconds(15)),
                    TestCase::QUICK);
        AddTestCase(new FairnessTestCase(RdmaCcTimely::GetTypeId(),
                                         "TIMELY",
                                         MilliSeconds(5),
                                         MilliSeconds(15)),
                    TestCase::QUICK);
        AddTestCase(new FairnessTestCase(RdmaCcDctcp::GetTypeId(),
                                         "DCTCP",
                                         MilliSeconds(5),
                                         MilliSeconds(15)),
                    TestCase::QUICK);
        AddTestCase(new FairnessTestCase(RdmaCcSwift::GetTypeId(),
                                         "Swift",
                                         MilliSeconds(5),
                                         MilliSeconds(15)),
                    TestCase::QUICK);
        AddTestCase(new IncastQueueTestCase, TestCase::QUICK);
        AddTestCase(new TracesDifferTestCase, TestCase::QUICK);
        AddTestCase(new IncastPfcTestCase, TestCase::QUICK);
    }
};

static RdmaCcSuiteTestSuite g_rdmaCcSuiteTestSuite; //!< registration

} // namespace
