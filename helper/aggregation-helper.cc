#include "aggregation-helper.h"

#include "ns3/aggregation-engine.h"
#include "ns3/analytical-backend.h"
#include "ns3/analytical-in-switch.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-input.h"
#include "ns3/boolean.h"
#include "ns3/flow-backend.h"
#include "ns3/flow-in-switch.h"
#include "ns3/log.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-routing-helper.h"
#include "ns3/rdma-switch.h"
#include "ns3/roce-backend.h"
#include "ns3/roce-in-switch.h"
#include "ns3/switch-mmu.h"

#include <algorithm>
#include <cmath>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AggregationHelper");

AggregationHelper::AggregationHelper() = default;

void
AggregationHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    const TypeId tid = RoceInSwitch::GetTypeId(); // its own attributes and the base's
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        std::vector<std::string> known;
        for (TypeId t = tid; t != Object::GetTypeId(); t = t.GetParent())
        {
            for (uint32_t i = 0; i < t.GetAttributeN(); ++i)
            {
                known.push_back(t.GetAttribute(i).name);
            }
        }
        throw InputError("AggregationHelper: ns3::astra::InSwitchAggregation has no attribute '" +
                         name + "'" + DidYouMean(name, known));
    }
    if (!info.checker->Check(value))
    {
        throw InputError("AggregationHelper: invalid value for attribute '" + name + "'");
    }
    m_attributes.emplace_back(name, value.Copy());
}

bool
AggregationHelper::HasAggregatingDimension(const Topology& topo)
{
    for (const auto& d : topo.GetDimensions())
    {
        if (d.inSwitch)
        {
            return true;
        }
    }
    return false;
}

DataRate
AggregationHelper::EngineRate(Ptr<Node> sw, uint64_t reductionBps)
{
    Ptr<RdmaSwitch> s = sw->GetObject<RdmaSwitch>();
    const uint32_t ports = s ? s->GetNPorts() : 0;
    if (reductionBps > 0)
    {
        return DataRate(reductionBps * std::max<uint32_t>(1, ports));
    }
    uint64_t sum = 0;
    for (uint32_t p = 0; p < ports; ++p)
    {
        sum += s->GetPort(p)->GetDataRate().GetBitRate();
    }
    return DataRate(std::max<uint64_t>(sum, 1));
}

NodeContainer
AggregationHelper::GetEngineNodes() const
{
    return m_engineNodes;
}

std::map<uint32_t, Ptr<AggregationEngine>>
AggregationHelper::BuildEngines(AstraFabricHelper& fabric, const InSwitchAggregation& model)
{
    std::shared_ptr<const Topology> topo = fabric.GetTopology();
    if (!topo)
    {
        throw InputError("AggregationHelper: the RoCE fabric must be installed first");
    }
    RdmaHelper& rdma = fabric.GetRdmaHelper();
    std::vector<uint32_t> switches;
    for (uint32_t d = 0; d < topo->GetDimensionCount(); ++d)
    {
        if (!topo->GetDimensions()[d].inSwitch)
        {
            continue;
        }
        for (SwitchTier tier :
             {SwitchTier::LINE, SwitchTier::LEAF, SwitchTier::SPINE, SwitchTier::CORE})
        {
            for (uint32_t sw : topo->GetDimensionSwitches(d, tier))
            {
                switches.push_back(sw);
            }
        }
    }
    std::sort(switches.begin(), switches.end());
    switches.erase(std::unique(switches.begin(), switches.end()), switches.end());
    // one endpoint per switch: a node of its own, the next host indices of the fabric
    NodeContainer nodes;
    for (uint32_t sw : switches)
    {
        nodes.Add(CreateObject<Node>(fabric.GetSystemId(sw)));
    }
    rdma.InstallHosts(nodes);
    const uint64_t reduction = uint64_t(std::llround(model.GetReductionBytesPerNs() * 8e9));
    // EngineLatency is one pass, in and out: half of it each way (a channel needs > 0)
    const Time delay =
        std::max(TimeStep(1), PicoSeconds(std::llround(model.GetEngineLatencyNs() * 500.0)));
    Ptr<RdmaNetDevice> npuPort =
        fabric.GetNpus().GetN() ? fabric.GetNpus().Get(0)->GetObject<RdmaHostStack>()->GetPort(0)
                                : nullptr;
    std::map<uint32_t, Ptr<AggregationEngine>> engines;
    for (uint32_t i = 0; i < switches.size(); ++i)
    {
        Ptr<Node> swNode = fabric.GetNode(switches[i]);
        const DataRate rate = EngineRate(swNode, reduction);
        auto devs = rdma.Connect(swNode, nodes.Get(i), rate, delay);
        if (npuPort)
        {
            // the internal port carries what the hosts' ports carry
            devs.first->SetMtu(std::max(devs.first->GetMtu(), npuPort->GetMtu()));
            devs.second->SetMtu(std::max(devs.second->GetMtu(), npuPort->GetMtu()));
        }
        Ptr<AggregationEngine> e = CreateObject<AggregationEngine>();
        nodes.Get(i)->AggregateObject(e);
        e->Setup(switches[i], nodes.Get(i)->GetObject<RdmaHostStack>(), devs.second);
        engines[switches[i]] = e;
    }
    RdmaRoutingHelper routing;
    routing.PopulateRoutingTables(NodeContainer(fabric.GetAllNodes(), nodes));
    // the engines' stacks get what the fabric derived for the NPUs, and are checked now
    TimeValue rtt(Time(0));
    if (fabric.GetNpus().GetN())
    {
        fabric.GetNpus().Get(0)->GetObject<RdmaHostStack>()->GetAttribute("BaseRtt", rtt);
    }
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<RdmaHostStack> hs = nodes.Get(i)->GetObject<RdmaHostStack>();
        TimeValue own;
        hs->GetAttribute("BaseRtt", own);
        if (own.Get().IsZero() && rtt.Get().IsStrictlyPositive())
        {
            hs->SetAttribute("BaseRtt", rtt);
        }
        for (uint8_t p = 0; p < 8; ++p)
        {
            hs->GetCongestionControl(p); // validates (InputError)
        }
    }
    for (uint32_t sw : switches)
    {
        const std::string err =
            fabric.GetNode(sw)->GetObject<RdmaSwitch>()->GetMmu()->CheckConfiguration();
        if (!err.empty())
        {
            throw InputError(err + " (with the port to its aggregation engine)");
        }
    }
    m_engineNodes.Add(nodes);
    NS_LOG_INFO("in-switch: " << switches.size() << " aggregation engines");
    return engines;
}

Ptr<InSwitchAggregation>
AggregationHelper::Install(Ptr<NetworkBackend> backend,
                           std::shared_ptr<const Topology> topo,
                           AstraFabricHelper* fabric)
{
    if (!backend || !topo || !HasAggregatingDimension(*topo))
    {
        return nullptr;
    }
    Ptr<InSwitchAggregation> model;
    Ptr<FlowBackend> flow = DynamicCast<FlowBackend>(backend);
    Ptr<RoceBackend> roce = DynamicCast<RoceBackend>(backend);
    if (DynamicCast<AnalyticalBackend>(backend))
    {
        model = CreateObject<AnalyticalInSwitch>();
    }
    else if (flow)
    {
        BooleanValue compat;
        flow->GetAttribute("Compat", compat);
        if (compat.Get())
        {
            return nullptr; // the store-and-forward model has no in-switch flows
        }
        Ptr<FlowInSwitch> f = CreateObject<FlowInSwitch>();
        f->SetFlowBackend(PeekPointer(flow));
        model = f;
    }
    else if (roce)
    {
        if (!fabric)
        {
            throw InputError("AggregationHelper: the roce backend's in-switch engines need its "
                             "fabric (AstraFabricHelper)");
        }
        model = CreateObject<RoceInSwitch>();
    }
    else
    {
        return nullptr;
    }
    for (const auto& a : m_attributes)
    {
        if (!model->SetAttributeFailSafe(a.first, *a.second))
        {
            throw InputError("AggregationHelper: " + model->GetInstanceTypeId().GetName() +
                             " has no attribute '" + a.first + "'");
        }
    }
    model->SetTopology(topo);
    const std::string err = model->Validate();
    if (!err.empty())
    {
        throw InputError(err);
    }
    if (roce)
    {
        Ptr<RoceInSwitch> r = DynamicCast<RoceInSwitch>(model);
        std::map<uint32_t, Ptr<AggregationEngine>> engines = BuildEngines(*fabric, *model);
        std::vector<Ptr<RdmaHostStack>> npus;
        for (uint32_t i = 0; i < fabric->GetNpus().GetN(); ++i)
        {
            npus.push_back(fabric->GetNpus().Get(i)->GetObject<RdmaHostStack>());
        }
        r->SetFabric(npus, engines);
        const std::string ferr = r->ValidateFabric();
        if (!ferr.empty())
        {
            throw InputError(ferr);
        }
    }
    backend->AggregateObject(model);
    return model;
}

} // namespace astra
} // namespace ns3
