#include "astra-report.h"

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace astra
{

AstraReport::AstraReport(Ptr<SystemContext> ctx, const std::vector<Ptr<AstraSimApplication>>& apps)
    : m_ctx(ctx),
      m_apps(apps)
{
}

void
AstraReport::PrintNpuLines(std::ostream& os) const
{
    for (const auto& a : m_apps)
    {
        if (!a->IsFinished())
        {
            continue;
        }
        const NpuStats& s = a->GetStats();
        int64_t fin = s.finish.GetNanoSeconds();
        os << "sys[" << a->GetNpuId() << "] finished, " << fin << " cycles, exposed communication "
           << (fin - s.compute.GetNanoSeconds()) << " cycles.\n";
    }
}

double
AstraReport::BusBwFactor(CollType t, uint32_t n)
{
    if (n <= 1)
    {
        return 1.0;
    }
    switch (t)
    {
    case CollType::ALL_REDUCE:
        return 2.0 * (n - 1) / n;
    case CollType::ALL_GATHER:
    case CollType::REDUCE_SCATTER:
    case CollType::REDUCE_SCATTER_BLOCK:
    case CollType::ALL_TO_ALL:
        return double(n - 1) / n;
    default:
        return 1.0;
    }
}

double
AstraReport::AlgBytes(const CollectiveRecord& r)
{
    return r.type == CollType::ALL_GATHER ? double(r.bytes) * r.members : double(r.bytes);
}

void
AstraReport::PrintSummary(std::ostream& os, size_t maxRows) const
{
    int64_t total = 0;
    uint32_t finished = 0;
    double comp = 0, comm = 0, mem = 0, idle = 0;
    for (const auto& a : m_apps)
    {
        const NpuStats& s = a->GetStats();
        if (a->IsFinished())
        {
            ++finished;
            total = std::max<int64_t>(total, s.finish.GetNanoSeconds());
        }
        comp += s.compute.GetNanoSeconds();
        comm += s.exposedComm.GetNanoSeconds();
        mem += s.memory.GetNanoSeconds();
        idle += s.idle.GetNanoSeconds();
    }
    size_t n = std::max<size_t>(1, m_apps.size());
    os << "=== astra-sim summary ===\n";
    os << "NPUs finished: " << finished << "/" << m_apps.size() << ", total time " << total
       << " ns (" << std::fixed << std::setprecision(3) << total / 1e3 << " us)\n";
    os << "mean per NPU: compute " << std::setprecision(0) << comp / n << " ns, exposed comm "
       << comm / n << " ns, memory " << mem / n << " ns, idle " << idle / n << " ns\n";
    const auto& recs = m_ctx->GetRecords();
    os << "collectives: " << recs.size() << "\n";
    if (recs.empty())
    {
        return;
    }
    os << std::left << std::setw(6) << "id" << std::setw(22) << "type" << std::setw(8) << "group"
       << std::setw(8) << "NPUs" << std::right << std::setw(14) << "bytes" << std::setw(14)
       << "time(ns)" << std::setw(12) << "algbw" << std::setw(12) << "busbw"
       << "  (GB/s, GB = 1e9 B)\n";
    for (size_t i = 0; i < recs.size() && i < maxRows; ++i)
    {
        const auto& r = recs[i];
        double t = r.finished ? (r.end - r.start).GetNanoSeconds() : 0;
        double alg = t > 0 ? AlgBytes(r) / t : 0;
        os << std::left << std::setw(6) << i << std::setw(22) << CollTypeName(r.type)
           << std::setw(8) << (r.group.empty() ? "all" : r.group) << std::setw(8) << r.members
           << std::right << std::setw(14) << r.bytes << std::setw(14) << std::setprecision(0) << t
           << std::setw(12) << std::setprecision(3) << alg << std::setw(12)
           << alg * BusBwFactor(r.type, r.members) << "\n";
    }
    if (recs.size() > maxRows)
    {
        os << "... " << recs.size() - maxRows << " more in the collectives CSV\n";
    }
}

namespace
{
std::ofstream
Open(const std::string& path)
{
    std::ofstream f(path);
    if (!f)
    {
        throw std::runtime_error("cannot write '" + path + "'");
    }
    return f;
}

std::string
Escape(const std::string& s)
{
    std::string o;
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            o += '\\';
            o += c;
        }
        else if (static_cast<unsigned char>(c) < 0x20)
        {
            o += ' ';
        }
        else
        {
            o += c;
        }
    }
    return o;
}
} // namespace

void
AstraReport::WriteNpuCsv(const std::string& path) const
{
    std::ofstream f = Open(path);
    f << "npu,finished,finish_ns,compute_ns,exposed_comm_ns,memory_ns,idle_ns,comm_busy_ns,nodes,"
         "collectives,p2p\n";
    for (const auto& a : m_apps)
    {
        const NpuStats& s = a->GetStats();
        f << a->GetNpuId() << "," << (a->IsFinished() ? 1 : 0) << "," << s.finish.GetNanoSeconds()
          << "," << s.compute.GetNanoSeconds() << "," << s.exposedComm.GetNanoSeconds() << ","
          << s.memory.GetNanoSeconds() << "," << s.idle.GetNanoSeconds() << ","
          << s.commBusy.GetNanoSeconds() << "," << s.nodes << "," << s.collectives << "," << s.p2p
          << "\n";
    }
}

void
AstraReport::WriteCollectiveCsv(const std::string& path) const
{
    std::ofstream f = Open(path);
    f << "id,name,type,group,placement,members,bytes,start_ns,end_ns,time_ns,algbw_GBps,"
         "busbw_GBps\n";
    const auto& recs = m_ctx->GetRecords();
    for (size_t i = 0; i < recs.size(); ++i)
    {
        const auto& r = recs[i];
        int64_t s = r.started ? r.start.GetNanoSeconds() : -1;
        int64_t e = r.finished ? r.end.GetNanoSeconds() : -1;
        double t = (s >= 0 && e >= 0) ? double(e - s) : 0;
        double alg = t > 0 ? AlgBytes(r) / t : 0;
        f << i << ",\"" << r.name << "\"," << CollTypeName(r.type) << ",\"" << r.group << "\",\""
          << r.placement << "\"," << r.members << "," << r.bytes << "," << s << "," << e << ","
          << int64_t(t) << "," << alg << "," << alg * BusBwFactor(r.type, r.members) << "\n";
    }
}

void
AstraReport::WriteChromeTrace(const std::string& path, const std::string& extraEvents) const
{
    std::ofstream f = Open(path);
    f << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    for (const auto& a : m_apps)
    {
        uint32_t pid = a->GetNpuId();
        f << (first ? "" : ",\n") << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << pid
          << ",\"args\":{\"name\":\"NPU " << pid << "\"}}";
        first = false;
        for (const auto& ev : a->GetTimeline())
        {
            // the node from the graph, or the labels a result holder imported
            const TimelineLabel n = a->LabelOf(ev.nodeId);
            uint32_t tid = ev.kind == NodeKind::COMP                                           ? 0
                           : (ev.kind == NodeKind::MEM_LOAD || ev.kind == NodeKind::MEM_STORE) ? 2
                                                                                               : 1;
            char ts[64], dur[64];
            std::snprintf(ts, sizeof(ts), "%.3f", ev.start.GetNanoSeconds() / 1e3);
            std::snprintf(dur, sizeof(dur), "%.3f", (ev.end - ev.start).GetNanoSeconds() / 1e3);
            f << ",\n{\"name\":\"" << Escape(n.name ? *n.name : std::to_string(ev.nodeId))
              << "\",\"cat\":\"" << NodeKindName(ev.kind) << "\",\"ph\":\"X\",\"pid\":" << pid
              << ",\"tid\":" << tid << ",\"ts\":" << ts << ",\"dur\":" << dur
              << ",\"args\":{\"id\":" << ev.nodeId;
            if (n.name && n.kind == NodeKind::COMM_COLL)
            {
                f << ",\"type\":\"" << CollTypeName(n.collType) << "\",\"bytes\":" << n.commSize
                  << ",\"group\":\"" << Escape(*n.pgName) << "\"";
            }
            f << "}}";
        }
    }
    if (!extraEvents.empty())
    {
        f << (first ? "" : ",\n") << extraEvents;
    }
    f << "\n]}\n";
}

} // namespace astra
} // namespace ns3
