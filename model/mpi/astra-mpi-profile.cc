/*
 * Hooks into ns-3's granted-time-window engine through MPI's profiling interface (these
 * definitions take the place of the MPI library's; the PMPI_ names reach the library's
 * own). Compiled only with ns-3's mpi module.
 *
 * Every granted-time window of ns-3's DistributedSimulatorImpl ends the same way on every
 * rank: GrantedTimeWindowMpiInterface::ReceiveMessages (whose first MPI call is
 * MPI_Testany), then the rank's next event time is read, then an MPI_Allgather of the
 * ranks' next event times and message counts.
 * - The first MPI_Testany of a window exchanges the RDMA frames the ranks batched for each
 *   other during the window (RdmaRemoteChannel::ExchangeFrames): they are scheduled before
 *   the rank reads its next event time, as ns-3's own messages are.
 * - MPI_Allgather adds its wall time and the exchange's to
 *   astra::Distributed::GetSyncSeconds (one synchronisation per window).
 */

#include "rdma-remote-channel.h"

#include "ns3/astra-distributed.h"

#include <chrono>
#include <mpi.h>

namespace
{
bool g_exchanged = false;     //!< this window's frames were exchanged
double g_exchangeSeconds = 0; //!< wall time of this window's exchange
} // namespace

extern "C" int
MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status)
{
    if (!g_exchanged)
    {
        g_exchanged = true;
        const auto t0 = std::chrono::steady_clock::now();
        ns3::RdmaRemoteChannel::ExchangeFrames();
        g_exchangeSeconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return PMPI_Testany(count, requests, index, flag, status);
}

extern "C" int
MPI_Allgather(const void* sendbuf,
              int sendcount,
              MPI_Datatype sendtype,
              void* recvbuf,
              int recvcount,
              MPI_Datatype recvtype,
              MPI_Comm comm)
{
    const auto t0 = std::chrono::steady_clock::now();
    const int r = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    ns3::astra::Distributed::AddSync(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() +
        g_exchangeSeconds);
    g_exchangeSeconds = 0;
    g_exchanged = false;
    return r;
}
