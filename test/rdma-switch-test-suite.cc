/*
 * Tests of the RoCE switch: SwitchMmu accounting (dynamic threshold pause
 * point, hysteresis resume point, headroom formula, lossless drops only when
 * headroom is exhausted, lossy drop-tail), configuration validation, ECN
 * marking probabilities, ECMP hashing, store-and-forward timing and a PFC
 * incast through a real switch without loss.
 */

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/rdma-forwarding-table.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-topology-helper.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/switch-mmu.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <vector>

using namespace ns3;

namespace
{

/// An MMU with two 1 Gbps zero-delay ports, one lossless priority (3).
Ptr<SwitchMmu>
MakeMmu(uint64_t buffer, double alpha, uint64_t headroom, uint32_t reserved = 0)
{
    Ptr<SwitchMmu> mmu = CreateObject<SwitchMmu>();
    mmu->SetAttribute("BufferSize", UintegerValue(buffer));
    mmu->SetAttribute("Alpha", DoubleValue(alpha));
    mmu->SetAttribute("HeadroomBytes", UintegerValue(headroom));
    mmu->SetAttribute("ReservedBytes", UintegerValue(reserved));
    mmu->SetAttribute("LosslessPriorities", UintegerValue(0x08));
    mmu->AddPort(DataRate("1Gbps"), Seconds(0));
    mmu->AddPort(DataRate("1Gbps"), Seconds(0));
    mmu->Finalize();
    return mmu;
}

/// Build a RoCE data frame from host src to host dst.
RdmaQueuedFrame
MakeFrame(uint32_t src, uint32_t dst, uint16_t sport, uint32_t payload, uint8_t prio, uint8_t ecn)
{
    RdmaQueuedFrame f;
    f.meta.kind = RdmaFrameKind::ROCE;
    f.meta.priority = prio;
    f.meta.ecn = ecn;
    f.meta.opcode = RoceOpcode::WRITE_MIDDLE;
    f.meta.srcIp = RdmaAddressing::HostIndexToIp(src);
    f.meta.dstIp = RdmaAddressing::HostIndexToIp(dst);
    f.meta.sport = sport;
    f.meta.destQp = 1; // no such QP at the receiver: counted as unknownQp
    f.meta.payload = payload;
    f.packet = RoceFrame::Build(f.meta);
    return f;
}

} // namespace

/// Dynamic threshold: a single congested queue pauses at alpha/(1+alpha) of the shared pool.
class MmuPausePointTestCase : public TestCase
{
  public:
    MmuPausePointTestCase()
        : TestCase("SwitchMmu: pause point alpha over 1+alpha of the pool, hysteresis resume point")
    {
    }

  private:
    void DoRun() override
    {
        for (double alpha : {0.125, 0.5, 1.0})
        {
            // 2 ports x 1 lossless priority x 200000 B headroom; pool = 2 MB
            Ptr<SwitchMmu> mmu = MakeMmu(2400000, alpha, 200000);
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(), 2000000u, "pool size");
            const double pool = 2000000.0;
            const double expectPause = alpha / (1 + alpha) * pool;
            uint64_t frames = 0;
            bool paused = false;
            while (!paused && frames < 100000)
            {
                SwitchMmu::AdmitResult r = mmu->Admit(0, 1, 3, 1000);
                NS_TEST_ASSERT_MSG_EQ(r.verdict, SwitchMmu::ACCEPT, "admitted");
                ++frames;
                paused = r.pause;
            }
            NS_TEST_ASSERT_MSG_EQ(paused, true, "paused");
            NS_TEST_ASSERT_MSG_EQ(mmu->IsPaused(0, 3), true, "pause state");
            const double shared = mmu->GetIngressSharedBytes(0, 3);
            NS_TEST_ASSERT_MSG_GT_OR_EQ(shared, expectPause, "pause not before alpha/(1+alpha)");
            NS_TEST_ASSERT_MSG_LT(shared, expectPause + 1000, "pause within one frame");
            // 5 more frames go to headroom
            for (int i = 0; i < 5; ++i)
            {
                SwitchMmu::AdmitResult r = mmu->Admit(0, 1, 3, 1000);
                NS_TEST_ASSERT_MSG_EQ(r.verdict, SwitchMmu::ACCEPT, "headroom admits");
                NS_TEST_ASSERT_MSG_EQ(r.pause, false, "no second pause");
            }
            NS_TEST_ASSERT_MSG_EQ(mmu->GetIngressHeadroomBytes(0, 3), 5000u, "headroom use");
            // release: headroom first, resume when shared < threshold - hysteresis
            const double h = mmu->GetHysteresisBytes();
            NS_TEST_ASSERT_MSG_EQ(h, 2220.0, "default hysteresis = 2 x MtuFrameBytes");
            const double expectResume = (alpha * pool - h) / (1 + alpha);
            bool resumed = false;
            double sharedAtResume = 0;
            while (!resumed)
            {
                resumed = mmu->Release(0, 1, 3, 1000);
                if (!resumed)
                {
                    NS_TEST_ASSERT_MSG_EQ(mmu->IsPaused(0, 3), true, "still paused");
                }
                sharedAtResume = mmu->GetIngressSharedBytes(0, 3);
            }
            NS_TEST_ASSERT_MSG_EQ(mmu->GetIngressHeadroomBytes(0, 3), 0u, "headroom drained");
            NS_TEST_ASSERT_MSG_LT(sharedAtResume, expectResume, "resume below thr - hysteresis");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(sharedAtResume,
                                        expectResume - 1000,
                                        "resume at the first frame below");
            NS_TEST_ASSERT_MSG_EQ(mmu->IsPaused(0, 3), false, "resumed");
        }
    }
};

/// Headroom formula, lossless drop only when headroom is exhausted, lossy drop-tail.
class MmuHeadroomTestCase : public TestCase
{
  public:
    MmuHeadroomTestCase()
        : TestCase("SwitchMmu: headroom formula, lossless drop at exhaustion, lossy drop-tail")
    {
    }

  private:
    void DoRun() override
    {
        // 2 x 1us x 100 Gb/s = 25000 B; 2 x 1110; 1us x 100 Gb/s = 12500 B
        NS_TEST_ASSERT_MSG_EQ(
            SwitchMmu::ComputeHeadroom(DataRate("100Gbps"), MicroSeconds(1), 1110, MicroSeconds(1)),
            39720u,
            "headroom 100G/1us");
        // 2 x 2us x 25 Gb/s = 12500; 2 x 1086 = 2172; 0.5us x 25 Gb/s = 1562.5 -> 1563
        NS_TEST_ASSERT_MSG_EQ(
            SwitchMmu::ComputeHeadroom(DataRate("25Gbps"), MicroSeconds(2), 1086, NanoSeconds(500)),
            16235u,
            "headroom 25G/2us");

        // lossless: pool 100000 - 2 x 10000 = 80000; alpha 1 -> pause at 40000
        Ptr<SwitchMmu> mmu = MakeMmu(100000, 1.0, 10000);
        uint32_t accepted = 0;
        bool pausedSeen = false;
        SwitchMmu::AdmitResult r;
        for (int i = 0; i < 1000; ++i)
        {
            r = mmu->Admit(0, 1, 3, 1000);
            if (r.verdict != SwitchMmu::ACCEPT)
            {
                break;
            }
            pausedSeen |= r.pause;
            ++accepted;
        }
        NS_TEST_ASSERT_MSG_EQ(pausedSeen, true, "paused before dropping");
        NS_TEST_ASSERT_MSG_EQ(r.verdict, SwitchMmu::LOSSLESS_DROP, "lossless drop");
        // 40 frames to shared (pause at 40000), then 10 frames of headroom
        NS_TEST_ASSERT_MSG_EQ(accepted, 50u, "drop exactly when headroom is exhausted");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetIngressHeadroomBytes(0, 3), 10000u, "headroom full");

        // lossy (priority 0): egress dynamic threshold EgressAlpha (1) x free: drop at 1/2 pool
        Ptr<SwitchMmu> lossy = MakeMmu(100000, 1.0, 10000);
        accepted = 0;
        for (int i = 0; i < 1000; ++i)
        {
            r = lossy->Admit(0, 1, 0, 1000);
            if (r.verdict != SwitchMmu::ACCEPT)
            {
                break;
            }
            NS_TEST_ASSERT_MSG_EQ(r.pause, false, "lossy never pauses");
            ++accepted;
        }
        NS_TEST_ASSERT_MSG_EQ(r.verdict, SwitchMmu::DROP, "lossy drop, not a lossless drop");
        NS_TEST_ASSERT_MSG_EQ(accepted, 40u, "lossy drop-tail at EgressAlpha/(1+EgressAlpha)");

        // reserved is used first
        Ptr<SwitchMmu> res = MakeMmu(200000, 1.0, 10000, 4096);
        for (int i = 0; i < 4; ++i)
        {
            res->Admit(0, 1, 3, 1000);
        }
        NS_TEST_ASSERT_MSG_EQ(res->GetIngressSharedBytes(0, 3), 0u, "4 frames fit in 4096 B");
        res->Admit(0, 1, 3, 1000);
        NS_TEST_ASSERT_MSG_EQ(res->GetIngressSharedBytes(0, 3), 1000u, "5th goes to shared");
        NS_TEST_ASSERT_MSG_EQ(res->GetEgressBytes(1, 3), 5000u, "egress accounting");
        NS_TEST_ASSERT_MSG_EQ(res->GetMaxEgressPortBytes(1), 5000u, "egress peak");

        // re-tagged frame (dateline): ingress on priority 3, egress on priority 4
        Ptr<SwitchMmu> vc = MakeMmu(200000, 1.0, 10000);
        vc->Admit(0, 3, 1, 4, 1000);
        NS_TEST_ASSERT_MSG_EQ(vc->GetIngressBytes(0, 3), 1000u, "ingress on arrival priority");
        NS_TEST_ASSERT_MSG_EQ(vc->GetEgressBytes(1, 4), 1000u, "egress on departure priority");
        NS_TEST_ASSERT_MSG_EQ(vc->GetEgressBytes(1, 3), 0u, "not on the arrival priority");
        vc->Release(0, 3, 1, 4, 1000);
        NS_TEST_ASSERT_MSG_EQ(vc->GetIngressBytes(0, 3) + vc->GetEgressPortBytes(1),
                              0u,
                              "released");
    }
};

/// Configuration validation messages.
class ValidationTestCase : public TestCase
{
  public:
    ValidationTestCase()
        : TestCase("Switch: attribute validation (ECN, headroom, buffer)")
    {
    }

  private:
    void DoRun() override
    {
        std::string e = RdmaEcnMarker::CheckThresholds(200000, 100000, 0.1);
        NS_TEST_ASSERT_MSG_NE(e.find("Kmin"), std::string::npos, "Kmin > Kmax rejected: " << e);
        e = RdmaEcnMarker::CheckThresholds(100000, 200000, 1.5);
        NS_TEST_ASSERT_MSG_NE(e.find("Pmax"), std::string::npos, "Pmax > 1 rejected: " << e);
        e = RdmaEcnMarker::CheckThresholds(100000, 200000, -0.1);
        NS_TEST_ASSERT_MSG_NE(e.find("Pmax"), std::string::npos, "Pmax < 0 rejected");
        NS_TEST_ASSERT_MSG_EQ(RdmaEcnMarker::CheckThresholds(100000, 100000, 1.0), "", "valid ECN");

        e = SwitchMmu::CheckHeadroom("switch 7", 3, 1000, 39720);
        NS_TEST_ASSERT_MSG_NE(e.find("switch 7 port 3"), std::string::npos, "names port: " << e);
        NS_TEST_ASSERT_MSG_NE(e.find("39720"), std::string::npos, "required value: " << e);
        NS_TEST_ASSERT_MSG_NE(e.find("1000"), std::string::npos, "given value: " << e);
        NS_TEST_ASSERT_MSG_EQ(SwitchMmu::CheckHeadroom("s", 0, 39720, 39720), "", "enough");

        // a fixed headroom below the requirement of a 100G/1us port
        Ptr<SwitchMmu> mmu = CreateObject<SwitchMmu>();
        mmu->SetName("switch 9");
        mmu->SetAttribute("HeadroomBytes", UintegerValue(20000));
        mmu->AddPort(DataRate("100Gbps"), MicroSeconds(1));
        e = mmu->CheckConfiguration();
        NS_TEST_ASSERT_MSG_NE(e.find("switch 9 port 0"), std::string::npos, "fatal text: " << e);
        NS_TEST_ASSERT_MSG_NE(e.find("39720"), std::string::npos, "required: " << e);

        // total buffer too small: 2 ports x 8 x 4096 reserved + 2 x 39720 headroom
        // (one lossless priority by default) + 2 x 1110 minimum shared = 147196
        Ptr<SwitchMmu> small = CreateObject<SwitchMmu>();
        small->SetAttribute("BufferSize", UintegerValue(147195));
        small->AddPort(DataRate("100Gbps"), MicroSeconds(1));
        small->AddPort(DataRate("100Gbps"), MicroSeconds(1));
        e = small->CheckConfiguration();
        NS_TEST_ASSERT_MSG_NE(e.find("too small"), std::string::npos, "buffer: " << e);
        NS_TEST_ASSERT_MSG_NE(e.find("79440"), std::string::npos, "headroom sum: " << e);
        NS_TEST_ASSERT_MSG_NE(e.find("147196"), std::string::npos, "needed: " << e);
        small->SetAttribute("BufferSize", UintegerValue(147196));
        NS_TEST_ASSERT_MSG_EQ(small->CheckConfiguration(), "", "exactly enough");
        // all 8 priorities lossless: 8 x the headroom
        small->SetAttribute("LosslessPriorities", UintegerValue(0xFF));
        e = small->CheckConfiguration();
        NS_TEST_ASSERT_MSG_NE(e.find("635520"), std::string::npos, "8 x headroom: " << e);
        // the MTU frame follows the largest port frame when MtuFrameBytes is 0
        Ptr<SwitchMmu> jumbo = CreateObject<SwitchMmu>();
        jumbo->AddPort(DataRate("100Gbps"), MicroSeconds(1), 9042);
        NS_TEST_ASSERT_MSG_EQ(jumbo->GetMtuFrameBytes(), 9042u, "jumbo port");
        NS_TEST_ASSERT_MSG_EQ(jumbo->GetRequiredHeadroom(0), 25000u + 2 * 9042 + 12500, "jumbo");
        jumbo->SetAttribute("MtuFrameBytes", UintegerValue(1110));
        NS_TEST_ASSERT_MSG_EQ(jumbo->CheckConfiguration(), "", "valid");
        NS_TEST_ASSERT_MSG_EQ(jumbo->GetRequiredHeadroom(0), 39720u, "attribute overrides");
    }
};

/// ECN probabilities and ECMP hashing.
class EcnEcmpTestCase : public TestCase
{
  public:
    EcnEcmpTestCase()
        : TestCase("Switch: RED marking probability; ECMP spread and determinism")
    {
    }

  private:
    void DoRun() override
    {
        RdmaEcnConfig c{100000, 400000, 0.2};
        NS_TEST_ASSERT_MSG_EQ(RdmaEcnRed::MarkProbability(100000, c), 0.0, "at Kmin");
        NS_TEST_ASSERT_MSG_EQ_TOL(RdmaEcnRed::MarkProbability(250000, c), 0.1, 1e-12, "midpoint");
        NS_TEST_ASSERT_MSG_EQ(RdmaEcnRed::MarkProbability(400001, c), 1.0, "above Kmax");

        RdmaTopologyHelper topo;
        RdmaTopology t = topo.Star(2, DataRate("100Gbps"), MicroSeconds(1));
        Ptr<RdmaSwitch> sw = t.switches.Get(0)->GetObject<RdmaSwitch>();
        sw->SetEcnThresholds(0, 100000, 400000, 0.2);
        sw->AssignStreams(7);
        const int n = 200000;
        int marks = 0;
        for (int i = 0; i < n; ++i)
        {
            marks += sw->ShouldMark(0, 250000) ? 1 : 0;
        }
        // p = 0.1, sigma = sqrt(0.09 / n) = 0.00067; tolerance 5 sigma
        NS_TEST_ASSERT_MSG_EQ_TOL(double(marks) / n, 0.1, 0.0034, "marking fraction at midpoint");
        int low = 0;
        int high = 0;
        for (int i = 0; i < 10000; ++i)
        {
            low += sw->ShouldMark(0, 99999) ? 1 : 0;
            high += sw->ShouldMark(0, 400001) ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_EQ(low, 0, "never below Kmin");
        NS_TEST_ASSERT_MSG_EQ(high, 10000, "always above Kmax");

        // ECMP over k = 4 ports, 8000 flows (distinct source ports / hosts)
        Ptr<RdmaForwardingTable> tab = CreateObject<RdmaForwardingTable>();
        tab->SetRoute(5, {0, 1, 2, 3}, 2);
        tab->SetSeed(1234);
        std::vector<uint32_t> count(4, 0);
        std::vector<uint32_t> first;
        RdmaMeta m;
        m.dstIp = RdmaAddressing::HostIndexToIp(5);
        for (uint32_t f = 0; f < 8000; ++f)
        {
            m.srcIp = RdmaAddressing::HostIndexToIp(f % 16);
            m.sport = uint16_t(49152 + f);
            const uint32_t p = tab->SelectPort(m);
            NS_TEST_ASSERT_MSG_LT(p, 4u, "valid port");
            ++count[p];
            first.push_back(p);
        }
        for (uint32_t p = 0; p < 4; ++p)
        {
            // expected 2000 each, sigma ~ 39; allow 10 %
            NS_TEST_ASSERT_MSG_EQ_TOL(double(count[p]), 2000.0, 200.0, "spread on port " << p);
        }
        // deterministic for a seed, different for another seed
        uint32_t same = 0;
        uint32_t differ = 0;
        for (uint32_t f = 0; f < 8000; ++f)
        {
            m.srcIp = RdmaAddressing::HostIndexToIp(f % 16);
            m.sport = uint16_t(49152 + f);
            same += tab->SelectPort(m) == first[f] ? 1 : 0;
        }
        tab->SetSeed(99);
        for (uint32_t f = 0; f < 8000; ++f)
        {
            m.srcIp = RdmaAddressing::HostIndexToIp(f % 16);
            m.sport = uint16_t(49152 + f);
            differ += tab->SelectPort(m) != first[f] ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_EQ(same, 8000u, "same seed, same choices");
        NS_TEST_ASSERT_MSG_GT(differ, 4000u, "another seed reshuffles (~3/4 differ)");
        NS_TEST_ASSERT_MSG_EQ(tab->SelectPort(RdmaMeta()), RdmaForwardingTable::kNoRoute, "none");
        Simulator::Destroy();
    }
};

/// Store-and-forward timing through one switch, and CE marking of the real bytes.
class ForwardTimingTestCase : public TestCase
{
  public:
    ForwardTimingTestCase()
        : TestCase("Switch: store-and-forward timing, one egress event per frame, CE on the wire")
    {
    }

  private:
    std::vector<Time> m_enq;
    std::vector<Time> m_deq;
    std::vector<RdmaMeta> m_rx;

    void Enq(uint32_t, uint32_t, uint8_t, uint64_t)
    {
        m_enq.push_back(Simulator::Now());
    }

    void Deq(uint32_t, uint32_t, uint8_t, uint64_t)
    {
        m_deq.push_back(Simulator::Now());
    }

    void Rx(const RdmaQueuedFrame& f)
    {
        RdmaMeta parsed;
        RoceFrame::Parse(f.packet, parsed);
        m_rx.push_back(parsed);
    }

    void DoRun() override
    {
        // timing: two back-to-back frames host 0 -> switch -> host 1
        {
            RdmaTopologyHelper topo;
            RdmaTopology t = topo.Star(2, DataRate("100Gbps"), MicroSeconds(1));
            Ptr<RdmaSwitch> sw = t.switches.Get(0)->GetObject<RdmaSwitch>();
            sw->TraceConnectWithoutContext("Enqueue",
                                           MakeCallback(&ForwardTimingTestCase::Enq, this));
            sw->TraceConnectWithoutContext("Dequeue",
                                           MakeCallback(&ForwardTimingTestCase::Deq, this));
            Ptr<RdmaNetDevice> tx = t.links[0].devA;
            RdmaQueuedFrame f1 = MakeFrame(0, 1, 50000, 1000, 3, 0);
            RdmaQueuedFrame f2 = MakeFrame(0, 1, 50000, 1000, 3, 0);
            const uint32_t bytes = f1.meta.frameBytes;
            tx->EnqueueFrame(std::move(f1));
            tx->EnqueueFrame(std::move(f2));
            Simulator::Run();
            // exact serialization time incl. preamble/IFG, in seconds
            const double ser = (bytes + kEthernetWireOverhead) * 8.0 / 100e9;
            const double d = 1e-6;
            const double tol = 2e-9; // < 1 ns per serializing device (1 ns ticks, carried)
            NS_TEST_ASSERT_MSG_EQ(m_enq.size(), 2u, "two frames forwarded");
            NS_TEST_ASSERT_MSG_EQ(m_deq.size(), 2u, "two egress completions");
            NS_TEST_ASSERT_MSG_EQ_TOL(m_enq[0].GetSeconds(), ser + d, tol, "enqueue at last bit");
            NS_TEST_ASSERT_MSG_EQ_TOL(m_enq[1].GetSeconds(), 2 * ser + d, tol, "back to back");
            NS_TEST_ASSERT_MSG_EQ_TOL(m_deq[0].GetSeconds(), 2 * ser + d, tol, "egress done");
            NS_TEST_ASSERT_MSG_EQ_TOL(m_deq[1].GetSeconds(), 3 * ser + d, tol, "second egress");
            NS_TEST_ASSERT_MSG_EQ(sw->GetForwarded(), 2u, "forwarded counter");
            NS_TEST_ASSERT_MSG_EQ(sw->GetEcnMarks(), 0u, "Not-ECT never marked");
            Simulator::Destroy();
        }
        // ECN: Kmin = Kmax = 0, Pmax = 1: mark whenever a frame is queued ahead
        {
            RdmaTopologyHelper topo;
            topo.GetRdmaHelper().SetSwitchAttribute("Kmin", UintegerValue(0));
            topo.GetRdmaHelper().SetSwitchAttribute("Kmax", UintegerValue(0));
            topo.GetRdmaHelper().SetSwitchAttribute("Pmax", DoubleValue(1.0));
            RdmaTopology t = topo.Star(3, DataRate("100Gbps"), MicroSeconds(1));
            Ptr<RdmaSwitch> sw = t.switches.Get(0)->GetObject<RdmaSwitch>();
            Ptr<RdmaNetDevice> rxDev = t.links[2].devA;
            rxDev->TraceConnectWithoutContext("MacRx",
                                              MakeCallback(&ForwardTimingTestCase::Rx, this));
            t.links[0].devA->EnqueueFrame(MakeFrame(0, 2, 50000, 1000, 3, 2));
            t.links[1].devA->EnqueueFrame(MakeFrame(1, 2, 50001, 1000, 3, 2));
            t.links[1].devA->EnqueueFrame(MakeFrame(1, 2, 50001, 1000, 3, 0));
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(m_rx.size(), 3u, "three delivered");
            uint32_t ce = 0;
            uint32_t notEct = 0;
            for (const RdmaMeta& m : m_rx)
            {
                ce += m.ecn == 3 ? 1 : 0;
                notEct += m.ecn == 0 ? 1 : 0;
            }
            NS_TEST_ASSERT_MSG_EQ(ce,
                                  1u,
                                  "the ECT frame that found a queue carries CE on the wire");
            NS_TEST_ASSERT_MSG_EQ(notEct, 1u, "the Not-ECT frame stays Not-ECT");
            NS_TEST_ASSERT_MSG_EQ(sw->GetEcnMarks(), 1u, "one mark counted");
            Simulator::Destroy();
        }
    }
};

/// INT: one hop appended at dequeue with time, tx bytes, queue and rate.
class IntTestCase : public TestCase
{
  public:
    IntTestCase()
        : TestCase("Switch: INT hop pushed at dequeue when IntEnabled, none otherwise")
    {
    }

  private:
    std::vector<RdmaMeta> m_rx;

    void Rx(const RdmaQueuedFrame& f)
    {
        m_rx.push_back(f.meta);
    }

    void DoRun() override
    {
        for (bool enabled : {false, true})
        {
            m_rx.clear();
            RdmaTopologyHelper topo;
            topo.GetRdmaHelper().SetSwitchAttribute("IntEnabled", BooleanValue(enabled));
            RdmaTopology t = topo.Star(2, DataRate("100Gbps"), MicroSeconds(1));
            t.links[1].devA->TraceConnectWithoutContext("MacRx",
                                                        MakeCallback(&IntTestCase::Rx, this));
            RdmaQueuedFrame f1 = MakeFrame(0, 1, 50000, 1000, 3, 0);
            const uint32_t bytes = f1.meta.frameBytes;
            t.links[0].devA->EnqueueFrame(std::move(f1));
            t.links[0].devA->EnqueueFrame(MakeFrame(0, 1, 50000, 1000, 3, 0));
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(m_rx.size(), 2u, "delivered");
            if (!enabled)
            {
                NS_TEST_ASSERT_MSG_EQ(unsigned(m_rx[0].intHops), 0u, "INT off: no hop");
                Simulator::Destroy();
                continue;
            }
            const double ser = (bytes + kEthernetWireOverhead) * 8.0 / 100e9;
            for (uint32_t i = 0; i < 2; ++i)
            {
                NS_TEST_ASSERT_MSG_EQ(unsigned(m_rx[i].intHops), 1u, "one hop");
                const IntHop& h = m_rx[i].intStack[0];
                NS_TEST_ASSERT_MSG_EQ(h.rateMbps, 100000u, "rate");
                NS_TEST_ASSERT_MSG_EQ(h.txBytes, uint64_t(i) * bytes, "tx bytes before this frame");
                NS_TEST_ASSERT_MSG_EQ(h.qlenBytes, 0u, "no queue behind");
                NS_TEST_ASSERT_MSG_EQ_TOL(double(h.timeNs),
                                          ((i + 1) * ser + 1e-6) * 1e9,
                                          2.0,
                                          "dequeue time");
            }
            Simulator::Destroy();
        }
    }
};

/// Two senders at line rate into one receiver: PFC keeps it lossless and the bottleneck busy.
class PfcIncastTestCase : public TestCase
{
  public:
    PfcIncastTestCase()
        : TestCase("Switch: 2:1 incast under PFC: no loss, pauses sent and resumed, full rate")
    {
    }

  private:
    Time m_lastRx;
    Time m_maxGap;
    uint32_t m_rxFrames{0};

    void Rx(const RdmaQueuedFrame& f)
    {
        if (f.meta.kind == RdmaFrameKind::ROCE)
        {
            ++m_rxFrames;
            if (m_rxFrames > 1 && Simulator::Now() - m_lastRx > m_maxGap)
            {
                m_maxGap = Simulator::Now() - m_lastRx;
            }
            m_lastRx = Simulator::Now();
        }
    }

    void DoRun() override
    {
        RdmaTopologyHelper topo;
        RdmaHelper& h = topo.GetRdmaHelper();
        h.SetMmuAttribute("BufferSize", UintegerValue(400000));
        h.SetMmuAttribute("LosslessPriorities", UintegerValue(0x08));
        // frames are 1086 B: size headroom and hysteresis for them, not for the 9000 B port MTU
        // (with 2 x 9042 B hysteresis above the ~15 KB pause threshold of this small buffer
        // an ingress resumes only when empty and the bottleneck idles)
        h.SetMmuAttribute("MtuFrameBytes", UintegerValue(1110));
        h.SetSwitchAttribute("EcnEnabled", BooleanValue(false));
        RdmaTopology t = topo.Star(3, DataRate("100Gbps"), MicroSeconds(1));
        Ptr<RdmaSwitch> sw = t.switches.Get(0)->GetObject<RdmaSwitch>();
        Ptr<RdmaNetDevice> rxDev = t.links[2].devA;
        rxDev->TraceConnectWithoutContext("MacRx", MakeCallback(&PfcIncastTestCase::Rx, this));
        const uint32_t perSender = 2000;
        uint32_t frameBytes = 0;
        for (uint32_t s = 0; s < 2; ++s)
        {
            Ptr<RdmaNetDevice> dev = t.links[s].devA;
            for (uint32_t i = 0; i < perSender; ++i)
            {
                RdmaQueuedFrame f = MakeFrame(s, 2, uint16_t(50000 + s), 1000, 3, 0);
                frameBytes = f.meta.frameBytes;
                dev->EnqueueFrame(std::move(f));
            }
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_rxFrames, 2 * perSender, "every frame delivered");
        NS_TEST_ASSERT_MSG_EQ(sw->GetLosslessDrops(), 0u, "no lossless drop");
        NS_TEST_ASSERT_MSG_EQ(sw->GetDrops(), 0u, "no drop");
        NS_TEST_ASSERT_MSG_GT(sw->GetPausesSent(), 0u, "PFC pauses sent");
        NS_TEST_ASSERT_MSG_GT(sw->GetResumesSent(), 0u, "PFC resumes sent");
        const Ptr<SwitchMmu> mmu = sw->GetMmu();
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 0u, "buffer drained");
        NS_TEST_ASSERT_MSG_EQ((mmu->IsPaused(0, 3) || mmu->IsPaused(1, 3)), false, "all resumed");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(sw->GetMaxQueueBytes(2),
                                    mmu->GetSharedPoolBytes() + 2 * 3 * 4096 +
                                        2 * mmu->GetHeadroom(0),
                                    "egress queue bounded by the buffer");
        // the bottleneck runs at line rate: 4000 frames back to back + two hops of latency
        const double ser = (frameBytes + kEthernetWireOverhead) * 8.0 / 100e9;
        const Time ideal = Seconds(ser * (2 * perSender + 1) + 2e-6);
        NS_TEST_ASSERT_MSG_GT_OR_EQ(m_lastRx, ideal - NanoSeconds(1), "not faster than line rate");
        NS_TEST_ASSERT_MSG_LT(m_lastRx, ideal + NanoSeconds(3), "never idle: last frame on time");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(m_maxGap.GetSeconds(), ser + 1e-9, "no gap at the receiver");
        Simulator::Destroy();
    }
};

/// The switch test suite.
class RdmaSwitchTestSuite : public TestSuite
{
  public:
    RdmaSwitchTestSuite()
        : TestSuite("astra-sim-rdma-switch", UNIT)
    {
        AddTestCase(new MmuPausePointTestCase, TestCase::QUICK);
        AddTestCase(new MmuHeadroomTestCase, TestCase::QUICK);
        AddTestCase(new ValidationTestCase, TestCase::QUICK);
        AddTestCase(new EcnEcmpTestCase, TestCase::QUICK);
        AddTestCase(new ForwardTimingTestCase, TestCase::QUICK);
        AddTestCase(new IntTestCase, TestCase::QUICK);
        AddTestCase(new PfcIncastTestCase, TestCase::QUICK);
    }
};

static RdmaSwitchTestSuite g_rdmaSwitchTestSuite; //!< registration
