#include "roce-in-switch.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("RoceInSwitch");

NS_OBJECT_ENSURE_REGISTERED(RoceInSwitch);

namespace
{
/// 64-bit finalizer (splitmix64)
uint64_t
Mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

constexpr uint64_t kSeqMask = (uint64_t(1) << 40) - 1;
} // namespace

TypeId
RoceInSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::RoceInSwitch")
            .SetParent<InSwitchAggregation>()
            .SetGroupName("AstraSim")
            .AddConstructor<RoceInSwitch>()
            .AddAttribute("Priority",
                          "Data priority (PCP) of the connections between NPUs and engines and "
                          "between engines",
                          UintegerValue(3),
                          MakeUintegerAccessor(&RoceInSwitch::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7));
    return tid;
}

RoceInSwitch::RoceInSwitch() = default;
RoceInSwitch::~RoceInSwitch() = default;

void
RoceInSwitch::DoDispose()
{
    // the QPs live in the host stacks: detach from them
    for (auto& run : m_runs)
    {
        for (auto& h : run.hosts)
        {
            h.qp = nullptr;
        }
    }
    for (const auto& s : m_npus)
    {
        for (uint32_t i = 0; s && i < s->GetNQps(); ++i)
        {
            Ptr<RdmaQueuePair> qp = s->GetQpByIndex(i);
            if (qp && qp->GetConsumer() == static_cast<RdmaQpConsumer*>(this))
            {
                qp->SetConsumer(nullptr);
            }
        }
    }
    for (const auto& e : m_engines)
    {
        Ptr<RdmaHostStack> s = e.second->GetStack();
        for (uint32_t i = 0; s && i < s->GetNQps(); ++i)
        {
            Ptr<RdmaQueuePair> qp = s->GetQpByIndex(i);
            if (qp && qp->GetConsumer() == static_cast<RdmaQpConsumer*>(this))
            {
                qp->SetConsumer(nullptr);
            }
        }
    }
    m_runs.clear();
    m_npus.clear();
    m_engines.clear();
    m_value = nullptr;
    m_result = nullptr;
    InSwitchAggregation::DoDispose();
}

void
RoceInSwitch::SetFabric(const std::vector<Ptr<RdmaHostStack>>& npus,
                        const std::map<uint32_t, Ptr<AggregationEngine>>& engines)
{
    m_npus = npus;
    m_engines = engines;
    m_roles.assign(npus.size(), {});
}

void
RoceInSwitch::SetValueFunction(ValueFunction f)
{
    m_value = std::move(f);
}

void
RoceInSwitch::SetResultCallback(ResultCallback cb)
{
    m_result = std::move(cb);
}

uint32_t
RoceInSwitch::PatternValue(uint64_t key, uint32_t member, uint64_t seq)
{
    const uint32_t h = uint32_t(Mix(key ^ Mix(seq))) | 1u;
    return h * (member + 1);
}

const RoceInSwitch::HostStats&
RoceInSwitch::GetHostStats() const
{
    return m_hostStats;
}

Ptr<AggregationEngine>
RoceInSwitch::GetEngine(uint32_t sw) const
{
    auto it = m_engines.find(sw);
    return it == m_engines.end() ? nullptr : it->second;
}

uint32_t
RoceInSwitch::DefaultSlotPayload() const
{
    return m_npus.empty() ? InSwitchAggregation::DefaultSlotPayload() : m_npus[0]->GetMtu();
}

std::string
RoceInSwitch::ValidateFabric() const
{
    std::ostringstream err;
    const uint32_t payload = GetSlotPayload();
    auto check = [&](const Ptr<RdmaHostStack>& s, const std::string& what) {
        if (s && payload > s->GetMtu())
        {
            err << "ns3::astra::InSwitchAggregation::SlotPayload (" << payload
                << " B) exceeds the Mtu of " << what << " (" << s->GetMtu()
                << " B): a slot is one packet; ";
            return false;
        }
        return true;
    };
    for (size_t i = 0; i < m_npus.size(); ++i)
    {
        if (!check(m_npus[i], "NPU " + std::to_string(i)))
        {
            break;
        }
    }
    for (const auto& e : m_engines)
    {
        if (!check(e.second->GetStack(), "the engine of switch " + std::to_string(e.first)))
        {
            break;
        }
    }
    return err.str();
}

void
RoceInSwitch::TreeBuilt(uint32_t tree)
{
    const AggregationTree& t = GetTree(tree);
    if (tree >= 0x4000)
    {
        throw InputError("in-switch: more than 16384 reduction trees (one UDP source port each)");
    }
    const uint16_t sport = uint16_t(0xC000 | tree); // one connection per tree and link
    const uint32_t n = uint32_t(t.members.size());
    TreeRun run;
    run.hosts.resize(n);
    run.engineTree.resize(t.nodes.size());
    auto engineOf = [&](uint32_t i) {
        Ptr<AggregationEngine> e = GetEngine(t.nodes[i].sw);
        if (!e)
        {
            throw InputError("in-switch: switch " + std::to_string(t.nodes[i].sw) +
                             " of a reduction tree has no aggregation engine "
                             "(AggregationHelper installs one on every switch of a dimension "
                             "marked in_switch)");
        }
        return e;
    };
    // every switch of the tree takes part
    for (uint32_t i = 0; i < t.nodes.size(); ++i)
    {
        const AggregationTreeNode& node = t.nodes[i];
        const uint32_t children = uint32_t(node.members.size() + node.children.size());
        std::vector<int32_t> memberChild(n, -1);
        std::vector<uint32_t> childSize(children, 1);
        for (uint32_t c = 0; c < node.members.size(); ++c)
        {
            memberChild[node.members[c]] = int32_t(c);
        }
        for (uint32_t k = 0; k < node.children.size(); ++k)
        {
            const uint32_t c = uint32_t(node.members.size()) + k;
            const auto& sub = t.nodes[node.children[k]].subtree;
            childSize[c] = uint32_t(sub.size());
            for (uint32_t m : sub)
            {
                memberChild[m] = int32_t(c);
            }
        }
        run.engineTree[i] =
            engineOf(i)->AddTree(children, memberChild, childSize, node.parent < 0, GetTreeSlots());
    }
    // connections: members to their first-hop engine, child engines to their parent
    for (uint32_t i = 0; i < t.nodes.size(); ++i)
    {
        const AggregationTreeNode& node = t.nodes[i];
        Ptr<AggregationEngine> e = engineOf(i);
        for (uint32_t c = 0; c < node.members.size(); ++c)
        {
            const uint32_t m = node.members[c];
            const uint32_t npu = t.members[m];
            Ptr<RdmaQueuePair> qp =
                m_npus.at(npu)->GetOrCreateQp(e->GetHostIndex(), m_priority, sport, this);
            e->SetChildQp(run.engineTree[i], c, e->GetStack()->GetQp(qp->GetPeerQpn()));
            run.hosts[m].qp = qp;
            auto& roles = m_roles[npu];
            if (roles.size() <= qp->GetQpn())
            {
                roles.resize(qp->GetQpn() + 1, 0);
            }
            roles[qp->GetQpn()] = ((uint64_t(tree) << 32) | m) + 1;
        }
        for (uint32_t k = 0; k < node.children.size(); ++k)
        {
            const uint32_t j = node.children[k];
            Ptr<AggregationEngine> ej = engineOf(j);
            Ptr<RdmaQueuePair> up =
                ej->GetStack()->GetOrCreateQp(e->GetHostIndex(), m_priority, sport, this);
            ej->SetParentQp(run.engineTree[j], up);
            e->SetChildQp(run.engineTree[i],
                          uint32_t(node.members.size()) + k,
                          e->GetStack()->GetQp(up->GetPeerQpn()));
        }
    }
    if (m_runs.size() <= tree)
    {
        m_runs.resize(tree + 1);
    }
    m_runs[tree] = std::move(run);
}

std::pair<uint32_t, uint32_t>
RoceInSwitch::RoleOf(const RdmaQueuePair& qp) const
{
    const uint32_t host = qp.GetLocalHost();
    if (host < m_roles.size())
    {
        const auto& roles = m_roles[host];
        const uint32_t qpn = qp.GetQpn();
        if (qpn < roles.size() && roles[qpn] != 0)
        {
            const uint64_t r = roles[qpn] - 1;
            return {uint32_t(r >> 32), uint32_t(r & 0xFFFFFFFF)};
        }
    }
    return {UINT32_MAX, 0};
}

void
RoceInSwitch::StartOperation(uint32_t id)
{
    const Operation& o = GetOperation(id);
    TreeRun& run = m_runs.at(o.tree);
    const AggregationTree& t = GetTree(o.tree);
    const uint32_t n = uint32_t(t.members.size());
    run.op = int32_t(id);
    run.serial = o.serial & 0xFFFFFF;
    run.sched = AggregationSchedule::Make(o.op.kind, n, o.op.root, o.op.bytes, GetSlotPayload());
    run.done = 0;
    for (uint32_t i = 0; i < t.nodes.size(); ++i)
    {
        GetEngine(t.nodes[i].sw)->Begin(run.engineTree[i], run.sched, run.serial);
    }
    const uint32_t words = (GetTreeSlots() + 63) / 64;
    for (uint32_t m = 0; m < n; ++m)
    {
        Host& h = run.hosts[m];
        h.next = 0;
        h.contributions = run.sched.Contributions(m);
        h.acked = 0;
        h.received = 0;
        h.base = 0;
        h.seen.assign(words, 0);
        h.resultDone = false;
        h.sendDone = false;
        h.done = false;
    }
    NS_LOG_INFO("tree " << o.tree << " operation " << run.serial << ": "
                        << InSwitchOpName(o.op.kind) << " of " << o.op.bytes << " B, "
                        << run.sched.sequences << " sequences");
    for (uint32_t m = 0; m < n; ++m)
    {
        Pump(o.tree, m);
    }
}

bool
RoceInSwitch::Seen(const Host& h, uint64_t q) const
{
    if (q < h.base)
    {
        return true;
    }
    const uint32_t w = GetTreeSlots();
    if (q >= h.base + w)
    {
        return false;
    }
    const uint64_t i = q % w;
    return (h.seen[i / 64] >> (i % 64)) & 1;
}

void
RoceInSwitch::Pump(uint32_t tree, uint32_t m)
{
    TreeRun& run = m_runs[tree];
    Host& h = run.hosts[m];
    const uint64_t key = GetOperation(uint32_t(run.op)).op.key;
    const uint32_t w = GetTreeSlots();
    const uint32_t npu = GetTree(tree).members[m];
    while (h.next < h.contributions)
    {
        const uint64_t q = run.sched.ContributionSeq(m, h.next);
        if (q >= w && !Seen(h, q - w))
        {
            break; // its window: the down message of q - TreeSlots first
        }
        const uint32_t value = m_value ? m_value(key, m, q) : PatternValue(key, m, q);
        const uint64_t addr = AggregationAddress(run.serial, q);
        ++h.next;
        ++m_hostStats.contributions;
        m_npus[npu]->PostWriteImm(h.qp, run.sched.Payload(q), addr, value, addr);
    }
}

void
RoceInSwitch::RxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info)
{
    const auto role = RoleOf(qp);
    if (role.first == UINT32_MAX)
    {
        AddProgress(info.bytes + 1); // an engine's end
        return;
    }
    const uint32_t tree = role.first;
    const uint32_t m = role.second;
    TreeRun& run = m_runs[tree];
    const uint64_t q = info.tag & kSeqMask;
    if (run.op < 0 || uint32_t(info.tag >> 40) != run.serial)
    {
        return; // not of the running operation
    }
    Host& h = run.hosts[m];
    if (Seen(h, q))
    {
        return;
    }
    const uint32_t w = GetTreeSlots();
    const uint64_t i = q % w;
    h.seen[i / 64] |= uint64_t(1) << (i % 64);
    while (true)
    {
        const uint64_t b = h.base % w;
        if (!((h.seen[b / 64] >> (b % 64)) & 1))
        {
            break;
        }
        h.seen[b / 64] &= ~(uint64_t(1) << (b % 64));
        ++h.base;
    }
    ++h.received;
    AddProgress(info.bytes + 1);
    const uint32_t id = uint32_t(run.op);
    const Operation& o = GetOperation(id);
    if (info.bytes > 0)
    {
        ++m_hostStats.results;
        if (m_result)
        {
            m_result(o.op.key, m, q, info.imm);
        }
        if (!m_value)
        {
            uint32_t expect;
            switch (run.sched.kind)
            {
            case InSwitchOpKind::ALL_GATHER:
            case InSwitchOpKind::BROADCAST:
                expect = PatternValue(o.op.key, run.sched.Owner(q), q);
                break;
            default:
                expect = PatternValue(o.op.key, 0, q) *
                         uint32_t(uint64_t(run.sched.n) * (run.sched.n + 1) / 2);
                break;
            }
            ++m_hostStats.valuesChecked;
            if (info.imm != expect)
            {
                ++m_hostStats.valueErrors;
                ASTRA_WARN("in-switch-wrong-result",
                           "in-switch tree " << tree << ": member " << m << " got " << info.imm
                                             << " for sequence " << q << ", expected " << expect);
            }
        }
    }
    else
    {
        ++m_hostStats.credits;
    }
    Pump(tree, m);
    if (h.received == run.sched.sequences && !h.resultDone)
    {
        h.resultDone = true;
        const uint32_t n = run.sched.n;
        if (InSwitchBytes(o.op.kind, n, m, o.op.root, o.op.bytes).down > 0)
        {
            DeliverResult(id, m); // the system layer may join other operations
        }
    }
    MaybeDone(tree, m);
}

void
RoceInSwitch::TxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info)
{
    const auto role = RoleOf(qp);
    if (role.first == UINT32_MAX)
    {
        return; // an engine's message acknowledged
    }
    const uint32_t tree = role.first;
    const uint32_t m = role.second;
    TreeRun& run = m_runs[tree];
    if (run.op < 0 || uint32_t(info.tag >> 40) != run.serial)
    {
        return;
    }
    Host& h = run.hosts[m];
    ++h.acked;
    if (h.acked == h.contributions && !h.sendDone)
    {
        h.sendDone = true;
        ContributionDone(uint32_t(run.op), m);
    }
    MaybeDone(tree, m);
}

void
RoceInSwitch::MaybeDone(uint32_t tree, uint32_t m)
{
    TreeRun& run = m_runs[tree];
    if (run.op < 0)
    {
        return;
    }
    Host& h = run.hosts[m];
    if (h.done || h.received < run.sched.sequences || h.acked < h.contributions)
    {
        return;
    }
    h.done = true;
    if (++run.done == run.sched.n)
    {
        const uint32_t id = uint32_t(run.op);
        run.op = -1;
        FinishOperation(id); // may start the tree's next operation
    }
}

} // namespace astra
} // namespace ns3
