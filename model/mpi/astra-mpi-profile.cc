/*
 * Synchronisation wait of a distributed run, through MPI's profiling interface: ns-3's
 * DistributedSimulatorImpl ends every granted-time window in an MPI_Allgather of the ranks'
 * next event times and message counts. This definition takes the place of the MPI
 * library's (the PMPI_ name reaches the library's own) and adds the call's wall time to
 * astra::Distributed::GetSyncSeconds. Compiled only with ns-3's mpi module.
 */

#include "ns3/astra-distributed.h"
#include "ns3/node-order.h"

#include <chrono>
#include <mpi.h>

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
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return r;
}

/*
 * Node event order (ns3/node-order.h): ns-3's MPI receive code (ReceiveMessages of the
 * granted-time-window interface) polls its receives with MPI_Testany and schedules one
 * event per completed receive right after it. That event is marked to run first in its
 * time stamp; it re-schedules the frame under the tie-break its sender reserved.
 */
extern "C" int
MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status)
{
    const int r = PMPI_Testany(count, requests, index, flag, status);
    if (r == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
    {
        if (ns3::astra::NodeOrderScheduler* s = ns3::astra::NodeOrderScheduler::GetActive())
        {
            s->NoteMpiReceive();
        }
    }
    return r;
}
