#include "rdma-remote-channel.h"

#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/node-order.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaRemoteChannel");

NS_OBJECT_ENSURE_REGISTERED(RdmaRemoteChannel);

namespace
{
constexpr uint32_t kFrameMagic = 0x52444d41;             //!< "RDMA": an encoded frame
constexpr uint32_t kHeaderBytes = 16 + sizeof(RdmaMeta); //!< magic, flags, tie, meta

/// MpiReceiver callback: the channel and the receiving end are bound
void ReceiveThunk(RdmaRemoteChannel* ch, uint8_t to, Ptr<Packet> p);
} // namespace

TypeId
RdmaRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaRemoteChannel")
                            .SetParent<RdmaChannel>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<RdmaRemoteChannel>();
    return tid;
}

RdmaRemoteChannel::RdmaRemoteChannel() = default;
RdmaRemoteChannel::~RdmaRemoteChannel() = default;

bool
RdmaRemoteChannel::Attach(Ptr<RdmaNetDevice> dev)
{
    if (!RdmaChannel::Attach(dev))
    {
        return false;
    }
    if (GetNDevices() < 2)
    {
        return true;
    }
    const uint32_t self = MpiInterface::IsEnabled() ? MpiInterface::GetSystemId() : 0;
    for (uint8_t i = 0; i < 2; ++i)
    {
        Ptr<RdmaNetDevice> d = GetRdmaDevice(i);
        Ptr<RdmaNetDevice> peer = GetRdmaDevice(1 - i);
        const uint32_t mine = d->GetNode()->GetSystemId();
        SetRemoteDirection(i, mine != peer->GetNode()->GetSystemId());
        if (mine == self && !d->GetObject<MpiReceiver>())
        {
            Ptr<MpiReceiver> rx = CreateObject<MpiReceiver>();
            rx->SetReceiveCallback(MakeBoundCallback(&ReceiveThunk, this, i));
            d->AggregateObject(rx);
        }
    }
    return true;
}

Ptr<Packet>
RdmaRemoteChannel::Encode(const RdmaQueuedFrame& frame, uint64_t tie)
{
    uint8_t buf[kHeaderBytes];
    const uint32_t flags = frame.packet ? 1u : 0u;
    std::memcpy(buf, &kFrameMagic, 4);
    std::memcpy(buf + 4, &flags, 4);
    std::memcpy(buf + 8, &tie, 8);
    std::memcpy(buf + 16, &frame.meta, sizeof(RdmaMeta)); // plain data; one binary on every rank
    Ptr<Packet> p = Create<Packet>(buf, kHeaderBytes);
    if (frame.packet)
    {
        p->AddAtEnd(frame.packet);
    }
    return p;
}

bool
RdmaRemoteChannel::Decode(Ptr<Packet> p, RdmaQueuedFrame& frame, uint64_t* tie)
{
    if (!p || p->GetSize() < kHeaderBytes)
    {
        return false;
    }
    uint8_t buf[kHeaderBytes];
    p->CopyData(buf, kHeaderBytes);
    uint32_t magic = 0;
    uint32_t flags = 0;
    std::memcpy(&magic, buf, 4);
    std::memcpy(&flags, buf + 4, 4);
    if (magic != kFrameMagic)
    {
        return false;
    }
    if (tie)
    {
        std::memcpy(tie, buf + 8, 8);
    }
    std::memcpy(&frame.meta, buf + 16, sizeof(RdmaMeta));
    frame.inPort = 0;
    if (flags & 1u)
    {
        Ptr<Packet> bytes = p->Copy();
        bytes->RemoveAtStart(kHeaderBytes);
        frame.packet = bytes;
    }
    else
    {
        frame.packet = nullptr;
    }
    return true;
}

void
RdmaRemoteChannel::SendRemote(const RdmaQueuedFrame& frame,
                              uint8_t d,
                              int64_t arrivalTs,
                              uint64_t tie)
{
    Ptr<RdmaNetDevice> to = GetRdmaDevice(1 - d);
    ++m_sentRemote;
    MpiInterface::SendPacket(Encode(frame, tie),
                             TimeStep(arrivalTs),
                             to->GetNode()->GetId(),
                             to->GetIfIndex());
}

void
RdmaRemoteChannel::ReceiveRemote(uint8_t to, Ptr<Packet> p)
{
    RdmaFrameSlot* slot = RdmaFrameSlot::Get();
    uint64_t tie = 0;
    if (!Decode(p, slot->frame, &tie))
    {
        RdmaFrameSlot::Put(slot);
        NS_FATAL_ERROR("RdmaRemoteChannel: a message that is not an RDMA frame arrived");
    }
    ++m_rcvdRemote;
    if (astra::EventOrder::IsNodeOrder())
    {
        // this event was scheduled by ns-3's MPI code and runs before the other events of
        // its time stamp: the frame takes its own place among them
        Ptr<RdmaNetDevice> dev = GetRdmaDevice(to);
        astra::EventOrder::SetNext(tie);
        Simulator::ScheduleWithContext(dev->GetNode()->GetId(),
                                       Time(0),
                                       &RdmaRemoteChannel::DeliverRemote,
                                       this,
                                       slot,
                                       to);
        return;
    }
    DeliverSlot(slot, PeekPointer(GetRdmaDevice(to)));
}

void
RdmaRemoteChannel::DeliverRemote(RdmaFrameSlot* slot, uint8_t to)
{
    DeliverSlot(slot, PeekPointer(GetRdmaDevice(to)));
}

uint64_t
RdmaRemoteChannel::GetFramesSentRemote() const
{
    return m_sentRemote;
}

uint64_t
RdmaRemoteChannel::GetFramesReceivedRemote() const
{
    return m_rcvdRemote;
}

namespace
{
void
ReceiveThunk(RdmaRemoteChannel* ch, uint8_t to, Ptr<Packet> p)
{
    ch->ReceiveRemote(to, p);
}
} // namespace

} // namespace ns3
