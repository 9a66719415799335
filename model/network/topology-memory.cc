/*
 * Memory nodes on a topology (topology.h): placement for the sharing types of
 * ASTRA-sim's remote memory (a node per NPU, per server, or pools), which NPU
 * uses which memory node, and shortest paths to and from memory nodes, which
 * the flow-level backend routes on and the RoCE fabric's ECMP tables follow
 * (both are hop-count shortest paths over the same graph).
 */

#include "topology.h"

#include "ns3/astra-limits.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace astra
{

namespace
{

/// 64-bit finalizer (splitmix64).
inline uint64_t
Mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument("topology: memory placement: " + what);
}

/// \return a number as text (shortest form) \param x the number
std::string
NumberText(double x)
{
    std::ostringstream os;
    os << x;
    return os.str();
}

} // namespace

const char*
MemorySharingName(MemorySharing s)
{
    switch (s)
    {
    case MemorySharing::PER_NPU:
        return "per_npu";
    case MemorySharing::PER_NODE:
        return "per_node";
    case MemorySharing::POOL:
        return "pool";
    }
    return "?";
}

const char*
MemoryAttachName(MemoryAttach a)
{
    switch (a)
    {
    case MemoryAttach::DEFAULT:
        return "default";
    case MemoryAttach::NPU:
        return "npu";
    case MemoryAttach::LEAF:
        return "leaf";
    case MemoryAttach::SPINE:
        return "spine";
    case MemoryAttach::MEMORY_LEAF:
        return "memory-leaf";
    }
    return "?";
}

std::vector<uint32_t>
Topology::PlaceMemory(const MemoryPlacement& given)
{
    if (m_hasMemPlacement)
    {
        Fail("the topology already has a memory placement (one per topology)");
    }
    if (m_npuCount == 0 || m_dims.empty())
    {
        Fail("the topology has no NPUs");
    }
    MemoryPlacement p = given;
    const uint32_t nd = static_cast<uint32_t>(m_dims.size());
    if (p.dimension < -1 || p.dimension >= int32_t(nd))
    {
        Fail("dimension " + std::to_string(p.dimension) + " out of range (the network has " +
             std::to_string(nd) + " dimension" + (nd == 1 ? "" : "s") + ")");
    }
    if (p.dimension < 0)
    {
        p.dimension = p.sharing == MemorySharing::POOL ? int32_t(nd - 1) : 0;
    }
    const uint32_t dim = uint32_t(p.dimension);
    const DimensionSpec& spec = m_dims[dim];
    if (p.sharing == MemorySharing::PER_NODE && p.npusPerNode < 1)
    {
        Fail("NPUs per node must be >= 1");
    }
    if (p.sharing == MemorySharing::POOL && p.pools < 1)
    {
        Fail("the pool count must be >= 1");
    }
    if (!(p.linkGBps >= 0) || !(p.uplinkGBps >= 0))
    {
        Fail("link bandwidths must not be negative");
    }
    // a given rate or latency within the range of every link (astra-limits.h)
    for (const double bw : {p.linkGBps, p.uplinkGBps})
    {
        if (bw != 0 && (bw < limits::kMinBandwidthGBps || bw > limits::kMaxBandwidthGBps))
        {
            Fail("link bandwidth " + NumberText(bw) + " GB/s is outside the accepted range " +
                 NumberText(limits::kMinBandwidthGBps) + " to " +
                 NumberText(limits::kMaxBandwidthGBps) + " GB/s");
        }
    }
    if (!(p.linkLatencyNs <= limits::kMaxTimeNs))
    {
        Fail("link latency " + NumberText(p.linkLatencyNs) + " ns exceeds the largest accepted, " +
             NumberText(limits::kMaxTimeNs) + " ns");
    }
    if (p.linkGBps == 0)
    {
        p.linkGBps = spec.bandwidthGBps;
    }
    if (p.linkLatencyNs < 0)
    {
        p.linkLatencyNs = spec.latencyNs;
    }
    // the dimension's switches: NPU-facing tier and top tier
    std::vector<uint32_t> leaves;
    std::vector<uint32_t> tops;
    for (SwitchTier t : {SwitchTier::LINE, SwitchTier::LEAF})
    {
        if (leaves.empty())
        {
            leaves = GetDimensionSwitches(dim, t);
        }
    }
    for (SwitchTier t : {SwitchTier::CORE, SwitchTier::SPINE, SwitchTier::LEAF, SwitchTier::LINE})
    {
        if (tops.empty())
        {
            tops = GetDimensionSwitches(dim, t);
        }
    }
    if (p.attach == MemoryAttach::DEFAULT)
    {
        switch (p.sharing)
        {
        case MemorySharing::PER_NPU:
            p.attach = MemoryAttach::NPU;
            break;
        case MemorySharing::PER_NODE:
            p.attach = leaves.empty() ? MemoryAttach::NPU : MemoryAttach::LEAF;
            break;
        case MemorySharing::POOL:
            p.attach = tops.empty() ? MemoryAttach::NPU : MemoryAttach::SPINE;
            break;
        }
    }
    const std::string where = std::string(MemoryAttachName(p.attach)) + " attach, dimension " +
                              std::to_string(dim) + " (" + DimTypeName(spec.type) + ")";
    if (p.sharing != MemorySharing::POOL &&
        (p.attach == MemoryAttach::SPINE || p.attach == MemoryAttach::MEMORY_LEAF))
    {
        Fail(std::string(MemoryAttachName(p.attach)) + " attach is for pools; " +
             MemorySharingName(p.sharing) + " memory attaches to an NPU or a leaf");
    }
    if (p.attach != MemoryAttach::NPU && leaves.empty())
    {
        Fail(where + ": the dimension has no switches (attach the memory to an NPU, or choose a "
                     "switched dimension)");
    }
    if (p.attach == MemoryAttach::MEMORY_LEAF && p.uplinkGBps == 0)
    {
        p.uplinkGBps = GetUplinkGBps(dim) > 0 ? GetUplinkGBps(dim) : spec.bandwidthGBps;
    }

    std::vector<uint32_t> mem;
    std::vector<std::vector<uint32_t>> use(m_npuCount);
    const uint32_t n = m_npuCount;
    auto attachFor = [&](uint32_t npu) {
        if (p.attach == MemoryAttach::NPU)
        {
            return npu;
        }
        const uint32_t sw = GetAttachSwitch(npu, dim);
        if (sw == UINT32_MAX)
        {
            Fail(where + ": NPU " + std::to_string(npu) + " has no switch there");
        }
        return sw;
    };
    switch (p.sharing)
    {
    case MemorySharing::PER_NPU:
        for (uint32_t i = 0; i < n; ++i)
        {
            mem.push_back(AttachMemoryNode(attachFor(i), p.linkGBps, p.linkLatencyNs));
            use[i] = {mem.back()};
        }
        break;
    case MemorySharing::PER_NODE: {
        const uint32_t nodes = (n + p.npusPerNode - 1) / p.npusPerNode;
        for (uint32_t g = 0; g < nodes; ++g)
        {
            mem.push_back(
                AttachMemoryNode(attachFor(g * p.npusPerNode), p.linkGBps, p.linkLatencyNs));
            for (uint32_t i = g * p.npusPerNode; i < n && i < (g + 1) * p.npusPerNode; ++i)
            {
                use[i] = {mem.back()};
            }
        }
        break;
    }
    case MemorySharing::POOL: {
        uint32_t at = UINT32_MAX;
        if (p.attach == MemoryAttach::MEMORY_LEAF)
        {
            at = AddNode(TopoNodeKind::SWITCH);
            const double upLat = spec.uplinkLatencyNs >= 0 ? spec.uplinkLatencyNs : spec.latencyNs;
            for (uint32_t t : tops)
            {
                AddLink(at, t, GBpsToBytesPerNs(p.uplinkGBps), upLat, -1);
            }
        }
        for (uint32_t k = 0; k < p.pools; ++k)
        {
            uint32_t node = at;
            if (p.attach == MemoryAttach::NPU)
            {
                node = uint32_t(uint64_t(k) * n / p.pools);
            }
            else if (p.attach == MemoryAttach::LEAF)
            {
                node = leaves[uint64_t(k) * leaves.size() / p.pools];
            }
            else if (p.attach == MemoryAttach::SPINE)
            {
                node = tops[uint64_t(k) * tops.size() / p.pools];
            }
            mem.push_back(AttachMemoryNode(node, p.linkGBps, p.linkLatencyNs));
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            use[i] = mem;
        }
        break;
    }
    }
    m_npuMemory = std::move(use);
    m_memPlacement = p;
    m_hasMemPlacement = true;
    return mem;
}

bool
Topology::HasMemoryPlacement() const
{
    return m_hasMemPlacement;
}

const MemoryPlacement&
Topology::GetMemoryPlacement() const
{
    return m_memPlacement;
}

void
Topology::AssignMemory(uint32_t npu, const std::vector<uint32_t>& memoryNodes)
{
    if (npu >= m_npuCount)
    {
        throw std::out_of_range("topology: AssignMemory: NPU " + std::to_string(npu) +
                                " out of range");
    }
    for (uint32_t m : memoryNodes)
    {
        if (m >= m_kinds.size() || m_kinds[m] != TopoNodeKind::MEMORY)
        {
            throw std::invalid_argument("topology: AssignMemory: node " + std::to_string(m) +
                                        " is not a memory node");
        }
    }
    if (m_npuMemory.size() < m_npuCount)
    {
        m_npuMemory.resize(m_npuCount);
    }
    m_npuMemory[npu] = memoryNodes;
}

const std::vector<uint32_t>&
Topology::GetNpuMemory(uint32_t npu) const
{
    static const std::vector<uint32_t> kNone;
    if (npu >= m_npuCount)
    {
        throw std::out_of_range("topology: GetNpuMemory: NPU " + std::to_string(npu) +
                                " out of range");
    }
    return npu < m_npuMemory.size() ? m_npuMemory[npu] : kNone;
}

std::vector<uint32_t>
Topology::GetMemoryNodes() const
{
    std::vector<uint32_t> out;
    for (uint32_t i = m_npuCount; i < m_kinds.size(); ++i)
    {
        if (m_kinds[i] == TopoNodeKind::MEMORY)
        {
            out.push_back(i);
        }
    }
    return out;
}

void
Topology::AppendNodeRoute(uint32_t src, uint32_t dst, std::vector<Hop>& hops) const
{
    const uint32_t nodes = static_cast<uint32_t>(m_kinds.size());
    if (src >= nodes || dst >= nodes)
    {
        throw std::out_of_range("topology: route " + std::to_string(src) + " -> " +
                                std::to_string(dst) + ": node out of range");
    }
    if (src == dst)
    {
        return;
    }
    const uint64_t key = (uint64_t(src) << 32) | dst;
    auto it = m_nodeRoutes.find(key);
    if (it == m_nodeRoutes.end())
    {
        // breadth first from dst; switches relay, and hosts with several links (transit)
        const auto relays = [&](uint32_t v) {
            return m_kinds[v] == TopoNodeKind::SWITCH || m_nodeLinks[v].size() > 1;
        };
        // (the whole distance field to dst, kept: a pool is the destination of every NPU)
        auto cached = m_nodeDist.find(dst);
        if (cached == m_nodeDist.end())
        {
            if (m_nodeDist.size() >= 256)
            {
                m_nodeDist.clear();
            }
            std::vector<uint32_t> field(nodes, UINT32_MAX);
            std::vector<uint32_t> layer{dst};
            std::vector<uint32_t> next;
            field[dst] = 0;
            for (uint32_t d = 1; !layer.empty(); ++d)
            {
                next.clear();
                for (uint32_t u : layer)
                {
                    if (u != dst && !relays(u))
                    {
                        continue;
                    }
                    for (uint32_t l : m_nodeLinks[u])
                    {
                        const uint32_t w = m_links[l].a == u ? m_links[l].b : m_links[l].a;
                        if (field[w] == UINT32_MAX)
                        {
                            field[w] = d;
                            next.push_back(w);
                        }
                    }
                }
                layer.swap(next);
            }
            cached = m_nodeDist.emplace(dst, std::move(field)).first;
        }
        const std::vector<uint32_t>& dist = cached->second;
        if (dist[src] == UINT32_MAX)
        {
            throw std::invalid_argument("topology: no path from node " + std::to_string(src) +
                                        " to node " + std::to_string(dst));
        }
        // walk down the distances from src; among equal next hops pick by hash
        std::vector<Hop> path;
        std::vector<uint32_t> choice;
        uint32_t u = src;
        for (uint32_t step = 0; u != dst; ++step)
        {
            choice.clear();
            for (uint32_t l : m_nodeLinks[u])
            {
                const uint32_t w = m_links[l].a == u ? m_links[l].b : m_links[l].a;
                if (dist[w] + 1 == dist[u] && (w == dst || relays(w)))
                {
                    choice.push_back(l);
                }
            }
            const uint32_t l = choice[Mix64(key ^ (uint64_t(step) << 56)) % choice.size()];
            path.push_back({l, uint8_t(m_links[l].a == u ? 0 : 1)});
            u = m_links[l].a == u ? m_links[l].b : m_links[l].a;
        }
        it = m_nodeRoutes.emplace(key, std::move(path)).first;
    }
    hops.insert(hops.end(), it->second.begin(), it->second.end());
}

} // namespace astra
} // namespace ns3
