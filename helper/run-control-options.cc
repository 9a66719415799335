#include "run-control-options.h"

#include "astra-sim-scenario.h"

#include "ns3/astra-command-line.h"
#include "ns3/astra-distributed.h"
#include "ns3/astra-huge-pages.h"
#include "ns3/double.h"
#include "ns3/node-order.h"
#include "ns3/nstime.h"

namespace ns3
{
namespace astra
{

void
RunControlOptions::AddTo(AstraCommandLine& cmd)
{
    cmd.AddValue("progress-seconds",
                 "wall seconds between progress lines (0: none)",
                 m_progressSec,
                 OptionRange::Closed(0, 1e9, "s"));
    cmd.AddValue("hang-ns",
                 "simulated ns without progress after which the run is reported hung",
                 m_hangNs,
                 OptionRange::Closed(1, 1e15, "ns"));
    cmd.AddValue("rng-stream",
                 "RoCE: first random stream of the switches' ECN draws (>= 0: the draws of a "
                 "switch do not depend on what else was created, in one process or on any "
                 "number of MPI ranks; -1: ns-3's automatic numbering, single process only)",
                 m_rngStream,
                 OptionRange::Closed(-1, 1e15));
    cmd.AddValue("mpi",
                 "distributed run on ns-3's MPI engine (under mpirun -np N, one system id per "
                 "rank dealt out by --partition; roce backend; needs the module built in an "
                 "ns-3 tree with --enable-mpi)",
                 m_mpi);
    cmd.AddValue("huge-pages",
                 "back the heap with transparent huge pages once the simulation is built "
                 "(Linux; same results, faster on large fabrics; not in sanitizer builds)",
                 m_hugePages);
    cmd.AddValue("event-order",
                 "order of same-time events: node (by the node that created them, then its own "
                 "count: the same results on any number of MPI ranks), window (node order's "
                 "results, run by groups of nodes one look-ahead window at a time: faster on "
                 "large fabrics; one process; needs collective-gate-latency-ns of at least the "
                 "longest link delay) or fifo (ns-3's order, by scheduling)",
                 m_eventOrder);
}

void
RunControlOptions::Start(int* argc, char*** argv)
{
    if (m_mpi)
    {
        Distributed::Enable(argc, argv); // input error if the build has no MPI
    }
    EventOrder::Select(m_eventOrder, Distributed::GetSize() > 1);
}

void
RunControlOptions::Configure(AstraSimScenario& sc) const
{
    SetAttributeFromOption(*sc.GetMonitor(),
                           "ProgressInterval",
                           DoubleValue(m_progressSec),
                           "--progress-seconds=" + std::to_string(m_progressSec));
    SetAttributeFromOption(*sc.GetMonitor(),
                           "HangTimeout",
                           TimeValue(NanoSeconds(m_hangNs)),
                           "--hang-ns=" + std::to_string(m_hangNs));
    sc.SetRngStreams(m_rngStream);
}

void
RunControlOptions::Built() const
{
    if (m_hugePages)
    {
        // the built heap in 2 MiB pages: fewer TLB misses per packet on large fabrics;
        // addresses and results unchanged (doc/benchmarks-roce.rst)
        CollapseBuiltHeap();
    }
}

} // namespace astra
} // namespace ns3
