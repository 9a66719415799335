/*
 * Tests of the analytical (congestion-unaware) and flow-level
 * (congestion-aware) network backends against closed forms.
 */

#include "ns3/analytical-backend.h"
#include "ns3/boolean.h"
#include "ns3/flow-backend.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/topology.h"

#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// GB/s (2^30) giving exactly `bytesPerNs` bytes per ns.
double
Gbps(double bytesPerNs)
{
    return bytesPerNs * 1e9 / 1073741824.0;
}

/// A message to send at a time.
struct Planned
{
    int64_t atNs;
    NetMessage msg;
};

/// Delivery record per tag.
struct Result
{
    std::map<uint64_t, int64_t> delivered; //!< tag -> delivery time (ns)
    std::map<uint64_t, int64_t> sent;      //!< tag -> onSent time (ns)
};

/// Send the planned messages through a backend, run, and record times.
Result
RunPlan(Ptr<NetworkBackend> backend, const std::vector<Planned>& plan)
{
    Result r;
    for (const auto& p : plan)
    {
        Simulator::Schedule(NanoSeconds(p.atNs), [backend, p, &r]() {
            backend->Send(
                p.msg,
                [&r](const NetMessage& m) { r.sent[m.tag] = Simulator::Now().GetNanoSeconds(); },
                [&r](const NetMessage& m) {
                    r.delivered[m.tag] = Simulator::Now().GetNanoSeconds();
                });
        });
    }
    Simulator::Run();
    Simulator::Destroy();
    return r;
}

NetMessage
Msg(uint32_t src, uint32_t dst, uint64_t bytes, uint64_t tag, int32_t dim = -1)
{
    NetMessage m;
    m.src = src;
    m.dst = dst;
    m.bytes = bytes;
    m.tag = tag;
    m.dim = dim;
    return m;
}

Ptr<AnalyticalBackend>
MakeAnalytical(const Topology& t, bool compat = false)
{
    auto b = CreateObject<AnalyticalBackend>();
    b->SetAttribute("Compat", BooleanValue(compat));
    b->SetTopology(t);
    return b;
}

Ptr<FlowBackend>
MakeFlow(const Topology& t, bool compat = false, bool check = true)
{
    auto b = CreateObject<FlowBackend>();
    b->SetAttribute("Compat", BooleanValue(compat));
    b->SetAttribute("SelfCheck", BooleanValue(check));
    b->SetTopology(t);
    return b;
}

} // namespace

/// Analytical backend: closed form, compat truncation, callbacks, errors.
class AnalyticalClosedFormTest : public TestCase
{
  public:
    AnalyticalClosedFormTest()
        : TestCase("analytical: hops x latency + bytes over B, rounding and compat truncation")
    {
    }

  private:
    void DoRun() override
    {
        const Topology ring = Topology::FromDimensions({{DimType::RING, 8, 50, 500}});
        const Topology sw = Topology::FromDimensions({{DimType::SWITCH, 8, 50, 500}});
        // B = 50 x 2^30 / 1e9 = 53.6870912 B/ns; 32768 B -> 610.3515625 ns; 65536 B -> 1220.703125
        auto r = RunPlan(MakeAnalytical(ring),
                         {{0, Msg(0, 1, 32768, 1)},
                          {0, Msg(0, 1, 65536, 2)},
                          {100, Msg(0, 4, 65536, 3)},
                          {0, Msg(2, 7, 65536, 4)},
                          {7, Msg(5, 5, 65536, 5)}});
        // NPU 0's messages leave one after another on its link 0 -> 1 (the 4-hop route to
        // NPU 4 starts there too, the tie going clockwise): message 2 starts serialising at
        // 610.35, message 3 at 610.35 + 1220.70 = 1831.05
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 1110, "500 + 610.35 rounds to 1110");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 2331, "after message 1: 610.35 + 500 + 1220.70");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[3], 5052, "4 hops after message 2: 1831.05 + 3220.70");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[4], 2721, "2 -> 7 the short way: 3 hops, alone");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[5], 7, "src == dst: no delay");
        NS_TEST_ASSERT_MSG_EQ(r.sent[2], 2331, "onSent at delivery");
        // alone on their links: the closed form of one message
        r = RunPlan(
            MakeAnalytical(ring),
            {{0, Msg(0, 1, 65536, 2)}, {100, Msg(0, 4, 65536, 3)}, {0, Msg(1, 0, 65536, 4)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 1721, "500 + 1220.70 rounds to 1721");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[3],
                              100 + std::llround(1220.703125 - 100 + 3220.703125),
                              "waits until 1220.70, then 4 hops");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[4], 1721, "the other direction is another link");
        r = RunPlan(MakeAnalytical(ring, true),
                    {{0, Msg(0, 1, 32768, 1)}, {0, Msg(0, 1, 65536, 2)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 1110, "compat trunc(1110.35)");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 1720, "compat trunc(1720.70)");
        r = RunPlan(MakeAnalytical(sw, true), {{0, Msg(3, 6, 65536, 1)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1],
                              2220,
                              "switch: trunc(2 x 500 + 1220.70), serialization once");

        // 10 identical messages of one sender on one link: serialised, message k (from 0)
        // delivered at k x 1220.70 + 500 + 1220.70; compat (the reference): all at 1720
        std::vector<Planned> plan;
        for (uint64_t i = 0; i < 10; ++i)
        {
            plan.push_back({0, Msg(0, 1, 65536, i)});
        }
        r = RunPlan(MakeAnalytical(ring, true), plan);
        NS_TEST_ASSERT_MSG_EQ(r.delivered[9], 1720, "compat: every message the full link");
        auto a = MakeAnalytical(ring);
        uint64_t pendingMid = 0;
        Simulator::Schedule(NanoSeconds(1), [&]() { pendingMid = a->GetPendingMessages(); });
        r = RunPlan(a, plan);
        for (uint64_t k = 0; k < 10; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(r.delivered[k],
                                  std::llround(k * 1220.703125 + 1720.703125),
                                  "serialised: message " << k);
        }
        // ten senders at once: no cross-flow contention (each its own link)
        plan.clear();
        for (uint32_t i = 0; i < 8; ++i)
        {
            plan.push_back({0, Msg(i, (i + 1) % 8, 65536, i)});
        }
        auto r8 = RunPlan(MakeAnalytical(ring), plan);
        for (uint64_t k = 0; k < 8; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(r8.delivered[k], 1721, "different senders: alone " << k);
        }
        NS_TEST_ASSERT_MSG_EQ(pendingMid, 10, "pending while in flight");
        NS_TEST_ASSERT_MSG_EQ(a->GetPendingMessages(), 0, "none pending after");
        NS_TEST_ASSERT_MSG_EQ(a->GetDeliveredBytes(), 655360, "bytes delivered");
        NS_TEST_ASSERT_MSG_EQ(a->GetNpuCount(), 8, "npu count");

        bool threw = false;
        try
        {
            a->Send(Msg(0, 8, 1, 0), nullptr, nullptr);
        }
        catch (const std::out_of_range&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "out-of-range NPU");
        Simulator::Destroy();
    }
};

/// Fluid model: one message alone, two sharing a link, a late arrival.
/**
 * The analytical backend's per-message fast paths: SendUnscheduled returns the
 * same time as GetMessageTime and keeps the pending count until
 * CompleteUnscheduled; it is declined while a Delivered sink is connected; a
 * caller's MessageTimeHint never returns a time of another topology or of the
 * other rounding mode; backends without fixed times decline.
 */
class AnalyticalUnscheduledTest : public TestCase
{
  public:
    AnalyticalUnscheduledTest()
        : TestCase("Analytical: SendUnscheduled, time hints, fixed message times")
    {
    }

  private:
    static void OnDelivered(uint32_t* n, const NetMessage&, Time)
    {
        ++*n;
    }

    void DoRun() override
    {
        const Topology ring = Topology::FromDimensions({{DimType::RING, 8, 50, 500}});
        const Topology slow = Topology::FromDimensions({{DimType::RING, 8, 25, 700}});
        auto a = MakeAnalytical(ring);
        NS_TEST_ASSERT_MSG_EQ(
            (a->GetFixedTimeInterface() == static_cast<FixedTimeNetwork*>(PeekPointer(a))),
            true,
            "analytical times are fixed");
        const NetMessage m = Msg(0, 1, 65536, 3);
        MessageTimeHint hint;
        const int64_t t = a->SendUnscheduled(m, &hint);
        NS_TEST_ASSERT_MSG_EQ(t, a->GetMessageTime(m).GetTimeStep(), "same as GetMessageTime");
        NS_TEST_ASSERT_MSG_EQ(t, NanoSeconds(1721).GetTimeStep(), "500 + 1220.70 rounds to 1721");
        NS_TEST_ASSERT_MSG_EQ(a->GetPendingMessages(), 1, "pending until completed");
        // the same sender at the same time: behind the first on its link (1220.70 later)
        NS_TEST_ASSERT_MSG_EQ(a->GetMessageTimeSteps(m, &hint),
                              NanoSeconds(2941).GetTimeStep(),
                              "serialised after the first: 1220.70 + 1720.70");
        // later, the link idle again (the time of one message alone)
        auto advance = []() {
            Simulator::Schedule(MicroSeconds(100), []() {});
            Simulator::Run();
        };
        advance();
        NS_TEST_ASSERT_MSG_EQ(a->SendUnscheduled(m, &hint), t, "through the hint");
        a->CompleteUnscheduled(m);
        a->CompleteUnscheduled(m);
        NS_TEST_ASSERT_MSG_EQ(a->GetPendingMessages(), 0, "none pending");
        NS_TEST_ASSERT_MSG_EQ(a->GetDeliveredMessages(), 2, "two delivered");
        NS_TEST_ASSERT_MSG_EQ(a->GetDeliveredBytes(), 131072, "bytes delivered");

        // the hint was filled on `ring`: a new topology and the compat rounding must not
        // reuse it
        a->SetTopology(slow);
        const int64_t ts = a->SendUnscheduled(m, &hint);
        for (int i = 0; i < 4; ++i)
        {
            a->CompleteUnscheduled(m); // this and the next three sends
        }
        NS_TEST_ASSERT_MSG_EQ(ts, NanoSeconds(3141).GetTimeStep(), "new topology: 700 + 2441.41");
        const NetMessage odd = Msg(0, 1, 65539, 4); // 700 + 2441.52: rounds up, truncates down
        advance();
        NS_TEST_ASSERT_MSG_EQ(a->SendUnscheduled(odd, &hint),
                              NanoSeconds(3142).GetTimeStep(),
                              "default rounds");
        a->SetAttribute("Compat", BooleanValue(true));
        NS_TEST_ASSERT_MSG_EQ(a->SendUnscheduled(odd, &hint),
                              NanoSeconds(3141).GetTimeStep(),
                              "compat truncates, not the hint's rounded time");
        a->SetAttribute("Compat", BooleanValue(false));
        advance();
        NS_TEST_ASSERT_MSG_EQ(a->SendUnscheduled(odd, &hint),
                              NanoSeconds(3142).GetTimeStep(),
                              "default rounds, not the hint's compat time");
        // a second backend on the same topology object has its own stamp
        auto b = MakeAnalytical(ring);
        NS_TEST_ASSERT_MSG_EQ(b->SendUnscheduled(odd, &hint),
                              b->GetMessageTime(odd).GetTimeStep(),
                              "another backend does not reuse the hint");

        // a Delivered sink must see every delivery: declined
        uint32_t seen = 0;
        b->TraceConnectWithoutContext("Delivered", MakeBoundCallback(&OnDelivered, &seen));
        NS_TEST_ASSERT_MSG_EQ(b->SendUnscheduled(m, nullptr), -1, "declined with a trace sink");

        auto f = MakeFlow(ring);
        NS_TEST_ASSERT_MSG_EQ((f->GetFixedTimeInterface() == nullptr),
                              true,
                              "flow times are not fixed");
        Simulator::Destroy();
    }
};

class FlowSharingTest : public TestCase
{
  public:
    FlowSharingTest()
        : TestCase("flow: alone, fair halves, arrival while in flight")
    {
    }

  private:
    void DoRun() override
    {
        // B = 1 byte/ns, 100 ns per link
        const Topology t = Topology::FromDimensions({{DimType::RING, 4, Gbps(1), 100}});
        auto r = RunPlan(MakeFlow(t), {{0, Msg(0, 1, 1000, 1)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 1100, "alone: latency + size / B");

        // two messages on the same directed link: each gets 1/2 -> drain at 2000
        auto f = MakeFlow(t);
        double rateMid = -1;
        Simulator::Schedule(NanoSeconds(10), [&]() { rateMid = f->GetFlowRate(2); });
        r = RunPlan(f, {{0, Msg(0, 1, 1000, 1)}, {0, Msg(0, 1, 1000, 2)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 2100, "shared: 2 x size / B + latency");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 2100, "shared: second");
        NS_TEST_ASSERT_MSG_EQ_TOL(rateMid, 0.5, 1e-12, "half rate each");
        NS_TEST_ASSERT_MSG_EQ(f->GetInvariantFailures(), 0, f->GetFirstInvariantFailure());

        // opposite directions are independent resources
        r = RunPlan(MakeFlow(t), {{0, Msg(0, 1, 1000, 1)}, {0, Msg(1, 0, 1000, 2)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 1100, "full duplex");

        // X alone for 500 ns (500 B), then both at 1/2: X drains at 1500; Y's
        // last 500 B alone: 2000
        r = RunPlan(MakeFlow(t), {{0, Msg(0, 1, 1000, 1)}, {500, Msg(0, 1, 1000, 2)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 1600, "X: 500 + 500 / 0.5 + latency");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 2100, "Y: then alone");

        // three on a link with different sizes: 300, 600, 900 B
        // t=900: A done (each sent 300); B, C at 1/2: B done at 900+600 = 1500; C at 1800
        r = RunPlan(MakeFlow(t),
                    {{0, Msg(0, 1, 300, 1)}, {0, Msg(0, 1, 600, 2)}, {0, Msg(0, 1, 900, 3)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 1000, "A");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 1600, "B");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[3], 1900, "C");

        // zero bytes: latency only; src == dst: immediate
        r = RunPlan(MakeFlow(t), {{5, Msg(0, 2, 0, 1)}, {5, Msg(3, 3, 100, 2)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 205, "0 bytes over 2 hops");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 5, "self");
    }
};

/// UpdateInterval: rate recomputation at most once per interval.
class FlowUpdateIntervalTest : public TestCase
{
  public:
    FlowUpdateIntervalTest()
        : TestCase("flow: UpdateInterval defers the rate change of a late arrival")
    {
    }

  private:
    void DoRun() override
    {
        const Topology t = Topology::FromDimensions({{DimType::RING, 4, Gbps(1), 100}});
        // exact: X alone 0..100 (100 B), then halves: X drains at 100 + 900 / 0.5 = 1900,
        // Y has 100 B left -> 2000
        auto r = RunPlan(MakeFlow(t), {{0, Msg(0, 1, 1000, 1)}, {100, Msg(0, 1, 1000, 2)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 2000, "exact X");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 2100, "exact Y");
        // interval 300: Y waits (rate 0) until 300; X has sent 300 by then and drains at
        // 300 + 700 / 0.5 = 1700; Y's last 300 B alone -> 2000
        auto f = MakeFlow(t);
        f->SetAttribute("UpdateInterval", TimeValue(NanoSeconds(300)));
        double yAt200 = -1;
        Simulator::Schedule(NanoSeconds(200), [&]() { yAt200 = f->GetFlowRate(2); });
        r = RunPlan(f, {{0, Msg(0, 1, 1000, 1)}, {100, Msg(0, 1, 1000, 2)}});
        NS_TEST_ASSERT_MSG_EQ_TOL(yAt200, 0.0, 1e-12, "Y not started before the interval ends");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 1800, "interval X");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 2100, "interval Y");
        NS_TEST_ASSERT_MSG_EQ(f->GetRecomputations(), 4, "at 0, 300, 1700 and 2000 (last drain)");
        NS_TEST_ASSERT_MSG_EQ(f->GetInvariantFailures(), 0, f->GetFirstInvariantFailure());
    }
};

/// Max-min with 3 flows on 2 links of different capacity.
class FlowMaxMinTest : public TestCase
{
  public:
    FlowMaxMinTest()
        : TestCase("flow: max-min, 3 flows on 2 links, bottleneck shares differ")
    {
    }

  private:
    void DoRun() override
    {
        // 2 x 2: dim 0 link 1 B/ns 10 ns, dim 1 link 3 B/ns 20 ns
        const Topology t = Topology::FromDimensions(
            {{DimType::RING, 2, Gbps(1), 10}, {DimType::RING, 2, Gbps(3), 20}});
        // A: 0 -> 3 over L1 (0->1) and L2 (1->3); B: 0 -> 1 on L1; C: 1 -> 3 on L2
        // L1 share 1/2 bottlenecks A and B; C gets 3 - 1/2 = 2.5.
        // t = 2000: A (1000 B) drains; B has 1000 left at 1 B/ns -> 3000;
        // C sent 5000 of 8000, then 3 B/ns -> 3000.
        auto f = MakeFlow(t);
        double ra = -1;
        double rb = -1;
        double rc = -1;
        double rc2 = -1;
        Simulator::Schedule(NanoSeconds(1), [&]() {
            ra = f->GetFlowRate(1);
            rb = f->GetFlowRate(2);
            rc = f->GetFlowRate(3);
        });
        Simulator::Schedule(NanoSeconds(2500), [&]() { rc2 = f->GetFlowRate(3); });
        auto r =
            RunPlan(f, {{0, Msg(0, 3, 1000, 1)}, {0, Msg(0, 1, 2000, 2)}, {0, Msg(1, 3, 8000, 3)}});
        NS_TEST_ASSERT_MSG_EQ_TOL(ra, 0.5, 1e-12, "A rate");
        NS_TEST_ASSERT_MSG_EQ_TOL(rb, 0.5, 1e-12, "B rate");
        NS_TEST_ASSERT_MSG_EQ_TOL(rc, 2.5, 1e-12, "C gets the rest of L2");
        NS_TEST_ASSERT_MSG_EQ_TOL(rc2, 3.0, 1e-12, "C alone");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 2030, "A: 2000 + 10 + 20");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 3010, "B");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[3], 3020, "C");
        NS_TEST_ASSERT_MSG_EQ(f->GetInvariantFailures(), 0, f->GetFirstInvariantFailure());
        NS_TEST_ASSERT_MSG_GT(f->GetInvariantChecks(), 0, "checks ran");
    }
};

/// Multi-dimensional routes in the fluid model; dimension-restricted sends.
class FlowMultiDimTest : public TestCase
{
  public:
    FlowMultiDimTest()
        : TestCase("flow: 3-D routes, path bottleneck, cross traffic, dim argument")
    {
    }

  private:
    void DoRun() override
    {
        // Ring 4 (1 B/ns, 10 ns) x Ring 4 (2 B/ns, 20 ns) x Ring 4 (4 B/ns, 30 ns)
        const Topology t = Topology::FromDimensions({{DimType::RING, 4, Gbps(1), 10},
                                                     {DimType::RING, 4, Gbps(2), 20},
                                                     {DimType::RING, 4, Gbps(4), 30}});
        // M1 0 -> 21 = (1,1,1): hops 0->1 (dim 0), 1->5 (dim 1), 5->21 (dim 2); alone: 60 + 1000
        auto r = RunPlan(MakeFlow(t), {{0, Msg(0, 21, 1000, 1)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 1060, "alone: path latency + bytes / slowest");
        // M2 1 -> 5 (dim 1, 3000 B) shares 1->5 with M1; M1 limited to 1 by dim 0, M2 gets 1;
        // t=1000 M1 drains, M2 has 2000 left at 2 B/ns -> 2000, delivered 2020
        r = RunPlan(MakeFlow(t), {{0, Msg(0, 21, 1000, 1)}, {0, Msg(1, 5, 3000, 2, 1)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 1060, "M1 unchanged");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 2020, "M2 gets the leftover, then all");
        // the same on the analytical backend ignores the sharing
        r = RunPlan(MakeAnalytical(t), {{0, Msg(0, 21, 1000, 1)}, {0, Msg(1, 5, 3000, 2, 1)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 1520, "analytical: 20 + 3000 / 2");
        // dimension argument across another dimension is an error
        auto f = MakeFlow(t);
        bool threw = false;
        try
        {
            f->Send(Msg(0, 21, 10, 0, 1), nullptr, nullptr);
        }
        catch (const std::invalid_argument&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "dim mismatch");
        threw = false;
        try
        {
            f->Send(Msg(64, 0, 10, 0), nullptr, nullptr);
        }
        catch (const std::out_of_range&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "out-of-range NPU");
        Simulator::Destroy();
    }
};

/// Random many-flow run: conservation, capacity, max-min invariants.
class FlowRandomTest : public TestCase
{
  public:
    FlowRandomTest()
        : TestCase("flow: 400 random messages keep invariants, conserve bytes, respect capacity")
    {
    }

  private:
    void DoRun() override
    {
        const Topology t = Topology::FromDimensions({{DimType::RING, 4, Gbps(2), 15},
                                                     {DimType::SWITCH, 3, Gbps(1), 40},
                                                     {DimType::FULLY_CONNECTED, 3, Gbps(0.5), 7}});
        std::mt19937_64 rng(12345);
        std::vector<Planned> plan;
        uint64_t totalBytes = 0;
        for (uint64_t i = 0; i < 400; ++i)
        {
            const uint32_t s = rng() % t.GetNpuCount();
            const uint32_t d = rng() % t.GetNpuCount();
            const uint64_t bytes = 1 + rng() % 20000;
            totalBytes += bytes;
            plan.push_back({int64_t(rng() % 50000), Msg(s, d, bytes, i)});
        }
        auto f = MakeFlow(t);
        uint32_t periodicFailures = 0;
        std::string firstPeriodic;
        for (int64_t at = 1; at < 200000; at += 997)
        {
            Simulator::Schedule(NanoSeconds(at), [&]() {
                const std::string e = f->CheckInvariants();
                if (!e.empty() && periodicFailures++ == 0)
                {
                    firstPeriodic = e;
                }
            });
        }
        auto r = RunPlan(f, plan);
        NS_TEST_ASSERT_MSG_EQ(r.delivered.size(), 400, "all delivered");
        NS_TEST_ASSERT_MSG_EQ(f->GetDeliveredBytes(), totalBytes, "bytes conserved");
        NS_TEST_ASSERT_MSG_EQ(f->GetPendingMessages(), 0, "none pending");
        NS_TEST_ASSERT_MSG_EQ(f->GetActiveFlows(), 0, "no active flows");
        NS_TEST_ASSERT_MSG_EQ(f->GetInvariantFailures(), 0, f->GetFirstInvariantFailure());
        NS_TEST_ASSERT_MSG_GT(f->GetInvariantChecks(), 100, "self checks ran");
        NS_TEST_ASSERT_MSG_EQ(periodicFailures, 0, firstPeriodic);

        // nobody is faster than alone; every directed link carried at most capacity x span
        const auto alone = MakeAnalytical(t);
        uint32_t tooFast = 0;
        std::vector<double> carried(2 * t.GetLinks().size(), 0.0);
        int64_t end = 0;
        for (const auto& p : plan)
        {
            const int64_t took = r.delivered[p.msg.tag] - p.atNs;
            if (took + 1 < alone->GetMessageTime(p.msg).GetNanoSeconds())
            {
                ++tooFast;
            }
            end = std::max(end, r.delivered[p.msg.tag]);
            for (const auto& h : t.Route(p.msg.src, p.msg.dst))
            {
                carried[2 * h.link + h.dir] += double(p.msg.bytes);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(tooFast, 0, "no message beats its uncongested time");
        uint32_t over = 0;
        for (size_t l = 0; l < carried.size(); ++l)
        {
            if (carried[l] > t.GetLinks()[l / 2].bytesPerNs * double(end) + 1e-6)
            {
                ++over;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(over, 0, "link capacity over the run");
        NS_TEST_ASSERT_MSG_GT(f->GetRecomputations(), 0, "recomputed");
    }
};

/// Store-and-forward compat mode of the reference's congestion-aware backend.
class FlowCompatTest : public TestCase
{
  public:
    FlowCompatTest()
        : TestCase("flow compat: store-and-forward per hop, FIFO links, truncation")
    {
    }

  private:
    void DoRun() override
    {
        const Topology ring = Topology::FromDimensions({{DimType::RING, 8, 50, 500}});
        const Topology sw = Topology::FromDimensions({{DimType::SWITCH, 8, 50, 500}});
        // m = 32768: trunc(500 + 610.35) = 1110 per hop, link held trunc(610.35) = 610
        auto r = RunPlan(MakeFlow(ring, true),
                         {{0, Msg(0, 1, 32768, 1)},
                          {0, Msg(0, 1, 32768, 2)},
                          {0, Msg(0, 1, 32768, 3)},
                          {0, Msg(2, 4, 32768, 4)},
                          {0, Msg(7, 6, 32768, 5)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 1110, "first");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 1720, "FIFO: starts at 610");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[3], 2330, "FIFO: starts at 1220");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[4], 2220, "2 hops store-and-forward");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[5], 1110, "other direction free");
        r = RunPlan(MakeFlow(sw, true), {{0, Msg(0, 5, 32768, 1)}, {0, Msg(3, 5, 32768, 2)}});
        NS_TEST_ASSERT_MSG_EQ(r.delivered[1], 2220, "switch: serialization paid twice");
        NS_TEST_ASSERT_MSG_EQ(r.delivered[2], 2830, "shared down-link: waits 610");
    }
};

/// For single uncongested messages the two backends agree.
class BackendsAgreeTest : public TestCase
{
  public:
    BackendsAgreeTest()
        : TestCase("analytical and flow agree on single uncongested messages")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<Topology> topos = {
            Topology::FromDimensions({{DimType::RING, 8, 50, 500}}),
            Topology::FromDimensions({{DimType::SWITCH, 8, 400, 936.25}}),
            Topology::FromDimensions({{DimType::RING, 2, 50, 500},
                                      {DimType::FULLY_CONNECTED, 4, 100, 250},
                                      {DimType::SWITCH, 4, 25, 700}})};
        uint32_t compared = 0;
        uint32_t differ = 0;
        std::mt19937_64 rng(7);
        for (const auto& t : topos)
        {
            for (int i = 0; i < 20; ++i)
            {
                const NetMessage m =
                    Msg(rng() % t.GetNpuCount(), rng() % t.GetNpuCount(), 1 + rng() % 5000000, 1);
                const auto a = RunPlan(MakeAnalytical(t), {{0, m}}).delivered[1];
                const auto f = RunPlan(MakeFlow(t), {{0, m}}).delivered[1];
                const auto ac = RunPlan(MakeAnalytical(t, true), {{0, m}}).delivered[1];
                ++compared;
                differ += a != f ? 1 : 0;
                // one hop: compat store-and-forward equals compat analytical
                if (t.Route(m.src, m.dst).size() == 1)
                {
                    const auto fc = RunPlan(MakeFlow(t, true), {{0, m}}).delivered[1];
                    differ += ac != fc ? 1 : 0;
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(compared, 60, "compared");
        NS_TEST_ASSERT_MSG_EQ(differ, 0, "analytical == flow for lone messages");
    }
};

/// The backend test suite.
class NetworkBackendTestSuite : public TestSuite
{
  public:
    NetworkBackendTestSuite()
        : TestSuite("astra-sim-network-backends", UNIT)
    {
        AddTestCase(new AnalyticalClosedFormTest, TestCase::QUICK);
        AddTestCase(new AnalyticalUnscheduledTest, TestCase::QUICK);
        AddTestCase(new FlowSharingTest, TestCase::QUICK);
        AddTestCase(new FlowMaxMinTest, TestCase::QUICK);
        AddTestCase(new FlowUpdateIntervalTest, TestCase::QUICK);
        AddTestCase(new FlowMultiDimTest, TestCase::QUICK);
        AddTestCase(new FlowRandomTest, TestCase::QUICK);
        AddTestCase(new FlowCompatTest, TestCase::QUICK);
        AddTestCase(new BackendsAgreeTest, TestCase::QUICK);
    }
};

static NetworkBackendTestSuite g_networkBackendTestSuite; //!< static instance
