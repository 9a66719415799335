/*
 * The per-NPU engine: an ns3::Application that executes one NPU's workload
 * graph. A node is issued when all its data and control dependencies have
 * finished; COMP goes to the compute model (replay or roofline), MEM_* to the
 * memory model, COMM_COLL / SEND / RECV to the system layer.
 */

#ifndef ASTRA_SIM_APPLICATION_H
#define ASTRA_SIM_APPLICATION_H

#include "astra-system.h"
#include "memory-model.h"

#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"
#include "ns3/workload-graph.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/// Time breakdown of one NPU (priority compute > communication > memory > idle).
struct NpuStats
{
    Time finish{0};          //!< time the last node finished
    Time compute{0};         //!< time with at least one COMP running
    Time exposedComm{0};     //!< time communicating and not computing
    Time memory{0};          //!< time only in memory accesses
    Time idle{0};            //!< time with nothing running
    Time commBusy{0};        //!< time with any communication running (overlapped or not)
    uint64_t nodes{0};       //!< nodes executed
    uint64_t collectives{0}; //!< COMM_COLL nodes
    uint64_t p2p{0};         //!< SEND + RECV nodes
};

/// One timeline entry (Chrome trace "X" event).
struct TimelineEvent
{
    uint64_t nodeId; //!< workload node id
    NodeKind kind;   //!< node type
    Time start;      //!< start
    Time end;        //!< end
};

/**
 * What the reports show of the workload node behind a timeline entry besides its times:
 * its name and, for a collective, its type, size and group (AstraSimApplication::LabelOf).
 * The pointers stay valid while the application lives; name is null when the node is
 * unknown (the reports then show its id).
 */
struct TimelineLabel
{
    const std::string* name{nullptr};        //!< node name (null: unknown node)
    NodeKind kind{NodeKind::INVALID};        //!< node type
    CollType collType{CollType::ALL_REDUCE}; //!< COMM_COLL: comm_type
    uint64_t commSize{0};                    //!< COMM_COLL: comm_size in bytes
    const std::string* pgName{nullptr};      //!< COMM_COLL: communicator group
};

/**
 * \ingroup astra-sim
 * One NPU's workload engine. In a distributed run, rank 0 also holds one per NPU of
 * another rank that never runs: a result holder (FromResult) with that NPU's results and
 * the labels of its timeline, without workload graph, context or node.
 */
class AstraSimApplication : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AstraSimApplication();
    ~AstraSimApplication() override;

    /// Set the NPU id, the shared system context and the workload of this NPU.
    void Setup(uint32_t npu, Ptr<SystemContext> ctx, std::shared_ptr<const WorkloadGraph> graph);
    /// Memory model for MEM_LOAD / MEM_STORE (default: local memory of the system config).
    void SetMemoryModel(Ptr<MemoryModel> mem);

    uint32_t GetNpuId() const;           //!< \return NPU id
    bool IsFinished() const;             //!< \return all nodes executed
    const NpuStats& GetStats() const;    //!< \return the breakdown (valid when finished)
    const std::string& GetError() const; //!< \return first error ("" if none)
    uint64_t GetPendingNodes() const;    //!< \return nodes not yet finished
    /// \return the timeline (bounded by the MaxTimelineEvents attribute)
    const std::vector<TimelineEvent>& GetTimeline() const;
    /// \return what this NPU waits for (unfinished nodes and communication)
    std::string DescribePending() const;
    /// \return the workload graph (null for a result holder, FromResult)
    std::shared_ptr<const WorkloadGraph> GetGraph() const;
    /**
     * The report's view of the node behind a timeline entry: from the workload graph, or
     * for a result holder from the labels it imported (ImportResult).
     * \param nodeId the node id of a timeline entry
     * \return its label (name null: not known)
     */
    TimelineLabel LabelOf(uint64_t nodeId) const;

    /**
     * Distributed runs: this NPU's results (finished flag, statistics, timeline, error)
     * and the labels of its timeline's nodes (LabelOf) as text, for the rank that writes
     * the reports.
     * \return the text
     */
    std::string ExportResult() const;
    /**
     * Take over results exported on another rank (ExportResult) for the reports.
     * Throws std::runtime_error if the text is not such a result or is another NPU's.
     * \param text the text
     */
    void ImportResult(const std::string& text);
    /**
     * Distributed runs: a result holder for the reports of rank 0, for an NPU of another
     * rank: an application with the results and timeline labels of ExportResult's text,
     * without workload graph, system context or node (it never runs).
     * Throws std::runtime_error if the text is not such a result.
     * \param text the text
     * \return the holder
     */
    static Ptr<AstraSimApplication> FromResult(const std::string& text);

    /// \return compute time of one COMP node (replay or roofline; with p.compat the
    /// reference's rule, see CompatComputeNs, 0 for a skipped node)
    static Time ComputeTime(const WorkloadNode& n, const SystemParams& p);
    /**
     * ComputeTime() in nanoseconds, before rounding to a Time (what the
     * workload check compares with limits::kMaxTimeNs).
     * \param n the node \param p the system parameters \return nanoseconds
     */
    static double ComputeTimeNs(const WorkloadNode& n, const SystemParams& p);

    /**
     * The reference's compute time of a COMP node (compatibility model): with
     * roofline-enabled, GPU nodes take trunc(num_ops / min(local-mem-bw x num_ops /
     * tensor_size, peak-perf) x 1e9) ns (the reference's operation order) and a node
     * without tensor_size is skipped (it finishes at once, like an INVALID node);
     * otherwise (and for CPU nodes) the node replays its duration, 1 ns when that is 0.
     * \param n the node
     * \param p the system parameters
     * \return the time in ns, or -1 for a skipped node
     */
    static int64_t CompatComputeNs(const WorkloadNode& n, const SystemParams& p);

    /// Trace signature: (npu, node id).
    typedef void (*NodeTracedCallback)(uint32_t npu, uint64_t nodeId);
    /// Trace signature: (npu, finish time).
    typedef void (*FinishedTracedCallback)(uint32_t npu, Time finish);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void Issue();
    /// the reference feeder (compat or ReferenceHwLimits): dependency-free nodes in
    /// increasing id order, each if its hardware slot is free
    void IssueReference();
    /// \return the reference's hardware slot of a node (kNoSlot: a RECV, never limited)
    uint8_t SlotOf(const WorkloadNode& n) const;
    void Execute(uint32_t idx);
    /// \param idx the node \param issue issue ready nodes afterwards (false: a node the
    /// compatibility model finished at once, as the reference does without a new pass)
    void NodeDone(uint32_t idx, bool issue = true);
    void Account();
    void Fail(const std::string& what);
    bool IsComm(NodeKind k) const;

    uint32_t m_npu{0};
    Ptr<SystemContext> m_ctx;
    Ptr<MemoryModel> m_mem;
    std::shared_ptr<const WorkloadGraph> m_graph;
    bool m_hwLimits{false};
    bool m_dropDangling{false};
    uint32_t m_maxTimeline{100000};

    std::vector<uint32_t> m_deps;
    std::vector<uint32_t> m_childStart; //!< CSR children
    std::vector<uint32_t> m_children;
    std::vector<uint32_t> m_ready; //!< ready, not yet issued (file order preserved)
    std::vector<Time> m_started;
    std::vector<uint8_t> m_running;
    uint64_t m_remaining{0};
    uint32_t m_activeComp{0};
    uint32_t m_activeComm{0};
    uint32_t m_activeMem{0};
    uint32_t m_activeCpuComp{0};    //!< COMP nodes with is_cpu_op running (compat accounting)
    uint32_t m_inFlight{0};         //!< nodes issued and not finished
    uint8_t m_slotBusy[3]{0, 0, 0}; //!< reference feeder: CPU, GPU compute, GPU comm slots
    Time m_last{0};
    bool m_finished{false};
    bool m_started0{false};
    NpuStats m_stats;
    std::string m_error;
    std::vector<TimelineEvent> m_timeline;

    /// a label imported from another rank (ImportResult), for the reports
    struct ImportedLabel
    {
        uint64_t id;        //!< node id
        NodeKind kind;      //!< node type
        CollType collType;  //!< COMM_COLL: type
        uint64_t commSize;  //!< COMM_COLL: bytes
        std::string name;   //!< node name
        std::string pgName; //!< COMM_COLL: group
    };

    std::vector<ImportedLabel> m_labels; //!< by id (ImportResult)

    TracedCallback<uint32_t, uint64_t> m_nodeStart;
    TracedCallback<uint32_t, uint64_t> m_nodeEnd;
    TracedCallback<uint32_t, Time> m_finishedTrace;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_SIM_APPLICATION_H */
