#include "cc-study-helper.h"

#include "aggregation-helper.h"
#include "astra-fabric-helper.h"
#include "astra-sim-helper.h"
#include "rdma-trace-writers.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-report.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/dcqcn.h"
#include "ns3/dctcp.h"
#include "ns3/double.h"
#include "ns3/hpcc.h"
#include "ns3/log.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-switch.h"
#include "ns3/roce-backend.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/swift.h"
#include "ns3/switch-mmu.h"
#include "ns3/timely.h"
#include "ns3/uinteger.h"
#include "ns3/workload-loader.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("CcStudy");

namespace
{

/// UDP source ports of background QPs: kBgSportBase + source host (the backend's are >= 49152).
constexpr uint16_t kBgSportBase = 40000;
/// Cap of stored rate-change events per run.
constexpr size_t kMaxRateEvents = 400000;
/// Cap of stored queue samples per run (all ports together).
constexpr size_t kMaxQueueSamples = 2000000;

bool
UsesEcn(const std::string& cc)
{
    return cc == "dcqcn" || cc == "dctcp";
}

/// State of one run, reached by the trace callbacks; the consumer of the background QPs.
struct RunState : public RdmaQpConsumer
{
    // workload
    std::vector<Ptr<AstraSimApplication>> apps;
    uint32_t finished{0};
    Time lastFinish{0};
    bool done{false};
    // background: per source host, its QP (nullptr = not a source)
    std::vector<Ptr<RdmaQueuePair>> bgQp;
    std::vector<Ptr<RdmaHostStack>> stacks;
    uint64_t bgBytes{0};
    uint64_t bgTag{1};

    // queue sampling: one slot per switch / forwarder port
    struct QSlot
    {
        Ptr<SwitchMmu> mmu;
        Ptr<RdmaSwitch> sw;
        uint32_t node{0};
        uint32_t port{0};
        uint64_t last{~uint64_t(0)};
        std::vector<std::pair<double, uint64_t>> series; //!< (us, bytes) on change
    };

    std::vector<QSlot> qslots;
    size_t qsamples{0};
    Time qInterval;

    // rate events (t us, host, qpn, bps)
    struct RateEv
    {
        double us;
        uint32_t host;
        uint32_t qpn;
        uint64_t bps;
    };

    std::vector<RateEv> rates;
    // timeline: per NPU, start times of running nodes
    std::vector<std::map<uint64_t, Time>> running;

    struct Span
    {
        uint32_t npu;
        double startUs;
        double endUs;
        uint32_t kind;
        std::string name;
    };

    std::vector<Span> spans;

    /// one backend message: (src, dst, start us, end us, bytes)
    struct Msg
    {
        uint32_t src;
        uint32_t dst;
        double startUs;
        double endUs;
        uint64_t bytes;
    };

    std::vector<Msg> msgs;

    void OnDelivered(const NetMessage& m, Time latency)
    {
        if (msgs.size() < 200000)
        {
            const double end = Simulator::Now().GetNanoSeconds() / 1e3;
            msgs.push_back(Msg{m.src, m.dst, end - latency.GetNanoSeconds() / 1e3, end, m.bytes});
        }
    }

    void OnFinished(uint32_t npu, Time t)
    {
        lastFinish = std::max(lastFinish, t);
        if (++finished == apps.size())
        {
            done = true;
            Simulator::Stop();
        }
    }

    void OnNodeStart(uint32_t npu, uint64_t id)
    {
        running[npu][id] = Simulator::Now();
    }

    void OnNodeEnd(uint32_t npu, uint64_t id)
    {
        auto it = running[npu].find(id);
        if (it == running[npu].end())
        {
            return;
        }
        const WorkloadNode* n = apps[npu]->GetGraph()->Find(id);
        if (n && spans.size() < 200000)
        {
            spans.push_back(Span{npu,
                                 it->second.GetNanoSeconds() / 1e3,
                                 Simulator::Now().GetNanoSeconds() / 1e3,
                                 uint32_t(n->kind),
                                 n->name});
        }
        running[npu].erase(it);
    }

    bool oneShot{false};   //!< workload "none": one background message per source
    uint32_t bgPending{0}; //!< one-shot messages not yet acknowledged

    void PostBg(uint32_t host)
    {
        if (!done)
        {
            stacks[host]->PostWrite(bgQp[host], bgBytes, bgTag++);
        }
    }

    /// a background message was acknowledged (only the background QPs have this consumer)
    void TxComplete(RdmaQueuePair&, const RdmaMessageInfo& info) override
    {
        if (!oneShot)
        {
            PostBg(info.srcHost); // closed loop: one background message in flight per source
        }
        else if (--bgPending == 0)
        {
            lastFinish = Simulator::Now();
            done = true;
            Simulator::Stop();
        }
    }

    void OnRate(uint32_t host, uint32_t qpn, uint64_t, uint64_t newBps)
    {
        if (rates.size() < kMaxRateEvents)
        {
            rates.push_back(RateEv{Simulator::Now().GetNanoSeconds() / 1e3, host, qpn, newBps});
        }
    }

    void SampleQueues()
    {
        const double us = Simulator::Now().GetNanoSeconds() / 1e3;
        for (auto& s : qslots)
        {
            const uint64_t b = s.mmu->GetEgressPortBytes(s.port);
            if (b != s.last && qsamples < kMaxQueueSamples)
            {
                s.series.emplace_back(us, b);
                s.last = b;
                ++qsamples;
            }
        }
        if (!done)
        {
            Simulator::Schedule(qInterval, &RunState::SampleQueues, this);
        }
    }
};

/// Nearest-rank percentile of sorted values.
double
Percentile(const std::vector<double>& v, double q)
{
    if (v.empty())
    {
        return 0;
    }
    size_t k = size_t(std::ceil(q * v.size()));
    k = std::min(std::max<size_t>(k, 1), v.size());
    return v[k - 1];
}

std::vector<std::shared_ptr<const WorkloadGraph>>
SingleCollective(uint32_t npus, CollType type, uint64_t bytes)
{
    CollectiveWorkload c;
    c.type = type;
    c.bytes = bytes;
    c.name = CollTypeName(type);
    return MakeCollectiveWorkload(npus, c);
}

/// mkdir -p
void
MakeDir(const std::string& d)
{
    for (size_t pos = d.find('/', 1);; pos = d.find('/', pos + 1))
    {
        const std::string part = d.substr(0, pos);
        if (!part.empty() && mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
        {
            throw InputError("cc-study: cannot create folder " + part + ": " +
                             std::strerror(errno));
        }
        if (pos == std::string::npos)
        {
            break;
        }
    }
}

} // namespace

void
CcStudy::SetDefaults()
{
    // TIMELY's paper thresholds assume a ~20 us fabric RTT; this fabric's base RTT is ~5 us
    Config::SetDefault("ns3::RdmaCcTimely::TLow", TimeValue(MicroSeconds(10)));
    Config::SetDefault("ns3::RdmaCcTimely::THigh", TimeValue(MicroSeconds(100)));
    Config::SetDefault("ns3::RdmaCcTimely::MinRtt", TimeValue(MicroSeconds(10)));
    // Swift: delay target a few us above the base RTT
    Config::SetDefault("ns3::RdmaCcSwift::BaseTarget", TimeValue(MicroSeconds(10)));
}

TypeId
CcStudy::CcTypeId(const std::string& name)
{
    static const std::map<std::string, std::string> kShort{{"dcqcn", "ns3::RdmaCcDcqcn"},
                                                           {"hpcc", "ns3::RdmaCcHpcc"},
                                                           {"timely", "ns3::RdmaCcTimely"},
                                                           {"dctcp", "ns3::RdmaCcDctcp"},
                                                           {"swift", "ns3::RdmaCcSwift"},
                                                           {"none", "ns3::RdmaCcNone"}};
    auto it = kShort.find(name);
    TypeId tid;
    if (it == kShort.end() || !TypeId::LookupByNameFailSafe(it->second, &tid))
    {
        throw InputError("cc-study: unknown congestion control '" + name +
                         "' (dcqcn, hpcc, timely, dctcp, swift or none)");
    }
    return tid;
}

std::string
CcStudy::RunName(const CcStudyConfig& c)
{
    std::ostringstream os;
    os << c.cc << "-pfc" << (c.pfc ? 1 : 0) << "-k" << c.kminBytes / 1000 << "-"
       << c.kmaxBytes / 1000 << "-b" << c.bufferBytes / 1000;
    if (!c.bgCc.empty())
    {
        os << "-bg" << int(c.bgPriority) << c.bgCc;
    }
    if (c.inSwitch)
    {
        os << "-insw";
    }
    return os.str();
}

CcStudyResult
CcStudy::Run(const CcStudyConfig& c)
{
    CcStudyResult res;
    res.config = c;
    res.name = RunName(c);
    const TypeId ccTid = CcTypeId(c.cc);
    const std::string bgCc = c.bgCc.empty() ? c.cc : c.bgCc;
    CcTypeId(bgCc);
    if (c.npus < 2)
    {
        throw InputError("cc-study: --npus must be >= 2");
    }
    if (c.background != "none" && c.background != "incast" && c.background != "permutation")
    {
        throw InputError("cc-study: --background must be none, incast or permutation, got '" +
                         c.background + "'");
    }
    if (c.background == "incast" && (c.bgSenders == 0 || c.bgSenders >= c.npus))
    {
        throw InputError("cc-study: --bg-senders must be in 1.." + std::to_string(c.npus - 1));
    }
    if (c.bgPriority > 7 || c.bgPriority == 7)
    {
        throw InputError("cc-study: --bg-prio must be 0..6 (7 carries ACKs and CNPs)");
    }
    if (c.background != "none" && c.bgBytes == 0)
    {
        throw InputError("cc-study: --bg-bytes must be > 0");
    }
    if (!c.bgCc.empty() && c.bgPriority == 3)
    {
        throw InputError(
            "cc-study: --bg-cc needs --bg-prio other than 3 (the collective's priority)");
    }
    const bool ecn = UsesEcn(c.cc) || UsesEcn(bgCc);
    const bool dctcp = c.cc == "dctcp" || bgCc == "dctcp";
    if (c.kminBytes > 0xFFFFFFFFull || c.kmaxBytes > 0xFFFFFFFFull)
    {
        throw InputError("cc-study: --kmin / --kmax must be below 2^32 bytes");
    }
    std::string ecnErr =
        dctcp ? "" : RdmaEcnMarker::CheckThresholds(c.kminBytes, c.kmaxBytes, c.pmax);
    if (!ecnErr.empty())
    {
        throw InputError("cc-study: " + ecnErr);
    }

    // topology: one Switch dimension (ring, a2a, Chakra) or 2 x npus/2 (hier)
    const double gbps = c.linkGbps * 1e9 / 8.0 / 1073741824.0; // ASTRA-sim GB = 2^30 bytes
    std::vector<DimensionSpec> dims;
    if (c.workload == "hier")
    {
        if (c.npus < 4 || c.npus % 2 != 0)
        {
            throw InputError("cc-study: --workload=hier needs an even --npus >= 4");
        }
        dims.push_back(DimensionSpec{DimType::SWITCH, 2, gbps, c.linkLatencyNs});
        dims.push_back(DimensionSpec{DimType::SWITCH, c.npus / 2, gbps, c.linkLatencyNs});
    }
    else
    {
        dims.push_back(DimensionSpec{DimType::SWITCH, c.npus, gbps, c.linkLatencyNs});
    }
    if (c.inSwitch)
    {
        if (c.workload == "a2a")
        {
            throw InputError("cc-study: --in-switch runs all-reduce, reduce-scatter and "
                             "all-gather in the switches, not the a2a workload");
        }
        for (auto& d : dims)
        {
            d.inSwitch = true; // the Switch dimensions' switches aggregate
        }
    }
    auto topo = std::make_shared<Topology>(Topology::FromDimensions(dims));

    SystemParams params;
    params.optimization = CollOptimization::LOCAL_BW_AWARE;
    params.allReduce.assign(dims.size(), AlgoSpec{});
    params.allGather.assign(dims.size(), AlgoSpec{});
    params.reduceScatter.assign(dims.size(), AlgoSpec{});
    AlgoSpec direct;
    direct.kind = AlgoKind::DIRECT;
    params.allToAll.assign(dims.size(), direct);
    if (c.inSwitch)
    {
        const AlgoSpec in = AlgoSpec::Parse("inSwitch");
        params.allReduce.assign(dims.size(), in);
        params.allGather.assign(dims.size(), in);
        params.reduceScatter.assign(dims.size(), in);
    }
    params.splits = std::max<uint32_t>(c.splits, 1);
    params.endpointDelayNs = 10;

    std::vector<std::shared_ptr<const WorkloadGraph>> graphs;
    const bool noWorkload = c.workload == "none";
    if (noWorkload)
    {
        if (c.background == "none")
        {
            throw InputError("cc-study: --workload=none needs a --background");
        }
    }
    else if (c.workload == "ring" || c.workload == "hier")
    {
        graphs = SingleCollective(c.npus, CollType::ALL_REDUCE, c.collBytes);
    }
    else if (c.workload == "a2a")
    {
        graphs = SingleCollective(c.npus, CollType::ALL_TO_ALL, c.collBytes);
    }
    else
    {
        for (auto& g : LoadWorkload(c.workload, c.npus))
        {
            graphs.push_back(std::make_shared<WorkloadGraph>(std::move(g)));
        }
    }

    // the fabric
    AstraFabricHelper fabric;
    RdmaHelper& rdma = fabric.GetRdmaHelper();
    rdma.SetHostStackAttribute("CongestionControl", TypeIdValue(ccTid));
    if (!c.bgCc.empty())
    {
        rdma.SetHostStackAttribute(
            "CongestionControlByPriority",
            StringValue(std::to_string(int(c.bgPriority)) + ":" + CcTypeId(bgCc).GetName()));
    }
    const Time baseRtt = c.baseRtt.IsStrictlyPositive()
                             ? c.baseRtt
                             : NanoSeconds(int64_t(4 * c.linkLatencyNs)) + MicroSeconds(1);
    rdma.SetHostStackAttribute("BaseRtt", TimeValue(baseRtt));
    if (dctcp)
    {
        rdma.SetHostStackAttribute("CnpInterval", TimeValue(Time(0)));
    }
    rdma.SetSwitchAttribute("EcnEnabled", BooleanValue(ecn));
    if (dctcp)
    {
        // DCTCP's single threshold K = --kmin (marks every frame above it)
        rdma.SetEcnMarker("ns3::RdmaEcnStep", "K", UintegerValue(c.kminBytes));
    }
    else
    {
        rdma.SetEcnMarker("ns3::RdmaEcnRed",
                          "Kmin",
                          UintegerValue(c.kminBytes),
                          "Kmax",
                          UintegerValue(c.kmaxBytes),
                          "Pmax",
                          DoubleValue(c.pmax));
    }
    rdma.SetSwitchAttribute("IntEnabled", BooleanValue(c.cc == "hpcc" || bgCc == "hpcc"));
    rdma.SetMmuAttribute("PfcEnabled", BooleanValue(c.pfc));
    rdma.SetMmuAttribute("LosslessPriorities",
                         UintegerValue((1u << 3) | (1u << 7) | (1u << c.bgPriority)));
    if (c.bufferBytes > 0)
    {
        rdma.SetMmuAttribute("BufferSize", UintegerValue(c.bufferBytes));
    }
    fabric.Install(topo);
    rdma.AssignStreams(fabric.GetAllNodes(), 1);
    Ptr<RoceBackend> backend = CreateObject<RoceBackend>();
    backend->SetFabric(topo, fabric.GetNpus());
    AggregationHelper aggregation; // engines on the switches (--in-switch)
    if (c.inSwitch)
    {
        aggregation.Install(backend, topo, &fabric);
    }

    RunState st;
    st.oneShot = noWorkload;
    backend->TraceConnectWithoutContext("MessageDelivered",
                                        MakeCallback(&RunState::OnDelivered, &st));
    Ptr<SystemContext> ctx = CreateObject<SystemContext>();
    ctx->Setup(backend, topo->GetDimensions(), params);
    std::string groups = c.commGroups;
    if (groups.empty() && !noWorkload && c.workload != "ring" && c.workload != "hier" &&
        c.workload != "a2a")
    {
        std::ifstream probe(c.workload + ".json");
        groups = probe ? c.workload + ".json" : "";
    }
    ctx->SetCommGroups(AstraSimHelper::LoadCommGroups(groups));
    ApplicationContainer ac;
    if (!noWorkload)
    {
        AstraSimHelper helper;
        helper.SetContext(ctx);
        helper.SetWorkloads(graphs);
        ac = helper.Install(fabric.GetNpus());
    }
    st.running.resize(ac.GetN());
    for (uint32_t i = 0; i < ac.GetN(); ++i)
    {
        st.apps.push_back(DynamicCast<AstraSimApplication>(ac.Get(i)));
        st.apps.back()->TraceConnectWithoutContext("Finished",
                                                   MakeCallback(&RunState::OnFinished, &st));
        st.apps.back()->TraceConnectWithoutContext("NodeStart",
                                                   MakeCallback(&RunState::OnNodeStart, &st));
        st.apps.back()->TraceConnectWithoutContext("NodeEnd",
                                                   MakeCallback(&RunState::OnNodeEnd, &st));
    }
    ac.Start(Seconds(0));

    // background: closed loop, one message of bgBytes in flight per source
    const NodeContainer npus = fabric.GetNpus();
    st.bgBytes = c.bgBytes;
    st.bgQp.resize(npus.GetN());
    for (uint32_t i = 0; i < npus.GetN(); ++i)
    {
        st.stacks.push_back(npus.Get(i)->GetObject<RdmaHostStack>());
        st.stacks.back()->TraceConnectWithoutContext("QpRateChange",
                                                     MakeCallback(&RunState::OnRate, &st));
    }
    std::vector<uint32_t> dst(npus.GetN(), ~0u);
    if (c.background == "incast")
    {
        for (uint32_t i = 1; i <= c.bgSenders; ++i)
        {
            dst[i] = 0;
        }
    }
    else if (c.background == "permutation")
    {
        // seeded random derangement (deterministic)
        std::mt19937 rng(1);
        std::vector<uint32_t> p(npus.GetN());
        bool fixed = true;
        while (fixed)
        {
            for (uint32_t i = 0; i < p.size(); ++i)
            {
                p[i] = i;
            }
            std::shuffle(p.begin(), p.end(), rng);
            fixed = false;
            for (uint32_t i = 0; i < p.size(); ++i)
            {
                fixed = fixed || p[i] == i;
            }
        }
        dst = p;
    }
    for (uint32_t i = 0; i < npus.GetN(); ++i)
    {
        if (dst[i] == ~0u)
        {
            continue;
        }
        Ptr<RdmaHostStack> s = st.stacks[i];
        st.bgQp[i] = s->GetOrCreateQp(st.stacks[dst[i]]->GetHostIndex(),
                                      c.bgPriority,
                                      uint16_t(kBgSportBase + s->GetHostIndex()),
                                      &st);
        Simulator::Schedule(Seconds(0), &RunState::PostBg, &st, i);
        ++st.bgPending;
    }

    // measurement
    const std::string runDir = c.outDir.empty() ? "" : c.outDir + "/" + res.name;
    if (!runDir.empty())
    {
        MakeDir(c.outDir);
        MakeDir(runDir);
    }
    RdmaFctWriter fct(runDir.empty() ? "" : runDir + "/fct.txt");
    fct.Install(npus);
    NodeContainer forwarding = fabric.GetSwitches();
    for (uint32_t i = 0; i < npus.GetN(); ++i)
    {
        if (npus.Get(i)->GetObject<RdmaSwitch>())
        {
            forwarding.Add(npus.Get(i)); // NPUs relaying transit traffic
        }
    }
    for (uint32_t i = 0; i < forwarding.GetN(); ++i)
    {
        Ptr<RdmaSwitch> sw = forwarding.Get(i)->GetObject<RdmaSwitch>();
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            RunState::QSlot s;
            s.mmu = sw->GetMmu();
            s.sw = sw;
            s.node = forwarding.Get(i)->GetId();
            s.port = p;
            st.qslots.push_back(s);
        }
    }
    st.qInterval = c.queueSample;
    Simulator::Schedule(Seconds(0), &RunState::SampleQueues, &st);

    auto wall0 = std::chrono::steady_clock::now();
    Simulator::Stop(MicroSeconds(int64_t(c.maxSimMs * 1000)));
    Simulator::Run();
    res.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    st.done = true;

    // the row
    for (const auto& a : st.apps)
    {
        if (!a->GetError().empty() && res.error.empty())
        {
            res.error = "NPU " + std::to_string(a->GetNpuId()) + ": " + a->GetError();
        }
        if (!a->IsFinished() && res.error.empty())
        {
            res.error = "NPU " + std::to_string(a->GetNpuId()) + " unfinished at " +
                        std::to_string(Simulator::Now().GetMicroSeconds()) + " us";
        }
    }
    if (st.oneShot && st.bgPending > 0 && res.error.empty())
    {
        res.error = std::to_string(st.bgPending) + " background messages unfinished at " +
                    std::to_string(Simulator::Now().GetMicroSeconds()) + " us";
    }
    res.finished = res.error.empty();
    res.collTimeUs = st.lastFinish.GetNanoSeconds() / 1e3;
    double busBytes = 0;
    double collNs = 0;
    for (const auto& r : ctx->GetRecords())
    {
        if (r.finished == r.members && r.members > 0 && r.end > r.start)
        {
            busBytes += double(r.bytes) * AstraReport::BusBwFactor(r.type, r.members);
            collNs += double((r.end - r.start).GetNanoSeconds());
        }
    }
    res.busBwGBps = collNs > 0 ? busBytes / collNs : 0;
    std::vector<double> slow;
    for (const auto& r : fct.GetRecords())
    {
        if (r.info.sport >= kBgSportBase && r.info.sport < kBgSportBase + npus.GetN() &&
            r.idealNs > 0)
        {
            slow.push_back(double((r.info.end - r.info.start).GetNanoSeconds()) /
                           double(r.idealNs));
        }
    }
    std::sort(slow.begin(), slow.end());
    res.bgMessages = slow.size();
    res.bgSlowdownP50 = Percentile(slow, 0.5);
    res.bgSlowdownP99 = Percentile(slow, 0.99);
    fct.Close();
    // the aggregation engines' endpoints count as hosts (their CNPs, retransmissions)
    RdmaRunSummary sum = RdmaRunSummary::Collect(NodeContainer(npus, aggregation.GetEngineNodes()),
                                                 fabric.GetSwitches(),
                                                 nullptr);
    for (uint32_t i = 0; i < npus.GetN(); ++i)
    {
        if (Ptr<RdmaSwitch> fwd = npus.Get(i)->GetObject<RdmaSwitch>())
        {
            sum.drops += fwd->GetDrops();
            sum.losslessDrops += fwd->GetLosslessDrops();
            sum.ecnMarks += fwd->GetEcnMarks();
            sum.pauseFrames += fwd->GetPausesSent();
        }
    }
    res.pauseUs = sum.totalPauseTime.GetNanoSeconds() / 1e3;
    res.pauseFrames = sum.pauseFrames;
    res.drops = sum.drops;
    res.ecnMarks = sum.ecnMarks;
    res.cnps = sum.cnps;
    res.retxPkts = sum.retxPkts;
    if (sum.losslessDrops > 0 && res.error.empty())
    {
        res.error = std::to_string(sum.losslessDrops) +
                    " lossless drops: PFC headroom does not fit the buffer";
    }
    const RunState::QSlot* bott = nullptr;
    for (const auto& s : st.qslots)
    {
        const uint64_t m = s.sw->GetMaxQueueBytes(s.port);
        if (!bott || m > res.maxQueueBytes)
        {
            res.maxQueueBytes = std::max(res.maxQueueBytes, m);
            bott = &s;
        }
    }
    if (bott)
    {
        res.bottleneckNode = bott->node;
        res.bottleneckPort = bott->port;
        res.queue = bott->series;
    }

    if (!runDir.empty())
    {
        std::ofstream q(runDir + "/queue.dat");
        q << "# time_us bytes  (bottleneck egress queue: node " << res.bottleneckNode << " port "
          << res.bottleneckPort << ")\n";
        for (const auto& s : res.queue)
        {
            q << s.first << " " << s.second << "\n";
        }
        // rate.dat: one gnuplot data block per QP (host, qpn), separated by two blank lines
        std::map<std::pair<uint32_t, uint32_t>, std::vector<const RunState::RateEv*>> byQp;
        for (const auto& e : st.rates)
        {
            byQp[{e.host, e.qpn}].push_back(&e);
        }
        std::ofstream r(runDir + "/rate.dat");
        r << "# time_us rate_gbps, one block per QP\n";
        for (const auto& kv : byQp)
        {
            r << "# host " << kv.first.first << " qpn " << kv.first.second << "\n";
            for (const auto* e : kv.second)
            {
                r << e->us << " " << double(e->bps) / 1e9 << "\n";
            }
            r << "\n\n";
        }
        res.qps = uint32_t(byQp.size());
        std::ofstream t(runDir + "/timeline.dat");
        t << "# npu start_us end_us kind name\n";
        for (const auto& s : st.spans)
        {
            t << s.npu << " " << s.startUs << " " << s.endUs << " " << s.kind << " " << s.name
              << "\n";
        }
        std::ofstream mf(runDir + "/messages.dat");
        mf << "# src dst start_us end_us bytes  (backend messages, Send() to delivery)\n";
        for (const auto& m : st.msgs)
        {
            mf << m.src << " " << m.dst << " " << m.startUs << " " << m.endUs << " " << m.bytes
               << "\n";
        }
    }
    Simulator::Destroy();
    return res;
}

void
CcStudy::PrintTable(const std::vector<CcStudyResult>& rows, std::ostream& os)
{
    size_t w = 6;
    for (const auto& r : rows)
    {
        w = std::max(w,
                     r.config.cc.size() + (r.config.bgCc.empty() ? 0 : 1 + r.config.bgCc.size()) +
                         (r.config.inSwitch ? 5 : 0));
    }
    ++w;
    os << std::left << std::setw(int(w)) << "cc" << std::setw(4) << "pfc" << std::setw(10)
       << "kmin/kmax" << std::setw(7) << "buffer" << std::right << std::setw(10) << "coll(us)"
       << std::setw(8) << "busbw" << std::setw(7) << "bgmsg" << std::setw(8) << "fct50"
       << std::setw(8) << "fct99" << std::setw(10) << "pause(us)" << std::setw(9) << "maxQ(KB)"
       << std::setw(7) << "drops" << std::setw(8) << "ECN" << std::setw(7) << "CNPs"
       << "\n";
    for (const auto& r : rows)
    {
        const CcStudyConfig& c = r.config;
        std::ostringstream k;
        k << c.kminBytes / 1000 << "/" << c.kmaxBytes / 1000;
        std::ostringstream b;
        if (c.bufferBytes)
        {
            b << c.bufferBytes / 1000000.0 << "M";
        }
        else
        {
            b << "dflt";
        }
        os << std::left << std::setw(int(w))
           << (c.bgCc.empty() ? c.cc : c.cc + "/" + c.bgCc) + (c.inSwitch ? " insw" : "")
           << std::setw(4) << (c.pfc ? "on" : "off") << std::setw(10) << k.str() << std::setw(7)
           << b.str() << std::right << std::fixed << std::setprecision(1) << std::setw(10)
           << r.collTimeUs << std::setw(8) << r.busBwGBps << std::setw(7) << r.bgMessages
           << std::setprecision(2) << std::setw(8) << r.bgSlowdownP50 << std::setw(8)
           << r.bgSlowdownP99 << std::setprecision(1) << std::setw(10) << r.pauseUs << std::setw(9)
           << r.maxQueueBytes / 1000.0 << std::setw(7) << r.drops << std::setw(8) << r.ecnMarks
           << std::setw(7) << r.cnps;
        if (!r.error.empty())
        {
            os << "  ERROR " << r.error;
        }
        os << "\n";
    }
    os << "coll = workload time (us); busbw in GB/s; fct50/fct99 = background FCT slowdown; "
          "maxQ = peak switch egress queue\n";
}

void
CcStudy::WriteCsv(const std::vector<CcStudyResult>& rows, const std::string& path)
{
    std::ofstream f(path);
    if (!f)
    {
        throw InputError("cc-study: cannot write " + path);
    }
    f << "run,cc,pfc,kmin,kmax,buffer,coll_us,busbw_GBps,bg_msgs,fct_p50,fct_p99,pause_us,"
         "pause_frames,max_queue_bytes,drops,ecn_marks,cnps,retx_pkts,wall_s,error\n";
    for (const auto& r : rows)
    {
        const CcStudyConfig& c = r.config;
        f << r.name << "," << c.cc << "," << c.pfc << "," << c.kminBytes << "," << c.kmaxBytes
          << "," << c.bufferBytes << "," << r.collTimeUs << "," << r.busBwGBps << ","
          << r.bgMessages << "," << r.bgSlowdownP50 << "," << r.bgSlowdownP99 << "," << r.pauseUs
          << "," << r.pauseFrames << "," << r.maxQueueBytes << "," << r.drops << "," << r.ecnMarks
          << "," << r.cnps << "," << r.retxPkts << "," << r.wallSeconds << "," << r.error << "\n";
    }
}

uint32_t
CcStudy::WritePlots(const std::vector<CcStudyResult>& rows,
                    const std::string& outDir,
                    std::string& msg)
{
    std::vector<std::string> scripts;
    {
        std::ofstream g(outDir + "/queue.gp");
        g << "# bottleneck egress queue of every run (cc-study)\n"
          << "set terminal pngcairo size 800,420 font ',10'\n"
          << "set output 'queue.png'\n"
          << "set title 'Bottleneck egress queue'\n"
          << "set xlabel 'time (us)'\nset ylabel 'queue (KB)'\nset key top right\n"
          << "set grid\n";
        g << "plot ";
        for (size_t i = 0; i < rows.size(); ++i)
        {
            g << (i ? ", \\\n     " : "") << "'" << rows[i].name
              << "/queue.dat' using 1:($2/1000) with steps lw 2 dt " << 1 + i / 8 << " title '"
              << rows[i].name << "'";
        }
        g << "\n";
        scripts.push_back("queue.gp");
    }
    for (const auto& r : rows)
    {
        if (r.qps > 0)
        {
            const std::string name = "rate-" + r.name + ".gp";
            std::ofstream g(outDir + "/" + name);
            g << "# per-QP rate of " << r.name << "\n"
              << "set terminal pngcairo size 800,420 font ',10'\n"
              << "set output 'rate-" << r.name << ".png'\n"
              << "set title 'Per-QP rate, " << r.name << "'\n"
              << "set xlabel 'time (us)'\nset ylabel 'rate (Gbps)'\nset grid\nset key off\n"
              << "plot for [i=0:" << std::min<uint32_t>(r.qps, 16) - 1 << "] '" << r.name
              << "/rate.dat' index i using 1:2 with steps\n";
            scripts.push_back(name);
        }
        if (r.config.workload == "none")
        {
            continue; // no workload nodes
        }
        const std::string name = "timeline-" + r.name + ".gp";
        std::ofstream g(outDir + "/" + name);
        g << "# collective timeline of " << r.name << " (one bar per workload node and NPU)\n"
          << "set terminal pngcairo size 800,300 font ',10'\n"
          << "set output 'timeline-" << r.name << ".png'\n"
          << "set title 'Collective timeline, " << r.name << "'\n"
          << "set xlabel 'time (us)'\nset ylabel 'NPU (source)'\nset key off\nset grid x\n"
          << "set yrange [-0.8:" << r.config.npus - 0.5 << "]\n"
          << "plot '" << r.name
          << "/timeline.dat' using 2:($1-0.3):($3-$2):(0) with vectors nohead lw 3 lc 'gray' "
             "title 'workload node', \\\n     '"
          << r.name
          << "/messages.dat' using 3:1:($4-$3):(0):($2+1) with vectors nohead lw 7 lc variable "
             "title 'message (colour = destination)'\n";
        scripts.push_back(name);
    }
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    {
        msg = "gnuplot not found: the .gp scripts are in " + outDir +
              " (install gnuplot-nox and run 'gnuplot FILE.gp' there)";
        return 0;
    }
    uint32_t n = 0;
    for (const auto& s : scripts)
    {
        const std::string cmd = "cd '" + outDir + "' && gnuplot '" + s + "'";
        if (std::system(cmd.c_str()) == 0)
        {
            ++n;
        }
        else
        {
            msg += "gnuplot failed on " + s + "; ";
        }
    }
    msg += std::to_string(n) + " PNG files written to " + outDir;
    return n;
}

} // namespace astra
} // namespace ns3
