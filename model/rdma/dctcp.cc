#include "dctcp.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCcDctcp");

NS_OBJECT_ENSURE_REGISTERED(RdmaCcDctcp);

TypeId
RdmaCcDctcp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCcDctcp")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaCcDctcp>()
            .AddAttribute("G",
                          "Alpha gain g",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&RdmaCcDctcp::m_g),
                          MakeDoubleChecker<double>())
            .AddAttribute("AlphaInit",
                          "Initial alpha",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RdmaCcDctcp::m_alphaInit),
                          MakeDoubleChecker<double>())
            .AddAttribute("InitialWindow",
                          "Initial cwnd (bytes); 0 = line rate x T",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaCcDctcp::m_initWindow),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MinWindow",
                          "Smallest cwnd (bytes); 0 = one MTU",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaCcDctcp::m_minWindow),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MaxWindow",
                          "Largest cwnd (bytes); 0 = InitialWindow",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaCcDctcp::m_maxWindow),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("AdditiveIncrease",
                          "Bytes added to cwnd per RTT (per cwnd of ACKed bytes); 0 = one MTU",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaCcDctcp::m_aiBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Pacing",
                          "Pace at cwnd / T (T = BaseRtt) in addition to the window",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaCcDctcp::m_pacing),
                          MakeBooleanChecker())
            .AddAttribute("BaseRtt",
                          "T for the initial window and pacing; 0 = the host stack's BaseRtt",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaCcDctcp::m_baseRtt),
                          MakeTimeChecker());
    return tid;
}

RdmaCcDctcp::RdmaCcDctcp() = default;

RdmaCcDctcp::RdmaCcDctcp(const RdmaCcDctcp& o)
    : RdmaCongestionOps(o),
      m_g(o.m_g),
      m_alphaInit(o.m_alphaInit),
      m_initWindow(o.m_initWindow),
      m_minWindow(o.m_minWindow),
      m_maxWindow(o.m_maxWindow),
      m_aiBytes(o.m_aiBytes),
      m_pacing(o.m_pacing),
      m_baseRtt(o.m_baseRtt)
{
}

RdmaCcDctcp::~RdmaCcDctcp() = default;

std::string
RdmaCcDctcp::GetName() const
{
    return "DCTCP";
}

Ptr<RdmaCongestionOps>
RdmaCcDctcp::Fork()
{
    return CopyObject<RdmaCcDctcp>(this);
}

std::string
RdmaCcDctcp::Validate() const
{
    std::ostringstream err;
    if (!(m_g > 0.0 && m_g <= 1.0))
    {
        err << "DCTCP G must be in (0, 1], got " << m_g << "; ";
    }
    if (!(m_alphaInit >= 0.0 && m_alphaInit <= 1.0))
    {
        err << "DCTCP AlphaInit must be in [0, 1], got " << m_alphaInit << "; ";
    }
    if (m_baseRtt.IsStrictlyNegative())
    {
        err << "DCTCP BaseRtt must be >= 0; ";
    }
    if (m_maxWindow != 0 && m_minWindow > m_maxWindow)
    {
        err << "DCTCP MinWindow (" << m_minWindow << ") exceeds MaxWindow (" << m_maxWindow
            << "); ";
    }
    if (m_maxWindow != 0 && m_initWindow > m_maxWindow)
    {
        err << "DCTCP InitialWindow (" << m_initWindow << ") exceeds MaxWindow (" << m_maxWindow
            << "); ";
    }
    if (m_init.lineRateBps != 0)
    {
        const bool haveT = m_baseRtt.IsStrictlyPositive() || m_init.baseRtt.IsStrictlyPositive();
        if (!haveT && m_initWindow == 0)
        {
            err << "DCTCP needs InitialWindow or a base RTT (RdmaCcDctcp::BaseRtt or "
                   "RdmaHostStack::BaseRtt); ";
        }
        if (!haveT && m_pacing)
        {
            err << "DCTCP Pacing needs a base RTT (RdmaCcDctcp::BaseRtt or "
                   "RdmaHostStack::BaseRtt); ";
        }
    }
    return err.str();
}

void
RdmaCcDctcp::Init(const RdmaCcInit& init)
{
    RdmaCongestionOps::Init(init);
    std::string err = Validate();
    if (!err.empty())
    {
        throw astra::InputError(err);
    }
    m_t = (m_baseRtt.IsStrictlyPositive() ? m_baseRtt : init.baseRtt).GetSeconds();
    m_cwnd = m_initWindow > 0 ? double(m_initWindow) : double(init.lineRateBps) * m_t / 8.0;
    m_cwndMin = m_minWindow > 0 ? double(m_minWindow) : double(init.mtuBytes);
    m_cwndMax = m_maxWindow > 0 ? double(m_maxWindow) : m_cwnd;
    m_cwndMax = std::max(m_cwndMax, m_cwndMin);
    m_cwnd = std::clamp(m_cwnd, m_cwndMin, m_cwndMax);
    m_alpha = m_alphaInit;
    m_sent = 0;
    m_acked = 0;
    m_windowEnd = uint64_t(m_cwnd); // the first window: the first cwnd of data
    m_cutEnd = 0;
    m_cutAllowed = true;
    m_acksInWindow = 0;
    m_marksInWindow = 0;
    m_windowsEnded = 0;
    UpdatePacing();
}

void
RdmaCcDctcp::UpdatePacing()
{
    if (m_pacing && m_t > 0)
    {
        SetRate(uint64_t(m_cwnd * 8.0 / m_t));
    }
}

void
RdmaCcDctcp::OnSent(uint32_t payloadBytes)
{
    m_sent += payloadBytes;
}

void
RdmaCcDctcp::OnAck(uint64_t bytesAcked, const RdmaMeta&)
{
    m_acked += bytesAcked;
    ++m_acksInWindow;
    const double ai = m_aiBytes > 0 ? double(m_aiBytes) : double(m_init.mtuBytes);
    m_cwnd = std::clamp(m_cwnd + ai * double(bytesAcked) / m_cwnd, m_cwndMin, m_cwndMax);
    if (!m_cutAllowed && m_acked >= m_cutEnd)
    {
        m_cutAllowed = true;
    }
    if (m_acked >= m_windowEnd)
    {
        // one observation window (an RTT of data) ended
        const double f =
            std::min(1.0, double(m_marksInWindow) / double(std::max<uint64_t>(1, m_acksInWindow)));
        m_alpha = (1.0 - m_g) * m_alpha + m_g * f;
        ++m_windowsEnded;
        NS_LOG_DEBUG("window end: F " << f << " alpha " << m_alpha << " cwnd " << m_cwnd);
        m_acksInWindow = 0;
        m_marksInWindow = 0;
        m_windowEnd = std::max(m_sent, m_acked + 1);
    }
    UpdatePacing();
}

void
RdmaCcDctcp::OnCnp(const RdmaMeta&)
{
    ++m_marksInWindow;
    if (m_cutAllowed)
    {
        m_cwnd = std::max(m_cwndMin, m_cwnd * (1.0 - m_alpha / 2.0));
        m_cutAllowed = false;
        m_cutEnd = std::max(m_sent, m_acked + 1);
        NS_LOG_DEBUG("cut: alpha " << m_alpha << " cwnd " << m_cwnd);
        UpdatePacing();
    }
}

void
RdmaCcDctcp::OnTimeout()
{
    m_cwnd = std::max(m_cwndMin, m_cwnd / 2.0);
    UpdatePacing();
}

uint64_t
RdmaCcDctcp::GetWindow() const
{
    return std::max<uint64_t>(1, uint64_t(std::ceil(m_cwnd)));
}

double
RdmaCcDctcp::GetAlpha() const
{
    return m_alpha;
}

double
RdmaCcDctcp::GetCwnd() const
{
    return m_cwnd;
}

uint64_t
RdmaCcDctcp::GetWindowsEnded() const
{
    return m_windowsEnded;
}

} // namespace ns3
