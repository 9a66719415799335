/*
 * rdma-incast: N senders write one message each to one receiver through a
 * star (one switch) or a leaf-spine fabric; prints the run summary and writes
 * FCT / PFC / queue / rate files.
 *
 *   ./rdma-incast --senders=16 --size=1000000 --cc=dcqcn --pfc=1 --topo=star
 *   ./rdma-incast --cc=hpcc                                # dcqcn|hpcc|timely|dctcp|swift|none
 *   ./rdma-incast --pfc=0 --cc=none --buffer=2000000      # lossy: drops + go-back-N
 *   ./rdma-incast --kmin=100000 --kmax=400000 --pmax=0.2 --rate=100Gbps
 *   ./rdma-incast --pcap=1                                 # pcap of every port (Wireshark)
 *   ./rdma-incast --ns3::RdmaCcDcqcn::RateAi=5Mbps         # any attribute
 *
 * Every congestion control gets what it needs from the fabric, as the main
 * example's fabric helper gives it: HPCC turns INT on in the switches; the base
 * RTT (HPCC, DCTCP, TIMELY, Swift) is the fabric's, from the hop count, link
 * delay and rate, unless --ns3::RdmaHostStack::BaseRtt gives one; DCTCP marks
 * with its single threshold K = --kmin (RdmaEcnStep) and sends a CNP per mark.
 */

#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-input.h"
#include "ns3/astra-limits.h"
#include "ns3/boolean.h"
#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/dcqcn.h"
#include "ns3/dctcp.h"
#include "ns3/double.h"
#include "ns3/hpcc.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-meta.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-topology-helper.h"
#include "ns3/rdma-trace-writers.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/swift.h"
#include "ns3/timely.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <iostream>
#include <map>

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

    bool pcap = false;

    using astra::OptionRange;
    astra::AstraCommandLine cmd(__FILE__);
    cmd.AddValue("senders", "number of senders", senders, OptionRange::Closed(1, 4096));
    cmd.AddValue("size",
                 "bytes per sender",
                 size,
                 OptionRange::Closed(1, double(astra::limits::kMaxMessageBytes), "bytes"));
    cmd.AddValue("cc", "congestion control: dcqcn | hpcc | timely | dctcp | swift | none", cc);
    cmd.AddValue("pfc", "PFC on (1) or drop-tail (0)", pfc);
    cmd.AddValue("kmin", "ECN Kmin (bytes; DCTCP: its threshold K)", kmin);
    cmd.AddValue("kmax", "ECN Kmax (bytes)", kmax);
    cmd.AddValue("pmax", "ECN Pmax", pmax, OptionRange::Closed(0, 1));
    cmd.AddValue("rate", "link rate", rate);
    cmd.AddValue("delay", "link delay", delay);
    cmd.AddValue("topo", "star | leafspine", topo);
    cmd.AddValue("buffer", "switch buffer bytes (0 = MMU default)", buffer);
    cmd.AddValue("out", "output file prefix", out);
    cmd.AddValue("stop", "simulated time limit (ms)", stopMs, OptionRange::Positive(1e9, "ms"));
    cmd.AddValue("pcap", "write pcap files of every host and switch port (PREFIX-pcap-*)", pcap);
    cmd.Parse(argc, argv);

    const std::map<std::string, TypeId> ccs{{"dcqcn", RdmaCcDcqcn::GetTypeId()},
                                            {"hpcc", RdmaCcHpcc::GetTypeId()},
                                            {"timely", RdmaCcTimely::GetTypeId()},
                                            {"dctcp", RdmaCcDctcp::GetTypeId()},
                                            {"swift", RdmaCcSwift::GetTypeId()},
                                            {"none", RdmaCcNone::GetTypeId()}};
    auto ccIt = ccs.find(cc);
    if (ccIt == ccs.end())
    {
        std::vector<std::string> names;
        for (const auto& kv : ccs)
        {
            names.push_back(kv.first);
        }
        throw astra::InputError("--cc=" + cc +
                                ": expected dcqcn, hpcc, timely, dctcp, swift or none" +
                                astra::DidYouMean(cc, names));
    }
    if (!(rate.GetBitRate() > 0))
    {
        throw astra::InputError("--rate: a link rate > 0 is needed");
    }
    if (delay.IsNegative())
    {
        throw astra::InputError("--delay: a link delay >= 0 is needed");
    }
    const bool dctcp = cc == "dctcp";
    std::string ecnErr = RdmaEcnMarker::CheckThresholds(kmin, kmax, pmax);
    if (!ecnErr.empty() && !dctcp)
    {
        throw astra::InputError("--kmin/--kmax/--pmax: " + ecnErr);
    }
    if (topo != "star" && topo != "leafspine")
    {
        throw astra::InputError("--topo=" + topo + ": expected star or leafspine" +
                                astra::DidYouMean(topo, {"star", "leafspine"}));
    }
    Config::SetDefault("ns3::RdmaHostStack::CongestionControl", TypeIdValue(ccIt->second));

    RdmaTopologyHelper th;
    RdmaHelper& rdma = th.GetRdmaHelper();
    if (dctcp)
    {
        // DCTCP's single threshold K = --kmin, one CNP per marked packet
        rdma.SetEcnMarker("ns3::RdmaEcnStep", "K", UintegerValue(kmin));
        rdma.SetHostStackAttribute("CnpInterval", TimeValue(Time(0)));
    }
    else
    {
        rdma.SetSwitchAttribute("Kmin", UintegerValue(kmin));
        rdma.SetSwitchAttribute("Kmax", UintegerValue(kmax));
        rdma.SetSwitchAttribute("Pmax", DoubleValue(pmax));
    }
    if (cc == "hpcc")
    {
        rdma.SetSwitchAttribute("IntEnabled", BooleanValue(true)); // HPCC reads INT
    }
    // the fabric's base RTT where none is given: over the longest path (hops one way),
    // propagation both ways, a full data frame one way and its ACK back on every hop
    const uint32_t hops = topo == "star" ? 2 : 4;
    {
        TimeValue given;
        Ptr<RdmaHostStack> probe = CreateObject<RdmaHostStack>();
        probe->GetAttribute("BaseRtt", given);
        UintegerValue mtu;
        probe->GetAttribute("Mtu", mtu);
        if (given.Get().IsZero())
        {
            RdmaMeta ack;
            ack.opcode = RoceOpcode::ACK;
            const double bits = 8.0 * (RdmaHostStack::DataWireBytes(uint32_t(mtu.Get()), true) +
                                       RoceFrame::GetFrameBytes(ack) + kEthernetWireOverhead);
            const double ns = hops * (2 * delay.GetNanoSeconds() + bits / rate.GetBitRate() * 1e9);
            rdma.SetHostStackAttribute("BaseRtt", TimeValue(NanoSeconds(int64_t(std::ceil(ns)))));
        }
    }
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
    else
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
    if (pcap)
    {
        NodeContainer all;
        all.Add(t.hosts);
        all.Add(t.switches);
        rdma.EnablePcap(out + "-pcap", all);
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
    if (pcap)
    {
        std::cout << "pcap files                : " << out << "-pcap-*.pcap\n";
    }
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
