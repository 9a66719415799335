#include "rdma-channel.h"

#include "rdma-event-pool.h"

#include "ns3/abort.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"
#include "ns3/node-order.h"
#include "ns3/quad-heap-scheduler.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaChannel");

NS_OBJECT_ENSURE_REGISTERED(RdmaChannel);

/**
 * Reception event of one direction of a channel: delivers the head frame (pooled: no
 * malloc per frame).
 */
class RdmaChannelDeliverEvent : public EventImpl
{
  public:
    RDMA_EVENT_POOLED(RdmaChannelDeliverEvent)

    RdmaChannelDeliverEvent(RdmaChannel* ch, uint8_t d, RdmaFrameSlot* slot, RdmaNetDevice* to)
        : m_ch(ch),
          m_d(d),
          m_slot(slot),
          m_to(to)
    {
    }

    /**
     * Prefetch, a few events ahead, what Deliver and the reception read
     * (QuadHeapScheduler::RegisterPrefetch). Reads only memory the event keeps alive (the
     * channel, which drops its devices when disposed, and pooled frame slots), so that it
     * is safe while Simulator::Destroy drains the events of disposed nodes.
     * \param e an RdmaChannelDeliverEvent \param stage 0: the channel, the frame's first
     * line, the receiving device's reception lines; 1: what they lead to (the in-flight
     * entries, the receiver's state for this frame); a window's prefetch only
     * (QuadHeapScheduler::kWindowStages): 2: the next frames in flight (delivered by the
     * events this one schedules, in the same window if they arrive in it) and what the
     * receiver's state for this frame leads to (PrefetchReceptionState); 3 and 4: the
     * same two steps for the next frames
     */
    static void Prefetch(const EventImpl* e, std::size_t stage)
    {
        const auto* ev = static_cast<const RdmaChannelDeliverEvent*>(e);
        const RdmaChannel* ch = PeekPointer(ev->m_ch);
        if (stage == 0)
        {
            __builtin_prefetch(&ch->m_dir[ev->m_d]);
            __builtin_prefetch(&ch->m_dev[1 - ev->m_d]);
            __builtin_prefetch(ev->m_slot);
            RdmaNetDevice::PrefetchReceiveAt(ev->m_to); // reads nothing of the device
            return;
        }
        const RdmaChannel::Direction& dir = ch->m_dir[ev->m_d];
        const uint32_t follow = std::min<uint32_t>(dir.size, kFollow);
        const uint32_t mask = static_cast<uint32_t>(dir.ring.size()) - 1;
        const RdmaNetDevice* to = PeekPointer(ch->m_dev[1 - ev->m_d]);
        switch (stage)
        {
        case 1:
            if (follow > 0)
            {
                // the entries of the head and its followers (24 bytes each; the ring wraps)
                const RdmaChannel::InFlight* first = &dir.ring[dir.head];
                const RdmaChannel::InFlight* last = &dir.ring[(dir.head + follow - 1) & mask];
                __builtin_prefetch(first);
                __builtin_prefetch(last);
                if (last > first)
                {
                    for (const char* p = reinterpret_cast<const char*>(first) + 64;
                         p < reinterpret_cast<const char*>(last);
                         p += 64)
                    {
                        __builtin_prefetch(p);
                    }
                }
            }
            if (to)
            {
                to->PrefetchReception(ev->m_slot);
            }
            return;
        case 2:
            for (uint32_t k = 1; k < follow; ++k)
            {
                __builtin_prefetch(dir.ring[(dir.head + k) & mask].slot);
            }
            if (to)
            {
                to->PrefetchReceptionState(ev->m_slot);
            }
            return;
        case 3:
        case 4:
            for (uint32_t k = 1; k < follow && to; ++k)
            {
                const RdmaFrameSlot* slot = dir.ring[(dir.head + k) & mask].slot;
                if (stage == 3)
                {
                    to->PrefetchReception(slot);
                }
                else
                {
                    to->PrefetchReceptionState(slot);
                }
            }
            return;
        default:
            return;
        }
    }

  protected:
    void Notify() override
    {
        m_ch->Deliver(m_d);
    }

  private:
    /// frames of a direction a window's prefetch follows (a 1 us window of 1 KiB frames
    /// at 100 Gb/s holds about 12)
    static constexpr uint32_t kFollow = 16;

    Ptr<RdmaChannel> m_ch; //!< the channel
    uint8_t m_d;           //!< direction (sending end)
    RdmaFrameSlot* m_slot; //!< the head frame when scheduled (a prefetch hint)
    const void* m_to;      //!< the receiving device's address (a prefetch hint, never read)
};

namespace
{
const bool g_deliverPrefetch =
    (astra::QuadHeapScheduler::RegisterPrefetch(typeid(RdmaChannelDeliverEvent),
                                                &RdmaChannelDeliverEvent::Prefetch),
     true);
} // namespace

TypeId
RdmaChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaChannel")
            .SetParent<Channel>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaChannel>()
            .AddAttribute("Delay",
                          "Propagation delay of the link (each direction).",
                          TimeValue(NanoSeconds(1000)),
                          MakeTimeAccessor(&RdmaChannel::SetDelay, &RdmaChannel::GetDelay),
                          MakeTimeChecker(Time(0)));
    return tid;
}

RdmaChannel::RdmaChannel() = default;

RdmaChannel::~RdmaChannel() = default;

void
RdmaChannel::DoDispose()
{
    for (Direction& dir : m_dir)
    {
        while (dir.size > 0)
        {
            RdmaFrameSlot::Put(dir.ring[dir.head].slot);
            dir.head = (dir.head + 1) & (static_cast<uint32_t>(dir.ring.size()) - 1);
            --dir.size;
        }
        dir.ring.clear();
        dir.head = 0;
        dir.scheduled = false;
    }
    m_dev[0] = nullptr;
    m_dev[1] = nullptr;
    m_nDevices = 0;
    Channel::DoDispose();
}

bool
RdmaChannel::Attach(Ptr<RdmaNetDevice> dev)
{
    NS_LOG_FUNCTION(this << dev);
    NS_ABORT_MSG_IF(!dev, "RdmaChannel::Attach: null device");
    if (m_nDevices >= 2)
    {
        return false;
    }
    m_dev[m_nDevices++] = dev;
    return true;
}

void
RdmaChannel::Transmit(RdmaQueuedFrame&& frame, Ptr<RdmaNetDevice> from, Time txTime)
{
    RdmaFrameSlot* s = RdmaFrameSlot::Get();
    s->frame = std::move(frame);
    TransmitSlot(s, PeekPointer(from), txTime);
}

void
RdmaChannel::TransmitSlot(RdmaFrameSlot* slot, RdmaNetDevice* from, Time txTime)
{
    const uint8_t d = (PeekPointer(m_dev[0]) == from) ? 0 : 1;
    if (m_nDevices < 2 || !m_dev[1 - d])
    {
        RdmaFrameSlot::Put(slot);
        NS_FATAL_ERROR("RdmaChannel: transmit on a link with " << m_nDevices
                                                               << " attached device(s)");
    }
    ++m_frames;
    // node event order: the reception event is created by the sender, now
    const uint64_t tie = astra::EventOrder::Reserve();
    if (m_remote[d])
    {
        // the frame leaves for the other rank now (no reception event here); the sending
        // device reads its slot until the end of serialization
        const int64_t txEnd = Simulator::Now().GetTimeStep() + txTime.GetTimeStep();
        SendRemote(slot, d, txEnd, txEnd + m_delay.GetTimeStep(), tie);
        return;
    }
    Direction& dir = m_dir[d];
    uint32_t cap = static_cast<uint32_t>(dir.ring.size());
    if (dir.size == cap)
    {
        const uint32_t newCap = cap ? cap * 2 : 16;
        std::vector<InFlight> nb(newCap);
        for (uint32_t k = 0; k < dir.size; ++k)
        {
            nb[k] = dir.ring[(dir.head + k) & (cap - 1)];
        }
        dir.ring.swap(nb);
        dir.head = 0;
        cap = newCap;
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    const uint64_t arrival =
        static_cast<uint64_t>(now + txTime.GetTimeStep() + m_delay.GetTimeStep());
    dir.ring[(dir.head + dir.size) & (cap - 1)] = InFlight{slot, arrival, tie};
    ++dir.size;
    if (!dir.scheduled)
    {
        ScheduleHead(d, now);
    }
}

void
RdmaChannel::ScheduleHead(uint8_t d, int64_t now)
{
    Direction& dir = m_dir[d];
    NS_ASSERT(now == Simulator::Now().GetTimeStep());
    const int64_t at = static_cast<int64_t>(dir.ring[dir.head].arrivalTs);
    dir.scheduled = true;
    astra::EventOrder::SetNext(dir.ring[dir.head].tie);
    Simulator::ScheduleWithContext(
        PeekPointer(m_dev[1 - d])->m_contextId,
        TimeStep(at > now ? at - now : 0),
        new RdmaChannelDeliverEvent(this, d, dir.ring[dir.head].slot, PeekPointer(m_dev[1 - d])));
}

void
RdmaChannel::Deliver(uint8_t d)
{
    Direction& dir = m_dir[d];
    dir.scheduled = false;
    if (dir.size == 0)
    {
        return; // disposed meanwhile
    }
    RdmaFrameSlot* slot = dir.ring[dir.head].slot;
    // This event runs at the frame's arrival time (scheduled exactly for it): it is "now"
    // for the next reception, saving a Simulator::Now() call per frame.
    const int64_t now = static_cast<int64_t>(dir.ring[dir.head].arrivalTs);
    dir.head = (dir.head + 1) & (static_cast<uint32_t>(dir.ring.size()) - 1);
    --dir.size;

    DeliverSlot(slot, PeekPointer(m_dev[1 - d]));
    if (dir.size > 0 && !dir.scheduled)
    {
        ScheduleHead(d, now);
    }
}

void
RdmaChannel::DeliverSlot(RdmaFrameSlot* slot, RdmaNetDevice* to)
{
    // While Receive runs, EnqueueFrame of this very frame takes the slot over. The mark is
    // cleared however Receive ends (an exception ends the run: nothing stale is left for the
    // next simulation of the process).
    struct ReceivingMark
    {
        explicit ReceivingMark(RdmaFrameSlot* s)
        {
            RdmaFrameSlot::s_receiving = s;
        }

        ~ReceivingMark()
        {
            RdmaFrameSlot::s_receiving = nullptr;
        }
    };

    ReceivingMark mark(slot);
    to->Receive(slot->frame);
    if (RdmaFrameSlot::s_receiving == slot)
    {
        RdmaFrameSlot::Put(slot);
    }
}

void
RdmaChannel::SetRemoteDirection(uint8_t d, bool remote)
{
    m_remote[d & 1] = remote;
}

void
RdmaChannel::SendRemote(RdmaFrameSlot* slot, uint8_t d, int64_t, int64_t, uint64_t)
{
    RdmaFrameSlot::Put(slot);
    NS_FATAL_ERROR("RdmaChannel: direction " << int(d) << " is remote on a local channel");
}

Ptr<RdmaNetDevice>
RdmaChannel::GetPeer(Ptr<const RdmaNetDevice> dev) const
{
    if (m_nDevices < 2)
    {
        return nullptr;
    }
    return (PeekPointer(m_dev[0]) == PeekPointer(dev)) ? m_dev[1] : m_dev[0];
}

Ptr<RdmaNetDevice>
RdmaChannel::GetRdmaDevice(std::size_t i) const
{
    return i < m_nDevices ? m_dev[i] : nullptr;
}

Time
RdmaChannel::GetDelay() const
{
    return m_delay;
}

void
RdmaChannel::SetDelay(Time delay)
{
    if (delay.IsNegative())
    {
        std::ostringstream os;
        os << "RdmaChannel: Delay must be >= 0, got " << delay.As(Time::NS);
        throw astra::InputError(os.str());
    }
    m_delay = delay;
}

uint64_t
RdmaChannel::GetFramesDelivered() const
{
    return m_frames;
}

std::size_t
RdmaChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
RdmaChannel::GetDevice(std::size_t i) const
{
    return GetRdmaDevice(i);
}

} // namespace ns3
