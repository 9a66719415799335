/*
 * MemoryReport (memory-report.h).
 */

#include "memory-report.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace astra
{

MemoryReport::MemoryReport(Ptr<FabricMemoryModel> model, Time end)
    : m_model(model),
      m_end(end.IsStrictlyPositive() ? end : Simulator::Now())
{
}

double
MemoryReport::Percentile(std::vector<int64_t> v, double p)
{
    if (v.empty())
    {
        return 0;
    }
    const double rank = std::ceil(p / 100.0 * double(v.size()));
    const size_t k = static_cast<size_t>(std::max(1.0, std::min(double(v.size()), rank))) - 1;
    std::nth_element(v.begin(), v.begin() + k, v.end());
    return double(v[k]);
}

std::vector<MemoryReport::Row>
MemoryReport::GetRows() const
{
    std::vector<Row> rows;
    if (!m_model || !m_model->GetTopology())
    {
        return rows;
    }
    const Topology& topo = *m_model->GetTopology();
    const double t = double(m_end.GetPicoSeconds()) / 1000.0; // ns
    std::vector<uint32_t> users(topo.GetNodeCount(), 0);
    for (uint32_t n = 0; n < topo.GetNpuCount(); ++n)
    {
        for (uint32_t m : topo.GetNpuMemory(n))
        {
            ++users[m];
        }
    }
    const auto& stats = m_model->GetNodeStats();
    const auto& series = m_model->GetUtilisationSeries();
    for (size_t i = 0; i < stats.size(); ++i)
    {
        const MemoryNodeStats& s = stats[i];
        Row r;
        r.node = s.node;
        if (!topo.GetNodeLinks(s.node).empty())
        {
            const TopoLink& l = topo.GetLinks()[topo.GetNodeLinks(s.node).front()];
            const uint32_t peer = l.a == s.node ? l.b : l.a;
            r.attach =
                std::string(topo.GetNodeKind(peer) == TopoNodeKind::NPU ? "NPU " : "switch ") +
                std::to_string(peer);
            const double cap = l.bytesPerNs;
            r.linkUtil =
                t > 0 && cap > 0 ? m_model->GetTransport()->GetLinkBytes(s.node) / (cap * t) : 0;
        }
        r.npus = users[s.node];
        r.bytesRead = s.bytesRead;
        r.bytesWritten = s.bytesWritten;
        r.requests = s.requests;
        r.p50Ns = Percentile(s.latencyNs, 50);
        r.p99Ns = Percentile(s.latencyNs, 99);
        Ptr<MemoryDevice> d = m_model->GetTransport()->GetDevice(s.node);
        r.deviceUtil = d && t > 0 ? double(d->GetBusyTime().GetPicoSeconds()) / 1000.0 / t : 0;
        if (i < series.size() && !series[i].empty())
        {
            r.peakLinkUtil = *std::max_element(series[i].begin(), series[i].end());
        }
        rows.push_back(r);
    }
    return rows;
}

void
MemoryReport::Print(std::ostream& os) const
{
    const auto rows = GetRows();
    if (rows.empty())
    {
        return;
    }
    std::ostringstream o;
    o << "memory nodes (" << m_model->GetName() << "): " << rows.size() << ", "
      << m_model->GetMessages() << " messages of up to " << m_model->GetMessageSize() << " bytes, "
      << m_model->GetOutstanding() << " outstanding per NPU\n";
    o << std::left << std::setw(7) << "node" << std::setw(13) << "attach" << std::right
      << std::setw(6) << "NPUs" << std::setw(15) << "read B" << std::setw(15) << "written B"
      << std::setw(10) << "requests" << std::setw(12) << "p50 (ns)" << std::setw(12) << "p99 (ns)"
      << std::setw(9) << "device" << std::setw(9) << "link"
      << "  (utilisation over the run)\n";
    o << std::fixed;
    for (const Row& r : rows)
    {
        o << std::left << std::setw(7) << r.node << std::setw(13) << r.attach << std::right
          << std::setw(6) << r.npus << std::setw(15) << r.bytesRead << std::setw(15)
          << r.bytesWritten << std::setw(10) << r.requests << std::setw(12) << std::setprecision(0)
          << r.p50Ns << std::setw(12) << r.p99Ns << std::setw(8) << std::setprecision(1)
          << 100 * r.deviceUtil << "%" << std::setw(8) << 100 * r.linkUtil << "%\n";
    }
    os << o.str();
}

void
MemoryReport::WriteCsv(const std::string& path) const
{
    std::ofstream f(path);
    if (!f)
    {
        throw std::runtime_error("cannot write '" + path + "'");
    }
    f << "node,attach,npus,bytes_read,bytes_written,requests,p50_ns,p99_ns,device_util,link_util,"
         "peak_link_util\n";
    for (const Row& r : GetRows())
    {
        f << r.node << ",\"" << r.attach << "\"," << r.npus << "," << r.bytesRead << ","
          << r.bytesWritten << "," << r.requests << "," << r.p50Ns << "," << r.p99Ns << ","
          << r.deviceUtil << "," << r.linkUtil << "," << r.peakLinkUtil << "\n";
    }
}

bool
MemoryReport::WriteUtilisationCsv(const std::string& path) const
{
    const auto& times = m_model->GetSampleTimes();
    if (times.empty())
    {
        return false;
    }
    std::ofstream f(path);
    if (!f)
    {
        throw std::runtime_error("cannot write '" + path + "'");
    }
    const auto& stats = m_model->GetNodeStats();
    const auto& series = m_model->GetUtilisationSeries();
    f << "time_us";
    for (const auto& s : stats)
    {
        f << ",mem" << s.node;
    }
    f << "\n";
    for (size_t k = 0; k < times.size(); ++k)
    {
        char ts[32];
        std::snprintf(ts, sizeof(ts), "%.3f", times[k].GetPicoSeconds() / 1e6);
        f << ts;
        for (size_t i = 0; i < series.size(); ++i)
        {
            f << "," << (k < series[i].size() ? series[i][k] : 0.0);
        }
        f << "\n";
    }
    return true;
}

std::string
MemoryReport::ChromeTraceEvents(uint32_t pidBase) const
{
    const auto& times = m_model->GetSampleTimes();
    const auto& stats = m_model->GetNodeStats();
    const auto& series = m_model->GetUtilisationSeries();
    if (times.empty())
    {
        return "";
    }
    std::ostringstream o;
    bool first = true;
    for (size_t i = 0; i < stats.size(); ++i)
    {
        const uint32_t pid = pidBase + uint32_t(i);
        o << (first ? "" : ",\n") << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << pid
          << ",\"args\":{\"name\":\"memory node " << stats[i].node << "\"}}";
        first = false;
        for (size_t k = 0; k < times.size() && k < series[i].size(); ++k)
        {
            char ts[32];
            std::snprintf(ts, sizeof(ts), "%.3f", times[k].GetPicoSeconds() / 1e6);
            o << ",\n{\"name\":\"link utilisation %\",\"ph\":\"C\",\"pid\":" << pid
              << ",\"ts\":" << ts << ",\"args\":{\"util\":" << std::setprecision(4)
              << 100 * series[i][k] << "}}";
        }
    }
    return o.str();
}

double
MemoryReport::CollectiveSlowdown(const std::vector<CollectiveRecord>& with,
                                 const std::vector<CollectiveRecord>& without,
                                 uint32_t* matched)
{
    double a = 0;
    double b = 0;
    uint32_t n = 0;
    for (size_t i = 0; i < with.size() && i < without.size(); ++i)
    {
        const CollectiveRecord& x = with[i];
        const CollectiveRecord& y = without[i];
        if (x.name != y.name || x.type != y.type || x.finished == 0 || y.finished == 0 ||
            x.finished != x.members || y.finished != y.members)
        {
            continue;
        }
        a += double((x.end - x.start).GetPicoSeconds());
        b += double((y.end - y.start).GetPicoSeconds());
        ++n;
    }
    if (matched)
    {
        *matched = n;
    }
    return n > 0 && b > 0 ? a / b : 0;
}

} // namespace astra
} // namespace ns3
