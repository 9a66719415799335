/*
 * Helper that wires a simulation together: network backend from a topology,
 * system context, and one AstraSimApplication per NPU node.
 */

#ifndef ASTRA_SIM_HELPER_H
#define ASTRA_SIM_HELPER_H

#include "ns3/application-container.h"
#include "ns3/astra-fabric-helper.h"
#include "ns3/astra-sim-application.h"
#include "ns3/astra-system.h"
#include "ns3/memory-model.h"
#include "ns3/network-backend.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/topology.h"
#include "ns3/workload-graph.h"

#include <chrono>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class RdmaNetDevice;
class RdmaFctWriter;
struct RdmaMeta;

namespace astra
{

class RoceBackend;

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
     * Simulator) through AstraSimScenario: the run stops when the last NPU
     * finished or an AstraRunMonitor hang was detected. Input errors throw
     * std::runtime_error; errors raised while running and unfinished NPUs are
     * reported in the result.
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
     * node spanning all dimensions, communicator = all NPUs).
     * \param npus number of NPUs
     * \param type the collective
     * \param bytes size per NPU
     * \return one graph per NPU
     */
    static std::vector<std::shared_ptr<const WorkloadGraph>> MakeCollectiveWorkload(uint32_t npus,
                                                                                    CollType type,
                                                                                    uint64_t bytes);

    /**
     * Closed form of a hierarchical ring all-reduce (the localBWAware
     * multi-dimensional collective, one chunk): dimensions ordered by
     * bandwidth, highest first; reduce-scatter on the first, all-reduce of the
     * 1/n0 shard on the next, ..., all-gather back on the first. A ring phase
     * over n NPUs takes 2 (n - 1) steps (reduce-scatter + all-gather) that move
     * S_d / n each at the dimension's bandwidth B_d; a step ends when its
     * message is acknowledged, so it also costs the data's and the ACK's path
     * latency (h hops of L_d each way; h = 2 on a Switch, 1 otherwise) and one
     * frame of store-and-forward per switch on the path:
     * T = sum_d 2 (n_d - 1) [S_d / n_d x overhead / B_d + 2 h L_d + (h - 1) F / B_d],
     * with S_0 = S and S_{d+1} = S_d / n_d. Endpoint delays, reduction cost
     * and congestion-control dynamics are not included.
     * \param dims the dimensions (bandwidth GB/s with GB = 2^30, latency ns)
     * \param bytes all-reduce size S per NPU
     * \param overhead wire bytes / payload bytes (1 for a fluid network)
     * \param frameBytes wire bytes F of a full frame (0: fluid, no store-and-forward)
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
};

/**
 * \ingroup astra-sim
 * Watches a running simulation: progress lines, hang detection and the
 * fabric's lossless drops. One implementation for astra-sim-runner,
 * training-on-roce and the scenario scripts.
 *
 * - Progress line (std::cerr, every ProgressInterval wall seconds): simulated
 *   time, finished NPUs, events per second.
 * - Progress is: a workload node started or ended, an NPU finished, and on the
 *   RoCE backend data packets accepted in order by an endpoint or a message
 *   delivered (RoceBackend::GetProgressCounter). Retransmissions alone are no
 *   progress.
 * - Hang: NPUs are unfinished, no compute/memory node is running, and nothing
 *   progressed for HangTimeout of simulated time (on the analytical and flow
 *   backends also no message may be in flight, since their deliveries are
 *   single future events). The report (GetHangReport, trace source Hang)
 *   lists per stuck NPU the graph nodes it waits on (id, name, type, peer,
 *   tag, bytes, collective), the RoCE messages in flight (source, destination,
 *   QP, bytes acknowledged / total), every paused (port, priority) of the
 *   fabric with the port that paused it and the pause chain that follows PFC
 *   back-pressure, and a cycle of that chain (PFC deadlock) if there is one.
 *   With StopOnHang the simulation stops.
 * - Lossless drops (RdmaSwitch trace LosslessDrop of switches and transit
 *   forwarders) are recorded with node, port, priority, packet and time.
 *
 * \code
 * Ptr<AstraRunMonitor> mon = CreateObject<AstraRunMonitor>();
 * mon->Watch(apps, backend);
 * mon->WatchFabric(fabric.GetAllNodes());
 * mon->Start();
 * Simulator::Run();
 * if (mon->IsHung()) { std::cerr << mon->GetHangReport(); }
 * \endcode
 */
class AstraRunMonitor : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AstraRunMonitor();
    ~AstraRunMonitor() override;

    /**
     * Watch the NPUs' engines (connects their NodeStart / NodeEnd / Finished
     * traces) and the backend.
     * \param apps one per NPU, index = NPU id
     * \param backend the network backend (a RoceBackend adds fabric progress
     *        and the messages in flight to the report)
     */
    void Watch(const std::vector<Ptr<AstraSimApplication>>& apps, Ptr<NetworkBackend> backend);

    /**
     * Watch a packet-level fabric: PFC pause state of every RdmaNetDevice and
     * the lossless drops of every RdmaSwitch (switch or transit forwarder).
     * \param nodes the fabric's nodes (hosts and switches)
     */
    void WatchFabric(NodeContainer nodes);

    /// Schedule the periodic checks (call once, before Simulator::Run).
    void Start();

    bool IsHung() const;               //!< \return a hang was detected
    bool AllFinished() const;          //!< \return every NPU finished
    uint32_t GetFinishedNpus() const;  //!< \return NPUs finished so far
    uint64_t GetLosslessDrops() const; //!< \return lossless drops seen
    /// \return the hang report ("" when no hang was detected)
    const std::string& GetHangReport() const;

    /// \return per unfinished NPU: the graph nodes it waits on and its collectives
    std::string DescribeWaits() const;
    /**
     * Paused (port, priority) pairs of the watched fabric, the pause chain
     * (port X is paused by the ingress of its peer Y, whose frames wait at
     * Y's paused egress ports, ...) and a cycle of it if there is one.
     * \param cycle set to true if the chain has a cycle (PFC deadlock)
     * \return the text ("" if nothing is paused)
     */
    std::string DescribePfc(bool* cycle = nullptr) const;
    /// \return the recorded lossless drops, one line each ("" if none)
    std::string DescribeLosslessDrops() const;
    /// \return a name for a node in reports ("NPU 3 (node 3)", "switch node 9")
    static std::string NodeLabel(Ptr<Node> node);

    /// Trace signature of Hang: the report.
    typedef void (*HangTracedCallback)(const std::string& report);

  protected:
    void DoDispose() override;

  private:
    /// One recorded lossless drop.
    struct LosslessDrop
    {
        Time time;     //!< when
        uint32_t node; //!< node id
        uint32_t port; //!< ingress port
        uint8_t prio;  //!< priority
        uint32_t src;  //!< source host index
        uint32_t dst;  //!< destination host index
        uint32_t psn;  //!< PSN
    };

    void Check();                     //!< periodic hang check (every HangTimeout / 2)
    void ProgressTick();              //!< periodic wall-clock check for the progress line
    void PrintProgress();             //!< print one progress line
    uint64_t ProgressCounter() const; //!< \return node events + fabric progress
    /// NodeStart sink \param npu NPU \param id node id
    void OnNodeStart(uint32_t npu, uint64_t id);
    /// NodeEnd sink \param npu NPU \param id node id
    void OnNodeEnd(uint32_t npu, uint64_t id);
    /// Finished sink \param npu NPU \param t finish time
    void OnFinished(uint32_t npu, Time t);
    /// LosslessDrop sink \param node node id \param port ingress \param prio priority
    /// \param meta headers
    void OnLosslessDrop(uint32_t node, uint32_t port, uint8_t prio, const RdmaMeta& meta);
    /// PauseState sink \param dev watched device index \param prio priority \param paused state
    void OnPause(uint32_t dev, uint8_t prio, bool paused);
    void ReportHang(); //!< build the report, flag the hang, fire the trace

    // attributes
    Time m_hangTimeout;       //!< HangTimeout
    double m_progressSeconds; //!< ProgressInterval
    bool m_stopWhenFinished;  //!< StopWhenFinished
    bool m_stopOnHang;        //!< StopOnHang
    uint32_t m_maxLines;      //!< MaxReportLines

    std::vector<Ptr<AstraSimApplication>> m_apps;      //!< watched engines
    Ptr<NetworkBackend> m_backend;                     //!< the backend
    Ptr<RoceBackend> m_roce;                           //!< the backend if it is RoCE
    std::vector<std::vector<uint64_t>> m_running;      //!< running node ids per NPU
    std::vector<Ptr<RdmaNetDevice>> m_devs;            //!< watched devices
    std::vector<Time> m_pauseSince;                    //!< per device x 8 priorities
    std::vector<LosslessDrop> m_drops;                 //!< first lossless drops
    uint64_t m_losslessDrops{0};                       //!< lossless drops seen
    uint64_t m_events{0};                              //!< node starts + ends + finishes
    int64_t m_runningCompute{0};                       //!< COMP / MEM nodes running
    uint32_t m_finished{0};                            //!< NPUs finished
    uint64_t m_lastCounter{~uint64_t(0)};              //!< progress counter at the last change
    Time m_lastChange{0};                              //!< simulated time of the last change
    bool m_hung{false};                                //!< hang detected
    bool m_started{false};                             //!< Start() called
    std::string m_report;                              //!< hang report
    std::chrono::steady_clock::time_point m_wallStart; //!< wall clock at Start()
    std::chrono::steady_clock::time_point m_wallLast;  //!< wall clock of the last line
    uint64_t m_lastEventCount{0};                      //!< events at the last line
    Time m_progressInterval{MicroSeconds(10)};         //!< simulated step of ProgressTick

    TracedCallback<const std::string&> m_hangTrace; //!< Hang
};

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
 * sc.Build();                      // throws std::runtime_error on bad input
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
    /// \param graphs one workload graph per NPU
    void SetWorkloads(const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs);
    /// \param groups communicator groups (id -> NPUs)
    void SetCommGroups(const std::map<std::string, std::vector<uint32_t>>& groups);
    void SetMemoryModel(Ptr<MemoryModel> mem); //!< \param mem remote memory model (null: local)
    /// \param kind "analytical", "flow" or "roce"
    void SetBackend(const std::string& kind);
    /// Set an attribute of the AstraSimApplication instances \param n name \param v value
    void SetAppAttribute(const std::string& n, const AttributeValue& v);
    /// \return the fabric helper (configure it before Build; used by "roce" only)
    AstraFabricHelper& GetFabric();
    /// \return the monitor (set its attributes before Run)
    Ptr<AstraRunMonitor> GetMonitor() const;

    /// Create backend, nodes, context and applications. Throws std::runtime_error.
    void Build();

    /**
     * Run the simulation until every NPU finished, a hang was detected or stopAt.
     * \param stopAt simulated time limit (zero: none)
     * \return status: 0 ok, 1 an NPU failed, 2 hang or NPUs unfinished, 3 lossless drops
     */
    int Run(Time stopAt = Time(0));

    /**
     * Print NPU errors, the hang report (or the unfinished NPUs) and the
     * lossless drops to a stream (nothing if the run was clean).
     * \param os the stream
     */
    void PrintStatus(std::ostream& os) const;
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
    /// Write npus.csv, collectives.csv and timeline.json into dir (created). Throws.
    /// \param dir the folder
    void WriteReports(const std::string& dir) const;

    Ptr<SystemContext> GetContext() const;                        //!< \return the context
    const std::vector<Ptr<AstraSimApplication>>& GetApps() const; //!< \return one per NPU
    Ptr<NetworkBackend> GetBackend() const;                       //!< \return the backend
    Ptr<RoceBackend> GetRoceBackend() const;                      //!< \return null unless roce
    NodeContainer GetNpuNodes() const;                            //!< \return NPU nodes
    double GetWallSeconds() const;                                //!< \return wall time of Run
    int GetStatus() const;                                        //!< \return status of Run

    /// Release the objects and Simulator::Destroy().
    void Destroy();

  private:
    std::shared_ptr<const Topology> m_topo;                     //!< topology
    SystemParams m_params;                                      //!< system parameters
    std::vector<std::shared_ptr<const WorkloadGraph>> m_graphs; //!< one per NPU
    std::map<std::string, std::vector<uint32_t>> m_groups;      //!< communicator groups
    Ptr<MemoryModel> m_mem;                                     //!< remote memory (or null)
    std::string m_kind{"analytical"};                           //!< backend kind
    AstraSimHelper m_helper;                                    //!< application helper
    AstraFabricHelper m_fabric;                                 //!< fabric (roce)
    Ptr<AstraRunMonitor> m_monitor;                             //!< monitor
    Ptr<SystemContext> m_ctx;                                   //!< system context
    Ptr<NetworkBackend> m_backend;                              //!< backend
    Ptr<RoceBackend> m_roce;                                    //!< backend if roce
    NodeContainer m_nodes;                                      //!< NPU nodes
    std::vector<Ptr<AstraSimApplication>> m_apps;               //!< engines
    double m_wall{0};                                           //!< wall seconds of Run
    int m_status{0};                                            //!< status of Run
    bool m_built{false};                                        //!< Build() done
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_SIM_HELPER_H */
