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

    /**
     * Make the link a-b a dateline: frames of priority fromPrio forwarded
     * (by a switch or a host's transit forwarder) onto it, in either
     * direction, continue as toPrio. On a ring with minimal routing, one
     * dateline link and two lossless priorities (fromPrio, toPrio) break the
     * cyclic buffer dependency that deadlocks PFC. (Tori with ECMP across
     * dimensions are not covered by one dateline per dimension.)
     * \param a one end
     * \param b other end
     * \param fromPrio priority before the dateline
     * \param toPrio priority after it (make it lossless too)
     */
    static void SetDateline(Ptr<Node> a, Ptr<Node> b, uint8_t fromPrio, uint8_t toPrio);
};

} // namespace ns3

#endif /* RDMA_ROUTING_HELPER_H */
