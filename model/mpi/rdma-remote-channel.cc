#include "rdma-remote-channel.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-distributed.h"
#include "ns3/event-impl.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/node-order.h"
#include "ns3/node.h"
#include "ns3/rdma-event-pool.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstring>
#include <mpi.h>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaRemoteChannel");

NS_OBJECT_ENSURE_REGISTERED(RdmaRemoteChannel);

/// Arrival of a frame from another rank at one end of a channel (pooled: no malloc per frame).
class RdmaRemoteArrivalEvent : public EventImpl
{
  public:
    RDMA_EVENT_POOLED(RdmaRemoteArrivalEvent)

    RdmaRemoteArrivalEvent(RdmaRemoteChannel* ch, uint8_t to, RdmaFrameSlot* slot)
        : m_ch(ch),
          m_to(to),
          m_slot(slot)
    {
    }

    ~RdmaRemoteArrivalEvent() override
    {
        if (m_slot)
        {
            RdmaFrameSlot::Put(m_slot); // destroyed before it ran (end of the simulation)
        }
    }

  protected:
    void Notify() override
    {
        RdmaFrameSlot* s = m_slot;
        m_slot = nullptr;
        m_ch->Arrive(m_to, s);
    }

  private:
    Ptr<RdmaRemoteChannel> m_ch; //!< the channel
    uint8_t m_to;                //!< receiving end
    RdmaFrameSlot* m_slot;       //!< the frame
};

namespace
{
constexpr uint32_t kFrameMagic = 0x52444d41;             //!< "RDMA": an encoded frame
constexpr uint32_t kFlagBytes = 1u;                      //!< the frame's bytes follow its meta
constexpr uint32_t kHeaderBytes = 16 + sizeof(RdmaMeta); //!< magic, flags, tie, meta
constexpr int kBatchTag = 0x5244; //!< tag of the batches (ns-3's own messages use tag 0)

/// Batch record before each encoded frame: arrival time, receiving node and device
struct RecordHead
{
    int64_t arrivalTs; //!< absolute arrival time (time steps)
    uint32_t node;     //!< receiving node id (kNoticeNode: a notice)
    uint32_t ifIndex;  //!< receiving device index (a notice: its context)
};

/// RecordHead::node of a notice (Distributed::PostNotice): tie-break and key follow
constexpr uint32_t kNoticeNode = 0xFFFFFFFF;

/// A receiving end of frames from another rank
struct RxEnd
{
    RdmaRemoteChannel* ch{nullptr}; //!< the channel (nullptr: none)
    uint8_t end{0};                 //!< its end
};

/// Batches of this process (one distributed simulation per process, as ns-3's MPI interface)
struct Exchange
{
    bool armed{false};                     //!< a link of this rank crosses ranks
    int agreed{-1};                        //!< any rank armed (-1: not yet agreed)
    std::vector<std::vector<uint8_t>> out; //!< frames for each rank since the last exchange
    std::vector<uint8_t> in;               //!< received batch
    std::vector<MPI_Request> req;          //!< sends of one exchange
    std::vector<std::vector<RxEnd>> rx;    //!< receiving ends by [node id][device index]
    /// slots of frames sent, each until the end of its serialization (sending order)
    std::vector<std::pair<int64_t, RdmaFrameSlot*>> sent;
    std::size_t sentHead{0}; //!< first slot still held in sent

    /// return the slots of frames serialized by now (every event up to now has run)
    void ReleaseSent(int64_t now)
    {
        while (sentHead < sent.size() && sent[sentHead].first <= now)
        {
            RdmaFrameSlot::Put(sent[sentHead++].second);
        }
        if (sentHead == sent.size())
        {
            sent.clear();
            sentHead = 0;
        }
        else if (sentHead > sent.size() / 2)
        {
            sent.erase(sent.begin(), sent.begin() + static_cast<std::ptrdiff_t>(sentHead));
            sentHead = 0;
        }
    }
};

Exchange&
X()
{
    static Exchange x;
    return x;
}

bool
GrantedTimeWindowEngine()
{
    StringValue impl;
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    // ns-3's engine, or its node-order variant (model/mpi/node-order-distributed-simulator-impl.cc)
    return impl.Get() == "ns3::DistributedSimulatorImpl" ||
           impl.Get() == "ns3::astra::NodeOrderDistributedSimulatorImpl";
}
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
    const bool mpi = MpiInterface::IsEnabled();
    const uint32_t self = mpi ? MpiInterface::GetSystemId() : 0;
    Exchange& x = X();
    for (uint8_t i = 0; i < 2; ++i)
    {
        Ptr<RdmaNetDevice> d = GetRdmaDevice(i);
        Ptr<RdmaNetDevice> peer = GetRdmaDevice(1 - i);
        const uint32_t mine = d->GetNode()->GetSystemId();
        m_peerRank[i] = peer->GetNode()->GetSystemId();
        const bool cut = mine != m_peerRank[i];
        SetRemoteDirection(i, cut);
        if (!cut || !mpi || mine != self)
        {
            continue;
        }
        if (!GrantedTimeWindowEngine())
        {
            throw astra::InputError("RdmaRemoteChannel: a link across ranks needs ns-3's "
                                    "granted-time-window engine (SimulatorImplementationType "
                                    "ns3::DistributedSimulatorImpl)");
        }
        x.armed = true;
        const uint32_t node = d->GetNode()->GetId();
        const uint32_t ifIndex = d->GetIfIndex();
        if (x.rx.size() <= node)
        {
            x.rx.resize(node + 1);
        }
        if (x.rx[node].size() <= ifIndex)
        {
            x.rx[node].resize(ifIndex + 1);
        }
        x.rx[node][ifIndex] = RxEnd{this, i};
    }
    return true;
}

void
RdmaRemoteChannel::DoDispose()
{
    X().ReleaseSent(INT64_MAX); // the simulation ends: no device reads them any more
    for (auto& node : X().rx)
    {
        for (RxEnd& e : node)
        {
            if (e.ch == this)
            {
                e = RxEnd{};
            }
        }
    }
    RdmaChannel::DoDispose();
}

void
RdmaRemoteChannel::Encode(const RdmaQueuedFrame& frame, uint64_t tie, std::vector<uint8_t>& out)
{
    const uint32_t flags = frame.packet ? kFlagBytes : 0u;
    const uint32_t bytes = frame.packet ? frame.packet->GetSerializedSize() : 0u;
    const std::size_t at = out.size();
    out.resize(at + kHeaderBytes + (frame.packet ? 4 + bytes : 0));
    uint8_t* b = out.data() + at;
    std::memcpy(b, &kFrameMagic, 4);
    std::memcpy(b + 4, &flags, 4);
    std::memcpy(b + 8, &tie, 8);
    std::memcpy(b + 16, &frame.meta, sizeof(RdmaMeta)); // plain data; one binary on every rank
    if (frame.packet)
    {
        std::memcpy(b + kHeaderBytes, &bytes, 4);
        frame.packet->Serialize(b + kHeaderBytes + 4, bytes);
    }
}

const uint8_t*
RdmaRemoteChannel::Decode(const uint8_t* p,
                          const uint8_t* end,
                          RdmaQueuedFrame& frame,
                          uint64_t& tie)
{
    if (!p || end < p || static_cast<std::size_t>(end - p) < kHeaderBytes)
    {
        return nullptr;
    }
    uint32_t magic = 0;
    uint32_t flags = 0;
    std::memcpy(&magic, p, 4);
    std::memcpy(&flags, p + 4, 4);
    if (magic != kFrameMagic || (flags & ~kFlagBytes) != 0)
    {
        return nullptr;
    }
    std::memcpy(&tie, p + 8, 8);
    std::memcpy(&frame.meta, p + 16, sizeof(RdmaMeta));
    frame.meta.inPort = 0;
    p += kHeaderBytes;
    frame.packet = nullptr;
    if (flags & kFlagBytes)
    {
        uint32_t bytes = 0;
        if (end - p < 4)
        {
            return nullptr;
        }
        std::memcpy(&bytes, p, 4);
        p += 4;
        if (static_cast<std::size_t>(end - p) < bytes)
        {
            return nullptr;
        }
        frame.packet = Create<Packet>(p, bytes, true);
        p += bytes;
    }
    return p;
}

void
RdmaRemoteChannel::SendRemote(RdmaFrameSlot* slot,
                              uint8_t d,
                              int64_t txEndTs,
                              int64_t arrivalTs,
                              uint64_t tie)
{
    Exchange& x = X();
    if (!x.armed)
    {
        RdmaFrameSlot::Put(slot);
        NS_FATAL_ERROR("RdmaRemoteChannel: a frame to another rank outside a distributed run");
    }
    if (x.out.size() <= m_peerRank[d])
    {
        x.out.resize(m_peerRank[d] + 1);
    }
    std::vector<uint8_t>& out = x.out[m_peerRank[d]];
    Ptr<RdmaNetDevice> to = GetRdmaDevice(1 - d);
    const RecordHead head{arrivalTs, to->GetNode()->GetId(), to->GetIfIndex()};
    const std::size_t at = out.size();
    out.resize(at + sizeof(RecordHead));
    std::memcpy(out.data() + at, &head, sizeof(RecordHead));
    Encode(slot->frame, tie, out);
    x.sent.emplace_back(txEndTs, slot);
    ++m_sentRemote;
}

void
RdmaRemoteChannel::ExchangeFrames()
{
    Exchange& x = X();
    if (x.agreed < 0)
    {
        // once, in the first synchronisation (every rank reaches it): batches are exchanged
        // if any rank has a link across ranks
        if (!MpiInterface::IsEnabled() || !GrantedTimeWindowEngine())
        {
            x.agreed = 0;
            return;
        }
        int mine = x.armed ? 1 : 0;
        int any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MpiInterface::GetCommunicator());
        x.agreed = any;
    }
    if (x.agreed == 0)
    {
        return;
    }
    const uint32_t n = MpiInterface::GetSize();
    const uint32_t me = MpiInterface::GetSystemId();
    MPI_Comm comm = MpiInterface::GetCommunicator();
    x.out.resize(std::max<std::size_t>(x.out.size(), n));
    x.req.resize(n);
    uint32_t nReq = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        if (r != me)
        {
            MPI_Isend(x.out[r].data(),
                      static_cast<int>(x.out[r].size()),
                      MPI_BYTE,
                      static_cast<int>(r),
                      kBatchTag,
                      comm,
                      &x.req[nReq++]);
        }
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    for (uint32_t r = 0; r < n; ++r)
    {
        if (r == me)
        {
            continue;
        }
        MPI_Status st;
        MPI_Probe(static_cast<int>(r), kBatchTag, comm, &st);
        int count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (x.in.size() < static_cast<std::size_t>(count))
        {
            x.in.resize(count);
        }
        MPI_Recv(x.in.data(), count, MPI_BYTE, static_cast<int>(r), kBatchTag, comm, &st);
        const uint8_t* p = x.in.data();
        const uint8_t* end = p + count;
        while (p < end)
        {
            RecordHead head;
            if (end - p < static_cast<std::ptrdiff_t>(sizeof(RecordHead)))
            {
                NS_FATAL_ERROR("RdmaRemoteChannel: a truncated batch arrived from rank " << r);
            }
            std::memcpy(&head, p, sizeof(RecordHead));
            p += sizeof(RecordHead);
            if (head.node == kNoticeNode)
            {
                uint64_t tk[2];
                if (end - p < static_cast<std::ptrdiff_t>(sizeof(tk)) || head.arrivalTs < now)
                {
                    NS_FATAL_ERROR("RdmaRemoteChannel: rank " << r << " sent a truncated or "
                                                              << "late notice");
                }
                std::memcpy(tk, p, sizeof(tk));
                p += sizeof(tk);
                // node event order: the notice runs where its copy in the sending rank
                // (and in one process) runs among same-time events
                astra::EventOrder::SetNext(tk[0]);
                Simulator::ScheduleWithContext(head.ifIndex,
                                               TimeStep(head.arrivalTs - now),
                                               &astra::Distributed::RunNotice,
                                               tk[1]);
                continue;
            }
            const RxEnd e = (head.node < x.rx.size() && head.ifIndex < x.rx[head.node].size())
                                ? x.rx[head.node][head.ifIndex]
                                : RxEnd{};
            RdmaFrameSlot* slot = RdmaFrameSlot::Get();
            uint64_t tie = 0;
            p = Decode(p, end, slot->frame, tie);
            if (!p || !e.ch || head.arrivalTs < now)
            {
                RdmaFrameSlot::Put(slot);
                NS_FATAL_ERROR("RdmaRemoteChannel: rank " << r << " sent a frame that is not "
                                                          << "one for node " << head.node
                                                          << " device " << head.ifIndex
                                                          << " at or after now");
            }
            // node event order: the arrival takes the tie-break its sender reserved, as
            // its reception event has in one process
            astra::EventOrder::SetNext(tie);
            Simulator::ScheduleWithContext(head.node,
                                           TimeStep(head.arrivalTs - now),
                                           new RdmaRemoteArrivalEvent(e.ch, e.end, slot));
        }
    }
    MPI_Waitall(static_cast<int>(nReq), x.req.data(), MPI_STATUSES_IGNORE);
    x.ReleaseSent(now);
    for (auto& o : x.out)
    {
        o.clear();
    }
}

namespace astra
{
/// Distributed::PostNotice's MPI part: the notice joins the batch for \p rank
void
PostMpiNotice(uint32_t rank, int64_t atTs, uint64_t tie, uint32_t context, uint64_t key)
{
    Exchange& x = X();
    if (x.agreed == 0 || !MpiInterface::IsEnabled() || rank >= MpiInterface::GetSize() ||
        rank == MpiInterface::GetSystemId())
    {
        throw std::logic_error("a notice to rank " + std::to_string(rank) +
                               " outside an exchange of batches between ranks");
    }
    x.armed = true; // before the first window: the ranks then exchange batches
    if (x.out.size() <= rank)
    {
        x.out.resize(rank + 1);
    }
    std::vector<uint8_t>& out = x.out[rank];
    const RecordHead head{atTs, kNoticeNode, context};
    const uint64_t tk[2] = {tie, key};
    const std::size_t at = out.size();
    out.resize(at + sizeof(RecordHead) + sizeof(tk));
    std::memcpy(out.data() + at, &head, sizeof(RecordHead));
    std::memcpy(out.data() + at + sizeof(RecordHead), tk, sizeof(tk));
}
} // namespace astra

void
RdmaRemoteChannel::Arrive(uint8_t to, RdmaFrameSlot* slot)
{
    ++m_rcvdRemote;
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

} // namespace ns3
