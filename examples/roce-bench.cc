/*
 * roce-bench: the training-fabric benchmark. All-reduce collectives driven by
 * the system layer (ASTRA-sim-style ring per dimension, chunked) on the
 * packet-level RoCE backend and on the flow-level backend, side by side in one
 * process. Cases:
 *
 *  ring    1-D ring all-reduce on one Switch dimension of --npus NPUs
 *          (--ring-Gbps, --ring-latency), --size bytes;
 *  2d      2-D hierarchical all-reduce (localBWAware: reduce-scatter on the
 *          scale-up dimension, all-reduce on the scale-out one, all-gather
 *          back): scale-up Switch of 8 NPUs (--up-GBps, --up-latency) x
 *          scale-out Switch of npus/8 (--out-Gbps, --out-latency), --size bytes;
 *  anchor  the reference's ns-3 scenario: 128 hosts on a two-tier Clos
 *          (8 leaves x 16 hosts at 200 Gbps, 5 us; 8 spines, 200 Gbps
 *          leaf-spine links of 12.5 us), 1000 B payload per packet,
 *          4 chunks with one active, ring; --anchor-sizes bytes each.
 *
 * Per case and backend it prints the simulated collective time, wall time of
 * set-up and of Simulator::Run, events, packet-hops (frames serialized on any
 * link: data, ACK, CNP, PFC) and packet-hops per wall second, the peak RSS of
 * the run (VmHWM, reset before each run where the kernel allows it) and, for
 * RoCE, drops, PFC pauses and ECN marks.
 *
 * Fabric: the module's defaults (DCQCN, PFC on priority 3, ECN, ECMP), 64 MiB
 * switch buffers (--switch-buffer-MiB), an ACK per data packet
 * (--ack-interval=1, the default; 0 = one ACK per message). Before each RoCE
 * run the heap is collapsed into 2 MiB huge pages (--huge-pages=0: not; results
 * are identical). Numbers and analysis: doc/benchmarks-roce.rst.
 *
 *   ./roce-bench                                     # every case, both backends
 *   ./roce-bench --cases=anchor --backends=roce      # the anchor alone (for /usr/bin/time)
 *   ./roce-bench --cases=2d --npus=256 --size=67108864 --ack-interval=0
 */

#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-fabric-helper.h"
#include "ns3/astra-huge-pages.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/config.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/node-order.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-switch.h"
#include "ns3/roce-backend.h"
#include "ns3/topology.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <sys/resource.h>

using namespace ns3;
using namespace ns3::astra;

NS_LOG_COMPONENT_DEFINE("RoceBench");

namespace
{

/// One benchmark case.
struct BenchCase
{
    std::string name;                                 //!< printed name
    std::shared_ptr<Topology> topo;                   //!< topology of both backends
    uint64_t bytes{0};                                //!< all-reduce size
    uint32_t mtu{4096};                               //!< RDMA payload per packet
    CollOptimization opt{CollOptimization::BASELINE}; //!< multi-dimensional decomposition
};

/// What one run measured.
struct BenchResult
{
    bool ok{false};         //!< every NPU finished, no error
    std::string error;      //!< first error
    int64_t simNs{-1};      //!< collective time (latest NPU finish)
    double setupWall{0};    //!< seconds building the fabric and the system layer
    double runWall{0};      //!< seconds in Simulator::Run
    uint64_t events{0};     //!< simulator events
    uint64_t messages{0};   //!< system-layer messages
    uint64_t packetHops{0}; //!< frames serialized on any link (RoCE)
    uint64_t dataPkts{0};   //!< data packets sent by the hosts (RoCE)
    uint64_t drops{0};      //!< frames dropped anywhere (RoCE)
    uint64_t pauses{0};     //!< PFC pause frames sent (RoCE)
    uint64_t ecnMarks{0};   //!< CE marks (RoCE)
    long peakRssKiB{0};     //!< VmHWM after the run
    uint64_t hugeBytes{0};  //!< heap collapsed into huge pages before the run
};

/// Reset the peak RSS (VmHWM) of this process; false if the kernel does not allow it.
bool
ResetPeakRss()
{
    std::ofstream f("/proc/self/clear_refs");
    if (!f)
    {
        return false;
    }
    f << "5";
    f.flush();
    return bool(f);
}

/// \return VmHWM in KiB (getrusage's ru_maxrss if /proc is unavailable)
long
PeakRssKiB()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
    {
        if (line.rfind("VmHWM:", 0) == 0)
        {
            return std::stol(line.substr(6));
        }
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/// One ALL_REDUCE of `bytes` on every NPU.
std::vector<std::shared_ptr<const WorkloadGraph>>
AllReduceGraphs(uint32_t npus, uint64_t bytes)
{
    CollectiveWorkload c;
    c.type = CollType::ALL_REDUCE;
    c.bytes = bytes;
    c.name = "all_reduce";
    return MakeCollectiveWorkload(npus, c);
}

uint32_t g_finished = 0;
uint32_t g_npus = 0;
bool g_hugePages = true; //!< --huge-pages

void
OnFinished(uint32_t /* npu */, Time /* t */)
{
    if (++g_finished == g_npus)
    {
        // congestion-control timers would keep the event list alive
        Simulator::Stop();
    }
}

BenchResult
RunRoce(const BenchCase& c, const SystemParams& params, double maxSimMs)
{
    BenchResult r;
    ResetPeakRss();
    const auto w0 = std::chrono::steady_clock::now();
    SetDefaultFromOption("ns3::RdmaHostStack::Mtu",
                         UintegerValue(c.mtu),
                         "--mtu=" + std::to_string(c.mtu));
    const uint32_t npus = c.topo->GetNpuCount();
    AstraFabricHelper fabric;
    fabric.Install(c.topo);
    NodeContainer hosts = fabric.GetNpus();
    Ptr<RoceBackend> backend = CreateObject<RoceBackend>();
    backend->SetFabric(c.topo, hosts);
    Ptr<SystemContext> ctx = CreateObject<SystemContext>();
    ctx->Setup(backend, c.topo->GetDimensions(), params);
    AstraSimHelper helper;
    helper.SetContext(ctx);
    helper.SetWorkloads(AllReduceGraphs(npus, c.bytes));
    ApplicationContainer ac = helper.Install(hosts);
    std::vector<Ptr<AstraSimApplication>> apps;
    g_finished = 0;
    g_npus = npus;
    for (uint32_t i = 0; i < ac.GetN(); ++i)
    {
        apps.push_back(DynamicCast<AstraSimApplication>(ac.Get(i)));
        apps.back()->TraceConnectWithoutContext("Finished", MakeCallback(&OnFinished));
    }
    ac.Start(Seconds(0));
    Simulator::Stop(Time::FromDouble(maxSimMs, Time::MS));
    if (g_hugePages)
    {
        // the fabric is built: back its heap with 2 MiB pages (fewer TLB misses per hop)
        r.hugeBytes = astra::CollapseBuiltHeap().collapsedBytes;
    }
    const auto w1 = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto w2 = std::chrono::steady_clock::now();
    r.setupWall = std::chrono::duration<double>(w1 - w0).count();
    r.runWall = std::chrono::duration<double>(w2 - w1).count();
    r.events = Simulator::GetEventCount();
    r.messages = ctx->GetMessagesSent();
    r.ok = true;
    for (const auto& a : apps)
    {
        if (!a->GetError().empty() && r.error.empty())
        {
            r.error = "NPU " + std::to_string(a->GetNpuId()) + ": " + a->GetError();
        }
        if (!a->IsFinished())
        {
            if (r.error.empty())
            {
                r.error = "NPU " + std::to_string(a->GetNpuId()) + " unfinished at " +
                          std::to_string(Simulator::Now().GetNanoSeconds()) + " ns";
            }
            r.ok = false;
            continue;
        }
        r.simNs = std::max(r.simNs, a->GetStats().finish.GetNanoSeconds());
    }
    r.ok = r.ok && r.error.empty();
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<RdmaNetDevice> dev = DynamicCast<RdmaNetDevice>(node->GetDevice(d));
            if (dev)
            {
                r.packetHops += dev->GetTxFrames();
                r.drops += dev->GetDrops();
            }
        }
        if (Ptr<RdmaSwitch> sw = node->GetObject<RdmaSwitch>())
        {
            r.drops += sw->GetDrops();
            r.pauses += sw->GetPausesSent();
            r.ecnMarks += sw->GetEcnMarks();
        }
        if (Ptr<RdmaHostStack> hs = node->GetObject<RdmaHostStack>())
        {
            r.dataPkts += hs->GetStats().dataPktsSent;
        }
    }
    r.peakRssKiB = PeakRssKiB();
    apps.clear();
    ctx->Dispose();
    backend->Dispose();
    Simulator::Destroy();
    return r;
}

BenchResult
RunFlow(const BenchCase& c, const SystemParams& params)
{
    BenchResult r;
    ResetPeakRss();
    AstraRunOptions o;
    o.backend = "flow";
    const auto w0 = std::chrono::steady_clock::now();
    AstraRunResult ar =
        AstraSimHelper::Run(c.topo, params, AllReduceGraphs(c.topo->GetNpuCount(), c.bytes), o);
    r.runWall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    r.simNs = ar.MaxFinish();
    r.events = ar.events;
    r.messages = ar.messages;
    r.error = !ar.error.empty()       ? ar.error
              : ar.unfinished.empty() ? ""
                                      : std::to_string(ar.unfinished.size()) + " NPUs unfinished";
    r.ok = r.error.empty();
    r.peakRssKiB = PeakRssKiB();
    return r;
}

std::vector<std::string>
Split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');)
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

std::string
SizeName(uint64_t b)
{
    std::ostringstream os;
    if (b % (1ull << 20) == 0)
    {
        os << (b >> 20) << " MiB";
    }
    else if (b % 1024 == 0)
    {
        os << (b >> 10) << " KiB";
    }
    else
    {
        os << b << " B";
    }
    return os.str();
}

void
Print(const BenchCase& c, const std::string& backend, const BenchResult& r)
{
    std::cout << std::left << std::setw(44) << c.name << std::setw(5) << backend << std::right
              << std::fixed << " sim " << std::setw(11) << std::setprecision(3)
              << double(r.simNs) / 1e3 << " us  wall " << std::setw(7) << std::setprecision(2)
              << r.setupWall + r.runWall << " s (run " << r.runWall << ")  events " << r.events;
    if (backend == "roce")
    {
        std::cout << "  packet-hops " << r.packetHops << " (" << std::setprecision(3)
                  << (r.runWall > 0 ? double(r.packetHops) / r.runWall / 1e6 : 0.0)
                  << " M/s)  data pkts " << r.dataPkts << "  drops " << r.drops << "  PFC "
                  << r.pauses << "  ECN " << r.ecnMarks;
    }
    else
    {
        std::cout << "  messages " << r.messages;
    }
    std::cout << "  peak RSS " << std::setprecision(1) << double(r.peakRssKiB) / 1024.0 << " MiB";
    if (r.hugeBytes > 0)
    {
        std::cout << " (" << (r.hugeBytes >> 20) << " MiB in huge pages)";
    }
    std::cout << (r.ok ? "" : "  FAILED: " + r.error) << std::endl;
}

} // namespace

namespace
{

/// The program (run by main through RunMain: bad input ends in a message and status 1).
int
Run(int argc, char* argv[])
{
    std::string cases = "ring,2d,anchor";
    std::string npuList = "64,256";
    std::string backends = "roce,flow";
    std::string anchorSizes = "8388608";
    uint64_t size = 64ull << 20;
    uint32_t mtu = 4096;
    uint32_t splits = 4;
    uint32_t activeChunks = 1;
    double ringGbps = 400;
    double ringLatency = 1000;
    double upGBps = 100; // GB/s (2^30 bytes), ~859 Gbps
    double upLatency = 250;
    double outGbps = 400;
    double outLatency = 1000;
    double maxSimMs = 10000;
    uint32_t ackInterval = 1;
    uint64_t switchBufferMiB = 64;
    std::string eventOrder = "fifo";
    double gateLatencyNs = 0;
    // a calendar of time buckets (doc/benchmarks-roce.rst): constant work per event where
    // ns-3's schedulers pay log N; every scheduler runs events in the same (time, uid) order
    GlobalValue::Bind("SchedulerType", StringValue("ns3::astra::BucketScheduler"));
    AstraCommandLine cmd(__FILE__);
    cmd.AddValue("cases", "comma-separated: ring, 2d, anchor", cases);
    cmd.AddValue("npus", "comma-separated NPU counts of the ring and 2d cases", npuList);
    cmd.AddValue("size", "all-reduce bytes of the ring and 2d cases", size);
    cmd.AddValue("anchor-sizes", "comma-separated all-reduce bytes of the anchor", anchorSizes);
    cmd.AddValue("backends", "comma-separated: roce, flow", backends);
    cmd.AddValue("mtu", "RDMA payload per packet of the ring and 2d cases (anchor: 1000)", mtu);
    cmd.AddValue("splits", "preferred-dataset-splits (chunks per collective)", splits);
    cmd.AddValue("active-chunks", "active-chunks-per-dimension", activeChunks);
    cmd.AddValue("ring-Gbps", "ring case: NPU-switch link rate (Gbit/s)", ringGbps);
    cmd.AddValue("ring-latency", "ring case: link latency (ns)", ringLatency);
    cmd.AddValue("up-GBps", "2d case: scale-up link bandwidth (GB/s, GB = 2^30 B)", upGBps);
    cmd.AddValue("up-latency", "2d case: scale-up link latency (ns)", upLatency);
    cmd.AddValue("out-Gbps", "2d case: scale-out link rate (Gbit/s)", outGbps);
    cmd.AddValue("out-latency", "2d case: scale-out link latency (ns)", outLatency);
    cmd.AddValue("max-sim-ms", "stop a run at this simulated time (ms)", maxSimMs);
    cmd.AddValue("switch-buffer-MiB",
                 "SwitchMmu::BufferSize of every switch (MiB)",
                 switchBufferMiB);
    cmd.AddValue("ack-interval",
                 "RdmaHostStack::AckInterval: data packets per ACK (1: every packet; "
                 "0: one ACK per message, at its last packet)",
                 ackInterval);
    cmd.AddValue("huge-pages",
                 "back the heap with transparent huge pages after building the fabric "
                 "(Linux; results are identical, the run is faster)",
                 g_hugePages);
    cmd.AddValue("event-order",
                 "order of same-time events: fifo (ns-3's order), node (by the node that "
                 "created them) or window (node order, run by groups of nodes one look-ahead "
                 "window at a time: same results as node, faster on large fabrics; needs "
                 "--gate-latency-ns of at least the longest link latency)",
                 eventOrder);
    cmd.AddValue("gate-latency-ns",
                 "collective-gate-latency-ns: an issue's notice reaches the other members' "
                 "slot gates this much later (0: at once)",
                 gateLatencyNs,
                 OptionRange::Closed(0, 1e12, "ns"));
    cmd.Parse(argc, argv);
    EventOrder::Select(eventOrder, false);
    // a 256-port switch needs ~49 MB of reserved + PFC headroom at 400 Gbps, 1 us: give every
    // switch 64 MiB (the module's default is 32 MiB; 100-Tbit/s switch chips carry more)
    SetDefaultFromOption("ns3::SwitchMmu::BufferSize",
                         UintegerValue(switchBufferMiB << 20),
                         "--switch-buffer-MiB=" + std::to_string(switchBufferMiB));
    SetDefaultFromOption("ns3::RdmaHostStack::AckInterval",
                         UintegerValue(ackInterval == 0 ? 0xFFFFFFFFu : ackInterval),
                         "--ack-interval=" + std::to_string(ackInterval));

    auto gbpsToGBps = [](double gbps) { return gbps * 1e9 / 8.0 / 1073741824.0; };
    std::vector<BenchCase> list;
    for (const auto& kind : Split(cases))
    {
        if (kind == "ring" || kind == "2d")
        {
            for (uint64_t ns : ParseUnsignedList(npuList, "npus"))
            {
                if (ns < 2 || ns > 1000000)
                {
                    throw InputError("--npus: " + std::to_string(ns) +
                                     " NPUs (expected 2 to 1000000)");
                }
                const uint32_t n = uint32_t(ns);
                BenchCase c;
                c.bytes = size;
                c.mtu = mtu;
                if (kind == "ring")
                {
                    c.topo = std::make_shared<Topology>(Topology::FromDimensions(
                        {{DimType::SWITCH, n, gbpsToGBps(ringGbps), ringLatency}}));
                    c.name = "ring " + std::to_string(n) + " NPUs, " + SizeName(size);
                }
                else
                {
                    if (n % 8 != 0 || n < 16)
                    {
                        throw InputError("--npus: the 2d case needs a multiple of 8 NPUs >= 16, "
                                         "got " +
                                         std::to_string(n));
                    }
                    c.topo = std::make_shared<Topology>(Topology::FromDimensions(
                        {{DimType::SWITCH, 8, upGBps, upLatency},
                         {DimType::SWITCH, n / 8, gbpsToGBps(outGbps), outLatency}}));
                    c.opt = CollOptimization::LOCAL_BW_AWARE;
                    c.name = "2d 8x" + std::to_string(n / 8) + " NPUs, " + SizeName(size);
                }
                list.push_back(c);
            }
        }
        else if (kind == "anchor")
        {
            for (uint64_t bytes : ParseUnsignedList(anchorSizes, "anchor-sizes"))
            {
                BenchCase c;
                c.bytes = bytes;
                c.mtu = 1000;
                // 8 leaves x 16 hosts at 200 Gbps, 5 us; 8 spines, 200 Gbps, 12.5 us
                c.topo = std::make_shared<Topology>(Topology::FromDimensions(
                    {ClosDimension(128, 16, 8, gbpsToGBps(200), 5000, gbpsToGBps(200), 12500)}));
                c.name = "anchor Clos 128 hosts, " + SizeName(c.bytes);
                list.push_back(c);
            }
        }
        else
        {
            std::cerr << "error: unknown case '" << kind << "' (ring, 2d, anchor)" << std::endl;
            return 1;
        }
    }

    std::cout << "roce-bench: ring per dimension, " << splits << " splits, " << activeChunks
              << " active chunk(s) per dimension; ACK every "
              << (ackInterval == 0 ? std::string("message")
                                   : std::to_string(ackInterval) + " packet(s)")
              << "; ring/2d MTU " << mtu << " B; ring " << ringGbps << " Gbps " << ringLatency
              << " ns; 2d up " << upGBps << " GB/s " << upLatency << " ns, out " << outGbps
              << " Gbps " << outLatency << " ns" << std::endl;
    int rc = 0;
    for (const auto& c : list)
    {
        SystemParams p;
        p.splits = splits;
        p.activeChunks = activeChunks;
        p.optimization = c.opt;
        p.endpointDelayNs = 10;
        p.gateLatencyNs = gateLatencyNs;
        int64_t roceNs = -1;
        int64_t flowNs = -1;
        for (const auto& b : Split(backends))
        {
            BenchResult r;
            try
            {
                if (b == "roce")
                {
                    r = RunRoce(c, p, maxSimMs);
                    roceNs = r.simNs;
                }
                else if (b == "flow")
                {
                    r = RunFlow(c, p);
                    flowNs = r.simNs;
                }
                else
                {
                    std::cerr << "error: unknown backend '" << b << "' (roce, flow)" << std::endl;
                    return 1;
                }
            }
            catch (const std::exception& e)
            {
                std::cerr << "error: " << c.name << ", " << b << ": " << e.what() << std::endl;
                return 1;
            }
            Print(c, b, r);
            rc = r.ok ? rc : 2;
        }
        if (roceNs > 0 && flowNs > 0)
        {
            std::cout << std::left << std::setw(44) << c.name << "roce/flow simulated time "
                      << std::fixed << std::setprecision(3) << double(roceNs) / double(flowNs)
                      << std::endl;
        }
    }
    return rc;
}

} // namespace

int
main(int argc, char* argv[])
{
    return ns3::astra::RunMain(&Run, argc, argv);
}
