/*
 * The seam between the system layer (collectives, SEND/RECV) and a network
 * model. The system layer knows NPUs, dimensions and messages; a backend
 * knows how long a message takes. Three backends implement it: the
 * congestion-unaware analytical one, the flow-level (max-min) one and the
 * packet-level RoCE one.
 */

#ifndef ASTRA_NETWORK_BACKEND_H
#define ASTRA_NETWORK_BACKEND_H

#include "net-message.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <functional>
#include <string>

namespace ns3
{
namespace astra
{

class FixedTimeNetwork;
class InSwitchNetwork;

/**
 * \ingroup astra-sim
 * Receiver of a backend's completions through plain virtual calls (the
 * system layer's per-message path; no std::function per message).
 */
class MessageSink
{
  public:
    virtual ~MessageSink();
    /**
     * The sender may consider the message done.
     * \param msg the message
     * \param cookie the value given to NetworkBackend::SendTo
     */
    virtual void MessageSent(const NetMessage& msg, uint64_t cookie) = 0;
    /**
     * The message's last byte reached the receiver.
     * \param msg the message
     */
    virtual void MessageDelivered(const NetMessage& msg) = 0;
    /**
     * A backend about to complete many messages in a row may announce them a
     * few messages ahead, so that the sink can prefetch what it will touch
     * (default: nothing). Purely a performance hint.
     * \param msg a message that will complete soon
     * \param cookie its SendTo cookie if MessageSent will be called, else 0
     */
    virtual void PrefetchHint(const NetMessage& msg, uint64_t cookie);
};

/**
 * \ingroup astra-sim
 * Abstract network backend. All backends run inside ns-3's Simulator: time is
 * Simulator::Now() and events are ns-3 events.
 *
 * A backend has two ways to send: Send() with two callbacks (simple callers,
 * tests) and SendTo() with a MessageSink (the system layer's per-message
 * path). A backend whose message times are fixed at send may also offer the
 * FixedTimeNetwork interface (GetFixedTimeInterface()); a caller queries it
 * once at set-up. Backends are chosen by name through NetworkBackendFactory.
 */
class NetworkBackend : public Object
{
  public:
    /// Called when a message's last byte arrived at the receiver.
    using DeliveredCallback = std::function<void(const NetMessage&)>;
    /// Called when the sender may consider the message done (acknowledged).
    using SentCallback = std::function<void(const NetMessage&)>;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    ~NetworkBackend() override;

    /**
     * Start sending a message.
     * \param msg the message
     * \param onSent invoked at the sender when the message completes there (may be empty)
     * \param onDelivered invoked when the last byte reached the receiver (may be empty)
     */
    virtual void Send(const NetMessage& msg,
                      SentCallback onSent,
                      DeliveredCallback onDelivered) = 0;

    /**
     * Start sending a message whose completions go to a MessageSink: the same
     * as Send() with onSent = sink->MessageSent(msg, cookie) (only if
     * \p notifySent) and onDelivered = sink->MessageDelivered(msg), in that
     * order when both fall on one time. The default implementation wraps the
     * sink in callbacks and calls Send(); a backend overrides it to keep sink
     * and cookie in its own per-message state instead.
     * \param msg the message
     * \param sink receiver of the completions (must outlive the message)
     * \param cookie passed back to MessageSent
     * \param notifySent whether MessageSent is wanted
     */
    virtual void SendTo(const NetMessage& msg, MessageSink* sink, uint64_t cookie, bool notifySent);

    /**
     * \return the backend's fixed-time interface if a message's network time
     * is fixed when it is sent (it does not depend on other traffic, as in a
     * congestion-unaware model), else nullptr (the default). Query it once at
     * set-up; the pointer lives as long as the backend.
     */
    virtual FixedTimeNetwork* GetFixedTimeInterface();

    /**
     * \return the backend's in-switch (in-network aggregation) interface, or
     * nullptr. Default: an InSwitchNetwork aggregated to the backend
     * (in-switch-network.h; AggregationHelper attaches one). Query it once
     * at set-up.
     */
    virtual InSwitchNetwork* GetInSwitchInterface();

    /// \return the number of NPUs this backend connects
    virtual uint32_t GetNpuCount() const = 0;

    /// \return a short name ("analytical", "flow", "roce")
    virtual std::string GetName() const = 0;

    /// \return messages handed to Send() / SendTo() and not yet delivered
    virtual uint64_t GetPendingMessages() const = 0;

    /**
     * \return true if every event this backend schedules goes through
     * EventBatcher, so that the system layer may enable it (default false:
     * a backend with events of its own keeps plain ns-3 scheduling).
     */
    virtual bool SupportsEventBatching() const;
};

/**
 * \ingroup astra-sim
 * A caller-owned memo of one route's message time for
 * FixedTimeNetwork::SendUnscheduled: a caller sending many messages of one
 * size to one destination (a ring step) keeps one per stream and saves the
 * backend's route lookup per message. Opaque to callers; a default-constructed
 * hint is empty. A hint is valid within one simulation (the stamps that tell
 * backends and their configurations apart restart at Simulator::Destroy).
 */
struct MessageTimeHint
{
    uint64_t route{UINT64_MAX}; //!< src << 32 | dst it was filled for (UINT64_MAX = empty)
    uint64_t bytes{0};          //!< message size it was filled for
    int64_t steps{0};           //!< the message's network time (ns-3 time steps)
    uint32_t stamp{0};          //!< the filling backend's configuration stamp
    int32_t dim{0};             //!< the message's dim argument
};

/**
 * \ingroup astra-sim
 * Optional interface of a backend whose message times are fixed at send
 * (NetworkBackend::GetFixedTimeInterface()): a caller may take over a
 * message's delivery. SendUnscheduled() accounts the message as sent and
 * returns its network time without scheduling anything; the caller schedules
 * the message's effect at the receiver itself (the system layer runs a ring
 * step's arrival and the receiver's processing as one event) and reports it
 * with CompleteUnscheduled() when that time has come. The backend keeps
 * counting it as pending until then.
 */
class FixedTimeNetwork
{
  public:
    virtual ~FixedTimeNetwork();

    /**
     * Account \p msg as sent now and return its network time without
     * scheduling anything; the message is pending until CompleteUnscheduled().
     * A backend that must see each delivery itself at its time (e.g. while a
     * delivery trace is connected) declines with a negative value and accounts
     * nothing: send it with NetworkBackend::SendTo() then.
     * \param msg the message
     * \param hint optional caller-owned memo of the route's time
     * \return the network time in time steps (Time::GetTimeStep units; a plain
     * integer because this is a per-message path), or -1 if declined
     */
    virtual int64_t SendUnscheduled(const NetMessage& msg, MessageTimeHint* hint) = 0;

    /**
     * The caller's event for a message of SendUnscheduled() ran: count it as
     * delivered.
     * \param msg the message
     */
    virtual void CompleteUnscheduled(const NetMessage& msg) = 0;

    /**
     * The network time of \p msg, without sending it (validates the message
     * like a send).
     * \param msg the message
     * \param hint optional caller-owned memo of the route's time
     * \return the network time in time steps
     */
    virtual int64_t GetMessageTimeSteps(const NetMessage& msg, MessageTimeHint* hint) = 0;

  protected:
    /**
     * \return a fresh configuration stamp for MessageTimeHint (even, never 0):
     * unique among the stamps taken in the current simulation, so a hint filled
     * by one backend or configuration never matches another. The source
     * restarts at Simulator::Destroy.
     */
    static uint32_t NewStamp();
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_NETWORK_BACKEND_H */
