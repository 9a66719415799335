/*
 * in-network-allreduce: ring all-reduce on the hosts against in-network
 * (in-switch, SHARP-like) all-reduce on a two-tier Clos, for message sizes
 * from 8 B to 256 MiB. Prints one table (time, algbw and busbw per size for
 * both, and the speed-up), writes results.csv and a gnuplot PNG of busbw
 * against size (doc/in-network.rst).
 *
 *   ./in-network-allreduce                              # 64 NPUs, RoCE, 8 B .. 256 MiB
 *   ./in-network-allreduce --npus=128 --hosts-per-leaf=16 --backend=flow
 *   ./in-network-allreduce --max-bytes=16777216 --tree-slots=64 --out-dir=inc
 *   ./in-network-allreduce --ns3::astra::InSwitchAggregation::ReductionRate=200Gbps
 */

#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-sim-scenario.h"
#include "ns3/core-module.h"
#include "ns3/in-switch-aggregation.h"
#include "ns3/network-backend-factory.h"
#include "ns3/node-list.h"
#include "ns3/rdma-net-device.h"
#include "ns3/workload-generator.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sys/stat.h>
#include <vector>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// One size, one algorithm.
struct Result
{
    uint64_t bytes{0};   //!< all-reduce size per NPU
    double timeNs{0};    //!< collective time (first start to last end)
    double algbw{0};     //!< GB/s (1e9 B)
    double busbw{0};     //!< GB/s (1e9 B)
    double wallS{0};     //!< wall-clock seconds of the run
    int status{0};       //!< the scenario's status
    uint64_t events{0};  //!< simulator events
    uint64_t hops{0};    //!< roce: frames sent on every link (packet-hops, incl. engine ports)
    std::string summary; //!< in-network summary line (in-switch runs)
};

/// The program (run by main through RunMain: bad input ends in a message and status 1).
int
Run(int argc, char* argv[])
{
    uint32_t npus = 64;
    uint32_t hostsPerLeaf = 8;
    uint32_t spines = 0;
    double gbps = 400;
    double latencyNs = 500;
    double uplinkLatencyNs = 500;
    std::string backend = "roce";
    uint64_t minBytes = 8;
    uint64_t maxBytes = 256ull << 20;
    uint32_t factor = 4;
    uint32_t mtu = 4096;
    uint32_t treeSlots = 0;
    std::string outDir = "in-network-allreduce-out";
    bool plots = true;
    std::string only = "both";

    AstraCommandLine cmd(__FILE__);
    cmd.AddValue("npus", "NPUs of the two-tier Clos (64 .. 128 in the study)", npus);
    cmd.AddValue("hosts-per-leaf", "NPUs per leaf switch", hostsPerLeaf);
    cmd.AddValue("spines", "spine switches (0: hosts-per-leaf, non-blocking)", spines);
    cmd.AddValue("gbps", "link rate, Gbit/s (NPU links and uplinks)", gbps);
    cmd.AddValue("latency-ns", "NPU link latency (ns)", latencyNs);
    cmd.AddValue("uplink-latency-ns", "leaf-spine link latency (ns)", uplinkLatencyNs);
    cmd.AddValue("backend", "analytical | flow | roce", backend);
    cmd.AddValue("min-bytes", "smallest all-reduce (bytes per NPU)", minBytes);
    cmd.AddValue("max-bytes", "largest all-reduce (bytes per NPU)", maxBytes);
    cmd.AddValue("factor", "size step (x factor)", factor);
    cmd.AddValue("mtu", "RDMA payload per packet and per aggregation slot (roce)", mtu);
    cmd.AddValue("tree-slots", "slots per tree (0: InSwitchAggregation::TreeSlots)", treeSlots);
    cmd.AddValue("out-dir", "output folder (results.csv, busbw.gp, busbw.png)", outDir);
    cmd.AddValue("plots", "write the gnuplot script and run gnuplot", plots);
    cmd.AddValue("run", "both | ring | inSwitch (one algorithm only: profiling)", only);
    cmd.Parse(argc, argv);
    if (npus < 2 || hostsPerLeaf == 0 || npus % hostsPerLeaf != 0)
    {
        throw InputError("--npus (" + std::to_string(npus) +
                         ") must be a multiple >= 2 of "
                         "--hosts-per-leaf (" +
                         std::to_string(hostsPerLeaf) + ")");
    }
    if (minBytes == 0 || maxBytes < minBytes || factor < 2)
    {
        throw InputError("sizes: need 0 < --min-bytes <= --max-bytes and --factor >= 2");
    }
    if (!(gbps > 0) || !std::isfinite(gbps) || !(latencyNs >= 0) || !(uplinkLatencyNs >= 0))
    {
        throw InputError("--gbps must be positive and the latencies non-negative");
    }
    NetworkBackendFactory::CheckName(backend);
    if (only != "both" && only != "ring" && only != "inSwitch")
    {
        throw InputError("--run: '" + only + "' is not both, ring or inSwitch");
    }
    if (backend == "roce")
    {
        SetDefaultFromOption("ns3::RdmaHostStack::Mtu",
                             UintegerValue(mtu),
                             "--mtu=" + std::to_string(mtu));
    }
    if (treeSlots > 0)
    {
        SetDefaultFromOption("ns3::astra::InSwitchAggregation::TreeSlots",
                             UintegerValue(treeSlots),
                             "--tree-slots=" + std::to_string(treeSlots));
    }
    ::mkdir(outDir.c_str(), 0755);

    DimensionSpec d = ClosDimension(npus,
                                    hostsPerLeaf,
                                    spines ? spines : hostsPerLeaf,
                                    GbpsToGBps(gbps),
                                    latencyNs,
                                    GbpsToGBps(gbps),
                                    uplinkLatencyNs);
    d.inSwitch = true;
    auto topo = std::make_shared<Topology>(Topology::FromDimensions({d}));
    std::vector<uint64_t> sizes;
    for (uint64_t s = minBytes; s < maxBytes; s *= factor)
    {
        sizes.push_back(s);
    }
    sizes.push_back(maxBytes);

    std::cout << "in-network-allreduce: " << npus << " NPUs, two-tier Clos (" << hostsPerLeaf
              << " per leaf, " << (spines ? spines : hostsPerLeaf) << " spines), " << gbps
              << " Gbit/s, " << backend << " backend\n";
    const double busFactor = 2.0 * (npus - 1) / npus;
    std::vector<Result> results[2];
    const char* algos[2] = {"ring", "inSwitch"};
    int status = 0;
    for (uint64_t s : sizes)
    {
        for (int a = 0; a < 2; ++a)
        {
            if (only != "both" && only != algos[a])
            {
                results[a].push_back(Result{}); // not run: zeros in the table
                results[a].back().bytes = s;
                continue;
            }
            SystemParams p;
            p.splits = 1;
            p.endpointDelayNs = 10;
            p.allReduce = {AlgoSpec::Parse(algos[a])};
            AstraSimScenario sc;
            sc.SetTopology(topo);
            sc.SetSystemParams(p);
            sc.SetWorkloads(MakeCollectiveWorkload(npus, CollType::ALL_REDUCE, s));
            sc.SetBackend(backend);
            sc.SetRngStreams(1);
            sc.GetMonitor()->SetAttribute("ProgressInterval", DoubleValue(0));
            const auto w0 = std::chrono::steady_clock::now();
            sc.Build();
            Result r;
            r.bytes = s;
            r.status = sc.Run();
            r.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
            r.events = Simulator::GetEventCount();
            for (auto n = NodeList::Begin(); n != NodeList::End(); ++n)
            {
                for (uint32_t i = 0; i < (*n)->GetNDevices(); ++i)
                {
                    if (Ptr<RdmaNetDevice> d = DynamicCast<RdmaNetDevice>((*n)->GetDevice(i)))
                    {
                        r.hops += d->GetTxFrames();
                    }
                }
            }
            const auto& recs = sc.GetContext()->GetRecords();
            if (r.status == 0 && !recs.empty())
            {
                r.timeNs = double((recs[0].end - recs[0].start).GetNanoSeconds());
                r.algbw = double(s) / r.timeNs;
                r.busbw = r.algbw * busFactor;
            }
            if (sc.GetInSwitch())
            {
                std::ostringstream os;
                sc.GetInSwitch()->PrintSummary(os);
                r.summary = os.str();
            }
            if (r.status != 0)
            {
                sc.PrintStatus(std::cerr);
                status = std::max(status, r.status);
            }
            sc.Destroy();
            results[a].push_back(r);
        }
        const Result& ring = results[0].back();
        const Result& in = results[1].back();
        std::cout << "  " << std::setw(10) << s << " B: ring " << std::fixed << std::setprecision(0)
                  << ring.timeNs << " ns, in-network " << in.timeNs << " ns (wall "
                  << std::setprecision(2) << ring.wallS + in.wallS << " s)" << std::defaultfloat
                  << std::endl;
    }

    std::cout << "\n"
              << std::setw(12) << "bytes" << std::setw(14) << "ring(ns)" << std::setw(10) << "algbw"
              << std::setw(10) << "busbw" << std::setw(14) << "in-net(ns)" << std::setw(10)
              << "algbw" << std::setw(10) << "busbw" << std::setw(9) << "speedup"
              << "   (GB/s, GB = 1e9 B)\n";
    std::ofstream csv(outDir + "/results.csv");
    csv << "bytes,ring_ns,ring_algbw,ring_busbw,innet_ns,innet_algbw,innet_busbw,speedup,"
           "ring_wall_s,innet_wall_s,ring_events,innet_events,ring_packet_hops,innet_packet_hops\n";
    std::ofstream dat(outDir + "/busbw.dat");
    dat << "# bytes ring_busbw innet_busbw (GB/s)\n";
    for (size_t i = 0; i < sizes.size(); ++i)
    {
        const Result& r = results[0][i];
        const Result& n = results[1][i];
        const double speedup = n.timeNs > 0 ? r.timeNs / n.timeNs : 0;
        std::cout << std::fixed << std::setprecision(3) << std::setw(12) << sizes[i]
                  << std::setprecision(0) << std::setw(14) << r.timeNs << std::setprecision(3)
                  << std::setw(10) << r.algbw << std::setw(10) << r.busbw << std::setprecision(0)
                  << std::setw(14) << n.timeNs << std::setprecision(3) << std::setw(10) << n.algbw
                  << std::setw(10) << n.busbw << std::setprecision(2) << std::setw(9) << speedup
                  << "\n";
        csv << sizes[i] << "," << r.timeNs << "," << r.algbw << "," << r.busbw << "," << n.timeNs
            << "," << n.algbw << "," << n.busbw << "," << speedup << "," << r.wallS << ","
            << n.wallS << "," << r.events << "," << n.events << "," << r.hops << "," << n.hops
            << "\n";
        dat << sizes[i] << " " << r.busbw << " " << n.busbw << "\n";
    }
    std::cout << std::defaultfloat;
    csv.close();
    dat.close();
    if (!results[1].empty())
    {
        if (!results[1].back().summary.empty())
        {
            std::cout << "largest size: " << results[1].back().summary;
        }
        std::cout << "wall time of the largest size: ring " << results[0].back().wallS
                  << " s, in-network " << results[1].back().wallS << " s";
        if (results[1].back().hops > 0)
        {
            std::cout << " (" << results[0].back().hops << " and " << results[1].back().hops
                      << " packet-hops, " << results[0].back().events << " and "
                      << results[1].back().events << " events)";
        }
        std::cout << "\n";
    }
    if (plots)
    {
        std::ofstream gp(outDir + "/busbw.gp");
        gp << "set terminal png size 900,560\nset output 'busbw.png'\n"
           << "set logscale x 2\nset format x '2^{%L}'\nset xlabel 'all-reduce size per NPU "
              "(bytes)'\n"
           << "set ylabel 'busbw (GB/s)'\nset key top left\nset grid\n"
           << "set title '" << npus << " NPUs, two-tier Clos, " << gbps << " Gbit/s, " << backend
           << "'\n"
           << "plot 'busbw.dat' using 1:2 with linespoints title 'ring (hosts)', \\\n"
           << "     'busbw.dat' using 1:3 with linespoints title 'in-network (switches)'\n";
        gp.close();
        if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
        {
            std::cout << "gnuplot not found: run 'gnuplot busbw.gp' in " << outDir << "\n";
        }
        else if (std::system(("cd '" + outDir + "' && gnuplot busbw.gp").c_str()) != 0)
        {
            std::cout << "gnuplot failed on " << outDir << "/busbw.gp\n";
        }
        else
        {
            std::cout << "plot: " << outDir << "/busbw.png\n";
        }
    }
    std::cout << "results in " << outDir << "/results.csv\n";
    return status;
}

} // namespace

int
main(int argc, char* argv[])
{
    return ns3::astra::RunMain(&Run, argc, argv);
}
