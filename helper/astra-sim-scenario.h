/*
 * The scenario driver: one path from inputs to results (backend, system
 * context, applications, run monitor, reports), shared by astra-sim-runner,
 * training-on-roce, AstraSimHelper::Run and the tests.
 */

#ifndef ASTRA_SIM_SCENARIO_H
#define ASTRA_SIM_SCENARIO_H

#include "ns3/aggregation-helper.h"
#include "ns3/astra-fabric-helper.h"
#include "ns3/astra-run-monitor.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/memory-node-helper.h"

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class RdmaFctWriter;
struct RdmaRunSummary;

namespace astra
{

class RoceBackend;
class AstraFabricOutputs;

/**
 * \ingroup astra-sim
 * One path from inputs to results, shared by astra-sim-runner and
 * training-on-roce: builds the backend ("analytical", "flow" or the
 * packet-level "roce" fabric from the topology via AstraFabricHelper), the
 * system context and one AstraSimApplication per NPU, runs the simulation
 * under an AstraRunMonitor and prints / writes the reports.
 *
 * \code
 * AstraSimScenario sc;
 * sc.SetTopology(topo);
 * sc.SetSystemParams(params);
 * sc.SetWorkloads(graphs);
 * sc.SetBackend("roce");
 * sc.Build();                      // throws (InputError, std::runtime_error) on bad input
 * int status = sc.Run();           // 0 ok, 1 NPU error, 2 hang/unfinished, 3 lossless drop
 * sc.PrintStatus(std::cerr);
 * sc.PrintReport(std::cout);
 * sc.WriteReports("out");
 * sc.Destroy();
 * \endcode
 */
class AstraSimScenario
{
  public:
    AstraSimScenario();
    ~AstraSimScenario();

    void SetTopology(std::shared_ptr<const Topology> topo); //!< \param topo the topology
    void SetSystemParams(const SystemParams& params);       //!< \param params system parameters
    /// \param graphs one workload graph per NPU (every one is checked at Build; a
    /// distributed rank then keeps its own NPUs' only: drop the caller's references after
    /// Build so that the others' memory is freed)
    void SetWorkloads(const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs);
    /// \param groups communicator groups (id -> NPUs)
    void SetCommGroups(const std::map<std::string, std::vector<uint32_t>>& groups);
    void SetMemoryModel(Ptr<MemoryModel> mem); //!< \param mem remote memory model (null: local)
    /**
     * Remote memory from ASTRA-sim's remote memory configuration (replaces
     * SetMemoryModel): on the flow and roce backends the memory nodes are
     * placed on the topology and MEM_LOAD / MEM_STORE become traffic to them
     * (MemoryNodeHelper, FabricMemoryModel); on the analytical backend and
     * with --compat=1, ASTRA-sim's analytical model.
     * \param c the parsed configuration (ParseRemoteMemoryConfig)
     */
    void SetRemoteMemory(const RemoteMemoryConfig& c);
    /// \return the memory node helper (configure it before Build)
    MemoryNodeHelper& GetMemoryNodes();
    /// \return the memory model of the memory nodes (null unless on the network)
    Ptr<FabricMemoryModel> GetFabricMemory() const;
    /// \return the topology the backend runs on (with its memory nodes, after Build)
    std::shared_ptr<const Topology> GetTopology() const;
    /// \param kind "analytical", "flow" or "roce"
    void SetBackend(const std::string& kind);
    /// Set an attribute of the AstraSimApplication instances \param n name \param v value
    void SetAppAttribute(const std::string& n, const AttributeValue& v);
    /// \param check check the workloads as a whole at Build (default;
    /// AstraSimHelper::SetWorkloadCheck)
    void SetWorkloadCheck(bool check);
    /// \return the fabric helper (configure it before Build; used by "roce" only)
    AstraFabricHelper& GetFabric();
    /**
     * \return the in-network aggregation helper (configure it before Build;
     * used when the topology marks a dimension in_switch: Build attaches the
     * in-switch model of the backend)
     */
    AggregationHelper& GetAggregation();
    /// \return the in-switch model attached by Build (null: none)
    Ptr<InSwitchAggregation> GetInSwitch() const;
    /**
     * Fix the random streams of the fabric's switches (ECN marking draws):
     * \p first >= 0 numbers them from \p first (AstraFabricHelper::AssignStreams),
     * so the results do not depend on what ran before in the same process; -1
     * (default) keeps ns-3's automatic stream numbering, under which a
     * scenario's draws depend on the random variables created before it
     * (refused in a distributed run, where each rank creates only its own
     * switches' variables).
     * \param first first stream number, or -1
     */
    void SetRngStreams(int64_t first);
    /// \return the monitor (set its attributes before Run)
    Ptr<AstraRunMonitor> GetMonitor() const;

    /**
     * Run distributed on ns-3's MPI engine (Distributed::Enable first; roce backend
     * only). Every rank builds the whole fabric (ns-3's distributed model: node ids
     * agree across ranks) with the links between systems as RdmaRemoteChannels, the
     * partition policy given to GetFabric().SetPartition with one system per rank;
     * every rank loads and checks every NPU's workload, then keeps only its own NPUs'
     * graphs and creates applications for them alone. After Run, rank 0 holds every
     * NPU's results (the other ranks' NPUs as result holders,
     * AstraSimApplication::FromResult) and the merged collective records, so that the
     * Print* and WriteReports calls give the same output as a single-process run there
     * (other ranks should not print). Throws InputError for another backend, remote
     * memory on the network, a partition with another number of systems, or NPUs not
     * dealt out in rank order.
     * \param enable flag
     */
    void SetDistributed(bool enable);
    /// \return per rank: "events E, wall W s, events/s X, sync wait S s (P %) in N
    /// synchronisations" of its Simulator::Run (rank 0; after Run)
    const std::vector<std::string>& GetRankStats() const;

    /// Create backend, nodes, context and applications. Throws InputError (e.g. an
    /// unknown backend, a memory model too small for the NPUs) or std::runtime_error.
    void Build();

    /**
     * Reject the attributes the user gave (GetGivenAttributes(): the command
     * line's --ns3::... and the --roce-config files) that configure the RoCE
     * fabric when the backend has none: they would have no effect.
     * \param kind the backend ("analytical", "flow", "roce")
     * \throw InputError naming the attribute and where it was given
     */
    static void CheckGivenAttributes(const std::string& kind);

    /**
     * After Build (roce): warn about given attributes of a congestion control
     * that no host stack uses (cause "attribute-without-effect:<name>").
     */
    void WarnUnusedAttributes() const;

    /**
     * One line on the RoCE fabric's configuration (roce only): the congestion
     * control(s) in use, whether INT is on (and turned on for HPCC), the base
     * RTT and whether it was derived from the topology, PFC and ECN.
     * \param os the stream
     */
    void PrintFabricConfig(std::ostream& os) const;

    /**
     * Run the simulation until every NPU finished, a hang was detected or
     * stopAt, then print the summary of repeated warnings
     * (Warnings::PrintSummary) on the warnings stream (std::cerr by default).
     * \param stopAt simulated time limit (zero: none)
     * \return status (ExitStatus): 0 ok, 1 an NPU failed, 2 hang or NPUs unfinished,
     *         3 lossless drops
     */
    int Run(Time stopAt = Time(0));

    /**
     * Print NPU errors, the hang report (or the unfinished NPUs) and the
     * lossless drops to a stream (nothing if the run was clean), in one write.
     * \param out the stream
     */
    void PrintStatus(std::ostream& out) const;
    /// ASTRA-sim's per-NPU lines \param os the stream
    void PrintNpuLines(std::ostream& os) const;
    /// Summary with the per-collective table \param os the stream
    void PrintSummary(std::ostream& os) const;
    /**
     * The fabric's PFC / ECN / CNP / drop counts, FCT slowdown and RoCE
     * backend counters (roce only).
     * \param os the stream
     * \param fct FCT writer for the slowdown percentiles (may be null)
     */
    void PrintFabricSummary(std::ostream& os, const RdmaFctWriter* fct) const;
    /**
     * Create a report folder (one level) if needed and check that files can
     * be written into it, before a run spends its time.
     * \param dir the folder
     * \throw InputError "cannot write reports into '<dir>': <reason>"
     */
    static void PrepareOutputDir(const std::string& dir);

    /**
     * Write the RoCE fabric's trace files (fct.txt, pfc.txt, queue.txt,
     * rate.txt; AstraFabricOutputs) into \p dir during the run (roce only;
     * call after Build, before Run; nothing on other backends).
     * \param dir the folder (PrepareOutputDir)
     * \param queueSample queue sampling interval
     * \param stop last queue sample (the run's time limit, or far away)
     */
    void EnableFabricOutputs(const std::string& dir, Time queueSample, Time stop);
    /**
     * Flush and close the fabric's trace files (after Run; nothing if not enabled). In a
     * distributed run (a collective call: every rank calls it) each rank has written its
     * own nodes' lines: the files are merged into the folder on rank 0 in the order of a
     * single process (AstraFabricOutputs::GatherTo), and the fabric's counters, FCT
     * records and RoCE backend counters are totalled there for PrintFabricSummary.
     */
    void CloseFabricOutputs();
    /// \return the fabric's trace files (null unless EnableFabricOutputs)
    const AstraFabricOutputs* GetFabricOutputs() const;
    /**
     * PrintFabricSummary() with the FCT records of EnableFabricOutputs (roce only).
     * \param os the stream
     */
    void PrintFabricSummary(std::ostream& os) const;
    /**
     * gnuplot PNGs of the run into the fabric outputs' folder: the busiest
     * queues, the per-QP rates, the collective timeline
     * (AstraFabricOutputs::WritePlots; after CloseFabricOutputs).
     * \param msg receives what was written
     * \return PNG files written (0 without fabric outputs)
     */
    uint32_t WritePlots(std::string& msg) const;

    /// Write npus.csv, collectives.csv and timeline.json into dir (created), and with
    /// memory nodes on the network memory.csv (and memory-utilisation.csv when sampled). Throws.
    /// \param dir the folder
    void WriteReports(const std::string& dir) const;

    Ptr<SystemContext> GetContext() const; //!< \return the context
    /// \return one per NPU, index = NPU id; a distributed run: this rank's NPUs' (in NPU
    /// order) until Run, then on rank 0 one per NPU (result holders for the other ranks')
    const std::vector<Ptr<AstraSimApplication>>& GetApps() const;
    Ptr<NetworkBackend> GetBackend() const;  //!< \return the backend
    Ptr<RoceBackend> GetRoceBackend() const; //!< \return null unless roce
    NodeContainer GetNpuNodes() const;       //!< \return NPU nodes
    double GetWallSeconds() const;           //!< \return wall time of Run
    int GetStatus() const;                   //!< \return status of Run

    /**
     * Release the objects, Simulator::Destroy() and forget the warnings
     * (Warnings::Reset), so that a second scenario in the same process
     * starts clean.
     */
    void Destroy();

  private:
    /// distributed: every NPU's results and the collective records to rank 0
    void GatherResults();
    /// The fabric's counters of this process's nodes (a distributed run: this rank's)
    /// \param fct FCT writer for the slowdown percentiles (may be null) \return the counters
    RdmaRunSummary CollectFabricSummary(const RdmaFctWriter* fct) const;
    /// distributed: every rank's fabric counters and FCT slowdowns totalled on rank 0
    void GatherFabricSummary();

    /// The fabric's counters totalled over the ranks of a distributed run (rank 0)
    struct FabricTotals;

    std::shared_ptr<const Topology> m_topo;                     //!< topology
    SystemParams m_params;                                      //!< system parameters
    std::vector<std::shared_ptr<const WorkloadGraph>> m_graphs; //!< one per NPU, until Build
    std::map<std::string, std::vector<uint32_t>> m_groups;      //!< communicator groups
    Ptr<MemoryModel> m_mem;                                     //!< remote memory (or null)
    std::string m_kind{"analytical"};                           //!< backend kind
    int64_t m_rngStreams{-1};                                   //!< first fabric stream, -1: auto
    AstraSimHelper m_helper;                                    //!< application helper
    AstraFabricHelper m_fabric;                                 //!< fabric (roce)
    AggregationHelper m_aggregation;                            //!< in-switch models
    Ptr<InSwitchAggregation> m_inSwitch;                        //!< the attached one, if any
    Ptr<AstraRunMonitor> m_monitor;                             //!< monitor
    Ptr<SystemContext> m_ctx;                                   //!< system context
    Ptr<NetworkBackend> m_backend;                              //!< backend
    Ptr<RoceBackend> m_roce;                                    //!< backend if roce
    NodeContainer m_nodes;                                      //!< NPU nodes
    std::vector<Ptr<AstraSimApplication>> m_apps;               //!< engines (GetApps)
    std::unique_ptr<AstraFabricOutputs> m_outputs;              //!< fabric trace files
    std::unique_ptr<FabricTotals> m_fabricTotals;               //!< distributed, rank 0
    std::string m_outputsDir;                                   //!< EnableFabricOutputs' dir
    bool m_outputsGathered{false};                              //!< distributed: merged
    double m_wall{0};                                           //!< wall seconds of Run
    double m_syncWall{0};      //!< wall seconds of Run spent synchronising ranks
    uint64_t m_syncs{0};       //!< synchronisations of ranks in Run
    int m_status{0};           //!< status of Run
    bool m_distributed{false}; //!< SetDistributed(true)
    std::vector<Ptr<AstraSimApplication>> m_localApps; //!< apps running here, NPU order
    std::string m_remoteStatus;           //!< distributed: every rank's status text (rank 0)
    std::vector<std::string> m_rankStats; //!< distributed: per rank events / wall
    bool m_built{false};                  //!< Build() done
    // remote memory (memory-node-helper.h)
    MemoryNodeHelper m_memNodes;        //!< memory node placement and models
    bool m_remoteMemory{false};         //!< SetRemoteMemory was called
    Ptr<FabricMemoryModel> m_fabricMem; //!< memory on the network (flow, roce)
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_SIM_SCENARIO_H */
