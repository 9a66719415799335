/*
 * Dependency resolution of a workload graph, shared by the per-NPU workload
 * engine (AstraSimApplication) and the custom-collective interpreter
 * (CustomCollective): per node the number of unfinished dependencies, per node
 * its dependents in a flat (CSR) array.
 */

#ifndef ASTRA_NODE_DEPENDENCIES_H
#define ASTRA_NODE_DEPENDENCIES_H

#include "ns3/workload-graph.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * The dependency counts and dependents of a graph's nodes (indices into
 * WorkloadGraph::nodes). A node is ready when its count is 0; when a node
 * finishes, each of its dependents' counts drops by one.
 */
class NodeDependencies
{
  public:
    /**
     * Called for a dependency on an id that is not in the graph: throw to
     * reject the graph, return to drop the dependency.
     * \param node index of the node that names it
     * \param dep the missing id
     * \param control true for a control dependency, false for a data dependency
     */
    using DanglingHandler = std::function<void(uint32_t node, uint64_t dep, bool control)>;

    /**
     * Resolve every node's data dependencies, then its control dependencies,
     * through the graph's index. A node's dependents are listed in node order
     * (a dependency named twice counts twice).
     * \param g the graph (its index must be up to date)
     * \param onDangling what to do with a dependency on an absent id
     */
    NodeDependencies(const WorkloadGraph& g, const DanglingHandler& onDangling);

    /// \return the number of nodes
    uint32_t GetNodeCount() const
    {
        return static_cast<uint32_t>(m_pending.size());
    }

    /// \return the unfinished dependencies of every node (the caller counts them down)
    std::vector<uint32_t>& Pending()
    {
        return m_pending;
    }

    /// \return the first of \p node's dependents (an index into GetDependents())
    uint32_t DependentsBegin(uint32_t node) const
    {
        return m_start[node];
    }

    /// \return one past the last of \p node's dependents
    uint32_t DependentsEnd(uint32_t node) const
    {
        return m_start[node + 1];
    }

    /// \return the dependents of all nodes, grouped by node (see DependentsBegin)
    const std::vector<uint32_t>& GetDependents() const
    {
        return m_dependents;
    }

  private:
    std::vector<uint32_t> m_pending;    //!< per node: unfinished dependencies
    std::vector<uint32_t> m_start;      //!< per node: first dependent (size nodes + 1)
    std::vector<uint32_t> m_dependents; //!< dependents, grouped by node
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_NODE_DEPENDENCIES_H */
