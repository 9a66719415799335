#include "rdma-queue-pair.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaQueuePair");

NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

TypeId
RdmaQueuePair::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaQueuePair").SetParent<Object>().SetGroupName("AstraSim");
    return tid;
}

RdmaQpConsumer::~RdmaQpConsumer() = default;

void
RdmaQpConsumer::TxComplete(RdmaQueuePair&, const RdmaMessageInfo&)
{
}

void
RdmaQpConsumer::RxComplete(RdmaQueuePair&, const RdmaMessageInfo&)
{
}

void
RdmaQpConsumer::ReadComplete(RdmaQueuePair&, const RdmaMessageInfo&)
{
}

RdmaQpResponder::~RdmaQpResponder() = default;

RdmaQueuePair::RdmaQueuePair() = default;

RdmaQueuePair::~RdmaQueuePair() = default;

void
RdmaQueuePair::DoDispose()
{
    m_rtoEvent.Cancel();
    if (m_cc)
    {
        m_cc->Stop();
        m_cc->Dispose();
        m_cc = nullptr;
    }
    m_msgs.clear();
    m_respJobs.clear();
    m_peer = nullptr;
    m_stack = nullptr;
    m_consumer = nullptr;
    Object::DoDispose();
}

void
RdmaQueuePair::SetConsumer(RdmaQpConsumer* consumer)
{
    m_consumer = consumer;
}

RdmaQpConsumer*
RdmaQueuePair::GetConsumer() const
{
    return m_consumer;
}

void
RdmaQueuePair::SetResponder(RdmaQpResponder* responder)
{
    m_responder = responder;
}

RdmaQpResponder*
RdmaQueuePair::GetResponder() const
{
    return m_responder;
}

uint32_t
RdmaQueuePair::GetQpn() const
{
    return m_qpn;
}

uint32_t
RdmaQueuePair::GetPeerQpn() const
{
    return m_peerQpn;
}

uint32_t
RdmaQueuePair::GetLocalHost() const
{
    return m_localHost;
}

uint32_t
RdmaQueuePair::GetRemoteHost() const
{
    return m_remoteHost;
}

uint8_t
RdmaQueuePair::GetPriority() const
{
    return m_priority;
}

uint16_t
RdmaQueuePair::GetSport() const
{
    return m_sport;
}

uint32_t
RdmaQueuePair::GetPortIndex() const
{
    return m_port;
}

uint64_t
RdmaQueuePair::GetSndUna() const
{
    return m_sndUnaByte;
}

uint64_t
RdmaQueuePair::GetSndNxt() const
{
    return m_sndNxtByte;
}

uint64_t
RdmaQueuePair::GetPostedBytes() const
{
    return m_postedBytes;
}

uint64_t
RdmaQueuePair::GetRcvBytes() const
{
    return m_rcvBytes;
}

uint32_t
RdmaQueuePair::GetPendingMessages() const
{
    return uint32_t(m_msgs.size());
}

uint64_t
RdmaQueuePair::GetRate() const
{
    return m_cc ? m_cc->GetRate() : 0;
}

Ptr<RdmaCongestionOps>
RdmaQueuePair::GetCongestionOps() const
{
    return m_cc;
}

uint64_t
RdmaQueuePair::GetRetransmittedPackets() const
{
    return m_retxPkts;
}

uint64_t
RdmaQueuePair::GetTimeouts() const
{
    return m_timeouts;
}

uint32_t
RdmaQueuePair::GetInitialPsn() const
{
    return m_sndPsnBase;
}

} // namespace ns3
