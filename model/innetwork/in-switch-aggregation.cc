#include "in-switch-aggregation.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/enum.h"
#include "ns3/event-batcher.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("InSwitchAggregation");

NS_OBJECT_ENSURE_REGISTERED(InSwitchAggregation);

TypeId
InSwitchAggregation::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::InSwitchAggregation")
            .SetParent<InSwitchNetwork>()
            .SetGroupName("AstraSim")
            .AddAttribute("Slots",
                          "Aggregation slots per switch (each holds one slot sequence's "
                          "partial result of one tree)",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&InSwitchAggregation::m_slots),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TreeSlots",
                          "Slots a tree takes at each of its switches: its window, the slot "
                          "sequences a member keeps in flight (throughput is at most "
                          "TreeSlots x SlotPayload per loop time)",
                          UintegerValue(256),
                          MakeUintegerAccessor(&InSwitchAggregation::m_treeSlots),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SlotPayload",
                          "Payload bytes per slot, one packet (0: ns3::RdmaHostStack::Mtu)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&InSwitchAggregation::m_slotPayload),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TreesPerSwitch",
                          "Trees a switch can hold at once (0: no limit; SHARP generations "
                          "with one streaming tree per switch: 1)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&InSwitchAggregation::m_treesPerSwitch),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TreesPerPort",
                          "Trees one switch port can take part in at once (0: no limit)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&InSwitchAggregation::m_treesPerPort),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AggregationPorts",
                          "Ports of a switch that can take part in one tree (children and "
                          "parent; 0: all); a wider tree is a configuration error",
                          UintegerValue(0),
                          MakeUintegerAccessor(&InSwitchAggregation::m_aggregationPorts),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("NoResources",
                          "A group without a tree or slots: fallback (run the host algorithm; "
                          "decided when the group first asks, SHARP-like) or wait (trees "
                          "are leased per operation; wait for resources, SwitchML-like)",
                          EnumValue(0),
                          MakeEnumAccessor(&InSwitchAggregation::m_policyValue),
                          MakeEnumChecker(0, "fallback", 1, "wait"))
            .AddAttribute("ReductionRate",
                          "Bytes per second a switch combines per port (0: the port's line "
                          "rate, never a bottleneck)",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&InSwitchAggregation::m_reductionRate),
                          MakeDataRateChecker())
            .AddAttribute("EngineLatency",
                          "Time one pass through a switch's aggregation engine adds",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&InSwitchAggregation::m_engineLatency),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("OperationStart",
                            "An in-switch operation started on its tree (key, tree)",
                            MakeTraceSourceAccessor(&InSwitchAggregation::m_startTrace),
                            "ns3::astra::InSwitchAggregation::OperationTracedCallback")
            .AddTraceSource("OperationEnd",
                            "An in-switch operation finished on its tree (key, tree)",
                            MakeTraceSourceAccessor(&InSwitchAggregation::m_endTrace),
                            "ns3::astra::InSwitchAggregation::OperationTracedCallback");
    return tid;
}

InSwitchAggregation::InSwitchAggregation() = default;
InSwitchAggregation::~InSwitchAggregation() = default;

void
InSwitchAggregation::DoDispose()
{
    m_ops.clear();
    m_opByKey.clear();
    m_trees.clear();
    m_groups.clear();
    m_topo = nullptr;
    InSwitchNetwork::DoDispose();
}

void
InSwitchAggregation::SetTopology(std::shared_ptr<const Topology> topo)
{
    m_topo = std::move(topo);
}

std::shared_ptr<const Topology>
InSwitchAggregation::GetTopology() const
{
    return m_topo;
}

std::string
InSwitchAggregation::Validate() const
{
    std::ostringstream err;
    const std::string me = "ns3::astra::InSwitchAggregation::";
    if (m_slots == 0)
    {
        err << me << "Slots (0) must be at least 1; ";
    }
    if (m_treeSlots == 0)
    {
        err << me << "TreeSlots (0) must be at least 1; ";
    }
    if (m_treeSlots > m_slots && m_slots != 0)
    {
        err << me << "TreeSlots (" << m_treeSlots << ") exceeds Slots (" << m_slots
            << "): no tree could ever get its slots; ";
    }
    const uint32_t payload = GetSlotPayload();
    if (payload == 0 || payload > 65536)
    {
        err << me << "SlotPayload (" << payload << ") must be 1 .. 65536 bytes; ";
    }
    if (m_aggregationPorts == 1)
    {
        err << me << "AggregationPorts (1) leaves no port for a child besides the parent; ";
    }
    return err.str();
}

InSwitchAggregation::Policy
InSwitchAggregation::GetPolicy() const
{
    return m_policyValue == 1 ? Policy::WAIT : Policy::FALLBACK;
}

uint32_t
InSwitchAggregation::GetTreeSlots() const
{
    return m_treeSlots;
}

uint32_t
InSwitchAggregation::DefaultSlotPayload() const
{
    TypeId tid;
    TypeId::AttributeInformation info;
    if (TypeId::LookupByNameFailSafe("ns3::RdmaHostStack", &tid) &&
        tid.LookupAttributeByName("Mtu", &info))
    {
        UintegerValue v;
        if (v.DeserializeFromString(info.initialValue->SerializeToString(info.checker),
                                    info.checker))
        {
            return static_cast<uint32_t>(v.Get());
        }
    }
    return 1000;
}

uint32_t
InSwitchAggregation::GetSlotPayload() const
{
    return m_slotPayload != 0 ? m_slotPayload : DefaultSlotPayload();
}

double
InSwitchAggregation::GetReductionBytesPerNs() const
{
    return double(m_reductionRate.GetBitRate()) / 8e9;
}

double
InSwitchAggregation::GetEngineLatencyNs() const
{
    return m_engineLatency.GetSeconds() * 1e9;
}

uint32_t
InSwitchAggregation::GetTreeCount() const
{
    return uint32_t(m_trees.size());
}

const AggregationTree&
InSwitchAggregation::GetTree(uint32_t i) const
{
    return m_trees.at(i).tree;
}

const InSwitchAggregation::Stats&
InSwitchAggregation::GetStats() const
{
    return m_stats;
}

bool
InSwitchAggregation::CanAggregate(uint32_t dim, std::string* why) const
{
    if (!m_topo || dim >= m_topo->GetDimensionCount())
    {
        if (why)
        {
            *why = "there is no dimension " + std::to_string(dim);
        }
        return false;
    }
    const DimensionSpec& s = m_topo->GetDimensions()[dim];
    if (!s.inSwitch)
    {
        if (why)
        {
            *why = "dimension " + std::to_string(dim) + " (" + DimTypeName(s.type) +
                   ") has no aggregating switches (mark a Switch, Clos, FatTree or RailClos "
                   "dimension with in_switch: 1 in the network configuration)";
        }
        return false;
    }
    return true;
}

std::string
InSwitchAggregation::CheckResources(const AggregationTree& t) const
{
    for (const auto& n : t.nodes)
    {
        auto it = m_switchUse.find(n.sw);
        const SwitchUse use = it == m_switchUse.end() ? SwitchUse{} : it->second;
        if (use.slots + m_treeSlots > m_slots)
        {
            return "switch " + std::to_string(n.sw) + " has " +
                   std::to_string(m_slots - use.slots) + " free slots of " +
                   std::to_string(m_slots) + ", the tree needs " + std::to_string(m_treeSlots);
        }
        if (m_treesPerSwitch != 0 && use.trees + 1 > m_treesPerSwitch)
        {
            return "switch " + std::to_string(n.sw) + " holds " + std::to_string(use.trees) +
                   " tree(s), its limit (TreesPerSwitch)";
        }
        if (m_treesPerPort != 0)
        {
            for (uint32_t l : n.portLinks)
            {
                auto p = m_portUse.find({n.sw, l});
                if (p != m_portUse.end() && p->second + 1 > m_treesPerPort)
                {
                    return "a port of switch " + std::to_string(n.sw) + " (link " +
                           std::to_string(l) + ") is in " + std::to_string(p->second) +
                           " tree(s), its limit (TreesPerPort)";
                }
            }
        }
    }
    return "";
}

void
InSwitchAggregation::HoldResources(const AggregationTree& t, bool take)
{
    for (const auto& n : t.nodes)
    {
        SwitchUse& use = m_switchUse[n.sw];
        if (take)
        {
            use.slots += m_treeSlots;
            use.trees += 1;
        }
        else
        {
            use.slots -= m_treeSlots;
            use.trees -= 1;
        }
        for (uint32_t l : n.portLinks)
        {
            uint32_t& p = m_portUse[{n.sw, l}];
            p = take ? p + 1 : p - 1;
        }
    }
}

bool
InSwitchAggregation::Reserve(uint32_t dim, const std::vector<uint32_t>& members, std::string* why)
{
    std::vector<uint32_t> key;
    key.reserve(members.size() + 1);
    key.push_back(dim);
    key.insert(key.end(), members.begin(), members.end());
    auto it = m_groups.find(key);
    if (it != m_groups.end())
    {
        if (it->second < 0 && why)
        {
            *why = "the group got no tree when it first asked";
        }
        return it->second >= 0;
    }
    std::string reason;
    if (!CanAggregate(dim, &reason))
    {
        throw InputError("in-switch collective: " + reason);
    }
    const std::string err = Validate();
    if (!err.empty())
    {
        throw InputError(err);
    }
    AggregationTreeBuilder builder(*m_topo);
    std::vector<uint32_t> roots;
    try
    {
        roots = builder.RootCandidates(dim, members);
    }
    catch (const std::invalid_argument& e)
    {
        throw InputError(std::string(e.what()));
    }
    if (roots.empty())
    {
        throw InputError("in-switch collective: no switch of dimension " + std::to_string(dim) +
                         " is above all " + std::to_string(members.size()) +
                         " members of the group (NPU " + std::to_string(members.front()) + " ...)");
    }
    int32_t chosen = -1;
    AggregationTree tree;
    std::string first;
    for (uint32_t r : roots)
    {
        AggregationTree t = builder.Build(dim, members, r);
        for (const auto& n : t.nodes)
        {
            if (m_aggregationPorts != 0 && n.ports > m_aggregationPorts)
            {
                throw InputError(
                    "in-switch collective: the tree of the " + std::to_string(members.size()) +
                    "-NPU group on dimension " + std::to_string(dim) + " needs " +
                    std::to_string(n.ports) + " ports at switch " + std::to_string(n.sw) +
                    " but ns3::astra::InSwitchAggregation::AggregationPorts is " +
                    std::to_string(m_aggregationPorts) + " (the tree is wider than the ports)");
            }
        }
        const std::string res = CheckResources(t);
        if (res.empty())
        {
            tree = std::move(t);
            chosen = int32_t(r);
            break;
        }
        if (first.empty())
        {
            first = res;
            if (GetPolicy() == Policy::WAIT)
            {
                tree = t; // waits for this one if no candidate is free now
            }
        }
    }
    if (chosen < 0 && GetPolicy() == Policy::FALLBACK)
    {
        m_groups.emplace(key, -1);
        ++m_stats.fallbacks;
        if (why)
        {
            *why = first;
        }
        return false;
    }
    TreeState ts;
    ts.tree = std::move(tree);
    if (GetPolicy() == Policy::FALLBACK)
    {
        HoldResources(ts.tree, true);
        ts.held = true;
    }
    const uint32_t idx = uint32_t(m_trees.size());
    m_trees.push_back(std::move(ts));
    m_groups.emplace(key, int32_t(idx));
    ++m_stats.trees;
    NS_LOG_INFO("tree " << idx << ": " << m_trees[idx].tree.Describe(*m_topo));
    TreeBuilt(idx);
    return true;
}

void
InSwitchAggregation::TreeBuilt(uint32_t)
{
}

InSwitchAggregation::Operation&
InSwitchAggregation::GetOperation(uint32_t id)
{
    return m_ops[id];
}

void
InSwitchAggregation::Join(const InSwitchOp& op,
                          uint32_t member,
                          MessageSink* sink,
                          uint64_t cookie,
                          bool notifySent)
{
    // the group's tree: an operation is identified by its key and its tree (the lines of a
    // collective share a key)
    std::vector<uint32_t> group;
    group.reserve(op.members->size() + 1);
    group.push_back(uint32_t(op.dim));
    group.insert(group.end(), op.members->begin(), op.members->end());
    auto g = m_groups.find(group);
    if (g == m_groups.end() || g->second < 0)
    {
        throw std::logic_error("in-switch: operation on a group without a reserved tree");
    }
    const OpKey opKey{op.key, uint32_t(g->second)};
    uint32_t id;
    auto it = m_opByKey.find(opKey);
    if (it == m_opByKey.end())
    {
        if (m_freeOps.empty())
        {
            id = uint32_t(m_ops.size());
            m_ops.emplace_back();
        }
        else
        {
            id = m_freeOps.back();
            m_freeOps.pop_back();
        }
        Operation& o = m_ops[id];
        o = Operation{};
        o.op = op;
        o.tree = uint32_t(g->second);
        o.inUse = true;
        const uint32_t n = uint32_t(op.members->size());
        o.members.assign(n, Member{});
        for (uint32_t r = 0; r < n; ++r)
        {
            if (InSwitchBytes(op.kind, n, r, op.root, op.bytes).up > 0)
            {
                ++o.contributors;
            }
        }
        m_opByKey.emplace(opKey, id);
    }
    else
    {
        id = it->second;
    }
    Operation& o = m_ops[id];
    Member& m = o.members.at(member);
    if (m.joined)
    {
        throw std::logic_error("in-switch: member joined an operation twice");
    }
    m.joined = true;
    m.cookie = cookie;
    m.notifySent = notifySent;
    ++o.joined;
    if (!o.sink)
    {
        o.sink = sink;
    }
    const uint32_t n = uint32_t(o.op.members->size());
    if (InSwitchBytes(o.op.kind, n, member, o.op.root, o.op.bytes).up > 0)
    {
        ++o.contributorsJoined;
        if (o.contributorsJoined == o.contributors)
        {
            o.readyAt = Simulator::Now();
            m_trees[o.tree].ready.push_back(id);
            TryStart(o.tree);
            return; // the operation may have run and been freed
        }
    }
    MaybeFree(id);
}

void
InSwitchAggregation::TryStart(uint32_t i)
{
    TreeState& ts = m_trees[i];
    if (ts.running >= 0 || ts.ready.empty())
    {
        return;
    }
    if (!ts.held)
    {
        const std::string res = CheckResources(ts.tree);
        if (!res.empty())
        {
            if (!ts.waiting)
            {
                ts.waiting = true;
                ts.waitingSince = Simulator::Now();
                m_waiting.push_back(i);
                ++m_stats.waits;
                ASTRA_WARN("in-switch-wait",
                           "in-switch operation on tree " << i << " (" << ts.tree.members.size()
                                                          << " NPUs, dimension " << ts.tree.dim
                                                          << ") waits for resources: " << res);
            }
            return;
        }
        HoldResources(ts.tree, true);
        ts.held = true;
        if (ts.waiting)
        {
            ts.waiting = false;
            m_stats.waitTime += Simulator::Now() - ts.waitingSince;
            m_waiting.erase(std::find(m_waiting.begin(), m_waiting.end(), i));
        }
    }
    const uint32_t id = ts.ready.front();
    ts.ready.pop_front();
    ts.running = int32_t(id);
    Operation& o = m_ops[id];
    o.serial = ts.serial++;
    o.started = true;
    ++m_pending;
    ++m_stats.operations;
    m_startTrace(o.op.key, i);
    StartOperation(id);
}

void
InSwitchAggregation::ReleaseIdle(uint32_t i)
{
    TreeState& ts = m_trees[i];
    if (GetPolicy() != Policy::WAIT || !ts.held || ts.running >= 0 || !ts.ready.empty())
    {
        return;
    }
    HoldResources(ts.tree, false);
    ts.held = false;
    const std::deque<uint32_t> waiting = m_waiting;
    for (uint32_t w : waiting)
    {
        TryStart(w);
    }
}

void
InSwitchAggregation::DeliverResult(uint32_t id, uint32_t m)
{
    Operation& o = m_ops[id];
    Member& mm = o.members[m];
    if (mm.delivered)
    {
        return;
    }
    mm.delivered = true;
    const uint32_t n = uint32_t(o.op.members->size());
    NetMessage msg;
    msg.src = (*o.op.members)[m];
    msg.dst = msg.src;
    msg.bytes = InSwitchBytes(o.op.kind, n, m, o.op.root, o.op.bytes).down;
    msg.tag = o.op.key;
    msg.dim = o.op.dim;
    msg.tclass = o.op.tclass;
    ++m_stats.resultsDelivered;
    m_stats.bytesDown += msg.bytes;
    ++m_progress;
    MessageSink* sink = o.sink;
    sink->MessageDelivered(msg); // may join other operations (m_ops may grow)
    MaybeFree(id);
}

void
InSwitchAggregation::ContributionDone(uint32_t id, uint32_t m)
{
    Operation& o = m_ops[id];
    Member& mm = o.members[m];
    if (mm.sent)
    {
        return;
    }
    mm.sent = true;
    const uint32_t n = uint32_t(o.op.members->size());
    NetMessage msg;
    msg.src = (*o.op.members)[m];
    msg.dst = msg.src;
    msg.bytes = InSwitchBytes(o.op.kind, n, m, o.op.root, o.op.bytes).up;
    msg.tag = o.op.key;
    msg.dim = o.op.dim;
    msg.tclass = o.op.tclass;
    m_stats.bytesUp += msg.bytes;
    ++m_progress;
    if (mm.notifySent && o.sink)
    {
        MessageSink* sink = o.sink;
        const uint64_t cookie = mm.cookie;
        sink->MessageSent(msg, cookie); // may join other operations
    }
    MaybeFree(id);
}

void
InSwitchAggregation::ScheduleMemberEnds(uint32_t id, std::vector<std::pair<int64_t, uint32_t>> ends)
{
    const Operation& o = GetOperation(id);
    const uint32_t n = uint32_t(o.op.members->size());
    std::stable_sort(ends.begin(), ends.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    auto left = std::make_shared<uint32_t>(uint32_t(ends.size()));
    for (const auto& e : ends)
    {
        const uint32_t m = e.second;
        const InSwitchVolume v = InSwitchBytes(o.op.kind, n, m, o.op.root, o.op.bytes);
        EventBatcher::Schedule(NanoSeconds(e.first), [this, id, m, v, left]() {
            if (v.up > 0)
            {
                ContributionDone(id, m);
            }
            if (v.down > 0)
            {
                DeliverResult(id, m);
            }
            if (--*left == 0)
            {
                FinishOperation(id);
            }
        });
    }
}

void
InSwitchAggregation::FinishOperation(uint32_t id)
{
    Operation& o = m_ops[id];
    o.finished = true;
    const uint32_t tree = o.tree;
    const uint64_t key = o.op.key;
    --m_pending;
    m_trees[tree].running = -1;
    m_endTrace(key, tree);
    MaybeFree(id);
    TryStart(tree);
    ReleaseIdle(tree);
}

void
InSwitchAggregation::MaybeFree(uint32_t id)
{
    Operation& o = m_ops[id];
    if (!o.inUse || !o.finished || o.joined < o.members.size())
    {
        return;
    }
    m_opByKey.erase(OpKey{o.op.key, o.tree});
    o.inUse = false;
    o.members.clear();
    o.op.members.reset();
    m_freeOps.push_back(id);
}

void
InSwitchAggregation::AddProgress(uint64_t bytes)
{
    m_progress += bytes;
}

uint64_t
InSwitchAggregation::GetPendingOperations() const
{
    return m_pending;
}

uint64_t
InSwitchAggregation::GetProgressCounter() const
{
    return m_progress;
}

uint64_t
InSwitchAggregation::EdgeBytes(const InSwitchOp& op,
                               const AggregationTree& tree,
                               uint32_t node,
                               bool up)
{
    const uint32_t n = uint32_t(op.members->size());
    if (node >= tree.nodes.size())
    {
        const InSwitchVolume v =
            InSwitchBytes(op.kind, n, node - uint32_t(tree.nodes.size()), op.root, op.bytes);
        return up ? v.up : v.down;
    }
    const AggregationTreeNode& c = tree.nodes[node];
    const uint64_t k = c.subtree.size();
    const bool rootIn = std::binary_search(c.subtree.begin(), c.subtree.end(), op.root);
    const uint64_t s = op.bytes;
    switch (op.kind)
    {
    case InSwitchOpKind::ALL_REDUCE:
        return s;
    case InSwitchOpKind::REDUCE_SCATTER:
        return up ? s : std::max<uint64_t>(1, s / std::max<uint32_t>(1, n)) * k;
    case InSwitchOpKind::ALL_GATHER:
        return up ? s * k : s * (k >= 2 ? n : n - 1);
    case InSwitchOpKind::REDUCE:
        return up ? s : (rootIn ? s : 0);
    case InSwitchOpKind::BROADCAST:
        return up ? (rootIn ? s : 0) : (k > (rootIn ? 1u : 0u) ? s : 0);
    }
    return 0;
}

uint64_t
InSwitchAggregation::Sequences(const InSwitchOp& op, uint32_t payload)
{
    const uint32_t n = uint32_t(op.members->size());
    auto packets = [payload](uint64_t b) {
        return std::max<uint64_t>(1, (b + payload - 1) / payload);
    };
    switch (op.kind)
    {
    case InSwitchOpKind::REDUCE_SCATTER:
        return uint64_t(n) * packets(std::max<uint64_t>(1, op.bytes / std::max<uint32_t>(1, n)));
    case InSwitchOpKind::ALL_GATHER:
        return uint64_t(n) * packets(op.bytes);
    default:
        return packets(op.bytes);
    }
}

double
InSwitchAggregation::LoopTimeNs(uint32_t tree) const
{
    const AggregationTree& t = m_trees.at(tree).tree;
    double maxUp = 0;
    for (uint32_t m = 0; m < t.members.size(); ++m)
    {
        maxUp = std::max(maxUp, t.UpLatencyNs(*m_topo, m));
    }
    double rate = t.MinRate(*m_topo);
    const double r = GetReductionBytesPerNs();
    if (r > 0)
    {
        rate = std::min(rate, r);
    }
    const double d = t.depth;
    return 2 * maxUp + 2 * d * GetSlotPayload() / rate + (2 * d - 1) * GetEngineLatencyNs();
}

double
InSwitchAggregation::StreamNs(const InSwitchOp& op, uint32_t tree) const
{
    const AggregationTree& t = m_trees.at(tree).tree;
    const auto& links = m_topo->GetLinks();
    const double r = GetReductionBytesPerNs();
    auto rateOf = [&](uint32_t link) {
        const double b = links[link].bytesPerNs;
        return r > 0 ? std::min(b, r) : b;
    };
    double stream = 0;
    const uint32_t nn = uint32_t(t.nodes.size());
    for (uint32_t m = 0; m < t.members.size(); ++m)
    {
        const double rate = rateOf(t.memberUp[m].link);
        stream = std::max(stream, double(EdgeBytes(op, t, nn + m, true)) / rate);
        stream = std::max(stream, double(EdgeBytes(op, t, nn + m, false)) / rate);
    }
    for (uint32_t i = 0; i < nn; ++i)
    {
        if (t.nodes[i].parent < 0)
        {
            continue;
        }
        const double rate = rateOf(t.nodes[i].up.link);
        stream = std::max(stream, double(EdgeBytes(op, t, i, true)) / rate);
        stream = std::max(stream, double(EdgeBytes(op, t, i, false)) / rate);
    }
    const double slots =
        double(Sequences(op, GetSlotPayload())) * LoopTimeNs(tree) / double(m_treeSlots);
    return std::max(stream, slots);
}

double
InSwitchAggregation::LatencyNs(const InSwitchOp& op, uint32_t tree, uint32_t member) const
{
    const AggregationTree& t = m_trees.at(tree).tree;
    const uint32_t n = uint32_t(op.members->size());
    const double e = GetEngineLatencyNs();
    const double d = t.depth;
    const InSwitchVolume v = InSwitchBytes(op.kind, n, member, op.root, op.bytes);
    if (v.down == 0)
    {
        return t.UpLatencyNs(*m_topo, member) + d * e;
    }
    double upLat = 0;
    for (uint32_t c = 0; c < n; ++c)
    {
        if (InSwitchBytes(op.kind, n, c, op.root, op.bytes).up > 0)
        {
            upLat = std::max(upLat, t.UpLatencyNs(*m_topo, c));
        }
    }
    return upLat + t.UpLatencyNs(*m_topo, member) + (2 * d - 1) * e;
}

double
InSwitchAggregation::ClosedFormNs(const InSwitchOp& op, uint32_t tree, uint32_t member) const
{
    return LatencyNs(op, tree, member) + StreamNs(op, tree);
}

void
InSwitchAggregation::PrintSummary(std::ostream& os) const
{
    os << "in-network aggregation: " << m_stats.trees << " tree(s), " << m_stats.operations
       << " operation(s) on trees (" << m_stats.bytesUp << " B contributed, " << m_stats.bytesDown
       << " B of results), " << m_stats.fallbacks << " group(s) fell back to the host algorithm, "
       << m_stats.waits << " operation(s) waited for resources ("
       << m_stats.waitTime.GetNanoSeconds() << " ns in all)\n";
}

} // namespace astra
} // namespace ns3
