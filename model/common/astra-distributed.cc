#include "astra-distributed.h"

#include "astra-diagnostics.h"

#include "ns3/global-value.h"
#include "ns3/string.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

namespace ns3
{
namespace astra
{

namespace
{
double g_syncSeconds = 0;                   //!< Distributed::GetSyncSeconds
uint64_t g_syncCount = 0;                   //!< Distributed::GetSyncCount
Distributed::NoticeFn g_noticeFn = nullptr; //!< Distributed::SetNoticeHandler
void* g_noticeObj = nullptr;                //!< its object
} // namespace

void
Distributed::SetNoticeHandler(NoticeFn fn, void* obj)
{
    g_noticeFn = fn;
    g_noticeObj = obj;
}

void
Distributed::RunNotice(uint64_t key)
{
    if (!g_noticeFn)
    {
        throw std::logic_error("a notice from another rank arrived without a handler");
    }
    g_noticeFn(g_noticeObj, key);
}

double
Distributed::GetSyncSeconds()
{
    return g_syncSeconds;
}

uint64_t
Distributed::GetSyncCount()
{
    return g_syncCount;
}

void
Distributed::AddSync(double seconds)
{
    g_syncSeconds += seconds;
    ++g_syncCount;
}

bool
Distributed::IsAvailable()
{
#ifdef NS3_MPI
    return true;
#else
    return false;
#endif
}

#ifdef NS3_MPI

// model/mpi/node-order-distributed-simulator-impl.cc (it sees ns-3's distributed simulator)
void BoundMpiLookAhead(Time lookahead);
// model/mpi/rdma-remote-channel.cc (notices travel in the batches of frames)
void PostMpiNotice(uint32_t rank, int64_t atTs, uint64_t tie, uint32_t context, uint64_t key);

void
Distributed::PostNotice(uint32_t rank, Time at, uint64_t tie, uint32_t context, uint64_t key)
{
    PostMpiNotice(rank, at.GetTimeStep(), tie, context, key);
}

namespace
{
/// an input error thrown after Enable ends the program without Disable: finalize MPI then
void
FinalizeAtExit()
{
    if (MpiInterface::IsEnabled())
    {
        MpiInterface::Disable();
    }
}
} // namespace

void
Distributed::Enable(int* argc, char*** argv, bool nullMessage)
{
    static bool registered = false;
    if (!registered)
    {
        registered = true;
        std::atexit(&FinalizeAtExit);
    }
    StringValue given;
    GlobalValue::GetValueByName("SimulatorImplementationType", given);
    if (given.Get() != "ns3::DefaultSimulatorImpl" &&
        given.Get() != "ns3::DistributedSimulatorImpl")
    {
        throw InputError("--SimulatorImplementationType=" + given.Get() +
                         " with --mpi: a distributed run uses ns-3's granted-time-window "
                         "engine (leave the option out)");
    }
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(nullMessage ? "ns3::NullMessageSimulatorImpl"
                                              : "ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(argc, argv);
    if (MpiInterface::GetSize() == 1)
    {
        // one rank has nothing to synchronise with, but ns-3's distributed engine would
        // end a window (an MPI_Allgather) at every time step (its lookahead is 0 without
        // remote links): run the sequential engine, same events in the same order
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    }
}

bool
Distributed::IsEnabled()
{
    return MpiInterface::IsEnabled();
}

uint32_t
Distributed::GetRank()
{
    return MpiInterface::IsEnabled() ? MpiInterface::GetSystemId() : 0;
}

uint32_t
Distributed::GetSize()
{
    return MpiInterface::IsEnabled() ? MpiInterface::GetSize() : 1;
}

void
Distributed::Disable()
{
    if (MpiInterface::IsEnabled())
    {
        MpiInterface::Disable();
    }
}

std::vector<std::string>
Distributed::Gather(const std::string& mine)
{
    if (!MpiInterface::IsEnabled())
    {
        return {mine};
    }
    MPI_Comm comm = MpiInterface::GetCommunicator();
    const int size = int(MpiInterface::GetSize());
    const int rank = int(MpiInterface::GetSystemId());
    int len = int(mine.size());
    std::vector<int> lens(size_t(size), 0);
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm);
    std::vector<int> displs(size_t(size), 0);
    int total = 0;
    for (int r = 0; r < size; ++r)
    {
        displs[size_t(r)] = total;
        total += lens[size_t(r)];
    }
    std::vector<char> all(size_t(rank == 0 ? std::max(total, 1) : 1));
    MPI_Gatherv(mine.data(),
                len,
                MPI_CHAR,
                all.data(),
                lens.data(),
                displs.data(),
                MPI_CHAR,
                0,
                comm);
    std::vector<std::string> out;
    if (rank == 0)
    {
        for (int r = 0; r < size; ++r)
        {
            out.emplace_back(all.data() + displs[size_t(r)], size_t(lens[size_t(r)]));
        }
    }
    return out;
}

uint64_t
Distributed::AllReduceSum(uint64_t v)
{
    if (!MpiInterface::IsEnabled())
    {
        return v;
    }
    unsigned long long in = v;
    unsigned long long out = 0;
    const auto t0 = std::chrono::steady_clock::now();
    MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MpiInterface::GetCommunicator());
    AddSync(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return out;
}

uint64_t
Distributed::AllReduceMax(uint64_t v)
{
    if (!MpiInterface::IsEnabled())
    {
        return v;
    }
    unsigned long long in = v;
    unsigned long long out = 0;
    const auto t0 = std::chrono::steady_clock::now();
    MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MpiInterface::GetCommunicator());
    AddSync(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return out;
}

void
Distributed::Barrier()
{
    if (MpiInterface::IsEnabled())
    {
        MPI_Barrier(MpiInterface::GetCommunicator());
    }
}

void
Distributed::BoundLookAhead(Time smallestCutDelay)
{
    if (!MpiInterface::IsEnabled() || MpiInterface::GetSize() < 2 ||
        smallestCutDelay <= TimeStep(1))
    {
        return;
    }
    BoundMpiLookAhead(smallestCutDelay - TimeStep(1));
}

void
Distributed::Abort(int status)
{
    if (MpiInterface::IsEnabled())
    {
        MPI_Abort(MpiInterface::GetCommunicator(), status);
    }
    std::exit(status);
}

#else // no MPI in this build: one process

void
Distributed::PostNotice(uint32_t rank, Time, uint64_t, uint32_t, uint64_t)
{
    throw std::logic_error("a notice to rank " + std::to_string(rank) +
                           " in a build without MPI (one process, no other rank)");
}

void
Distributed::Enable(int*, char***, bool)
{
    throw InputError("this build of astra-sim has no MPI: distributed runs need the module built "
                     "in an ns-3 tree configured with --enable-mpi (doc/distributed.rst); "
                     "run without --mpi for a single-process run");
}

bool
Distributed::IsEnabled()
{
    return false;
}

uint32_t
Distributed::GetRank()
{
    return 0;
}

uint32_t
Distributed::GetSize()
{
    return 1;
}

void
Distributed::Disable()
{
}

std::vector<std::string>
Distributed::Gather(const std::string& mine)
{
    return {mine};
}

uint64_t
Distributed::AllReduceSum(uint64_t v)
{
    return v;
}

uint64_t
Distributed::AllReduceMax(uint64_t v)
{
    return v;
}

void
Distributed::Barrier()
{
}

void
Distributed::BoundLookAhead(Time)
{
}

void
Distributed::Abort(int status)
{
    std::exit(status);
}

#endif

} // namespace astra
} // namespace ns3
