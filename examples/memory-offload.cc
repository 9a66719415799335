/*
 * memory-offload: a ZeRO-Infinity-style training step (OffloadStepWorkload:
 * a stack of GPT layers, mixed-precision Adam's 16 bytes of state per
 * parameter offloaded per data-parallel rank) on disaggregated memory nodes
 * of a two-tier Clos, PER_NODE (a memory node on each leaf, shared by the
 * leaf's NPUs) against MEMORY_POOL (pool nodes behind the spines). The
 * workload is written with the module's ET writer and read back. For each
 * placement it runs the step with the memory traffic on the network (its own
 * traffic class on RoCE) and, with --baseline=1, again with the memory traffic
 * on a private copy of the network (the same memory nodes, devices and
 * routes, flow-level, sharing no link with the collectives), and prints:
 * iteration time,
 * exposed memory time, the collectives' slowdown caused by the memory
 * traffic, and the memory nodes' link utilisation. It writes the reports of
 * every run, memory-utilisation-<placement>.csv and memory-utilisation.png
 * (gnuplot: every memory node's link utilisation over time).
 *
 *   ./memory-offload                                  # 64 NPUs, RoCE, both placements
 *   ./memory-offload --placements=pool --baseline=0   # the benchmark run
 *   ./memory-offload --backend=flow --layers=24 --hidden=1024
 *   ./memory-offload --pools=8 --pool-attach=memory-leaf --memory-bw=100
 */

#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-sim-scenario.h"
#include "ns3/core-module.h"
#include "ns3/et-writer.h"
#include "ns3/memory-offload-helper.h"
#include "ns3/memory-report.h"
#include "ns3/workload-loader.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// One run's figures.
struct Result
{
    std::string placement;                 //!< per-node or pool
    uint32_t memNodes{0};                  //!< memory nodes
    int64_t iterationNs{0};                //!< largest finish
    double exposedMemoryNs{0};             //!< mean over NPUs
    double slowdown{0};                    //!< collective slowdown (0: no baseline)
    double meanLinkUtil{0};                //!< mean over memory nodes, over the run
    double peakLinkUtil{0};                //!< highest sample
    double p99Ns{0};                       //!< highest per-node request latency p99
    uint64_t bytes{0};                     //!< memory bytes moved
    std::vector<CollectiveRecord> records; //!< collectives
    double wall{0};                        //!< wall seconds
    uint64_t events{0};                    //!< simulator events
};

/// The command line's settings.
struct Settings
{
    uint32_t npus{64};
    uint32_t npusPerNode{8};
    uint32_t spines{8};
    double linkGbps{400};
    double latencyNs{500};
    double memoryBw{50};
    double memoryLatencyNs{1000};
    uint32_t pools{4};
    std::string poolAttach{"spine"};
    uint64_t messageSize{1048576};
    uint32_t outstanding{8};
    std::string backend{"roce"};
    double sampleUs{10};
    std::string outDir{"memory-offload-out"};
};

/// Run one placement; \p network false: the memory off the network (analytical).
Result
RunOne(const Settings& s,
       const std::string& placement,
       bool network,
       const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs)
{
    auto topo =
        std::make_shared<Topology>(Topology::FromDimensions({ClosDimension(s.npus,
                                                                           s.npusPerNode,
                                                                           s.spines,
                                                                           GbpsToGBps(s.linkGbps),
                                                                           s.latencyNs,
                                                                           GbpsToGBps(s.linkGbps),
                                                                           s.latencyNs)}));
    RemoteMemoryConfig c;
    c.file = "--placements=" + placement;
    c.remoteMemBw = s.memoryBw;
    c.remoteMemLatency = s.memoryLatencyNs;
    c.messageSize = s.messageSize;
    c.outstandingRequests = s.outstanding;
    if (placement == "per-node")
    {
        c.memoryType = MemoryType::PER_NODE_MEMORY_EXPANSION;
        c.numNpusPerNode = s.npusPerNode;
        c.numNodes = s.npus / s.npusPerNode;
    }
    else
    {
        c.memoryType = MemoryType::MEMORY_POOL;
        c.poolCount = s.pools;
        c.memoryAttach = s.poolAttach;
    }
    AstraSimScenario sc;
    sc.GetMonitor()->SetAttribute("ProgressInterval", DoubleValue(0));
    sc.SetTopology(topo);
    SystemParams p;
    sc.SetSystemParams(p);
    sc.SetWorkloads(graphs);
    sc.SetBackend(s.backend);
    sc.SetRngStreams(1);
    sc.SetRemoteMemory(c);
    sc.GetMemoryNodes().SetModelAttribute("SampleInterval",
                                          TimeValue(NanoSeconds(int64_t(s.sampleUs * 1e3))));
    // the baseline: the same memory nodes on a private copy of the network
    sc.GetMemoryNodes().SetIsolatedNetwork(!network);
    sc.Build();
    const int rc = sc.Run();
    sc.PrintStatus(std::cerr);
    if (rc != 0)
    {
        throw std::runtime_error(placement + ": the run did not complete (status " +
                                 std::to_string(rc) + ")");
    }
    Result r;
    r.placement = placement;
    r.wall = sc.GetWallSeconds();
    r.events = Simulator::GetEventCount();
    double mem = 0;
    for (const auto& a : sc.GetApps())
    {
        r.iterationNs = std::max(r.iterationNs, a->GetStats().finish.GetNanoSeconds());
        mem += double(a->GetStats().memory.GetNanoSeconds());
    }
    r.exposedMemoryNs = mem / double(sc.GetApps().size());
    r.records = sc.GetContext()->GetRecords();
    const std::string dir = s.outDir + "/" + placement + (network ? "" : "-memory-off-the-network");
    sc.WriteReports(dir);
    Ptr<FabricMemoryModel> m = sc.GetFabricMemory();
    if (m && network)
    {
        const MemoryReport rep(m);
        const auto rows = rep.GetRows();
        r.memNodes = uint32_t(rows.size());
        for (const auto& row : rows)
        {
            r.meanLinkUtil += row.linkUtil / double(rows.size());
            r.peakLinkUtil = std::max(r.peakLinkUtil, row.peakLinkUtil);
            r.p99Ns = std::max(r.p99Ns, row.p99Ns);
            r.bytes += row.bytesRead + row.bytesWritten;
        }
        rep.WriteUtilisationCsv(s.outDir + "/memory-utilisation-" + placement + ".csv");
        std::cout << "--- " << placement << ": " << r.events << " events, " << std::setprecision(2)
                  << std::fixed << r.wall << " s\n";
        rep.Print(std::cout);
    }
    sc.Destroy();
    return r;
}

/// gnuplot: one panel per placement, a line per memory node. \return a note for the user
std::string
Plot(const Settings& s, const std::vector<Result>& results)
{
    std::ofstream gp(s.outDir + "/memory-utilisation.gp");
    gp << "set terminal pngcairo size 900," << 300 * results.size() << " font ',10'\n"
       << "set output 'memory-utilisation.png'\n"
       << "set datafile separator ','\n"
       << "set multiplot layout " << results.size() << ",1\n"
       << "set xlabel 'time (ms)'\nset ylabel 'link utilisation (%)'\n"
       << "set yrange [0:105]\nset key outside right top\n";
    for (const Result& r : results)
    {
        gp << "set title '" << r.placement << ": " << r.memNodes
           << " memory nodes (busier direction of each node link, sampled every " << s.sampleUs
           << " us)'\n";
        gp << "plot for [i=2:" << r.memNodes + 1 << "] 'memory-utilisation-" << r.placement
           << ".csv' using ($1/1000):(100*column(i)) with lines title columnhead(i)\n";
    }
    gp << "unset multiplot\n";
    gp.close();
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    {
        return "gnuplot not found: run 'gnuplot memory-utilisation.gp' in " + s.outDir;
    }
    const std::string cmd = "cd '" + s.outDir + "' && gnuplot memory-utilisation.gp";
    if (std::system(cmd.c_str()) != 0)
    {
        return "gnuplot failed on " + s.outDir + "/memory-utilisation.gp";
    }
    return "wrote " + s.outDir + "/memory-utilisation.png";
}

int
Run(int argc, char* argv[])
{
    Settings s;
    OffloadStepWorkload w;
    std::string placements = "per-node,pool";
    bool baseline = true;
    bool plots = true;
    uint32_t mtu = 4096;
    GlobalValue::Bind("SchedulerType", StringValue("ns3::astra::BucketScheduler"));
    AstraCommandLine cmd(__FILE__);
    cmd.AddValue("npus", "data-parallel ranks (NPUs)", s.npus);
    cmd.AddValue("npus-per-node", "NPUs per leaf (and per PER_NODE memory node)", s.npusPerNode);
    cmd.AddValue("spines", "spine switches", s.spines);
    cmd.AddValue("link-gbps", "link rate (Gbit/s), NPU and spine links", s.linkGbps);
    cmd.AddValue("latency", "link latency (ns)", s.latencyNs);
    cmd.AddValue("layers", "GPT layers", w.layers);
    cmd.AddValue("hidden", "hidden size (12 h^2 + 13 h parameters per layer)", w.hidden);
    cmd.AddValue("tokens", "tokens per rank and step (micro-batch x sequence)", w.tokens);
    cmd.AddValue("tflops", "sustained NPU throughput (TFLOP/s)", w.tflops);
    cmd.AddValue("memory-bw", "bandwidth of each memory node (GB/s, 1e9 B)", s.memoryBw);
    cmd.AddValue("memory-latency", "memory access latency (ns)", s.memoryLatencyNs);
    cmd.AddValue("pools", "MEMORY_POOL nodes", s.pools);
    cmd.AddValue("pool-attach", "where pools attach: spine, memory-leaf or leaf", s.poolAttach);
    cmd.AddValue("message-size", "bytes per RDMA READ / WRITE", s.messageSize);
    cmd.AddValue("outstanding", "memory messages in flight per NPU", s.outstanding);
    cmd.AddValue("mtu", "RDMA payload bytes per packet (RdmaHostStack::Mtu)", mtu);
    cmd.AddValue("placements", "comma-separated: per-node, pool", placements);
    cmd.AddValue("backend", "roce or flow", s.backend);
    cmd.AddValue("baseline",
                 "also run each placement with the memory traffic on a private copy of the "
                 "network, for the collective slowdown",
                 baseline);
    cmd.AddValue("sample-us", "memory link utilisation sampling interval (us)", s.sampleUs);
    cmd.AddValue("outDir", "output folder", s.outDir);
    cmd.AddValue("plots", "write the gnuplot script and run gnuplot", plots);
    cmd.Parse(argc, argv);
    SetDefaultFromOption("ns3::RdmaHostStack::Mtu",
                         UintegerValue(mtu),
                         "--mtu=" + std::to_string(mtu));
    if (s.backend != "roce" && s.backend != "flow")
    {
        throw InputError("--backend=" + s.backend +
                         ": expected roce or flow (the memory nodes "
                         "need a network)");
    }
    if (!(s.sampleUs > 0) || !std::isfinite(s.sampleUs))
    {
        throw InputError("--sample-us must be > 0");
    }
    if (s.npusPerNode == 0 || s.npus % s.npusPerNode != 0)
    {
        throw InputError("--npus=" + std::to_string(s.npus) +
                         " must be a multiple of "
                         "--npus-per-node=" +
                         std::to_string(s.npusPerNode));
    }
    std::vector<std::string> which;
    {
        std::stringstream ss(placements);
        std::string x;
        while (std::getline(ss, x, ','))
        {
            if (x != "per-node" && x != "pool")
            {
                throw InputError("--placements: '" + x + "' is not per-node or pool" +
                                 DidYouMean(x, {"per-node", "pool"}));
            }
            which.push_back(x);
        }
    }
    if (which.empty())
    {
        throw InputError("--placements is empty (per-node, pool)");
    }
    w.ranks = s.npus;
    mkdir(s.outDir.c_str(), 0755);
    // the step's traces, written with the module's ET writer and read back
    const std::string prefix = s.outDir + "/offload-step";
    WriteChakraPrefix(w.Build(), prefix);
    std::vector<std::shared_ptr<const WorkloadGraph>> graphs;
    for (auto& g : LoadWorkload(prefix, s.npus))
    {
        graphs.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
    }
    std::cout << "offload step: " << w.layers << " layers of " << w.LayerParams() << " parameters, "
              << s.npus << " data-parallel ranks (" << w.ShardParams()
              << " parameters per layer and rank); per rank " << w.ReadBytesPerRank()
              << " bytes loaded, " << w.WriteBytesPerRank() << " stored; traces " << prefix
              << ".<rank>.et\n";

    std::vector<Result> results;
    for (const std::string& pl : which)
    {
        Result r = RunOne(s, pl, true, graphs);
        if (baseline)
        {
            const Result off = RunOne(s, pl, false, graphs);
            r.slowdown = MemoryReport::CollectiveSlowdown(r.records, off.records);
        }
        results.push_back(r);
    }
    std::cout << "\n"
              << std::left << std::setw(10) << "placement" << std::right << std::setw(8) << "nodes"
              << std::setw(16) << "iteration (us)" << std::setw(20) << "exposed mem (us)"
              << std::setw(14) << "coll. slowdn" << std::setw(16) << "mem link util"
              << std::setw(11) << "peak" << std::setw(14) << "p99 req (us)" << std::setw(10)
              << "wall (s)"
              << "\n";
    for (const Result& r : results)
    {
        std::cout << std::left << std::setw(10) << r.placement << std::right << std::setw(8)
                  << r.memNodes << std::setw(16) << std::fixed << std::setprecision(1)
                  << r.iterationNs / 1e3 << std::setw(20) << r.exposedMemoryNs / 1e3
                  << std::setw(14) << std::setprecision(3)
                  << (r.slowdown > 0 ? std::to_string(r.slowdown).substr(0, 5) : "-")
                  << std::setw(15) << std::setprecision(1) << 100 * r.meanLinkUtil << "%"
                  << std::setw(10) << 100 * r.peakLinkUtil << "%" << std::setw(14) << r.p99Ns / 1e3
                  << std::setw(10) << std::setprecision(2) << r.wall << "\n";
    }
    if (plots)
    {
        std::cout << Plot(s, results) << "\n";
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    std::cout << "peak RSS " << ru.ru_maxrss / 1024 << " MiB\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunMain(&Run, argc, argv);
}
