/*
 * Distributed runs on ns-3's MPI engine: a thin layer over ns-3's MpiInterface
 * that also builds without it (Debian's ns-3 has no mpi module): there, the
 * process is the only rank and Enable() is an input error saying so.
 */

#ifndef ASTRA_DISTRIBUTED_H
#define ASTRA_DISTRIBUTED_H

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * This process's place in a distributed (MPI) run.
 *
 * \code
 * if (useMpi) { Distributed::Enable(&argc, &argv); }   // before the simulator is used
 * ... build: fabric.GetRdmaHelper().SetDistributed(Distributed::GetRank()) ...
 * Simulator::Run();
 * auto all = Distributed::Gather(myReport);             // rank 0 gets every rank's text
 * Distributed::Disable();
 * \endcode
 */
class Distributed
{
  public:
    /// \return true if this build has ns-3's mpi module (an ns-3 tree with --enable-mpi)
    static bool IsAvailable();

    /**
     * Start MPI and select ns-3's distributed simulator (granted-time windows, or the
     * null-message one). Call before anything uses the Simulator. Throws
     * astra::InputError if the build has no MPI. On a single rank (mpirun -np 1) the
     * sequential simulator runs instead: nothing to synchronise, same events in the same
     * order, without the distributed engine's window at every time step.
     * \param argc main's argc
     * \param argv main's argv
     * \param nullMessage use ns3::NullMessageSimulatorImpl instead of
     *        ns3::DistributedSimulatorImpl
     */
    static void Enable(int* argc, char*** argv, bool nullMessage = false);
    /// \return true between Enable and Disable
    static bool IsEnabled();
    /// \return this process's rank (0 when not enabled)
    static uint32_t GetRank();
    /// \return the number of ranks (1 when not enabled)
    static uint32_t GetSize();
    /// End MPI (after Simulator::Destroy); no-op when not enabled.
    static void Disable();

    /**
     * Collect one text per rank on rank 0 (a collective call: every rank calls it).
     * \param mine this rank's text
     * \return on rank 0 the texts of ranks 0..N-1; elsewhere an empty vector. Not
     *         enabled: {mine}.
     */
    static std::vector<std::string> Gather(const std::string& mine);
    /// \return the sum over ranks (every rank gets it) \param v this rank's value
    static uint64_t AllReduceSum(uint64_t v);
    /// \return the maximum over ranks (every rank gets it) \param v this rank's value
    static uint64_t AllReduceMax(uint64_t v);
    /// Wait for every rank (no-op when not enabled).
    static void Barrier();
    /**
     * Set the window of ns-3's distributed simulator from the smallest delay of a link
     * crossing ranks: one time step less than it, so that a frame sent in a window
     * (arrival >= send time + delay, even for a frame of zero serialization time) always
     * arrives after the window's last time stamp, before the receiving rank has run any
     * event of that time stamp (the node event order needs it). A delay of one time step
     * stays the window. No-op without MPI, on one rank, or with the sequential engine.
     * \param smallestCutDelay the smallest delay of a cut link
     */
    static void BoundLookAhead(Time smallestCutDelay);
    /// A notice's handler: fn(obj, key) (Distributed::SetNoticeHandler).
    using NoticeFn = void (*)(void* obj, uint64_t key);
    /**
     * Set the handler of notices from other ranks (one per process, as the simulation;
     * nullptr: none).
     * \param fn the function
     * \param obj its object
     */
    static void SetNoticeHandler(NoticeFn fn, void* obj);
    /**
     * Post a notice to another rank: its handler runs there at \p at, in context \p context,
     * with tie-break \p tie in node event order (node-order.h). The notice travels with the
     * frames crossing ranks at the end of the current window, so \p at must be at least the
     * smallest delay of a link crossing ranks from now (the lookahead): the caller checks.
     * Throws std::logic_error without MPI (there are no other ranks).
     * \param rank the rank
     * \param at the time it runs
     * \param tie its tie-break (EventOrder::Reserve; 0 in ns-3's order)
     * \param context the context it runs in
     * \param key the handler's argument
     */
    static void PostNotice(uint32_t rank, Time at, uint64_t tie, uint32_t context, uint64_t key);
    /// \internal run the handler (the receiving rank's event) \param key its argument
    static void RunNotice(uint64_t key);

    /// Stop every rank at once after a fatal error on this one \param status exit status
    [[noreturn]] static void Abort(int status);

    /**
     * Time this rank spent in the synchronisation of ranks: the MPI_Allgather that ends
     * each granted-time window of ns-3's DistributedSimulatorImpl (timed through MPI's
     * profiling interface, model/mpi/astra-mpi-profile.cc) and this facade's
     * AllReduceSum / AllReduceMax (the run monitor's checks). A blocking collective waits
     * for the slowest rank, so this is the rank's wait at synchronisation plus the
     * collectives' own cost. 0 without MPI.
     * \return seconds since the start of the process
     */
    static double GetSyncSeconds();
    /// \return the synchronisations counted by GetSyncSeconds
    static uint64_t GetSyncCount();
    /// Count one synchronisation (MPI profiling interface) \param seconds its wall time
    static void AddSync(double seconds);
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_DISTRIBUTED_H */
