#include "timely.h"

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

NS_LOG_COMPONENT_DEFINE("RdmaCcTimely");

NS_OBJECT_ENSURE_REGISTERED(RdmaCcTimely);

TypeId
RdmaCcTimely::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCcTimely")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaCcTimely>()
            .AddAttribute("EwmaAlpha",
                          "a in rtt_diff = (1-a) rtt_diff + a new_rtt_diff: the weight of the "
                          "NEW sample (0.875 as in the TIMELY paper and HPCC's simulator; "
                          "0.125 weights the old value by 0.875)",
                          DoubleValue(0.875),
                          MakeDoubleAccessor(&RdmaCcTimely::m_alpha),
                          MakeDoubleChecker<double>())
            .AddAttribute("Beta",
                          "Multiplicative decrease factor beta",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&RdmaCcTimely::m_beta),
                          MakeDoubleChecker<double>())
            .AddAttribute("TLow",
                          "Below T_low the rate increases additively",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaCcTimely::m_tLow),
                          MakeTimeChecker())
            .AddAttribute("THigh",
                          "Above T_high the rate decreases by beta (1 - T_high/rtt)",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&RdmaCcTimely::m_tHigh),
                          MakeTimeChecker())
            .AddAttribute("MinRtt",
                          "minRTT normalizing the gradient",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&RdmaCcTimely::m_minRtt),
                          MakeTimeChecker())
            .AddAttribute("Delta",
                          "Additive increment delta (at ReferenceRate if ScaleWithLinkRate)",
                          DataRateValue(DataRate("10Mbps")),
                          MakeDataRateAccessor(&RdmaCcTimely::m_delta),
                          MakeDataRateChecker())
            .AddAttribute("ScaleWithLinkRate",
                          "Scale Delta by line rate / ReferenceRate",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaCcTimely::m_scale),
                          MakeBooleanChecker())
            .AddAttribute("ReferenceRate",
                          "Line rate at which Delta is given",
                          DataRateValue(DataRate("10Gbps")),
                          MakeDataRateAccessor(&RdmaCcTimely::m_refRate),
                          MakeDataRateChecker())
            .AddAttribute("HaiThreshold",
                          "Consecutive negative-gradient increases before hyper increase",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaCcTimely::m_haiThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HaiN",
                          "N: hyper additive increase is N x delta",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaCcTimely::m_haiN),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SegmentBytes",
                          "Update at most once per this many acknowledged bytes (the paper's "
                          "completion event; 0 = every RTT sample)",
                          UintegerValue(16000),
                          MakeUintegerAccessor(&RdmaCcTimely::m_segment),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MinRate",
                          "Lower bound of the rate",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RdmaCcTimely::m_minRate),
                          MakeDataRateChecker());
    return tid;
}

RdmaCcTimely::RdmaCcTimely()
    : m_tLow(MicroSeconds(50)),
      m_tHigh(MicroSeconds(500)),
      m_minRtt(MicroSeconds(20)),
      m_delta("10Mbps"),
      m_refRate("10Gbps"),
      m_minRate("100Mbps")
{
}

RdmaCcTimely::RdmaCcTimely(const RdmaCcTimely& o)
    : RdmaCongestionOps(o),
      m_alpha(o.m_alpha),
      m_beta(o.m_beta),
      m_tLow(o.m_tLow),
      m_tHigh(o.m_tHigh),
      m_minRtt(o.m_minRtt),
      m_delta(o.m_delta),
      m_scale(o.m_scale),
      m_refRate(o.m_refRate),
      m_haiThreshold(o.m_haiThreshold),
      m_haiN(o.m_haiN),
      m_segment(o.m_segment),
      m_minRate(o.m_minRate)
{
}

RdmaCcTimely::~RdmaCcTimely() = default;

std::string
RdmaCcTimely::GetName() const
{
    return "TIMELY";
}

Ptr<RdmaCongestionOps>
RdmaCcTimely::Fork()
{
    return CopyObject<RdmaCcTimely>(this);
}

std::string
RdmaCcTimely::Validate() const
{
    std::ostringstream err;
    if (!(m_alpha > 0.0 && m_alpha <= 1.0))
    {
        err << "TIMELY EwmaAlpha must be in (0, 1], got " << m_alpha << "; ";
    }
    if (!(m_beta > 0.0 && m_beta <= 1.0))
    {
        err << "TIMELY Beta must be in (0, 1], got " << m_beta << "; ";
    }
    if (!m_tLow.IsStrictlyPositive() || !m_tHigh.IsStrictlyPositive() || m_tLow >= m_tHigh)
    {
        err << "TIMELY needs 0 < TLow < THigh, got " << m_tLow.As(Time::US) << " / "
            << m_tHigh.As(Time::US) << "; ";
    }
    if (!m_minRtt.IsStrictlyPositive())
    {
        err << "TIMELY MinRtt must be > 0; ";
    }
    if (m_delta.GetBitRate() == 0)
    {
        err << "TIMELY Delta must be > 0; ";
    }
    if (m_scale && m_refRate.GetBitRate() == 0)
    {
        err << "TIMELY ReferenceRate must be > 0 when ScaleWithLinkRate; ";
    }
    if (m_haiN == 0)
    {
        err << "TIMELY HaiN must be >= 1; ";
    }
    if (m_minRate.GetBitRate() == 0)
    {
        err << "TIMELY MinRate must be > 0; ";
    }
    if (m_init.lineRateBps != 0 && m_minRate.GetBitRate() > m_init.lineRateBps)
    {
        err << "TIMELY MinRate " << m_minRate << " exceeds the line rate; ";
    }
    return err.str();
}

void
RdmaCcTimely::Init(const RdmaCcInit& init)
{
    RdmaCongestionOps::Init(init);
    std::string err = Validate();
    if (!err.empty())
    {
        throw astra::InputError(err);
    }
    const double scale = m_scale ? double(init.lineRateBps) / double(m_refRate.GetBitRate()) : 1.0;
    m_deltaEff =
        std::max<uint64_t>(1, uint64_t(std::llround(double(m_delta.GetBitRate()) * scale)));
    m_rttDiff = 0;
    m_prevRtt = -1;
    m_incCount = 0;
    m_ackedSinceUpdate = 0;
    m_r = double(m_rate);
}

void
RdmaCcTimely::OnAck(uint64_t bytesAcked, const RdmaMeta&)
{
    m_ackedSinceUpdate += bytesAcked;
}

void
RdmaCcTimely::OnRttSample(Time rttTime, const RdmaMeta&)
{
    const double rtt = rttTime.GetSeconds();
    if (m_prevRtt < 0)
    {
        m_prevRtt = rtt; // first sample: the gradient needs two
        return;
    }
    if (m_ackedSinceUpdate < m_segment)
    {
        return;
    }
    m_ackedSinceUpdate = 0;
    const double newDiff = rtt - m_prevRtt;
    m_prevRtt = rtt;
    m_rttDiff = (1.0 - m_alpha) * m_rttDiff + m_alpha * newDiff;
    const double g = m_rttDiff / m_minRtt.GetSeconds();
    const double delta = double(m_deltaEff);
    if (rtt < m_tLow.GetSeconds())
    {
        m_r += delta;
    }
    else if (rtt > m_tHigh.GetSeconds())
    {
        m_incCount = 0;
        m_r *= 1.0 - m_beta * (1.0 - m_tHigh.GetSeconds() / rtt);
    }
    else if (g <= 0)
    {
        // hyper increase once HaiThreshold consecutive increases happened before this one
        const double n = m_incCount >= m_haiThreshold ? double(m_haiN) : 1.0;
        ++m_incCount;
        m_r += n * delta;
    }
    else
    {
        m_incCount = 0;
        m_r *= 1.0 - m_beta * g;
    }
    m_r = std::clamp(m_r, double(m_minRate.GetBitRate()), double(m_init.lineRateBps));
    NS_LOG_DEBUG("rtt " << rtt << " diff " << m_rttDiff << " g " << g << " R " << m_r);
    SetRate(uint64_t(m_r));
}

double
RdmaCcTimely::GetRttDiff() const
{
    return m_rttDiff;
}

uint64_t
RdmaCcTimely::GetDelta() const
{
    return m_deltaEff;
}

uint32_t
RdmaCcTimely::GetIncreaseCount() const
{
    return m_incCount;
}

} // namespace ns3
