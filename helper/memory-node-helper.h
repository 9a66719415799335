/*
 * MemoryNodeHelper: disaggregated memory nodes for a scenario. From
 * ASTRA-sim's remote memory configuration (or set up in C++), it places the
 * memory nodes on the topology, checks their capacity against the workload,
 * and builds the memory model of a backend: ASTRA-sim's analytical formula,
 * flows to the memory nodes on the flow-level backend, or RDMA READ / WRITE
 * served by a MemoryServer per memory node on the RoCE fabric.
 */

#ifndef ASTRA_MEMORY_NODE_HELPER_H
#define ASTRA_MEMORY_NODE_HELPER_H

#include "ns3/astra-config.h"
#include "ns3/astra-fabric-helper.h"
#include "ns3/fabric-memory-model.h"
#include "ns3/flow-backend.h"
#include "ns3/memory-device.h"
#include "ns3/memory-model.h"
#include "ns3/object-factory.h"
#include "ns3/topology.h"
#include "ns3/workload-graph.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Places and serves disaggregated memory nodes.
 *
 * The four memory types of ASTRA-sim's remote memory configuration map onto
 * Topology::PlaceMemory: PER_NPU_MEMORY_EXPANSION a node per NPU (attached
 * to the NPU by default), PER_NODE_MEMORY_EXPANSION a node per
 * num-npus-per-node NPUs (on their leaf or line switch by default),
 * MEMORY_POOL pool-count nodes (on the spines of the last dimension by
 * default, or a memory leaf), NO_MEMORY_EXPANSION none (a MEM node is an
 * error). The fabric keys of the configuration (RemoteMemoryConfig) set the
 * placement, the devices (MemoryDevice: remote-mem-bw, remote-mem-latency,
 * channels, request-overhead, memory-capacity) and the traffic
 * (FabricMemoryModel: message-size, outstanding-requests).
 *
 * \code
 * MemoryNodeHelper mem;
 * mem.SetConfig(ParseRemoteMemoryConfig("pool.json"));
 * auto topo = mem.Place(std::make_shared<Topology>(Topology::FromFile("net.yml")));
 * AstraFabricHelper fabric;
 * fabric.Install(topo);
 * Ptr<FabricMemoryModel> model = mem.InstallRoce(fabric, 4);   // or InstallFlow(backend)
 * \endcode
 */
class MemoryNodeHelper
{
  public:
    MemoryNodeHelper();

    /**
     * Take a parsed remote memory configuration (ParseRemoteMemoryConfig).
     * \param c the configuration
     */
    void SetConfig(const RemoteMemoryConfig& c);
    /// \return the configuration (defaults if none was set)
    const RemoteMemoryConfig& GetConfig() const;
    /// \return whether the configuration's type places memory nodes (not NO_MEMORY_EXPANSION)
    bool HasExpansion() const;

    /// Set an attribute of the MemoryDevice of every node \param n name \param v value
    void SetDeviceAttribute(const std::string& n, const AttributeValue& v);
    /// Set an attribute of the FabricMemoryModel \param n name \param v value
    void SetModelAttribute(const std::string& n, const AttributeValue& v);
    /**
     * On the RoCE fabric, add the memory priority to every switch's and
     * transit forwarder's SwitchMmu::LosslessPriorities (default true: memory
     * traffic is lossless like the collectives); false leaves the masks as
     * configured.
     * \param lossless flag
     */
    void SetLosslessMemory(bool lossless);

    /**
     * Keep the memory traffic off the shared network (AstraSimScenario then
     * uses InstallIsolated on the flow and roce backends): the baseline run of
     * the collective slowdown.
     * \param isolated flag (default false)
     */
    void SetIsolatedNetwork(bool isolated);
    /// \return SetIsolatedNetwork's flag
    bool GetIsolatedNetwork() const;

    /// \return the placement the configuration asks for (MemoryPlacement)
    MemoryPlacement GetPlacement() const;

    /**
     * The topology with the memory nodes: a copy of \p topo with
     * PlaceMemory(GetPlacement()), or \p topo itself when it declares its
     * memory nodes (network configuration memory_* keys, or
     * AttachMemoryNode + AssignMemory in C++); its placement must then agree
     * with the memory type, and the configuration must not give placement keys.
     * \param topo the topology
     * \return the topology to build the backends on
     * \throw ConfigError naming the configuration file and the cause
     */
    std::shared_ptr<const Topology> Place(std::shared_ptr<const Topology> topo) const;

    /**
     * Check the memory nodes' capacity (memory-capacity) against what the
     * NPUs store: every MEM_STORE node name of an NPU counts once (with its
     * largest tensor_size; storing the same tensor again reuses its space),
     * spread over the NPU's memory nodes (a pool's nodes share it evenly);
     * data an NPU only loads is taken to be there already.
     * \param topo the topology with the memory nodes
     * \param graphs one workload graph per NPU
     * \throw ConfigError naming the NPU, the trace node and its file, the memory node and
     *        the capacity
     */
    void CheckCapacity(const Topology& topo,
                       const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs) const;

    /**
     * ASTRA-sim's analytical remote memory (the analytical backend and the
     * compatibility model); the fabric keys have no effect there and warn.
     * \return the model
     */
    Ptr<MemoryModel> CreateAnalytical() const;

    /**
     * The memory model of the flow-level backend: a device per memory node of
     * the backend's topology, FlowMemoryTransport.
     * \param backend the backend (its topology has the memory nodes)
     * \return the model
     */
    Ptr<FabricMemoryModel> InstallFlow(Ptr<FlowBackend> backend);

    /**
     * The memory model of the RoCE fabric: a MemoryDevice and a MemoryServer
     * (aggregated to the node) per memory node, RoceMemoryTransport on
     * \p priority, and (SetLosslessMemory) the priority made lossless.
     * \param fabric the installed fabric (its topology has the memory nodes)
     * \param priority data priority of the memory QPs (RoceBackend's MEMORY class)
     * \return the model
     * \throw InputError when a switch's buffer cannot take the extra lossless priority
     */
    Ptr<FabricMemoryModel> InstallRoce(AstraFabricHelper& fabric, uint8_t priority);

    /**
     * The memory model with the memory traffic off the shared network: the
     * same memory nodes, devices and routes, on a private flow-level copy of
     * the network that carries nothing else (FlowMemoryTransport on its own
     * FlowBackend). The baseline of the collective slowdown memory traffic
     * causes (MemoryReport::CollectiveSlowdown).
     * \param topo the topology with the memory nodes
     * \return the model
     */
    Ptr<FabricMemoryModel> InstallIsolated(std::shared_ptr<const Topology> topo);

    /// \return the devices the Install calls created, by topology id (null elsewhere)
    const std::vector<Ptr<MemoryDevice>>& GetDevices() const;

  private:
    /// \return a device for one memory node (throws ConfigError when invalid)
    Ptr<MemoryDevice> NewDevice() const;
    /// \return the file name for messages
    std::string Source() const;

    RemoteMemoryConfig m_config;
    bool m_hasConfig{false};
    ObjectFactory m_device;
    ObjectFactory m_model;
    bool m_lossless{true};
    bool m_isolated{false};
    std::vector<Ptr<MemoryDevice>> m_devices;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_MEMORY_NODE_HELPER_H */
