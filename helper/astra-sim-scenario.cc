/*
 * The scenario driver (astra-sim-scenario.h).
 */

#include "astra-sim-scenario.h"

#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-distributed.h"
#include "ns3/astra-fabric-outputs.h"
#include "ns3/astra-input.h"
#include "ns3/astra-report.h"
#include "ns3/boolean.h"
#include "ns3/flow-backend.h"
#include "ns3/memory-report.h"
#include "ns3/network-backend-factory.h"
#include "ns3/node-order.h"
#include "ns3/rdma-congestion-ops.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-trace-writers.h"
#include "ns3/roce-backend.h"
#include "ns3/simulator.h"
#include "ns3/switch-mmu.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ns3
{
namespace astra
{

AstraSimScenario::AstraSimScenario()
{
    m_monitor = CreateObject<AstraRunMonitor>();
}

AstraSimScenario::~AstraSimScenario() = default;

void
AstraSimScenario::SetTopology(std::shared_ptr<const Topology> topo)
{
    m_topo = topo;
}

void
AstraSimScenario::SetSystemParams(const SystemParams& params)
{
    m_params = params;
}

void
AstraSimScenario::SetWorkloads(const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs)
{
    m_graphs = graphs;
}

void
AstraSimScenario::SetCommGroups(const std::map<std::string, std::vector<uint32_t>>& groups)
{
    m_groups = groups;
}

void
AstraSimScenario::SetMemoryModel(Ptr<MemoryModel> mem)
{
    m_mem = mem;
}

void
AstraSimScenario::SetRemoteMemory(const RemoteMemoryConfig& c)
{
    m_memNodes.SetConfig(c);
    m_remoteMemory = true;
}

MemoryNodeHelper&
AstraSimScenario::GetMemoryNodes()
{
    return m_memNodes;
}

Ptr<FabricMemoryModel>
AstraSimScenario::GetFabricMemory() const
{
    return m_fabricMem;
}

std::shared_ptr<const Topology>
AstraSimScenario::GetTopology() const
{
    return m_topo;
}

void
AstraSimScenario::SetBackend(const std::string& kind)
{
    NetworkBackendFactory::CheckName(kind);
    m_kind = kind;
}

void
AstraSimScenario::SetAppAttribute(const std::string& n, const AttributeValue& v)
{
    m_helper.SetAttribute(n, v);
}

void
AstraSimScenario::SetWorkloadCheck(bool check)
{
    m_helper.SetWorkloadCheck(check);
}

void
AstraSimScenario::SetRngStreams(int64_t first)
{
    if (first < -1)
    {
        throw InputError("random stream number " + std::to_string(first) +
                         ": expected -1 (automatic) or a stream number >= 0");
    }
    m_rngStreams = first;
}

AstraFabricHelper&
AstraSimScenario::GetFabric()
{
    return m_fabric;
}

AggregationHelper&
AstraSimScenario::GetAggregation()
{
    return m_aggregation;
}

Ptr<InSwitchAggregation>
AstraSimScenario::GetInSwitch() const
{
    return m_inSwitch;
}

Ptr<AstraRunMonitor>
AstraSimScenario::GetMonitor() const
{
    return m_monitor;
}

void
AstraSimScenario::Build()
{
    if (m_built)
    {
        throw std::runtime_error("AstraSimScenario::Build called twice");
    }
    if (!m_topo)
    {
        throw std::runtime_error("AstraSimScenario::Build: no topology set");
    }
    // remote memory: memory nodes on the network for the flow and roce backends
    const bool networkMemory =
        m_remoteMemory && m_memNodes.HasExpansion() && !m_params.compat && m_kind != "analytical";
    if (networkMemory)
    {
        m_topo = m_memNodes.Place(m_topo);
        m_memNodes.CheckCapacity(*m_topo, m_graphs);
    }
    else if (!m_remoteMemory && !m_topo->GetMemoryNodes().empty())
    {
        ASTRA_WARN("memory-nodes-unused",
                   (m_topo->source.empty() ? std::string("the topology") : m_topo->source)
                       << " declares memory nodes, but no remote memory configuration is given: "
                          "MEM_LOAD / MEM_STORE use the local memory model");
    }
    if (m_distributed)
    {
        if (!NetworkBackendFactory::NeedsFabric(m_kind))
        {
            throw InputError("distributed runs (MPI) need the packet-level backend "
                             "(--backend=roce), not '" +
                             m_kind + "'");
        }
        if (networkMemory)
        {
            throw InputError("distributed runs (MPI) do not carry remote memory on the network");
        }
        for (uint32_t d = 0; d < m_topo->GetDimensionCount(); ++d)
        {
            if (m_topo->GetDimensions()[d].inSwitch)
            {
                // the reduction trees are set up and started by direct calls on every
                // switch's engine, which a rank holds for its own switches only
                throw InputError("distributed runs (MPI) do not carry in-network aggregation: "
                                 "dimension " +
                                 std::to_string(d) +
                                 " of the network is marked in_switch (run it in one "
                                 "process, or unmark it)");
            }
        }
        m_fabric.GetRdmaHelper().SetDistributed(Distributed::GetRank());
    }
    if (!m_distributed && NetworkBackendFactory::NeedsFabric(m_kind) && EventOrder::IsWindow())
    {
        // the window simulator runs groups of nodes one after another: what nodes share
        // other than links and the collective gate would be seen out of time order
        if (networkMemory)
        {
            throw InputError("--event-order=window does not carry remote memory on the "
                             "network (not checked against node order yet): use "
                             "--event-order=node");
        }
        for (uint32_t d = 0; d < m_topo->GetDimensionCount(); ++d)
        {
            if (m_topo->GetDimensions()[d].inSwitch)
            {
                throw InputError("--event-order=window does not carry in-network aggregation "
                                 "(the reduction trees are driven by direct calls on the "
                                 "switches' engines): dimension " +
                                 std::to_string(d) +
                                 " of the network is marked in_switch; use --event-order=node");
            }
        }
    }
    if (NetworkBackendFactory::NeedsFabric(m_kind))
    {
        m_fabric.Install(m_topo);
        if (m_distributed && m_fabric.GetCut().systems != Distributed::GetSize())
        {
            throw InputError("distributed run on " + std::to_string(Distributed::GetSize()) +
                             " ranks: the partition has " +
                             std::to_string(m_fabric.GetCut().systems) +
                             " system(s) (give one per rank)");
        }
        if (m_rngStreams >= 0)
        {
            m_fabric.AssignStreams(m_rngStreams);
        }
        else if (m_distributed)
        {
            throw InputError("random streams: ns-3's automatic numbering (-1) depends on "
                             "which switches a rank creates; a distributed run needs a "
                             "first stream number >= 0 (--rng-stream)");
        }
        m_roce = DynamicCast<RoceBackend>(NetworkBackendFactory::Create(m_kind, m_topo, false));
        if (!m_roce)
        {
            throw InputError("network backend '" + m_kind +
                             "' needs a fabric that AstraSimScenario cannot attach");
        }
        m_roce->SetFabric(m_topo, m_fabric.GetNpus());
        m_backend = m_roce;
        m_nodes = m_fabric.GetNpus();
    }
    else
    {
        m_backend = NetworkBackendFactory::Create(m_kind, m_topo, m_params.compat);
        m_nodes.Create(m_topo->GetNpuCount());
    }
    // in-network aggregation where the topology marks dimensions in_switch
    m_inSwitch = m_aggregation.Install(m_backend, m_topo, m_roce ? &m_fabric : nullptr);
    if (networkMemory)
    {
        Ptr<FlowBackend> flow = DynamicCast<FlowBackend>(m_backend);
        if (m_memNodes.GetIsolatedNetwork())
        {
            m_fabricMem = m_memNodes.InstallIsolated(m_topo); // the slowdown's baseline
        }
        else if (m_roce)
        {
            m_fabricMem =
                m_memNodes.InstallRoce(m_fabric, m_roce->GetPriority(TrafficClass::MEMORY));
        }
        else if (flow)
        {
            m_fabricMem = m_memNodes.InstallFlow(flow);
        }
        else
        {
            ASTRA_WARN("remote-memory-analytical-fallback",
                       "network backend '" << m_kind
                                           << "' does not carry memory traffic: MEM_LOAD / "
                                              "MEM_STORE use ASTRA-sim's analytical remote memory");
        }
        m_mem = m_fabricMem ? Ptr<MemoryModel>(m_fabricMem) : m_memNodes.CreateAnalytical();
    }
    else if (m_remoteMemory)
    {
        m_mem = m_memNodes.CreateAnalytical();
    }
    m_ctx = CreateObject<SystemContext>();
    m_ctx->Setup(m_backend, m_topo->GetDimensions(), m_params);
    m_ctx->SetCommGroups(m_groups);
    std::vector<bool> local;
    std::vector<uint32_t> ranks;
    if (m_distributed)
    {
        const uint32_t rank = Distributed::GetRank();
        uint32_t prev = 0;
        for (uint32_t i = 0; i < m_topo->GetNpuCount(); ++i)
        {
            const uint32_t sys = m_fabric.GetSystemId(i);
            if (sys < prev)
            {
                throw InputError("distributed runs need the NPUs dealt out to the ranks in "
                                 "order (partition policies block, dim0-line, scale-up, leaf, "
                                 "pod): NPU " +
                                 std::to_string(i) + " is on rank " + std::to_string(sys) +
                                 " after rank " + std::to_string(prev));
            }
            prev = sys;
            local.push_back(sys == rank);
            ranks.push_back(sys);
        }
        // a gate notice crosses ranks with the frames of the window it was posted in: it
        // must arrive after that window
        const Time gate = NanoSeconds(std::llround(m_params.gateLatencyNs));
        const Time cut = m_fabric.GetCut().lookahead;
        if (gate.IsStrictlyPositive() && gate < cut && cut != Time::Max() && !m_params.compat)
        {
            throw InputError("collective-gate-latency-ns " + std::to_string(gate.GetNanoSeconds()) +
                             " is shorter than the smallest delay of a link crossing ranks (" +
                             std::to_string(cut.GetNanoSeconds()) +
                             " ns): in a distributed run an issue's notice reaches the other "
                             "ranks no sooner; give at least that, or 0 (the gate then counts "
                             "members on other ranks as issued)");
        }
        m_ctx->SetNpuRanks(ranks, rank);
        m_roce->SetDistributed(rank, PeekPointer(m_ctx), PeekPointer(m_ctx));
        m_helper.SetLocalNpus(local);
        m_monitor->SetDistributed(true);
    }
    m_helper.SetContext(m_ctx);
    m_helper.SetWorkloads(m_graphs);
    if (m_mem)
    {
        m_helper.SetMemoryModel(m_mem);
    }
    ApplicationContainer ac = m_helper.Install(m_nodes);
    // the applications hold what runs here: a distributed rank keeps its own NPUs'
    // workloads only (the helper has released the others' after checking every trace)
    m_graphs.clear();
    for (uint32_t i = 0; i < ac.GetN(); ++i)
    {
        m_apps.push_back(DynamicCast<AstraSimApplication>(ac.Get(i)));
        m_apps.back()->SetStartTime(Seconds(0));
    }
    m_localApps = m_apps;
    m_monitor->Watch(m_localApps, m_backend);
    if (m_fabricMem)
    {
        m_monitor->WatchMemory(m_fabricMem);
    }
    if (m_roce)
    {
        m_monitor->WatchFabric(m_fabric.GetAllNodes());
    }
    m_built = true;
}

namespace
{

/// \return the TypeId named by an attribute path "ns3::Type::Attribute" (false if none)
bool
AttributeType(const std::string& path, TypeId& tid)
{
    const size_t pos = path.rfind("::");
    return pos != std::string::npos && pos > 0 &&
           TypeId::LookupByNameFailSafe(path.substr(0, pos), &tid);
}

/// \return whether a type belongs to the packet-level RoCE fabric
bool
IsFabricType(TypeId tid)
{
    const std::string n = tid.GetName();
    return n.rfind("ns3::Rdma", 0) == 0 || n == "ns3::SwitchMmu" || n == "ns3::astra::RoceBackend";
}

} // namespace

void
AstraSimScenario::CheckGivenAttributes(const std::string& kind)
{
    NetworkBackendFactory::CheckName(kind);
    if (NetworkBackendFactory::NeedsFabric(kind))
    {
        return;
    }
    for (const auto& a : GetGivenAttributes())
    {
        TypeId tid;
        if (AttributeType(a.name, tid) && IsFabricType(tid))
        {
            throw InputError(a.where + ": " + a.name +
                             " configures the packet-level RoCE fabric: it has no effect with "
                             "--backend=" +
                             kind + " (use --backend=roce, or leave it out)");
        }
    }
}

void
AstraSimScenario::WarnUnusedAttributes() const
{
    if (!m_roce)
    {
        return;
    }
    std::set<std::string> used;
    for (uint32_t i = 0; i < m_fabric.GetNpus().GetN(); ++i)
    {
        Ptr<RdmaHostStack> hs = m_fabric.GetNpus().Get(i)->GetObject<RdmaHostStack>();
        for (uint8_t p = 0; hs && p < 8; ++p)
        {
            used.insert(hs->GetCongestionControl(p)->GetInstanceTypeId().GetName());
        }
    }
    std::string list;
    for (const auto& u : used)
    {
        list += (list.empty() ? "" : ", ") + u;
    }
    // one warning per source (an argument, a file): the settings of congestion controls
    // no host stack uses
    std::map<std::string, std::vector<std::string>> bySource;
    for (const auto& a : GetGivenAttributes())
    {
        TypeId tid;
        if (AttributeType(a.name, tid) && tid.IsChildOf(RdmaCongestionOps::GetTypeId()) &&
            used.count(tid.GetName()) == 0)
        {
            // a config.txt key is recorded as "file: KEY"
            const size_t colon = a.where.rfind(": ");
            const std::string source =
                colon == std::string::npos ? a.where : a.where.substr(0, colon);
            const std::string item = colon == std::string::npos
                                         ? a.name
                                         : a.where.substr(colon + 2) + " (" + a.name + ")";
            auto& v = bySource[source];
            if (std::find(v.begin(), v.end(), item) == v.end())
            {
                v.push_back(item);
            }
        }
    }
    for (const auto& [source, items] : bySource)
    {
        std::string text;
        for (const auto& i : items)
        {
            text += (text.empty() ? "" : ", ") + i;
        }
        ASTRA_WARN("attribute-without-effect:" + source,
                   source << ": " << items.size()
                          << " setting(s) of a congestion control no host stack uses (in use: "
                          << list << ") have no effect: " << text);
    }
}

void
AstraSimScenario::PrintFabricConfig(std::ostream& os) const
{
    if (!m_roce)
    {
        return;
    }
    std::set<std::string> ccs;
    Time baseRtt(0);
    bool needInt = false;
    NodeContainer npus = m_fabric.GetNpus();
    for (uint32_t i = 0; i < npus.GetN(); ++i)
    {
        Ptr<RdmaHostStack> hs = npus.Get(i)->GetObject<RdmaHostStack>();
        if (!hs)
        {
            continue;
        }
        for (uint8_t p = 0; p < 8; ++p)
        {
            Ptr<RdmaCongestionOps> cc = hs->GetCongestionControl(p);
            ccs.insert(cc->GetInstanceTypeId().GetName());
            needInt = needInt || cc->NeedsInt();
        }
        TimeValue rtt;
        hs->GetAttribute("BaseRtt", rtt);
        baseRtt = std::max(baseRtt, rtt.Get());
    }
    bool intOn = false;
    bool pfc = false;
    NodeContainer sw = m_fabric.GetAllNodes(); // switches and NPUs relaying transit traffic
    for (uint32_t i = 0; i < sw.GetN(); ++i)
    {
        if (Ptr<RdmaSwitch> s = sw.Get(i)->GetObject<RdmaSwitch>())
        {
            BooleanValue b;
            s->GetAttribute("IntEnabled", b);
            intOn = intOn || b.Get();
            BooleanValue p;
            s->GetMmu()->GetAttribute("PfcEnabled", p);
            pfc = pfc || p.Get();
        }
    }
    os << "roce: congestion control ";
    bool first = true;
    for (const auto& c : ccs)
    {
        os << (first ? "" : ", ") << c;
        first = false;
    }
    os << ", INT " << (intOn ? "on" : "off");
    if (m_fabric.IsIntAutoEnabled())
    {
        os << " (needed by the congestion control: turned on)";
    }
    else if (needInt)
    {
        os << " (needed by the congestion control)";
    }
    os << ", base RTT " << baseRtt.GetNanoSeconds() << " ns ("
       << (m_fabric.GetDerivedBaseRtt().IsStrictlyPositive() ? "derived from the topology"
                                                             : "given")
       << "), PFC " << (pfc ? "on" : "off") << "\n";
}

int
AstraSimScenario::Run(Time stopAt)
{
    if (!m_built)
    {
        throw std::runtime_error("AstraSimScenario::Run before Build");
    }
    m_monitor->Start();
    if (stopAt.IsStrictlyPositive())
    {
        Simulator::Stop(stopAt);
    }
    auto wall0 = std::chrono::steady_clock::now();
    const double sync0 = Distributed::GetSyncSeconds();
    const uint64_t syncs0 = Distributed::GetSyncCount();
    Simulator::Run();
    m_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    m_syncWall = Distributed::GetSyncSeconds() - sync0;
    m_syncs = Distributed::GetSyncCount() - syncs0;
    if (m_distributed)
    {
        GatherResults();
    }
    else if (EventOrder::IsWindow())
    {
        // the window simulator numbered collectives as groups met them
        m_ctx->SortRecordsByFirstIssue();
    }
    m_status = 0;
    bool unfinished = false;
    // rank 0 of a distributed run holds every NPU's results; another rank judges its own
    for (const auto& a : m_apps)
    {
        if (!a->GetError().empty())
        {
            m_status = 1;
        }
        unfinished = unfinished || !a->IsFinished();
    }
    if (m_status == 0 && unfinished)
    {
        m_status = 2;
    }
    const uint64_t losslessDrops = m_distributed
                                       ? Distributed::AllReduceSum(m_monitor->GetLosslessDrops())
                                       : m_monitor->GetLosslessDrops();
    if (m_status == 0 && losslessDrops > 0)
    {
        m_status = 3;
    }
    if (Warnings::GetStream() != nullptr)
    {
        Warnings::PrintSummary(*Warnings::GetStream());
    }
    return m_status;
}

void
AstraSimScenario::SetDistributed(bool enable)
{
    m_distributed = enable;
}

const std::vector<std::string>&
AstraSimScenario::GetRankStats() const
{
    return m_rankStats;
}

void
AstraSimScenario::GatherResults()
{
    // every NPU's results and the collective records to rank 0 (collective calls)
    std::ostringstream mine;
    for (const auto& a : m_localApps)
    {
        const std::string r = a->ExportResult();
        mine << a->GetNpuId() << " " << r.size() << "\n" << r;
    }
    std::vector<std::string> results = Distributed::Gather(mine.str());
    const std::vector<std::string> records = Distributed::Gather(m_ctx->ExportRecords());
    std::ostringstream stats;
    const uint64_t events = Simulator::GetEventCount();
    stats << "events " << events << ", wall " << std::fixed << std::setprecision(3) << m_wall
          << " s, events/s " << std::setprecision(0) << (m_wall > 0 ? double(events) / m_wall : 0)
          << ", sync wait " << std::setprecision(3) << m_syncWall << " s (" << std::setprecision(1)
          << (m_wall > 0 ? 100.0 * m_syncWall / m_wall : 0) << " %) in " << m_syncs
          << " synchronisations";
    m_rankStats = Distributed::Gather(stats.str());
    // this rank's problems, for rank 0's PrintStatus
    std::ostringstream status;
    if (m_monitor->IsHung())
    {
        status << "rank " << Distributed::GetRank() << ": deadlock: unmatched SEND/RECV or "
               << "collective, or a stuck fabric\n"
               << m_monitor->GetHangReport();
    }
    if (m_monitor->GetLosslessDrops() > 0)
    {
        status << "error: rank " << Distributed::GetRank() << ": "
               << m_monitor->DescribeLosslessDrops();
    }
    const std::vector<std::string> statuses = Distributed::Gather(status.str());
    if (Distributed::GetRank() != 0)
    {
        return;
    }
    // every rank's, rank 0's too (PrintStatus of a distributed run refers to them)
    for (const auto& st : statuses)
    {
        m_remoteStatus += st;
    }
    // one per NPU for the reports: this rank's applications and a result holder for each
    // NPU of another rank (it has no application, workload or node here)
    const uint32_t npus = m_ctx->GetNpuCount();
    std::vector<Ptr<AstraSimApplication>> all(npus);
    for (const auto& a : m_localApps)
    {
        all[a->GetNpuId()] = a;
    }
    for (size_t r = 1; r < results.size(); ++r)
    {
        std::istringstream is(results[r]);
        std::string().swap(results[r]); // the stream has its copy: one rank's text at a time
        uint32_t npu = 0;
        size_t len = 0;
        while (is >> npu >> len)
        {
            is.get();
            std::string text(len, '\0');
            is.read(&text[0], std::streamsize(len));
            if (npu >= npus || all[npu])
            {
                throw std::runtime_error("a result for NPU " + std::to_string(npu) +
                                         " came from rank " + std::to_string(r));
            }
            all[npu] = AstraSimApplication::FromResult(text);
            if (all[npu]->GetNpuId() != npu)
            {
                throw std::runtime_error("the result for NPU " + std::to_string(npu) +
                                         " from rank " + std::to_string(r) + " is NPU " +
                                         std::to_string(all[npu]->GetNpuId()) + "'s");
            }
        }
    }
    for (uint32_t i = 0; i < npus; ++i)
    {
        if (!all[i])
        {
            throw std::runtime_error("no rank sent the result of NPU " + std::to_string(i));
        }
    }
    m_apps = std::move(all);
    m_ctx->MergeRecords(records);
}

void
AstraSimScenario::PrintStatus(std::ostream& out) const
{
    // composed first and written at once: on MPI ranks std::cerr (unbuffered) would send
    // each piece as its own write, and mpirun interleaves other ranks' output between them
    std::ostringstream os;
    os << m_remoteStatus;
    for (const auto& a : m_apps)
    {
        if (!a->GetError().empty())
        {
            os << "error: NPU " << a->GetNpuId() << ": " << a->GetError() << std::endl;
        }
    }
    if (m_status == 2)
    {
        // every NPU's state (a distributed run: gathered to rank 0)
        uint32_t left = 0;
        for (const auto& a : m_apps)
        {
            left += a->IsFinished() ? 0 : 1;
        }
        os << "error: " << left << " of " << m_apps.size() << " NPU(s) unfinished at "
           << Simulator::Now().GetNanoSeconds() << " ns";
        if (m_distributed)
        {
            os << " (see the ranks' reports above, if any)\n";
        }
        else if (m_monitor->IsHung())
        {
            os << " (deadlock: unmatched SEND/RECV or collective, or a stuck fabric)\n"
               << m_monitor->GetHangReport();
        }
        else
        {
            os << " (simulation time limit)\n"
               << m_monitor->DescribeFirstStuck() << m_monitor->DescribeWaits();
        }
    }
    if (m_monitor->GetLosslessDrops() > 0 && !m_distributed)
    {
        os << "error: " << m_monitor->DescribeLosslessDrops();
    }
    out << os.str() << std::flush;
}

void
AstraSimScenario::PrintNpuLines(std::ostream& os) const
{
    AstraReport(m_ctx, m_apps).PrintNpuLines(os);
}

void
AstraSimScenario::PrintSummary(std::ostream& os) const
{
    AstraReport(m_ctx, m_apps).PrintSummary(os);
    if (m_inSwitch)
    {
        m_inSwitch->PrintSummary(os);
    }
    if (m_fabricMem)
    {
        MemoryReport(m_fabricMem).Print(os);
    }
}

/// The fabric's counters totalled over the ranks of a distributed run.
struct AstraSimScenario::FabricTotals
{
    RdmaRunSummary sum;         //!< counters; slowdowns over every rank's FCT records
    uint64_t deliveredMsgs{0};  //!< RoCE backend: messages delivered
    uint64_t deliveredBytes{0}; //!< RoCE backend: bytes delivered
    uint64_t qps{0};            //!< RoCE backend: QPs opened
};

RdmaRunSummary
AstraSimScenario::CollectFabricSummary(const RdmaFctWriter* fct) const
{
    // a distributed run: this rank's nodes only (the others' carry no events here)
    const uint32_t rank = Distributed::GetRank();
    auto local = [this, rank](NodeContainer nodes) {
        if (!m_distributed)
        {
            return nodes;
        }
        NodeContainer mine;
        for (uint32_t i = 0; i < nodes.GetN(); ++i)
        {
            if (nodes.Get(i)->GetSystemId() == rank)
            {
                mine.Add(nodes.Get(i));
            }
        }
        return mine;
    };
    const NodeContainer npus = local(m_fabric.GetNpus());
    RdmaRunSummary sum = RdmaRunSummary::Collect(npus, local(m_fabric.GetSwitches()), fct);
    // NPUs relaying transit traffic (switch-less or cross-dimension paths): their forwarders'
    // counters (their ports were counted as host ports above)
    for (uint32_t i = 0; i < npus.GetN(); ++i)
    {
        if (Ptr<RdmaSwitch> fwd = npus.Get(i)->GetObject<RdmaSwitch>())
        {
            sum.drops += fwd->GetDrops();
            sum.losslessDrops += fwd->GetLosslessDrops();
            sum.ecnMarks += fwd->GetEcnMarks();
            sum.pauseFrames += fwd->GetPausesSent();
            for (uint32_t p = 0; p < fwd->GetNPorts(); ++p)
            {
                sum.maxQueueBytes = std::max(sum.maxQueueBytes, fwd->GetMaxQueueBytes(p));
            }
        }
    }
    return sum;
}

void
AstraSimScenario::GatherFabricSummary()
{
    const RdmaRunSummary s = CollectFabricSummary(m_outputs ? &m_outputs->GetFct() : nullptr);
    std::ostringstream mine;
    mine << s.totalPauseTime.GetTimeStep() << " " << s.pauseFrames << " " << s.maxQueueBytes << " "
         << s.drops << " " << s.losslessDrops << " " << s.ecnMarks << " " << s.cnps << " " << s.naks
         << " " << s.timeouts << " " << s.retxPkts << " " << s.dataPkts << " "
         << m_roce->GetDeliveredMessages() << " " << m_roce->GetDeliveredBytes() << " "
         << m_roce->GetQpCount() << "\n";
    if (m_outputs)
    {
        // the FCT records' times, for the slowdown percentiles over every rank's records
        for (const auto& r : m_outputs->GetFct().GetRecords())
        {
            mine << (r.info.end - r.info.start).GetNanoSeconds() << " " << r.idealNs << "\n";
        }
    }
    const std::vector<std::string> all = Distributed::Gather(mine.str());
    if (Distributed::GetRank() != 0)
    {
        return;
    }
    auto t = std::make_unique<FabricTotals>();
    std::vector<double> slowdowns;
    for (const auto& text : all)
    {
        std::istringstream is(text);
        int64_t pause = 0;
        uint64_t v[13] = {};
        is >> pause;
        for (auto& x : v)
        {
            is >> x;
        }
        if (!is)
        {
            throw std::runtime_error("a rank's fabric counters could not be read");
        }
        t->sum.totalPauseTime += TimeStep(uint64_t(pause));
        t->sum.pauseFrames += v[0];
        t->sum.maxQueueBytes = std::max(t->sum.maxQueueBytes, v[1]);
        t->sum.drops += v[2];
        t->sum.losslessDrops += v[3];
        t->sum.ecnMarks += v[4];
        t->sum.cnps += v[5];
        t->sum.naks += v[6];
        t->sum.timeouts += v[7];
        t->sum.retxPkts += v[8];
        t->sum.dataPkts += v[9];
        t->deliveredMsgs += v[10];
        t->deliveredBytes += v[11];
        t->qps += v[12];
        int64_t fctNs = 0;
        uint64_t idealNs = 0;
        while (is >> fctNs >> idealNs)
        {
            ++t->sum.messages;
            if (idealNs > 0)
            {
                slowdowns.push_back(double(fctNs) / double(idealNs));
            }
        }
    }
    std::sort(slowdowns.begin(), slowdowns.end());
    t->sum.slowdownP50 = RdmaFctWriter::Percentile(slowdowns, 0.50);
    t->sum.slowdownP95 = RdmaFctWriter::Percentile(slowdowns, 0.95);
    t->sum.slowdownP99 = RdmaFctWriter::Percentile(slowdowns, 0.99);
    m_fabricTotals = std::move(t);
}

void
AstraSimScenario::PrintFabricSummary(std::ostream& os, const RdmaFctWriter* fct) const
{
    if (!m_roce)
    {
        return;
    }
    RdmaRunSummary sum;
    uint64_t deliveredMsgs = 0;
    uint64_t deliveredBytes = 0;
    uint64_t qps = 0;
    if (m_fabricTotals)
    {
        sum = m_fabricTotals->sum;
        deliveredMsgs = m_fabricTotals->deliveredMsgs;
        deliveredBytes = m_fabricTotals->deliveredBytes;
        qps = m_fabricTotals->qps;
    }
    else
    {
        sum = CollectFabricSummary(fct);
        deliveredMsgs = m_roce->GetDeliveredMessages();
        deliveredBytes = m_roce->GetDeliveredBytes();
        qps = m_roce->GetQpCount();
    }
    os << "fabric: PFC pause frames " << sum.pauseFrames << " (paused "
       << sum.totalPauseTime.GetMicroSeconds() << " us in total), ECN marks " << sum.ecnMarks
       << ", CNPs " << sum.cnps << ", drops " << sum.drops << " (lossless " << sum.losslessDrops
       << "), NAKs " << sum.naks << ", timeouts " << sum.timeouts << ", retransmitted packets "
       << sum.retxPkts << ", peak queue " << sum.maxQueueBytes << " B\n";
    os << "FCT slowdown p50 " << std::setprecision(2) << sum.slowdownP50 << ", p95 "
       << sum.slowdownP95 << ", p99 " << sum.slowdownP99 << " over " << sum.messages
       << " messages\n";
    os << "roce backend: " << deliveredMsgs << " messages, " << deliveredBytes
       << " bytes delivered, " << qps << " QPs; wall " << std::fixed << std::setprecision(2)
       << m_wall << " s, events " << Simulator::GetEventCount() << "\n";
}

void
AstraSimScenario::EnableFabricOutputs(const std::string& dir, Time queueSample, Time stop)
{
    if (!m_built)
    {
        throw std::runtime_error("AstraSimScenario::EnableFabricOutputs before Build");
    }
    if (!m_roce)
    {
        return;
    }
    // a distributed run: each rank writes its own nodes' lines into a folder of its own
    // (CloseFabricOutputs merges them into dir on rank 0)
    const uint32_t rank = Distributed::GetRank();
    auto mine = [this, rank](Ptr<Node> n) { return !m_distributed || n->GetSystemId() == rank; };
    std::string folder = dir;
    if (m_distributed)
    {
        folder = dir + "/.rank-" + std::to_string(rank);
        if (mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST)
        {
            throw InputError("cannot create '" + folder + "': " + std::strerror(errno));
        }
    }
    NodeContainer all = m_fabric.GetAllNodes();
    NodeContainer forwarding; // switches and NPUs that relay transit traffic
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        if (all.Get(i)->GetObject<RdmaSwitch>() && mine(all.Get(i)))
        {
            forwarding.Add(all.Get(i));
        }
    }
    NodeContainer hosts;
    for (uint32_t i = 0; i < m_fabric.GetNpus().GetN(); ++i)
    {
        if (mine(m_fabric.GetNpus().Get(i)))
        {
            hosts.Add(m_fabric.GetNpus().Get(i));
        }
    }
    m_outputs = std::make_unique<AstraFabricOutputs>(folder, hosts, forwarding, queueSample, stop);
    m_outputsDir = dir;
}

void
AstraSimScenario::CloseFabricOutputs()
{
    if (!m_outputs)
    {
        return;
    }
    m_outputs->Close();
    if (m_distributed && !m_outputsGathered)
    {
        m_outputsGathered = true;
        // a single process stops when the last NPU finishes; the ranks run on to the
        // monitor's next check: their lines after that end are left out (rank 0 knows it)
        int64_t endNs = -1;
        if (Distributed::GetRank() == 0)
        {
            bool all = true;
            for (const auto& a : m_apps)
            {
                all = all && a->IsFinished();
                endNs = std::max(endNs, a->GetStats().finish.GetNanoSeconds());
            }
            endNs = all ? endNs : -1;
        }
        m_outputs->GatherTo(m_outputsDir, endNs);
        GatherFabricSummary();
    }
}

const AstraFabricOutputs*
AstraSimScenario::GetFabricOutputs() const
{
    return m_outputs.get();
}

void
AstraSimScenario::PrintFabricSummary(std::ostream& os) const
{
    PrintFabricSummary(os, m_outputs ? &m_outputs->GetFct() : nullptr);
}

uint32_t
AstraSimScenario::WritePlots(std::string& msg) const
{
    if (!m_outputs)
    {
        msg = "no plots: the fabric's files are written on the RoCE backend only";
        return 0;
    }
    return m_outputs->WritePlots(m_ctx->GetRecords(), msg);
}

void
AstraSimScenario::PrepareOutputDir(const std::string& dir)
{
    if (dir.empty())
    {
        throw InputError("empty name given for the report folder");
    }
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    {
        throw InputError("cannot write reports into '" + dir + "': " + std::strerror(errno));
    }
    struct stat st;
    if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    {
        throw InputError("cannot write reports into '" + dir + "': not a folder");
    }
    if (access(dir.c_str(), W_OK | X_OK) != 0)
    {
        throw InputError("cannot write reports into '" + dir + "': " + std::strerror(errno));
    }
}

void
AstraSimScenario::WriteReports(const std::string& dir) const
{
    mkdir(dir.c_str(), 0755);
    AstraReport report(m_ctx, m_apps);
    report.WriteNpuCsv(dir + "/npus.csv");
    report.WriteCollectiveCsv(dir + "/collectives.csv");
    if (!m_fabricMem)
    {
        report.WriteChromeTrace(dir + "/timeline.json");
        return;
    }
    // memory nodes on the network
    MemoryReport mem(m_fabricMem);
    report.WriteChromeTrace(dir + "/timeline.json",
                            mem.ChromeTraceEvents(static_cast<uint32_t>(m_apps.size())));
    mem.WriteCsv(dir + "/memory.csv");
    mem.WriteUtilisationCsv(dir + "/memory-utilisation.csv");
}

Ptr<SystemContext>
AstraSimScenario::GetContext() const
{
    return m_ctx;
}

const std::vector<Ptr<AstraSimApplication>>&
AstraSimScenario::GetApps() const
{
    return m_apps;
}

Ptr<NetworkBackend>
AstraSimScenario::GetBackend() const
{
    return m_backend;
}

Ptr<RoceBackend>
AstraSimScenario::GetRoceBackend() const
{
    return m_roce;
}

NodeContainer
AstraSimScenario::GetNpuNodes() const
{
    return m_nodes;
}

double
AstraSimScenario::GetWallSeconds() const
{
    return m_wall;
}

int
AstraSimScenario::GetStatus() const
{
    return m_status;
}

void
AstraSimScenario::Destroy()
{
    m_outputs.reset();
    m_fabricTotals.reset();
    m_outputsGathered = false;
    m_apps.clear();
    m_localApps.clear();
    if (m_monitor)
    {
        m_monitor->Dispose();
    }
    m_monitor = nullptr;
    if (m_ctx)
    {
        m_ctx->Dispose();
    }
    m_ctx = nullptr;
    if (m_inSwitch)
    {
        m_inSwitch->Dispose(); // with the backend it is aggregated to
    }
    m_inSwitch = nullptr;
    if (m_fabricMem)
    {
        m_fabricMem->Dispose();
    }
    m_fabricMem = nullptr;
    m_mem = nullptr;
    m_backend = nullptr;
    m_roce = nullptr;
    m_nodes = NodeContainer();
    Simulator::Destroy();
    Warnings::Reset();
}

} // namespace astra
} // namespace ns3
