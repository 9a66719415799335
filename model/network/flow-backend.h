/*
 * Congestion-aware, flow-level network backend: concurrent messages share
 * every directed link max-min fairly (progressive filling), with rates
 * recomputed at each arrival and departure. A compatibility mode reproduces
 * ASTRA-sim's congestion_aware analytical backend (store-and-forward per hop,
 * FIFO links) exactly.
 */

#ifndef ASTRA_FLOW_BACKEND_H
#define ASTRA_FLOW_BACKEND_H

#include "network-backend.h"
#include "topology.h"

#include "ns3/event-id.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <queue>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Flow-level congestion-aware backend.
 *
 * Default (fluid, max-min) model. A message is a flow over the directed links
 * of its route (Topology::Route; dimension-order when msg.dim = -1). From
 * Send() on, it takes its max-min fair share of every directed link on the
 * route (each direction of a full-duplex link is an independent resource of
 * TopoLink::bytesPerNs). Rates are recomputed, only for the connected
 * component of links/flows touched, whenever flows start or drain (all
 * changes in the same ns are batched). The flow drains when its bytes have
 * been sent at those rates; the last byte then needs the route's propagation
 * latency (sum of hop latencies) to reach the receiver:
 *
 *     delivered = drain time + sum of hop latencies
 *
 * so a message alone on its path takes latency + bytes / min bandwidth, the
 * same as AnalyticalBackend (both rounded to the nearest ns). Drains are
 * processed at the first whole ns at or after the exact (fractional) drain
 * time; delivery uses the exact drain time. One completion event (the
 * earliest drain) is kept scheduled and moved when rates change.
 *
 * Compat = true (store-and-forward, ASTRA-sim congestion_aware): a message of
 * m bytes crosses its hops one after another; each directed link is a FIFO:
 * a message reaching it at t starts at max(t, link free), holds the link for
 * trunc(m / B) and reaches the next node trunc(latency + m / B) after its
 * start.
 *
 * In both models onSent and then onDelivered are invoked in one event at
 * delivery; src == dst is delivered after 0 ns; ids out of range throw
 * std::out_of_range from Send(). Traffic classes are not distinguished.
 */
class FlowBackend : public NetworkBackend
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * Signature of the Delivered trace source.
     * \param msg the message
     * \param time time from Send() to delivery
     */
    typedef void (*DeliveredTracedCallback)(const NetMessage& msg, Time time);

    FlowBackend();
    ~FlowBackend() override;

    /// Use this topology (copied). Must be called before Send().
    void SetTopology(const Topology& topo);
    /// Share a topology with other users.
    void SetTopology(std::shared_ptr<const Topology> topo);
    /// \return the topology (null before SetTopology)
    std::shared_ptr<const Topology> GetTopology() const;

    void Send(const NetMessage& msg, SentCallback onSent, DeliveredCallback onDelivered) override;
    /**
     * As NetworkBackend::SendTo; fluid-model messages keep the sink and cookie
     * in their flow slot instead of two callback objects.
     * \copydoc NetworkBackend::SendTo
     */
    void SendTo(const NetMessage& msg,
                MessageSink* sink,
                uint64_t cookie,
                bool notifySent) override;
    /// \return true: every event of this backend goes through EventBatcher
    bool SupportsEventBatching() const override;
    uint32_t GetNpuCount() const override;
    std::string GetName() const override;
    uint64_t GetPendingMessages() const override;

    /// \return flows currently taking bandwidth (fluid model)
    uint64_t GetActiveFlows() const;
    /// \return messages delivered so far
    uint64_t GetDeliveredMessages() const;
    /// \return bytes delivered so far
    uint64_t GetDeliveredBytes() const;
    /// \return rate recomputations performed (fluid model)
    uint64_t GetRecomputations() const;
    /// \return total flows visited by rate recomputations (fluid model)
    uint64_t GetRecomputedFlows() const;

    /**
     * Add a shared resource of the fluid model: a capacity that the messages
     * sent with SendThrough() take their max-min share of besides their
     * route's links (e.g. a memory device's bandwidth, shared by every
     * transfer to and from that memory node).
     * \param bytesPerNs capacity (> 0)
     * \return the resource id for SendThrough()
     */
    uint32_t AddSharedResource(double bytesPerNs);

    /**
     * As SendTo() (fluid model), the flow also crossing a shared resource of
     * AddSharedResource(). src and dst may be memory nodes (routed by
     * Topology::AppendRoute). Not available in the Compat model.
     * \param msg the message (bytes > 0)
     * \param resource the resource id
     * \param sink receiver of MessageDelivered (MessageSent is not called)
     * \param cookie unused by the backend (kept for symmetry with SendTo)
     */
    void SendThrough(const NetMessage& msg, uint32_t resource, MessageSink* sink, uint64_t cookie);

    /**
     * \return the summed rate (bytes/ns) of the active flows on one direction
     * of a topology link (fluid model; sampled by reports, not per message)
     * \param link topology link id
     * \param dir 0: a->b, 1: b->a
     */
    double GetLinkRate(uint32_t link, uint8_t dir) const;

    /**
     * Current rate (bytes/ns) of the active flow carrying a message tag, or a
     * negative value if no active flow has that tag (for tests).
     * \param tag the message tag
     * \return the rate
     */
    double GetFlowRate(uint64_t tag) const;

    /**
     * Check the fluid model's state: on every directed link the flows' rates
     * sum to at most its capacity; every flow has a positive rate and a
     * bottleneck link (saturated, and no flow on it is faster); remaining
     * bytes are within [0, size].
     * \return an empty string when all hold, else a description of the first violation
     */
    std::string CheckInvariants() const;

    /// \return invariant checks run (SelfCheck attribute)
    uint64_t GetInvariantChecks() const;
    /// \return failed invariant checks; the first failure's text is GetFirstInvariantFailure()
    uint64_t GetInvariantFailures() const;
    /// \return text of the first failed self check (empty if none)
    std::string GetFirstInvariantFailure() const;

  protected:
    void DoDispose() override;

  private:
    /// One message in the fluid model.
    struct Flow
    {
        NetMessage msg;                //!< the message
        SentCallback onSent;           //!< sender callback
        DeliveredCallback onDelivered; //!< receiver callback
        MessageSink* sink{nullptr};    //!< SendTo's sink (instead of the callbacks)
        uint64_t cookie{0};            //!< SendTo's cookie
        bool notifySent{false};        //!< SendTo's notifySent
        std::vector<uint32_t> links;   //!< directed link ids (2 x link + dir)
        double remaining{0};           //!< bytes left at lastNs
        double rate{0};                //!< bytes per ns
        double lastNs{0};              //!< when remaining was last settled
        double finishNs{0};            //!< predicted drain time
        double latencyNs{0};           //!< route propagation latency
        int64_t sendNs{0};             //!< Send() time
        uint64_t version{0};           //!< invalidates stale heap entries
        bool active{false};            //!< slot in use
    };

    /// The fields of a flow rate recomputation touches, kept compact (parallel to m_flows).
    struct FlowHot
    {
        uint64_t mark{0};               //!< BFS epoch
        double newRate{0};              //!< water-filling result
        const uint32_t* links{nullptr}; //!< Flow::links data
        uint32_t nLinks{0};             //!< Flow::links size
        bool frozen{false};             //!< water-filling state
    };

    /// One direction of a topology link.
    struct DirLink
    {
        double capacity{0};          //!< bytes per ns
        std::vector<uint32_t> flows; //!< active flows crossing it
        double capLeft{0};           //!< water-filling scratch
        uint32_t unfrozen{0};        //!< water-filling scratch
        uint64_t mark{0};            //!< BFS epoch
    };

    /// Heap entry: predicted drain of a flow.
    struct Pending
    {
        double finishNs;  //!< drain time
        uint32_t flow;    //!< flow slot
        uint64_t version; //!< flow version when pushed

        /// \param o other \return later-first ordering for a min-heap
        bool operator>(const Pending& o) const
        {
            return finishNs > o.finishNs || (finishNs == o.finishNs && flow > o.flow);
        }
    };

    /// One message in the store-and-forward model.
    struct SfMessage
    {
        NetMessage msg;                  //!< the message
        SentCallback onSent;             //!< sender callback
        DeliveredCallback onDelivered;   //!< receiver callback
        std::vector<Topology::Hop> hops; //!< route
        size_t next{0};                  //!< next hop to take
        int64_t sendNs{0};               //!< Send() time
    };

    void EnsureLinks();
    void CheckIds(const NetMessage& msg) const;
    void Deliver(const NetMessage& msg,
                 const SentCallback& onSent,
                 const DeliveredCallback& onDelivered);

    /// One message left the network: pending, delivered and byte counters.
    void CountDelivered(uint64_t bytes)
    {
        --m_pending;
        ++m_delivered;
        m_deliveredBytes += bytes;
    }

    /// Deliver a SendTo message to its sink.
    void DeliverToSink(const NetMessage& msg, MessageSink* sink, uint64_t cookie, bool notifySent);
    double NowNs() const;

    // fluid model
    /// Start a fluid-model flow (callbacks, or a sink if \p sink is not null), also across
    /// a shared resource unless \p resource is UINT32_MAX.
    void SendFluid(const NetMessage& msg,
                   SentCallback onSent,
                   DeliveredCallback onDelivered,
                   MessageSink* sink,
                   uint64_t cookie,
                   bool notifySent,
                   uint32_t resource = UINT32_MAX);
    void ProcessDirty();
    /// Recompute now unless rate-limited (UpdateInterval); \return true if recomputed
    bool MaybeRecompute();
    void Recompute();
    void OnCompletion();
    /// Deliver the drained message parked in slot \p slot of m_drained.
    void DeliverDrained(uint32_t slot);
    /// Deliver every drained message of batch \p b (one event per distinct delivery time).
    void DeliverBatch(uint32_t b);
    /// EventBatcher entries (obj = the backend)
    static void ProcessDirtyItem(void* obj, uint64_t, uint64_t);
    static void CompletionItem(void* obj, uint64_t gen, uint64_t);
    static void DeliverBatchItem(void* obj, uint64_t b, uint64_t);
    void Reschedule();
    void CleanHeap();

    // store-and-forward model
    void SfHop(std::shared_ptr<SfMessage> m);

    std::shared_ptr<const Topology> m_topo; //!< the network
    bool m_compat{false};                   //!< store-and-forward compat mode
    Time m_updateInterval{0};               //!< minimum time between recomputations
    int64_t m_lastRecomputeNs{-1};          //!< last recomputation (ns)
    bool m_selfCheck{false};                //!< run CheckInvariants after recomputations

    std::vector<DirLink> m_links;      //!< 2 per topology link, then the shared resources
    std::vector<double> m_resources;   //!< capacities of AddSharedResource (bytes per ns)
    std::vector<Flow> m_flows;         //!< flow slots
    std::vector<FlowHot> m_hot;        //!< hot part of each flow slot
    std::vector<uint32_t> m_freeFlows; //!< free slots

    /// A drained flow's message waiting out its propagation latency (the event carries the slot).
    struct Drained
    {
        NetMessage msg;                //!< the message
        int64_t sendNs{0};             //!< Send() time
        SentCallback onSent;           //!< sender callback
        DeliveredCallback onDelivered; //!< receiver callback
        MessageSink* sink{nullptr};    //!< SendTo's sink
        uint64_t cookie{0};            //!< SendTo's cookie
        bool notifySent{false};        //!< SendTo's notifySent
    };

    std::vector<Drained> m_drained;      //!< drained messages, by slot
    std::vector<uint32_t> m_freeDrained; //!< reusable slots of m_drained
    /// drained slots delivered by one event (flows of one step drain together)
    std::vector<std::vector<uint32_t>> m_drainBatches;
    std::vector<uint32_t> m_freeDrainBatches; //!< reusable ids of m_drainBatches
    uint32_t m_openDrainBatch{UINT32_MAX};    //!< batch still taking slots, or none
    int64_t m_openDrainAt{-1};                //!< its delivery time (ns)
    uint64_t m_activeFlows{0};                //!< slots in use
    std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> m_heap; //!< drains
    uint64_t m_completionGen{0};       //!< current completion item (older ones are stale)
    int64_t m_completionAtNs{-1};      //!< when the current completion item runs (-1: none)
    std::vector<uint32_t> m_dirty;     //!< links whose flow set changed
    bool m_updateScheduled{false};     //!< a ProcessDirty event is pending
    uint64_t m_epoch{0};               //!< BFS epoch counter
    std::vector<uint32_t> m_compLinks; //!< scratch: component links
    std::vector<uint32_t> m_compFlows; //!< scratch: component flows
    std::vector<Topology::Hop> m_hops; //!< scratch: route

    std::vector<int64_t> m_linkFreeAt; //!< store-and-forward: directed link free time (ns)

    uint64_t m_pending{0};         //!< sent, not delivered
    uint64_t m_delivered{0};       //!< delivered messages
    uint64_t m_deliveredBytes{0};  //!< delivered bytes
    uint64_t m_recomputations{0};  //!< recompute calls
    uint64_t m_recomputedFlows{0}; //!< flows visited by recomputations
    uint64_t m_checks{0};          //!< self checks run
    uint64_t m_checkFailures{0};   //!< self checks failed
    std::string m_firstFailure;    //!< first failure text

    /// Trace: message delivered (message, time since Send()).
    TracedCallback<const NetMessage&, Time> m_deliveredTrace;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_FLOW_BACKEND_H */
