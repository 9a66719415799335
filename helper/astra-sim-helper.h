/*
 * The application helper: installs the per-NPU engine (AstraSimApplication)
 * on nodes, creates a backend on a topology, and runs a complete simulation
 * in one call. The parts it used to hold have their own files (this header
 * still includes them): the run monitor (astra-run-monitor.h), the scenario
 * driver (astra-sim-scenario.h), the configuration parsers
 * (astra-config.h), the workload generator (workload-generator.h) and the
 * closed form (collective-closed-form.h).
 */

#ifndef ASTRA_SIM_HELPER_H
#define ASTRA_SIM_HELPER_H

#include "ns3/application-container.h"
#include "ns3/astra-config.h"
#include "ns3/astra-sim-application.h"
#include "ns3/astra-system.h"
#include "ns3/collective-closed-form.h"
#include "ns3/memory-model.h"
#include "ns3/network-backend.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/topology.h"
#include "ns3/workload-generator.h"
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
    std::string backend{"analytical"};                       //!< analytical | flow | roce
    std::map<std::string, std::vector<uint32_t>> commGroups; //!< communicator groups
    Ptr<MemoryModel> memory;                                 //!< null: local memory
    bool referenceHwLimits{false};                           //!< one COMP + one comm at a time
    /// check the workloads as a whole before the run (CheckWorkloads of workload-check.h);
    /// off only to exercise the run-time safety nets (hang reports) on broken workloads
    bool checkWorkloads{true};
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
    /**
     * Check the workloads as a whole at Install (CheckTraceGroups and
     * CheckWorkloads of workload-check.h; default on). Off only to exercise the
     * run-time safety nets (hang reports, run-time errors) on broken workloads.
     * \param check whether to check
     */
    void SetWorkloadCheck(bool check);
    /// Set an attribute of the AstraSimApplication instances.
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Install one application per node (node i = NPU i). Communicator groups
     * declared in METADATA nodes are added to the context; the memory model
     * is checked against the NPU count (MemoryModel::CheckNpuCount). Throws
     * std::runtime_error on a count mismatch. The workloads are checked as a
     * whole (SetWorkloadCheck) over every NPU's graph, local or not.
     * \param nodes the NPU nodes
     * \return the applications (after SetLocalNpus: the local NPUs' only, in NPU order)
     */
    ApplicationContainer Install(NodeContainer nodes);

    /**
     * Distributed runs: Install creates applications for the NPUs flagged local only;
     * after the checks of the whole workload it releases its references to the other
     * NPUs' graphs (their memory is freed once the caller drops its own), so that a
     * rank holds its own NPUs' workloads and engines only.
     * \param local per NPU: runs on this rank
     */
    void SetLocalNpus(const std::vector<bool>& local);

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
     * Read an ASTRA-sim system configuration (JSON or 1.0 text form) into
     * SystemParams: the configuration parser's LoadSystemParams()
     * (astra-config.h), strict about keys and values.
     * \param path the file
     * \param baseDir one more directory in which custom-collective prefixes are looked up
     * \return the parameters
     * \throw ConfigError naming file, key and value
     */
    static SystemParams LoadSystemParams(const std::string& path, const std::string& baseDir = "");

    /**
     * Read a communicator-group JSON ({"id": [npus...]}); "empty" or "" gives
     * no groups: the configuration parser's LoadCommGroups() (astra-config.h).
     * \param path the file
     * \param npus number of NPUs, to check the members (0: not checked)
     * \return groups by pg_name
     * \throw ConfigError naming the file and the group
     */
    static std::map<std::string, std::vector<uint32_t>> LoadCommGroups(const std::string& path,
                                                                       uint32_t npus = 0);

    /**
     * Run one complete simulation (creates nodes, runs and destroys the
     * Simulator) through AstraSimScenario: the run stops when the last NPU
     * finished or an AstraRunMonitor hang was detected. Input errors throw
     * (InputError, or std::runtime_error for inconsistent workloads); errors
     * raised while running and unfinished NPUs are reported in the result.
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

    /**
     * A generated workload: every NPU runs one collective (a single COMM_COLL
     * node spanning all dimensions); MakeCollectiveWorkload() of
     * workload-generator.h.
     * \param npus number of NPUs
     * \param type the collective
     * \param bytes size per NPU
     * \param group communicator group (pg_name; "" = all NPUs)
     * \return one graph per NPU
     */
    static std::vector<std::shared_ptr<const WorkloadGraph>> MakeCollectiveWorkload(
        uint32_t npus,
        CollType type,
        uint64_t bytes,
        const std::string& group = "");

    /**
     * Closed form of a hierarchical ring all-reduce: HierarchicalAllReduceNs()
     * of collective-closed-form.h.
     * \param dims the dimensions
     * \param bytes all-reduce size per NPU
     * \param overhead wire bytes / payload bytes
     * \param frameBytes wire bytes of a full frame (0: fluid)
     * \return the time in ns
     */
    static double HierarchicalAllReduceNs(const std::vector<DimensionSpec>& dims,
                                          uint64_t bytes,
                                          double overhead = 1.0,
                                          uint32_t frameBytes = 0);

  private:
    Ptr<SystemContext> m_ctx;
    std::vector<std::shared_ptr<const WorkloadGraph>> m_graphs;
    Ptr<MemoryModel> m_mem;
    ObjectFactory m_factory;
    std::vector<bool> m_local;   //!< distributed: NPU runs here (empty: all)
    bool m_checkWorkloads{true}; //!< CheckWorkloads at Install
};

} // namespace astra
} // namespace ns3

// the parts that used to live here (source compatibility)
#include "ns3/astra-run-monitor.h"
#include "ns3/astra-sim-scenario.h"

#endif /* ASTRA_SIM_HELPER_H */
