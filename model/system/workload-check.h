/*
 * The workloads of a run checked as a whole, before it starts: what no single
 * trace file can tell (a SEND nobody receives, a collective one member never
 * issues, a group name no group has) and what would otherwise end in a hang,
 * an overflow or a meaningless "finished" (doc/configuration.rst, "Workload
 * checks before the run").
 */

#ifndef ASTRA_WORKLOAD_CHECK_H
#define ASTRA_WORKLOAD_CHECK_H

#include "ns3/workload-graph.h"

#include <memory>
#include <vector>

namespace ns3
{
namespace astra
{

class SystemContext;

/**
 * \ingroup astra-sim
 * Check the communicator groups the traces declare (METADATA nodes,
 * GlobalMetadata attributes): members within the NPU count and listed once,
 * and one member list per name across the traces and the communicator-group
 * file.
 * \param graphs one graph per NPU (index = rank)
 * \param ctx the system context (its groups: the communicator-group file)
 * \throw WorkloadError naming the files and the group
 */
void CheckTraceGroups(const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs,
                      const SystemContext& ctx);

/**
 * \ingroup astra-sim
 * Check every NPU's graph against the topology, the system parameters and the
 * other NPUs' graphs. Per node: an INVALID node, a collective without a size
 * (comm_size missing or 0, except BARRIER), involved_dim longer than the
 * topology, a group name that names no group or a group the NPU is not in, a
 * SEND or RECV to a negative, its own or a missing rank, sizes above
 * limits::kMaxMessageBytes and compute times above limits::kMaxTimeNs after
 * scaling. Across NPUs: every SEND has its RECV (same source, destination and
 * tag) of the same size and every RECV its SEND; every member of a group
 * issues each named collective of that group the same number of times (a rank
 * without nodes or a truncated trace is named as such). Custom-collective
 * traces: one per member of the groups they serve, SEND / RECV / COMP nodes
 * only, peers within the traces, every SEND received.
 * \param graphs one graph per NPU (index = rank)
 * \param ctx the system context (dimensions, parameters, groups)
 * \throw WorkloadError naming the file, the node and the cause (the first
 *        problem found, with the number found in all)
 */
void CheckWorkloads(const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs,
                    const SystemContext& ctx);

} // namespace astra
} // namespace ns3

#endif /* ASTRA_WORKLOAD_CHECK_H */
