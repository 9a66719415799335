/*
 * FabricMemoryModel: MEM_LOAD / MEM_STORE as traffic between an NPU and its
 * memory nodes on the network (RDMA READ / WRITE on the RoCE fabric, flows on
 * the flow-level backend), cut into messages with a bounded number in flight
 * per NPU.
 */

#ifndef ASTRA_FABRIC_MEMORY_MODEL_H
#define ASTRA_FABRIC_MEMORY_MODEL_H

#include "memory-device.h"

#include "ns3/event-id.h"
#include "ns3/memory-model.h"
#include "ns3/topology.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

class FabricMemoryModel;

/**
 * \ingroup astra-sim
 * How a FabricMemoryModel's messages reach the memory nodes (one subclass per
 * backend: RoceMemoryTransport, FlowMemoryTransport).
 */
class MemoryTransport : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    ~MemoryTransport() override;

    /// \param model the model whose MessageDone() the transport calls
    void SetModel(FabricMemoryModel* model);

    /**
     * Move one message: a READ of \p bytes from memory node \p mem to \p npu
     * (load) or a WRITE from \p npu to \p mem (store). Call
     * FabricMemoryModel::MessageDone(cookie) when it is complete at the NPU
     * (the last READ byte arrived; the WRITE is written).
     * \param npu the NPU
     * \param mem the memory node (topology id)
     * \param bytes payload bytes (may be 0)
     * \param write true for a store
     * \param cookie passed back
     */
    virtual void Post(uint32_t npu, uint32_t mem, uint64_t bytes, bool write, uint64_t cookie) = 0;
    /// \return "roce" or "flow"
    virtual std::string GetName() const = 0;
    /**
     * Utilisation of the memory node's link (the busier direction) since the
     * previous call for that node (RoCE: bytes on the wire; flow: the
     * instantaneous rate of the flows on it).
     * \param mem the memory node (topology id)
     * \return utilisation 0..1
     */
    virtual double SampleLinkUtilisation(uint32_t mem) = 0;
    /**
     * Bytes carried by the memory node's link so far, per direction, the
     * busier one (RoCE: frame bytes on the wire; flow: message payload).
     * \param mem the memory node (topology id)
     * \return bytes
     */
    virtual double GetLinkBytes(uint32_t mem) const = 0;
    /// \return the device of a memory node (topology id), null if none \param mem the node
    virtual Ptr<MemoryDevice> GetDevice(uint32_t mem) const = 0;
    /**
     * \return a counter that grows while messages make progress inside
     * (RoCE: bytes acknowledged or READ response bytes received in order);
     * default 0 (messages are single events)
     */
    virtual uint64_t GetProgressCounter() const;

  protected:
    void DoDispose() override;
    FabricMemoryModel* m_model{nullptr}; //!< receiver of completions
};

/// Per memory node counters of a FabricMemoryModel (the NPUs' view).
struct MemoryNodeStats
{
    uint32_t node{0};               //!< topology id
    uint64_t bytesRead{0};          //!< READ payload completed
    uint64_t bytesWritten{0};       //!< WRITE payload completed
    uint64_t requests{0};           //!< messages completed
    std::vector<int64_t> latencyNs; //!< per message: post to completion (ns)
};

/**
 * \ingroup astra-sim
 * Remote memory on the network. An access of B bytes by an NPU is cut into
 * ceil(B / MessageSize) messages (a 0-byte access is one empty message); an
 * NPU has at most OutstandingRequests messages in flight, its accesses are
 * served in the order they were issued. A message goes to one of the NPU's
 * memory nodes (Topology::GetNpuMemory): the NPU's own node, or the pool
 * nodes in turn, starting at the NPU's index. The access completes with its
 * last message. Loads are READs, stores WRITEs (MemoryTransport).
 *
 * With SampleInterval > 0, the utilisation of every memory node's link is
 * sampled while memory traffic is in flight (GetUtilisationSeries).
 */
class FabricMemoryModel : public MemoryModel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    FabricMemoryModel();
    ~FabricMemoryModel() override;

    /**
     * \param topo the topology with the memory nodes and their NPUs
     * \param transport how messages move (the model calls its SetModel)
     */
    void Setup(std::shared_ptr<const Topology> topo, Ptr<MemoryTransport> transport);

    void Access(uint32_t npu, uint64_t bytes, bool store, std::function<void()> done) override;
    std::string GetName() const override;
    void CheckNpuCount(uint32_t npus) const override;

    /// A message of the transport completed \param cookie the Post() cookie
    void MessageDone(uint64_t cookie);

    Ptr<MemoryTransport> GetTransport() const;           //!< \return the transport
    std::shared_ptr<const Topology> GetTopology() const; //!< \return the topology
    /// \return counters per memory node, in topology id order
    const std::vector<MemoryNodeStats>& GetNodeStats() const;
    uint64_t GetMessages() const;        //!< \return messages completed
    uint64_t GetAccesses() const;        //!< \return accesses completed
    uint64_t GetPendingMessages() const; //!< \return messages posted and not completed
    /// \return messages completed plus the transport's progress inside messages (hang checks)
    uint64_t GetProgressCounter() const;
    /// \return whether a memory node's device still works on a request (latency, data path)
    bool IsDeviceBusy() const;
    uint64_t GetMessageSize() const; //!< \return MessageSize
    uint32_t GetOutstanding() const; //!< \return OutstandingRequests
    Time GetSampleInterval() const;  //!< \return SampleInterval
    /// \return sample times of the utilisation series
    const std::vector<Time>& GetSampleTimes() const;
    /// \return utilisation samples (0..1), [memory node index][sample]
    const std::vector<std::vector<double>>& GetUtilisationSeries() const;

    /// Trace signature: (npu, memory node, bytes, write, latency).
    typedef void (*MessageTracedCallback)(uint32_t npu,
                                          uint32_t mem,
                                          uint64_t bytes,
                                          bool write,
                                          Time latency);

  protected:
    void DoDispose() override;

  private:
    /// One access (a MEM node) in progress.
    struct AccessState
    {
        uint32_t npu{0};            //!< the NPU
        bool store{false};          //!< MEM_STORE
        uint64_t toPost{0};         //!< bytes not yet posted
        uint64_t msgsToPost{0};     //!< messages not yet posted
        uint64_t outstanding{0};    //!< messages posted, not completed
        std::function<void()> done; //!< completion
        bool used{false};           //!< slot in use
    };

    /// One message in flight.
    struct MessageState
    {
        uint32_t access{0}; //!< its access
        uint32_t mem{0};    //!< memory node index (in m_memNodes)
        uint64_t bytes{0};  //!< payload
        Time posted;        //!< post time
        bool used{false};   //!< slot in use
    };

    /// Per NPU: accesses waiting to post, messages in flight, pool cursor.
    struct NpuState
    {
        std::deque<uint32_t> queue; //!< accesses with messages to post, in issue order
        uint32_t inflight{0};       //!< messages in flight
        uint64_t next{0};           //!< pool cursor
    };

    void Pump(uint32_t npu);
    void Sample();

    uint64_t m_messageSize{1048576};
    uint32_t m_outstanding{4};
    Time m_sampleInterval{0};

    std::shared_ptr<const Topology> m_topo;
    Ptr<MemoryTransport> m_transport;
    std::vector<uint32_t> m_memNodes;    //!< memory node topology ids
    std::vector<uint32_t> m_memIndex;    //!< topology id -> index in m_memNodes (or UINT32_MAX)
    std::vector<NpuState> m_npus;        //!< per NPU
    std::vector<AccessState> m_accesses; //!< access slots
    std::vector<uint32_t> m_freeAccesses;
    std::vector<MessageState> m_messages; //!< message slots
    std::vector<uint32_t> m_freeMessages;
    std::vector<MemoryNodeStats> m_stats; //!< per memory node
    uint64_t m_done{0};
    uint64_t m_accessesDone{0};
    uint64_t m_pending{0};
    bool m_sampling{false};
    std::vector<Time> m_sampleTimes;
    std::vector<std::vector<double>> m_series;

    TracedCallback<uint32_t, uint32_t, uint64_t, bool, Time> m_messageTrace;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_FABRIC_MEMORY_MODEL_H */
