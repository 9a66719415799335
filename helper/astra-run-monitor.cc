/*
 * The run monitor (astra-run-monitor.h).
 */

#include "astra-run-monitor.h"

#include "ns3/astra-distributed.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/in-switch-network.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-forwarding-table.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-meta.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-switch.h"
#include "ns3/roce-backend.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace astra
{

NS_LOG_COMPONENT_DEFINE("AstraRunMonitor");
NS_OBJECT_ENSURE_REGISTERED(AstraRunMonitor);

TypeId
AstraRunMonitor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::astra::AstraRunMonitor")
            .SetParent<Object>()
            .SetGroupName("AstraSim")
            .AddConstructor<AstraRunMonitor>()
            .AddAttribute("HangTimeout",
                          "Simulated time without progress (while NPUs are unfinished and no "
                          "compute runs) after which the run is declared hung; keep it above the "
                          "RDMA retransmission timeout (RdmaHostStack::Rto) with its backoff",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&AstraRunMonitor::m_hangTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ProgressInterval",
                          "Wall-clock seconds between progress lines on std::cerr (0: none)",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&AstraRunMonitor::m_progressSeconds),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("StopWhenFinished",
                          "Stop the simulator when the last NPU finished (packet-level timers, "
                          "e.g. DCQCN rate recovery, would keep the event list alive)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&AstraRunMonitor::m_stopWhenFinished),
                          MakeBooleanChecker())
            .AddAttribute("StopOnHang",
                          "Stop the simulator when a hang is detected",
                          BooleanValue(true),
                          MakeBooleanAccessor(&AstraRunMonitor::m_stopOnHang),
                          MakeBooleanChecker())
            .AddAttribute("MaxReportLines",
                          "At most this many entries per list in the hang report",
                          UintegerValue(32),
                          MakeUintegerAccessor(&AstraRunMonitor::m_maxLines),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("Hang",
                            "A hang was detected (the report)",
                            MakeTraceSourceAccessor(&AstraRunMonitor::m_hangTrace),
                            "ns3::astra::AstraRunMonitor::HangTracedCallback");
    return tid;
}

AstraRunMonitor::AstraRunMonitor()
{
}

AstraRunMonitor::~AstraRunMonitor() = default;

void
AstraRunMonitor::DoDispose()
{
    m_apps.clear();
    m_backend = nullptr;
    m_roce = nullptr;
    m_memory = nullptr;
    m_devs.clear();
    Object::DoDispose();
}

void
AstraRunMonitor::Watch(const std::vector<Ptr<AstraSimApplication>>& apps,
                       Ptr<NetworkBackend> backend)
{
    m_apps = apps;
    m_backend = backend;
    m_roce = DynamicCast<RoceBackend>(backend);
    m_running.assign(apps.size(), {});
    m_index.clear();
    for (uint32_t i = 0; i < apps.size(); ++i)
    {
        // a distributed run watches its rank's NPUs only: NPU id -> index in apps
        const uint32_t npu = apps[i]->GetNpuId();
        if (m_index.size() <= npu)
        {
            m_index.resize(size_t(npu) + 1, UINT32_MAX);
        }
        m_index[npu] = i;
    }
    for (const auto& a : apps)
    {
        a->TraceConnectWithoutContext("NodeStart",
                                      MakeCallback(&AstraRunMonitor::OnNodeStart, this));
        a->TraceConnectWithoutContext("NodeEnd", MakeCallback(&AstraRunMonitor::OnNodeEnd, this));
        a->TraceConnectWithoutContext("Finished", MakeCallback(&AstraRunMonitor::OnFinished, this));
    }
}

void
AstraRunMonitor::WatchFabric(NodeContainer nodes)
{
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<Node> n = nodes.Get(i);
        if (Ptr<RdmaSwitch> sw = n->GetObject<RdmaSwitch>())
        {
            sw->TraceConnectWithoutContext("LosslessDrop",
                                           MakeCallback(&AstraRunMonitor::OnLosslessDrop, this));
        }
        for (uint32_t d = 0; d < n->GetNDevices(); ++d)
        {
            Ptr<RdmaNetDevice> dev = DynamicCast<RdmaNetDevice>(n->GetDevice(d));
            if (!dev)
            {
                continue;
            }
            const uint32_t idx = uint32_t(m_devs.size());
            m_devs.push_back(dev);
            dev->TraceConnectWithoutContext(
                "PauseState",
                MakeBoundCallback(
                    +[](AstraRunMonitor* m, uint32_t dev, uint8_t prio, bool paused) {
                        m->OnPause(dev, prio, paused);
                    },
                    this,
                    idx));
        }
    }
    m_pauseSince.assign(m_devs.size() * 8, Time(-1));
}

void
AstraRunMonitor::Start()
{
    if (m_started)
    {
        throw std::logic_error("AstraRunMonitor::Start called twice");
    }
    m_started = true;
    m_wallStart = m_wallLast = std::chrono::steady_clock::now();
    m_lastEventCount = Simulator::GetEventCount();
    m_lastChange = Simulator::Now();
    Simulator::Schedule(m_hangTimeout / 2, &AstraRunMonitor::Check, this);
    if (m_progressSeconds > 0)
    {
        Simulator::Schedule(m_progressInterval, &AstraRunMonitor::ProgressTick, this);
    }
}

void
AstraRunMonitor::WatchMemory(Ptr<FabricMemoryModel> memory)
{
    m_memory = memory;
}

void
AstraRunMonitor::OnNodeStart(uint32_t npu, uint64_t id)
{
    ++m_events;
    const uint32_t i = m_index[npu];
    const WorkloadNode* n = m_apps[i]->GetGraph()->Find(id);
    if (n && n->kind != NodeKind::COMM_COLL && n->kind != NodeKind::COMM_SEND &&
        n->kind != NodeKind::COMM_RECV &&
        !(m_memory && (n->kind == NodeKind::MEM_LOAD || n->kind == NodeKind::MEM_STORE)))
    {
        ++m_runningCompute;
    }
    m_running[i].push_back(id);
}

void
AstraRunMonitor::OnNodeEnd(uint32_t npu, uint64_t id)
{
    ++m_events;
    const uint32_t i = m_index[npu];
    const WorkloadNode* n = m_apps[i]->GetGraph()->Find(id);
    if (n && n->kind != NodeKind::COMM_COLL && n->kind != NodeKind::COMM_SEND &&
        n->kind != NodeKind::COMM_RECV &&
        !(m_memory && (n->kind == NodeKind::MEM_LOAD || n->kind == NodeKind::MEM_STORE)))
    {
        --m_runningCompute;
    }
    auto& r = m_running[i];
    auto it = std::find(r.begin(), r.end(), id);
    if (it != r.end())
    {
        *it = r.back();
        r.pop_back();
    }
}

void
AstraRunMonitor::OnFinished(uint32_t npu, Time t)
{
    ++m_events;
    if (++m_finished == m_apps.size() && m_stopWhenFinished && !m_distributed)
    {
        Simulator::Stop();
    }
}

void
AstraRunMonitor::OnLosslessDrop(uint32_t node, uint32_t port, uint8_t prio, const RdmaMeta& meta)
{
    ++m_losslessDrops;
    // one entry per (node, ingress port, priority): the first drop there and a count
    for (auto& d : m_drops)
    {
        if (d.node == node && d.port == port && d.prio == prio)
        {
            ++d.count;
            return;
        }
    }
    m_drops.push_back({Simulator::Now(),
                       node,
                       port,
                       prio,
                       RdmaAddressing::IpToHostIndex(meta.srcIp),
                       RdmaAddressing::IpToHostIndex(meta.dstIp),
                       meta.psn});
}

void
AstraRunMonitor::OnPause(uint32_t dev, uint8_t prio, bool paused)
{
    Time& since = m_pauseSince[dev * 8 + (prio & 7)];
    if (paused && since.IsNegative())
    {
        since = Simulator::Now();
    }
    else if (!paused)
    {
        since = Time(-1);
    }
}

uint64_t
AstraRunMonitor::ProgressCounter() const
{
    return m_events + (m_roce ? m_roce->GetProgressCounter() : 0) +
           (m_memory ? m_memory->GetProgressCounter() : 0);
}

uint64_t
AstraRunMonitor::InSwitchRunning() const
{
    // in-switch operations running on their trees are deliveries still to come
    InSwitchNetwork* in = m_backend ? m_backend->GetInSwitchInterface() : nullptr;
    return in ? in->GetPendingOperations() : 0;
}

bool
AstraRunMonitor::IsHung() const
{
    return m_hung;
}

bool
AstraRunMonitor::AllFinished() const
{
    return !m_apps.empty() && m_finished == m_apps.size();
}

uint32_t
AstraRunMonitor::GetFinishedNpus() const
{
    return m_finished;
}

uint64_t
AstraRunMonitor::GetLosslessDrops() const
{
    return m_losslessDrops;
}

const std::string&
AstraRunMonitor::GetHangReport() const
{
    return m_report;
}

void
AstraRunMonitor::SetDistributed(bool enable)
{
    m_distributed = enable;
}

void
AstraRunMonitor::Check()
{
    if (m_distributed)
    {
        if (!AllFinished() && !m_hung)
        {
            const uint64_t c = ProgressCounter();
            if (c != m_lastCounter)
            {
                m_lastCounter = c;
                m_lastChange = Simulator::Now();
            }
            else if (m_runningCompute == 0 && Simulator::Now() - m_lastChange >= m_hangTimeout)
            {
                ReportHang();
            }
        }
        // every rank runs this check at the same simulated time: one collective call each
        const uint64_t unfinished =
            Distributed::AllReduceSum(AllFinished() || m_hung ? 0 : m_apps.size() - m_finished);
        const uint64_t hung = Distributed::AllReduceMax(m_hung ? 1 : 0);
        if (unfinished == 0 || (hung && m_stopOnHang))
        {
            Simulator::Stop();
            return;
        }
        Simulator::Schedule(m_hangTimeout / 2, &AstraRunMonitor::Check, this);
        return;
    }
    if (AllFinished() || m_hung)
    {
        return;
    }
    const uint64_t c = ProgressCounter();
    if (c != m_lastCounter)
    {
        m_lastCounter = c;
        m_lastChange = Simulator::Now();
    }
    else if (m_runningCompute == 0 && Simulator::Now() - m_lastChange >= m_hangTimeout &&
             !(m_memory && m_memory->IsDeviceBusy()) &&
             (m_roce || (m_backend->GetPendingMessages() + InSwitchRunning() == 0 &&
                         (!m_memory || m_memory->GetPendingMessages() == 0))))
    {
        ReportHang();
        if (m_stopOnHang)
        {
            Simulator::Stop();
        }
        return;
    }
    Simulator::Schedule(m_hangTimeout / 2, &AstraRunMonitor::Check, this);
}

void
AstraRunMonitor::PrintProgress()
{
    auto now = std::chrono::steady_clock::now();
    const double sinceLast = std::chrono::duration<double>(now - m_wallLast).count();
    const double total = std::chrono::duration<double>(now - m_wallStart).count();
    const uint64_t ev = Simulator::GetEventCount();
    std::ostringstream os;
    os << "[progress] wall " << std::fixed << std::setprecision(1) << total << " s, simulated "
       << std::setprecision(3) << Simulator::Now().GetNanoSeconds() / 1e6 << " ms, finished NPUs "
       << m_finished << "/" << m_apps.size() << ", " << std::setprecision(0)
       << (ev - m_lastEventCount) / std::max(1e-9, sinceLast) << " events/s";
    std::cerr << os.str() << std::endl;
    m_wallLast = now;
    m_lastEventCount = ev;
}

void
AstraRunMonitor::ProgressTick()
{
    if (AllFinished() || m_hung)
    {
        return;
    }
    const double sinceLast =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallLast).count();
    if (sinceLast >= m_progressSeconds)
    {
        PrintProgress();
        m_progressInterval = m_progressInterval / 2 + NanoSeconds(1);
    }
    else if (sinceLast < m_progressSeconds / 20 && m_progressInterval < m_hangTimeout)
    {
        // the simulated step between wall-clock checks adapts to the simulation speed
        m_progressInterval = m_progressInterval * 2;
    }
    Simulator::Schedule(m_progressInterval, &AstraRunMonitor::ProgressTick, this);
}

std::string
AstraRunMonitor::NodeLabel(Ptr<Node> node)
{
    if (!node)
    {
        return "?";
    }
    std::ostringstream os;
    if (Ptr<RdmaHostStack> h = node->GetObject<RdmaHostStack>())
    {
        os << "NPU " << h->GetHostIndex() << " (node " << node->GetId() << ")";
    }
    else
    {
        os << "switch node " << node->GetId();
    }
    return os.str();
}

std::string
AstraRunMonitor::DescribeFirstStuck() const
{
    // the first NPU (lowest id) that finished none of its nodes; else the one with the fewest
    int first = -1;
    int fewest = -1;
    for (uint32_t i = 0; i < m_apps.size(); ++i)
    {
        const auto& a = m_apps[i];
        if (a->IsFinished())
        {
            continue;
        }
        if (a->GetStats().nodes == 0 && first < 0)
        {
            first = int(i);
        }
        if (fewest < 0 || a->GetStats().nodes < m_apps[fewest]->GetStats().nodes)
        {
            fewest = int(i);
        }
    }
    if (fewest < 0)
    {
        return "";
    }
    const uint32_t i = static_cast<uint32_t>(first >= 0 ? first : fewest);
    const auto& a = m_apps[i];
    std::ostringstream os;
    if (first >= 0)
    {
        os << "first NPU that could not start: NPU " << a->GetNpuId() << " (none of its "
           << a->GetGraph()->nodes.size() << " nodes finished)";
    }
    else
    {
        os << "every unfinished NPU got past its start; the one with the fewest nodes done: NPU "
           << a->GetNpuId() << " (" << a->GetStats().nodes << " of " << a->GetGraph()->nodes.size()
           << ")";
    }
    std::vector<uint64_t> ids = m_running[i];
    std::sort(ids.begin(), ids.end());
    if (!ids.empty())
    {
        if (const WorkloadNode* n = a->GetGraph()->Find(ids.front()))
        {
            os << ": it waits on node " << n->id << " '" << n->name << "' "
               << NodeKindName(n->kind);
            if (n->kind == NodeKind::COMM_RECV)
            {
                os << " (RECV from NPU " << n->commSrc << " tag " << n->commTag << ")";
            }
            else if (n->kind == NodeKind::COMM_SEND)
            {
                os << " (SEND to NPU " << n->commDst << " tag " << n->commTag << ")";
            }
        }
    }
    else
    {
        os << ": no node of it runs (its ready nodes wait on dependencies)";
    }
    os << " (" << a->GetGraph()->file << ")\n";
    return os.str();
}

std::string
AstraRunMonitor::DescribeWaits() const
{
    std::ostringstream os;
    uint32_t shown = 0;
    for (uint32_t i = 0; i < m_apps.size(); ++i)
    {
        const auto& a = m_apps[i];
        if (a->IsFinished())
        {
            continue;
        }
        if (++shown > m_maxLines)
        {
            continue;
        }
        os << "NPU " << a->GetNpuId() << " waits on " << m_running[i].size() << " node(s):\n";
        std::vector<uint64_t> ids = m_running[i];
        std::sort(ids.begin(), ids.end());
        uint32_t listed = 0;
        for (uint64_t id : ids)
        {
            if (++listed > m_maxLines)
            {
                os << "    ... and " << (ids.size() - m_maxLines) << " more\n";
                break;
            }
            const WorkloadNode* n = a->GetGraph()->Find(id);
            if (!n)
            {
                continue;
            }
            os << "    node " << n->id << " '" << n->name << "' " << NodeKindName(n->kind);
            if (n->kind == NodeKind::COMM_RECV)
            {
                os << " from NPU " << n->commSrc << " tag " << n->commTag << ", " << n->commSize
                   << " B";
            }
            else if (n->kind == NodeKind::COMM_SEND)
            {
                os << " to NPU " << n->commDst << " tag " << n->commTag << ", " << n->commSize
                   << " B";
            }
            else if (n->kind == NodeKind::COMM_COLL)
            {
                os << " " << CollTypeName(n->collType) << " " << n->commSize << " B, group '"
                   << n->pgName << "'";
            }
            os << "\n";
        }
        // the system layer's view (collective ids, phases, steps) of stuck collectives
        bool coll = false;
        for (uint64_t id : ids)
        {
            const WorkloadNode* n = a->GetGraph()->Find(id);
            coll = coll || (n && n->kind == NodeKind::COMM_COLL);
        }
        if (coll)
        {
            os << a->DescribePending();
        }
    }
    if (shown > m_maxLines)
    {
        os << "... and " << (shown - m_maxLines) << " more unfinished NPUs\n";
    }
    return os.str();
}

std::string
AstraRunMonitor::DescribeLosslessDrops() const
{
    std::ostringstream os;
    if (m_losslessDrops == 0)
    {
        return "";
    }
    os << "lossless drops: " << m_losslessDrops << " frame(s) at " << m_drops.size()
       << " (node, port, priority) (PFC headroom exhausted or PFC not honoured upstream)\n";
    uint32_t shown = 0;
    for (const auto& d : m_drops)
    {
        if (++shown > m_maxLines)
        {
            os << "    ... and " << (m_drops.size() - m_maxLines)
               << " more (node, port, priority)\n";
            break;
        }
        Ptr<Node> n = d.node < NodeList::GetNNodes() ? NodeList::GetNode(d.node) : nullptr;
        os << "    " << NodeLabel(n) << " ingress port " << d.port << " priority "
           << unsigned(d.prio) << ": " << d.count << " frame(s), the first at "
           << d.time.GetNanoSeconds() << " ns (packet host " << d.src << " -> host " << d.dst
           << " PSN " << d.psn << ")\n";
    }
    return os.str();
}

std::string
AstraRunMonitor::DescribePfc(bool* cycle) const
{
    if (cycle)
    {
        *cycle = false;
    }
    // one vertex per paused (egress device, priority)
    std::map<const RdmaNetDevice*, uint32_t> devIndex;
    for (uint32_t i = 0; i < m_devs.size(); ++i)
    {
        devIndex[PeekPointer(m_devs[i])] = i;
    }
    std::vector<uint32_t> paused; // dev * 8 + prio
    for (uint32_t i = 0; i < m_devs.size(); ++i)
    {
        uint8_t mask = m_devs[i]->GetPausedMask();
        for (uint8_t p = 0; p < 8; ++p)
        {
            if ((mask >> p) & 1)
            {
                paused.push_back(i * 8 + p);
            }
        }
    }
    if (paused.empty())
    {
        return "";
    }
    auto label = [&](uint32_t v) {
        Ptr<RdmaNetDevice> d = m_devs[v / 8];
        Ptr<RdmaNetDevice> peer = d->GetRdmaChannel() ? d->GetRdmaChannel()->GetPeer(d) : nullptr;
        std::ostringstream os;
        os << NodeLabel(d->GetNode()) << " port " << d->GetPortIndex() << " (to "
           << (peer ? NodeLabel(peer->GetNode()) : std::string("?")) << ") priority " << v % 8;
        return os.str();
    };
    // edges: v is paused by its peer's ingress; that ingress drains only through the peer's
    // egress queues, so v waits on every paused egress (port, priority) of the peer that holds
    // frames, except the ingress port itself (an over-approximation: the MMU does not record
    // which ingress the queued frames came from)
    std::map<uint32_t, std::vector<uint32_t>> edges;
    std::map<uint32_t, std::string> cause;
    for (uint32_t v : paused)
    {
        Ptr<RdmaNetDevice> d = m_devs[v / 8];
        const uint8_t p = v % 8;
        Ptr<RdmaNetDevice> peer = d->GetRdmaChannel() ? d->GetRdmaChannel()->GetPeer(d) : nullptr;
        Ptr<RdmaSwitch> sw = peer ? peer->GetNode()->GetObject<RdmaSwitch>() : nullptr;
        std::ostringstream os;
        if (!sw)
        {
            os << "paused by a host";
            cause[v] = os.str();
            continue;
        }
        const uint32_t in = peer->GetPortIndex();
        const bool inPaused = in < sw->GetNPorts() && sw->GetMmu()->IsPaused(in, p);
        os << "by " << NodeLabel(peer->GetNode()) << " ingress port " << in << " ("
           << sw->GetMmu()->GetIngressBytes(in, p) << " B buffered"
           << (inPaused ? "" : ", pause expiring") << ")";
        for (uint32_t z = 0; z < sw->GetNPorts(); ++z)
        {
            if (z == in)
            {
                continue; // shortest-path routes never send a frame back where it came from
            }
            Ptr<RdmaNetDevice> out = sw->GetPort(z);
            auto it = devIndex.find(PeekPointer(out));
            for (uint8_t q = 0; q < 8 && it != devIndex.end(); ++q)
            {
                if (sw->GetMmu()->GetEgressBytes(z, q) > 0 && out->IsPaused(q))
                {
                    edges[v].push_back(it->second * 8 + q);
                }
            }
        }
        cause[v] = os.str();
    }
    std::ostringstream os;
    os << "PFC: " << paused.size() << " paused (port, priority):\n";
    uint32_t listed = 0;
    for (uint32_t v : paused)
    {
        if (++listed > m_maxLines)
        {
            os << "    ... and " << (paused.size() - m_maxLines) << " more\n";
            break;
        }
        const Time since = m_pauseSince.empty() ? Time(-1) : m_pauseSince[v];
        os << "    " << label(v);
        if (!since.IsNegative())
        {
            os << " paused since " << since.GetNanoSeconds() << " ns";
        }
        os << " " << cause[v];
        auto e = edges.find(v);
        if (e != edges.end() && !e->second.empty())
        {
            os << "; waits on " << e->second.size() << " paused egress";
        }
        os << "\n";
    }
    // cycle search (iterative DFS, colours: 0 new, 1 on stack, 2 done)
    std::map<uint32_t, uint8_t> colour;
    std::vector<uint32_t> found;
    for (uint32_t root : paused)
    {
        if (colour[root] != 0 || !found.empty())
        {
            continue;
        }
        std::vector<std::pair<uint32_t, size_t>> stack{{root, 0}};
        colour[root] = 1;
        while (!stack.empty() && found.empty())
        {
            auto& top = stack.back();
            const auto& out = edges[top.first];
            if (top.second < out.size())
            {
                uint32_t w = out[top.second++];
                if (colour[w] == 1)
                {
                    // cycle: from w's position on the stack to the top
                    size_t k = 0;
                    while (stack[k].first != w)
                    {
                        ++k;
                    }
                    for (; k < stack.size(); ++k)
                    {
                        found.push_back(stack[k].first);
                    }
                }
                else if (colour[w] == 0)
                {
                    colour[w] = 1;
                    stack.emplace_back(w, 0);
                }
            }
            else
            {
                colour[top.first] = 2;
                stack.pop_back();
            }
        }
    }
    if (!found.empty())
    {
        if (cycle)
        {
            *cycle = true;
        }
        os << "PFC deadlock: pause cycle of " << found.size()
           << " (port, priority) pairs (cyclic buffer dependency):\n";
        for (uint32_t v : found)
        {
            os << "    " << label(v) << "\n      -> waits on\n";
        }
        os << "    " << label(found.front()) << "\n";
    }
    else
    {
        // the longest pause chain from a paused port
        std::vector<uint32_t> best;
        for (uint32_t root : paused)
        {
            std::vector<uint32_t> chain{root};
            while (chain.size() <= paused.size())
            {
                auto e = edges.find(chain.back());
                if (e == edges.end() || e->second.empty())
                {
                    break;
                }
                chain.push_back(e->second.front());
            }
            if (chain.size() > best.size())
            {
                best = chain;
            }
        }
        os << "PFC pause chain (no cycle):";
        for (size_t i = 0; i < best.size(); ++i)
        {
            os << (i ? "\n      -> waits on " : " ") << label(best[i]);
        }
        os << "\n";
    }
    return os.str();
}

void
AstraRunMonitor::ReportHang()
{
    m_hung = true;
    std::ostringstream os;
    os << "hang: no progress for " << (Simulator::Now() - m_lastChange).GetNanoSeconds()
       << " ns of simulated time (HangTimeout " << m_hangTimeout.GetNanoSeconds() << " ns) at "
       << Simulator::Now().GetNanoSeconds() << " ns with " << (m_apps.size() - m_finished) << " of "
       << m_apps.size() << " NPUs unfinished and " << m_backend->GetPendingMessages()
       << " message(s) in flight\n";
    os << DescribeFirstStuck();
    os << DescribeWaits();
    if (m_roce)
    {
        std::string f = m_roce->DescribeInFlight(m_maxLines);
        if (!f.empty())
        {
            os << "RoCE messages in flight:\n" << f;
        }
    }
    os << DescribePfc();
    os << DescribeLosslessDrops();
    m_report = os.str();
    NS_LOG_INFO(m_report);
    m_hangTrace(m_report);
}

} // namespace astra
} // namespace ns3
