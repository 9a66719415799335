#include "rdma-transit-forwarder.h"

#include "ns3/boolean.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaTransitForwarder");
NS_OBJECT_ENSURE_REGISTERED(RdmaTransitForwarder);

TypeId
RdmaTransitForwarder::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaTransitForwarder")
            .SetParent<RdmaSwitch>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaTransitForwarder>()
            .AddAttribute("OwnTxHandler",
                          "Install the forwarder as the Tx handler of added ports",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaTransitForwarder::m_ownTxHandler),
                          MakeBooleanChecker());
    return tid;
}

RdmaTransitForwarder::RdmaTransitForwarder()
{
    m_ownsHandlers = false;
    m_inPortTag = kTransitTag;
    m_kind = "host";
}

RdmaTransitForwarder::~RdmaTransitForwarder() = default;

uint32_t
RdmaTransitForwarder::AddHostPort(Ptr<RdmaNetDevice> dev)
{
    const uint32_t idx = AddPort(dev);
    if (m_ownTxHandler)
    {
        dev->SetTxHandler(MakeCallback(&RdmaTransitForwarder::TxComplete, this));
    }
    return idx;
}

void
RdmaTransitForwarder::TxComplete(Ptr<RdmaNetDevice> dev, const RdmaQueuedFrame& frame)
{
    NotifyTxComplete(dev, frame);
}

} // namespace ns3
