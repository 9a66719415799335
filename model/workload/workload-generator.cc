/*
 * Generated workloads (workload-generator.h).
 */

#include "workload-generator.h"

namespace ns3
{
namespace astra
{

std::vector<std::shared_ptr<const WorkloadGraph>>
MakeCollectiveWorkload(uint32_t npus, const CollectiveWorkload& c)
{
    std::vector<bool> runs(npus, c.members.empty());
    for (uint32_t m : c.members)
    {
        if (m >= npus || runs[m])
        {
            throw WorkloadError("generated collective on group '" + c.group + "': member NPU " +
                                std::to_string(m) +
                                (m >= npus ? " out of range (" + std::to_string(npus) + " NPUs)"
                                           : std::string(" listed twice")));
        }
        runs[m] = true;
    }
    const std::string name =
        c.name.empty() ? std::string(CollTypeName(c.type)) + " " + std::to_string(c.bytes) + " B"
                       : c.name;
    std::vector<std::shared_ptr<const WorkloadGraph>> graphs;
    graphs.reserve(npus);
    for (uint32_t i = 0; i < npus; ++i)
    {
        auto g = std::make_shared<WorkloadGraph>();
        g->file = "generated";
        g->rank = i;
        if (runs[i])
        {
            WorkloadNode n;
            n.id = 1;
            n.name = name;
            n.kind = NodeKind::COMM_COLL;
            n.collType = c.type;
            n.commSize = c.bytes;
            n.pgName = c.group;
            g->nodes.push_back(n);
        }
        g->BuildIndex();
        graphs.push_back(g);
    }
    return graphs;
}

std::vector<std::shared_ptr<const WorkloadGraph>>
MakeCollectiveWorkload(uint32_t npus, CollType type, uint64_t bytes, const std::string& group)
{
    CollectiveWorkload c;
    c.type = type;
    c.bytes = bytes;
    c.group = group;
    return MakeCollectiveWorkload(npus, c);
}

} // namespace astra
} // namespace ns3
