/*
 * Topology: the regular multi-dimensional networks of ASTRA-sim's network
 * configuration files (Ring / FullyConnected / Switch per dimension) and
 * switched fabrics as dimensions (two-tier Clos, k-ary fat-tree,
 * rail-optimized Clos), with O(1) link lookups by index arithmetic. What is
 * particular to each dimension type lives in its DimensionKind
 * (topology-dimension.cc); the network configuration file is read in
 * topology-reader.cc.
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
 */

#include "topology.h"

#include "topology-dimension.h"

#include "ns3/astra-limits.h"
#include "ns3/log.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

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
    const auto& kinds = GetDimensionKinds();
    const size_t i = static_cast<size_t>(t);
    return i < kinds.size() ? kinds[i]->Name() : "?";
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
        if (!(s.linkEfficiency > 0 && s.linkEfficiency <= 1))
        {
            throw std::invalid_argument(where + " link efficiency must be in (0, 1]");
        }
        if (!(s.bandwidthGBps >= limits::kMinBandwidthGBps) ||
            s.bandwidthGBps > limits::kMaxBandwidthGBps)
        {
            std::ostringstream os;
            os << where << " bandwidth " << s.bandwidthGBps
               << " GB/s is outside the accepted range " << limits::kMinBandwidthGBps << " to "
               << limits::kMaxBandwidthGBps << " GB/s";
            throw std::invalid_argument(os.str());
        }
        if (s.latencyNs > limits::kMaxTimeNs)
        {
            std::ostringstream os;
            os << where << " latency " << s.latencyNs << " ns exceeds the largest accepted, "
               << limits::kMaxTimeNs << " ns";
            throw std::invalid_argument(os.str());
        }
        npus *= s.npus;
        if (npus > limits::kMaxNpus)
        {
            throw std::invalid_argument("topology: " + std::to_string(npus) +
                                        (d + 1 < dims.size() ? "+" : "") +
                                        " NPUs exceed the limit of " +
                                        std::to_string(limits::kMaxNpus) + " NPUs per topology");
        }
    }
    t.m_npuCount = dims.empty() ? 0 : static_cast<uint32_t>(npus);
    t.m_kinds.assign(t.m_npuCount, TopoNodeKind::NPU);
    t.m_nodeLinks.assign(t.m_npuCount, {});
    t.m_tier.assign(t.m_npuCount, SwitchTier::NONE);
    t.m_switchDim.assign(t.m_npuCount, -1);

    // Resolve every dimension's layout (its kind validates the shape fields).
    t.m_layout.assign(dims.size() + 1, DimensionLayout{});
    uint64_t totalLinks = 0;
    uint64_t totalSwitches = 0;
    uint64_t stride = 1;
    for (size_t d = 0; d < dims.size(); ++d)
    {
        const auto& s = dims[d];
        const DimensionKind& kind = GetDimensionKind(s.type);
        auto fail = [&](const std::string& what) {
            throw std::invalid_argument("topology: dimension " + std::to_string(d) + " (" +
                                        kind.Name() + "): " + what);
        };
        DimensionLayout& lay = t.m_layout[d];
        lay.kind = &kind;
        lay.npus = s.npus;
        lay.blocks = t.m_npuCount / s.npus; // lines
        for (ShapeKey k : AllShapeKeys())
        {
            if (HasShapeKey(s, k) && !kind.TakesShapeKey(k))
            {
                std::string takers;
                for (const DimensionKind* other : GetDimensionKinds())
                {
                    if (other->TakesShapeKey(k))
                    {
                        takers += std::string(takers.empty() ? "" : ", ") + other->Name();
                    }
                }
                fail(std::string("'") + ShapeKeyName(k) + "' does not apply (it applies to " +
                     takers + ")");
            }
        }
        try
        {
            kind.Layout(s, stride, lay);
        }
        catch (const std::invalid_argument& e)
        {
            fail(e.what());
        }
        totalLinks += lay.linksPerBlock * lay.blocks;
        totalSwitches += uint64_t(lay.switchesPerBlock) * lay.blocks;
        stride *= s.npus;
    }
    if (totalLinks > limits::kMaxLinks || totalSwitches > limits::kMaxLinks)
    {
        throw std::invalid_argument("topology: " + std::to_string(totalLinks) + " links and " +
                                    std::to_string(totalSwitches) +
                                    " switches: more than the limit of " +
                                    std::to_string(limits::kMaxLinks) + " of either");
    }

    // Switches, dimension by dimension, block by block.
    for (size_t d = 0; d < dims.size(); ++d)
    {
        DimensionLayout& lay = t.m_layout[d];
        lay.firstSwitch = static_cast<uint32_t>(t.m_kinds.size());
        for (uint32_t b = 0; b < lay.blocks; ++b)
        {
            for (uint32_t i = 0; i < lay.switchesPerBlock; ++i)
            {
                const uint32_t id = t.AddNode(TopoNodeKind::SWITCH);
                t.m_switchDim[id] = int32_t(d);
                t.m_tier[id] = lay.kind->TierOf(lay, i);
            }
        }
    }

    // Links, dimension by dimension, block by block (see the layout above).
    t.m_links.reserve(totalLinks);
    uint32_t str = 1;
    for (size_t d = 0; d < dims.size(); ++d)
    {
        const auto& s = dims[d];
        DimensionLayout& lay = t.m_layout[d];
        DimensionBlock block;
        block.topo = &t;
        block.spec = &s;
        block.layout = &lay;
        block.dim = int32_t(d);
        block.stride = str;
        block.rate = GBpsToBytesPerNs(s.bandwidthGBps) * s.linkEfficiency;
        block.upRate = GBpsToBytesPerNs(lay.uplinkGBps) * s.linkEfficiency;
        block.upLatencyNs = s.uplinkLatencyNs >= 0 ? s.uplinkLatencyNs : s.latencyNs;
        lay.firstLink = static_cast<uint32_t>(t.m_links.size());
        for (uint32_t b = 0; b < lay.blocks; ++b)
        {
            block.block = b;
            block.firstSwitch = lay.firstSwitch + b * lay.switchesPerBlock;
            lay.kind->AddLinks(block);
        }
        str *= s.npus;
    }
    t.m_layout[dims.size()].firstLink = static_cast<uint32_t>(t.m_links.size());
    t.m_layout[dims.size()].firstSwitch = static_cast<uint32_t>(t.m_kinds.size());
    NS_LOG_INFO("topology: " << t.m_npuCount << " NPUs, " << t.m_kinds.size() - t.m_npuCount
                             << " other nodes, " << t.m_links.size() << " links");
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
    const DimensionLayout& lay = m_layout[dim];
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
    return lay.kind->AttachSwitch(lay, sw0, line % lay.linesPerBlock, c);
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
    m_nodeRoutes.clear(); // paths to memory nodes may change
    m_nodeDist.clear();
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
        if (dim == -1 && src < m_kinds.size() && dst < m_kinds.size() &&
            (m_kinds[src] == TopoNodeKind::MEMORY || m_kinds[dst] == TopoNodeKind::MEMORY))
        {
            AppendNodeRoute(src, dst, hops); // to or from a memory node (topology-memory.cc)
            return;
        }
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
            const DimensionLayout& lay = m_layout[d];
            const uint64_t first =
                lay.firstLink + uint64_t(line / lay.linesPerBlock) * lay.linksPerBlock;
            lay.kind->AppendHops(lay, d, line, cs, cd, first, hops);
            cur = cur + cd * stride - cs * stride;
        }
        stride *= n;
    }
}

} // namespace astra
} // namespace ns3
