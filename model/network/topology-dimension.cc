/*
 * One DimensionKind per dimension type (topology-dimension.h). The link and
 * switch layout of each type is described at the top of topology.cc.
 */

#include "topology-dimension.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ns3
{
namespace astra
{

namespace
{

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument(what);
}

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

// ------------------------------------------------------------------ Ring

/// Bidirectional ring, NPU to NPU: link k joins coordinate k and k + 1 (mod n).
class RingKind : public DimensionKind
{
  public:
    DimType Type() const override
    {
        return DimType::RING;
    }

    const char* Name() const override
    {
        return "Ring";
    }

    std::vector<std::string> Spellings() const override
    {
        return {"ring"};
    }

    double LinksPerModelledLink(uint32_t) const override
    {
        return 2; // one per neighbour
    }

    void Layout(const DimensionSpec& s, uint64_t, DimensionLayout& lay) const override
    {
        // a 2-NPU ring has a single full-duplex link (its two neighbour connections
        // coincide); a 1-NPU dimension has none
        lay.linksPerBlock = s.npus <= 1 ? 0 : (s.npus == 2 ? 1 : s.npus);
    }

    void AddLinks(const DimensionBlock& b) const override
    {
        const uint32_t n = b.spec->npus;
        if (n == 2)
        {
            b.Link(b.Npu(0, 0), b.Npu(0, 1));
        }
        else if (n > 2)
        {
            for (uint32_t k = 0; k < n; ++k)
            {
                b.Link(b.Npu(0, k), b.Npu(0, (k + 1) % n));
            }
        }
    }

    void AppendHops(const DimensionLayout& lay,
                    uint32_t,
                    uint32_t,
                    uint32_t cs,
                    uint32_t cd,
                    uint64_t first,
                    std::vector<Topology::Hop>& hops) const override
    {
        const uint32_t n = lay.npus;
        if (n == 2)
        {
            hops.push_back({static_cast<uint32_t>(first), uint8_t(cs == 0 ? 0 : 1)});
            return;
        }
        // the shorter way round (ties: increasing); no division per hop
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
    }
};

// ------------------------------------------------------------------ FullyConnected

/// A link per NPU pair i < j (a = i, b = j).
class FullyConnectedKind : public DimensionKind
{
  public:
    DimType Type() const override
    {
        return DimType::FULLY_CONNECTED;
    }

    const char* Name() const override
    {
        return "FullyConnected";
    }

    std::vector<std::string> Spellings() const override
    {
        return {"fullyconnected", "fc"};
    }

    double LinksPerModelledLink(uint32_t npus) const override
    {
        return std::max<double>(1, double(npus) - 1); // one per peer
    }

    void Layout(const DimensionSpec& s, uint64_t, DimensionLayout& lay) const override
    {
        lay.linksPerBlock = uint64_t(s.npus) * (s.npus - 1) / 2;
    }

    void AddLinks(const DimensionBlock& b) const override
    {
        const uint32_t n = b.spec->npus;
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = i + 1; j < n; ++j)
            {
                b.Link(b.Npu(0, i), b.Npu(0, j));
            }
        }
    }

    void AppendHops(const DimensionLayout& lay,
                    uint32_t,
                    uint32_t,
                    uint32_t cs,
                    uint32_t cd,
                    uint64_t first,
                    std::vector<Topology::Hop>& hops) const override
    {
        const uint32_t n = lay.npus;
        const uint32_t i = std::min(cs, cd);
        const uint32_t j = std::max(cs, cd);
        hops.push_back(
            {static_cast<uint32_t>(first + PairIndex(i, j, n)), uint8_t(cs < cd ? 0 : 1)});
    }
};

// ------------------------------------------------------------------ Switch

/// One switch per line: link k joins coordinate k (a) to the line's switch (b).
class SwitchKind : public DimensionKind
{
  public:
    DimType Type() const override
    {
        return DimType::SWITCH;
    }

    const char* Name() const override
    {
        return "Switch";
    }

    std::vector<std::string> Spellings() const override
    {
        return {"switch"};
    }

    void Layout(const DimensionSpec& s, uint64_t, DimensionLayout& lay) const override
    {
        lay.linksPerBlock = s.npus <= 1 ? 0 : s.npus;
        lay.switchesPerBlock = s.npus <= 1 ? 0 : 1;
    }

    SwitchTier TierOf(const DimensionLayout&, uint32_t) const override
    {
        return SwitchTier::LINE;
    }

    bool TakesShapeKey(ShapeKey k) const override
    {
        return k == ShapeKey::IN_SWITCH; // the line's switch may aggregate
    }

    void AddLinks(const DimensionBlock& b) const override
    {
        const uint32_t n = b.spec->npus;
        if (n > 1)
        {
            for (uint32_t k = 0; k < n; ++k)
            {
                b.Link(b.Npu(0, k), b.firstSwitch);
            }
        }
    }

    uint32_t AttachSwitch(const DimensionLayout&, uint32_t sw0, uint32_t, uint32_t) const override
    {
        return sw0;
    }

    void AppendHops(const DimensionLayout&,
                    uint32_t,
                    uint32_t,
                    uint32_t cs,
                    uint32_t cd,
                    uint64_t first,
                    std::vector<Topology::Hop>& hops) const override
    {
        hops.push_back({static_cast<uint32_t>(first + cs), 0});
        hops.push_back({static_cast<uint32_t>(first + cd), 1});
    }
};

// ------------------------------------------------------------------ switched fabrics

/// The uplink keys and checks shared by the switched fabrics (Clos, RailClos, FatTree).
class SwitchedKind : public DimensionKind
{
  public:
    bool TakesShapeKey(ShapeKey k) const override
    {
        return k == ShapeKey::UPLINK_BANDWIDTH || k == ShapeKey::UPLINK_LATENCY ||
               k == ShapeKey::OVERSUBSCRIPTION || k == ShapeKey::IN_SWITCH;
    }

  protected:
    /// Check the uplink fields \param s the dimension \return the oversubscription (1: none)
    static double CheckUplinks(const DimensionSpec& s)
    {
        if (s.uplinkGBps < 0 || !std::isfinite(s.uplinkGBps))
        {
            Fail("'uplink_bandwidth' must be positive");
        }
        if (s.oversubscription < 0 || !std::isfinite(s.oversubscription))
        {
            Fail("'oversubscription' must be positive");
        }
        if (s.uplinkGBps > 0 && s.oversubscription > 0)
        {
            Fail("give 'uplink_bandwidth' or 'oversubscription', not both");
        }
        if (!std::isfinite(s.uplinkLatencyNs))
        {
            Fail("'uplink_latency' must be a number");
        }
        return s.oversubscription > 0 ? s.oversubscription : 1.0;
    }
};

/**
 * Two-tier leaf-spine Clos per line (Clos), or shared by the R rails of a
 * block (RailClos). Switches: the leaves (rail r, leaf i) at r*L + i, then
 * the spines at R*L + j. Links: the NPU link of rail r, coordinate c at
 * r*n + c, then leaf (r, i) to spine j at R*n + (r*L + i)*S + j.
 */
class ClosKind : public SwitchedKind
{
  public:
    /// \param rail true: RailClos, false: Clos
    explicit ClosKind(bool rail)
        : m_rail(rail)
    {
    }

    DimType Type() const override
    {
        return m_rail ? DimType::RAIL_CLOS : DimType::CLOS;
    }

    const char* Name() const override
    {
        return m_rail ? "RailClos" : "Clos";
    }

    std::vector<std::string> Spellings() const override
    {
        if (m_rail)
        {
            return {"railclos", "railoptimized", "rail"};
        }
        return {"clos", "leafspine"};
    }

    bool TakesShapeKey(ShapeKey k) const override
    {
        return SwitchedKind::TakesShapeKey(k) || k == ShapeKey::HOSTS_PER_LEAF ||
               k == ShapeKey::SPINES || (m_rail && k == ShapeKey::RAILS);
    }

    void Layout(const DimensionSpec& s, uint64_t stride, DimensionLayout& lay) const override
    {
        const double over = CheckUplinks(s);
        const uint32_t n = s.npus;
        const uint32_t hpl = s.hostsPerLeaf ? s.hostsPerLeaf : n;
        if (n % hpl != 0)
        {
            Fail("'hosts_per_leaf' (" + std::to_string(hpl) + ") must divide the " +
                 std::to_string(n) + " NPUs");
        }
        uint32_t rails = 1;
        if (m_rail)
        {
            rails = s.rails ? s.rails : static_cast<uint32_t>(stride);
            if (stride % rails != 0)
            {
                Fail("'rails' (" + std::to_string(rails) +
                     ") must divide the product of the lower dimensions' sizes (" +
                     std::to_string(stride) + ")");
            }
        }
        lay.linesPerBlock = rails;
        lay.blocks = lay.blocks / rails;
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
                Fail("too many switches");
            }
        }
        lay.uplinkGBps =
            s.uplinkGBps > 0
                ? s.uplinkGBps
                : (lay.spines ? double(hpl) * s.bandwidthGBps / (double(lay.spines) * over)
                              : s.bandwidthGBps / over);
    }

    SwitchTier TierOf(const DimensionLayout& lay, uint32_t i) const override
    {
        return i < lay.linesPerBlock * lay.leaves ? SwitchTier::LEAF : SwitchTier::SPINE;
    }

    void AddLinks(const DimensionBlock& b) const override
    {
        const DimensionLayout& lay = *b.layout;
        const uint32_t n = b.spec->npus;
        for (uint32_t r = 0; r < lay.linesPerBlock; ++r)
        {
            if (n > 1)
            {
                for (uint32_t k = 0; k < n; ++k)
                {
                    b.Link(b.Npu(r, k), b.firstSwitch + r * lay.leaves + k / lay.hostsPerLeaf);
                }
            }
        }
        const uint32_t fabricLeaves = lay.linesPerBlock * lay.leaves;
        for (uint32_t i = 0; i < fabricLeaves && lay.spines; ++i)
        {
            for (uint32_t j = 0; j < lay.spines; ++j)
            {
                b.Uplink(b.firstSwitch + i, b.firstSwitch + fabricLeaves + j);
            }
        }
    }

    uint32_t AttachSwitch(const DimensionLayout& lay,
                          uint32_t sw0,
                          uint32_t r,
                          uint32_t c) const override
    {
        return sw0 + r * lay.leaves + c / lay.hostsPerLeaf;
    }

    void AppendHops(const DimensionLayout& lay,
                    uint32_t d,
                    uint32_t line,
                    uint32_t cs,
                    uint32_t cd,
                    uint64_t first,
                    std::vector<Topology::Hop>& hops) const override
    {
        const uint32_t n = lay.npus;
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
    }

  private:
    bool m_rail; //!< RailClos
};

/**
 * Three-tier k-ary fat-tree per line (k pods, h = k/2). Switches: the edges
 * (pod p, e) at p*h + e, the aggregations (p, a) at k*h + p*h + a, the cores
 * (group a, c) at 2*k*h + a*h + c. Links: NPU c to edge c / h at c, edge
 * (p, e) to aggregation (p, a) at n + p*h*h + e*h + a, aggregation (p, a) to
 * core (a, c) at n + k*h*h + p*h*h + a*h + c.
 */
class FatTreeKind : public SwitchedKind
{
  public:
    DimType Type() const override
    {
        return DimType::FAT_TREE;
    }

    const char* Name() const override
    {
        return "FatTree";
    }

    std::vector<std::string> Spellings() const override
    {
        return {"fattree"};
    }

    bool TakesShapeKey(ShapeKey k) const override
    {
        return SwitchedKind::TakesShapeKey(k) || k == ShapeKey::FAT_TREE_K;
    }

    void Layout(const DimensionSpec& s, uint64_t, DimensionLayout& lay) const override
    {
        const double over = CheckUplinks(s);
        const uint32_t n = s.npus;
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
            Fail("'fat_tree_k': a k-ary fat-tree has k^3/4 NPUs with k even; " + std::to_string(n) +
                 " NPUs" + (s.fatTreeK ? " do not match k = " + std::to_string(k) : "") +
                 " (e.g. k = 4: 16, k = 8: 128, k = 16: 1024)");
        }
        const uint32_t h = k / 2;
        lay.half = h;
        lay.hostsPerLeaf = h;
        lay.linksPerBlock = n + 2ULL * k * h * h;
        lay.switchesPerBlock = 2 * k * h + h * h;
        lay.uplinkGBps = s.uplinkGBps > 0 ? s.uplinkGBps : s.bandwidthGBps / over;
    }

    SwitchTier TierOf(const DimensionLayout& lay, uint32_t i) const override
    {
        const uint32_t hh = lay.half * lay.half;
        return i < 2 * hh ? SwitchTier::LEAF : (i < 4 * hh ? SwitchTier::SPINE : SwitchTier::CORE);
    }

    void AddLinks(const DimensionBlock& b) const override
    {
        const uint32_t n = b.spec->npus;
        const uint32_t h = b.layout->half;
        const uint32_t k = 2 * h;
        const uint32_t sw0 = b.firstSwitch;
        for (uint32_t c = 0; c < n; ++c)
        {
            b.Link(b.Npu(0, c), sw0 + c / h);
        }
        for (uint32_t p = 0; p < k; ++p)
        {
            for (uint32_t e = 0; e < h; ++e)
            {
                for (uint32_t a = 0; a < h; ++a)
                {
                    b.Uplink(sw0 + p * h + e, sw0 + k * h + p * h + a);
                }
            }
        }
        for (uint32_t p = 0; p < k; ++p)
        {
            for (uint32_t a = 0; a < h; ++a)
            {
                for (uint32_t c = 0; c < h; ++c)
                {
                    b.Uplink(sw0 + k * h + p * h + a, sw0 + 2 * k * h + a * h + c);
                }
            }
        }
    }

    uint32_t AttachSwitch(const DimensionLayout& lay,
                          uint32_t sw0,
                          uint32_t,
                          uint32_t c) const override
    {
        return sw0 + c / lay.half;
    }

    void AppendHops(const DimensionLayout& lay,
                    uint32_t d,
                    uint32_t line,
                    uint32_t cs,
                    uint32_t cd,
                    uint64_t first,
                    std::vector<Topology::Hop>& hops) const override
    {
        const uint32_t h = lay.half;
        const uint32_t k = 2 * h;
        const uint32_t n = lay.npus;
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
    }
};

} // namespace

// ------------------------------------------------------------------ shared parts

bool
DimensionKind::TakesShapeKey(ShapeKey) const
{
    return false;
}

double
DimensionKind::LinksPerModelledLink(uint32_t) const
{
    return 1;
}

SwitchTier
DimensionKind::TierOf(const DimensionLayout&, uint32_t) const
{
    return SwitchTier::NONE;
}

uint32_t
DimensionKind::AttachSwitch(const DimensionLayout&, uint32_t, uint32_t, uint32_t) const
{
    return UINT32_MAX;
}

uint32_t
DimensionBlock::Npu(uint32_t r, uint32_t c) const
{
    // first NPU of line l: l's digits are the other coordinates
    const uint32_t l = block * layout->linesPerBlock + r;
    const uint32_t base = (l / stride) * stride * spec->npus + (l % stride);
    return base + c * stride;
}

void
DimensionBlock::Link(uint32_t a, uint32_t b) const
{
    topo->AddLink(a, b, rate, spec->latencyNs, dim);
}

void
DimensionBlock::Uplink(uint32_t a, uint32_t b) const
{
    topo->AddLink(a, b, upRate, upLatencyNs, dim);
}

const std::vector<ShapeKey>&
AllShapeKeys()
{
    static const std::vector<ShapeKey> keys = {ShapeKey::HOSTS_PER_LEAF,
                                               ShapeKey::SPINES,
                                               ShapeKey::UPLINK_BANDWIDTH,
                                               ShapeKey::UPLINK_LATENCY,
                                               ShapeKey::OVERSUBSCRIPTION,
                                               ShapeKey::FAT_TREE_K,
                                               ShapeKey::RAILS,
                                               ShapeKey::IN_SWITCH};
    return keys;
}

const char*
ShapeKeyName(ShapeKey k)
{
    switch (k)
    {
    case ShapeKey::HOSTS_PER_LEAF:
        return "hosts_per_leaf";
    case ShapeKey::SPINES:
        return "spines";
    case ShapeKey::UPLINK_BANDWIDTH:
        return "uplink_bandwidth";
    case ShapeKey::UPLINK_LATENCY:
        return "uplink_latency";
    case ShapeKey::OVERSUBSCRIPTION:
        return "oversubscription";
    case ShapeKey::FAT_TREE_K:
        return "fat_tree_k";
    case ShapeKey::RAILS:
        return "rails";
    case ShapeKey::IN_SWITCH:
        return "in_switch";
    }
    return "?";
}

bool
HasShapeKey(const DimensionSpec& s, ShapeKey k)
{
    switch (k)
    {
    case ShapeKey::HOSTS_PER_LEAF:
        return s.hostsPerLeaf != 0;
    case ShapeKey::SPINES:
        return s.spines != 0;
    case ShapeKey::UPLINK_BANDWIDTH:
        return s.uplinkGBps != 0;
    case ShapeKey::UPLINK_LATENCY:
        return s.uplinkLatencyNs >= 0;
    case ShapeKey::OVERSUBSCRIPTION:
        return s.oversubscription != 0;
    case ShapeKey::FAT_TREE_K:
        return s.fatTreeK != 0;
    case ShapeKey::RAILS:
        return s.rails != 0;
    case ShapeKey::IN_SWITCH:
        return s.inSwitch;
    }
    return false;
}

const std::vector<const DimensionKind*>&
GetDimensionKinds()
{
    static const RingKind ring;
    static const FullyConnectedKind fc;
    static const SwitchKind sw;
    static const ClosKind clos(false);
    static const FatTreeKind fatTree;
    static const ClosKind railClos(true);
    // in DimType order
    static const std::vector<const DimensionKind*> kinds =
        {&ring, &fc, &sw, &clos, &fatTree, &railClos};
    return kinds;
}

const DimensionKind&
GetDimensionKind(DimType t)
{
    const auto& kinds = GetDimensionKinds();
    const size_t i = static_cast<size_t>(t);
    if (i >= kinds.size() || kinds[i]->Type() != t)
    {
        throw std::invalid_argument("topology: unknown dimension type " + std::to_string(i));
    }
    return *kinds[i];
}

} // namespace astra
} // namespace ns3
