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
            const uint32_t k = ph.lineSize ? ph.lineSize : static_cast<uint32_t>(ph.peers->size());
            n = ph.dim < 0 ? k : n * k;
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
    CheckListLengths();
    if (m_params.compat && (m_params.interDim != InterDimScheduling::BASELINE ||
                            m_params.intraDim != IntraDimScheduling::FIFO))
    {
        ASTRA_WARN("compat-dimension-scheduling",
                   "inter-/intra-dimension-scheduling other than baseline/FIFO: ASTRA-sim 2.0 "
                   "does not read these keys, so compat (--compat=1) schedules as baseline/FIFO; "
                   "the default model applies them");
    }
}

const std::vector<AlgoSpec>&
CollectivePlanner::List(PhaseOp op) const
{
    switch (op)
    {
    case PhaseOp::REDUCE_SCATTER:
        return m_params.reduceScatter;
    case PhaseOp::ALL_GATHER:
        return m_params.allGather;
    case PhaseOp::ALL_TO_ALL:
        return m_params.allToAll;
    default:
        return m_params.allReduce;
    }
}

void
CollectivePlanner::CheckListLengths() const
{
    const size_t nd = m_dims.size();

    const struct
    {
        const char* key;
        PhaseOp op;
    } lists[] = {{"all-reduce-implementation", PhaseOp::ALL_REDUCE},
                 {"reduce-scatter-implementation", PhaseOp::REDUCE_SCATTER},
                 {"all-gather-implementation", PhaseOp::ALL_GATHER},
                 {"all-to-all-implementation", PhaseOp::ALL_TO_ALL}};

    for (const auto& l : lists)
    {
        const auto& v = List(l.op);
        if (v.empty() || v.size() == nd || (!v.empty() && v.front().flattened))
        {
            continue;
        }
        if (v.size() > nd)
        {
            ASTRA_WARN(std::string("more-algorithms-than-dimensions:") + l.key,
                       l.key << " lists " << v.size() << " algorithms for " << nd
                             << " network dimension(s); the last " << v.size() - nd
                             << " are not used");
            continue;
        }
        if (m_params.compat)
        {
            ASTRA_WARN(std::string("fewer-algorithms-than-dimensions:") + l.key,
                       l.key << " lists " << v.size() << " algorithm(s) for " << nd
                             << " network dimensions: as ASTRA-sim 2.0 (compat), collectives "
                                "on all NPUs run over dimension(s) 0.."
                             << v.size() - 1 << " only; dimension(s) " << v.size() << ".." << nd - 1
                             << " are not used");
            continue;
        }
        std::ostringstream per;
        for (size_t d = 0; d < nd; ++d)
        {
            per << (d ? ", " : "") << "dimension " << d << " "
                << AlgoKindName(v[std::min(d, v.size() - 1)].kind);
        }
        ASTRA_WARN(std::string("fewer-algorithms-than-dimensions:") + l.key,
                   l.key << " lists " << v.size() << " algorithm(s) for " << nd
                         << " network dimensions; the last one listed repeats: " << per.str()
                         << " (ASTRA-sim 2.0 would leave the unlisted dimensions unused; "
                            "--compat=1 does so)");
    }
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
    const std::vector<AlgoSpec>* l = &List(op);
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
    ph.queueDim = dim < 0 ? static_cast<uint32_t>(m_dims.size()) : static_cast<uint32_t>(dim);
    const AlgoSpec want = forced ? *forced : Configured(op, dim);
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
    ph.algo.steps = IsRootedOp(op) ? &CollectiveAlgorithm::GetRooted() : a;
    plan.phases.push_back(ph);
}

uint32_t
CollectivePlanner::RootOf(const CollectiveRequest& req, const std::vector<uint32_t>& members) const
{
    if (req.root < 0)
    {
        return members.front();
    }
    const uint32_t r = static_cast<uint32_t>(req.root);
    if (!std::binary_search(members.begin(), members.end(), r))
    {
        throw InputError("collective '" + req.name + "' (" + CollTypeName(req.type) +
                         "): its root NPU " + std::to_string(r) +
                         " (comm_src / comm_dst) is not a member of communicator group '" +
                         req.group + "'");
    }
    return r;
}

void
CollectivePlanner::AddRootedPhases(CollectivePlan& plan,
                                   uint32_t npu,
                                   PhaseOp op,
                                   uint32_t root,
                                   const std::vector<uint32_t>& V,
                                   const std::vector<std::vector<uint32_t>>& coords) const
{
    // Dimensions in order d_0 .. d_k. BROADCAST and SCATTER spread from the root: in phase
    // i the lines along d_i through the NPUs that agree with the root beyond d_i take part
    // (they hold the data by then). REDUCE and GATHER collect towards it: in phase i the
    // lines through the NPUs that agree with the root before d_i. BARRIER: every line of
    // every dimension. A line's root is its member at the root's coordinate.
    const size_t k = V.size();
    for (size_t i = 0; i < k; ++i)
    {
        const uint32_t d = V[i];
        bool takesPart = true;
        for (size_t j = 0; j < k && op != PhaseOp::BARRIER; ++j)
        {
            const bool constrained =
                (op == PhaseOp::BROADCAST || op == PhaseOp::SCATTER) ? j > i : j < i;
            if (constrained && Coord(npu, V[j]) != Coord(root, V[j]))
            {
                takesPart = false;
            }
        }
        const uint32_t n = static_cast<uint32_t>(coords[d].size());
        CollectivePhase ph;
        ph.op = op;
        ph.dim = static_cast<int32_t>(d);
        ph.queueDim = d;
        ph.lineSize = n;
        ph.algo.spec.kind = AlgoKind::RING;
        ph.algo.steps = &CollectiveAlgorithm::GetRooted();
        auto peers = std::make_shared<std::vector<uint32_t>>();
        if (!takesPart)
        {
            peers->push_back(npu); // sits this phase out (no steps)
            ph.myIndex = 0;
        }
        else
        {
            // the line through this NPU, starting at the root's coordinate
            const uint32_t rc = Coord(root, d);
            const size_t at = std::find(coords[d].begin(), coords[d].end(), rc) - coords[d].begin();
            for (size_t x = 0; x < n; ++x)
            {
                const uint32_t member = WithCoord(npu, d, coords[d][(at + x) % n]);
                if (member == npu)
                {
                    ph.myIndex = static_cast<uint32_t>(x);
                }
                peers->push_back(member);
            }
        }
        ph.peers = peers;
        plan.phases.push_back(ph);
    }
}

CollectivePlan
CollectivePlanner::Plan(const CollectiveRequest& req,
                        uint32_t npu,
                        std::shared_ptr<const std::vector<uint32_t>> members,
                        const std::vector<uint32_t>* dimOrder) const
{
    CollectivePlan plan;
    const auto& dims = m_dims;
    const uint32_t nd = static_cast<uint32_t>(dims.size());
    const bool world = members->size() == m_npus;
    // the dimensions the instance spans (V) and its coordinates along each
    std::vector<std::vector<uint32_t>> coords(nd);
    std::vector<uint32_t> V;
    bool regular = true;
    const bool compat = m_params.compat;
    // compat: the reference's logical topology covers only the dimensions the algorithm
    // list names (CheckListLengths warns)
    const size_t listed =
        compat && !List(OpOf(req.type)).empty() && !List(OpOf(req.type)).front().flattened
            ? List(OpOf(req.type)).size()
            : nd;
    if (world)
    {
        for (uint32_t d = 0; d < nd; ++d)
        {
            const bool involved =
                req.involvedDim.empty() || (d < req.involvedDim.size() && req.involvedDim[d]);
            if (dims[d].npus > 1 && involved && d < listed)
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
    plan.op = op;
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
    if (compat && !world)
    {
        // ASTRA-sim 2.0 runs a communicator group smaller than the network as one ring
        // (or the single listed algorithm) over its members, in the queues of dimension 0
        const auto& l = List(op);
        AlgoSpec ring;
        AlgoSpec one = l.size() == 1 ? l.front() : ring;
        one.flattened = false;
        add(op, regular && V.size() == 1 ? static_cast<int32_t>(V[0]) : -1, members, &one);
        plan.phases.back().queueDim = 0;
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
        if (IsRootedOp(op) && op != PhaseOp::BARRIER)
        {
            // the members in order from the root
            const uint32_t root = RootOf(req, *members);
            const size_t at =
                std::lower_bound(members->begin(), members->end(), root) - members->begin();
            auto rotated = std::make_shared<std::vector<uint32_t>>();
            for (size_t x = 0; x < members->size(); ++x)
            {
                rotated->push_back((*members)[(at + x) % members->size()]);
            }
            add(op, -1, members);
            plan.phases.back().myIndex = static_cast<uint32_t>(
                (plan.phases.back().myIndex + members->size() - at) % members->size());
            plan.phases.back().peers = rotated;
            return plan;
        }
        add(op, -1, members);
        return plan;
    }
    if (IsRootedOp(op) && op != PhaseOp::BARRIER)
    {
        // a collective on all NPUs (one instance per line or sub-grid when involved_dim
        // restricts it) takes the root's coordinates on its own dimensions; a group's root
        // must be a member
        uint32_t root;
        if (world && req.root >= 0 && uint32_t(req.root) < m_npus)
        {
            root = npu;
            for (uint32_t d : V)
            {
                root = WithCoord(root, d, Coord(static_cast<uint32_t>(req.root), d));
            }
        }
        else
        {
            root = RootOf(req, *subgrid());
        }
        AddRootedPhases(plan, npu, op, root, V, coords);
        return plan;
    }
    if (V.size() == 1)
    {
        add(op, static_cast<int32_t>(V[0]), line(V[0]));
        return plan;
    }
    if (op == PhaseOp::BARRIER)
    {
        AddRootedPhases(plan, npu, op, npu, V, coords);
        return plan;
    }
    if (Configured(op, -1).flattened)
    {
        add(op, -1, subgrid());
        return plan;
    }
    std::vector<uint32_t> order = V;
    const bool bwAware = m_params.optimization == CollOptimization::LOCAL_BW_AWARE;
    if (compat)
    {
        // the reference visits dimensions in index order (all-gather in reverse) and takes
        // every phase of an all-reduce from the all-reduce list
        if (op == PhaseOp::ALL_GATHER)
        {
            std::reverse(order.begin(), order.end());
        }
        const auto& l = List(op);
        auto algoOf = [&l](uint32_t d) { return l[std::min<size_t>(d, l.size() - 1)]; };
        if (op == PhaseOp::ALL_REDUCE && bwAware)
        {
            for (size_t i = 0; i + 1 < order.size(); ++i)
            {
                const AlgoSpec a = algoOf(order[i]);
                add(PhaseOp::REDUCE_SCATTER, order[i], line(order[i]), &a);
            }
            const AlgoSpec last = algoOf(order.back());
            add(PhaseOp::ALL_REDUCE, order.back(), line(order.back()), &last);
            for (size_t i = order.size() - 1; i-- > 0;)
            {
                const AlgoSpec a = algoOf(order[i]);
                add(PhaseOp::ALL_GATHER, order[i], line(order[i]), &a);
            }
            return plan;
        }
        for (uint32_t d : order)
        {
            const AlgoSpec a = algoOf(d);
            add(op, d, line(d), &a);
        }
        return plan;
    }
    if (bwAware)
    {
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return dims[a].bandwidthGBps > dims[b].bandwidthGBps;
        });
    }
    if (op == PhaseOp::ALL_REDUCE || op == PhaseOp::REDUCE_SCATTER || op == PhaseOp::ALL_GATHER)
    {
        std::vector<uint32_t> planned = order; // the order the switch below uses
        if (op == PhaseOp::ALL_GATHER && bwAware)
        {
            std::reverse(planned.begin(), planned.end());
        }
        for (uint32_t d : planned)
        {
            plan.spanned.push_back(ScheduledDim{d,
                                                static_cast<uint32_t>(coords[d].size()),
                                                dims[d].bandwidthGBps * 1073741824.0 / 1e9});
        }
    }
    if (dimOrder && !plan.spanned.empty())
    {
        std::vector<uint32_t> given = *dimOrder;
        std::vector<uint32_t> mine = order;
        std::sort(given.begin(), given.end());
        std::sort(mine.begin(), mine.end());
        if (given != mine)
        {
            throw std::logic_error("CollectivePlanner::Plan: the dimension order is not a "
                                   "permutation of the collective's dimensions");
        }
        // a scheduled order (e.g. Themis): all-reduce = reduce-scatter in that order, then
        // all-gather in the reverse order
        if (op == PhaseOp::ALL_REDUCE)
        {
            for (uint32_t d : *dimOrder)
            {
                add(PhaseOp::REDUCE_SCATTER, d, line(d));
            }
            for (auto it = dimOrder->rbegin(); it != dimOrder->rend(); ++it)
            {
                add(PhaseOp::ALL_GATHER, *it, line(*it));
            }
            return plan;
        }
        for (uint32_t d : *dimOrder)
        {
            add(op, d, line(d));
        }
        return plan;
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
