/*
 * The parsers of ASTRA-sim's configuration files (astra-config.h).
 */

#include "astra-config.h"

#include "collective-protocol.h"

#include "ns3/astra-limits.h"
#include "ns3/chakra-reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/stat.h>

namespace ns3
{
namespace astra
{

namespace
{

using nlohmann::json;

/// Largest delay or latency accepted, in ns (1000 s; a simulation time is an int64 of ns).
constexpr double kMaxNs = limits::kMaxTimeNs;

[[noreturn]] void
Fail(const std::string& file, const std::string& what)
{
    throw ConfigError(file + ": " + what);
}

[[noreturn]] void
FailKey(const std::string& file, const std::string& key, const std::string& what)
{
    throw ConfigError(file + ": key '" + key + "': " + what);
}

/// Shortest text of a number (as a user would write it).
std::string
NumberText(double d)
{
    std::ostringstream os;
    os << d;
    return os.str();
}

/**
 * Typed access to one key's value, with file / key context. In JSON, numbers
 * must be JSON numbers and switches true / false or 0 / 1; in the ASTRA-sim
 * 1.0 text form (and for formats that write numbers as strings) they are text.
 */
class Value
{
  public:
    /**
     * \param file file name
     * \param key key
     * \param v the value
     * \param text numbers and switches may be strings
     */
    Value(const std::string& file, const std::string& key, const json& v, bool text)
        : m_file(file),
          m_key(key),
          m_v(v),
          m_text(text)
    {
    }

    /// \return the value as written (for messages)
    std::string Text() const
    {
        return m_v.is_string() && m_text ? m_v.get<std::string>() : m_v.dump();
    }

    /// \return a finite number
    double Number() const
    {
        double d = 0;
        if (m_v.is_number())
        {
            d = m_v.get<double>();
        }
        else if (m_v.is_string() && m_text)
        {
            const std::string& s = m_v.get_ref<const std::string&>();
            char* end = nullptr;
            d = std::strtod(s.c_str(), &end);
            // decimal only: strtod would also read hexadecimal ("0x10") and "infinity"
            if (s.empty() || end == nullptr || *end != '\0' ||
                s.find_first_not_of("0123456789+-.eE") != std::string::npos)
            {
                FailKey(m_file, m_key, "expected a number, found '" + s + "'");
            }
        }
        else
        {
            FailKey(m_file, m_key, "expected a number, found " + m_v.dump());
        }
        if (!std::isfinite(d))
        {
            FailKey(m_file, m_key, "expected a finite number, found " + Text());
        }
        return d;
    }

    /// \return a number in [0, max] \param max the largest value accepted
    double NonNegative(double max = std::numeric_limits<double>::max()) const
    {
        const double d = Number();
        if (d < 0)
        {
            FailKey(m_file, m_key, "must be >= 0, found " + Text());
        }
        if (d > max)
        {
            FailKey(m_file, m_key, "must be at most " + NumberText(max) + ", found " + Text());
        }
        return d;
    }

    /**
     * \return a number in (0, max] that is at least \p min (a bandwidth, a rate)
     * \param min smallest value \param max largest value \param unit the unit, for messages
     */
    double Positive(double min, double max, const std::string& unit) const
    {
        const double d = Number();
        if (!(d > 0))
        {
            FailKey(m_file, m_key, "must be > 0, found " + Text());
        }
        if (d < min || d > max)
        {
            FailKey(m_file,
                    m_key,
                    "must be from " + NumberText(min) + " to " + NumberText(max) + " " + unit +
                        ", found " + Text());
        }
        return d;
    }

    /// \return a list of numbers in [0, max] (a single number: a list of one) \param max largest
    std::vector<double> NonNegativeList(double max) const
    {
        std::vector<double> out;
        if (!m_v.is_array())
        {
            out.push_back(NonNegative(max));
            return out;
        }
        if (m_v.empty())
        {
            FailKey(m_file, m_key, "empty list");
        }
        for (const auto& e : m_v)
        {
            out.push_back(Value(m_file, m_key, e, m_text).NonNegative(max));
        }
        return out;
    }

    /// \return an integer in [min, max] \param min smallest \param max largest
    uint32_t Count(uint32_t min, uint32_t max = std::numeric_limits<uint32_t>::max()) const
    {
        const double d = Number();
        if (d != std::floor(d) || d < min || d > max)
        {
            FailKey(m_file,
                    m_key,
                    "expected an integer from " + std::to_string(min) + " to " +
                        std::to_string(max) + ", found " + Text());
        }
        return static_cast<uint32_t>(d);
    }

    /// \return an integer
    int64_t Int() const
    {
        const double d = Number();
        if (d != std::floor(d) || std::fabs(d) > 9e15)
        {
            FailKey(m_file, m_key, "expected an integer, found " + Text());
        }
        return static_cast<int64_t>(d);
    }

    /// \return a switch: true / false, 0 / 1 (and "true" / "false" / "0" / "1" as text)
    bool Bool() const
    {
        if (m_v.is_boolean())
        {
            return m_v.get<bool>();
        }
        if (m_v.is_number() || (m_v.is_string() && m_text))
        {
            if (m_v.is_string())
            {
                std::string s = m_v.get<std::string>();
                std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
                    return static_cast<char>(std::tolower(c));
                });
                if (s == "true" || s == "1")
                {
                    return true;
                }
                if (s == "false" || s == "0")
                {
                    return false;
                }
            }
            else if (m_v.get<double>() == 0 || m_v.get<double>() == 1)
            {
                return m_v.get<double>() == 1;
            }
        }
        FailKey(m_file, m_key, "expected 0/1 or true/false, found " + Text());
    }

    /// \return a string
    std::string String() const
    {
        if (!m_v.is_string())
        {
            FailKey(m_file, m_key, "expected a string, found " + m_v.dump());
        }
        return m_v.get<std::string>();
    }

    /// \return one of \p allowed (exact spelling) \param allowed the accepted strings
    std::string OneOf(const std::vector<std::string>& allowed) const
    {
        const std::string s = String();
        if (std::find(allowed.begin(), allowed.end(), s) != allowed.end())
        {
            return s;
        }
        std::string list;
        for (const auto& a : allowed)
        {
            list += (list.empty() ? "" : ", ") + a;
        }
        FailKey(m_file,
                m_key,
                "unknown value '" + s + "' (expected one of " + list + ")" +
                    DidYouMean(s, allowed));
    }

    /**
     * \return a list of strings; a single string "a_b" (ASTRA-sim 1.0 style)
     * is split on '_' when \p splitUnderscore
     * \param splitUnderscore split a single string on '_'
     */
    std::vector<std::string> StringList(bool splitUnderscore) const
    {
        std::vector<std::string> out;
        if (m_v.is_string())
        {
            const std::string s = m_v.get<std::string>();
            if (!splitUnderscore)
            {
                out.push_back(s);
            }
            else
            {
                std::stringstream ss(s);
                std::string part;
                while (std::getline(ss, part, '_'))
                {
                    out.push_back(part);
                }
            }
        }
        else if (m_v.is_array())
        {
            for (const auto& e : m_v)
            {
                if (!e.is_string())
                {
                    FailKey(m_file, m_key, "expected a list of strings, found " + m_v.dump());
                }
                out.push_back(e.get<std::string>());
            }
        }
        else
        {
            FailKey(m_file, m_key, "expected a list of strings, found " + m_v.dump());
        }
        if (out.empty())
        {
            FailKey(m_file, m_key, "empty list");
        }
        return out;
    }

    /// \return the algorithms of an *-implementation list
    std::vector<AlgoSpec> Algorithms() const
    {
        std::vector<AlgoSpec> out;
        for (const auto& s : StringList(true))
        {
            try
            {
                out.push_back(AlgoSpec::Parse(s));
            }
            catch (const ConfigError& e)
            {
                FailKey(m_file, m_key, e.what());
            }
        }
        return out;
    }

  private:
    std::string m_file; //!< file name
    std::string m_key;  //!< key
    const json& m_v;    //!< value
    bool m_text;        //!< numbers and switches may be strings
};

bool
PrefixExists(const std::string& prefix)
{
    struct stat st;
    return stat((prefix + ".0.et").c_str(), &st) == 0 ||
           stat((prefix + ".0.et.gz").c_str(), &st) == 0;
}

/// Converts the ASTRA-sim 1.0 "key: value" form into a JSON object of strings.
json
TxtToJson(const std::string& text, const std::string& name)
{
    json j = json::object();
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    auto trim = [](const std::string& s) {
        const size_t a = s.find_first_not_of(" \t\r");
        const size_t b = s.find_last_not_of(" \t\r");
        return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
    };
    while (std::getline(in, line))
    {
        ++lineNo;
        line = trim(line);
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        const size_t colon = line.find(':');
        if (colon == std::string::npos)
        {
            Fail(name,
                 "line " + std::to_string(lineNo) + ": expected 'key: value', found '" + line +
                     "'");
        }
        const std::string key = trim(line.substr(0, colon));
        const std::string value = trim(line.substr(colon + 1));
        if (j.contains(key))
        {
            Fail(name, "line " + std::to_string(lineNo) + ": duplicate key '" + key + "'");
        }
        j[key] = value;
    }
    return j;
}

/// A key of the system configuration and how to read it into SystemConfig.
struct SystemKey
{
    const char* name;                                     //!< the key
    std::function<void(const Value&, SystemConfig&)> set; //!< reads the value
};

/// Every key of the ASTRA-sim 2.0 system JSON and of the 1.0 text form.
const std::vector<SystemKey>&
SystemKeys()
{
    static const std::vector<SystemKey> keys = {
        {"scheduling-policy",
         [](const Value& v, SystemConfig& c) {
             c.schedulingPolicy = v.OneOf({"LIFO", "FIFO", "EXPLICIT"});
         }},
        {"collective-optimization",
         [](const Value& v, SystemConfig& c) {
             c.collectiveOptimization = v.OneOf({"baseline", "localBWAware"});
         }},
        {"all-reduce-implementation",
         [](const Value& v, SystemConfig& c) { c.allReduceImpl = v.Algorithms(); }},
        {"all-gather-implementation",
         [](const Value& v, SystemConfig& c) { c.allGatherImpl = v.Algorithms(); }},
        {"reduce-scatter-implementation",
         [](const Value& v, SystemConfig& c) { c.reduceScatterImpl = v.Algorithms(); }},
        {"all-to-all-implementation",
         [](const Value& v, SystemConfig& c) { c.allToAllImpl = v.Algorithms(); }},
        {"all-reduce-implementation-custom",
         [](const Value& v, SystemConfig& c) { c.allReduceCustom = v.StringList(false); }},
        {"all-gather-implementation-custom",
         [](const Value& v, SystemConfig& c) { c.allGatherCustom = v.StringList(false); }},
        {"reduce-scatter-implementation-custom",
         [](const Value& v, SystemConfig& c) { c.reduceScatterCustom = v.StringList(false); }},
        {"all-to-all-implementation-custom",
         [](const Value& v, SystemConfig& c) { c.allToAllCustom = v.StringList(false); }},
        {"preferred-dataset-splits",
         [](const Value& v, SystemConfig& c) {
             c.preferredDatasetSplits = v.Count(1, limits::kMaxSplits);
         }},
        {"active-chunks-per-dimension",
         [](const Value& v, SystemConfig& c) {
             c.activeChunksPerDimension = v.Count(1, limits::kMaxActiveChunks);
         }},
        {"endpoint-delay",
         [](const Value& v, SystemConfig& c) { c.endpointDelay = v.NonNegative(kMaxNs); }},
        {"local-reduction-delay",
         [](const Value& v, SystemConfig& c) { c.localReductionDelay = v.NonNegative(kMaxNs); }},
        {"model-shared-bus", [](const Value& v, SystemConfig& c) { c.modelSharedBus = v.Bool(); }},
        {"L", [](const Value& v, SystemConfig& c) { c.L = v.NonNegative(kMaxNs); }},
        {"o", [](const Value& v, SystemConfig& c) { c.o = v.NonNegative(kMaxNs); }},
        {"g", [](const Value& v, SystemConfig& c) { c.g = v.NonNegative(kMaxNs); }},
        {"G", [](const Value& v, SystemConfig& c) { c.G = v.NonNegative(kMaxNs); }},
        {"local-mem-bw",
         [](const Value& v, SystemConfig& c) {
             c.localMemBw =
                 v.Positive(limits::kMinBandwidthGBps, limits::kMaxBandwidthGBps, "GB/s");
         }},
        {"peak-perf",
         [](const Value& v, SystemConfig& c) {
             c.peakPerf = v.Positive(1e-6, limits::kMaxPeakPerfTflops, "TFLOPS");
         }},
        {"roofline-enabled", [](const Value& v, SystemConfig& c) { c.rooflineEnabled = v.Bool(); }},
        {"replay-only", [](const Value& v, SystemConfig& c) { c.replayOnly = v.Bool(); }},
        {"trace-enabled", [](const Value& v, SystemConfig& c) { c.traceEnabled = v.Bool(); }},
        {"track-local-mem", [](const Value& v, SystemConfig& c) { c.trackLocalMem = v.Bool(); }},
        {"local-mem-trace-filename",
         [](const Value& v, SystemConfig& c) { c.localMemTraceFilename = v.String(); }},
        {"boost-mode", [](const Value& v, SystemConfig& c) { c.boostMode = v.Int(); }},
        {"intra-dimension-scheduling",
         [](const Value& v, SystemConfig& c) {
             c.intraDimensionScheduling =
                 v.OneOf({"FIFO", "RG", "SCF", "smallestFirst", "lessRemainingPhaseFirst"});
         }},
        {"collective-protocol",
         [](const Value& v, SystemConfig& c) {
             c.collectiveProtocol = v.OneOf(CollProtocolNames());
         }},
        {"collective-step-latency-ns",
         [](const Value& v, SystemConfig& c) { c.stepLatencyNs = v.NonNegativeList(kMaxNs); }},
        {"collective-launch-latency-ns",
         [](const Value& v, SystemConfig& c) { c.launchLatencyNs = v.NonNegative(kMaxNs); }},
        {"reduction-fused", [](const Value& v, SystemConfig& c) { c.reductionFused = v.Bool(); }},
        {"collective-gate-latency-ns",
         [](const Value& v, SystemConfig& c) { c.gateLatencyNs = v.NonNegative(kMaxNs); }},
        {"inter-dimension-scheduling",
         [](const Value& v, SystemConfig& c) {
             c.interDimensionScheduling = v.OneOf({"baseline",
                                                   "ascending",
                                                   "themis",
                                                   "offlineGreedy",
                                                   "themisFlex",
                                                   "offlineGreedyFlex",
                                                   "roundRobin"});
         }},
        // ASTRA-sim 1.0 keys
        {"packet-routing", [](const Value& v, SystemConfig& c) { c.packetRouting = v.String(); }},
        {"injection-policy",
         [](const Value& v, SystemConfig& c) { c.injectionPolicy = v.String(); }},
        {"seprate-log", [](const Value& v, SystemConfig& c) { c.seprateLog = v.Bool(); }},
    };
    return keys;
}

/**
 * Warn about every key ASTRA-sim defines that this module does not model,
 * when its value would have an effect in ASTRA-sim (values equal to
 * ASTRA-sim's default change nothing there either).
 * \param c the configuration
 * \param written the values as written, by key
 */
void
WarnNotModelledKeys(const SystemConfig& c, const std::map<std::string, std::string>& written)
{
    auto warn = [&](const char* key, bool effect, const std::string& what) {
        if (c.Has(key) && effect)
        {
            WarnNotModelled(c.file, key, written.at(key), what);
        }
    };
    const std::string logGp = "a parameter of ASTRA-sim's LogGP shared-bus endpoint model, "
                              "which this module does not have (endpoint-delay is used)";
    warn("model-shared-bus",
         c.modelSharedBus,
         "ASTRA-sim's LogGP shared-bus endpoint model is not implemented; endpoint-delay is "
         "used");
    warn("L", c.L != 0, logGp);
    warn("o", c.o != 0, logGp);
    warn("g", c.g != 0, logGp);
    warn("G", c.G != 0, logGp);
    warn("local-reduction-delay",
         c.localReductionDelay != 1,
         "the reduction cost is modelled from local-mem-bw instead");
    warn("replay-only", c.replayOnly, "every node is simulated");
    warn("trace-enabled", c.traceEnabled, "use the timeline.json report instead");
    warn("track-local-mem", c.trackLocalMem, "local memory is not tracked");
    warn("local-mem-trace-filename",
         c.localMemTraceFilename != "local_mem_trace",
         "local memory is not tracked");
    warn("boost-mode", c.boostMode != 0, "every NPU is simulated");
    warn("intra-dimension-scheduling",
         c.intraDimensionScheduling == "RG" ||
             c.intraDimensionScheduling == "lessRemainingPhaseFirst",
         "only FIFO and smallestFirst (SCF) are modelled; chunks of a dimension are served in "
         "FIFO order");
    warn("inter-dimension-scheduling",
         c.interDimensionScheduling == "themisFlex" ||
             c.interDimensionScheduling == "offlineGreedyFlex" ||
             c.interDimensionScheduling == "roundRobin",
         "only baseline (ascending) and themis (offlineGreedy) are modelled; dimensions are "
         "scheduled in the baseline order");
    warn("packet-routing", true, "an ASTRA-sim 1.0 key without an equivalent here");
    warn("injection-policy", true, "an ASTRA-sim 1.0 key without an equivalent here");
    warn("seprate-log", true, "an ASTRA-sim 1.0 key without an equivalent here");
}

} // namespace

std::string
SystemConfig::ResolveCustomPrefix(const std::string& prefix, const std::string& baseDir) const
{
    if (prefix.empty())
    {
        return "";
    }
    if (PrefixExists(prefix))
    {
        return prefix;
    }
    if (prefix[0] == '/')
    {
        return "";
    }
    std::string dir = file;
    size_t slash = dir.find_last_of('/');
    dir = slash == std::string::npos ? "." : dir.substr(0, slash);
    for (int up = 0; up < 16 && !dir.empty(); ++up)
    {
        const std::string cand = dir + "/" + prefix;
        if (PrefixExists(cand))
        {
            return cand;
        }
        slash = dir.find_last_of('/');
        if (slash == std::string::npos || dir == "/")
        {
            break;
        }
        dir = slash == 0 ? "/" : dir.substr(0, slash);
    }
    if (!baseDir.empty() && PrefixExists(baseDir + "/" + prefix))
    {
        return baseDir + "/" + prefix;
    }
    return "";
}

SystemConfig
ParseSystemConfigText(const std::string& text, const std::string& name)
{
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
    {
        Fail(name, "empty file (expected a system configuration: JSON or the 1.0 text form)");
    }
    const bool isJson = text[first] == '{' || text[first] == '[';
    const json j = isJson ? ParseJsonText(text, name) : TxtToJson(text, name);
    if (!j.is_object())
    {
        Fail(name, "the system configuration must be a JSON object");
    }
    SystemConfig c;
    c.file = name;
    const auto& keys = SystemKeys();
    std::vector<std::string> known;
    for (const auto& k : keys)
    {
        known.emplace_back(k.name);
    }
    std::map<std::string, std::string> written;
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        const std::string& key = it.key();
        auto k = std::find_if(keys.begin(), keys.end(), [&](const SystemKey& s) {
            return key == s.name;
        });
        if (k == keys.end())
        {
            Fail(name, "unknown key '" + key + "'" + DidYouMean(key, known));
        }
        const Value v(name, key, it.value(), !isJson);
        k->set(v, c);
        c.keys.insert(key);
        written[key] = v.Text();
    }
    WarnNotModelledKeys(c, written);
    return c;
}

SystemConfig
ParseSystemConfig(const std::string& path)
{
    return ParseSystemConfigText(ReadInputFile(path, "system configuration"), path);
}

SystemParams
ToSystemParams(const SystemConfig& c, const std::string& baseDir)
{
    SystemParams p;
    p.scheduling = c.schedulingPolicy == "FIFO"       ? SchedulingPolicy::FIFO
                   : c.schedulingPolicy == "EXPLICIT" ? SchedulingPolicy::EXPLICIT
                                                      : SchedulingPolicy::LIFO;
    p.optimization = c.collectiveOptimization == "localBWAware" ? CollOptimization::LOCAL_BW_AWARE
                                                                : CollOptimization::BASELINE;
    for (int k = 0; k < 4; ++k)
    {
        if (c.collectiveProtocol == CollProtocolName(CollProtocol(k)))
        {
            p.protocol = CollProtocol(k);
        }
    }
    p.stepLatencyNs = c.stepLatencyNs;
    p.launchLatencyNs = c.Has("collective-launch-latency-ns") ? c.launchLatencyNs : -1;
    p.reductionFused = c.reductionFused;
    p.gateLatencyNs = c.gateLatencyNs;
    p.interDim =
        c.interDimensionScheduling == "themis" || c.interDimensionScheduling == "offlineGreedy"
            ? InterDimScheduling::THEMIS
            : InterDimScheduling::BASELINE;
    p.intraDim =
        c.intraDimensionScheduling == "SCF" || c.intraDimensionScheduling == "smallestFirst"
            ? IntraDimScheduling::SMALLEST_FIRST
            : IntraDimScheduling::FIFO;
    const std::pair<const std::vector<AlgoSpec>*, std::vector<AlgoSpec>*> lists[] = {
        {&c.allReduceImpl, &p.allReduce},
        {&c.allGatherImpl, &p.allGather},
        {&c.reduceScatterImpl, &p.reduceScatter},
        {&c.allToAllImpl, &p.allToAll}};
    for (const auto& l : lists)
    {
        if (!l.first->empty())
        {
            *l.second = *l.first;
        }
    }

    struct Custom
    {
        const char* key;
        const std::vector<std::string>* prefixes;
        CollType type;
    };

    const Custom customs[] = {
        {"all-reduce-implementation-custom", &c.allReduceCustom, CollType::ALL_REDUCE},
        {"all-gather-implementation-custom", &c.allGatherCustom, CollType::ALL_GATHER},
        {"reduce-scatter-implementation-custom", &c.reduceScatterCustom, CollType::REDUCE_SCATTER},
        {"all-to-all-implementation-custom", &c.allToAllCustom, CollType::ALL_TO_ALL}};
    for (const auto& cu : customs)
    {
        if (cu.prefixes->empty())
        {
            continue;
        }
        if (cu.prefixes->size() > 1)
        {
            FailKey(c.file,
                    cu.key,
                    "one trace prefix expected (the custom algorithm spans every dimension), "
                    "found " +
                        std::to_string(cu.prefixes->size()));
        }
        const std::string& prefix = cu.prefixes->front();
        const std::string found = c.ResolveCustomPrefix(prefix, baseDir);
        if (found.empty())
        {
            FailKey(c.file,
                    cu.key,
                    "no traces " + prefix +
                        ".0.et found (looked as given, next to the file and in its parent "
                        "directories" +
                        (baseDir.empty() ? std::string() : " and in " + baseDir) + ")");
        }
        p.custom[cu.type] =
            std::make_shared<std::vector<WorkloadGraph>>(ReadChakraPrefix(found, 0));
    }
    p.splits = c.preferredDatasetSplits;
    p.activeChunks = c.activeChunksPerDimension;
    p.endpointDelayNs = c.endpointDelay;
    p.localMemBwGBps = c.localMemBw;
    p.peakPerfTflops = c.peakPerf;
    p.rooflineEnabled = c.rooflineEnabled;
    return p;
}

SystemParams
LoadSystemParams(const std::string& path, const std::string& baseDir)
{
    return ToSystemParams(ParseSystemConfig(path), baseDir);
}

const std::vector<std::string>&
RemoteMemoryFabricKeys()
{
    static const std::vector<std::string> keys = {"memory-attach",
                                                  "memory-dimension",
                                                  "pool-count",
                                                  "memory-link-bw",
                                                  "memory-link-latency",
                                                  "memory-uplink-bw",
                                                  "message-size",
                                                  "outstanding-requests",
                                                  "channels",
                                                  "request-overhead",
                                                  "memory-capacity"};
    return keys;
}

RemoteMemoryConfig
ParseRemoteMemoryConfig(const std::string& path)
{
    const json j = ReadJsonFile(path, "remote memory configuration");
    if (!j.is_object())
    {
        Fail(path, "the remote memory configuration must be a JSON object");
    }
    RemoteMemoryConfig c;
    c.file = path;
    std::vector<std::string> known = {"memory-type",
                                      "remote-mem-latency",
                                      "remote-mem-bw",
                                      "num-nodes",
                                      "num-npus-per-node"};
    known.insert(known.end(), RemoteMemoryFabricKeys().begin(), RemoteMemoryFabricKeys().end());
    const std::vector<std::string> types = {MemoryTypeName(MemoryType::NO_MEMORY_EXPANSION),
                                            MemoryTypeName(MemoryType::PER_NODE_MEMORY_EXPANSION),
                                            MemoryTypeName(MemoryType::PER_NPU_MEMORY_EXPANSION),
                                            MemoryTypeName(MemoryType::MEMORY_POOL)};
    std::map<std::string, std::string> written;
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        const std::string& key = it.key();
        const Value v(path, key, it.value(), false);
        if (key == "memory-type")
        {
            const std::string s = v.OneOf(types);
            c.memoryType =
                static_cast<MemoryType>(std::find(types.begin(), types.end(), s) - types.begin());
        }
        else if (key == "remote-mem-latency")
        {
            c.remoteMemLatency = v.NonNegative(kMaxNs);
        }
        else if (key == "remote-mem-bw")
        {
            // a zero bandwidth is meaningless whatever the memory type
            c.remoteMemBw =
                v.Positive(limits::kMinBandwidthGBps, limits::kMaxBandwidthGBps, "GB/s");
        }
        else if (key == "num-nodes")
        {
            c.numNodes = v.Count(1, limits::kMaxNpus);
        }
        else if (key == "num-npus-per-node")
        {
            c.numNpusPerNode = v.Count(1, limits::kMaxNpus);
        }
        // the fabric keys (memory nodes on the flow and RoCE backends)
        else if (key == "memory-attach")
        {
            c.memoryAttach = v.OneOf({"npu", "leaf", "spine", "memory-leaf"});
        }
        else if (key == "memory-dimension")
        {
            c.memoryDimension = static_cast<int32_t>(v.Count(0, 1000));
        }
        else if (key == "pool-count")
        {
            c.poolCount = v.Count(1, 1000000);
        }
        else if (key == "memory-link-bw" || key == "memory-uplink-bw")
        {
            // the range of every link of the topology (astra-limits.h)
            (key == "memory-link-bw" ? c.memoryLinkBw : c.memoryUplinkBw) =
                v.Positive(limits::kMinBandwidthGBps, limits::kMaxBandwidthGBps, "GB/s");
        }
        else if (key == "memory-link-latency")
        {
            c.memoryLinkLatency = v.NonNegative(kMaxNs);
        }
        else if (key == "message-size")
        {
            c.messageSize = v.Count(1, 0xFFFFFFFFu); // an RDMA READ's length is 32-bit
        }
        else if (key == "outstanding-requests")
        {
            c.outstandingRequests = v.Count(1, 65536);
        }
        else if (key == "channels")
        {
            c.channels = v.Count(1, 1000000);
        }
        else if (key == "request-overhead")
        {
            c.requestOverhead = v.NonNegative(kMaxNs);
        }
        else if (key == "memory-capacity")
        {
            c.memoryCapacity = v.NonNegative(1e9); // GiB
        }
        else
        {
            Fail(path, "unknown key '" + key + "'" + DidYouMean(key, known));
        }
        c.keys.insert(key);
        written[key] = v.Text();
    }
    const std::string type = MemoryTypeName(c.memoryType);
    auto unused = [&](const char* key) {
        if (c.keys.count(key) != 0)
        {
            ASTRA_WARN(std::string("remote-memory-key-unused:") + key,
                       path << ": key '" << key << "' = " << written[key]
                            << " has no effect with memory-type " << type);
        }
    };
    if (c.memoryType == MemoryType::NO_MEMORY_EXPANSION)
    {
        unused("remote-mem-latency");
        unused("remote-mem-bw");
        for (const std::string& key : RemoteMemoryFabricKeys())
        {
            unused(key.c_str());
        }
    }
    else if (!(c.remoteMemBw > 0))
    {
        FailKey(path,
                "remote-mem-bw",
                (c.keys.count("remote-mem-bw") ? "must be > 0, found " + written["remote-mem-bw"]
                                               : std::string("missing")) +
                    ": " + type + " needs the remote memory's bandwidth (GB/s, > 0)");
    }
    if (c.memoryType == MemoryType::PER_NODE_MEMORY_EXPANSION)
    {
        for (const char* key : {"num-nodes", "num-npus-per-node"})
        {
            if (c.keys.count(key) == 0)
            {
                FailKey(path, key, "missing: PER_NODE_MEMORY_EXPANSION needs it (an integer >= 1)");
            }
        }
    }
    else
    {
        unused("num-nodes");
        unused("num-npus-per-node");
    }
    // fabric keys that apply to one memory type or attach point only
    if (c.memoryType != MemoryType::NO_MEMORY_EXPANSION)
    {
        const bool pool = c.memoryType == MemoryType::MEMORY_POOL;
        if (c.keys.count("pool-count") && !pool)
        {
            FailKey(path, "pool-count", "applies to MEMORY_POOL, not " + type);
        }
        if (!pool && (c.memoryAttach == "spine" || c.memoryAttach == "memory-leaf"))
        {
            FailKey(path,
                    "memory-attach",
                    "'" + c.memoryAttach + "' is for MEMORY_POOL; " + type +
                        " attaches to an NPU or a leaf (\"npu\", \"leaf\")");
        }
        if (c.keys.count("memory-uplink-bw") && c.memoryAttach != "memory-leaf")
        {
            FailKey(path,
                    "memory-uplink-bw",
                    "applies to memory-attach \"memory-leaf\" (the memory leaf's uplinks)");
        }
    }
    return c;
}

CommGroups
ParseCommGroupsText(const std::string& text, const std::string& name, uint32_t npus)
{
    const json j = ParseJsonText(text, name);
    if (!j.is_object())
    {
        Fail(name, "communicator groups must be a JSON object {\"<id>\": [npu, ...]}");
    }
    CommGroups groups;
    std::map<int64_t, std::string> keys; // id -> the key as written
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        const std::string& key = it.key();
        size_t pos = 0;
        int64_t id = 0;
        bool ok = !key.empty() && key.find_first_of(" \t") == std::string::npos;
        if (ok)
        {
            try
            {
                id = std::stoll(key, &pos);
            }
            catch (const std::exception&)
            {
                ok = false;
            }
        }
        if (!ok || pos != key.size())
        {
            Fail(name, "group id '" + key + "' is not an integer");
        }
        if (groups.count(id) != 0)
        {
            Fail(name,
                 "group ids '" + keys[id] + "' and '" + key + "' are the same integer " +
                     std::to_string(id) + " (a group id is an integer; give each once)");
        }
        keys[id] = key;
        const json& v = it.value();
        if (!v.is_array())
        {
            Fail(name, "group " + key + ": expected a list of NPU ids, found " + v.dump());
        }
        if (v.empty())
        {
            Fail(name, "group " + key + " is empty");
        }
        std::vector<uint32_t> members;
        std::set<uint32_t> seen;
        for (const auto& e : v)
        {
            if (!e.is_number_integer() || e.get<int64_t>() < 0 ||
                e.get<int64_t>() > std::numeric_limits<uint32_t>::max())
            {
                Fail(name, "group " + key + ": bad NPU id " + e.dump());
            }
            const uint32_t npu = e.get<uint32_t>();
            if (npus != 0 && npu >= npus)
            {
                Fail(name,
                     "group " + key + ": NPU " + std::to_string(npu) + " out of range (" +
                         std::to_string(npus) + " NPUs)");
            }
            if (!seen.insert(npu).second)
            {
                Fail(name, "group " + key + ": NPU " + std::to_string(npu) + " listed twice");
            }
            members.push_back(npu);
        }
        groups[id] = members;
    }
    return groups;
}

CommGroups
ParseCommGroups(const std::string& path, uint32_t npus)
{
    if (path.empty() || path == "empty")
    {
        return {};
    }
    return ParseCommGroupsText(ReadInputFile(path, "communicator group configuration"), path, npus);
}

std::map<std::string, std::vector<uint32_t>>
CommGroupsByName(const CommGroups& groups)
{
    std::map<std::string, std::vector<uint32_t>> out;
    for (const auto& [id, members] : groups)
    {
        out[std::to_string(id)] = members;
    }
    return out;
}

std::map<std::string, std::vector<uint32_t>>
LoadCommGroups(const std::string& path, uint32_t npus)
{
    return CommGroupsByName(ParseCommGroups(path, npus));
}

std::vector<uint32_t>
ParseLogicalTopology(const std::string& path)
{
    const json j = ReadJsonFile(path, "logical topology");
    if (!j.is_object())
    {
        Fail(path, "the logical topology must be a JSON object {\"logical-dims\": [...]}");
    }
    std::vector<uint32_t> dims;
    bool found = false;
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        if (it.key() != "logical-dims")
        {
            Fail(path, "unknown key '" + it.key() + "'" + DidYouMean(it.key(), {"logical-dims"}));
        }
        found = true;
        if (!it.value().is_array() || it.value().empty())
        {
            FailKey(path, "logical-dims", "expected a non-empty list, found " + it.value().dump());
        }
        for (const auto& e : it.value())
        {
            // the format writes the sizes as strings ("8"); numbers are accepted too
            dims.push_back(Value(path, "logical-dims", e, true).Count(1));
        }
    }
    if (!found)
    {
        Fail(path, "missing key 'logical-dims'");
    }
    return dims;
}

} // namespace astra
} // namespace ns3
