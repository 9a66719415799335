/*
 * AstraFabricHelper: builds the packet-level RoCE fabric (ns-3 nodes, RDMA
 * NICs, switches, links, ECMP routes) from the same Topology description the
 * analytical and flow-level backends use, so the three backends simulate one
 * and the same network.
 */

#ifndef ASTRA_FABRIC_HELPER_H
#define ASTRA_FABRIC_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-net-device.h"
#include "ns3/topology.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * The cut of a partition of a fabric: the links whose two ends have different
 * system ids (MPI ranks), and what each system holds.
 */
struct FabricCut
{
    uint32_t systems{1};                  //!< number of systems
    std::vector<uint32_t> links;          //!< topology link ids crossing systems
    Time lookahead{Time::Max()};          //!< smallest delay of a cut link (Max: no cut)
    uint32_t zeroDelayLink{0};            //!< the cut link of that smallest delay
    std::vector<uint32_t> npusPerSystem;  //!< NPUs per system
    std::vector<uint32_t> nodesPerSystem; //!< nodes (NPUs, switches, memory) per system
    std::vector<uint32_t> linksPerSystem; //!< cut links with an end in the system
};

/**
 * \ingroup astra-sim
 * Instantiates a Topology as a RoCE fabric.
 *
 * - one ns-3 Node per NPU, created first so that NPU id = host index =
 *   index in GetNpus(); memory nodes follow as further hosts;
 * - one Node (RdmaSwitch) per switch of the topology (one per line of every
 *   Switch dimension);
 * - one full-duplex RdmaNetDevice pair per topology link, rate
 *   bytesPerNs x 8e9 bit/s (ASTRA-sim GB = 2^30 bytes, as in Topology) and
 *   delay latencyNs. Links are connected in topology order (dimension by
 *   dimension), so an NPU's ports are numbered by dimension: a port per
 *   dimension link (two on a Ring of more than two NPUs, n-1 on a
 *   FullyConnected line, one towards each Switch);
 * - hosts with more than one port relay transit traffic
 *   (RdmaHelper::EnableHostTransit), so switch-less dimensions and paths that
 *   cross dimensions are routed through NPUs' NICs;
 * - ECMP shortest-path routes (RdmaRoutingHelper) on every node;
 * - what the built fabric determines (SetAutoConfigure, on by default):
 *   SwitchMmu::MtuFrameBytes follows the hosts' Mtu (PFC headroom sizing),
 *   and a device whose IP Mtu cannot carry the hosts' largest data frame
 *   (SimAI's 9000 B payloads) gets a larger one;
 *   a host stack whose RdmaHostStack::BaseRtt is 0 gets the fabric's base
 *   RTT (ComputeBaseRtt); when a host's congestion control needs in-band
 *   telemetry (HPCC, RdmaCongestionOps::NeedsInt) every switch and forwarder
 *   gets IntEnabled = true; and every host stack and switch MMU is validated,
 *   so that a bad setting is an astra::InputError before the simulation runs.
 *   ECN thresholds come from each switch's marker (HPCC's per-rate maps:
 *   RdmaEcnRed::RateThresholds).
 *
 * Every node gets an ns-3 system id (for a later MPI run) from the partition
 * policy: "none" (all 0), "round-robin" (NPU i -> i mod Systems), "block"
 * (contiguous NPU ranges) or "dim0-line" (whole lines of dimension 0 kept
 * together, lines dealt out in contiguous blocks). A switch or memory node
 * with an NPU neighbour gets the system id of its first NPU neighbour (a
 * Switch dimension's switch: the first NPU of its line; a Clos leaf or
 * fat-tree edge: its first NPU); a node further away (spine, aggregation,
 * core) takes that of one of its neighbours one hop closer to the NPUs,
 * picked by its node id modulo their number, so that spines and cores are
 * spread over the partitions. The topology policies keep groups of nodes on one
 * system: "scale-up" the lines of a scale-up dimension 0 (Ring, FullyConnected,
 * Switch: a server), "leaf" those and every NPU with its leaf / edge switch,
 * "pod" those and a fat-tree's edges with their aggregation switches. Groups
 * are dealt out in contiguous blocks balanced by NPUs (fewer groups than
 * systems is an InputError); nodes outside every group (spines, cores) follow
 * their anchor NPU as above. GetCut / DescribePartition report the cut: the
 * links between systems and the lookahead (their smallest delay). The
 * sequential simulator ignores system ids; a distributed run
 * (RdmaHelper::SetDistributed) makes cut links RdmaRemoteChannels and needs a
 * lookahead > 0.
 *
 * Clos, FatTree and RailClos dimensions build their leaves / edges,
 * spines / aggregations and cores as RdmaSwitch nodes; routing is ECMP over
 * every equal-cost path of the real graph.
 *
 * \code
 * auto topo = std::make_shared<Topology>(Topology::FromFile("net.yml"));
 * AstraFabricHelper fabric;
 * fabric.GetRdmaHelper().SetSwitchAttribute("Kmin", UintegerValue(100000));
 * fabric.Install(topo);
 * Ptr<RoceBackend> backend = CreateObject<RoceBackend>();
 * backend->SetFabric(topo, fabric.GetNpus());
 * \endcode
 */
class AstraFabricHelper
{
  public:
    AstraFabricHelper();
    /**
     * Build with another RdmaHelper (its attributes, host numbering and host
     * directory), which must outlive this helper.
     * \param rdma the helper
     */
    explicit AstraFabricHelper(RdmaHelper& rdma);
    AstraFabricHelper(const AstraFabricHelper& other);            //!< copy
    AstraFabricHelper& operator=(const AstraFabricHelper& other); //!< assign \return *this

    /// \return the RdmaHelper used to build (set device/switch/MMU/host attributes on it)
    RdmaHelper& GetRdmaHelper();

    /**
     * Choose how nodes are assigned to ns-3 system ids (logical processes).
     * Throws astra::InputError for an unknown policy or 0 systems.
     * \param policy one of GetPartitionPolicies()
     * \param systems number of logical processes (>= 1)
     */
    void SetPartition(const std::string& policy, uint32_t systems);
    /// \return the partition policies: none, round-robin, block, dim0-line, scale-up, leaf, pod
    static std::vector<std::string> GetPartitionPolicies();

    /**
     * The cut of an assignment of system ids (no fabric needed).
     * \param topo the topology
     * \param systemIds system id per topology node
     * \param systems number of systems
     * \return the cut
     */
    static FabricCut ComputeCut(const Topology& topo,
                                const std::vector<uint32_t>& systemIds,
                                uint32_t systems);
    /// \return the cut of the installed fabric's partition (after Install)
    const FabricCut& GetCut() const;
    /// \return a readable report of the partition and its cut (after Install)
    std::string DescribePartition() const;

    /// Enable (default) or disable transit forwarding on multi-port NPUs \param enable flag
    void SetHostTransit(bool enable);

    /**
     * Enable (default) or disable the settings Install derives from the
     * fabric (class description: MtuFrameBytes, BaseRtt, IntEnabled for
     * HPCC, validation). Disabled, every value is taken from the RdmaHelper
     * and the attribute defaults as given (RdmaTopologyHelper's builders).
     * \param enable flag
     */
    void SetAutoConfigure(bool enable);

    /**
     * The fabric's base RTT, as a host stack's BaseRtt: the largest, over
     * all pairs of hosts (NPUs and memory nodes) and the shortest paths
     * between them, of twice the propagation delay plus the serialization of
     * one data frame of mtu payload bytes (with its RETH) on every hop one
     * way and of its ACK on every hop back (HPCC's simulator counts the
     * payload one way only), rounded up to the ns. Call after Install.
     * \param mtu payload bytes per packet (RdmaHostStack::Mtu)
     * \return the base RTT (0 if there are fewer than two hosts)
     */
    Time ComputeBaseRtt(uint32_t mtu) const;

    /// \return the base RTT Install gave host stacks without one (0: none derived)
    Time GetDerivedBaseRtt() const;
    /// \return whether Install turned INT on because a congestion control needs it
    bool IsIntAutoEnabled() const;

    /**
     * Fix the random streams of the fabric's switches and forwarders (ECN
     * marking draws), so that a run does not depend on how many random
     * variables the process created before (ns-3's automatic stream
     * numbering is process-wide). Call after Install.
     * \param stream first stream
     * \return streams used
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * Build the fabric. Can be called once per helper.
     * \param topo the topology (kept)
     * \return the NPU nodes (index = NPU id)
     */
    NodeContainer Install(std::shared_ptr<const Topology> topo);

    NodeContainer GetNpus() const;        //!< \return NPU nodes, index = NPU id
    NodeContainer GetSwitches() const;    //!< \return switch nodes, in topology order
    NodeContainer GetMemoryNodes() const; //!< \return memory nodes (hosts after the NPUs)
    NodeContainer GetAllNodes() const;    //!< \return NPUs, memory nodes and switches
    /// \return the ns-3 node of a topology node id
    Ptr<Node> GetNode(uint32_t topoNode) const;
    /// \return the topology
    std::shared_ptr<const Topology> GetTopology() const;

    /**
     * Devices of a topology link.
     * \param link topology link id
     * \return devices at end a and at end b
     */
    std::pair<Ptr<RdmaNetDevice>, Ptr<RdmaNetDevice>> GetLinkDevices(uint32_t link) const;

    /// \return system id assigned to a topology node \param topoNode topology node id
    uint32_t GetSystemId(uint32_t topoNode) const;

    /// \return ns-3 rate of a topology link (bytesPerNs x 8e9 bit/s) \param l the link
    static DataRate LinkRate(const TopoLink& l);
    /// \return ns-3 delay of a topology link (latencyNs, ps resolution) \param l the link
    static Time LinkDelay(const TopoLink& l);

    /**
     * Wire bytes of an RDMA WRITE message of `bytes` payload bytes cut into
     * packets of `mtu` payload bytes (headers, ICRC, FCS, preamble and IFG of
     * every frame; the first carries a RETH).
     * \param bytes message payload
     * \param mtu payload per packet
     * \return wire bytes
     */
    static uint64_t MessageWireBytes(uint64_t bytes, uint32_t mtu);

    /**
     * Wire bytes of the ACK frames the responder returns for such a message
     * (one per ackInterval packets, and one at the message end). They travel
     * the reverse path: on a Switch an NPU that sends and receives at once
     * (all-to-all) carries them on its uplink beside its own data.
     * \param bytes message payload
     * \param mtu payload per packet
     * \param ackInterval packets per ACK (RdmaHostStack::AckInterval)
     * \return wire bytes of the ACKs
     */
    static uint64_t MessageAckWireBytes(uint64_t bytes, uint32_t mtu, uint32_t ackInterval = 1);

  private:
    /// anchor NPU of every node (m_anchor), the NPU whose system id it takes
    void ComputeAnchors();
    /// group policies (scale-up, leaf, pod): system id per node of a group (m_group)
    void ComputeGroups();
    uint32_t ComputeSystemId(uint32_t topoNode) const;
    /// SwitchMmu::MtuFrameBytes from the hosts' Mtu (before the switches are installed)
    void ConfigureMtuFrame();
    /// BaseRtt, IntEnabled for HPCC, validation (after the fabric is built)
    void ConfigureFromFabric();

    RdmaHelper m_ownRdma; //!< the helper used unless another was given
    RdmaHelper* m_rdma;   //!< the helper used (m_ownRdma or the constructor's)
    std::string m_partition{"none"};
    uint32_t m_systems{1};
    bool m_transit{true};
    bool m_autoConfigure{true};
    std::shared_ptr<const Topology> m_topo;
    NodeContainer m_npus;
    NodeContainer m_switches;
    NodeContainer m_memory;
    std::vector<Ptr<Node>> m_byTopo;
    std::vector<uint32_t> m_systemIds;
    std::vector<uint32_t> m_anchor; //!< per topology node: the NPU whose system id it takes
    std::vector<uint32_t> m_group;  //!< group policies: system id per node (UINT32_MAX: none)
    FabricCut m_cut;                //!< the partition's cut
    std::vector<std::pair<Ptr<RdmaNetDevice>, Ptr<RdmaNetDevice>>> m_linkDevs;
    Time m_derivedBaseRtt{0}; //!< base RTT given to host stacks without one
    bool m_intAuto{false};    //!< INT turned on for a congestion control that needs it
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_FABRIC_HELPER_H */
