#include "collective-planner.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/log.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraCollectivePlanner");

namespace
{
/// \return the phase operation of a collective type
PhaseOp
OpOf(CollType t)
{
    switch (t)
    {
    case CollType::ALL_REDUCE:
        return PhaseOp::ALL_REDUCE;
    case CollType::REDUCE:
        return PhaseOp::REDUCE;
    case CollType::ALL_GATHER:
        return PhaseOp::ALL_GATHER;
    case CollType::GATHER:
        return PhaseOp::GATHER;
    case CollType::SCATTER:
        return PhaseOp::SCATTER;
    case CollType::BROADCAST:
        return PhaseOp::BROADCAST;
    case CollType::ALL_TO_ALL:
        return PhaseOp::ALL_TO_ALL;
    case CollType::REDUCE_SCATTER:
    case CollType::REDUCE_SCATTER_BLOCK:
        return PhaseOp::REDUCE_SCATTER;
    case CollType::BARRIER:
        return PhaseOp::BARRIER;
    }
    return PhaseOp::ALL_REDUCE;
}

/// \return the collective type whose custom traces serve \p t
CollType
CustomKey(CollType t)
{
    return t == CollType::REDUCE_SCATTER_BLOCK ? CollType::REDUCE_SCATTER : t;
}
} // namespace

std::string
CollectivePlan::Placement() const
{
    if (phases.empty())
    {
        return "local";
    }
    std::ostringstream pl;
    for (size_t i = 0; i < phases.size(); ++i)
    {
        const auto& ph = phases[i];
        pl << (i ? " " : "") << PhaseOpName(ph.op) << "@"
           << (ph.dim < 0 ? std::string("flat") : "dim" + std::to_string(ph.dim)) << ":"
           << AlgoKindName(ph.algo.spec.kind);
    }
    return pl.str();
}

uint32_t
CollectivePlan::MemberCount() const
{
    if (phases.empty())
    {
        return 1;
    }
    uint32_t n = 1;
    std::vector<int32_t> seen;
    for (const auto& ph : phases)
    {
        if (ph.dim < 0 || std::find(seen.begin(), seen.end(), ph.dim) == seen.end())
        {
            n = ph.dim < 0 ? static_cast<uint32_t>(ph.peers->size())
                           : n * static_cast<uint32_t>(ph.peers->size());
            seen.push_back(ph.dim);
        }
    }
    return n;
}

void
CollectivePlanner::Setup(const std::vector<DimensionSpec>& dims, const SystemParams& params)
{
    m_dims = dims;
    m_params = params;
    m_stride.clear();
    uint32_t n = 1;
    for (const auto& d : m_dims)
    {
        m_stride.push_back(n);
        n *= std::max<uint32_t>(1, d.npus);
    }
    m_npus = n;
}

void
CollectivePlanner::SetInSwitchAvailable(bool available)
{
    m_inSwitchAvailable = available;
}

uint32_t
CollectivePlanner::GetNpuCount() const
{
    return m_npus;
}

uint32_t
CollectivePlanner::Coord(uint32_t npu, uint32_t dim) const
{
    return (npu / m_stride[dim]) % std::max<uint32_t>(1, m_dims[dim].npus);
}

uint32_t
CollectivePlanner::WithCoord(uint32_t npu, uint32_t dim, uint32_t c) const
{
    return npu - Coord(npu, dim) * m_stride[dim] + c * m_stride[dim];
}

AlgoSpec
CollectivePlanner::Configured(PhaseOp op, int32_t dim) const
{
    const std::vector<AlgoSpec>* l = &m_params.allReduce;
    switch (op)
    {
    case PhaseOp::REDUCE_SCATTER:
        l = &m_params.reduceScatter;
        break;
    case PhaseOp::ALL_GATHER:
        l = &m_params.allGather;
        break;
    case PhaseOp::ALL_TO_ALL:
        l = &m_params.allToAll;
        break;
    default:
        break;
    }
    if (l->empty())
    {
        return AlgoSpec{};
    }
    const size_t i = dim < 0 ? 0 : std::min<size_t>(dim, l->size() - 1);
    return (*l)[i];
}

void
CollectivePlanner::AddPhase(CollectivePlan& plan,
                            const CollectiveRequest& req,
                            uint32_t npu,
                            PhaseOp op,
                            int32_t dim,
                            std::shared_ptr<const std::vector<uint32_t>> peers,
                            const AlgoSpec* forced) const
{
    CollectivePhase ph;
    ph.op = op;
    ph.dim = dim;
    ph.peers = peers;
    ph.myIndex =
        static_cast<uint32_t>(std::lower_bound(peers->begin(), peers->end(), npu) - peers->begin());
    AlgoSpec want = forced ? *forced : Configured(op, dim);
    if (!forced && req.inSwitch)
    {
        // Chakra's in_switch: in the switches wherever the dimension aggregates
        if (m_inSwitchAvailable && dim >= 0 && m_dims[dim].inSwitch && IsInSwitchOp(op))
        {
            want.kind = AlgoKind::IN_SWITCH;
        }
        else if (ph.myIndex == 0)
        {
            ASTRA_WARN("in-switch-flag-not-honoured",
                       "collective '"
                           << req.name << "' asks for in-switch execution (in_switch) "
                           << "but its " << PhaseOpName(op) << " phase on "
                           << (dim < 0 ? std::string("a flat (routed) group")
                                       : "dimension " + std::to_string(dim))
                           << " cannot run in the switches ("
                           << (m_inSwitchAvailable ? "no aggregating switches there"
                                                   : "the backend has no in-switch model")
                           << "); using " << AlgoKindName(want.kind));
        }
    }
    if (want.kind == AlgoKind::IN_SWITCH && !IsInSwitchOp(op))
    {
        // gather, scatter, barrier (configured through the all-reduce list): the host
        // primitives, as for every family
        want.kind = AlgoKind::RING;
    }
    const uint32_t n = static_cast<uint32_t>(peers->size());
    ph.algo.spec = want;
    if (want.kind == AlgoKind::CUSTOM)
    {
        auto it = m_params.custom.find(CustomKey(req.type));
        if (it == m_params.custom.end() || !it->second)
        {
            throw InputError("collective '" + req.name +
                             "': the custom algorithm is selected for " + PhaseOpName(op) +
                             " but no custom " + CollTypeName(req.type) +
                             " traces are configured (all-*-implementation-custom)");
        }
        ph.custom = it->second.get();
        plan.phases.push_back(ph);
        return;
    }
    const CollectiveAlgorithm* a = CollectiveAlgorithm::Get(want.kind);
    if (!a->CanRun(op, n, dim < 0 ? nullptr : &m_dims[dim]))
    {
        const CollectiveAlgorithm* ring = CollectiveAlgorithm::Get(AlgoKind::RING);
        if (ph.myIndex == 0)
        {
            // once per collective instance (its first member), counted per algorithm
            ASTRA_WARN(std::string(a->GetName()) + "-falls-back-to-ring",
                       "collective '" << req.name << "': " << a->GetName() << " cannot run "
                                      << PhaseOpName(op) << " on " << n << " members (it needs "
                                      << a->GetRequirement() << "); using " << ring->GetName());
        }
        a = ring;
        ph.algo.spec.kind = AlgoKind::RING;
    }
    ph.algo.inSwitch = ph.algo.spec.kind == AlgoKind::IN_SWITCH;
    ph.algo.steps = IsRootedOp(op) && !ph.algo.inSwitch ? &CollectiveAlgorithm::GetRooted() : a;
    plan.phases.push_back(ph);
}

CollectivePlan
CollectivePlanner::Plan(const CollectiveRequest& req,
                        uint32_t npu,
                        std::shared_ptr<const std::vector<uint32_t>> members) const
{
    CollectivePlan plan;
    const auto& dims = m_dims;
    const uint32_t nd = static_cast<uint32_t>(dims.size());
    const bool world = members->size() == m_npus;
    // the dimensions the instance spans (V) and its coordinates along each
    std::vector<std::vector<uint32_t>> coords(nd);
    std::vector<uint32_t> V;
    bool regular = true;
    if (world)
    {
        for (uint32_t d = 0; d < nd; ++d)
        {
            const bool involved =
                req.involvedDim.empty() || (d < req.involvedDim.size() && req.involvedDim[d]);
            if (dims[d].npus > 1 && involved)
            {
                V.push_back(d);
                for (uint32_t x = 0; x < dims[d].npus; ++x)
                {
                    coords[d].push_back(x);
                }
            }
        }
    }
    else
    {
        uint64_t prod = 1;
        for (uint32_t d = 0; d < nd; ++d)
        {
            std::vector<uint32_t> cs;
            for (uint32_t m : *members)
            {
                cs.push_back(Coord(m, d));
            }
            std::sort(cs.begin(), cs.end());
            cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
            if (cs.size() > 1)
            {
                V.push_back(d);
                coords[d] = cs;
                prod *= cs.size();
            }
        }
        regular = prod == members->size();
        if (!req.involvedDim.empty())
        {
            NS_LOG_DEBUG("involved_dim ignored for explicit group '" << req.group << "'");
        }
    }

    // anchor: the smallest NPU of this collective instance (same on every member)
    if (!regular || !world)
    {
        plan.anchor = members->front();
    }
    else
    {
        plan.anchor = npu;
        for (uint32_t d : V)
        {
            plan.anchor = WithCoord(plan.anchor, d, coords[d].front());
        }
    }
    const PhaseOp op = OpOf(req.type);
    // members of my collective instance (sub-grid over V anchored at me, or the group)
    auto subgrid = [&]() -> std::shared_ptr<const std::vector<uint32_t>> {
        if (!world || V.size() == nd)
        {
            bool all = true;
            for (uint32_t d = 0; d < nd && world; ++d)
            {
                all = all && (dims[d].npus <= 1 || std::find(V.begin(), V.end(), d) != V.end());
            }
            if (!world || all)
            {
                return members;
            }
        }
        auto v = std::make_shared<std::vector<uint32_t>>();
        v->push_back(npu);
        for (uint32_t d : V)
        {
            std::vector<uint32_t> next;
            next.reserve(v->size() * coords[d].size());
            for (uint32_t x : *v)
            {
                for (uint32_t cc : coords[d])
                {
                    next.push_back(WithCoord(x, d, cc));
                }
            }
            v->swap(next);
        }
        std::sort(v->begin(), v->end());
        return v;
    };
    // my line along dimension d
    auto line = [&](uint32_t d) {
        auto v = std::make_shared<std::vector<uint32_t>>();
        v->reserve(coords[d].size());
        for (uint32_t cc : coords[d])
        {
            v->push_back(WithCoord(npu, d, cc));
        }
        return std::shared_ptr<const std::vector<uint32_t>>(v);
    };
    auto add = [&](PhaseOp o,
                   int32_t dim,
                   std::shared_ptr<const std::vector<uint32_t>> peers,
                   const AlgoSpec* forced = nullptr) {
        AddPhase(plan, req, npu, o, dim, std::move(peers), forced);
    };

    if (members->size() <= 1 || (world && V.empty()))
    {
        return plan; // nothing to exchange
    }
    // custom algorithm from traces
    if (m_params.custom.count(CustomKey(req.type)) != 0)
    {
        AlgoSpec s;
        s.kind = AlgoKind::CUSTOM;
        auto all = regular ? subgrid() : members;
        add(op, V.size() == 1 && regular ? static_cast<int32_t>(V[0]) : -1, all, &s);
        return plan;
    }
    if (!regular)
    {
        if (members->front() == npu)
        {
            // once per group instance (its first member)
            ASTRA_WARN("irregular-group-flattened",
                       "communicator group '"
                           << req.group << "' (" << members->size()
                           << " NPUs) is not a line or sub-grid of the topology; running "
                           << PhaseOpName(op) << " as one flat "
                           << AlgoKindName(Configured(op, -1).kind)
                           << " over its members, routed through the network (dim -1)");
        }
        add(op, -1, members);
        return plan;
    }
    if (V.size() == 1)
    {
        add(op, static_cast<int32_t>(V[0]), line(V[0]));
        return plan;
    }
    if (IsRootedOp(op) || Configured(op, -1).flattened)
    {
        add(op, -1, subgrid());
        return plan;
    }
    std::vector<uint32_t> order = V;
    const bool bwAware = m_params.optimization == CollOptimization::LOCAL_BW_AWARE;
    if (bwAware)
    {
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return dims[a].bandwidthGBps > dims[b].bandwidthGBps;
        });
    }
    switch (op)
    {
    case PhaseOp::ALL_REDUCE:
        if (bwAware)
        {
            // reduce-scatter up the dimensions, all-reduce on the last, all-gather down
            for (size_t i = 0; i + 1 < order.size(); ++i)
            {
                add(PhaseOp::REDUCE_SCATTER, order[i], line(order[i]));
            }
            add(PhaseOp::ALL_REDUCE, order.back(), line(order.back()));
            for (size_t i = order.size() - 1; i-- > 0;)
            {
                add(PhaseOp::ALL_GATHER, order[i], line(order[i]));
            }
        }
        else
        {
            for (uint32_t d : order)
            {
                add(PhaseOp::ALL_REDUCE, d, line(d));
            }
        }
        break;
    case PhaseOp::ALL_GATHER:
        // input grows; localBWAware gathers on the slowest dimension first so the largest
        // messages use the fastest links
        if (bwAware)
        {
            std::reverse(order.begin(), order.end());
        }
        for (uint32_t d : order)
        {
            add(op, d, line(d));
        }
        break;
    default:
        for (uint32_t d : order)
        {
            add(op, d, line(d));
        }
        break;
    }
    return plan;
}

} // namespace astra
} // namespace ns3
