/*
 * Shared helpers of the system-layer test suites (header only, included by
 * test/system-*-test-suite.cc).
 */

#ifndef ASTRA_SYSTEM_TEST_UTIL_H
#define ASTRA_SYSTEM_TEST_UTIL_H

#include "ns3/astra-paths.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/chakra-reader.h"
#include "ns3/topology.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{
namespace systest
{

using Graphs = std::vector<std::shared_ptr<const WorkloadGraph>>;

/// 1-D topology of n NPUs, 50 GB/s, 500 ns unless given
inline std::shared_ptr<const Topology>
Topo1D(DimType t, uint32_t n, double gbps = 50, double lat = 500)
{
    return std::make_shared<Topology>(Topology::FromDimensions({DimensionSpec{t, n, gbps, lat}}));
}

/// Topology from dimensions
inline std::shared_ptr<const Topology>
TopoDims(const std::vector<DimensionSpec>& dims)
{
    return std::make_shared<Topology>(Topology::FromDimensions(dims));
}

/// One COMM_COLL node per NPU (the module's generator)
inline Graphs
CollGraphs(uint32_t n, CollType t, uint64_t bytes, const std::string& group = "")
{
    return MakeCollectiveWorkload(n, t, bytes, group);
}

/// Read a reference Chakra prefix (relative to the reference dir)
inline Graphs
RefGraphs(const std::string& rel, uint32_t n)
{
    Graphs gs;
    for (auto& g : ReadChakraPrefix(GetReferenceDir() + "/" + rel, n))
    {
        gs.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
    }
    return gs;
}

/// Parameters: ring everywhere, S splits, A active chunks, d endpoint delay, local-mem-bw
inline SystemParams
Params(uint32_t splits, uint32_t active, double d, double lmbw, bool compat)
{
    SystemParams p;
    p.splits = splits;
    p.activeChunks = active;
    p.endpointDelayNs = d;
    p.localMemBwGBps = lmbw;
    p.compat = compat;
    return p;
}

/// Set one algorithm for every collective type
inline void
SetAlgo(SystemParams& p, const std::string& name)
{
    AlgoSpec s = AlgoSpec::Parse(name);
    p.allReduce = {s};
    p.allGather = {s};
    p.reduceScatter = {s};
    p.allToAll = {s};
}

/// true if every NPU finished at exactly `ns`
inline bool
AllFinishAt(const AstraRunResult& r, int64_t ns)
{
    for (int64_t f : r.finishNs)
    {
        if (f != ns)
        {
            return false;
        }
    }
    return !r.finishNs.empty();
}

/// network bytes per ns for ASTRA-sim GB/s
inline double
Bpns(double gbps)
{
    return gbps * 1073741824.0 / 1e9;
}

} // namespace systest
} // namespace astra
} // namespace ns3

#endif
