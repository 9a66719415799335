#include "network-backend.h"

#include "in-switch-network.h"

#include "ns3/simulator.h"

namespace ns3
{
namespace astra
{

NS_OBJECT_ENSURE_REGISTERED(NetworkBackend);

TypeId
NetworkBackend::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::NetworkBackend").SetParent<Object>().SetGroupName("AstraSim");
    return tid;
}

NetworkBackend::~NetworkBackend() = default;

MessageSink::~MessageSink() = default;

void
MessageSink::PrefetchHint(const NetMessage&, uint64_t)
{
}

void
NetworkBackend::SendTo(const NetMessage& msg, MessageSink* sink, uint64_t cookie, bool notifySent)
{
    SentCallback onSent;
    if (notifySent)
    {
        onSent = [sink, cookie](const NetMessage& m) { sink->MessageSent(m, cookie); };
    }
    Send(msg, std::move(onSent), [sink](const NetMessage& m) { sink->MessageDelivered(m); });
}

FixedTimeNetwork*
NetworkBackend::GetFixedTimeInterface()
{
    return nullptr;
}

InSwitchNetwork*
NetworkBackend::GetInSwitchInterface()
{
    return PeekPointer(GetObject<InSwitchNetwork>());
}

bool
NetworkBackend::SupportsEventBatching() const
{
    return false;
}

FixedTimeNetwork::~FixedTimeNetwork() = default;

namespace
{
/// Stamps of the current simulation (FixedTimeNetwork::NewStamp).
struct StampSource
{
    uint32_t next{2};   //!< the next stamp (even: the analytical backend uses bit 0)
    bool hooked{false}; //!< Reset is registered with Simulator::ScheduleDestroy

    static void Reset();
};

StampSource g_stamps; //!< per simulation: restarted at Simulator::Destroy

void
StampSource::Reset()
{
    g_stamps = StampSource{};
}
} // namespace

uint32_t
FixedTimeNetwork::NewStamp()
{
    if (!g_stamps.hooked)
    {
        g_stamps.hooked = true;
        Simulator::ScheduleDestroy(&StampSource::Reset);
    }
    const uint32_t s = g_stamps.next;
    g_stamps.next += 2;
    return s;
}

} // namespace astra
} // namespace ns3
