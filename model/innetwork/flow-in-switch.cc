#include "flow-in-switch.h"

#include "ns3/event-batcher.h"
#include "ns3/flow-backend.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace ns3
{
namespace astra
{

NS_OBJECT_ENSURE_REGISTERED(FlowInSwitch);

TypeId
FlowInSwitch::GetTypeId()
{
    static TypeId tid = TypeId("ns3::astra::FlowInSwitch")
                            .SetParent<InSwitchAggregation>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<FlowInSwitch>();
    return tid;
}

FlowInSwitch::FlowInSwitch() = default;
FlowInSwitch::~FlowInSwitch() = default;

void
FlowInSwitch::DoDispose()
{
    m_flow = nullptr;
    InSwitchAggregation::DoDispose();
}

void
FlowInSwitch::SetFlowBackend(FlowBackend* backend)
{
    m_flow = backend;
}

void
FlowInSwitch::TreeBuilt(uint32_t tree)
{
    const AggregationTree& t = GetTree(tree);
    const auto& links = m_topo->GetLinks();
    const double slotRate = double(GetTreeSlots()) * GetSlotPayload() / LoopTimeNs(tree);
    double cap = slotRate;
    if (GetReductionBytesPerNs() > 0)
    {
        cap = std::min(cap, GetReductionBytesPerNs());
    }
    const uint32_t edges = uint32_t(t.members.size() + t.nodes.size());
    m_caps.resize(std::max<size_t>(m_caps.size(), tree + 1));
    std::vector<uint32_t>& c = m_caps[tree];
    c.assign(2 * edges, UINT32_MAX);
    for (uint32_t e = 0; e < edges; ++e)
    {
        uint32_t link;
        if (e < t.members.size())
        {
            link = t.memberUp[e].link;
        }
        else if (t.nodes[e - t.members.size()].parent >= 0)
        {
            link = t.nodes[e - t.members.size()].up.link;
        }
        else
        {
            continue; // the root has no parent edge
        }
        if (cap < links[link].bytesPerNs)
        {
            c[2 * e] = m_flow->AddExtraLink(cap);
            c[2 * e + 1] = m_flow->AddExtraLink(cap);
        }
    }
}

std::vector<uint32_t>
FlowInSwitch::EdgeLinks(uint32_t tree, uint32_t e, bool up) const
{
    const AggregationTree& t = GetTree(tree);
    const Topology::Hop h = e < t.members.size() ? t.memberUp[e] : t.nodes[e - t.members.size()].up;
    const uint32_t dir = up ? h.dir : 1u - h.dir;
    std::vector<uint32_t> out{2 * h.link + dir};
    const uint32_t cap = m_caps[tree][2 * e + (up ? 0 : 1)];
    if (cap != UINT32_MAX)
    {
        out.push_back(cap);
    }
    return out;
}

void
FlowInSwitch::StartOperation(uint32_t id)
{
    const Operation& o = GetOperation(id);
    const AggregationTree& t = GetTree(o.tree);
    const uint32_t nm = uint32_t(t.members.size());
    const uint32_t nn = uint32_t(t.nodes.size());
    if (m_left.size() <= id)
    {
        m_left.resize(id + 1, 0);
    }
    m_left[id] = 0;
    NetMessage msg;
    msg.src = t.members.front();
    msg.dst = t.members.front();
    msg.tag = id;
    msg.dim = o.op.dim;
    msg.tclass = o.op.tclass;
    std::vector<std::pair<std::vector<uint32_t>, uint64_t>> flows;
    for (uint32_t e = 0; e < nm + nn; ++e)
    {
        if (e >= nm && t.nodes[e - nm].parent < 0)
        {
            continue;
        }
        // EdgeBytes numbers member edges after the switch nodes
        const uint32_t node = e < nm ? nn + e : e - nm;
        for (bool up : {true, false})
        {
            const uint64_t b = EdgeBytes(o.op, t, node, up);
            if (b > 0)
            {
                flows.emplace_back(EdgeLinks(o.tree, e, up), b);
            }
        }
    }
    m_left[id] = uint32_t(flows.size());
    for (const auto& f : flows)
    {
        msg.bytes = f.second;
        m_flow->SendOnLinks(msg, f.first, 0, this, 0);
    }
}

void
FlowInSwitch::MessageSent(const NetMessage&, uint64_t)
{
}

void
FlowInSwitch::MessageDelivered(const NetMessage& msg)
{
    const uint32_t id = uint32_t(msg.tag);
    AddProgress(msg.bytes);
    if (--m_left[id] != 0)
    {
        return;
    }
    // every edge drained: the results follow after the tree's propagation
    const Operation& o = GetOperation(id);
    const uint32_t n = uint32_t(o.op.members->size());
    std::vector<std::pair<int64_t, uint32_t>> at;
    for (uint32_t m = 0; m < n; ++m)
    {
        const InSwitchVolume v = InSwitchBytes(o.op.kind, n, m, o.op.root, o.op.bytes);
        if (v.up == 0 && v.down == 0)
        {
            continue;
        }
        at.emplace_back(std::llround(LatencyNs(o.op, o.tree, m)), m);
    }
    ScheduleMemberEnds(id, std::move(at));
}

} // namespace astra
} // namespace ns3
