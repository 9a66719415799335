#include "roce-config-reader.h"

#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-input.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/global-value.h"
#include "ns3/integer.h"
#include "ns3/nstime.h"
#include "ns3/string.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <yaml-cpp/yaml.h>

namespace ns3
{
namespace astra
{

namespace
{

// ------------------------------------------------------------------ text helpers

std::string
Trim(const std::string& s)
{
    const size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos)
    {
        return "";
    }
    return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

/// file: key = 'value': problem
[[noreturn]] void
Fail(const std::string& where,
     const std::string& key,
     const std::string& value,
     const std::string& problem)
{
    throw InputError(where + ": " + key + " = '" + value + "': " + problem);
}

bool
IsUnsigned(const std::string& s)
{
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

/// A finite decimal number filling the whole string.
bool
ParseFinite(const std::string& s, double& v)
{
    if (s.empty() || std::isspace(static_cast<unsigned char>(s[0])))
    {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(s.c_str(), &end);
    if (*end != '\0' || !std::isfinite(x) || errno == ERANGE)
    {
        return false;
    }
    v = x;
    return true;
}

// ------------------------------------------------------------------ attribute values

/// Own attribute (not a parent's) of a type.
bool
FindOwnAttribute(TypeId tid, const std::string& name, TypeId::AttributeInformation* info)
{
    for (size_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        if (tid.GetAttribute(i).name == name)
        {
            *info = tid.GetAttribute(i);
            return true;
        }
    }
    return false;
}

/// Checker's description for "expected ..." messages.
std::string
Expected(const Ptr<const AttributeChecker>& checker)
{
    std::string s = checker->GetValueTypeName();
    if (checker->HasUnderlyingTypeInformation())
    {
        s += " (" + checker->GetUnderlyingTypeInformation() + ")";
    }
    return s;
}

// ------------------------------------------------------------------ config.txt

/// What this module does with an HPCC / SimAI config.txt key.
enum class KeyUse
{
    APPLIED,   //!< mapped onto attributes
    DEFAULTED, //!< its default / usual value is what this module does; others: unmodelled
    NONE,      //!< defined by HPCC or SimAI, no effect here (warned)
};

/// Keys of HPCC's and SimAI's config.txt and how this module takes them.
const std::map<std::string, KeyUse>&
HpccKeys()
{
    static const std::map<std::string, KeyUse> k{
        {"CC_MODE", KeyUse::APPLIED},
        {"ENABLE_QCN", KeyUse::APPLIED},
        {"ENABLE_PFC", KeyUse::APPLIED},
        {"PACKET_PAYLOAD_SIZE", KeyUse::APPLIED},
        {"BUFFER_SIZE", KeyUse::APPLIED},
        {"RATE_AI", KeyUse::APPLIED},
        {"RATE_HAI", KeyUse::APPLIED},
        {"MIN_RATE", KeyUse::APPLIED},
        {"ALPHA_RESUME_INTERVAL", KeyUse::APPLIED},
        {"RP_TIMER", KeyUse::APPLIED},
        {"EWMA_GAIN", KeyUse::APPLIED},
        {"FAST_RECOVERY_TIMES", KeyUse::APPLIED},
        {"L2_ACK_INTERVAL", KeyUse::APPLIED},
        {"U_TARGET", KeyUse::APPLIED},
        {"MI_THRESH", KeyUse::APPLIED},
        {"KMIN_MAP", KeyUse::APPLIED},
        {"KMAX_MAP", KeyUse::APPLIED},
        {"PMAX_MAP", KeyUse::APPLIED},
        {"HAS_WIN", KeyUse::DEFAULTED},                   // 0: no window
        {"USE_DYNAMIC_PFC_THRESHOLD", KeyUse::DEFAULTED}, // 1: always dynamic
        {"CLAMP_TARGET_RATE", KeyUse::DEFAULTED},         // 1: Rt = Rc on every cut
        {"RATE_BOUND", KeyUse::DEFAULTED},                // 1: QPs paced at the CC rate
        {"GLOBAL_T", KeyUse::DEFAULTED},                  // 1: one window / T for all QPs
        {"ACK_HIGH_PRIO", KeyUse::DEFAULTED},             // 1: ACK/CNP at priority 7
        {"L2_CHUNK_SIZE", KeyUse::DEFAULTED},             // 0: no chunking
        {"L2_BACK_TO_ZERO", KeyUse::DEFAULTED},           // 0: go-back-N from snd_una
        {"ERROR_RATE_PER_LINK", KeyUse::DEFAULTED},       // 0: no losses
        {"LINK_DOWN", KeyUse::DEFAULTED},                 // 0 0 0: no failure
        {"RATE_DECREASE_INTERVAL", KeyUse::NONE},
        {"DCTCP_RATE_AI", KeyUse::NONE},
        {"VAR_WIN", KeyUse::NONE},
        {"FAST_REACT", KeyUse::NONE},
        {"MULTI_RATE", KeyUse::NONE},
        {"SAMPLE_FEEDBACK", KeyUse::NONE},
        {"INT_MULTI", KeyUse::NONE},
        {"PINT_LOG_BASE", KeyUse::NONE},
        {"PINT_PROB", KeyUse::NONE},
        {"PAUSE_TIME", KeyUse::NONE},
        {"DATA_RATE", KeyUse::NONE},
        {"LINK_DELAY", KeyUse::NONE},
        {"TOPOLOGY_FILE", KeyUse::NONE},
        {"FLOW_FILE", KeyUse::NONE},
        {"TRACE_FILE", KeyUse::NONE},
        {"TRACE_OUTPUT_FILE", KeyUse::NONE},
        {"TRACE_NODE", KeyUse::NONE},
        {"ENABLE_TRACE", KeyUse::NONE},
        {"FCT_OUTPUT_FILE", KeyUse::NONE},
        {"PFC_OUTPUT_FILE", KeyUse::NONE},
        {"SEND_OUTPUT_FILE", KeyUse::NONE},
        {"SIMULATOR_STOP_TIME", KeyUse::NONE},
        {"QLEN_MON_FILE", KeyUse::NONE},
        {"QLEN_MON_START", KeyUse::NONE},
        {"QLEN_MON_END", KeyUse::NONE},
        {"BW_MON_FILE", KeyUse::NONE},
        {"RATE_MON_FILE", KeyUse::NONE},
        {"CNP_MON_FILE", KeyUse::NONE},
        {"MON_START", KeyUse::NONE},
        {"MON_END", KeyUse::NONE},
        {"QP_MON_INTERVAL", KeyUse::NONE},
        {"QLEN_MON_INTERVAL", KeyUse::NONE},
        {"BW_MON_INTERVAL", KeyUse::NONE},
    };
    return k;
}

/// The value this module models for a DEFAULTED key.
const char*
ModelledValue(const std::string& key)
{
    static const std::map<std::string, const char*> v{
        {"HAS_WIN", "0"},
        {"USE_DYNAMIC_PFC_THRESHOLD", "1"},
        {"CLAMP_TARGET_RATE", "1"},
        {"RATE_BOUND", "1"},
        {"GLOBAL_T", "1"},
        {"ACK_HIGH_PRIO", "1"},
        {"L2_CHUNK_SIZE", "0"},
        {"L2_BACK_TO_ZERO", "0"},
        {"ERROR_RATE_PER_LINK", "0"},
        {"LINK_DOWN", "0 0 0"},
    };
    return v.at(key);
}

/// One config.txt file being applied.
class HpccReader
{
  public:
    HpccReader(RoceConfig& out, const std::vector<std::string>& usedElsewhere)
        : m_out(out),
          m_usedElsewhere(usedElsewhere)
    {
    }

    void Line(const std::string& key, const std::vector<std::string>& vals)
    {
        m_key = key;
        m_all = Join(vals);
        const auto& keys = HpccKeys();
        auto it = keys.find(key);
        if (it == keys.end())
        {
            std::vector<std::string> names;
            for (const auto& kv : keys)
            {
                names.push_back(kv.first);
            }
            throw InputError(m_out.path + ": unknown key '" + key + "'" + DidYouMean(key, names) +
                             " (not an HPCC / SimAI config.txt key)");
        }
        if (vals.empty())
        {
            throw InputError(m_out.path + ": " + key + " has no value");
        }
        const bool isMap = key == "KMIN_MAP" || key == "KMAX_MAP" || key == "PMAX_MAP";
        const size_t want = key == "LINK_DOWN" ? 3 : 1;
        if (!isMap && vals.size() != want)
        {
            Bad("expects " + std::to_string(want) + " value" + (want > 1 ? "s" : "") + ", got " +
                std::to_string(vals.size()));
        }
        if (it->second == KeyUse::NONE)
        {
            if (std::find(m_usedElsewhere.begin(), m_usedElsewhere.end(), key) ==
                m_usedElsewhere.end())
            {
                m_out.unmodelled.push_back(key);
            }
            return;
        }
        if (it->second == KeyUse::DEFAULTED)
        {
            for (const auto& v : vals)
            {
                Number(v); // well formed, even when it has no effect
            }
            const std::string modelled = ModelledValue(key);
            if (key == "HAS_WIN" && Flag(vals[0]) == false)
            {
                Set("ns3::RdmaHostStack::Window", "0");
            }
            else if (!SameNumbers(m_all, modelled))
            {
                m_out.unmodelled.push_back(key + " " + m_all);
            }
            return;
        }
        if (isMap)
        {
            Map(key, vals);
            return;
        }
        Apply(key, vals[0]);
    }

    void Finish()
    {
        if (m_maps.empty())
        {
            return;
        }
        for (const char* k : {"KMIN_MAP", "KMAX_MAP", "PMAX_MAP"})
        {
            if (!m_maps.count(k))
            {
                throw InputError(m_out.path + ": " + k +
                                 " is missing (KMIN_MAP, KMAX_MAP and PMAX_MAP go together)");
            }
        }
        std::set<uint64_t> rates;
        for (const auto& m : m_maps)
        {
            for (const auto& kv : m.second)
            {
                rates.insert(kv.first);
            }
        }
        RdmaEcnRateMap map;
        for (uint64_t r : rates)
        {
            RdmaEcnRateMap::Entry e;
            for (const auto& m : m_maps)
            {
                auto it = m.second.find(r);
                if (it == m.second.end())
                {
                    throw InputError(m_out.path + ": rate " + std::to_string(r) +
                                     " bit/s is missing from " + m.first +
                                     " (each rate needs KMIN, KMAX and PMAX)");
                }
                if (m.first == "KMIN_MAP")
                {
                    e.kminBytes = uint64_t(std::llround(it->second * 1000)); // KB
                }
                else if (m.first == "KMAX_MAP")
                {
                    e.kmaxBytes = uint64_t(std::llround(it->second * 1000));
                }
                else
                {
                    e.pmax = it->second;
                }
            }
            map.Set(r, e);
        }
        const std::string err = map.Check();
        if (!err.empty())
        {
            throw InputError(m_out.path + ": KMIN_MAP / KMAX_MAP / PMAX_MAP: " + err);
        }
        std::ostringstream os;
        os << map;
        Set("ns3::RdmaEcnRed::RateThresholds", os.str());
        m_out.ecnRates = map;
    }

  private:
    static std::string Join(const std::vector<std::string>& v)
    {
        std::string s;
        for (const auto& x : v)
        {
            s += (s.empty() ? "" : " ") + x;
        }
        return s;
    }

    static bool SameNumbers(const std::string& a, const std::string& b)
    {
        std::istringstream x(a);
        std::istringstream y(b);
        double u = 0;
        double v = 0;
        while (x >> u)
        {
            if (!(y >> v) || u != v)
            {
                return false;
            }
        }
        return !(y >> v);
    }

    [[noreturn]] void Bad(const std::string& problem) const
    {
        Fail(m_out.path, m_key, m_all, problem);
    }

    double Number(const std::string& v) const
    {
        double d = 0;
        if (!ParseFinite(v, d))
        {
            Bad("'" + v + "' is not a finite number");
        }
        return d;
    }

    double NonNegative(const std::string& v) const
    {
        const double d = Number(v);
        if (d < 0)
        {
            Bad("must be >= 0");
        }
        return d;
    }

    uint64_t Count(const std::string& v) const
    {
        if (!IsUnsigned(v))
        {
            Bad("'" + v + "' is not a non-negative integer");
        }
        errno = 0;
        const unsigned long long x = std::strtoull(v.c_str(), nullptr, 10);
        if (errno == ERANGE || x > uint64_t(std::numeric_limits<int64_t>::max()))
        {
            Bad("'" + v + "' is larger than the largest count accepted (2^63 - 1)");
        }
        return x;
    }

    /// A count within [lo, hi] \param v the value \param lo smallest \param hi largest
    uint64_t Count(const std::string& v, uint64_t lo, uint64_t hi) const
    {
        const uint64_t x = Count(v);
        if (x < lo || x > hi)
        {
            Bad("expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
        }
        return x;
    }

    /// A number in (0, hi] \param v the value \param hi largest
    double Positive(const std::string& v, double hi) const
    {
        const double d = Number(v);
        if (!(d > 0) || d > hi)
        {
            std::ostringstream os;
            os << "expected a number > 0 and at most " << hi;
            Bad(os.str());
        }
        return d;
    }

    bool Flag(const std::string& v) const
    {
        if (v != "0" && v != "1")
        {
            Bad("must be 0 or 1");
        }
        return v == "1";
    }

    void Set(const std::string& name, const std::string& value)
    {
        try
        {
            RoceConfigReader::SetDefault(m_out.path + ": " + m_key, name, value);
        }
        catch (const InputError& e)
        {
            Bad(std::string("cannot set ") + name + " (" + e.what() + ")");
        }
        ++m_out.applied;
    }

    /// ns-3 time of a period in microseconds (> 0, at most 1e9 us)
    std::string Us(const std::string& v) const
    {
        std::ostringstream os;
        os << Positive(v, 1e9) << "us";
        return os.str();
    }

    void Apply(const std::string& key, const std::string& v)
    {
        if (key == "CC_MODE")
        {
            if (!IsUnsigned(v))
            {
                Bad("is not a CC_MODE number");
            }
            const std::string mode = v.substr(std::min(v.find_first_not_of('0'), v.size() - 1));
            if (mode == "1")
            {
                Set("ns3::RdmaHostStack::CongestionControl", "ns3::RdmaCcDcqcn");
            }
            else if (mode == "3")
            {
                Set("ns3::RdmaHostStack::CongestionControl", "ns3::RdmaCcHpcc");
                Set("ns3::RdmaSwitch::IntEnabled", "true");
            }
            else if (mode == "7")
            {
                Set("ns3::RdmaHostStack::CongestionControl", "ns3::RdmaCcTimely");
            }
            else if (mode == "8")
            {
                Set("ns3::RdmaHostStack::CongestionControl", "ns3::RdmaCcDctcp");
                // one CNP per CE-marked packet: DCTCP's marked fraction (doc/congestion-control)
                Set("ns3::RdmaHostStack::CnpInterval", "0us");
            }
            else if (mode == "10")
            {
                Bad("HPCC-PINT (CC_MODE 10, HPCC on sampled telemetry) has no counterpart here; "
                    "HPCC on full INT is CC_MODE 3 (1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP)");
            }
            else
            {
                Bad("unknown CC_MODE (1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP, as in HPCC's simulator; "
                    "Swift and no congestion control have no CC_MODE: set "
                    "ns3::RdmaHostStack::CongestionControl=ns3::RdmaCcSwift or ns3::RdmaCcNone)");
            }
        }
        else if (key == "ENABLE_QCN")
        {
            Set("ns3::RdmaSwitch::EcnEnabled", Flag(v) ? "true" : "false");
        }
        else if (key == "ENABLE_PFC")
        {
            const std::string b = Flag(v) ? "true" : "false";
            Set("ns3::SwitchMmu::PfcEnabled", b);
            Set("ns3::RdmaNetDevice::PfcEnabled", b);
        }
        else if (key == "PACKET_PAYLOAD_SIZE")
        {
            Set("ns3::RdmaHostStack::Mtu", std::to_string(Count(v, 256, 9000)));
        }
        else if (key == "BUFFER_SIZE")
        {
            const double mb = NonNegative(v);
            const double bytes = mb * 1024 * 1024;
            if (mb == 0 || bytes > 1e18)
            {
                Bad("must be a buffer size in MB (> 0)");
            }
            Set("ns3::SwitchMmu::BufferSize", std::to_string(uint64_t(bytes)));
        }
        else if (key == "RATE_AI" || key == "RATE_HAI" || key == "MIN_RATE")
        {
            const char* attr = key == "RATE_AI"    ? "RateAi"
                               : key == "RATE_HAI" ? "RateHai"
                                                   : "MinRate";
            // the number before the unit: a rate of 0 is meaningless here
            if (std::strtod(v.c_str(), nullptr) == 0 && !v.empty() &&
                std::isdigit(static_cast<unsigned char>(v[0])))
            {
                Bad("a rate of 0: expected a rate > 0 (e.g. 5Mb/s)");
            }
            Set(std::string("ns3::RdmaCcDcqcn::") + attr, v);
            // HPCC's values are absolute, not scaled to the line rate
            Set("ns3::RdmaCcDcqcn::ScaleWithLinkRate", "false");
            if (key == "MIN_RATE")
            {
                // one minimum rate for every algorithm, as in HPCC's simulator
                Set("ns3::RdmaCcHpcc::MinRate", v);
                Set("ns3::RdmaCcTimely::MinRate", v);
            }
        }
        else if (key == "ALPHA_RESUME_INTERVAL")
        {
            Set("ns3::RdmaCcDcqcn::AlphaPeriod", Us(v));
        }
        else if (key == "RP_TIMER")
        {
            Set("ns3::RdmaCcDcqcn::RateIncreasePeriod", Us(v));
        }
        else if (key == "EWMA_GAIN")
        {
            Positive(v, 1);
            Set("ns3::RdmaCcDcqcn::G", v);
        }
        else if (key == "FAST_RECOVERY_TIMES")
        {
            Set("ns3::RdmaCcDcqcn::FastRecoverySteps", std::to_string(Count(v, 0, 1000000)));
        }
        else if (key == "L2_ACK_INTERVAL")
        {
            const uint64_t b = Count(v, 0, uint64_t(1) << 40);
            if (b <= 1)
            {
                Set("ns3::RdmaHostStack::AckInterval", "1");
                Set("ns3::RdmaHostStack::AckIntervalBytes", "0");
            }
            else
            {
                // one ACK per this many bytes (and at every message end)
                Set("ns3::RdmaHostStack::AckInterval", "4294967295");
                Set("ns3::RdmaHostStack::AckIntervalBytes", std::to_string(b));
            }
        }
        else if (key == "U_TARGET")
        {
            Positive(v, 1);
            Set("ns3::RdmaCcHpcc::Eta", v);
        }
        else if (key == "MI_THRESH")
        {
            Set("ns3::RdmaCcHpcc::MaxStage", std::to_string(Count(v, 0, 1000000)));
        }
    }

    void Map(const std::string& key, const std::vector<std::string>& vals)
    {
        const uint64_t count = Count(vals[0]);
        if ((vals.size() - 1) % 2 != 0 || count != (vals.size() - 1) / 2)
        {
            Bad("the count " + vals[0] + " does not match the " + std::to_string(vals.size() - 1) +
                " values that follow (expected count x (rate, value) pairs)");
        }
        auto& m = m_maps[key];
        for (size_t i = 1; i + 1 < vals.size(); i += 2)
        {
            const uint64_t rate = Count(vals[i]);
            if (rate == 0)
            {
                Bad("a line rate of 0 bit/s");
            }
            const double x = NonNegative(vals[i + 1]);
            if (key != "PMAX_MAP" && x * 1000 > 4294967295.0)
            {
                Bad("'" + vals[i + 1] + "' KB exceeds 2^32 - 1 bytes");
            }
            m[rate] = x;
        }
    }

    RoceConfig& m_out;
    std::vector<std::string> m_usedElsewhere;                 //!< keys the caller takes itself
    std::string m_key;                                        //!< key of the line being applied
    std::string m_all;                                        //!< its values
    std::map<std::string, std::map<uint64_t, double>> m_maps; //!< *_MAP: rate -> value
};

} // namespace

// ------------------------------------------------------------------ RoceConfigReader

void
RoceConfigReader::SetDefault(const std::string& where,
                             const std::string& name,
                             const std::string& value)
{
    const size_t pos = name.rfind("::");
    if (pos == std::string::npos || pos == 0)
    {
        throw InputError(where + ": '" + name + "' is not ns3::Type::Attribute");
    }
    const std::string typeName = name.substr(0, pos);
    const std::string attr = name.substr(pos + 2);
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        std::vector<std::string> names;
        for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
        {
            names.push_back(TypeId::GetRegistered(i).GetName());
        }
        throw InputError(where + ": unknown type '" + typeName + "' in '" + name + "'" +
                         DidYouMean(typeName, names));
    }
    TypeId::AttributeInformation info;
    if (!FindOwnAttribute(tid, attr, &info))
    {
        std::vector<std::string> names;
        for (TypeId t = tid;; t = t.GetParent())
        {
            TypeId::AttributeInformation parentInfo;
            if (t != tid && FindOwnAttribute(t, attr, &parentInfo))
            {
                throw InputError(where + ": '" + attr + "' is an attribute of " + t.GetName() +
                                 ", the parent of " + typeName + ": write '" + t.GetName() +
                                 "::" + attr + "' (it applies to every " + t.GetName() + ")");
            }
            for (size_t i = 0; i < t.GetAttributeN(); ++i)
            {
                names.push_back(t.GetAttribute(i).name);
            }
            if (t == t.GetParent())
            {
                break;
            }
        }
        throw InputError(where + ": " + typeName + " has no attribute '" + attr + "'" +
                         DidYouMean(attr, names));
    }
    const std::string v = Trim(value);
    const std::string syntax = CheckAttributeValueSyntax(v, info.checker);
    if (!syntax.empty())
    {
        Fail(where, name, value, syntax);
    }
    bool ok = false;
    try
    {
        ok = Config::SetDefaultFailSafe(name, StringValue(v));
    }
    catch (const std::exception& e)
    {
        Fail(where, name, value, std::string("not a valid value (") + e.what() + ")");
    }
    if (!ok)
    {
        Fail(where, name, value, "not a valid value: expected " + Expected(info.checker));
    }
    RecordGivenAttribute({name, v, where});
}

void
RoceConfigReader::SetGlobal(const std::string& where,
                            const std::string& name,
                            const std::string& value)
{
    std::vector<std::string> names;
    for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
    {
        if ((*it)->GetName() == name)
        {
            const std::string v = Trim(value);
            std::string syntax = CheckAttributeValueSyntax(v, (*it)->GetChecker());
            if (syntax.empty() && name == "RngSeed" &&
                v.find_first_not_of('0') == std::string::npos)
            {
                syntax = "is not a seed (ns-3's generator needs a seed >= 1)";
            }
            if (!syntax.empty())
            {
                Fail(where, name, value, syntax);
            }
            bool ok = false;
            try
            {
                ok = Config::SetGlobalFailSafe(name, StringValue(v));
            }
            catch (const std::exception& e)
            {
                Fail(where, name, value, std::string("not a valid value (") + e.what() + ")");
            }
            if (!ok)
            {
                Fail(where,
                     name,
                     value,
                     "not a valid value: expected " + Expected((*it)->GetChecker()));
            }
            RecordGivenAttribute({name, v, where});
            return;
        }
        names.push_back((*it)->GetName());
    }
    throw InputError(where + ": unknown global value '" + name + "'" + DidYouMean(name, names) +
                     " (an attribute is written ns3::Type::Attribute)");
}

namespace
{

/// The text of a RoCE configuration file (a regular file of at most the configuration limit).
std::string
ReadRoceConfigText(const std::string& path)
{
    try
    {
        return ReadInputFile(path, "RoCE configuration");
    }
    catch (const ConfigError& e)
    {
        throw InputError(e.what());
    }
}

/// The first byte of \p text that is not text (NUL or another control character), or npos.
size_t
FindBinary(const std::string& text)
{
    for (size_t i = 0; i < text.size(); ++i)
    {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
        {
            return i;
        }
    }
    return std::string::npos;
}

/// Reject a file with binary content, naming its line.
void
CheckText(const std::string& path, const std::string& text)
{
    const size_t b = FindBinary(text);
    if (b != std::string::npos)
    {
        const size_t line = 1 + std::count(text.begin(), text.begin() + b, '\n');
        std::ostringstream os;
        os << path << ": line " << line << ": binary content (byte 0x" << std::hex
           << unsigned(static_cast<unsigned char>(text[b])) << " at offset " << std::dec << b
           << "): not a RoCE configuration text file";
        throw InputError(os.str());
    }
}

/// An HPCC / SimAI config.txt: the first meaningful line is "KEY value" (no ':' / '{').
bool
LooksLikeHpccConfig(const std::string& text)
{
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
    {
        const size_t p = line.find_first_not_of(" \t\r");
        if (p == std::string::npos || line[p] == '#')
        {
            continue;
        }
        return line[p] != '{' && line.find(':') == std::string::npos;
    }
    return false;
}

} // namespace

RoceConfig
RoceConfigReader::Apply(const std::string& path)
{
    const std::string text = ReadRoceConfigText(path);
    CheckText(path, text);
    return LooksLikeHpccConfig(text) ? ApplyHpccConfig(path) : ApplyAttributeFile(path);
}

RoceConfig
RoceConfigReader::ApplyAttributeFile(const std::string& path)
{
    RoceConfig out;
    out.path = path;
    const std::string text = ReadRoceConfigText(path);
    CheckText(path, text);
    YAML::Node root;
    try
    {
        root = YAML::Load(text);
    }
    catch (const std::exception& e)
    {
        throw InputError("cannot read RoCE configuration '" + path + "': " + e.what());
    }
    if (root.IsNull())
    {
        return out; // an empty file sets nothing
    }
    if (!root.IsMap())
    {
        throw InputError(path + ": expected a mapping of attribute names to values");
    }
    auto one = [&](const std::string& key, const YAML::Node& value) {
        if (!value.IsScalar())
        {
            throw InputError(path + ": the value of '" + key + "' must be a single value");
        }
        const std::string v = value.as<std::string>();
        if (key.find("::") == std::string::npos)
        {
            SetGlobal(path, key, v);
        }
        else
        {
            SetDefault(path, key.rfind("ns3::", 0) == 0 ? key : "ns3::" + key, v);
        }
        ++out.applied;
    };
    // a key of YAML may be a list or a mapping: not a name here
    auto name = [&](const YAML::Node& k) {
        if (!k.IsScalar())
        {
            throw InputError(path + ": a key must be an attribute or type name, found a " +
                             (k.IsSequence() ? "list" : "mapping or nothing") + " (line " +
                             std::to_string(k.Mark().line + 1) + ")");
        }
        return k.as<std::string>();
    };
    for (const auto& kv : root)
    {
        const std::string key = name(kv.first);
        if (kv.second.IsMap())
        {
            const std::string type = key.rfind("ns3::", 0) == 0 ? key : "ns3::" + key;
            for (const auto& inner : kv.second)
            {
                const std::string attr = name(inner.first);
                if (attr.find("::") != std::string::npos)
                {
                    throw InputError(path + ": '" + attr + "' under '" + key +
                                     "' must be an attribute name of " + type);
                }
                one(type + "::" + attr, inner.second);
            }
        }
        else
        {
            one(key, kv.second);
        }
    }
    return out;
}

bool
RoceConfigReader::IsHpccKey(const std::string& key)
{
    return HpccKeys().count(key) != 0;
}

RoceConfig
RoceConfigReader::ApplyHpccConfig(const std::string& path,
                                  const std::vector<std::string>& usedElsewhere)
{
    RoceConfig out;
    out.path = path;
    out.hpccFormat = true;
    const std::string text = ReadRoceConfigText(path);
    CheckText(path, text);
    std::istringstream in(text);
    HpccReader reader(out, usedElsewhere);
    std::string line;
    std::map<std::string, uint32_t> seen; // key -> line
    uint32_t lineNo = 0;
    while (std::getline(in, line))
    {
        ++lineNo;
        std::istringstream ls(line);
        std::string key;
        if (!(ls >> key) || key[0] == '#')
        {
            continue;
        }
        const auto first = seen.emplace(key, lineNo);
        if (!first.second)
        {
            throw InputError(path + ": line " + std::to_string(lineNo) + ": key '" + key +
                             "' given twice (first on line " + std::to_string(first.first->second) +
                             ")");
        }
        std::vector<std::string> vals;
        for (std::string v; ls >> v;)
        {
            vals.push_back(v);
        }
        reader.Line(key, vals);
    }
    reader.Finish();
    if (!out.unmodelled.empty())
    {
        std::ostringstream os;
        for (const auto& k : out.unmodelled)
        {
            os << (os.tellp() > 0 ? ", " : "") << k;
        }
        ASTRA_WARN("hpcc-config-unmodelled " + path,
                   path << ": " << out.unmodelled.size()
                        << " HPCC/SimAI key(s) accepted without an effect here (not modelled, "
                           "or given by the workload, the network file or the program's "
                           "options; doc/roce-backend.rst): "
                        << os.str());
    }
    return out;
}

} // namespace astra
} // namespace ns3
