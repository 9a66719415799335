/*
 * MemoryDevice: the memory behind a disaggregated memory node (capacity,
 * bandwidth, access latency, channels, per-request overhead), shared by the
 * RoCE memory server and the flow-level transport so that both backends see
 * the same device.
 */

#ifndef ASTRA_MEMORY_DEVICE_H
#define ASTRA_MEMORY_DEVICE_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <queue>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * The device of one memory node. Requests are served in arrival order:
 *
 * - a request first takes one of Channels channels (the device's limit on
 *   requests in service; the others wait in its queue, FIFO);
 * - a READ then waits the access Latency (requests in service overlap their
 *   latencies), and its data moves through the device's data path, one
 *   request after another at Bandwidth, after RequestOverhead (a per-request
 *   cost on the data path): it occupies the path for overhead + bytes / bw;
 *   the channel is free when its data has been read;
 * - a WRITE takes the data path as its data arrives (WriteStart at its first
 *   byte), for overhead + bytes / bw, and is written (durable) Latency after
 *   both its data path slot and its last byte (WriteDone); its channel is
 *   held until its slot's end plus the latency.
 *
 * So k READs of s bytes issued together complete their data path at
 * Latency + k x (overhead + s / bw) when channels >= k, and at
 * k x (Latency + overhead + s / bw) with one channel (ASTRA-sim's FIFO memory).
 * Times are exact to the ps; Bandwidth is in GB/s with GB = 1e9 bytes (as
 * ASTRA-sim's remote-mem-bw).
 */
class MemoryDevice : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    MemoryDevice();
    ~MemoryDevice() override;

    /// The device's slot for one request: its data moves over [dataStart, dataEnd].
    struct Grant
    {
        Time dataStart; //!< first byte moves (after queueing, latency for a READ, overhead)
        Time dataEnd;   //!< last byte moved
    };

    /**
     * A READ of \p bytes arrives now.
     * \param bytes bytes to read
     * \return when its data moves: byte k (0-based) is ready at
     *         dataStart + (k + 1) x GetPsPerByte() ps
     */
    Grant Read(uint64_t bytes);
    /**
     * The first byte of a WRITE of \p bytes arrives now.
     * \param bytes bytes to write
     * \return its data path slot (pass it to WriteDone)
     */
    Grant WriteStart(uint64_t bytes);
    /**
     * The last byte of a WRITE arrived now.
     * \param g its WriteStart slot
     * \return when the data is written: max(g.dataEnd, now) + Latency
     */
    Time WriteDone(const Grant& g);

    /// \return ps per byte at Bandwidth
    double GetPsPerByte() const;
    double GetBandwidthGBps() const; //!< \return Bandwidth (GB/s, 1e9 bytes)
    Time GetLatency() const;         //!< \return Latency
    uint32_t GetChannels() const;    //!< \return Channels
    uint64_t GetCapacity() const;    //!< \return Capacity (bytes, 0: unlimited)
    /**
     * Check the attributes (Bandwidth > 0).
     * \return "" if valid, else the cause
     */
    std::string Validate() const;

    uint64_t GetBytesRead() const;    //!< \return bytes read
    uint64_t GetBytesWritten() const; //!< \return bytes written
    uint64_t GetReads() const;        //!< \return READ requests
    uint64_t GetWrites() const;       //!< \return WRITE requests
    /// \return time the data path was occupied (overhead + transfer), for utilisation
    Time GetBusyTime() const;
    /// \return total time requests waited for a channel
    Time GetQueueingTime() const;
    /// \return when the device has finished the work it was given (latencies, data path)
    Time GetBusyUntil() const;

  protected:
    void DoDispose() override;

  private:
    /// Take a channel at or after now; \return the time it is taken
    Time TakeChannel();
    /// Occupy the data path from \p ready on for \p bytes; \return the slot
    Grant Occupy(Time ready, uint64_t bytes);

    double m_bwGBps{0};
    Time m_latency{0};
    uint32_t m_channels{1};
    Time m_overhead{0};
    uint64_t m_capacity{0};

    /// channel free times (min-heap, Channels entries once used)
    std::priority_queue<Time, std::vector<Time>, std::greater<Time>> m_free;
    Time m_pathFree{0};    //!< when the data path is free
    Time m_lastRelease{0}; //!< latest channel release given out
    uint64_t m_bytesRead{0};
    uint64_t m_bytesWritten{0};
    uint64_t m_reads{0};
    uint64_t m_writes{0};
    Time m_busy{0};
    Time m_queueing{0};
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_MEMORY_DEVICE_H */
