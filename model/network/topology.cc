/*
 * Topology: the regular multi-dimensional networks of ASTRA-sim's network
 * configuration files (Ring / FullyConnected / Switch per dimension), with
 * O(1) link lookups by index arithmetic.
 *
 * Link layout. The links of dimension d occupy ids
 * [m_dimFirstLink[d], m_dimFirstLink[d+1]). A dimension of size n has
 * lines = npuCount / n lines (NPUs sharing every other coordinate); line l owns
 * a contiguous block of linksPerLine(d) ids. Inside a line (coordinates 0..n-1):
 *  - Ring (n >= 3): link k joins coordinate k (end a) to (k+1) mod n (end b):
 *    n links. A 2-NPU ring has a single full-duplex link (as ASTRA-sim's
 *    bidirectional ring, whose two "neighbour" connections coincide); a 1-NPU
 *    dimension has none.
 *  - FullyConnected: one link per pair i < j (a = i, b = j), n(n-1)/2 links,
 *    pair index i*(2n-i-1)/2 + (j-i-1).
 *  - Switch: link k joins coordinate k (a) to the line's switch (b): n links.
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
    }
    return "?";
}

namespace
{

/// Number of links one line of a dimension owns.
uint64_t
LinksPerLine(DimType t, uint32_t n)
{
    switch (t)
    {
    case DimType::RING:
        return n <= 1 ? 0 : (n == 2 ? 1 : n);
    case DimType::FULLY_CONNECTED:
        return uint64_t(n) * (n - 1) / 2;
    case DimType::SWITCH:
        return n <= 1 ? 0 : n;
    }
    return 0;
}

/// Index of pair (i < j) among the n(n-1)/2 pairs of a FullyConnected line.
inline uint64_t
PairIndex(uint32_t i, uint32_t j, uint32_t n)
{
    return uint64_t(i) * (2 * uint64_t(n) - i - 1) / 2 + (j - i - 1);
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
        if (s.npus < 1)
        {
            throw std::invalid_argument("topology: dimension " + std::to_string(d) +
                                        " has no NPUs");
        }
        if (!(s.bandwidthGBps > 0))
        {
            throw std::invalid_argument("topology: dimension " + std::to_string(d) +
                                        " bandwidth must be positive");
        }
        if (!(s.latencyNs >= 0))
        {
            throw std::invalid_argument("topology: dimension " + std::to_string(d) +
                                        " latency must not be negative");
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

    // Switches: one per line of each Switch dimension (with more than one NPU).
    t.m_lineSwitch.assign(dims.size(), {});
    for (size_t d = 0; d < dims.size(); ++d)
    {
        if (dims[d].type != DimType::SWITCH || dims[d].npus < 2)
        {
            continue;
        }
        uint32_t lines = t.m_npuCount / dims[d].npus;
        t.m_lineSwitch[d].resize(lines);
        for (uint32_t l = 0; l < lines; ++l)
        {
            t.m_lineSwitch[d][l] = t.AddNode(TopoNodeKind::SWITCH);
        }
    }

    // Links, dimension by dimension, line by line (see the layout above).
    uint64_t totalLinks = 0;
    for (size_t d = 0; d < dims.size(); ++d)
    {
        totalLinks += LinksPerLine(dims[d].type, dims[d].npus) * (t.m_npuCount / dims[d].npus);
    }
    if (totalLinks > std::numeric_limits<uint32_t>::max() / 2)
    {
        throw std::invalid_argument("topology: too many links");
    }
    t.m_links.reserve(totalLinks);
    t.m_dimFirstLink.assign(dims.size() + 1, 0);
    uint32_t stride = 1;
    for (size_t d = 0; d < dims.size(); ++d)
    {
        const auto& s = dims[d];
        const uint32_t n = s.npus;
        const uint32_t lines = t.m_npuCount / n;
        const double rate = GBpsToBytesPerNs(s.bandwidthGBps);
        t.m_dimFirstLink[d] = static_cast<uint32_t>(t.m_links.size());
        for (uint32_t l = 0; l < lines; ++l)
        {
            // first NPU of line l: l's digits are the other coordinates
            const uint32_t base = (l / stride) * stride * n + (l % stride);
            auto npuAt = [&](uint32_t c) { return base + c * stride; };
            switch (s.type)
            {
            case DimType::RING:
                if (n == 2)
                {
                    t.AddLink(npuAt(0), npuAt(1), rate, s.latencyNs, int32_t(d));
                }
                else if (n > 2)
                {
                    for (uint32_t k = 0; k < n; ++k)
                    {
                        t.AddLink(npuAt(k), npuAt((k + 1) % n), rate, s.latencyNs, int32_t(d));
                    }
                }
                break;
            case DimType::FULLY_CONNECTED:
                for (uint32_t i = 0; i < n; ++i)
                {
                    for (uint32_t j = i + 1; j < n; ++j)
                    {
                        t.AddLink(npuAt(i), npuAt(j), rate, s.latencyNs, int32_t(d));
                    }
                }
                break;
            case DimType::SWITCH:
                if (n > 1)
                {
                    for (uint32_t k = 0; k < n; ++k)
                    {
                        t.AddLink(npuAt(k), t.m_lineSwitch[d][l], rate, s.latencyNs, int32_t(d));
                    }
                }
                break;
            }
        }
        stride *= n;
    }
    t.m_dimFirstLink[dims.size()] = static_cast<uint32_t>(t.m_links.size());
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
    cfg.Fail(key, "unknown topology '" + name + "' (expected Ring, FullyConnected or Switch)");
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
    if (node >= m_kinds.size())
    {
        throw std::out_of_range("topology: node " + std::to_string(node) + " out of range");
    }
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
    if (node >= m_nodeLinks.size())
    {
        throw std::out_of_range("topology: node " + std::to_string(node) + " out of range");
    }
    return m_nodeLinks[node];
}

uint32_t
Topology::AddNode(TopoNodeKind kind)
{
    m_kinds.push_back(kind);
    m_nodeLinks.emplace_back();
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
    const uint32_t n = spec.npus;
    const uint64_t first = m_dimFirstLink[d] + uint64_t(line) * LinksPerLine(spec.type, n);
    switch (spec.type)
    {
    case DimType::RING: {
        if (n == 2)
        {
            hops.push_back({static_cast<uint32_t>(first), uint8_t(cs == 0 ? 0 : 1)});
            return;
        }
        const uint32_t fwd = (cd + n - cs) % n;
        if (fwd <= n - fwd)
        {
            for (uint32_t k = 0, c = cs; k < fwd; ++k, c = (c + 1) % n)
            {
                hops.push_back({static_cast<uint32_t>(first + c), 0});
            }
        }
        else
        {
            for (uint32_t k = 0, c = cs; k < n - fwd; ++k, c = (c + n - 1) % n)
            {
                hops.push_back({static_cast<uint32_t>(first + (c + n - 1) % n), 1});
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
    }
}

} // namespace astra
} // namespace ns3
