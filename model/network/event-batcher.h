/*
 * EventBatcher: items that fall on the same simulated time share one ns-3
 * event. Used by the system layer, the workload engine, the memory models and
 * the analytical and flow-level backends.
 */

#ifndef ASTRA_EVENT_BATCHER_H
#define ASTRA_EVENT_BATCHER_H

#include "net-message.h"

#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <cstdint>
#include <functional>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Coalesces events that fall on the same simulated time into one ns-3 event.
 *
 * ns-3 runs events of equal time in the order they were scheduled. When
 * every event of a simulation is scheduled here (the system layer, the
 * workload application, the memory models and a backend whose
 * NetworkBackend::SupportsEventBatching() is true), keeping one batch per
 * distinct time and running each batch's items in insertion order executes
 * exactly the same sequence as one ns-3 event per item, at a fraction of the
 * cost (one scheduler insert/pop per distinct time instead of per item). While
 * disabled (the default, and with the RoCE backend), each item is one ns-3
 * event as before.
 *
 * State is per simulation, like the Simulator's own: enabling registers
 * Reset() with Simulator::ScheduleDestroy, so Simulator::Destroy() drops
 * pending batches (their items never run) and disables batching, and the next
 * simulation in the same process starts from an empty, disabled batcher.
 * Only GetItemCount() is a statistic of the whole process.
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
    /**
     * Enable or disable batching for the current simulation (disabling does
     * not move already scheduled items). Enabling registers Reset() to run at
     * Simulator::Destroy().
     * \param on the new setting
     */
    static void SetEnabled(bool on);
    /// \return true while batching is enabled
    static bool IsEnabled();
    /**
     * \return items run through batches in this process since it started: a
     * statistic for benchmarks (not cleared by Reset(), never read by a
     * simulation)
     */
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

#endif /* ASTRA_EVENT_BATCHER_H */
