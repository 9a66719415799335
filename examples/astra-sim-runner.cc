/*
 * astra-sim-runner: ASTRA-sim 2.0's command line on ns-3.
 *
 *   astra-sim-runner --workload-configuration=PREFIX --system-configuration=sys.json \
 *       --network-configuration=net.yml [--remote-memory-configuration=mem.json] \
 *       [--comm-group-configuration=groups.json] [--backend=analytical|flow|roce] [--compat=1]
 *       [--roce-config=roce.json|roce.yaml|config.txt] [--ns3::RdmaNetDevice::DataRate=...]
 *
 * With --backend=roce the topology is built as a real RoCEv2 fabric
 * (AstraFabricHelper: NPU nodes with one NIC per dimension link, switches,
 * PFC, ECN, DCQCN) and messages run as RDMA WRITEs on persistent QPs.
 *
 * Prints ASTRA-sim's `sys[i] finished, ...` line per NPU, a summary with a
 * per-collective table, and writes npus.csv, collectives.csv and
 * timeline.json into --output-dir (default: --logging-folder).
 * Exit status: 0 ok, 1 input error, 2 simulation did not complete (deadlock).
 */

#include "ns3/astra-fabric-helper.h"
#include "ns3/astra-paths.h"
#include "ns3/astra-report.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/chakra-reader.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-backend.h"
#include "ns3/topology.h"
#include "ns3/workload-loader.h"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sys/resource.h>
#include <sys/stat.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

struct Progress
{
    std::chrono::steady_clock::time_point start;
    std::chrono::steady_clock::time_point last;
    uint64_t lastEvents{0};
    uint64_t lastTickEvents{0};
    uint32_t idleTicks{0};
    Time interval{MicroSeconds(10)};
    double everySec{5};
    const std::vector<Ptr<AstraSimApplication>>* apps{nullptr};
};

Progress g_progress;

void
ProgressTick()
{
    auto now = std::chrono::steady_clock::now();
    double sinceLast = std::chrono::duration<double>(now - g_progress.last).count();
    uint64_t ev = Simulator::GetEventCount();
    // events other than this tick since the previous tick?
    bool active = ev > g_progress.lastTickEvents + 1;
    g_progress.lastTickEvents = ev;
    g_progress.idleTicks = active ? 0 : g_progress.idleTicks + 1;
    if (sinceLast >= g_progress.everySec)
    {
        uint32_t fin = 0;
        for (const auto& a : *g_progress.apps)
        {
            fin += a->IsFinished() ? 1 : 0;
        }
        double total = std::chrono::duration<double>(now - g_progress.start).count();
        std::cerr << "[progress] wall " << std::fixed << std::setprecision(1) << total
                  << " s, simulated " << Simulator::Now().GetNanoSeconds() << " ns, finished NPUs "
                  << fin << "/" << g_progress.apps->size() << ", " << std::setprecision(0)
                  << (ev - g_progress.lastEvents) / std::max(1e-9, sinceLast) << " events/s"
                  << std::endl;
        g_progress.last = now;
        g_progress.lastEvents = ev;
        g_progress.interval = g_progress.interval / 2 + NanoSeconds(1);
    }
    else if (!active || sinceLast < g_progress.everySec / 20)
    {
        g_progress.interval = g_progress.interval * 2;
    }
    bool all = true;
    for (const auto& a : *g_progress.apps)
    {
        all = all && a->IsFinished();
    }
    // all NPUs done: stop (packet backends may still hold timers, e.g. DCQCN rate recovery)
    if (all)
    {
        Simulator::Stop();
        return;
    }
    // stop ticking when nothing else has happened for a while (deadlock)
    if (g_progress.idleTicks < 16)
    {
        Simulator::Schedule(g_progress.interval, &ProgressTick);
    }
}

bool
EndsWith(const std::string& s, const std::string& suf)
{
    return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string workload;
    std::string system;
    std::string network;
    std::string remoteMemory;
    std::string commGroups = "empty";
    std::string loggingFolder = "log";
    std::string outputDir;
    std::string backendKind = "analytical";
    uint32_t queuesPerDim = 1;
    double computeScale = 1;
    double commScale = 1;
    double injectionScale = 1;
    bool rendezvous = false;
    bool compat = false;
    bool dropDangling = false;
    bool hwLimits = false;
    bool summary = true;
    double progressSec = 5;
    uint32_t textPasses = 1;
    std::string roceConfig;

    // --roce-config is applied before CommandLine::Parse so that --ns3::... values win
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        const std::string key = "--roce-config=";
        if (a.compare(0, key.size(), key) == 0)
        {
            roceConfig = a.substr(key.size());
            try
            {
                RoceBackend::ApplyConfigFile(roceConfig);
            }
            catch (const std::exception& e)
            {
                std::cerr << "error: " << e.what() << std::endl;
                return 1;
            }
        }
    }

    // a binary heap in a vector: fewer instructions and cache misses than the default
    // MapScheduler with many pending events; event order (time, then insertion) is the
    // same for every scheduler (override: --SchedulerType=...)
    GlobalValue::Bind("SchedulerType", StringValue("ns3::PriorityQueueScheduler"));
    CommandLine cmd(__FILE__);
    cmd.AddValue("workload-configuration",
                 "Chakra prefix (PREFIX.<rank>.et) or a .txt text workload",
                 workload);
    cmd.AddValue("system-configuration", "system configuration JSON", system);
    cmd.AddValue("network-configuration", "network configuration YAML/JSON", network);
    cmd.AddValue("remote-memory-configuration", "remote memory JSON", remoteMemory);
    cmd.AddValue("comm-group-configuration", "communicator groups JSON (or 'empty')", commGroups);
    cmd.AddValue("logging-folder", "folder for logs and (by default) reports", loggingFolder);
    cmd.AddValue("output-dir", "folder for the report files (default: logging folder)", outputDir);
    cmd.AddValue("num-queues-per-dim", "queues per dimension", queuesPerDim);
    cmd.AddValue("compute-scale", "multiplies compute times", computeScale);
    cmd.AddValue("comm-scale", "multiplies communication sizes", commScale);
    cmd.AddValue("injection-scale", "multiplies the endpoint delay", injectionScale);
    cmd.AddValue("rendezvous-protocol", "rendezvous protocol (accepted, no effect)", rendezvous);
    cmd.AddValue("backend", "network backend: analytical, flow or roce", backendKind);
    cmd.AddValue("roce-config",
                 "RoCE parameters (JSON/YAML attribute file or HPCC/SimAI config.txt)",
                 roceConfig);
    cmd.AddValue("compat", "ASTRA-sim 2.0 compatible timing (1) or the default model (0)", compat);
    cmd.AddValue("drop-dangling-ctrl-deps",
                 "ignore control deps naming absent nodes",
                 dropDangling);
    cmd.AddValue("reference-hw-limits",
                 "one COMP and one communication node at a time (ASTRA-sim's feeder)",
                 hwLimits);
    cmd.AddValue("text-passes", "training passes unrolled from a .txt workload", textPasses);
    cmd.AddValue("summary", "print the summary table", summary);
    cmd.AddValue("progress-seconds", "wall seconds between progress lines", progressSec);
    cmd.Parse(argc, argv);

    if (workload.empty() || system.empty() || network.empty())
    {
        std::cerr << "error: --workload-configuration, --system-configuration and "
                     "--network-configuration are required\n";
        return 1;
    }

    Ptr<SystemContext> ctx;
    std::vector<Ptr<AstraSimApplication>> apps;
    NodeContainer nodes;
    AstraFabricHelper fabric;
    try
    {
        auto topo = std::make_shared<Topology>(Topology::FromFile(network));
        const uint32_t npus = topo->GetNpuCount();
        SystemParams params =
            AstraSimHelper::LoadSystemParams(system, GetReferenceDir() + "/astra-sim");
        params.compat = compat;
        params.queuesPerDim = queuesPerDim;
        params.computeScale = computeScale;
        params.commScale = commScale;
        params.injectionScale = injectionScale;
        params.rendezvous = rendezvous;

        std::vector<std::shared_ptr<const WorkloadGraph>> graphs;
        WorkloadLoadOptions lopts;
        lopts.chakra.dropDanglingCtrlDeps = dropDangling;
        lopts.text.numPasses = textPasses;
        for (auto& g : LoadWorkload(workload, npus, lopts))
        {
            graphs.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
        }

        Ptr<NetworkBackend> backend;
        if (backendKind == "roce")
        {
            fabric.Install(topo);
            Ptr<RoceBackend> roce = CreateObject<RoceBackend>();
            roce->SetFabric(topo, fabric.GetNpus());
            backend = roce;
            nodes = fabric.GetNpus();
        }
        else
        {
            backend = AstraSimHelper::CreateBackend(backendKind, topo, compat);
            nodes.Create(npus);
        }
        ctx = CreateObject<SystemContext>();
        ctx->Setup(backend, topo->GetDimensions(), params);
        ctx->SetCommGroups(AstraSimHelper::LoadCommGroups(commGroups));

        AstraSimHelper helper;
        helper.SetContext(ctx);
        helper.SetWorkloads(graphs);
        helper.SetAttribute("DropDanglingCtrlDeps", BooleanValue(dropDangling));
        helper.SetAttribute("ReferenceHwLimits", BooleanValue(hwLimits));
        if (!remoteMemory.empty())
        {
            helper.SetMemoryModel(AnalyticalRemoteMemory::FromFile(remoteMemory));
        }
        ApplicationContainer ac = helper.Install(nodes);
        for (uint32_t i = 0; i < ac.GetN(); ++i)
        {
            apps.push_back(DynamicCast<AstraSimApplication>(ac.Get(i)));
        }
        ac.Start(Seconds(0));
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }

    auto wall0 = std::chrono::steady_clock::now();
    g_progress.start = g_progress.last = wall0;
    g_progress.apps = &apps;
    g_progress.everySec = progressSec;
    Simulator::Schedule(g_progress.interval, &ProgressTick);
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    int rc = 0;
    for (const auto& a : apps)
    {
        if (!a->GetError().empty())
        {
            std::cerr << "error: NPU " << a->GetNpuId() << ": " << a->GetError() << std::endl;
            rc = 1;
        }
    }
    AstraReport report(ctx, apps);
    report.PrintNpuLines(std::cout);
    std::vector<uint32_t> unfinished;
    for (const auto& a : apps)
    {
        if (!a->IsFinished())
        {
            unfinished.push_back(a->GetNpuId());
        }
    }
    if (rc == 0 && !unfinished.empty())
    {
        std::cerr << "error: simulation ran out of events with " << unfinished.size() << " of "
                  << apps.size()
                  << " NPU(s) unfinished (deadlock: unmatched SEND/RECV or collective):\n";
        for (size_t i = 0; i < unfinished.size() && i < 32; ++i)
        {
            std::cerr << apps[unfinished[i]]->DescribePending();
        }
        if (unfinished.size() > 32)
        {
            std::cerr << "  ... and " << unfinished.size() - 32 << " more NPUs\n";
        }
        rc = 2;
    }
    if (summary)
    {
        report.PrintSummary(std::cout);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        std::cout << "wall " << std::fixed << std::setprecision(3) << wall << " s, events "
                  << Simulator::GetEventCount() << ", messages " << ctx->GetMessagesSent()
                  << ", peak RSS " << ru.ru_maxrss / 1024 << " MiB\n";
    }
    std::string dir = outputDir.empty() ? loggingFolder : outputDir;
    if (!dir.empty())
    {
        mkdir(dir.c_str(), 0755);
        try
        {
            report.WriteNpuCsv(dir + "/npus.csv");
            report.WriteCollectiveCsv(dir + "/collectives.csv");
            report.WriteChromeTrace(dir + "/timeline.json");
        }
        catch (const std::exception& e)
        {
            std::cerr << "error: " << e.what() << std::endl;
            rc = rc ? rc : 1;
        }
    }
    Simulator::Destroy();
    return rc;
}
