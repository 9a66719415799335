#include "swift.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCcSwift");

NS_OBJECT_ENSURE_REGISTERED(RdmaCcSwift);

TypeId
RdmaCcSwift::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCcSwift")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaCcSwift>()
            .AddAttribute("BaseTarget",
                          "Base delay target",
                          TimeValue(MicroSeconds(25)),
                          MakeTimeAccessor(&RdmaCcSwift::m_baseTarget),
                          MakeTimeChecker())
            .AddAttribute("PerHopDelay",
                          "Delay target added per hop",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&RdmaCcSwift::m_perHop),
                          MakeTimeChecker())
            .AddAttribute("Hops",
                          "Hops scaling the target; 0 = the INT stack depth of each ACK (the "
                          "switch egresses of the round trip when IntEnabled, else 0)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaCcSwift::m_hops),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveIncrease",
                          "ai: packets added to cwnd per RTT below the target",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RdmaCcSwift::m_ai),
                          MakeDoubleChecker<double>())
            .AddAttribute("Beta",
                          "Multiplicative decrease factor beta",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&RdmaCcSwift::m_beta),
                          MakeDoubleChecker<double>())
            .AddAttribute("MaxMdf",
                          "Maximum multiplicative decrease per RTT",
                          DoubleValue(0.4),
                          MakeDoubleAccessor(&RdmaCcSwift::m_maxMdf),
                          MakeDoubleChecker<double>())
            .AddAttribute("MinCwnd",
                          "Smallest cwnd (packets; below 1 the QP is paced)",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&RdmaCcSwift::m_minCwnd),
                          MakeDoubleChecker<double>())
            .AddAttribute("MaxCwnd",
                          "Largest cwnd (packets); 0 = 2 x the initial cwnd",
                          DoubleValue(0),
                          MakeDoubleAccessor(&RdmaCcSwift::m_maxCwnd),
                          MakeDoubleChecker<double>())
            .AddAttribute("InitialCwnd",
                          "Initial cwnd (packets); 0 = line rate x base RTT (host stack "
                          "BaseRtt, or BaseTarget if unknown) / MTU",
                          DoubleValue(0),
                          MakeDoubleAccessor(&RdmaCcSwift::m_initCwnd),
                          MakeDoubleChecker<double>());
    return tid;
}

RdmaCcSwift::RdmaCcSwift()
    : m_baseTarget(MicroSeconds(25)),
      m_perHop(MicroSeconds(1))
{
}

RdmaCcSwift::RdmaCcSwift(const RdmaCcSwift& o)
    : RdmaCongestionOps(o),
      m_baseTarget(o.m_baseTarget),
      m_perHop(o.m_perHop),
      m_hops(o.m_hops),
      m_ai(o.m_ai),
      m_beta(o.m_beta),
      m_maxMdf(o.m_maxMdf),
      m_minCwnd(o.m_minCwnd),
      m_maxCwnd(o.m_maxCwnd),
      m_initCwnd(o.m_initCwnd)
{
}

RdmaCcSwift::~RdmaCcSwift() = default;

std::string
RdmaCcSwift::GetName() const
{
    return "Swift";
}

Ptr<RdmaCongestionOps>
RdmaCcSwift::Fork()
{
    return CopyObject<RdmaCcSwift>(this);
}

std::string
RdmaCcSwift::Validate() const
{
    std::ostringstream err;
    if (!m_baseTarget.IsStrictlyPositive())
    {
        err << "Swift BaseTarget must be > 0; ";
    }
    if (m_perHop.IsStrictlyNegative())
    {
        err << "Swift PerHopDelay must be >= 0; ";
    }
    if (!(m_ai > 0.0))
    {
        err << "Swift AdditiveIncrease must be > 0, got " << m_ai << "; ";
    }
    if (!(m_beta > 0.0 && m_beta <= 1.0))
    {
        err << "Swift Beta must be in (0, 1], got " << m_beta << "; ";
    }
    if (!(m_maxMdf > 0.0 && m_maxMdf < 1.0))
    {
        err << "Swift MaxMdf must be in (0, 1), got " << m_maxMdf << "; ";
    }
    if (!(m_minCwnd > 0.0))
    {
        err << "Swift MinCwnd must be > 0, got " << m_minCwnd << "; ";
    }
    if (m_maxCwnd != 0 && !(m_maxCwnd >= m_minCwnd))
    {
        err << "Swift MaxCwnd (" << m_maxCwnd << ") must be 0 or >= MinCwnd (" << m_minCwnd
            << "); ";
    }
    if (m_initCwnd < 0 || (m_initCwnd > 0 && m_initCwnd < m_minCwnd))
    {
        err << "Swift InitialCwnd (" << m_initCwnd << ") must be 0 or >= MinCwnd; ";
    }
    return err.str();
}

void
RdmaCcSwift::Init(const RdmaCcInit& init)
{
    RdmaCongestionOps::Init(init);
    std::string err = Validate();
    if (!err.empty())
    {
        throw astra::InputError(err);
    }
    const Time t = init.baseRtt.IsStrictlyPositive() ? init.baseRtt : m_baseTarget;
    double bdp = double(init.lineRateBps) * t.GetSeconds() / 8.0 / double(init.mtuBytes);
    m_cwnd = m_initCwnd > 0 ? m_initCwnd : std::max(1.0, bdp);
    m_cwndMax = m_maxCwnd > 0 ? m_maxCwnd : 2.0 * m_cwnd;
    m_cwnd = std::clamp(m_cwnd, m_minCwnd, m_cwndMax);
    m_pendingAcked = 0;
    m_decreased = false;
    m_lastDecrease = Time(0);
    m_target = m_baseTarget;
    m_lastRtt = t;
    m_decreases = 0;
    UpdatePacing(t);
}

void
RdmaCcSwift::OnAck(uint64_t bytesAcked, const RdmaMeta&)
{
    m_pendingAcked += bytesAcked;
}

void
RdmaCcSwift::OnRttSample(Time rtt, const RdmaMeta& meta)
{
    const uint32_t hops = m_hops > 0 ? m_hops : meta.intHops;
    m_target = m_baseTarget + m_perHop * int64_t(hops);
    m_lastRtt = rtt;
    const double acked = double(m_pendingAcked) / double(m_init.mtuBytes);
    m_pendingAcked = 0;
    const Time now = Simulator::Now();
    if (rtt < m_target)
    {
        if (m_cwnd >= 1.0)
        {
            m_cwnd += m_ai / m_cwnd * acked;
        }
        else
        {
            m_cwnd += m_ai * acked;
        }
    }
    else if (!m_decreased || now - m_lastDecrease >= rtt)
    {
        const double d = rtt.GetSeconds();
        const double f = std::max(1.0 - m_beta * (d - m_target.GetSeconds()) / d, 1.0 - m_maxMdf);
        m_cwnd *= f;
        m_decreased = true;
        m_lastDecrease = now;
        ++m_decreases;
        NS_LOG_DEBUG("delay " << rtt.As(Time::US) << " target " << m_target.As(Time::US)
                              << " cwnd x " << f << " = " << m_cwnd);
    }
    m_cwnd = std::clamp(m_cwnd, m_minCwnd, m_cwndMax);
    UpdatePacing(rtt);
}

void
RdmaCcSwift::OnTimeout()
{
    m_cwnd = std::clamp(m_cwnd * (1.0 - m_maxMdf), m_minCwnd, m_cwndMax);
    UpdatePacing(m_lastRtt);
}

void
RdmaCcSwift::UpdatePacing(Time rtt)
{
    if (m_cwnd < 1.0 && rtt.IsStrictlyPositive())
    {
        SetRate(uint64_t(m_cwnd * double(m_init.mtuBytes) * 8.0 / rtt.GetSeconds()));
    }
    else
    {
        SetRate(m_init.lineRateBps);
    }
}

uint64_t
RdmaCcSwift::GetWindow() const
{
    return uint64_t(std::max(1.0, m_cwnd) * double(m_init.mtuBytes));
}

double
RdmaCcSwift::GetCwnd() const
{
    return m_cwnd;
}

Time
RdmaCcSwift::GetTarget() const
{
    return m_target;
}

uint32_t
RdmaCcSwift::GetDecreases() const
{
    return m_decreases;
}

} // namespace ns3
