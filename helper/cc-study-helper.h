/*
 * CcStudy: the core of the cc-study example. One run = a collective workload
 * on the packet-level RoCE backend (AstraFabricHelper + RoceBackend +
 * AstraSimHelper, as training-on-roce) with optional closed-loop background
 * traffic (incast or permutation) posted directly on the hosts' RdmaHostStacks,
 * for one congestion control, PFC on/off, ECN thresholds and buffer size.
 * It measures the comparison row (collective time, busbw, background FCT
 * slowdown, pause time, peak queue, drops, ECN marks, CNPs) and, with an
 * output folder, writes the per-run series and the gnuplot scripts.
 */

#ifndef ASTRA_CC_STUDY_HELPER_H
#define ASTRA_CC_STUDY_HELPER_H

#include "ns3/nstime.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Parameters of one cc-study run.
 */
struct CcStudyConfig
{
    std::string cc{"dcqcn"};    //!< dcqcn | hpcc | timely | dctcp | swift | none
    bool pfc{true};             //!< PFC on (lossless data class) or drop-tail
    uint64_t kminBytes{100000}; //!< ECN Kmin (DCTCP: step threshold K)
    uint64_t kmaxBytes{400000}; //!< ECN Kmax (ignored by DCTCP: Kmax = Kmin)
    double pmax{0.2};           //!< ECN Pmax (DCTCP: 1)
    uint64_t bufferBytes{0};    //!< switch shared buffer (0 = MMU default)
    std::string workload{"ring"};
    /// communicator groups JSON of a Chakra workload ("" = PREFIX.json if it exists)
    std::string commGroups;            //!< ring | hier | a2a | Chakra prefix (PREFIX.<rank>.et)
    uint64_t collBytes{4000000};       //!< bytes of the generated collective
    uint32_t splits{1};                //!< preferred-dataset-splits (chunks per collective)
    uint32_t npus{8};                  //!< NPUs (hier: 2 x npus/2)
    double linkGbps{100};              //!< link rate (Gbit/s)
    double linkLatencyNs{1000};        //!< link latency (ns)
    std::string background{"none"};    //!< none | incast | permutation
    uint64_t bgBytes{100000};          //!< bytes per background message
    uint32_t bgSenders{4};             //!< incast: senders (hosts 1..n to host 0)
    uint8_t bgPriority{3};             //!< background data priority
    std::string bgCc;                  //!< CC of the background priority ("" = same as cc)
    Time baseRtt{0};                   //!< RdmaHostStack::BaseRtt (0 = 4 x latency + 1 us)
    Time queueSample{MicroSeconds(1)}; //!< queue sampling interval
    double maxSimMs{100};              //!< stop here if unfinished
    std::string outDir;                //!< per-run files ("" = none)
    /// the collectives run in the switches (in-network aggregation engines on the fabric's
    /// switches, algorithm inSwitch; doc/in-network.rst) instead of on the hosts
    bool inSwitch{false};
};

/**
 * \ingroup astra-sim
 * The comparison row of one run.
 */
struct CcStudyResult
{
    std::string name;           //!< run name, e.g. "dcqcn-pfc1-k100-400-b0"
    CcStudyConfig config;       //!< the parameters
    bool finished{false};       //!< every NPU finished
    std::string error;          //!< first error ("" if none)
    double collTimeUs{0};       //!< workload time (last NPU finish)
    double busBwGBps{0};        //!< sum(bytes x busbw factor) / sum(collective times), GB/s
    uint64_t bgMessages{0};     //!< completed background messages
    double bgSlowdownP50{0};    //!< background FCT slowdown median (0 = none)
    double bgSlowdownP99{0};    //!< 99th percentile
    double pauseUs{0};          //!< total paused time over all device priorities
    uint64_t pauseFrames{0};    //!< PFC pause frames sent
    uint64_t maxQueueBytes{0};  //!< peak egress port queue over switches
    uint64_t drops{0};          //!< drops
    uint64_t ecnMarks{0};       //!< CE marks
    uint64_t cnps{0};           //!< CNPs sent
    uint64_t retxPkts{0};       //!< retransmitted packets
    uint32_t bottleneckNode{0}; //!< node id of the switch with the peak queue
    uint32_t bottleneckPort{0}; //!< its port
    std::vector<std::pair<double, uint64_t>> queue; //!< bottleneck (us, bytes) series
    uint32_t qps{0};                                //!< QPs in the rate file
    double wallSeconds{0};                          //!< wall-clock time of the run
};

/**
 * \ingroup astra-sim
 * Runs cc-study configurations and reports them.
 *
 * \code
 * CcStudy::SetDefaults();            // before CommandLine::Parse (the command line wins)
 * CcStudyConfig c;  c.cc = "hpcc";  c.background = "incast";
 * CcStudyResult r = CcStudy::Run(c); // builds, runs and destroys one simulation
 * CcStudy::PrintTable({r}, std::cout);
 * \endcode
 */
class CcStudy
{
  public:
    /// Attribute defaults of the study's fabric (TIMELY thresholds for a few-us RTT).
    static void SetDefaults();
    /// \return the TypeId of a short CC name (dcqcn, ...); throws InputError
    /// \param name short name or full TypeId name
    static TypeId CcTypeId(const std::string& name);
    /// \return a file-name friendly run name \param c the configuration
    static std::string RunName(const CcStudyConfig& c);

    /**
     * Run one configuration (creates the fabric, runs, Simulator::Destroy()).
     * Input errors throw InputError naming the option.
     * With c.outDir set, writes c.outDir/<name>/{queue,rate,timeline}.dat and fct.txt.
     * \param c the configuration
     * \return the row
     */
    static CcStudyResult Run(const CcStudyConfig& c);

    /// Print the comparison table \param rows results \param os stream
    static void PrintTable(const std::vector<CcStudyResult>& rows, std::ostream& os);
    /// Write the table as CSV \param rows results \param path file
    static void WriteCsv(const std::vector<CcStudyResult>& rows, const std::string& path);

    /**
     * Write the gnuplot scripts (queue.gp: bottleneck queue of every run;
     * rate-<run>.gp, timeline-<run>.gp) into outDir and run gnuplot on them if
     * it is installed.
     * \param rows results (their runs wrote into outDir)
     * \param outDir the folder
     * \param msg receives a note (PNGs written / gnuplot missing)
     * \return number of PNG files produced
     */
    static uint32_t WritePlots(const std::vector<CcStudyResult>& rows,
                               const std::string& outDir,
                               std::string& msg);
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_CC_STUDY_HELPER_H */
