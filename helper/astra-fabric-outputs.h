/*
 * The files every RoCE run writes (astra-sim-runner --backend=roce and
 * training-on-roce alike): FCT, PFC events, sampled queues and per-QP rates,
 * each bounded by a size cap, and on request gnuplot PNGs of the queues, the
 * rates and the collective timeline.
 */

#ifndef ASTRA_FABRIC_OUTPUTS_H
#define ASTRA_FABRIC_OUTPUTS_H

#include "ns3/astra-system.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class RdmaFctWriter;
class RdmaPfcWriter;
class RdmaQueueSampler;
class RdmaRateWriter;

namespace astra
{

/**
 * \ingroup astra-sim
 * The trace files of a RoCE run, in one folder:
 *
 * ========== ===================================================== ======================
 * file       lines                                                 writer
 * ========== ===================================================== ======================
 * fct.txt    src dst sport dport size start_ns fct_ns ideal_fct_ns  RdmaFctWriter
 * pfc.txt    time_ns node port priority pause|resume                RdmaPfcWriter
 * queue.txt  time_ns node port priority bytes (sampled, on change)  RdmaQueueSampler
 * rate.txt   time_ns host qpn rate_bps (congestion-control changes) RdmaRateWriter
 * ========== ===================================================== ======================
 *
 * Each file stops at its size cap (default 100 MB) with a final
 * "# truncated" line. WritePlots() adds queue.png (the busiest egress queues),
 * rate.png (the per-QP rates that changed most) and timeline.png (one bar per
 * collective, from its first member's start to its last member's end), with
 * their gnuplot scripts and data.
 */
class AstraFabricOutputs
{
  public:
    /**
     * Open the files and connect the writers (before the run).
     * \param dir the folder (must exist)
     * \param hosts the NPU nodes (host stacks: FCT, rates)
     * \param forwarding the switches and the NPUs relaying transit traffic (PFC, queues)
     * \param queueSample queue sampling interval
     * \param stop last queue sample
     * \param maxBytes size cap of each file (0: none)
     */
    AstraFabricOutputs(const std::string& dir,
                       NodeContainer hosts,
                       NodeContainer forwarding,
                       Time queueSample,
                       Time stop,
                       uint64_t maxBytes = 100 * 1000 * 1000);
    ~AstraFabricOutputs();
    AstraFabricOutputs(const AstraFabricOutputs&) = delete;
    AstraFabricOutputs& operator=(const AstraFabricOutputs&) = delete;

    /// Flush and close the files (after the run).
    void Close();

    /**
     * Distributed run (after Close; a collective call: every rank calls it): every rank
     * wrote its own nodes' lines into its own folder (the constructor's); the files are
     * gathered to rank 0 (astra::Distributed::Gather), merged (MergeParts) and written
     * into \p dir there; each rank's own files and folder are removed. Afterwards the
     * folder of WritePlots is \p dir.
     * \param dir the report folder (rank 0)
     */
    /// \param endNs the run's end (the last NPU's finish): later lines, written while the
    /// ranks ran on to the check that stopped them, are left out (-1: keep every line)
    void GatherTo(const std::string& dir, int64_t endNs);

    /**
     * The file one process writes, from the parts that ranks wrote (each in time order,
     * with its header line and at most one final "# truncated" line): data lines by time
     * (fct.txt: completion time, start_ns + fct_ns), then by the line's numbers (node,
     * port, priority; host, qpn; ...), then by rank; the size cap is applied to the
     * merged lines as the writers apply it.
     * \param parts the ranks' file texts, rank order
     * \param fct the parts are fct.txt files
     * \param maxBytes the size cap (0: none)
     * \param endNs lines after this time are left out (-1: none is)
     * \return the merged file text
     */
    static std::string MergeParts(const std::vector<std::string>& parts,
                                  bool fct,
                                  uint64_t maxBytes,
                                  int64_t endNs = -1);

    /// \return the FCT writer (records and slowdown percentiles)
    const RdmaFctWriter& GetFct() const;

    /// \return the file names, relative to the folder
    static std::vector<std::string> GetFileNames();

    /**
     * Write queue.dat / rate.dat / timeline.dat, their gnuplot scripts and (if
     * gnuplot is installed) the PNGs into the folder (after Close).
     * \param records the run's collectives (SystemContext::GetRecords)
     * \param msg receives what was written (or why no PNG was)
     * \return PNG files written
     */
    uint32_t WritePlots(const std::vector<CollectiveRecord>& records, std::string& msg) const;

  private:
    std::string m_dir;                          //!< the folder
    uint64_t m_maxBytes;                        //!< size cap of each file
    std::unique_ptr<RdmaFctWriter> m_fct;       //!< fct.txt
    std::unique_ptr<RdmaPfcWriter> m_pfc;       //!< pfc.txt
    std::unique_ptr<RdmaQueueSampler> m_queues; //!< queue.txt
    std::unique_ptr<RdmaRateWriter> m_rates;    //!< rate.txt
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_FABRIC_OUTPUTS_H */
