/*
 * astra-sim-runner: ASTRA-sim 2.0's command line on ns-3.
 *
 *   astra-sim-runner --workload-configuration=PREFIX --system-configuration=sys.json \
 *       --network-configuration=net.yml [--remote-memory-configuration=mem.json] \
 *       [--comm-group-configuration=groups.json] [--backend=analytical|flow|roce] [--compat=1]
 *       [--roce-config=roce.json|roce.yaml|config.txt] [--ns3::RdmaNetDevice::DataRate=...]
 *       [--logical-topology-configuration=logical.json]
 *
 * The reference ns-3 backend's inputs are taken as its users bring them:
 * --network-configuration=config.txt (HPCC / SimAI keys) gives the RoCE
 * parameters and, through its TOPOLOGY_FILE, the network (a single switch or a
 * two-tier leaf-spine; hpcc-topology-reader.h) and implies --backend=roce;
 * --logical-topology-configuration must name the network's dimension sizes.
 *
 * With --backend=roce the topology is built as a real RoCEv2 fabric
 * (AstraFabricHelper: NPU nodes with one NIC per dimension link, switches,
 * PFC, ECN, DCQCN) and messages run as RDMA WRITEs on persistent QPs. With
 * --remote-memory-configuration on the flow and roce backends, the remote
 * memory is memory nodes on the network (MemoryNodeHelper; doc/memory.rst):
 * MEM_LOAD / MEM_STORE become RDMA READ / WRITE (roce) or flows (flow), and
 * memory.csv (and with --ns3::astra::FabricMemoryModel::SampleInterval,
 * memory-utilisation.csv) is written; --memory-isolated=1 moves that traffic
 * to a private copy of the network (compare its collectives.csv).
 *
 * Prints ASTRA-sim's `sys[i] finished, ...` line per NPU, a summary with a
 * per-collective table, and writes npus.csv, collectives.csv and
 * timeline.json into --output-dir (default: --logging-folder); with
 * --backend=roce also the fabric's files and summary lines as
 * training-on-roce (fct.txt, pfc.txt, queue.txt, rate.txt; --plots: PNGs;
 * --link-error-rate: lossy links). With --mpi=1 under mpirun the run is distributed
 * (--partition) and rank 0 prints and writes everything (doc/distributed.rst). A progress
 * line goes to stderr every --progress-seconds; a run that makes no progress
 * for --hang-ns of simulated time is reported (what every stuck NPU waits on,
 * RoCE messages in flight, PFC pause chains) and stopped.
 * Every input file goes through its one strict parser (astra-config.h;
 * Topology::FromFile for the network); every argument is checked before it
 * is applied (AstraCommandLine).
 * Exit status: 0 ok, 1 input error (the message names the file, key or
 * argument), 2 simulation did not complete (deadlock), 3 lossless drops (RoCE).
 */

#include "ns3/astra-command-line.h"
#include "ns3/astra-config.h"
#include "ns3/astra-distributed.h"
#include "ns3/astra-input.h"
#include "ns3/astra-limits.h"
#include "ns3/astra-paths.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/core-module.h"
#include "ns3/hpcc-topology-reader.h"
#include "ns3/network-backend-factory.h"
#include "ns3/network-module.h"
#include "ns3/rdma-net-device.h"
#include "ns3/roce-backend.h"
#include "ns3/roce-config-reader.h"
#include "ns3/run-control-options.h"
#include "ns3/topology.h"
#include "ns3/workload-loader.h"

#include <iomanip>
#include <iostream>
#include <sys/resource.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/**
 * The ASTRA-sim ns-3 variant's --logical-topology-configuration: here the
 * system layer's dimensions are the network configuration's, so the file is
 * accepted when it names the same dimension sizes.
 * \param path the logical topology JSON
 * \param topo the network
 */
void
CheckLogicalTopology(const std::string& path, const Topology& topo)
{
    const std::vector<uint32_t> logical = ParseLogicalTopology(path);
    std::vector<uint32_t> physical;
    for (const auto& d : topo.GetDimensions())
    {
        physical.push_back(d.npus);
    }
    if (logical != physical)
    {
        auto list = [](const std::vector<uint32_t>& v) {
            std::string s;
            for (uint32_t x : v)
            {
                s += (s.empty() ? "" : ", ") + std::to_string(x);
            }
            return "[" + s + "]";
        };
        throw ConfigError(path + ": key 'logical-dims': " + list(logical) +
                          " differs from the network configuration's dimensions " + list(physical) +
                          " (" + topo.source + "); the system layer uses the network's dimensions");
    }
}

/**
 * Every fabric link loses frames: a RateErrorModel (per frame, its own random stream, the
 * same on every rank of a distributed run) as the ReceiveErrorModel of both its devices.
 * \param fabric the built fabric
 * \param rate probability of losing a frame
 */
void
SetLinkErrorRate(AstraFabricHelper& fabric, double rate)
{
    const int64_t base = int64_t(1) << 32;
    const uint32_t links = uint32_t(fabric.GetTopology()->GetLinks().size());
    for (uint32_t l = 0; l < links; ++l)
    {
        const auto devs = fabric.GetLinkDevices(l);
        int64_t side = 0;
        for (Ptr<RdmaNetDevice> d : {devs.first, devs.second})
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetAttribute("ErrorRate", DoubleValue(rate));
            em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
            em->AssignStreams(base + 2 * int64_t(l) + side++);
            if (d)
            {
                d->SetReceiveErrorModel(em);
            }
        }
    }
}

/// The program (run by main through RunMain: bad input ends in a message and status 1).
int
Run(int argc, char* argv[])
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
    bool plots = false;
    bool fabricOutputs = true;
    uint64_t queueSampleNs = 1000;
    uint32_t textPasses = 1;
    uint64_t maxTraceMib = limits::kMaxTraceFileBytes >> 20;
    std::string roceConfig;
    std::string logicalTopology;
    bool memoryIsolated = false;
    std::string partition = "block";
    double linkErrorRate = 0;

    // --roce-config is applied before CommandLine::Parse so that --ns3::... values win; so is
    // a network configuration that is the reference ns-3 backend's config.txt (its RoCE
    // parameters; its TOPOLOGY_FILE is the network)
    std::string hpccNetwork;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        const std::string key = "--roce-config=";
        const std::string net = "--network-configuration=";
        if (a.compare(0, key.size(), key) == 0)
        {
            roceConfig = a.substr(key.size());
            RoceBackend::ApplyConfigFile(roceConfig);
        }
        else if (a.compare(0, net.size(), net) == 0 && IsHpccConfigFile(a.substr(net.size())))
        {
            hpccNetwork = a.substr(net.size());
            RoceConfigReader::ApplyHpccConfig(hpccNetwork, {"TOPOLOGY_FILE"});
        }
    }

    // a calendar of time buckets (doc/benchmarks-roce.rst): constant work per event where
    // ns-3's schedulers pay log N; event order (time, then insertion) is the same
    // for every scheduler (override: --SchedulerType=... with --event-order=fifo);
    // --event-order=node replaces it by its node-order variant
    GlobalValue::Bind("SchedulerType", StringValue("ns3::astra::BucketScheduler"));
    RunControlOptions run; // --progress-seconds, --hang-ns, --rng-stream, --mpi, --huge-pages,
                           // --event-order
    AstraCommandLine cmd(__FILE__);
    cmd.AddValue("workload-configuration",
                 "Chakra prefix (PREFIX.<rank>.et) or a .txt text workload",
                 workload);
    cmd.AddValue("system-configuration", "system configuration JSON", system);
    cmd.AddValue("network-configuration", "network configuration YAML/JSON", network);
    cmd.AddValue("remote-memory-configuration", "remote memory JSON", remoteMemory);
    cmd.AddValue("comm-group-configuration", "communicator groups JSON (or 'empty')", commGroups);
    cmd.AddValue("logical-topology-configuration",
                 "ASTRA-sim ns-3 variant's logical dimensions JSON; must match the network "
                 "configuration's dimensions",
                 logicalTopology);
    cmd.AddValue("logging-folder", "folder for logs and (by default) reports", loggingFolder);
    cmd.AddValue("output-dir", "folder for the report files (default: logging folder)", outputDir);
    cmd.AddValue("num-queues-per-dim",
                 "queues per dimension",
                 queuesPerDim,
                 OptionRange::Closed(1, limits::kMaxQueuesPerDim));
    cmd.AddValue("compute-scale",
                 "multiplies compute times",
                 computeScale,
                 OptionRange::Closed(0, 1e6));
    cmd.AddValue("comm-scale",
                 "multiplies communication sizes",
                 commScale,
                 OptionRange::Positive(1e6));
    cmd.AddValue("injection-scale",
                 "multiplies the endpoint delay",
                 injectionScale,
                 OptionRange::Closed(0, 1e6));
    cmd.AddValue("rendezvous-protocol",
                 "rendezvous protocol (accepted, not modelled: warns when set)",
                 rendezvous);
    cmd.AddValue("backend", "network backend: analytical, flow or roce", backendKind);
    cmd.AddValue("roce-config",
                 "RoCE parameters (JSON/YAML attribute file or HPCC/SimAI config.txt)",
                 roceConfig);
    cmd.AddValue("compat", "ASTRA-sim 2.0 compatible timing (1) or the default model (0)", compat);
    cmd.AddValue("drop-dangling-ctrl-deps",
                 "ignore control deps naming absent nodes",
                 dropDangling);
    cmd.AddValue("reference-hw-limits",
                 "ASTRA-sim's feeder: one COMP and one communication node at a time (a RECV "
                 "holds none), ready nodes by increasing id",
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
    cmd.AddValue("summary", "print the summary table", summary);
    cmd.AddValue("queue-sample-ns",
                 "RoCE: queue sampling interval of queue.txt (ns)",
                 queueSampleNs,
                 OptionRange::Closed(1, 1e15, "ns"));
    cmd.AddValue("plots",
                 "RoCE: gnuplot PNGs of the busiest queues, the per-QP rates and the collective "
                 "timeline into the output folder",
                 plots);
    cmd.AddValue("fabric-outputs",
                 "RoCE: write fct.txt, pfc.txt, queue.txt and rate.txt and print the fabric "
                 "summary (with --mpi: gathered to rank 0)",
                 fabricOutputs);
    cmd.AddValue("memory-isolated",
                 "flow / roce with memory nodes: their traffic on a private copy of the network "
                 "(the baseline of the collectives' slowdown from memory traffic)",
                 memoryIsolated);
    cmd.AddValue("link-error-rate",
                 "RoCE: probability that a link loses a frame (each direction of every fabric "
                 "link, per frame, ns3::RateErrorModel as the devices' ReceiveErrorModel; "
                 "random streams 2^32 + 2 x link + side); lost data is retransmitted (go-back-N)",
                 linkErrorRate,
                 OptionRange::Closed(0, 0.5));
    cmd.AddValue("partition",
                 "with --mpi: how NPUs and switches are dealt to the ranks (block, dim0-line, "
                 "scale-up, leaf, pod)",
                 partition);
    run.AddTo(cmd);
    cmd.Parse(argc, argv);
    run.Start(&argc, &argv); // MPI (input error without it), the event order
    const bool root = Distributed::GetRank() == 0;
    if (!hpccNetwork.empty())
    {
        // the reference ns-3 backend's inputs as they are: a packet-level run
        if (!cmd.IsGiven("backend"))
        {
            backendKind = "roce";
        }
        else if (backendKind != "roce")
        {
            throw InputError("--network-configuration=" + hpccNetwork +
                             " is an ns-3 backend config.txt (RoCE parameters and a "
                             "TOPOLOGY_FILE): it describes the packet-level fabric; use "
                             "--backend=roce (the default with such a file) or a network YAML");
        }
    }
    // attributes of the fabric (--ns3::Rdma..., --roce-config) need the fabric
    AstraSimScenario::CheckGivenAttributes(backendKind);

    if (workload.empty() || system.empty() || network.empty())
    {
        throw InputError("--workload-configuration, --system-configuration and "
                         "--network-configuration are required (see --help)");
    }

    // every input file goes through its one parser (astra-config.h, Topology::FromFile);
    // an error ends the program with its message and status 1 (RunMain)
    const std::string dir = outputDir.empty() ? loggingFolder : outputDir;
    AstraSimScenario::PrepareOutputDir(dir);

    AstraSimScenario sc;
    run.Configure(sc); // progress, hang timeout, random streams
    {
        std::shared_ptr<Topology> topo;
        if (hpccNetwork.empty())
        {
            topo = std::make_shared<Topology>(Topology::FromFile(network));
        }
        else
        {
            const std::string topoFile = HpccTopologyFileOf(hpccNetwork);
            if (topoFile.empty())
            {
                throw InputError(hpccNetwork +
                                 ": an ns-3 backend config.txt without TOPOLOGY_FILE: the "
                                 "network is not described (give TOPOLOGY_FILE, or a network "
                                 "YAML as --network-configuration and this file as --roce-config)");
            }
            topo = std::make_shared<Topology>(ReadHpccTopology(topoFile));
            std::cout << "network: " << hpccNetwork << " (ns-3 backend config.txt): RoCE "
                      << "parameters from it, topology " << topoFile << " (" << topo->GetNpuCount()
                      << " NPUs, " << DimTypeName(topo->GetDimensions()[0].type) << ")\n";
        }
        if (!logicalTopology.empty())
        {
            CheckLogicalTopology(logicalTopology, *topo);
        }
        SystemParams params = LoadSystemParams(system, GetReferenceDir() + "/astra-sim");
        params.compat = compat;
        params.queuesPerDim = queuesPerDim;
        params.computeScale = computeScale;
        params.commScale = commScale;
        params.injectionScale = injectionScale;
        params.rendezvous = rendezvous;

        std::vector<std::shared_ptr<const WorkloadGraph>> graphs;
        WorkloadLoadOptions lopts;
        lopts.chakra.dropDanglingCtrlDeps = dropDangling;
        lopts.chakra.maxFileBytes = maxTraceMib << 20;
        lopts.text.numPasses = textPasses;
        if (cmd.IsGiven("text-passes") && !IsTextWorkload(workload))
        {
            throw InputError("--text-passes=" + std::to_string(textPasses) +
                             " applies to a text workload (.txt); " + workload +
                             " is a Chakra prefix");
        }
        if (rendezvous)
        {
            WarnNotModelled("--rendezvous-protocol",
                            "rendezvous-protocol",
                            "1",
                            "messages are sent eagerly");
        }
        for (auto& g : LoadWorkload(workload, topo->GetNpuCount(), lopts))
        {
            graphs.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
        }
        sc.SetTopology(topo);
        sc.SetSystemParams(params);
        sc.SetWorkloads(graphs);
        sc.SetCommGroups(LoadCommGroups(commGroups, topo->GetNpuCount()));
        sc.SetBackend(backendKind);
        if (run.IsMpi())
        {
            sc.SetDistributed(true);
            sc.GetFabric().SetPartition(partition, Distributed::GetSize());
        }
        sc.SetAppAttribute("DropDanglingCtrlDeps", BooleanValue(dropDangling));
        sc.SetAppAttribute("ReferenceHwLimits", BooleanValue(hwLimits));
        if (!remoteMemory.empty())
        {
            // flow / roce: memory nodes on the network; analytical: ASTRA-sim's formula
            sc.SetRemoteMemory(ParseRemoteMemoryConfig(remoteMemory));
            if (memoryIsolated && (backendKind == "analytical" || compat))
            {
                throw InputError("--memory-isolated applies to the flow and roce backends (the "
                                 "analytical memory has no network)");
            }
            sc.GetMemoryNodes().SetIsolatedNetwork(memoryIsolated);
        }
        else if (memoryIsolated)
        {
            throw InputError("--memory-isolated needs --remote-memory-configuration");
        }
        sc.Build();
    }
    if (cmd.IsGiven("link-error-rate"))
    {
        if (!NetworkBackendFactory::NeedsFabric(backendKind))
        {
            throw InputError("--link-error-rate=" + std::to_string(linkErrorRate) +
                             " loses frames on the RoCE fabric's links: it needs --backend=roce");
        }
        SetLinkErrorRate(sc.GetFabric(), linkErrorRate);
    }
    if (root)
    {
        sc.PrintFabricConfig(std::cout); // the same on every rank
    }
    sc.WarnUnusedAttributes();
    // RoCE: the fabric's files, as training-on-roce writes them (nothing on other backends)
    if (fabricOutputs)
    {
        sc.EnableFabricOutputs(dir, NanoSeconds(queueSampleNs), Seconds(1e6));
    }
    else if (plots)
    {
        throw InputError("--plots draws from the fabric's files: it needs --fabric-outputs=1");
    }
    if (plots && !NetworkBackendFactory::NeedsFabric(backendKind))
    {
        throw InputError("--plots draws the RoCE fabric's queues and rates: it needs "
                         "--backend=roce");
    }

    run.Built(); // --huge-pages
    int rc = sc.Run();
    sc.CloseFabricOutputs(); // with --mpi: every rank's lines and counters to rank 0
    if (!root)
    {
        // rank 0 prints and writes the reports of every rank
        sc.Destroy();
        Distributed::Disable();
        return rc;
    }
    sc.PrintStatus(std::cerr);
    sc.PrintNpuLines(std::cout);
    if (summary)
    {
        sc.PrintSummary(std::cout);
        if (fabricOutputs)
        {
            sc.PrintFabricSummary(std::cout);
        }
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        std::cout << "wall " << std::fixed << std::setprecision(3) << sc.GetWallSeconds()
                  << " s, events " << Simulator::GetEventCount() << ", messages "
                  << sc.GetContext()->GetMessagesSent() << ", peak RSS " << ru.ru_maxrss / 1024
                  << " MiB\n";
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
    }
    try
    {
        sc.WriteReports(dir);
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        rc = rc ? rc : 1;
    }
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
