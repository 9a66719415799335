/*
 * system-bench: scale benchmarks of the system layer on both analytical
 * backends. Prints wall time, ns-3 events, items run through EventBatcher
 * (same-time events coalesced into one ns-3 event), messages and peak RSS.
 *
 *  1. 1 GB all-reduce on 512 NPUs (8 x 8 x 8 rings)
 *  2. a 3-D topology of --big NPUs (default 4096 = 16^3) running --dp
 *     data-parallel all-reduces
 *  3. a generated hybrid-parallel trace (tensor parallel on dimension 0,
 *     data parallel on the others) on >= 1024 NPUs
 */

#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/core-module.h"
#include "ns3/event-batcher.h"
#include "ns3/network-backend-factory.h"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <sys/resource.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

long
PeakRssMiB()
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

using Graphs = std::vector<std::shared_ptr<const WorkloadGraph>>;

void
Report(const std::string& name,
       const std::string& backend,
       std::shared_ptr<const Topology> topo,
       const SystemParams& p,
       const Graphs& gs)
{
    AstraRunOptions o;
    o.backend = backend;
    const uint64_t items0 = EventBatcher::GetItemCount();
    auto t0 = std::chrono::steady_clock::now();
    AstraRunResult r = AstraSimHelper::Run(topo, p, gs, o);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t items = EventBatcher::GetItemCount() - items0;
    std::cout << std::left << std::setw(34) << name << std::setw(11) << backend << " NPUs "
              << std::setw(6) << topo->GetNpuCount() << " simulated " << std::setw(12)
              << r.MaxFinish() << " ns  wall " << std::fixed << std::setprecision(2) << wall
              << " s  events " << r.events << " (" << std::setprecision(0)
              << (wall > 0 ? double(r.events) / wall : 0.0) << "/s)  batched items " << items
              << "  messages " << r.messages << "  peak RSS " << PeakRssMiB() << " MiB"
              << (r.unfinished.empty() ? "" : "  UNFINISHED")
              << (r.error.empty() ? "" : "  ERROR " + r.error) << std::endl;
}

Graphs
DataParallel(uint32_t n, uint32_t count, uint64_t bytes)
{
    Graphs gs;
    for (uint32_t r = 0; r < n; ++r)
    {
        auto g = std::make_shared<WorkloadGraph>();
        g->rank = r;
        g->file = "bench." + std::to_string(r);
        for (uint32_t i = 0; i < count; ++i)
        {
            WorkloadNode c;
            c.id = i + 1;
            c.name = "dp_allreduce_" + std::to_string(i);
            c.kind = NodeKind::COMM_COLL;
            c.collType = CollType::ALL_REDUCE;
            c.commSize = bytes;
            if (i > 0)
            {
                c.dataDeps = {i}; // one after the other
            }
            g->nodes.push_back(c);
        }
        g->BuildIndex();
        gs.push_back(g);
    }
    return gs;
}

Graphs
Hybrid(uint32_t n, uint32_t layers, uint64_t actBytes, uint64_t gradBytes)
{
    Graphs gs;
    for (uint32_t r = 0; r < n; ++r)
    {
        auto g = std::make_shared<WorkloadGraph>();
        g->rank = r;
        g->file = "hybrid." + std::to_string(r);
        uint64_t id = 1;
        uint64_t prev = 0;
        auto add = [&](WorkloadNode n) {
            n.id = id++;
            if (prev)
            {
                n.dataDeps = {prev};
            }
            g->nodes.push_back(n);
            return n.id;
        };
        std::vector<uint64_t> wg;
        for (uint32_t l = 0; l < 2 * layers; ++l)
        {
            WorkloadNode c;
            c.kind = NodeKind::COMP;
            c.name = "comp_" + std::to_string(l);
            c.durationNs = 20000;
            prev = add(c);
            WorkloadNode tp;
            tp.kind = NodeKind::COMM_COLL;
            tp.name = "tp_" + std::to_string(l);
            tp.collType = l < layers ? CollType::ALL_GATHER : CollType::REDUCE_SCATTER;
            tp.commSize = actBytes;
            tp.involvedDim = {true, false, false};
            prev = add(tp);
            if (l >= layers)
            {
                WorkloadNode dp;
                dp.kind = NodeKind::COMM_COLL;
                dp.name = "dp_" + std::to_string(l);
                dp.collType = CollType::ALL_REDUCE;
                dp.commSize = gradBytes;
                dp.involvedDim = {false, true, true};
                uint64_t keep = prev;
                uint64_t d = add(dp); // overlaps with the rest of the backward pass
                prev = keep;
                wg.push_back(d);
            }
        }
        WorkloadNode end;
        end.kind = NodeKind::COMP;
        end.name = "optimizer";
        end.durationNs = 1000;
        end.dataDeps = wg;
        end.dataDeps.push_back(prev);
        end.id = id++;
        g->nodes.push_back(end);
        g->BuildIndex();
        gs.push_back(g);
    }
    return gs;
}

} // namespace

namespace
{

/// The program (run by main through RunMain: bad input ends in a message and status 1).
int
Run(int argc, char* argv[])
{
    uint32_t big = 4096;
    uint32_t dp = 100;
    uint32_t hybrid = 1024;
    std::string backends = "analytical,flow";
    // a calendar of time buckets: constant work per event where ns-3's schedulers pay
    // log N; event order (time, then insertion) is the same
    // for every scheduler (override: --SchedulerType=...)
    GlobalValue::Bind("SchedulerType", StringValue("ns3::astra::BucketScheduler"));
    AstraCommandLine cmd(__FILE__);
    cmd.AddValue("big", "NPUs of the 3-D data-parallel case (a cube)", big);
    cmd.AddValue("dp", "data-parallel all-reduces in the big case", dp);
    cmd.AddValue("hybrid", "minimum NPUs of the hybrid case (8 x k x k, k rounded up)", hybrid);
    cmd.AddValue("backends", "comma-separated backends", backends);
    cmd.Parse(argc, argv);

    SystemParams p;
    p.splits = 4;
    p.activeChunks = 2;
    p.endpointDelayNs = 10;
    p.localMemBwGBps = 1600;
    p.optimization = CollOptimization::LOCAL_BW_AWARE;

    std::vector<std::string> bl;
    std::stringstream ss(backends);
    for (std::string b; std::getline(ss, b, ',');)
    {
        NetworkBackendFactory::CheckName(b); // InputError with a did-you-mean
        bl.push_back(b);
    }
    const uint32_t bigSide = static_cast<uint32_t>(std::lround(std::cbrt(double(big))));
    if (big < 8 || bigSide * bigSide * bigSide != big)
    {
        throw InputError("--big=" + std::to_string(big) +
                         ": the data-parallel case needs a cube of at least 8 NPUs (8, 27, 64, "
                         "..., 4096)");
    }
    if (dp == 0 || hybrid < 8)
    {
        throw InputError("--dp must be at least 1 and --hybrid at least 8");
    }
    auto cube = [](uint32_t n) {
        uint32_t k = static_cast<uint32_t>(std::lround(std::cbrt(double(n))));
        return std::make_shared<Topology>(Topology::FromDimensions({{DimType::RING, k, 200, 100},
                                                                    {DimType::RING, k, 100, 500},
                                                                    {DimType::RING, k, 50, 1000}}));
    };
    for (const auto& b : bl)
    {
        Report("1 GB all-reduce, 8x8x8 rings", b, cube(512), p, DataParallel(512, 1, 1ull << 30));
        Report(std::to_string(dp) + " DP all-reduces (64 MB), 3-D",
               b,
               cube(big),
               p,
               DataParallel(big, dp, 64ull << 20));
        // at least --hybrid NPUs: 8 x k x k with k rounded up (1024 -> 8 x 12 x 12 = 1152)
        uint32_t k = static_cast<uint32_t>(std::ceil(std::sqrt(hybrid / 8.0) - 1e-9));
        auto topo =
            std::make_shared<Topology>(Topology::FromDimensions({{DimType::SWITCH, 8, 400, 100},
                                                                 {DimType::RING, k, 100, 500},
                                                                 {DimType::RING, k, 50, 1000}}));
        Report("hybrid TP8 x DP, 8 layers", b, topo, p, Hybrid(8 * k * k, 8, 4 << 20, 32 << 20));
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return ns3::astra::RunMain(&Run, argc, argv);
}
