#include "aggregation-engine.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AggregationEngine");

NS_OBJECT_ENSURE_REGISTERED(AggregationEngine);

// ------------------------------------------------------------------ AggregationSchedule

AggregationSchedule
AggregationSchedule::Make(InSwitchOpKind kind,
                          uint32_t n,
                          uint32_t root,
                          uint64_t bytes,
                          uint32_t payload)
{
    AggregationSchedule s;
    s.kind = kind;
    s.n = n;
    s.root = root;
    s.bytes = std::max<uint64_t>(1, bytes);
    s.payload = std::max<uint32_t>(1, payload);
    auto packets = [&s](uint64_t b) {
        return std::max<uint64_t>(1, (b + s.payload - 1) / s.payload);
    };
    switch (kind)
    {
    case InSwitchOpKind::REDUCE_SCATTER:
        s.share = std::max<uint64_t>(1, s.bytes / std::max<uint32_t>(1, n));
        s.perMember = packets(s.share);
        s.sequences = uint64_t(n) * s.perMember;
        break;
    case InSwitchOpKind::ALL_GATHER:
        s.share = s.bytes;
        s.perMember = packets(s.share);
        s.sequences = uint64_t(n) * s.perMember;
        break;
    default:
        s.share = s.bytes;
        s.perMember = packets(s.bytes);
        s.sequences = s.perMember;
        break;
    }
    return s;
}

uint32_t
AggregationSchedule::Payload(uint64_t q) const
{
    uint64_t k = q;
    if (kind == InSwitchOpKind::REDUCE_SCATTER)
    {
        k = q % perMember;
    }
    else if (kind == InSwitchOpKind::ALL_GATHER)
    {
        k = q / n;
    }
    return uint32_t(std::min<uint64_t>(payload, share - k * payload));
}

uint32_t
AggregationSchedule::Owner(uint64_t q) const
{
    switch (kind)
    {
    case InSwitchOpKind::REDUCE_SCATTER:
        return uint32_t(q / perMember);
    case InSwitchOpKind::ALL_GATHER:
        return uint32_t(q % n);
    default:
        return root;
    }
}

bool
AggregationSchedule::Contributes(uint32_t m, uint64_t q) const
{
    switch (kind)
    {
    case InSwitchOpKind::ALL_GATHER:
        return Owner(q) == m;
    case InSwitchOpKind::BROADCAST:
        return m == root;
    default:
        return true;
    }
}

bool
AggregationSchedule::Receives(uint32_t m, uint64_t q) const
{
    switch (kind)
    {
    case InSwitchOpKind::ALL_REDUCE:
        return true;
    case InSwitchOpKind::REDUCE_SCATTER:
        return Owner(q) == m;
    case InSwitchOpKind::REDUCE:
        return m == root;
    case InSwitchOpKind::ALL_GATHER:
        return Owner(q) != m;
    case InSwitchOpKind::BROADCAST:
        return m != root;
    }
    return false;
}

uint64_t
AggregationSchedule::Contributions(uint32_t m) const
{
    switch (kind)
    {
    case InSwitchOpKind::ALL_GATHER:
        return perMember;
    case InSwitchOpKind::BROADCAST:
        return m == root ? sequences : 0;
    default:
        return sequences;
    }
}

uint64_t
AggregationSchedule::ContributionSeq(uint32_t m, uint64_t k) const
{
    return kind == InSwitchOpKind::ALL_GATHER ? k * n + m : k;
}

// ------------------------------------------------------------------ AggregationEngine

TypeId
AggregationEngine::GetTypeId()
{
    static TypeId tid = TypeId("ns3::astra::AggregationEngine")
                            .SetParent<Object>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<AggregationEngine>();
    return tid;
}

AggregationEngine::AggregationEngine() = default;
AggregationEngine::~AggregationEngine() = default;

void
AggregationEngine::DoDispose()
{
    // the stack, its QPs and this engine are aggregated to one node: drop the references
    // that would keep them alive after the node is disposed
    m_trees.clear();
    m_roles.clear();
    m_stack = nullptr;
    m_next = nullptr;
    Object::DoDispose();
}

void
AggregationEngine::Setup(uint32_t sw, Ptr<RdmaHostStack> stack, Ptr<RdmaNetDevice> port)
{
    m_switch = sw;
    m_stack = stack;
    m_next = PeekPointer(stack);
    // the engine sees every frame before the transport does (it does not need the bytes)
    port->SetFrameReceiver(this, false);
}

uint32_t
AggregationEngine::GetSwitch() const
{
    return m_switch;
}

Ptr<RdmaHostStack>
AggregationEngine::GetStack() const
{
    return m_stack;
}

uint32_t
AggregationEngine::GetHostIndex() const
{
    return m_stack->GetHostIndex();
}

const AggregationEngine::Stats&
AggregationEngine::GetStats() const
{
    return m_stats;
}

uint32_t
AggregationEngine::AddTree(uint32_t children,
                           const std::vector<int32_t>& memberChild,
                           const std::vector<uint32_t>& childSize,
                           bool root,
                           uint32_t window)
{
    Tree t;
    t.children = children;
    t.words = (children + 63) / 64;
    t.root = root;
    t.memberChild = memberChild;
    t.childSize = childSize;
    t.childQp.resize(children);
    t.slots.resize(window);
    t.bits.assign(size_t(window) * t.words, 0);
    m_trees.push_back(std::move(t));
    return uint32_t(m_trees.size() - 1);
}

void
AggregationEngine::SetRole(const Ptr<RdmaQueuePair>& qp, Role r)
{
    const uint32_t qpn = qp->GetQpn();
    if (m_roles.size() <= qpn)
    {
        m_roles.resize(qpn + 1);
    }
    m_roles[qpn] = r;
}

void
AggregationEngine::SetChildQp(uint32_t t, uint32_t c, Ptr<RdmaQueuePair> qp)
{
    m_trees.at(t).childQp.at(c) = qp;
    SetRole(qp, Role{t, c});
}

void
AggregationEngine::SetParentQp(uint32_t t, Ptr<RdmaQueuePair> qp)
{
    m_trees.at(t).parentQp = qp;
    SetRole(qp, Role{t, kParent});
}

void
AggregationEngine::Begin(uint32_t t, const AggregationSchedule& sched, uint32_t serial)
{
    Tree& tr = m_trees.at(t);
    tr.sched = sched;
    tr.serial = serial & 0xFFFFFF;
    tr.active = true;
    for (auto& s : tr.slots)
    {
        s = Slot{};
    }
    std::fill(tr.bits.begin(), tr.bits.end(), 0);
}

void
AggregationEngine::ReceiveFrame(RdmaNetDevice* dev, RdmaQueuedFrame& frame)
{
    const RdmaMeta& m = frame.meta;
    // every slot sequence is one WRITE Only with Immediate (RETH + ImmDt)
    if (m.kind == RdmaFrameKind::ROCE && m.opcode == RoceOpcode::WRITE_ONLY_IMM &&
        m.destQp < m_roles.size() && m_roles[m.destQp].tree != UINT32_MAX)
    {
        Consume(m_roles[m.destQp], m);
    }
    m_next->ReceiveFrame(dev, frame); // the transport: ACK / NAK, go-back-N as usual
}

void
AggregationEngine::Consume(const Role& r, const RdmaMeta& meta)
{
    Tree& t = m_trees[r.tree];
    const uint32_t serial = uint32_t(meta.rethVa >> 40);
    const uint64_t q = meta.rethVa & ((uint64_t(1) << 40) - 1);
    if (!t.active || serial != t.serial || q >= t.sched.sequences)
    {
        ++m_stats.stale; // a late frame of an earlier operation
        return;
    }
    const uint32_t w = uint32_t(t.slots.size());
    const uint32_t idx = uint32_t(q % w);
    Slot& s = t.slots[idx];
    uint64_t* bits = &t.bits[size_t(idx) * t.words];
    if (s.state == FREE || s.seq != q)
    {
        if (s.state != FREE && q < s.seq)
        {
            ++m_stats.stale; // a retransmission of a sequence whose slot was reused
            return;
        }
        if (s.state != FREE && s.state != DONE)
        {
            // an out-of-order frame one window ahead: the sequence the slot holds is not
            // done yet, so an earlier frame on this connection is missing; the transport
            // drops this one and it comes again in order
            ++m_stats.deferred;
            return;
        }
        // the slot starts sequence q (a DONE slot's kept result is no longer needed: every
        // contributor of q got the result of q - window before sending q)
        s.seq = q;
        s.value = 0;
        s.count = 0;
        s.state = COLLECTING;
        switch (t.sched.kind)
        {
        case InSwitchOpKind::ALL_GATHER:
        case InSwitchOpKind::BROADCAST: {
            const uint32_t owner = t.sched.Owner(q);
            s.expected = t.memberChild[owner] >= 0 ? 1 : 0;
            break;
        }
        default:
            s.expected = t.children;
            break;
        }
        std::fill(bits, bits + t.words, 0);
    }
    if (r.child == kParent)
    {
        // the result from the parent (after this switch's partial went up, or, with no
        // contributor below, as the first word on this sequence)
        if (s.state == DONE || (s.state == COLLECTING && s.expected > 0))
        {
            ++m_stats.duplicates;
            return;
        }
        s.value = meta.immData;
        ++m_stats.resultsDown;
        SendDown(t, s);
        return;
    }
    uint64_t& word = bits[r.child / 64];
    const uint64_t bit = uint64_t(1) << (r.child % 64);
    if (s.state != COLLECTING || (word & bit))
    {
        ++m_stats.duplicates; // counted once already (a go-back-N retransmission)
        return;
    }
    word |= bit;
    ++s.count;
    s.value += meta.immData; // 32-bit integer sum: exact, order-independent
    ++m_stats.contributions;
    if (s.count < s.expected)
    {
        return;
    }
    if (t.root)
    {
        ++m_stats.resultsDown;
        SendDown(t, s);
        return;
    }
    s.state = UP;
    ++m_stats.partialsUp;
    m_stack->PostWriteImm(t.parentQp,
                          t.sched.Payload(q),
                          AggregationAddress(t.serial, q),
                          s.value,
                          AggregationAddress(t.serial, q));
}

void
AggregationEngine::SendDown(Tree& t, Slot& s)
{
    const uint64_t q = s.seq;
    const uint64_t addr = AggregationAddress(t.serial, q);
    const uint32_t owner = t.sched.Owner(q);
    const int32_t ownerChild = t.memberChild[owner];
    const uint32_t payload = t.sched.Payload(q);
    s.state = DONE;
    for (uint32_t c = 0; c < t.children; ++c)
    {
        // the data where a member below receives it, else an empty credit where a member
        // below contributed (its window moves on)
        bool data = true;
        switch (t.sched.kind)
        {
        case InSwitchOpKind::ALL_REDUCE:
            break;
        case InSwitchOpKind::REDUCE_SCATTER:
        case InSwitchOpKind::REDUCE:
            data = ownerChild == int32_t(c);
            break;
        case InSwitchOpKind::ALL_GATHER:
        case InSwitchOpKind::BROADCAST:
            data = t.childSize[c] >= 2 || ownerChild != int32_t(c);
            break;
        }
        if (data)
        {
            m_stack->PostWriteImm(t.childQp[c], payload, addr, s.value, addr);
        }
        else
        {
            m_stack->PostWriteImm(t.childQp[c], 0, addr, 0, addr);
        }
        ++m_stats.messagesDown;
    }
}

} // namespace astra
} // namespace ns3
