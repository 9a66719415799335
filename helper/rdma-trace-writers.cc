#include "rdma-trace-writers.h"

#include "ns3/abort.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-forwarding-table.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-node-info.h"
#include "ns3/rdma-switch.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/window-simulator-impl.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaTraceWriters");

namespace
{
/// Port i of a node (host stack, switch or the helper's node info).
Ptr<RdmaNetDevice>
NodePort(Ptr<Node> node, uint32_t i)
{
    if (Ptr<RdmaNodeInfo> info = node->GetObject<RdmaNodeInfo>())
    {
        return i < info->GetNPorts() ? info->GetPort(i) : nullptr;
    }
    if (Ptr<RdmaSwitch> sw = node->GetObject<RdmaSwitch>())
    {
        return i < sw->GetNPorts() ? sw->GetPort(i) : nullptr;
    }
    if (Ptr<RdmaHostStack> hs = node->GetObject<RdmaHostStack>())
    {
        return hs->GetPort(i);
    }
    return nullptr;
}

void
OpenOrDie(std::ofstream& out, const std::string& name, const char* header)
{
    if (name.empty())
    {
        return;
    }
    out.open(name, std::ios::out | std::ios::trunc);
    if (!out)
    {
        throw astra::InputError("cannot open output file '" + name + "'");
    }
    out << header << '\n';
}
} // namespace

// ------------------------------------------------------------------ RdmaTraceFile

RdmaTraceFile::RdmaTraceFile(const std::string& fileName,
                             const char* header,
                             uint64_t maxBytes,
                             bool fct)
    : m_maxBytes(maxBytes),
      m_fct(fct)
{
    OpenOrDie(m_out, fileName, header);
}

RdmaTraceFile::~RdmaTraceFile()
{
    Close();
}

bool
RdmaTraceFile::IsWriting() const
{
    return m_out.is_open() && !m_truncated;
}

void
RdmaTraceFile::LineKey(const std::string& line, bool fct, std::vector<long long>& key)
{
    key.clear();
    const char* p = line.c_str();
    while (*p)
    {
        char* end = nullptr;
        const long long v = std::strtoll(p, &end, 10);
        if (end == p || (*end != ' ' && *end != '\n' && *end != '\0'))
        {
            break;
        }
        key.push_back(v);
        p = end;
        while (*p == ' ')
        {
            ++p;
        }
    }
    if (fct && key.size() >= 7)
    {
        key.insert(key.begin(), key[5] + key[6]);
    }
}

void
RdmaTraceFile::Add(int64_t timeNs, const char* line, int n)
{
    if (!IsWriting())
    {
        return;
    }
    if (const astra::WindowSimulatorImpl* w = astra::WindowSimulatorImpl::GetActive())
    {
        // groups of nodes run a window each in turn: times come back; what is before the
        // time every group has reached is final
        m_window = true;
        const int64_t safe = TimeStep(static_cast<int64_t>(w->GetSafeTs())).GetNanoSeconds();
        if (safe > m_safeNs)
        {
            m_safeNs = safe;
            FlushBefore(safe);
        }
    }
    else if (timeNs != m_time)
    {
        Flush();
        m_time = timeNs;
    }
    if (m_used == m_pending.size())
    {
        m_pending.emplace_back();
    }
    Pending& l = m_pending[m_used++];
    l.text.assign(line, size_t(n));
    l.time = timeNs;
    LineKey(l.text, m_fct, l.key);
}

bool
RdmaTraceFile::WriteLine(const std::string& text, int64_t timeNs)
{
    if (m_maxBytes != 0 && m_written >= m_maxBytes)
    {
        m_truncated = true;
        m_out << "# truncated: size cap of " << m_maxBytes << " bytes reached at " << timeNs
              << " ns\n";
        return false;
    }
    m_out.write(text.data(), std::streamsize(text.size()));
    m_written += text.size();
    return true;
}

void
RdmaTraceFile::FlushBefore(int64_t limitNs)
{
    std::vector<Pending*> order;
    for (size_t i = 0; i < m_used; ++i)
    {
        if (m_pending[i].time < limitNs)
        {
            order.push_back(&m_pending[i]);
        }
    }
    if (order.empty())
    {
        return;
    }
    std::stable_sort(order.begin(), order.end(), [](const Pending* a, const Pending* b) {
        if (a->time != b->time)
        {
            return a->time < b->time;
        }
        return a->key < b->key || (a->key == b->key && a->text < b->text);
    });
    for (const Pending* l : order)
    {
        if (!m_truncated && !WriteLine(l->text, l->time))
        {
            break;
        }
    }
    // keep the later lines, in their order
    size_t kept = 0;
    for (size_t i = 0; i < m_used; ++i)
    {
        if (m_pending[i].time >= limitNs)
        {
            if (kept != i)
            {
                std::swap(m_pending[kept], m_pending[i]);
            }
            ++kept;
        }
    }
    m_used = m_truncated ? 0 : kept;
}

void
RdmaTraceFile::Flush()
{
    if (m_used == 0)
    {
        return;
    }
    std::vector<const Pending*> order;
    order.reserve(m_used);
    for (size_t i = 0; i < m_used; ++i)
    {
        order.push_back(&m_pending[i]);
    }
    std::stable_sort(order.begin(), order.end(), [](const Pending* a, const Pending* b) {
        return a->key < b->key || (a->key == b->key && a->text < b->text);
    });
    for (const Pending* l : order)
    {
        if (!WriteLine(l->text, m_time))
        {
            break;
        }
    }
    m_used = 0;
}

void
RdmaTraceFile::Close()
{
    if (m_out.is_open())
    {
        if (m_window)
        {
            FlushBefore(std::numeric_limits<int64_t>::max());
        }
        else
        {
            Flush();
        }
        m_out.close();
    }
}

// ------------------------------------------------------------------ RdmaPathModel

Ptr<Node>
RdmaPathModel::FindHostNode(uint32_t hostIndex)
{
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        Ptr<RdmaNodeInfo> ni = (*it)->GetObject<RdmaNodeInfo>();
        if (ni && ni->IsHost() && ni->GetHostIndex() == hostIndex)
        {
            return *it;
        }
    }
    return nullptr;
}

RdmaPathInfo
RdmaPathModel::GetPath(Ptr<const RdmaHostDirectory> hosts,
                       uint32_t src,
                       uint32_t dst,
                       uint16_t sport)
{
    RdmaPathInfo p;
    if (!hosts)
    {
        return p;
    }
    Ptr<RdmaHostStack> s = hosts->Find(src);
    Ptr<Node> node = s ? s->GetObject<Node>() : FindHostNode(src);
    if (!node)
    {
        return p;
    }
    RdmaMeta probe;
    probe.srcIp = s ? s->GetIpv4().Get() : RdmaAddressing::HostIndexToIp(src);
    probe.dstIp = RdmaAddressing::HostIndexToIp(dst);
    Ptr<RdmaHostStack> d = hosts->Find(dst);
    if (d)
    {
        probe.dstIp = d->GetIpv4().Get();
    }
    probe.sport = sport;
    probe.dport = RoceHeader::kRoceUdpPort;
    uint64_t minRate = ~uint64_t(0);
    for (uint32_t hop = 0; node && hop < 64; ++hop)
    {
        uint32_t port = 0;
        Ptr<RdmaForwardingTable> table = node->GetObject<RdmaForwardingTable>();
        if (table && table->GetPorts(dst).size() > 0)
        {
            port = table->SelectPort(probe);
        }
        Ptr<RdmaNetDevice> dev = NodePort(node, port);
        if (!dev || !dev->GetRdmaChannel())
        {
            return p;
        }
        Ptr<RdmaNetDevice> peer = dev->GetRdmaChannel()->GetPeer(dev);
        if (!peer)
        {
            return p;
        }
        ++p.hops;
        p.propagation += dev->GetRdmaChannel()->GetDelay();
        minRate = std::min(minRate, dev->GetDataRate().GetBitRate());
        node = peer->GetNode();
        // the destination host (a ghost of another rank in a distributed run has no stack)
        Ptr<RdmaNodeInfo> ni = node ? node->GetObject<RdmaNodeInfo>() : nullptr;
        if (ni && ni->IsHost() && ni->GetHostIndex() == dst)
        {
            p.bottleneckBps = minRate;
            p.valid = true;
            return p;
        }
    }
    return p;
}

uint64_t
RdmaPathModel::MessageWireBytes(uint64_t bytes, uint32_t mtu)
{
    uint64_t n = bytes == 0 ? 1 : (bytes + mtu - 1) / mtu;
    // every packet: middle-packet overhead; first also carries a RETH
    uint64_t perPkt = RdmaHostStack::DataWireBytes(0, false);
    uint64_t extraFirst = RdmaHostStack::DataWireBytes(0, true) - perPkt;
    return bytes + n * perPkt + extraFirst;
}

uint64_t
RdmaPathModel::IdealFctNs(uint64_t bytes, uint32_t mtu, const RdmaPathInfo& path)
{
    if (!path.valid || path.bottleneckBps == 0)
    {
        return 0;
    }
    const double rate = double(path.bottleneckBps);
    const uint64_t firstPayload = std::min<uint64_t>(bytes, mtu);
    const double firstTx =
        double(RdmaHostStack::DataWireBytes(uint32_t(firstPayload), true)) * 8.0 / rate;
    const double all = double(MessageWireBytes(bytes, mtu)) * 8.0 / rate;
    double s = path.propagation.GetSeconds() + double(path.hops - 1) * firstTx + all;
    return uint64_t(std::llround(s * 1e9));
}

// ------------------------------------------------------------------ RdmaFctWriter

RdmaFctWriter::RdmaFctWriter(const std::string& fileName, uint64_t maxBytes)
    : m_file(fileName, "# src dst sport dport size start_ns fct_ns ideal_fct_ns", maxBytes, true)
{
}

RdmaFctWriter::~RdmaFctWriter()
{
    Close();
}

void
RdmaFctWriter::Install(NodeContainer hosts)
{
    for (auto it = hosts.Begin(); it != hosts.End(); ++it)
    {
        Ptr<RdmaHostStack> s = (*it)->GetObject<RdmaHostStack>();
        NS_ABORT_MSG_IF(!s, "RdmaFctWriter: node " << (*it)->GetId() << " has no RdmaHostStack");
        s->TraceConnectWithoutContext("RxMessageComplete",
                                      MakeCallback(&RdmaFctWriter::Record, this));
        if (!m_hosts)
        {
            m_hosts = s->GetDirectory();
        }
    }
}

void
RdmaFctWriter::Record(const RdmaMessageInfo& info)
{
    struct Record r;
    r.info = info;
    // the data source and sink (a READ's data flows from the responder to the requester)
    const bool read = info.kind == RdmaMsgKind::READ;
    const uint32_t from = read ? info.dstHost : info.srcHost;
    const uint32_t to = read ? info.srcHost : info.dstHost;
    uint64_t key = (uint64_t(from) << 40) ^ (uint64_t(to) << 16) ^ info.sport;
    auto it = m_pathCache.find(key);
    if (it == m_pathCache.end())
    {
        it = m_pathCache.emplace(key, RdmaPathModel::GetPath(m_hosts, from, to, info.sport)).first;
    }
    Ptr<RdmaHostStack> s = m_hosts ? m_hosts->Find(info.srcHost) : nullptr;
    if (!s && m_hosts)
    {
        s = m_hosts->Find(info.dstHost); // the source is on another rank
    }
    uint32_t mtu = s ? s->GetMtu() : 1000;
    r.idealNs = RdmaPathModel::IdealFctNs(info.bytes, mtu, it->second);
    m_records.push_back(r);
    if (m_file.IsWriting())
    {
        char buf[160];
        const int n = std::snprintf(buf,
                                    sizeof(buf),
                                    "%u %u %u %u %llu %lld %lld %llu\n",
                                    from,
                                    to,
                                    unsigned(info.sport),
                                    unsigned(info.dport),
                                    (unsigned long long)info.bytes,
                                    (long long)info.start.GetNanoSeconds(),
                                    (long long)(info.end - info.start).GetNanoSeconds(),
                                    (unsigned long long)r.idealNs);
        m_file.Add(Simulator::Now().GetNanoSeconds(), buf, n);
    }
}

void
RdmaFctWriter::Close()
{
    m_file.Close();
}

const std::vector<struct RdmaFctWriter::Record>&
RdmaFctWriter::GetRecords() const
{
    return m_records;
}

double
RdmaFctWriter::GetSlowdownPercentile(double q) const
{
    std::vector<double> s;
    s.reserve(m_records.size());
    for (const auto& r : m_records)
    {
        if (r.idealNs > 0)
        {
            s.push_back(double((r.info.end - r.info.start).GetNanoSeconds()) / double(r.idealNs));
        }
    }
    std::sort(s.begin(), s.end());
    return Percentile(s, q);
}

double
RdmaFctWriter::Percentile(const std::vector<double>& sorted, double q)
{
    if (sorted.empty())
    {
        return 0.0;
    }
    size_t idx = size_t(std::ceil(q * double(sorted.size())));
    idx = idx == 0 ? 0 : idx - 1;
    return sorted[std::min(idx, sorted.size() - 1)];
}

// ------------------------------------------------------------------ RdmaPfcWriter

RdmaPfcWriter::RdmaPfcWriter(const std::string& fileName, uint64_t maxBytes)
    : m_file(fileName, "# time_ns node port priority event", maxBytes)
{
}

RdmaPfcWriter::~RdmaPfcWriter()
{
    Close();
}

void
RdmaPfcWriter::Install(NodeContainer switches)
{
    for (auto it = switches.Begin(); it != switches.End(); ++it)
    {
        Ptr<RdmaSwitch> sw = (*it)->GetObject<RdmaSwitch>();
        NS_ABORT_MSG_IF(!sw, "RdmaPfcWriter: node " << (*it)->GetId() << " has no RdmaSwitch");
        sw->TraceConnectWithoutContext("PfcPause", MakeCallback(&RdmaPfcWriter::OnPause, this));
        sw->TraceConnectWithoutContext("PfcResume", MakeCallback(&RdmaPfcWriter::OnResume, this));
    }
}

void
RdmaPfcWriter::OnPause(uint32_t node, uint32_t port, uint8_t prio)
{
    ++m_pauses;
    Write(node, port, prio, "pause");
}

void
RdmaPfcWriter::OnResume(uint32_t node, uint32_t port, uint8_t prio)
{
    ++m_resumes;
    Write(node, port, prio, "resume");
}

void
RdmaPfcWriter::Write(uint32_t node, uint32_t port, uint8_t prio, const char* what)
{
    if (!m_file.IsWriting())
    {
        return;
    }
    char buf[96];
    int n = std::snprintf(buf,
                          sizeof(buf),
                          "%lld %u %u %u %s\n",
                          (long long)Simulator::Now().GetNanoSeconds(),
                          node,
                          port,
                          unsigned(prio),
                          what);
    m_file.Add(Simulator::Now().GetNanoSeconds(), buf, n);
}

uint64_t
RdmaPfcWriter::GetPauses() const
{
    return m_pauses;
}

uint64_t
RdmaPfcWriter::GetResumes() const
{
    return m_resumes;
}

void
RdmaPfcWriter::Close()
{
    m_file.Close();
}

// --------------------------------------------------------------- RdmaQueueSampler

RdmaQueueSampler::RdmaQueueSampler(const std::string& fileName, Time interval, uint64_t maxBytes)
    : m_file(interval.IsStrictlyPositive() ? fileName : std::string(),
             "# time_ns node port priority bytes",
             maxBytes),
      m_interval(interval)
{
    if (!interval.IsStrictlyPositive())
    {
        std::ostringstream os;
        os << "RdmaQueueSampler: the sampling interval must be > 0, got " << interval.As(Time::NS);
        throw astra::InputError(os.str());
    }
}

RdmaQueueSampler::~RdmaQueueSampler()
{
    m_event.Cancel();
    Close();
}

void
RdmaQueueSampler::Install(NodeContainer switches, Time start, Time stop)
{
    for (auto it = switches.Begin(); it != switches.End(); ++it)
    {
        Ptr<RdmaSwitch> sw = (*it)->GetObject<RdmaSwitch>();
        NS_ABORT_MSG_IF(!sw, "RdmaQueueSampler: node " << (*it)->GetId() << " has no RdmaSwitch");
        m_firstSlot.push_back(uint32_t(m_slots.size()));
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            for (uint8_t q = 0; q < 8; ++q)
            {
                Slot s;
                s.sw = sw;
                s.node = (*it)->GetId();
                s.port = p;
                s.prio = q;
                m_slots.push_back(s);
            }
        }
    }
    m_stop = stop;
    m_event = Simulator::Schedule(start, &RdmaQueueSampler::Sample, this);
}

void
RdmaQueueSampler::Sample()
{
    const long long now = (long long)Simulator::Now().GetNanoSeconds();
    for (Slot& s : m_slots)
    {
        uint64_t b = s.sw->GetPort(s.port)->GetQueueBytes(s.prio);
        s.sum += double(b);
        ++s.n;
        m_max = std::max(m_max, b);
        if (b == s.last)
        {
            continue;
        }
        s.last = b;
        if (!m_file.IsWriting())
        {
            continue;
        }
        char buf[96];
        int n = std::snprintf(buf,
                              sizeof(buf),
                              "%lld %u %u %u %llu\n",
                              now,
                              s.node,
                              s.port,
                              unsigned(s.prio),
                              (unsigned long long)b);
        m_file.Add(now, buf, n);
    }
    if (Simulator::Now() + m_interval <= m_stop)
    {
        m_event = Simulator::Schedule(m_interval, &RdmaQueueSampler::Sample, this);
    }
}

uint64_t
RdmaQueueSampler::GetMaxSampledBytes() const
{
    return m_max;
}

double
RdmaQueueSampler::GetAverage(uint32_t sw, uint32_t port, uint8_t prio) const
{
    NS_ABORT_MSG_IF(sw >= m_firstSlot.size(), "RdmaQueueSampler: no switch " << sw);
    size_t i = m_firstSlot[sw] + size_t(port) * 8 + prio;
    NS_ABORT_MSG_IF(i >= m_slots.size() || m_slots[i].port != port,
                    "RdmaQueueSampler: no port " << port << " on switch " << sw);
    return m_slots[i].n ? m_slots[i].sum / double(m_slots[i].n) : 0.0;
}

void
RdmaQueueSampler::Close()
{
    m_file.Close();
}

// ------------------------------------------------------------------ RdmaRateWriter

RdmaRateWriter::RdmaRateWriter(const std::string& fileName, uint64_t maxBytes)
    : m_file(fileName, "# time_ns host qpn rate_bps", maxBytes)
{
}

RdmaRateWriter::~RdmaRateWriter()
{
    Close();
}

void
RdmaRateWriter::Install(NodeContainer hosts)
{
    for (auto it = hosts.Begin(); it != hosts.End(); ++it)
    {
        Ptr<RdmaHostStack> s = (*it)->GetObject<RdmaHostStack>();
        NS_ABORT_MSG_IF(!s, "RdmaRateWriter: node " << (*it)->GetId() << " has no RdmaHostStack");
        s->TraceConnectWithoutContext("QpRateChange", MakeCallback(&RdmaRateWriter::OnRate, this));
    }
}

void
RdmaRateWriter::OnRate(uint32_t host, uint32_t qpn, uint64_t, uint64_t newBps)
{
    ++m_changes;
    if (!m_file.IsWriting())
    {
        return;
    }
    char buf[96];
    int n = std::snprintf(buf,
                          sizeof(buf),
                          "%lld %u %u %llu\n",
                          (long long)Simulator::Now().GetNanoSeconds(),
                          host,
                          qpn,
                          (unsigned long long)newBps);
    m_file.Add(Simulator::Now().GetNanoSeconds(), buf, n);
}

uint64_t
RdmaRateWriter::GetChanges() const
{
    return m_changes;
}

void
RdmaRateWriter::Close()
{
    m_file.Close();
}

// ------------------------------------------------------------------ RdmaRunSummary

RdmaRunSummary
RdmaRunSummary::Collect(NodeContainer hosts, NodeContainer switches, const RdmaFctWriter* fct)
{
    RdmaRunSummary s;
    if (fct)
    {
        s.messages = fct->GetRecords().size();
        s.slowdownP50 = fct->GetSlowdownPercentile(0.50);
        s.slowdownP95 = fct->GetSlowdownPercentile(0.95);
        s.slowdownP99 = fct->GetSlowdownPercentile(0.99);
    }
    auto addDev = [&s](Ptr<RdmaNetDevice> d) {
        if (!d)
        {
            return;
        }
        for (uint8_t p = 0; p < 8; ++p)
        {
            s.totalPauseTime += d->GetPauseTime(p);
        }
        s.drops += d->GetDrops();
    };
    for (auto it = hosts.Begin(); it != hosts.End(); ++it)
    {
        Ptr<RdmaHostStack> hs = (*it)->GetObject<RdmaHostStack>();
        if (!hs)
        {
            continue;
        }
        const RdmaHostStats& st = hs->GetStats();
        s.cnps += st.cnpsSent;
        s.naks += st.naksSent;
        s.timeouts += st.timeouts;
        s.retxPkts += st.retxPkts;
        s.dataPkts += st.dataPktsSent;
        for (uint32_t i = 0; i < hs->GetNPorts(); ++i)
        {
            addDev(hs->GetPort(i));
        }
    }
    for (auto it = switches.Begin(); it != switches.End(); ++it)
    {
        Ptr<RdmaSwitch> sw = (*it)->GetObject<RdmaSwitch>();
        if (!sw)
        {
            continue;
        }
        s.drops += sw->GetDrops();
        s.losslessDrops += sw->GetLosslessDrops();
        s.ecnMarks += sw->GetEcnMarks();
        s.pauseFrames += sw->GetPausesSent();
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            s.maxQueueBytes = std::max(s.maxQueueBytes, sw->GetMaxQueueBytes(p));
            addDev(sw->GetPort(p));
        }
    }
    return s;
}

void
RdmaRunSummary::Print(std::ostream& os) const
{
    os << "=== RoCE fabric summary ===\n"
       << "messages completed      : " << messages << "\n"
       << std::fixed << std::setprecision(3) << "FCT slowdown p50/p95/p99: " << slowdownP50 << " / "
       << slowdownP95 << " / " << slowdownP99 << "\n"
       << "total PFC pause time    : " << totalPauseTime.GetMicroSeconds() << " us (" << pauseFrames
       << " pause frames sent by switches)\n"
       << "max egress queue        : " << maxQueueBytes << " B\n"
       << "drops (lossy/lossless)  : " << drops << " / " << losslessDrops << "\n"
       << "ECN marks               : " << ecnMarks << "\n"
       << "CNPs                    : " << cnps << "\n"
       << "NAKs / timeouts / retx  : " << naks << " / " << timeouts << " / " << retxPkts << "\n"
       << "data packets sent       : " << dataPkts << "\n";
    os.unsetf(std::ios::fixed);
}

} // namespace ns3
