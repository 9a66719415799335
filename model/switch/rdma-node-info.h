/*
 * RdmaNodeInfo: what the RoCE helpers know about a fabric node (host or
 * switch, host index and address, ports in port-index order). Aggregated to
 * every node the RdmaHelper installs; used by the routing helper to walk the
 * graph without depending on the host stack.
 */

#ifndef RDMA_NODE_INFO_H
#define RDMA_NODE_INFO_H

#include "rdma-forwarding-table.h"

#include "ns3/object.h"
#include "ns3/rdma-net-device.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup astra-sim
 * Role, host index and ports of a fabric node.
 */
class RdmaNodeInfo : public Object
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaNodeInfo();
    ~RdmaNodeInfo() override;

    /// Make this node host \p hostIndex (address RdmaAddressing::HostIndexToIp).
    void SetHost(uint32_t hostIndex);
    /// Make this node a switch.
    void SetSwitch();
    bool IsHost() const;           //!< \return true for a host
    uint32_t GetHostIndex() const; //!< \return host index (kInvalidHost for switches)
    uint32_t GetIp() const;        //!< \return IPv4 address (host order; 0 for switches)

    /// Register a port (sets the device's port index) \return the port index \param dev device
    uint32_t AddPort(Ptr<RdmaNetDevice> dev);
    uint32_t GetNPorts() const;                   //!< \return number of ports
    Ptr<RdmaNetDevice> GetPort(uint32_t i) const; //!< \return port i

    /**
     * Mark a node of another rank in a partial build (RdmaHelper::SetLocalSystem): it has
     * its ports (device indices as in the whole fabric) and forwarding table, but no
     * switch, host stack or forwarder.
     * \param ghost true for a node of another rank
     */
    void SetGhost(bool ghost);
    bool IsGhost() const; //!< \return true for a node of another rank in a partial build
    /// A host that relays transit traffic (RdmaHelper::EnableHostTransit) \param relay relays
    void SetRelay(bool relay);
    bool IsRelay() const; //!< \return true for a host that relays transit traffic

  protected:
    void DoDispose() override;

  private:
    bool m_isHost{false};                               //!< host or switch
    uint32_t m_hostIndex{RdmaAddressing::kInvalidHost}; //!< host index
    std::vector<Ptr<RdmaNetDevice>> m_ports;            //!< ports
    bool m_ghost{false};                                //!< node of another rank
    bool m_relay{false};                                //!< host relaying transit traffic
};

} // namespace ns3

#endif /* RDMA_NODE_INFO_H */
