#include "rdma-host-stack.h"

#include "dcqcn.h"
#include "roce-header.h"

#include "ns3/abort.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-forwarding-table.h"
#include "ns3/rdma-transit-forwarder.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaHostStack");

NS_OBJECT_ENSURE_REGISTERED(RdmaHostStack);

namespace
{
constexpr uint32_t kQpnBase = 16;                //!< QP numbers start here (0/1 are special in IB)
constexpr uint32_t kResponderQpnBase = 1u << 23; //!< responder ends' QP numbers (24-bit QPN)

inline bool
IsDataOpcode(uint8_t op)
{
    return op <= RoceOpcode::WRITE_ONLY_IMM; // SEND / WRITE, with or without immediate data
}

inline bool
IsImmOpcode(uint8_t op)
{
    return op == RoceOpcode::WRITE_ONLY_IMM || op == RoceOpcode::WRITE_LAST_IMM ||
           op == RoceOpcode::SEND_ONLY_IMM || op == RoceOpcode::SEND_LAST_IMM;
}

inline bool
IsReadResponse(uint8_t op)
{
    return op >= RoceOpcode::READ_RESP_FIRST && op <= RoceOpcode::READ_RESP_ONLY;
}

inline bool
IsLastOrOnly(uint8_t op)
{
    return op == RoceOpcode::SEND_LAST || op == RoceOpcode::SEND_ONLY ||
           op == RoceOpcode::WRITE_LAST || op == RoceOpcode::WRITE_ONLY || IsImmOpcode(op);
}

inline bool
IsSendOpcode(uint8_t op)
{
    return op <= RoceOpcode::SEND_ONLY;
}

inline bool
IsFirstOrOnly(uint8_t op)
{
    return op == RoceOpcode::SEND_FIRST || op == RoceOpcode::SEND_ONLY ||
           op == RoceOpcode::WRITE_FIRST || op == RoceOpcode::WRITE_ONLY ||
           op == RoceOpcode::WRITE_ONLY_IMM || op == RoceOpcode::SEND_ONLY_IMM;
}

constexpr uint8_t kAethAck = 0x1F;    //!< ACK, credit field "invalid" (no credit flow control)
constexpr uint8_t kAethNakSeq = 0x60; //!< NAK, PSN sequence error

inline uint64_t
NowPs()
{
    return uint64_t(Simulator::Now().GetPicoSeconds());
}
} // namespace

TypeId
RdmaHostStack::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaHostStack")
            .SetParent<Object>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaHostStack>()
            .AddAttribute("Mtu",
                          "RDMA payload bytes per packet (256..9000)",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&RdmaHostStack::m_mtu),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CongestionControl",
                          "TypeId of the per-QP congestion control (ns3::RdmaCcDcqcn, "
                          "ns3::RdmaCcNone, ...)",
                          TypeIdValue(RdmaCcDcqcn::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaHostStack::m_ccTypeId),
                          MakeTypeIdChecker())
            .AddAttribute("CongestionControlByPriority",
                          "Per-traffic-class CC: comma-separated PRIORITY:TYPE entries, e.g. "
                          "\"3:ns3::RdmaCcHpcc,5:ns3::RdmaCcDcqcn\" (TYPE may also be dcqcn, "
                          "hpcc, timely, dctcp, swift or none); QPs of priorities not listed "
                          "use CongestionControl",
                          StringValue(""),
                          MakeStringAccessor(&RdmaHostStack::m_ccByPrioStr),
                          MakeStringChecker())
            .AddAttribute("Window",
                          "Bytes-in-flight cap per QP handed to the CC (0 = none)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaHostStack::m_window),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("AckInterval",
                          "Responder sends one ACK per this many in-order packets (and at "
                          "every message end / AckReq)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaHostStack::m_ackInterval),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AckIntervalBytes",
                          "Also ACK once this many payload bytes were accepted (0 = off)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaHostStack::m_ackIntervalBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("DataPriority",
                          "Default priority (PCP) of data packets",
                          UintegerValue(3),
                          MakeUintegerAccessor(&RdmaHostStack::m_dataPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("AckPriority",
                          "Priority of ACK/NAK frames",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaHostStack::m_ackPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("CnpPriority",
                          "Priority of CNP frames",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaHostStack::m_cnpPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("CnpInterval",
                          "Minimum interval between CNPs per QP (4 us recent NICs, 50 us paper)",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&RdmaHostStack::m_cnpInterval),
                          MakeTimeChecker())
            .AddAttribute("Rto",
                          "Retransmission timeout (go-back-N from snd_una on expiry)",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&RdmaHostStack::m_rto),
                          MakeTimeChecker())
            .AddAttribute("RtoMaxBackoff",
                          "Maximum exponent of the RTO's exponential backoff (0 = no backoff)",
                          UintegerValue(6),
                          MakeUintegerAccessor(&RdmaHostStack::m_rtoMaxBackoff),
                          MakeUintegerChecker<uint32_t>(0, 20))
            .AddAttribute("InitialPsn",
                          "First PSN of every QP direction (tests use values near 2^24)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaHostStack::m_initialPsn),
                          MakeUintegerChecker<uint32_t>(0, RdmaPsn::kMask))
            .AddAttribute("BaseRtt",
                          "Base RTT handed to the congestion control (0 = unknown)",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaHostStack::m_baseRtt),
                          MakeTimeChecker())
            .AddTraceSource("RxMessageComplete",
                            "Last byte of a message arrived at the responder",
                            MakeTraceSourceAccessor(&RdmaHostStack::m_rxMsgTrace),
                            "ns3::RdmaHostStack::MessageTracedCallback")
            .AddTraceSource("TxMessageComplete",
                            "A message was fully acknowledged at the requester",
                            MakeTraceSourceAccessor(&RdmaHostStack::m_txMsgTrace),
                            "ns3::RdmaHostStack::MessageTracedCallback")
            .AddTraceSource("QpRateChange",
                            "CC rate of a QP changed: (host, qpn, old bps, new bps)",
                            MakeTraceSourceAccessor(&RdmaHostStack::m_rateTrace),
                            "ns3::RdmaHostStack::RateTracedCallback")
            .AddTraceSource("CnpSent",
                            "CNP sent: (host, local qpn)",
                            MakeTraceSourceAccessor(&RdmaHostStack::m_cnpSentTrace),
                            "ns3::RdmaHostStack::QpTracedCallback")
            .AddTraceSource("CnpReceived",
                            "CNP received: (host, local qpn)",
                            MakeTraceSourceAccessor(&RdmaHostStack::m_cnpRcvdTrace),
                            "ns3::RdmaHostStack::QpTracedCallback")
            .AddTraceSource("NakSent",
                            "NAK sent: (host, local qpn, expected psn)",
                            MakeTraceSourceAccessor(&RdmaHostStack::m_nakSentTrace),
                            "ns3::RdmaHostStack::PsnTracedCallback")
            .AddTraceSource("NakReceived",
                            "NAK received: (host, local qpn, psn)",
                            MakeTraceSourceAccessor(&RdmaHostStack::m_nakRcvdTrace),
                            "ns3::RdmaHostStack::PsnTracedCallback")
            .AddTraceSource("Timeout",
                            "Retransmission timeout: (host, local qpn, snd_una bytes)",
                            MakeTraceSourceAccessor(&RdmaHostStack::m_timeoutTrace),
                            "ns3::RdmaHostStack::TimeoutTracedCallback");
    return tid;
}

RdmaHostStack::RdmaHostStack()
    : m_cnpInterval(MicroSeconds(4)),
      m_rto(MilliSeconds(1))
{
}

RdmaHostStack::~RdmaHostStack()
{
    if (m_directory)
    {
        m_directory->Remove(this); // never leave a dangling directory entry
    }
}

void
RdmaHostStack::DoDispose()
{
    if (m_directory)
    {
        m_directory->Remove(this);
        m_directory = nullptr;
    }
    for (auto& qp : m_qps)
    {
        qp->Dispose();
    }
    m_qps.clear();
    for (auto& qp : m_responderQps)
    {
        qp->Dispose();
    }
    m_responderQps.clear();
    m_qpByKey.clear();
    for (auto& p : m_ports)
    {
        p->active.clear();
        p->dev = nullptr;
    }
    m_ports.clear();
    m_ccTemplate = nullptr;
    for (auto& cc : m_ccByPrio)
    {
        cc = nullptr;
    }
    m_fwd = nullptr;
    m_node = nullptr;
    Object::DoDispose();
}

void
RdmaHostStack::NotifyNewAggregate()
{
    if (!m_node)
    {
        m_node = GetObject<Node>();
    }
    Object::NotifyNewAggregate();
}

void
RdmaHostStack::AddPort(Ptr<RdmaNetDevice> dev)
{
    NS_ABORT_MSG_IF(!dev, "RdmaHostStack::AddPort: null device");
    auto p = std::make_unique<Port>();
    uint32_t idx = uint32_t(m_ports.size());
    p->dev = dev;
    p->source = std::make_unique<PortSource>(this, idx);
    p->lineRate = dev->GetDataRate().GetBitRate();
    dev->SetPortIndex(idx); // equals the transit forwarder's port numbering
    dev->SetFrameReceiver(this, false);
    dev->SetFrameSource(p->source.get());
    m_ports.push_back(std::move(p));
}

uint32_t
RdmaHostStack::GetNPorts() const
{
    return uint32_t(m_ports.size());
}

Ptr<RdmaNetDevice>
RdmaHostStack::GetPort(uint32_t i) const
{
    return i < m_ports.size() ? m_ports[i]->dev : nullptr;
}

void
RdmaHostStack::SetHostIndex(uint32_t index)
{
    if (m_directory)
    {
        m_directory->Remove(this);
    }
    m_hostIndex = index;
    m_indexSet = true;
    m_ipCache = 0;
    if (m_directory)
    {
        m_directory->Add(this);
    }
}

void
RdmaHostStack::SetDirectory(Ptr<RdmaHostDirectory> directory)
{
    if (m_directory)
    {
        m_directory->Remove(this);
    }
    m_directory = directory;
    if (m_directory)
    {
        m_directory->Add(this);
    }
}

Ptr<RdmaHostDirectory>
RdmaHostStack::GetDirectory() const
{
    return m_directory;
}

uint32_t
RdmaHostStack::GetHostIndex() const
{
    return m_hostIndex;
}

void
RdmaHostStack::SetIpv4(Ipv4Address ip)
{
    m_ip = ip.Get();
    m_ipCache = 0;
}

Ipv4Address
RdmaHostStack::GetIpv4() const
{
    return Ipv4Address(m_ip != 0 ? m_ip : (0x0B000000u + m_hostIndex + 1));
}

uint32_t
RdmaHostStack::GetMtu() const
{
    return m_mtu;
}

const RdmaHostStats&
RdmaHostStack::GetStats() const
{
    return m_stats;
}

void
RdmaHostStack::SetCongestionControl(Ptr<RdmaCongestionOps> cc)
{
    m_ccTemplate = cc;
    m_validated = false;
}

void
RdmaHostStack::SetCongestionControl(uint8_t priority, Ptr<RdmaCongestionOps> cc)
{
    NS_ABORT_MSG_IF(priority > 7,
                    "host " << m_hostIndex << ": CC priority must be 0..7, got " << int(priority));
    m_ccByPrio[priority] = cc;
    m_ccByPrioSet[priority] = bool(cc);
    m_validated = false;
}

Ptr<RdmaCongestionOps>
RdmaHostStack::GetCongestionControl(uint8_t priority)
{
    NS_ABORT_MSG_IF(priority > 7,
                    "host " << m_hostIndex << ": CC priority must be 0..7, got " << int(priority));
    EnsureValid();
    return m_ccByPrio[priority] ? m_ccByPrio[priority] : m_ccTemplate;
}

uint32_t
RdmaHostStack::DataWireBytes(uint32_t payload, bool first)
{
    RdmaMeta m;
    m.opcode = first ? RoceOpcode::WRITE_ONLY : RoceOpcode::WRITE_MIDDLE;
    m.payload = payload;
    return RoceFrame::GetFrameBytes(m) + kEthernetWireOverhead;
}

std::string
RdmaHostStack::Validate()
{
    std::ostringstream err;
    if (m_mtu < 256 || m_mtu > 9000)
    {
        err << "Mtu must be in 256..9000 bytes, got " << m_mtu << "; ";
    }
    if (!m_rto.IsStrictlyPositive())
    {
        err << "Rto must be > 0, got " << m_rto << "; ";
    }
    if (m_ackInterval == 0)
    {
        err << "AckInterval must be >= 1; ";
    }
    if (m_cnpInterval.IsStrictlyNegative())
    {
        err << "CnpInterval must be >= 0; ";
    }
    if (!m_ccTemplate)
    {
        if (!m_ccTypeId.HasConstructor() || !m_ccTypeId.IsChildOf(RdmaCongestionOps::GetTypeId()))
        {
            err << "CongestionControl " << m_ccTypeId.GetName()
                << " is not a constructible RdmaCongestionOps; ";
        }
        else
        {
            ObjectFactory f;
            f.SetTypeId(m_ccTypeId);
            m_ccTemplate = f.Create<RdmaCongestionOps>();
        }
    }
    // a CC template is checked as the QPs of every port would initialize it, so that
    // what needs the path facts (a base RTT for HPCC and DCTCP) is reported here too
    std::set<uint64_t> rates;
    for (const auto& p : m_ports)
    {
        if (p->lineRate != 0)
        {
            rates.insert(p->lineRate);
        }
    }
    auto checkCc = [&](const Ptr<RdmaCongestionOps>& cc) {
        if (rates.empty())
        {
            err << cc->Validate();
            return;
        }
        for (uint64_t rate : rates)
        {
            RdmaCcInit init;
            init.lineRateBps = rate;
            init.baseRtt = m_baseRtt;
            init.windowBytes = m_window;
            init.mtuBytes = m_mtu;
            const std::string e = cc->ValidateFor(init);
            if (!e.empty())
            {
                err << e;
                return;
            }
        }
    };
    if (m_ccTemplate)
    {
        checkCc(m_ccTemplate);
    }
    // CongestionControlByPriority: "PRIO:TYPE[,PRIO:TYPE...]" (set-up only, not per packet)
    for (uint32_t p = 0; p < 8; ++p)
    {
        if (!m_ccByPrioSet[p])
        {
            m_ccByPrio[p] = nullptr;
        }
    }
    std::istringstream entries(m_ccByPrioStr);
    std::string entry;
    while (std::getline(entries, entry, ','))
    {
        entry.erase(0, entry.find_first_not_of(" \t"));
        entry.erase(entry.find_last_not_of(" \t") + 1);
        if (entry.empty())
        {
            continue;
        }
        const size_t colon = entry.find(':');
        const std::string prioStr = entry.substr(0, colon);
        std::string name = colon == std::string::npos ? "" : entry.substr(colon + 1);
        if (prioStr.size() != 1 || prioStr[0] < '0' || prioStr[0] > '7' || name.empty())
        {
            err << "CongestionControlByPriority entry '" << entry
                << "' is not PRIORITY:TYPE with PRIORITY 0..7; ";
            continue;
        }
        if (name.find("::") == std::string::npos && !name.empty())
        {
            // short form: hpcc -> ns3::RdmaCcHpcc
            name[0] = char(std::toupper(static_cast<unsigned char>(name[0])));
            name = "ns3::RdmaCc" + name;
        }
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(name, &tid) || !tid.HasConstructor() ||
            !tid.IsChildOf(RdmaCongestionOps::GetTypeId()))
        {
            err << "CongestionControlByPriority entry '" << entry << "': " << name
                << " is not a constructible RdmaCongestionOps; ";
            continue;
        }
        const uint32_t prio = uint32_t(prioStr[0] - '0');
        if (m_ccByPrioSet[prio])
        {
            continue; // SetCongestionControl(priority, cc) wins
        }
        ObjectFactory f;
        f.SetTypeId(tid);
        m_ccByPrio[prio] = f.Create<RdmaCongestionOps>();
        checkCc(m_ccByPrio[prio]);
    }
    for (uint32_t p = 0; p < 8; ++p)
    {
        if (m_ccByPrioSet[p])
        {
            checkCc(m_ccByPrio[p]);
        }
    }
    const uint32_t frame = DataWireBytes(m_mtu, true) - kEthernetWireOverhead;
    for (const auto& p : m_ports)
    {
        if (p->lineRate == 0)
        {
            err << "port " << p->dev->GetIfIndex() << " has a zero data rate; ";
        }
        const uint32_t limit =
            uint32_t(p->dev->GetMtu()) + RoceHeader::kEthBytes + RoceHeader::kFcsBytes;
        if (frame > limit)
        {
            err << "Mtu " << m_mtu << " makes " << frame << " B frames, above the "
                << p->dev->GetMtu() << " B IP MTU of port " << p->dev->GetIfIndex()
                << " (raise ns3::RdmaNetDevice::Mtu); ";
        }
    }
    return err.str();
}

void
RdmaHostStack::EnsureValid()
{
    if (m_validated)
    {
        return;
    }
    std::string err = Validate();
    if (!err.empty())
    {
        std::ostringstream os;
        os << "RdmaHostStack of host " << m_hostIndex << " (node "
           << (m_node ? int(m_node->GetId()) : -1) << "): " << err;
        throw astra::InputError(os.str());
    }
    m_validated = true;
}

Ptr<RdmaQueuePair>
RdmaHostStack::NewQp(uint32_t remoteHost, uint8_t priority, uint16_t sport, bool responder)
{
    NS_ABORT_MSG_IF(m_ports.empty(), "RdmaHostStack of host " << m_hostIndex << " has no port");
    Ptr<RdmaQueuePair> qp = CreateObject<RdmaQueuePair>();
    qp->m_stack = this;
    qp->m_qpn = responder ? kResponderQpnBase + uint32_t(m_responderQps.size())
                          : kQpnBase + uint32_t(m_qps.size());
    if (qp->m_qpn >= (1u << 24) || (!responder && qp->m_qpn >= kResponderQpnBase))
    {
        // 24-bit QP numbers, half for the QPs a host opens and half for responder ends
        throw astra::InputError("host " + std::to_string(m_hostIndex) + ": more than 2^23 " +
                                (responder ? "responder" : "own") + " QPs (24-bit QP numbers)");
    }
    qp->m_localHost = m_hostIndex;
    qp->m_remoteHost = remoteHost;
    qp->m_localIp = GetIpv4().Get();
    qp->m_priority = priority;
    qp->m_sport = sport;
    qp->m_port = (remoteHost + sport) % uint32_t(m_ports.size());
    if (m_ports.size() > 1 && m_node)
    {
        // multi-port host: the node's forwarding table (ECMP over next hops) picks the port
        Ptr<RdmaForwardingTable> table = m_node->GetObject<RdmaForwardingTable>();
        if (table)
        {
            RdmaMeta probe;
            probe.srcIp = GetIpv4().Get();
            probe.dstIp = RdmaAddressing::HostIndexToIp(remoteHost);
            probe.sport = sport;
            probe.dport = RoceHeader::kRoceUdpPort;
            uint32_t port = table->SelectPort(probe);
            if (port < m_ports.size())
            {
                qp->m_port = port;
            }
        }
    }
    qp->m_sndPsnBase = m_initialPsn;
    qp->m_cc = (m_ccByPrio[priority] ? m_ccByPrio[priority] : m_ccTemplate)->Fork();
    RdmaCcInit init;
    init.lineRateBps = m_ports[qp->m_port]->lineRate;
    init.baseRtt = m_baseRtt;
    init.windowBytes = m_window;
    init.mtuBytes = m_mtu;
    qp->m_cc->Init(init);
    RdmaQueuePair* raw = PeekPointer(qp);
    qp->m_cc->SetRateChangeCallback(MakeBoundCallback(&RdmaHostStack::RateChangedThunk, this, raw));
    (responder ? m_responderQps : m_qps).push_back(qp);
    return qp;
}

Ptr<RdmaQueuePair>
RdmaHostStack::GetOrCreateQp(uint32_t dstHost,
                             uint8_t priority,
                             uint16_t sport,
                             RdmaQpConsumer* consumer)
{
    if (priority == 255)
    {
        priority = m_dataPriority;
    }
    NS_ABORT_MSG_IF(priority > 7,
                    "host " << m_hostIndex << ": QP priority must be 0..7, got " << int(priority));
    NS_ABORT_MSG_IF(dstHost == m_hostIndex && m_indexSet,
                    "host " << m_hostIndex << ": QP to itself is not supported");
    if (sport == 0)
    {
        // deterministic, spread over the ephemeral range for ECMP entropy
        sport = uint16_t(
            49152 + (m_hostIndex * 7919u + dstHost * 104729u + m_sportCounter++ * 31u) % 16384u);
    }
    uint64_t key = (uint64_t(dstHost) << 24) | (uint64_t(priority) << 16) | sport;
    auto it = m_qpByKey.find(key);
    if (it != m_qpByKey.end())
    {
        RdmaQueuePair* qp = it->second;
        NS_ABORT_MSG_IF(consumer && qp->m_consumer && qp->m_consumer != consumer,
                        "host " << m_hostIndex << ": the QP to host " << dstHost << " priority "
                                << int(priority) << " sport " << sport
                                << " belongs to another consumer");
        if (consumer && !qp->m_consumer)
        {
            qp->m_consumer = consumer;
            // the other end, if it lives in this process (connection set-up path)
            Ptr<RdmaHostStack> peer = m_directory ? m_directory->Find(dstHost) : nullptr;
            if (peer && !(m_directory->IsDistributed() && !m_directory->IsLocal(PeekPointer(peer))))
            {
                uint64_t rkey = (uint64_t(m_hostIndex) << 24) | (uint64_t(priority) << 16) | sport;
                auto pit = peer->m_qpByKey.find(rkey);
                if (pit != peer->m_qpByKey.end() && pit->second->m_qpn == qp->m_peerQpn)
                {
                    pit->second->m_consumer = consumer;
                }
            }
        }
        return Ptr<RdmaQueuePair>(qp);
    }
    Ptr<RdmaHostStack> remote = m_directory ? m_directory->Find(dstHost) : nullptr;
    uint32_t remoteIp = 0;
    uint32_t remotePsn = 0;
    if (!remote && m_directory && m_directory->FindRemote(dstHost, remoteIp, remotePsn))
    {
        // a host of another rank without a stack in this process (partial build): open
        // this end only, from the directory's record of its set-up (as below)
        EnsureValid();
        Ptr<RdmaQueuePair> a = NewQp(dstHost, priority, sport);
        a->m_peerQpn = 0;
        a->m_remoteIp = remoteIp;
        a->m_rcvPsnBase = remotePsn;
        a->m_consumer = consumer;
        m_qpByKey[key] = PeekPointer(a);
        return a;
    }
    NS_ABORT_MSG_IF(!remote,
                    "host " << m_hostIndex << ": no RdmaHostStack for host " << dstHost
                            << " in this host's RdmaHostDirectory"
                            << (m_directory ? ""
                                            : " (it has none: RdmaHelper::InstallHosts or "
                                              "SetDirectory)"));
    EnsureValid();
    if (m_directory->IsDistributed() && !m_directory->IsLocal(PeekPointer(remote)))
    {
        // the destination runs on another rank: open this end only. Its static set-up
        // (IP, initial PSN) is known from the directory; the peer's QP number is learnt
        // from its first frame, and the peer opens its end when the first data frame
        // (destination QP 0) arrives there (PassiveOpen).
        Ptr<RdmaQueuePair> a = NewQp(dstHost, priority, sport);
        a->m_peerQpn = 0;
        a->m_remoteIp = remote->GetIpv4().Get();
        a->m_rcvPsnBase = remote->m_initialPsn;
        a->m_consumer = consumer;
        m_qpByKey[key] = PeekPointer(a);
        return a;
    }
    remote->EnsureValid();
    Ptr<RdmaQueuePair> a = NewQp(dstHost, priority, sport);
    Ptr<RdmaQueuePair> b = remote->NewQp(m_hostIndex, priority, sport, true);
    a->m_peerQpn = b->m_qpn;
    b->m_peerQpn = a->m_qpn;
    a->m_remoteIp = remote->GetIpv4().Get();
    b->m_remoteIp = GetIpv4().Get();
    a->m_rcvPsnBase = b->m_sndPsnBase;
    b->m_rcvPsnBase = a->m_sndPsnBase;
    a->m_consumer = consumer;
    b->m_consumer = consumer;
    m_qpByKey[key] = PeekPointer(a);
    uint64_t rkey = (uint64_t(m_hostIndex) << 24) | (uint64_t(priority) << 16) | sport;
    remote->m_qpByKey[rkey] = PeekPointer(b);
    NS_LOG_INFO("host " << m_hostIndex << " qp " << a->m_qpn << " <-> host " << dstHost << " qp "
                        << b->m_qpn << " prio " << int(priority) << " sport " << sport);
    return a;
}

void
RdmaHostStack::SetListener(RdmaQpConsumer* consumer)
{
    m_listener = consumer;
}

RdmaQpConsumer*
RdmaHostStack::GetListener() const
{
    return m_listener;
}

RdmaQueuePair*
RdmaHostStack::PassiveOpen(const RdmaMeta& meta)
{
    if (!m_directory || !(IsDataOpcode(meta.opcode) || meta.opcode == RoceOpcode::READ_REQUEST))
    {
        return nullptr;
    }
    Ptr<RdmaHostStack> peer = m_directory->FindByIpv4(meta.srcIp);
    uint32_t srcHost = 0;
    uint32_t peerPsn = 0;
    if (peer)
    {
        srcHost = peer->GetHostIndex();
        peerPsn = peer->m_initialPsn;
    }
    // a host of another rank without a stack in this process (partial build)
    if (peer == this || (!peer && !m_directory->FindRemoteByIpv4(meta.srcIp, srcHost, peerPsn)))
    {
        return nullptr;
    }
    const uint64_t key = (uint64_t(srcHost) << 24) | (uint64_t(meta.priority) << 16) | meta.sport;
    auto it = m_qpByKey.find(key);
    if (it != m_qpByKey.end())
    {
        return it->second;
    }
    EnsureValid();
    Ptr<RdmaQueuePair> b = NewQp(srcHost, meta.priority, meta.sport, true);
    b->m_peerQpn = meta.srcQp;
    b->m_remoteIp = meta.srcIp;
    b->m_rcvPsnBase = peerPsn; // static set-up, as RDMA CM exchanges it
    b->m_consumer = m_listener;
    m_qpByKey[key] = PeekPointer(b);
    NS_LOG_INFO("host " << m_hostIndex << " qp " << b->m_qpn << " opened by host " << srcHost
                        << " qp " << meta.srcQp << " prio " << int(meta.priority) << " sport "
                        << meta.sport);
    return PeekPointer(b);
}

Ptr<RdmaQueuePair>
RdmaHostStack::GetQp(uint32_t qpn) const
{
    if (qpn >= kResponderQpnBase)
    {
        return qpn - kResponderQpnBase < m_responderQps.size()
                   ? m_responderQps[qpn - kResponderQpnBase]
                   : nullptr;
    }
    if (qpn < kQpnBase || qpn - kQpnBase >= m_qps.size())
    {
        return nullptr;
    }
    return m_qps[qpn - kQpnBase];
}

Ptr<RdmaQueuePair>
RdmaHostStack::GetQpByIndex(uint32_t i) const
{
    if (i < m_qps.size())
    {
        return m_qps[i];
    }
    i -= uint32_t(m_qps.size());
    return i < m_responderQps.size() ? m_responderQps[i] : nullptr;
}

uint32_t
RdmaHostStack::GetNQps() const
{
    return uint32_t(m_qps.size() + m_responderQps.size());
}

uint64_t
RdmaHostStack::PostWrite(Ptr<RdmaQueuePair> qp,
                         uint64_t bytes,
                         uint64_t userTag,
                         uint64_t user,
                         uint64_t user2)
{
    return Post(qp, bytes, userTag, RdmaMsgKind::WRITE, user, user2);
}

uint64_t
RdmaHostStack::PostWriteImm(Ptr<RdmaQueuePair> qp,
                            uint64_t bytes,
                            uint64_t userTag,
                            uint32_t imm,
                            uint64_t remoteAddr)
{
    // the immediate data goes with the message from the start: Post may already send
    return Post(qp, bytes, userTag, RdmaMsgKind::WRITE, 0, 0, true, imm, remoteAddr);
}

uint64_t
RdmaHostStack::PostSend(Ptr<RdmaQueuePair> qp,
                        uint64_t bytes,
                        uint64_t userTag,
                        uint64_t user,
                        uint64_t user2)
{
    return Post(qp, bytes, userTag, RdmaMsgKind::SEND, user, user2);
}

uint64_t
RdmaHostStack::PostRead(Ptr<RdmaQueuePair> qp, uint64_t bytes, uint64_t userTag)
{
    NS_ABORT_MSG_IF(bytes > 0xFFFFFFFFull,
                    "host " << m_hostIndex << " qp " << (qp ? qp->m_qpn : 0) << ": READ of "
                            << bytes << " bytes exceeds the 32-bit RETH DMA length");
    return Post(qp, bytes, userTag, RdmaMsgKind::READ, 0, 0);
}

uint64_t
RdmaHostStack::Post(Ptr<RdmaQueuePair> qp,
                    uint64_t bytes,
                    uint64_t tag,
                    RdmaMsgKind kind,
                    uint64_t user,
                    uint64_t user2,
                    bool withImm,
                    uint32_t imm,
                    uint64_t remoteAddr)
{
    NS_ABORT_MSG_IF(!qp || qp->m_stack != this,
                    "host " << m_hostIndex << ": Post on a QP of another host");
    RdmaMessage m;
    m.msgId = qp->m_nextMsgId++;
    m.tag = tag;
    m.user = user;
    m.user2 = user2;
    m.bytes = bytes;
    m.firstPkt = qp->m_postedPkts;
    m.nPkts = bytes == 0 ? 1 : (bytes + m_mtu - 1) / m_mtu;
    m.startByte = qp->m_postedBytes;
    m.postTime = Simulator::Now();
    m.kind = kind;
    m.withImm = withImm;
    m.imm = imm;
    m.remoteAddr = remoteAddr;
    qp->m_postedPkts += m.nPkts;
    qp->m_postedBytes += bytes;
    qp->m_msgs.push_back(m);
    if (kind == RdmaMsgKind::READ)
    {
        ++qp->m_pendingReads;
    }
    Activate(PeekPointer(qp));
    return m.msgId;
}

void
RdmaHostStack::Activate(RdmaQueuePair* qp)
{
    Port& p = *m_ports[qp->m_port];
    if (!qp->m_active && qp->HasDataToSend())
    {
        qp->m_active = true;
        p.active.push_back(qp);
    }
    p.dev->NotifySourceReady();
}

void
RdmaHostStack::RateChangedThunk(RdmaHostStack* s,
                                RdmaQueuePair* qp,
                                uint64_t oldBps,
                                uint64_t newBps)
{
    s->RateChanged(qp, oldBps, newBps);
}

void
RdmaHostStack::RateChanged(RdmaQueuePair* qp, uint64_t oldBps, uint64_t newBps)
{
    m_rateTrace(m_hostIndex, qp->m_qpn, oldBps, newBps);
}

// ------------------------------------------------------------------ sending

bool
RdmaHostStack::PortSource::DequeueFrame(uint8_t pausedMask, RdmaQueuedFrame& frame, Time& nextTry)
{
    return m_stack->Dequeue(m_port, pausedMask, frame, nextTry);
}

bool
RdmaHostStack::Dequeue(uint32_t port, uint8_t pausedMask, RdmaQueuedFrame& frame, Time& nextTry)
{
    Port& p = *m_ports[port];
    const uint64_t nowPs = NowPs();
    uint64_t earliest = std::numeric_limits<uint64_t>::max();
    size_t n = p.active.size();
    for (size_t k = 0; k < n && !p.active.empty(); ++k)
    {
        if (p.rr >= p.active.size())
        {
            p.rr = 0;
        }
        RdmaQueuePair* qp = p.active[p.rr];
        if (!qp->HasDataToSend())
        {
            qp->m_active = false;
            p.active[p.rr] = p.active.back();
            p.active.pop_back();
            continue;
        }
        if (pausedMask & (1u << qp->m_priority))
        {
            ++p.rr;
            continue;
        }
        uint64_t win = qp->m_cc->GetWindow();
        if (win != 0 && qp->m_respJobs.empty() && qp->m_sndNxtByte - qp->m_sndUnaByte >= win &&
            qp->m_sndNxtPkt > qp->m_sndUnaPkt)
        {
            ++p.rr; // woken by the ACK that opens the window
            continue;
        }
        if (qp->m_nextSendPs > nowPs)
        {
            earliest = std::min(earliest, qp->m_nextSendPs);
            ++p.rr;
            continue;
        }
        BuildData(qp, frame, nowPs);
        ++p.rr;
        return true;
    }
    if (earliest != std::numeric_limits<uint64_t>::max())
    {
        nextTry = NanoSeconds(int64_t((earliest + 999) / 1000)); // absolute, rounded up to ns
    }
    else
    {
        nextTry = Time::Max();
    }
    return false;
}

void
RdmaHostStack::Pace(RdmaQueuePair* qp, uint32_t frameBytes, uint64_t nowPs)
{
    const uint64_t rate = qp->m_cc->GetRate();
    if (rate >= m_ports[qp->m_port]->lineRate)
    {
        qp->m_nextSendPs = nowPs;
        return;
    }
    const uint64_t wire = uint64_t(frameBytes) + kEthernetWireOverhead;
    const uint64_t deltaPs = uint64_t((__uint128_t(wire) * 8u * 1000000000000ull) / rate);
    // continue from the previous slot if we are within a rounding step of it (exact
    // average rate), else from now (no credit for idle time)
    uint64_t base = (qp->m_nextSendPs + 1000 >= nowPs) ? qp->m_nextSendPs : nowPs;
    qp->m_nextSendPs = base + deltaPs;
}

uint32_t
RdmaHostStack::BuildReadResponse(RdmaQueuePair* qp, RdmaQueuedFrame& frame, uint64_t nowPs)
{
    RdmaQueuePair::RespJob& job = qp->m_respJobs.front();
    const uint64_t idx = job.nextIdx;
    const uint64_t off = idx - job.startIdx;
    const uint32_t payload = uint32_t(std::min<uint64_t>(m_mtu, job.len - off * m_mtu));
    const bool first = off == 0;
    const bool last = idx + 1 == job.endIdx;
    RdmaMeta& m = frame.meta;
    m.ResetRoce(first ? (last ? RoceOpcode::READ_RESP_ONLY : RoceOpcode::READ_RESP_FIRST)
                      : (last ? RoceOpcode::READ_RESP_LAST : RoceOpcode::READ_RESP_MIDDLE));
    m.priority = qp->m_priority;
    m.ecn = 2;
    if (first || last)
    {
        m.aethSyndrome = kAethAck;
        m.msn = uint32_t(qp->m_rcvMsgs & RdmaPsn::kMask);
    }
    m.srcIp = qp->m_localIp;
    m.dstIp = qp->m_remoteIp;
    m.sport = qp->m_sport;
    m.dport = RoceHeader::kRoceUdpPort;
    m.destQp = qp->m_peerQpn;
    m.psn = RdmaPsn::FromIndex(idx, qp->m_rcvPsnBase); // the requester's PSN space
    m.srcQp = qp->m_qpn;
    m.payload = payload;
    m.sendTimeNs = nowPs / 1000;
    m.frameBytes = RoceFrame::GetFrameBytes(m);
    frame.packet = nullptr; // built from meta by the device only if a sniffer/sink wants it
    ++job.nextIdx;
    if (job.nextIdx == job.endIdx)
    {
        qp->m_respJobs.pop_front();
    }
    ++m_stats.dataPktsSent;
    m_stats.dataBytesSent += payload;
    return payload;
}

void
RdmaHostStack::BuildData(RdmaQueuePair* qp, RdmaQueuedFrame& frame, uint64_t nowPs)
{
    if (!qp->m_respJobs.empty())
    {
        // responder work first: READ responses (no ACK, no RTO: the requester re-asks)
        uint32_t payload = BuildReadResponse(qp, frame, nowPs);
        Pace(qp, frame.meta.frameBytes, nowPs);
        if (qp->m_responder)
        {
            GateReadResponse(qp); // the next response packet waits for its data
        }
        qp->m_cc->OnSent(payload);
        return;
    }
    const RdmaMessage& msg = qp->m_msgs[qp->m_curMsg];
    const uint64_t idx = qp->m_sndNxtPkt;
    const uint64_t off = idx - msg.firstPkt;
    const uint64_t offBytes = off * m_mtu;
    uint32_t payload = uint32_t(std::min<uint64_t>(m_mtu, msg.bytes - offBytes));
    const bool first = off == 0;
    const bool last = off + 1 == msg.nPkts;

    uint64_t nextIdx = idx + 1;
    uint8_t opcode;
    if (msg.kind == RdmaMsgKind::WRITE && msg.withImm)
    {
        // WRITE with immediate data: the last frame carries it (ImmDt)
        opcode = first ? (last ? RoceOpcode::WRITE_ONLY_IMM : RoceOpcode::WRITE_FIRST)
                       : (last ? RoceOpcode::WRITE_LAST_IMM : RoceOpcode::WRITE_MIDDLE);
    }
    else if (msg.kind == RdmaMsgKind::WRITE)
    {
        opcode = first ? (last ? RoceOpcode::WRITE_ONLY : RoceOpcode::WRITE_FIRST)
                       : (last ? RoceOpcode::WRITE_LAST : RoceOpcode::WRITE_MIDDLE);
    }
    else if (msg.kind == RdmaMsgKind::SEND)
    {
        opcode = first ? (last ? RoceOpcode::SEND_ONLY : RoceOpcode::SEND_FIRST)
                       : (last ? RoceOpcode::SEND_LAST : RoceOpcode::SEND_MIDDLE);
    }
    else
    {
        // READ request for the rest of the message from packet `off` on; it consumes the
        // PSNs of all its response packets
        opcode = RoceOpcode::READ_REQUEST;
        payload = 0;
        nextIdx = msg.firstPkt + msg.nPkts;
    }

    RdmaMeta& m = frame.meta;
    m.ResetRoce(opcode); // a middle packet leaves the slot's end-host line alone
    m.priority = qp->m_priority;
    m.ecn = 2; // ECT(0)
    const uint64_t win = qp->m_cc->GetWindow();
    const uint64_t inflightAfter = qp->m_sndNxtByte + payload - qp->m_sndUnaByte;
    m.ackReq = (last || (win != 0 && inflightAfter >= win)) ? 1 : 0;
    m.srcIp = qp->m_localIp;
    m.dstIp = qp->m_remoteIp;
    m.sport = qp->m_sport;
    m.dport = RoceHeader::kRoceUdpPort;
    m.destQp = qp->m_peerQpn;
    m.psn = RdmaPsn::FromIndex(idx, qp->m_sndPsnBase);
    m.payload = payload;
    if (opcode == RoceOpcode::READ_REQUEST)
    {
        m.rethVa = msg.startByte + offBytes;
        m.rethLen = uint32_t(msg.bytes - offBytes);
    }
    else if (first && msg.kind == RdmaMsgKind::WRITE)
    {
        // remote buffer: the QP's stream offset, or the address a WRITE with immediate names
        m.rethVa = msg.withImm ? msg.remoteAddr : msg.startByte;
        m.rethLen = uint32_t(std::min<uint64_t>(msg.bytes, 0xFFFFFFFFu));
    }
    if (msg.kind == RdmaMsgKind::WRITE && msg.withImm && last)
    {
        m.immData = msg.imm;
    }
    m.srcQp = qp->m_qpn;
    if (last && msg.kind != RdmaMsgKind::READ)
    {
        // what the responder reports with the message (immediate data): in the frame
        m.immTag = msg.tag;
        m.msgUser = msg.user;
        m.msgUser2 = msg.user2;
        m.msgPostTs = msg.postTime.GetTimeStep();
        m.msgBytes = msg.bytes;
    }
    m.sendTimeNs = nowPs / 1000;
    m.frameBytes = RoceFrame::GetFrameBytes(m);
    frame.packet = nullptr; // built from meta by the device only if a sniffer/sink wants it

    // advance
    if (idx < qp->m_maxSentPkt)
    {
        ++qp->m_retxPkts;
        ++m_stats.retxPkts;
    }
    if (nextIdx > qp->m_maxSentPkt)
    {
        qp->m_maxSentPkt = nextIdx;
    }
    if (qp->m_sndUnaPkt == qp->m_sndNxtPkt)
    {
        qp->m_lastProgress = Simulator::Now(); // RTO measured from the first outstanding send
    }
    qp->m_sndNxtPkt = nextIdx;
    qp->m_sndNxtByte = msg.kind == RdmaMsgKind::READ ? msg.startByte + msg.bytes
                                                     : msg.startByte + offBytes + payload;
    if (nextIdx == msg.firstPkt + msg.nPkts)
    {
        ++qp->m_curMsg;
    }
    ++m_stats.dataPktsSent;
    m_stats.dataBytesSent += payload;

    Pace(qp, m.frameBytes, nowPs);
    qp->m_cc->OnSent(payload);

    if (!qp->m_rtoEvent.IsRunning())
    {
        qp->m_rtoEvent = Simulator::Schedule(CurrentRto(qp), &RdmaHostStack::RtoExpire, this, qp);
    }
}

Time
RdmaHostStack::CurrentRto(const RdmaQueuePair* qp) const
{
    return m_rto * double(uint64_t(1) << std::min(qp->m_rtoBackoff, m_rtoMaxBackoff));
}

void
RdmaHostStack::RtoExpire(RdmaQueuePair* qp)
{
    if (qp->m_sndUnaPkt >= qp->m_maxSentPkt)
    {
        return; // nothing outstanding; re-armed by the next send
    }
    Time deadline = qp->m_lastProgress + CurrentRto(qp);
    Time now = Simulator::Now();
    if (now < deadline)
    {
        qp->m_rtoEvent = Simulator::Schedule(deadline - now, &RdmaHostStack::RtoExpire, this, qp);
        return;
    }
    ++qp->m_timeouts;
    ++m_stats.timeouts;
    NS_LOG_INFO("host " << m_hostIndex << " qp " << qp->m_qpn << " RTO at snd_una "
                        << qp->m_sndUnaByte);
    m_timeoutTrace(m_hostIndex, qp->m_qpn, qp->m_sndUnaByte);
    if (qp->m_rtoBackoff < m_rtoMaxBackoff)
    {
        ++qp->m_rtoBackoff;
    }
    qp->m_cc->OnTimeout();
    SetSndNxt(qp, qp->m_sndUnaPkt);
    qp->m_lastProgress = now;
    qp->m_rtoEvent = Simulator::Schedule(CurrentRto(qp), &RdmaHostStack::RtoExpire, this, qp);
    Activate(qp);
}

void
RdmaHostStack::SetSndNxt(RdmaQueuePair* qp, uint64_t pkt)
{
    qp->m_sndNxtPkt = pkt;
    size_t i = 0;
    while (i < qp->m_msgs.size() && qp->m_msgs[i].firstPkt + qp->m_msgs[i].nPkts <= pkt)
    {
        ++i;
    }
    qp->m_curMsg = i;
    if (i < qp->m_msgs.size())
    {
        const RdmaMessage& m = qp->m_msgs[i];
        qp->m_sndNxtByte = m.startByte + std::min(m.bytes, (pkt - m.firstPkt) * m_mtu);
    }
    else
    {
        qp->m_sndNxtByte = qp->m_postedBytes;
    }
}

// ---------------------------------------------------------------- receiving

const Ptr<RdmaQueuePair>*
RdmaHostStack::QpEntry(uint32_t qpn) const
{
    const uint32_t q = qpn - kQpnBase;
    const uint32_t r = qpn - kResponderQpnBase;
    if (qpn >= kQpnBase && q < m_qps.size())
    {
        return &m_qps[q];
    }
    if (qpn >= kResponderQpnBase && r < m_responderQps.size())
    {
        return &m_responderQps[r];
    }
    return nullptr;
}

void
RdmaHostStack::PrefetchFrame(const RdmaNetDevice*, const RdmaQueuedFrame& frame) const
{
    // the QP's entry in its table (the QP itself is one more dependent load away)
    if (const Ptr<RdmaQueuePair>* e = QpEntry(frame.meta.destQp))
    {
        __builtin_prefetch(e);
    }
}

void
RdmaHostStack::PrefetchFrameState(const RdmaNetDevice*, const RdmaQueuedFrame& frame) const
{
    // the QP's lines ReceiveFrame reads: identity (line 0), then the responder's (a data
    // frame) or the requester's sequence state, ACK state and message deque (an ACK, a CNP)
    const Ptr<RdmaQueuePair>* e = QpEntry(frame.meta.destQp);
    if (!e || !*e)
    {
        return;
    }
    const RdmaQueuePair* qp = PeekPointer(*e);
    __builtin_prefetch(&qp->m_qpn);
    const auto op = frame.meta.opcode;
    if (op == RoceOpcode::ACK || op == RoceOpcode::CNP)
    {
        __builtin_prefetch(&qp->m_sndUnaPkt);
        __builtin_prefetch(&qp->m_ackHigh);
        __builtin_prefetch(reinterpret_cast<const char*>(&qp->m_msgs + 1) - 1);
    }
    else
    {
        __builtin_prefetch(&qp->m_rcvNxtPkt);
    }
}

void
RdmaHostStack::ReceiveFrame(RdmaNetDevice* dev, RdmaQueuedFrame& frame)
{
    const RdmaMeta& meta = frame.meta;
    if (meta.kind != RdmaFrameKind::ROCE)
    {
        return;
    }
    if (meta.dstIp != m_ipCache)
    {
        if (m_ipCache == 0)
        {
            m_ipCache = GetIpv4().Get();
        }
        if (meta.dstIp != m_ipCache)
        {
            // transit traffic (switch-less topologies): hand it to the node's forwarder
            if (!m_fwd && m_node)
            {
                m_fwd = m_node->GetObject<RdmaTransitForwarder>();
            }
            if (m_fwd)
            {
                m_fwd->Forward(dev, frame);
            }
            else
            {
                ++m_stats.notForMe;
                ASTRA_WARN("rdma-frame-not-for-host",
                           "host " << m_hostIndex << ": frame for " << Ipv4Address(meta.dstIp)
                                   << " and no transit forwarder, dropped (later ones counted)");
            }
            return;
        }
    }
    RdmaQueuePair* qp;
    if (const Ptr<RdmaQueuePair>* e = QpEntry(meta.destQp))
    {
        qp = PeekPointer(*e);
    }
    else if (meta.destQp == 0 && (qp = PassiveOpen(meta)) != nullptr)
    {
        // first frames of a connection opened on another rank
    }
    else
    {
        ++m_stats.unknownQp;
        ASTRA_WARN("rdma-unknown-qp",
                   "host " << m_hostIndex << ": frame for unknown QP " << meta.destQp
                           << ", dropped (later ones counted)");
        return;
    }
    if (qp->m_peerQpn == 0)
    {
        qp->m_peerQpn = meta.srcQp; // the peer end was opened on another rank
    }
    if (meta.opcode == RoceOpcode::ACK)
    {
        HandleAck(qp, meta);
    }
    else if (meta.opcode == RoceOpcode::CNP)
    {
        HandleCnp(qp, meta);
    }
    else if (IsDataOpcode(meta.opcode) || meta.opcode == RoceOpcode::READ_REQUEST)
    {
        HandleData(qp, meta);
    }
    else if (IsReadResponse(meta.opcode))
    {
        HandleReadResponse(qp, meta);
    }
    else
    {
        ASTRA_WARN("rdma-unsupported-opcode",
                   "host " << m_hostIndex << ": unsupported opcode " << int(meta.opcode)
                           << ", frame ignored (later ones counted)");
    }
}

void
RdmaHostStack::HandleData(RdmaQueuePair* qp, const RdmaMeta& meta)
{
    ++m_stats.dataPktsRcvd;
    const Time now = Simulator::Now();
    MaybeCnp(qp, meta);
    const uint32_t expected = RdmaPsn::FromIndex(qp->m_rcvNxtPkt, qp->m_rcvPsnBase);
    const int32_t d = RdmaPsn::Diff(meta.psn, expected);
    if (meta.opcode == RoceOpcode::READ_REQUEST)
    {
        HandleReadRequest(qp, meta, d);
        return;
    }
    if (d > 0)
    {
        ++m_stats.outOfOrderPkts;
        if (!qp->m_nakSent)
        {
            qp->m_nakSent = true;
            SendAck(qp, meta, true);
        }
        return;
    }
    if (d < 0)
    {
        ++m_stats.dupPkts;
        SendAck(qp, meta, false); // tell the requester what we have (lost ACK / RTO resend)
        return;
    }
    // in order
    qp->m_nakSent = false;
    ++qp->m_rcvNxtPkt;
    qp->m_rcvBytes += meta.payload;
    if (IsFirstOrOnly(meta.opcode))
    {
        qp->m_rcvMsgBytes = 0;
        if (qp->m_responder &&
            (meta.opcode == RoceOpcode::WRITE_FIRST || meta.opcode == RoceOpcode::WRITE_ONLY))
        {
            qp->m_responder->WriteStarted(*qp, meta.rethLen);
        }
    }
    qp->m_rcvMsgBytes += meta.payload;
    ++qp->m_unackedPkts;
    qp->m_unackedBytes += meta.payload;
    bool ackNow = meta.ackReq || qp->m_unackedPkts >= m_ackInterval ||
                  (m_ackIntervalBytes != 0 && qp->m_unackedBytes >= m_ackIntervalBytes);
    if (IsLastOrOnly(meta.opcode))
    {
        ackNow = true;
        uint64_t msgSeq = qp->m_rcvMsgs++;
        ++m_stats.msgsRcvd;
        // everything the responder reports comes with the frame (immediate data)
        NS_ABORT_MSG_IF(meta.msgBytes != qp->m_rcvMsgBytes,
                        "host " << m_hostIndex << " qp " << qp->m_qpn << ": message " << msgSeq
                                << " received " << qp->m_rcvMsgBytes << " bytes, requester posted "
                                << meta.msgBytes);
        RdmaMessageInfo info;
        info.srcHost = qp->m_remoteHost;
        info.dstHost = m_hostIndex;
        info.srcQp = qp->m_peerQpn;
        info.dstQp = qp->m_qpn;
        info.sport = qp->m_sport;
        info.dport = RoceHeader::kRoceUdpPort;
        info.priority = qp->m_priority;
        info.msgId = msgSeq;
        info.tag = meta.immTag;
        info.user = meta.msgUser;
        info.user2 = meta.msgUser2;
        info.bytes = meta.msgBytes;
        info.start = TimeStep(meta.msgPostTs);
        info.kind = IsSendOpcode(meta.opcode) ? RdmaMsgKind::SEND : RdmaMsgKind::WRITE;
        info.end = now;
        // immediate data as the last frame carried it
        info.hasImm = IsImmOpcode(meta.opcode);
        info.imm = info.hasImm ? meta.immData : 0;
        m_rxMsgTrace(info);
        if (qp->m_consumer)
        {
            qp->m_consumer->RxComplete(*qp, info);
        }
    }
    if (ackNow)
    {
        SendAck(qp, meta, false);
    }
}

void
RdmaHostStack::MaybeCnp(RdmaQueuePair* qp, const RdmaMeta& meta)
{
    if (meta.ecn != 3)
    {
        return;
    }
    const Time now = Simulator::Now();
    if (!qp->m_cnpEver || now - qp->m_lastCnp >= m_cnpInterval)
    {
        qp->m_cnpEver = true;
        qp->m_lastCnp = now;
        SendCnp(qp);
    }
}

void
RdmaHostStack::HandleReadRequest(RdmaQueuePair* qp, const RdmaMeta& meta, int32_t d)
{
    if (d > 0)
    {
        ++m_stats.outOfOrderPkts;
        if (!qp->m_nakSent)
        {
            qp->m_nakSent = true;
            SendAck(qp, meta, true);
        }
        return;
    }
    const uint64_t len = meta.rethLen;
    const uint64_t n = len == 0 ? 1 : (len + m_mtu - 1) / m_mtu;
    uint64_t k = qp->m_rcvNxtPkt;
    if (d == 0)
    {
        qp->m_nakSent = false;
        qp->m_rcvNxtPkt += n;
        ++qp->m_rcvMsgs;
    }
    else
    {
        // duplicate (re-issued after a response gap or a timeout): re-execute from its PSN;
        // the requester re-sends every later request too (go-back-N)
        int64_t idx = RdmaPsn::ToIndex(meta.psn, qp->m_rcvNxtPkt, qp->m_rcvPsnBase);
        if (idx < 0 || uint64_t(idx) + n > qp->m_rcvNxtPkt)
        {
            ++m_stats.dupPkts;
            return;
        }
        ++m_stats.dupPkts;
        k = uint64_t(idx);
        if (!qp->m_respJobs.empty() && qp->m_respJobs.back().endIdx > k)
        {
            // drop queued work at or after k (it will be asked for again)
            while (!qp->m_respJobs.empty() && qp->m_respJobs.back().startIdx >= k)
            {
                qp->m_respJobs.pop_back();
            }
            if (!qp->m_respJobs.empty() && qp->m_respJobs.back().endIdx > k)
            {
                RdmaQueuePair::RespJob& j = qp->m_respJobs.back();
                j.len = std::min(j.len, (k - j.startIdx) * m_mtu);
                j.endIdx = k;
                if (j.nextIdx >= j.endIdx)
                {
                    qp->m_respJobs.pop_back();
                }
            }
        }
    }
    RdmaQueuePair::RespJob job;
    job.startIdx = k;
    job.nextIdx = k;
    job.endIdx = k + n;
    job.len = len;
    if (qp->m_responder)
    {
        // the serving side decides when the data is ready (e.g. a memory device)
        const RdmaReadGate gate = qp->m_responder->ReadRequested(*qp, len);
        job.readyPs =
            uint64_t(std::max<int64_t>(std::max(gate.start, Simulator::Now()).GetPicoSeconds(),
                                       1)); // past = now
        job.psPerByte = std::max(0.0, gate.psPerByte);
    }
    qp->m_respJobs.push_back(job);
    if (qp->m_responder && qp->m_respJobs.size() == 1)
    {
        GateReadResponse(qp);
    }
    Activate(qp);
}

void
RdmaHostStack::GateReadResponse(RdmaQueuePair* qp)
{
    if (qp->m_respJobs.empty())
    {
        return;
    }
    const RdmaQueuePair::RespJob& job = qp->m_respJobs.front();
    if (job.readyPs == 0)
    {
        return; // not gated
    }
    // the next packet's last byte must be ready
    const uint64_t through = std::min<uint64_t>(job.len, (job.nextIdx - job.startIdx + 1) * m_mtu);
    const uint64_t ready = job.readyPs + uint64_t(std::ceil(double(through) * job.psPerByte));
    qp->m_nextSendPs = std::max(qp->m_nextSendPs, ready);
}

void
RdmaHostStack::HandleReadResponse(RdmaQueuePair* qp, const RdmaMeta& meta)
{
    ++m_stats.dataPktsRcvd;
    MaybeCnp(qp, meta);
    // the first READ still waiting for responses
    size_t i = 0;
    while (i < qp->m_msgs.size() && (qp->m_msgs[i].kind != RdmaMsgKind::READ ||
                                     qp->m_msgs[i].respRcvd >= qp->m_msgs[i].nPkts))
    {
        ++i;
    }
    if (i == qp->m_msgs.size())
    {
        ++m_stats.dupPkts;
        return;
    }
    RdmaMessage& msg = qp->m_msgs[i];
    const uint64_t expected = msg.firstPkt + msg.respRcvd;
    const int64_t q = RdmaPsn::ToIndex(meta.psn, expected, qp->m_sndPsnBase);
    if (q < int64_t(expected))
    {
        ++m_stats.dupPkts;
        return;
    }
    if (q > int64_t(expected))
    {
        ++m_stats.outOfOrderPkts;
        if (!qp->m_readGap)
        {
            // re-issue the READ for the remainder (go-back-N from the missing response)
            qp->m_readGap = true;
            if (expected < qp->m_sndNxtPkt)
            {
                SetSndNxt(qp, expected);
            }
            Activate(qp);
        }
        return;
    }
    qp->m_readGap = false;
    ++msg.respRcvd;
    AckUpTo(qp, uint64_t(q) + 1, meta);
    if (meta.sendTimeNs != 0)
    {
        qp->m_cc->OnRttSample(Simulator::Now() - NanoSeconds(int64_t(meta.sendTimeNs)), meta);
    }
    if (qp->HasDataToSend())
    {
        Activate(qp);
    }
}

RdmaMessageInfo
RdmaHostStack::MakeInfo(const RdmaQueuePair* req, const RdmaMessage& m) const
{
    RdmaMessageInfo info;
    info.srcHost = req->m_localHost;
    info.dstHost = req->m_remoteHost;
    info.srcQp = req->m_qpn;
    info.dstQp = req->m_peerQpn;
    info.sport = req->m_sport;
    info.dport = RoceHeader::kRoceUdpPort;
    info.priority = req->m_priority;
    info.msgId = m.msgId;
    info.tag = m.tag;
    info.user = m.user;
    info.user2 = m.user2;
    info.bytes = m.bytes;
    info.start = m.postTime;
    info.kind = m.kind;
    info.hasImm = m.withImm;
    info.imm = m.imm;
    return info;
}

void
RdmaHostStack::SendAck(RdmaQueuePair* qp, const RdmaMeta& data, bool nak)
{
    RdmaQueuedFrame f;
    RdmaMeta& m = f.meta;
    m.kind = RdmaFrameKind::ROCE;
    m.priority = m_ackPriority;
    m.ecn = 0;
    m.opcode = RoceOpcode::ACK;
    m.aethSyndrome = nak ? kAethNakSeq : kAethAck;
    m.srcIp = qp->m_localIp;
    m.dstIp = qp->m_remoteIp;
    m.sport = qp->m_sport;
    m.dport = RoceHeader::kRoceUdpPort;
    m.destQp = qp->m_peerQpn;
    m.srcQp = qp->m_qpn;
    // ACK: last PSN accepted in order; NAK: the PSN expected
    m.psn = RdmaPsn::FromIndex(qp->m_rcvNxtPkt + (nak ? 0 : RdmaPsn::kMask), qp->m_rcvPsnBase);
    m.msn = uint32_t(qp->m_rcvMsgs & RdmaPsn::kMask);
    m.sendTimeNs = data.sendTimeNs;
    m.intHops = data.intHops;
    for (uint8_t i = 0; i < data.intHops && i < kMaxIntHops; ++i)
    {
        m.intStack[i] = data.intStack[i];
    }
    m.frameBytes = RoceFrame::GetFrameBytes(m); // packet built lazily (see BuildData)
    qp->m_unackedPkts = 0;
    qp->m_unackedBytes = 0;
    if (nak)
    {
        ++m_stats.naksSent;
        m_nakSentTrace(m_hostIndex, qp->m_qpn, m.psn);
    }
    else
    {
        ++m_stats.acksSent;
    }
    m_ports[qp->m_port]->dev->EnqueueFrame(std::move(f));
}

void
RdmaHostStack::SendCnp(RdmaQueuePair* qp)
{
    RdmaQueuedFrame f;
    RdmaMeta& m = f.meta;
    m.kind = RdmaFrameKind::ROCE;
    m.priority = m_cnpPriority;
    m.ecn = 0;
    m.opcode = RoceOpcode::CNP;
    m.srcIp = qp->m_localIp;
    m.dstIp = qp->m_remoteIp;
    m.sport = qp->m_sport;
    m.dport = RoceHeader::kRoceUdpPort;
    m.destQp = qp->m_peerQpn;
    m.srcQp = qp->m_qpn;
    m.frameBytes = RoceFrame::GetFrameBytes(m); // packet built lazily (see BuildData)
    ++m_stats.cnpsSent;
    m_cnpSentTrace(m_hostIndex, qp->m_qpn);
    m_ports[qp->m_port]->dev->EnqueueFrame(std::move(f));
}

void
RdmaHostStack::HandleCnp(RdmaQueuePair* qp, const RdmaMeta& meta)
{
    ++m_stats.cnpsRcvd;
    m_cnpRcvdTrace(m_hostIndex, qp->m_qpn);
    qp->m_cc->OnCnp(meta);
}

void
RdmaHostStack::AckUpTo(RdmaQueuePair* qp, uint64_t ackPkt, const RdmaMeta& meta)
{
    // an ACK never completes a READ whose responses are still missing (responses are
    // paced data, ACKs are control frames that can overtake them); the cumulative ACK
    // beyond such a READ is remembered and applied once its responses are in
    qp->m_ackHigh = std::max(qp->m_ackHigh, ackPkt);
    ackPkt = qp->m_ackHigh;
    for (size_t i = 0; qp->m_pendingReads > 0 && i < qp->m_msgs.size(); ++i)
    {
        const RdmaMessage& m = qp->m_msgs[i];
        if (m.kind == RdmaMsgKind::READ && m.respRcvd < m.nPkts)
        {
            ackPkt = std::min(ackPkt, m.firstPkt + m.respRcvd);
            break;
        }
    }
    if (ackPkt > qp->m_sndUnaPkt)
    {
        const uint64_t oldUnaByte = qp->m_sndUnaByte;
        // update all state first: completion callbacks may post (and re-enter Dequeue)
        m_doneScratch.clear();
        while (!qp->m_msgs.empty() &&
               qp->m_msgs.front().firstPkt + qp->m_msgs.front().nPkts <= ackPkt)
        {
            m_doneScratch.push_back(MakeInfo(qp, qp->m_msgs.front()));
            m_doneScratch.back().end = Simulator::Now();
            if (qp->m_msgs.front().kind == RdmaMsgKind::READ)
            {
                --qp->m_pendingReads;
            }
            qp->m_msgs.pop_front();
        }
        const size_t popped = m_doneScratch.size();
        qp->m_curMsg = qp->m_curMsg >= popped ? qp->m_curMsg - popped : 0;
        qp->m_sndUnaPkt = ackPkt;
        if (!qp->m_msgs.empty() && qp->m_msgs.front().firstPkt < ackPkt)
        {
            const RdmaMessage& m = qp->m_msgs.front();
            qp->m_sndUnaByte = m.startByte + std::min(m.bytes, (ackPkt - m.firstPkt) * m_mtu);
        }
        else if (!qp->m_msgs.empty())
        {
            qp->m_sndUnaByte = qp->m_msgs.front().startByte;
        }
        else
        {
            qp->m_sndUnaByte = qp->m_postedBytes;
        }
        if (qp->m_sndNxtPkt < ackPkt)
        {
            SetSndNxt(qp, ackPkt); // acknowledged beyond a rewind point
        }
        qp->m_lastProgress = Simulator::Now();
        qp->m_rtoBackoff = 0;
        qp->m_cc->OnAck(qp->m_sndUnaByte - oldUnaByte, meta);
        if (popped > 0)
        {
            // copy: a callback may post, ACK and complete re-entrantly
            std::vector<RdmaMessageInfo> done;
            done.swap(m_doneScratch);
            for (const RdmaMessageInfo& info : done)
            {
                ++m_stats.msgsSent;
                if (info.kind == RdmaMsgKind::READ)
                {
                    // the last response byte arrived here: receiver-side completion too
                    ++m_stats.msgsRcvd;
                    m_rxMsgTrace(info);
                    m_txMsgTrace(info);
                    if (qp->m_consumer)
                    {
                        qp->m_consumer->ReadComplete(*qp, info);
                    }
                }
                else
                {
                    m_txMsgTrace(info);
                    if (qp->m_consumer)
                    {
                        qp->m_consumer->TxComplete(*qp, info);
                    }
                }
            }
            done.clear();
            if (m_doneScratch.capacity() < done.capacity())
            {
                m_doneScratch.swap(done);
            }
        }
    }
}

void
RdmaHostStack::HandleAck(RdmaQueuePair* qp, const RdmaMeta& meta)
{
    const bool nak = (meta.aethSyndrome & 0xE0) == 0x60;
    // index (64-bit) of the first packet NOT acknowledged by this ACK/NAK
    int64_t idx = RdmaPsn::ToIndex(meta.psn, qp->m_maxSentPkt, qp->m_sndPsnBase) + (nak ? 0 : 1);
    if (idx < 0 || uint64_t(idx) > qp->m_maxSentPkt)
    {
        NS_LOG_DEBUG("host " << m_hostIndex << " qp " << qp->m_qpn << ": stale ACK psn "
                             << meta.psn);
        return;
    }
    const uint64_t ackPkt = uint64_t(idx);
    if (nak)
    {
        ++m_stats.naksRcvd;
        m_nakRcvdTrace(m_hostIndex, qp->m_qpn, meta.psn);
    }
    else
    {
        ++m_stats.acksRcvd;
    }
    AckUpTo(qp, ackPkt, meta);
    if (meta.sendTimeNs != 0)
    {
        Time rtt = Simulator::Now() - NanoSeconds(int64_t(meta.sendTimeNs));
        qp->m_cc->OnRttSample(rtt, meta);
    }
    if (meta.intHops > 0)
    {
        qp->m_cc->OnInt(meta);
    }
    if (nak)
    {
        qp->m_cc->OnNak(meta);
        if (ackPkt < qp->m_sndNxtPkt)
        {
            SetSndNxt(qp, ackPkt); // go-back-N
        }
    }
    if (qp->HasDataToSend())
    {
        Activate(qp);
    }
}

} // namespace ns3
