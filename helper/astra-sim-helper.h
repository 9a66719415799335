/*
 * Helper that wires a simulation together: network backend from a topology,
 * system context, and one AstraSimApplication per NPU node.
 */

#ifndef ASTRA_SIM_HELPER_H
#define ASTRA_SIM_HELPER_H

#include "ns3/application-container.h"
#include "ns3/astra-sim-application.h"
#include "ns3/astra-system.h"
#include "ns3/memory-model.h"
#include "ns3/network-backend.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/topology.h"
#include "ns3/workload-graph.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/// Outcome of AstraSimHelper::Run.
struct AstraRunResult
{
    std::vector<int64_t> finishNs;         //!< per NPU finish time (-1: unfinished)
    std::vector<NpuStats> stats;           //!< per NPU breakdown
    std::vector<uint32_t> unfinished;      //!< NPUs that did not finish
    std::string error;                     //!< first error ("" if none)
    std::string pending;                   //!< what unfinished NPUs wait for
    std::vector<CollectiveRecord> records; //!< collectives
    uint64_t events{0};                    //!< simulator events
    uint64_t messages{0};                  //!< messages sent
    /// \return max finish time (ns) over NPUs
    int64_t MaxFinish() const;
};

/// Options of AstraSimHelper::Run.
struct AstraRunOptions
{
    std::string backend{"analytical"};                       //!< analytical | flow
    std::map<std::string, std::vector<uint32_t>> commGroups; //!< communicator groups
    Ptr<MemoryModel> memory;                                 //!< null: local memory
    bool referenceHwLimits{false};                           //!< one COMP + one comm at a time
    /// called after setup, before Simulator::Run (connect trace sources here)
    std::function<void(Ptr<SystemContext>, const std::vector<Ptr<AstraSimApplication>>&)> hook;
};

/**
 * \ingroup astra-sim
 * Installs the per-NPU engine on nodes: node i of the container runs NPU i.
 */
class AstraSimHelper
{
  public:
    AstraSimHelper();

    /// The shared system context (backend, dimensions, parameters, groups).
    void SetContext(Ptr<SystemContext> ctx);
    /// One graph per NPU, index = rank.
    void SetWorkloads(const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs);
    /// Memory model used by every NPU for MEM_LOAD / MEM_STORE (default: local).
    void SetMemoryModel(Ptr<MemoryModel> mem);
    /// Set an attribute of the AstraSimApplication instances.
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Install one application per node (node i = NPU i). Communicator groups
     * declared in METADATA nodes are added to the context. Throws
     * std::runtime_error on a count mismatch.
     */
    ApplicationContainer Install(NodeContainer nodes);

    /**
     * Create a backend on a topology.
     * \param kind "analytical" or "flow"
     * \param topo the topology
     * \param compat ASTRA-sim compatible timing (truncation / store-and-forward)
     */
    static Ptr<NetworkBackend> CreateBackend(const std::string& kind,
                                             std::shared_ptr<const Topology> topo,
                                             bool compat);

    /**
     * Read an ASTRA-sim system configuration JSON into SystemParams
     * (custom implementations are loaded relative to \p baseDir when the path
     * is not found as given). Throws std::runtime_error naming file and key.
     */
    static SystemParams LoadSystemParams(const std::string& path, const std::string& baseDir = "");

    /**
     * Read a communicator-group JSON ({"id": [npus...]}); "empty" or "" gives
     * no groups. Throws std::runtime_error naming the file.
     */
    static std::map<std::string, std::vector<uint32_t>> LoadCommGroups(const std::string& path);

    /**
     * Run one complete simulation (creates nodes, runs and destroys the
     * Simulator). Input errors throw std::runtime_error; errors raised while
     * running and unfinished NPUs are reported in the result.
     * \param topo topology
     * \param params system parameters (params.compat selects compat timing everywhere)
     * \param graphs one per NPU
     * \param opts options
     * \return the outcome
     */
    static AstraRunResult Run(std::shared_ptr<const Topology> topo,
                              const SystemParams& params,
                              const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs,
                              const AstraRunOptions& opts = AstraRunOptions());

  private:
    Ptr<SystemContext> m_ctx;
    std::vector<std::shared_ptr<const WorkloadGraph>> m_graphs;
    Ptr<MemoryModel> m_mem;
    ObjectFactory m_factory;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_SIM_HELPER_H */
