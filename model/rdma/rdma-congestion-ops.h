/*
 * RdmaCongestionOps: the pluggable per-QP congestion control of the RDMA host
 * stack, in the style of ns-3's TcpCongestionOps. The host stack holds one
 * template object (attribute RdmaHostStack::CongestionControl) and Fork()s it
 * for every queue pair, so attributes set on the template (or via
 * Config::SetDefault) are copied into each QP's instance.
 *
 * The QP calls the hooks (OnAck, OnNak, OnCnp, OnRttSample, OnInt, OnTimeout,
 * OnSent) and reads GetRate() (pacing rate) and GetWindow() (bytes-in-flight
 * cap, 0 = none) before every transmission. Algorithms may schedule their own
 * timers; they must cancel them in Stop(). A rate change is reported through
 * SetRate(), which informs the owning QP (trace source QpRateChange).
 *
 * The RdmaMeta handed to OnAck is the ACK's parsed headers: it carries the
 * echoed sender timestamp (sendTimeNs) and the INT stack copied from the data
 * packet that triggered the ACK, which is what HPCC, TIMELY and Swift need.
 */

#ifndef RDMA_CONGESTION_OPS_H
#define RDMA_CONGESTION_OPS_H

#include "rdma-meta.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup astra-sim
 * Static facts about a QP's path handed to the algorithm at start.
 */
struct RdmaCcInit
{
    uint64_t lineRateBps{0}; //!< rate of the host port the QP sends on
    Time baseRtt{0};         //!< base RTT estimate (0 = unknown)
    uint64_t windowBytes{0}; //!< window configured on the host stack (0 = none)
    uint32_t mtuBytes{1000}; //!< payload bytes per packet
};

/**
 * \ingroup astra-sim
 * Abstract per-QP congestion control.
 */
class RdmaCongestionOps : public Object
{
  public:
    /// Told when the rate changes: (old bps, new bps).
    using RateChangeCallback = Callback<void, uint64_t, uint64_t>;

    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaCongestionOps();
    RdmaCongestionOps(const RdmaCongestionOps& other); //!< copy attributes (not state)
    ~RdmaCongestionOps() override;

    /// \return the algorithm's name
    virtual std::string GetName() const = 0;
    /// \return a fresh copy with the same attribute values (for a new QP)
    virtual Ptr<RdmaCongestionOps> Fork() = 0;
    /**
     * Validate the attribute values.
     * \return an empty string if valid, else a description of the problem
     */
    virtual std::string Validate() const;
    /**
     * Validate as Init(init) would: the checks that need the path facts (a
     * base RTT for HPCC and DCTCP, MinRate below the line rate) run too.
     * \param init the path facts a new QP would get
     * \return an empty string if valid, else a description of the problem
     */
    std::string ValidateFor(const RdmaCcInit& init);

    /**
     * \return true if the algorithm needs in-band telemetry from the switches
     * (RdmaSwitch::IntEnabled; AstraFabricHelper turns it on when a host uses
     * such an algorithm). Default false.
     */
    virtual bool NeedsInt() const;

    /// Start: called once when the QP is created. Sets rate to line rate.
    virtual void Init(const RdmaCcInit& init);
    /// Cancel timers (the QP is being disposed).
    virtual void Stop();

    /// Cumulative ACK that advanced snd_una by bytesAcked (meta = the ACK's headers).
    virtual void OnAck(uint64_t bytesAcked, const RdmaMeta& meta);
    /// NAK (PSN sequence error) received.
    virtual void OnNak(const RdmaMeta& meta);
    /// Congestion notification packet received.
    virtual void OnCnp(const RdmaMeta& meta);
    /// RTT sample from an ACK's echoed timestamp.
    virtual void OnRttSample(Time rtt, const RdmaMeta& meta);
    /// ACK carrying an INT stack (called after OnAck when meta.intHops > 0).
    virtual void OnInt(const RdmaMeta& meta);
    /// Retransmission timeout fired.
    virtual void OnTimeout();
    /// A data packet with this many payload bytes was sent.
    virtual void OnSent(uint32_t payloadBytes);

    uint64_t GetRate() const;           //!< \return current pacing rate in bit/s
    virtual uint64_t GetWindow() const; //!< \return bytes-in-flight cap (0 = none)
    uint64_t GetLineRate() const;       //!< \return line rate in bit/s

    /// Install the owner's rate-change callback.
    void SetRateChangeCallback(RateChangeCallback cb);

  protected:
    /// Set the rate (clamped to [1 bit/s, line rate]) and notify the owner.
    void SetRate(uint64_t bps);

    RdmaCcInit m_init;           //!< path facts
    uint64_t m_rate{0};          //!< current rate (bit/s)
    uint64_t m_window{0};        //!< window (bytes, 0 = none)
    RateChangeCallback m_rateCb; //!< owner notification
};

/**
 * \ingroup astra-sim
 * No congestion control: always line rate; optional fixed window.
 */
class RdmaCcNone : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaCcNone();
    RdmaCcNone(const RdmaCcNone& other); //!< copy
    ~RdmaCcNone() override;

    std::string GetName() const override;
    Ptr<RdmaCongestionOps> Fork() override;
    void Init(const RdmaCcInit& init) override;

  private:
    uint64_t m_fixedWindow{0}; //!< attribute Window (0 = use the host stack's)
};

} // namespace ns3

#endif /* RDMA_CONGESTION_OPS_H */
