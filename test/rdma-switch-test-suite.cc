/*
 * Tests of the RoCE switch: SwitchMmu accounting (dynamic threshold pause
 * point, hysteresis resume point, headroom formula, lossless drops only when
 * headroom is exhausted, lossy drop-tail), configuration validation, ECN
 * marking probabilities, ECMP hashing, store-and-forward timing and a PFC
 * incast through a real switch without loss.
 */

#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/rdma-ecn-marker.h"
#include "ns3/rdma-forwarding-table.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-topology-helper.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/switch-mmu.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <functional>
#include <map>
#include <sstream>
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

/// The ECN marker: RED and step decisions, per-rate thresholds, the attribute value.
class EcnMarkerTestCase : public TestCase
{
  public:
    EcnMarkerTestCase()
        : TestCase("ECN marker: RED probability, step threshold, per-rate table, no draw in step")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
        rng->SetStream(11);
        Ptr<RdmaEcnRed> red = CreateObject<RdmaEcnRed>();
        red->AddPort(100000000000ull);
        const RdmaEcnConfig c = red->GetThresholds(0);
        NS_TEST_ASSERT_MSG_EQ(c.kminBytes, 100000u, "default Kmin");
        NS_TEST_ASSERT_MSG_EQ(c.kmaxBytes, 400000u, "default Kmax");
        NS_TEST_ASSERT_MSG_EQ(c.pmax, 0.2, "default Pmax");
        NS_TEST_ASSERT_MSG_EQ(red->ShouldMark(0, 3, 100000, *rng), false, "at Kmin: never");
        NS_TEST_ASSERT_MSG_EQ(red->ShouldMark(0, 3, 400001, *rng), true, "above Kmax: always");
        const int n = 100000;
        int marks = 0;
        for (int i = 0; i < n; ++i)
        {
            marks += red->ShouldMark(0, 3, 250000, *rng) ? 1 : 0;
        }
        // p = 0.2 x 150/300 = 0.1, sigma = sqrt(0.09 / n) = 0.00095; 5 sigma
        NS_TEST_ASSERT_MSG_EQ_TOL(double(marks) / n, 0.1, 0.0048, "RED fraction at the midpoint");

        // step: deterministic above K, and it never draws from the switch's stream
        Ptr<RdmaEcnStep> step = CreateObject<RdmaEcnStep>();
        step->SetAttribute("K", UintegerValue(65000));
        step->AddPort(100000000000ull);
        NS_TEST_ASSERT_MSG_EQ(step->GetThresholds(0).kmaxBytes, 65000u, "Kmax = K");
        NS_TEST_ASSERT_MSG_EQ(step->GetThresholds(0).pmax, 1.0, "Pmax = 1");
        Ptr<UniformRandomVariable> a = CreateObject<UniformRandomVariable>();
        Ptr<UniformRandomVariable> b = CreateObject<UniformRandomVariable>();
        a->SetStream(5);
        b->SetStream(5);
        uint32_t above = 0;
        uint32_t atK = 0;
        for (int i = 0; i < 1000; ++i)
        {
            above += step->ShouldMark(0, 3, 65001, *a) ? 1 : 0;
            atK += step->ShouldMark(0, 3, 65000, *a) ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_EQ(above, 1000u, "every frame above K");
        NS_TEST_ASSERT_MSG_EQ(atK, 0u, "none at K");
        NS_TEST_ASSERT_MSG_EQ(a->GetValue(), b->GetValue(), "the step marker drew nothing");
        red->ShouldMark(0, 3, 250000, *a);
        NS_TEST_ASSERT_MSG_NE(a->GetValue(), b->GetValue(), "RED between Kmin and Kmax draws");

        // per-line-rate thresholds (HPCC's KMIN_MAP / KMAX_MAP / PMAX_MAP), nearest rate, scaled
        Ptr<RdmaEcnRed> map = CreateObject<RdmaEcnRed>();
        const std::string table =
            "100000000000:400000:1600000:0.2,400000000000:1600000:6400000:0.5";
        NS_TEST_ASSERT_MSG_EQ(map->SetAttributeFailSafe("RateThresholds", StringValue(table)),
                              true,
                              "table accepted");
        StringValue back;
        map->GetAttribute("RateThresholds", back);
        NS_TEST_ASSERT_MSG_EQ(back.Get(), table, "written back in the same form");
        map->AddPort(100000000000ull);  // exact entry
        map->AddPort(150000000000ull);  // nearest: 100G (ln 1.5 < ln 2.67), x 1.5
        map->AddPort(1600000000000ull); // nearest: 400G, x 4
        NS_TEST_ASSERT_MSG_EQ(map->GetThresholds(0).kminBytes, 400000u, "100G Kmin");
        NS_TEST_ASSERT_MSG_EQ(map->GetThresholds(1).kminBytes, 600000u, "150G Kmin scaled");
        NS_TEST_ASSERT_MSG_EQ(map->GetThresholds(1).kmaxBytes, 2400000u, "150G Kmax scaled");
        NS_TEST_ASSERT_MSG_EQ(map->GetThresholds(1).pmax, 0.2, "150G Pmax of 100G");
        NS_TEST_ASSERT_MSG_EQ(map->GetThresholds(2).kmaxBytes, 25600000u, "1.6T Kmax scaled");
        NS_TEST_ASSERT_MSG_EQ(map->GetThresholds(2).pmax, 0.5, "1.6T Pmax of 400G");
        // malformed or invalid tables are refused without aborting
        for (const char* bad : {"100:abc:1:0.1", "1:5:3:0.2", "0:1:2:0.1", "1:1:2:nan", "1:1:2"})
        {
            NS_TEST_ASSERT_MSG_EQ(map->SetAttributeFailSafe("RateThresholds", StringValue(bad)),
                                  false,
                                  "refused: " << bad);
        }
        NS_TEST_ASSERT_MSG_EQ(map->SetAttributeFailSafe("RateThresholds", StringValue("")),
                              true,
                              "empty table");
    }
};

/// Which marker a switch gets, and the switch's ECN attributes mapped onto it.
class EcnSwitchMarkerTestCase : public TestCase
{
  public:
    EcnSwitchMarkerTestCase()
        : TestCase(
              "ECN marker of a switch: EcnMarker type, Kmin, Kmax, Pmax and EcnAtDequeue aliases")
    {
    }

  private:
    /// The marker of a 2-host star's switch built with these settings.
    static Ptr<RdmaEcnMarker> Build(const std::function<void(RdmaHelper&)>& setUp)
    {
        RdmaTopologyHelper topo;
        setUp(topo.GetRdmaHelper());
        RdmaTopology t = topo.Star(2, DataRate("100Gbps"), MicroSeconds(1));
        Ptr<RdmaSwitch> sw = t.switches.Get(0)->GetObject<RdmaSwitch>();
        Ptr<RdmaEcnMarker> m = sw->GetEcnMarker();
        Simulator::Destroy();
        return m;
    }

    /// The InputError text of building such a star ("" if none).
    static std::string Error(const std::function<void(RdmaHelper&)>& setUp)
    {
        try
        {
            Build(setUp);
        }
        catch (const astra::InputError& e)
        {
            Simulator::Destroy();
            return e.what();
        }
        return "";
    }

    void DoRun() override
    {
        Ptr<RdmaEcnMarker> m = Build([](RdmaHelper&) {});
        NS_TEST_ASSERT_MSG_EQ(m->GetInstanceTypeId(), RdmaEcnRed::GetTypeId(), "RED by default");
        NS_TEST_ASSERT_MSG_EQ(m->GetThresholds(1).kminBytes, 100000u, "RED's own Kmin");
        NS_TEST_ASSERT_MSG_EQ(m->IsAtDequeue(), false, "at enqueue by default");
        // the switch's attributes, where set, are the marker's
        m = Build([](RdmaHelper& h) {
            h.SetSwitchAttribute("Kmin", UintegerValue(5000));
            h.SetSwitchAttribute("Kmax", UintegerValue(200000));
            h.SetSwitchAttribute("Pmax", DoubleValue(0.01));
            h.SetSwitchAttribute("EcnAtDequeue", BooleanValue(true));
        });
        NS_TEST_ASSERT_MSG_EQ(m->GetThresholds(0).kminBytes, 5000u, "Kmin alias");
        NS_TEST_ASSERT_MSG_EQ(m->GetThresholds(0).kmaxBytes, 200000u, "Kmax alias");
        NS_TEST_ASSERT_MSG_EQ(m->GetThresholds(0).pmax, 0.01, "Pmax alias");
        NS_TEST_ASSERT_MSG_EQ(m->IsAtDequeue(), true, "EcnAtDequeue alias");
        UintegerValue kmin;
        m->GetAttribute("Kmin", kmin);
        NS_TEST_ASSERT_MSG_EQ(kmin.Get(), 5000u, "set on the marker's attribute");
        // not set on the switch: the marker's own defaults apply
        Config::SetDefault("ns3::RdmaEcnRed::Kmin", UintegerValue(7000));
        m = Build([](RdmaHelper&) {});
        NS_TEST_ASSERT_MSG_EQ(m->GetThresholds(0).kminBytes, 7000u, "RdmaEcnRed::Kmin default");
        Config::Reset();
        // the marker type by attribute, its parameter by its own default
        Config::SetDefault("ns3::RdmaEcnStep::K", UintegerValue(12345));
        m = Build([](RdmaHelper& h) {
            h.SetSwitchAttribute("EcnMarker", TypeIdValue(RdmaEcnStep::GetTypeId()));
        });
        NS_TEST_ASSERT_MSG_EQ(m->GetInstanceTypeId(), RdmaEcnStep::GetTypeId(), "step marker");
        NS_TEST_ASSERT_MSG_EQ(m->GetThresholds(0).kminBytes, 12345u, "K");
        Config::Reset();
        // a configured marker per switch from the helper
        m = Build([](RdmaHelper& h) {
            h.SetEcnMarker("ns3::RdmaEcnStep",
                           "K",
                           UintegerValue(777),
                           "AtDequeue",
                           BooleanValue(true));
        });
        NS_TEST_ASSERT_MSG_EQ(m->GetThresholds(1).kmaxBytes, 777u, "helper's K");
        NS_TEST_ASSERT_MSG_EQ(m->IsAtDequeue(), true, "helper's AtDequeue");
        // the switch's aliases apply to a configured marker too
        m = Build([](RdmaHelper& h) {
            h.SetEcnMarker("ns3::RdmaEcnRed", "Kmin", UintegerValue(1000));
            h.SetSwitchAttribute("Kmin", UintegerValue(3000));
        });
        NS_TEST_ASSERT_MSG_EQ(m->GetThresholds(0).kminBytes, 3000u, "alias over the helper's");
        // errors name what is wrong
        std::string e = Error([](RdmaHelper& h) {
            h.SetSwitchAttribute("EcnMarker", TypeIdValue(RdmaEcnStep::GetTypeId()));
            h.SetSwitchAttribute("Kmax", UintegerValue(1000));
        });
        NS_TEST_ASSERT_MSG_NE(e.find("RdmaSwitch::Kmax is set but the EcnMarker ns3::RdmaEcnStep "
                                     "has no attribute Kmax"),
                              std::string::npos,
                              e);
        e = Error([](RdmaHelper& h) {
            h.SetEcnMarker("ns3::RdmaEcnRed",
                           "Kmin",
                           UintegerValue(500000),
                           "Kmax",
                           UintegerValue(100000));
        });
        NS_TEST_ASSERT_MSG_NE(e.find("Kmin (500000 B) must be <= Kmax (100000 B)"),
                              std::string::npos,
                              e);
        e = Error([](RdmaHelper& h) {
            h.SetSwitchAttribute("Kmin", UintegerValue(500000));
            h.SetSwitchAttribute("Kmax", UintegerValue(100000));
        });
        NS_TEST_ASSERT_MSG_NE(e.find("must be <= Kmax"), std::string::npos, e);
        e = Error([](RdmaHelper& h) { h.SetEcnMarker("ns3::RdmaCcDcqcn"); });
        NS_TEST_ASSERT_MSG_NE(e.find("is not a constructible ns3::RdmaEcnMarker"),
                              std::string::npos,
                              e);
        RdmaTopologyHelper topo;
        RdmaTopology t = topo.Star(2, DataRate("100Gbps"), MicroSeconds(1));
        Ptr<RdmaSwitch> sw = t.switches.Get(0)->GetObject<RdmaSwitch>();
        e = "";
        try
        {
            sw->SetEcnThresholds(0, 9, 8, 0.5);
        }
        catch (const astra::InputError& x)
        {
            e = x.what();
        }
        NS_TEST_ASSERT_MSG_NE(e.find("port 0: ECN: Kmin (9 B) must be <= Kmax (8 B)"),
                              std::string::npos,
                              e);
        Simulator::Destroy();
    }
};

/// Equivalent marker settings give identical runs; a different one does not.
class EcnEquivalenceTestCase : public TestCase
{
  public:
    EcnEquivalenceTestCase()
        : TestCase("ECN marker: step K = RED(K, K, 1); EcnAtDequeue = the marker's AtDequeue")
    {
    }

  private:
    std::vector<int64_t> m_fct;

    void Rx(const RdmaMessageInfo& i)
    {
        m_fct.push_back((i.end - i.start).GetNanoSeconds());
    }

    /// A 3:1 incast of 300 KB WRITEs; returns FCTs, CE marks and CNPs as one string.
    std::string Run(const std::function<void(RdmaHelper&)>& setUp)
    {
        m_fct.clear();
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(TypeId::LookupByName("ns3::RdmaCcDcqcn")));
        RdmaTopologyHelper topo;
        setUp(topo.GetRdmaHelper());
        RdmaTopology t = topo.Star(4, DataRate("25Gbps"), MicroSeconds(1));
        topo.GetRdmaHelper().AssignStreams(t.AllNodes(), 3);
        uint64_t cnps = 0;
        for (uint32_t i = 0; i < 4; ++i)
        {
            Ptr<RdmaHostStack> s = t.hosts.Get(i)->GetObject<RdmaHostStack>();
            s->TraceConnectWithoutContext("RxMessageComplete",
                                          MakeCallback(&EcnEquivalenceTestCase::Rx, this));
            if (i > 0)
            {
                s->PostWrite(s->GetOrCreateQp(0), 300000, i);
            }
        }
        Simulator::Run();
        for (uint32_t i = 0; i < 4; ++i)
        {
            cnps += t.hosts.Get(i)->GetObject<RdmaHostStack>()->GetStats().cnpsSent;
        }
        std::ostringstream os;
        os << "marks " << t.switches.Get(0)->GetObject<RdmaSwitch>()->GetEcnMarks() << " cnps "
           << cnps << " fct";
        for (int64_t f : m_fct)
        {
            os << ' ' << f;
        }
        Simulator::Destroy();
        Config::Reset();
        return os.str();
    }

    void DoRun() override
    {
        const std::string red = Run([](RdmaHelper& h) {
            h.SetSwitchAttribute("Kmin", UintegerValue(20000));
            h.SetSwitchAttribute("Kmax", UintegerValue(20000));
            h.SetSwitchAttribute("Pmax", DoubleValue(1.0));
        });
        const std::string step = Run(
            [](RdmaHelper& h) { h.SetEcnMarker("ns3::RdmaEcnStep", "K", UintegerValue(20000)); });
        NS_TEST_ASSERT_MSG_EQ(step, red, "step K = RED with Kmin = Kmax = K, Pmax = 1");
        NS_TEST_ASSERT_MSG_EQ(red.find("marks 0 "), std::string::npos, "frames were marked");
        const std::string other = Run(
            [](RdmaHelper& h) { h.SetEcnMarker("ns3::RdmaEcnStep", "K", UintegerValue(60000)); });
        NS_TEST_ASSERT_MSG_NE(other, red, "another K gives another run");
        const std::string legacyDeq =
            Run([](RdmaHelper& h) { h.SetSwitchAttribute("EcnAtDequeue", BooleanValue(true)); });
        const std::string markerDeq = Run([](RdmaHelper& h) {
            h.SetEcnMarker("ns3::RdmaEcnRed", "AtDequeue", BooleanValue(true));
        });
        NS_TEST_ASSERT_MSG_EQ(markerDeq, legacyDeq, "EcnAtDequeue = the marker's AtDequeue");
        NS_TEST_ASSERT_MSG_EQ(legacyDeq.find("marks 0 "), std::string::npos, "marked at dequeue");
    }
};

/// A lossless drop is reported once per (switch, port, priority), counted.
class LosslessDropReportTestCase : public TestCase
{
  public:
    LosslessDropReportTestCase()
        : TestCase("Switch: lossless drops warned once per (switch, port, priority), counted")
    {
    }

  private:
    std::map<uint32_t, uint64_t> m_drops; //!< ingress port -> lossless drops

    void Drop(uint32_t, uint32_t port, uint8_t prio, const RdmaMeta&)
    {
        NS_TEST_EXPECT_MSG_EQ(prio, 3, "the data priority");
        ++m_drops[port];
    }

    void DoRun() override
    {
        std::ostringstream out;
        astra::Warnings::SetStream(&out);
        astra::Warnings::Reset();
        RdmaTopologyHelper topo;
        RdmaHelper& h = topo.GetRdmaHelper();
        h.SetDeviceAttribute("PfcEnabled", BooleanValue(false)); // NICs ignore PAUSE
        h.SetMmuAttribute("BufferSize", UintegerValue(400000));
        h.SetMmuAttribute("LosslessPriorities", UintegerValue(0x08));
        h.SetMmuAttribute("MtuFrameBytes", UintegerValue(1110));
        RdmaTopology t = topo.Star(4, DataRate("100Gbps"), MicroSeconds(1));
        Ptr<RdmaSwitch> sw = t.switches.Get(0)->GetObject<RdmaSwitch>();
        sw->TraceConnectWithoutContext("LosslessDrop",
                                       MakeCallback(&LosslessDropReportTestCase::Drop, this));
        for (uint32_t s = 1; s < 4; ++s)
        {
            for (uint32_t i = 0; i < 2000; ++i)
            {
                t.links[s].devA->EnqueueFrame(MakeFrame(s, 0, uint16_t(50000 + s), 1000, 3, 0));
            }
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_GT(sw->GetLosslessDrops(), 0u, "lossless drops happened");
        uint64_t sum = 0;
        for (const auto& kv : m_drops)
        {
            const std::string cause = "lossless-drop " + sw->GetName() + " port " +
                                      std::to_string(kv.first) + " priority 3";
            NS_TEST_ASSERT_MSG_EQ(astra::Warnings::GetCount(cause),
                                  kv.second,
                                  "count of " << cause);
            sum += kv.second;
        }
        NS_TEST_ASSERT_MSG_EQ(sum, sw->GetLosslessDrops(), "every drop counted once");
        size_t lines = 0;
        for (size_t p = out.str().find("lossless drop at"); p != std::string::npos;
             p = out.str().find("lossless drop at", p + 1))
        {
            ++lines;
        }
        NS_TEST_ASSERT_MSG_EQ(lines, m_drops.size(), "one line per (port, priority)");
        NS_TEST_ASSERT_MSG_GT(sum, lines, "fewer lines than drops");
        Simulator::Destroy();
        astra::Warnings::Reset();
        astra::Warnings::SetStream(&std::cerr);
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
        AddTestCase(new EcnMarkerTestCase, TestCase::QUICK);
        AddTestCase(new EcnSwitchMarkerTestCase, TestCase::QUICK);
        AddTestCase(new EcnEquivalenceTestCase, TestCase::QUICK);
        AddTestCase(new LosslessDropReportTestCase, TestCase::QUICK);
    }
};

static RdmaSwitchTestSuite g_rdmaSwitchTestSuite; //!< registration
