#include "rdma-ecn-marker.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iterator>
#include <limits>
#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaEcnMarker);
NS_OBJECT_ENSURE_REGISTERED(RdmaEcnRed);
NS_OBJECT_ENSURE_REGISTERED(RdmaEcnStep);

ATTRIBUTE_HELPER_CPP(RdmaEcnRateMap);

// ------------------------------------------------------------------ RdmaEcnRateMap

namespace
{

/// Parse an unsigned decimal integer (digits only, no sign, no overflow).
bool
ParseU64(const std::string& s, uint64_t& v)
{
    if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    errno = 0;
    char* end = nullptr;
    const unsigned long long x = std::strtoull(s.c_str(), &end, 10);
    if (errno == ERANGE || *end != '\0')
    {
        return false;
    }
    v = x;
    return true;
}

/// Parse a finite decimal number (the whole string).
bool
ParseFinite(const std::string& s, double& v)
{
    if (s.empty() || std::isspace(static_cast<unsigned char>(s[0])))
    {
        return false;
    }
    char* end = nullptr;
    const double x = std::strtod(s.c_str(), &end);
    if (*end != '\0' || !std::isfinite(x))
    {
        return false;
    }
    v = x;
    return true;
}

} // namespace

void
RdmaEcnRateMap::Set(uint64_t bps, const Entry& e)
{
    m_entries[bps] = e;
}

const std::map<uint64_t, RdmaEcnRateMap::Entry>&
RdmaEcnRateMap::GetEntries() const
{
    return m_entries;
}

bool
RdmaEcnRateMap::IsEmpty() const
{
    return m_entries.empty();
}

std::string
RdmaEcnRateMap::Check() const
{
    for (const auto& kv : m_entries)
    {
        const Entry& e = kv.second;
        std::ostringstream os;
        if (kv.first == 0)
        {
            os << "line rate 0 bit/s";
        }
        else if (e.kmaxBytes == 0)
        {
            os << "rate " << kv.first << " bit/s: Kmax is 0 (no KMAX entry?)";
        }
        else if (e.kminBytes > e.kmaxBytes)
        {
            os << "rate " << kv.first << " bit/s: Kmin (" << e.kminBytes << " B) exceeds Kmax ("
               << e.kmaxBytes << " B)";
        }
        else if (!(e.pmax >= 0.0 && e.pmax <= 1.0))
        {
            os << "rate " << kv.first << " bit/s: Pmax " << e.pmax << " is not within [0, 1]";
        }
        if (!os.str().empty())
        {
            return os.str();
        }
    }
    return "";
}

RdmaEcnConfig
RdmaEcnRateMap::ForRate(uint64_t bps) const
{
    const double rate = double(bps);
    // nearest entry (in log scale), scaled linearly to this port's rate
    auto best = m_entries.begin();
    double bestDist = 1e300;
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it)
    {
        const double d = std::fabs(std::log(double(std::max<uint64_t>(it->first, 1)) / rate));
        if (d < bestDist)
        {
            bestDist = d;
            best = it;
        }
    }
    const double scale = rate / double(std::max<uint64_t>(best->first, 1));
    const double kmin = std::llround(double(best->second.kminBytes) * scale);
    const double kmax = std::llround(double(best->second.kmaxBytes) * scale);
    if (kmax > double(std::numeric_limits<uint32_t>::max()))
    {
        std::ostringstream os;
        os << "ECN thresholds of the " << best->first << " bit/s entry scaled to a " << bps
           << " bit/s port exceed 2^32 - 1 bytes (Kmax " << kmax << " B)";
        throw astra::InputError(os.str());
    }
    return RdmaEcnConfig{uint32_t(kmin), uint32_t(kmax), best->second.pmax};
}

bool
RdmaEcnRateMap::operator==(const RdmaEcnRateMap& o) const
{
    if (m_entries.size() != o.m_entries.size())
    {
        return false;
    }
    for (auto a = m_entries.begin(), b = o.m_entries.begin(); a != m_entries.end(); ++a, ++b)
    {
        if (a->first != b->first || a->second.kminBytes != b->second.kminBytes ||
            a->second.kmaxBytes != b->second.kmaxBytes || a->second.pmax != b->second.pmax)
        {
            return false;
        }
    }
    return true;
}

std::ostream&
operator<<(std::ostream& os, const RdmaEcnRateMap& m)
{
    bool first = true;
    for (const auto& kv : m.GetEntries())
    {
        // the shortest decimal form that reads back to the same Pmax
        std::ostringstream p;
        for (int digits = 6; digits <= 17; ++digits)
        {
            p.str("");
            p << std::setprecision(digits) << kv.second.pmax;
            if (std::strtod(p.str().c_str(), nullptr) == kv.second.pmax)
            {
                break;
            }
        }
        os << (first ? "" : ",") << kv.first << ':' << kv.second.kminBytes << ':'
           << kv.second.kmaxBytes << ':' << p.str();
        first = false;
    }
    return os;
}

std::istream&
operator>>(std::istream& is, RdmaEcnRateMap& m)
{
    // the whole rest of the stream (ns-3's attribute parser requires eof)
    const std::string s{std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>()};
    is.setstate(std::ios_base::eofbit);
    RdmaEcnRateMap out;
    std::istringstream entries(s);
    std::string entry;
    bool ok = true;
    while (ok && std::getline(entries, entry, ','))
    {
        entry.erase(0, entry.find_first_not_of(" \t\r\n"));
        entry.erase(entry.find_last_not_of(" \t\r\n") + 1);
        if (entry.empty())
        {
            ok = s.find_first_not_of(" \t\r\n") == std::string::npos; // "" is the empty map
            continue;
        }
        std::vector<std::string> f;
        std::istringstream fields(entry);
        for (std::string x; std::getline(fields, x, ':');)
        {
            f.push_back(x);
        }
        uint64_t rate = 0;
        RdmaEcnRateMap::Entry e;
        ok = f.size() == 4 && ParseU64(f[0], rate) && rate > 0 && ParseU64(f[1], e.kminBytes) &&
             ParseU64(f[2], e.kmaxBytes) && ParseFinite(f[3], e.pmax);
        if (ok)
        {
            out.Set(rate, e);
        }
    }
    if (!ok || !out.Check().empty())
    {
        is.setstate(std::ios_base::failbit);
        return is;
    }
    m = out;
    return is;
}

// ------------------------------------------------------------------ RdmaEcnMarker

TypeId
RdmaEcnMarker::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaEcnMarker")
            .SetParent<Object>()
            .SetGroupName("AstraSim")
            .AddAttribute("AtDequeue",
                          "Decide when a frame leaves the egress port, on the queue behind it "
                          "(instead of when it is queued, on the queue ahead of it)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaEcnMarker::m_atDequeue),
                          MakeBooleanChecker());
    return tid;
}

RdmaEcnMarker::RdmaEcnMarker() = default;

RdmaEcnMarker::~RdmaEcnMarker() = default;

std::string
RdmaEcnMarker::Validate() const
{
    return "";
}

std::string
RdmaEcnMarker::CheckThresholds(uint64_t kminBytes, uint64_t kmaxBytes, double pmax)
{
    std::ostringstream os;
    if (kminBytes > kmaxBytes)
    {
        os << "ECN: Kmin (" << kminBytes << " B) must be <= Kmax (" << kmaxBytes << " B)";
    }
    else if (!(pmax >= 0.0 && pmax <= 1.0))
    {
        os << "ECN: Pmax (" << pmax << ") must be within [0, 1]";
    }
    return os.str();
}

void
RdmaEcnMarker::AddPort(uint64_t lineRateBps)
{
    const RdmaEcnConfig c = Thresholds(lineRateBps);
    const std::string e = CheckThresholds(c.kminBytes, c.kmaxBytes, c.pmax);
    if (!e.empty())
    {
        throw astra::InputError(GetInstanceTypeId().GetName() + " port " +
                                std::to_string(m_ports.size()) + ": " + e);
    }
    m_ports.push_back(c);
}

uint32_t
RdmaEcnMarker::GetNPorts() const
{
    return uint32_t(m_ports.size());
}

void
RdmaEcnMarker::SetThresholds(uint32_t port, const RdmaEcnConfig& cfg)
{
    const std::string e = CheckThresholds(cfg.kminBytes, cfg.kmaxBytes, cfg.pmax);
    if (!e.empty() || port >= m_ports.size())
    {
        throw astra::InputError(GetInstanceTypeId().GetName() + " port " + std::to_string(port) +
                                ": " + (e.empty() ? std::string("no such port") : e));
    }
    m_ports[port] = cfg;
}

const RdmaEcnConfig&
RdmaEcnMarker::GetThresholds(uint32_t port) const
{
    return m_ports.at(port);
}

// ------------------------------------------------------------------ RdmaEcnRed

TypeId
RdmaEcnRed::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaEcnRed")
            .SetParent<RdmaEcnMarker>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaEcnRed>()
            .AddAttribute("Kmin",
                          "Kmin (bytes of the egress (port, priority) queue): at or below, "
                          "never mark",
                          UintegerValue(100 * 1000),
                          MakeUintegerAccessor(&RdmaEcnRed::m_kmin),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Kmax",
                          "Kmax (bytes): above, always mark",
                          UintegerValue(400 * 1000),
                          MakeUintegerAccessor(&RdmaEcnRed::m_kmax),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Pmax",
                          "Marking probability at Kmax (linear from 0 at Kmin)",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&RdmaEcnRed::m_pmax),
                          MakeDoubleChecker<double>())
            .AddAttribute("RateThresholds",
                          "Per-line-rate thresholds \"RATE:KMIN:KMAX:PMAX,...\" (bit/s, bytes, "
                          "bytes, probability; HPCC's KMIN_MAP/KMAX_MAP/PMAX_MAP): a port takes "
                          "the entry of the nearest rate, Kmin/Kmax scaled to its rate. Empty: "
                          "Kmin/Kmax/Pmax on every port",
                          RdmaEcnRateMapValue(RdmaEcnRateMap()),
                          MakeRdmaEcnRateMapAccessor(&RdmaEcnRed::m_rateMap),
                          MakeRdmaEcnRateMapChecker());
    return tid;
}

RdmaEcnRed::RdmaEcnRed() = default;

RdmaEcnRed::~RdmaEcnRed() = default;

std::string
RdmaEcnRed::Validate() const
{
    std::string e = CheckThresholds(m_kmin, m_kmax, m_pmax);
    const std::string r = m_rateMap.Check();
    if (!r.empty())
    {
        e += (e.empty() ? "" : "; ") + std::string("RateThresholds: ") + r;
    }
    return e;
}

double
RdmaEcnRed::MarkProbability(uint64_t qBytes, const RdmaEcnConfig& cfg)
{
    if (qBytes <= cfg.kminBytes)
    {
        return 0.0;
    }
    if (qBytes > cfg.kmaxBytes)
    {
        return 1.0;
    }
    return cfg.pmax * static_cast<double>(qBytes - cfg.kminBytes) /
           static_cast<double>(cfg.kmaxBytes - cfg.kminBytes);
}

RdmaEcnConfig
RdmaEcnRed::Thresholds(uint64_t lineRateBps) const
{
    if (!m_rateMap.IsEmpty())
    {
        return m_rateMap.ForRate(lineRateBps);
    }
    return RdmaEcnConfig{m_kmin, m_kmax, m_pmax};
}

bool
RdmaEcnRed::Decide(uint32_t port, uint8_t, uint64_t queueBytes, UniformRandomVariable& rng) const
{
    const double p = MarkProbability(queueBytes, GetThresholds(port));
    if (p <= 0.0)
    {
        return false;
    }
    if (p >= 1.0)
    {
        return true;
    }
    return rng.GetValue() < p;
}

// ------------------------------------------------------------------ RdmaEcnStep

TypeId
RdmaEcnStep::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaEcnStep")
                            .SetParent<RdmaEcnMarker>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<RdmaEcnStep>()
                            .AddAttribute("K",
                                          "Marking threshold K (bytes of the egress (port, "
                                          "priority) queue): every frame is marked above it",
                                          UintegerValue(100 * 1000),
                                          MakeUintegerAccessor(&RdmaEcnStep::m_k),
                                          MakeUintegerChecker<uint32_t>());
    return tid;
}

RdmaEcnStep::RdmaEcnStep() = default;

RdmaEcnStep::~RdmaEcnStep() = default;

RdmaEcnConfig
RdmaEcnStep::Thresholds(uint64_t) const
{
    return RdmaEcnConfig{m_k, m_k, 1.0};
}

bool
RdmaEcnStep::Decide(uint32_t, uint8_t, uint64_t, UniformRandomVariable&) const
{
    return true; // above K (the base class tested the port's Kmin = K)
}

} // namespace ns3
