/*
 * The application helper (astra-sim-helper.h).
 */

#include "astra-sim-helper.h"

#include "ns3/analytical-backend.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/flow-backend.h"
#include "ns3/network-backend-factory.h"
#include "ns3/simulator.h"
#include "ns3/workload-check.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{
namespace astra
{

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
AstraSimHelper::SetWorkloadCheck(bool check)
{
    m_checkWorkloads = check;
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
    // the traces as a whole, before anything runs (workload-check.h)
    if (m_checkWorkloads)
    {
        CheckTraceGroups(m_graphs, *m_ctx);
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
    if (m_checkWorkloads)
    {
        CheckWorkloads(m_graphs, *m_ctx);
    }
    if (m_mem)
    {
        m_mem->CheckNpuCount(nodes.GetN());
    }
    if (!m_local.empty() && m_local.size() != nodes.GetN())
    {
        throw std::runtime_error("AstraSimHelper::Install: local flags for " +
                                 std::to_string(m_local.size()) + " NPUs, " +
                                 std::to_string(nodes.GetN()) + " nodes");
    }
    ApplicationContainer apps;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        if (!m_local.empty() && !m_local[i])
        {
            // an NPU of another rank: no application here, and its workload is released
            // (the checks above were its last use on this rank)
            m_graphs[i].reset();
            continue;
        }
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

void
AstraSimHelper::SetLocalNpus(const std::vector<bool>& local)
{
    m_local = local;
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

SystemParams
AstraSimHelper::LoadSystemParams(const std::string& path, const std::string& baseDir)
{
    return astra::LoadSystemParams(path, baseDir);
}

std::map<std::string, std::vector<uint32_t>>
AstraSimHelper::LoadCommGroups(const std::string& path, uint32_t npus)
{
    return astra::LoadCommGroups(path, npus);
}

std::vector<std::shared_ptr<const WorkloadGraph>>
AstraSimHelper::MakeCollectiveWorkload(uint32_t npus,
                                       CollType type,
                                       uint64_t bytes,
                                       const std::string& group)
{
    return astra::MakeCollectiveWorkload(npus, type, bytes, group);
}

double
AstraSimHelper::HierarchicalAllReduceNs(const std::vector<DimensionSpec>& dims,
                                        uint64_t bytes,
                                        double overhead,
                                        uint32_t frameBytes)
{
    return astra::HierarchicalAllReduceNs(dims, bytes, overhead, frameBytes);
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
    sc.SetWorkloadCheck(opts.checkWorkloads);
    try
    {
        sc.Build();
    }
    catch (const InputError& e)
    {
        // bad input found before the run: the error, nothing ran
        r.error = e.what();
        sc.Destroy();
        return r;
    }
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
