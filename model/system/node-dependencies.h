/*
 * Dependency resolution of a workload graph for its executors (the
 * custom-collective interpreter): per node the number of resolved
 * dependencies, per node its dependents in a flat (CSR) array, and the
 * dependencies that name absent ids.
 */

#ifndef ASTRA_NODE_DEPENDENCIES_H
#define ASTRA_NODE_DEPENDENCIES_H

#include "ns3/workload-graph.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * The dependencies of a graph resolved to node positions. The nodes that
 * depend on node i are children[childStart[i] .. childStart[i + 1]), in
 * increasing position (a node depending twice on i is listed twice);
 * pending[i] counts node i's resolved dependencies. A node is ready when its
 * count is 0; when it finishes, each dependent's count drops by one.
 */
struct NodeDependencies
{
    /// A dependency naming an id that is not in the graph.
    struct Dangling
    {
        uint32_t node{0}; //!< position of the node that has it
        uint64_t dep{0};  //!< the id it names
        bool ctrl{false}; //!< a control (true) or data (false) dependency
    };

    std::vector<uint32_t> pending;    //!< resolved dependencies per node
    std::vector<uint32_t> childStart; //!< n + 1 offsets into children
    std::vector<uint32_t> children;   //!< dependent node positions
    std::vector<Dangling> dangling;   //!< deps naming absent ids (not in the table)

    /**
     * Resolve a graph's data and control dependencies (data before control
     * per node, in node order) through its index. Dependencies naming absent
     * ids are left out and listed in `dangling`, in the same order; the
     * caller decides whether they are errors.
     * \param g the graph (its index must be up to date)
     * \return the table
     */
    static NodeDependencies Build(const WorkloadGraph& g);
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_NODE_DEPENDENCIES_H */
