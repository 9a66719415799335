/*
 * Closed forms of collectives on a topology's dimensions, the yardsticks the
 * examples and the tests hold the simulated times against.
 */

#ifndef ASTRA_COLLECTIVE_CLOSED_FORM_H
#define ASTRA_COLLECTIVE_CLOSED_FORM_H

#include "ns3/topology.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Closed form of a hierarchical ring all-reduce (the localBWAware
 * multi-dimensional collective, one chunk): dimensions ordered by
 * bandwidth, highest first; reduce-scatter on the first, all-reduce of the
 * 1/n0 shard on the next, ..., all-gather back on the first. A ring phase
 * over n NPUs takes 2 (n - 1) steps (reduce-scatter + all-gather) that move
 * S_d / n each at the dimension's bandwidth B_d; a step ends when its
 * message is acknowledged, so it also costs the data's and the ACK's path
 * latency (h hops of L_d each way; h = 2 on a Switch, 1 otherwise) and one
 * frame of store-and-forward per switch on the path:
 * T = sum_d 2 (n_d - 1) [S_d / n_d x overhead / B_d + 2 h L_d + (h - 1) F / B_d],
 * with S_0 = S and S_{d+1} = S_d / n_d. Endpoint delays, reduction cost
 * and congestion-control dynamics are not included.
 * \param dims the dimensions (bandwidth GB/s with GB = 2^30, latency ns)
 * \param bytes all-reduce size S per NPU
 * \param overhead wire bytes / payload bytes (1 for a fluid network)
 * \param frameBytes wire bytes F of a full frame (0: fluid, no store-and-forward)
 * \return the time in ns
 */
double HierarchicalAllReduceNs(const std::vector<DimensionSpec>& dims,
                               uint64_t bytes,
                               double overhead = 1.0,
                               uint32_t frameBytes = 0);

} // namespace astra
} // namespace ns3

#endif /* ASTRA_COLLECTIVE_CLOSED_FORM_H */
