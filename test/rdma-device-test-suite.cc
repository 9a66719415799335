/*
 * RdmaNetDevice + RdmaChannel: serialization timing (closed form, exact to the
 * time step), two events per frame per hop, PFC pause / expiry / refresh /
 * resume, in-flight frames finish, PFC precedence, strict control priorities,
 * DWRR among data priorities, host frame source with a single wake-up event,
 * receive error model drops.
 */

#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/pointer.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-net-device.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <chrono>
#include <functional>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// Two devices back to back.
struct Link
{
    Ptr<RdmaNetDevice> a; //!< sender
    Ptr<RdmaNetDevice> b; //!< receiver
    Ptr<RdmaChannel> ch;  //!< channel
};

Link
MakeLink(const std::string& rate, Time delay)
{
    Link l;
    l.a = CreateObject<RdmaNetDevice>();
    l.b = CreateObject<RdmaNetDevice>();
    l.a->SetAttribute("DataRate", StringValue(rate));
    l.b->SetAttribute("DataRate", StringValue(rate));
    l.a->SetPortIndex(1);
    l.b->SetPortIndex(2);
    l.ch = CreateObject<RdmaChannel>();
    l.ch->SetDelay(delay);
    l.a->Attach(l.ch);
    l.b->Attach(l.ch);
    return l;
}

void
Teardown(Link& l)
{
    Simulator::Destroy();
    l.a->Dispose();
    l.b->Dispose();
    l.ch->Dispose();
}

RdmaQueuedFrame
DataFrame(uint8_t prio, uint32_t psn, uint8_t opcode = RoceOpcode::WRITE_ONLY, uint32_t pl = 1000)
{
    RdmaQueuedFrame f;
    f.meta.kind = RdmaFrameKind::ROCE;
    f.meta.opcode = opcode;
    f.meta.priority = prio;
    f.meta.payload = (opcode == RoceOpcode::ACK) ? 0 : pl;
    f.meta.psn = psn;
    f.meta.srcIp = 0x0A000001;
    f.meta.dstIp = 0x0A000002;
    f.meta.ecn = 2;
    f.packet = RoceFrame::Build(f.meta);
    return f;
}

/// Deliver a PFC frame to d as if it had arrived from the wire.
void
InjectPfc(Ptr<RdmaNetDevice> d, uint16_t classEnable, uint16_t quanta)
{
    RdmaQueuedFrame f;
    f.meta.pfcClassEnable = classEnable;
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (classEnable & (1u << p))
        {
            f.meta.pfcQuanta[p] = quanta;
        }
    }
    f.packet = RoceFrame::BuildPfc(f.meta, Mac48Address("02:00:00:00:00:99"));
    d->Receive(f);
}

/// Closed form: end of serialization of frames [0, n) sent back to back from idle.
int64_t
CumNs(uint64_t bitsPerFrame, uint64_t n, uint64_t bps)
{
    return static_cast<int64_t>(bitsPerFrame * n * 1000000000ULL / bps);
}

/// One received frame.
struct RxRec
{
    int64_t ns;     //!< arrival time
    uint8_t prio;   //!< priority
    uint32_t psn;   //!< PSN
    uint8_t opcode; //!< opcode
};

/// Base with a receive recorder.
class DeviceTestBase : public TestCase
{
  public:
    explicit DeviceTestBase(std::string name)
        : TestCase(name)
    {
    }

  protected:
    void OnRx(Ptr<RdmaNetDevice>, RdmaQueuedFrame& f)
    {
        m_rx.push_back(
            {Simulator::Now().GetNanoSeconds(), f.meta.priority, f.meta.psn, f.meta.opcode});
    }

    void Listen(Ptr<RdmaNetDevice> d)
    {
        d->SetRxHandler(MakeCallback(&DeviceTestBase::OnRx, this));
    }

    std::vector<RxRec> m_rx; //!< received frames
};

} // namespace

/// N frames back to back: last arrival = N * txTime + delay, 2 events per frame.
class RdmaDeviceTimingTestCase : public DeviceTestBase
{
  public:
    RdmaDeviceTimingTestCase()
        : DeviceTestBase("back-to-back frames arrive at N x txTime + delay, 2 events per frame")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            const char* rate;
            uint64_t bps;
            uint32_t n;
            int64_t lastNs; // hand-computed closed form
        };

        // WRITE ONLY 1000 B = 1082 B frame + 20 B preamble/IFG = 8816 bits.
        const Case cases[] = {
            {"100Gbps", 100000000000ULL, 1000, 88160 + 1000}, // 88.16 ns per frame
            {"25Gbps", 25000000000ULL, 1000, 352640 + 1000},  // 352.64 ns
            {"10Gbps", 10000000000ULL, 7, 6171 + 1000},       // floor(7 x 881.6)
            {"400Gbps", 400000000000ULL, 3, 66 + 1000},       // floor(3 x 22.04)
        };
        for (const auto& c : cases)
        {
            m_rx.clear();
            Link l = MakeLink(c.rate, NanoSeconds(1000));
            Listen(l.b);
            NS_TEST_ASSERT_MSG_EQ((l.a->GetTxTime(1082)),
                                  (NanoSeconds(CumNs(8816, 1, c.bps))),
                                  "GetTxTime at " << c.rate);
            uint64_t ev0 = Simulator::GetEventCount();
            for (uint32_t k = 0; k < c.n; ++k)
            {
                l.a->EnqueueFrame(DataFrame(3, k));
            }
            Simulator::Run();
            uint64_t events = Simulator::GetEventCount() - ev0;
            NS_TEST_ASSERT_MSG_EQ((m_rx.size()), (c.n), "frames received at " << c.rate);
            NS_TEST_ASSERT_MSG_EQ((m_rx.back().ns), (c.lastNs), "last arrival at " << c.rate);
            NS_TEST_ASSERT_MSG_EQ((m_rx.back().ns),
                                  (CumNs(8816, c.n, c.bps) + 1000),
                                  "closed form at " << c.rate);
            NS_TEST_ASSERT_MSG_EQ((m_rx.front().ns),
                                  (CumNs(8816, 1, c.bps) + 1000),
                                  "first arrival at " << c.rate);
            bool inOrder = true;
            // every arrival exact: with the 1 us delay up to 45 frames are in flight, and
            // each reception event schedules the next from its own arrival time ("now"
            // without Simulator::Now())
            uint32_t exact = 0;
            for (uint32_t k = 0; k < m_rx.size(); ++k)
            {
                inOrder = inOrder && m_rx[k].psn == k;
                exact += m_rx[k].ns == CumNs(8816, k + 1, c.bps) + 1000 ? 1 : 0;
            }
            NS_TEST_ASSERT_MSG_EQ((inOrder), (true), "FIFO order");
            NS_TEST_ASSERT_MSG_EQ(exact, c.n, "every arrival at (k + 1) x txTime + delay");
            NS_TEST_ASSERT_MSG_EQ((events), (2ULL * c.n), "events per frame per hop (2)");
            NS_TEST_ASSERT_MSG_EQ((l.a->GetTxBytes()), (1082ULL * c.n), "tx bytes");
            NS_TEST_ASSERT_MSG_EQ((l.a->GetTxFrames()), (uint64_t(c.n)), "tx frames");
            NS_TEST_ASSERT_MSG_EQ((l.b->GetRxFrames()), (uint64_t(c.n)), "rx frames");
            NS_TEST_ASSERT_MSG_EQ((l.b->GetRxBytes()), (1082ULL * c.n), "rx bytes");
            NS_TEST_ASSERT_MSG_EQ((l.a->GetQueueBytes(3)), (0u), "queue drained");
            Teardown(l);
        }
    }
};

/// PFC pause expiry, refresh (extend and shorten), explicit resume.
class RdmaDevicePfcTestCase : public DeviceTestBase
{
  public:
    RdmaDevicePfcTestCase()
        : DeviceTestBase("PFC: pause of q quanta lasts q x 512 bit times, refresh, resume")
    {
    }

  private:
    void PauseTrace(uint8_t p, bool paused)
    {
        m_pauseLog.push_back({Simulator::Now().GetNanoSeconds(), p, paused});
    }

    struct PauseRec
    {
        int64_t ns;
        uint8_t prio;
        bool paused;
    };

    std::vector<PauseRec> m_pauseLog;

    void DoRun() override
    {
        // 10 Gbps: 1 quantum = 512 bits = 51.2 ns; data frame 881.6 ns; delay 100 ns.
        struct Case
        {
            const char* what;
            // (time ns, quanta) PFC frames injected at the sender for priority 3
            std::vector<std::pair<int64_t, uint16_t>> pfc;
            int64_t enqueueNs;
            int64_t pausedNs;
        };

        const Case cases[] = {
            {"expiry of 100 quanta", {{0, 100}}, 1000, 5120},
            {"refresh extends", {{0, 100}, {2000, 100}}, 1000, 7120},
            {"refresh shortens", {{0, 100}, {1000, 10}}, 500, 1512},
            {"resume with 0", {{0, 65535}, {3000, 0}}, 1000, 3000},
            {"max quanta expires", {{0, 65535}}, 0, 3355392},
        };
        for (const auto& c : cases)
        {
            m_rx.clear();
            m_pauseLog.clear();
            Link l = MakeLink("10Gbps", NanoSeconds(100));
            Listen(l.b);
            l.a->TraceConnectWithoutContext("PauseState",
                                            MakeCallback(&RdmaDevicePfcTestCase::PauseTrace, this));
            for (const auto& [t, q] : c.pfc)
            {
                Ptr<RdmaNetDevice> a = l.a;
                uint16_t quanta = q;
                Simulator::Schedule(NanoSeconds(t),
                                    [a, quanta]() { InjectPfc(a, 1u << 3, quanta); });
            }
            Ptr<RdmaNetDevice> a = l.a;
            Simulator::Schedule(NanoSeconds(c.enqueueNs), [a]() {
                a->EnqueueFrame(DataFrame(3, 0));
                a->EnqueueFrame(DataFrame(3, 1));
                a->EnqueueFrame(DataFrame(2, 2)); // another priority is not paused
            });
            bool pausedBefore = false;
            bool pausedAfter = true;
            Simulator::Schedule(NanoSeconds(c.pausedNs - 1),
                                [a, &pausedBefore]() { pausedBefore = a->IsPaused(3); });
            Simulator::Schedule(NanoSeconds(c.pausedNs + 1),
                                [a, &pausedAfter]() { pausedAfter = a->IsPaused(3); });
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ((m_rx.size()), (3u), c.what << ": frames received");
            // The priority 2 frame goes first (not paused): enqueued at enqueueNs.
            NS_TEST_ASSERT_MSG_EQ((+m_rx[0].prio), (2), c.what << ": unpaused priority first");
            NS_TEST_ASSERT_MSG_EQ((m_rx[0].ns),
                                  (c.enqueueNs + 881 + 100),
                                  c.what << ": unpaused priority not delayed");
            NS_TEST_ASSERT_MSG_EQ((+m_rx[1].prio), (3), c.what << ": paused priority");
            // Priority 3 starts exactly at the expiry; serialization 882 ns (carry 0.6 from
            // the priority 2 frame that ended before the expiry), then 881 ns.
            NS_TEST_ASSERT_MSG_EQ((m_rx[1].ns),
                                  (c.pausedNs + 882 + 100),
                                  c.what << ": priority 3 starts at the expiry");
            NS_TEST_ASSERT_MSG_EQ((m_rx[2].ns),
                                  (c.pausedNs + 882 + 881 + 100),
                                  c.what << ": second priority 3 frame back to back");
            NS_TEST_ASSERT_MSG_EQ((pausedBefore), (true), c.what << ": paused 1 ns before expiry");
            NS_TEST_ASSERT_MSG_EQ((pausedAfter), (false), c.what << ": resumed 1 ns after expiry");
            NS_TEST_ASSERT_MSG_EQ((l.a->GetPauseTime(3)),
                                  (NanoSeconds(c.pausedNs)),
                                  c.what << ": accumulated pause time");
            NS_TEST_ASSERT_MSG_EQ((m_pauseLog.size()), (2u), c.what << ": one pause, one resume");
            NS_TEST_ASSERT_MSG_EQ((m_pauseLog.back().ns),
                                  (c.pausedNs),
                                  c.what << ": resume time in trace");
            NS_TEST_ASSERT_MSG_EQ((l.a->GetPfcRxFrames()),
                                  (uint64_t(c.pfc.size())),
                                  c.what << ": PFC frames counted");
            Teardown(l);
        }
    }
};

/// The priority-3 arrival times of the PFC cases, asserted exactly (closed forms).
class RdmaDevicePfcExactTestCase : public DeviceTestBase
{
  public:
    RdmaDevicePfcExactTestCase()
        : DeviceTestBase("PFC exact: data resumes at the expiry, frames in flight finish")
    {
    }

  private:
    void DoRun() override
    {
        // 1) Pause of 100 quanta at t=0 (10 Gbps: 5120 ns), data enqueued at 1000 ns:
        //    starts at 5120, arrives 5120 + 881 + 100.
        {
            m_rx.clear();
            Link l = MakeLink("10Gbps", NanoSeconds(100));
            Listen(l.b);
            Ptr<RdmaNetDevice> a = l.a;
            Simulator::Schedule(NanoSeconds(0), [a]() { InjectPfc(a, 1u << 3, 100); });
            Simulator::Schedule(NanoSeconds(1000), [a]() { a->EnqueueFrame(DataFrame(3, 0)); });
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ((m_rx.size()), (1u), "one frame");
            NS_TEST_ASSERT_MSG_EQ((m_rx[0].ns), (int64_t(5120 + 881 + 100)), "expiry arrival");
            Teardown(l);
        }
        // 2) Refresh at 2000 ns extends to 7120.
        {
            m_rx.clear();
            Link l = MakeLink("10Gbps", NanoSeconds(100));
            Listen(l.b);
            Ptr<RdmaNetDevice> a = l.a;
            Simulator::Schedule(NanoSeconds(0), [a]() { InjectPfc(a, 1u << 3, 100); });
            Simulator::Schedule(NanoSeconds(2000), [a]() { InjectPfc(a, 1u << 3, 100); });
            Simulator::Schedule(NanoSeconds(1000), [a]() { a->EnqueueFrame(DataFrame(3, 0)); });
            uint64_t ev0 = Simulator::GetEventCount();
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ((m_rx[0].ns), (int64_t(7120 + 881 + 100)), "refresh arrival");
            // events: 3 test events + 2 (frame) + 2 pause timer firings (lazy re-arm)
            NS_TEST_ASSERT_MSG_EQ((Simulator::GetEventCount() - ev0), (7u), "no timer pile-up");
            Teardown(l);
        }
        // 3) Resume (quanta 0) at 3000 ns restarts immediately.
        {
            m_rx.clear();
            Link l = MakeLink("10Gbps", NanoSeconds(100));
            Listen(l.b);
            Ptr<RdmaNetDevice> a = l.a;
            Simulator::Schedule(NanoSeconds(0), [a]() { InjectPfc(a, 1u << 3, 65535); });
            Simulator::Schedule(NanoSeconds(1000), [a]() { a->EnqueueFrame(DataFrame(3, 0)); });
            Simulator::Schedule(NanoSeconds(3000), [a]() { InjectPfc(a, 1u << 3, 0); });
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ((m_rx[0].ns), (int64_t(3000 + 881 + 100)), "resume arrival");
            NS_TEST_ASSERT_MSG_EQ((l.a->GetPauseTime(3)), (NanoSeconds(3000)), "paused 3 us");
            Teardown(l);
        }
        // 4) End to end: b sends PFC(3, 200) at t=0 while a serializes frame 0 (0..881 ns).
        //    PFC frame 64 B + 20 = 672 bits = 67 ns; arrives at a at 167 ns; pause until
        //    167 + 200 x 51.2 = 10407 ns. Frame 0 finishes (arrival 981); frame 1 starts at
        //    10407 and takes 882 ns (carry 0.6 + 881.6): arrival 11389.
        {
            m_rx.clear();
            Link l = MakeLink("10Gbps", NanoSeconds(100));
            Listen(l.b);
            uint32_t aRx = 0;
            l.a->SetRxHandler(MakeBoundCallback(
                +[](uint32_t* n, Ptr<RdmaNetDevice>, RdmaQueuedFrame&) { ++*n; },
                &aRx));
            std::vector<std::pair<uint8_t, uint16_t>> pfcRx;
            l.a->TraceConnectWithoutContext(
                "PfcRx",
                MakeBoundCallback(
                    +[](std::vector<std::pair<uint8_t, uint16_t>>* v, uint8_t p, uint16_t q) {
                        v->push_back({p, q});
                    },
                    &pfcRx));
            l.a->EnqueueFrame(DataFrame(3, 0));
            l.a->EnqueueFrame(DataFrame(3, 1));
            l.b->SendPfc(3, 200);
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ((m_rx.size()), (2u), "two frames");
            NS_TEST_ASSERT_MSG_EQ((m_rx[0].ns), (int64_t(981)), "in-flight frame finished");
            NS_TEST_ASSERT_MSG_EQ((m_rx[1].ns), (int64_t(11389)), "frame after the pause");
            NS_TEST_ASSERT_MSG_EQ((l.a->GetPauseTime(3)), (NanoSeconds(10240)), "pause time");
            NS_TEST_ASSERT_MSG_EQ((aRx), (0u), "PFC frames are not passed to the RxHandler");
            NS_TEST_ASSERT_MSG_EQ((l.a->GetPfcRxFrames()), (1u), "PFC rx counted");
            NS_TEST_ASSERT_MSG_EQ((l.b->GetPfcTxFrames()), (1u), "PFC tx counted");
            NS_TEST_ASSERT_MSG_EQ((pfcRx.size()), (1u), "PfcRx trace once");
            NS_TEST_ASSERT_MSG_EQ((+pfcRx[0].first), (3), "PfcRx priority");
            NS_TEST_ASSERT_MSG_EQ((pfcRx[0].second), (200), "PfcRx quanta");
            Teardown(l);
        }
        // 5) PfcEnabled=false: frames are counted but ignored.
        {
            m_rx.clear();
            Link l = MakeLink("10Gbps", NanoSeconds(100));
            Listen(l.b);
            l.a->SetAttribute("PfcEnabled", BooleanValue(false));
            Ptr<RdmaNetDevice> a = l.a;
            Simulator::Schedule(NanoSeconds(0), [a]() { InjectPfc(a, 1u << 3, 100); });
            Simulator::Schedule(NanoSeconds(1000), [a]() { a->EnqueueFrame(DataFrame(3, 0)); });
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ((m_rx[0].ns), (int64_t(1000 + 881 + 100)), "not paused");
            NS_TEST_ASSERT_MSG_EQ((l.a->GetPfcRxFrames()), (1u), "counted");
            Teardown(l);
        }
    }
};

/// Scheduling: PFC precedence, strict control priorities, DWRR among data priorities.
class RdmaDeviceSchedulingTestCase : public DeviceTestBase
{
  public:
    RdmaDeviceSchedulingTestCase()
        : DeviceTestBase("scheduling: PFC first, control strict, DWRR weights among data")
    {
    }

  private:
    void DoRun() override
    {
        // Control overtakes queued data: 5 data frames at t=0, an ACK (prio 7) at 100 ns.
        // The ACK is the second frame: ends at floor((8816 + 720) / 10) = 953 ns.
        {
            m_rx.clear();
            Link l = MakeLink("10Gbps", NanoSeconds(100));
            Listen(l.b);
            for (uint32_t k = 0; k < 5; ++k)
            {
                l.a->EnqueueFrame(DataFrame(3, k));
            }
            Ptr<RdmaNetDevice> a = l.a;
            Simulator::Schedule(NanoSeconds(100),
                                [a]() { a->EnqueueFrame(DataFrame(7, 99, RoceOpcode::ACK)); });
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ((m_rx.size()), (6u), "all frames");
            NS_TEST_ASSERT_MSG_EQ((m_rx[0].psn), (0u), "first data frame in flight finishes");
            NS_TEST_ASSERT_MSG_EQ((+m_rx[1].opcode), (+RoceOpcode::ACK), "ACK overtakes");
            NS_TEST_ASSERT_MSG_EQ((m_rx[1].ns), (int64_t(953 + 100)), "ACK arrival");
            NS_TEST_ASSERT_MSG_EQ((m_rx[2].psn), (1u), "then data resumes in order");
            Teardown(l);
        }
        // SendPfc goes before queued data (and before control frames).
        {
            m_rx.clear();
            Link l = MakeLink("10Gbps", NanoSeconds(100));
            Listen(l.b);
            for (uint32_t k = 0; k < 3; ++k)
            {
                l.a->EnqueueFrame(DataFrame(3, k));
            }
            Ptr<RdmaNetDevice> a = l.a;
            Ptr<RdmaNetDevice> b = l.b;
            Simulator::Schedule(NanoSeconds(10), [a]() {
                a->EnqueueFrame(DataFrame(7, 99, RoceOpcode::ACK));
                a->SendPfc(3, 1000);
                a->SendPfc(2, 500); // coalesced into the same pending PFC frame
            });
            bool bPaused = false;
            // PFC ends at floor((8816 + 672) / 10) = 948 ns, arrives at b at 1048 ns.
            Simulator::Schedule(NanoSeconds(1049),
                                [b, &bPaused]() { bPaused = b->IsPaused(3) && b->IsPaused(2); });
            bool bNotYet = true;
            Simulator::Schedule(NanoSeconds(1047), [b, &bNotYet]() { bNotYet = b->IsPaused(3); });
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ((bNotYet), (false), "b not paused before the PFC arrives");
            NS_TEST_ASSERT_MSG_EQ((bPaused), (true), "b paused on 2 and 3 when PFC arrived");
            NS_TEST_ASSERT_MSG_EQ((l.a->GetPfcTxFrames()), (1u), "one coalesced PFC frame");
            NS_TEST_ASSERT_MSG_EQ((m_rx.size()), (4u), "data + ACK delivered");
            NS_TEST_ASSERT_MSG_EQ((+m_rx[1].opcode), (+RoceOpcode::ACK), "ACK after the PFC");
            NS_TEST_ASSERT_MSG_EQ((m_rx[1].ns), (int64_t(1020 + 100)), "ACK arrival");
            Teardown(l);
        }
        // DWRR: priorities 1 and 2 with weights 1 and 3, quantum = one frame.
        {
            m_rx.clear();
            Link l = MakeLink("10Gbps", NanoSeconds(100));
            Listen(l.b);
            l.a->SetAttribute("DataWeights", StringValue("1,1,3,1,1,1,1,1"));
            l.a->SetAttribute("DwrrQuantum", UintegerValue(1082));
            InjectPfc(l.a, 0x06, 1000); // pause 1 and 2 while filling the queues
            for (uint32_t k = 0; k < 8; ++k)
            {
                l.a->EnqueueFrame(DataFrame(1, 100 + k));
                l.a->EnqueueFrame(DataFrame(2, 200 + k));
            }
            Ptr<RdmaNetDevice> a = l.a;
            Simulator::Schedule(NanoSeconds(10), [a]() { InjectPfc(a, 0x06, 0); });
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ((m_rx.size()), (16u), "all frames");
            const uint8_t expect[8] = {1, 2, 2, 2, 1, 2, 2, 2};
            uint32_t n2 = 0;
            for (int k = 0; k < 8; ++k)
            {
                NS_TEST_ASSERT_MSG_EQ((+m_rx[k].prio), (+expect[k]), "DWRR order at " << k);
                n2 += m_rx[k].prio == 2;
            }
            NS_TEST_ASSERT_MSG_EQ((n2), (6u), "weight 3 gets 3/4 of the first 8 frames");
            Teardown(l);
        }
    }
};

/// Host mode: frame source polled when the port is free; one wake-up, no pile-up.
class RdmaDeviceSourceTestCase : public DeviceTestBase, public RdmaFrameSource
{
  public:
    RdmaDeviceSourceTestCase()
        : DeviceTestBase("frame source: paced frames, single wake-up event, pausedMask")
    {
    }

    bool DequeueFrame(uint8_t pausedMask, RdmaQueuedFrame& frame, Time& nextTry) override
    {
        ++m_calls;
        m_lastMask = pausedMask;
        if (m_next >= 5)
        {
            nextTry = Time::Max();
            return false;
        }
        Time ready = NanoSeconds(2000 * m_next);
        if (Simulator::Now() < ready)
        {
            nextTry = ready;
            return false;
        }
        frame = DataFrame(3, m_next++);
        return true;
    }

  private:
    uint32_t m_calls{0};
    uint32_t m_next{0};
    uint8_t m_lastMask{0};

    void DoRun() override
    {
        Link l = MakeLink("10Gbps", NanoSeconds(100));
        Listen(l.b);
        l.a->SetFrameSource(this);
        Ptr<RdmaNetDevice> a = l.a;
        uint64_t ev0 = Simulator::GetEventCount();
        l.a->NotifySourceReady();
        Simulator::Schedule(NanoSeconds(1000), [a]() {
            for (int k = 0; k < 100; ++k)
            {
                a->NotifySourceReady(); // must not pile up wake-ups
            }
        });
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ((m_rx.size()), (5u), "frames");
        // per-frame serialization floor(cumulative 881.6 ns): 881, 882, 881, 882, 882
        const int64_t expect[5] = {981, 2982, 4981, 6982, 8982};
        for (int k = 0; k < 5; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ((m_rx[k].ns), (expect[k]), "arrival of frame " << k);
        }
        // polls: one at each start (5) + one at each tx-complete (5) + 100 notifications
        NS_TEST_ASSERT_MSG_EQ((m_calls), (110u), "DequeueFrame calls");
        // events: 2 per frame + 4 wake-ups + the test's own event
        NS_TEST_ASSERT_MSG_EQ((Simulator::GetEventCount() - ev0), (15u), "events");
        NS_TEST_ASSERT_MSG_EQ((+m_lastMask), (0), "pausedMask");
        Teardown(l);

        // pausedMask is passed to the source.
        m_rx.clear();
        m_calls = 0;
        m_next = 10; // source empty
        l = MakeLink("10Gbps", NanoSeconds(100));
        l.a->SetFrameSource(this);
        InjectPfc(l.a, 0x28, 100);
        l.a->NotifySourceReady();
        NS_TEST_ASSERT_MSG_EQ((+m_lastMask), (0x28), "pausedMask 3 and 5 seen by the source");
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ((+m_lastMask), (0), "resumed mask seen after expiry");
        Teardown(l);
    }
};

/// ReceiveErrorModel drops corrupted frames, counted and traced.
class RdmaDeviceErrorTestCase : public DeviceTestBase
{
  public:
    RdmaDeviceErrorTestCase()
        : DeviceTestBase("receive error model drops frames, counted and traced")
    {
    }

  private:
    void DoRun() override
    {
        Link l = MakeLink("100Gbps", NanoSeconds(1000));
        Listen(l.b);
        std::vector<RdmaQueuedFrame> frames;
        for (uint32_t k = 0; k < 5; ++k)
        {
            frames.push_back(DataFrame(3, k));
        }
        Ptr<ListErrorModel> em = CreateObject<ListErrorModel>();
        em->SetList({static_cast<uint32_t>(frames[2].packet->GetUid())});
        l.b->SetAttribute("ReceiveErrorModel", PointerValue(em));
        std::vector<uint8_t> reasons;
        l.b->TraceConnectWithoutContext(
            "Drop",
            MakeBoundCallback(
                +[](std::vector<uint8_t>* v, const RdmaQueuedFrame&, uint8_t r) {
                    v->push_back(r);
                },
                &reasons));
        for (auto& f : frames)
        {
            l.a->EnqueueFrame(std::move(f));
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ((m_rx.size()), (4u), "4 of 5 delivered");
        NS_TEST_ASSERT_MSG_EQ((m_rx[2].psn), (3u), "PSN 2 dropped");
        NS_TEST_ASSERT_MSG_EQ((l.b->GetDrops()), (1u), "drop counted");
        NS_TEST_ASSERT_MSG_EQ((reasons.size()), (1u), "drop traced");
        NS_TEST_ASSERT_MSG_EQ((+reasons[0]), (+RdmaNetDevice::DROP_RX_ERROR), "reason");
        NS_TEST_ASSERT_MSG_EQ((l.b->GetRxFrames()), (4u), "rx frames exclude drops");
        Teardown(l);
    }
};

/// Store-and-forward chain: exact pipeline timing and exactly 2 events per frame per hop.
class RdmaDeviceChainTestCase : public DeviceTestBase, public RdmaFrameSource
{
  public:
    RdmaDeviceChainTestCase()
        : DeviceTestBase("3-hop forwarding chain: pipeline closed form, 2 events per hop")
    {
    }

    bool DequeueFrame(uint8_t, RdmaQueuedFrame& frame, Time& nextTry) override
    {
        if (m_next >= kFrames)
        {
            nextTry = Time::Max();
            return false;
        }
        frame = DataFrame(3, m_next++, RoceOpcode::WRITE_ONLY);
        return true;
    }

  private:
    static constexpr uint32_t kFrames = 2000;
    static constexpr uint32_t kHops = 3;
    uint32_t m_next{0};
    std::vector<Ptr<RdmaNetDevice>> m_fwd; //!< next-hop sender per link

    void Forward(Ptr<RdmaNetDevice> d, RdmaQueuedFrame& f)
    {
        const uint32_t i = d->GetPortIndex();
        if (i + 1 < kHops)
        {
            m_fwd[i + 1]->EnqueueFrame(std::move(f));
        }
        else
        {
            OnRx(d, f);
        }
    }

    void DoRun() override
    {
        std::vector<Link> links;
        for (uint32_t h = 0; h < kHops; ++h)
        {
            links.push_back(MakeLink("100Gbps", NanoSeconds(1000)));
            links.back().b->SetPortIndex(h);
            links.back().b->SetRxHandler(MakeCallback(&RdmaDeviceChainTestCase::Forward, this));
            m_fwd.push_back(links.back().a);
        }
        links[0].a->SetFrameSource(this);
        uint64_t ev0 = Simulator::GetEventCount();
        auto t0 = std::chrono::steady_clock::now();
        links[0].a->NotifySourceReady();
        Simulator::Run();
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        uint64_t events = Simulator::GetEventCount() - ev0;
        NS_TEST_ASSERT_MSG_EQ((m_rx.size()), (kFrames), "frames through the chain");
        // Source link: frame k ends at floor((k+1) x 88.16 ns); every later hop has the same
        // per-frame times, so the last frame arrives at end(N-1) + (H-1) x t(N-1) + H x delay
        // = 176320 + 2 x 89 + 3000.
        NS_TEST_ASSERT_MSG_EQ((m_rx.back().ns), (int64_t(176320 + 2 * 89 + 3000)), "last arrival");
        NS_TEST_ASSERT_MSG_EQ((events), (2ULL * kHops * kFrames), "exactly 2 events per frame-hop");
        std::clog << "  [perf] " << kHops * kFrames << " packet-hops in " << wall
                  << " s wall = " << (kHops * kFrames / wall)
                  << " packet-hops/s (incl. frame building)" << std::endl;
        for (auto& l : links)
        {
            l.a->Dispose();
            l.b->Dispose();
            l.ch->Dispose();
        }
        Simulator::Destroy();
    }
};

/// Handlers and trace sources: TxHandler timing and re-entrancy, DequeueHandler, queue traces.
class RdmaDeviceHandlersTestCase : public DeviceTestBase, public RdmaFrameSource
{
  public:
    RdmaDeviceHandlersTestCase()
        : DeviceTestBase("handlers: TxHandler times and re-entrant enqueue, DequeueHandler, traces")
    {
    }

    bool DequeueFrame(uint8_t, RdmaQueuedFrame&, Time& nextTry) override
    {
        ++m_srcCalls;
        if (m_srcCalls == 1)
        {
            // re-entrant: the source enqueues a control frame while being polled
            m_dev->EnqueueFrame(DataFrame(7, 77, RoceOpcode::ACK));
        }
        nextTry = Time::Max();
        return false;
    }

  private:
    Ptr<RdmaNetDevice> m_dev;
    uint32_t m_srcCalls{0};
    std::vector<std::pair<int64_t, uint32_t>> m_txDone; //!< (time, psn)
    std::vector<uint32_t> m_deqPsn;                     //!< dequeue handler order
    std::vector<uint32_t> m_qBytes;                     //!< Enqueue/Dequeue trace bytes
    uint32_t m_macTx{0};
    uint32_t m_sniff{0};

    void OnTxDone(Ptr<RdmaNetDevice> d, const RdmaQueuedFrame& f)
    {
        m_txDone.push_back({Simulator::Now().GetNanoSeconds(), f.meta.psn});
        if (f.meta.psn == 0)
        {
            d->EnqueueFrame(DataFrame(3, 100)); // re-entrant enqueue from the handler
        }
    }

    void OnDequeue(Ptr<RdmaNetDevice>, RdmaQueuedFrame& f)
    {
        m_deqPsn.push_back(f.meta.psn);
        f.meta.ttl = 9; // the handler may modify the meta before serialization
    }

    void OnQueue(uint8_t, uint32_t bytes)
    {
        m_qBytes.push_back(bytes);
    }

    void OnMacTx(const RdmaQueuedFrame& f)
    {
        m_macTx += (f.meta.ttl == 9 || f.meta.kind == RdmaFrameKind::PFC) ? 1 : 1000;
    }

    void OnSniff(Ptr<const Packet>)
    {
        ++m_sniff;
    }

    void DoRun() override
    {
        Link l = MakeLink("10Gbps", NanoSeconds(100));
        Listen(l.b);
        l.a->SetTxHandler(MakeCallback(&RdmaDeviceHandlersTestCase::OnTxDone, this));
        l.a->SetDequeueHandler(MakeCallback(&RdmaDeviceHandlersTestCase::OnDequeue, this));
        l.a->TraceConnectWithoutContext("Enqueue",
                                        MakeCallback(&RdmaDeviceHandlersTestCase::OnQueue, this));
        l.a->TraceConnectWithoutContext("Dequeue",
                                        MakeCallback(&RdmaDeviceHandlersTestCase::OnQueue, this));
        l.a->TraceConnectWithoutContext("MacTx",
                                        MakeCallback(&RdmaDeviceHandlersTestCase::OnMacTx, this));
        l.a->TraceConnectWithoutContext("Sniffer",
                                        MakeCallback(&RdmaDeviceHandlersTestCase::OnSniff, this));
        l.b->TraceConnectWithoutContext("Sniffer",
                                        MakeCallback(&RdmaDeviceHandlersTestCase::OnSniff, this));
        uint64_t ev0 = Simulator::GetEventCount();
        for (uint32_t k = 0; k < 3; ++k)
        {
            l.a->EnqueueFrame(DataFrame(3, k));
        }
        Simulator::Run();
        // frames 0,1,2 then 100 (enqueued by the TxHandler of frame 0 at 881 ns)
        NS_TEST_ASSERT_MSG_EQ((m_txDone.size()), 4u, "TxHandler calls");
        const int64_t doneNs[4] = {881, 1763, 2644, 3526}; // floor(k x 881.6)
        const uint32_t psn[4] = {0, 1, 2, 100};
        for (int k = 0; k < 4; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ((m_txDone[k].first), (doneNs[k]), "tx complete time " << k);
            NS_TEST_ASSERT_MSG_EQ((m_txDone[k].second), (psn[k]), "tx complete order " << k);
            NS_TEST_ASSERT_MSG_EQ((m_deqPsn[k]), (psn[k]), "dequeue handler order " << k);
            NS_TEST_ASSERT_MSG_EQ((m_rx[k].ns), (doneNs[k] + 100), "arrival " << k);
        }
        NS_TEST_ASSERT_MSG_EQ(m_macTx, 4u, "MacTx sees the meta modified by the DequeueHandler");
        NS_TEST_ASSERT_MSG_EQ(m_sniff, 8u, "Sniffer: 4 at the sender + 4 at the receiver");
        NS_TEST_ASSERT_MSG_EQ((Simulator::GetEventCount() - ev0), 8u, "2 events per frame");
        // enqueue 0 (dequeued at once), 1, 2; at 881 ns the TxHandler enqueues 100 before the
        // next dequeue: 1082, 0, 1082, 2164, 3246, 2164, 1082, 0
        const uint32_t qb[] = {1082, 0, 1082, 2164, 3246, 2164, 1082, 0};
        NS_TEST_ASSERT_MSG_EQ((m_qBytes.size()), 8u, "queue trace calls");
        for (size_t k = 0; k < m_qBytes.size() && k < 8; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ((m_qBytes[k]), (qb[k]), "queue bytes trace " << k);
        }
        Teardown(l);

        // A source that enqueues a control frame while polled: the device sends it at once.
        m_rx.clear();
        l = MakeLink("10Gbps", NanoSeconds(100));
        Listen(l.b);
        m_dev = l.a;
        l.a->SetFrameSource(this);
        l.a->NotifySourceReady();
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ((m_rx.size()), 1u, "control frame sent");
        NS_TEST_ASSERT_MSG_EQ(m_rx[0].psn, 77u, "the ACK");
        NS_TEST_ASSERT_MSG_EQ((m_rx[0].ns), (int64_t(72 + 100)), "sent immediately");
        m_dev = nullptr;
        Teardown(l);

        // No RxHandler: counted as a drop with reason NO_HANDLER.
        l = MakeLink("10Gbps", NanoSeconds(100));
        l.a->EnqueueFrame(DataFrame(3, 0));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ((l.b->GetDrops()), 1u, "drop without handler");
        Teardown(l);
    }
};

/// Run f in a forked child; return its stderr, prefixed with "EXIT:" if it did not abort.
std::string
DeathMessage(const std::function<void()>& f)
{
    int fds[2];
    if (pipe(fds) != 0)
    {
        return "EXIT:pipe failed";
    }
    std::cout.flush();
    std::cerr.flush();
    pid_t pid = fork();
    if (pid == 0)
    {
        dup2(fds[1], 2);
        close(fds[0]);
        f();
        _exit(0);
    }
    close(fds[1]);
    std::string out;
    char buf[512];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0)
    {
        out.append(buf, n);
    }
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    const bool aborted = WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) != 0);
    return aborted ? out : "EXIT:" + out;
}

/// Invalid attribute values throw astra::InputError (programs exit 1); invalid frames (a
/// programming error) abort; both with a message naming the device and the cause.
class RdmaDeviceValidationTestCase : public TestCase
{
  public:
    RdmaDeviceValidationTestCase()
        : TestCase("invalid attributes throw InputError, invalid frames abort, clear messages")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            const char* what;
            std::function<void()> f;
            const char* expect;
            bool input; //!< user input: astra::InputError, else abort
        };

        const Case cases[] = {
            {"zero DataRate",
             []() {
                 Ptr<RdmaNetDevice> d = CreateObject<RdmaNetDevice>();
                 d->SetPortIndex(4);
                 d->SetAttribute("DataRate", StringValue("0bps"));
             },
             "port 4 (ifIndex 0): DataRate must be > 0",
             true},
            {"bad DataWeights",
             []() {
                 Ptr<RdmaNetDevice> d = CreateObject<RdmaNetDevice>();
                 d->SetAttribute("DataWeights", StringValue("1 2 3"));
             },
             "must hold 8 integers in 1..1000000 (weight of priority 3 missing or invalid)",
             true},
            {"zero weight",
             []() {
                 Ptr<RdmaNetDevice> d = CreateObject<RdmaNetDevice>();
                 d->SetAttribute("DataWeights", StringValue("1 1 0 1 1 1 1 1"));
             },
             "weight of priority 2",
             true},
            {"small Mtu",
             []() {
                 Ptr<RdmaNetDevice> d = CreateObject<RdmaNetDevice>();
                 d->SetAttribute("Mtu", UintegerValue(100));
             },
             "Mtu must be >= 256, got 100",
             true},
            {"priority 9",
             []() {
                 Link l = MakeLink("10Gbps", NanoSeconds(10));
                 RdmaQueuedFrame f = DataFrame(3, 0);
                 f.meta.priority = 9;
                 l.a->EnqueueFrame(std::move(f));
             },
             "EnqueueFrame with priority 9",
             false},
            {"frame without frameBytes",
             []() {
                 Link l = MakeLink("10Gbps", NanoSeconds(10));
                 RdmaQueuedFrame f = DataFrame(3, 0);
                 f.meta.frameBytes = 0;
                 l.a->EnqueueFrame(std::move(f));
             },
             "frameBytes 0 or no packet",
             false},
            {"frame above the MTU",
             []() {
                 Link l = MakeLink("10Gbps", NanoSeconds(10));
                 l.a->SetAttribute("Mtu", UintegerValue(1500));
                 l.a->EnqueueFrame(DataFrame(3, 0, RoceOpcode::WRITE_ONLY, 4096));
             },
             "frame of 4178 B exceeds the port MTU 1500",
             false},
            {"PFC priority 8",
             []() {
                 Link l = MakeLink("10Gbps", NanoSeconds(10));
                 l.a->SendPfc(8, 1);
             },
             "SendPfc priority 8 > 7",
             false},
        };
        for (const auto& c : cases)
        {
            std::string msg;
            if (c.input)
            {
                try
                {
                    c.f();
                    msg = "EXIT: no exception";
                }
                catch (const astra::InputError& e)
                {
                    msg = e.what();
                }
                NS_TEST_ASSERT_MSG_EQ((msg.rfind("EXIT:", 0) == 0),
                                      false,
                                      c.what << ": must throw InputError");
            }
            else
            {
                msg = DeathMessage(c.f);
                NS_TEST_ASSERT_MSG_EQ((msg.rfind("EXIT:", 0) == 0),
                                      false,
                                      c.what << ": must abort");
            }
            NS_TEST_ASSERT_MSG_NE((msg.find(c.expect)),
                                  (std::string::npos),
                                  c.what << ": message \"" << msg << "\"");
            NS_TEST_ASSERT_MSG_NE((msg.find("RdmaNetDevice")),
                                  (std::string::npos),
                                  c.what << ": message names the device");
        }
    }
};

/// Device test suite.
class RdmaDeviceTestSuite : public TestSuite
{
  public:
    RdmaDeviceTestSuite()
        : TestSuite("astra-sim-rdma-device", UNIT)
    {
        AddTestCase(new RdmaDeviceTimingTestCase, TestCase::QUICK);
        AddTestCase(new RdmaDevicePfcTestCase, TestCase::QUICK);
        AddTestCase(new RdmaDevicePfcExactTestCase, TestCase::QUICK);
        AddTestCase(new RdmaDeviceSchedulingTestCase, TestCase::QUICK);
        AddTestCase(new RdmaDeviceSourceTestCase, TestCase::QUICK);
        AddTestCase(new RdmaDeviceErrorTestCase, TestCase::QUICK);
        AddTestCase(new RdmaDeviceChainTestCase, TestCase::QUICK);
        AddTestCase(new RdmaDeviceHandlersTestCase, TestCase::QUICK);
        AddTestCase(new RdmaDeviceValidationTestCase, TestCase::QUICK);
    }
};

static RdmaDeviceTestSuite g_rdmaDeviceTestSuite; //!< registration
