/*
 * RdmaRoutingHelper: shortest-path (hop count, BFS) ECMP routing for RoCE
 * fabrics of any shape: switched (leaf-spine, Clos), switch-less (ring, torus,
 * where hosts with an RdmaTransitForwarder relay transit traffic) or mixed.
 * For every node and every destination host, the equal-cost next-hop port set
 * is installed into the node's RdmaForwardingTable (used by RdmaSwitch, by
 * RdmaTransitForwarder and by the host stack for its own frames).
 */

#ifndef RDMA_ROUTING_HELPER_H
#define RDMA_ROUTING_HELPER_H

#include "ns3/node-container.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup astra-sim
 * Computes and installs ECMP shortest-path forwarding tables.
 *
 * Relays: switches always; hosts only if they have an RdmaTransitForwarder
 * (RdmaHelper::EnableHostTransit) and more than one port.
 */
class RdmaRoutingHelper
{
  public:
    RdmaRoutingHelper();

    /**
     * Compute and install the tables of every node of the fabric.
     * \param nodes hosts and switches (installed by RdmaHelper); links to
     *        nodes outside the container are ignored
     */
    void PopulateRoutingTables(NodeContainer nodes);
    /// Same, over every node in the NodeList that RdmaHelper installed.
    void PopulateRoutingTables();

    /**
     * Hop count installed at a node towards a host.
     * \param node the node
     * \param dstHost destination host index
     * \return hops (0xFFFFFFFF: unreachable / not installed)
     */
    static uint32_t GetHops(Ptr<Node> node, uint32_t dstHost);
    /**
     * Equal-cost next-hop ports installed at a node towards a host.
     * \param node the node
     * \param dstHost destination host index
     * \return port indices
     */
    static std::vector<uint32_t> GetPorts(Ptr<Node> node, uint32_t dstHost);
};

} // namespace ns3

#endif /* RDMA_ROUTING_HELPER_H */
