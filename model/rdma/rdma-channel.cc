#include "rdma-channel.h"

#include "rdma-event-pool.h"

#include "ns3/abort.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaChannel");

NS_OBJECT_ENSURE_REGISTERED(RdmaChannel);

namespace
{
/// The one reception event of a frame: owns the frame, calls the peer's Receive.
class RdmaRxEvent : public EventImpl
{
  public:
    RDMA_EVENT_POOLED(RdmaRxEvent)

    RdmaRxEvent(RdmaNetDevice* dev, RdmaQueuedFrame&& frame)
        : m_dev(dev),
          m_frame(std::move(frame))
    {
    }

  protected:
    void Notify() override
    {
        m_dev->Receive(m_frame);
    }

  private:
    Ptr<RdmaNetDevice> m_dev;
    RdmaQueuedFrame m_frame;
};
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
    RdmaNetDevice* peer = (m_dev[0] == from) ? PeekPointer(m_dev[1]) : PeekPointer(m_dev[0]);
    NS_ABORT_MSG_IF(m_nDevices < 2 || !peer,
                    "RdmaChannel: transmit on a link with " << m_nDevices << " attached device(s)");
    ++m_frames;
    Simulator::ScheduleWithContext(peer->m_contextId,
                                   txTime + m_delay,
                                   new RdmaRxEvent(peer, std::move(frame)));
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
    NS_ABORT_MSG_IF(delay.IsNegative(), "RdmaChannel: negative Delay " << delay);
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
