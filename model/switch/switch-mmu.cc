#include "switch-mmu.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchMmu");
NS_OBJECT_ENSURE_REGISTERED(SwitchMmu);

TypeId
SwitchMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwitchMmu")
            .SetParent<Object>()
            .SetGroupName("AstraSim")
            .AddConstructor<SwitchMmu>()
            .AddAttribute("BufferSize",
                          "Total packet buffer of the switch (bytes)",
                          UintegerValue(32 * 1024 * 1024),
                          MakeUintegerAccessor(&SwitchMmu::m_bufferBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ReservedBytes",
                          "Reserved (guaranteed) ingress buffer per (port, priority) (bytes)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&SwitchMmu::m_reservedBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Alpha",
                          "Dynamic threshold factor: an ingress (port, priority) is paused when "
                          "its shared use >= Alpha x free shared buffer",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&SwitchMmu::m_alpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("EgressAlpha",
                          "Dynamic threshold factor for lossy priorities: a frame is dropped when "
                          "its egress (port, priority) queue would exceed EgressAlpha x free "
                          "shared buffer",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SwitchMmu::m_egressAlpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("HysteresisBytes",
                          "PFC resume hysteresis: resume when shared use < threshold - this "
                          "(0 = 2 x MtuFrameBytes)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchMmu::m_hysteresisBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MtuFrameBytes",
                          "Largest frame on the wire incl. preamble/IFG (headroom sizing, "
                          "default hysteresis); 0 = the largest port MTU frame given to "
                          "AddPort (RdmaSwitch: device Mtu + 18 + 4 + 20), else 1110",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchMmu::m_mtuFrameBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HeadroomBytes",
                          "Fixed headroom per lossless (port, priority); 0 = computed from each "
                          "port's link (2 x delay x rate + 2 x MTU frame + rate x ResponseTime). "
                          "A fixed value below the requirement of a port is a fatal error.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchMmu::m_fixedHeadroom),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ResponseTime",
                          "PFC response time of the upstream port (headroom sizing)",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&SwitchMmu::m_responseTime),
                          MakeTimeChecker())
            .AddAttribute("PfcEnabled",
                          "Enable PFC (false: every priority is lossy)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SwitchMmu::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("LosslessPriorities",
                          "Bit mask of lossless (PFC) priorities (default: priority 3, the "
                          "host stack's DataPriority; ACK/CNP priorities stay lossy)",
                          UintegerValue(0x08),
                          MakeUintegerAccessor(&SwitchMmu::m_losslessMask),
                          MakeUintegerChecker<uint8_t>());
    return tid;
}

SwitchMmu::SwitchMmu()
    : m_name("switch")
{
}

SwitchMmu::~SwitchMmu() = default;

uint64_t
SwitchMmu::ComputeHeadroom(DataRate rate, Time delay, uint32_t mtuFrameBytes, Time response)
{
    using u128 = unsigned __int128;
    const u128 bps = rate.GetBitRate();
    const u128 psPerByteSecond = u128(8) * 1000000000000ULL; // bits->bytes, s->ps
    const u128 dps = static_cast<uint64_t>(std::max<int64_t>(delay.GetPicoSeconds(), 0));
    const u128 rps = static_cast<uint64_t>(std::max<int64_t>(response.GetPicoSeconds(), 0));
    const u128 inflight = (2 * bps * dps + psPerByteSecond - 1) / psPerByteSecond;
    const u128 resp = (bps * rps + psPerByteSecond - 1) / psPerByteSecond;
    return static_cast<uint64_t>(inflight + resp) + 2ULL * mtuFrameBytes;
}

std::string
SwitchMmu::CheckHeadroom(const std::string& who, uint32_t port, uint64_t given, uint64_t required)
{
    if (given >= required)
    {
        return "";
    }
    std::ostringstream os;
    os << "SwitchMmu: " << who << " port " << port << ": headroom " << given
       << " B per lossless priority is smaller than the " << required
       << " B required by its link (2 x delay x rate + 2 x MTU frame + rate x response time); "
          "raise ns3::SwitchMmu::HeadroomBytes or set it to 0 (computed)";
    return os.str();
}

std::string
SwitchMmu::CheckBuffer(const std::string& who,
                       uint64_t bufferBytes,
                       uint64_t reservedBytes,
                       uint64_t headroomBytes,
                       uint64_t minSharedBytes)
{
    if (bufferBytes >= reservedBytes + headroomBytes + minSharedBytes)
    {
        return "";
    }
    std::ostringstream os;
    os << "SwitchMmu: " << who << ": buffer " << bufferBytes << " B is too small: reserved "
       << reservedBytes << " B + headroom " << headroomBytes << " B + minimum shared pool "
       << minSharedBytes << " B = " << (reservedBytes + headroomBytes + minSharedBytes)
       << " B needed; raise ns3::SwitchMmu::BufferSize or reduce LosslessPriorities/ReservedBytes";
    return os.str();
}

void
SwitchMmu::SetName(const std::string& name)
{
    m_name = name;
}

const std::string&
SwitchMmu::GetName() const
{
    return m_name;
}

uint32_t
SwitchMmu::AddPort(DataRate rate, Time delay, uint32_t mtuFrameBytes)
{
    Port p;
    p.rate = rate;
    p.delay = delay;
    p.mtuFrame = mtuFrameBytes;
    m_ports.push_back(p);
    m_finalized = false;
    SizePorts();
    return static_cast<uint32_t>(m_ports.size() - 1);
}

uint32_t
SwitchMmu::GetMtuFrameBytes() const
{
    if (m_mtuFrameBytes > 0)
    {
        return m_mtuFrameBytes;
    }
    uint32_t m = 0;
    for (const Port& p : m_ports)
    {
        m = std::max(m, p.mtuFrame);
    }
    return m > 0 ? m : 1110;
}

void
SwitchMmu::SizePorts()
{
    const uint32_t mtu = GetMtuFrameBytes();
    for (Port& p : m_ports)
    {
        p.required = ComputeHeadroom(p.rate, p.delay, mtu, m_responseTime);
        p.headroom = m_fixedHeadroom > 0 ? m_fixedHeadroom : p.required;
    }
}

uint32_t
SwitchMmu::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

std::string
SwitchMmu::CheckConfiguration() const
{
    const_cast<SwitchMmu*>(this)->SizePorts(); // attributes may have changed since AddPort
    uint32_t nLossless = 0;
    for (uint8_t p = 0; p < kPrios; ++p)
    {
        nLossless += IsLossless(p) ? 1 : 0;
    }
    uint64_t headroom = 0;
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        if (nLossless > 0 && m_fixedHeadroom > 0)
        {
            std::string e = CheckHeadroom(m_name, i, m_fixedHeadroom, m_ports[i].required);
            if (!e.empty())
            {
                return e;
            }
        }
        headroom += m_ports[i].headroom * nLossless;
    }
    const uint64_t reserved = uint64_t(m_reservedBytes) * kPrios * m_ports.size();
    return CheckBuffer(m_name, m_bufferBytes, reserved, headroom, 2ULL * GetMtuFrameBytes());
}

void
SwitchMmu::Finalize()
{
    const std::string err = CheckConfiguration();
    if (!err.empty())
    {
        throw astra::InputError(err);
    }
    uint64_t nLossless = 0;
    for (uint8_t p = 0; p < kPrios; ++p)
    {
        nLossless += IsLossless(p) ? 1 : 0;
    }
    uint64_t used = 0;
    for (const Port& port : m_ports)
    {
        used += uint64_t(m_reservedBytes) * kPrios + port.headroom * nLossless;
    }
    m_sharedPool = m_bufferBytes - used;
    m_hystMtu = GetMtuFrameBytes();
    m_finalized = true;
    const double pausePoint = m_alpha / (1 + m_alpha) * static_cast<double>(m_sharedPool);
    if (nLossless > 0 && static_cast<double>(GetHysteresisBytes()) >= pausePoint)
    {
        ASTRA_WARN("pfc-hysteresis-above-pause-point",
                   m_name << ": PFC hysteresis " << GetHysteresisBytes() << " B >= pause point "
                          << pausePoint
                          << " B of a single congested queue: ingress queues resume only "
                             "when empty and links may idle (raise BufferSize or lower "
                             "HysteresisBytes/MtuFrameBytes)");
    }
    NS_LOG_INFO(m_name << ": " << m_ports.size() << " ports, shared pool " << m_sharedPool
                       << " B of " << m_bufferBytes << " B");
}

uint64_t
SwitchMmu::GetThreshold() const
{
    const uint64_t free = m_sharedPool > m_sharedUsed ? m_sharedPool - m_sharedUsed : 0;
    return static_cast<uint64_t>(m_alpha * static_cast<double>(free));
}

SwitchMmu::AdmitResult
SwitchMmu::Admit(uint32_t inPort, uint8_t prio, uint32_t outPort, uint8_t outPrio, uint32_t bytes)
{
    if (!m_finalized)
    {
        Finalize();
    }
    NS_ASSERT(inPort < m_ports.size() && outPort < m_ports.size() && prio < kPrios &&
              outPrio < kPrios);
    AdmitResult r;
    IngressQ& q = m_ports[inPort].in[prio];
    if (IsLossless(prio))
    {
        bool toHeadroom = q.paused;
        if (!toHeadroom)
        {
            if (q.reserved + bytes <= m_reservedBytes)
            {
                q.reserved += bytes;
            }
            else if (m_sharedUsed + bytes <= m_sharedPool)
            {
                q.shared += bytes;
                m_sharedUsed += bytes;
            }
            else
            {
                toHeadroom = true;
            }
            if (!toHeadroom && q.shared > 0 && q.shared >= GetThreshold())
            {
                q.paused = true;
                r.pause = true;
            }
        }
        if (toHeadroom)
        {
            if (q.headroom + bytes > m_ports[inPort].headroom)
            {
                r.verdict = LOSSLESS_DROP;
                return r;
            }
            q.headroom += bytes;
            if (!q.paused)
            {
                q.paused = true;
                r.pause = true;
            }
        }
    }
    else
    {
        if (q.reserved + bytes <= m_reservedBytes)
        {
            q.reserved += bytes;
        }
        else if (m_sharedUsed + bytes <= m_sharedPool &&
                 static_cast<double>(m_ports[outPort].egress[outPrio] + bytes) <=
                     m_egressAlpha * static_cast<double>(m_sharedPool - m_sharedUsed))
        {
            q.shared += bytes;
            m_sharedUsed += bytes;
        }
        else
        {
            r.verdict = DROP;
            return r;
        }
    }
    Port& out = m_ports[outPort];
    out.egress[outPrio] += bytes;
    out.egressTotal += bytes;
    out.egressMax = std::max(out.egressMax, out.egressTotal);
    return r;
}

bool
SwitchMmu::CanResume(const IngressQ& q) const
{
    if (q.headroom > 0)
    {
        return false;
    }
    return q.shared == 0 || q.shared + GetHysteresisBytes() < GetThreshold();
}

bool
SwitchMmu::Release(uint32_t inPort, uint8_t prio, uint32_t outPort, uint8_t outPrio, uint32_t bytes)
{
    NS_ASSERT(inPort < m_ports.size() && outPort < m_ports.size() && prio < kPrios &&
              outPrio < kPrios);
    IngressQ& q = m_ports[inPort].in[prio];
    uint64_t rem = bytes;
    uint64_t d = std::min(q.headroom, rem);
    q.headroom -= d;
    rem -= d;
    d = std::min(q.shared, rem);
    q.shared -= d;
    m_sharedUsed -= d;
    rem -= d;
    d = std::min(q.reserved, rem);
    q.reserved -= d;
    Port& out = m_ports[outPort];
    out.egress[outPrio] -= std::min<uint64_t>(out.egress[outPrio], bytes);
    out.egressTotal -= std::min<uint64_t>(out.egressTotal, bytes);
    if (q.paused && CanResume(q))
    {
        q.paused = false;
        return true;
    }
    return false;
}

bool
SwitchMmu::IsPaused(uint32_t port, uint8_t prio) const
{
    return m_ports[port].in[prio].paused;
}

uint64_t
SwitchMmu::GetSharedPoolBytes() const
{
    return m_sharedPool;
}

uint64_t
SwitchMmu::GetSharedUsedBytes() const
{
    return m_sharedUsed;
}

uint64_t
SwitchMmu::GetIngressBytes(uint32_t port, uint8_t prio) const
{
    const IngressQ& q = m_ports[port].in[prio];
    return q.reserved + q.shared + q.headroom;
}

uint64_t
SwitchMmu::GetIngressSharedBytes(uint32_t port, uint8_t prio) const
{
    return m_ports[port].in[prio].shared;
}

uint64_t
SwitchMmu::GetIngressHeadroomBytes(uint32_t port, uint8_t prio) const
{
    return m_ports[port].in[prio].headroom;
}

uint64_t
SwitchMmu::GetEgressBytes(uint32_t port, uint8_t prio) const
{
    return m_ports[port].egress[prio];
}

uint64_t
SwitchMmu::GetEgressPortBytes(uint32_t port) const
{
    return m_ports[port].egressTotal;
}

uint64_t
SwitchMmu::GetMaxEgressPortBytes(uint32_t port) const
{
    return m_ports[port].egressMax;
}

uint64_t
SwitchMmu::GetHeadroom(uint32_t port) const
{
    return m_ports[port].headroom;
}

uint64_t
SwitchMmu::GetRequiredHeadroom(uint32_t port) const
{
    return m_ports[port].required;
}

uint64_t
SwitchMmu::GetReservedBytes() const
{
    return m_reservedBytes;
}

uint64_t
SwitchMmu::GetHysteresisBytes() const
{
    return m_hysteresisBytes > 0 ? m_hysteresisBytes : 2ULL * m_hystMtu;
}

double
SwitchMmu::GetAlpha() const
{
    return m_alpha;
}

} // namespace ns3
