#include "aggregation-tree.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace astra
{

namespace
{
/// \return the height of a switch tier (higher = further from the NPUs)
int
TierRank(SwitchTier t)
{
    switch (t)
    {
    case SwitchTier::LINE:
    case SwitchTier::LEAF:
        return 1;
    case SwitchTier::SPINE:
        return 2;
    case SwitchTier::CORE:
        return 3;
    case SwitchTier::NONE:
        break;
    }
    return 0;
}

/// FNV-1a over the members and the dimension (spreads groups over equivalent roots)
uint64_t
GroupHash(uint32_t dim, const std::vector<uint32_t>& members)
{
    uint64_t h = 1469598103934665603ull ^ dim;
    for (uint32_t m : members)
    {
        h = (h ^ m) * 1099511628211ull;
    }
    return h;
}
} // namespace

std::vector<Topology::Hop>
AggregationTree::UpLinks() const
{
    std::vector<Topology::Hop> out = memberUp;
    for (const auto& n : nodes)
    {
        if (n.parent >= 0)
        {
            out.push_back(n.up);
        }
    }
    return out;
}

double
AggregationTree::UpLatencyNs(const Topology& topo, uint32_t m) const
{
    const auto& links = topo.GetLinks();
    double lat = links[memberUp[m].link].latencyNs;
    for (int32_t i = int32_t(attach[m]); nodes[i].parent >= 0; i = nodes[i].parent)
    {
        lat += links[nodes[i].up.link].latencyNs;
    }
    return lat;
}

double
AggregationTree::MinRate(const Topology& topo) const
{
    const auto& links = topo.GetLinks();
    double r = 0;
    for (const auto& h : UpLinks())
    {
        const double b = links[h.link].bytesPerNs;
        r = r == 0 ? b : std::min(r, b);
    }
    return r;
}

std::vector<uint32_t>
AggregationTree::PathNodes(uint32_t m) const
{
    std::vector<uint32_t> out;
    for (int32_t i = int32_t(attach[m]); i >= 0; i = nodes[i].parent)
    {
        out.push_back(uint32_t(i));
    }
    return out;
}

std::string
AggregationTree::Describe(const Topology&) const
{
    std::ostringstream os;
    os << "dim " << dim << ", " << members.size() << " members, depth " << depth << ", root switch "
       << nodes[root].sw << ", " << nodes.size() << " switch(es)";
    return os.str();
}

AggregationTreeBuilder::AggregationTreeBuilder(const Topology& topo)
    : m_topo(topo)
{
}

std::vector<uint32_t>
AggregationTreeBuilder::FirstHops(uint32_t dim, const std::vector<uint32_t>& members) const
{
    if (dim >= m_topo.GetDimensionCount())
    {
        throw std::invalid_argument("in-switch: no dimension " + std::to_string(dim));
    }
    if (members.size() < 2)
    {
        throw std::invalid_argument("in-switch: a tree needs at least two members");
    }
    const uint32_t nd = m_topo.GetDimensionCount();
    std::vector<uint32_t> hops;
    hops.reserve(members.size());
    for (uint32_t m : members)
    {
        if (m >= m_topo.GetNpuCount())
        {
            throw std::invalid_argument("in-switch: no NPU " + std::to_string(m));
        }
        for (uint32_t d = 0; d < nd; ++d)
        {
            if (d != dim && m_topo.GetCoordinate(m, d) != m_topo.GetCoordinate(members[0], d))
            {
                throw std::invalid_argument(
                    "in-switch: NPUs " + std::to_string(members[0]) + " and " + std::to_string(m) +
                    " differ in more than dimension " + std::to_string(dim));
            }
        }
        const uint32_t sw = m_topo.GetAttachSwitch(m, dim);
        if (sw == UINT32_MAX)
        {
            throw std::invalid_argument(std::string("in-switch: dimension ") + std::to_string(dim) +
                                        " (" + DimTypeName(m_topo.GetDimensions()[dim].type) +
                                        ") has no switches");
        }
        hops.push_back(sw);
    }
    return hops;
}

std::vector<std::pair<uint32_t, uint32_t>>
AggregationTreeBuilder::UpNeighbours(uint32_t dim, uint32_t sw) const
{
    const auto& links = m_topo.GetLinks();
    const int rank = TierRank(m_topo.GetSwitchTier(sw));
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (uint32_t l : m_topo.GetNodeLinks(sw))
    {
        if (links[l].dim != int32_t(dim))
        {
            continue;
        }
        const uint32_t o = links[l].a == sw ? links[l].b : links[l].a;
        if (m_topo.GetNodeKind(o) == TopoNodeKind::SWITCH &&
            TierRank(m_topo.GetSwitchTier(o)) > rank)
        {
            out.emplace_back(o, l);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<uint32_t>
AggregationTreeBuilder::RootCandidates(uint32_t dim, const std::vector<uint32_t>& members) const
{
    std::vector<uint32_t> leaves = FirstHops(dim, members);
    std::sort(leaves.begin(), leaves.end());
    leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
    if (leaves.size() == 1)
    {
        return leaves;
    }
    // the switches k tiers above each first-hop switch; the lowest k reached by all is the
    // root level
    std::vector<std::set<uint32_t>> reach(leaves.size());
    for (size_t i = 0; i < leaves.size(); ++i)
    {
        reach[i].insert(leaves[i]);
    }
    for (uint32_t k = 1; k <= 4; ++k)
    {
        bool any = false;
        for (auto& r : reach)
        {
            std::set<uint32_t> next;
            for (uint32_t x : r)
            {
                for (const auto& un : UpNeighbours(dim, x))
                {
                    next.insert(un.first);
                }
            }
            any = any || !next.empty();
            r.swap(next);
        }
        if (!any)
        {
            break;
        }
        std::vector<uint32_t> common(reach[0].begin(), reach[0].end());
        for (size_t i = 1; i < reach.size() && !common.empty(); ++i)
        {
            std::vector<uint32_t> keep;
            std::set_intersection(common.begin(),
                                  common.end(),
                                  reach[i].begin(),
                                  reach[i].end(),
                                  std::back_inserter(keep));
            common.swap(keep);
        }
        if (!common.empty())
        {
            const size_t start = GroupHash(dim, members) % common.size();
            std::rotate(common.begin(), common.begin() + start, common.end());
            return common;
        }
    }
    return {};
}

AggregationTree
AggregationTreeBuilder::Build(uint32_t dim,
                              const std::vector<uint32_t>& members,
                              uint32_t root) const
{
    const std::vector<uint32_t> first = FirstHops(dim, members);
    const auto& links = m_topo.GetLinks();
    AggregationTree t;
    t.dim = int32_t(dim);
    t.members = members;
    std::map<uint32_t, uint32_t> index; // switch -> node index
    auto nodeOf = [&](uint32_t sw) {
        auto it = index.find(sw);
        if (it != index.end())
        {
            return it->second;
        }
        const uint32_t i = uint32_t(t.nodes.size());
        t.nodes.emplace_back();
        t.nodes.back().sw = sw;
        index.emplace(sw, i);
        return i;
    };
    // the root's level: the number of tiers between a first-hop switch and the root
    const int rootRank = TierRank(m_topo.GetSwitchTier(root));
    // path from x up to the root in exactly `steps` tiers (lowest node id at each choice)
    std::vector<std::pair<uint32_t, uint32_t>> path; // (switch, link up to it)
    std::function<bool(uint32_t, int)> climb = [&](uint32_t x, int steps) -> bool {
        if (steps == 0)
        {
            return x == root;
        }
        for (const auto& un : UpNeighbours(dim, x))
        {
            path.push_back(un);
            if (climb(un.first, steps - 1))
            {
                return true;
            }
            path.pop_back();
        }
        return false;
    };
    t.attach.resize(members.size());
    t.memberUp.resize(members.size());
    uint32_t depth = 1;
    for (size_t m = 0; m < members.size(); ++m)
    {
        const uint32_t leaf = first[m];
        const int steps = leaf == root ? 0 : rootRank - TierRank(m_topo.GetSwitchTier(leaf));
        path.clear();
        if (steps < 0 || !climb(leaf, steps))
        {
            throw std::invalid_argument("in-switch: switch " + std::to_string(root) +
                                        " is not above switch " + std::to_string(leaf));
        }
        depth = std::max<uint32_t>(depth, uint32_t(steps) + 1);
        uint32_t child = nodeOf(leaf);
        t.attach[m] = child;
        t.nodes[child].members.push_back(uint32_t(m));
        for (const auto& hop : path)
        {
            const uint32_t parent = nodeOf(hop.first);
            AggregationTreeNode& c = t.nodes[child];
            if (c.parent < 0)
            {
                c.parent = int32_t(parent);
                c.up = {hop.second, uint8_t(links[hop.second].a == c.sw ? 0 : 1)};
                t.nodes[parent].children.push_back(child);
            }
            child = parent;
        }
        // the member's own link to its first-hop switch
        bool found = false;
        for (uint32_t l : m_topo.GetNodeLinks(members[m]))
        {
            if (links[l].dim == int32_t(dim) && (links[l].a == leaf || links[l].b == leaf))
            {
                t.memberUp[m] = {l, uint8_t(links[l].a == members[m] ? 0 : 1)};
                found = true;
                break;
            }
        }
        if (!found)
        {
            throw std::invalid_argument("in-switch: NPU " + std::to_string(members[m]) +
                                        " has no link to switch " + std::to_string(leaf));
        }
    }
    t.root = index.at(root);
    t.depth = depth;
    // levels (root: depth - 1), subtrees and ports, children in a fixed order
    for (auto& n : t.nodes)
    {
        std::sort(n.children.begin(), n.children.end());
    }
    std::function<void(uint32_t, uint32_t)> fill = [&](uint32_t i, uint32_t level) {
        AggregationTreeNode& n = t.nodes[i];
        n.level = level;
        n.subtree = n.members;
        for (uint32_t c : n.children)
        {
            fill(c, level == 0 ? 0 : level - 1);
            const auto& s = t.nodes[c].subtree;
            t.nodes[i].subtree.insert(t.nodes[i].subtree.end(), s.begin(), s.end());
        }
        AggregationTreeNode& me = t.nodes[i];
        std::sort(me.subtree.begin(), me.subtree.end());
        me.ports = uint32_t(me.children.size() + me.members.size()) + (me.parent >= 0 ? 1 : 0);
        me.portLinks.clear();
        for (uint32_t m : me.members)
        {
            me.portLinks.push_back(t.memberUp[m].link);
        }
        for (uint32_t c : me.children)
        {
            me.portLinks.push_back(t.nodes[c].up.link);
        }
        if (me.parent >= 0)
        {
            me.portLinks.push_back(me.up.link);
        }
    };
    fill(t.root, depth - 1);
    return t;
}

} // namespace astra
} // namespace ns3
