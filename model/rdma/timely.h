/*
 * TIMELY (Mittal et al., SIGCOMM 2015) as a per-QP RdmaCongestionOps:
 * rate-based, driven by the RTT measured from the echoed send timestamp of
 * ACKs (OnRttSample). One update per completion event of at least
 * SegmentBytes acknowledged bytes (the paper's 16-64 KB segments):
 *
 *   new_rtt_diff = rtt - prev_rtt;  prev_rtt = rtt
 *   rtt_diff     = (1 - a) rtt_diff + a new_rtt_diff
 *   g            = rtt_diff / minRTT
 *   rtt < T_low : R += delta
 *   rtt > T_high: R *= 1 - beta (1 - T_high / rtt)
 *   g <= 0      : R += N delta   (N = HaiN after HaiThreshold consecutive
 *                                 such increases, else 1)
 *   else        : R *= 1 - beta g
 * R is clamped to [MinRate, line rate].
 */

#ifndef RDMA_TIMELY_H
#define RDMA_TIMELY_H

#include "rdma-congestion-ops.h"

#include "ns3/data-rate.h"

namespace ns3
{

/**
 * \ingroup astra-sim
 * TIMELY sender (rate-based).
 */
class RdmaCcTimely : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaCcTimely();
    RdmaCcTimely(const RdmaCcTimely& other); //!< copy attributes
    ~RdmaCcTimely() override;

    std::string GetName() const override;
    Ptr<RdmaCongestionOps> Fork() override;
    std::string Validate() const override;
    void Init(const RdmaCcInit& init) override;
    void OnAck(uint64_t bytesAcked, const RdmaMeta& meta) override;
    void OnRttSample(Time rtt, const RdmaMeta& meta) override;

    double GetRttDiff() const;         //!< \return rtt_diff (s)
    uint64_t GetDelta() const;         //!< \return effective delta (bit/s)
    uint32_t GetIncreaseCount() const; //!< \return consecutive gradient increases

  private:
    // attributes
    double m_alpha{0.875};
    double m_beta{0.8};
    Time m_tLow;
    Time m_tHigh;
    Time m_minRtt;
    DataRate m_delta;
    bool m_scale{true};
    DataRate m_refRate;
    uint32_t m_haiThreshold{5};
    uint32_t m_haiN{5};
    uint64_t m_segment{16000};
    DataRate m_minRate;

    // state
    double m_rttDiff{0};
    double m_prevRtt{-1};
    uint64_t m_deltaEff{0};
    uint32_t m_incCount{0};
    uint64_t m_ackedSinceUpdate{0};
    double m_r{0}; //!< rate (bit/s, unrounded)
};

} // namespace ns3

#endif /* RDMA_TIMELY_H */
