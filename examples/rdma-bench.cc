/*
 * rdma-bench: simulator speed on a 128-host leaf-spine (8 leaves x 16 hosts,
 * 8 spines, non-blocking) under permutation traffic of long flows, at 100 and
 * 400 Gbps, for a fixed simulated time. Prints simulated packet-hops (frames
 * serialized on any link, data + ACK + CNP + PFC) per wall-clock second,
 * events per second and the peak RSS.
 *
 *   ./rdma-bench                         # both rates, 2 ms simulated each
 *   ./rdma-bench --rates=400 --simTime=5ms --cc=none
 *   ./rdma-bench --rates=100 --cc=hpcc             # INT on (auto: only for hpcc)
 *   ./rdma-bench --rates=100 --cc=dcqcn --int=on   # cost of the INT hook alone
 *
 * Wall and CPU time cover Simulator::Run only. It also reports the per-flow goodput
 * range and, for comparison, the max-min fair rates the flows' ECMP paths allow.
 */

#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/dcqcn.h"
#include "ns3/dctcp.h"
#include "ns3/global-value.h"
#include "ns3/hpcc.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-forwarding-table.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-node-info.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-topology-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/swift.h"
#include "ns3/timely.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <sys/resource.h>

using namespace ns3;

namespace
{
double
CpuSeconds()
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec) + double(ru.ru_utime.tv_usec) * 1e-6 +
           double(ru.ru_stime.tv_sec) + double(ru.ru_stime.tv_usec) * 1e-6;
}

/**
 * ECMP placement of the permutation's flows: walk every flow's path through the
 * switches' forwarding tables (the same hash the switches use), count flows per
 * directed link and compute the max-min fair (water-filling) rate of each flow.
 * This is the best any congestion control can do with these paths.
 */
struct EcmpReport
{
    double meanFairGbps{0}; //!< mean max-min fair rate per flow
    double minFairGbps{0};  //!< slowest flow's fair rate
    uint32_t maxFlowsOnLink{0};
    uint32_t overloadedLinks{0}; //!< links whose flows demand more than the link
};

EcmpReport
AnalyseEcmp(const std::vector<Ptr<RdmaQueuePair>>& qps, const RdmaTopology& t)
{
    std::map<RdmaNetDevice*, std::vector<uint32_t>> linkFlows; // egress device -> flows
    std::vector<std::vector<RdmaNetDevice*>> paths(qps.size());
    for (uint32_t f = 0; f < qps.size(); ++f)
    {
        Ptr<RdmaQueuePair> qp = qps[f];
        Ptr<RdmaHostStack> src = t.hosts.Get(qp->GetLocalHost())->GetObject<RdmaHostStack>();
        Ptr<RdmaHostStack> dst = t.hosts.Get(qp->GetRemoteHost())->GetObject<RdmaHostStack>();
        RdmaMeta m;
        m.srcIp = src->GetIpv4().Get();
        m.dstIp = dst->GetIpv4().Get();
        m.sport = qp->GetSport();
        m.dport = 4791;
        Ptr<RdmaNetDevice> dev = src->GetPort(qp->GetPortIndex());
        for (uint32_t hop = 0; hop < 16 && dev; ++hop)
        {
            paths[f].push_back(PeekPointer(dev));
            linkFlows[PeekPointer(dev)].push_back(f);
            Ptr<RdmaNetDevice> peer = dev->GetRdmaChannel()->GetPeer(dev);
            Ptr<RdmaSwitch> sw = peer->GetNode()->GetObject<RdmaSwitch>();
            if (!sw)
            {
                break; // reached a host
            }
            dev = sw->GetPort(sw->GetForwardingTable()->SelectPort(m));
        }
    }
    // water-filling
    std::vector<double> rate(qps.size(), 0);
    std::vector<bool> frozen(qps.size(), false);
    std::map<RdmaNetDevice*, double> cap;
    EcmpReport r;
    const double hostBps =
        double(t.hosts.Get(0)->GetObject<RdmaHostStack>()->GetPort(0)->GetDataRate().GetBitRate());
    for (auto& [d, flows] : linkFlows)
    {
        cap[d] = double(d->GetDataRate().GetBitRate());
        r.maxFlowsOnLink = std::max<uint32_t>(r.maxFlowsOnLink, flows.size());
        if (double(flows.size()) * hostBps > cap[d])
        {
            ++r.overloadedLinks;
        }
    }
    uint32_t left = qps.size();
    while (left > 0)
    {
        double best = 1e300;
        RdmaNetDevice* bottleneck = nullptr;
        for (auto& [d, flows] : linkFlows)
        {
            uint32_t n = 0;
            double used = 0;
            for (uint32_t f : flows)
            {
                if (frozen[f])
                {
                    used += rate[f];
                }
                else
                {
                    ++n;
                }
            }
            if (n > 0 && (cap[d] - used) / n < best)
            {
                best = (cap[d] - used) / n;
                bottleneck = d;
            }
        }
        for (uint32_t f : linkFlows[bottleneck])
        {
            if (!frozen[f])
            {
                frozen[f] = true;
                rate[f] = best;
                --left;
            }
        }
    }
    double sum = 0;
    r.minFairGbps = 1e300;
    for (double x : rate)
    {
        sum += x;
        r.minFairGbps = std::min(r.minFairGbps, x / 1e9);
    }
    r.meanFairGbps = sum / rate.size() / 1e9;
    return r;
}

struct BenchResult
{
    double wallSeconds{0};
    double cpuSeconds{0};
    uint64_t packetHops{0};
    uint64_t dataPacketHops{0};
    uint64_t events{0};
    double deliveredGbps{0};
    double minFlowGbps{0};
    double maxFlowGbps{0};
    EcmpReport ecmp;
};

BenchResult
RunOnce(uint32_t gbps, Time simTime, uint32_t leaves, uint32_t hostsPerLeaf, uint32_t spines)
{
    // Base RTT across a spine (HPCC, DCTCP, TIMELY and Swift use it): 4 link delays each way
    // plus one MTU frame serialized on 2 host links and 2 fabric links (2x the host rate).
    const double frameBits = (1000.0 + 78 + 4 + kEthernetWireOverhead) * 8;
    const Time baseRtt = NanoSeconds(8 * 1000) + Seconds(3 * frameBits / (gbps * 1e9));
    Config::SetDefault("ns3::RdmaHostStack::BaseRtt", TimeValue(baseRtt));
    RdmaTopologyHelper th;
    // one lossless data class (priority 3); ACK/CNP on the strict control class
    th.GetRdmaHelper().SetMmuAttribute("LosslessPriorities", UintegerValue(1u << 3));
    RdmaLeafSpineParams p;
    p.nLeaves = leaves;
    p.hostsPerLeaf = hostsPerLeaf;
    p.nSpines = spines;
    p.hostRate = DataRate(uint64_t(gbps) * 1000000000ull);
    RdmaTopology t = th.LeafSpine(p);
    th.GetRdmaHelper().AssignStreams(t.AllNodes(), 1);
    const uint32_t n = t.hosts.GetN();
    std::vector<uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::mt19937_64 rng(1);
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
    std::vector<Ptr<RdmaQueuePair>> qps;
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<RdmaHostStack> s = t.hosts.Get(i)->GetObject<RdmaHostStack>();
        qps.push_back(s->GetOrCreateQp(t.hostIndex[perm[i]]));
        s->PostWrite(qps.back(), uint64_t(1) << 40, i); // longer than the run
    }
    BenchResult r;
    r.ecmp = AnalyseEcmp(qps, t);
    Simulator::Stop(simTime);
    const uint64_t ev0 = Simulator::GetEventCount();
    const double c0 = CpuSeconds();
    auto w0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto w1 = std::chrono::steady_clock::now();
    r.cpuSeconds = CpuSeconds() - c0;
    r.wallSeconds = std::chrono::duration<double>(w1 - w0).count();
    r.events = Simulator::GetEventCount() - ev0;
    for (uint32_t i = 0; i < t.devices.GetN(); ++i)
    {
        Ptr<RdmaNetDevice> d = DynamicCast<RdmaNetDevice>(t.devices.Get(i));
        r.packetHops += d->GetTxFrames();
    }
    uint64_t acked = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<RdmaHostStack> s = t.hosts.Get(i)->GetObject<RdmaHostStack>();
        acked += qps[i]->GetSndUna();
        const double g = double(qps[i]->GetSndUna()) * 8.0 / simTime.GetSeconds() / 1e9;
        r.minFlowGbps = i == 0 ? g : std::min(r.minFlowGbps, g);
        r.maxFlowGbps = std::max(r.maxFlowGbps, g);
        (void)s;
    }
    // data packet-hops: every data packet crosses hops(src, dst) links
    uint64_t dataPkts = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        dataPkts += t.hosts.Get(i)->GetObject<RdmaHostStack>()->GetStats().dataPktsSent;
    }
    r.dataPacketHops = dataPkts; // first hop only; see packetHops for all links
    r.deliveredGbps = double(acked) * 8.0 / simTime.GetSeconds() / 1e9 / n;
    Simulator::Destroy();
    return r;
}

/// The program (run by main through RunMain: bad input ends in a message and status 1).
int
Run(int argc, char* argv[])
{
    std::string rates = "100,400";
    std::string simTime = "2ms";
    std::string cc = "dcqcn";
    // the module's calendar scheduler (doc/benchmarks-roce.rst); Debian's ns-3 is built with
    // logging: HeapScheduler pays ~70 NS_LOG checks per event (doc/benchmarks-fabric.rst).
    std::string scheduler = "ns3::astra::BucketScheduler";
    uint32_t ackInterval = 1;
    uint32_t leaves = 8;
    uint32_t hostsPerLeaf = 16;
    uint32_t spines = 8;
    astra::AstraCommandLine cmd(__FILE__);
    cmd.AddValue("rates", "comma-separated host link rates in Gbps", rates);
    cmd.AddValue("simTime", "simulated time per run", simTime);
    std::string intMode = "auto";
    cmd.AddValue("cc", "congestion control: none | dcqcn | hpcc | timely | dctcp | swift", cc);
    cmd.AddValue("int",
                 "switch INT hook (RdmaSwitch::IntEnabled): auto (on for hpcc only) | on | off",
                 intMode);
    cmd.AddValue("scheduler",
                 "event scheduler TypeId (ns-3 default: ns3::MapScheduler)",
                 scheduler);
    cmd.AddValue("ackInterval", "RdmaHostStack::AckInterval (packets per ACK)", ackInterval);
    cmd.AddValue("leaves", "leaf switches", leaves);
    cmd.AddValue("hostsPerLeaf", "hosts per leaf", hostsPerLeaf);
    cmd.AddValue("spines", "spine switches", spines);
    cmd.Parse(argc, argv);
    const std::map<std::string, TypeId> ccTypes = {{"none", RdmaCcNone::GetTypeId()},
                                                   {"dcqcn", RdmaCcDcqcn::GetTypeId()},
                                                   {"hpcc", RdmaCcHpcc::GetTypeId()},
                                                   {"timely", RdmaCcTimely::GetTypeId()},
                                                   {"dctcp", RdmaCcDctcp::GetTypeId()},
                                                   {"swift", RdmaCcSwift::GetTypeId()}};
    const auto ccIt = ccTypes.find(cc);
    if (ccIt == ccTypes.end())
    {
        throw astra::InputError("--cc must be none, dcqcn, hpcc, timely, dctcp or swift, got '" +
                                cc + "'");
    }
    if (intMode != "auto" && intMode != "on" && intMode != "off")
    {
        throw astra::InputError("--int must be auto, on or off, got '" + intMode + "'");
    }
    const bool intOn = intMode == "on" || (intMode == "auto" && cc == "hpcc");
    Config::SetDefault("ns3::RdmaHostStack::CongestionControl", TypeIdValue(ccIt->second));
    Config::SetDefault("ns3::RdmaSwitch::IntEnabled", BooleanValue(intOn));
    if (!GlobalValue::BindFailSafe("SchedulerType", StringValue(scheduler)))
    {
        throw astra::InputError("--scheduler=" + scheduler + ": not a scheduler TypeId");
    }
    astra::SetDefaultFromOption("ns3::RdmaHostStack::AckInterval",
                                UintegerValue(ackInterval),
                                "--ackInterval=" + std::to_string(ackInterval));
    std::stringstream ss(rates);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        const uint64_t rate = astra::ParseUnsignedList(item, "rates").front();
        if (rate == 0 || rate > 1000000)
        {
            throw astra::InputError("--rates=" + rates + ": '" + item +
                                    "' is not a rate in Gbps (1 to 1000000)");
        }
        uint32_t g = uint32_t(rate);
        BenchResult r = RunOnce(g, Time(simTime), leaves, hostsPerLeaf, spines);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        std::cout << "rdma-bench " << leaves * hostsPerLeaf << " hosts, " << g << " Gbps, "
                  << simTime << " simulated, cc " << cc << (intOn ? " (INT on)" : "") << ", "
                  << scheduler << ":\n"
                  << "  wall / CPU time     : " << r.wallSeconds << " s / " << r.cpuSeconds
                  << " s\n"
                  << "  packet-hops         : " << r.packetHops << " ("
                  << r.packetHops / r.wallSeconds / 1e6 << " M/s wall, "
                  << r.packetHops / r.cpuSeconds / 1e6 << " M/s CPU)\n"
                  << "  data packets sent   : " << r.dataPacketHops << "\n"
                  << "  events              : " << r.events << " ("
                  << r.events / r.wallSeconds / 1e6 << " M/s wall, "
                  << r.events / r.cpuSeconds / 1e6 << " M/s CPU, "
                  << double(r.events) / double(r.packetHops) << " per packet-hop)\n"
                  << "  goodput per host    : " << r.deliveredGbps << " Gbps (min " << r.minFlowGbps
                  << ", max " << r.maxFlowGbps << ")\n"
                  << "  ECMP max-min fair   : " << r.ecmp.meanFairGbps << " Gbps mean, "
                  << r.ecmp.minFairGbps << " min; up to " << r.ecmp.maxFlowsOnLink
                  << " flows on a link, " << r.ecmp.overloadedLinks << " links overloaded\n"
                  << "  peak RSS            : " << ru.ru_maxrss / 1024 << " MB" << std::endl;
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return ns3::astra::RunMain(&Run, argc, argv);
}
