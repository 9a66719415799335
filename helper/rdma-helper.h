/*
 * RdmaHelper: installs the RoCE fabric on ns-3 nodes: host stacks (by TypeId,
 * default "ns3::RdmaHostStack") and RdmaSwitch objects, full-duplex links of
 * RdmaNetDevices over RdmaChannels, host indices and addresses, transit
 * forwarders on hosts of switch-less topologies, and pcap.
 */

#ifndef RDMA_HELPER_H
#define RDMA_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-host-directory.h"
#include "ns3/rdma-net-device.h"

#include <string>
#include <utility>

namespace ns3
{

class RdmaSwitch;
class RdmaTransitForwarder;

/**
 * \ingroup astra-sim
 * Builds RoCE hosts, switches and links.
 *
 * Typical use:
 * \code
 * RdmaHelper rdma;
 * rdma.SetSwitchAttribute("Kmin", UintegerValue(100000));
 * rdma.SetMmuAttribute("BufferSize", UintegerValue(16 << 20));
 * rdma.InstallHosts(hosts);    // host indices 0..N-1, addresses 11.0.0.0 + i + 1
 * rdma.Install(switches);
 * rdma.Connect(hosts.Get(0), switches.Get(0), DataRate("100Gbps"), NanoSeconds(1000));
 * RdmaRoutingHelper().PopulateRoutingTables(all);
 * \endcode
 * Nodes must be installed (as hosts or switches) before Connect().
 */
class RdmaHelper
{
  public:
    RdmaHelper();

    /// Set an attribute of every RdmaNetDevice created \param n name \param v value
    void SetDeviceAttribute(std::string n, const AttributeValue& v);
    /// Set an attribute of every RdmaChannel created \param n name \param v value
    void SetChannelAttribute(std::string n, const AttributeValue& v);
    /// Set an attribute of every RdmaSwitch created \param n name \param v value
    void SetSwitchAttribute(std::string n, const AttributeValue& v);
    /// Set an attribute of every SwitchMmu (switches and forwarders) \param n name \param v value
    void SetMmuAttribute(std::string n, const AttributeValue& v);
    /// Set an attribute of every host stack created \param n name \param v value
    void SetHostStackAttribute(std::string n, const AttributeValue& v);
    /// Set an attribute of every RdmaTransitForwarder created \param n name \param v value
    void SetForwarderAttribute(std::string n, const AttributeValue& v);
    /// Host stack TypeId name ("" = none) \param tid TypeId name
    void SetHostStackType(std::string tid);

    /**
     * Give every switch and transit forwarder created from now on its own ECN
     * marker of this type with these attributes (instead of one from the
     * switch's EcnMarker attribute), e.g.
     * SetEcnMarker("ns3::RdmaEcnStep", "K", UintegerValue(65000)).
     * Throws astra::InputError if the type is not an ns3::RdmaEcnMarker.
     * \param type the marker's TypeId name
     * \param args name / value pairs of its attributes
     */
    template <typename... Args>
    void SetEcnMarker(const std::string& type, Args&&... args);

    /**
     * Make nodes hosts: give them the next host indices and addresses, an
     * RdmaNodeInfo, an RdmaForwardingTable and the host stack (registered in
     * this helper's RdmaHostDirectory, so that hosts installed by one helper
     * can connect to each other).
     * \param hosts the nodes
     */
    void InstallHosts(NodeContainer hosts);
    /**
     * Make nodes switches: aggregate an RdmaSwitch (and its forwarding table).
     * \param switches the nodes
     */
    void Install(NodeContainer switches);

    /**
     * Give hosts an RdmaTransitForwarder (switch-less topologies: hosts relay
     * traffic); existing and future ports are added to it. The routing helper
     * routes through hosts that have one.
     * \param hosts the hosts
     */
    void EnableHostTransit(NodeContainer hosts);

    /**
     * Connect two installed nodes with a full-duplex link.
     * \param a one end
     * \param b other end
     * \param rate link rate (each direction)
     * \param delay propagation delay
     * \return the devices at a and at b
     */
    std::pair<Ptr<RdmaNetDevice>, Ptr<RdmaNetDevice>> Connect(Ptr<Node> a,
                                                              Ptr<Node> b,
                                                              DataRate rate,
                                                              Time delay);

    /**
     * Build for a distributed run in which this process is the logical process
     * (ns-3 system id, MPI rank) localSystemId: Connect makes a link between nodes of
     * different system ids an ns3::RdmaRemoteChannel, and the host directory treats
     * stacks of other system ids as remote (RdmaHostDirectory::SetLocalSystem). Throws
     * astra::InputError if this build has no RdmaRemoteChannel (ns-3 without its mpi
     * module). Call before Connect.
     * \param localSystemId this process's system id
     */
    void SetDistributed(uint32_t localSystemId);
    /// \return true after SetDistributed
    bool IsDistributed() const;

    /**
     * Build only the part of the fabric that runs in this process: nodes whose ns-3
     * system id is not localSystemId become ghosts (RdmaNodeInfo::IsGhost) that keep their
     * ports, so that node ids and device indices are those of the whole fabric (which
     * ns-3's MpiInterface addresses), and their forwarding tables (the ideal FCT path of a
     * message from another rank), but get no switch (MMU, queues), host stack or transit
     * forwarder. A ghost host is recorded in the host directory
     * (RdmaHostDirectory::AddRemote): a QP to it opens its local end only. SetDistributed
     * calls this; without MPI it builds one rank's part in one process (tests). Call
     * before InstallHosts / Install.
     * \param localSystemId the system id built in full
     */
    void SetLocalSystem(uint32_t localSystemId);
    /// \return true after SetLocalSystem (or SetDistributed)
    bool IsPartial() const;
    /// \return whether a node is built in full (not a ghost) \param node the node
    bool IsBuilt(Ptr<Node> node) const;
    /// \return true if the build has ns3::RdmaRemoteChannel (ns-3's mpi module)
    static bool HasRemoteChannel();

    /// \return every device created by this helper
    NetDeviceContainer GetDevices() const;
    /// \return number of hosts numbered so far
    uint32_t GetNHosts() const;
    /// \return the directory of the host stacks this helper installed (one per helper)
    Ptr<RdmaHostDirectory> GetHostDirectory() const;

    /**
     * Write pcap files of every RdmaNetDevice of the nodes.
     * \param prefix file name prefix (prefix-NODE-IFINDEX.pcap)
     * \param nodes the nodes
     */
    void EnablePcap(std::string prefix, NodeContainer nodes);

    /**
     * Fix the random streams of switches and forwarders on the nodes.
     * \param nodes the nodes
     * \param stream first stream
     * \return streams used
     */
    int64_t AssignStreams(NodeContainer nodes, int64_t stream);

    /// \return host index of a node (kInvalidHost if not a host) \param node node
    static uint32_t GetHostIndex(Ptr<Node> node);
    /// \return the address of a host index \param hostIndex host index
    static Ipv4Address GetHostAddress(uint32_t hostIndex);

  private:
    /// register a new port with the node's owners \param node node \param dev device
    void AddPortToNode(Ptr<Node> node, Ptr<RdmaNetDevice> dev);
    /// set SwitchMmu attributes on an MMU and the ECN marker \param obj the switch or forwarder
    void ConfigureMmu(Ptr<RdmaSwitch> obj);
    /// check that a TypeId name is an RdmaEcnMarker \param type the name
    static void CheckMarkerType(const std::string& type);

    ObjectFactory m_deviceFactory;    //!< devices
    ObjectFactory m_channelFactory;   //!< channels
    ObjectFactory m_switchFactory;    //!< switches
    ObjectFactory m_hostFactory;      //!< host stacks
    ObjectFactory m_forwarderFactory; //!< transit forwarders
    ObjectFactory m_markerFactory;    //!< ECN markers (SetEcnMarker)
    bool m_markerSet{false};          //!< SetEcnMarker was called
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_mmuAttributes; //!< MMU attributes
    std::string m_hostType{"ns3::RdmaHostStack"};                             //!< host stack TypeId
    uint32_t m_nextHost{0};                                                   //!< next host index
    Ptr<RdmaHostDirectory> m_directory; //!< host stacks installed by this helper
    Ptr<Object> m_hostTemplate;         //!< a host stack read for the ghosts' initial PSN
    NetDeviceContainer m_devices;       //!< devices created
    bool m_distributed{false};          //!< SetDistributed was called
    bool m_partial{false};              //!< SetLocalSystem was called
    uint32_t m_localSystem{0};          //!< the system id built in full
};

template <typename... Args>
void
RdmaHelper::SetEcnMarker(const std::string& type, Args&&... args)
{
    CheckMarkerType(type);
    m_markerFactory = ObjectFactory(type, std::forward<Args>(args)...);
    m_markerSet = true;
}

} // namespace ns3

#endif /* RDMA_HELPER_H */
