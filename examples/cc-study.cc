/*
 * cc-study: congestion-control comparison on a collective workload over the
 * packet-level RoCE backend, with optional background traffic. For every
 * combination of --ccs x --pfc x --kmin x --kmax x --buffer it runs the
 * workload (ring all-reduce, 2-D hierarchical all-reduce, all-to-all or a
 * Chakra trace) while closed-loop background flows (incast or permutation)
 * run on the same hosts, then prints one comparison table (collective time,
 * busbw, background FCT slowdown p50/p99, total pause time, max queue, drops,
 * ECN marks, CNPs), writes results.csv and plots (PNG via gnuplot):
 * bottleneck queue over time of every run, per-QP rate over time and the
 * collective timeline of each run.
 *
 *   ./cc-study                                          # 5 CCs + none, PFC on/off, ring + incast
 *   ./cc-study --ccs=dcqcn,hpcc --pfc=1 --background=incast --outDir=study
 *   ./cc-study --ccs=dcqcn --kmin=20000,100000 --kmax=400000 --buffer=2000000,8000000
 *   ./cc-study --workload=a2a --background=none
 *   ./cc-study --workload=../shared/reference/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2
 *   ./cc-study --ccs=hpcc --bg-cc=dcqcn --bg-prio=1     # per-class CC: background on DCQCN
 *   ./cc-study --workload=none --npus=17 --bg-senders=16 --bg-bytes=1000000 # pure incast
 *   ./cc-study --ns3::RdmaCcHpcc::Eta=0.9                # any attribute
 *   ./cc-study --ccs=dcqcn,hpcc --in-switch=0,1           # ring vs in-network all-reduce
 */

#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/cc-study-helper.h"
#include "ns3/command-line.h"
#include "ns3/core-module.h"

#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::astra;

namespace
{

std::vector<std::string>
Split(const std::string& s)
{
    std::vector<std::string> out;
    std::istringstream is(s);
    std::string x;
    while (std::getline(is, x, ','))
    {
        if (!x.empty())
        {
            out.push_back(x);
        }
    }
    return out;
}

std::vector<uint64_t>
SplitU64(const std::string& s, const std::string& option)
{
    std::vector<uint64_t> out;
    for (const auto& x : Split(s))
    {
        size_t pos = 0;
        uint64_t v = 0;
        try
        {
            v = std::stoull(x, &pos);
        }
        catch (const std::exception&)
        {
            pos = 0;
        }
        if (pos != x.size() || pos == 0)
        {
            throw std::invalid_argument("--" + option + ": '" + x +
                                        "' is not a non-negative integer");
        }
        out.push_back(v);
    }
    if (out.empty())
    {
        throw std::invalid_argument("--" + option + " needs at least one value");
    }
    return out;
}

} // namespace

namespace
{

/// The program (run by main through RunMain: bad input ends in a message and status 1).
int
Run(int argc, char* argv[])
{
    CcStudy::SetDefaults();
    std::string ccs = "dcqcn,hpcc,timely,dctcp,swift,none";
    std::string pfcs = "1,0";
    std::string kmins = "100000";
    std::string kmaxs = "400000";
    std::string buffers = "2000000";
    double pmax = 0.2;
    CcStudyConfig base;
    base.workload = "ring";
    base.background = "incast";
    std::string outDir = "cc-study-out";
    bool plots = true;
    uint32_t bgPrio = base.bgPriority;
    double rateGbps = base.linkGbps;
    double latencyNs = base.linkLatencyNs;
    uint64_t queueSampleNs = 1000;
    std::string inSwitch = "0";

    AstraCommandLine cmd(__FILE__);
    cmd.AddValue("ccs", "comma-separated CCs: dcqcn,hpcc,timely,dctcp,swift,none", ccs);
    cmd.AddValue("pfc", "comma-separated PFC settings: 1 (lossless), 0 (drop-tail)", pfcs);
    cmd.AddValue("kmin", "comma-separated ECN Kmin values (bytes; DCTCP: K)", kmins);
    cmd.AddValue("kmax", "comma-separated ECN Kmax values (bytes)", kmaxs);
    cmd.AddValue("pmax", "ECN Pmax", pmax);
    cmd.AddValue("buffer", "comma-separated switch buffer sizes (bytes, 0 = MMU default)", buffers);
    cmd.AddValue(
        "workload",
        "ring | hier | a2a | Chakra prefix (PREFIX.<rank>.et) | none (background only, one "
        "message per source)",
        base.workload);
    cmd.AddValue("comm-groups",
                 "communicator groups JSON of a Chakra workload (default: PREFIX.json if present)",
                 base.commGroups);
    cmd.AddValue("bytes", "collective size (bytes) of ring / hier / a2a", base.collBytes);
    cmd.AddValue("splits", "chunks per collective (preferred-dataset-splits)", base.splits);
    cmd.AddValue("npus", "NPUs (hier: 2 x npus/2)", base.npus);
    cmd.AddValue("rate", "link rate (Gbit/s)", rateGbps);
    cmd.AddValue("latency", "link latency (ns)", latencyNs);
    cmd.AddValue("background", "none | incast | permutation", base.background);
    cmd.AddValue("bg-bytes", "bytes per background message (closed loop)", base.bgBytes);
    cmd.AddValue("bg-senders", "incast senders (hosts 1..n to host 0)", base.bgSenders);
    cmd.AddValue("bg-prio", "background data priority (0..6; collective uses 3)", bgPrio);
    cmd.AddValue("bg-cc",
                 "CC of the background priority (per-class selection; needs --bg-prio != 3)",
                 base.bgCc);
    cmd.AddValue("queue-sample-ns", "queue sampling interval (ns)", queueSampleNs);
    cmd.AddValue("max-sim-ms", "simulated time limit per run (ms)", base.maxSimMs);
    cmd.AddValue("outDir", "output folder (per-run data, results.csv, .gp, .png)", outDir);
    cmd.AddValue("plots", "write gnuplot scripts and run gnuplot", plots);
    cmd.AddValue("in-switch",
                 "comma-separated: 0 (the collective on the hosts), 1 (in the switches: "
                 "in-network aggregation engines, doc/in-network.rst)",
                 inSwitch);
    cmd.Parse(argc, argv);

    std::vector<CcStudyResult> rows;
    try
    {
        base.bgPriority = uint8_t(std::min<uint32_t>(bgPrio, 255));
        base.linkGbps = rateGbps;
        base.linkLatencyNs = latencyNs;
        base.pmax = pmax;
        base.queueSample = NanoSeconds(int64_t(queueSampleNs));
        base.outDir = outDir;
        const auto ccList = Split(ccs);
        if (ccList.empty())
        {
            throw std::invalid_argument("--ccs needs at least one CC");
        }
        for (const auto& cc : ccList)
        {
            CcStudy::CcTypeId(cc); // fail before the first run
        }
        const auto pfcList = SplitU64(pfcs, "pfc");
        const auto kminList = SplitU64(kmins, "kmin");
        const auto kmaxList = SplitU64(kmaxs, "kmax");
        const auto bufList = SplitU64(buffers, "buffer");
        const auto inList = SplitU64(inSwitch, "in-switch");
        for (uint64_t x : inList)
        {
            if (x > 1)
            {
                throw std::invalid_argument("--in-switch: '" + std::to_string(x) +
                                            "' is not 0 or 1");
            }
        }
        std::cout << "cc-study: workload " << base.workload << ", " << base.npus << " NPUs at "
                  << rateGbps << " Gbps, background " << base.background << "\n";
        for (const auto& cc : ccList)
        {
            for (uint64_t pfc : pfcList)
            {
                for (uint64_t kmin : kminList)
                {
                    for (uint64_t kmax : kmaxList)
                    {
                        if (kmin > kmax)
                        {
                            continue;
                        }
                        for (uint64_t buf : bufList)
                        {
                            for (uint64_t in : inList)
                            {
                                CcStudyConfig c = base;
                                c.cc = cc;
                                c.pfc = pfc != 0;
                                c.kminBytes = kmin;
                                c.kmaxBytes = kmax;
                                c.bufferBytes = buf;
                                c.inSwitch = in != 0;
                                rows.push_back(CcStudy::Run(c));
                                const auto& r = rows.back();
                                std::cout << "  " << r.name << ": " << r.collTimeUs
                                          << " us simulated, wall " << r.wallSeconds << " s"
                                          << (r.error.empty() ? "" : ", ERROR " + r.error) << "\n";
                            }
                        }
                    }
                }
            }
        }
        if (rows.empty())
        {
            throw std::invalid_argument("no run: every --kmin is above every --kmax");
        }
        std::cout << "\n";
        CcStudy::PrintTable(rows, std::cout);
        CcStudy::WriteCsv(rows, outDir + "/results.csv");
        if (plots)
        {
            std::string msg;
            CcStudy::WritePlots(rows, outDir, msg);
            std::cout << msg << "\n";
        }
        std::cout << "results in " << outDir << "/results.csv\n";
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
    for (const auto& r : rows)
    {
        if (!r.error.empty())
        {
            return 2;
        }
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return ns3::astra::RunMain(&Run, argc, argv);
}
