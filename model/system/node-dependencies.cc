#include "node-dependencies.h"

#include <utility>

namespace ns3
{
namespace astra
{

NodeDependencies::NodeDependencies(const WorkloadGraph& g, const DanglingHandler& onDangling)
{
    const auto& nodes = g.nodes;
    const uint32_t n = static_cast<uint32_t>(nodes.size());
    m_pending.assign(n, 0);
    std::vector<uint32_t> count(n + 1, 0);
    std::vector<std::pair<uint32_t, uint32_t>> edges; // (parent, child), in node order
    for (uint32_t i = 0; i < n; ++i)
    {
        for (int control = 0; control < 2; ++control)
        {
            for (uint64_t d : control ? nodes[i].ctrlDeps : nodes[i].dataDeps)
            {
                auto it = g.index.find(d);
                if (it == g.index.end())
                {
                    onDangling(i, d, control != 0); // throws, or drops the dependency
                    continue;
                }
                edges.emplace_back(it->second, i);
                m_pending[i]++;
                count[it->second + 1]++;
            }
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        count[i + 1] += count[i];
    }
    m_start = count;
    m_dependents.assign(edges.size(), 0);
    std::vector<uint32_t> fill(count.begin(), count.end() - 1);
    for (const auto& e : edges)
    {
        m_dependents[fill[e.first]++] = e.second;
    }
}

} // namespace astra
} // namespace ns3
