#include "rdma-switch.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/double.h"
#include "ns3/ipv4-address.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaSwitch");
NS_OBJECT_ENSURE_REGISTERED(RdmaSwitch);

TypeId
RdmaSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaSwitch")
            .SetParent<Object>()
            .SetGroupName("AstraSim")
            .AddConstructor<RdmaSwitch>()
            .AddAttribute("EcnEnabled",
                          "Mark ECN-capable frames (by the EcnMarker); false: never mark",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaSwitch::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnMarker",
                          "TypeId of the ECN marking policy (ns3::RdmaEcnRed, "
                          "ns3::RdmaEcnStep, ...; its attributes are its own defaults). "
                          "RdmaHelper::SetEcnMarker or SetEcnMarker() give a configured one",
                          TypeIdValue(RdmaEcnRed::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaSwitch::m_markerType),
                          MakeTypeIdChecker())
            .AddAttribute("EcnAtDequeue",
                          "true: the marker decides at dequeue (sets its AtDequeue attribute); "
                          "false: the marker's own AtDequeue applies",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaSwitch::m_ecnAtDequeue),
                          MakeBooleanChecker())
            .AddAttribute("Kmin",
                          "Sets the marker's Kmin (bytes) when it has one (RdmaEcnRed); "
                          "4294967295 = not set (the marker's own Kmin applies)",
                          UintegerValue(kUnsetBytes),
                          MakeUintegerAccessor(&RdmaSwitch::m_kmin),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Kmax",
                          "Sets the marker's Kmax (bytes) when it has one (RdmaEcnRed); "
                          "4294967295 = not set",
                          UintegerValue(kUnsetBytes),
                          MakeUintegerAccessor(&RdmaSwitch::m_kmax),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Pmax",
                          "Sets the marker's Pmax when it has one (RdmaEcnRed); -1 = not set",
                          DoubleValue(-1.0),
                          MakeDoubleAccessor(&RdmaSwitch::m_pmax),
                          MakeDoubleChecker<double>())
            .AddAttribute("IntEnabled",
                          "Append an INT hop (HPCC) to every forwarded frame",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaSwitch::m_intEnabled),
                          MakeBooleanChecker())
            .AddAttribute("PauseQuanta",
                          "Pause time carried by PFC PAUSE frames (512-bit-time quanta)",
                          UintegerValue(0xFFFF),
                          MakeUintegerAccessor(&RdmaSwitch::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("PauseRefreshFraction",
                          "A PAUSE is refreshed after this fraction of its time while the "
                          "ingress queue is still congested",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RdmaSwitch::m_refreshFraction),
                          MakeDoubleChecker<double>(0.01, 0.99))
            .AddAttribute("PfcWatchdog",
                          "Report (a warning on stderr, counted; trace PfcWatchdog) an ingress "
                          "queue that stays paused longer than this: a likely PFC deadlock "
                          "(cyclic buffer dependency). 0 disables. Reporting only, no drops.",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&RdmaSwitch::m_pfcWatchdog),
                          MakeTimeChecker())
            .AddTraceSource("PfcWatchdog",
                            "An ingress queue stayed paused longer than PfcWatchdog "
                            "(node, ingress port, prio)",
                            MakeTraceSourceAccessor(&RdmaSwitch::m_watchdogTrace),
                            "ns3::RdmaSwitch::PfcTracedCallback")
            .AddTraceSource("Enqueue",
                            "Frame queued on an egress port (node, port, prio, queue bytes)",
                            MakeTraceSourceAccessor(&RdmaSwitch::m_enqueueTrace),
                            "ns3::RdmaSwitch::QueueTracedCallback")
            .AddTraceSource("Dequeue",
                            "Frame left an egress port (node, port, prio, queue bytes)",
                            MakeTraceSourceAccessor(&RdmaSwitch::m_dequeueTrace),
                            "ns3::RdmaSwitch::QueueTracedCallback")
            .AddTraceSource("EcnMark",
                            "Frame marked CE (node, egress port, prio, queue bytes)",
                            MakeTraceSourceAccessor(&RdmaSwitch::m_ecnTrace),
                            "ns3::RdmaSwitch::QueueTracedCallback")
            .AddTraceSource("PfcPause",
                            "PFC PAUSE generated to the upstream of (node, ingress port, prio)",
                            MakeTraceSourceAccessor(&RdmaSwitch::m_pauseTrace),
                            "ns3::RdmaSwitch::PfcTracedCallback")
            .AddTraceSource("PfcResume",
                            "PFC resume generated to the upstream of (node, ingress port, prio)",
                            MakeTraceSourceAccessor(&RdmaSwitch::m_resumeTrace),
                            "ns3::RdmaSwitch::PfcTracedCallback")
            .AddTraceSource("Drop",
                            "Lossy frame dropped (node, ingress port, prio, headers)",
                            MakeTraceSourceAccessor(&RdmaSwitch::m_dropTrace),
                            "ns3::RdmaSwitch::DropTracedCallback")
            .AddTraceSource("LosslessDrop",
                            "Lossless frame dropped: headroom exhausted, a configuration error "
                            "(node, ingress port, prio, headers)",
                            MakeTraceSourceAccessor(&RdmaSwitch::m_losslessDropTrace),
                            "ns3::RdmaSwitch::DropTracedCallback");
    return tid;
}

RdmaSwitch::RdmaSwitch()
{
    m_mmu = CreateObject<SwitchMmu>();
    m_table = CreateObject<RdmaForwardingTable>();
    m_rng = CreateObject<UniformRandomVariable>();
}

RdmaSwitch::~RdmaSwitch() = default;

void
RdmaSwitch::NotifyNewAggregate()
{
    Ptr<Node> node = GetObject<Node>();
    if (node)
    {
        m_nodeId = node->GetId();
        m_mmu->SetName(GetName());
    }
    Object::NotifyNewAggregate();
}

void
RdmaSwitch::DoInitialize()
{
    EnsureMarker();
    UpdateMarkerHooks(); // EcnEnabled / IntEnabled may have changed since the ports were added
    m_mmu->SetName(GetName());
    m_mmu->Finalize();
    if (NeedDequeueHook())
    {
        for (const Ptr<RdmaNetDevice>& dev : m_ports)
        {
            dev->SetDequeueHandler(MakeCallback(&RdmaSwitch::OnDequeue, this));
        }
    }
    Object::DoInitialize();
}

void
RdmaSwitch::EnsureMarker()
{
    if (m_marker)
    {
        return;
    }
    if (!m_markerType.HasConstructor() || !m_markerType.IsChildOf(RdmaEcnMarker::GetTypeId()))
    {
        throw astra::InputError(GetName() + ": EcnMarker " + m_markerType.GetName() +
                                " is not a constructible ns3::RdmaEcnMarker");
    }
    ObjectFactory f;
    f.SetTypeId(m_markerType);
    SetEcnMarker(f.Create<RdmaEcnMarker>());
}

void
RdmaSwitch::SetEcnMarker(Ptr<RdmaEcnMarker> marker)
{
    NS_ABORT_MSG_IF(!marker, GetName() << ": null ECN marker");
    NS_ABORT_MSG_IF(marker->GetNPorts() != 0,
                    GetName() << ": the ECN marker already has ports (one marker per switch)");

    // the switch-level aliases, where set, override the marker's own attributes
    const struct
    {
        const char* name;
        const char* alias;
        bool set;
        Ptr<AttributeValue> value;
    } aliases[] = {
        {"Kmin", "Kmin", m_kmin != kUnsetBytes, Create<UintegerValue>(m_kmin)},
        {"Kmax", "Kmax", m_kmax != kUnsetBytes, Create<UintegerValue>(m_kmax)},
        {"Pmax", "Pmax", m_pmax != -1.0, Create<DoubleValue>(m_pmax)},
        {"AtDequeue", "EcnAtDequeue", m_ecnAtDequeue, Create<BooleanValue>(true)},
    };

    const TypeId tid = marker->GetInstanceTypeId();
    for (const auto& a : aliases)
    {
        TypeId::AttributeInformation info;
        if (!a.set)
        {
            continue;
        }
        if (!tid.LookupAttributeByName(a.name, &info) ||
            !marker->SetAttributeFailSafe(a.name, *a.value))
        {
            throw astra::InputError(GetName() + ": RdmaSwitch::" + a.alias +
                                    " is set but the EcnMarker " + tid.GetName() +
                                    " has no attribute " + a.name);
        }
    }
    const std::string e = marker->Validate();
    if (!e.empty())
    {
        throw astra::InputError(GetName() + ": " + tid.GetName() + ": " + e);
    }
    m_marker = marker;
    for (const Ptr<RdmaNetDevice>& dev : m_ports)
    {
        m_marker->AddPort(dev->GetDataRate().GetBitRate());
    }
    UpdateMarkerHooks();
}

Ptr<RdmaEcnMarker>
RdmaSwitch::GetEcnMarker()
{
    EnsureMarker();
    return m_marker;
}

void
RdmaSwitch::UpdateMarkerHooks()
{
    const bool on = m_ecnEnabled && m_marker;
    m_enqMarker = on && !m_marker->IsAtDequeue() ? PeekPointer(m_marker) : nullptr;
    m_deqMarker = on && m_marker->IsAtDequeue() ? PeekPointer(m_marker) : nullptr;
}

void
RdmaSwitch::DoDispose()
{
    for (EventId& ev : m_refresh)
    {
        ev.Cancel();
    }
    m_ports.clear();
    m_mmu = nullptr;
    m_table = nullptr;
    m_rng = nullptr;
    m_enqMarker = nullptr;
    m_deqMarker = nullptr;
    m_marker = nullptr;
    Object::DoDispose();
}

uint32_t
RdmaSwitch::NodeId() const
{
    return m_nodeId;
}

std::string
RdmaSwitch::GetName() const
{
    std::ostringstream os;
    os << m_kind << " " << m_nodeId;
    return os.str();
}

uint32_t
RdmaSwitch::AddPort(Ptr<RdmaNetDevice> dev)
{
    NS_ASSERT(dev);
    const uint32_t idx = static_cast<uint32_t>(m_ports.size());
    if (dev->GetNode())
    {
        m_nodeId = dev->GetNode()->GetId();
        m_mmu->SetName(GetName());
    }
    Time delay(0);
    Ptr<Channel> ch = dev->GetChannel();
    TimeValue tv;
    if (ch && ch->GetAttributeFailSafe("Delay", tv))
    {
        delay = tv.Get();
    }
    else
    {
        ASTRA_WARN("switch-port-without-delay",
                   GetName() << " port " << idx
                             << ": no channel Delay known; PFC headroom sized for zero delay");
    }
    const uint32_t mtuFrame =
        dev->GetMtu() + RoceHeader::kEthBytes + RoceHeader::kFcsBytes + kEthernetWireOverhead;
    const uint32_t mmuIdx = m_mmu->AddPort(dev->GetDataRate(), delay, mtuFrame);
    NS_ASSERT(mmuIdx == idx);
    EnsureMarker();
    m_marker->AddPort(dev->GetDataRate().GetBitRate());
    m_ports.push_back(dev);
    m_refresh.resize(m_ports.size() * SwitchMmu::kPrios);
    m_pauseStart.resize(m_ports.size() * SwitchMmu::kPrios);
    m_watchdogFired.resize(m_ports.size() * SwitchMmu::kPrios, false);
    if (NeedDequeueHook())
    {
        dev->SetDequeueHandler(MakeCallback(&RdmaSwitch::OnDequeue, this));
    }
    if (m_ownsHandlers)
    {
        dev->SetPortIndex(idx);
        dev->SetFrameReceiver(this, true);
    }
    else
    {
        NS_ABORT_MSG_IF(dev->GetPortIndex() != idx,
                        GetName() << ": device port index " << dev->GetPortIndex()
                                  << " differs from forwarder port " << idx);
    }
    return idx;
}

uint32_t
RdmaSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<RdmaNetDevice>
RdmaSwitch::GetPort(uint32_t i) const
{
    return m_ports.at(i);
}

Ptr<SwitchMmu>
RdmaSwitch::GetMmu() const
{
    return m_mmu;
}

Ptr<RdmaForwardingTable>
RdmaSwitch::GetForwardingTable() const
{
    return m_table;
}

void
RdmaSwitch::SetForwardingTable(Ptr<RdmaForwardingTable> t)
{
    m_table = t;
}

void
RdmaSwitch::SetEcnThresholds(uint32_t port, uint32_t kminBytes, uint32_t kmaxBytes, double pmax)
{
    EnsureMarker();
    try
    {
        m_marker->SetThresholds(port, RdmaEcnConfig{kminBytes, kmaxBytes, pmax});
    }
    catch (const astra::InputError& e)
    {
        throw astra::InputError(GetName() + ": " + e.what());
    }
}

void
RdmaSwitch::SetPriorityRemap(uint32_t port, uint8_t fromPrio, uint8_t toPrio)
{
    NS_ABORT_MSG_IF(port >= m_ports.size(), GetName() << ": no port " << port);
    NS_ABORT_MSG_IF(fromPrio > 7 || toPrio > 7, GetName() << ": priorities are 0..7");
    if (m_remap.size() < m_ports.size())
    {
        const std::size_t old = m_remap.size();
        m_remap.resize(m_ports.size());
        m_remapPorts.resize(m_ports.size(), false);
        for (std::size_t i = old; i < m_remap.size(); ++i)
        {
            for (uint8_t p = 0; p < 8; ++p)
            {
                m_remap[i][p] = p;
            }
        }
    }
    m_remap[port][fromPrio] = toPrio;
    m_remapPorts[port] = true;
}

uint8_t
RdmaSwitch::GetPriorityRemap(uint32_t port, uint8_t prio) const
{
    return port < m_remap.size() && m_remapPorts[port] ? m_remap[port][prio] : prio;
}

RdmaEcnConfig
RdmaSwitch::GetEcnThresholds(uint32_t port) const
{
    NS_ABORT_MSG_IF(!m_marker, GetName() << ": no port " << port);
    return m_marker->GetThresholds(port);
}

bool
RdmaSwitch::ShouldMark(uint32_t port, uint64_t qBytes, uint8_t prio)
{
    EnsureMarker();
    return m_marker->ShouldMark(port, prio, qBytes, *m_rng);
}

int64_t
RdmaSwitch::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return kStreamsUsed;
}

void
RdmaSwitch::ReceiveFrame(RdmaNetDevice* dev, RdmaQueuedFrame& frame)
{
    ForwardFrom(dev->GetPortIndex(), frame);
}

void
RdmaSwitch::PrefetchFrame(const RdmaNetDevice* dev, const RdmaQueuedFrame& frame) const
{
    if (m_table && m_mmu)
    {
        m_table->PrefetchEntry(frame.meta);
        m_mmu->PrefetchIngress(dev->GetPortIndex(), frame.meta.priority & 7);
    }
}

void
RdmaSwitch::PrefetchFrameState(const RdmaNetDevice*, const RdmaQueuedFrame& frame) const
{
    // what ForwardFrom reads once the route is known (the entry PrefetchFrame fetched):
    // the egress counters and the egress device's queue lines
    if (!m_table || !m_mmu)
    {
        return;
    }
    const uint32_t out = m_table->SelectPort(frame.meta);
    if (out >= m_ports.size())
    {
        return;
    }
    const uint8_t prio = frame.meta.priority & 7;
    m_mmu->PrefetchEgress(out, prio);
    m_ports[out]->PrefetchEnqueue(prio);
}

void
RdmaSwitch::FrameSent(RdmaNetDevice* dev, const RdmaQueuedFrame& frame)
{
    TxCompleteOn(dev->GetPortIndex(), frame);
}

void
RdmaSwitch::MarkCe(RdmaQueuedFrame& frame)
{
    RoceFrame::SetCe(frame.packet, frame.meta); // bytes (IPv4 ECN + checksum) and meta.ecn
}

void
RdmaSwitch::Forward(Ptr<RdmaNetDevice> inDev, RdmaQueuedFrame& frame)
{
    ForwardFrom(inDev->GetPortIndex(), frame);
}

void
RdmaSwitch::ForwardFrom(uint32_t inPort, RdmaQueuedFrame& frame)
{
    RdmaMeta& m = frame.meta;
    const uint8_t prio = m.priority & 7;
    const uint32_t out = m_table->SelectPort(m);
    if (out >= m_ports.size())
    {
        ++m_drops;
        ASTRA_WARN("rdma-no-route",
                   GetName() << ": no route to " << Ipv4Address(m.dstIp) << " (host "
                             << RdmaAddressing::IpToHostIndex(m.dstIp)
                             << "), frame dropped (later ones counted)");
        m_dropTrace(m_nodeId, inPort, prio, m);
        return;
    }
    const uint32_t bytes = m.frameBytes;
    const uint8_t outPrio = m_remapPorts.empty() || !m_remapPorts[out] ? prio : m_remap[out][prio];
    const SwitchMmu::AdmitResult r = m_mmu->Admit(inPort, prio, out, outPrio, bytes);
    if (r.verdict != SwitchMmu::ACCEPT)
    {
        if (r.verdict == SwitchMmu::LOSSLESS_DROP)
        {
            ++m_losslessDrops;
            // one line per (switch, port, priority); the summary counts the frames
            ASTRA_WARN("lossless-drop " + GetName() + " port " + std::to_string(inPort) +
                           " priority " + std::to_string(unsigned(prio)),
                       "lossless drop at " << GetName() << " port " << inPort << " priority "
                                           << unsigned(prio) << " (PFC headroom "
                                           << m_mmu->GetHeadroom(inPort) << " B exhausted) at "
                                           << Simulator::Now().GetNanoSeconds()
                                           << " ns: a configuration error (headroom, "
                                              "ResponseTime or buffer too small)");
            m_losslessDropTrace(m_nodeId, inPort, prio, m);
        }
        else
        {
            ++m_drops;
            m_dropTrace(m_nodeId, inPort, prio, m);
        }
        return;
    }
    if (r.pause)
    {
        SendPause(inPort, prio, false);
    }
    if (outPrio != prio)
    {
        m.priority = outPrio; // re-tag (dateline class): rewrite the 802.1Q PCP too
        RoceFrame::Sync(frame.packet, m);
    }
    const uint64_t qAfter = m_mmu->GetEgressBytes(out, outPrio);
    if (m_enqMarker && (m.ecn == 1 || m.ecn == 2) &&
        m_enqMarker->ShouldMark(out, outPrio, qAfter - bytes, *m_rng))
    {
        MarkCe(frame);
        ++m_marks;
        m_ecnTrace(m_nodeId, out, outPrio, qAfter);
    }
    ++m_forwarded;
    frame.meta.inPort = inPort | (static_cast<uint32_t>(prio) << kInPrioShift) | m_inPortTag;
    if (!m_enqueueTrace.IsEmpty())
    {
        m_enqueueTrace(m_nodeId, out, outPrio, qAfter);
    }
    m_ports[out]->EnqueueFrame(std::move(frame));
}

bool
RdmaSwitch::NeedDequeueHook() const
{
    return m_intEnabled || m_deqMarker;
}

void
RdmaSwitch::OnDequeue(Ptr<RdmaNetDevice> dev, RdmaQueuedFrame& frame)
{
    RdmaMeta& m = frame.meta;
    if (m.kind != RdmaFrameKind::ROCE || (frame.meta.inPort & kTransitTag) != m_inPortTag)
    {
        return; // a PFC frame or a host's own frame
    }
    const uint32_t out = dev->GetPortIndex();
    const uint8_t prio = m.priority & 7;
    if (m_deqMarker && (m.ecn == 1 || m.ecn == 2))
    {
        const uint64_t q = m_mmu->GetEgressBytes(out, prio);
        const uint64_t behind = q > m.frameBytes ? q - m.frameBytes : 0;
        if (m_deqMarker->ShouldMark(out, prio, behind, *m_rng))
        {
            MarkCe(frame);
            ++m_marks;
            m_ecnTrace(m_nodeId, out, prio, behind);
        }
    }
    if (m_intEnabled)
    {
        AddIntHop(out, m);
    }
}

void
RdmaSwitch::AddIntHop(uint32_t port, RdmaMeta& meta)
{
    if (meta.intHops >= kMaxIntHops)
    {
        return;
    }
    IntHop& h = meta.intStack[meta.intHops++];
    const Ptr<RdmaNetDevice>& dev = m_ports[port];
    h.timeNs = static_cast<uint64_t>(Simulator::Now().GetNanoSeconds());
    h.txBytes = dev->GetTxBytes();
    const uint64_t q = m_mmu->GetEgressPortBytes(port);
    h.qlenBytes = static_cast<uint32_t>(q > meta.frameBytes ? q - meta.frameBytes : 0);
    h.rateMbps = static_cast<uint32_t>(dev->GetDataRate().GetBitRate() / 1000000);
}

bool
RdmaSwitch::NotifyTxComplete(Ptr<RdmaNetDevice> dev, const RdmaQueuedFrame& frame)
{
    return TxCompleteOn(dev->GetPortIndex(), frame);
}

bool
RdmaSwitch::TxCompleteOn(uint32_t out, const RdmaQueuedFrame& frame)
{
    if (frame.meta.kind != RdmaFrameKind::ROCE || (frame.meta.inPort & kTransitTag) != m_inPortTag)
    {
        return false;
    }
    const uint32_t inPort = frame.meta.inPort & kInPortMask;
    const uint8_t inPrio = (frame.meta.inPort >> kInPrioShift) & 7;
    const uint8_t prio = frame.meta.priority & 7;
    NS_ASSERT(inPort < m_ports.size() && out < m_ports.size());
    const bool resume = m_mmu->Release(inPort, inPrio, out, prio, frame.meta.frameBytes);
    if (!m_dequeueTrace.IsEmpty())
    {
        m_dequeueTrace(m_nodeId, out, prio, m_mmu->GetEgressBytes(out, prio));
    }
    if (resume)
    {
        SendResume(inPort, inPrio);
    }
    return true;
}

void
RdmaSwitch::SendPause(uint32_t port, uint8_t prio, bool refresh)
{
    Ptr<RdmaNetDevice> dev = m_ports[port];
    const uint32_t k = port * SwitchMmu::kPrios + prio;
    if (!refresh)
    {
        m_pauseStart[k] = Simulator::Now(); // a new pause (not a refresh)
        m_watchdogFired[k] = false;
    }
    dev->SendPfc(prio, m_pauseQuanta);
    ++m_pauses;
    m_pauseTrace(m_nodeId, port, prio);
    NS_LOG_LOGIC(GetName() << " PAUSE port " << port << " prio " << unsigned(prio));
    const double bitRate = static_cast<double>(dev->GetDataRate().GetBitRate());
    const double pauseSec = bitRate > 0 ? m_pauseQuanta * 512.0 / bitRate : 1e-3;
    EventId& ev = m_refresh[port * SwitchMmu::kPrios + prio];
    ev.Cancel();
    ev = Simulator::Schedule(Seconds(pauseSec * m_refreshFraction),
                             &RdmaSwitch::RefreshPause,
                             this,
                             port,
                             prio);
}

void
RdmaSwitch::RefreshPause(uint32_t port, uint8_t prio)
{
    if (!m_mmu->IsPaused(port, prio))
    {
        return;
    }
    const uint32_t k = port * SwitchMmu::kPrios + prio;
    if (!m_pfcWatchdog.IsZero() && !m_watchdogFired[k] &&
        Simulator::Now() - m_pauseStart[k] >= m_pfcWatchdog)
    {
        m_watchdogFired[k] = true;
        ++m_watchdogEvents;
        ASTRA_WARN("pfc-watchdog",
                   GetName() << " port " << port << " priority " << unsigned(prio)
                             << " has been PFC-paused for "
                             << (Simulator::Now() - m_pauseStart[k]).As(Time::US)
                             << " (PfcWatchdog): possible PFC deadlock (cyclic buffer "
                                "dependency); later reports are counted");
        m_watchdogTrace(m_nodeId, port, prio);
    }
    SendPause(port, prio, true);
}

void
RdmaSwitch::SendResume(uint32_t port, uint8_t prio)
{
    m_refresh[port * SwitchMmu::kPrios + prio].Cancel();
    m_ports[port]->SendPfc(prio, 0);
    ++m_resumes;
    m_resumeTrace(m_nodeId, port, prio);
    NS_LOG_LOGIC(GetName() << " RESUME port " << port << " prio " << unsigned(prio));
}

uint64_t
RdmaSwitch::GetForwarded() const
{
    return m_forwarded;
}

uint64_t
RdmaSwitch::GetPfcWatchdogEvents() const
{
    return m_watchdogEvents;
}

uint64_t
RdmaSwitch::GetDrops() const
{
    return m_drops;
}

uint64_t
RdmaSwitch::GetLosslessDrops() const
{
    return m_losslessDrops;
}

uint64_t
RdmaSwitch::GetEcnMarks() const
{
    return m_marks;
}

uint64_t
RdmaSwitch::GetPausesSent() const
{
    return m_pauses;
}

uint64_t
RdmaSwitch::GetResumesSent() const
{
    return m_resumes;
}

uint64_t
RdmaSwitch::GetMaxQueueBytes(uint32_t port) const
{
    return m_mmu->GetMaxEgressPortBytes(port);
}

} // namespace ns3
