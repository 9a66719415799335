/*
 * Where a packet is ECN-marked. RdmaEcnMarker is the pluggable marking policy
 * of an RdmaSwitch (and of a host's RdmaTransitForwarder), in the style of
 * ns-3's queue discs and of this module's RdmaCongestionOps: the switch asks
 * its marker, for every ECN-capable frame it queues (or, with AtDequeue, for
 * every frame leaving an egress port), whether to set CE; the marker sees the
 * egress port, the priority and the queue length of that (port, priority)
 * queue in bytes (ahead of an arriving frame, behind a departing one).
 *
 * Implementations:
 *  - RdmaEcnRed: RED-like (DCQCN's switch marking, the default): never at or
 *    below Kmin, always above Kmax, else with probability
 *    Pmax (q - Kmin) / (Kmax - Kmin). Per-port thresholds, optionally from
 *    a per-line-rate table (RateThresholds, HPCC's KMIN_MAP / KMAX_MAP /
 *    PMAX_MAP) scaled to the port's rate.
 *  - RdmaEcnStep: DCTCP's single threshold K: mark every frame when q > K.
 *
 * Marking and INT are separate: INT hops are appended by the switch
 * (RdmaSwitch::AddIntHop, attribute IntEnabled), whatever the marker.
 *
 * Choosing and configuring a marker:
 * \code
 * Config::SetDefault("ns3::RdmaSwitch::EcnMarker", TypeIdValue(RdmaEcnStep::GetTypeId()));
 * Config::SetDefault("ns3::RdmaEcnStep::K", UintegerValue(65000));
 * // or per helper:
 * rdmaHelper.SetEcnMarker("ns3::RdmaEcnRed", "Kmin", UintegerValue(5000),
 *                         "Kmax", UintegerValue(200000), "Pmax", DoubleValue(0.01));
 * \endcode
 */

#ifndef RDMA_ECN_MARKER_H
#define RDMA_ECN_MARKER_H

#include "ns3/attribute-helper.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup astra-sim
 * Marking thresholds of one egress port. Every marker has them: no frame is
 * marked at or below kminBytes; RED uses all three, the step marker
 * kminBytes = kmaxBytes = K, pmax = 1.
 */
struct RdmaEcnConfig
{
    uint32_t kminBytes{0}; //!< at or below: never mark
    uint32_t kmaxBytes{0}; //!< above: always mark (RED)
    double pmax{0};        //!< marking probability at kmax (RED)
};

/**
 * \ingroup astra-sim
 * Per-line-rate ECN thresholds (HPCC's KMIN_MAP / KMAX_MAP / PMAX_MAP): a port
 * takes the entry of the nearest line rate (in log scale; the lower rate on a
 * tie), with Kmin and Kmax scaled linearly by port rate / entry rate (HPCC
 * itself requires an exact rate match).
 *
 * As an attribute value (RdmaEcnRed::RateThresholds) it is written
 * "RATE:KMIN:KMAX:PMAX[,RATE:KMIN:KMAX:PMAX...]" with RATE in bit/s and the
 * thresholds in bytes, e.g. "25000000000:100000:400000:0.2"; "" is empty.
 */
class RdmaEcnRateMap
{
  public:
    /// Thresholds of one line rate.
    struct Entry
    {
        uint64_t kminBytes{0}; //!< Kmin (bytes)
        uint64_t kmaxBytes{0}; //!< Kmax (bytes)
        double pmax{0};        //!< Pmax
    };

    /// Add or replace the entry of a line rate \param bps rate (bit/s, > 0) \param e entry
    void Set(uint64_t bps, const Entry& e);
    /// \return the entries by rate
    const std::map<uint64_t, Entry>& GetEntries() const;
    /// \return true if there is no entry
    bool IsEmpty() const;
    /**
     * \return "" if every entry is valid (rate > 0, Kmin <= Kmax, Kmax > 0,
     * Pmax in [0, 1]), else the first problem
     */
    std::string Check() const;
    /**
     * Thresholds of a port of this line rate (the map must not be empty).
     * Throws astra::InputError if a scaled threshold exceeds 2^32 - 1 bytes.
     * \param bps the port's rate
     * \return the thresholds
     */
    RdmaEcnConfig ForRate(uint64_t bps) const;

    /// \return true if both hold the same entries \param o the other map
    bool operator==(const RdmaEcnRateMap& o) const;

  private:
    std::map<uint64_t, Entry> m_entries; //!< by line rate (bit/s)
};

/// Write "RATE:KMIN:KMAX:PMAX,..." \param os stream \param m map \return os
std::ostream& operator<<(std::ostream& os, const RdmaEcnRateMap& m);
/// Read the whole rest of the stream as "RATE:KMIN:KMAX:PMAX,..." (failbit on a
/// malformed or invalid entry) \param is stream \param m map \return is
std::istream& operator>>(std::istream& is, RdmaEcnRateMap& m);

ATTRIBUTE_HELPER_HEADER(RdmaEcnRateMap);

/**
 * \ingroup astra-sim
 * ECN marking policy of one switch (base class).
 *
 * The switch registers its ports in index order (AddPort, with the port's
 * line rate); the marker derives each port's thresholds from its attributes
 * (Thresholds()), which SetThresholds() may override per port. ShouldMark()
 * is called per ECN-capable frame: the threshold test against the port's
 * Kmin is inline (no call for a short queue), the decision above it is
 * Decide(). The random stream is the switch's (RdmaSwitch::AssignStreams).
 */
class RdmaEcnMarker : public Object
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaEcnMarker();
    ~RdmaEcnMarker() override;

    /// \return true: decide on the queue behind a frame leaving the port (attribute AtDequeue)
    bool IsAtDequeue() const
    {
        return m_atDequeue;
    }

    /**
     * Check the attribute values.
     * \return "" if valid, else a readable description of every problem
     */
    virtual std::string Validate() const;

    /**
     * Register the next port (ports are added in index order). Throws
     * astra::InputError if its thresholds are invalid.
     * \param lineRateBps the port's rate
     */
    void AddPort(uint64_t lineRateBps);
    /// \return ports registered
    uint32_t GetNPorts() const;
    /**
     * Override the thresholds of one port (throws astra::InputError, naming
     * the values, if invalid or if there is no such port).
     * \param port the port
     * \param cfg its thresholds
     */
    void SetThresholds(uint32_t port, const RdmaEcnConfig& cfg);
    /// \return the thresholds of a port \param port the port
    const RdmaEcnConfig& GetThresholds(uint32_t port) const;

    /**
     * The marking decision for one frame (draws from \p rng only when the
     * decision is random).
     * \param port egress port
     * \param prio the frame's egress priority
     * \param queueBytes the (port, priority) queue: ahead of an arriving frame,
     * behind a departing one
     * \param rng the switch's random stream
     * \return true to mark CE
     */
    bool ShouldMark(uint32_t port, uint8_t prio, uint64_t queueBytes, UniformRandomVariable& rng)
    {
        return queueBytes > m_ports[port].kminBytes && Decide(port, prio, queueBytes, rng);
    }

    /**
     * \return "" if the thresholds are valid (Kmin <= Kmax, Pmax in [0, 1]),
     * else the problem \param kminBytes Kmin \param kmaxBytes Kmax \param pmax Pmax
     */
    static std::string CheckThresholds(uint64_t kminBytes, uint64_t kmaxBytes, double pmax);

  protected:
    /**
     * \return the thresholds of a new port from the attributes
     * \param lineRateBps the port's rate
     */
    virtual RdmaEcnConfig Thresholds(uint64_t lineRateBps) const = 0;
    /**
     * The decision above the port's Kmin.
     * \param port egress port \param prio egress priority \param queueBytes queue length
     * \param rng random stream
     * \return true to mark
     */
    virtual bool Decide(uint32_t port,
                        uint8_t prio,
                        uint64_t queueBytes,
                        UniformRandomVariable& rng) const = 0;

  private:
    bool m_atDequeue{false};            //!< attribute AtDequeue
    std::vector<RdmaEcnConfig> m_ports; //!< thresholds per port
};

/**
 * \ingroup astra-sim
 * RED-like marking (the default marker).
 */
class RdmaEcnRed : public RdmaEcnMarker
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaEcnRed();
    ~RdmaEcnRed() override;

    std::string Validate() const override;

    /**
     * RED marking probability: 0 at or below Kmin, 1 above Kmax, else
     * Pmax x (q - Kmin) / (Kmax - Kmin).
     * \param qBytes queue length
     * \param cfg thresholds
     * \return probability
     */
    static double MarkProbability(uint64_t qBytes, const RdmaEcnConfig& cfg);

  protected:
    RdmaEcnConfig Thresholds(uint64_t lineRateBps) const override;
    bool Decide(uint32_t port,
                uint8_t prio,
                uint64_t queueBytes,
                UniformRandomVariable& rng) const override;

  private:
    uint32_t m_kmin{100000};  //!< attribute Kmin
    uint32_t m_kmax{400000};  //!< attribute Kmax
    double m_pmax{0.2};       //!< attribute Pmax
    RdmaEcnRateMap m_rateMap; //!< attribute RateThresholds
};

/**
 * \ingroup astra-sim
 * DCTCP-style step marking: every ECN-capable frame is marked when the queue
 * exceeds K (deterministic, no random draw).
 */
class RdmaEcnStep : public RdmaEcnMarker
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaEcnStep();
    ~RdmaEcnStep() override;

  protected:
    RdmaEcnConfig Thresholds(uint64_t lineRateBps) const override;
    bool Decide(uint32_t port,
                uint8_t prio,
                uint64_t queueBytes,
                UniformRandomVariable& rng) const override;

  private:
    uint32_t m_k{100000}; //!< attribute K
};

} // namespace ns3

#endif /* RDMA_ECN_MARKER_H */
