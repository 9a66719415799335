#include "dcqcn.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCcDcqcn");

NS_OBJECT_ENSURE_REGISTERED(RdmaCcDcqcn);

TypeId
RdmaCcDcqcn::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCcDcqcn")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaCcDcqcn>()
            .AddAttribute("G",
                          "Alpha gain g",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&RdmaCcDcqcn::m_g),
                          MakeDoubleChecker<double>())
            .AddAttribute("AlphaInit",
                          "Initial alpha",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RdmaCcDcqcn::m_alphaInit),
                          MakeDoubleChecker<double>())
            .AddAttribute("AlphaPeriod",
                          "Alpha decays by (1-g) per period without CNP (55 us paper, "
                          "1 us in some NIC firmware)",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&RdmaCcDcqcn::m_alphaPeriod),
                          MakeTimeChecker())
            .AddAttribute("RateIncreasePeriod",
                          "Rate increase timer period",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&RdmaCcDcqcn::m_increasePeriod),
                          MakeTimeChecker())
            .AddAttribute("ByteCounter",
                          "Bytes sent per byte-counter rate increase event (0 = disabled)",
                          UintegerValue(10 * 1000 * 1000),
                          MakeUintegerAccessor(&RdmaCcDcqcn::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FastRecoverySteps",
                          "F: increase events in fast recovery before additive increase",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaCcDcqcn::m_fastRecoverySteps),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAi",
                          "Additive increase R_AI (at ReferenceRate if ScaleWithLinkRate)",
                          DataRateValue(DataRate("40Mbps")),
                          MakeDataRateAccessor(&RdmaCcDcqcn::m_rai),
                          MakeDataRateChecker())
            .AddAttribute("RateHai",
                          "Hyper increase R_HAI (at ReferenceRate if ScaleWithLinkRate)",
                          DataRateValue(DataRate("200Mbps")),
                          MakeDataRateAccessor(&RdmaCcDcqcn::m_rhai),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Lower bound of the current rate",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RdmaCcDcqcn::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("ScaleWithLinkRate",
                          "Scale R_AI and R_HAI by line rate / ReferenceRate",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaCcDcqcn::m_scale),
                          MakeBooleanChecker())
            .AddAttribute("ReferenceRate",
                          "Line rate at which RateAi/RateHai are given",
                          DataRateValue(DataRate("40Gbps")),
                          MakeDataRateAccessor(&RdmaCcDcqcn::m_refRate),
                          MakeDataRateChecker());
    return tid;
}

RdmaCcDcqcn::RdmaCcDcqcn() = default;

RdmaCcDcqcn::RdmaCcDcqcn(const RdmaCcDcqcn& o)
    : RdmaCongestionOps(o),
      m_g(o.m_g),
      m_alphaInit(o.m_alphaInit),
      m_alphaPeriod(o.m_alphaPeriod),
      m_increasePeriod(o.m_increasePeriod),
      m_byteCounter(o.m_byteCounter),
      m_fastRecoverySteps(o.m_fastRecoverySteps),
      m_rai(o.m_rai),
      m_rhai(o.m_rhai),
      m_minRate(o.m_minRate),
      m_scale(o.m_scale),
      m_refRate(o.m_refRate)
{
}

RdmaCcDcqcn::~RdmaCcDcqcn() = default;

std::string
RdmaCcDcqcn::GetName() const
{
    return "DCQCN";
}

Ptr<RdmaCongestionOps>
RdmaCcDcqcn::Fork()
{
    return CopyObject<RdmaCcDcqcn>(this);
}

std::string
RdmaCcDcqcn::Validate() const
{
    std::ostringstream err;
    if (!(m_g > 0.0 && m_g <= 1.0))
    {
        err << "DCQCN G must be in (0, 1], got " << m_g << "; ";
    }
    if (!(m_alphaInit >= 0.0 && m_alphaInit <= 1.0))
    {
        err << "DCQCN AlphaInit must be in [0, 1], got " << m_alphaInit << "; ";
    }
    if (!m_alphaPeriod.IsStrictlyPositive())
    {
        err << "DCQCN AlphaPeriod must be > 0; ";
    }
    if (!m_increasePeriod.IsStrictlyPositive())
    {
        err << "DCQCN RateIncreasePeriod must be > 0; ";
    }
    if (m_minRate.GetBitRate() == 0)
    {
        err << "DCQCN MinRate must be > 0; ";
    }
    if (m_scale && m_refRate.GetBitRate() == 0)
    {
        err << "DCQCN ReferenceRate must be > 0 when ScaleWithLinkRate; ";
    }
    if (m_init.lineRateBps != 0 && m_minRate.GetBitRate() > m_init.lineRateBps)
    {
        err << "DCQCN MinRate " << m_minRate << " exceeds the line rate; ";
    }
    return err.str();
}

void
RdmaCcDcqcn::Init(const RdmaCcInit& init)
{
    RdmaCongestionOps::Init(init);
    std::string err = Validate();
    if (!err.empty())
    {
        throw astra::InputError(err);
    }
    m_alpha = m_alphaInit;
    m_alphaUpdated = Simulator::Now();
    m_rt = m_rate;
    double scale = m_scale ? double(init.lineRateBps) / double(m_refRate.GetBitRate()) : 1.0;
    m_raiEff = uint64_t(std::llround(double(m_rai.GetBitRate()) * scale));
    m_rhaiEff = uint64_t(std::llround(double(m_rhai.GetBitRate()) * scale));
}

void
RdmaCcDcqcn::Stop()
{
    m_timer.Cancel();
}

void
RdmaCcDcqcn::DoDispose()
{
    m_timer.Cancel();
    RdmaCongestionOps::DoDispose();
}

void
RdmaCcDcqcn::DecayAlpha()
{
    if (!m_cnpSeen)
    {
        return; // alpha only starts to evolve with the first CNP
    }
    Time elapsed = Simulator::Now() - m_alphaUpdated;
    int64_t periods = elapsed.GetTimeStep() / m_alphaPeriod.GetTimeStep();
    if (periods > 0)
    {
        m_alpha *= std::pow(1.0 - m_g, double(periods));
        m_alphaUpdated += TimeStep(periods * m_alphaPeriod.GetTimeStep());
    }
}

double
RdmaCcDcqcn::GetAlpha()
{
    DecayAlpha();
    return m_alpha;
}

uint64_t
RdmaCcDcqcn::GetTargetRate() const
{
    return m_rt;
}

uint64_t
RdmaCcDcqcn::GetRai() const
{
    return m_raiEff;
}

uint64_t
RdmaCcDcqcn::GetRhai() const
{
    return m_rhaiEff;
}

uint32_t
RdmaCcDcqcn::GetTimerStage() const
{
    return m_timerStage;
}

uint32_t
RdmaCcDcqcn::GetByteStage() const
{
    return m_byteStage;
}

void
RdmaCcDcqcn::OnCnp(const RdmaMeta&)
{
    DecayAlpha();
    m_cnpSeen = true;
    uint64_t rc = m_rate;
    m_rt = rc;
    uint64_t cut = uint64_t(double(rc) * (1.0 - m_alpha / 2.0));
    cut = std::max<uint64_t>(cut, m_minRate.GetBitRate());
    m_alpha = (1.0 - m_g) * m_alpha + m_g;
    m_alphaUpdated = Simulator::Now();
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytesSinceEvent = 0;
    NS_LOG_DEBUG("CNP: Rc " << rc << " -> " << cut << " alpha " << m_alpha);
    SetRate(cut);
    ArmTimer();
}

void
RdmaCcDcqcn::ArmTimer()
{
    m_timer.Cancel();
    m_timer = Simulator::Schedule(m_increasePeriod, &RdmaCcDcqcn::IncreaseTimer, this);
}

void
RdmaCcDcqcn::IncreaseTimer()
{
    ++m_timerStage;
    Increase();
    if (m_rate < m_init.lineRateBps)
    {
        m_timer = Simulator::Schedule(m_increasePeriod, &RdmaCcDcqcn::IncreaseTimer, this);
    }
}

void
RdmaCcDcqcn::OnSent(uint32_t payloadBytes)
{
    if (m_byteCounter == 0 || !m_cnpSeen || m_rate >= m_init.lineRateBps)
    {
        return;
    }
    m_bytesSinceEvent += payloadBytes;
    if (m_bytesSinceEvent >= m_byteCounter)
    {
        m_bytesSinceEvent -= m_byteCounter;
        ++m_byteStage;
        Increase();
    }
}

void
RdmaCcDcqcn::Increase()
{
    uint32_t hi = std::max(m_timerStage, m_byteStage);
    uint32_t lo = std::min(m_timerStage, m_byteStage);
    if (m_byteCounter == 0)
    {
        lo = hi = m_timerStage; // timer-only variant
    }
    const uint64_t line = m_init.lineRateBps;
    if (hi < m_fastRecoverySteps)
    {
        // fast recovery: Rt unchanged
    }
    else if (lo >= m_fastRecoverySteps)
    {
        uint64_t i = lo - m_fastRecoverySteps + 1;
        m_rt = std::min(line, m_rt + i * m_rhaiEff);
    }
    else
    {
        m_rt = std::min(line, m_rt + m_raiEff);
    }
    uint64_t rc = (m_rt + m_rate) / 2;
    if (m_rt + m_rate == 2 * line - 1)
    {
        rc = line; // avoid getting stuck one bit/s below line rate
    }
    SetRate(std::min(line, rc));
}

} // namespace ns3
