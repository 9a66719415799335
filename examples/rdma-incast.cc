/*
 * rdma-incast: N senders write one message each to one receiver through a
 * star (one switch) or a leaf-spine fabric; prints the run summary and writes
 * FCT / PFC / queue / rate files.
 *
 *   ./rdma-incast --senders=16 --size=1000000 --cc=dcqcn --pfc=1 --topo=star
 *   ./rdma-incast --pfc=0 --cc=none --buffer=2000000      # lossy: drops + go-back-N
 *   ./rdma-incast --kmin=100000 --kmax=400000 --pmax=0.2 --rate=100Gbps
 *   ./rdma-incast --ns3::RdmaCcDcqcn::RateAi=5Mbps         # any attribute
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
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <iostream>

using namespace ns3;

namespace
{

/// The program (run by main through RunMain: bad input ends in a message and status 1).
int
Run(int argc, char* argv[])
{
    uint32_t senders = 16;
    uint64_t size = 1000000;
    std::string cc = "dcqcn";
    bool pfc = true;
    uint32_t kmin = 100000;
    uint32_t kmax = 400000;
    double pmax = 0.2;
    DataRate rate("100Gbps");
    Time delay("1us");
    std::string topo = "star";
    uint64_t buffer = 0;
    std::string out = "rdma-incast";
    double stopMs = 100;

    astra::AstraCommandLine cmd(__FILE__);
    cmd.AddValue("senders", "number of senders", senders);
    cmd.AddValue("size", "bytes per sender", size);
    cmd.AddValue("cc", "congestion control: dcqcn | none", cc);
    cmd.AddValue("pfc", "PFC on (1) or drop-tail (0)", pfc);
    cmd.AddValue("kmin", "ECN Kmin (bytes)", kmin);
    cmd.AddValue("kmax", "ECN Kmax (bytes)", kmax);
    cmd.AddValue("pmax", "ECN Pmax", pmax);
    cmd.AddValue("rate", "link rate", rate);
    cmd.AddValue("delay", "link delay", delay);
    cmd.AddValue("topo", "star | leafspine", topo);
    cmd.AddValue("buffer", "switch buffer bytes (0 = MMU default)", buffer);
    cmd.AddValue("out", "output file prefix", out);
    cmd.AddValue("stop", "simulated time limit (ms)", stopMs);
    cmd.Parse(argc, argv);

    if (cc == "dcqcn")
    {
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcDcqcn::GetTypeId()));
    }
    else if (cc == "none")
    {
        Config::SetDefault("ns3::RdmaHostStack::CongestionControl",
                           TypeIdValue(RdmaCcNone::GetTypeId()));
    }
    else
    {
        throw astra::InputError("--cc must be dcqcn or none, got '" + cc + "'");
    }
    std::string ecnErr = RdmaEcnMarker::CheckThresholds(kmin, kmax, pmax);
    if (!ecnErr.empty())
    {
        throw astra::InputError("--kmin/--kmax/--pmax: " + ecnErr);
    }

    RdmaTopologyHelper th;
    RdmaHelper& rdma = th.GetRdmaHelper();
    rdma.SetSwitchAttribute("Kmin", UintegerValue(kmin));
    rdma.SetSwitchAttribute("Kmax", UintegerValue(kmax));
    rdma.SetSwitchAttribute("Pmax", DoubleValue(pmax));
    rdma.SetMmuAttribute("PfcEnabled", BooleanValue(pfc));
    if (buffer)
    {
        rdma.SetMmuAttribute("BufferSize", UintegerValue(buffer));
    }
    RdmaTopology t;
    if (topo == "star")
    {
        t = th.Star(senders + 1, rate, delay);
    }
    else if (topo == "leafspine")
    {
        RdmaLeafSpineParams p;
        p.hostsPerLeaf = 8;
        p.nLeaves = std::max<uint32_t>(2, (senders + 1 + 7) / 8); // a leaf-spine has >= 2 leaves
        p.nSpines = std::max<uint32_t>(2, p.nLeaves);
        p.hostRate = rate;
        p.hostDelay = delay;
        p.fabricDelay = delay;
        t = th.LeafSpine(p);
    }
    else
    {
        throw astra::InputError("--topo must be star or leafspine, got '" + topo + "'");
    }

    RdmaFctWriter fct(out + "-fct.txt");
    fct.Install(t.hosts);
    RdmaPfcWriter pfcw(out + "-pfc.txt");
    pfcw.Install(t.switches);
    RdmaQueueSampler qs(out + "-queue.txt", MicroSeconds(1));
    qs.Install(t.switches, Seconds(0), MilliSeconds(stopMs));
    RdmaRateWriter rw(out + "-rate.txt");
    rw.Install(t.hosts);

    const uint32_t receiver = 0;
    for (uint32_t i = 1; i <= senders; ++i)
    {
        Ptr<RdmaHostStack> s = t.hosts.Get(i)->GetObject<RdmaHostStack>();
        s->PostWrite(s->GetOrCreateQp(receiver), size, i);
    }
    Simulator::Stop(MilliSeconds(stopMs));
    Simulator::Run();
    fct.Close();
    pfcw.Close();
    qs.Close();
    rw.Close();

    RdmaRunSummary sum = RdmaRunSummary::Collect(t.hosts, t.switches, &fct);
    std::cout << "incast " << senders << " x " << size << " B -> host " << receiver << ", cc " << cc
              << ", pfc " << pfc << ", " << rate << ", " << topo << "\n";
    sum.Print(std::cout);
    uint64_t delivered = 0;
    for (const auto& r : fct.GetRecords())
    {
        delivered += r.info.bytes;
    }
    std::cout << "bytes delivered         : " << delivered << " of " << uint64_t(senders) * size
              << "\n";
    Simulator::Destroy();
    return delivered == uint64_t(senders) * size ? 0 : 1;
}

} // namespace

int
main(int argc, char* argv[])
{
    return ns3::astra::RunMain(&Run, argc, argv);
}
