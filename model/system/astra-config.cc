/*
 * Parsers of ASTRA-sim configuration files.
 */

#include "astra-config.h"

#include "ns3/log.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/stat.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AstraConfig");

namespace astra
{

namespace
{

using nlohmann::json;

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

std::string
ReadFile(const std::string& path, const char* what)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw ConfigError(path + ": cannot open " + what);
    }
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

json
ParseJson(const std::string& text, const std::string& name)
{
    try
    {
        return json::parse(text);
    }
    catch (const json::parse_error& e)
    {
        Fail(name, std::string("invalid JSON: ") + e.what());
    }
}

size_t
EditDistance(const std::string& a, const std::string& b)
{
    std::vector<size_t> prev(b.size() + 1);
    std::vector<size_t> cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
    {
        prev[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i)
    {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
        {
            size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string
Normalize(std::string s)
{
    for (auto& c : s)
    {
        c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

/// " (did you mean 'x'?)" or "".
std::string
DidYouMean(const std::string& key, const std::vector<std::string>& known)
{
    std::string best;
    size_t bestD = std::string::npos;
    for (const auto& k : known)
    {
        size_t d = Normalize(k) == Normalize(key) ? 0 : EditDistance(key, k);
        if (d < bestD)
        {
            bestD = d;
            best = k;
        }
    }
    if (!best.empty() && bestD <= std::max<size_t>(1, key.size() / 4))
    {
        return " (did you mean '" + best + "'?)";
    }
    return "";
}

std::string
Dump(const json& v)
{
    return v.dump();
}

/// Typed access to one key's value, with file/key context.
class Value
{
  public:
    Value(const std::string& file, const std::string& key, const json& v)
        : m_file(file),
          m_key(key),
          m_v(v)
    {
    }

    double Number() const
    {
        if (m_v.is_number())
        {
            return m_v.get<double>();
        }
        if (m_v.is_string())
        {
            const std::string& s = m_v.get_ref<const std::string&>();
            char* end = nullptr;
            double d = std::strtod(s.c_str(), &end);
            if (!s.empty() && end && *end == '\0' && std::isfinite(d))
            {
                return d;
            }
        }
        FailKey(m_file, m_key, "expected a number, found " + Dump(m_v));
    }

    double NonNegative() const
    {
        double d = Number();
        if (d < 0)
        {
            FailKey(m_file, m_key, "must be >= 0, found " + Dump(m_v));
        }
        return d;
    }

    uint32_t Count(uint32_t min) const
    {
        double d = Number();
        if (d != std::floor(d) || d < min || d > 4294967295.0)
        {
            FailKey(m_file,
                    m_key,
                    "expected an integer >= " + std::to_string(min) + ", found " + Dump(m_v));
        }
        return static_cast<uint32_t>(d);
    }

    int64_t Int() const
    {
        double d = Number();
        if (d != std::floor(d))
        {
            FailKey(m_file, m_key, "expected an integer, found " + Dump(m_v));
        }
        return static_cast<int64_t>(d);
    }

    bool Bool() const
    {
        if (m_v.is_boolean())
        {
            return m_v.get<bool>();
        }
        if (m_v.is_string())
        {
            std::string s = Normalize(m_v.get<std::string>());
            if (s == "true")
            {
                return true;
            }
            if (s == "false")
            {
                return false;
            }
        }
        if (m_v.is_number() || m_v.is_string())
        {
            double d = 0;
            try
            {
                d = Number();
            }
            catch (const ConfigError&)
            {
                d = -1;
            }
            if (d == 0 || d == 1)
            {
                return d == 1;
            }
        }
        FailKey(m_file, m_key, "expected 0/1 or true/false, found " + Dump(m_v));
    }

    std::string String() const
    {
        if (!m_v.is_string())
        {
            FailKey(m_file, m_key, "expected a string, found " + Dump(m_v));
        }
        return m_v.get<std::string>();
    }

    std::string OneOf(const std::vector<std::string>& allowed) const
    {
        std::string s = String();
        for (const auto& a : allowed)
        {
            if (a == s)
            {
                return s;
            }
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

    /// A list of strings; a single string "a_b" (ASTRA-sim 1.0 style) is split on '_'.
    std::vector<std::string> StringList(bool splitUnderscore) const
    {
        std::vector<std::string> out;
        if (m_v.is_string())
        {
            std::string s = m_v.get<std::string>();
            if (!splitUnderscore)
            {
                out.push_back(s);
                return out;
            }
            std::stringstream ss(s);
            std::string part;
            while (std::getline(ss, part, '_'))
            {
                out.push_back(part);
            }
        }
        else if (m_v.is_array())
        {
            for (const auto& e : m_v)
            {
                if (!e.is_string())
                {
                    FailKey(m_file, m_key, "expected a list of strings, found " + Dump(m_v));
                }
                out.push_back(e.get<std::string>());
            }
        }
        else
        {
            FailKey(m_file, m_key, "expected a list of strings, found " + Dump(m_v));
        }
        if (out.empty())
        {
            FailKey(m_file, m_key, "empty list");
        }
        return out;
    }

    std::vector<CollAlgorithm> Algorithms() const
    {
        std::vector<CollAlgorithm> out;
        for (const auto& s : StringList(true))
        {
            try
            {
                out.push_back(CollAlgorithm::Parse(s));
            }
            catch (const ConfigError& e)
            {
                FailKey(m_file, m_key, e.what());
            }
        }
        return out;
    }

  private:
    const std::string& m_file;
    const std::string& m_key;
    const json& m_v;
};

bool
PrefixExists(const std::string& prefix)
{
    struct stat st;
    return stat((prefix + ".0.et").c_str(), &st) == 0 ||
           stat((prefix + ".0.et.gz").c_str(), &st) == 0;
}

const std::vector<std::string> kAlgoNames = {"ring",
                                             "direct",
                                             "directN",
                                             "halvingDoubling",
                                             "doubleBinaryTree",
                                             "oneRing",
                                             "oneDirect",
                                             "oneHalvingDoubling"};

/// Converts the ASTRA-sim 1.0 "key: value" form into a JSON object of strings.
json
TxtToJson(const std::string& text, const std::string& name)
{
    json j = json::object();
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line))
    {
        ++lineNo;
        auto trim = [](std::string s) {
            size_t a = s.find_first_not_of(" \t\r");
            size_t b = s.find_last_not_of(" \t\r");
            return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
        };
        line = trim(line);
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        size_t colon = line.find(':');
        if (colon == std::string::npos)
        {
            Fail(name,
                 "line " + std::to_string(lineNo) + ": expected 'key: value', found '" + line +
                     "'");
        }
        std::string key = trim(line.substr(0, colon));
        std::string value = trim(line.substr(colon + 1));
        if (j.contains(key))
        {
            Fail(name, "line " + std::to_string(lineNo) + ": duplicate key '" + key + "'");
        }
        j[key] = value;
    }
    return j;
}

} // namespace

const char*
ConfigAlgoKindName(ConfigAlgoKind k)
{
    switch (k)
    {
    case ConfigAlgoKind::RING:
        return "ring";
    case ConfigAlgoKind::DIRECT:
        return "direct";
    case ConfigAlgoKind::HALVING_DOUBLING:
        return "halvingDoubling";
    case ConfigAlgoKind::DOUBLE_BINARY_TREE:
        return "doubleBinaryTree";
    }
    return "?";
}

CollAlgorithm
CollAlgorithm::Parse(const std::string& name)
{
    CollAlgorithm a;
    a.text = name;
    std::string n = name;
    if (n.size() > 3 && n.compare(0, 3, "one") == 0 &&
        std::isupper(static_cast<unsigned char>(n[3])))
    {
        a.flattened = true;
        n = std::string(1, static_cast<char>(std::tolower(static_cast<unsigned char>(n[3])))) +
            n.substr(4);
        if (n == "doubleBinaryTree")
        {
            throw ConfigError("unknown algorithm '" + name + "'" + DidYouMean(name, kAlgoNames));
        }
    }
    if (n == "ring")
    {
        a.kind = ConfigAlgoKind::RING;
    }
    else if (n == "direct")
    {
        a.kind = ConfigAlgoKind::DIRECT;
    }
    else if (n == "halvingDoubling")
    {
        a.kind = ConfigAlgoKind::HALVING_DOUBLING;
    }
    else if (n == "doubleBinaryTree")
    {
        a.kind = ConfigAlgoKind::DOUBLE_BINARY_TREE;
    }
    else if (!a.flattened && n.size() > 6 && n.compare(0, 6, "direct") == 0 &&
             n.find_first_not_of("0123456789", 6) == std::string::npos && n.size() < 16)
    {
        a.kind = ConfigAlgoKind::DIRECT;
        a.window = static_cast<uint32_t>(std::stoul(n.substr(6)));
        if (a.window == 0)
        {
            throw ConfigError("algorithm '" + name + "': window must be > 0");
        }
    }
    else
    {
        throw ConfigError("unknown algorithm '" + name +
                          "' (expected ring, direct, directN, "
                          "halvingDoubling, doubleBinaryTree, oneRing, oneDirect or "
                          "oneHalvingDoubling)" +
                          DidYouMean(name, kAlgoNames));
    }
    return a;
}

std::string
SystemConfig::ResolveCustomPrefix(const std::string& prefix) const
{
    if (prefix.empty() || PrefixExists(prefix))
    {
        return prefix;
    }
    if (prefix[0] == '/')
    {
        return prefix;
    }
    std::string dir = file;
    size_t slash = dir.find_last_of('/');
    dir = slash == std::string::npos ? "." : dir.substr(0, slash);
    for (int up = 0; up < 16 && !dir.empty(); ++up)
    {
        std::string cand = dir + "/" + prefix;
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
    return prefix;
}

SystemConfig
ParseSystemConfigText(const std::string& text,
                      const std::string& name,
                      const ConfigParseOptions& opts)
{
    size_t first = text.find_first_not_of(" \t\r\n");
    const bool isJson = first != std::string::npos && (text[first] == '{' || text[first] == '[');
    json j = isJson ? ParseJson(text, name) : TxtToJson(text, name);
    if (!j.is_object())
    {
        Fail(name, "the system configuration must be a JSON object");
    }
    SystemConfig c;
    c.file = name;
    using Handler = std::function<void(const Value&)>;
    const std::vector<std::pair<std::string, Handler>> handlers = {
        {"scheduling-policy",
         [&](const Value& v) {
             c.schedulingPolicy = v.OneOf({"LIFO", "FIFO", "EXPLICIT"});
         }},
        {"collective-optimization",
         [&](const Value& v) {
             c.collectiveOptimization = v.OneOf({"baseline", "localBWAware"});
         }},
        {"all-reduce-implementation", [&](const Value& v) { c.allReduceImpl = v.Algorithms(); }},
        {"all-gather-implementation", [&](const Value& v) { c.allGatherImpl = v.Algorithms(); }},
        {"reduce-scatter-implementation",
         [&](const Value& v) { c.reduceScatterImpl = v.Algorithms(); }},
        {"all-to-all-implementation", [&](const Value& v) { c.allToAllImpl = v.Algorithms(); }},
        {"all-reduce-implementation-custom",
         [&](const Value& v) { c.allReduceCustom = v.StringList(false); }},
        {"all-gather-implementation-custom",
         [&](const Value& v) { c.allGatherCustom = v.StringList(false); }},
        {"reduce-scatter-implementation-custom",
         [&](const Value& v) { c.reduceScatterCustom = v.StringList(false); }},
        {"all-to-all-implementation-custom",
         [&](const Value& v) { c.allToAllCustom = v.StringList(false); }},
        {"preferred-dataset-splits",
         [&](const Value& v) { c.preferredDatasetSplits = v.Count(1); }},
        {"active-chunks-per-dimension",
         [&](const Value& v) { c.activeChunksPerDimension = v.Count(1); }},
        {"endpoint-delay", [&](const Value& v) { c.endpointDelay = v.NonNegative(); }},
        {"local-reduction-delay", [&](const Value& v) { c.localReductionDelay = v.NonNegative(); }},
        {"model-shared-bus", [&](const Value& v) { c.modelSharedBus = v.Bool(); }},
        {"L", [&](const Value& v) { c.L = v.NonNegative(); }},
        {"o", [&](const Value& v) { c.o = v.NonNegative(); }},
        {"g", [&](const Value& v) { c.g = v.NonNegative(); }},
        {"G", [&](const Value& v) { c.G = v.NonNegative(); }},
        {"local-mem-bw", [&](const Value& v) { c.localMemBw = v.NonNegative(); }},
        {"peak-perf", [&](const Value& v) { c.peakPerf = v.NonNegative(); }},
        {"roofline-enabled", [&](const Value& v) { c.rooflineEnabled = v.Bool(); }},
        {"replay-only", [&](const Value& v) { c.replayOnly = v.Bool(); }},
        {"trace-enabled", [&](const Value& v) { c.traceEnabled = v.Bool(); }},
        {"track-local-mem", [&](const Value& v) { c.trackLocalMem = v.Bool(); }},
        {"local-mem-trace-filename", [&](const Value& v) { c.localMemTraceFilename = v.String(); }},
        {"boost-mode", [&](const Value& v) { c.boostMode = v.Int(); }},
        {"intra-dimension-scheduling",
         [&](const Value& v) { c.intraDimensionScheduling = v.String(); }},
        {"inter-dimension-scheduling",
         [&](const Value& v) { c.interDimensionScheduling = v.String(); }},
        // ASTRA-sim 1.0 keys, accepted and ignored
        {"packet-routing", [&](const Value& v) { c.packetRouting = v.String(); }},
        {"injection-policy", [&](const Value& v) { c.injectionPolicy = v.String(); }},
        {"seprate-log", [&](const Value& v) { c.seprateLog = v.Bool(); }},
    };
    std::vector<std::string> known;
    for (const auto& h : handlers)
    {
        known.push_back(h.first);
    }
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        const std::string& key = it.key();
        auto h = std::find_if(handlers.begin(), handlers.end(), [&](const auto& p) {
            return p.first == key;
        });
        if (h == handlers.end())
        {
            if (opts.allowUnknownKeys)
            {
                NS_LOG_WARN(name << ": ignoring unknown key '" << key << "'");
                c.unknownKeys[key] = it.value().dump();
                continue;
            }
            Fail(name, "unknown key '" + key + "'" + DidYouMean(key, known));
        }
        h->second(Value(name, key, it.value()));
        c.keys.insert(key);
    }
    if (c.boostMode != 0)
    {
        NS_LOG_INFO(name << ": boost-mode is ignored");
    }
    return c;
}

SystemConfig
ParseSystemConfig(const std::string& path, const ConfigParseOptions& opts)
{
    return ParseSystemConfigText(ReadFile(path, "system configuration"), path, opts);
}

const char*
MemoryTypeName(MemoryType t)
{
    switch (t)
    {
    case MemoryType::NO_MEMORY_EXPANSION:
        return "NO_MEMORY_EXPANSION";
    case MemoryType::PER_NODE_MEMORY_EXPANSION:
        return "PER_NODE_MEMORY_EXPANSION";
    case MemoryType::PER_NPU_MEMORY_EXPANSION:
        return "PER_NPU_MEMORY_EXPANSION";
    case MemoryType::MEMORY_POOL:
        return "MEMORY_POOL";
    }
    return "?";
}

RemoteMemoryConfig
ParseRemoteMemoryConfig(const std::string& path, const ConfigParseOptions& opts)
{
    json j = ParseJson(ReadFile(path, "remote memory configuration"), path);
    if (!j.is_object())
    {
        Fail(path, "the remote memory configuration must be a JSON object");
    }
    RemoteMemoryConfig c;
    c.file = path;
    const std::vector<std::string> known = {"memory-type",
                                            "remote-mem-latency",
                                            "remote-mem-bw",
                                            "num-nodes",
                                            "num-npus-per-node"};
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        const std::string& key = it.key();
        Value v(path, key, it.value());
        if (key == "memory-type")
        {
            std::string s = v.OneOf({"NO_MEMORY_EXPANSION",
                                     "PER_NODE_MEMORY_EXPANSION",
                                     "PER_NPU_MEMORY_EXPANSION",
                                     "MEMORY_POOL"});
            for (auto t : {MemoryType::NO_MEMORY_EXPANSION,
                           MemoryType::PER_NODE_MEMORY_EXPANSION,
                           MemoryType::PER_NPU_MEMORY_EXPANSION,
                           MemoryType::MEMORY_POOL})
            {
                if (s == MemoryTypeName(t))
                {
                    c.memoryType = t;
                }
            }
        }
        else if (key == "remote-mem-latency")
        {
            c.remoteMemLatency = v.NonNegative();
        }
        else if (key == "remote-mem-bw")
        {
            c.remoteMemBw = v.NonNegative();
        }
        else if (key == "num-nodes")
        {
            c.numNodes = v.Count(0);
        }
        else if (key == "num-npus-per-node")
        {
            c.numNpusPerNode = v.Count(0);
        }
        else if (opts.allowUnknownKeys)
        {
            NS_LOG_WARN(path << ": ignoring unknown key '" << key << "'");
            continue;
        }
        else
        {
            Fail(path, "unknown key '" + key + "'" + DidYouMean(key, known));
        }
        c.keys.insert(key);
    }
    if (c.memoryType != MemoryType::NO_MEMORY_EXPANSION)
    {
        if (c.remoteMemBw <= 0)
        {
            FailKey(path,
                    "remote-mem-bw",
                    std::string("must be > 0 for ") + MemoryTypeName(c.memoryType));
        }
        if (c.memoryType == MemoryType::PER_NODE_MEMORY_EXPANSION &&
            (c.numNodes == 0 || c.numNpusPerNode == 0))
        {
            Fail(path, "PER_NODE_MEMORY_EXPANSION needs num-nodes and num-npus-per-node > 0");
        }
    }
    return c;
}

CommGroups
ParseCommGroupsText(const std::string& text, const std::string& name, uint32_t npus)
{
    json j = ParseJson(text, name);
    if (!j.is_object())
    {
        Fail(name, "communicator groups must be a JSON object {\"<id>\": [npu, ...]}");
    }
    CommGroups groups;
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
            Fail(name, "group id '" + key + "' duplicates id " + std::to_string(id));
        }
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
            uint32_t npu = e.get<uint32_t>();
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
    return ParseCommGroupsText(ReadFile(path, "communicator group configuration"), path, npus);
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

std::vector<uint32_t>
ParseLogicalTopology(const std::string& path)
{
    json j = ParseJson(ReadFile(path, "logical topology"), path);
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
            dims.push_back(Value(path, "logical-dims", e).Count(1));
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
