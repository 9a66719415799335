/*
 * RdmaTransitForwarder: the forwarding engine of a host that relays transit
 * traffic in switch-less topologies (rings, tori, meshes). It is an
 * RdmaSwitch whose ports are owned by the host stack: the host stack keeps
 * the devices' Rx handlers and frame sources, and hands every received frame
 * not addressed to this host to Forward(inDev, frame). Transit frames go
 * through the same SwitchMmu (PFC pause/resume, headroom, ECN) as in a switch,
 * so multi-hop switch-less paths stay lossless.
 */

#ifndef RDMA_TRANSIT_FORWARDER_H
#define RDMA_TRANSIT_FORWARDER_H

#include "rdma-switch.h"

namespace ns3
{

/**
 * \ingroup astra-sim
 * Transit forwarding at a host (switch logic without owning the ports).
 *
 * Usage by the host stack: on receipt of a frame whose meta.dstIp is not
 * this host's address, call `forwarder->Forward(inDev, frame)` (the frame is
 * moved into an egress queue). Ports must be added in the host stack's port
 * order (device port indices must equal forwarder port indices). With
 * OwnTxHandler (default) the forwarder installs the devices' Tx handler; a
 * host stack that needs its own Tx handler sets OwnTxHandler=false and calls
 * NotifyTxComplete(dev, frame) from it (frames not queued by the forwarder
 * are recognised and ignored).
 */
class RdmaTransitForwarder : public RdmaSwitch
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaTransitForwarder();
    ~RdmaTransitForwarder() override;

    /**
     * Add a port of the host (after the host stack added it).
     * \param dev the device
     * \return the port index
     */
    uint32_t AddHostPort(Ptr<RdmaNetDevice> dev);

  private:
    void TxComplete(Ptr<RdmaNetDevice> dev, const RdmaQueuedFrame& frame); //!< Tx handler
    bool m_ownTxHandler; //!< install Tx handlers on added ports
};

} // namespace ns3

#endif /* RDMA_TRANSIT_FORWARDER_H */
