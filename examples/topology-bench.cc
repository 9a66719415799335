/*
 * topology-bench: cost of the topology description and of the packet fabric
 * built from it, per dimension type. Builds a Topology (from a network YAML or
 * a built-in shape), times Topology::AppendRoute over pseudo-random NPU pairs
 * (the analytical and flow backends' per-message path lookup), and optionally
 * installs the RoCE fabric (AstraFabricHelper: nodes, NICs, switches, ECMP
 * tables) and times that.
 *
 *   build/topology-bench --shape=clos128 --routes=10000000 --fabric=1
 *   build/topology-bench --network=net.yml
 */

#include "ns3/astra-command-line.h"
#include "ns3/astra-fabric-helper.h"
#include "ns3/command-line.h"
#include "ns3/simulator.h"
#include "ns3/topology.h"

#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// \return a built-in shape by name
Topology
Shape(const std::string& name)
{
    const double g200 = GbpsToGBps(200);
    if (name == "clos128")
    {
        return Topology::FromDimensions({ClosDimension(128, 16, 8, g200, 5000, g200, 12500)});
    }
    if (name == "switch128")
    {
        return Topology::FromDimensions({{DimType::SWITCH, 128, g200, 5000}});
    }
    if (name == "ring128")
    {
        return Topology::FromDimensions({{DimType::RING, 128, g200, 5000}});
    }
    if (name == "fattree1024")
    {
        return Topology::FromDimensions({FatTreeDimension(16, g200, 1000)});
    }
    if (name == "rail1024")
    {
        // 8 GPUs per server, 128 servers, 16 servers per rail leaf, 16 spines
        DimensionSpec rail{DimType::RAIL_CLOS, 128, g200, 1000, 16, 16};
        return Topology::FromDimensions({{DimType::SWITCH, 8, 400, 100}, rail});
    }
    throw std::invalid_argument("topology-bench: unknown --shape '" + name +
                                "' (clos128, switch128, ring128, fattree1024, rail1024)");
}

} // namespace

namespace
{

/// The program (run by main through RunMain: bad input ends in a message and status 1).
int
Run(int argc, char* argv[])
{
    std::string network;
    std::string shape = "clos128";
    uint64_t routes = 10000000;
    bool fabric = false;
    AstraCommandLine cmd(__FILE__);
    cmd.AddValue("network", "network YAML (overrides --shape)", network);
    cmd.AddValue("shape",
                 "built-in shape: clos128, switch128, ring128, fattree1024, rail1024",
                 shape);
    cmd.AddValue("routes", "AppendRoute calls to time", routes);
    cmd.AddValue("fabric", "also install the RoCE fabric", fabric);
    cmd.Parse(argc, argv);

    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    auto topo =
        std::make_shared<Topology>(network.empty() ? Shape(shape) : Topology::FromFile(network));
    auto t1 = Clock::now();
    const uint32_t n = topo->GetNpuCount();
    std::cout << (network.empty() ? shape : network) << ": " << n << " NPUs, "
              << topo->GetNodeCount() - n << " other nodes, " << topo->GetLinks().size()
              << " links; built in " << std::chrono::duration<double, std::milli>(t1 - t0).count()
              << " ms\n";

    // pseudo-random pairs (64-bit LCG), dimension-order routes
    std::vector<Topology::Hop> hops;
    hops.reserve(64);
    uint64_t x = 12345;
    uint64_t totalHops = 0;
    t0 = Clock::now();
    for (uint64_t i = 0; i < routes; ++i)
    {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        const uint32_t s = uint32_t(x >> 33) % n;
        const uint32_t d = uint32_t(x >> 13) % n;
        hops.clear();
        topo->AppendRoute(s, d, -1, hops);
        totalHops += hops.size();
    }
    t1 = Clock::now();
    const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
    std::cout << "AppendRoute: " << routes << " routes, mean " << double(totalHops) / routes
              << " hops, " << ns / routes << " ns per route\n";

    if (fabric)
    {
        t0 = Clock::now();
        AstraFabricHelper helper;
        helper.Install(topo);
        t1 = Clock::now();
        std::cout << "fabric: " << helper.GetAllNodes().GetN() << " ns-3 nodes, installed in "
                  << std::chrono::duration<double, std::milli>(t1 - t0).count() << " ms\n";
        Simulator::Destroy();
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return ns3::astra::RunMain(&Run, argc, argv);
}
