/*
 * Report writers: ASTRA-sim's per-NPU lines, a readable summary, a per-NPU
 * breakdown CSV, one CSV row per collective and a Chrome-trace / Perfetto
 * JSON timeline.
 */

#ifndef ASTRA_REPORT_H
#define ASTRA_REPORT_H

#include "astra-sim-application.h"
#include "astra-system.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Writers over the finished applications and the context's records.
 */
class AstraReport
{
  public:
    /// \param ctx the context (its collective records)
    /// \param apps one per NPU, index = NPU id: the applications that ran, or in a
    /// distributed run's rank 0 result holders for the other ranks' NPUs
    /// (AstraSimApplication::FromResult); read are their statistics, errors, timelines and
    /// the timeline's labels (AstraSimApplication::LabelOf)
    AstraReport(Ptr<SystemContext> ctx, const std::vector<Ptr<AstraSimApplication>>& apps);

    /// `sys[i] finished, N cycles, exposed communication M cycles.` per finished NPU
    void PrintNpuLines(std::ostream& os) const;
    /// Total time, breakdown and per-collective table (type, group, bytes, time, algbw, busbw)
    void PrintSummary(std::ostream& os, size_t maxRows = 20) const;
    /// npu,finish_ns,compute_ns,exposed_comm_ns,memory_ns,idle_ns,comm_busy_ns,nodes
    void WriteNpuCsv(const std::string& path) const;
    /// id,name,type,group,placement,members,bytes,start_ns,end_ns,time_ns,algbw_GBps,busbw_GBps
    void WriteCollectiveCsv(const std::string& path) const;
    /**
     * Chrome trace JSON: one process per NPU, one "X" event per node (bounded).
     * \param path the file
     * \param extraEvents further events, comma-separated without the enclosing
     *        array (e.g. MemoryReport::ChromeTraceEvents), appended ("": none)
     */
    void WriteChromeTrace(const std::string& path, const std::string& extraEvents = "") const;

    /// \return busbw / algbw factor of a collective over n members (NCCL convention)
    static double BusBwFactor(CollType t, uint32_t n);
    /// \return bytes counted for algbw (all-gather: output = input x n)
    static double AlgBytes(const CollectiveRecord& r);

  private:
    Ptr<SystemContext> m_ctx;
    std::vector<Ptr<AstraSimApplication>> m_apps;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_REPORT_H */
