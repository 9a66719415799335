/*
 * The seam between the system layer (collectives, SEND/RECV) and a network
 * model. The system layer knows NPUs, dimensions and messages; a backend
 * knows how long a message takes. Three backends implement it: the
 * congestion-unaware analytical one, the flow-level (max-min) one and the
 * packet-level RoCE one.
 */

#ifndef ASTRA_NETWORK_BACKEND_H
#define ASTRA_NETWORK_BACKEND_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/simulator.h"

#include <cstdint>
#include <functional>
#include <string>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Traffic classes a message may belong to; backends map them to priorities.
 */
enum class TrafficClass : uint8_t
{
    COLLECTIVE = 0, //!< collective algorithm steps
    POINT_TO_POINT, //!< workload SEND/RECV (e.g. pipeline parallelism)
    MEMORY,         //!< remote/disaggregated memory traffic
    CONTROL,        //!< small control messages (barriers, rendezvous)
    COUNT
};

/**
 * \ingroup astra-sim
 * One message handed to a network backend.
 */
struct NetMessage
{
    uint32_t src{0};                               //!< source NPU (or memory node) id
    uint32_t dst{0};                               //!< destination id
    uint64_t bytes{0};                             //!< payload bytes (64-bit)
    uint64_t tag{0};                               //!< opaque tag, kept end to end
    int32_t dim{-1};                               //!< network dimension to use; -1 = any (routed)
    TrafficClass tclass{TrafficClass::COLLECTIVE}; //!< traffic class
};

/**
 * \ingroup astra-sim
 * A caller-owned memo of one route's message time. A backend whose message
 * times are fixed at send (NetworkBackend::HasFixedMessageTimes()) may read and
 * fill it in SendTo() instead of looking the route up in its own tables: a
 * caller sending many messages of one size to one destination (a ring step)
 * keeps one per stream and saves that lookup per message. Opaque to callers;
 * a default-constructed hint is empty.
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
     * \param onSent invoked at the sender when the message completes there
     * \param onDelivered invoked when the last byte reached the receiver
     */
    virtual void Send(const NetMessage& msg,
                      SentCallback onSent,
                      DeliveredCallback onDelivered) = 0;

    /**
     * Start sending a message whose completions go to a MessageSink: the same
     * as Send() with onSent = sink->MessageSent(msg, cookie) (only if
     * \p notifySent) and onDelivered = sink->MessageDelivered(msg). The default
     * implementation wraps the sink in callbacks and calls Send(); a backend may
     * override it to avoid the callback objects.
     * \param msg the message
     * \param sink receiver of the completions (must outlive the message)
     * \param cookie passed back to MessageSent
     * \param notifySent whether MessageSent is wanted
     * \param hint optional caller-owned memo of the route's time (see MessageTimeHint)
     * \return the message's network time (delivery and the sender's completion
     * happen at Now() plus it) if HasFixedMessageTimes(), else a negative Time
     */
    virtual Time SendTo(const NetMessage& msg,
                        MessageSink* sink,
                        uint64_t cookie,
                        bool notifySent,
                        MessageTimeHint* hint = nullptr);

    /**
     * \return true if a message's network time is fixed when it is sent (it
     * does not depend on other traffic, as in a congestion-unaware model):
     * SendTo() then returns it, and a caller that only needs the sender's
     * completion time may pass notifySent = false and use it (default false)
     */
    virtual bool HasFixedMessageTimes() const;

    /**
     * For a caller that schedules a message's effect at the receiver itself
     * (the system layer runs a ring step's delivery and the receiver's
     * processing as one event): account \p msg as sent now and return its
     * network time without scheduling anything. The message counts as pending
     * until the caller reports it with CompleteUnscheduled(). Only a backend
     * with HasFixedMessageTimes() can do this; the default, and such a backend
     * when it must see each delivery itself (a connected trace), return a
     * negative value and account nothing: use SendTo() then.
     * \param msg the message
     * \param hint optional caller-owned memo of the route's time
     * \return the network time in time steps (Time::GetTimeStep units; a plain
     * integer because this is a per-message path), or -1 if not supported now
     */
    virtual int64_t SendUnscheduled(const NetMessage& msg, MessageTimeHint* hint = nullptr);
    /**
     * The caller's event for a message of SendUnscheduled() ran: count it as
     * delivered.
     * \param msg the message
     */
    virtual void CompleteUnscheduled(const NetMessage& msg);

    /// \return the number of NPUs this backend connects
    virtual uint32_t GetNpuCount() const = 0;

    /// \return a short name ("analytical", "flow", "roce")
    virtual std::string GetName() const = 0;

    /// \return messages handed to Send() and not yet delivered
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
 * Coalesces events that fall on the same simulated time into one ns-3 event.
 *
 * ns-3 runs events of equal time in the order they were scheduled. When
 * every event of a simulation is scheduled here (the system layer, the
 * workload application, the memory models and a backend whose
 * SupportsEventBatching() is true), keeping one batch per distinct time and
 * running each batch's items in insertion order executes exactly the same
 * sequence as one ns-3 event per item, at a fraction of the cost (one
 * scheduler insert/pop per distinct time instead of per item). While
 * disabled (the default, and with the flow and RoCE backends), each item is
 * one ns-3 event as before. State is per process, like the Simulator's;
 * Reset() (also registered with Simulator::ScheduleDestroy) drops it.
 */
class EventBatcher
{
  public:
    /// An item: fn(obj, a, b).
    using Fn = void (*)(void* obj, uint64_t a, uint64_t b);
    /// An item carrying a message: fn(obj, msg).
    using MsgFn = void (*)(void* obj, const NetMessage& msg);

    /**
     * Schedule fn(obj, a, b) after \p delay.
     * \param delay the delay (>= 0)
     * \param fn the function
     * \param obj its object argument
     * \param a first integer argument
     * \param b second integer argument
     */
    static void Schedule(Time delay, Fn fn, void* obj, uint64_t a = 0, uint64_t b = 0);
    /**
     * Schedule fn(obj, msg) after \p delay; the message is copied into the
     * item (no allocation, no slot table of the caller's). A batch prefetches
     * the memory its next items will touch: \p obj's first two cache lines and
     * \p touch.
     * \param delay the delay (>= 0)
     * \param fn the function
     * \param obj its object argument
     * \param msg the message
     * \param touch another address fn will read (a prefetch hint only: may be null or stale)
     */
    static void ScheduleMessage(Time delay,
                                MsgFn fn,
                                void* obj,
                                const NetMessage& msg,
                                const void* touch = nullptr);
    /**
     * As Schedule(), with the delay in time steps (per-message paths avoid Time objects).
     * \param delay the delay in time steps (>= 0)
     * \param fn the function
     * \param obj its object argument
     * \param a first integer argument
     * \param b second integer argument
     */
    static void ScheduleSteps(int64_t delay, Fn fn, void* obj, uint64_t a = 0, uint64_t b = 0);
    /**
     * As ScheduleMessage(), with the delay in time steps.
     * \param delay the delay in time steps (>= 0)
     * \param fn the function
     * \param obj its object argument
     * \param msg the message
     * \param touch another address fn will read (prefetch hint; may be null or stale)
     */
    static void ScheduleMessageSteps(int64_t delay,
                                     MsgFn fn,
                                     void* obj,
                                     const NetMessage& msg,
                                     const void* touch = nullptr);

    /**
     * \return the current simulation time in time steps; inside a batch this
     * is the batch's time and costs no call into the Simulator
     */
    static int64_t NowSteps()
    {
        return s_running ? s_nowT : Simulator::Now().GetTimeStep();
    }

    /**
     * Schedule a callable after \p delay.
     * \param delay the delay (>= 0)
     * \param f the callable
     */
    static void Schedule(Time delay, std::function<void()> f);
    /// Enable or disable batching (disabling does not move already scheduled items).
    static void SetEnabled(bool on);
    /// \return true while batching is enabled
    static bool IsEnabled();
    /// \return items run through batches in this process (not cleared by Reset())
    static uint64_t GetItemCount();
    /// Drop pending batches (their items never run) and disable batching.
    static void Reset();

  private:
    /// Run batch \p b of generation \p gen (stale generations are ignored).
    static void RunBatch(uint32_t b, uint64_t gen);

    static bool s_running; //!< a batch is running: Now() is s_nowT
    static int64_t s_nowT; //!< the running batch's time (steps)
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_NETWORK_BACKEND_H */
