/*
 * MemoryReport: what the memory nodes did in a run of FabricMemoryModel
 * (bytes, requests, request latency percentiles, device and link
 * utilisation, the link utilisation over time) as a table, CSV files and
 * Chrome-trace counter tracks, and the slowdown memory traffic causes to the
 * collectives (two runs compared).
 */

#ifndef ASTRA_MEMORY_REPORT_H
#define ASTRA_MEMORY_REPORT_H

#include "fabric-memory-model.h"

#include "ns3/astra-system.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Report of a FabricMemoryModel's memory nodes.
 */
class MemoryReport
{
  public:
    /// One memory node's figures.
    struct Row
    {
        uint32_t node{0};         //!< topology id
        std::string attach;       //!< what its link reaches ("switch 70", "NPU 3")
        uint32_t npus{0};         //!< NPUs that use it
        uint64_t bytesRead{0};    //!< READ payload
        uint64_t bytesWritten{0}; //!< WRITE payload
        uint64_t requests{0};     //!< messages
        double p50Ns{0};          //!< request latency median (post to completion)
        double p99Ns{0};          //!< request latency 99th percentile
        double deviceUtil{0};     //!< device data path busy / run time
        double linkUtil{0};       //!< link bytes (busier direction) / (capacity x run time)
        double peakLinkUtil{0};   //!< highest sampled link utilisation (0 without samples)
    };

    /**
     * \param model the model after the run
     * \param end the run's end (utilisations are over [0, end]; 0: now)
     */
    explicit MemoryReport(Ptr<FabricMemoryModel> model, Time end = Time(0));

    /// \return one row per memory node, in topology id order
    std::vector<Row> GetRows() const;
    /// Print the table \param os the stream
    void Print(std::ostream& os) const;
    /**
     * memory.csv: node,attach,npus,bytes_read,bytes_written,requests,p50_ns,p99_ns,
     * device_util,link_util,peak_link_util
     * \param path the file (throws std::runtime_error when it cannot be written)
     */
    void WriteCsv(const std::string& path) const;
    /**
     * The sampled link utilisation over time (FabricMemoryModel::SampleInterval):
     * time_us and one column per memory node ("mem<id>").
     * \param path the file
     * \return false if there are no samples (nothing written)
     */
    bool WriteUtilisationCsv(const std::string& path) const;
    /**
     * Chrome-trace events (comma-separated, without the enclosing array): a
     * process per memory node with a counter track of its link utilisation
     * (%) and its bytes so far, for AstraReport::WriteChromeTrace.
     * \param pidBase first process id (after the NPUs')
     * \return the events ("" without samples)
     */
    std::string ChromeTraceEvents(uint32_t pidBase) const;

    /**
     * The slowdown of the collectives caused by memory traffic: total time of
     * the collectives of a run with memory traffic over the same collectives
     * of a run without (matched by position, name and type; unfinished ones
     * are skipped).
     * \param with the records of the run with memory traffic
     * \param without the records of the run without
     * \param matched set to the number of collectives compared (may be null)
     * \return the ratio (0 if none matched)
     */
    static double CollectiveSlowdown(const std::vector<CollectiveRecord>& with,
                                     const std::vector<CollectiveRecord>& without,
                                     uint32_t* matched = nullptr);

    /**
     * \return the p-th percentile (0..100, nearest rank) of \p v (0 if empty)
     * \param v values (copied)
     * \param p percentile
     */
    static double Percentile(std::vector<int64_t> v, double p);

  private:
    Ptr<FabricMemoryModel> m_model;
    Time m_end;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_MEMORY_REPORT_H */
