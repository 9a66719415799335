/*
 * The run monitor: progress lines, hang detection with a report of what every
 * stuck NPU waits on (including the PFC pause chain and its cycles), and the
 * fabric's lossless drops.
 */

#ifndef ASTRA_RUN_MONITOR_H
#define ASTRA_RUN_MONITOR_H

#include "ns3/astra-sim-application.h"
#include "ns3/fabric-memory-model.h"
#include "ns3/network-backend.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class RdmaNetDevice;
struct RdmaMeta;

namespace astra
{

class RoceBackend;

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
 *   delivered (RoceBackend::GetProgressCounter); with memory nodes on the
 *   network (WatchMemory) a memory message completed. Retransmissions alone
 *   are no progress.
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

    /**
     * Watch the memory nodes' traffic (FabricMemoryModel): MEM_LOAD / MEM_STORE
     * nodes then wait on the network like communication (no longer like
     * compute), completed memory messages (and, on RoCE, their bytes) are
     * progress, no hang is reported while a memory device works on a request,
     * and on the analytical and flow backends no memory message may be in
     * flight for a hang.
     * \param memory the model
     */
    void WatchMemory(Ptr<FabricMemoryModel> memory);

    /// Schedule the periodic checks (call once, before Simulator::Run).
    void Start();

    /**
     * Distributed runs: the watched applications are this rank's. The run stops when
     * every rank's NPUs finished (or one rank found a hang, with StopOnHang): each
     * periodic check (the same simulated times on every rank, so within one
     * synchronisation window) sums the ranks' unfinished NPUs (Distributed) and every
     * rank stops in the same check. StopWhenFinished is not used: a rank whose NPUs are
     * done still carries the others' frames (ACKs, transit).
     * \param enable flag
     */
    void SetDistributed(bool enable);

    bool IsHung() const;               //!< \return a hang was detected
    bool AllFinished() const;          //!< \return every NPU finished
    uint32_t GetFinishedNpus() const;  //!< \return NPUs finished so far
    uint64_t GetLosslessDrops() const; //!< \return lossless drops seen
    /// \return the hang report ("" when no hang was detected)
    const std::string& GetHangReport() const;

    /// \return per unfinished NPU: the graph nodes it waits on and its collectives
    std::string DescribeWaits() const;
    /**
     * \return the first NPU (lowest id) that could not start (finished none of
     * its nodes) and the node it waits on; if every unfinished NPU got past
     * its start, the one with the fewest nodes done ("" if all finished).
     * The hang report begins with it.
     */
    std::string DescribeFirstStuck() const;
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
    /// The lossless drops of one (node, ingress port, priority): the first and a count.
    struct LosslessDrop
    {
        Time time;         //!< when
        uint32_t node;     //!< node id
        uint32_t port;     //!< ingress port
        uint8_t prio;      //!< priority
        uint32_t src;      //!< source host index
        uint32_t dst;      //!< destination host index
        uint32_t psn;      //!< PSN
        uint64_t count{1}; //!< frames dropped there
    };

    void Check();                     //!< periodic hang check (every HangTimeout / 2)
    void ProgressTick();              //!< periodic wall-clock check for the progress line
    void PrintProgress();             //!< print one progress line
    uint64_t ProgressCounter() const; //!< \return node events + fabric progress
    uint64_t InSwitchRunning() const; //!< \return in-switch operations running on their trees
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
    Ptr<FabricMemoryModel> m_memory;                   //!< memory on the network (or null)
    std::vector<std::vector<uint64_t>> m_running;      //!< running node ids per watched app
    std::vector<uint32_t> m_index;                     //!< NPU id -> index of its app
    std::vector<Ptr<RdmaNetDevice>> m_devs;            //!< watched devices
    std::vector<Time> m_pauseSince;                    //!< per device x 8 priorities
    std::vector<LosslessDrop> m_drops;                 //!< per (node, port, priority)
    uint64_t m_losslessDrops{0};                       //!< lossless drops seen
    uint64_t m_events{0};                              //!< node starts + ends + finishes
    int64_t m_runningCompute{0};                       //!< COMP / MEM nodes running
    uint32_t m_finished{0};                            //!< NPUs finished
    uint64_t m_lastCounter{~uint64_t(0)};              //!< progress counter at the last change
    Time m_lastChange{0};                              //!< simulated time of the last change
    bool m_hung{false};                                //!< hang detected
    bool m_distributed{false};                         //!< SetDistributed(true)
    bool m_started{false};                             //!< Start() called
    std::string m_report;                              //!< hang report
    std::chrono::steady_clock::time_point m_wallStart; //!< wall clock at Start()
    std::chrono::steady_clock::time_point m_wallLast;  //!< wall clock of the last line
    uint64_t m_lastEventCount{0};                      //!< events at the last line
    Time m_progressInterval{MicroSeconds(10)};         //!< simulated step of ProgressTick

    TracedCallback<const std::string&> m_hangTrace; //!< Hang
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_RUN_MONITOR_H */
