/*
 * training-on-roce: a training workload (Chakra traces) on the packet-level
 * RoCEv2 fabric. The default runs the STG GPT dp2-tp2-pp2 trace (8 NPUs) on a
 * two-dimensional topology: dimension 0 a scale-up Switch of 2 NPUs at high
 * bandwidth, dimension 1 a scale-out Switch of 4 NPUs at 400 Gbps, with PFC,
 * ECN and DCQCN.
 *
 *   ./training-on-roce [--workload-configuration=PREFIX] [--system-configuration=sys.json]
 *       [--network-configuration=net.yml] [--comm-group-configuration=groups.json]
 *       [--roce-config=roce.json] [--output-dir=DIR] [--ns3::RdmaHostStack::Mtu=4096] ...
 *
 * Prints ASTRA-sim's per-NPU lines, a per-collective table (bytes, time,
 * algbw, busbw) and the fabric's PFC / ECN / CNP / drop counts; writes
 * npus.csv, collectives.csv, timeline.json, fct.txt, pfc.txt and queue.txt
 * into the output directory. Every RoCE parameter is an ns-3 attribute: set
 * it with --ns3::Type::Attribute=value or in the --roce-config file (applied
 * first, so the command line wins).
 */

#include "ns3/astra-fabric-helper.h"
#include "ns3/astra-paths.h"
#include "ns3/astra-report.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/chakra-reader.h"
#include "ns3/config.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-trace-writers.h"
#include "ns3/roce-backend.h"
#include "ns3/topology.h"
#include "ns3/workload-loader.h"

#include <chrono>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sys/stat.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

uint32_t g_finished = 0;
uint32_t g_npus = 0;

/// Deadlock watchdog: the queue sampler and CC timers keep the event list alive, so a
/// workload that cannot progress (unmatched SEND/RECV) would otherwise run to --max-sim-ms.
struct Watchdog
{
    const std::vector<Ptr<AstraSimApplication>>* apps{nullptr};
    Ptr<RoceBackend> backend;
    Time interval{MilliSeconds(1)};
    int64_t runningComp{0}; //!< COMP / MEM nodes in progress
    uint64_t progress{0};   //!< node starts + ends so far
    uint64_t lastProgress{~uint64_t(0)};
    bool deadlock{false};
};

Watchdog g_wd;

void
OnNodeStart(uint32_t npu, uint64_t id)
{
    ++g_wd.progress;
    const WorkloadNode* n = (*g_wd.apps)[npu]->GetGraph()->Find(id);
    if (n && n->kind != NodeKind::COMM_COLL && n->kind != NodeKind::COMM_SEND &&
        n->kind != NodeKind::COMM_RECV)
    {
        ++g_wd.runningComp;
    }
}

void
OnNodeEnd(uint32_t npu, uint64_t id)
{
    ++g_wd.progress;
    const WorkloadNode* n = (*g_wd.apps)[npu]->GetGraph()->Find(id);
    if (n && n->kind != NodeKind::COMM_COLL && n->kind != NodeKind::COMM_SEND &&
        n->kind != NodeKind::COMM_RECV)
    {
        --g_wd.runningComp;
    }
}

void
WatchdogTick()
{
    if (g_wd.progress == g_wd.lastProgress && g_wd.runningComp == 0 &&
        g_wd.backend->GetPendingMessages() == 0)
    {
        g_wd.deadlock = true;
        Simulator::Stop();
        return;
    }
    g_wd.lastProgress = g_wd.progress;
    Simulator::Schedule(g_wd.interval, &WatchdogTick);
}

void
OnFinished(uint32_t npu, Time t)
{
    if (++g_finished == g_npus)
    {
        // DCQCN timers would keep the event list alive: stop at the last NPU's finish
        Simulator::Stop();
    }
}

/// Apply --roce-config=FILE before CommandLine::Parse so that --ns3::... wins.
void
PreApplyRoceConfig(int argc, char* argv[])
{
    const char* key = "--roce-config=";
    for (int i = 1; i < argc; ++i)
    {
        if (std::strncmp(argv[i], key, std::strlen(key)) == 0)
        {
            std::string path = argv[i] + std::strlen(key);
            uint32_t n = RoceBackend::ApplyConfigFile(path);
            std::cout << "roce-config: " << n << " attribute defaults from " << path << "\n";
        }
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    const std::string ref = GetReferenceDir();
    std::string workload = ref + "/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2";
    std::string commGroups = ref + "/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2.json";
    std::string system;
    std::string network;
    std::string roceConfig;
    std::string outputDir = "training-on-roce-out";
    uint32_t scaleUpNpus = 2;
    double scaleUpGBps = 100.0; // GB/s (2^30), ~859 Gbps
    double scaleUpLatency = 250.0;
    double scaleOutGbps = 400.0; // Gbit/s (1e9)
    double scaleOutLatency = 1000.0;
    double peakPerf = 900.0;  // TFLOPS
    double localMemBw = 3350; // GB/s
    double commScale = 1.0;
    double computeScale = 1.0;
    uint32_t splits = 4;
    uint32_t activeChunks = 1;
    std::string partition = "dim0-line";
    uint32_t systems = 1;
    bool pcap = false;
    uint32_t textPasses = 1;
    bool dropDangling = false;
    bool hwLimits = false;
    std::string remoteMemory;
    uint64_t queueSampleNs = 1000;
    double maxSimMs = 10000;

    try
    {
        // defaults of this scenario (overridable by the file and the command line)
        Config::SetDefault("ns3::RdmaHostStack::Mtu", UintegerValue(4096));
        // lossless (PFC) classes: data (priority 3) and ACK/CNP (7) only, so that the
        // headroom of fast, long links (e.g. HGX's 400 GB/s, 936 ns) fits the buffer
        Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", UintegerValue(0x88));
        PreApplyRoceConfig(argc, argv);
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }

    CommandLine cmd(__FILE__);
    cmd.AddValue("workload-configuration",
                 "Chakra prefix (PREFIX.<rank>.et) or a .txt text workload",
                 workload);
    cmd.AddValue("comm-group-configuration", "communicator groups JSON (or 'empty')", commGroups);
    cmd.AddValue("system-configuration",
                 "ASTRA-sim system JSON (default: ring per dim, localBWAware, roofline)",
                 system);
    cmd.AddValue("network-configuration",
                 "ASTRA-sim network YAML (default: Switch x Switch built from --scale-*)",
                 network);
    cmd.AddValue("roce-config",
                 "JSON/YAML file of ns-3 attribute defaults (applied before --ns3::...)",
                 roceConfig);
    cmd.AddValue("output-dir", "folder for the report files", outputDir);
    cmd.AddValue("scale-up-npus", "NPUs per scale-up switch (dimension 0)", scaleUpNpus);
    cmd.AddValue("scale-up-GBps", "scale-up link bandwidth (GB/s, GB = 2^30)", scaleUpGBps);
    cmd.AddValue("scale-up-latency", "scale-up link latency (ns)", scaleUpLatency);
    cmd.AddValue("scale-out-Gbps", "scale-out link rate (Gbit/s)", scaleOutGbps);
    cmd.AddValue("scale-out-latency", "scale-out link latency (ns)", scaleOutLatency);
    cmd.AddValue("peak-perf", "roofline peak (TFLOPS), when no system file", peakPerf);
    cmd.AddValue("local-mem-bw", "local memory bandwidth (GB/s), when no system file", localMemBw);
    cmd.AddValue("splits", "preferred-dataset-splits, when no system file", splits);
    cmd.AddValue("active-chunks", "active-chunks-per-dimension, when no system file", activeChunks);
    cmd.AddValue("comm-scale", "multiplies communication sizes", commScale);
    cmd.AddValue("compute-scale", "multiplies compute times", computeScale);
    cmd.AddValue("partition",
                 "system-id partition: none, round-robin, block, dim0-line",
                 partition);
    cmd.AddValue("systems", "number of ns-3 system ids (logical processes)", systems);
    cmd.AddValue("queue-sample-ns", "queue sampling interval (ns)", queueSampleNs);
    cmd.AddValue("remote-memory-configuration", "remote memory JSON", remoteMemory);
    cmd.AddValue("drop-dangling-ctrl-deps",
                 "ignore control deps naming absent nodes",
                 dropDangling);
    cmd.AddValue("reference-hw-limits",
                 "one COMP and one communication node at a time (ASTRA-sim's feeder)",
                 hwLimits);
    cmd.AddValue("text-passes", "training passes unrolled from a .txt workload", textPasses);
    cmd.AddValue("pcap", "write pcap files of every NIC and switch port", pcap);
    cmd.AddValue("max-sim-ms", "stop the simulation at this time (ms) if not finished", maxSimMs);
    cmd.Parse(argc, argv);

    std::vector<Ptr<AstraSimApplication>> apps;
    Ptr<SystemContext> ctx;
    Ptr<RoceBackend> backend;
    AstraFabricHelper fabric;
    std::shared_ptr<Topology> topo;
    try
    {
        if (network.empty())
        {
            NS_ABORT_MSG_IF(scaleUpNpus == 0 || 8 % scaleUpNpus != 0,
                            "--scale-up-npus must divide 8 for the default workload");
            DimensionSpec up{DimType::SWITCH, scaleUpNpus, scaleUpGBps, scaleUpLatency};
            DimensionSpec out{DimType::SWITCH,
                              8 / scaleUpNpus,
                              scaleOutGbps * 1e9 / 8.0 / 1073741824.0,
                              scaleOutLatency};
            std::vector<DimensionSpec> dims{up};
            if (out.npus > 1)
            {
                dims.push_back(out);
            }
            topo = std::make_shared<Topology>(Topology::FromDimensions(dims));
            topo->source = "built-in Switch x Switch";
        }
        else
        {
            topo = std::make_shared<Topology>(Topology::FromFile(network));
        }
        const uint32_t npus = topo->GetNpuCount();
        g_npus = npus;

        SystemParams params;
        if (!system.empty())
        {
            params = AstraSimHelper::LoadSystemParams(system, ref + "/astra-sim");
        }
        else
        {
            params.optimization = CollOptimization::LOCAL_BW_AWARE;
            params.splits = splits;
            params.activeChunks = activeChunks;
            params.endpointDelayNs = 10;
            params.localMemBwGBps = localMemBw;
            params.peakPerfTflops = peakPerf;
            params.rooflineEnabled = true;
        }
        params.commScale = commScale;
        params.computeScale = computeScale;

        std::vector<std::shared_ptr<const WorkloadGraph>> graphs;
        // as astra-sim-runner: Chakra prefix or ASTRA-sim 1.0 text workload
        WorkloadLoadOptions lopts;
        lopts.text.numPasses = textPasses;
        lopts.chakra.dropDanglingCtrlDeps = dropDangling;
        for (auto& g : LoadWorkload(workload, npus, lopts))
        {
            graphs.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
        }

        // the fabric: real nodes, NICs, switches and links from the topology
        fabric.SetPartition(partition, systems);
        fabric.Install(topo);
        backend = CreateObject<RoceBackend>();
        backend->SetFabric(topo, fabric.GetNpus());

        // the system layer, exactly as astra-sim-runner drives it
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
        ApplicationContainer ac = helper.Install(fabric.GetNpus());
        for (uint32_t i = 0; i < ac.GetN(); ++i)
        {
            apps.push_back(DynamicCast<AstraSimApplication>(ac.Get(i)));
            apps.back()->TraceConnectWithoutContext("Finished", MakeCallback(&OnFinished));
            apps.back()->TraceConnectWithoutContext("NodeStart", MakeCallback(&OnNodeStart));
            apps.back()->TraceConnectWithoutContext("NodeEnd", MakeCallback(&OnNodeEnd));
        }
        ac.Start(Seconds(0));
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }

    mkdir(outputDir.c_str(), 0755);
    NodeContainer all = fabric.GetAllNodes();
    NodeContainer forwarding; // switches and NPUs that relay transit traffic
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        if (all.Get(i)->GetObject<RdmaSwitch>())
        {
            forwarding.Add(all.Get(i));
        }
    }
    // the fabric team's writers: FCT (receiver completions), PFC events, sampled queues
    RdmaFctWriter fct(outputDir + "/fct.txt");
    fct.Install(fabric.GetNpus());
    RdmaPfcWriter pfc(outputDir + "/pfc.txt");
    pfc.Install(forwarding);
    RdmaQueueSampler queues(outputDir + "/queue.txt", NanoSeconds(queueSampleNs));
    queues.Install(forwarding, Seconds(0), MilliSeconds(maxSimMs));
    if (pcap)
    {
        fabric.GetRdmaHelper().EnablePcap(outputDir + "/roce", all);
    }

    std::cout << "training-on-roce: " << topo->GetNpuCount() << " NPUs, "
              << fabric.GetSwitches().GetN() << " switches, " << topo->GetLinks().size()
              << " links (" << topo->source << ")\n";
    for (uint32_t d = 0; d < topo->GetDimensionCount(); ++d)
    {
        const auto& s = topo->GetDimensions()[d];
        std::cout << "  dim " << d << ": " << DimTypeName(s.type) << " x" << s.npus << ", "
                  << std::fixed << std::setprecision(1) << s.bandwidthGBps * 1073741824.0 * 8 / 1e9
                  << " Gbps, " << s.latencyNs << " ns\n";
    }

    g_wd.apps = &apps;
    g_wd.backend = backend;
    Simulator::Schedule(g_wd.interval, &WatchdogTick);
    auto wall0 = std::chrono::steady_clock::now();
    Simulator::Stop(MilliSeconds(maxSimMs));
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
    for (const auto& a : apps)
    {
        if (!a->IsFinished() && rc == 0)
        {
            std::cerr << "error: NPU " << a->GetNpuId() << " unfinished at "
                      << Simulator::Now().GetNanoSeconds() << " ns"
                      << (g_wd.deadlock ? " (deadlock: no message in flight, no compute, no "
                                          "progress for 1 ms)"
                                        : "")
                      << "\n"
                      << a->DescribePending();
            rc = 2;
        }
    }
    report.PrintSummary(std::cout);

    fct.Close();
    pfc.Close();
    queues.Close();
    RdmaRunSummary sum = RdmaRunSummary::Collect(fabric.GetNpus(), fabric.GetSwitches(), &fct);
    // NPUs relaying transit traffic (switch-less or cross-dimension paths): their forwarders'
    // counters (their ports were counted as host ports above)
    for (uint32_t i = 0; i < fabric.GetNpus().GetN(); ++i)
    {
        if (Ptr<RdmaSwitch> fwd = fabric.GetNpus().Get(i)->GetObject<RdmaSwitch>())
        {
            sum.drops += fwd->GetDrops();
            sum.losslessDrops += fwd->GetLosslessDrops();
            sum.ecnMarks += fwd->GetEcnMarks();
            sum.pauseFrames += fwd->GetPausesSent();
            for (uint32_t p = 0; p < fwd->GetNPorts(); ++p)
            {
                sum.maxQueueBytes = std::max(sum.maxQueueBytes, fwd->GetMaxQueueBytes(p));
            }
        }
    }
    std::cout << "fabric: PFC pause frames " << sum.pauseFrames << " (paused "
              << sum.totalPauseTime.GetMicroSeconds() << " us in total), ECN marks " << sum.ecnMarks
              << ", CNPs " << sum.cnps << ", drops " << sum.drops << " (lossless "
              << sum.losslessDrops << "), NAKs " << sum.naks << ", timeouts " << sum.timeouts
              << ", retransmitted packets " << sum.retxPkts << ", peak queue " << sum.maxQueueBytes
              << " B\n";
    std::cout << "FCT slowdown p50 " << std::setprecision(2) << sum.slowdownP50 << ", p95 "
              << sum.slowdownP95 << ", p99 " << sum.slowdownP99 << " over " << sum.messages
              << " messages\n";
    const uint64_t losslessDrops = sum.losslessDrops;
    std::cout << "roce backend: " << backend->GetDeliveredMessages() << " messages, "
              << backend->GetDeliveredBytes() << " bytes delivered, " << backend->GetQpCount()
              << " QPs; wall " << std::fixed << std::setprecision(2) << wall << " s, events "
              << Simulator::GetEventCount() << "\n";
    if (losslessDrops > 0)
    {
        std::cerr << "error: " << losslessDrops
                  << " lossless drops: PFC headroom is misconfigured\n";
        rc = rc ? rc : 3;
    }
    try
    {
        report.WriteNpuCsv(outputDir + "/npus.csv");
        report.WriteCollectiveCsv(outputDir + "/collectives.csv");
        report.WriteChromeTrace(outputDir + "/timeline.json");
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        rc = rc ? rc : 1;
    }
    std::cout << "reports in " << outputDir
              << "/: npus.csv collectives.csv timeline.json fct.txt pfc.txt queue.txt\n";
    g_wd.backend = nullptr;
    Simulator::Destroy();
    return rc;
}
