/*
 * HPCC (Li et al., SIGCOMM 2019) as a per-QP RdmaCongestionOps: the
 * window-based form of the paper (Algorithm 1) with rate pacing W/T.
 *
 * Per ACK carrying INT (OnInt), for every hop i of the stack with a previous
 * sample of the same hop:
 *     txRate_i = (txBytes_i - txBytes_i') * 8 / (ts_i - ts_i')
 *     u_i      = qlen_i * 8 / (B_i T) + txRate_i / B_i
 *     u        = max_i u_i
 *     U        = (1 - tau/T) U + (tau/T) u,  tau = min(ts - ts', T)  (attribute UseEwma)
 * then (ComputeWind):
 *     U >= eta or incStage >= maxStage:  W = Wc / (U/eta) + W_AI
 *     otherwise:                         W = Wc + W_AI
 * Wc (and incStage: reset after a multiplicative step, incremented after an
 * additive one) is committed only when the ACKed byte sequence passes the
 * sequence sent at the previous commit, i.e. once per RTT.
 * The window is W (bytes in flight) and the pacing rate W * 8 / T.
 */

#ifndef RDMA_HPCC_H
#define RDMA_HPCC_H

#include "rdma-congestion-ops.h"

#include "ns3/data-rate.h"

namespace ns3
{

/**
 * \ingroup astra-sim
 * HPCC sender (window + pacing).
 */
class RdmaCcHpcc : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaCcHpcc();
    RdmaCcHpcc(const RdmaCcHpcc& other); //!< copy attributes
    ~RdmaCcHpcc() override;

    std::string GetName() const override;
    Ptr<RdmaCongestionOps> Fork() override;
    std::string Validate() const override;
    /// \return true: HPCC reads the INT stack of every ACK
    bool NeedsInt() const override;
    void Init(const RdmaCcInit& init) override;
    void OnAck(uint64_t bytesAcked, const RdmaMeta& meta) override;
    void OnInt(const RdmaMeta& meta) override;
    void OnSent(uint32_t payloadBytes) override;
    uint64_t GetWindow() const override;

    double GetUtilization() const; //!< \return last (smoothed) U
    double GetWindowBytes() const; //!< \return W (bytes, unrounded)
    double GetCommitted() const;   //!< \return Wc (bytes)
    double GetWai() const;         //!< \return effective W_AI (bytes)
    double GetWinit() const;       //!< \return W_init (bytes)
    uint32_t GetIncStage() const;  //!< \return incStage
    Time GetT() const;             //!< \return T in use

  private:
    double MeasureInflight(const RdmaMeta& meta, bool& valid); //!< U from the INT stack
    void ComputeWind(double u, bool updateWc);                 //!< Algorithm 1 ComputeWind

    // attributes
    double m_eta{0.95};
    uint32_t m_maxStage{5};
    uint32_t m_waiN{16};
    uint64_t m_waiBytes{0};
    uint64_t m_winitBytes{0};
    Time m_baseRtt;
    DataRate m_minRate;
    bool m_useEwma{true};
    uint32_t m_pathHops{0};

    // state
    double m_t{0};     //!< T (s)
    double m_winit{0}; //!< W_init (bytes)
    double m_wai{0};   //!< W_AI (bytes)
    double m_w{0};     //!< W (bytes)
    double m_wc{0};    //!< Wc (bytes)
    double m_u{0};     //!< smoothed U
    uint32_t m_incStage{0};
    uint64_t m_sent{0};          //!< snd_nxt (bytes sent, incl. retransmissions)
    uint64_t m_acked{0};         //!< cumulative bytes ACKed
    uint64_t m_lastUpdateSeq{0}; //!< snd_nxt at the last Wc commit
    bool m_first{true};          //!< no commit yet
    IntHop m_prev[kMaxIntHops];  //!< previous sample per hop
    uint8_t m_prevHops{0};       //!< valid entries of m_prev
};

} // namespace ns3

#endif /* RDMA_HPCC_H */
