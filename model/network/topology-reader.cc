/*
 * The network configuration reader (Topology::FromFile): ASTRA-sim's network
 * YAML of the current key style (`topology`, `npus_count`, `bandwidth`,
 * `latency`) and of the older style (`topology-name`, `dimensions-count`,
 * `topologies-per-dim`, `units-count`, `links-count`, `link-latency`,
 * `link-bandwidth`, also as JSON), plus the shape keys of the switched
 * dimension types (ShapeKey, in either spelling `hosts_per_leaf` /
 * `hosts-per-leaf`). Every key is checked: an unknown key or a key of the
 * other style is an error with a "did you mean"; the keys of ASTRA-sim's
 * older analytical network that this module does not model warn when their
 * value would have an effect there.
 *
 * Old-style files (`links-count`): the number of links per NPU in a dimension
 * is folded into the per-direction bandwidth of the single modelled link:
 * bandwidth x max(1, links / needed) with needed = 2 (Ring, one per
 * neighbour), n-1 (FullyConnected, one per peer) or 1 (Switch).
 */

#include "topology-dimension.h"
#include "topology.h"

#include "ns3/astra-input.h"
#include "ns3/astra-limits.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <yaml-cpp/yaml.h>

namespace ns3
{
namespace astra
{

namespace
{

/// The keys of the current style.
const std::vector<std::string> kCurrentKeys = {"topology", "npus_count", "bandwidth", "latency"};

/// The keys of the older style.
const std::vector<std::string> kOlderKeys = {"topology-name",
                                             "dimensions-count",
                                             "topologies-per-dim",
                                             "units-count",
                                             "links-count",
                                             "link-latency",
                                             "link-bandwidth"};

/// A key of ASTRA-sim's older analytical network that this module does not model.
struct NotModelledKey
{
    const char* name;    //!< the key
    bool numeric;        //!< a list of non-negative numbers (else of names)
    double noEffect;     //!< the value that has no effect there (numeric keys)
    const char* meaning; //!< what it does in ASTRA-sim, what happens here
};

const std::vector<NotModelledKey> kNotModelled = {
    {"nic-latency", true, 0, "a per-message NIC latency; add it to the link latency instead"},
    {"router-latency", true, 0, "a per-hop router latency; add it to the link latency instead"},
    {"hbm-latency", true, 0, "the analytical network's memory model; see remote memory instead"},
    {"hbm-bandwidth", true, 1, "the analytical network's memory model; see remote memory instead"},
    {"hbm-scale", true, 0, "the analytical network's memory model; see remote memory instead"},
    {"dimension-type", false, 0, "the link technology of the network cost model (no timing)"},
};

/// The memory-node keys (Topology::PlaceMemory), in either spelling (`_` or `-`).
const std::vector<std::string> kMemoryKeys = {"memory_placement",
                                              "memory_npus_per_node",
                                              "memory_pool_count",
                                              "memory_attach",
                                              "memory_dimension",
                                              "memory_bandwidth",
                                              "memory_latency",
                                              "memory_uplink_bandwidth"};

/// A network configuration file reduced to key -> list of scalar strings.
struct RawConfig
{
    std::string path;                                       //!< the file
    std::map<std::string, std::vector<std::string>> values; //!< key -> entries
    std::vector<std::string> order;                         //!< keys in file order

    [[noreturn]] void Fail(const std::string& key, const std::string& what) const
    {
        throw ConfigError(path + ": key '" + key + "': " + what);
    }

    bool Has(const std::string& key) const
    {
        return values.count(key) != 0;
    }

    void Set(const std::string& key, std::vector<std::string> list)
    {
        if (Has(key))
        {
            Fail(key, "given twice");
        }
        values[key] = std::move(list);
        order.push_back(key);
    }

    const std::vector<std::string>& Get(const std::string& key) const
    {
        auto it = values.find(key);
        if (it == values.end())
        {
            Fail(key, "missing");
        }
        return it->second;
    }

    /// The list under key, checked to hold `count` entries (0: any, at least one).
    const std::vector<std::string>& List(const std::string& key, size_t count) const
    {
        const auto& v = Get(key);
        if (v.empty())
        {
            Fail(key, "empty list");
        }
        if (count != 0 && v.size() != count)
        {
            Fail(key,
                 "expected " + std::to_string(count) + " values (one per dimension), got " +
                     std::to_string(v.size()));
        }
        return v;
    }

    double Number(const std::string& key, const std::string& s) const
    {
        try
        {
            size_t pos = 0;
            const double v = std::stod(s, &pos);
            while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos])))
            {
                ++pos;
            }
            if (pos != s.size() || !std::isfinite(v))
            {
                throw std::invalid_argument(s);
            }
            return v;
        }
        catch (const std::exception&)
        {
            Fail(key, "'" + s + "' is not a finite number");
        }
    }

    std::vector<double> Numbers(const std::string& key, size_t count) const
    {
        std::vector<double> out;
        for (const auto& s : List(key, count))
        {
            out.push_back(Number(key, s));
        }
        return out;
    }
};

void
FlattenYaml(const YAML::Node& node, const std::string& key, RawConfig& cfg)
{
    std::vector<std::string> list;
    if (node.IsSequence())
    {
        for (const auto& e : node)
        {
            if (e.IsNull())
            {
                list.emplace_back("~"); // "default" in the per-dimension shape keys
                continue;
            }
            if (!e.IsScalar())
            {
                cfg.Fail(key, "expected a list of scalars");
            }
            list.push_back(e.as<std::string>());
        }
    }
    else if (node.IsScalar())
    {
        list.push_back(node.as<std::string>());
    }
    else if (!node.IsNull())
    {
        cfg.Fail(key, "expected a list of scalars, found a mapping");
    }
    // an empty value is reported as an empty list when used
    cfg.Set(key, list);
}

void
FlattenJson(const nlohmann::json& node, const std::string& key, RawConfig& cfg)
{
    auto scalar = [&](const nlohmann::json& e) -> std::string {
        if (e.is_null())
        {
            return "~"; // "default" in the per-dimension shape keys
        }
        if (e.is_string())
        {
            return e.get<std::string>();
        }
        if (e.is_number() || e.is_boolean())
        {
            return e.dump();
        }
        cfg.Fail(key, "expected a list of scalars, found " + e.dump());
    };
    std::vector<std::string> list;
    if (node.is_array())
    {
        for (const auto& e : node)
        {
            list.push_back(scalar(e));
        }
    }
    else if (node.is_object())
    {
        cfg.Fail(key, "expected a list of scalars, found an object");
    }
    else if (!node.is_null())
    {
        list.push_back(scalar(node));
    }
    cfg.Set(key, list);
}

RawConfig
ReadRaw(const std::string& path)
{
    RawConfig cfg;
    cfg.path = path;
    const std::string text = ReadInputFile(path, "network configuration");
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
    {
        throw ConfigError(path + ": empty file (expected a network configuration: YAML or JSON)");
    }
    const bool isJson = first != std::string::npos && text[first] == '{';
    if (isJson)
    {
        const nlohmann::json j = ParseJsonText(text, path);
        for (auto it = j.begin(); it != j.end(); ++it)
        {
            FlattenJson(it.value(), it.key(), cfg);
        }
    }
    else
    {
        YAML::Node root;
        try
        {
            root = YAML::Load(text);
        }
        catch (const std::exception& e)
        {
            throw ConfigError(path + ": invalid YAML: " + e.what());
        }
        if (!root.IsMap())
        {
            throw ConfigError(path + ": expected a mapping of keys");
        }
        for (const auto& kv : root)
        {
            if (!kv.first.IsScalar())
            {
                throw ConfigError(path + ": a key must be a name, found a " +
                                  (kv.first.IsSequence() ? "list" : "mapping or nothing") +
                                  " (line " + std::to_string(kv.first.Mark().line + 1) + ")");
            }
            FlattenYaml(kv.second, kv.first.as<std::string>(), cfg);
        }
    }
    return cfg;
}

/// Lower case without '-' and '_'.
std::string
Squash(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == '_' || c == '-'; }),
            s.end());
    return s;
}

DimType
ParseDimType(const RawConfig& cfg, const std::string& key, const std::string& name)
{
    const std::string l = Squash(name);
    std::string names;
    std::vector<std::string> known;
    for (const DimensionKind* kind : GetDimensionKinds())
    {
        for (const auto& spelling : kind->Spellings())
        {
            if (spelling == l)
            {
                return kind->Type();
            }
        }
        names += std::string(names.empty() ? "" : ", ") + kind->Name();
        known.emplace_back(kind->Name());
    }
    cfg.Fail(key,
             "unknown topology '" + name + "' (expected " + names + ")" + DidYouMean(name, known));
}

/// Is a per-dimension entry the "default" marker (-, ~, null, empty)?
bool
IsDefaultEntry(const std::string& v)
{
    const std::string l = Squash(v);
    return l.empty() || l == "~" || l == "null" || l == "none" || v == "-";
}

/// The spelling of a shape key the file uses ("" if absent).
std::string
ShapeKeySpelling(const RawConfig& cfg, ShapeKey k)
{
    const std::string name = ShapeKeyName(k);
    std::string alt = name;
    std::replace(alt.begin(), alt.end(), '_', '-');
    if (alt != name && cfg.Has(name) && cfg.Has(alt))
    {
        cfg.Fail(name, "given twice (as '" + name + "' and '" + alt + "')");
    }
    return cfg.Has(name) ? name : (cfg.Has(alt) ? alt : "");
}

/**
 * Check every key: known to the style of the file (current or older), a
 * shape key, or a key of ASTRA-sim's older analytical network this module
 * does not model.
 */
void
CheckKeys(const RawConfig& cfg, bool current)
{
    const auto& mine = current ? kCurrentKeys : kOlderKeys;
    const auto& other = current ? kOlderKeys : kCurrentKeys;
    std::vector<std::string> known = mine;
    for (ShapeKey k : AllShapeKeys())
    {
        std::string name = ShapeKeyName(k);
        known.push_back(name);
        std::replace(name.begin(), name.end(), '_', '-');
        known.push_back(name);
    }
    for (const auto& n : kNotModelled)
    {
        known.emplace_back(n.name);
    }
    known.emplace_back("link-efficiency"); // ReadLinkEfficiency
    known.emplace_back("link_efficiency");
    for (std::string name : kMemoryKeys)
    {
        known.push_back(name);
        std::replace(name.begin(), name.end(), '_', '-');
        known.push_back(name);
    }
    for (const auto& key : cfg.order)
    {
        if (std::find(known.begin(), known.end(), key) != known.end())
        {
            continue;
        }
        if (std::find(other.begin(), other.end(), key) != other.end())
        {
            cfg.Fail(key,
                     std::string("belongs to the ") + (current ? "older" : "current") +
                         " key style, but this file uses the " +
                         (current ? "current one (topology, npus_count, bandwidth, latency)"
                                  : "older one (topologies-per-dim, units-count, link-bandwidth, "
                                    "link-latency, ...)"));
        }
        throw ConfigError(cfg.path + ": unknown key '" + key + "'" + DidYouMean(key, known));
    }
}

/// Check the keys of ASTRA-sim's older analytical network this module does not model, and warn
/// about those set to a value with an effect there.
void
CheckNotModelled(const RawConfig& cfg, size_t dims)
{
    for (const auto& n : kNotModelled)
    {
        if (!cfg.Has(n.name))
        {
            continue;
        }
        const auto& list = cfg.List(n.name, dims);
        bool effect = !n.numeric;
        std::string text;
        for (const auto& v : list)
        {
            text += (text.empty() ? "[" : ", ") + v;
            if (n.numeric)
            {
                const double x = cfg.Number(n.name, v);
                if (x < 0)
                {
                    cfg.Fail(n.name, "'" + v + "' is negative");
                }
                effect = effect || x != n.noEffect;
            }
        }
        if (effect)
        {
            WarnNotModelled(cfg.path, n.name, text + "]", n.meaning);
        }
    }
}

/// \return x as written in a message
std::string
NumText(double x)
{
    std::ostringstream os;
    os << x;
    return os.str();
}

/// Check a bandwidth (GB/s) of dimension d under key.
double
CheckBandwidth(const RawConfig& cfg, const std::string& key, size_t d, double bw)
{
    if (!(bw > 0))
    {
        cfg.Fail(key,
                 "values must be positive (dimension " + std::to_string(d) + ": " + NumText(bw) +
                     ")");
    }
    if (bw < limits::kMinBandwidthGBps || bw > limits::kMaxBandwidthGBps)
    {
        cfg.Fail(key,
                 "dimension " + std::to_string(d) + ": " + NumText(bw) +
                     " GB/s is outside the accepted range " + NumText(limits::kMinBandwidthGBps) +
                     " to " + NumText(limits::kMaxBandwidthGBps) + " GB/s");
    }
    return bw;
}

/// Check a latency (ns) of dimension d under key.
double
CheckLatency(const RawConfig& cfg, const std::string& key, size_t d, double ns)
{
    if (!(ns >= 0))
    {
        cfg.Fail(key,
                 "values must not be negative (dimension " + std::to_string(d) + ": " +
                     NumText(ns) + ")");
    }
    if (ns > limits::kMaxTimeNs)
    {
        cfg.Fail(key,
                 "dimension " + std::to_string(d) + ": " + NumText(ns) +
                     " ns exceeds the largest latency accepted, " + NumText(limits::kMaxTimeNs) +
                     " ns");
    }
    return ns;
}

/**
 * Read the optional per-dimension link-efficiency (also link_efficiency) of
 * any dimension type: a number in (0, 1], "-" / "~" for the default 1.
 */
void
ReadLinkEfficiency(const RawConfig& cfg, std::vector<DimensionSpec>& dims)
{
    const std::string name = cfg.Has("link-efficiency")   ? "link-efficiency"
                             : cfg.Has("link_efficiency") ? "link_efficiency"
                                                          : "";
    if (name.empty())
    {
        return;
    }
    const auto& list = cfg.List(name, dims.size());
    for (size_t d = 0; d < dims.size(); ++d)
    {
        if (IsDefaultEntry(list[d]))
        {
            continue;
        }
        const double e = cfg.Number(name, list[d]);
        if (!(e > 0 && e <= 1))
        {
            cfg.Fail(name,
                     "dimension " + std::to_string(d) + ": '" + list[d] +
                         "' is not a fraction in (0, 1] of the link rate");
        }
        dims[d].linkEfficiency = e;
    }
}

/**
 * Read the optional per-dimension shape keys of the switched dimension types
 * into dims. Each key is a list with one entry per dimension; "-", "~" (null)
 * or 0 stand for "default / not applicable". Both key_name and key-name
 * spellings are accepted.
 */
void
ReadShapeKeys(const RawConfig& cfg, std::vector<DimensionSpec>& dims)
{
    const size_t n = dims.size();
    for (ShapeKey k : AllShapeKeys())
    {
        const std::string name = ShapeKeySpelling(cfg, k);
        if (name.empty())
        {
            continue;
        }
        const bool integer = k == ShapeKey::HOSTS_PER_LEAF || k == ShapeKey::SPINES ||
                             k == ShapeKey::FAT_TREE_K || k == ShapeKey::RAILS ||
                             k == ShapeKey::IN_SWITCH;
        const bool zeroOk = k == ShapeKey::UPLINK_LATENCY; // 0 is a valid latency
        const auto& list = cfg.List(name, n);
        for (size_t d = 0; d < n; ++d)
        {
            const std::string& v = list[d];
            if (IsDefaultEntry(v))
            {
                continue;
            }
            const double x = cfg.Number(name, v);
            const DimensionKind& kind = GetDimensionKind(dims[d].type);
            if (!kind.TakesShapeKey(k))
            {
                if (x != 0)
                {
                    cfg.Fail(name,
                             "dimension " + std::to_string(d) + " is " + kind.Name() +
                                 ", to which this key does not apply (write - or 0)");
                }
                continue;
            }
            if (x == 0 && !zeroOk)
            {
                continue; // 0: default
            }
            if (x < 0 || (integer && (x != std::floor(x) || x > double(limits::kMaxNpus))))
            {
                cfg.Fail(name,
                         "dimension " + std::to_string(d) + ": '" + v + "' is not a " +
                             (integer ? "positive integer (at most " +
                                            std::to_string(limits::kMaxNpus) + ")"
                                      : std::string("non-negative number")));
            }
            if (k == ShapeKey::UPLINK_BANDWIDTH)
            {
                CheckBandwidth(cfg, name, d, x);
            }
            else if (k == ShapeKey::UPLINK_LATENCY)
            {
                CheckLatency(cfg, name, d, x);
            }
            else if (k == ShapeKey::OVERSUBSCRIPTION && x > 1e6)
            {
                cfg.Fail(name,
                         "dimension " + std::to_string(d) + ": '" + v +
                             "' exceeds the largest oversubscription accepted, 1e6");
            }
            if (k == ShapeKey::IN_SWITCH && x != 1)
            {
                cfg.Fail(name,
                         "dimension " + std::to_string(d) + ": '" + v +
                             "' is not 0 or 1 (1: the dimension's switches aggregate)");
            }
            DimensionSpec& s = dims[d];
            switch (k)
            {
            case ShapeKey::HOSTS_PER_LEAF:
                s.hostsPerLeaf = static_cast<uint32_t>(x);
                break;
            case ShapeKey::SPINES:
                s.spines = static_cast<uint32_t>(x);
                break;
            case ShapeKey::UPLINK_BANDWIDTH:
                s.uplinkGBps = x;
                break;
            case ShapeKey::UPLINK_LATENCY:
                s.uplinkLatencyNs = x;
                break;
            case ShapeKey::OVERSUBSCRIPTION:
                s.oversubscription = x;
                break;
            case ShapeKey::FAT_TREE_K:
                s.fatTreeK = static_cast<uint32_t>(x);
                break;
            case ShapeKey::RAILS:
                s.rails = static_cast<uint32_t>(x);
                break;
            case ShapeKey::IN_SWITCH:
                s.inSwitch = true;
                break;
            }
        }
    }
}

/**
 * Place the memory nodes the memory_* keys declare (Topology::PlaceMemory).
 * Each key takes one value; memory_placement is required once any is given,
 * and a key that does not apply to the placement is an error.
 */
void
ReadMemoryKeys(const RawConfig& cfg, Topology& t)
{
    std::map<std::string, std::string> v; // key (underscore spelling) -> value
    std::map<std::string, std::string> spelled;
    for (const std::string& key : kMemoryKeys)
    {
        std::string alt = key;
        std::replace(alt.begin(), alt.end(), '_', '-');
        if (cfg.Has(key) && cfg.Has(alt))
        {
            cfg.Fail(key, "given twice (as '" + key + "' and '" + alt + "')");
        }
        const std::string name = cfg.Has(key) ? key : (cfg.Has(alt) ? alt : "");
        if (!name.empty())
        {
            v[key] = cfg.List(name, 1)[0];
            spelled[key] = name;
        }
    }
    if (v.empty())
    {
        return;
    }
    if (!v.count("memory_placement"))
    {
        cfg.Fail(spelled.begin()->second,
                 "memory nodes need memory_placement (per_npu, per_node or pool)");
    }
    MemoryPlacement p;
    const std::string sharing = Squash(v["memory_placement"]);
    if (sharing == "pernpu")
    {
        p.sharing = MemorySharing::PER_NPU;
    }
    else if (sharing == "pernode")
    {
        p.sharing = MemorySharing::PER_NODE;
    }
    else if (sharing == "pool")
    {
        p.sharing = MemorySharing::POOL;
    }
    else
    {
        cfg.Fail(spelled["memory_placement"],
                 "unknown placement '" + v["memory_placement"] +
                     "' (expected per_npu, per_node or pool)" +
                     DidYouMean(v["memory_placement"], {"per_npu", "per_node", "pool"}));
    }
    auto count = [&](const std::string& key, double max) -> uint32_t {
        const double x = cfg.Number(spelled[key], v[key]);
        if (!(x >= 1) || x != std::floor(x) || x > max)
        {
            cfg.Fail(spelled[key],
                     "'" + v[key] + "' is not an integer from 1 to " +
                         std::to_string(uint64_t(max)));
        }
        return static_cast<uint32_t>(x);
    };
    auto only = [&](const std::string& key, MemorySharing s) {
        if (v.count(key) && p.sharing != s)
        {
            cfg.Fail(spelled[key],
                     std::string("applies to memory_placement ") + MemorySharingName(s) + ", not " +
                         MemorySharingName(p.sharing));
        }
    };
    only("memory_npus_per_node", MemorySharing::PER_NODE);
    only("memory_pool_count", MemorySharing::POOL);
    if (p.sharing == MemorySharing::PER_NODE)
    {
        if (!v.count("memory_npus_per_node"))
        {
            cfg.Fail("memory_npus_per_node", "missing: memory_placement per_node needs it");
        }
        p.npusPerNode = count("memory_npus_per_node", 1e9);
    }
    if (v.count("memory_pool_count"))
    {
        p.pools = count("memory_pool_count", 1e6);
    }
    if (v.count("memory_attach"))
    {
        const std::string a = Squash(v["memory_attach"]);
        const std::vector<std::pair<std::string, MemoryAttach>> names = {
            {"npu", MemoryAttach::NPU},
            {"leaf", MemoryAttach::LEAF},
            {"spine", MemoryAttach::SPINE},
            {"memoryleaf", MemoryAttach::MEMORY_LEAF}};
        bool found = false;
        for (const auto& [name, at] : names)
        {
            if (a == name)
            {
                p.attach = at;
                found = true;
            }
        }
        if (!found)
        {
            cfg.Fail(spelled["memory_attach"],
                     "unknown attach point '" + v["memory_attach"] +
                         "' (expected npu, leaf, spine or memory_leaf)" +
                         DidYouMean(v["memory_attach"], {"npu", "leaf", "spine", "memory_leaf"}));
        }
    }
    if (v.count("memory_dimension"))
    {
        const double x = cfg.Number(spelled["memory_dimension"], v["memory_dimension"]);
        if (!(x >= 0) || x != std::floor(x) || x >= t.GetDimensionCount())
        {
            cfg.Fail(spelled["memory_dimension"],
                     "'" + v["memory_dimension"] + "' is not a dimension (0 to " +
                         std::to_string(t.GetDimensionCount() - 1) + ")");
        }
        p.dimension = static_cast<int32_t>(x);
    }
    // in the range of every link (astra-limits.h): a rate (GB/s) or a latency (ns)
    auto positive = [&](const std::string& key, bool latency) {
        const double x = cfg.Number(spelled[key], v[key]);
        if (x < 0 || (!latency && x == 0))
        {
            cfg.Fail(spelled[key],
                     "'" + v[key] + "' must be " + (latency ? "non-negative" : "positive"));
        }
        const double lo = latency ? 0.0 : limits::kMinBandwidthGBps;
        const double hi = latency ? limits::kMaxTimeNs : limits::kMaxBandwidthGBps;
        if (x < lo || x > hi)
        {
            std::ostringstream os;
            os << "'" << v[key] << "' is outside the accepted range " << lo << " to " << hi
               << (latency ? " ns" : " GB/s");
            cfg.Fail(spelled[key], os.str());
        }
        return x;
    };
    if (v.count("memory_bandwidth"))
    {
        p.linkGBps = positive("memory_bandwidth", false);
    }
    if (v.count("memory_latency"))
    {
        p.linkLatencyNs = positive("memory_latency", true);
    }
    if (v.count("memory_uplink_bandwidth"))
    {
        if (p.attach != MemoryAttach::MEMORY_LEAF)
        {
            cfg.Fail(spelled["memory_uplink_bandwidth"],
                     "applies to memory_attach memory_leaf only");
        }
        p.uplinkGBps = positive("memory_uplink_bandwidth", false);
    }
    try
    {
        t.PlaceMemory(p);
    }
    catch (const std::invalid_argument& e)
    {
        throw ConfigError(cfg.path + ": " + e.what());
    }
}

} // namespace

Topology
Topology::FromFile(const std::string& path)
{
    const RawConfig cfg = ReadRaw(path);
    std::vector<DimensionSpec> dims;

    auto positiveCount = [&](const std::string& key, double v) -> uint32_t {
        if (!(v >= 1) || v != std::floor(v))
        {
            cfg.Fail(key, "NPU counts must be positive integers, found " + NumText(v));
        }
        if (v > double(limits::kMaxNpus))
        {
            cfg.Fail(key,
                     NumText(v) + " NPUs in one dimension exceed the limit of " +
                         std::to_string(limits::kMaxNpus) + " NPUs per topology");
        }
        return static_cast<uint32_t>(v);
    };

    if (cfg.Has("topology"))
    {
        // current style
        CheckKeys(cfg, true);
        const auto& names = cfg.List("topology", 0);
        const size_t n = names.size();
        CheckNotModelled(cfg, n);
        const auto counts = cfg.Numbers("npus_count", n);
        const auto bws = cfg.Numbers("bandwidth", n);
        const auto lats = cfg.Numbers("latency", n);
        for (size_t d = 0; d < n; ++d)
        {
            DimensionSpec s;
            s.type = ParseDimType(cfg, "topology", names[d]);
            s.npus = positiveCount("npus_count", counts[d]);
            s.bandwidthGBps = CheckBandwidth(cfg, "bandwidth", d, bws[d]);
            s.latencyNs = CheckLatency(cfg, "latency", d, lats[d]);
            dims.push_back(s);
        }
        ReadShapeKeys(cfg, dims);
        ReadLinkEfficiency(cfg, dims);
    }
    else if (cfg.Has("topologies-per-dim") || cfg.Has("topology-name") || cfg.Has("units-count"))
    {
        // older style (YAML or JSON)
        CheckKeys(cfg, false);
        if (cfg.Has("topology-name"))
        {
            const auto& tn = cfg.List("topology-name", 1);
            if (Squash(tn[0]) != "hierarchical")
            {
                cfg.Fail("topology-name", "unsupported '" + tn[0] + "' (expected Hierarchical)");
            }
        }
        const auto& names = cfg.List("topologies-per-dim", 0);
        const size_t n = names.size();
        CheckNotModelled(cfg, n);
        if (cfg.Has("dimensions-count"))
        {
            const double dc = cfg.Number("dimensions-count", cfg.List("dimensions-count", 1)[0]);
            if (dc != double(n))
            {
                cfg.Fail("dimensions-count",
                         "says " + cfg.List("dimensions-count", 1)[0] +
                             " but topologies-per-dim has " + std::to_string(n) + " entries");
            }
        }
        const auto counts = cfg.Numbers("units-count", n);
        const auto bws = cfg.Numbers("link-bandwidth", n);
        const auto lats = cfg.Numbers("link-latency", n);
        std::vector<double> links(n, 0);
        if (cfg.Has("links-count"))
        {
            links = cfg.Numbers("links-count", n);
        }
        for (size_t d = 0; d < n; ++d)
        {
            DimensionSpec s;
            s.type = ParseDimType(cfg, "topologies-per-dim", names[d]);
            s.npus = positiveCount("units-count", counts[d]);
            CheckBandwidth(cfg, "link-bandwidth", d, bws[d]);
            s.latencyNs = CheckLatency(cfg, "link-latency", d, lats[d]);
            if (cfg.Has("links-count") &&
                (!(links[d] >= 1) || links[d] != std::floor(links[d]) || links[d] > 1e6))
            {
                cfg.Fail("links-count",
                         "dimension " + std::to_string(d) +
                             ": expected an integer from 1 to "
                             "1000000, found " +
                             NumText(links[d]));
            }
            const double needed = GetDimensionKind(s.type).LinksPerModelledLink(s.npus);
            s.bandwidthGBps =
                CheckBandwidth(cfg, "link-bandwidth", d, bws[d] * std::max(1.0, links[d] / needed));
            dims.push_back(s);
        }
        ReadShapeKeys(cfg, dims);
        ReadLinkEfficiency(cfg, dims);
    }
    else
    {
        CheckKeys(cfg, true);
        cfg.Fail("topology",
                 "missing (neither the current `topology` list nor the older "
                 "`topologies-per-dim` style found)");
    }

    Topology t;
    try
    {
        t = FromDimensions(dims);
    }
    catch (const std::invalid_argument& e)
    {
        throw ConfigError(path + ": " + e.what());
    }
    t.source = path;
    ReadMemoryKeys(cfg, t);
    return t;
}

} // namespace astra
} // namespace ns3
