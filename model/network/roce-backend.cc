#include "roce-backend.h"

#include "in-switch-network.h"
#include "roce-config-reader.h"

#include "ns3/abort.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-node-info.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("RoceBackend");
NS_OBJECT_ENSURE_REGISTERED(RoceBackend);

namespace
{
constexpr uint32_t kNoHost = 0xFFFFFFFFu;
} // namespace

TypeId
RoceBackend::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::RoceBackend")
            .SetParent<NetworkBackend>()
            .SetGroupName("AstraSim")
            .AddConstructor<RoceBackend>()
            .AddAttribute("PriorityMap",
                          "Data priority (0..7) per traffic class, comma separated, in the order "
                          "COLLECTIVE,POINT_TO_POINT,MEMORY,CONTROL (fewer entries: the last "
                          "one repeats). MEMORY is the priority of the memory nodes' RDMA "
                          "traffic (FabricMemoryModel); its own by default, made lossless on "
                          "the switches by MemoryNodeHelper",
                          StringValue("3,3,4,3"),
                          MakeStringAccessor(&RoceBackend::m_priorityMapStr),
                          MakeStringChecker())
            .AddAttribute("QpsPerPair",
                          "Persistent QPs per (source, destination, priority); messages are "
                          "dealt round robin over them (different UDP source ports = ECMP "
                          "entropy)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RoceBackend::m_qpsPerPair),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("UseSend",
                          "Post messages as RDMA SEND instead of RDMA WRITE",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceBackend::m_useSend),
                          MakeBooleanChecker())
            .AddAttribute("DeliverAtAck",
                          "Tell the receiver that a message has arrived only when the sender "
                          "has its last ACK, right after the sender (as ASTRA-sim 2.0's ns-3 "
                          "backend does; every message then pays an ACK's return). Default: "
                          "when the last byte has reached the receiver (as NCCL, whose "
                          "receives complete when the data has landed)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceBackend::m_deliverAtAck),
                          MakeBooleanChecker())
            .AddTraceSource("MessageDelivered",
                            "A message's last byte reached the receiver (message, latency)",
                            MakeTraceSourceAccessor(&RoceBackend::m_deliveredTrace),
                            "ns3::astra::RoceBackend::MessageTracedCallback")
            .AddTraceSource("MessageSent",
                            "A message was acknowledged at the sender (message, latency)",
                            MakeTraceSourceAccessor(&RoceBackend::m_sentTrace),
                            "ns3::astra::RoceBackend::MessageTracedCallback");
    return tid;
}

RoceBackend::RoceBackend()
{
    m_prio.fill(3);
}

RoceBackend::~RoceBackend() = default;

void
RoceBackend::DoDispose()
{
    // the QPs (host stacks' objects) may outlive the backend: detach from both ends
    RdmaQpConsumer* self = this;
    for (auto& kv : m_qps)
    {
        const auto dst = static_cast<uint32_t>((kv.first >> 4) & 0xffffffffull);
        Ptr<RdmaHostStack> remote = dst < m_stacks.size() ? m_stacks[dst] : nullptr;
        for (const auto& qp : kv.second.qps)
        {
            Ptr<RdmaQueuePair> peer = remote ? remote->GetQp(qp->GetPeerQpn()) : nullptr;
            if (peer && peer->GetConsumer() == self)
            {
                peer->SetConsumer(nullptr);
            }
            if (qp->GetConsumer() == self)
            {
                qp->SetConsumer(nullptr);
            }
        }
    }
    m_stacks.clear();
    m_qps.clear();
    m_slots.clear();
    m_free.clear();
    m_topo.reset();
    NetworkBackend::DoDispose();
}

void
RoceBackend::ParsePriorityMap()
{
    // "P[,P...]": one priority 0..7 per traffic class in TrafficClass order, the last repeats
    std::stringstream ss(m_priorityMapStr);
    std::string item;
    size_t i = 0;
    int last = 3;
    while (std::getline(ss, item, ','))
    {
        const size_t a = item.find_first_not_of(" \t");
        const size_t b = item.find_last_not_of(" \t");
        const std::string v = a == std::string::npos ? "" : item.substr(a, b - a + 1);
        if (v.size() != 1 || v[0] < '0' || v[0] > '7' || i >= m_prio.size())
        {
            throw InputError(
                "RoceBackend::PriorityMap '" + m_priorityMapStr + "': " +
                (i >= m_prio.size()
                     ? std::string("more entries than the ") + std::to_string(m_prio.size()) +
                           " traffic classes"
                     : "entry " + std::to_string(i) + " '" + v + "' is not a priority 0..7"));
        }
        m_prio[i++] = uint8_t(v[0] - '0');
        last = v[0] - '0';
    }
    if (i == 0)
    {
        throw InputError("RoceBackend::PriorityMap is empty (one priority 0..7 per traffic class)");
    }
    for (; i < m_prio.size(); ++i)
    {
        m_prio[i] = uint8_t(last);
    }
}

void
RoceBackend::SetFabric(std::shared_ptr<const Topology> topo, NodeContainer npus)
{
    NS_ABORT_MSG_IF(!topo, "RoceBackend::SetFabric: null topology");
    ParsePriorityMap();
    m_topo = topo;
    m_stacks.assign(topo->GetNodeCount(), nullptr);
    m_hostIndex.assign(topo->GetNodeCount(), kNoHost);
    NS_ABORT_MSG_IF(npus.GetN() < topo->GetNpuCount(),
                    "RoceBackend::SetFabric: " << npus.GetN() << " nodes for "
                                               << topo->GetNpuCount() << " NPUs");
    for (uint32_t i = 0; i < npus.GetN() && i < topo->GetNodeCount(); ++i)
    {
        Ptr<Node> n = npus.Get(i);
        if (!n)
        {
            continue;
        }
        Ptr<RdmaHostStack> s = n->GetObject<RdmaHostStack>();
        // an NPU of another rank in a partial build: its host index, no stack
        Ptr<RdmaNodeInfo> info = n->GetObject<RdmaNodeInfo>();
        const bool ghost = !s && info && info->IsGhost() && info->IsHost();
        NS_ABORT_MSG_IF(!s && !ghost && i < topo->GetNpuCount(),
                        "RoceBackend::SetFabric: NPU " << i << " (node " << n->GetId()
                                                       << ") has no RdmaHostStack");
        if (!s && !ghost)
        {
            continue;
        }
        m_stacks[i] = s;
        const uint32_t host = s ? s->GetHostIndex() : info->GetHostIndex();
        m_hostIndex[i] = host;
        if (m_nodeOfHost.size() <= host)
        {
            m_nodeOfHost.resize(size_t(host) + 1, kNoHost);
        }
        m_nodeOfHost[host] = i;
    }
}

void
RoceBackend::SetDistributed(uint32_t rank, DistributedMessageCodec* codec, MessageSink* sink)
{
    NS_ABORT_MSG_IF(!m_topo, "RoceBackend::SetDistributed before SetFabric");
    if (m_deliverAtAck)
    {
        throw InputError("RoceBackend: DeliverAtAck is not available in a distributed run (the "
                         "receiver would learn of the sender's last ACK through a side channel)");
    }
    m_distributed = true;
    m_codec = codec;
    m_remoteSink = sink;
    m_local.assign(m_stacks.size(), false);
    for (uint32_t i = 0; i < m_stacks.size(); ++i)
    {
        if (!m_stacks[i])
        {
            continue; // none, or an NPU of another rank (partial build)
        }
        Ptr<Node> n = m_stacks[i]->GetObject<Node>();
        m_local[i] = !n || n->GetSystemId() == rank;
        if (m_local[i])
        {
            m_stacks[i]->SetListener(this); // ends opened by senders on other ranks
        }
    }
}

uint32_t
RoceBackend::AllocSlot()
{
    if (m_free.empty())
    {
        m_slots.emplace_back();
        return uint32_t(m_slots.size() - 1);
    }
    uint32_t s = m_free.back();
    m_free.pop_back();
    return s;
}

void
RoceBackend::Release(uint32_t slot)
{
    Slot& s = m_slots[slot];
    s.onSent = nullptr;
    s.onDelivered = nullptr;
    s.sink = nullptr;
    s.used = false;
    m_free.push_back(slot);
}

Ptr<RdmaQueuePair>
RoceBackend::GetQp(uint32_t src, uint32_t dst, uint8_t prio)
{
    uint64_t key = (uint64_t(src) << 36) | (uint64_t(dst) << 4) | prio;
    QpSet& set = m_qps[key];
    if (set.qps.empty())
    {
        Ptr<RdmaHostStack> s = m_stacks[src];
        for (uint32_t i = 0; i < m_qpsPerPair; ++i)
        {
            // sport 0: the host stack picks a distinct, deterministic source port
            set.qps.push_back(s->GetOrCreateQp(m_hostIndex[dst], prio, 0, this));
            ++m_qpCount;
        }
    }
    Ptr<RdmaQueuePair> qp = set.qps[set.next];
    set.next = (set.next + 1) % uint32_t(set.qps.size());
    return qp;
}

uint32_t
RoceBackend::NewSlot(const NetMessage& msg)
{
    NS_ABORT_MSG_IF(!m_topo, "RoceBackend::Send before SetFabric");
    if (msg.src >= m_stacks.size() || msg.dst >= m_stacks.size() || !m_stacks[msg.src] ||
        m_hostIndex[msg.dst] == kNoHost)
    {
        throw std::out_of_range("RoceBackend::Send: no endpoint " + std::to_string(msg.src) +
                                " -> " + std::to_string(msg.dst));
    }
    uint32_t slot = AllocSlot();
    Slot& s = m_slots[slot];
    s.msg = msg;
    s.sink = nullptr;
    s.cookie = 0;
    s.notifySent = false;
    s.posted = Simulator::Now();
    s.sent = false;
    s.delivered = false;
    s.arrived = false;
    s.used = true;
    s.qpn = 0;
    s.qpOffset = 0;
    s.remote = false;
    return slot;
}

void
RoceBackend::Start(uint32_t slot)
{
    Slot& s = m_slots[slot];
    const NetMessage& msg = s.msg;
    ++m_pending;
    ++m_posted;
    m_postedBytes += msg.bytes;
    if (msg.src == msg.dst)
    {
        Simulator::ScheduleNow(&RoceBackend::LocalComplete, this, slot);
        return;
    }
    uint8_t prio = m_prio[std::min<size_t>(size_t(msg.tclass), m_prio.size() - 1)];
    Ptr<RdmaQueuePair> qp = GetQp(msg.src, msg.dst, prio);
    s.qpn = qp->GetQpn();
    s.qpOffset = qp->GetPostedBytes();
    s.prio = prio;
    // user tag: the slot here, and the class and dimension for a receiver on another rank;
    // immediate data: the system layer's tag and (to another rank) its collective's key
    const uint64_t tag = uint64_t(slot) | (uint64_t(uint8_t(msg.tclass)) << 32) |
                         (uint64_t(uint32_t(msg.dim + 1) & 0xFFFFFFu) << 40);
    uint64_t key = 0;
    if (m_distributed && !m_local[msg.dst])
    {
        s.remote = true;
        s.delivered = true; // on the destination's rank
        key = m_codec ? m_codec->ExportKey(msg) : 0;
    }
    if (m_useSend)
    {
        m_stacks[msg.src]->PostSend(qp, msg.bytes, tag, msg.tag, key);
    }
    else
    {
        m_stacks[msg.src]->PostWrite(qp, msg.bytes, tag, msg.tag, key);
    }
}

void
RoceBackend::Send(const NetMessage& msg, SentCallback onSent, DeliveredCallback onDelivered)
{
    const uint32_t slot = NewSlot(msg);
    Slot& s = m_slots[slot];
    s.onSent = std::move(onSent);
    s.onDelivered = std::move(onDelivered);
    Start(slot);
}

void
RoceBackend::SendTo(const NetMessage& msg, MessageSink* sink, uint64_t cookie, bool notifySent)
{
    const uint32_t slot = NewSlot(msg);
    Slot& s = m_slots[slot];
    s.sink = sink;
    s.cookie = cookie;
    s.notifySent = notifySent;
    Start(slot);
}

void
RoceBackend::LocalComplete(uint32_t slot)
{
    OnRx(slot);
    OnTx(slot);
}

void
RoceBackend::RxComplete(RdmaQueuePair&, const RdmaMessageInfo& info)
{
    if (m_distributed)
    {
        const uint32_t src =
            info.srcHost < m_nodeOfHost.size() ? m_nodeOfHost[info.srcHost] : kNoHost;
        if (src == kNoHost || !m_local[src])
        {
            DeliverRemote(info);
            return;
        }
    }
    OnRx(uint32_t(info.tag));
}

void
RoceBackend::DeliverRemote(const RdmaMessageInfo& info)
{
    NetMessage msg;
    msg.src = info.srcHost < m_nodeOfHost.size() ? m_nodeOfHost[info.srcHost] : kNoHost;
    msg.dst = info.dstHost < m_nodeOfHost.size() ? m_nodeOfHost[info.dstHost] : kNoHost;
    msg.bytes = info.bytes;
    msg.tag = info.user;
    msg.tclass = static_cast<TrafficClass>((info.tag >> 32) & 0xFF);
    msg.dim = int32_t((info.tag >> 40) & 0xFFFFFF) - 1;
    if (m_codec)
    {
        m_codec->ImportKey(msg, info.user2);
    }
    ++m_delivered;
    m_deliveredBytes += msg.bytes;
    m_bytesByClass[std::min<size_t>(size_t(msg.tclass), m_bytesByClass.size() - 1)] += msg.bytes;
    m_deliveredTrace(msg, Simulator::Now() - info.start);
    if (m_remoteSink)
    {
        m_remoteSink->MessageDelivered(msg);
    }
}

void
RoceBackend::TxComplete(RdmaQueuePair&, const RdmaMessageInfo& info)
{
    OnTx(uint32_t(info.tag));
}

void
RoceBackend::OnRx(uint64_t tag)
{
    uint32_t slot = uint32_t(tag);
    NS_ABORT_MSG_IF(tag >= m_slots.size() || !m_slots[slot].used || m_slots[slot].delivered,
                    "RoceBackend: receiver completion for unknown message tag " << tag);
    Slot& s = m_slots[slot];
    if (m_deliverAtAck && !s.sent && s.qpn != 0)
    {
        s.arrived = true; // delivered with the sender's last ACK (OnTx)
        return;
    }
    s.delivered = true;
    --m_pending;
    ++m_delivered;
    m_deliveredBytes += s.msg.bytes;
    m_bytesByClass[std::min<size_t>(size_t(s.msg.tclass), m_bytesByClass.size() - 1)] +=
        s.msg.bytes;
    // copy out: the callback may Send() and grow the slot table
    NetMessage msg = s.msg;
    MessageSink* sink = s.sink;
    DeliveredCallback cb = std::move(s.onDelivered);
    s.onDelivered = nullptr;
    bool release = s.sent;
    Time latency = Simulator::Now() - s.posted;
    if (release)
    {
        Release(slot);
    }
    m_deliveredTrace(msg, latency);
    if (sink)
    {
        sink->MessageDelivered(msg);
    }
    else if (cb)
    {
        cb(msg);
    }
}

void
RoceBackend::OnTx(uint64_t tag)
{
    uint32_t slot = uint32_t(tag);
    NS_ABORT_MSG_IF(tag >= m_slots.size() || !m_slots[slot].used || m_slots[slot].sent,
                    "RoceBackend: sender completion for unknown message tag " << tag);
    Slot& s = m_slots[slot];
    s.sent = true;
    ++m_sent;
    if (s.remote)
    {
        --m_pending; // delivered on the destination's rank
    }
    NetMessage msg = s.msg;
    MessageSink* sink = s.notifySent ? s.sink : nullptr;
    const uint64_t cookie = s.cookie;
    SentCallback cb = std::move(s.onSent);
    s.onSent = nullptr;
    bool release = s.delivered;
    const bool deliverNow = s.arrived; // DeliverAtAck: the receiver learns it now
    Time latency = Simulator::Now() - s.posted;
    if (release)
    {
        Release(slot);
    }
    m_sentTrace(msg, latency);
    if (sink)
    {
        sink->MessageSent(msg, cookie);
    }
    else if (cb)
    {
        cb(msg);
    }
    if (deliverNow)
    {
        OnRx(tag);
    }
}

uint32_t
RoceBackend::GetNpuCount() const
{
    return m_topo ? m_topo->GetNpuCount() : 0;
}

std::string
RoceBackend::GetName() const
{
    return "roce";
}

uint64_t
RoceBackend::GetPendingMessages() const
{
    return m_pending;
}

uint8_t
RoceBackend::GetPriority(TrafficClass tc) const
{
    return m_prio[std::min<size_t>(size_t(tc), m_prio.size() - 1)];
}

Ptr<RdmaHostStack>
RoceBackend::GetHostStack(uint32_t id) const
{
    return id < m_stacks.size() ? m_stacks[id] : nullptr;
}

std::shared_ptr<const Topology>
RoceBackend::GetTopology() const
{
    return m_topo;
}

uint64_t
RoceBackend::GetDeliveredMessages() const
{
    return m_delivered;
}

uint64_t
RoceBackend::GetDeliveredBytes() const
{
    return m_deliveredBytes;
}

uint64_t
RoceBackend::GetDeliveredBytes(TrafficClass tc) const
{
    return m_bytesByClass[std::min<size_t>(size_t(tc), m_bytesByClass.size() - 1)];
}

uint64_t
RoceBackend::GetProgressCounter() const
{
    // only this backend's own connections: traffic that other code posts on the same host
    // stacks (background flows of a scenario) must not hide a stalled workload
    uint64_t c = m_delivered;
    // in-switch operations on the same fabric (AggregationHelper): their own progress
    if (Ptr<InSwitchNetwork> in = GetObject<InSwitchNetwork>())
    {
        c += in->GetProgressCounter();
    }
    for (const auto& kv : m_qps)
    {
        const auto dst = static_cast<uint32_t>((kv.first >> 4) & 0xffffffffull);
        Ptr<RdmaHostStack> remote = dst < m_stacks.size() ? m_stacks[dst] : nullptr;
        for (const auto& qp : kv.second.qps)
        {
            Ptr<RdmaQueuePair> peer = remote ? remote->GetQp(qp->GetPeerQpn()) : nullptr;
            c += peer ? peer->GetRcvBytes() : qp->GetSndUna();
        }
    }
    return c;
}

std::string
RoceBackend::DescribeInFlight(uint32_t maxLines) const
{
    std::ostringstream os;
    uint32_t shown = 0;
    uint64_t total = 0;
    for (const Slot& s : m_slots)
    {
        if (!s.used)
        {
            continue;
        }
        ++total;
        if (shown >= maxLines)
        {
            continue;
        }
        ++shown;
        uint64_t done = s.sent ? s.msg.bytes : 0;
        Ptr<RdmaQueuePair> qp;
        if (!s.sent && s.qpn != 0 && m_stacks[s.msg.src])
        {
            qp = m_stacks[s.msg.src]->GetQp(s.qpn);
        }
        if (qp)
        {
            uint64_t una = qp->GetSndUna();
            done = una > s.qpOffset ? std::min<uint64_t>(una - s.qpOffset, s.msg.bytes) : 0;
        }
        os << "    NPU " << s.msg.src << " -> NPU " << s.msg.dst << ": host "
           << m_hostIndex[s.msg.src] << " QP " << s.qpn;
        if (qp)
        {
            os << " (to host " << qp->GetRemoteHost() << " QP " << qp->GetPeerQpn() << ")";
        }
        os << " priority " << unsigned(s.prio) << ", " << done << "/" << s.msg.bytes
           << " B acknowledged, " << (s.delivered ? "delivered" : "not delivered") << ", posted at "
           << s.posted.GetNanoSeconds() << " ns\n";
    }
    if (total > shown)
    {
        os << "    ... and " << (total - shown) << " more messages\n";
    }
    return os.str();
}

uint64_t
RoceBackend::GetSentMessages() const
{
    return m_sent;
}

uint64_t
RoceBackend::GetPostedMessages() const
{
    return m_posted;
}

uint64_t
RoceBackend::GetPostedBytes() const
{
    return m_postedBytes;
}

uint32_t
RoceBackend::GetQpCount() const
{
    return m_qpCount;
}

uint32_t
RoceBackend::ApplyConfigFile(const std::string& path)
{
    return RoceConfigReader::Apply(path).applied;
}

} // namespace astra
} // namespace ns3
