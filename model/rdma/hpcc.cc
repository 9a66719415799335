#include "hpcc.h"

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

NS_LOG_COMPONENT_DEFINE("RdmaCcHpcc");

NS_OBJECT_ENSURE_REGISTERED(RdmaCcHpcc);

TypeId
RdmaCcHpcc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCcHpcc")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaCcHpcc>()
            .AddAttribute("Eta",
                          "Target utilization eta (0, 1]",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&RdmaCcHpcc::m_eta),
                          MakeDoubleChecker<double>())
            .AddAttribute("MaxStage",
                          "Additive-increase stages before a multiplicative update (maxStage)",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaCcHpcc::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("WaiFlows",
                          "N in W_AI = W_init (1 - eta) / N (expected concurrent flows)",
                          UintegerValue(16),
                          MakeUintegerAccessor(&RdmaCcHpcc::m_waiN),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("WaiBytes",
                          "W_AI in bytes; 0 = W_init (1 - eta) / WaiFlows",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaCcHpcc::m_waiBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("WindowInit",
                          "W_init (bytes); 0 = line rate x T (bandwidth-delay product)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaCcHpcc::m_winitBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("BaseRtt",
                          "T, the base RTT; 0 = the host stack's BaseRtt",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaCcHpcc::m_baseRtt),
                          MakeTimeChecker())
            .AddAttribute("MinRate",
                          "Lower bound of the pacing rate W/T (and so of W)",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RdmaCcHpcc::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("UseEwma",
                          "Smooth U with the paper's EWMA U = (1 - tau/T) U + (tau/T) u",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaCcHpcc::m_useEwma),
                          MakeBooleanChecker())
            .AddAttribute("PathHops",
                          "Use only the first PathHops INT hops (the data path; switches also "
                          "append hops to the ACK on its way back); 0 = every hop",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaCcHpcc::m_pathHops),
                          MakeUintegerChecker<uint32_t>(0, kMaxIntHops));
    return tid;
}

RdmaCcHpcc::RdmaCcHpcc()
    : m_minRate("100Mbps")
{
}

RdmaCcHpcc::RdmaCcHpcc(const RdmaCcHpcc& o)
    : RdmaCongestionOps(o),
      m_eta(o.m_eta),
      m_maxStage(o.m_maxStage),
      m_waiN(o.m_waiN),
      m_waiBytes(o.m_waiBytes),
      m_winitBytes(o.m_winitBytes),
      m_baseRtt(o.m_baseRtt),
      m_minRate(o.m_minRate),
      m_useEwma(o.m_useEwma),
      m_pathHops(o.m_pathHops)
{
}

RdmaCcHpcc::~RdmaCcHpcc() = default;

std::string
RdmaCcHpcc::GetName() const
{
    return "HPCC";
}

Ptr<RdmaCongestionOps>
RdmaCcHpcc::Fork()
{
    return CopyObject<RdmaCcHpcc>(this);
}

bool
RdmaCcHpcc::NeedsInt() const
{
    return true;
}

std::string
RdmaCcHpcc::Validate() const
{
    std::ostringstream err;
    if (!(m_eta > 0.0 && m_eta <= 1.0))
    {
        err << "HPCC Eta must be in (0, 1], got " << m_eta << "; ";
    }
    if (m_waiBytes == 0 && m_waiN == 0)
    {
        err << "HPCC WaiFlows must be > 0 when WaiBytes is 0; ";
    }
    if (m_baseRtt.IsStrictlyNegative())
    {
        err << "HPCC BaseRtt must be >= 0; ";
    }
    if (m_minRate.GetBitRate() == 0)
    {
        err << "HPCC MinRate must be > 0; ";
    }
    if (m_init.lineRateBps != 0)
    {
        if (!m_baseRtt.IsStrictlyPositive() && !m_init.baseRtt.IsStrictlyPositive())
        {
            err << "HPCC needs T: set RdmaCcHpcc::BaseRtt or RdmaHostStack::BaseRtt; ";
        }
        if (m_minRate.GetBitRate() > m_init.lineRateBps)
        {
            err << "HPCC MinRate " << m_minRate << " exceeds the line rate; ";
        }
    }
    return err.str();
}

void
RdmaCcHpcc::Init(const RdmaCcInit& init)
{
    RdmaCongestionOps::Init(init);
    std::string err = Validate();
    if (!err.empty())
    {
        throw astra::InputError(err);
    }
    m_t = (m_baseRtt.IsStrictlyPositive() ? m_baseRtt : init.baseRtt).GetSeconds();
    m_winit = m_winitBytes > 0 ? double(m_winitBytes) : double(init.lineRateBps) * m_t / 8.0;
    m_wai = m_waiBytes > 0 ? double(m_waiBytes) : m_winit * (1.0 - m_eta) / double(m_waiN);
    m_w = m_winit;
    m_wc = m_winit;
    m_u = 1.0;
    m_incStage = 0;
    m_sent = 0;
    m_acked = 0;
    m_lastUpdateSeq = 0;
    m_first = true;
    m_prevHops = 0;
    SetRate(uint64_t(m_w * 8.0 / m_t));
}

void
RdmaCcHpcc::OnSent(uint32_t payloadBytes)
{
    m_sent += payloadBytes;
}

void
RdmaCcHpcc::OnAck(uint64_t bytesAcked, const RdmaMeta&)
{
    m_acked += bytesAcked;
}

double
RdmaCcHpcc::MeasureInflight(const RdmaMeta& meta, bool& valid)
{
    valid = false;
    uint8_t hops = meta.intHops;
    if (m_pathHops > 0)
    {
        hops = std::min<uint8_t>(hops, uint8_t(m_pathHops));
    }
    hops = std::min<uint8_t>(hops, kMaxIntHops);
    if (hops != m_prevHops)
    {
        // first sample (or the path changed): no rate yet
        std::copy(meta.intStack, meta.intStack + hops, m_prev);
        m_prevHops = hops;
        return 0.0;
    }
    double u = 0.0;
    double tau = 0.0;
    for (uint8_t i = 0; i < hops; ++i)
    {
        const IntHop& h = meta.intStack[i];
        const IntHop& p = m_prev[i];
        if (h.timeNs <= p.timeNs || h.rateMbps == 0 || h.txBytes < p.txBytes)
        {
            continue; // same instant (or stale): keep the older reference sample
        }
        const double dt = double(h.timeNs - p.timeNs) * 1e-9;
        const double b = double(h.rateMbps) * 1e6;
        const double txRate = double(h.txBytes - p.txBytes) * 8.0 / dt;
        const double ui = double(h.qlenBytes) * 8.0 / (b * m_t) + txRate / b;
        if (!valid || ui > u)
        {
            u = ui;
            tau = dt;
        }
        valid = true;
        m_prev[i] = h;
    }
    if (!valid)
    {
        return 0.0;
    }
    if (m_useEwma)
    {
        tau = std::min(tau, m_t);
        m_u = (1.0 - tau / m_t) * m_u + (tau / m_t) * u;
    }
    else
    {
        m_u = u;
    }
    return m_u;
}

void
RdmaCcHpcc::ComputeWind(double u, bool updateWc)
{
    const double wmin = double(m_minRate.GetBitRate()) * m_t / 8.0;
    double w;
    if (u >= m_eta || m_incStage >= m_maxStage)
    {
        w = m_wc / (std::max(u, 1e-9) / m_eta) + m_wai;
        w = std::clamp(w, wmin, m_winit);
        if (updateWc)
        {
            m_incStage = 0;
            m_wc = w;
        }
    }
    else
    {
        w = std::clamp(m_wc + m_wai, wmin, m_winit);
        if (updateWc)
        {
            ++m_incStage;
            m_wc = w;
        }
    }
    m_w = w;
    NS_LOG_DEBUG("U " << u << " W " << m_w << " Wc " << m_wc << " stage " << m_incStage);
    SetRate(uint64_t(m_w * 8.0 / m_t));
}

void
RdmaCcHpcc::OnInt(const RdmaMeta& meta)
{
    bool valid = false;
    const double u = MeasureInflight(meta, valid);
    if (!valid)
    {
        return;
    }
    const bool update = m_first || m_acked > m_lastUpdateSeq;
    ComputeWind(u, update);
    if (update)
    {
        m_first = false;
        m_lastUpdateSeq = m_sent;
    }
}

uint64_t
RdmaCcHpcc::GetWindow() const
{
    return std::max<uint64_t>(1, uint64_t(std::ceil(m_w)));
}

double
RdmaCcHpcc::GetUtilization() const
{
    return m_u;
}

double
RdmaCcHpcc::GetWindowBytes() const
{
    return m_w;
}

double
RdmaCcHpcc::GetCommitted() const
{
    return m_wc;
}

double
RdmaCcHpcc::GetWai() const
{
    return m_wai;
}

double
RdmaCcHpcc::GetWinit() const
{
    return m_winit;
}

uint32_t
RdmaCcHpcc::GetIncStage() const
{
    return m_incStage;
}

Time
RdmaCcHpcc::GetT() const
{
    return Seconds(m_t);
}

} // namespace ns3
