/*
 * Swift (Kumar et al., SIGCOMM 2020) as a per-QP RdmaCongestionOps: a
 * delay-target window (cwnd in packets of MTU bytes) driven by the RTT of the
 * echoed send timestamp (fabric delay = RTT; the model has no host-delay
 * component).
 *
 *   target = BaseTarget + PerHopDelay x hops
 *            (hops: attribute Hops, or 0 = the INT stack depth of the ACK)
 *   delay < target:  cwnd += AdditiveIncrease / cwnd x packetsAcked  (cwnd >= 1)
 *                    cwnd += AdditiveIncrease x packetsAcked          (cwnd < 1)
 *   delay >= target: cwnd *= max(1 - beta (delay - target) / delay, 1 - MaxMdf),
 *                    at most once per RTT (last RTT sample)
 *   cwnd in [MinCwnd, MaxCwnd] packets; GetWindow() = max(cwnd, 1) x MTU.
 *   cwnd < 1: the QP is paced at cwnd x MTU / RTT (one packet every RTT/cwnd),
 *   otherwise it sends at line rate within the window.
 */

#ifndef RDMA_SWIFT_H
#define RDMA_SWIFT_H

#include "rdma-congestion-ops.h"

namespace ns3
{

/**
 * \ingroup astra-sim
 * Swift sender (delay-target window, pacing below one packet).
 */
class RdmaCcSwift : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaCcSwift();
    RdmaCcSwift(const RdmaCcSwift& other); //!< copy attributes
    ~RdmaCcSwift() override;

    std::string GetName() const override;
    Ptr<RdmaCongestionOps> Fork() override;
    std::string Validate() const override;
    void Init(const RdmaCcInit& init) override;
    void OnAck(uint64_t bytesAcked, const RdmaMeta& meta) override;
    void OnRttSample(Time rtt, const RdmaMeta& meta) override;
    void OnTimeout() override;
    uint64_t GetWindow() const override;

    double GetCwnd() const;        //!< \return cwnd (packets)
    Time GetTarget() const;        //!< \return the last delay target used
    uint32_t GetDecreases() const; //!< \return multiplicative decreases so far

  private:
    void UpdatePacing(Time rtt); //!< rate from cwnd (pacing below one packet)

    // attributes
    Time m_baseTarget;
    Time m_perHop;
    uint32_t m_hops{0};
    double m_ai{1.0};
    double m_beta{0.8};
    double m_maxMdf{0.4};
    double m_minCwnd{0.01};
    double m_maxCwnd{0};
    double m_initCwnd{0};

    // state
    double m_cwnd{0};
    double m_cwndMax{0};
    uint64_t m_pendingAcked{0};
    Time m_lastDecrease;
    bool m_decreased{false};
    Time m_target;
    Time m_lastRtt;
    uint32_t m_decreases{0};
};

} // namespace ns3

#endif /* RDMA_SWIFT_H */
