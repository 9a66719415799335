#include "node-dependencies.h"

#include <utility>

namespace ns3
{
namespace astra
{

NodeDependencies
NodeDependencies::Build(const WorkloadGraph& g)
{
    NodeDependencies t;
    const auto& nodes = g.nodes;
    const uint32_t n = static_cast<uint32_t>(nodes.size());
    t.pending.assign(n, 0);
    std::vector<uint32_t> count(n + 1, 0);
    std::vector<std::pair<uint32_t, uint32_t>> edges; // (parent, child), in node order
    for (uint32_t i = 0; i < n; ++i)
    {
        for (int ctrl = 0; ctrl < 2; ++ctrl)
        {
            for (uint64_t d : ctrl ? nodes[i].ctrlDeps : nodes[i].dataDeps)
            {
                auto it = g.index.find(d);
                if (it == g.index.end())
                {
                    t.dangling.push_back({i, d, ctrl != 0});
                    continue;
                }
                edges.emplace_back(it->second, i);
                t.pending[i]++;
                count[it->second + 1]++;
            }
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        count[i + 1] += count[i];
    }
    t.childStart = count;
    t.children.assign(edges.size(), 0);
    std::vector<uint32_t> fill(count.begin(), count.end() - 1);
    for (const auto& e : edges)
    {
        t.children[fill[e.first]++] = e.second;
    }
    return t;
}

} // namespace astra
} // namespace ns3
