/*
 * File writers and a run summary for RoCE fabric runs. Each writer connects to
 * trace sources (TraceConnectWithoutContext on the nodes' objects) and writes
 * a whitespace-separated text file with a '#' header line. Output is bounded:
 * every writer (FCT, PFC, queue, rate) stops at a size cap (100 MB by default)
 * and writes a final '# truncated' note.
 *
 *  FCT     : src dst sport dport size start_ns fct_ns ideal_fct_ns
 *            (one line per message, at the receiver's completion = last byte arrived;
 *            src/dst are the data's source and sink: for a READ, responder -> requester;
 *            the ideal of a READ does not include the request's trip)
 *  PFC     : time_ns node port priority pause|resume   (PFC frames sent by switches)
 *  queue   : time_ns node port priority bytes          (sampled, written on change)
 *  rate    : time_ns host qpn rate_bps                 (per-QP CC rate changes)
 *
 * Ideal FCT (what a message would take alone on its path): the FCT is one-way
 * (last byte at the receiver), so
 *    ideal = sum of propagation delays of the path
 *          + (hops - 1) x serialization of the first packet at the bottleneck rate
 *          + wire bytes of the whole message (headers, ICRC, FCS, preamble, IFG of
 *            every packet) x 8 / bottleneck rate,
 * which equals the store-and-forward closed form on uniform links (slowdown 1.0
 * for a lone message). RdmaPathModel walks the installed forwarding tables (with
 * the message's own ECMP hash) to find delays, hop count and bottleneck rate.
 */

#ifndef RDMA_TRACE_WRITERS_H
#define RDMA_TRACE_WRITERS_H

#include "ns3/event-id.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/rdma-host-directory.h"
#include "ns3/rdma-queue-pair.h"

#include <cstdint>
#include <fstream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class RdmaSwitch;
class RdmaNetDevice;

/**
 * \ingroup astra-sim
 * Path facts between two hosts (from the installed forwarding tables).
 */
struct RdmaPathInfo
{
    uint32_t hops{0};          //!< links traversed
    Time propagation{0};       //!< sum of link delays
    uint64_t bottleneckBps{0}; //!< slowest link rate
    bool valid{false};         //!< a path was found
};

/**
 * \ingroup astra-sim
 * Finds the path of a flow by following forwarding tables hop by hop.
 */
class RdmaPathModel
{
  public:
    /**
     * \param hosts the fabric's host stacks (RdmaHelper::GetHostDirectory)
     * \param src source host index
     * \param dst destination host index
     * \param sport UDP source port (ECMP choice)
     * \return path facts (valid = false if no path)
     */
    static RdmaPathInfo GetPath(Ptr<const RdmaHostDirectory> hosts,
                                uint32_t src,
                                uint32_t dst,
                                uint16_t sport);

    /**
     * The node of a host by its index, also a host of another rank in a distributed run
     * (a ghost: no stack, but its ports and forwarding table).
     * \param hostIndex host index
     * \return the node, or null
     */
    static Ptr<Node> FindHostNode(uint32_t hostIndex);

    /**
     * Ideal (alone-on-the-path) one-way FCT of a message.
     * \param bytes message payload bytes
     * \param mtu payload bytes per packet
     * \param path the path
     * \return nanoseconds
     */
    static uint64_t IdealFctNs(uint64_t bytes, uint32_t mtu, const RdmaPathInfo& path);

    /// \return wire bytes of a message: payload + every packet's headers, ICRC, FCS, preamble, IFG
    /// \param bytes payload \param mtu payload per packet
    static uint64_t MessageWireBytes(uint64_t bytes, uint32_t mtu);
};

/**
 * \ingroup astra-sim
 * One trace file of the writers below: a header line, then the lines of each simulated
 * time step sorted by their numbers (then by their text), so that a file does not depend
 * on the order in which the events of one time step ran (a distributed run's ranks write
 * parts of it that AstraFabricOutputs::MergeParts merges into the same bytes); at the size
 * cap a final "# truncated: size cap of N bytes reached at T ns" line.
 */
class RdmaTraceFile
{
  public:
    /// \param fileName the file ("" = none) \param header its first line \param maxBytes cap
    /// (0 = none) \param fct fct.txt (the sort key begins with start_ns + fct_ns)
    RdmaTraceFile(const std::string& fileName,
                  const char* header,
                  uint64_t maxBytes,
                  bool fct = false);
    ~RdmaTraceFile();
    RdmaTraceFile(const RdmaTraceFile&) = delete;
    RdmaTraceFile& operator=(const RdmaTraceFile&) = delete;

    /// \return true if lines are still written (open and below the cap)
    bool IsWriting() const;
    /// Add a line of the current time step \param timeNs now \param line text with its '\\n'
    /// \param n its length
    void Add(int64_t timeNs, const char* line, int n);
    void Close(); //!< write the last time step, flush and close

    /**
     * The sort key of a line: its leading numbers (an fct.txt line: start_ns + fct_ns first).
     * \param line the line \param fct an fct.txt line \param key receives the key
     */
    static void LineKey(const std::string& line, bool fct, std::vector<long long>& key);

  private:
    void Flush(); //!< write the pending time step
    /// Window simulator: write the pending lines of times before \p limitNs, sorted by time,
    /// then as Flush sorts a time step's
    void FlushBefore(int64_t limitNs);
    /// Write one line under the size cap \param text the line \param timeNs its time
    /// \return false once the cap is reached
    bool WriteLine(const std::string& text, int64_t timeNs);

    /// A line of the pending time step.
    struct Pending
    {
        std::vector<long long> key; //!< LineKey
        std::string text;           //!< with its newline
        int64_t time{0};            //!< its time step (ns)
    };

    std::ofstream m_out;
    uint64_t m_maxBytes;            //!< size cap
    bool m_fct;                     //!< fct.txt keys
    uint64_t m_written{0};          //!< data bytes written
    bool m_truncated{false};        //!< the cap was reached
    int64_t m_time{-1};             //!< the pending time step
    std::vector<Pending> m_pending; //!< its lines (reused)
    size_t m_used{0};               //!< of m_pending
    int64_t m_safeNs{0};            //!< window simulator: lines before it were written
    bool m_window{false};           //!< lines came under the window simulator
};

/**
 * \ingroup astra-sim
 * FCT file writer (receiver completions) and slowdown statistics.
 */
class RdmaFctWriter
{
  public:
    /// One completed message.
    struct Record
    {
        RdmaMessageInfo info; //!< completion
        uint64_t idealNs{0};  //!< ideal FCT
    };

    /**
     * \param fileName output file ("" = keep records in memory only)
     * \param maxBytes size cap of the file (0 = none); the records in memory (and the
     *        slowdown statistics) are kept whole
     */
    explicit RdmaFctWriter(const std::string& fileName, uint64_t maxBytes = 100 * 1000 * 1000);
    ~RdmaFctWriter();
    RdmaFctWriter(const RdmaFctWriter&) = delete;
    RdmaFctWriter& operator=(const RdmaFctWriter&) = delete;

    /// Connect to RxMessageComplete of every RdmaHostStack on the nodes (of one fabric)
    /// \param hosts hosts
    void Install(NodeContainer hosts);
    /// Handle one completion (also usable directly) \param info the completion
    void Record(const RdmaMessageInfo& info);
    void Close(); //!< flush and close the file

    const std::vector<struct Record>& GetRecords() const; //!< \return records
    /// \return slowdown (fct / ideal) percentile q in [0,1] (0 if none)
    /// \param q quantile
    double GetSlowdownPercentile(double q) const;
    /// \return the percentile q in [0,1] of sorted values, the q x n-th smallest (0 if none)
    /// \param sorted values in increasing order \param q quantile
    static double Percentile(const std::vector<double>& sorted, double q);

  private:
    RdmaTraceFile m_file; //!< fct.txt
    std::vector<struct Record> m_records;
    std::map<uint64_t, RdmaPathInfo> m_pathCache; //!< per (src, dst, sport), per message only
    Ptr<RdmaHostDirectory> m_hosts;               //!< the installed hosts' directory
};

/**
 * \ingroup astra-sim
 * PFC event writer (pause/resume frames sent by switches) with a size cap.
 */
class RdmaPfcWriter
{
  public:
    /// \param fileName output \param maxBytes size cap (0 = none)
    RdmaPfcWriter(const std::string& fileName, uint64_t maxBytes = 100 * 1000 * 1000);
    ~RdmaPfcWriter();
    RdmaPfcWriter(const RdmaPfcWriter&) = delete;
    RdmaPfcWriter& operator=(const RdmaPfcWriter&) = delete;

    /// Connect to PfcPause/PfcResume of every RdmaSwitch on the nodes \param switches switches
    void Install(NodeContainer switches);
    uint64_t GetPauses() const;  //!< \return pause events seen
    uint64_t GetResumes() const; //!< \return resume events seen
    void Close();                //!< flush and close

  private:
    void OnPause(uint32_t node, uint32_t port, uint8_t prio);
    void OnResume(uint32_t node, uint32_t port, uint8_t prio);
    void Write(uint32_t node, uint32_t port, uint8_t prio, const char* what);

    RdmaTraceFile m_file; //!< pfc.txt
    uint64_t m_pauses{0};
    uint64_t m_resumes{0};
};

/**
 * \ingroup astra-sim
 * Samples switch egress queue lengths per (switch, port, priority) every
 * interval and writes a line only when a value changed; stops at a size cap.
 */
class RdmaQueueSampler
{
  public:
    /**
     * \param fileName output
     * \param interval sampling interval
     * \param maxBytes size cap (0 = none)
     */
    RdmaQueueSampler(const std::string& fileName,
                     Time interval,
                     uint64_t maxBytes = 100 * 1000 * 1000);
    ~RdmaQueueSampler();
    RdmaQueueSampler(const RdmaQueueSampler&) = delete;
    RdmaQueueSampler& operator=(const RdmaQueueSampler&) = delete;

    /// Sample every port of every RdmaSwitch on the nodes from start to stop
    void Install(NodeContainer switches, Time start, Time stop);
    uint64_t GetMaxSampledBytes() const; //!< \return largest (port, priority) queue sampled
    /// \return time-average of the sampled queue of one (switch, port, priority) (bytes)
    /// \param sw switch index in Install's container \param port port \param prio priority
    double GetAverage(uint32_t sw, uint32_t port, uint8_t prio) const;
    void Close(); //!< flush and close

  private:
    void Sample();

    struct Slot
    {
        Ptr<RdmaSwitch> sw;
        uint32_t node{0};
        uint32_t port{0};
        uint8_t prio{0};
        uint64_t last{~uint64_t(0)};
        double sum{0};
        uint64_t n{0};
    };

    RdmaTraceFile m_file; //!< queue.txt
    Time m_interval;
    Time m_stop;
    uint64_t m_max{0};
    std::vector<Slot> m_slots;
    std::vector<uint32_t> m_firstSlot; //!< per switch: index of its first slot
    EventId m_event;
};

/**
 * \ingroup astra-sim
 * Per-QP rate writer (QpRateChange of every host stack) with a size cap.
 */
class RdmaRateWriter
{
  public:
    /// \param fileName output \param maxBytes size cap (0 = none)
    RdmaRateWriter(const std::string& fileName, uint64_t maxBytes = 100 * 1000 * 1000);
    ~RdmaRateWriter();
    RdmaRateWriter(const RdmaRateWriter&) = delete;
    RdmaRateWriter& operator=(const RdmaRateWriter&) = delete;

    /// Connect to every RdmaHostStack on the nodes \param hosts hosts
    void Install(NodeContainer hosts);
    uint64_t GetChanges() const; //!< \return rate changes seen
    void Close();                //!< flush and close

  private:
    void OnRate(uint32_t host, uint32_t qpn, uint64_t oldBps, uint64_t newBps);

    RdmaTraceFile m_file; //!< rate.txt
    uint64_t m_changes{0};
};

/**
 * \ingroup astra-sim
 * Totals of a run, collected from the nodes' counters at the end.
 */
struct RdmaRunSummary
{
    uint64_t messages{0};      //!< messages completed (FCT records)
    double slowdownP50{0};     //!< FCT slowdown median
    double slowdownP95{0};     //!< 95th percentile
    double slowdownP99{0};     //!< 99th percentile
    Time totalPauseTime{0};    //!< sum over all device priorities of paused time
    uint64_t pauseFrames{0};   //!< PFC pause frames sent by switches
    uint64_t maxQueueBytes{0}; //!< peak egress port queue over switches
    uint64_t drops{0};         //!< switch drops (lossy) + device drops
    uint64_t losslessDrops{0}; //!< lossless drops (configuration bugs)
    uint64_t ecnMarks{0};      //!< CE marks
    uint64_t cnps{0};          //!< CNPs sent by receivers
    uint64_t naks{0};          //!< NAKs sent
    uint64_t timeouts{0};      //!< retransmission timeouts
    uint64_t retxPkts{0};      //!< retransmitted packets
    uint64_t dataPkts{0};      //!< data packets sent by hosts

    /**
     * Collect counters.
     * \param hosts host nodes
     * \param switches switch nodes
     * \param fct FCT writer (may be nullptr)
     * \return the summary
     */
    static RdmaRunSummary Collect(NodeContainer hosts,
                                  NodeContainer switches,
                                  const RdmaFctWriter* fct);
    /// Print in a human-readable block \param os stream
    void Print(std::ostream& os) const;
};

} // namespace ns3

#endif /* RDMA_TRACE_WRITERS_H */
