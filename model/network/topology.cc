/*
 * Topology: the regular multi-dimensional networks of ASTRA-sim's network
 * configuration files (Ring / FullyConnected / Switch per dimension) and
 * switched fabrics as dimensions (two-tier Clos, k-ary fat-tree,
 * rail-optimized Clos), with O(1) link lookups by index arithmetic.
 *
 * Link layout. The links of dimension d occupy ids
 * [m_layout[d].firstLink, m_layout[d + 1].firstLink). A dimension of size n
 * has lines = npuCount / n lines (NPUs sharing every other coordinate). Lines
 * are grouped in blocks of linesPerBlock consecutive lines (1 except for
 * RailClos); block b owns linksPerBlock contiguous link ids and
 * switchesPerBlock contiguous switch node ids. Inside a line (coordinates
 * 0..n-1):
 *  - Ring (n >= 3): link k joins coordinate k (end a) to (k+1) mod n (end b):
 *    n links. A 2-NPU ring has a single full-duplex link (as ASTRA-sim's
 *    bidirectional ring, whose two "neighbour" connections coincide); a 1-NPU
 *    dimension has none.
 *  - FullyConnected: one link per pair i < j (a = i, b = j), n(n-1)/2 links,
 *    pair index i*(2n-i-1)/2 + (j-i-1).
 *  - Switch: link k joins coordinate k (a) to the line's switch (b): n links.
 *  - Clos and RailClos (R rails per block, R = 1 for Clos; H NPUs per leaf,
 *    L = n / H leaves per rail, S spines per block): switches are the leaves
 *    (rail r, leaf i) at r*L + i, then the spines at R*L + j. Links: the NPU
 *    link of rail r, coordinate c (a = NPU, b = leaf c / H) at r*n + c, then
 *    the uplink of leaf (r, i) to spine j (a = leaf, b = spine) at
 *    R*n + (r*L + i)*S + j. A fabric of a single leaf has no spines.
 *  - FatTree (k pods, h = k/2): switches are the edges (pod p, e) at p*h + e,
 *    the aggregations (p, a) at k*h + p*h + a, the cores (group a, c) at
 *    2*k*h + a*h + c. Links: NPU c to edge c / h at c, edge (p, e) to
 *    aggregation (p, a) at n + p*h*h + e*h + a, aggregation (p, a) to core
 *    (a, c) at n + k*h*h + p*h*h + a*h + c.
 *
 * Old-style files (`links-count`): the number of links per NPU in a dimension
 * is folded into the per-direction bandwidth of the single modelled link:
 * bandwidth x max(1, links / needed) with needed = 2 (Ring, one per
 * neighbour), n-1 (FullyConnected, one per peer) or 1 (Switch).
 */

#include "topology.h"

#include "ns3/log.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <yaml-cpp/yaml.h>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraTopology");

namespace
{

/// Throw std::out_of_range naming \p what when \p i >= \p size.
void
CheckIndex(const char* what, uint32_t i, size_t size)
{
    if (i >= size)
    {
        throw std::out_of_range(std::string("topology: ") + what + " " + std::to_string(i) +
                                " out of range");
    }
}

} // namespace

const char*
DimTypeName(DimType t)
{
    switch (t)
    {
    case DimType::RING:
        return "Ring";
    case DimType::FULLY_CONNECTED:
        return "FullyConnected";
    case DimType::SWITCH:
        return "Switch";
    case DimType::CLOS:
        return "Clos";
    case DimType::FAT_TREE:
        return "FatTree";
    case DimType::RAIL_CLOS:
        return "RailClos";
    }
    return "?";
}

DimensionSpec
ClosDimension(uint32_t npus,
              uint32_t hostsPerLeaf,
              uint32_t spines,
              double hostGBps,
              double hostLatencyNs,
              double uplinkGBps,
              double uplinkLatencyNs)
{
    DimensionSpec s;
    s.type = DimType::CLOS;
    s.npus = npus;
    s.bandwidthGBps = hostGBps;
    s.latencyNs = hostLatencyNs;
    s.hostsPerLeaf = hostsPerLeaf;
    s.spines = spines;
    s.uplinkGBps = uplinkGBps;
    s.uplinkLatencyNs = uplinkLatencyNs;
    return s;
}

DimensionSpec
FatTreeDimension(uint32_t k,
                 double hostGBps,
                 double hostLatencyNs,
                 double oversubscription,
                 double uplinkLatencyNs)
{
    DimensionSpec s;
    s.type = DimType::FAT_TREE;
    s.npus = static_cast<uint32_t>(uint64_t(k) * k * k / 4);
    s.bandwidthGBps = hostGBps;
    s.latencyNs = hostLatencyNs;
    s.fatTreeK = k;
    s.oversubscription = oversubscription;
    s.uplinkLatencyNs = uplinkLatencyNs;
    return s;
}

namespace
{

/// Index of pair (i < j) among the n(n-1)/2 pairs of a FullyConnected line.
inline uint64_t
PairIndex(uint32_t i, uint32_t j, uint32_t n)
{
    return uint64_t(i) * (2 * uint64_t(n) - i - 1) / 2 + (j - i - 1);
}

/// 64-bit finalizer (splitmix64): well-spread bits from a key.
inline uint64_t
Mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/// Hash of a (dimension, line, source, destination) path choice.
inline uint64_t
PathHash(uint32_t d, uint32_t line, uint32_t cs, uint32_t cd)
{
    return Mix(Mix((uint64_t(d) << 32) | line) ^ ((uint64_t(cs) << 32) | cd));
}

bool
IsSwitched(DimType t)
{
    return t == DimType::CLOS || t == DimType::FAT_TREE || t == DimType::RAIL_CLOS;
}

} // namespace

Topology
Topology::FromDimensions(const std::vector<DimensionSpec>& dims)
{
    Topology t;
    t.m_dims = dims;
    uint64_t npus = 1;
    for (size_t d = 0; d < dims.size(); ++d)
    {
        const auto& s = dims[d];
        const std::string where =
            "topology: dimension " + std::to_string(d) + " (" + DimTypeName(s.type) + ")";
        if (s.npus < 1)
        {
            throw std::invalid_argument(where + " has no NPUs");
        }
        if (!(s.bandwidthGBps > 0))
        {
            throw std::invalid_argument(where + " bandwidth must be positive");
        }
        if (!(s.latencyNs >= 0))
        {
            throw std::invalid_argument(where + " latency must not be negative");
        }
        npus *= s.npus;
        if (npus > std::numeric_limits<uint32_t>::max() / 2)
        {
            throw std::invalid_argument("topology: too many NPUs");
        }
    }
    t.m_npuCount = dims.empty() ? 0 : static_cast<uint32_t>(npus);
    t.m_kinds.assign(t.m_npuCount, TopoNodeKind::NPU);
    t.m_nodeLinks.assign(t.m_npuCount, {});
    t.m_tier.assign(t.m_npuCount, SwitchTier::NONE);
    t.m_switchDim.assign(t.m_npuCount, -1);

    // Resolve every dimension's layout (validating the shape fields).
    t.m_layout.assign(dims.size() + 1, DimLayout{});
    uint64_t totalLinks = 0;
    uint64_t totalSwitches = 0;
    uint64_t stride = 1;
    for (size_t d = 0; d < dims.size(); ++d)
    {
        const auto& s = dims[d];
        const uint32_t n = s.npus;
        const uint32_t lines = t.m_npuCount / n;
        auto fail = [&](const std::string& what) {
            throw std::invalid_argument("topology: dimension " + std::to_string(d) + " (" +
                                        DimTypeName(s.type) + "): " + what);
        };
        DimLayout& lay = t.m_layout[d];
        lay.blocks = lines;
        if (!IsSwitched(s.type))
        {
            if (s.hostsPerLeaf || s.spines || s.uplinkGBps != 0 || s.oversubscription != 0 ||
                s.fatTreeK || s.rails || s.uplinkLatencyNs >= 0)
            {
                fail("Clos / fat-tree fields ('hosts_per_leaf', 'spines', 'uplink_bandwidth', "
                     "'uplink_latency', 'oversubscription', 'fat_tree_k', 'rails') do not "
                     "apply");
            }
            switch (s.type)
            {
            case DimType::RING:
                lay.linksPerBlock = n <= 1 ? 0 : (n == 2 ? 1 : n);
                break;
            case DimType::FULLY_CONNECTED:
                lay.linksPerBlock = uint64_t(n) * (n - 1) / 2;
                break;
            default: // SWITCH
                lay.linksPerBlock = n <= 1 ? 0 : n;
                lay.switchesPerBlock = n <= 1 ? 0 : 1;
                break;
            }
        }
        else
        {
            if (s.uplinkGBps < 0 || !std::isfinite(s.uplinkGBps))
            {
                fail("'uplink_bandwidth' must be positive");
            }
            if (s.oversubscription < 0 || !std::isfinite(s.oversubscription))
            {
                fail("'oversubscription' must be positive");
            }
            if (s.uplinkGBps > 0 && s.oversubscription > 0)
            {
                fail("give 'uplink_bandwidth' or 'oversubscription', not both");
            }
            if (!std::isfinite(s.uplinkLatencyNs))
            {
                fail("'uplink_latency' must be a number");
            }
            const double over = s.oversubscription > 0 ? s.oversubscription : 1.0;
            if (s.type == DimType::FAT_TREE)
            {
                if (s.hostsPerLeaf || s.spines || s.rails)
                {
                    fail("'hosts_per_leaf', 'spines' and 'rails' do not apply (set 'fat_tree_k')");
                }
                uint32_t k = s.fatTreeK;
                if (k == 0)
                {
                    while (uint64_t(k) * k * k / 4 < n)
                    {
                        k += 2;
                    }
                }
                if (k < 2 || k % 2 != 0 || uint64_t(k) * k * k / 4 != n)
                {
                    fail("'fat_tree_k': a k-ary fat-tree has k^3/4 NPUs with k even; " +
                         std::to_string(n) + " NPUs" +
                         (s.fatTreeK ? " do not match k = " + std::to_string(k) : "") +
                         " (e.g. k = 4: 16, k = 8: 128, k = 16: 1024)");
                }
                const uint32_t h = k / 2;
                lay.half = h;
                lay.hostsPerLeaf = h;
                lay.linksPerBlock = n + 2ULL * k * h * h;
                lay.switchesPerBlock = 2 * k * h + h * h;
                lay.uplinkGBps = s.uplinkGBps > 0 ? s.uplinkGBps : s.bandwidthGBps / over;
            }
            else
            {
                if (s.fatTreeK)
                {
                    fail("'fat_tree_k' applies to FatTree dimensions only");
                }
                const uint32_t hpl = s.hostsPerLeaf ? s.hostsPerLeaf : n;
                if (n % hpl != 0)
                {
                    fail("'hosts_per_leaf' (" + std::to_string(hpl) + ") must divide the " +
                         std::to_string(n) + " NPUs");
                }
                uint32_t rails = 1;
                if (s.type == DimType::RAIL_CLOS)
                {
                    rails = s.rails ? s.rails : static_cast<uint32_t>(stride);
                    if (stride % rails != 0)
                    {
                        fail("'rails' (" + std::to_string(rails) +
                             ") must divide the product of the lower dimensions' sizes (" +
                             std::to_string(stride) + ")");
                    }
                }
                else if (s.rails)
                {
                    fail("'rails' applies to RailClos dimensions only");
                }
                lay.linesPerBlock = rails;
                lay.blocks = lines / rails;
                lay.hostsPerLeaf = hpl;
                lay.leaves = n / hpl;
                if (n > 1)
                {
                    const uint64_t fabricLeaves = uint64_t(rails) * lay.leaves;
                    lay.spines = fabricLeaves > 1 ? (s.spines ? s.spines : hpl) : 0;
                    lay.linksPerBlock = uint64_t(rails) * n + fabricLeaves * lay.spines;
                    lay.switchesPerBlock = static_cast<uint32_t>(fabricLeaves + lay.spines);
                    if (fabricLeaves + lay.spines > std::numeric_limits<uint32_t>::max() / 2)
                    {
                        fail("too many switches");
                    }
                }
                lay.uplinkGBps =
                    s.uplinkGBps > 0
                        ? s.uplinkGBps
                        : (lay.spines ? double(hpl) * s.bandwidthGBps / (double(lay.spines) * over)
                                      : s.bandwidthGBps / over);
            }
        }
        totalLinks += lay.linksPerBlock * lay.blocks;
        totalSwitches += uint64_t(lay.switchesPerBlock) * lay.blocks;
        stride *= n;
    }
    if (totalLinks > std::numeric_limits<uint32_t>::max() / 2 ||
        totalSwitches + t.m_npuCount > std::numeric_limits<uint32_t>::max() / 2)
    {
        throw std::invalid_argument("topology: too many links or switches");
    }

    // Switches, dimension by dimension, block by block.
    for (size_t d = 0; d < dims.size(); ++d)
    {
        DimLayout& lay = t.m_layout[d];
        lay.firstSwitch = static_cast<uint32_t>(t.m_kinds.size());
        const uint32_t leafCount = dims[d].type == DimType::FAT_TREE
                                       ? 2 * lay.half * lay.half
                                       : lay.linesPerBlock * lay.leaves;
        const uint32_t spineEnd =
            dims[d].type == DimType::FAT_TREE ? 4 * lay.half * lay.half : lay.switchesPerBlock;
        for (uint32_t b = 0; b < lay.blocks; ++b)
        {
            for (uint32_t i = 0; i < lay.switchesPerBlock; ++i)
            {
                const uint32_t id = t.AddNode(TopoNodeKind::SWITCH);
                t.m_switchDim[id] = int32_t(d);
                if (dims[d].type == DimType::SWITCH)
                {
                    t.m_tier[id] = SwitchTier::LINE;
                }
                else
                {
                    t.m_tier[id] = i < leafCount
                                       ? SwitchTier::LEAF
                                       : (i < spineEnd ? SwitchTier::SPINE : SwitchTier::CORE);
                }
            }
        }
    }

    // Links, dimension by dimension, block by block (see the layout above).
    t.m_links.reserve(totalLinks);
    uint32_t str = 1;
    for (size_t d = 0; d < dims.size(); ++d)
    {
        const auto& s = dims[d];
        DimLayout& lay = t.m_layout[d];
        const uint32_t n = s.npus;
        const double rate = GBpsToBytesPerNs(s.bandwidthGBps);
        const double upRate = GBpsToBytesPerNs(lay.uplinkGBps);
        const double upLat = s.uplinkLatencyNs >= 0 ? s.uplinkLatencyNs : s.latencyNs;
        const int32_t dim = int32_t(d);
        lay.firstLink = static_cast<uint32_t>(t.m_links.size());
        for (uint32_t b = 0; b < lay.blocks; ++b)
        {
            const uint32_t sw0 = lay.firstSwitch + b * lay.switchesPerBlock;
            for (uint32_t r = 0; r < lay.linesPerBlock; ++r)
            {
                // first NPU of line l: l's digits are the other coordinates
                const uint32_t l = b * lay.linesPerBlock + r;
                const uint32_t base = (l / str) * str * n + (l % str);
                auto npuAt = [&](uint32_t c) { return base + c * str; };
                switch (s.type)
                {
                case DimType::RING:
                    if (n == 2)
                    {
                        t.AddLink(npuAt(0), npuAt(1), rate, s.latencyNs, dim);
                    }
                    else if (n > 2)
                    {
                        for (uint32_t k = 0; k < n; ++k)
                        {
                            t.AddLink(npuAt(k), npuAt((k + 1) % n), rate, s.latencyNs, dim);
                        }
                    }
                    break;
                case DimType::FULLY_CONNECTED:
                    for (uint32_t i = 0; i < n; ++i)
                    {
                        for (uint32_t j = i + 1; j < n; ++j)
                        {
                            t.AddLink(npuAt(i), npuAt(j), rate, s.latencyNs, dim);
                        }
                    }
                    break;
                case DimType::SWITCH:
                    if (n > 1)
                    {
                        for (uint32_t k = 0; k < n; ++k)
                        {
                            t.AddLink(npuAt(k), sw0, rate, s.latencyNs, dim);
                        }
                    }
                    break;
                case DimType::CLOS:
                case DimType::RAIL_CLOS:
                    if (n > 1)
                    {
                        for (uint32_t k = 0; k < n; ++k)
                        {
                            t.AddLink(npuAt(k),
                                      sw0 + r * lay.leaves + k / lay.hostsPerLeaf,
                                      rate,
                                      s.latencyNs,
                                      dim);
                        }
                    }
                    break;
                case DimType::FAT_TREE:
                    for (uint32_t k = 0; k < n; ++k)
                    {
                        t.AddLink(npuAt(k), sw0 + k / lay.half, rate, s.latencyNs, dim);
                    }
                    break;
                }
            }
            // switch-to-switch links of the block
            if (s.type == DimType::CLOS || s.type == DimType::RAIL_CLOS)
            {
                const uint32_t fabricLeaves = lay.linesPerBlock * lay.leaves;
                for (uint32_t i = 0; i < fabricLeaves && lay.spines; ++i)
                {
                    for (uint32_t j = 0; j < lay.spines; ++j)
                    {
                        t.AddLink(sw0 + i, sw0 + fabricLeaves + j, upRate, upLat, dim);
                    }
                }
            }
            else if (s.type == DimType::FAT_TREE)
            {
                const uint32_t h = lay.half;
                const uint32_t k = 2 * h;
                for (uint32_t p = 0; p < k; ++p)
                {
                    for (uint32_t e = 0; e < h; ++e)
                    {
                        for (uint32_t a = 0; a < h; ++a)
                        {
                            t.AddLink(sw0 + p * h + e, sw0 + k * h + p * h + a, upRate, upLat, dim);
                        }
                    }
                }
                for (uint32_t p = 0; p < k; ++p)
                {
                    for (uint32_t a = 0; a < h; ++a)
                    {
                        for (uint32_t c = 0; c < h; ++c)
                        {
                            t.AddLink(sw0 + k * h + p * h + a,
                                      sw0 + 2 * k * h + a * h + c,
                                      upRate,
                                      upLat,
                                      dim);
                        }
                    }
                }
            }
        }
        str *= n;
    }
    t.m_layout[dims.size()].firstLink = static_cast<uint32_t>(t.m_links.size());
    t.m_layout[dims.size()].firstSwitch = static_cast<uint32_t>(t.m_kinds.size());
    NS_LOG_INFO("topology: " << t.m_npuCount << " NPUs, " << t.m_kinds.size() - t.m_npuCount
                             << " other nodes, " << t.m_links.size() << " links");
    return t;
}

// ---------------------------------------------------------------- file input

namespace
{

/// A network configuration file reduced to key -> list of scalar strings.
struct RawConfig
{
    std::string path;
    std::map<std::string, std::vector<std::string>> values;

    [[noreturn]] void Fail(const std::string& key, const std::string& what) const
    {
        throw std::runtime_error("network configuration '" + path + "': key '" + key +
                                 "': " + what);
    }

    bool Has(const std::string& key) const
    {
        return values.count(key) != 0;
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
            double v = std::stod(s, &pos);
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
            Fail(key, "'" + s + "' is not a number");
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
                list.emplace_back("~"); // "default" in the per-dimension Clos keys
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
    else if (node.IsNull())
    {
        // an empty value: reported as an empty list when used
    }
    else
    {
        return; // nested maps are not part of the network format; ignore
    }
    cfg.values[key] = list;
}

void
FlattenJson(const nlohmann::json& node, const std::string& key, RawConfig& cfg)
{
    auto scalar = [&](const nlohmann::json& e) -> std::string {
        if (e.is_null())
        {
            return "~"; // "default" in the per-dimension Clos keys
        }
        if (e.is_string())
        {
            return e.get<std::string>();
        }
        if (e.is_number() || e.is_boolean())
        {
            return e.dump();
        }
        cfg.Fail(key, "expected a list of scalars");
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
        return;
    }
    else if (!node.is_null())
    {
        list.push_back(scalar(node));
    }
    cfg.values[key] = list;
}

RawConfig
ReadRaw(const std::string& path)
{
    RawConfig cfg;
    cfg.path = path;
    std::ifstream in(path);
    if (!in)
    {
        throw std::runtime_error("network configuration '" + path + "': cannot open file");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const size_t first = text.find_first_not_of(" \t\r\n");
    const bool isJson = first != std::string::npos && text[first] == '{';
    if (isJson)
    {
        nlohmann::json j;
        try
        {
            j = nlohmann::json::parse(text);
        }
        catch (const std::exception& e)
        {
            throw std::runtime_error("network configuration '" + path +
                                     "': invalid JSON: " + e.what());
        }
        if (!j.is_object())
        {
            throw std::runtime_error("network configuration '" + path +
                                     "': expected a JSON object");
        }
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
            throw std::runtime_error("network configuration '" + path +
                                     "': invalid YAML: " + e.what());
        }
        if (!root.IsMap())
        {
            throw std::runtime_error("network configuration '" + path +
                                     "': expected a mapping of keys");
        }
        for (const auto& kv : root)
        {
            FlattenYaml(kv.second, kv.first.as<std::string>(), cfg);
        }
    }
    return cfg;
}

std::string
Lower(std::string s)
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
    const std::string l = Lower(name);
    if (l == "ring")
    {
        return DimType::RING;
    }
    if (l == "fullyconnected" || l == "fc")
    {
        return DimType::FULLY_CONNECTED;
    }
    if (l == "switch")
    {
        return DimType::SWITCH;
    }
    if (l == "clos" || l == "leafspine")
    {
        return DimType::CLOS;
    }
    if (l == "fattree")
    {
        return DimType::FAT_TREE;
    }
    if (l == "railclos" || l == "railoptimized" || l == "rail")
    {
        return DimType::RAIL_CLOS;
    }
    cfg.Fail(key,
             "unknown topology '" + name +
                 "' (expected Ring, FullyConnected, Switch, Clos, FatTree or RailClos)");
}

/// Is a per-dimension entry the "default" marker (-, ~, null, empty)?
bool
IsDefaultEntry(const std::string& v)
{
    const std::string l = Lower(v);
    return l.empty() || l == "~" || l == "null" || l == "none" || v == "-";
}

/**
 * Read the optional per-dimension keys of the switched dimension types into
 * dims. Each key is a list with one entry per dimension; "-", "~" (null) or
 * 0 stand for "default / not applicable". Both key_name and key-name spellings
 * are accepted.
 */
void
ReadSwitchedKeys(const RawConfig& cfg, std::vector<DimensionSpec>& dims)
{
    enum Applies
    {
        CLOS_ONLY,     // Clos and RailClos
        SWITCHED,      // Clos, RailClos and FatTree
        FAT_TREE_ONLY, // FatTree
        RAIL_ONLY      // RailClos
    };

    struct Key
    {
        const char* name;
        Applies applies;
        bool integer;
        bool zeroOk; // 0 is a valid value (latency)
    };

    const Key keys[] = {
        {"hosts_per_leaf", CLOS_ONLY, true, false},
        {"spines", CLOS_ONLY, true, false},
        {"uplink_bandwidth", SWITCHED, false, false},
        {"uplink_latency", SWITCHED, false, true},
        {"oversubscription", SWITCHED, false, false},
        {"fat_tree_k", FAT_TREE_ONLY, true, false},
        {"rails", RAIL_ONLY, true, false},
    };
    const size_t n = dims.size();
    for (const Key& k : keys)
    {
        std::string name = k.name;
        std::string alt = name;
        std::replace(alt.begin(), alt.end(), '_', '-');
        if (alt != name && cfg.Has(name) && cfg.Has(alt))
        {
            cfg.Fail(name, "given twice (as '" + name + "' and '" + alt + "')");
        }
        if (!cfg.Has(name))
        {
            if (!cfg.Has(alt))
            {
                continue;
            }
            name = alt;
        }
        const auto& list = cfg.List(name, n);
        for (size_t d = 0; d < n; ++d)
        {
            const std::string& v = list[d];
            const DimType t = dims[d].type;
            bool applies = false;
            switch (k.applies)
            {
            case CLOS_ONLY:
                applies = t == DimType::CLOS || t == DimType::RAIL_CLOS;
                break;
            case SWITCHED:
                applies = IsSwitched(t);
                break;
            case FAT_TREE_ONLY:
                applies = t == DimType::FAT_TREE;
                break;
            case RAIL_ONLY:
                applies = t == DimType::RAIL_CLOS;
                break;
            }
            if (IsDefaultEntry(v))
            {
                continue;
            }
            const double x = cfg.Number(name, v);
            if (!applies)
            {
                if (x != 0)
                {
                    cfg.Fail(name,
                             "dimension " + std::to_string(d) + " is " + DimTypeName(t) +
                                 ", to which this key does not apply (write - or 0)");
                }
                continue;
            }
            if (x == 0 && !k.zeroOk)
            {
                continue; // 0: default
            }
            if (x < 0 || (k.integer && (x != std::floor(x) || x > 1e9)))
            {
                cfg.Fail(name,
                         "dimension " + std::to_string(d) + ": '" + v + "' is not a " +
                             (k.integer ? "positive integer" : "non-negative number"));
            }
            DimensionSpec& s = dims[d];
            const std::string key = k.name;
            if (key == "hosts_per_leaf")
            {
                s.hostsPerLeaf = static_cast<uint32_t>(x);
            }
            else if (key == "spines")
            {
                s.spines = static_cast<uint32_t>(x);
            }
            else if (key == "uplink_bandwidth")
            {
                s.uplinkGBps = x;
            }
            else if (key == "uplink_latency")
            {
                s.uplinkLatencyNs = x;
            }
            else if (key == "oversubscription")
            {
                s.oversubscription = x;
            }
            else if (key == "fat_tree_k")
            {
                s.fatTreeK = static_cast<uint32_t>(x);
            }
            else
            {
                s.rails = static_cast<uint32_t>(x);
            }
        }
    }
}

} // namespace

Topology
Topology::FromFile(const std::string& path)
{
    const RawConfig cfg = ReadRaw(path);
    std::vector<DimensionSpec> dims;

    auto positiveCount = [&](const std::string& key, double v) -> uint32_t {
        if (!(v >= 1) || v != std::floor(v) || v > 1e9)
        {
            cfg.Fail(key, "NPU counts must be positive integers");
        }
        return static_cast<uint32_t>(v);
    };

    if (cfg.Has("topology"))
    {
        // current style
        const auto& names = cfg.List("topology", 0);
        const size_t n = names.size();
        const auto counts = cfg.Numbers("npus_count", n);
        const auto bws = cfg.Numbers("bandwidth", n);
        const auto lats = cfg.Numbers("latency", n);
        for (size_t d = 0; d < n; ++d)
        {
            DimensionSpec s;
            s.type = ParseDimType(cfg, "topology", names[d]);
            s.npus = positiveCount("npus_count", counts[d]);
            if (!(bws[d] > 0))
            {
                cfg.Fail("bandwidth", "values must be positive");
            }
            if (!(lats[d] >= 0))
            {
                cfg.Fail("latency", "values must not be negative");
            }
            s.bandwidthGBps = bws[d];
            s.latencyNs = lats[d];
            dims.push_back(s);
        }
        ReadSwitchedKeys(cfg, dims);
    }
    else if (cfg.Has("topologies-per-dim") || cfg.Has("topology-name") || cfg.Has("units-count"))
    {
        // older style (YAML or JSON)
        if (cfg.Has("topology-name"))
        {
            const auto& tn = cfg.List("topology-name", 1);
            if (Lower(tn[0]) != "hierarchical")
            {
                cfg.Fail("topology-name", "unsupported '" + tn[0] + "' (expected Hierarchical)");
            }
        }
        const auto& names = cfg.List("topologies-per-dim", 0);
        const size_t n = names.size();
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
            if (!(bws[d] > 0))
            {
                cfg.Fail("link-bandwidth", "values must be positive");
            }
            if (!(lats[d] >= 0))
            {
                cfg.Fail("link-latency", "values must not be negative");
            }
            if (cfg.Has("links-count") && !(links[d] > 0))
            {
                cfg.Fail("links-count", "values must be positive");
            }
            double needed = 1;
            if (s.type == DimType::RING)
            {
                needed = 2;
            }
            else if (s.type == DimType::FULLY_CONNECTED)
            {
                needed = std::max<double>(1, s.npus - 1);
            }
            s.bandwidthGBps = bws[d] * std::max(1.0, links[d] / needed);
            s.latencyNs = lats[d];
            dims.push_back(s);
        }
        ReadSwitchedKeys(cfg, dims);
    }
    else
    {
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
        throw std::runtime_error("network configuration '" + path + "': " + e.what());
    }
    t.source = path;
    return t;
}

// ---------------------------------------------------------------- accessors

uint32_t
Topology::GetNpuCount() const
{
    return m_npuCount;
}

uint32_t
Topology::GetNodeCount() const
{
    return static_cast<uint32_t>(m_kinds.size());
}

TopoNodeKind
Topology::GetNodeKind(uint32_t node) const
{
    CheckIndex("node", node, m_kinds.size());
    return m_kinds[node];
}

const std::vector<DimensionSpec>&
Topology::GetDimensions() const
{
    return m_dims;
}

uint32_t
Topology::GetDimensionCount() const
{
    return static_cast<uint32_t>(m_dims.size());
}

std::vector<uint32_t>
Topology::GetCoordinates(uint32_t npu) const
{
    if (npu >= m_npuCount)
    {
        throw std::out_of_range("topology: NPU " + std::to_string(npu) + " out of range (" +
                                std::to_string(m_npuCount) + " NPUs)");
    }
    std::vector<uint32_t> c(m_dims.size());
    for (size_t d = 0; d < m_dims.size(); ++d)
    {
        c[d] = npu % m_dims[d].npus;
        npu /= m_dims[d].npus;
    }
    return c;
}

uint32_t
Topology::GetNpuId(const std::vector<uint32_t>& coords) const
{
    if (coords.size() != m_dims.size())
    {
        throw std::invalid_argument("topology: expected " + std::to_string(m_dims.size()) +
                                    " coordinates");
    }
    uint32_t id = 0;
    for (size_t d = m_dims.size(); d-- > 0;)
    {
        if (coords[d] >= m_dims[d].npus)
        {
            throw std::out_of_range("topology: coordinate " + std::to_string(coords[d]) +
                                    " out of range in dimension " + std::to_string(d));
        }
        id = id * m_dims[d].npus + coords[d];
    }
    return id;
}

uint32_t
Topology::GetCoordinate(uint32_t npu, uint32_t dim) const
{
    if (npu >= m_npuCount || dim >= m_dims.size())
    {
        throw std::out_of_range("topology: NPU " + std::to_string(npu) + " / dimension " +
                                std::to_string(dim) + " out of range");
    }
    uint32_t stride = 1;
    for (uint32_t d = 0; d < dim; ++d)
    {
        stride *= m_dims[d].npus;
    }
    return (npu / stride) % m_dims[dim].npus;
}

std::vector<uint32_t>
Topology::GetDimensionPeers(uint32_t npu, uint32_t dim) const
{
    if (npu >= m_npuCount || dim >= m_dims.size())
    {
        throw std::out_of_range("topology: NPU " + std::to_string(npu) + " / dimension " +
                                std::to_string(dim) + " out of range");
    }
    uint32_t stride = 1;
    for (uint32_t d = 0; d < dim; ++d)
    {
        stride *= m_dims[d].npus;
    }
    const uint32_t n = m_dims[dim].npus;
    const uint32_t base = npu - ((npu / stride) % n) * stride;
    std::vector<uint32_t> peers(n);
    for (uint32_t c = 0; c < n; ++c)
    {
        peers[c] = base + c * stride;
    }
    return peers;
}

const std::vector<TopoLink>&
Topology::GetLinks() const
{
    return m_links;
}

const std::vector<uint32_t>&
Topology::GetNodeLinks(uint32_t node) const
{
    CheckIndex("node", node, m_nodeLinks.size());
    return m_nodeLinks[node];
}

double
Topology::GetUplinkGBps(uint32_t dim) const
{
    CheckIndex("dimension", dim, m_dims.size());
    return m_layout[dim].uplinkGBps;
}

SwitchTier
Topology::GetSwitchTier(uint32_t node) const
{
    CheckIndex("node", node, m_tier.size());
    return m_tier[node];
}

int32_t
Topology::GetSwitchDimension(uint32_t node) const
{
    CheckIndex("node", node, m_switchDim.size());
    return m_switchDim[node];
}

std::vector<uint32_t>
Topology::GetDimensionSwitches(uint32_t dim, SwitchTier tier) const
{
    CheckIndex("dimension", dim, m_dims.size());
    std::vector<uint32_t> out;
    for (uint32_t i = m_layout[dim].firstSwitch; i < m_layout[dim + 1].firstSwitch; ++i)
    {
        if (m_tier[i] == tier)
        {
            out.push_back(i);
        }
    }
    return out;
}

uint32_t
Topology::GetAttachSwitch(uint32_t npu, uint32_t dim) const
{
    const uint32_t c = GetCoordinate(npu, dim); // checks the range
    const DimLayout& lay = m_layout[dim];
    if (lay.switchesPerBlock == 0)
    {
        return UINT32_MAX;
    }
    uint32_t stride = 1;
    for (uint32_t d = 0; d < dim; ++d)
    {
        stride *= m_dims[d].npus;
    }
    const uint32_t n = m_dims[dim].npus;
    const uint32_t line = (npu / (stride * n)) * stride + (npu % stride);
    const uint32_t block = line / lay.linesPerBlock;
    const uint32_t sw0 = lay.firstSwitch + block * lay.switchesPerBlock;
    switch (m_dims[dim].type)
    {
    case DimType::SWITCH:
        return sw0;
    case DimType::CLOS:
    case DimType::RAIL_CLOS:
        return sw0 + (line % lay.linesPerBlock) * lay.leaves + c / lay.hostsPerLeaf;
    case DimType::FAT_TREE:
        return sw0 + c / lay.half;
    default:
        return UINT32_MAX;
    }
}

uint32_t
Topology::AttachMemoryNode(uint32_t node, double gbps, double latencyNs)
{
    if (node >= m_kinds.size())
    {
        throw std::out_of_range("topology: memory node attach point " + std::to_string(node) +
                                " out of range");
    }
    if (!(gbps > 0) || !(latencyNs >= 0))
    {
        throw std::invalid_argument("topology: memory node link needs a positive bandwidth and "
                                    "a non-negative latency");
    }
    const uint32_t m = AddNode(TopoNodeKind::MEMORY);
    AddLink(m, node, GBpsToBytesPerNs(gbps), latencyNs, -1);
    return m;
}

uint32_t
Topology::AddNode(TopoNodeKind kind)
{
    m_kinds.push_back(kind);
    m_nodeLinks.emplace_back();
    m_tier.push_back(SwitchTier::NONE);
    m_switchDim.push_back(-1);
    return static_cast<uint32_t>(m_kinds.size() - 1);
}

uint32_t
Topology::AddLink(uint32_t a, uint32_t b, double bytesPerNs, double latencyNs, int32_t dim)
{
    if (a >= m_kinds.size() || b >= m_kinds.size())
    {
        throw std::out_of_range("topology: link end out of range");
    }
    TopoLink l;
    l.a = a;
    l.b = b;
    l.bytesPerNs = bytesPerNs;
    l.latencyNs = latencyNs;
    l.dim = dim;
    m_links.push_back(l);
    const uint32_t id = static_cast<uint32_t>(m_links.size() - 1);
    m_nodeLinks[a].push_back(id);
    m_nodeLinks[b].push_back(id);
    return id;
}

// ---------------------------------------------------------------- routing

std::vector<Topology::Hop>
Topology::Route(uint32_t src, uint32_t dst, int32_t dim) const
{
    std::vector<Hop> hops;
    AppendRoute(src, dst, dim, hops);
    return hops;
}

void
Topology::AppendRoute(uint32_t src, uint32_t dst, int32_t dim, std::vector<Hop>& hops) const
{
    if (src >= m_npuCount || dst >= m_npuCount)
    {
        throw std::out_of_range("topology: route " + std::to_string(src) + " -> " +
                                std::to_string(dst) + ": NPU out of range (" +
                                std::to_string(m_npuCount) + " NPUs)");
    }
    if (dim >= int32_t(m_dims.size()) || dim < -1)
    {
        throw std::out_of_range("topology: route " + std::to_string(src) + " -> " +
                                std::to_string(dst) + ": dimension " + std::to_string(dim) +
                                " out of range");
    }
    uint32_t cur = src;
    uint32_t stride = 1;
    uint32_t s = src;
    uint32_t t = dst;
    for (uint32_t d = 0; d < m_dims.size(); ++d)
    {
        const uint32_t n = m_dims[d].npus;
        const uint32_t cs = s % n;
        const uint32_t cd = t % n;
        s /= n;
        t /= n;
        if (cs != cd)
        {
            if (dim >= 0 && uint32_t(dim) != d)
            {
                throw std::invalid_argument(
                    "topology: route " + std::to_string(src) + " -> " + std::to_string(dst) +
                    " in dimension " + std::to_string(dim) +
                    ": the NPUs also differ in dimension " + std::to_string(d));
            }
            const uint32_t line = (cur / (stride * n)) * stride + (cur % stride);
            AppendDimHops(d, line, cs, cd, hops);
            cur = cur + cd * stride - cs * stride;
        }
        stride *= n;
    }
}

void
Topology::AppendDimHops(uint32_t d, uint32_t line, uint32_t cs, uint32_t cd, std::vector<Hop>& hops)
    const
{
    const auto& spec = m_dims[d];
    const DimLayout& lay = m_layout[d];
    const uint32_t n = spec.npus;
    const uint32_t block = line / lay.linesPerBlock;
    const uint64_t first = lay.firstLink + uint64_t(block) * lay.linksPerBlock;
    switch (spec.type)
    {
    case DimType::RING: {
        if (n == 2)
        {
            hops.push_back({static_cast<uint32_t>(first), uint8_t(cs == 0 ? 0 : 1)});
            return;
        }
        // link c joins c and c + 1 (mod n); no division per hop
        const uint32_t fwd = cd >= cs ? cd - cs : cd + n - cs;
        const size_t at = hops.size();
        if (fwd <= n - fwd)
        {
            hops.resize(at + fwd);
            for (uint32_t k = 0, c = cs; k < fwd; ++k)
            {
                hops[at + k] = {static_cast<uint32_t>(first + c), 0};
                c = c + 1 == n ? 0 : c + 1;
            }
        }
        else
        {
            hops.resize(at + (n - fwd));
            for (uint32_t k = 0, c = cs; k < n - fwd; ++k)
            {
                c = c == 0 ? n - 1 : c - 1; // link c joins c and c + 1
                hops[at + k] = {static_cast<uint32_t>(first + c), 1};
            }
        }
        return;
    }
    case DimType::FULLY_CONNECTED: {
        const uint32_t i = std::min(cs, cd);
        const uint32_t j = std::max(cs, cd);
        hops.push_back(
            {static_cast<uint32_t>(first + PairIndex(i, j, n)), uint8_t(cs < cd ? 0 : 1)});
        return;
    }
    case DimType::SWITCH:
        hops.push_back({static_cast<uint32_t>(first + cs), 0});
        hops.push_back({static_cast<uint32_t>(first + cd), 1});
        return;
    case DimType::CLOS:
    case DimType::RAIL_CLOS: {
        const uint32_t r = line % lay.linesPerBlock;
        const uint64_t host = first + uint64_t(r) * n;
        hops.push_back({static_cast<uint32_t>(host + cs), 0});
        const uint32_t ls = cs / lay.hostsPerLeaf;
        const uint32_t ld = cd / lay.hostsPerLeaf;
        if (ls != ld)
        {
            const uint32_t j = static_cast<uint32_t>(PathHash(d, line, cs, cd) % lay.spines);
            const uint64_t up =
                first + uint64_t(lay.linesPerBlock) * n + uint64_t(r) * lay.leaves * lay.spines + j;
            hops.push_back({static_cast<uint32_t>(up + uint64_t(ls) * lay.spines), 0});
            hops.push_back({static_cast<uint32_t>(up + uint64_t(ld) * lay.spines), 1});
        }
        hops.push_back({static_cast<uint32_t>(host + cd), 1});
        return;
    }
    case DimType::FAT_TREE: {
        const uint32_t h = lay.half;
        const uint32_t k = 2 * h;
        const uint32_t es = cs / h; // global edge index p * h + e
        const uint32_t ed = cd / h;
        hops.push_back({static_cast<uint32_t>(first + cs), 0});
        if (es != ed)
        {
            const uint64_t hash = PathHash(d, line, cs, cd);
            const uint32_t a = static_cast<uint32_t>(hash % h);
            const uint32_t ps = es / h;
            const uint32_t pd = ed / h;
            const uint64_t edgeAgg = first + n;
            const uint64_t aggCore = edgeAgg + uint64_t(k) * h * h;
            // edge (p, e) -> agg (p, a): p*h*h + e*h + a = es*h + a
            hops.push_back({static_cast<uint32_t>(edgeAgg + uint64_t(es) * h + a), 0});
            if (ps != pd)
            {
                const uint32_t c = static_cast<uint32_t>((hash / h) % h);
                hops.push_back(
                    {static_cast<uint32_t>(aggCore + uint64_t(ps) * h * h + a * h + c), 0});
                hops.push_back(
                    {static_cast<uint32_t>(aggCore + uint64_t(pd) * h * h + a * h + c), 1});
            }
            hops.push_back({static_cast<uint32_t>(edgeAgg + uint64_t(ed) * h + a), 1});
        }
        hops.push_back({static_cast<uint32_t>(first + cd), 1});
        return;
    }
    }
}

} // namespace astra
} // namespace ns3
