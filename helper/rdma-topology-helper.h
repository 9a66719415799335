/*
 * RdmaTopologyHelper: builders of small RoCE fabrics (dumbbell, star,
 * leaf-spine) on top of RdmaHelper::Connect, with routing installed. The
 * leaf-spine is the topology's Clos dimension built by AstraFabricHelper (one
 * description of a leaf-spine); the larger fabrics (rings, tori, fat-trees,
 * rail-optimized Clos) come from a Topology through AstraFabricHelper.
 */

#ifndef RDMA_TOPOLOGY_HELPER_H
#define RDMA_TOPOLOGY_HELPER_H

#include "rdma-helper.h"

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup astra-sim
 * What a builder created.
 */
struct RdmaTopology
{
    /// One full-duplex link.
    struct Link
    {
        Ptr<Node> a;             //!< one end
        Ptr<Node> b;             //!< other end
        Ptr<RdmaNetDevice> devA; //!< device at a
        Ptr<RdmaNetDevice> devB; //!< device at b
        DataRate rate;           //!< rate per direction
        Time delay;              //!< propagation delay
    };

    NodeContainer hosts;              //!< hosts, in host-index order of this topology
    NodeContainer switches;           //!< switches (builder order, see each builder)
    std::vector<uint32_t> hostIndex;  //!< host index of hosts.Get(i)
    std::vector<Ipv4Address> hostIps; //!< address of hosts.Get(i)
    NetDeviceContainer devices;       //!< every device, in link order (a then b)
    std::vector<Link> links;          //!< every link
    double oversubscription{1.0};     //!< leaf-spine: downlink / uplink capacity per leaf

    /// \return hosts and switches
    NodeContainer AllNodes() const
    {
        return NodeContainer(hosts, switches);
    }
};

/**
 * \ingroup astra-sim
 * Leaf-spine parameters.
 */
struct RdmaLeafSpineParams
{
    uint32_t nLeaves{2};                 //!< leaf (ToR) switches
    uint32_t hostsPerLeaf{4};            //!< hosts per leaf
    uint32_t nSpines{2};                 //!< spine switches (each leaf links to every spine)
    DataRate hostRate{"100Gbps"};        //!< host-leaf links
    DataRate fabricRate{0};              //!< leaf-spine links; 0 = derived from oversubscription
    double oversubscription{1.0};        //!< used when fabricRate is 0
    Time hostDelay{NanoSeconds(1000)};   //!< host-leaf propagation delay
    Time fabricDelay{NanoSeconds(1000)}; //!< leaf-spine propagation delay
};

/**
 * \ingroup astra-sim
 * Builds fabrics with an RdmaHelper (whose attributes apply) and installs routes.
 */
class RdmaTopologyHelper
{
  public:
    RdmaTopologyHelper();

    /// \return the RdmaHelper used (set device/switch/MMU/host attributes on it)
    RdmaHelper& GetRdmaHelper();

    /**
     * Connect two installed nodes and record the link in topo.
     * \param topo the topology being built
     * \param a one end
     * \param b other end
     * \param rate rate per direction
     * \param delay propagation delay
     * \return the link
     */
    RdmaTopology::Link Connect(RdmaTopology& topo,
                               Ptr<Node> a,
                               Ptr<Node> b,
                               DataRate rate,
                               Time delay);

    /**
     * Create n hosts, install them and record them in topo.
     * \param topo the topology being built
     * \param n number of hosts
     */
    void AddHosts(RdmaTopology& topo, uint32_t n);
    /**
     * Create n switches, install them and record them in topo.
     * \param topo the topology being built
     * \param n number of switches
     */
    void AddSwitches(RdmaTopology& topo, uint32_t n);
    /// Install routing tables over the topology's nodes \param topo the topology
    void Finish(RdmaTopology& topo);

    /**
     * Dumbbell: nLeft hosts on switch 0, nRight hosts on switch 1, switches
     * linked by the bottleneck. Hosts 0..nLeft-1 are on the left.
     * \param nLeft hosts on the left
     * \param nRight hosts on the right
     * \param hostRate host links
     * \param bottleneckRate switch-switch link
     * \param delay every link's delay
     * \return the topology
     */
    RdmaTopology Dumbbell(uint32_t nLeft,
                          uint32_t nRight,
                          DataRate hostRate,
                          DataRate bottleneckRate,
                          Time delay);

    /**
     * Star: nHosts hosts on one switch.
     * \param nHosts hosts
     * \param rate link rate
     * \param delay link delay
     * \return the topology
     */
    RdmaTopology Star(uint32_t nHosts, DataRate rate, Time delay);

    /**
     * Leaf-spine: switches 0..nLeaves-1 are leaves, then spines; host h is on
     * leaf h / hostsPerLeaf; every leaf has one link to every spine. Built
     * from the topology's Clos dimension (ClosDimension, AstraFabricHelper
     * with SetAutoConfigure(false)), so it is the same fabric the RoCE
     * backend builds for a Clos network file; links in the order host h to
     * its leaf, then leaf l to spine s (l-major). Needs nLeaves >= 2 (a
     * single leaf has no spines: Star); throws astra::InputError otherwise.
     * \param p parameters
     * \return the topology (oversubscription = hostsPerLeaf x hostRate / (nSpines x fabricRate))
     */
    RdmaTopology LeafSpine(const RdmaLeafSpineParams& p);

  private:
    RdmaHelper m_helper; //!< installs nodes and links
};

} // namespace ns3

#endif /* RDMA_TOPOLOGY_HELPER_H */
