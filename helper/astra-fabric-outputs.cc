/*
 * The files every RoCE run writes (astra-fabric-outputs.h).
 */

#include "astra-fabric-outputs.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-distributed.h"
#include "ns3/rdma-trace-writers.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>
#include <unistd.h>

namespace ns3
{
namespace astra
{

namespace
{

/// The series of a trace file to plot: the keys with the largest score, in key order.
/// \param scores key -> score \param n how many \return the keys
template <typename K>
std::vector<K>
TopKeys(const std::map<K, double>& scores, size_t n)
{
    std::vector<std::pair<double, K>> v;
    for (const auto& kv : scores)
    {
        v.emplace_back(-kv.second, kv.first);
    }
    std::sort(v.begin(), v.end());
    std::vector<K> keys;
    for (size_t i = 0; i < v.size() && i < n; ++i)
    {
        keys.push_back(v[i].second);
    }
    std::sort(keys.begin(), keys.end());
    return keys;
}

/// Data lines of a trace file (no '#' lines), as whitespace-separated numbers.
/// \param path the file \param fields numbers per line \param f called per line
template <typename F>
void
ForEachLine(const std::string& path, size_t fields, F f)
{
    std::ifstream in(path);
    std::string line;
    std::vector<double> v(fields);
    while (std::getline(in, line))
    {
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        std::istringstream ls(line);
        size_t i = 0;
        for (; i < fields && (ls >> v[i]); ++i)
        {
        }
        if (i == fields)
        {
            f(v);
        }
    }
}

/// The gnuplot preamble of one PNG.
std::string
Preamble(const std::string& png, const std::string& title, int height = 420)
{
    std::ostringstream g;
    g << "set terminal pngcairo size 800," << height << " font ',10'\n"
      << "set output '" << png << "'\n"
      << "set title '" << title << "'\n"
      << "set grid\n";
    return g.str();
}

} // namespace

AstraFabricOutputs::AstraFabricOutputs(const std::string& dir,
                                       NodeContainer hosts,
                                       NodeContainer forwarding,
                                       Time queueSample,
                                       Time stop,
                                       uint64_t maxBytes)
    : m_dir(dir),
      m_maxBytes(maxBytes)
{
    m_fct = std::make_unique<RdmaFctWriter>(dir + "/fct.txt", maxBytes);
    m_fct->Install(hosts);
    m_pfc = std::make_unique<RdmaPfcWriter>(dir + "/pfc.txt", maxBytes);
    m_pfc->Install(forwarding);
    m_queues = std::make_unique<RdmaQueueSampler>(dir + "/queue.txt", queueSample, maxBytes);
    m_queues->Install(forwarding, Seconds(0), stop);
    m_rates = std::make_unique<RdmaRateWriter>(dir + "/rate.txt", maxBytes);
    m_rates->Install(hosts);
}

AstraFabricOutputs::~AstraFabricOutputs() = default;

void
AstraFabricOutputs::Close()
{
    m_fct->Close();
    m_pfc->Close();
    m_queues->Close();
    m_rates->Close();
}

const RdmaFctWriter&
AstraFabricOutputs::GetFct() const
{
    return *m_fct;
}

std::vector<std::string>
AstraFabricOutputs::GetFileNames()
{
    return {"fct.txt", "pfc.txt", "queue.txt", "rate.txt"};
}

namespace
{

/// One line of a part of a trace file: its sort key and text.
struct PartLine
{
    std::vector<long long> key; //!< time, then the line's numbers
    std::string text;           //!< the line, without its newline
    bool truncated{false};      //!< the writer's "# truncated ... at T ns" line (key: T)
};

/// The lines of one part, after its header line.
/// \param part the file text \param fct an fct.txt part \param header receives the header line
std::vector<PartLine>
ParsePart(const std::string& part, bool fct, std::string& header)
{
    std::vector<PartLine> lines;
    std::istringstream in(part);
    std::string line;
    bool first = true;
    while (std::getline(in, line))
    {
        if (first)
        {
            first = false;
            if (!line.empty() && line[0] == '#')
            {
                header = line;
                continue;
            }
        }
        if (line.empty())
        {
            continue;
        }
        PartLine l;
        l.text = line;
        if (line[0] == '#')
        {
            // "# truncated: size cap of N bytes reached at T ns"
            const size_t at = line.rfind(" at ");
            if (line.compare(0, 11, "# truncated") != 0 || at == std::string::npos)
            {
                throw std::runtime_error("unexpected line in a rank's trace file: " + line);
            }
            l.truncated = true;
            l.key.push_back(std::atoll(line.c_str() + at + 4));
            lines.push_back(std::move(l));
            break;
        }
        // the writers' order within a time step (RdmaTraceFile)
        RdmaTraceFile::LineKey(line, fct, l.key);
        if (fct && l.key.size() < 8)
        {
            throw std::runtime_error("unexpected line in a rank's fct.txt: " + line);
        }
        lines.push_back(std::move(l));
    }
    return lines;
}

} // namespace

std::string
AstraFabricOutputs::MergeParts(const std::vector<std::string>& parts,
                               bool fct,
                               uint64_t maxBytes,
                               int64_t endNs)
{
    std::string header;
    std::vector<std::vector<PartLine>> lines;
    for (const auto& p : parts)
    {
        lines.push_back(ParsePart(p, fct, header));
    }
    std::string out = header.empty() ? std::string() : header + "\n";
    std::vector<size_t> next(lines.size(), 0);
    uint64_t written = 0;
    while (true)
    {
        // the earliest head; equal keys: by text, then the lower rank
        size_t best = lines.size();
        for (size_t r = 0; r < lines.size(); ++r)
        {
            if (next[r] == lines[r].size())
            {
                continue;
            }
            if (best == lines.size())
            {
                best = r;
                continue;
            }
            const PartLine& a = lines[r][next[r]];
            const PartLine& b = lines[best][next[best]];
            if (a.key < b.key || (a.key == b.key && a.text < b.text))
            {
                best = r;
            }
        }
        if (best == lines.size())
        {
            break;
        }
        const PartLine& l = lines[best][next[best]];
        if (endNs >= 0 && l.key[0] > endNs)
        {
            break; // the single process stopped at the end
        }
        if ((maxBytes != 0 && written >= maxBytes) || l.truncated)
        {
            // as the writers: the first line past the cap becomes the note (a rank's own
            // note comes only after its lines reach the cap, so after the merged ones do)
            out += "# truncated: size cap of " + std::to_string(maxBytes) + " bytes reached at " +
                   std::to_string(l.key[0]) + " ns\n";
            break;
        }
        out += l.text;
        out += '\n';
        written += l.text.size() + 1;
        ++next[best];
    }
    return out;
}

void
AstraFabricOutputs::GatherTo(const std::string& dir, int64_t endNs)
{
    for (const auto& name : GetFileNames())
    {
        const std::string path = m_dir + "/" + name;
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        in.close();
        std::remove(path.c_str());
        const std::vector<std::string> parts = Distributed::Gather(text.str());
        if (Distributed::GetRank() != 0)
        {
            continue;
        }
        const std::string merged = MergeParts(parts, name == "fct.txt", m_maxBytes, endNs);
        std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
        out << merged;
        if (!out)
        {
            throw InputError("cannot write output file '" + dir + "/" + name + "'");
        }
    }
    rmdir(m_dir.c_str());
    m_dir = dir;
}

uint32_t
AstraFabricOutputs::WritePlots(const std::vector<CollectiveRecord>& records, std::string& msg) const
{
    std::vector<std::string> scripts;
    std::string notes;

    // the busiest egress queues: the 6 (node, port, priority) of the largest sample
    using QKey = std::tuple<uint32_t, uint32_t, uint32_t>;
    std::map<QKey, double> peak;
    ForEachLine(m_dir + "/queue.txt", 5, [&](const std::vector<double>& v) {
        double& p = peak[QKey(uint32_t(v[1]), uint32_t(v[2]), uint32_t(v[3]))];
        p = std::max(p, v[4]);
    });
    const std::vector<QKey> queues = TopKeys(peak, 6);
    if (!queues.empty())
    {
        std::map<QKey, std::vector<std::pair<double, double>>> series;
        ForEachLine(m_dir + "/queue.txt", 5, [&](const std::vector<double>& v) {
            const QKey k{uint32_t(v[1]), uint32_t(v[2]), uint32_t(v[3])};
            if (std::binary_search(queues.begin(), queues.end(), k))
            {
                series[k].emplace_back(v[0] / 1000, v[4] / 1000);
            }
        });
        std::ofstream d(m_dir + "/queue.dat");
        d << "# time_us queue_KB, one block per (node, port, priority)\n";
        std::ofstream g(m_dir + "/queue.gp");
        g << "# the busiest egress queues (queue.txt)\n"
          << Preamble("queue.png", "Busiest egress queues")
          << "set xlabel 'time (us)'\nset ylabel 'queue (KB)'\nset key top right\nplot ";
        int i = 0;
        for (const auto& k : queues)
        {
            d << "# node " << std::get<0>(k) << " port " << std::get<1>(k) << " priority "
              << std::get<2>(k) << "\n";
            for (const auto& p : series[k])
            {
                d << p.first << " " << p.second << "\n";
            }
            d << "\n\n";
            g << (i ? ", \\\n     " : "") << "'queue.dat' index " << i
              << " using 1:2 with steps lw 2 title 'node " << std::get<0>(k) << " port "
              << std::get<1>(k) << " prio " << std::get<2>(k) << "'";
            ++i;
        }
        g << "\n";
        scripts.push_back("queue.gp");
    }
    else
    {
        notes += "no queue samples (queue.png not drawn); ";
    }

    // per-QP rates: the 8 QPs whose rate changed most often
    using RKey = std::pair<uint32_t, uint32_t>;
    std::map<RKey, double> changes;
    ForEachLine(m_dir + "/rate.txt", 4, [&](const std::vector<double>& v) {
        changes[RKey(uint32_t(v[1]), uint32_t(v[2]))] += 1;
    });
    const std::vector<RKey> qps = TopKeys(changes, 8);
    if (!qps.empty())
    {
        std::map<RKey, std::vector<std::pair<double, double>>> series;
        ForEachLine(m_dir + "/rate.txt", 4, [&](const std::vector<double>& v) {
            const RKey k{uint32_t(v[1]), uint32_t(v[2])};
            if (std::binary_search(qps.begin(), qps.end(), k))
            {
                series[k].emplace_back(v[0] / 1000, v[3] / 1e9);
            }
        });
        std::ofstream d(m_dir + "/rate.dat");
        d << "# time_us rate_Gbps, one block per QP (host, qpn)\n";
        std::ofstream g(m_dir + "/rate.gp");
        g << "# per-QP congestion-control rates (rate.txt)\n"
          << Preamble("rate.png", "Per-QP rates (the QPs that changed most)")
          << "set xlabel 'time (us)'\nset ylabel 'rate (Gbps)'\nset key top right\nplot ";
        int i = 0;
        for (const auto& k : qps)
        {
            d << "# host " << k.first << " qpn " << k.second << "\n";
            for (const auto& p : series[k])
            {
                d << p.first << " " << p.second << "\n";
            }
            d << "\n\n";
            g << (i ? ", \\\n     " : "") << "'rate.dat' index " << i
              << " using 1:2 with steps title 'host " << k.first << " qp " << k.second << "'";
            ++i;
        }
        g << "\n";
        scripts.push_back("rate.gp");
    }
    else
    {
        notes += "no rate changes (rate.png not drawn); ";
    }

    // the collective timeline: one bar per collective, first start to last end
    {
        std::ofstream d(m_dir + "/timeline.dat");
        d << "# id start_us end_us type name\n";
        uint32_t n = 0;
        for (size_t id = 0; id < records.size(); ++id)
        {
            const CollectiveRecord& r = records[id];
            if (r.finished == 0 || r.start == Time::Max())
            {
                continue;
            }
            d << id << " " << r.start.GetNanoSeconds() / 1000.0 << " "
              << r.end.GetNanoSeconds() / 1000.0 << " " << CollTypeName(r.type) << " "
              << (r.name.empty() ? std::string("-") : r.name) << "\n";
            ++n;
        }
        if (n > 0)
        {
            std::ofstream g(m_dir + "/timeline.gp");
            g << "# collective timeline (timeline.dat)\n"
              << Preamble("timeline.png", "Collective timeline") << "set xlabel 'time (us)'\n"
              << "set ylabel 'collective'\nset key off\n"
              << "plot 'timeline.dat' using 2:1:($3-$2):(0) with vectors nohead lw 3\n";
            scripts.push_back("timeline.gp");
        }
        else
        {
            notes += "no finished collective (timeline.png not drawn); ";
        }
    }

    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    {
        msg = notes + "gnuplot not found: the .gp scripts are in " + m_dir +
              " (install gnuplot-nox and run 'gnuplot FILE.gp' there)";
        return 0;
    }
    uint32_t pngs = 0;
    for (const auto& s : scripts)
    {
        const std::string cmd = "cd '" + m_dir + "' && gnuplot '" + s + "' 2>/dev/null";
        if (std::system(cmd.c_str()) == 0)
        {
            ++pngs;
        }
        else
        {
            notes += "gnuplot failed on " + s + "; ";
        }
    }
    msg = notes + std::to_string(pngs) + " PNG file(s) written to " + m_dir;
    return pngs;
}

} // namespace astra
} // namespace ns3
