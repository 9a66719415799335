/*
 * Shared helpers of the memory-node test suites (header only, included by
 * test/memory-*-test-suite.cc).
 */

#ifndef ASTRA_MEMORY_TEST_UTIL_H
#define ASTRA_MEMORY_TEST_UTIL_H

#include "astra-test-programs.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-paths.h"
#include "ns3/astra-sim-scenario.h"
#include "ns3/double.h"
#include "ns3/memory-report.h"
#include "ns3/simulator.h"
#include "ns3/topology.h"

#include <functional>
#include <glob.h>
#include <memory>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ns3
{
namespace astra
{
namespace memtest
{

using Graphs = std::vector<std::shared_ptr<const WorkloadGraph>>;

/// One MEM node per NPU: NPU r loads (or stores) bytes[r] (no node when 0).
inline Graphs
MemGraphs(const std::vector<uint64_t>& bytes, bool store)
{
    Graphs gs;
    for (uint32_t r = 0; r < bytes.size(); ++r)
    {
        auto g = std::make_shared<WorkloadGraph>();
        g->rank = r;
        g->file = "memtest." + std::to_string(r);
        if (bytes[r] > 0)
        {
            WorkloadNode n;
            n.id = 1;
            n.name = store ? "store" : "load";
            n.kind = store ? NodeKind::MEM_STORE : NodeKind::MEM_LOAD;
            n.tensorSize = bytes[r];
            g->nodes.push_back(n);
        }
        g->BuildIndex();
        gs.push_back(g);
    }
    return gs;
}

/// An expansion type's configuration: bandwidth (GB/s, 1e9 B), latency (ns).
inline RemoteMemoryConfig
MemConfig(MemoryType t, double bwGBps, double latNs)
{
    RemoteMemoryConfig c;
    c.file = "memtest.json";
    c.memoryType = t;
    c.remoteMemBw = bwGBps;
    c.remoteMemLatency = latNs;
    c.keys = {"memory-type", "remote-mem-bw", "remote-mem-latency"};
    return c;
}

/// What a run left behind.
struct MemRun
{
    int status{-1};                        //!< AstraSimScenario::Run's status
    std::vector<int64_t> finish;           //!< per NPU finish (ns; -1 unfinished)
    std::vector<int64_t> memoryNs;         //!< per NPU exposed memory time
    std::vector<MemoryReport::Row> rows;   //!< memory nodes
    std::vector<CollectiveRecord> records; //!< collectives
    std::string error;                     //!< first NPU error
    uint64_t messages{0};                  //!< memory messages completed
};

/**
 * Build and run a scenario; \p configure runs before Build, \p built after
 * it, \p inspect after Run (before Destroy).
 */
inline MemRun
RunMem(std::shared_ptr<const Topology> topo,
       const Graphs& graphs,
       const std::string& backend,
       const RemoteMemoryConfig* mem,
       const SystemParams& params = SystemParams{},
       std::function<void(AstraSimScenario&)> configure = nullptr,
       std::function<void(AstraSimScenario&)> inspect = nullptr,
       std::function<void(AstraSimScenario&)> built = nullptr)
{
    MemRun r;
    AstraSimScenario sc;
    sc.GetMonitor()->SetAttribute("ProgressInterval", DoubleValue(0));
    sc.SetTopology(topo);
    sc.SetSystemParams(params);
    sc.SetWorkloads(graphs);
    sc.SetBackend(backend);
    sc.SetRngStreams(1);
    if (mem)
    {
        sc.SetRemoteMemory(*mem);
    }
    if (configure)
    {
        configure(sc);
    }
    sc.Build();
    if (built)
    {
        built(sc);
    }
    r.status = sc.Run();
    for (const auto& a : sc.GetApps())
    {
        r.finish.push_back(a->IsFinished() ? a->GetStats().finish.GetNanoSeconds() : -1);
        r.memoryNs.push_back(a->GetStats().memory.GetNanoSeconds());
        if (r.error.empty())
        {
            r.error = a->GetError();
        }
    }
    r.records = sc.GetContext()->GetRecords();
    if (sc.GetFabricMemory())
    {
        r.rows = MemoryReport(sc.GetFabricMemory()).GetRows();
        r.messages = sc.GetFabricMemory()->GetMessages();
    }
    if (inspect)
    {
        inspect(sc);
    }
    sc.Destroy();
    return r;
}

/// Largest finish time of a run (ns).
inline int64_t
MaxFinish(const MemRun& r)
{
    int64_t m = -1;
    for (int64_t f : r.finish)
    {
        m = std::max(m, f);
    }
    return m;
}

using testutil::FindProgram;

/// Run a command line; \return the exit status \param out its output
inline int
Shell(const std::string& command, std::string& out)
{
    return testutil::RunCommand(command, out);
}

} // namespace memtest
} // namespace astra
} // namespace ns3

#endif /* ASTRA_MEMORY_TEST_UTIL_H */
