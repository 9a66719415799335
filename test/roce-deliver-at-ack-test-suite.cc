/*
 * astra-sim-roce-deliver-at-ack: RoceBackend::DeliverAtAck, the delivery rule
 * of ASTRA-sim 2.0's ns-3 backend (the receiving NPU learns of a message when
 * the sender's NIC has the last ACK), against the module's default (when the
 * last byte has reached the receiver):
 *
 *  - one message through one switch, no congestion control: with the option
 *    the receiver's completion comes in the sender's completion event, exactly
 *    one ACK return after the default delivery: A = sum over the reverse path
 *    of (ACK frame on the wire / link rate + propagation); the sender's
 *    completion is the same in both modes;
 *  - the closed form L = D + A per message is what makes every step of the
 *    reference's ring pay a return trip (doc/validation.rst).
 */

#include "ns3/astra-fabric-helper.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-meta.h"
#include "ns3/roce-backend.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// Times of one message's two completions.
struct Completions
{
    int64_t rx{-1}; //!< receiver (ns)
    int64_t tx{-1}; //!< sender (ns)
    bool rxAfterTx{false};
};

Completions
RunOne(bool atAck, uint64_t bytes)
{
    Config::SetDefault("ns3::RdmaHostStack::Mtu", UintegerValue(1000));
    Config::SetDefault("ns3::RdmaHostStack::CongestionControl", StringValue("ns3::RdmaCcNone"));
    std::vector<DimensionSpec> dims{{DimType::SWITCH, 4, 50.0, 500.0}};
    auto topo = std::make_shared<Topology>(Topology::FromDimensions(dims));
    AstraFabricHelper fabric;
    NodeContainer npus = fabric.Install(topo);
    Ptr<RoceBackend> rb = CreateObject<RoceBackend>();
    rb->SetAttribute("DeliverAtAck", BooleanValue(atAck));
    rb->SetFabric(topo, npus);
    Completions c;
    NetMessage m;
    m.src = 0;
    m.dst = 3;
    m.bytes = bytes;
    m.dim = 0;
    rb->Send(
        m,
        [&c](const NetMessage&) { c.tx = Simulator::Now().GetNanoSeconds(); },
        [&c](const NetMessage&) {
            c.rx = Simulator::Now().GetNanoSeconds();
            c.rxAfterTx = c.tx >= 0;
        });
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    Simulator::Destroy();
    Config::Reset();
    return c;
}

class DeliverAtAckTestCase : public TestCase
{
  public:
    DeliverAtAckTestCase()
        : TestCase("DeliverAtAck: the receiver completes one ACK return later, with the sender")
    {
    }

  private:
    void DoRun() override
    {
        for (uint64_t bytes : {uint64_t(1000), uint64_t(64 << 10), uint64_t(1 << 20)})
        {
            const Completions d = RunOne(false, bytes);
            const Completions a = RunOne(true, bytes);
            NS_TEST_ASSERT_MSG_GT(d.rx, 0, "default: delivered");
            NS_TEST_EXPECT_MSG_EQ(d.rxAfterTx, false, "default: delivery before the ACK");
            NS_TEST_EXPECT_MSG_EQ(a.tx, d.tx, "the sender's completion does not change");
            NS_TEST_EXPECT_MSG_EQ(a.rx, a.tx, "DeliverAtAck: in the sender's event");
            NS_TEST_EXPECT_MSG_EQ(a.rxAfterTx, true, "DeliverAtAck: the sender first");
            // the ACK's return: 2 hops of (the ACK frame's serialization at 50 GB/s + 500 ns);
            // a device serializes a frame in floor(bits / rate) ticks plus at most one tick
            // carried from its earlier frames (its long-run rate is exact)
            RdmaMeta ack;
            ack.opcode = RoceOpcode::ACK;
            const double bits = (RoceFrame::GetFrameBytes(ack) + kEthernetWireOverhead) * 8.0;
            const int64_t ser = static_cast<int64_t>(bits / (50.0 * 1073741824.0 * 8 / 1e9));
            const int64_t ackReturn = 2 * (ser + 500);
            NS_TEST_EXPECT_MSG_GT_OR_EQ(a.rx - d.rx, ackReturn, bytes << " B: L = D + A");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(a.rx - d.rx,
                                        ackReturn + 2,
                                        bytes << " B: L = D + A (A = " << ackReturn
                                              << " ns + at most a tick per hop)");
        }
    }
};

class RoceDeliverAtAckTestSuite : public TestSuite
{
  public:
    RoceDeliverAtAckTestSuite()
        : TestSuite("astra-sim-roce-deliver-at-ack", UNIT)
    {
        AddTestCase(new DeliverAtAckTestCase, TestCase::QUICK);
    }
};

RoceDeliverAtAckTestSuite g_roceDeliverAtAckTestSuite;

} // namespace
