#include "roce-backend.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/log.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <yaml-cpp/yaml.h>

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
                          "one repeats)",
                          StringValue("3,3,3,3"),
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
    for (auto& s : m_stacks)
    {
        if (s)
        {
            s->SetMessageCallbacks(RdmaHostStack::MessageCallback(),
                                   RdmaHostStack::MessageCallback());
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
    std::stringstream ss(m_priorityMapStr);
    std::string item;
    size_t i = 0;
    int last = 3;
    while (std::getline(ss, item, ',') && i < m_prio.size())
    {
        int p = std::stoi(item);
        NS_ABORT_MSG_IF(p < 0 || p > 7,
                        "RoceBackend: PriorityMap entry " << i << " = " << p
                                                          << " is not a priority 0..7");
        m_prio[i++] = uint8_t(p);
        last = p;
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
        NS_ABORT_MSG_IF(!s && i < topo->GetNpuCount(),
                        "RoceBackend::SetFabric: NPU " << i << " (node " << n->GetId()
                                                       << ") has no RdmaHostStack");
        if (!s)
        {
            continue;
        }
        m_stacks[i] = s;
        m_hostIndex[i] = s->GetHostIndex();
        s->SetMessageCallbacks(MakeCallback(&RoceBackend::OnTx, this),
                               MakeCallback(&RoceBackend::OnRx, this));
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
            set.qps.push_back(s->GetOrCreateQp(m_hostIndex[dst], prio, 0));
            ++m_qpCount;
        }
    }
    Ptr<RdmaQueuePair> qp = set.qps[set.next];
    set.next = (set.next + 1) % uint32_t(set.qps.size());
    return qp;
}

void
RoceBackend::Send(const NetMessage& msg, SentCallback onSent, DeliveredCallback onDelivered)
{
    NS_ABORT_MSG_IF(!m_topo, "RoceBackend::Send before SetFabric");
    if (msg.src >= m_stacks.size() || msg.dst >= m_stacks.size() || !m_stacks[msg.src] ||
        !m_stacks[msg.dst])
    {
        throw std::out_of_range("RoceBackend::Send: no endpoint " + std::to_string(msg.src) +
                                " -> " + std::to_string(msg.dst));
    }
    uint32_t slot = AllocSlot();
    Slot& s = m_slots[slot];
    s.msg = msg;
    s.onSent = std::move(onSent);
    s.onDelivered = std::move(onDelivered);
    s.posted = Simulator::Now();
    s.sent = false;
    s.delivered = false;
    s.used = true;
    s.qpn = 0;
    s.qpOffset = 0;
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
    if (m_useSend)
    {
        m_stacks[msg.src]->PostSend(qp, msg.bytes, slot);
    }
    else
    {
        m_stacks[msg.src]->PostWrite(qp, msg.bytes, slot);
    }
}

void
RoceBackend::LocalComplete(uint32_t slot)
{
    RdmaMessageInfo info;
    info.tag = slot;
    OnRx(info);
    OnTx(info);
}

void
RoceBackend::OnRx(const RdmaMessageInfo& info)
{
    if (info.tag & kForeignTagBit)
    {
        return; // not a backend message
    }
    uint32_t slot = uint32_t(info.tag);
    NS_ABORT_MSG_IF(slot >= m_slots.size() || !m_slots[slot].used || m_slots[slot].delivered,
                    "RoceBackend: receiver completion for unknown message tag "
                        << info.tag
                        << " (traffic that other code posts on the backend's host stacks must "
                           "set RoceBackend::kForeignTagBit in its tag)");
    Slot& s = m_slots[slot];
    s.delivered = true;
    --m_pending;
    ++m_delivered;
    m_deliveredBytes += s.msg.bytes;
    m_bytesByClass[std::min<size_t>(size_t(s.msg.tclass), m_bytesByClass.size() - 1)] +=
        s.msg.bytes;
    // copy out: the callback may Send() and grow the slot table
    NetMessage msg = s.msg;
    DeliveredCallback cb = std::move(s.onDelivered);
    s.onDelivered = nullptr;
    bool release = s.sent;
    Time latency = Simulator::Now() - s.posted;
    if (release)
    {
        Release(slot);
    }
    m_deliveredTrace(msg, latency);
    if (cb)
    {
        cb(msg);
    }
}

void
RoceBackend::OnTx(const RdmaMessageInfo& info)
{
    if (info.tag & kForeignTagBit)
    {
        return; // not a backend message
    }
    uint32_t slot = uint32_t(info.tag);
    NS_ABORT_MSG_IF(slot >= m_slots.size() || !m_slots[slot].used || m_slots[slot].sent,
                    "RoceBackend: sender completion for unknown message tag "
                        << info.tag
                        << " (traffic that other code posts on the backend's host stacks must "
                           "set RoceBackend::kForeignTagBit in its tag)");
    Slot& s = m_slots[slot];
    s.sent = true;
    ++m_sent;
    NetMessage msg = s.msg;
    SentCallback cb = std::move(s.onSent);
    s.onSent = nullptr;
    bool release = s.delivered;
    Time latency = Simulator::Now() - s.posted;
    if (release)
    {
        Release(slot);
    }
    m_sentTrace(msg, latency);
    if (cb)
    {
        cb(msg);
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

namespace
{

void
ApplyOne(const std::string& file, const std::string& key, const YAML::Node& value, uint32_t& n)
{
    if (!value.IsScalar())
    {
        throw std::runtime_error(file + ": value of '" + key + "' must be a scalar");
    }
    std::string v = value.as<std::string>();
    std::string name = key;
    if (name.find("::") == std::string::npos)
    {
        // a global value (RngSeed, RngRun, ...)
        if (!Config::SetGlobalFailSafe(name, StringValue(v)))
        {
            throw std::runtime_error(file + ": unknown global value '" + key + "' or bad value");
        }
        ++n;
        return;
    }
    if (name.rfind("ns3::", 0) != 0)
    {
        name = "ns3::" + name;
    }
    if (!Config::SetDefaultFailSafe(name, StringValue(v)))
    {
        throw std::runtime_error(file + ": cannot set '" + name + "' to '" + v +
                                 "' (unknown attribute or bad value)");
    }
    ++n;
}

} // namespace

std::map<uint64_t, RoceBackend::EcnRateEntry>&
RoceBackend::GetEcnRateMap()
{
    static std::map<uint64_t, EcnRateEntry> map;
    return map;
}

uint32_t
RoceBackend::ApplyHpccConfig(const std::string& path, std::vector<std::string>* ignored)
{
    std::ifstream in(path);
    if (!in)
    {
        throw std::runtime_error("cannot open HPCC/SimAI configuration '" + path + "'");
    }
    uint32_t n = 0;
    auto set = [&](const std::string& key, const std::string& name, const std::string& v) {
        if (!Config::SetDefaultFailSafe(name, StringValue(v)))
        {
            throw std::runtime_error(path + ": " + key + " = '" + v + "': cannot set " + name);
        }
        ++n;
    };
    auto number = [&](const std::string& key, const std::string& v) {
        try
        {
            size_t used = 0;
            double d = std::stod(v, &used);
            if (used != v.size())
            {
                throw std::invalid_argument(v);
            }
            return d;
        }
        catch (const std::exception&)
        {
            throw std::runtime_error(path + ": " + key + ": '" + v + "' is not a number");
        }
    };
    std::map<uint64_t, EcnRateEntry> ecn;
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream ls(line);
        std::string key;
        if (!(ls >> key) || key[0] == '#')
        {
            continue;
        }
        std::vector<std::string> vals;
        for (std::string v; ls >> v;)
        {
            vals.push_back(v);
        }
        if (vals.empty())
        {
            throw std::runtime_error(path + ": " + key + " has no value");
        }
        const std::string& v = vals[0];
        auto us = [&](const std::string& name) {
            set(key, name, std::to_string(number(key, v)) + "us");
        };
        if (key == "CC_MODE")
        {
            int mode = int(number(key, v));
            if (mode != 1)
            {
                throw std::runtime_error(path + ": CC_MODE " + v +
                                         " is not available (1 = DCQCN; HPCC, TIMELY, DCTCP "
                                         "are not built yet)");
            }
            set(key, "ns3::RdmaHostStack::CongestionControl", "ns3::RdmaCcDcqcn");
        }
        else if (key == "ENABLE_QCN")
        {
            set(key, "ns3::RdmaSwitch::EcnEnabled", number(key, v) != 0 ? "true" : "false");
        }
        else if (key == "ENABLE_PFC")
        {
            std::string b = number(key, v) != 0 ? "true" : "false";
            set(key, "ns3::SwitchMmu::PfcEnabled", b);
            set(key, "ns3::RdmaNetDevice::PfcEnabled", b);
        }
        else if (key == "PACKET_PAYLOAD_SIZE")
        {
            set(key, "ns3::RdmaHostStack::Mtu", v);
        }
        else if (key == "BUFFER_SIZE")
        {
            set(key,
                "ns3::SwitchMmu::BufferSize",
                std::to_string(uint64_t(number(key, v) * 1024 * 1024)));
        }
        else if (key == "RATE_AI" || key == "RATE_HAI" || key == "MIN_RATE")
        {
            const char* attr = key == "RATE_AI"    ? "RateAi"
                               : key == "RATE_HAI" ? "RateHai"
                                                   : "MinRate";
            set(key, std::string("ns3::RdmaCcDcqcn::") + attr, v);
            // HPCC's values are absolute, not scaled to the line rate
            set(key, "ns3::RdmaCcDcqcn::ScaleWithLinkRate", "false");
        }
        else if (key == "ALPHA_RESUME_INTERVAL")
        {
            us("ns3::RdmaCcDcqcn::AlphaPeriod");
        }
        else if (key == "RP_TIMER")
        {
            us("ns3::RdmaCcDcqcn::RateIncreasePeriod");
        }
        else if (key == "EWMA_GAIN")
        {
            set(key, "ns3::RdmaCcDcqcn::G", v);
        }
        else if (key == "FAST_RECOVERY_TIMES")
        {
            set(key, "ns3::RdmaCcDcqcn::FastRecoverySteps", v);
        }
        else if (key == "L2_ACK_INTERVAL")
        {
            uint64_t b = uint64_t(number(key, v));
            if (b <= 1)
            {
                set(key, "ns3::RdmaHostStack::AckInterval", "1");
                set(key, "ns3::RdmaHostStack::AckIntervalBytes", "0");
            }
            else
            {
                // one ACK per this many bytes (and at every message end)
                set(key, "ns3::RdmaHostStack::AckInterval", "4294967295");
                set(key, "ns3::RdmaHostStack::AckIntervalBytes", std::to_string(b));
            }
        }
        else if (key == "HAS_WIN" && number(key, v) == 0)
        {
            set(key, "ns3::RdmaHostStack::Window", "0");
        }
        else if (key == "KMIN_MAP" || key == "KMAX_MAP" || key == "PMAX_MAP")
        {
            size_t count = size_t(number(key, v));
            if (vals.size() != 1 + 2 * count)
            {
                throw std::runtime_error(path + ": " + key + ": expected " + std::to_string(count) +
                                         " (rate, value) pairs");
            }
            for (size_t i = 0; i < count; ++i)
            {
                uint64_t rate = uint64_t(number(key, vals[1 + 2 * i]));
                double x = number(key, vals[2 + 2 * i]);
                EcnRateEntry& e = ecn[rate];
                if (key == "KMIN_MAP")
                {
                    e.kminBytes = uint64_t(x * 1000); // KB
                }
                else if (key == "KMAX_MAP")
                {
                    e.kmaxBytes = uint64_t(x * 1000);
                }
                else
                {
                    e.pmax = x;
                }
            }
            ++n;
        }
        else if (ignored)
        {
            ignored->push_back(key);
        }
    }
    if (!ecn.empty())
    {
        for (const auto& kv : ecn)
        {
            if (kv.second.kmaxBytes == 0 || kv.second.kmaxBytes < kv.second.kminBytes)
            {
                throw std::runtime_error(path + ": KMIN_MAP/KMAX_MAP/PMAX_MAP disagree for rate " +
                                         std::to_string(kv.first));
            }
        }
        GetEcnRateMap() = ecn;
    }
    return n;
}

uint32_t
RoceBackend::ApplyConfigFile(const std::string& path)
{
    {
        // HPCC / SimAI config.txt: first meaningful line is "KEY value" (no ':' / '{')
        std::ifstream in(path);
        std::string line;
        while (in && std::getline(in, line))
        {
            size_t p = line.find_first_not_of(" \t\r");
            if (p == std::string::npos || line[p] == '#')
            {
                continue;
            }
            if (line[p] != '{' && line.find(':') == std::string::npos)
            {
                std::vector<std::string> ignored;
                uint32_t n = ApplyHpccConfig(path, &ignored);
                if (!ignored.empty())
                {
                    std::ostringstream os;
                    for (const auto& k : ignored)
                    {
                        os << ' ' << k;
                    }
                    NS_LOG_WARN(path << ": keys without an equivalent, ignored:" << os.str());
                    std::clog << path << ": " << ignored.size()
                              << " keys without an equivalent ignored:" << os.str() << "\n";
                }
                return n;
            }
            break;
        }
    }
    YAML::Node root;
    try
    {
        root = YAML::LoadFile(path);
    }
    catch (const std::exception& e)
    {
        throw std::runtime_error("cannot read RoCE configuration '" + path + "': " + e.what());
    }
    if (!root.IsMap())
    {
        throw std::runtime_error(path + ": expected a mapping of attribute paths to values");
    }
    uint32_t n = 0;
    for (const auto& kv : root)
    {
        std::string key = kv.first.as<std::string>();
        if (kv.second.IsMap())
        {
            std::string type = key.rfind("ns3::", 0) == 0 ? key : "ns3::" + key;
            for (const auto& inner : kv.second)
            {
                ApplyOne(path, type + "::" + inner.first.as<std::string>(), inner.second, n);
            }
        }
        else
        {
            ApplyOne(path, key, kv.second, n);
        }
    }
    return n;
}

} // namespace astra
} // namespace ns3
