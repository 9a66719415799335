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
#include "ns3/traced-callback.h"

#include <array>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RdmaHostStack;
class RdmaQueuePair;
struct RdmaMessageInfo;

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
 * - onDelivered runs when the receiver's host stack reports the message's last
 *   byte (RxMessageComplete); onSent when the requester's host stack reports it
 *   acknowledged (TxMessageComplete). Each callback runs exactly once.
 * - The RDMA user tag of a message is an index into a slot table holding the
 *   NetMessage and its callbacks (no map on the per-message path).
 * - src == dst completes after 0 ns (a loopback copy is not modelled).
 * - A message's dimension is not enforced: the fabric's ECMP shortest paths
 *   keep a single-dimension message inside its dimension's links, because its
 *   endpoints differ in that coordinate only (the shortest path is the
 *   dimension's own line).
 *
 * The backend owns the host stacks' message callbacks (SetMessageCallbacks).
 */
class RoceBackend : public NetworkBackend
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
     * Apply a configuration file (JSON or YAML; one mapping) to the ns-3
     * attribute defaults; call before the fabric is built. Accepted forms:
     *  - "ns3::Type::Attribute": value            (Config::SetDefault)
     *  - "Type::Attribute": value                 ("ns3::" is prepended)
     *  - "ns3::Type": {"Attribute": value, ...}   (grouped)
     *  - "GlobalName": value                      (Config::SetGlobal, e.g. RngSeed)
     * Values are strings/numbers/booleans in ns-3's attribute syntax
     * ("100Gbps", "4us", 1000, true). Throws std::runtime_error naming the
     * file and key on an unknown attribute or a bad value.
     * \param path file name
     * \return number of settings applied
     */
    static uint32_t ApplyConfigFile(const std::string& path);

    /**
     * Apply an HPCC / SimAI ns-3 `config.txt` ("KEY value" lines). Keys with an
     * equivalent attribute set its default (see doc/roce-backend.rst for the
     * table and units); KMIN_MAP / KMAX_MAP / PMAX_MAP fill GetEcnRateMap();
     * keys without an equivalent are ignored and listed in the returned
     * `ignored` vector. Throws std::runtime_error naming file and key on a bad
     * value or an unsupported CC_MODE.
     * \param path file name
     * \param ignored receives the keys that have no equivalent
     * \return number of settings applied
     */
    static uint32_t ApplyHpccConfig(const std::string& path, std::vector<std::string>* ignored);

    /// ECN thresholds for ports of one line rate (HPCC's KMIN/KMAX/PMAX maps).
    struct EcnRateEntry
    {
        uint64_t kminBytes{0}; //!< Kmin (bytes)
        uint64_t kmaxBytes{0}; //!< Kmax (bytes)
        double pmax{0};        //!< marking probability at Kmax
    };

    /**
     * Per-line-rate ECN thresholds (bit/s -> entry) that AstraFabricHelper
     * applies to every switch (and transit forwarder) port after building the
     * fabric: the entry of the nearest rate, scaled linearly to the port's
     * rate. Filled by ApplyHpccConfig; empty = the RdmaSwitch Kmin/Kmax/Pmax
     * attributes apply.
     * \return the map (process-wide)
     */
    static std::map<uint64_t, EcnRateEntry>& GetEcnRateMap();

    /// User-tag bit of messages posted on the NPUs' host stacks by others (e.g. background
    /// traffic): the backend ignores their completions.
    static constexpr uint64_t kForeignTagBit = uint64_t(1) << 63;

    /// Trace signature: message delivered (message, time from Send() to delivery).
    typedef void (*MessageTracedCallback)(const NetMessage& msg, Time latency);

  protected:
    void DoDispose() override;

  private:
    /// One message in flight (slot table entry).
    struct Slot
    {
        NetMessage msg;                //!< the message
        SentCallback onSent;           //!< sender completion
        DeliveredCallback onDelivered; //!< receiver completion
        Time posted;                   //!< Send() time
        uint64_t qpOffset{0};          //!< QP byte offset of the message's first byte
        uint32_t qpn{0};               //!< requester QP number (0: local copy)
        uint8_t prio{0};               //!< data priority
        bool sent{false};              //!< onSent done
        bool delivered{false};         //!< onDelivered done
        bool used{false};              //!< slot in use
    };

    /// Persistent QPs of one (src, dst, priority).
    struct QpSet
    {
        std::vector<Ptr<RdmaQueuePair>> qps; //!< QpsPerPair QPs
        uint32_t next{0};                    //!< round-robin cursor
    };

    void OnTx(const RdmaMessageInfo& info);
    void OnRx(const RdmaMessageInfo& info);
    void LocalComplete(uint32_t slot);
    void Release(uint32_t slot);
    uint32_t AllocSlot();
    Ptr<RdmaQueuePair> GetQp(uint32_t src, uint32_t dst, uint8_t prio);
    void ParsePriorityMap();

    // attributes
    std::string m_priorityMapStr{"3,3,3,3"};
    uint32_t m_qpsPerPair{1};
    bool m_useSend{false};

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
