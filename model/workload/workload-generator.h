/*
 * Generated workloads: the one generator of "every NPU runs one collective"
 * graphs used by the helper, the examples, the benchmarks and the tests.
 */

#ifndef ASTRA_WORKLOAD_GENERATOR_H
#define ASTRA_WORKLOAD_GENERATOR_H

#include "ns3/workload-graph.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * One collective on a communicator group: what MakeCollectiveWorkload() generates.
 */
struct CollectiveWorkload
{
    CollType type{CollType::ALL_REDUCE}; //!< the collective
    uint64_t bytes{0};                   //!< size per NPU (comm_size)
    /// communicator group (the node's pg_name; "" = all NPUs)
    std::string group;
    /// the group's NPUs, which run the collective; the others get an empty graph
    /// (empty: every NPU runs it)
    std::vector<uint32_t> members;
    /// node name ("": "<TYPE> <bytes> B", e.g. "ALL_REDUCE 1048576 B")
    std::string name;
};

/**
 * \ingroup astra-sim
 * A generated workload: every member NPU runs one collective (a single
 * COMM_COLL node, id 1, spanning all dimensions).
 * \param npus number of NPUs (graphs)
 * \param c the collective
 * \return one graph per NPU, index = rank (file "generated")
 * \throw WorkloadError when a member is out of range or listed twice
 */
std::vector<std::shared_ptr<const WorkloadGraph>> MakeCollectiveWorkload(
    uint32_t npus,
    const CollectiveWorkload& c);

/**
 * \ingroup astra-sim
 * MakeCollectiveWorkload() on every NPU.
 * \param npus number of NPUs
 * \param type the collective
 * \param bytes size per NPU
 * \param group communicator group ("" = all NPUs; a named group must contain every NPU)
 * \return one graph per NPU
 */
std::vector<std::shared_ptr<const WorkloadGraph>> MakeCollectiveWorkload(
    uint32_t npus,
    CollType type,
    uint64_t bytes,
    const std::string& group = "");

} // namespace astra
} // namespace ns3

#endif /* ASTRA_WORKLOAD_GENERATOR_H */
