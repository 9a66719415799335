/*
 * RDMA RC transport tests (astra-sim-rdma-transport): goodput and FCT against
 * closed forms, segmentation and multiple queued messages, PSN wrap and a
 * message larger than 4 GiB, a lossy link (NAK and timeout paths), and
 * attribute validation.
 */

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/dcqcn.h"
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-congestion-ops.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-switch.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/switch-mmu.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <vector>

using namespace ns3;

namespace
{

/// A tiny test network: hosts (with stacks) and switches wired by hand.
struct TestNet
{
    std::vector<Ptr<Node>> hosts;                                         //!< host nodes
    std::vector<Ptr<RdmaHostStack>> stacks;                               //!< host stacks
    std::vector<Ptr<RdmaNetDevice>> hostDevs;                             //!< host NIC (port 0)
    std::vector<Ptr<RdmaSwitch>> switches;                                //!< switches
    std::vector<RdmaMessageInfo> rx;                                      //!< receiver completions
    std::vector<RdmaMessageInfo> tx;                                      //!< sender completions
    Ptr<RdmaHostDirectory> directory = CreateObject<RdmaHostDirectory>(); //!< the hosts

    void OnRx(const RdmaMessageInfo& i)
    {
        rx.push_back(i);
    }

    void OnTx(const RdmaMessageInfo& i)
    {
        tx.push_back(i);
    }

    static Ptr<RdmaNetDevice> MakeDev(Ptr<Node> n, DataRate rate)
    {
        Ptr<RdmaNetDevice> d = CreateObject<RdmaNetDevice>();
        d->SetDataRate(rate);
        d->SetAddress(Mac48Address::Allocate());
        n->AddDevice(d);
        return d;
    }

    static void Link(Ptr<RdmaNetDevice> a, Ptr<RdmaNetDevice> b, Time delay)
    {
        Ptr<RdmaChannel> ch = CreateObject<RdmaChannel>();
        ch->SetDelay(delay);
        a->Attach(ch);
        b->Attach(ch);
    }

    Ptr<RdmaHostStack> AddHost(DataRate rate)
    {
        Ptr<Node> n = CreateObject<Node>();
        Ptr<RdmaHostStack> s = CreateObject<RdmaHostStack>();
        n->AggregateObject(s);
        s->SetHostIndex(uint32_t(hosts.size()));
        s->SetDirectory(directory);
        hosts.push_back(n);
        stacks.push_back(s);
        hostDevs.push_back(MakeDev(n, rate));
        // every message of the host, whatever QP it used
        s->TraceConnectWithoutContext("TxMessageComplete", MakeCallback(&TestNet::OnTx, this));
        s->TraceConnectWithoutContext("RxMessageComplete", MakeCallback(&TestNet::OnRx, this));
        return s;
    }

    /// Two hosts on one cable.
    void BuildDirect(DataRate rate, Time delay)
    {
        AddHost(rate);
        AddHost(rate);
        Link(hostDevs[0], hostDevs[1], delay);
        stacks[0]->AddPort(hostDevs[0]);
        stacks[1]->AddPort(hostDevs[1]);
    }

    /// n hosts on one switch (host i on switch port i).
    void BuildStar(uint32_t n, DataRate rate, Time delay)
    {
        Ptr<Node> swNode = CreateObject<Node>();
        Ptr<RdmaSwitch> sw = CreateObject<RdmaSwitch>();
        swNode->AggregateObject(sw);
        switches.push_back(sw);
        for (uint32_t i = 0; i < n; ++i)
        {
            AddHost(rate);
            Ptr<RdmaNetDevice> sd = MakeDev(swNode, rate);
            Link(hostDevs[i], sd, delay);
            stacks[i]->AddPort(hostDevs[i]);
            sw->AddPort(sd);
            sw->GetForwardingTable()->SetRoute(i, {i}, 1);
        }
    }
};

/// Frame bytes of a WRITE data packet with this payload.
uint32_t
DataFrameBytes(uint32_t payload, bool first, bool last)
{
    RdmaMeta m;
    m.opcode = first ? (last ? RoceOpcode::WRITE_ONLY : RoceOpcode::WRITE_FIRST)
                     : (last ? RoceOpcode::WRITE_LAST : RoceOpcode::WRITE_MIDDLE);
    m.payload = payload;
    return RoceFrame::GetFrameBytes(m);
}

/// Serialization times of the packets of a message on a link.
std::vector<Time>
PacketTxTimes(Ptr<RdmaNetDevice> dev, uint64_t bytes, uint32_t mtu)
{
    uint64_t n = bytes == 0 ? 1 : (bytes + mtu - 1) / mtu;
    std::vector<Time> t;
    for (uint64_t k = 0; k < n; ++k)
    {
        uint32_t p = uint32_t(std::min<uint64_t>(mtu, bytes - k * mtu));
        t.push_back(dev->GetTxTime(DataFrameBytes(p, k == 0, k + 1 == n)));
    }
    return t;
}

/**
 * Closed-form FCT of one message over `hops` store-and-forward links of equal rate and
 * delay d (1 or 2 hops): one hop: sum of tx + d; two hops (store-and-forward):
 * 2d + max over packets k of (tx_0 + ... + tx_k) + (tx_k + ... + tx_n-1), i.e. the
 * packet the second link's pipeline waits for.
 */
Time
ClosedFormFct(const std::vector<Time>& tx, uint32_t hops, Time d)
{
    Time sum(0);
    for (const Time& t : tx)
    {
        sum += t;
    }
    if (hops == 1)
    {
        return sum + d;
    }
    Time best(0);
    Time prefix(0);
    for (size_t k = 0; k < tx.size(); ++k)
    {
        prefix += tx[k];
        Time suffix = sum - prefix + tx[k];
        best = std::max(best, prefix + suffix);
    }
    return best + 2 * d;
}

/// One long flow on a direct link: goodput vs line rate x payload efficiency.
class GoodputTestCase : public TestCase
{
  public:
    GoodputTestCase()
        : TestCase("Transport: one flow's goodput within 1% of line rate x payload efficiency")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcNone::GetTypeId()));
        TestNet net;
        net.BuildDirect(DataRate("100Gbps"), MicroSeconds(1));
        const uint64_t bytes = 20 * 1000 * 1000;
        Ptr<RdmaQueuePair> qp = net.stacks[0]->GetOrCreateQp(1);
        net.stacks[0]->PostWrite(qp, bytes, 7);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(net.rx.size(), 1u, "delivered");
        NS_TEST_ASSERT_MSG_EQ(net.tx.size(), 1u, "acknowledged");
        NS_TEST_ASSERT_MSG_EQ(net.rx[0].bytes, bytes, "bytes");
        NS_TEST_ASSERT_MSG_EQ(net.rx[0].tag, 7u, "tag");
        double fct = (net.rx[0].end - net.rx[0].start).GetSeconds() - 1e-6; // minus propagation
        double goodput = bytes * 8.0 / fct;
        const uint32_t wire = DataFrameBytes(1000, false, false) + kEthernetWireOverhead;
        double expected = 100e9 * 1000.0 / wire;
        NS_TEST_ASSERT_MSG_EQ_TOL(goodput / expected, 1.0, 0.01, "goodput " << goodput);
        std::cout << "  goodput " << goodput / 1e9 << " Gbps, expected " << expected / 1e9
                  << " Gbps (wire bytes per 1000 B packet " << wire << ")" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(qp->GetSndUna(), bytes, "snd_una");
        Simulator::Destroy();
        Config::Reset();
    }
};

/// One message's FCT: direct link and through one store-and-forward switch.
class FctClosedFormTestCase : public TestCase
{
  public:
    FctClosedFormTestCase()
        : TestCase("Transport: message FCT within 1% of the closed form (direct, via a switch)")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcNone::GetTypeId()));
        const Time d = MicroSeconds(2);
        for (uint64_t bytes : {uint64_t(1000), uint64_t(64 * 1000 + 17)})
        {
            {
                TestNet net;
                net.BuildDirect(DataRate("25Gbps"), d);
                net.stacks[0]->PostWrite(net.stacks[0]->GetOrCreateQp(1), bytes, 1);
                Simulator::Run();
                NS_TEST_ASSERT_MSG_EQ(net.rx.size(), 1u, "delivered");
                Time expect = ClosedFormFct(PacketTxTimes(net.hostDevs[0], bytes, 1000), 1, d);
                Time fct = net.rx[0].end - net.rx[0].start;
                NS_TEST_ASSERT_MSG_EQ_TOL(fct.GetSeconds() / expect.GetSeconds(),
                                          1.0,
                                          0.01,
                                          "direct FCT " << fct << " vs " << expect);
                Simulator::Destroy();
            }
            {
                TestNet net;
                net.BuildStar(2, DataRate("25Gbps"), d);
                net.stacks[0]->PostWrite(net.stacks[0]->GetOrCreateQp(1), bytes, 1);
                Simulator::Run();
                NS_TEST_ASSERT_MSG_EQ(net.rx.size(), 1u, "delivered via switch");
                Time expect = ClosedFormFct(PacketTxTimes(net.hostDevs[0], bytes, 1000), 2, d);
                Time fct = net.rx[0].end - net.rx[0].start;
                NS_TEST_ASSERT_MSG_EQ_TOL(fct.GetSeconds() / expect.GetSeconds(),
                                          1.0,
                                          0.01,
                                          "switched FCT " << fct << " vs " << expect);
                std::cout << "  " << bytes << " B via switch: FCT " << fct.GetNanoSeconds()
                          << " ns, closed form " << expect.GetNanoSeconds() << " ns" << std::endl;
                Simulator::Destroy();
            }
        }
        Config::Reset();
    }
};

/// Several messages queued on one persistent QP, WRITE and SEND, 0-byte, odd sizes.
class SegmentationTestCase : public TestCase
{
  public:
    SegmentationTestCase()
        : TestCase("Transport: segmentation, queued messages, SEND and WRITE, in-order completion")
    {
    }

  private:
    void DoRun() override
    {
        TestNet net;
        net.BuildDirect(DataRate("10Gbps"), MicroSeconds(1));
        Ptr<RdmaQueuePair> qp = net.stacks[0]->GetOrCreateQp(1, 3, 1234);
        NS_TEST_ASSERT_MSG_EQ(PeekPointer(net.stacks[0]->GetOrCreateQp(1, 3, 1234)),
                              PeekPointer(qp),
                              "persistent QP per (dst, priority, sport)");
        std::vector<uint64_t> sizes{1, 999, 1000, 1001, 0, 12345, 3000};
        uint64_t total = 0;
        for (size_t i = 0; i < sizes.size(); ++i)
        {
            if (i % 2)
            {
                net.stacks[0]->PostSend(qp, sizes[i], 100 + i);
            }
            else
            {
                net.stacks[0]->PostWrite(qp, sizes[i], 100 + i);
            }
            total += sizes[i];
        }
        // reverse direction on the same RC connection
        Ptr<RdmaQueuePair> back = net.stacks[1]->GetOrCreateQp(0, 3, 1234);
        NS_TEST_ASSERT_MSG_EQ(back->GetPeerQpn(), qp->GetQpn(), "same connection");
        net.stacks[1]->PostWrite(back, 5000, 99);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(net.rx.size(), sizes.size() + 1, "all delivered");
        NS_TEST_ASSERT_MSG_EQ(net.tx.size(), sizes.size() + 1, "all acknowledged");
        size_t k = 0;
        for (const auto& r : net.rx)
        {
            if (r.srcHost != 0)
            {
                continue;
            }
            NS_TEST_ASSERT_MSG_EQ(r.bytes, sizes[k], "size of message " << k);
            NS_TEST_ASSERT_MSG_EQ(r.tag, 100 + k, "order / tag");
            ++k;
        }
        NS_TEST_ASSERT_MSG_EQ(qp->GetSndUna(), total, "64-bit snd_una");
        NS_TEST_ASSERT_MSG_EQ(net.stacks[1]->GetQp(qp->GetPeerQpn())->GetRcvBytes(),
                              total,
                              "responder bytes");
        // 1 + 1 + 1 + 2 + 1 + 13 + 3 packets
        NS_TEST_ASSERT_MSG_EQ(net.stacks[0]->GetStats().dataPktsSent, 22u, "segmentation");
        Simulator::Destroy();
    }
};

/// PSN wrap past 2^24 and one message larger than 4 GiB.
class PsnWrapBigMessageTestCase : public TestCase
{
  public:
    PsnWrapBigMessageTestCase()
        : TestCase("Transport: PSN wraps past 2^24 and a 4.3 GB message completes exactly")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcNone::GetTypeId()));
        Config::SetDefault("ns3::RdmaHostStack::Mtu", UintegerValue(4096));
        Config::SetDefault("ns3::RdmaHostStack::AckInterval", UintegerValue(256));
        Config::SetDefault("ns3::RdmaHostStack::InitialPsn", UintegerValue((1u << 24) - 1000));
        TestNet net;
        net.BuildDirect(DataRate("1600Gbps"), MicroSeconds(1));
        const uint64_t bytes = (uint64_t(1) << 32) + 300 * 1000 * 1000 + 123; // > 4 GiB
        Ptr<RdmaQueuePair> qp = net.stacks[0]->GetOrCreateQp(1);
        net.stacks[0]->PostWrite(qp, 5000, 1); // crosses the wrap early
        net.stacks[0]->PostWrite(qp, bytes, 2);
        net.stacks[0]->PostWrite(qp, 10, 3);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(net.rx.size(), 3u, "delivered");
        NS_TEST_ASSERT_MSG_EQ(net.tx.size(), 3u, "acknowledged");
        NS_TEST_ASSERT_MSG_EQ(net.rx[1].bytes, bytes, "4.3 GB message bytes (64-bit)");
        NS_TEST_ASSERT_MSG_EQ(net.rx[2].tag, 3u, "message after the big one");
        NS_TEST_ASSERT_MSG_EQ(qp->GetSndUna(), bytes + 5010, "snd_una beyond 2^32");
        uint64_t pkts = net.stacks[0]->GetStats().dataPktsSent;
        NS_TEST_ASSERT_MSG_EQ(pkts, 2 + (bytes + 4095) / 4096 + 1, "packets");
        NS_TEST_ASSERT_MSG_EQ(net.stacks[0]->GetStats().retxPkts, 0u, "no retransmission");
        NS_TEST_ASSERT_MSG_EQ(net.stacks[1]->GetStats().outOfOrderPkts, 0u, "no false gap");
        std::cout << "  " << pkts << " packets, PSN " << qp->GetInitialPsn() << " -> "
                  << ((qp->GetInitialPsn() + pkts) & 0xFFFFFF) << " (wrapped)" << std::endl;
        Simulator::Destroy();
        Config::Reset();
    }
};

/// Lossy link: random frame loss both ways; NAK and timeout paths.
class LossyLinkTestCase : public TestCase, public RdmaQpConsumer
{
  public:
    LossyLinkTestCase()
        : TestCase("Transport: lossy link, every WRITE and READ completes via NAK, go-back-N, RTO")
    {
    }

  private:
    TestNet* m_net{nullptr};
    Ptr<RdmaQueuePair> m_qp;
    uint32_t m_left{0};

    void TxComplete(RdmaQueuePair&, const RdmaMessageInfo&) override
    {
        Next();
    }

    void ReadComplete(RdmaQueuePair&, const RdmaMessageInfo&) override
    {
        Next();
    }

    /// the requester's completion (recorded by the net's trace sinks): post the next message
    void Next()
    {
        if (m_left > 0)
        {
            --m_left;
            if (m_left % 3 == 1)
            {
                m_net->stacks[0]->PostRead(m_qp, 20000 + m_left * 7, m_left);
            }
            else
            {
                m_net->stacks[0]->PostWrite(m_qp, 20000 + m_left * 7, m_left);
            }
        }
    }

    void DoRun() override
    {
        RngSeedManager::SetSeed(3);
        RngSeedManager::SetRun(1);
        Config::SetDefault("ns3::RdmaHostStack::Rto", TimeValue(MicroSeconds(200)));
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcNone::GetTypeId()));
        TestNet net;
        m_net = &net;
        net.BuildDirect(DataRate("10Gbps"), MicroSeconds(2));
        for (uint32_t h = 0; h < 2; ++h)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetAttribute("ErrorRate", DoubleValue(0.02));
            em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
            em->AssignStreams(10 + h);
            net.hostDevs[h]->SetReceiveErrorModel(em);
        }
        m_qp = net.stacks[0]->GetOrCreateQp(1, 255, 0, this);
        const uint32_t nMsgs = 150;
        m_left = nMsgs - 1;
        net.stacks[0]->PostWrite(m_qp, 20000 + m_left * 7, 1000);
        Simulator::Run();
        const RdmaHostStats& s0 = net.stacks[0]->GetStats();
        const RdmaHostStats& s1 = net.stacks[1]->GetStats();
        NS_TEST_ASSERT_MSG_EQ(net.rx.size(), nMsgs, "every message delivered once");
        NS_TEST_ASSERT_MSG_EQ(net.tx.size(), nMsgs, "every message acknowledged");
        for (size_t k = 0; k < net.rx.size(); ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(net.rx[k].bytes, net.tx[k].bytes, "bytes of message " << k);
        }
        NS_TEST_ASSERT_MSG_GT(s1.naksSent, 0u, "NAK path hit");
        NS_TEST_ASSERT_MSG_GT(s0.naksRcvd, 0u, "NAK received");
        NS_TEST_ASSERT_MSG_GT(s0.timeouts, 0u, "timeout path hit");
        // host 0 receives data only as READ responses: a gap there re-issued a READ
        NS_TEST_ASSERT_MSG_GT(s0.outOfOrderPkts, 0u, "READ response gap path hit");
        NS_TEST_ASSERT_MSG_GT(s1.dupPkts, 0u, "duplicates seen by the responder");
        NS_TEST_ASSERT_MSG_GT(s0.retxPkts, 0u, "retransmissions");
        NS_TEST_ASSERT_MSG_GT(net.hostDevs[1]->GetDrops(), 0u, "frames were lost");
        std::cout << "  lossy: drops " << net.hostDevs[1]->GetDrops() << "+"
                  << net.hostDevs[0]->GetDrops() << ", NAKs " << s1.naksSent << ", timeouts "
                  << s0.timeouts << ", retransmitted packets " << s0.retxPkts
                  << ", READ response gaps " << s0.outOfOrderPkts << std::endl;
        Simulator::Destroy();
        Config::Reset();
    }
};

/// Test CC: a fixed rate (exercises pacing) and optional window.
class FixedRateCc : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RdmaTestFixedRateCc")
                                .SetParent<RdmaCongestionOps>()
                                .SetGroupName("AstraSim")
                                .AddConstructor<FixedRateCc>();
        return tid;
    }

    FixedRateCc() = default;

    FixedRateCc(const FixedRateCc& o)
        : RdmaCongestionOps(o),
          m_fixed(o.m_fixed),
          m_win(o.m_win)
    {
    }

    std::string GetName() const override
    {
        return "FixedRate";
    }

    Ptr<RdmaCongestionOps> Fork() override
    {
        return CopyObject<FixedRateCc>(this);
    }

    void Init(const RdmaCcInit& init) override
    {
        RdmaCongestionOps::Init(init);
        SetRate(m_fixed);
        m_window = m_win;
    }

    void OnAck(uint64_t bytes, const RdmaMeta& meta) override
    {
        ++acks;
        if (meta.sendTimeNs != 0)
        {
            ++echoes;
        }
    }

    void OnRttSample(Time rtt, const RdmaMeta&) override
    {
        minRtt = std::min(minRtt, rtt);
    }

    uint64_t m_fixed{10000000000ull}; //!< rate
    uint64_t m_win{0};                //!< window
    uint64_t acks{0};                 //!< OnAck calls
    uint64_t echoes{0};               //!< ACKs with an echoed timestamp
    Time minRtt{Time::Max()};         //!< smallest RTT sample
};

/// Pacing at the CC rate, window cap, ACK coalescing, RTT samples reach the CC.
class PacingWindowAckTestCase : public TestCase
{
  public:
    PacingWindowAckTestCase()
        : TestCase("Transport: pacing at the CC rate, window cap, ACK coalescing, RTT echo")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t wire = DataFrameBytes(1000, false, false) + kEthernetWireOverhead;
        {
            // paced at 10 Gbps on a 100 Gbps link
            TestNet net;
            net.BuildDirect(DataRate("100Gbps"), MicroSeconds(1));
            Ptr<FixedRateCc> cc = CreateObject<FixedRateCc>();
            net.stacks[0]->SetCongestionControl(cc);
            net.stacks[1]->SetAttribute("AckInterval", UintegerValue(4));
            Ptr<RdmaQueuePair> qp = net.stacks[0]->GetOrCreateQp(1);
            const uint64_t bytes = 4000000;
            net.stacks[0]->PostWrite(qp, bytes, 1);
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(net.rx.size(), 1u, "delivered");
            double fct = (net.rx[0].end - net.rx[0].start).GetSeconds();
            double goodput = bytes * 8.0 / fct;
            double expected = 10e9 * 1000.0 / wire;
            NS_TEST_ASSERT_MSG_EQ_TOL(goodput / expected, 1.0, 0.01, "paced goodput " << goodput);
            // 4000 packets, one ACK per 4 (the last one also ends the message)
            NS_TEST_ASSERT_MSG_EQ(net.stacks[1]->GetStats().acksSent, 1000u, "ACK coalescing");
            Ptr<FixedRateCc> qcc = DynamicCast<FixedRateCc>(qp->GetCongestionOps());
            NS_TEST_ASSERT_MSG_EQ(qcc->acks, 1000u, "OnAck per ACK");
            NS_TEST_ASSERT_MSG_EQ(qcc->echoes, 1000u, "timestamps echoed");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(qcc->minRtt, MicroSeconds(2), "RTT >= 2 x delay");
            NS_TEST_ASSERT_MSG_LT(qcc->minRtt, MicroSeconds(3), "RTT sample plausible");
            std::cout << "  paced goodput " << goodput / 1e9 << " Gbps (expected " << expected / 1e9
                      << "), min RTT " << qcc->minRtt << std::endl;
            Simulator::Destroy();
        }
        {
            // window of 10 packets on a 100 us RTT: throughput = window / RTT
            TestNet net;
            net.BuildDirect(DataRate("100Gbps"), MicroSeconds(50));
            Ptr<FixedRateCc> cc = CreateObject<FixedRateCc>();
            cc->m_fixed = 100000000000ull;
            cc->m_win = 10000;
            net.stacks[0]->SetCongestionControl(cc);
            Ptr<RdmaQueuePair> qp = net.stacks[0]->GetOrCreateQp(1);
            const uint64_t bytes = 1000000;
            net.stacks[0]->PostWrite(qp, bytes, 1);
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(net.rx.size(), 1u, "delivered");
            double fct = (net.rx[0].end - net.rx[0].start).GetSeconds();
            // per-packet ACKs slide the window: one window (10 packets) per RTT, RTT =
            // 2 x 50 us + one data frame + one ACK frame (70 B + 20 B wire overhead);
            // 100 windows: 99 RTTs, then the last packet's one-way trip
            RdmaMeta ack;
            ack.opcode = RoceOpcode::ACK;
            const double ackWire = RoceFrame::GetFrameBytes(ack) + kEthernetWireOverhead;
            double rtt = 100e-6 + wire * 8 / 100e9 + ackWire * 8 / 100e9;
            double expectFct = 99 * rtt + 50e-6 + wire * 8 / 100e9;
            NS_TEST_ASSERT_MSG_EQ_TOL(fct / expectFct, 1.0, 0.01, "window-limited FCT " << fct);
            std::cout << "  window-limited FCT " << fct * 1e6 << " us (closed form "
                      << expectFct * 1e6 << " us)" << std::endl;
            Simulator::Destroy();
        }
    }
};

/// RDMA READ: responses stream back, completion at the requester, FCT closed form.
class ReadTestCase : public TestCase
{
  public:
    ReadTestCase()
        : TestCase("Transport: RDMA READ completes at the requester, mixed with WRITEs")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcNone::GetTypeId()));
        const Time d = MicroSeconds(2);
        TestNet net;
        net.BuildDirect(DataRate("25Gbps"), d);
        Ptr<RdmaQueuePair> qp = net.stacks[0]->GetOrCreateQp(1);
        const uint64_t bytes = 64017;
        net.stacks[0]->PostRead(qp, bytes, 1);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(net.rx.size(), 1u, "READ delivered");
        NS_TEST_ASSERT_MSG_EQ(net.tx.size(), 1u, "READ completed");
        NS_TEST_ASSERT_MSG_EQ(net.rx[0].bytes, bytes, "bytes");
        NS_TEST_ASSERT_MSG_EQ((net.rx[0].kind == RdmaMsgKind::READ), true, "kind");
        NS_TEST_ASSERT_MSG_EQ(net.rx[0].end, net.tx[0].end, "both completions at the requester");
        // request (no payload, RETH) one way, then the responses stream back
        RdmaMeta req;
        req.opcode = RoceOpcode::READ_REQUEST;
        Time reqTx = net.hostDevs[0]->GetTxTime(RoceFrame::GetFrameBytes(req));
        Time resp(0);
        uint64_t n = (bytes + 999) / 1000;
        for (uint64_t k = 0; k < n; ++k)
        {
            RdmaMeta r;
            r.opcode =
                k == 0 ? RoceOpcode::READ_RESP_FIRST
                       : (k + 1 == n ? RoceOpcode::READ_RESP_LAST : RoceOpcode::READ_RESP_MIDDLE);
            r.payload = uint32_t(std::min<uint64_t>(1000, bytes - k * 1000));
            resp += net.hostDevs[1]->GetTxTime(RoceFrame::GetFrameBytes(r));
        }
        Time expect = reqTx + d + resp + d;
        Time fct = net.rx[0].end - net.rx[0].start;
        NS_TEST_ASSERT_MSG_EQ_TOL(fct.GetSeconds() / expect.GetSeconds(),
                                  1.0,
                                  0.01,
                                  "READ FCT " << fct << " vs " << expect);
        NS_TEST_ASSERT_MSG_EQ(net.stacks[1]->GetStats().dataPktsSent, n, "responses sent");
        NS_TEST_ASSERT_MSG_EQ(net.stacks[0]->GetStats().dataPktsSent, 1u, "one request");
        std::cout << "  READ " << bytes << " B: FCT " << fct.GetNanoSeconds() << " ns, closed form "
                  << expect.GetNanoSeconds() << " ns" << std::endl;
        Simulator::Destroy();

        // mixed: WRITE, READ, WRITE, READ, SEND on one QP; completions in order
        TestNet net2;
        net2.BuildDirect(DataRate("10Gbps"), MicroSeconds(1));
        Ptr<RdmaQueuePair> q2 = net2.stacks[0]->GetOrCreateQp(1);
        net2.stacks[0]->PostWrite(q2, 5000, 10);
        net2.stacks[0]->PostRead(q2, 7001, 11);
        net2.stacks[0]->PostWrite(q2, 3000, 12);
        net2.stacks[0]->PostRead(q2, 1, 13);
        net2.stacks[0]->PostSend(q2, 2500, 14);
        // the peer reads from us on the same connection at the same time
        Ptr<RdmaQueuePair> back = net2.stacks[1]->GetOrCreateQp(0, 3, q2->GetSport());
        net2.stacks[1]->PostRead(back, 20000, 20);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(net2.tx.size(), 6u, "all completed at requesters");
        NS_TEST_ASSERT_MSG_EQ(net2.rx.size(), 6u, "all delivered");
        std::vector<uint64_t> tags;
        for (const auto& t : net2.tx)
        {
            if (t.srcHost == 0)
            {
                tags.push_back(t.tag);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(tags.size(), 5u, "host 0 completions");
        for (size_t i = 0; i < tags.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(tags[i], 10 + i, "in-order completion");
        }
        NS_TEST_ASSERT_MSG_EQ(q2->GetSndUna(), 5000u + 7001 + 3000 + 1 + 2500, "snd_una");
        NS_TEST_ASSERT_MSG_EQ(net2.stacks[0]->GetStats().timeouts, 0u, "no RTO needed");
        NS_TEST_ASSERT_MSG_EQ(net2.stacks[1]->GetStats().timeouts, 0u, "no RTO needed (peer)");
        NS_TEST_ASSERT_MSG_EQ(net2.stacks[0]->GetStats().retxPkts, 0u, "no retransmission");
        Simulator::Destroy();
        Config::Reset();
    }
};

/// Completions go to the consumer of each QP end (per QP, not per host).
class QpConsumerTestCase : public TestCase
{
  public:
    QpConsumerTestCase()
        : TestCase("Transport: completions per QP consumer (TX, RX at the responder end, READ)")
    {
    }

  private:
    /// Records what it is told; may post once from a TX completion (re-entrant post).
    struct Recorder : public RdmaQpConsumer
    {
        struct Call
        {
            char what;         //!< 't' TX, 'r' RX, 'R' READ
            RdmaQueuePair* qp; //!< the QP end it came through
            RdmaMessageInfo info;
        };

        std::vector<Call> calls;
        Ptr<RdmaHostStack> repostOn; //!< post a follow-up WRITE on the first TX completion
        Ptr<RdmaQueuePair> repostQp;

        void TxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& i) override
        {
            calls.push_back({'t', &qp, i});
            if (repostOn)
            {
                repostOn->PostWrite(repostQp, 1500, i.tag + 1);
                repostOn = nullptr;
            }
        }

        void RxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& i) override
        {
            calls.push_back({'r', &qp, i});
        }

        void ReadComplete(RdmaQueuePair& qp, const RdmaMessageInfo& i) override
        {
            calls.push_back({'R', &qp, i});
        }

        std::string Tags(char what) const
        {
            std::string s;
            for (const auto& c : calls)
            {
                if (c.what == what)
                {
                    s += (s.empty() ? "" : ",") + std::to_string(c.info.tag);
                }
            }
            return s;
        }
    };

    void DoRun() override
    {
        TestNet net;
        net.BuildStar(3, DataRate("25Gbps"), MicroSeconds(1));
        Recorder a;
        Recorder b;
        Recorder c;
        Ptr<RdmaQueuePair> qa = net.stacks[0]->GetOrCreateQp(1, 3, 50000, &a);
        Ptr<RdmaQueuePair> qb = net.stacks[0]->GetOrCreateQp(1, 3, 50001, &b);
        Ptr<RdmaQueuePair> qn = net.stacks[0]->GetOrCreateQp(2, 3, 50002); // no consumer
        NS_TEST_ASSERT_MSG_EQ(qa->GetConsumer(), &a, "consumer set on the requester end");
        Ptr<RdmaQueuePair> qaPeer = net.stacks[1]->GetQp(qa->GetPeerQpn());
        NS_TEST_ASSERT_MSG_EQ(qaPeer->GetConsumer(), &a, "and on the responder end");
        NS_TEST_ASSERT_MSG_EQ(qn->GetConsumer(), nullptr, "none asked for, none set");
        // the same connection asked for again keeps its consumer
        NS_TEST_ASSERT_MSG_EQ(net.stacks[0]->GetOrCreateQp(1, 3, 50000), qa, "existing QP");
        // the responder end of qb reports to another consumer (a server's view)
        Ptr<RdmaQueuePair> qbPeer = net.stacks[1]->GetQp(qb->GetPeerQpn());
        qbPeer->SetConsumer(&c);
        a.repostOn = net.stacks[0];
        a.repostQp = qa;
        net.stacks[0]->PostWrite(qa, 4000, 11);
        net.stacks[0]->PostSend(qb, 3000, 22);
        net.stacks[0]->PostWrite(qn, 2000, 33);
        net.stacks[0]->PostRead(qa, 5000, 44);
        Simulator::Run();
        // a: WRITE 11 (TX at the requester, RX at the responder), the re-entrant WRITE 12,
        // the READ 44 (one READ completion, no TX completion)
        NS_TEST_ASSERT_MSG_EQ(a.Tags('t'), "11,12", "TX completions of a's QP");
        NS_TEST_ASSERT_MSG_EQ(a.Tags('r'), "11,12", "RX completions of a's QP (responder end)");
        NS_TEST_ASSERT_MSG_EQ(a.Tags('R'), "44", "READ completion at the requester");
        NS_TEST_ASSERT_MSG_EQ(b.Tags('t'), "22", "b: its SEND acknowledged");
        NS_TEST_ASSERT_MSG_EQ(b.Tags('r'), "", "b's responder end was handed to c");
        NS_TEST_ASSERT_MSG_EQ(c.Tags('r'), "22", "c: the SEND arrived");
        NS_TEST_ASSERT_MSG_EQ(c.Tags('t') + c.Tags('R'), "", "c sent nothing");
        for (const auto& call : a.calls)
        {
            const bool requester = call.what != 'r';
            NS_TEST_ASSERT_MSG_EQ(call.qp,
                                  (requester ? PeekPointer(qa) : PeekPointer(qaPeer)),
                                  "the QP end of the completion");
            NS_TEST_ASSERT_MSG_EQ(call.info.srcQp, qa->GetQpn(), "the requester's QP number");
            NS_TEST_ASSERT_MSG_GT(call.info.end, call.info.start, "completed after posted");
            if (call.what == 'R')
            {
                NS_TEST_ASSERT_MSG_EQ((call.info.kind == RdmaMsgKind::READ), true, "READ kind");
                NS_TEST_ASSERT_MSG_EQ(call.info.bytes, 5000u, "READ bytes");
            }
        }
        // the trace sources still see every message of the host, consumer or not
        NS_TEST_ASSERT_MSG_EQ(net.tx.size(), 5u, "TxMessageComplete: 11, 12, 22, 33, 44");
        NS_TEST_ASSERT_MSG_EQ(net.rx.size(), 5u, "RxMessageComplete: 11, 12, 22, 33, 44");
        // a consumer detached from a QP hears nothing more
        qb->SetConsumer(nullptr);
        net.stacks[0]->PostSend(qb, 100, 23);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(b.Tags('t'), "22", "detached: no further completion");
        NS_TEST_ASSERT_MSG_EQ(c.Tags('r'), "22,23", "the responder end still reports to c");
        Simulator::Destroy();
    }
};

/// Bad attribute values give clear errors.
class ValidationTestCase : public TestCase
{
  public:
    ValidationTestCase()
        : TestCase("Transport: invalid attribute values are reported with a clear message")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RdmaHostStack> s = CreateObject<RdmaHostStack>();
        NS_TEST_ASSERT_MSG_EQ(s->Validate(), "", "defaults valid");
        s->SetAttribute("Mtu", UintegerValue(0));
        s->SetAttribute("Rto", TimeValue(Seconds(0)));
        std::string e = s->Validate();
        NS_TEST_ASSERT_MSG_NE(e.find("Mtu must be in 256..9000"), std::string::npos, e);
        NS_TEST_ASSERT_MSG_NE(e.find("Rto must be > 0"), std::string::npos, e);
        Ptr<RdmaHostStack> s2 = CreateObject<RdmaHostStack>();
        Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
        cc->SetAttribute("MinRate", DataRateValue(DataRate(0)));
        s2->SetCongestionControl(cc);
        NS_TEST_ASSERT_MSG_NE(s2->Validate().find("MinRate must be > 0"),
                              std::string::npos,
                              "CC errors surface through the stack");
        // switch-side checks (S's validators)
        NS_TEST_ASSERT_MSG_NE(RdmaEcnMarker::CheckThresholds(400000, 100000, 0.2),
                              "",
                              "Kmin > Kmax");
        NS_TEST_ASSERT_MSG_NE(RdmaEcnMarker::CheckThresholds(100, 400, 1.5), "", "Pmax > 1");
        NS_TEST_ASSERT_MSG_EQ(RdmaEcnMarker::CheckThresholds(100000, 400000, 0.2), "", "valid ECN");
        uint64_t need =
            SwitchMmu::ComputeHeadroom(DataRate("100Gbps"), MicroSeconds(1), 1110, MicroSeconds(1));
        NS_TEST_ASSERT_MSG_NE(SwitchMmu::CheckHeadroom("sw", 0, need / 2, need),
                              "",
                              "headroom too small");
        NS_TEST_ASSERT_MSG_EQ(SwitchMmu::CheckHeadroom("sw", 0, need, need), "", "enough");
        // a zero-rate device is refused by the device itself
        Ptr<RdmaNetDevice> d = CreateObject<RdmaNetDevice>();
        NS_TEST_ASSERT_MSG_EQ(d->SetAttributeFailSafe("DataRate", StringValue("-5Gbps")),
                              false,
                              "negative rate refused");
        Simulator::Destroy();
    }
};

/// The suite.
class RdmaTransportTestSuite : public TestSuite
{
  public:
    RdmaTransportTestSuite()
        : TestSuite("astra-sim-rdma-transport", UNIT)
    {
        AddTestCase(new ValidationTestCase, TestCase::QUICK);
        AddTestCase(new QpConsumerTestCase, TestCase::QUICK);
        AddTestCase(new SegmentationTestCase, TestCase::QUICK);
        AddTestCase(new ReadTestCase, TestCase::QUICK);
        AddTestCase(new FctClosedFormTestCase, TestCase::QUICK);
        AddTestCase(new GoodputTestCase, TestCase::QUICK);
        AddTestCase(new PacingWindowAckTestCase, TestCase::QUICK);
        AddTestCase(new LossyLinkTestCase, TestCase::QUICK);
        AddTestCase(new PsnWrapBigMessageTestCase, TestCase::QUICK);
    }
};

static RdmaTransportTestSuite g_rdmaTransportTestSuite; //!< registration

} // namespace
