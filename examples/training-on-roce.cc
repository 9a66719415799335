/*
 * training-on-roce: a training workload (Chakra traces) on the packet-level
 * RoCEv2 fabric. The default runs the STG GPT dp2-tp2-pp2 trace (8 NPUs) on a
 * two-dimensional topology: dimension 0 a scale-up Switch of 2 NPUs at high
 * bandwidth, dimension 1 a scale-out two-tier Clos of 4 NPUs at 400 Gbps
 * (2 leaves of 2 hosts, 2 spines), with PFC, ECN and DCQCN.
 *
 *   ./training-on-roce [--workload-configuration=PREFIX] [--system-configuration=sys.json]
 *       [--network-configuration=net.yml] [--comm-group-configuration=groups.json]
 *       [--roce-config=roce.json] [--output-dir=DIR] [--ns3::RdmaHostStack::Mtu=4096] ...
 *
 * Prints ASTRA-sim's per-NPU lines, a per-collective table (bytes, time,
 * algbw, busbw) and the fabric's PFC / ECN / CNP / drop counts; writes
 * npus.csv, collectives.csv, timeline.json, fct.txt, pfc.txt, queue.txt and
 * rate.txt into the output directory (each trace file bounded by a size cap;
 * AstraFabricOutputs), and with --plots gnuplot PNGs of the busiest queues, the
 * per-QP rates and the collective timeline. Every RoCE parameter is an ns-3 attribute: set
 * it with --ns3::Type::Attribute=value or in the --roce-config file (applied
 * first, so the command line wins). With --mpi=1 under mpirun -np N (the module built
 * in an ns-3 tree with --enable-mpi) the fabric is dealt out to the ranks by
 * --partition, and rank 0 prints and writes everything, gathered from every rank
 * (doc/distributed.rst). The built-in system gates collectives with a latency of the
 * network's largest link latency (collective-gate-latency-ns, doc/system-model.rst), which
 * makes every partition's results those of one process.
 */

#include "ns3/astra-command-line.h"
#include "ns3/astra-config.h"
#include "ns3/astra-distributed.h"
#include "ns3/astra-input.h"
#include "ns3/astra-limits.h"
#include "ns3/astra-paths.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/config.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-trace-writers.h"
#include "ns3/roce-backend.h"
#include "ns3/run-control-options.h"
#include "ns3/topology.h"
#include "ns3/workload-loader.h"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <sys/stat.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// Apply --roce-config=FILE before CommandLine::Parse so that --ns3::... wins.
/// \return the line saying what was applied (printed by rank 0 once MPI is known)
std::string
PreApplyRoceConfig(int argc, char* argv[])
{
    std::string line;
    const char* key = "--roce-config=";
    for (int i = 1; i < argc; ++i)
    {
        if (std::strncmp(argv[i], key, std::strlen(key)) == 0)
        {
            std::string path = argv[i] + std::strlen(key);
            uint32_t n = RoceBackend::ApplyConfigFile(path);
            line += "roce-config: " + std::to_string(n) + " attribute defaults from " + path + "\n";
        }
    }
    return line;
}

} // namespace

namespace
{

/// The program (run by main through RunMain: bad input ends in a message and status 1).
int
Run(int argc, char* argv[])
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
    uint32_t hostsPerLeaf = 2; // scale-out Clos: NPUs per leaf switch
    uint32_t spines = 2;       // scale-out Clos: spine switches (0: one flat Switch)
    double peakPerf = 900.0;   // TFLOPS
    double localMemBw = 3350;  // GB/s
    double commScale = 1.0;
    double computeScale = 1.0;
    double gateLatency = 0; // ns; collective-gate-latency-ns
    uint32_t splits = 4;
    uint32_t activeChunks = 1;
    std::string partition = "dim0-line";
    uint32_t systems = 1;
    bool pcap = false;
    bool plots = false;
    uint32_t textPasses = 1;
    uint64_t maxTraceMib = limits::kMaxTraceFileBytes >> 20;
    bool dropDangling = false;
    bool hwLimits = false;
    std::string remoteMemory;
    uint64_t queueSampleNs = 1000;
    double maxSimMs = 10000;

    // defaults of this scenario (overridable by the file and the command line)
    Config::SetDefault("ns3::RdmaHostStack::Mtu", UintegerValue(4096));
    // lossless (PFC) classes: data (priority 3) and ACK/CNP (7) only, so that the
    // headroom of fast, long links (e.g. HGX's 400 GB/s, 936 ns) fits the buffer
    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", UintegerValue(0x88));
    const std::string roceConfigLine = PreApplyRoceConfig(argc, argv);

    // a calendar of time buckets (ns3::astra::BucketScheduler: ns-3's order, constant work
    // per event);
    // --event-order=node replaces it by its node-order variant
    GlobalValue::Bind("SchedulerType", StringValue("ns3::astra::BucketScheduler"));
    RunControlOptions run; // --progress-seconds, --hang-ns, --rng-stream, --mpi, --huge-pages,
                           // --event-order
    AstraCommandLine cmd(__FILE__);
    cmd.AddValue("workload-configuration",
                 "Chakra prefix (PREFIX.<rank>.et) or a .txt text workload",
                 workload);
    cmd.AddValue("comm-group-configuration", "communicator groups JSON (or 'empty')", commGroups);
    cmd.AddValue("system-configuration",
                 "ASTRA-sim system JSON (default: ring per dim, localBWAware, roofline)",
                 system);
    cmd.AddValue("network-configuration",
                 "ASTRA-sim network YAML (default: Switch x Clos built from --scale-*)",
                 network);
    cmd.AddValue("roce-config",
                 "JSON/YAML file of ns-3 attribute defaults (applied before --ns3::...)",
                 roceConfig);
    cmd.AddValue("output-dir", "folder for the report files", outputDir);
    cmd.AddValue("scale-up-npus",
                 "NPUs per scale-up switch (dimension 0)",
                 scaleUpNpus,
                 OptionRange::Closed(1, 8));
    cmd.AddValue("scale-up-GBps",
                 "scale-up link bandwidth (GB/s, GB = 2^30)",
                 scaleUpGBps,
                 OptionRange::Positive(limits::kMaxBandwidthGBps, "GB/s"));
    cmd.AddValue("scale-up-latency",
                 "scale-up link latency (ns)",
                 scaleUpLatency,
                 OptionRange::Closed(0, limits::kMaxTimeNs, "ns"));
    cmd.AddValue("scale-out-Gbps",
                 "scale-out link rate (Gbit/s)",
                 scaleOutGbps,
                 OptionRange::Positive(8e6, "Gbit/s"));
    cmd.AddValue("scale-out-latency",
                 "scale-out link latency (ns)",
                 scaleOutLatency,
                 OptionRange::Closed(0, limits::kMaxTimeNs, "ns"));
    cmd.AddValue("hosts-per-leaf",
                 "scale-out Clos: NPUs per leaf switch",
                 hostsPerLeaf,
                 OptionRange::Closed(1, limits::kMaxNpus));
    cmd.AddValue("spines",
                 "scale-out Clos: spines (0: a single Switch instead)",
                 spines,
                 OptionRange::Closed(0, limits::kMaxNpus));
    cmd.AddValue("peak-perf",
                 "roofline peak (TFLOPS), when no system file",
                 peakPerf,
                 OptionRange::Positive(limits::kMaxPeakPerfTflops, "TFLOPS"));
    cmd.AddValue("local-mem-bw",
                 "local memory bandwidth (GB/s), when no system file",
                 localMemBw,
                 OptionRange::Positive(limits::kMaxBandwidthGBps, "GB/s"));
    cmd.AddValue("splits",
                 "preferred-dataset-splits, when no system file",
                 splits,
                 OptionRange::Closed(1, limits::kMaxSplits));
    cmd.AddValue("active-chunks",
                 "active-chunks-per-dimension, when no system file",
                 activeChunks,
                 OptionRange::Closed(1, limits::kMaxActiveChunks));
    cmd.AddValue("comm-scale",
                 "multiplies communication sizes",
                 commScale,
                 OptionRange::Positive(1e6));
    cmd.AddValue("compute-scale",
                 "multiplies compute times",
                 computeScale,
                 OptionRange::Closed(0, 1e6));
    cmd.AddValue("gate-latency-ns",
                 "collective-gate-latency-ns: an issue's notice reaches the members' slot "
                 "gates this late (0: at once; a distributed run identical to one process "
                 "needs at least the smallest delay of a link crossing ranks). Default: the "
                 "network's largest link latency with the built-in system, the file's key "
                 "with --system-configuration",
                 gateLatency,
                 OptionRange::Closed(0, limits::kMaxTimeNs));
    cmd.AddValue("partition",
                 "system-id partition: none, round-robin, block, dim0-line, scale-up, leaf, pod",
                 partition);
    cmd.AddValue("systems",
                 "number of ns-3 system ids (logical processes)",
                 systems,
                 OptionRange::Closed(1, 1e6));
    cmd.AddValue("queue-sample-ns",
                 "queue sampling interval (ns)",
                 queueSampleNs,
                 OptionRange::Closed(1, 1e15, "ns"));
    cmd.AddValue("remote-memory-configuration", "remote memory JSON", remoteMemory);
    cmd.AddValue("drop-dangling-ctrl-deps",
                 "ignore control deps naming absent nodes",
                 dropDangling);
    cmd.AddValue("reference-hw-limits",
                 "one COMP and one communication node at a time (ASTRA-sim's feeder)",
                 hwLimits);
    cmd.AddValue("text-passes",
                 "training passes unrolled from a .txt workload",
                 textPasses,
                 OptionRange::Closed(1, limits::kMaxTextPasses));
    cmd.AddValue("max-trace-mib",
                 "largest Chakra trace file, and largest size a gzip trace may decompress to "
                 "(MiB)",
                 maxTraceMib,
                 OptionRange::Closed(1, 1 << 20, "MiB"));
    cmd.AddValue("pcap", "write pcap files of every NIC and switch port", pcap);
    cmd.AddValue("plots",
                 "gnuplot PNGs of the busiest queues, the per-QP rates and the collective "
                 "timeline into the output folder",
                 plots);
    cmd.AddValue("max-sim-ms",
                 "stop the simulation at this time (ms) if not finished",
                 maxSimMs,
                 OptionRange::Positive(1e9, "ms"));
    run.AddTo(cmd);
    cmd.Parse(argc, argv);
    run.Start(&argc, &argv); // MPI (input error without it), the event order
    if (run.IsMpi())
    {
        if (cmd.IsGiven("systems") && systems != Distributed::GetSize())
        {
            throw InputError("--systems=" + std::to_string(systems) + " with --mpi under " +
                             std::to_string(Distributed::GetSize()) +
                             " rank(s): a distributed run has one system id per rank (leave "
                             "--systems out)");
        }
        systems = Distributed::GetSize();
        if (pcap)
        {
            throw InputError("--pcap with --mpi: the pcap files are written per device by the "
                             "rank that simulates it and are not gathered to rank 0");
        }
    }
    const bool root = Distributed::GetRank() == 0;
    // rank 0 prints (every rank runs the same program)
    std::ostringstream nowhere;
    std::ostream& out = root ? std::cout : nowhere;
    out << roceConfigLine;
    // options that only shape the built-in defaults have no effect beside a file
    for (const char* o : {"peak-perf", "local-mem-bw", "splits", "active-chunks"})
    {
        if (!system.empty() && cmd.IsGiven(o))
        {
            throw InputError(std::string("--") + o +
                             " sets the default system and has no effect with "
                             "--system-configuration (set the key in that file)");
        }
    }
    for (const char* o : {"scale-up-npus",
                          "scale-up-GBps",
                          "scale-up-latency",
                          "scale-out-Gbps",
                          "scale-out-latency",
                          "hosts-per-leaf",
                          "spines"})
    {
        if (!network.empty() && cmd.IsGiven(o))
        {
            throw InputError(std::string("--") + o +
                             " shapes the default network and has no effect with "
                             "--network-configuration");
        }
    }

    AstraSimScenario::PrepareOutputDir(outputDir);

    AstraSimScenario sc;
    run.Configure(sc); // progress, hang timeout, random streams
    std::shared_ptr<Topology> topo;
    // an input error ends the program with its message and status 1 (RunMain)
    {
        if (network.empty())
        {
            if (scaleUpNpus == 0 || 8 % scaleUpNpus != 0)
            {
                throw InputError("--scale-up-npus=" + std::to_string(scaleUpNpus) +
                                 ": must divide 8 for the default workload");
            }
            DimensionSpec up{DimType::SWITCH, scaleUpNpus, scaleUpGBps, scaleUpLatency};
            const uint32_t outNpus = 8 / scaleUpNpus;
            const double outGBps = GbpsToGBps(scaleOutGbps);
            DimensionSpec out{DimType::SWITCH, outNpus, outGBps, scaleOutLatency};
            const bool clos = spines > 0 && hostsPerLeaf < outNpus;
            if (clos)
            {
                if (hostsPerLeaf == 0 || outNpus % hostsPerLeaf != 0)
                {
                    throw InputError("--hosts-per-leaf=" + std::to_string(hostsPerLeaf) +
                                     ": must divide the " + std::to_string(outNpus) +
                                     " scale-out NPUs");
                }
                out = ClosDimension(outNpus,
                                    hostsPerLeaf,
                                    spines,
                                    outGBps,
                                    scaleOutLatency,
                                    outGBps,
                                    scaleOutLatency);
            }
            std::vector<DimensionSpec> dims{up};
            if (out.npus > 1)
            {
                dims.push_back(out);
            }
            topo = std::make_shared<Topology>(Topology::FromDimensions(dims));
            topo->source = clos ? "built-in Switch x Clos" : "built-in Switch x Switch";
        }
        else
        {
            topo = std::make_shared<Topology>(Topology::FromFile(network));
        }
        const uint32_t npus = topo->GetNpuCount();

        SystemParams params;
        if (!system.empty())
        {
            params = LoadSystemParams(system, ref + "/astra-sim");
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
        if (cmd.IsGiven("gate-latency-ns"))
        {
            params.gateLatencyNs = gateLatency;
        }
        else if (system.empty())
        {
            // an NPU learns that its peers reached a collective no sooner than a link's
            // latency after they did; the largest link latency is also at least any cut's
            // smallest delay, so every partition of a distributed run gives the single
            // process's results
            for (const TopoLink& l : topo->GetLinks())
            {
                params.gateLatencyNs = std::max(params.gateLatencyNs, l.latencyNs);
            }
        }
        params.computeScale = computeScale;

        std::vector<std::shared_ptr<const WorkloadGraph>> graphs;
        // as astra-sim-runner: Chakra prefix or ASTRA-sim 1.0 text workload
        WorkloadLoadOptions lopts;
        lopts.text.numPasses = textPasses;
        lopts.chakra.dropDanglingCtrlDeps = dropDangling;
        lopts.chakra.maxFileBytes = maxTraceMib << 20;
        if (cmd.IsGiven("text-passes") && !IsTextWorkload(workload))
        {
            throw InputError("--text-passes=" + std::to_string(textPasses) +
                             " applies to a text workload (.txt); " + workload +
                             " is a Chakra prefix");
        }
        for (auto& g : LoadWorkload(workload, npus, lopts))
        {
            graphs.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
        }

        // one path for every example: fabric, RoCE backend, system layer, applications
        sc.SetTopology(topo);
        sc.SetSystemParams(params);
        sc.SetWorkloads(graphs);
        sc.SetCommGroups(LoadCommGroups(commGroups, npus));
        sc.SetBackend("roce");
        const std::vector<std::string> policies = AstraFabricHelper::GetPartitionPolicies();
        if (std::find(policies.begin(), policies.end(), partition) == policies.end())
        {
            std::string list;
            for (const auto& p : policies)
            {
                list += (list.empty() ? "" : ", ") + p;
            }
            throw InputError("--partition=" + partition + ": expected one of " + list +
                             DidYouMean(partition, policies));
        }
        if (systems == 0)
        {
            throw InputError("--systems=0: at least one system id");
        }
        sc.GetFabric().SetPartition(partition, systems);
        sc.SetDistributed(run.IsMpi());
        sc.SetAppAttribute("DropDanglingCtrlDeps", BooleanValue(dropDangling));
        sc.SetAppAttribute("ReferenceHwLimits", BooleanValue(hwLimits));
        if (!remoteMemory.empty())
        {
            // memory nodes on the fabric (RDMA READ / WRITE; doc/memory.rst)
            sc.SetRemoteMemory(ParseRemoteMemoryConfig(remoteMemory));
        }
        sc.Build();
    }

    AstraFabricHelper& fabric = sc.GetFabric();
    NodeContainer all = fabric.GetAllNodes();
    // the fabric's files: FCT, PFC events, sampled queues, per-QP rates (bounded)
    sc.EnableFabricOutputs(outputDir, NanoSeconds(queueSampleNs), MilliSeconds(maxSimMs));
    if (pcap)
    {
        fabric.GetRdmaHelper().EnablePcap(outputDir + "/roce", all);
    }

    out << "training-on-roce: " << topo->GetNpuCount() << " NPUs, " << fabric.GetSwitches().GetN()
        << " switches, " << topo->GetLinks().size() << " links (" << topo->source << ")\n";
    for (uint32_t d = 0; d < topo->GetDimensionCount(); ++d)
    {
        const auto& s = topo->GetDimensions()[d];
        out << "  dim " << d << ": " << DimTypeName(s.type) << " x" << s.npus << ", " << std::fixed
            << std::setprecision(1) << s.bandwidthGBps * 1073741824.0 * 8 / 1e9 << " Gbps, "
            << s.latencyNs << " ns\n";
    }

    sc.PrintFabricConfig(out);
    sc.WarnUnusedAttributes();

    run.Built(); // --huge-pages
    int rc = sc.Run(MilliSeconds(maxSimMs));
    // with --mpi: every rank's NPU results, collectives, trace lines and counters to rank 0
    sc.CloseFabricOutputs();
    if (!root)
    {
        sc.Destroy();
        Distributed::Disable();
        return rc;
    }
    sc.PrintStatus(std::cerr);
    sc.PrintNpuLines(std::cout);
    sc.PrintSummary(std::cout);
    sc.PrintFabricSummary(std::cout);
    if (run.IsMpi())
    {
        // on stderr: stdout and the report files are those of a single-process run
        std::cerr << sc.GetFabric().DescribePartition();
        const auto& ranks = sc.GetRankStats();
        for (size_t r = 0; r < ranks.size(); ++r)
        {
            std::cerr << "rank " << r << ": " << ranks[r] << "\n";
        }
    }
    try
    {
        sc.WriteReports(outputDir);
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        rc = rc ? rc : 1;
    }
    std::cout << "reports in " << outputDir
              << "/: npus.csv collectives.csv timeline.json fct.txt pfc.txt queue.txt rate.txt\n";
    if (plots)
    {
        std::string msg;
        sc.WritePlots(msg);
        std::cout << "plots: " << msg << "\n";
    }
    sc.Destroy();
    Distributed::Disable();
    return rc;
}

} // namespace

int
main(int argc, char* argv[])
{
    return ns3::astra::RunMain(&Run, argc, argv);
}
