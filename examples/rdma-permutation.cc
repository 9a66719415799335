/*
 * rdma-permutation: random permutation traffic on a leaf-spine fabric (every
 * host sends to one other host and receives from one; seeded, no host sends to
 * itself). Writes FCT / PFC / rate files and prints the run summary.
 *
 *   ./rdma-permutation --leaves=4 --hostsPerLeaf=8 --spines=4 --size=2000000 --seed=1
 *   ./rdma-permutation --cc=none --rate=400Gbps --messages=4
 */

#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/dcqcn.h"
#include "ns3/double.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-topology-helper.h"
#include "ns3/rdma-trace-writers.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <iostream>
#include <numeric>
#include <random>

using namespace ns3;

namespace
{

/// The program (run by main through RunMain: bad input ends in a message and status 1).
int
Run(int argc, char* argv[])
{
    uint32_t leaves = 4;
    uint32_t hostsPerLeaf = 8;
    uint32_t spines = 4;
    DataRate rate("100Gbps");
    double oversub = 1.0;
    uint64_t size = 2000000;
    uint32_t messages = 1;
    uint32_t seed = 1;
    std::string cc = "dcqcn";
    bool pfc = true;
    std::string out = "rdma-permutation";
    double stopMs = 1000;

    astra::AstraCommandLine cmd(__FILE__);
    cmd.AddValue("leaves", "leaf switches", leaves);
    cmd.AddValue("hostsPerLeaf", "hosts per leaf", hostsPerLeaf);
    cmd.AddValue("spines", "spine switches", spines);
    cmd.AddValue("rate", "host link rate", rate);
    cmd.AddValue("oversub", "oversubscription (fabric rate derived)", oversub);
    cmd.AddValue("size", "bytes per message", size);
    cmd.AddValue("messages", "messages per host (queued on its QP)", messages);
    cmd.AddValue("seed", "permutation and simulator seed", seed);
    cmd.AddValue("cc", "dcqcn | none", cc);
    cmd.AddValue("pfc", "PFC on (1) or drop-tail (0)", pfc);
    cmd.AddValue("out", "output file prefix", out);
    cmd.AddValue("stop", "simulated time limit (ms)", stopMs);
    cmd.Parse(argc, argv);

    if (cc != "dcqcn" && cc != "none")
    {
        throw astra::InputError("--cc must be dcqcn or none, got '" + cc + "'");
    }
    Config::SetDefault(
        "ns3::RdmaHostStack::CongestionControl",
        TypeIdValue(cc == "dcqcn" ? RdmaCcDcqcn::GetTypeId() : RdmaCcNone::GetTypeId()));
    RngSeedManager::SetSeed(seed);

    RdmaTopologyHelper th;
    th.GetRdmaHelper().SetMmuAttribute("PfcEnabled", BooleanValue(pfc));
    RdmaLeafSpineParams p;
    p.nLeaves = leaves;
    p.hostsPerLeaf = hostsPerLeaf;
    p.nSpines = spines;
    p.hostRate = rate;
    p.oversubscription = oversub;
    RdmaTopology t = th.LeafSpine(p);
    th.GetRdmaHelper().AssignStreams(t.AllNodes(), seed);

    const uint32_t n = t.hosts.GetN();
    if (n < 2)
    {
        throw astra::InputError("need at least 2 hosts, got " + std::to_string(n));
    }
    // seeded derangement: shuffle until no fixed point
    std::vector<uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::mt19937_64 rng(seed);
    bool ok = false;
    while (!ok)
    {
        std::shuffle(perm.begin(), perm.end(), rng);
        ok = true;
        for (uint32_t i = 0; i < n; ++i)
        {
            ok = ok && perm[i] != i;
        }
    }

    RdmaFctWriter fct(out + "-fct.txt");
    fct.Install(t.hosts);
    RdmaPfcWriter pfcw(out + "-pfc.txt");
    pfcw.Install(t.switches);
    RdmaRateWriter rw(out + "-rate.txt");
    rw.Install(t.hosts);

    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<RdmaHostStack> s = t.hosts.Get(i)->GetObject<RdmaHostStack>();
        Ptr<RdmaQueuePair> qp = s->GetOrCreateQp(t.hostIndex[perm[i]]);
        for (uint32_t m = 0; m < messages; ++m)
        {
            s->PostWrite(qp, size, uint64_t(i) * messages + m);
        }
    }
    Simulator::Stop(MilliSeconds(stopMs));
    Simulator::Run();
    fct.Close();
    pfcw.Close();
    rw.Close();
    RdmaRunSummary sum = RdmaRunSummary::Collect(t.hosts, t.switches, &fct);
    std::cout << "permutation on " << n << " hosts (" << leaves << " leaves x " << hostsPerLeaf
              << ", " << spines << " spines, oversubscription " << t.oversubscription << "), "
              << messages << " x " << size << " B per host, cc " << cc << ", seed " << seed << "\n";
    sum.Print(std::cout);
    Simulator::Destroy();
    return sum.messages == uint64_t(n) * messages ? 0 : 1;
}

} // namespace

int
main(int argc, char* argv[])
{
    return ns3::astra::RunMain(&Run, argc, argv);
}
