/*
 * Congestion-unaware analytical network backend: every message costs its
 * route's latency plus one serialization at the path's slowest link, with no
 * interaction between messages (ASTRA-sim's congestion_unaware model).
 */

#ifndef ASTRA_ANALYTICAL_BACKEND_H
#define ASTRA_ANALYTICAL_BACKEND_H

#include "network-backend.h"
#include "topology.h"

#include "ns3/traced-callback.h"

#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Congestion-unaware backend. For a message of m bytes routed over h hops
 * (Topology::Route, dimension-order when msg.dim = -1):
 *
 *     T = sum of hop latencies + m / min(hop bandwidth)      [ns]
 *
 * (serialization counted once, as the reference). Default model: a sender's
 * own messages are serialised on its outgoing link (the route's first
 * directed link): a message sent at t starts at s = max(t, F), where F is
 * when the sender's previous message on that link finished serialising, and
 * holds the link until F = s + m / min(hop bandwidth); it is delivered at
 * s + T (rounded to the nearest ns). Messages of different senders never
 * interact (no cross-flow contention). With Compat = true: no serialisation
 * and T = trunc(sum latency + m / B), exactly ASTRA-sim's congestion_unaware
 * backend (every message gets the full link). onSent and then onDelivered are
 * invoked in one event at delivery. src == dst costs 0 (delivered in a
 * zero-delay event); ids >= GetNpuCount() throw std::out_of_range from Send().
 * Message times are fixed at send: the backend offers FixedTimeNetwork.
 */
class AnalyticalBackend : public NetworkBackend, public FixedTimeNetwork
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

    AnalyticalBackend();
    ~AnalyticalBackend() override;

    /// Use this topology (copied). Must be called before Send().
    void SetTopology(const Topology& topo);
    /// Share a topology with other users.
    void SetTopology(std::shared_ptr<const Topology> topo);
    /// \return the topology (null before SetTopology)
    std::shared_ptr<const Topology> GetTopology() const;

    /**
     * Network time of one message alone on its route (no wait behind the
     * sender's earlier messages), without sending it.
     * \param msg the message
     * \return the time Send() would take for it on an idle link
     */
    Time GetMessageTime(const NetMessage& msg) const;

    void Send(const NetMessage& msg, SentCallback onSent, DeliveredCallback onDelivered) override;
    /**
     * As NetworkBackend::SendTo, with sink and cookie kept in a 64-byte
     * in-flight slot (no std::function per message).
     * \copydoc NetworkBackend::SendTo
     */
    void SendTo(const NetMessage& msg,
                MessageSink* sink,
                uint64_t cookie,
                bool notifySent) override;
    /// \return this backend's FixedTimeNetwork interface (message times are fixed at send)
    FixedTimeNetwork* GetFixedTimeInterface() override;
    /**
     * As FixedTimeNetwork::SendUnscheduled; refused (negative) while the
     * Delivered trace has a sink, which must see each delivery at its time.
     * \copydoc FixedTimeNetwork::SendUnscheduled
     */
    int64_t SendUnscheduled(const NetMessage& msg, MessageTimeHint* hint) override;
    void CompleteUnscheduled(const NetMessage& msg) override;
    /**
     * As FixedTimeNetwork::GetMessageTimeSteps: the time a message sent now
     * would take, including its wait behind the sender's earlier messages
     * (nothing is changed).
     * \copydoc FixedTimeNetwork::GetMessageTimeSteps
     */
    int64_t GetMessageTimeSteps(const NetMessage& msg, MessageTimeHint* hint) override;
    uint32_t GetNpuCount() const override;
    std::string GetName() const override;
    uint64_t GetPendingMessages() const override;
    /// \return true: deliveries are scheduled through EventBatcher
    bool SupportsEventBatching() const override;

    /// \return messages delivered so far
    uint64_t GetDeliveredMessages() const;
    /// \return bytes delivered so far
    uint64_t GetDeliveredBytes() const;

  protected:
    void DoDispose() override;

  private:
    /// One message in flight: the scheduled event carries only its slot index.
    struct InFlight
    {
        NetMessage msg;            //!< the message
        Time t;                    //!< its network time
        SentCallback onSent;       //!< sender's callback
        DeliveredCallback onDeliv; //!< receiver's callback
    };

    /// One SendTo message in flight: no std::function, one 64-byte line.
    struct alignas(64) SinkFlight
    {
        NetMessage msg;             //!< the message
        Time t;                     //!< its network time
        MessageSink* sink{nullptr}; //!< receiver of the completion
        uint64_t cookie{0};         //!< SendTo's cookie
    };

    /// \return a free slot of m_inFlight
    uint32_t AllocSlot();
    /// \return a free slot of m_sinkFlight
    uint32_t AllocSinkSlot();

    /// Deliver the message in slot \p slot of m_inFlight.
    void Complete(uint32_t slot);
    /// Deliver the message in slot \p slot of m_sinkFlight.
    void CompleteSink(uint32_t slot, bool notifySent);
    /// EventBatcher entry: Complete(a) on the backend \p obj.
    static void CompleteItem(void* obj, uint64_t a, uint64_t b);
    /// EventBatcher entry: CompleteSink(a, b != 0) on the backend \p obj.
    static void CompleteSinkItem(void* obj, uint64_t a, uint64_t b);

    /// One message left the network: pending, delivered and byte counters.
    void CountDelivered(uint64_t bytes)
    {
        --m_pending;
        ++m_delivered;
        m_deliveredBytes += bytes;
    }

    /// Route cost of one (src, dst) pair for one dimension argument.
    struct RouteCost
    {
        uint64_t key{UINT64_MAX};       //!< src << 32 | dst (UINT64_MAX = empty)
        int32_t dim{0};                 //!< the message's dim argument it was computed for
        bool lastCompat{false};         //!< Compat attribute lastNs was computed with
        double latency{0};              //!< sum of the hop latencies (ns)
        double minRate{0};              //!< slowest hop (bytes/ns; 0 = no hops)
        uint64_t lastBytes{UINT64_MAX}; //!< size of the last message timed on this route
        int64_t lastNs{0};              //!< its time (ns), reused while the size repeats
    };

    /**
     * The route data a sender's serialisation needs (memo per source NPU: a
     * ring phase sends one size to one peer).
     */
    struct SenderMemo
    {
        uint64_t key{UINT64_MAX}; //!< dst << 32 | (uint32_t) dim (UINT64_MAX = empty)
        uint64_t bytes{0};        //!< message size
        uint32_t link{0};         //!< the route's first directed link (2 x link + dir)
        double serNs{0};          //!< m / min(hop bandwidth)
        double latencyNs{0};      //!< sum of the hop latencies
    };

    /// \return the memo of \p msg's route (filled if needed)
    const SenderMemo& Sender(const NetMessage& msg);
    /**
     * \return the time in time steps of a message sent now: \p baseSteps (its time
     * alone) when its sender's outgoing link is idle (always with Compat, for src ==
     * dst and empty messages), else the wait behind the sender's earlier messages plus
     * the time alone
     * \param msg the message \param baseSteps its time alone \param commit occupy the link
     */
    int64_t SenderTime(const NetMessage& msg, int64_t baseSteps, bool commit);
    /// \return the time alone in time steps (through the caller's route memo \p hint)
    int64_t BaseTimeSteps(const NetMessage& msg, MessageTimeHint* hint);

    std::shared_ptr<const Topology> m_topo;    //!< the network
    uint32_t m_stamp{0};                       //!< configuration stamp (MessageTimeHint), even
    bool m_compat{false};                      //!< truncate like the reference
    uint64_t m_pending{0};                     //!< sent, not yet delivered
    uint64_t m_delivered{0};                   //!< delivered messages
    uint64_t m_deliveredBytes{0};              //!< delivered bytes
    mutable std::vector<Topology::Hop> m_hops; //!< route scratch buffer
    std::vector<InFlight> m_inFlight;          //!< messages in flight, by slot
    std::vector<uint32_t> m_freeSlots;         //!< reusable slots of m_inFlight
    std::vector<SinkFlight> m_sinkFlight;      //!< SendTo messages in flight, by slot
    std::vector<uint32_t> m_sinkFree;          //!< reusable slots of m_sinkFlight
    /// route costs, direct-mapped by a hash of (src, dst); a colliding pair overwrites
    mutable std::vector<RouteCost> m_routeCache;
    std::vector<SenderMemo> m_senderMemo; //!< by source NPU
    std::vector<double> m_linkFreeAt;     //!< by directed link: end of the sender's last
                                          //!< message's serialisation (time steps, exact)
    double m_stepsPerNs{1};               //!< time steps per ns
    /// Trace: message delivered (message, network time).
    TracedCallback<const NetMessage&, Time> m_deliveredTrace;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_ANALYTICAL_BACKEND_H */
