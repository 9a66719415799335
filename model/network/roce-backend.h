/*
 * RoceBackend: the packet-level network backend. Messages of the system layer
 * become RDMA WRITEs on persistent RC queue pairs of the NPUs' RdmaHostStacks,
 * carried by RDMA NICs, switches with PFC/ECN and per-QP congestion control
 * (DCQCN by default) over the fabric built by AstraFabricHelper.
 */

#ifndef ASTRA_ROCE_BACKEND_H
#define ASTRA_ROCE_BACKEND_H

#include "network-backend.h"
#include "topology.h"

#include "ns3/node-container.h"
#include "ns3/ptr.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/traced-callback.h"

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RdmaHostStack;

namespace astra
{

/**
 * \ingroup astra-sim
 * Packet-level RoCEv2 backend.
 *
 * - QPs are persistent per (source, destination, priority) (QpsPerPair of them,
 *   with different UDP source ports, i.e. ECMP entropy; messages are dealt
 *   round robin); they are created on first use and carry any number of
 *   messages in flight.
 * - The traffic class of a message selects the data priority
 *   (attribute PriorityMap, one priority per TrafficClass).
 * - onDelivered (MessageSink::MessageDelivered) runs when the last byte
 *   reached the receiver (the responder QP's RxComplete); onSent
 *   (MessageSink::MessageSent) when the message was acknowledged at the
 *   sender (the requester QP's TxComplete). Each runs exactly once. With
 *   DeliverAtAck (ASTRA-sim 2.0's ns-3 backend), onDelivered waits for the
 *   sender's last ACK and runs right after onSent, in the same event.
 * - The backend is the RdmaQpConsumer of the QPs it creates, so it sees the
 *   completions of its own messages only; other traffic on the same host
 *   stacks (background flows, memory servers) has QPs of its own.
 * - The RDMA user tag of a message is an index into a slot table holding the
 *   NetMessage and either its callbacks (Send) or its sink and cookie (SendTo,
 *   no std::function per message); no map on the per-message path.
 * - src == dst completes after 0 ns (a loopback copy is not modelled).
 * - A message's dimension is not enforced: the fabric's ECMP shortest paths
 *   keep a single-dimension message inside its dimension's links, because its
 *   endpoints differ in that coordinate only (the shortest path is the
 *   dimension's own line).
 */
class RoceBackend : public NetworkBackend, private RdmaQpConsumer
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceBackend();
    ~RoceBackend() override;

    /**
     * Attach the fabric: hosts[i] is the node of topology node i (an NPU or a
     * memory node; nullptr entries are not endpoints). Every such node must
     * carry an RdmaHostStack (AstraFabricHelper::Install does this).
     * \param topo the topology the fabric was built from
     * \param npus NPU (and memory) nodes, index = topology node id
     */
    void SetFabric(std::shared_ptr<const Topology> topo, NodeContainer npus);

    void Send(const NetMessage& msg, SentCallback onSent, DeliveredCallback onDelivered) override;
    /**
     * As NetworkBackend::SendTo: the slot keeps the sink and cookie (no
     * callback objects).
     * \copydoc NetworkBackend::SendTo
     */
    void SendTo(const NetMessage& msg,
                MessageSink* sink,
                uint64_t cookie,
                bool notifySent) override;
    uint32_t GetNpuCount() const override;
    std::string GetName() const override;
    uint64_t GetPendingMessages() const override;

    /// \return the priority a traffic class is mapped to \param tc the class
    uint8_t GetPriority(TrafficClass tc) const;
    /// \return the host stack of an endpoint \param id topology node id
    Ptr<RdmaHostStack> GetHostStack(uint32_t id) const;
    /// \return the topology
    std::shared_ptr<const Topology> GetTopology() const;

    uint64_t GetDeliveredMessages() const; //!< \return messages delivered
    uint64_t GetDeliveredBytes() const;    //!< \return payload bytes delivered
    uint64_t GetSentMessages() const;      //!< \return messages acknowledged at the sender
    uint64_t GetPostedMessages() const;    //!< \return messages handed to Send()
    uint64_t GetPostedBytes() const;       //!< \return payload bytes handed to Send()
    uint32_t GetQpCount() const;           //!< \return requester QPs created
    /// \return bytes delivered per traffic class \param tc the class
    uint64_t GetDeliveredBytes(TrafficClass tc) const;

    /**
     * A counter that grows whenever the workload's traffic makes progress:
     * bytes accepted in order at the receiving end of this backend's own
     * connections, plus messages delivered. Retransmitted, duplicate and
     * out-of-order packets do not count, so a livelock of retransmissions is
     * not progress; nor does traffic that other code posts on the same host
     * stacks (background flows), so it cannot hide a stalled workload. Costs
     * one pass over the backend's connections (call it from a periodic check,
     * not per packet).
     * \return the counter
     */
    uint64_t GetProgressCounter() const;

    /**
     * Describe the messages in flight (posted, not both delivered and
     * acknowledged), one line each: source and destination NPU, requester
     * host and QP number, priority, payload bytes acknowledged / total,
     * delivered flag and post time.
     * \param maxLines at most this many lines (a final line counts the rest)
     * \return the text ("" when nothing is in flight)
     */
    std::string DescribeInFlight(uint32_t maxLines = 32) const;

    /**
     * Apply a RoCE configuration file (JSON/YAML attribute mapping or HPCC /
     * SimAI config.txt) to the attribute defaults: forwards to
     * RoceConfigReader::Apply (roce-config-reader.h), which documents
     * the formats and errors. Call before the fabric is built.
     * \param path file name
     * \return number of settings applied
     */
    static uint32_t ApplyConfigFile(const std::string& path);

    /// Trace signature: message delivered (message, time from Send() to delivery).
    typedef void (*MessageTracedCallback)(const NetMessage& msg, Time latency);

  protected:
    void DoDispose() override;

  private:
    /// One message in flight (slot table entry).
    struct Slot
    {
        NetMessage msg;                //!< the message
        SentCallback onSent;           //!< sender completion (Send)
        DeliveredCallback onDelivered; //!< receiver completion (Send)
        MessageSink* sink{nullptr};    //!< receiver of both completions (SendTo; else null)
        uint64_t cookie{0};            //!< SendTo's cookie
        Time posted;                   //!< Send() time
        uint64_t qpOffset{0};          //!< QP byte offset of the message's first byte
        uint32_t qpn{0};               //!< requester QP number (0: local copy)
        uint8_t prio{0};               //!< data priority
        bool notifySent{false};        //!< SendTo: MessageSent wanted
        bool sent{false};              //!< onSent done
        bool delivered{false};         //!< onDelivered done
        bool arrived{false};           //!< DeliverAtAck: the last byte arrived, not delivered
        bool used{false};              //!< slot in use
    };

    /// Persistent QPs of one (src, dst, priority).
    struct QpSet
    {
        std::vector<Ptr<RdmaQueuePair>> qps; //!< QpsPerPair QPs
        uint32_t next{0};                    //!< round-robin cursor
    };

    void TxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info) override;
    void RxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info) override;
    void OnTx(uint64_t tag);
    void OnRx(uint64_t tag);
    void LocalComplete(uint32_t slot);
    uint32_t NewSlot(const NetMessage& msg);
    void Start(uint32_t slot);
    void Release(uint32_t slot);
    uint32_t AllocSlot();
    Ptr<RdmaQueuePair> GetQp(uint32_t src, uint32_t dst, uint8_t prio);
    void ParsePriorityMap();

    // attributes
    std::string m_priorityMapStr{"3,3,4,3"};
    uint32_t m_qpsPerPair{1};
    bool m_useSend{false};
    bool m_deliverAtAck{false};

    std::array<uint8_t, size_t(TrafficClass::COUNT)> m_prio{};
    std::shared_ptr<const Topology> m_topo;
    std::vector<Ptr<RdmaHostStack>> m_stacks; //!< by topology node id
    std::vector<uint32_t> m_hostIndex;        //!< topology node id -> host index
    std::unordered_map<uint64_t, QpSet> m_qps;
    uint32_t m_qpCount{0};
    std::vector<Slot> m_slots;
    std::vector<uint32_t> m_free;
    uint64_t m_pending{0};
    uint64_t m_posted{0};
    uint64_t m_postedBytes{0};
    uint64_t m_delivered{0};
    uint64_t m_deliveredBytes{0};
    uint64_t m_sent{0};
    std::array<uint64_t, size_t(TrafficClass::COUNT)> m_bytesByClass{};

    TracedCallback<const NetMessage&, Time> m_deliveredTrace;
    TracedCallback<const NetMessage&, Time> m_sentTrace;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_ROCE_BACKEND_H */
