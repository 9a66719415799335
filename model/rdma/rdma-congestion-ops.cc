#include "rdma-congestion-ops.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCongestionOps");

NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionOps);

TypeId
RdmaCongestionOps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCongestionOps").SetParent<Object>().SetGroupName("AstraSim");
    return tid;
}

RdmaCongestionOps::RdmaCongestionOps() = default;

RdmaCongestionOps::RdmaCongestionOps(const RdmaCongestionOps& other)
    : Object(other)
{
}

RdmaCongestionOps::~RdmaCongestionOps() = default;

std::string
RdmaCongestionOps::Validate() const
{
    return "";
}

bool
RdmaCongestionOps::NeedsInt() const
{
    return false;
}

std::string
RdmaCongestionOps::ValidateFor(const RdmaCcInit& init)
{
    const RdmaCcInit saved = m_init;
    m_init = init;
    std::string err = Validate();
    m_init = saved;
    return err;
}

void
RdmaCongestionOps::Init(const RdmaCcInit& init)
{
    NS_ABORT_MSG_IF(init.lineRateBps == 0, GetName() << ": line rate must be > 0");
    m_init = init;
    m_window = init.windowBytes;
    m_rate = init.lineRateBps;
}

void
RdmaCongestionOps::Stop()
{
}

void
RdmaCongestionOps::OnAck(uint64_t, const RdmaMeta&)
{
}

void
RdmaCongestionOps::OnNak(const RdmaMeta&)
{
}

void
RdmaCongestionOps::OnCnp(const RdmaMeta&)
{
}

void
RdmaCongestionOps::OnRttSample(Time, const RdmaMeta&)
{
}

void
RdmaCongestionOps::OnInt(const RdmaMeta&)
{
}

void
RdmaCongestionOps::OnTimeout()
{
}

void
RdmaCongestionOps::OnSent(uint32_t)
{
}

uint64_t
RdmaCongestionOps::GetRate() const
{
    return m_rate;
}

uint64_t
RdmaCongestionOps::GetWindow() const
{
    return m_window;
}

uint64_t
RdmaCongestionOps::GetLineRate() const
{
    return m_init.lineRateBps;
}

void
RdmaCongestionOps::SetRateChangeCallback(RateChangeCallback cb)
{
    m_rateCb = cb;
}

void
RdmaCongestionOps::SetRate(uint64_t bps)
{
    bps = std::max<uint64_t>(1, std::min(bps, m_init.lineRateBps));
    if (bps == m_rate)
    {
        return;
    }
    uint64_t old = m_rate;
    m_rate = bps;
    if (!m_rateCb.IsNull())
    {
        m_rateCb(old, bps);
    }
}

// ----------------------------------------------------------------- RdmaCcNone

NS_OBJECT_ENSURE_REGISTERED(RdmaCcNone);

TypeId
RdmaCcNone::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCcNone")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaCcNone>()
            .AddAttribute("Window",
                          "Fixed bytes-in-flight cap; 0 = use the host stack's Window",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaCcNone::m_fixedWindow),
                          MakeUintegerChecker<uint64_t>());
    return tid;
}

RdmaCcNone::RdmaCcNone() = default;

RdmaCcNone::RdmaCcNone(const RdmaCcNone& other)
    : RdmaCongestionOps(other),
      m_fixedWindow(other.m_fixedWindow)
{
}

RdmaCcNone::~RdmaCcNone() = default;

std::string
RdmaCcNone::GetName() const
{
    return "None";
}

Ptr<RdmaCongestionOps>
RdmaCcNone::Fork()
{
    return CopyObject<RdmaCcNone>(this);
}

void
RdmaCcNone::Init(const RdmaCcInit& init)
{
    RdmaCongestionOps::Init(init);
    if (m_fixedWindow > 0)
    {
        m_window = m_fixedWindow;
    }
}

} // namespace ns3
