#include "astra-sim-helper.h"

#include "ns3/analytical-backend.h"
#include "ns3/boolean.h"
#include "ns3/chakra-reader.h"
#include "ns3/flow-backend.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <sys/stat.h>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraSimHelper");

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
    if (kind == "analytical")
    {
        Ptr<AnalyticalBackend> b = CreateObject<AnalyticalBackend>();
        b->SetAttribute("Compat", BooleanValue(compat));
        b->SetTopology(topo);
        return b;
    }
    if (kind == "flow")
    {
        Ptr<FlowBackend> b = CreateObject<FlowBackend>();
        b->SetAttribute("Compat", BooleanValue(compat));
        b->SetTopology(topo);
        return b;
    }
    throw std::runtime_error("unknown backend '" + kind + "' (expected analytical or flow)");
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

SystemParams
AstraSimHelper::LoadSystemParams(const std::string& path, const std::string& baseDir)
{
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
    AstraRunResult r;
    Ptr<NetworkBackend> backend = CreateBackend(opts.backend, topo, params.compat);
    Ptr<SystemContext> ctx = CreateObject<SystemContext>();
    ctx->Setup(backend, topo->GetDimensions(), params);
    ctx->SetCommGroups(opts.commGroups);
    AstraSimHelper helper;
    helper.SetContext(ctx);
    helper.SetWorkloads(graphs);
    helper.SetAttribute("ReferenceHwLimits", BooleanValue(opts.referenceHwLimits));
    if (opts.memory)
    {
        helper.SetMemoryModel(opts.memory);
    }
    NodeContainer nodes;
    nodes.Create(topo->GetNpuCount());
    ApplicationContainer ac = helper.Install(nodes);
    std::vector<Ptr<AstraSimApplication>> apps;
    for (uint32_t i = 0; i < ac.GetN(); ++i)
    {
        apps.push_back(DynamicCast<AstraSimApplication>(ac.Get(i)));
    }
    ac.Start(Seconds(0));
    if (opts.hook)
    {
        opts.hook(ctx, apps);
    }
    Simulator::Run();
    for (const auto& a : apps)
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
    r.records = ctx->GetRecords();
    r.events = Simulator::GetEventCount();
    r.messages = ctx->GetMessagesSent();
    apps.clear();
    ctx->Dispose();
    Simulator::Destroy();
    return r;
}

} // namespace astra
} // namespace ns3
