/*
 * Shared helpers of the system-layer test suites (header only, included by
 * test/system-*-test-suite.cc).
 */

#ifndef ASTRA_SYSTEM_TEST_UTIL_H
#define ASTRA_SYSTEM_TEST_UTIL_H

#include "ns3/astra-paths.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/boolean.h"
#include "ns3/chakra-reader.h"
#include "ns3/config.h"
#include "ns3/simulator.h"
#include "ns3/topology.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
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

/// A run with its traced message and collective-end sequences.
struct Observed
{
    AstraRunResult res;
    std::string messages; //!< every MessageSent, in order, with its time
    std::string ends;     //!< every CollectiveEnd, in order, with its time
};

/// MessageSent sink: one line per message
inline void
OnSent(std::ostringstream* os, const NetMessage& m)
{
    *os << Simulator::Now().GetNanoSeconds() << ' ' << m.src << '>' << m.dst << ' ' << m.tag << ' '
        << m.bytes << '\n';
}

/// CollectiveEnd sink: one line per NPU and collective
inline void
OnEnd(std::ostringstream* os, uint32_t npu, uint32_t coll)
{
    *os << Simulator::Now().GetNanoSeconds() << ' ' << npu << ' ' << coll << '\n';
}

/**
 * Run a workload with EventBatching = \p batched and FixedTimeShortcuts =
 * \p shortcuts, tracing every message and collective end; \p hook (if set)
 * runs after the scenario's own trace connections.
 */
inline Observed
RunObserved(bool batched,
            std::shared_ptr<const Topology> topo,
            const SystemParams& p,
            const Graphs& gs,
            const std::string& backend = "analytical",
            bool shortcuts = true,
            const std::map<std::string, std::vector<uint32_t>>& groups = {},
            std::function<void(Ptr<SystemContext>)> hook = nullptr)
{
    Config::SetDefault("ns3::astra::SystemContext::EventBatching", BooleanValue(batched));
    Config::SetDefault("ns3::astra::SystemContext::FixedTimeShortcuts", BooleanValue(shortcuts));
    std::ostringstream msgs;
    std::ostringstream ends;
    AstraRunOptions o;
    o.backend = backend;
    o.commGroups = groups;
    o.hook = [&](Ptr<SystemContext> ctx, const std::vector<Ptr<AstraSimApplication>>&) {
        ctx->TraceConnectWithoutContext("MessageSent", MakeBoundCallback(&OnSent, &msgs));
        for (uint32_t i = 0; i < ctx->GetNpuCount(); ++i)
        {
            ctx->GetSystem(i)->TraceConnectWithoutContext("CollectiveEnd",
                                                          MakeBoundCallback(&OnEnd, &ends));
        }
        if (hook)
        {
            hook(ctx);
        }
    };
    Observed ob;
    ob.res = AstraSimHelper::Run(topo, p, gs, o);
    Config::SetDefault("ns3::astra::SystemContext::EventBatching", BooleanValue(true));
    Config::SetDefault("ns3::astra::SystemContext::FixedTimeShortcuts", BooleanValue(true));
    ob.messages = msgs.str();
    ob.ends = ends.str();
    return ob;
}

/// \return the lines of \p s sorted (a multiset of traced events, order aside)
inline std::string
SortedLines(const std::string& s)
{
    std::vector<std::string> v;
    std::istringstream is(s);
    for (std::string l; std::getline(is, l);)
    {
        v.push_back(l);
    }
    std::sort(v.begin(), v.end());
    std::string out;
    for (const auto& l : v)
    {
        out += l + "\n";
    }
    return out;
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
