/*
 * Reduction trees over a topology's switch hierarchy, one per communicator
 * group and dimension, computed from the one Topology description so that
 * the analytical, flow-level and packet-level in-switch models run on the
 * same tree: the members' first-hop switches (a Switch dimension's line
 * switch, Clos / RailClos leaves, fat-tree edges) are the tree's lowest
 * level; one switch under all of them is the root (a single switch: depth
 * 1; leaves under a spine: depth 2; fat-tree edges under a pod's aggregation
 * switch: depth 2, or under a core through one aggregation switch per pod:
 * depth 3). The construction walks the switch tiers of the graph
 * (SwitchTier), so it serves every switched dimension type alike.
 */

#ifndef ASTRA_AGGREGATION_TREE_H
#define ASTRA_AGGREGATION_TREE_H

#include "ns3/topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/// One switch of a reduction tree.
struct AggregationTreeNode
{
    uint32_t sw{0};                  //!< topology node id of the switch
    int32_t parent{-1};              //!< index of the parent in AggregationTree::nodes; -1: root
    Topology::Hop up{0, 0};          //!< the link to the parent, directed upwards (root: unused)
    uint32_t level{0};               //!< 0: a first-hop switch; root: depth - 1
    std::vector<uint32_t> children;  //!< child switches (indices in nodes)
    std::vector<uint32_t> members;   //!< member indices attached to this switch directly
    std::vector<uint32_t> subtree;   //!< member indices below this switch (sorted)
    uint32_t ports{0};               //!< switch ports the tree uses (children + parent)
    std::vector<uint32_t> portLinks; //!< topology links of those ports
};

/**
 * \ingroup astra-sim
 * A reduction tree of one group on one dimension.
 */
struct AggregationTree
{
    int32_t dim{-1};                        //!< the dimension
    std::vector<uint32_t> members;          //!< member NPUs (sorted)
    std::vector<AggregationTreeNode> nodes; //!< switches; the root is nodes[root]
    uint32_t root{0};                       //!< index of the root in nodes
    uint32_t depth{0};                      //!< switch levels (1: a single switch)
    std::vector<uint32_t> attach;           //!< per member: index of its first-hop switch
    std::vector<Topology::Hop> memberUp;    //!< per member: its link to that switch, upwards

    /// \return every tree edge, directed upwards: members' links first, then switch links
    std::vector<Topology::Hop> UpLinks() const;
    /// \return propagation latency (ns) from member \p m up to the root \param topo the topology
    double UpLatencyNs(const Topology& topo, uint32_t m) const;
    /// \return the slowest link rate of the tree (bytes per ns) \param topo the topology
    double MinRate(const Topology& topo) const;
    /// \return the switches of member \p m's path to the root, first-hop first \param m index
    std::vector<uint32_t> PathNodes(uint32_t m) const;
    /// \return "leaf 17 -> spine 21" style description \param topo the topology
    std::string Describe(const Topology& topo) const;
};

/**
 * \ingroup astra-sim
 * Builds reduction trees from a topology.
 */
class AggregationTreeBuilder
{
  public:
    /**
     * \param topo the topology (kept by reference; must outlive the builder)
     */
    explicit AggregationTreeBuilder(const Topology& topo);

    /**
     * The switches that can be the root of a group's tree, in the order a
     * group tries them: the lowest tier with a switch above every member's
     * first-hop switch (several spines or cores are equivalent; the order
     * starts at a hash of the group so that groups spread over them).
     * \param dim the dimension (a switched type)
     * \param members the group's NPUs (sorted, differing only in dim)
     * \return candidate roots (topology node ids); empty: none exists
     * \throw std::invalid_argument for a dimension without switches or
     * members outside one line of it
     */
    std::vector<uint32_t> RootCandidates(uint32_t dim, const std::vector<uint32_t>& members) const;

    /**
     * Build the tree of a group under a given root.
     * \param dim the dimension
     * \param members the group's NPUs (sorted)
     * \param root a switch from RootCandidates
     * \return the tree
     */
    AggregationTree Build(uint32_t dim, const std::vector<uint32_t>& members, uint32_t root) const;

  private:
    /// \return the first-hop switch of each member (checks the dimension) \param dim \param members
    std::vector<uint32_t> FirstHops(uint32_t dim, const std::vector<uint32_t>& members) const;
    /// \return neighbours of \p sw one tier up inside \p dim, with the link, sorted by node id
    std::vector<std::pair<uint32_t, uint32_t>> UpNeighbours(uint32_t dim, uint32_t sw) const;

    const Topology& m_topo; //!< the topology
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_AGGREGATION_TREE_H */
