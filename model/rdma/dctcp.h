/*
 * DCTCP (Alizadeh et al., SIGCOMM 2010) for RoCE as a per-QP
 * RdmaCongestionOps, in WINDOW form (bytes in flight) with optional pacing at
 * cwnd / T.
 *
 * Marking signal: the fabric's ACKs do not echo CE (the responder turns CE
 * marks into CNPs, RoCEv2 style), so a CNP stands for a marked packet. With
 * RdmaHostStack::CnpInterval = 0 and AckInterval = 1 the responder sends one
 * CNP per CE-marked data packet and F = CNPs / ACKs of the window is exactly
 * DCTCP's marked fraction; with a CNP interval F is a lower bound.
 *
 * Observation windows: a window starts at snd_nxt and ends when the
 * cumulative ACK passes it (one RTT of data). At the end of every window
 *     alpha = (1 - g) alpha + g F
 * On a CNP: cwnd = cwnd (1 - alpha/2), at most once per window (the next cut
 * is allowed once the ACKs pass snd_nxt at the cut). Per ACK (no cut pending):
 *     cwnd += MssIncrease x bytesAcked / cwnd   (one MTU per RTT).
 * cwnd is clamped to [MinWindow, MaxWindow].
 */

#ifndef RDMA_DCTCP_H
#define RDMA_DCTCP_H

#include "rdma-congestion-ops.h"

namespace ns3
{

/**
 * \ingroup astra-sim
 * DCTCP sender (window form; CNPs as the marking signal).
 */
class RdmaCcDctcp : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaCcDctcp();
    RdmaCcDctcp(const RdmaCcDctcp& other); //!< copy attributes
    ~RdmaCcDctcp() override;

    std::string GetName() const override;
    Ptr<RdmaCongestionOps> Fork() override;
    std::string Validate() const override;
    void Init(const RdmaCcInit& init) override;
    void OnAck(uint64_t bytesAcked, const RdmaMeta& meta) override;
    void OnCnp(const RdmaMeta& meta) override;
    void OnSent(uint32_t payloadBytes) override;
    void OnTimeout() override;
    uint64_t GetWindow() const override;

    double GetAlpha() const;          //!< \return alpha
    double GetCwnd() const;           //!< \return cwnd (bytes, unrounded)
    uint64_t GetWindowsEnded() const; //!< \return observation windows completed

  private:
    void UpdatePacing(); //!< rate = cwnd / T

    // attributes
    double m_g{1.0 / 16};
    double m_alphaInit{1.0};
    uint64_t m_initWindow{0};
    uint64_t m_minWindow{0};
    uint64_t m_maxWindow{0};
    uint32_t m_aiBytes{0};
    bool m_pacing{true};
    Time m_baseRtt;

    // state
    double m_alpha{1.0};
    double m_cwnd{0};
    double m_cwndMin{0};
    double m_cwndMax{0};
    double m_t{0};
    uint64_t m_sent{0};
    uint64_t m_acked{0};
    uint64_t m_windowEnd{0};
    uint64_t m_cutEnd{0};
    bool m_cutAllowed{true};
    uint64_t m_acksInWindow{0};
    uint64_t m_marksInWindow{0};
    uint64_t m_windowsEnded{0};
};

} // namespace ns3

#endif /* RDMA_DCTCP_H */
