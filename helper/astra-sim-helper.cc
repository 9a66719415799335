#include "astra-sim-helper.h"

#include "ns3/analytical-backend.h"
#include "ns3/astra-config.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-report.h"
#include "ns3/boolean.h"
#include "ns3/chakra-reader.h"
#include "ns3/double.h"
#include "ns3/flow-backend.h"
#include "ns3/log.h"
#include "ns3/network-backend-factory.h"
#include "ns3/node-list.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-forwarding-table.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-meta.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-trace-writers.h"
#include "ns3/roce-backend.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/stat.h>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraSimHelper");
NS_OBJECT_ENSURE_REGISTERED(AstraRunMonitor);

AstraSimHelper::AstraSimHelper()
{
    m_factory.SetTypeId(AstraSimApplication::GetTypeId());
}

void
AstraSimHelper::SetContext(Ptr<SystemContext> ctx)
{
    m_ctx = ctx;
}

void
AstraSimHelper::SetWorkloads(const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs)
{
    m_graphs = graphs;
}

void
AstraSimHelper::SetMemoryModel(Ptr<MemoryModel> mem)
{
    m_mem = mem;
}

void
AstraSimHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

ApplicationContainer
AstraSimHelper::Install(NodeContainer nodes)
{
    if (!m_ctx)
    {
        throw std::runtime_error("AstraSimHelper::Install: no system context set");
    }
    if (nodes.GetN() != m_ctx->GetNpuCount() || m_graphs.size() != m_ctx->GetNpuCount())
    {
        throw std::runtime_error("AstraSimHelper::Install: " + std::to_string(nodes.GetN()) +
                                 " nodes and " + std::to_string(m_graphs.size()) +
                                 " workload graphs for a network of " +
                                 std::to_string(m_ctx->GetNpuCount()) + " NPUs");
    }
    for (const auto& g : m_graphs)
    {
        for (const auto& kv : g->commGroups)
        {
            if (!m_ctx->HasCommGroup(kv.first))
            {
                m_ctx->AddCommGroup(kv.first, kv.second);
            }
        }
    }
    ApplicationContainer apps;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<AstraSimApplication> app = m_factory.Create<AstraSimApplication>();
        app->Setup(i, m_ctx, m_graphs[i]);
        if (m_mem)
        {
            app->SetMemoryModel(m_mem);
        }
        nodes.Get(i)->AddApplication(app);
        apps.Add(app);
    }
    return apps;
}

Ptr<NetworkBackend>
AstraSimHelper::CreateBackend(const std::string& kind,
                              std::shared_ptr<const Topology> topo,
                              bool compat)
{
    if (NetworkBackendFactory::NeedsFabric(kind))
    {
        throw InputError("network backend '" + kind +
                         "' needs a fabric of ns-3 nodes: use AstraSimScenario");
    }
    return NetworkBackendFactory::Create(kind, topo, compat);
}

namespace
{
bool
Exists(const std::string& p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0;
}

std::vector<AlgoSpec>
ParseAlgos(const nlohmann::json& j, const std::string& key, const std::string& path)
{
    std::vector<AlgoSpec> out;
    auto parse = [&](const nlohmann::json& v) {
        if (!v.is_string())
        {
            throw std::runtime_error(path + ": '" + key + "' must list algorithm names");
        }
        try
        {
            out.push_back(AlgoSpec::Parse(v.get<std::string>()));
        }
        catch (const std::exception& e)
        {
            throw std::runtime_error(path + ": '" + key + "': " + e.what());
        }
    };
    if (j.is_array())
    {
        for (const auto& v : j)
        {
            parse(v);
        }
    }
    else
    {
        parse(j);
    }
    if (out.empty())
    {
        out.push_back(AlgoSpec{});
    }
    return out;
}
} // namespace

namespace
{
/// ASTRA-sim 1.0 "key: value" system files go through the config parser (astra-config.h)
SystemParams
FromConfig(const SystemConfig& c)
{
    SystemParams p;
    p.scheduling = c.schedulingPolicy == "FIFO"       ? SchedulingPolicy::FIFO
                   : c.schedulingPolicy == "EXPLICIT" ? SchedulingPolicy::EXPLICIT
                                                      : SchedulingPolicy::LIFO;
    p.optimization = c.collectiveOptimization == "localBWAware" ? CollOptimization::LOCAL_BW_AWARE
                                                                : CollOptimization::BASELINE;
    auto conv = [](const std::vector<CollAlgorithm>& in, std::vector<AlgoSpec>& out) {
        if (in.empty())
        {
            return;
        }
        out.clear();
        for (const auto& a : in)
        {
            out.push_back(AlgoSpec::Parse(a.text.empty() ? ConfigAlgoKindName(a.kind) : a.text));
        }
    };
    conv(c.allReduceImpl, p.allReduce);
    conv(c.allGatherImpl, p.allGather);
    conv(c.reduceScatterImpl, p.reduceScatter);
    conv(c.allToAllImpl, p.allToAll);
    const std::pair<const std::vector<std::string>*, CollType> customs[] = {
        {&c.allReduceCustom, CollType::ALL_REDUCE},
        {&c.allGatherCustom, CollType::ALL_GATHER},
        {&c.reduceScatterCustom, CollType::REDUCE_SCATTER},
        {&c.allToAllCustom, CollType::ALL_TO_ALL}};
    for (const auto& cu : customs)
    {
        if (!cu.first->empty())
        {
            p.custom[cu.second] = std::make_shared<std::vector<WorkloadGraph>>(
                ReadChakraPrefix(c.ResolveCustomPrefix(cu.first->front()), 0));
        }
    }
    p.splits = c.preferredDatasetSplits;
    p.activeChunks = c.activeChunksPerDimension;
    p.endpointDelayNs = c.endpointDelay;
    p.localMemBwGBps = c.localMemBw;
    p.peakPerfTflops = c.peakPerf;
    p.rooflineEnabled = c.rooflineEnabled;
    return p;
}
} // namespace

SystemParams
AstraSimHelper::LoadSystemParams(const std::string& path, const std::string& baseDir)
{
    if (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0)
    {
        ConfigParseOptions o;
        o.allowUnknownKeys = true;
        try
        {
            return FromConfig(ParseSystemConfig(path, o));
        }
        catch (const std::invalid_argument& e)
        {
            throw std::runtime_error("system configuration '" + path + "': " + e.what());
        }
    }
    std::ifstream in(path);
    if (!in)
    {
        throw std::runtime_error("cannot open system configuration '" + path + "'");
    }
    nlohmann::json j;
    try
    {
        in >> j;
    }
    catch (const std::exception& e)
    {
        throw std::runtime_error("system configuration '" + path +
                                 "' is not valid JSON: " + e.what());
    }
    SystemParams p;
    auto num = [&](const char* key, double def) {
        if (!j.contains(key))
        {
            return def;
        }
        const auto& v = j[key];
        if (v.is_number())
        {
            return v.get<double>();
        }
        if (v.is_boolean())
        {
            return v.get<bool>() ? 1.0 : 0.0;
        }
        if (v.is_string())
        {
            try
            {
                return std::stod(v.get<std::string>());
            }
            catch (...)
            {
            }
        }
        throw std::runtime_error("system configuration '" + path + "': key '" + key +
                                 "' must be a number");
    };
    std::string sched = j.value("scheduling-policy", std::string("LIFO"));
    if (sched == "LIFO")
    {
        p.scheduling = SchedulingPolicy::LIFO;
    }
    else if (sched == "FIFO")
    {
        p.scheduling = SchedulingPolicy::FIFO;
    }
    else if (sched == "EXPLICIT" || sched == "HIGHEST")
    {
        p.scheduling = SchedulingPolicy::EXPLICIT;
    }
    else
    {
        throw std::runtime_error("system configuration '" + path +
                                 "': scheduling-policy must be LIFO, FIFO or EXPLICIT, not '" +
                                 sched + "'");
    }
    std::string opt = j.value("collective-optimization", std::string("baseline"));
    if (opt == "baseline")
    {
        p.optimization = CollOptimization::BASELINE;
    }
    else if (opt == "localBWAware")
    {
        p.optimization = CollOptimization::LOCAL_BW_AWARE;
    }
    else
    {
        throw std::runtime_error("system configuration '" + path +
                                 "': collective-optimization must be baseline or localBWAware, "
                                 "not '" +
                                 opt + "'");
    }
    const std::pair<const char*, std::vector<AlgoSpec>*> lists[] = {
        {"all-reduce-implementation", &p.allReduce},
        {"all-gather-implementation", &p.allGather},
        {"reduce-scatter-implementation", &p.reduceScatter},
        {"all-to-all-implementation", &p.allToAll}};
    for (const auto& l : lists)
    {
        if (j.contains(l.first))
        {
            *l.second = ParseAlgos(j[l.first], l.first, path);
        }
    }
    const std::pair<const char*, CollType> customs[] = {
        {"all-reduce-implementation-custom", CollType::ALL_REDUCE},
        {"all-gather-implementation-custom", CollType::ALL_GATHER},
        {"reduce-scatter-implementation-custom", CollType::REDUCE_SCATTER},
        {"all-to-all-implementation-custom", CollType::ALL_TO_ALL}};
    for (const auto& cu : customs)
    {
        if (!j.contains(cu.first))
        {
            continue;
        }
        const auto& v = j[cu.first];
        std::string prefix = v.is_array() && !v.empty() ? v[0].get<std::string>()
                             : v.is_string()            ? v.get<std::string>()
                                                        : "";
        if (prefix.empty())
        {
            throw std::runtime_error("system configuration '" + path + "': '" + cu.first +
                                     "' must name a trace prefix");
        }
        std::vector<std::string> candidates{prefix};
        if (!baseDir.empty())
        {
            candidates.push_back(baseDir + "/" + prefix);
        }
        std::string dir = path.substr(0, path.find_last_of('/') + 1);
        candidates.push_back(dir + prefix);
        std::string found;
        for (const auto& c : candidates)
        {
            if (Exists(ChakraRankFile(c, 0)))
            {
                found = c;
                break;
            }
        }
        if (found.empty())
        {
            throw std::runtime_error("system configuration '" + path + "': '" + cu.first +
                                     "' traces not found: " + ChakraRankFile(prefix, 0));
        }
        auto graphs = std::make_shared<std::vector<WorkloadGraph>>(ReadChakraPrefix(found, 0));
        p.custom[cu.second] = graphs;
    }
    p.splits = static_cast<uint32_t>(num("preferred-dataset-splits", 1));
    p.activeChunks = static_cast<uint32_t>(num("active-chunks-per-dimension", 1));
    p.endpointDelayNs = num("endpoint-delay", 10);
    p.localMemBwGBps = num("local-mem-bw", 0);
    p.peakPerfTflops = num("peak-perf", 0);
    p.rooflineEnabled = num("roofline-enabled", 0) != 0;
    if (num("model-shared-bus", 0) != 0)
    {
        NS_LOG_WARN(path << ": model-shared-bus (LogGP endpoint model) is not implemented; "
                            "using endpoint-delay");
    }
    return p;
}

std::map<std::string, std::vector<uint32_t>>
AstraSimHelper::LoadCommGroups(const std::string& path)
{
    std::map<std::string, std::vector<uint32_t>> groups;
    if (path.empty() || path == "empty")
    {
        return groups;
    }
    std::ifstream in(path);
    if (!in)
    {
        throw std::runtime_error("cannot open communicator group configuration '" + path + "'");
    }
    nlohmann::json j;
    try
    {
        in >> j;
    }
    catch (const std::exception& e)
    {
        throw std::runtime_error("communicator group configuration '" + path +
                                 "' is not valid JSON: " + e.what());
    }
    if (!j.is_object())
    {
        throw std::runtime_error("communicator group configuration '" + path +
                                 "' must be an object {\"id\": [npu, ...]}");
    }
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        if (!it.value().is_array())
        {
            throw std::runtime_error("communicator group configuration '" + path + "': group '" +
                                     it.key() + "' must be a list of NPU ids");
        }
        std::vector<uint32_t> m;
        for (const auto& v : it.value())
        {
            if (!v.is_number_integer() || v.get<int64_t>() < 0)
            {
                throw std::runtime_error("communicator group configuration '" + path +
                                         "': group '" + it.key() + "' has a bad NPU id");
            }
            m.push_back(v.get<uint32_t>());
        }
        groups[it.key()] = m;
    }
    return groups;
}

int64_t
AstraRunResult::MaxFinish() const
{
    int64_t m = -1;
    for (int64_t f : finishNs)
    {
        m = std::max(m, f);
    }
    return m;
}

AstraRunResult
AstraSimHelper::Run(std::shared_ptr<const Topology> topo,
                    const SystemParams& params,
                    const std::vector<std::shared_ptr<const WorkloadGraph>>& graphs,
                    const AstraRunOptions& opts)
{
    // the same path as the examples: AstraSimScenario under an AstraRunMonitor
    AstraRunResult r;
    AstraSimScenario sc;
    sc.SetTopology(topo);
    sc.SetSystemParams(params);
    sc.SetWorkloads(graphs);
    sc.SetCommGroups(opts.commGroups);
    sc.SetBackend(opts.backend);
    sc.SetAppAttribute("ReferenceHwLimits", BooleanValue(opts.referenceHwLimits));
    if (opts.memory)
    {
        sc.SetMemoryModel(opts.memory);
    }
    sc.GetMonitor()->SetAttribute("ProgressInterval", DoubleValue(0));
    sc.Build();
    if (opts.hook)
    {
        opts.hook(sc.GetContext(), sc.GetApps());
    }
    sc.Run();
    for (const auto& a : sc.GetApps())
    {
        r.finishNs.push_back(a->IsFinished() ? a->GetStats().finish.GetNanoSeconds() : -1);
        r.stats.push_back(a->GetStats());
        if (!a->GetError().empty() && r.error.empty())
        {
            r.error = "NPU " + std::to_string(a->GetNpuId()) + ": " + a->GetError();
        }
        if (!a->IsFinished())
        {
            r.unfinished.push_back(a->GetNpuId());
            if (r.unfinished.size() <= 32)
            {
                r.pending += a->DescribePending();
            }
        }
    }
    r.records = sc.GetContext()->GetRecords();
    r.events = Simulator::GetEventCount();
    r.messages = sc.GetContext()->GetMessagesSent();
    sc.Destroy();
    return r;
}

} // namespace astra
} // namespace ns3

namespace ns3
{
namespace astra
{

std::vector<std::shared_ptr<const WorkloadGraph>>
AstraSimHelper::MakeCollectiveWorkload(uint32_t npus, CollType type, uint64_t bytes)
{
    std::vector<std::shared_ptr<const WorkloadGraph>> graphs;
    for (uint32_t i = 0; i < npus; ++i)
    {
        auto g = std::make_shared<WorkloadGraph>();
        g->file = "generated";
        g->rank = i;
        WorkloadNode n;
        n.id = 1;
        n.name = std::string(CollTypeName(type)) + " " + std::to_string(bytes) + " B";
        n.kind = NodeKind::COMM_COLL;
        n.collType = type;
        n.commSize = bytes;
        g->nodes.push_back(n);
        g->BuildIndex();
        graphs.push_back(g);
    }
    return graphs;
}

double
AstraSimHelper::HierarchicalAllReduceNs(const std::vector<DimensionSpec>& dims,
                                        uint64_t bytes,
                                        double overhead,
                                        uint32_t frameBytes)
{
    // localBWAware order: highest bandwidth first (ties by index)
    std::vector<DimensionSpec> order = dims;
    std::stable_sort(order.begin(),
                     order.end(),
                     [](const DimensionSpec& a, const DimensionSpec& b) {
                         return a.bandwidthGBps > b.bandwidthGBps;
                     });
    double t = 0;
    double shard = double(bytes);
    for (const auto& d : order)
    {
        if (d.npus <= 1)
        {
            continue;
        }
        const double n = d.npus;
        const double hops = d.type == DimType::SWITCH ? 2.0 : 1.0;
        const double bw = GBpsToBytesPerNs(d.bandwidthGBps);
        // 2 (n - 1) ring steps: bandwidth term, then per step the data's and the ACK's
        // path latency and one frame of store-and-forward per switch on the path
        t += 2.0 * (n - 1) / n * shard * overhead / bw;
        t += 2.0 * (n - 1) * (2.0 * hops * d.latencyNs + (hops - 1) * frameBytes / bw);
        shard /= n;
    }
    return t;
}

// ---------------------------------------------------------------------------
// AstraRunMonitor

TypeId
AstraRunMonitor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::AstraRunMonitor")
            .SetParent<Object>()
            .SetGroupName("AstraSim")
            .AddConstructor<AstraRunMonitor>()
            .AddAttribute("HangTimeout",
                          "Simulated time without progress (while NPUs are unfinished and no "
                          "compute runs) after which the run is declared hung; keep it above the "
                          "RDMA retransmission timeout (RdmaHostStack::Rto) with its backoff",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&AstraRunMonitor::m_hangTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ProgressInterval",
                          "Wall-clock seconds between progress lines on std::cerr (0: none)",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&AstraRunMonitor::m_progressSeconds),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("StopWhenFinished",
                          "Stop the simulator when the last NPU finished (packet-level timers, "
                          "e.g. DCQCN rate recovery, would keep the event list alive)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&AstraRunMonitor::m_stopWhenFinished),
                          MakeBooleanChecker())
            .AddAttribute("StopOnHang",
                          "Stop the simulator when a hang is detected",
                          BooleanValue(true),
                          MakeBooleanAccessor(&AstraRunMonitor::m_stopOnHang),
                          MakeBooleanChecker())
            .AddAttribute("MaxReportLines",
                          "At most this many entries per list in the hang report",
                          UintegerValue(32),
                          MakeUintegerAccessor(&AstraRunMonitor::m_maxLines),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("Hang",
                            "A hang was detected (the report)",
                            MakeTraceSourceAccessor(&AstraRunMonitor::m_hangTrace),
                            "ns3::astra::AstraRunMonitor::HangTracedCallback");
    return tid;
}

AstraRunMonitor::AstraRunMonitor()
{
}

AstraRunMonitor::~AstraRunMonitor() = default;

void
AstraRunMonitor::DoDispose()
{
    m_apps.clear();
    m_backend = nullptr;
    m_roce = nullptr;
    m_devs.clear();
    Object::DoDispose();
}

void
AstraRunMonitor::Watch(const std::vector<Ptr<AstraSimApplication>>& apps,
                       Ptr<NetworkBackend> backend)
{
    m_apps = apps;
    m_backend = backend;
    m_roce = DynamicCast<RoceBackend>(backend);
    m_running.assign(apps.size(), {});
    for (const auto& a : apps)
    {
        a->TraceConnectWithoutContext("NodeStart",
                                      MakeCallback(&AstraRunMonitor::OnNodeStart, this));
        a->TraceConnectWithoutContext("NodeEnd", MakeCallback(&AstraRunMonitor::OnNodeEnd, this));
        a->TraceConnectWithoutContext("Finished", MakeCallback(&AstraRunMonitor::OnFinished, this));
    }
}

void
AstraRunMonitor::WatchFabric(NodeContainer nodes)
{
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<Node> n = nodes.Get(i);
        if (Ptr<RdmaSwitch> sw = n->GetObject<RdmaSwitch>())
        {
            sw->TraceConnectWithoutContext("LosslessDrop",
                                           MakeCallback(&AstraRunMonitor::OnLosslessDrop, this));
        }
        for (uint32_t d = 0; d < n->GetNDevices(); ++d)
        {
            Ptr<RdmaNetDevice> dev = DynamicCast<RdmaNetDevice>(n->GetDevice(d));
            if (!dev)
            {
                continue;
            }
            const uint32_t idx = uint32_t(m_devs.size());
            m_devs.push_back(dev);
            dev->TraceConnectWithoutContext(
                "PauseState",
                MakeBoundCallback(
                    +[](AstraRunMonitor* m, uint32_t dev, uint8_t prio, bool paused) {
                        m->OnPause(dev, prio, paused);
                    },
                    this,
                    idx));
        }
    }
    m_pauseSince.assign(m_devs.size() * 8, Time(-1));
}

void
AstraRunMonitor::Start()
{
    NS_ABORT_MSG_IF(m_started, "AstraRunMonitor::Start called twice");
    m_started = true;
    m_wallStart = m_wallLast = std::chrono::steady_clock::now();
    m_lastEventCount = Simulator::GetEventCount();
    m_lastChange = Simulator::Now();
    Simulator::Schedule(m_hangTimeout / 2, &AstraRunMonitor::Check, this);
    if (m_progressSeconds > 0)
    {
        Simulator::Schedule(m_progressInterval, &AstraRunMonitor::ProgressTick, this);
    }
}

void
AstraRunMonitor::OnNodeStart(uint32_t npu, uint64_t id)
{
    ++m_events;
    const WorkloadNode* n = m_apps[npu]->GetGraph()->Find(id);
    if (n && n->kind != NodeKind::COMM_COLL && n->kind != NodeKind::COMM_SEND &&
        n->kind != NodeKind::COMM_RECV)
    {
        ++m_runningCompute;
    }
    m_running[npu].push_back(id);
}

void
AstraRunMonitor::OnNodeEnd(uint32_t npu, uint64_t id)
{
    ++m_events;
    const WorkloadNode* n = m_apps[npu]->GetGraph()->Find(id);
    if (n && n->kind != NodeKind::COMM_COLL && n->kind != NodeKind::COMM_SEND &&
        n->kind != NodeKind::COMM_RECV)
    {
        --m_runningCompute;
    }
    auto& r = m_running[npu];
    auto it = std::find(r.begin(), r.end(), id);
    if (it != r.end())
    {
        *it = r.back();
        r.pop_back();
    }
}

void
AstraRunMonitor::OnFinished(uint32_t npu, Time t)
{
    ++m_events;
    if (++m_finished == m_apps.size() && m_stopWhenFinished)
    {
        Simulator::Stop();
    }
}

void
AstraRunMonitor::OnLosslessDrop(uint32_t node, uint32_t port, uint8_t prio, const RdmaMeta& meta)
{
    ++m_losslessDrops;
    if (m_drops.size() < m_maxLines)
    {
        m_drops.push_back({Simulator::Now(),
                           node,
                           port,
                           prio,
                           RdmaAddressing::IpToHostIndex(meta.srcIp),
                           RdmaAddressing::IpToHostIndex(meta.dstIp),
                           meta.psn});
    }
}

void
AstraRunMonitor::OnPause(uint32_t dev, uint8_t prio, bool paused)
{
    Time& since = m_pauseSince[dev * 8 + (prio & 7)];
    if (paused && since.IsNegative())
    {
        since = Simulator::Now();
    }
    else if (!paused)
    {
        since = Time(-1);
    }
}

uint64_t
AstraRunMonitor::ProgressCounter() const
{
    return m_events + (m_roce ? m_roce->GetProgressCounter() : 0);
}

bool
AstraRunMonitor::IsHung() const
{
    return m_hung;
}

bool
AstraRunMonitor::AllFinished() const
{
    return !m_apps.empty() && m_finished == m_apps.size();
}

uint32_t
AstraRunMonitor::GetFinishedNpus() const
{
    return m_finished;
}

uint64_t
AstraRunMonitor::GetLosslessDrops() const
{
    return m_losslessDrops;
}

const std::string&
AstraRunMonitor::GetHangReport() const
{
    return m_report;
}

void
AstraRunMonitor::Check()
{
    if (AllFinished() || m_hung)
    {
        return;
    }
    const uint64_t c = ProgressCounter();
    if (c != m_lastCounter)
    {
        m_lastCounter = c;
        m_lastChange = Simulator::Now();
    }
    else if (m_runningCompute == 0 && Simulator::Now() - m_lastChange >= m_hangTimeout &&
             (m_roce || m_backend->GetPendingMessages() == 0))
    {
        ReportHang();
        if (m_stopOnHang)
        {
            Simulator::Stop();
        }
        return;
    }
    Simulator::Schedule(m_hangTimeout / 2, &AstraRunMonitor::Check, this);
}

void
AstraRunMonitor::PrintProgress()
{
    auto now = std::chrono::steady_clock::now();
    const double sinceLast = std::chrono::duration<double>(now - m_wallLast).count();
    const double total = std::chrono::duration<double>(now - m_wallStart).count();
    const uint64_t ev = Simulator::GetEventCount();
    std::ostringstream os;
    os << "[progress] wall " << std::fixed << std::setprecision(1) << total << " s, simulated "
       << std::setprecision(3) << Simulator::Now().GetNanoSeconds() / 1e6 << " ms, finished NPUs "
       << m_finished << "/" << m_apps.size() << ", " << std::setprecision(0)
       << (ev - m_lastEventCount) / std::max(1e-9, sinceLast) << " events/s";
    std::cerr << os.str() << std::endl;
    m_wallLast = now;
    m_lastEventCount = ev;
}

void
AstraRunMonitor::ProgressTick()
{
    if (AllFinished() || m_hung)
    {
        return;
    }
    const double sinceLast =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallLast).count();
    if (sinceLast >= m_progressSeconds)
    {
        PrintProgress();
        m_progressInterval = m_progressInterval / 2 + NanoSeconds(1);
    }
    else if (sinceLast < m_progressSeconds / 20 && m_progressInterval < m_hangTimeout)
    {
        // the simulated step between wall-clock checks adapts to the simulation speed
        m_progressInterval = m_progressInterval * 2;
    }
    Simulator::Schedule(m_progressInterval, &AstraRunMonitor::ProgressTick, this);
}

std::string
AstraRunMonitor::NodeLabel(Ptr<Node> node)
{
    if (!node)
    {
        return "?";
    }
    std::ostringstream os;
    if (Ptr<RdmaHostStack> h = node->GetObject<RdmaHostStack>())
    {
        os << "NPU " << h->GetHostIndex() << " (node " << node->GetId() << ")";
    }
    else
    {
        os << "switch node " << node->GetId();
    }
    return os.str();
}

std::string
AstraRunMonitor::DescribeWaits() const
{
    std::ostringstream os;
    uint32_t shown = 0;
    for (uint32_t i = 0; i < m_apps.size(); ++i)
    {
        const auto& a = m_apps[i];
        if (a->IsFinished())
        {
            continue;
        }
        if (++shown > m_maxLines)
        {
            continue;
        }
        os << "NPU " << a->GetNpuId() << " waits on " << m_running[i].size() << " node(s):\n";
        std::vector<uint64_t> ids = m_running[i];
        std::sort(ids.begin(), ids.end());
        uint32_t listed = 0;
        for (uint64_t id : ids)
        {
            if (++listed > m_maxLines)
            {
                os << "    ... and " << (ids.size() - m_maxLines) << " more\n";
                break;
            }
            const WorkloadNode* n = a->GetGraph()->Find(id);
            if (!n)
            {
                continue;
            }
            os << "    node " << n->id << " '" << n->name << "' " << NodeKindName(n->kind);
            if (n->kind == NodeKind::COMM_RECV)
            {
                os << " from NPU " << n->commSrc << " tag " << n->commTag << ", " << n->commSize
                   << " B";
            }
            else if (n->kind == NodeKind::COMM_SEND)
            {
                os << " to NPU " << n->commDst << " tag " << n->commTag << ", " << n->commSize
                   << " B";
            }
            else if (n->kind == NodeKind::COMM_COLL)
            {
                os << " " << CollTypeName(n->collType) << " " << n->commSize << " B, group '"
                   << n->pgName << "'";
            }
            os << "\n";
        }
        // the system layer's view (collective ids, phases, steps) of stuck collectives
        bool coll = false;
        for (uint64_t id : ids)
        {
            const WorkloadNode* n = a->GetGraph()->Find(id);
            coll = coll || (n && n->kind == NodeKind::COMM_COLL);
        }
        if (coll)
        {
            os << a->DescribePending();
        }
    }
    if (shown > m_maxLines)
    {
        os << "... and " << (shown - m_maxLines) << " more unfinished NPUs\n";
    }
    return os.str();
}

std::string
AstraRunMonitor::DescribeLosslessDrops() const
{
    std::ostringstream os;
    if (m_losslessDrops == 0)
    {
        return "";
    }
    os << "lossless drops: " << m_losslessDrops << " (PFC headroom exhausted or PFC not honoured "
       << "upstream)\n";
    for (const auto& d : m_drops)
    {
        Ptr<Node> n = d.node < NodeList::GetNNodes() ? NodeList::GetNode(d.node) : nullptr;
        os << "    at " << d.time.GetNanoSeconds() << " ns: " << NodeLabel(n) << " ingress port "
           << d.port << " priority " << unsigned(d.prio) << ", packet host " << d.src << " -> host "
           << d.dst << " PSN " << d.psn << "\n";
    }
    if (m_losslessDrops > m_drops.size())
    {
        os << "    ... and " << (m_losslessDrops - m_drops.size()) << " more\n";
    }
    return os.str();
}

std::string
AstraRunMonitor::DescribePfc(bool* cycle) const
{
    if (cycle)
    {
        *cycle = false;
    }
    // one vertex per paused (egress device, priority)
    std::map<const RdmaNetDevice*, uint32_t> devIndex;
    for (uint32_t i = 0; i < m_devs.size(); ++i)
    {
        devIndex[PeekPointer(m_devs[i])] = i;
    }
    std::vector<uint32_t> paused; // dev * 8 + prio
    for (uint32_t i = 0; i < m_devs.size(); ++i)
    {
        uint8_t mask = m_devs[i]->GetPausedMask();
        for (uint8_t p = 0; p < 8; ++p)
        {
            if ((mask >> p) & 1)
            {
                paused.push_back(i * 8 + p);
            }
        }
    }
    if (paused.empty())
    {
        return "";
    }
    auto label = [&](uint32_t v) {
        Ptr<RdmaNetDevice> d = m_devs[v / 8];
        Ptr<RdmaNetDevice> peer = d->GetRdmaChannel() ? d->GetRdmaChannel()->GetPeer(d) : nullptr;
        std::ostringstream os;
        os << NodeLabel(d->GetNode()) << " port " << d->GetPortIndex() << " (to "
           << (peer ? NodeLabel(peer->GetNode()) : std::string("?")) << ") priority " << v % 8;
        return os.str();
    };
    // edges: v is paused by its peer's ingress; that ingress drains only through the peer's
    // egress queues, so v waits on every paused egress (port, priority) of the peer that holds
    // frames, except the ingress port itself (an over-approximation: the MMU does not record
    // which ingress the queued frames came from)
    std::map<uint32_t, std::vector<uint32_t>> edges;
    std::map<uint32_t, std::string> cause;
    for (uint32_t v : paused)
    {
        Ptr<RdmaNetDevice> d = m_devs[v / 8];
        const uint8_t p = v % 8;
        Ptr<RdmaNetDevice> peer = d->GetRdmaChannel() ? d->GetRdmaChannel()->GetPeer(d) : nullptr;
        Ptr<RdmaSwitch> sw = peer ? peer->GetNode()->GetObject<RdmaSwitch>() : nullptr;
        std::ostringstream os;
        if (!sw)
        {
            os << "paused by a host";
            cause[v] = os.str();
            continue;
        }
        const uint32_t in = peer->GetPortIndex();
        const bool inPaused = in < sw->GetNPorts() && sw->GetMmu()->IsPaused(in, p);
        os << "by " << NodeLabel(peer->GetNode()) << " ingress port " << in << " ("
           << sw->GetMmu()->GetIngressBytes(in, p) << " B buffered"
           << (inPaused ? "" : ", pause expiring") << ")";
        for (uint32_t z = 0; z < sw->GetNPorts(); ++z)
        {
            if (z == in)
            {
                continue; // shortest-path routes never send a frame back where it came from
            }
            Ptr<RdmaNetDevice> out = sw->GetPort(z);
            auto it = devIndex.find(PeekPointer(out));
            for (uint8_t q = 0; q < 8 && it != devIndex.end(); ++q)
            {
                if (sw->GetMmu()->GetEgressBytes(z, q) > 0 && out->IsPaused(q))
                {
                    edges[v].push_back(it->second * 8 + q);
                }
            }
        }
        cause[v] = os.str();
    }
    std::ostringstream os;
    os << "PFC: " << paused.size() << " paused (port, priority):\n";
    uint32_t listed = 0;
    for (uint32_t v : paused)
    {
        if (++listed > m_maxLines)
        {
            os << "    ... and " << (paused.size() - m_maxLines) << " more\n";
            break;
        }
        const Time since = m_pauseSince.empty() ? Time(-1) : m_pauseSince[v];
        os << "    " << label(v);
        if (!since.IsNegative())
        {
            os << " paused since " << since.GetNanoSeconds() << " ns";
        }
        os << " " << cause[v];
        auto e = edges.find(v);
        if (e != edges.end() && !e->second.empty())
        {
            os << "; waits on " << e->second.size() << " paused egress";
        }
        os << "\n";
    }
    // cycle search (iterative DFS, colours: 0 new, 1 on stack, 2 done)
    std::map<uint32_t, uint8_t> colour;
    std::vector<uint32_t> found;
    for (uint32_t root : paused)
    {
        if (colour[root] != 0 || !found.empty())
        {
            continue;
        }
        std::vector<std::pair<uint32_t, size_t>> stack{{root, 0}};
        colour[root] = 1;
        while (!stack.empty() && found.empty())
        {
            auto& top = stack.back();
            const auto& out = edges[top.first];
            if (top.second < out.size())
            {
                uint32_t w = out[top.second++];
                if (colour[w] == 1)
                {
                    // cycle: from w's position on the stack to the top
                    size_t k = 0;
                    while (stack[k].first != w)
                    {
                        ++k;
                    }
                    for (; k < stack.size(); ++k)
                    {
                        found.push_back(stack[k].first);
                    }
                }
                else if (colour[w] == 0)
                {
                    colour[w] = 1;
                    stack.emplace_back(w, 0);
                }
            }
            else
            {
                colour[top.first] = 2;
                stack.pop_back();
            }
        }
    }
    if (!found.empty())
    {
        if (cycle)
        {
            *cycle = true;
        }
        os << "PFC deadlock: pause cycle of " << found.size()
           << " (port, priority) pairs (cyclic buffer dependency):\n";
        for (uint32_t v : found)
        {
            os << "    " << label(v) << "\n      -> waits on\n";
        }
        os << "    " << label(found.front()) << "\n";
    }
    else
    {
        // the longest pause chain from a paused port
        std::vector<uint32_t> best;
        for (uint32_t root : paused)
        {
            std::vector<uint32_t> chain{root};
            while (chain.size() <= paused.size())
            {
                auto e = edges.find(chain.back());
                if (e == edges.end() || e->second.empty())
                {
                    break;
                }
                chain.push_back(e->second.front());
            }
            if (chain.size() > best.size())
            {
                best = chain;
            }
        }
        os << "PFC pause chain (no cycle):";
        for (size_t i = 0; i < best.size(); ++i)
        {
            os << (i ? "\n      -> waits on " : " ") << label(best[i]);
        }
        os << "\n";
    }
    return os.str();
}

void
AstraRunMonitor::ReportHang()
{
    m_hung = true;
    std::ostringstream os;
    os << "hang: no progress for " << (Simulator::Now() - m_lastChange).GetNanoSeconds()
       << " ns of simulated time (HangTimeout " << m_hangTimeout.GetNanoSeconds() << " ns) at "
       << Simulator::Now().GetNanoSeconds() << " ns with " << (m_apps.size() - m_finished) << " of "
       << m_apps.size() << " NPUs unfinished and " << m_backend->GetPendingMessages()
       << " message(s) in flight\n";
    os << DescribeWaits();
    if (m_roce)
    {
        std::string f = m_roce->DescribeInFlight(m_maxLines);
        if (!f.empty())
        {
            os << "RoCE messages in flight:\n" << f;
        }
    }
    os << DescribePfc();
    os << DescribeLosslessDrops();
    m_report = os.str();
    NS_LOG_WARN(m_report);
    m_hangTrace(m_report);
}

// ---------------------------------------------------------------------------
// AstraSimScenario

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

AstraFabricHelper&
AstraSimScenario::GetFabric()
{
    return m_fabric;
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
    if (NetworkBackendFactory::NeedsFabric(m_kind))
    {
        m_fabric.Install(m_topo);
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
    m_ctx = CreateObject<SystemContext>();
    m_ctx->Setup(m_backend, m_topo->GetDimensions(), m_params);
    m_ctx->SetCommGroups(m_groups);
    m_helper.SetContext(m_ctx);
    m_helper.SetWorkloads(m_graphs);
    if (m_mem)
    {
        m_helper.SetMemoryModel(m_mem);
    }
    ApplicationContainer ac = m_helper.Install(m_nodes);
    for (uint32_t i = 0; i < ac.GetN(); ++i)
    {
        m_apps.push_back(DynamicCast<AstraSimApplication>(ac.Get(i)));
    }
    ac.Start(Seconds(0));
    m_monitor->Watch(m_apps, m_backend);
    if (m_roce)
    {
        m_monitor->WatchFabric(m_fabric.GetAllNodes());
    }
    m_built = true;
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
    Simulator::Run();
    m_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    m_status = 0;
    bool unfinished = false;
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
    if (m_status == 0 && m_monitor->GetLosslessDrops() > 0)
    {
        m_status = 3;
    }
    return m_status;
}

void
AstraSimScenario::PrintStatus(std::ostream& os) const
{
    for (const auto& a : m_apps)
    {
        if (!a->GetError().empty())
        {
            os << "error: NPU " << a->GetNpuId() << ": " << a->GetError() << std::endl;
        }
    }
    if (m_status == 2)
    {
        const uint32_t left = uint32_t(m_apps.size()) - m_monitor->GetFinishedNpus();
        os << "error: " << left << " of " << m_apps.size() << " NPU(s) unfinished at "
           << Simulator::Now().GetNanoSeconds() << " ns";
        if (m_monitor->IsHung())
        {
            os << " (deadlock: unmatched SEND/RECV or collective, or a stuck fabric)\n"
               << m_monitor->GetHangReport();
        }
        else
        {
            os << " (simulation time limit)\n" << m_monitor->DescribeWaits();
        }
    }
    if (m_monitor->GetLosslessDrops() > 0)
    {
        os << "error: " << m_monitor->DescribeLosslessDrops();
    }
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
}

void
AstraSimScenario::PrintFabricSummary(std::ostream& os, const RdmaFctWriter* fct) const
{
    if (!m_roce)
    {
        return;
    }
    RdmaRunSummary sum = RdmaRunSummary::Collect(m_fabric.GetNpus(), m_fabric.GetSwitches(), fct);
    // NPUs relaying transit traffic (switch-less or cross-dimension paths): their forwarders'
    // counters (their ports were counted as host ports above)
    for (uint32_t i = 0; i < m_fabric.GetNpus().GetN(); ++i)
    {
        if (Ptr<RdmaSwitch> fwd = m_fabric.GetNpus().Get(i)->GetObject<RdmaSwitch>())
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
    os << "fabric: PFC pause frames " << sum.pauseFrames << " (paused "
       << sum.totalPauseTime.GetMicroSeconds() << " us in total), ECN marks " << sum.ecnMarks
       << ", CNPs " << sum.cnps << ", drops " << sum.drops << " (lossless " << sum.losslessDrops
       << "), NAKs " << sum.naks << ", timeouts " << sum.timeouts << ", retransmitted packets "
       << sum.retxPkts << ", peak queue " << sum.maxQueueBytes << " B\n";
    os << "FCT slowdown p50 " << std::setprecision(2) << sum.slowdownP50 << ", p95 "
       << sum.slowdownP95 << ", p99 " << sum.slowdownP99 << " over " << sum.messages
       << " messages\n";
    os << "roce backend: " << m_roce->GetDeliveredMessages() << " messages, "
       << m_roce->GetDeliveredBytes() << " bytes delivered, " << m_roce->GetQpCount()
       << " QPs; wall " << std::fixed << std::setprecision(2) << m_wall << " s, events "
       << Simulator::GetEventCount() << "\n";
}

void
AstraSimScenario::WriteReports(const std::string& dir) const
{
    mkdir(dir.c_str(), 0755);
    AstraReport report(m_ctx, m_apps);
    report.WriteNpuCsv(dir + "/npus.csv");
    report.WriteCollectiveCsv(dir + "/collectives.csv");
    report.WriteChromeTrace(dir + "/timeline.json");
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
    m_apps.clear();
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
    m_backend = nullptr;
    m_roce = nullptr;
    m_nodes = NodeContainer();
    Simulator::Destroy();
}

} // namespace astra
} // namespace ns3
